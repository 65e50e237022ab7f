/* SPDX-License-Identifier: MIT */
/*
 * The strategy search's plans (search_private.h): a choice of one
 * candidate per searched operator, sharded by the ordinary pass with
 * those strategies (the graph untouched) and priced once by the cost
 * model, kept in a hash table of entries whose time and memory are
 * expressions of the symbols; their values at the sizes bound in s->b;
 * and the best plan at one size, by enumeration or by the cost graph.
 */
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "core/trace.h"
#include "shard/search_private.h"

/* Return a hash of the choice "c" of "s" at the level s->lv. */
static uint64_t
choice_hash(const sym_search *s, const size_t *c)
{
	uint64_t h = sym__hash_mix(SYM__GOLDEN, (uint64_t)s->lv);

	for (size_t j = 0; j < s->n_node; j++)
		h = sym__hash_mix(h, c[j]);
	return sym__mix64(h);
}

/* Make s->cur the sharding of the graph of "s" with the strategies of
 * s->over at the level of optimizer sharding s->lv; 0, or -1 when it
 * has errors (out of memory: s->failed). */
static int
shard_over(sym_search *s)
{
	struct sym__assign a;

	memset(&a, 0, sizeof(a));
	a.strategy = s->over;
	a.n_strategy = s->g->n_node;
	a.mesh = s->xmesh;
	a.n_mesh = s->n_xmesh;
	a.memos = s->memos;
	a.set_optshard = 1;
	a.optshard = s->lv;
	if (s->cur)
		sym__obj_unref(&s->cur->obj);
	s->cur = sym__shard_build(s->g, &a, s->topo);
	if (!s->cur) {
		s->failed = 1;
		return -1;
	}
	if (s->cur->n_errors || s->cur->failed) {
		if (sym_ctx_last_error(s->ctx) == SYM_ENOMEM)
			s->failed = 1;
		sym_ctx_clear_error(s->ctx);
		return -1;
	}
	return 0;
}

/* Make s->cur the sharding of the graph of "s" with the strategies of
 * choice "c" at the level s->lv; 0 when the pass accepts them, -1 when
 * not (an error other than a rejected plan is left on the context:
 * s->failed). */
int
sym__search_shard_with(sym_search *s, const size_t *c)
{
	for (size_t j = 0; j < s->n_node; j++)
		if (!(s->over[s->node[j]->index] =
		            sym__search_candidate(s, j, c[j]))) {
			s->failed = 1;
			return -1;
		}
	return shard_over(s);
}

/* Make room in "s" for one more entry and its place in the index; 0
 * or -1. */
static int
reserve_entry(sym_search *s)
{
	if (SYM__RESERVE(s->ctx, s->entry, s->cap_entry, s->n_entry + 1) < 0)
		return -1;
	return sym__htab_reserve(s->ctx, &s->index, 1);
}

/* Trace the plan of entry "k" of "s": its number, each searched
 * operator's strategy and its priced time and memory (or "rejected"). */
static void
trace_entry(const sym_search *s, size_t k)
{
	const struct sym__sentry *e = &s->entry[k];
	char *fs = e->ok ? sym_expr_to_str(e->fs) : NULL;
	char *mem = e->ok ? sym_expr_to_str(e->mem) : NULL;
	struct sym__str b = SYM__STR_INIT;

	for (size_t j = 0; j < s->n_node; j++)
		sym__str_printf(&b, "%s%s=%s", j ? " " : "",
		    sym_value_name(sym_node_output(s->node[j], 0)),
		    s->cand[j][e->choice[j]]);
	if (e->ok)
		sym__trace("search: plan %zu: %s: time %s fs, memory %s bytes",
		    k, b.s ? b.s : "", fs ? fs : "?", mem ? mem : "?");
	else
		sym__trace("search: plan %zu: %s: rejected", k, b.s ? b.s : "");
	free(fs);
	free(mem);
	sym__str_clear(&b);
}

/* Return the entry of choice "c" of "s" at the level s->lv, pricing it
 * the first time (sharding the graph with it); SIZE_MAX when out of
 * memory. */
static size_t
evaluate(sym_search *s, const size_t *c)
{
	uint64_t h = choice_hash(s, c);
	struct sym__sentry *e;
	sym_cost cost;

	for (size_t i = sym__htab_first(&s->index, h); i != SYM__HTAB_END;
	     i = sym__htab_next(&s->index, h, i)) {
		size_t k = s->index.slot[i].item;

		if (s->entry[k].level == s->lv &&
		    !memcmp(s->entry[k].choice, c, s->n_node * sizeof(*c)))
			return k;
	}
	if (reserve_entry(s) < 0)
		return SIZE_MAX;
	e = &s->entry[s->n_entry];
	memset(e, 0, sizeof(*e));
	e->level = s->lv;
	e->choice = sym__calloc(s->ctx, s->n_node + 1, sizeof(*c));
	if (!e->choice)
		return SIZE_MAX;
	memcpy(e->choice, c, s->n_node * sizeof(*c));
	s->n_eval++;
	memset(&cost, 0, sizeof(cost));
	if (sym__search_shard_with(s, c) == 0 &&
	    sym_sharding_cost(s->cur, s->topo, &cost) == 0) {
		e->fs = sym_expr_copy(cost.time_fs);
		e->mem = sym_expr_copy(cost.memory_bytes);
		e->ok = e->fs && e->mem;
	} else {
		sym_ctx_clear_error(s->ctx);
	}
	sym_cost_clear(&cost);
	if (sym__trace_on(SYM__TRACE_SEARCH))
		trace_entry(s, s->n_entry);
	/* Room was reserved above: this cannot fail. */
	(void)sym__htab_add(s->ctx, &s->index, h, s->n_entry);
	return s->n_entry++;
}

/* Bind the symbol "x" of "s" (and its instances) to "v" in s->b. */
void
sym__search_bind(sym_search *s, const sym_symbol *x, int64_t v)
{
	size_t ns = sym_ctx_n_symbols(s->ctx);

	for (size_t i = 0; x && i < ns; i++) {
		sym_symbol *y = sym_ctx_symbol(s->ctx, i);

		if (sym_symbol_origin(y) == x)
			sym_binding_set(s->b, y, v);
	}
}

/* Bind the searched symbol of "s" (and its instances) to "v" in s->b. */
void
sym__search_bind_at(sym_search *s, int64_t v)
{
	sym__search_bind(s, s->var[0].sym, v);
}

/* The value of entry "e" of "s" at the size bound in s->b: feasible
 * plans (memory within the cap) by their level of optimizer sharding,
 * then their time; then the infeasible ones by their memory; then the
 * plans the pass rejects. */
struct sym__sval
sym__search_value(sym_search *s, size_t e)
{
	const struct sym__sentry *en = &s->entry[e];
	struct sym__sval v = { 2, en->level, 0, 0 };
	int64_t fs, mem;

	if (!en->ok)
		return v;
	if (sym_expr_eval(en->fs, s->b, &fs) < 0 ||
	    sym_expr_eval(en->mem, s->b, &mem) < 0) {
		/* Out of memory ends the search (s->failed, the error kept);
		 * any other error rejects the plan at this size. */
		if (sym_ctx_last_error(s->ctx) == SYM_ENOMEM)
			s->failed = 1;
		else
			sym_ctx_clear_error(s->ctx);
		return v;
	}
	v.fs = fs;
	v.mem = mem;
	v.bad = s->cap > 0 && mem > s->cap;
	return v;
}

/* Return 1 when "a" is better than "b". Among plans that fit the cap,
 * the lower level of optimizer sharding wins, then the shorter time:
 * the search shards the optimizer only when no plan fits without it
 * (sym_search(3)). Among plans over the cap, the smaller memory wins,
 * then the lower level. */
int
sym__search_better(struct sym__sval a, struct sym__sval b)
{
	if (a.bad != b.bad)
		return a.bad < b.bad;
	if (a.bad == 1)
		return a.mem != b.mem ? a.mem < b.mem : a.level < b.level;
	if (a.bad == 0 && a.level != b.level)
		return a.level < b.level;
	return a.bad == 0 && a.fs < b.fs;
}

/* Return the entry of the best plan of "s" at the bound size by
 * enumerating every choice; SIZE_MAX when out of memory. */
static size_t
exhaustive(sym_search *s)
{
	size_t best = SIZE_MAX, j;

	memset(s->choice, 0, s->n_node * sizeof(*s->choice));
	for (;;) {
		size_t e = evaluate(s, s->choice);

		if (e == SIZE_MAX || s->failed)
			return SIZE_MAX;
		if (best == SIZE_MAX ||
		    sym__search_better(sym__search_value(s, e),
		        sym__search_value(s, best)))
			best = e;
		for (j = s->n_node; j-- > 0;) {
			if (++s->choice[j] < s->n_cand[j])
				break;
			s->choice[j] = 0;
		}
		if (j == (size_t)-1)
			return best;
	}
}

/* Return the entry of the best plan "s" finds at the level s->lv and
 * the size bound: every plan when there are at most s->max_eval, else
 * the best of the plan its cost graph's model finds (from the pass's own
 * plan, from "warm", an entry or SIZE_MAX, and from its greedy starts),
 * the pass's own plan and "warm", all priced exactly; SIZE_MAX when out
 * of memory. */
static size_t
at_level(sym_search *s, size_t warm)
{
	const size_t *start[2];
	size_t n = 0, x, best;

	if (!s->cg)
		return exhaustive(s);
	start[n++] = s->start;
	if (warm != SIZE_MAX)
		start[n++] = s->entry[warm].choice;
	if (sym__cg_best(s, s->cg, start, n, s->choice) < 0)
		return SIZE_MAX;
	x = evaluate(s, s->choice);
	best = x == SIZE_MAX || s->failed ? SIZE_MAX : evaluate(s, s->start);
	if (best == SIZE_MAX || s->failed)
		return SIZE_MAX;
	if (sym__search_better(sym__search_value(s, x),
	        sym__search_value(s, best)))
		best = x;
	if (warm != SIZE_MAX &&
	    sym__search_better(sym__search_value(s, warm),
	        sym__search_value(s, best)))
		best = warm;
	return best;
}

/* Return the entry of the best plan "s" finds at size "b" (see
 * at_level): at each level of optimizer sharding searched in turn, the
 * lowest first, until the best plan fits the cap (a plan that fits at a
 * lower level is better than any at a higher one: sym__search_better),
 * each level's best kept in s->level_best; SIZE_MAX when out of
 * memory. */
size_t
sym__search_at(sym_search *s, int64_t b, size_t warm)
{
	size_t best = SIZE_MAX;

	sym__search_bind_at(s, b);
	s->n_level_best = 0;
	for (size_t l = 0; l < s->n_level; l++) {
		size_t e;

		s->lv = s->level[l];
		if (s->cg_at[0] && !s->cg_at[l]) {
			s->cg_at[l] = sym__cg_new(s);
			if (!s->cg_at[l]) {
				best = SIZE_MAX;
				break;
			}
			s->n_probe += sym__cg_n_probes(s->cg_at[l]);
		}
		if (s->cg_at[0])
			s->cg = s->cg_at[l];
		e = at_level(s, warm);
		if (e == SIZE_MAX) {
			best = SIZE_MAX;
			break;
		}
		s->level_best[s->n_level_best++] = e;
		if (best == SIZE_MAX ||
		    sym__search_better(sym__search_value(s, e),
		        sym__search_value(s, best)))
			best = e;
		if (sym__search_value(s, best).bad == 0)
			break;
	}
	s->lv = s->level[0];
	s->cg = s->cg_at[0];
	if (best != SIZE_MAX && sym__trace_on(SYM__TRACE_SEARCH) &&
	    s->n_level > 1)
		sym__trace(
		    "search: at %s = %lld: plan %zu (optimizer_shard=%d)",
		    sym_symbol_name(s->var[0].sym), (long long)b, best,
		    s->entry[best].level);
	else if (best != SIZE_MAX && sym__trace_on(SYM__TRACE_SEARCH))
		sym__trace("search: at %s = %lld: plan %zu",
		    sym_symbol_name(s->var[0].sym), (long long)b, best);
	return best;
}

/* Read into "c" the candidates of the strategies the last sharding of
 * "s" chose for its searched operators; 1 when every one is a candidate,
 * else 0. */
static int
read_choice(sym_search *s, size_t *c)
{
	int all = 1;

	for (size_t j = 0; j < s->n_node; j++) {
		const char *t = sym_sharding_strategy(s->cur, s->node[j]);
		size_t k = 0;

		while (t && k < s->n_cand[j] && strcmp(t, s->cand[j][k]))
			k++;
		if (t && k < s->n_cand[j])
			c[j] = k;
		else
			all = 0;
	}
	return all;
}

/* Set s->start to the plan the pass chooses by itself for the searched
 * operators (MindSpore's defaults and propagation), or the first
 * candidates when it cannot; 0 or -1. */
int
sym__search_default_start(sym_search *s)
{
	for (size_t j = 0; j < s->n_node; j++)
		s->over[s->node[j]->index] = NULL;
	if (shard_over(s) < 0)
		return 0;
	read_choice(s, s->start);
	return 0;
}
