/* SPDX-License-Identifier: MIT */
/*
 * The strategy search (sym_search(3), "parallel auto"): for every
 * forward operator without a shard clause, the tuple strategies its rule
 * accepts over splits that divide the devices; a plan is one strategy
 * per searched operator, sharded by the ordinary pass (backward and
 * update operators derived, redistributions planned) and priced by the
 * cost model (sym_graph_cost) as expressions of the symbols, once per
 * plan. The search runs at sample sizes of the batch symbol (exhaustive
 * when the plans are few, else coordinate descent from the default plan
 * and from the last sample's best), then the plans found are compared
 * exactly between the samples, by bisection over the admissible sizes,
 * into pieces: for every size of a piece its plan is the cheapest of
 * those found that fits the memory cap. Sizes where none fits are an
 * error naming them and the least memory needed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "front/front.h"
#include "core/trace.h"
#include "shard/search_private.h"

#define DEFAULT_MAX_EVALUATIONS 4096
#define MOST_TRIES 200000
/* Above this many candidates of one operator, the cost graph keeps only
 * those over every device or none. */
#define CG_MOST_CANDIDATES 128
/* Layout candidates: the most prime factors a device matrix may have for
 * its orders to be tried (256 devices), and the most for every set of
 * factors that fills a node to be tried; beyond, a set takes the least
 * significant factors of each axis only. */
#define MAX_LAYOUT_AXES 8
#define ALL_SETS_AXES 4
/* Rounds of searching again at the ends of the pieces. */
#define MAX_REFINE 3
/* The most cells the sizes of the second searched symbol are cut in. */
#define MAX_CELLS 16
/* The most sizes of a piece whose memory is checked at each when the
 * prover cannot decide it. */
#define MAX_EXHAUST 65536
/* The greatest sample: sizes beyond it are priced as the last piece. */
#define SAMPLE_LIMIT ((int64_t)1 << 32)

/* Free the search whose header is "obj" (at sym_ctx_free too). */
static void
search_destroy(struct sym__obj *obj)
{
	sym_search *s = SYM__OBJ_OF(obj, sym_search, obj);

	for (size_t j = 0; j < s->n_node; j++) {
		for (size_t c = 0; c < s->n_cand[j]; c++) {
			free(s->cand[j][c]);
			if (s->cand_st && s->cand_st[j])
				sym__strategy_free(s->cand_st[j][c]);
		}
		if (s->cand_st)
			free(s->cand_st[j]);
		free(s->cand[j]);
		free(s->part[j]);
	}
	for (size_t k = 0; k < s->n_xmesh; k++)
		sym__mesh_decl_free(&s->xmesh[k]);
	free(s->xmesh);
	free(s->cand_st);
	free(s->over);
	if (s->cur)
		sym__obj_unref(&s->cur->obj);
	for (size_t e = 0; e < s->n_entry; e++) {
		free(s->entry[e].choice);
		sym_expr_free(s->entry[e].fs);
		sym_expr_free(s->entry[e].mem);
	}
	free(s->entry);
	free(s->bucket);
	free(s->next);
	free(s->cand);
	free(s->part);
	free(s->n_cand);
	free(s->node);
	free(s->piece);
	free(s->choice);
	for (size_t k = 0; k < s->n_mesh; k++)
		free(s->mesh[k]);
	free(s->mesh);
	free(s->shown);
	sym__cg_free(s->cg);
	sym_topology_free(s->own_topo);
	sym_binding_free(s->b);
	free(s);
}

/* Free "s" (NULL: nothing). */
void
sym_search_free(sym_search *s)
{
	if (!s)
		return;
	sym__obj_drop(s->ctx, &s->obj);
}

/* The marks of a candidate (s->part): over some devices but not all; a
 * layout strategy (an order of a tuple strategy's device matrix). */
#define CAND_PART 1
#define CAND_LAYOUT 2

/* Add "text", a strategy over "used" devices (a layout strategy when
 * "layout"), to the candidates of searched node "j" of "s" unless it is
 * there; 0 or -1. */
static int
add_text(sym_search *s, size_t j, const char *text, int64_t used, int layout)
{
	size_t n = s->n_cand[j];
	char **c, *t;
	unsigned char *part;

	for (size_t k = 0; k < n; k++)
		if (!strcmp(s->cand[j][k], text))
			return 0;
	c = realloc(s->cand[j], (n + 1) * sizeof(*c));
	if (c)
		s->cand[j] = c;
	part = realloc(s->part[j], n + 1);
	if (part)
		s->part[j] = part;
	t = strdup(text);
	if (!c || !part || !t) {
		free(t);
		return -1;
	}
	c[n] = t;
	part[n] = (unsigned char)((used > 1 &&
	                                      used < (s->g->devices > 0
	                                                     ? s->g->devices
	                                                     : 1)
	                                  ? CAND_PART
	                                  : 0) |
	    (layout ? CAND_LAYOUT : 0));
	s->n_cand[j] = n + 1;
	return 0;
}

/* Record in "s" the mesh "decl" ("name = (a=2, b=4)") that layout
 * candidates use, unless recorded; 0 or -1. */
static int
add_mesh(sym_search *s, const char *decl)
{
	char *t;

	for (size_t k = 0; k < s->n_mesh; k++)
		if (!strcmp(s->mesh[k], decl))
			return 0;
	if (SYM__RESERVE(s->ctx, s->mesh, s->cap_mesh, s->n_mesh + 1) < 0 ||
	    !(t = sym__strdup(s->ctx, decl)))
		return -1;
	s->mesh[s->n_mesh++] = t;
	return 0;
}

/* The axes of a device matrix cut into prime factors: factor "f" of
 * mesh axis axis[f], of size size[f], named name[f] (the axis's name,
 * then a letter when the axis has several factors). */
struct factors {
	size_t n, axis[MAX_LAYOUT_AXES];
	size_t first[MAX_LAYOUT_AXES]; /* merged: its first factor */
	int64_t size[MAX_LAYOUT_AXES];
	char name[MAX_LAYOUT_AXES][24];
};

/* Cut the axes of size > 1 of "m" into prime factors in "f"; 0, or -1
 * when they are more than MAX_LAYOUT_AXES or a name is too long. */
static int
factor_axes(const sym_mesh *m, struct factors *f)
{
	f->n = 0;
	for (size_t a = 0; m && a < m->n_axes; a++) {
		int64_t v = m->size[a];
		size_t first = f->n;

		for (int64_t p = 2; v > 1; p++)
			while (v % p == 0) {
				if (f->n == MAX_LAYOUT_AXES ||
				    strlen(m->name[a]) + 2 > sizeof(f->name[0]))
					return -1;
				f->axis[f->n] = a;
				f->first[f->n] = f->n;
				f->size[f->n++] = p;
				v /= p;
			}
		for (size_t q = first; q < f->n; q++)
			snprintf(f->name[q], sizeof(f->name[q]), "%s%s",
			    m->name[a],
			    f->n - first > 1
			        ? (char[]){ (char)('a' + q - first), 0 }
			        : "");
	}
	return 0;
}

/* Store in "g" the factors "f" in the order "perm" with the runs of
 * factors of one axis that keep their order merged back into one axis
 * (named as the axis when it is whole). */
static void
merge_factors(const struct factors *f, const size_t *perm, struct factors *g)
{
	g->n = 0;
	for (size_t q = 0; q < f->n;) {
		size_t e = q + 1, x = g->n++, all = 0;

		while (e < f->n && f->axis[perm[e]] == f->axis[perm[q]] &&
		    perm[e] == perm[e - 1] + 1)
			e++;
		g->axis[x] = f->axis[perm[q]];
		g->first[x] = perm[q];
		g->size[x] = 1;
		for (size_t t = q; t < e; t++)
			g->size[x] *= f->size[perm[t]];
		for (size_t t = 0; t < f->n; t++)
			all += f->axis[t] == g->axis[x];
		memcpy(g->name[x], f->name[perm[q]], sizeof(g->name[x]));
		if (all == e - q) /* the whole axis: its own name */
			g->name[x][strlen(g->name[x]) - (all > 1)] = '\0';
		q = e;
	}
}

/* Append to "b" the layout over mesh "mesh" of the layout "l" of a run,
 * each of its axes written as its parts "g" (merge_factors; of "nf"
 * factors) in order. */
static void
layout_text(struct sym__str *b, const char *mesh, const sym_layout *l,
    const struct factors *g, size_t nf)
{
	sym__str_printf(b, "%s(", mesh);
	for (size_t d = 0; d < sym_layout_ndim(l); d++) {
		size_t n = 0, w = 0;

		for (size_t q = 0; q < l->n[d]; q++)
			for (size_t x = 0; x < g->n; x++)
				n += g->axis[x] == (size_t)l->axes[d][q];
		sym__str_puts(b, d ? ", " : "");
		sym__str_puts(b, n == 0 ? "None" : n > 1 ? "(" : "");
		/* an axis's parts, most significant (first factor) first */
		for (size_t q = 0; q < l->n[d]; q++)
			for (size_t t = 0; t < nf; t++)
				for (size_t x = 0; x < g->n; x++)
					if (g->first[x] == t &&
					    g->axis[x] == (size_t)l->axes[d][q])
						sym__str_printf(b, "%s%s",
						    w++ ? ", " : "",
						    g->name[x]);
		sym__str_puts(b, n > 1 ? ")" : "");
	}
	sym__str_puts(b, ")");
}

/* Return 1 when the set "set" of the factors "f" takes of each axis its
 * least significant factors only (the last ones of the axis). */
static int
minor(const struct factors *f, uint32_t set)
{
	for (size_t q = 0; q + 1 < f->n; q++)
		if ((set >> q & 1) && f->axis[q + 1] == f->axis[q] &&
		    !(set >> (q + 1) & 1))
			return 0;
	return 1;
}

/* Add to node "j" of "s" the layout strategies of the run "r" (a tuple
 * strategy over "used" devices) over other orders of its device matrix
 * cut into prime factors: the same splits with the ranks grouped
 * otherwise (a dimension split 4 ways may take two axes of 2 that are
 * not neighbours), which on several nodes decides which collectives stay
 * within a node. The orders tried are one per set of factors that fills
 * a node (s->per_node ranks), as the fastest axes (beyond ALL_SETS_AXES
 * factors, the sets that take the least significant factors of each
 * axis). Each order is a mesh
 * the search declares, "auto_rep2_n4 = (rep=2, n=4)". 0 or -1. */
static int
add_layouts(sym_search *s, size_t j, const struct sym__run *r, int64_t used)
{
	struct factors f, g;
	size_t k, perm[MAX_LAYOUT_AXES];

	if (factor_axes(r->s.mesh, &f) < 0 || f.n < 2)
		return 0;
	for (size_t i = 0; i < r->s.n_in; i++)
		if (!r->s.in[i] || sym_layout_ndim(r->s.in[i]) == 0)
			return 0;
	k = f.n;
	/* every set of factors that fills a node, moved to the end (the
	 * fastest axes, whose groups stay within a node), the others before
	 * it: orders that keep the same set within a node cost the same */
	for (uint32_t set = 1; set < (UINT32_C(1) << k); set++) {
		struct sym__str name = SYM__STR_INIT, decl = SYM__STR_INIT;
		struct sym__str text = SYM__STR_INIT;
		int64_t fill = 1;
		size_t n = 0, same = 1;
		char *dt, *tt;
		int rc;

		for (size_t q = 0; q < k; q++)
			if (set >> q & 1)
				fill *= f.size[q];
		if (fill != s->per_node ||
		    (k > ALL_SETS_AXES && !minor(&f, set)))
			continue;
		for (int last = 0; last < 2; last++)
			for (size_t q = 0; q < k; q++)
				if ((int)(set >> q & 1) == last)
					perm[n++] = q;
		for (size_t q = 0; q < k; q++)
			same &= perm[q] == q;
		if (same)
			continue;
		merge_factors(&f, perm, &g);
		sym__str_puts(&name, "auto");
		for (size_t q = 0; q < g.n; q++)
			sym__str_printf(&name, "_%s%lld", g.name[q],
			    (long long)g.size[q]);
		sym__str_printf(&decl, "%s = (", name.s ? name.s : "");
		for (size_t q = 0; q < g.n; q++)
			sym__str_printf(&decl, "%s%s=%lld", q ? ", " : "",
			    g.name[q], (long long)g.size[q]);
		sym__str_puts(&decl, ")");
		sym__str_puts(&text, "(");
		for (size_t in = 0; in < r->s.n_in; in++) {
			sym__str_puts(&text, in ? ", " : "");
			layout_text(&text, name.s ? name.s : "", r->s.in[in],
			    &g, f.n);
		}
		sym__str_puts(&text, r->s.n_in == 1 ? ",)" : ")");
		dt = sym__str_take(&decl, s->ctx);
		tt = sym__str_take(&text, s->ctx);
		sym__str_clear(&name);
		rc = !dt || !tt || add_mesh(s, dt) < 0 ||
		        add_text(s, j, tt, used, 1) < 0
		    ? -1
		    : 0;
		free(dt);
		free(tt);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Add "text", the strategy of the run "r", to the candidates of the
 * node being collected by "arg" (a sym_search), with its layout
 * strategies over the other orders of its device matrix when the search
 * tries them; 0 or -1. */
static int
add_candidate(void *arg, const char *text, const struct sym__run *r)
{
	sym_search *s = arg;
	size_t j = s->n_node - 1;
	int64_t used = sym__run_devices_used(r);

	if (add_text(s, j, text, used, 0) < 0)
		return -1;
	if (s->layouts && !strstr(text, "->"))
		return add_layouts(s, j, r, used);
	return 0;
}

/* Return 1 when node "n" of "g" is searched: a forward operator without
 * a shard clause (nor a batch_norm_stats whose batch_norm has one) with
 * an input (or, for a generator, an output) of at
 * least one dimension. */
static int
searched(const sym_graph *g, const sym_node *n)
{
	if (n->index >= sym_graph_n_forward_nodes(g) || n->strategy ||
	    (sym__bn_stats_of(g, n->index) && g->node[n->index + 1]->strategy))
		return 0;
	if (n->n_in == 0)
		return n->n_out > 0 && sym__value_shape(n->out[0])->rank > 0;
	for (size_t i = 0; i < n->n_in; i++)
		if (sym__value_shape(n->in[i])->rank > 0)
			return 1;
	return 0;
}

/* Return 1 when the mesh declaration "d" is "decl" ("name = (a=2,
 * b=4)", ranks in order). */
static int
same_mesh_decl(const struct sym__mesh_decl *d, const char *decl)
{
	struct sym__str b = SYM__STR_INIT;
	char *t;
	int same;

	sym__str_printf(&b, "%s = (", d->name);
	for (size_t a = 0; a < d->n_axes; a++)
		sym__str_printf(&b, "%s%s=%lld", a ? ", " : "",
		    d->axis_name[a] ? d->axis_name[a] : "?",
		    (long long)d->axis_size[a]);
	sym__str_puts(&b, ")");
	t = sym__str_take(&b, NULL);
	same = t && d->n_ranks == 0 && !strcmp(t, decl);
	free(t);
	return same;
}

/* Return 1 when the strategy "text" is a layout strategy over the mesh
 * whose name is the "len" bytes at "name". */
static int
over_mesh(const char *text, const char *name, size_t len)
{
	return text[0] == '(' && !strncmp(text + 1, name, len) &&
	    text[1 + len] == '(';
}

/* Drop from "s" the candidates over the mesh "name". */
static void
drop_over(sym_search *s, const char *name)
{
	size_t len = strlen(name);

	for (size_t j = 0; j < s->n_node; j++) {
		size_t m = 0;

		for (size_t k = 0; k < s->n_cand[j]; k++) {
			const char *c = s->cand[j][k];

			if (over_mesh(c, name, len)) {
				free(s->cand[j][k]);
				continue;
			}
			s->part[j][m] = s->part[j][k];
			s->cand[j][m++] = s->cand[j][k];
		}
		s->n_cand[j] = m;
	}
}

/* Read the meshes the layout candidates of "s" use as the meshes of its
 * assignments (those the graph declares with the same axes are the
 * graph's; a name the graph declares otherwise drops the candidates over
 * it); 0 or -1. */
static int
read_meshes(sym_search *s)
{
	s->xmesh = sym__calloc(s->ctx, s->n_mesh + 1, sizeof(*s->xmesh));
	if (!s->xmesh)
		return -1;
	for (size_t k = 0; k < s->n_mesh; k++) {
		size_t len = strcspn(s->mesh[k], " ");
		char name[128];
		const struct sym__mesh_decl *d;

		if (len >= sizeof(name))
			continue;
		memcpy(name, s->mesh[k], len);
		name[len] = '\0';
		d = sym__graph_find_mesh(s->g, name);
		if (!d &&
		    sym__mesh_decl_parse(s->g, s->mesh[k],
		        &s->xmesh[s->n_xmesh++]) < 0)
			return -1;
		if (d && !same_mesh_decl(d, s->mesh[k]))
			drop_over(s, name);
	}
	return 0;
}

/* Collect the searched nodes of "s" and their candidates; 0, or -1 with
 * an error on the context. */
static int
collect(sym_search *s)
{
	sym_graph *g = s->g;
	struct sym__pass p;
	int rc = 0;

	s->node = calloc(g->n_node + 1, sizeof(*s->node));
	s->cand = calloc(g->n_node + 1, sizeof(*s->cand));
	s->part = calloc(g->n_node + 1, sizeof(*s->part));
	s->n_cand = calloc(g->n_node + 1, sizeof(*s->n_cand));
	s->cand_st = calloc(g->n_node + 1, sizeof(*s->cand_st));
	s->over = calloc(g->n_node + 1, sizeof(*s->over));
	if (!s->node || !s->cand || !s->part || !s->n_cand || !s->cand_st ||
	    !s->over || sym__pass_begin(&p, g, s->topo) < 0) {
		sym__oom(s->ctx);
		return -1;
	}
	for (size_t i = 0; i < g->n_node && rc == 0; i++) {
		sym_node *n = g->node[i];

		if (!searched(g, n))
			continue;
		s->node[s->n_node++] = n;
		if (sym__shard_candidates(&p, n, MOST_TRIES, add_candidate, s) <
		    0) {
			sym__oom(s->ctx);
			rc = -1;
		} else if (s->n_cand[s->n_node - 1] == 0) {
			char *label = sym__node_label(n);

			sym__error(s->ctx, SYM_EINVAL, &n->loc,
			    "search: %s has no strategy over %lld devices",
			    label ? label : n->op->name, (long long)p.devices);
			free(label);
			rc = -1;
		}
	}
	sym__pass_end(&p);
	return rc < 0 ? rc : read_meshes(s);
}

/* Return the number of plans of "s", saturated at SIZE_MAX. */
static size_t
n_plans(const sym_search *s)
{
	size_t n = 1;

	for (size_t j = 0; j < s->n_node; j++) {
		if (s->n_cand[j] && n > SIZE_MAX / s->n_cand[j])
			return SIZE_MAX;
		n *= s->n_cand[j];
	}
	return n;
}

/* Drop the candidates of operator "j" of "s" that have all the marks
 * "drop" (keep them all when none would be left). */
static void
drop_candidates(sym_search *s, size_t j, unsigned char drop)
{
	size_t m = 0;

	for (size_t k = 0; k < s->n_cand[j]; k++)
		m += (s->part[j][k] & drop) != drop;
	if (m == 0)
		return;
	m = 0;
	for (size_t k = 0; k < s->n_cand[j]; k++) {
		if ((s->part[j][k] & drop) == drop) {
			free(s->cand[j][k]);
			continue;
		}
		s->part[j][m] = s->part[j][k];
		s->cand[j][m++] = s->cand[j][k];
	}
	s->n_cand[j] = m;
}

/* When "s" has more plans than it enumerates, bring every operator with
 * more than CG_MOST_CANDIDATES candidates (many devices) within that
 * many if it can: first drop its layout strategies over some devices but
 * not all (the tuple strategies stay those a search over them alone
 * has), then its layout strategies, then, as MindSpore's
 * fully_use_devices does, its tuple strategies over some devices but
 * not all. */
static void
prune_candidates(sym_search *s)
{
	static const unsigned char drops[] = { CAND_LAYOUT | CAND_PART,
		CAND_LAYOUT, CAND_PART };

	if (n_plans(s) <= s->max_eval)
		return;
	for (size_t j = 0; j < s->n_node; j++)
		for (size_t k = 0;
		     k < sizeof(drops) && s->n_cand[j] > CG_MOST_CANDIDATES;
		     k++)
			drop_candidates(s, j, drops[k]);
}

/* Return a hash of the choice "c" of "s". */
static uint64_t
choice_hash(const sym_search *s, const size_t *c)
{
	uint64_t h = SYM__GOLDEN;

	for (size_t j = 0; j < s->n_node; j++)
		h = sym__hash_mix(h, c[j]);
	return h;
}

static int piece_sharding(sym_search *s, size_t i);

/* Return the strategy of candidate "k" of searched operator "j" of "s",
 * read the first time; NULL when out of memory. */
static const struct sym__strategy *
candidate(sym_search *s, size_t j, size_t k)
{
	if (!s->cand_st[j]) {
		s->cand_st[j] =
		    sym__calloc(s->ctx, s->n_cand[j] + 1, sizeof(**s->cand_st));
		if (!s->cand_st[j])
			return NULL;
	}
	if (!s->cand_st[j][k])
		s->cand_st[j][k] = sym__strategy_parse(s->g, s->cand[j][k]);
	return s->cand_st[j][k];
}

/* Make s->cur the sharding of the graph of "s" with the strategies of
 * s->over; 0, or -1 when it has errors (out of memory: s->failed). */
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
 * choice "c"; 0 when the pass accepts them, -1 when not (an error other
 * than a rejected plan is left on the context: s->failed). */
int
sym__search_shard_with(sym_search *s, const size_t *c)
{
	for (size_t j = 0; j < s->n_node; j++)
		if (!(s->over[s->node[j]->index] = candidate(s, j, c[j]))) {
			s->failed = 1;
			return -1;
		}
	return shard_over(s);
}

/* Make room in "s" for one more entry, its chain and, past a load of
 * one, twice the buckets; 0 or -1. */
static int
reserve_entry(sym_search *s)
{
	if (s->n_entry == s->cap_entry) {
		size_t cap = s->cap_entry ? 2 * s->cap_entry : 64;
		struct sym__sentry *ne = realloc(s->entry, cap * sizeof(*ne));
		size_t *nx;

		if (!ne)
			return -1;
		s->entry = ne;
		nx = realloc(s->next, cap * sizeof(*nx));
		if (!nx)
			return -1;
		s->next = nx;
		s->cap_entry = cap;
	}
	if (s->n_entry >= s->n_bucket) {
		size_t nb = s->n_bucket ? 2 * s->n_bucket : 256;
		size_t *b = malloc(nb * sizeof(*b));

		if (!b)
			return -1;
		free(s->bucket);
		s->bucket = b;
		s->n_bucket = nb;
		for (size_t k = 0; k < nb; k++)
			b[k] = SIZE_MAX;
		for (size_t e = 0; e < s->n_entry; e++) {
			size_t h = s->entry[e].hash & (nb - 1);

			s->next[e] = b[h];
			b[h] = e;
		}
	}
	return 0;
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

/* Return the entry of choice "c" of "s", pricing it the first time
 * (sharding the graph with it); SIZE_MAX when out of memory. */
static size_t
evaluate(sym_search *s, const size_t *c)
{
	uint64_t h = choice_hash(s, c);
	struct sym__sentry *e;
	sym_cost cost;
	size_t k;

	for (k = s->n_bucket ? s->bucket[h & (s->n_bucket - 1)] : SIZE_MAX;
	     k != SIZE_MAX; k = s->next[k])
		if (s->entry[k].hash == h &&
		    !memcmp(s->entry[k].choice, c, s->n_node * sizeof(*c)))
			return k;
	if (reserve_entry(s) < 0)
		return SIZE_MAX;
	e = &s->entry[s->n_entry];
	memset(e, 0, sizeof(*e));
	e->hash = h;
	e->choice = malloc((s->n_node + 1) * sizeof(*c));
	if (!e->choice)
		return SIZE_MAX;
	memcpy(e->choice, c, s->n_node * sizeof(*c));
	s->n_eval++;
	memset(&cost, 0, sizeof(cost));
	if (sym__search_shard_with(s, c) == 0 &&
	    sym_sharding_cost(s->cur, s->topo, &cost) == 0) {
		e->fs = sym_expr_copy(cost.seconds_fs);
		e->mem = sym_expr_copy(cost.memory_bytes);
		e->ok = e->fs && e->mem;
	} else {
		sym_ctx_clear_error(s->ctx);
	}
	sym_cost_clear(&cost);
	if (sym__trace_on(SYM__TRACE_SEARCH))
		trace_entry(s, s->n_entry);
	k = h & (s->n_bucket - 1);
	s->next[s->n_entry] = s->bucket[k];
	s->bucket[k] = s->n_entry;
	return s->n_entry++;
}

/* Bind the symbol "x" of "s" (and its instances) to "v" in s->b. */
static void
bind_symbol(sym_search *s, const sym_symbol *x, int64_t v)
{
	size_t ns = sym_ctx_n_symbols(s->ctx);

	for (size_t i = 0; x && i < ns; i++) {
		sym_symbol *y = sym_ctx_symbol(s->ctx, i);

		if (sym_symbol_origin(y) == x)
			sym_binding_set(s->b, y, v);
	}
}

/* Bind the searched symbol of "s" (and its instances) to "v" in s->b. */
static void
bind_at(sym_search *s, int64_t v)
{
	bind_symbol(s, s->sym, v);
}

/* The value of entry "e" of "s" at the size bound in s->b: feasible
 * plans (memory within the cap) by their time, then the infeasible ones
 * by their memory, then the plans the pass rejects. */
static struct sym__sval
value(sym_search *s, size_t e)
{
	const struct sym__sentry *en = &s->entry[e];
	struct sym__sval v = { 2, 0, 0 };
	int64_t fs, mem;

	if (!en->ok || sym_expr_eval(en->fs, s->b, &fs) < 0 ||
	    sym_expr_eval(en->mem, s->b, &mem) < 0) {
		sym_ctx_clear_error(s->ctx);
		return v;
	}
	v.fs = fs;
	v.mem = mem;
	v.bad = s->cap > 0 && mem > s->cap;
	return v;
}

/* Return 1 when "a" is better than "b". */
static int
better(struct sym__sval a, struct sym__sval b)
{
	if (a.bad != b.bad)
		return a.bad < b.bad;
	if (a.bad == 1)
		return a.mem < b.mem;
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
		if (best == SIZE_MAX || better(value(s, e), value(s, best)))
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

/* Return the entry of the best plan "s" finds at size "b": every plan
 * when there are at most s->max_eval, else the best of the plan its cost
 * graph's model finds (from the pass's own plan, from "warm", an entry
 * or SIZE_MAX, and from its greedy starts), the pass's own plan and
 * "warm", all priced exactly; SIZE_MAX when out of memory. */
static size_t
search_at(sym_search *s, int64_t b, size_t warm)
{
	const size_t *start[2];
	size_t n = 0, x, best;

	bind_at(s, b);
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
	if (better(value(s, x), value(s, best)))
		best = x;
	if (warm != SIZE_MAX && better(value(s, warm), value(s, best)))
		best = warm;
	if (sym__trace_on(SYM__TRACE_SEARCH))
		sym__trace("search: at %s = %lld: plan %zu",
		    sym_symbol_name(s->sym), (long long)b, best);
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
static int
default_start(sym_search *s)
{
	for (size_t j = 0; j < s->n_node; j++)
		s->over[s->node[j]->index] = NULL;
	if (shard_over(s) < 0)
		return 0;
	read_choice(s, s->start);
	return 0;
}

/* Return the least size from "lo" to "hi" (INT64_MAX: no bound) of a
 * symbol of "info" that is at least "x" and admissible (x when it has no
 * divisor), INT64_MAX when none. */
static int64_t
admissible_in(const sym_symbol_info *info, int64_t lo, int64_t hi, int64_t x)
{
	int64_t d = info->divisor > 0 ? info->divisor : 1;
	int64_t r;

	if (x < lo)
		x = lo;
	r = ((info->remainder - x) % d + d) % d;
	if (x > INT64_MAX - r || (hi != INT64_MAX && x + r > hi))
		return INT64_MAX;
	return x + r;
}

/* Return the least admissible size of the searched symbol of "s" that is
 * at least "x", INT64_MAX when none. */
static int64_t
admissible_from(const sym_search *s, int64_t x)
{
	return admissible_in(&s->info, s->lo, s->hi, x);
}

/* The winner among the plans "set" ("n" entries) of "s" at size "b": the
 * best one's index in "set" and its state (struct sym__sval) in
 * "*bad". */
static size_t
winner(sym_search *s, const size_t *set, size_t n, int64_t b, int *bad)
{
	size_t w = 0;

	bind_at(s, b);
	for (size_t k = 1; k < n; k++)
		if (better(value(s, set[k]), value(s, set[w])))
			w = k;
	*bad = value(s, set[w]).bad;
	return w;
}

/* Return 1 when the winner "w" in state "bad" and "w2" in state "bad2"
 * make one piece: the same state, and the same plan when it fits (the
 * sizes where none fits, or none can be priced, are one piece). */
static int
same_win(size_t w, int bad, size_t w2, int bad2)
{
	return bad == bad2 && (bad != 0 || w == w2);
}

/* Return the greatest admissible size in ["a", "c") of "s" at which the
 * winner of "set" still makes one piece with "w" in state "bad" (the
 * winner at "a"), by bisection over the admissible sizes. */
static int64_t
last_of(sym_search *s, const size_t *set, size_t n, int64_t a, int64_t c,
    size_t w, int bad)
{
	int64_t d = s->info.divisor > 0 ? s->info.divisor : 1;
	int64_t lo = 0, hi = (c - a) / d; /* a + lo*d keeps, a + hi*d not */

	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2, b = a + mid * d;
		int f;
		size_t x = winner(s, set, n, b, &f);

		if (same_win(x, f, w, bad))
			lo = mid;
		else
			hi = mid;
	}
	return a + lo * d;
}

/* Append the piece ["lo", "hi"] of plan "entry" in state "bad" to "s"; 0
 * or -1. */
static int
add_piece(sym_search *s, int64_t lo, int64_t hi, size_t entry, int bad)
{
	struct sym__spiece *p =
	    realloc(s->piece, (s->n_piece + 1) * sizeof(*p));

	if (!p)
		return -1;
	s->piece = p;
	p[s->n_piece++] = (struct sym__spiece){ lo, hi, entry, bad, 0, 0 };
	if (sym__trace_on(SYM__TRACE_SEARCH))
		sym__trace("search: piece %zu: %s in [%lld, %lld]: plan %zu%s",
		    s->n_piece - 1, sym_symbol_name(s->sym), (long long)lo,
		    (long long)hi, entry, bad ? " (does not fit)" : "");
	return 0;
}

/* Cut the sizes of "s" into pieces over the plans "set" ("n") found at
 * the "ns" samples "sample": between two samples whose winners differ,
 * each boundary by bisection, assuming every plan wins on one interval
 * of sizes (true when times are linear in the symbol: the best of lines
 * is their lower envelope). 0 or -1. */
static int
cut_pieces(sym_search *s, const size_t *set, size_t n, const int64_t *sample,
    size_t ns)
{
	int bad, f;
	int64_t lo = sample[0];
	size_t w = winner(s, set, n, lo, &bad);

	for (size_t k = 1; k < ns; k++)
		for (;;) {
			size_t x = winner(s, set, n, sample[k], &f);
			int64_t end;

			if (same_win(x, f, w, bad))
				break;
			end = last_of(s, set, n, lo, sample[k], w, bad);
			if (add_piece(s, lo, end, set[w], bad) < 0)
				return -1;
			lo = admissible_from(s, end + 1);
			w = winner(s, set, n, lo, &bad);
		}
	return add_piece(s, lo, s->hi == INT64_MAX ? -1 : s->hi, set[w], bad);
}

/* Store the information of the symbol "y" in "*info", its least
 * admissible size (at least 1; INT64_MAX when none) in "*lo" and its
 * greatest in "*hi" (INT64_MAX: no bound). */
static void
sizes_of(const sym_symbol *y, sym_symbol_info *info, int64_t *lo, int64_t *hi)
{
	sym_symbol_get_info(y, info);
	*lo = sym_symbol_least(y) > 0 ? sym_symbol_least(y) : 1;
	*hi = sym_symbol_greatest(y) > 0 ? sym_symbol_greatest(y) : INT64_MAX;
	*lo = admissible_in(info, *lo, *hi, *lo);
}

/* Set the second searched symbol of "s", "y" (an origin), unless it has
 * a single admissible size: then it stays at it. */
static void
choose_second(sym_search *s, sym_symbol *y)
{
	int64_t lo, hi;

	sizes_of(y, &s->info2, &lo, &hi);
	if (lo == INT64_MAX ||
	    admissible_in(&s->info2, lo, hi, lo + 1) == INT64_MAX)
		return;
	s->sym2 = y;
	s->lo2 = lo;
	s->hi2 = hi;
	/* unbounded: looked at up to SAMPLE_LIMIT */
	s->top2 = hi != INT64_MAX ? hi
	                          : admissible_in(&s->info2, lo, hi,
	                                lo > SAMPLE_LIMIT ? lo : SAMPLE_LIMIT);
	if (s->top2 == INT64_MAX)
		s->sym2 = NULL;
}

/* Choose the searched symbols of "s": the first symbol of the context
 * (its origin) and the next one with more than one admissible size; the
 * others stay at their least values in s->b. */
static void
choose_symbol(sym_search *s)
{
	size_t ns = sym_ctx_n_symbols(s->ctx);

	for (size_t i = 0; i < ns; i++) {
		sym_symbol *y = sym_ctx_symbol(s->ctx, i);

		sym_binding_set(s->b, y, sym_symbol_least(y));
		if (s->sym && !s->sym2 && sym_symbol_origin(y) == y)
			choose_second(s, y);
		if (!s->sym && sym_symbol_origin(y) == y)
			s->sym = y;
	}
	s->info = (sym_symbol_info)SYM_SYMBOL_INFO_INIT;
	if (!s->sym) {
		s->lo = s->hi = 1;
		return;
	}
	sizes_of(s->sym, &s->info, &s->lo, &s->hi);
}

/* Store in "sample" (room for 70) the sizes "s" searches at: the least
 * admissible one, then four times larger each, up to the greatest or
 * SAMPLE_LIMIT; return how many. */
static size_t
samples(sym_search *s, int64_t *sample)
{
	size_t n = 0;
	int64_t v = s->lo;

	while (v != INT64_MAX && n < 68) {
		sample[n++] = v;
		if (!s->sym || v >= SAMPLE_LIMIT)
			break;
		v = admissible_from(s,
		    v > SAMPLE_LIMIT / 4 ? SAMPLE_LIMIT : 4 * v);
	}
	if (s->hi != INT64_MAX && sample[n - 1] != s->hi &&
	    sym_symbol_admits(s->sym, s->hi))
		sample[n++] = s->hi;
	return n;
}

/* Return, malloc'ed, the sizes of the second searched symbol of "s" the
 * piece "p" covers as a clause, " and s in [8, 24]" (" and s >= 32",
 * " and s = 8"), "" when there is none; NULL when out of memory. */
static char *
second_text(const sym_search *s, const struct sym__spiece *p)
{
	const char *n = s->sym2 ? sym_symbol_name(s->sym2) : NULL;

	if (!n)
		return sym__strdup(s->ctx, "");
	if (p->hi2 < 0)
		return sym__asprintf(" and %s >= %lld", n, (long long)p->lo2);
	if (p->hi2 == p->lo2)
		return sym__asprintf(" and %s = %lld", n, (long long)p->lo2);
	return sym__asprintf(" and %s in [%lld, %lld]", n, (long long)p->lo2,
	    (long long)p->hi2);
}

/* Record on the context the error of the first piece of "s" where no
 * plan fits the cap; return -1. */
static int
no_fit(sym_search *s, const struct sym__spiece *p)
{
	int64_t least = INT64_MAX;
	const char *n = s->sym ? sym_symbol_name(s->sym) : "?";
	char *cell = second_text(s, p), at2[96] = "";

	bind_at(s, p->lo);
	if (s->sym2)
		bind_symbol(s, s->sym2, p->lo2);
	for (size_t e = 0; e < s->n_entry; e++) {
		struct sym__sval v = value(s, e);

		if (v.bad < 2 && v.mem < least)
			least = v.mem;
	}
	if (!cell)
		return -1;
	if (s->sym2)
		snprintf(at2, sizeof(at2), ", %s = %lld",
		    sym_symbol_name(s->sym2), (long long)p->lo2);
	if (p->hi < 0)
		sym__error(s->ctx, SYM_EINVAL,
		    s->g->auto_parallel ? &s->g->auto_loc : NULL,
		    "search: no plan fits memory=%lld bytes for %s >= %lld%s: "
		    "the least memory needed at %s = %lld%s is %lld bytes",
		    (long long)s->cap, n, (long long)p->lo, cell, n,
		    (long long)p->lo, at2, (long long)least);
	else
		sym__error(s->ctx, SYM_EINVAL,
		    s->g->auto_parallel ? &s->g->auto_loc : NULL,
		    "search: no plan fits memory=%lld bytes for %s in [%lld, "
		    "%lld]%s: the least memory needed at %s = %lld%s is %lld "
		    "bytes",
		    (long long)s->cap, n, (long long)p->lo, (long long)p->hi,
		    cell, n, (long long)p->lo, at2, (long long)least);
	free(cell);
	return -1;
}

/* Return 1 when the plan of entry "e" of "s" can be priced at size "v"
 * of its symbol, the second one (if any) at "v2". */
static int
priced_at(sym_search *s, size_t e, int64_t v, int64_t v2)
{
	bind_at(s, v);
	if (s->sym2)
		bind_symbol(s, s->sym2, v2);
	return value(s, e).bad < 2;
}

/* Return the least size of piece "p" of "s" (one that fits) at which
 * its plan cannot be priced (its time or memory beyond 64 bits; found by
 * bisection, assuming costs grow with the sizes), the second symbol at
 * the greatest size of the piece (or s->top2); -1 when there is none. */
static int64_t
first_unpriced(sym_search *s, const struct sym__spiece *p)
{
	int64_t d = s->info.divisor > 0 ? s->info.divisor : 1;
	int64_t v2 = p->hi2 >= 0 ? p->hi2 : s->top2, lo = 0;
	int64_t hi = p->hi >= 0 ? (p->hi - p->lo) / d : (INT64_MAX - p->lo) / d;

	if (priced_at(s, p->entry, p->lo + hi * d, v2))
		return -1;
	if (!priced_at(s, p->entry, p->lo, v2))
		return p->lo;
	while (hi - lo > 1) { /* p->lo + lo*d priced, p->lo + hi*d not */
		int64_t mid = lo + (hi - lo) / 2;

		if (priced_at(s, p->entry, p->lo + mid * d, v2))
			lo = mid;
		else
			hi = mid;
	}
	return p->lo + hi * d;
}

/* Bound the pieces of "s" that fit where their plan can no longer be
 * priced (first_unpriced), the sizes of the cell beyond made one piece
 * that cannot be priced; 0 or -1. */
static int
bound_pieces(sym_search *s)
{
	struct sym__spiece *out = calloc(2 * s->n_piece + 1, sizeof(*out)), p;
	int64_t d = s->info.divisor > 0 ? s->info.divisor : 1;
	size_t n = 0, e;

	if (!out)
		return -1;
	for (size_t i = 0; i < s->n_piece; i = e) {
		int64_t cut = -1;

		for (e = i;
		     e < s->n_piece && s->piece[e].lo2 == s->piece[i].lo2;)
			e++;
		for (size_t k = i; k < e && cut < 0; k++) {
			p = s->piece[k];
			cut = p.bad == 2           ? p.lo
			    : p.bad == 0 && s->sym ? first_unpriced(s, &p)
			                           : -1;
			if (cut > p.lo) {
				out[n] = p;
				out[n++].hi = cut - d;
			}
			if (cut < 0) {
				out[n++] = p;
				continue;
			}
			p.lo = cut;
			p.hi = s->piece[e - 1].hi;
			p.bad = 2;
			out[n++] = p;
		}
	}
	free(s->piece);
	s->piece = out;
	s->n_piece = n;
	bind_at(s, s->lo);
	if (s->sym2)
		bind_symbol(s, s->sym2, s->lo2);
	return 0;
}

/* Check that some piece of "s" fits; else record the error of the
 * first sizes where no plan fits the cap (the consecutive pieces of one
 * cell), or of the first where none can be priced. 0 or -1. */
static int
some_fit(sym_search *s)
{
	size_t i;
	struct sym__spiece p;

	for (i = 0; i < s->n_piece; i++)
		if (s->piece[i].bad == 0)
			return 0;
	for (i = 0; i < s->n_piece && s->piece[i].bad != 1; i++)
		;
	if (i < s->n_piece) {
		p = s->piece[i];
		while (i + 1 < s->n_piece && s->piece[i + 1].bad &&
		    s->piece[i + 1].lo2 == p.lo2)
			p.hi = s->piece[++i].hi;
		return no_fit(s, &p);
	}
	sym__error(s->ctx, SYM_EINVAL,
	    s->g->auto_parallel ? &s->g->auto_loc : NULL,
	    "search: no plan can be priced at %s = %lld: the time or memory "
	    "of every plan overflows 64 bits",
	    s->sym ? sym_symbol_name(s->sym) : "?",
	    (long long)(s->n_piece ? s->piece[0].lo : s->lo));
	return -1;
}

/* The plans that won somewhere: entries of a search. */
struct winners {
	size_t *e;
	size_t n, cap;
};

/* Add entry "e" to "w" unless it is there; return 1 when added, 0 when
 * it was there, -1 when out of memory (recorded on "ctx"). */
static int
set_add(sym_ctx *ctx, struct winners *w, size_t e)
{
	for (size_t m = 0; m < w->n; m++)
		if (w->e[m] == e)
			return 0;
	if (SYM__RESERVE(ctx, w->e, w->cap, w->n + 1) < 0)
		return -1;
	w->e[w->n++] = e;
	return 1;
}

/* Assume in the context of "s" that the symbol "x" lies in ["lo", "hi"]
 * ("hi" -1: no bound); 0 or -1. */
static int
assume_range(sym_search *s, sym_symbol *x, int64_t lo, int64_t hi)
{
	sym_expr *y = sym_expr_symbol(x), *l = sym_expr_const(s->ctx, lo);
	sym_expr *h = hi >= 0 ? sym_expr_const(s->ctx, hi) : NULL;
	int rc = !y || !l || (hi >= 0 && !h) ||
	        sym_ctx_assume(s->ctx, y, SYM_GE, l, NULL) < 0 ||
	        (h && sym_ctx_assume(s->ctx, y, SYM_LE, h, NULL) < 0)
	    ? -1
	    : 0;

	sym_expr_free(y);
	sym_expr_free(l);
	sym_expr_free(h);
	return rc;
}

/* Decide whether the memory of piece "p" of "s" stays within the cap by
 * evaluating it at every admissible size it covers, when they are at
 * most MAX_EXHAUST (both symbols bounded); SYM_TRUE, SYM_FALSE with the
 * first size that breaks it in "*at" and "*at2", or SYM_UNKNOWN. */
static sym_answer
exhaust_memory(sym_search *s, const struct sym__spiece *p, int64_t *at,
    int64_t *at2)
{
	int64_t d = s->info.divisor > 0 ? s->info.divisor : 1;
	int64_t d2 = s->info2.divisor > 0 ? s->info2.divisor : 1;
	int64_t n = p->hi < 0 ? -1 : (p->hi - p->lo) / d + 1, n2 = 1, mem;
	const sym_expr *e = s->entry[p->entry].mem;

	if (s->sym2)
		n2 = p->hi2 < 0 ? -1 : (p->hi2 - p->lo2) / d2 + 1;
	if (n < 0 || n2 < 0 || n > MAX_EXHAUST || n * n2 > MAX_EXHAUST)
		return SYM_UNKNOWN;
	for (int64_t k2 = 0; k2 < n2; k2++)
		for (int64_t k = 0; k < n; k++) {
			bind_at(s, p->lo + k * d);
			if (s->sym2)
				bind_symbol(s, s->sym2, p->lo2 + k2 * d2);
			if (sym_expr_eval(e, s->b, &mem) < 0) {
				sym_ctx_clear_error(s->ctx);
				return SYM_UNKNOWN;
			}
			if (mem > s->cap) {
				*at = p->lo + k * d;
				*at2 = p->lo2 + k2 * d2;
				return SYM_FALSE;
			}
		}
	return SYM_TRUE;
}

/* Prove that the memory of every piece of "s" that fits stays within
 * the cap for every size it covers (the prover, under the piece's
 * bounds on both searched symbols); 0, or -1 with an error naming the
 * piece and the size that breaks it. */
static int
prove_memory(sym_search *s)
{
	int rc = 0;

	for (size_t i = 0; i < s->n_piece && rc == 0 && s->cap > 0; i++) {
		const struct sym__spiece *p = &s->piece[i];
		sym_expr *cap;
		sym_binding *w = NULL;
		sym_answer a = SYM_UNKNOWN;
		int64_t at = p->lo, at2 = p->lo2;
		char *cell, where[96] = "";

		if (p->bad || !s->sym)
			continue;
		cap = sym_expr_const(s->ctx, s->cap);
		if (!cap || sym_ctx_push(s->ctx) < 0) {
			sym_expr_free(cap);
			return -1;
		}
		if (assume_range(s, s->sym, p->lo, p->hi) < 0 ||
		    (s->sym2 && assume_range(s, s->sym2, p->lo2, p->hi2) < 0))
			rc = -1;
		else
			a = sym_prove_cmp(s->ctx, s->entry[p->entry].mem,
			    SYM_LE, cap, &w);
		sym_ctx_pop(s->ctx);
		sym_expr_free(cap);
		if (rc == 0 && a != SYM_TRUE && a != SYM_FALSE) {
			sym_binding_free(w);
			w = NULL;
			a = exhaust_memory(s, p, &at, &at2);
		}
		if (rc < 0 || a == SYM_TRUE) {
			sym_binding_free(w);
			continue;
		}
		if (w) {
			sym_binding_get(w, s->sym, &at);
			if (s->sym2)
				sym_binding_get(w, s->sym2, &at2);
		}
		sym_binding_free(w);
		cell = second_text(s, p);
		if (!cell)
			return -1;
		if (s->sym2)
			snprintf(where, sizeof(where), ", %s = %lld",
			    sym_symbol_name(s->sym2), (long long)at2);
		sym__error(s->ctx, SYM_EINVAL,
		    s->g->auto_parallel ? &s->g->auto_loc : NULL,
		    "search: the memory of the plan for %s in [%lld, %lld]%s "
		    "is not proven within memory=%lld bytes (%s at %s = "
		    "%lld%s)",
		    sym_symbol_name(s->sym), (long long)p->lo, (long long)p->hi,
		    cell, (long long)s->cap,
		    a == SYM_FALSE ? "exceeded" : "undecided",
		    sym_symbol_name(s->sym), (long long)at, where);
		free(cell);
		rc = -1;
	}
	return rc;
}

/* Check that the cap of "s" leaves room for the parameters alone, each
 * split over every device (no plan can do better), at the least sizes;
 * 0, or -1 with an error located at the statement. */
static int
params_fit(sym_search *s)
{
	int64_t devices = s->g->devices > 0 ? s->g->devices : 1, total = 0;

	if (s->cap <= 0)
		return 0;
	for (size_t i = 0; i < s->g->n_value; i++) {
		sym_value *v = s->g->value[i];
		sym_expr *n;
		int64_t e = 0;

		if (v->kind != SYM_VALUE_PARAM || v->state || v->failed)
			continue;
		n = sym_shape_numel(sym__value_shape(v));
		if (!n || sym_expr_eval(n, s->b, &e) < 0) {
			sym_expr_free(n);
			sym_ctx_clear_error(s->ctx);
			continue;
		}
		sym_expr_free(n);
		total += e *
		    (int64_t)
		        sym_dtype_size(sym_shape_dtype(sym__value_shape(v)));
	}
	if ((total + devices - 1) / devices <= s->cap)
		return 0;
	sym__error(s->ctx, SYM_EINVAL,
	    s->g->auto_parallel ? &s->g->auto_loc : NULL,
	    "search: memory=%lld bytes is below what the parameters alone "
	    "need: %lld bytes per device with every parameter split over all "
	    "%lld devices",
	    (long long)s->cap, (long long)((total + devices - 1) / devices),
	    (long long)devices);
	return -1;
}

/* The searches again at the ends of pieces: their sizes and starts. */
struct seen {
	struct {
		int64_t b;
		size_t warm;
	} * at;
	size_t n, cap;
};

/* Return 1 when "s" searched at size "b" from "warm" before (a search
 * again would find the same plan), else record it and return 0; -1 when
 * out of memory. */
static int
searched_before(sym_search *s, struct seen *seen, int64_t b, size_t warm)
{
	for (size_t k = 0; k < seen->n; k++)
		if (seen->at[k].b == b && seen->at[k].warm == warm)
			return 1;
	if (SYM__RESERVE(s->ctx, seen->at, seen->cap, seen->n + 1) < 0)
		return -1;
	seen->at[seen->n].b = b;
	seen->at[seen->n++].warm = warm;
	return 0;
}

/* Search "s" at the "ns" sizes "sample" of its symbol (the second one,
 * if any, as bound in s->b), from "*warm", adding the winners to "w";
 * then cut the pieces and search again at both ends of every piece,
 * recutting with the plans found there until no new plan wins an end
 * (at most "rounds" rounds), so that a plan best only between two
 * samples is found too. 0 or -1. */
static int
refine(sym_search *s, struct winners *w, const int64_t *sample, size_t ns,
    size_t *warm, int rounds)
{
	struct seen seen = { NULL, 0, 0 };
	int grew = 1, rc = 0;

	for (size_t k = 0; k < ns && rc == 0; k++) {
		size_t e = search_at(s, sample[k], *warm);

		if (e == SIZE_MAX || s->failed || set_add(s->ctx, w, e) < 0)
			rc = -1;
		*warm = e;
	}
	for (int round = 0; rc == 0 && grew && round <= rounds; round++) {
		s->n_piece = 0;
		if (cut_pieces(s, w->e, w->n, sample, ns) < 0)
			rc = -1;
		grew = 0;
		for (size_t i = 0; rc == 0 && round < rounds && i < s->n_piece;
		     i++) {
			int64_t ends[2] = { s->piece[i].lo, s->piece[i].hi };

			for (int j = 0; j < 2 && rc == 0; j++) {
				size_t e;
				int t;

				if (ends[j] < 0)
					continue;
				t = searched_before(s, &seen, ends[j],
				    s->piece[i].entry);
				if (t != 0) {
					rc = t < 0 ? -1 : 0;
					continue;
				}
				e = search_at(s, ends[j], s->piece[i].entry);
				if (e == SIZE_MAX || s->failed ||
				    (t = set_add(s->ctx, w, e)) < 0)
					rc = -1;
				grew |= t > 0;
			}
		}
	}
	free(seen.at);
	return rc;
}

/* Cut the pieces of "s" at size "v" of its second symbol over the plans
 * "w" (see cut_pieces), from piece "base" on; 0 or -1. */
static int
pieces_at(sym_search *s, const struct winners *w, const int64_t *sample,
    size_t ns, int64_t v, size_t base)
{
	bind_symbol(s, s->sym2, v);
	s->n_piece = base;
	return cut_pieces(s, w->e, w->n, sample, ns);
}

/* Return 1 when the "n" pieces of "s" from "a" on and those from "b" on
 * (to the last) are the same: ranges, plans and states, but for where
 * the sizes that cannot be priced begin (bound_pieces bounds them for
 * the greatest size of a cell) and the plan of a piece that does not
 * fit. */
static int
same_pieces(const sym_search *s, size_t a, size_t n, size_t b)
{
	if (s->n_piece - b != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct sym__spiece *p = &s->piece[a + i];
		const struct sym__spiece *q = &s->piece[b + i];
		int end = i + 1 < n && p[1].bad == 2;

		if ((p->bad != 2 && p->lo != q->lo) ||
		    (!end && p->bad != 2 && p->hi != q->hi) ||
		    (p->bad == 0 && p->entry != q->entry) || p->bad != q->bad)
			return 0;
	}
	return 1;
}

/* Cut the sizes of the second symbol of "s" into cells within which the
 * pieces over its first symbol stay the same (the same plans, the same
 * breakpoints), by bisection from the least size of each cell up to
 * s->top2 (assuming the pieces change once in between: cost lines that
 * cross once); each cell keeps the pieces cut at its least size, over
 * the plans "w". At most MAX_CELLS cells: the last one then runs to the
 * end. 0 or -1. */
static int
cut_cells(sym_search *s, const struct winners *w, const int64_t *sample,
    size_t ns)
{
	int64_t a = s->lo2, d = s->info2.divisor > 0 ? s->info2.divisor : 1;
	size_t base = 0;

	s->n_cell = 0;
	while (a != INT64_MAX) {
		int64_t v = s->top2;
		size_t n;

		if (pieces_at(s, w, sample, ns, a, base) < 0)
			return -1;
		n = s->n_piece - base;
		if (s->n_cell + 1 < MAX_CELLS && a < s->top2) {
			int64_t lo = 0, hi = (s->top2 - a) / d;

			if (pieces_at(s, w, sample, ns, s->top2, base + n) < 0)
				return -1;
			if (!same_pieces(s, base, n, base + n)) {
				/* a + lo*d keeps the pieces, a + hi*d not */
				while (hi - lo > 1) {
					int64_t mid = lo + (hi - lo) / 2;

					if (pieces_at(s, w, sample, ns,
					        a + mid * d, base + n) < 0)
						return -1;
					if (same_pieces(s, base, n, base + n))
						lo = mid;
					else
						hi = mid;
				}
				v = a + lo * d;
			}
		}
		s->n_piece = base + n;
		for (size_t i = base; i < base + n; i++) {
			s->piece[i].lo2 = a;
			s->piece[i].hi2 = v < s->top2 ? v
			    : s->hi2 == INT64_MAX     ? -1
			                              : s->hi2;
		}
		s->n_cell++;
		base += n;
		if (v >= s->top2)
			break;
		a = admissible_in(&s->info2, s->lo2, s->hi2, v + 1);
	}
	return 0;
}

/* Search the plans of "s": over its symbol at its samples, with the
 * second symbol (if any) at its least size, refining at the ends of the
 * pieces (see refine), then at its greatest (s->top2), at the samples
 * only; then cut
 * the second symbol's sizes into cells (see cut_cells). Check that
 * every piece fits the cap, or fail naming the first that does not,
 * and prove the memory of every piece. 0 or -1. */
static int
run(sym_search *s)
{
	int64_t sample[70];
	size_t ns = samples(s, sample), warm = SIZE_MAX;
	struct winners w = { NULL, 0, 0 };
	int rc = 0;

	if (default_start(s) < 0)
		goto oom;
	if (n_plans(s) > s->max_eval && !(s->cg = sym__cg_new(s)))
		goto oom;
	s->n_probe = sym__cg_n_probes(s->cg);
	if (refine(s, &w, sample, ns, &warm, MAX_REFINE) < 0)
		goto oom;
	if (s->sym2) {
		bind_symbol(s, s->sym2, s->top2);
		if (refine(s, &w, sample, ns, &warm, 0) < 0 ||
		    cut_cells(s, &w, sample, ns) < 0)
			goto oom;
		bind_symbol(s, s->sym2, s->lo2);
	}
	if (bound_pieces(s) < 0)
		goto oom;
	rc = some_fit(s);
	if (rc == 0)
		rc = prove_memory(s);
	free(w.e);
	return rc;
oom:
	free(w.e);
	if (sym_ctx_last_error(s->ctx) == SYM_OK)
		sym__oom(s->ctx);
	return -1;
}

/* Return the number of the devices of "g" on the node of rank 0 of
 * "topo" (all of them on one node). */
static int64_t
node_ranks(const sym_graph *g, const sym_topology *topo)
{
	int64_t n = sym__topology_first_node_size(topo, g->devices);

	return n ? n : 1;
}

/* Note in "s" the meshes the strategies of its pieces use; 0 or -1. */
static int
shown_meshes(sym_search *s)
{
	s->shown = calloc(s->n_mesh + 1, sizeof(*s->shown));
	if (!s->shown)
		return -1;
	for (size_t k = 0; k < s->n_mesh; k++) {
		size_t len = strcspn(s->mesh[k], " ");
		int used = 0;

		for (size_t i = 0; i < s->n_piece && !used; i++)
			for (size_t j = 0; j < s->n_node && !used; j++) {
				const char *c = sym_search_strategy(s, i, j);

				used = c && over_mesh(c, s->mesh[k], len);
			}
		if (used)
			s->shown[s->n_shown++] = k;
	}
	return 0;
}

/* Return a new search of the strategies of "g" (see the top of the
 * file) with the options "o" (may be NULL: no memory cap, the default
 * topology), the graph left sharded with the plan of the first piece
 * that fits; NULL with an error on the graph's context. */
sym_search *
sym_graph_search(sym_graph *g, const sym_search_options *o)
{
	sym_search *s;
	double t0 = sym__seconds();
	size_t first = 0;

	if (!g)
		return NULL;
	if (o && (o->size < sizeof(size_t) || o->size > sizeof(*o))) {
		sym__error(g->ctx, SYM_EINVAL, NULL,
		    "search: options of an unknown size (initialize them with "
		    "SYM_SEARCH_OPTIONS_INIT)");
		return NULL;
	}
	if (g->loss && !g->differentiated && sym_graph_differentiate(g) < 0)
		return NULL;
	if (g->n_errors) {
		sym__error(g->ctx, SYM_EINVAL, NULL,
		    "search: the graph has errors");
		return NULL;
	}
	s = sym__alloc(g->ctx, sizeof(*s));
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->g = g;
	s->ctx = g->ctx;
	if (o)
		memcpy(&s->opt, o, o->size);
	s->topo = s->opt.topo;
	if (!s->topo)
		s->topo = s->own_topo = sym_topology_new(g->ctx, 0, 0, 0, 0, 0);
	s->cap = s->opt.memory > 0 ? s->opt.memory : g->auto_memory;
	s->per_node = node_ranks(g, s->topo);
	s->layouts = !s->opt.tuples_only && s->per_node < g->devices;
	s->max_eval = s->opt.max_evaluations ? s->opt.max_evaluations
	                                     : DEFAULT_MAX_EVALUATIONS;
	s->b = sym_binding_new(g->ctx);
	sym__obj_init(&s->obj, SYM__OBJ_SEARCH, search_destroy);
	sym__obj_give(s->ctx, &s->obj);
	if (!s->b || !s->topo || collect(s) < 0)
		goto fail;
	prune_candidates(s);
	s->choice = calloc(2 * s->n_node + 1, sizeof(*s->choice));
	if (!s->choice)
		goto fail;
	s->start = s->choice + s->n_node;
	choose_symbol(s);
	if (params_fit(s) < 0 || run(s) < 0)
		goto fail;
	while (first < s->n_piece && s->piece[first].bad)
		first++;
	if (piece_sharding(s, first) < 0 || shown_meshes(s) < 0)
		goto fail;
	s->memos = NULL;
	sym__obj_unref(&s->cur->obj);
	s->cur = NULL;
	s->seconds = sym__seconds() - t0;
	return s;
fail:
	s->memos = NULL;
	if (sym_ctx_last_error(g->ctx) == SYM_OK)
		sym__oom(g->ctx);
	sym_search_free(s);
	return NULL;
}

/* Make s->cur the sharding of the plan of piece "i" of "s"; 0 or -1
 * with an error on the context. */
static int
piece_sharding(sym_search *s, size_t i)
{
	if (i >= s->n_piece)
		return -1;
	if (s->piece[i].bad == 2) {
		sym__error(s->ctx, SYM_EINVAL, NULL,
		    "search: piece %zu has no plan: the time or memory of "
		    "every plan overflows 64 bits there",
		    i);
		return -1;
	}
	if (sym__search_shard_with(s, s->entry[s->piece[i].entry].choice) < 0) {
		sym__error(s->ctx, SYM_EINTERNAL, NULL,
		    "search: the plan of piece %zu no longer shards", i);
		return -1;
	}
	return 0;
}

/* Make the sharding of the plan of piece "i" of "s" the current sharding
 * of its graph (sym_graph_shard's, its diagnostics on the graph); 0 or
 * -1. */
int
sym_search_apply(sym_search *s, size_t i)
{
	struct sym__assign a;

	if (!s || piece_sharding(s, i) < 0)
		return -1;
	sym__obj_unref(&s->cur->obj);
	s->cur = NULL;
	memset(&a, 0, sizeof(a));
	a.strategy = s->over;
	a.n_strategy = s->g->n_node;
	a.mesh = s->xmesh;
	a.n_mesh = s->n_xmesh;
	return sym__graph_shard_with(s->g, &a, s->topo);
}

/* Return the sharding of the plan of piece "i" of "s" (a caller
 * reference; the graph is not changed), or NULL with an error on the
 * context. */
sym_sharding *
sym_search_sharding(sym_search *s, size_t i)
{
	sym_sharding *sh;

	if (!s || piece_sharding(s, i) < 0)
		return NULL;
	sh = s->cur;
	s->cur = NULL;
	sym__obj_give(s->ctx, &sh->obj);
	return sh;
}

/* Return the symbol the pieces of "s" range over, NULL when none. */
sym_symbol *
sym_search_symbol(const sym_search *s)
{
	return s ? s->sym : NULL;
}

/* Return the number of symbols the pieces of "s" range over: 0, 1 or 2
 * (sym_search_symbol_at). */
size_t
sym_search_n_symbols(const sym_search *s)
{
	return !s || !s->sym ? 0 : s->sym2 ? 2 : 1;
}

/* Return symbol "k" the pieces of "s" range over (0: the first, the one
 * sym_search_symbol returns), NULL out of range. */
sym_symbol *
sym_search_symbol_at(const sym_search *s, size_t k)
{
	if (!s || k >= sym_search_n_symbols(s))
		return NULL;
	return k ? s->sym2 : s->sym;
}

/* Store the sizes of symbol "k" piece "i" of "s" covers in "*lo" and
 * "*hi" (-1: no bound); 0 or -1. */
int
sym_search_piece_range_at(const sym_search *s, size_t i, size_t k, int64_t *lo,
    int64_t *hi)
{
	if (!s || i >= s->n_piece || k >= sym_search_n_symbols(s))
		return -1;
	if (lo)
		*lo = k ? s->piece[i].lo2 : s->piece[i].lo;
	if (hi)
		*hi = k ? s->piece[i].hi2 : s->piece[i].hi;
	return 0;
}

/* Return the number of pieces of "s". */
size_t
sym_search_n_pieces(const sym_search *s)
{
	return s ? s->n_piece : 0;
}

/* Store the sizes piece "i" of "s" covers in "*lo" and "*hi" (-1: no
 * bound); 0 or -1. */
int
sym_search_piece_range(const sym_search *s, size_t i, int64_t *lo, int64_t *hi)
{
	if (!s || i >= s->n_piece)
		return -1;
	if (lo)
		*lo = s->piece[i].lo;
	if (hi)
		*hi = s->piece[i].hi;
	return 0;
}

/* Return what piece "i" of "s" is (sym_search(3)): SYM_SEARCH_FITS,
 * SYM_SEARCH_OVER_MEMORY or SYM_SEARCH_OVERFLOW; -1 out of range. */
int
sym_search_piece_fit(const sym_search *s, size_t i)
{
	static const int fit[] = { SYM_SEARCH_FITS, SYM_SEARCH_OVER_MEMORY,
		SYM_SEARCH_OVERFLOW };

	return s && i < s->n_piece ? fit[s->piece[i].bad] : -1;
}

/* Return the entry of the plan of piece "i" of "s", NULL out of range or
 * when the piece has no plan (sizes beyond 64 bits). */
static const struct sym__sentry *
piece_entry(const sym_search *s, size_t i)
{
	if (!s || i >= s->n_piece || s->piece[i].bad == 2)
		return NULL;
	return &s->entry[s->piece[i].entry];
}

/* Return the number of searched operators of "s". */
size_t
sym_search_n_nodes(const sym_search *s)
{
	return s ? s->n_node : 0;
}

/* Return searched operator "j" of "s", NULL out of range. */
const sym_node *
sym_search_node(const sym_search *s, size_t j)
{
	return s && j < s->n_node ? s->node[j] : NULL;
}

/* Return the strategy of operator "j" in piece "i" of "s" (borrowed),
 * NULL out of range. */
const char *
sym_search_strategy(const sym_search *s, size_t i, size_t j)
{
	const struct sym__sentry *e = piece_entry(s, i);

	if (!e || j >= s->n_node)
		return NULL;
	return s->cand[j][e->choice[j]];
}

/* Return the time (femtoseconds) of a step of piece "i" of "s" as an
 * expression (borrowed), NULL out of range or when it has no plan. */
const sym_expr *
sym_search_piece_seconds(const sym_search *s, size_t i)
{
	const struct sym__sentry *e = piece_entry(s, i);

	return e ? e->fs : NULL;
}

/* Return the memory (bytes per device) of piece "i" of "s" as an
 * expression (borrowed), NULL out of range or when it has no plan. */
const sym_expr *
sym_search_piece_memory(const sym_search *s, size_t i)
{
	const struct sym__sentry *e = piece_entry(s, i);

	return e ? e->mem : NULL;
}

/* Return the seconds the search of "s" took. */
double
sym_search_seconds(const sym_search *s)
{
	return s ? s->seconds : 0;
}

/* Return the number of plans "s" priced. */
size_t
sym_search_n_evaluations(const sym_search *s)
{
	return s ? s->n_eval : 0;
}

/* Return the number of meshes the layout strategies of the pieces of
 * "s" use (declared in the graph by the search). */
size_t
sym_search_n_meshes(const sym_search *s)
{
	return s ? s->n_shown : 0;
}

/* Return the declaration of mesh "k" of "s", "auto_k4_m2 = (k=4, m=2)"
 * as after "mesh" in a graph file (borrowed), NULL out of range. */
const char *
sym_search_mesh(const sym_search *s, size_t k)
{
	return s && k < s->n_shown ? s->mesh[s->shown[k]] : NULL;
}

/* Return the number of sharding passes the cost graph of "s" ran to
 * measure its terms (0 when it enumerated). */
size_t
sym_search_n_probes(const sym_search *s)
{
	return s ? s->n_probe : 0;
}
