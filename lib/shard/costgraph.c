/* SPDX-License-Identifier: MIT */
/*
 * The cost graph of the strategy search (sym_search(3)), for graphs with
 * too many plans to price each by a sharding pass.
 *
 * The cost model (sym_graph_cost) is a sum: the operations of every node
 * on its blocks, the resolutions of its partial sums (their time, and
 * the block the producer keeps until they run), the block of every
 * value, and the redistribution of every input whose layout differs from
 * what its consumer needs. Every node has an owner, a searched forward
 * operator whose strategy decides its layouts: itself; a backward node's
 * forward node, whose layouts it mirrors; an update or accumulation
 * node's first input's owner (operators with a shard clause, or without
 * a searched strategy, are one fixed owner). A value's layout has the
 * owner of its producer, or of its first consumer for inputs and
 * parameters. So the cost of a plan is a sum of terms by owner (its
 * nodes and values: a function of its own candidate) and terms by input
 * (the redistribution from the value's layout to its consumer's: a
 * function of two owners' candidates).
 *
 * The terms are measured, not modelled anew: "probe" sharding passes
 * give every owner each of its candidates in turn (pass k gives owner o
 * its candidate k while k is below its count), and each records, by
 * owner and candidate, the owner's term as expressions of the symbols
 * and the layouts of its nodes' inputs and values. The input terms are
 * redistributions planned once per pair of layouts (a pass's memo). The
 * number of passes is the most candidates of any operator, whatever the
 * size of the graph, so the time grows linearly with the operators.
 *
 * At a size of the searched symbols the terms are numbers. Dynamic
 * programming over the graph (eliminating owners one at a time, min-sum
 * over tables of at most MAX_SCOPE owners) finds the model's cheapest
 * plan, the answer when it fits the memory cap; its tables and order of
 * elimination depend on the graph alone, so they are made at the first
 * size and refilled at the others. When the tables would be
 * too large, or under a cap, the plans descended are the caller's, the
 * best greedy plans (propagated breadth first from each candidate of the
 * operators with the most), and the dynamic programming's optima of time
 * plus a price per byte: coordinate descent, where moving one owner
 * reads only its term and its edges', then moves of two neighbours. The
 * search prices the plans it keeps by a whole pass (sym_graph_cost): a
 * term that does not depend on its owner alone (a backward node the
 * pass could not derive from its forward node) makes the model's
 * ranking less sharp, never a reported cost wrong. Its memory counts
 * what sym_graph_cost counts, except the buffers the executor shares at
 * optimizer_shard 2 and 3 (the whole partial gradients, the gathered
 * params), which it counts once each user: there it leans to more than
 * the plan needs, rather than to a plan that only seems to fit.
 *
 * This file holds the model: its owners, edges and layouts, its
 * construction, and the values of its terms at a size (the sizes of
 * every searched symbol bound in s->b). The probes are in
 * costgraph_probe.c, the dynamic programming in costgraph_dp.c, the
 * greedy plans, descent, pair moves and sym__cg_best in
 * costgraph_descent.c, all behind costgraph_private.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "shard/costgraph_private.h"

/* The states of an edge's pair of candidates (else a memo index). */
#define E_UNKNOWN (-1)
#define E_FREE (-2)
#define E_NONE (-3)

/* Free the cost graph "cg" (NULL: nothing). */
void
sym__cg_free(struct sym__cg *cg)
{
	if (!cg)
		return;
	sym__cg_dp_free(cg, cg->dp);
	for (size_t i = 0; cg->lay && i < cg->n_lay; i++)
		sym__layout_unref(cg->lay[i]);
	for (size_t i = 0; cg->term && i < cg->n_oc; i++) {
		sym_expr_free(cg->term[i].fs);
		sym_expr_free(cg->term[i].mem);
	}
	for (size_t i = 0; i < cg->n_mterm; i++) {
		sym_expr_free(cg->mterm[i].fs);
		sym_expr_free(cg->mterm[i].mem);
	}
	for (size_t e = 0; cg->edge && e < cg->n_edge; e++)
		free(cg->edge[e].memo);
	for (size_t o = 0; cg->adj && o < cg->n_owner; o++)
		free(cg->adj[o]);
	if (cg->have_pass)
		sym__pass_end(&cg->pass);
	free(cg->n_cand);
	free(cg->oc0);
	free(cg->owner);
	free(cg->vsrc);
	free(cg->shared);
	free(cg->slot0);
	free(cg->slot_base);
	free(cg->val_base);
	free(cg->lay);
	free(cg->lid);
	free(cg->slot_nid);
	free(cg->val_nid);
	free(cg->term);
	free(cg->edge);
	free(cg->adj);
	free(cg->n_adj);
	free(cg->cap_adj);
	free(cg->mterm);
	free(cg->pool);
	free(cg->pair);
	free(cg->pedge);
	free(cg->ta);
	free(cg->tb);
	free(cg->ch);
	free(cg->best);
	free(cg->keep);
	free(cg->set);
	free(cg);
}

/* Find the owner of every node and value of the graph of "s" into "cg"
 * (see the top of the file). */
static void
find_owners(const sym_search *s, struct sym__cg *cg)
{
	const sym_graph *g = s->g;
	size_t fixed = cg->n_owner - 1;

	for (size_t i = 0; i < g->n_value; i++)
		cg->vsrc[i] = SIZE_MAX;
	for (size_t i = 0; i < g->n_node; i++)
		cg->owner[i] = SIZE_MAX;
	for (size_t j = 0; j < s->n_node; j++)
		cg->owner[s->node[j]->index] = j;
	for (size_t i = 0; i < g->n_node; i++) {
		const sym_node *n = g->node[i];

		if (cg->owner[i] != SIZE_MAX) {
			/* searched */
		} else if (i < sym_graph_n_forward_nodes(g)) {
			cg->owner[i] = fixed;
		} else if (n->fwd) {
			cg->owner[i] = cg->owner[n->fwd->index];
		} else {
			cg->owner[i] = fixed;
			for (size_t k = 0; k < n->n_in; k++)
				if (cg->vsrc[n->in[k]->index] != SIZE_MAX) {
					cg->owner[i] =
					    cg->vsrc[n->in[k]->index];
					break;
				}
		}
		for (size_t k = 0; k < n->n_in; k++)
			if (cg->vsrc[n->in[k]->index] == SIZE_MAX &&
			    !n->in[k]->producer)
				cg->vsrc[n->in[k]->index] = cg->owner[i];
		for (size_t k = 0; k < n->n_out; k++) {
			cg->vsrc[n->out[k]->index] = cg->owner[i];
			if (sym__cost_shares_block(n, k))
				cg->shared[n->out[k]->index] = 1;
		}
	}
}

/* Allocate the tables of "cg" for the graph of "s"; 0 or -1. */
static int
alloc_tables(const sym_search *s, struct sym__cg *cg)
{
	const sym_graph *g = s->g;
	size_t no = cg->n_owner;

	cg->n_cand = sym__calloc(cg->ctx, no, sizeof(*cg->n_cand));
	cg->oc0 = sym__calloc(cg->ctx, no + 1, sizeof(*cg->oc0));
	cg->owner = sym__calloc(cg->ctx, g->n_node + 1, sizeof(*cg->owner));
	cg->vsrc = sym__calloc(cg->ctx, g->n_value + 1, sizeof(*cg->vsrc));
	cg->shared = sym__calloc(cg->ctx, g->n_value + 1, 1);
	cg->slot0 = sym__calloc(cg->ctx, g->n_node + 1, sizeof(*cg->slot0));
	cg->val_base =
	    sym__calloc(cg->ctx, g->n_value + 1, sizeof(*cg->val_base));
	cg->adj = sym__calloc(cg->ctx, no, sizeof(*cg->adj));
	cg->n_adj = sym__calloc(cg->ctx, no, sizeof(*cg->n_adj));
	cg->cap_adj = sym__calloc(cg->ctx, no, sizeof(*cg->cap_adj));
	cg->ch = sym__calloc(cg->ctx, no, sizeof(*cg->ch));
	cg->best = sym__calloc(cg->ctx, no, sizeof(*cg->best));
	cg->keep =
	    sym__calloc(cg->ctx, SYM__CG_KEEP_MAX * no, sizeof(*cg->keep));
	cg->set = sym__calloc(cg->ctx, no, 1);
	if (!cg->n_cand || !cg->oc0 || !cg->owner || !cg->vsrc || !cg->shared ||
	    !cg->slot0 || !cg->val_base || !cg->adj || !cg->n_adj ||
	    !cg->cap_adj || !cg->ch || !cg->best || !cg->keep || !cg->set)
		return -1;
	for (size_t j = 0; j < s->n_node; j++)
		cg->n_cand[j] = s->n_cand[j];
	cg->n_cand[no - 1] = 1;
	for (size_t o = 0; o < no; o++)
		cg->oc0[o + 1] = cg->oc0[o] + cg->n_cand[o];
	cg->n_oc = cg->oc0[no];
	cg->term = sym__calloc(cg->ctx, cg->n_oc, sizeof(*cg->term));
	if (!cg->term)
		return -1;
	find_owners(s, cg);
	for (size_t i = 0; i < g->n_node; i++) {
		cg->slot0[i] = cg->n_slot;
		cg->n_slot += g->node[i]->n_in;
	}
	cg->slot0[g->n_node] = cg->n_slot;
	cg->slot_base =
	    sym__calloc(cg->ctx, cg->n_slot + 1, sizeof(*cg->slot_base));
	if (!cg->slot_base)
		return -1;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_in; k++) {
			cg->slot_base[cg->slot0[i] + k] = cg->n_lay;
			cg->n_lay += cg->n_cand[cg->owner[i]];
		}
	for (size_t v = 0; v < g->n_value; v++) {
		cg->val_base[v] = cg->n_lay;
		if (cg->vsrc[v] != SIZE_MAX)
			cg->n_lay += cg->n_cand[cg->vsrc[v]];
	}
	cg->lay = sym__calloc(cg->ctx, cg->n_lay + 1, sizeof(*cg->lay));
	return cg->lay ? 0 : -1;
}

/* Add edge "e" to the edges of owner "o" in "cg"; 0 or -1. */
static int
adj_add(struct sym__cg *cg, size_t o, size_t e)
{
	if (SYM__RESERVE(cg->ctx, cg->adj[o], cg->cap_adj[o],
	        cg->n_adj[o] + 1) < 0)
		return -1;
	cg->adj[o][cg->n_adj[o]++] = e;
	return 0;
}

/* Make the edges of "cg": one by input of every node whose value has a
 * layout owner; 0 or -1. */
static int
make_edges(const sym_search *s, struct sym__cg *cg)
{
	const sym_graph *g = s->g;

	cg->edge = sym__calloc(cg->ctx, cg->n_slot + 1, sizeof(*cg->edge));
	if (!cg->edge)
		return -1;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_in; k++) {
			const sym_value *v = g->node[i]->in[k];
			struct sym__cg_edge *e = &cg->edge[cg->n_edge];

			if (cg->vsrc[v->index] == SIZE_MAX)
				continue;
			e->slot = cg->slot0[i] + k;
			e->a = cg->vsrc[v->index];
			e->b = cg->owner[i];
			e->v = v;
			if (adj_add(cg, e->a, cg->n_edge) < 0 ||
			    (e->b != e->a && adj_add(cg, e->b, cg->n_edge) < 0))
				return -1;
			cg->n_edge++;
		}
	return 0;
}

/* Return the most candidates an owner of "cg" has. */
size_t
sym__cg_most_candidates(const struct sym__cg *cg)
{
	size_t most = 1;

	for (size_t o = 0; o < cg->n_owner; o++)
		if (cg->n_cand[o] > most)
			most = cg->n_cand[o];
	return most;
}

/* Number the "n" layouts "lay" of a group (a slot or a value, by
 * candidate; interned, so equal ones are one pointer) into "lid"; return
 * how many differ. */
static uint32_t
number_layouts(sym_layout *const *lay, uint32_t *lid, size_t n)
{
	uint32_t k = 0;

	for (size_t c = 0; c < n; c++) {
		size_t d = 0;

		while (d < c && lay[d] != lay[c])
			d++;
		lid[c] = d < c ? lid[d] : k++;
	}
	return k ? k : 1;
}

/* Number the layouts of every group of "cg" and make the tables of its
 * edges; 0 or -1. */
static int
finish_edges(const sym_search *s, struct sym__cg *cg)
{
	const sym_graph *g = s->g;

	cg->lid = sym__calloc(cg->ctx, cg->n_lay + 1, sizeof(*cg->lid));
	cg->slot_nid =
	    sym__calloc(cg->ctx, cg->n_slot + 1, sizeof(*cg->slot_nid));
	cg->val_nid =
	    sym__calloc(cg->ctx, g->n_value + 1, sizeof(*cg->val_nid));
	if (!cg->lid || !cg->slot_nid || !cg->val_nid)
		return -1;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_in; k++) {
			size_t t = cg->slot0[i] + k, b = cg->slot_base[t];

			cg->slot_nid[t] = number_layouts(cg->lay + b,
			    cg->lid + b, cg->n_cand[cg->owner[i]]);
		}
	for (size_t v = 0; v < g->n_value; v++)
		if (cg->vsrc[v] != SIZE_MAX)
			cg->val_nid[v] = number_layouts(cg->lay +
			        cg->val_base[v],
			    cg->lid + cg->val_base[v], cg->n_cand[cg->vsrc[v]]);
	for (size_t e = 0; e < cg->n_edge; e++) {
		struct sym__cg_edge *x = &cg->edge[e];
		size_t cells =
		    (size_t)cg->val_nid[x->v->index] * cg->slot_nid[x->slot];

		x->memo = sym__calloc(cg->ctx, cells, sizeof(*x->memo));
		if (!x->memo)
			return -1;
		for (size_t c = 0; c < cells; c++)
			x->memo[c] = E_UNKNOWN;
	}
	return 0;
}

/* Return the cost graph of the searched operators of "s" (see the top of
 * the file), its probes run; NULL when out of memory (s->failed set). */
struct sym__cg *
sym__cg_new(sym_search *s)
{
	struct sym__cg *cg = sym__calloc(s->ctx, 1, sizeof(*cg));

	if (!cg) {
		s->failed = 1;
		return NULL;
	}
	cg->ctx = s->ctx;
	cg->n_owner = s->n_node + 1;
	if (alloc_tables(s, cg) < 0 || make_edges(s, cg) < 0) {
		s->failed = 1;
		sym__cg_free(cg);
		return NULL;
	}
	if (sym__pass_begin(&cg->pass, s->g, s->topo) < 0) {
		s->failed = 1;
		sym__cg_free(cg);
		return NULL;
	}
	cg->have_pass = 1;
	/* the probes and the search's passes plan each redistribution
	 * once, in this pass's memo (until sym_graph_search returns) */
	s->memos = &cg->pass;
	if (sym__cg_probe(s, cg) < 0 || finish_edges(s, cg) < 0 ||
	    sym__cg_make_pairs(cg) < 0) {
		s->failed = 1;
		s->memos = NULL;
		sym__cg_free(cg);
		return NULL;
	}
	return cg;
}

/* Return the number of probe passes of "cg". */
size_t
sym__cg_n_probes(const struct sym__cg *cg)
{
	return cg ? cg->n_probe : 0;
}

/* Add the term "v" at the size bound in s->b to "t", evaluating it the
 * first time at this size. */
static void
add_term(sym_search *s, const struct sym__cg *cg, struct sym__cg_term *v,
    struct sym__cg_tot *t)
{
	if (v->gen != cg->gen) {
		int64_t a, b;

		v->gen = cg->gen;
		v->bad = !v->fs || !v->mem ||
		    sym_expr_eval(v->fs, s->b, &a) < 0 ||
		    sym_expr_eval(v->mem, s->b, &b) < 0;
		if (v->bad)
			sym_ctx_clear_error(s->ctx);
		v->vfs = v->bad ? 0 : (double)a;
		v->vmem = v->bad ? 0 : (double)b;
	}
	t->fs += v->vfs;
	t->mem += v->vmem;
	t->bad += (size_t)v->bad;
}

/* Add the term of owner "o" at candidate "c" of "cg" to "t". */
void
sym__cg_add_node(sym_search *s, struct sym__cg *cg, size_t o, size_t c,
    struct sym__cg_tot *t)
{
	add_term(s, cg, &cg->term[cg->oc0[o] + c], t);
}

/* Return the state of edge "e" of "cg" at candidates "ca" (its value's
 * owner) and "cb" (its consumer's), planning the redistribution the
 * first time. */
static int32_t
edge_state(sym_search *s, struct sym__cg *cg, struct sym__cg_edge *e, size_t ca,
    size_t cb)
{
	size_t fa = cg->val_base[e->v->index] + ca,
	       tb = cg->slot_base[e->slot] + cb;
	int32_t *st =
	    &e->memo[(size_t)cg->lid[fa] * cg->slot_nid[e->slot] + cg->lid[tb]];
	const sym_layout *from = cg->lay[fa];
	const sym_layout *to = cg->lay[tb];
	struct sym__memo *m;
	size_t i;

	if (*st != E_UNKNOWN)
		return *st;
	if (!from || !to)
		return *st = E_NONE;
	if (sym_layout_is_equal(from, to) == SYM_TRUE)
		return *st = E_FREE;
	m = sym__pass_redist(&cg->pass, from, to,
	    sym__value_shape((sym_value *)e->v));
	if (!m) {
		cg->failed = 1;
		return E_NONE; /* not kept: out of memory */
	}
	if (!m->plan)
		return *st = E_NONE;
	if (sym_redist_n_steps(m->plan) == 0)
		return *st = E_FREE;
	i = (size_t)(m - cg->pass.memo);
	if (i >= INT32_MAX)
		return *st = E_NONE;
	if (SYM__RESERVE(cg->ctx, cg->mterm, cg->cap_mterm, i + 1) < 0) {
		cg->failed = 1;
		return E_NONE;
	}
	while (cg->n_mterm <= i) {
		struct sym__cg_term *t = &cg->mterm[cg->n_mterm];
		const struct sym__memo *mt = &cg->pass.memo[cg->n_mterm++];

		memset(t, 0, sizeof(*t));
		t->fs = mt->plan ? sym__cg_steps_fs(s->ctx, mt->plan) : NULL;
		t->mem = sym__cost_block_bytes(mt->to, mt->shape);
	}
	return *st = (int32_t)i;
}

/* Add the term of edge "e" of "cg" at candidates "ca" and "cb" to "t". */
void
sym__cg_add_edge(sym_search *s, struct sym__cg *cg, struct sym__cg_edge *e,
    size_t ca, size_t cb, struct sym__cg_tot *t)
{
	int32_t st = edge_state(s, cg, e, ca, cb);

	if (st >= 0)
		add_term(s, cg, &cg->mterm[st], t);
	else if (st != E_FREE)
		t->bad++;
}

/* Return 1 when "a" is better than "b" under the memory cap "cap" (0:
 * none): measured first, then within the cap, then faster (or, both
 * over the cap, smaller). */
int
sym__cg_tot_better(struct sym__cg_tot a, struct sym__cg_tot b, int64_t cap)
{
	int oa = cap > 0 && a.mem > (double)cap;
	int ob = cap > 0 && b.mem > (double)cap;

	if (a.bad != b.bad)
		return a.bad < b.bad;
	if (oa != ob)
		return oa < ob;
	if (oa)
		return a.mem < b.mem;
	return a.fs < b.fs || (a.fs == b.fs && a.mem < b.mem);
}

/* The model's value of the plan "ch" (a candidate by owner). */
struct sym__cg_tot
sym__cg_total(sym_search *s, struct sym__cg *cg, const size_t *ch)
{
	struct sym__cg_tot t = { 0, 0, 0 };

	for (size_t o = 0; o < cg->n_owner; o++)
		sym__cg_add_node(s, cg, o, ch[o], &t);
	for (size_t e = 0; e < cg->n_edge; e++)
		sym__cg_add_edge(s, cg, &cg->edge[e], ch[cg->edge[e].a],
		    ch[cg->edge[e].b], &t);
	return t;
}

/* The terms of owner "o" at candidate "c" in the plan "ch": its own and
 * those of its edges, the other ends at "ch" (only those "set" when not
 * NULL; none at "skip"). */
struct sym__cg_tot
sym__cg_local(sym_search *s, struct sym__cg *cg, const size_t *ch, size_t o,
    size_t c, const unsigned char *set, size_t skip)
{
	struct sym__cg_tot t = { 0, 0, 0 };

	sym__cg_add_node(s, cg, o, c, &t);
	for (size_t k = 0; k < cg->n_adj[o]; k++) {
		struct sym__cg_edge *e = &cg->edge[cg->adj[o][k]];
		size_t other = e->a == o ? e->b : e->a;

		if (other == skip || (set && other != o && !set[other]))
			continue;
		sym__cg_add_edge(s, cg, e, e->a == o ? c : ch[e->a],
		    e->b == o ? c : ch[e->b], &t);
	}
	return t;
}

/* Return "a" plus "b" minus "c". */
struct sym__cg_tot
sym__cg_tot_shift(struct sym__cg_tot a, struct sym__cg_tot b,
    struct sym__cg_tot c)
{
	struct sym__cg_tot t;

	t.fs = a.fs + b.fs - c.fs;
	t.mem = a.mem + b.mem - c.mem;
	t.bad = a.bad + b.bad - c.bad;
	return t;
}

/* Add "b" to "a". */
void
sym__cg_tot_add(struct sym__cg_tot *a, struct sym__cg_tot b)
{
	a->fs += b.fs;
	a->mem += b.mem;
	a->bad += b.bad;
}

/* Add to "t" the terms of the edges of the pair "q" of "cg" with its
 * owners at candidates "ca" (q->a) and "cb" (q->b). */
void
sym__cg_pair_terms(sym_search *s, struct sym__cg *cg,
    const struct sym__cg_pair *q, size_t ca, size_t cb, struct sym__cg_tot *t)
{
	for (size_t k = 0; k < q->n; k++) {
		struct sym__cg_edge *e = &cg->edge[cg->pedge[q->e0 + k]];

		sym__cg_add_edge(s, cg, e, e->a == q->a ? ca : cb,
		    e->b == q->b ? cb : ca, t);
	}
}
