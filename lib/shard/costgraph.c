/* SPDX-License-Identifier: MIT */
/*
 * The cost graph of the strategy search (sym_search(3)), for graphs with
 * too many plans to price each by a sharding pass.
 *
 * The cost model (sym_graph_cost) is a sum: the operations of every node
 * on its blocks, the resolutions of its partial sums, the block of every
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
 * At a size of the searched symbol the terms are numbers. Dynamic
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
 * ranking less sharp, never a reported cost wrong.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "shard/search_private.h"

/* The states of an edge's pair of candidates (else a memo index). */
#define E_UNKNOWN (-1)
#define E_FREE (-2)
#define E_NONE (-3)

/* Greedy starts kept for the descent, besides the caller's. */
#define KEEP_GREEDY 3
/* The edge terms the greedy plans may read, about. */
#define POOL_WORK 4000000
#define MAX_SWEEPS 20
#define MAX_PAIR_ROUNDS 4
/* The dynamic programming: the most owners a factor spans, the most
 * factors it sums, the prices per byte it tries under a cap, and (below)
 * the most table cells its pairs have and it may fill in all: DP_WORK,
 * and DP_WORK_OWNER more by searched owner (so that the graphs it
 * solves exactly are not only the small ones: its work is linear in the
 * owners when their scopes stay narrow). */
#define MAX_SCOPE 4
#define MAX_FACTORS 64
#define MAX_LAMBDAS 6
/* The plans descended at a size: the caller's two, the greedy ones, the
 * dynamic programming's. */
#define KEEP_MAX (2 + KEEP_GREEDY + 1 + MAX_LAMBDAS)
#define DP_WORK 4e6
#define DP_WORK_OWNER 2e4

/* The redistribution of an input: value "v" into input slot "slot" of a
 * node of owner "b", the value's layout of owner "a"; "memo" by pair of
 * distinct layouts (the value's major). */
struct cg_edge {
	size_t slot, a, b;
	const sym_value *v;
	int32_t *memo;
};

/* Owners "a" < "b" joined by the "n" edges pedge[e0 ...]. */
struct cg_pair {
	size_t a, b, e0, n;
};

/* A term: its time (fs) and memory (bytes) as expressions (NULL: not
 * measured), and their values at the bound size, evaluated once per
 * size ("gen"). */
struct cg_term {
	sym_expr *fs, *mem;
	uint64_t gen;
	double vfs, vmem;
	int bad; /* not measured, or cannot be evaluated */
};

/* A plan's value in the model: its sums and how many of its terms are
 * bad. */
struct cg_tot {
	double fs, mem;
	size_t bad;
};

struct sym__cg {
	size_t n_owner; /* the searched operators, then the fixed owner */
	size_t *n_cand; /* by owner */
	size_t *oc0;    /* by owner: its first (owner, candidate) */
	size_t n_oc;
	size_t *owner; /* by node */
	size_t *vsrc;  /* by value: the owner of its layout; SIZE_MAX: none */
	unsigned char *shared; /* by value: it shares an input's block */
	size_t *slot0;         /* by node: its first input slot */
	size_t n_slot;
	size_t *slot_base; /* by slot: its layouts in "lay" */
	size_t *val_base;  /* by value: its layouts in "lay" */
	sym_layout **lay;  /* by slot or value, by candidate of its owner:
	                    * the cost graph pass's interned layouts */
	uint32_t *lid;     /* the same: the layout's number in its group */
	uint32_t *slot_nid, *val_nid; /* the distinct layouts of a group */
	size_t n_lay;
	struct cg_term *term; /* by (owner, candidate): the owner's term */
	struct cg_edge *edge;
	size_t n_edge;
	size_t **adj, *n_adj, *cap_adj; /* by owner: its edges */
	struct cg_pair *pair;
	size_t n_pair, *pedge, n_pedge;
	/* The redistributions: a pass's memo, and their terms by memo. */
	struct sym__pass pass;
	int have_pass;
	struct cg_term *mterm; /* by memo of the pass */
	size_t n_mterm, cap_mterm;
	uint64_t gen;
	size_t n_probe;
	int failed; /* out of memory */
	/* The greedy plans ("n_pool", a candidate by owner each), and
	 * scratch for the search at a size. */
	size_t *pool, n_pool;
	size_t *ch, *best, *keep;
	struct cg_tot *ta, *tb;
	unsigned char *set;
	struct cg_dp *dp; /* the dynamic programming, made at the first size */
};

static int make_pairs(struct sym__cg *cg);
struct cg_dp;
static void dp_free(const struct sym__cg *cg, struct cg_dp *d);

/* Free the cost graph "cg" (NULL: nothing). */
void
sym__cg_free(struct sym__cg *cg)
{
	if (!cg)
		return;
	dp_free(cg, cg->dp);
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

	cg->n_cand = calloc(no, sizeof(*cg->n_cand));
	cg->oc0 = calloc(no + 1, sizeof(*cg->oc0));
	cg->owner = calloc(g->n_node + 1, sizeof(*cg->owner));
	cg->vsrc = calloc(g->n_value + 1, sizeof(*cg->vsrc));
	cg->shared = calloc(g->n_value + 1, 1);
	cg->slot0 = calloc(g->n_node + 1, sizeof(*cg->slot0));
	cg->val_base = calloc(g->n_value + 1, sizeof(*cg->val_base));
	cg->adj = calloc(no, sizeof(*cg->adj));
	cg->n_adj = calloc(no, sizeof(*cg->n_adj));
	cg->cap_adj = calloc(no, sizeof(*cg->cap_adj));
	cg->ch = calloc(no, sizeof(*cg->ch));
	cg->best = calloc(no, sizeof(*cg->best));
	cg->keep = calloc(KEEP_MAX * no, sizeof(*cg->keep));
	cg->set = calloc(no, 1);
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
	cg->term = calloc(cg->n_oc, sizeof(*cg->term));
	if (!cg->term)
		return -1;
	find_owners(s, cg);
	for (size_t i = 0; i < g->n_node; i++) {
		cg->slot0[i] = cg->n_slot;
		cg->n_slot += g->node[i]->n_in;
	}
	cg->slot0[g->n_node] = cg->n_slot;
	cg->slot_base = calloc(cg->n_slot + 1, sizeof(*cg->slot_base));
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
	cg->lay = calloc(cg->n_lay + 1, sizeof(*cg->lay));
	return cg->lay ? 0 : -1;
}

/* Add edge "e" to the edges of owner "o" in "cg"; 0 or -1. */
static int
adj_add(struct sym__cg *cg, size_t o, size_t e)
{
	if (SYM__RESERVE(NULL, cg->adj[o], cg->cap_adj[o], cg->n_adj[o] + 1) <
	    0)
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

	cg->edge = calloc(cg->n_slot + 1, sizeof(*cg->edge));
	if (!cg->edge)
		return -1;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_in; k++) {
			const sym_value *v = g->node[i]->in[k];
			struct cg_edge *e = &cg->edge[cg->n_edge];

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

/* Add "e" (consumed; NULL: failure) to "*sum"; 0, or -1 with "*sum"
 * released (NULL from then on). */
static int
add(sym_expr **sum, sym_expr *e)
{
	if (!e || !*sum) {
		sym_expr_free(e);
		*sum = sym_expr_free(*sum);
		return -1;
	}
	*sum = sym_expr_add(*sum, e);
	return *sum ? 0 : -1;
}

/* Return a new reference to the time of the steps of "plan" (fs). */
static sym_expr *
steps_fs(sym_ctx *ctx, const sym_redist *plan)
{
	sym_expr *fs = sym_expr_const(ctx, 0);
	size_t ns = sym_redist_n_steps(plan);

	for (size_t i = 0; i < ns && fs; i++)
		add(&fs, sym_redist_step_femtoseconds(plan, i));
	return fs;
}

/* The sums of one probe, by owner: operations, communication and
 * memory. */
struct sums {
	sym_expr **flops, **comm, **mem;
};

/* Return 1 when probe "k" measures owner "o" of "cg". */
static int
measures(const struct sym__cg *cg, size_t o, size_t k)
{
	return k < cg->n_cand[o];
}

/* Record the sharded graph of "s" (probe "k") into "cg": the terms and
 * layouts of the owners it measures; 0, or -1 when out of memory. */
static int
record(sym_search *s, struct sym__cg *cg, size_t k, struct sums *t)
{
	const sym_graph *g = s->g;
	const sym_sharding *sh = s->cur;

	for (size_t o = 0; o < cg->n_owner; o++) {
		t->flops[o] = t->comm[o] = t->mem[o] = NULL;
		if (!measures(cg, o, k))
			continue;
		t->flops[o] = sym_expr_const(s->ctx, 0);
		t->comm[o] = sym_expr_const(s->ctx, 0);
		t->mem[o] = sym_expr_const(s->ctx, 0);
	}
	/* a sum that cannot be made leaves its owner's term unmeasured */
	for (size_t i = 0; i < g->n_node; i++) {
		const sym_node *n = g->node[i];
		const struct sym__nshard *ns = &sh->node[i];
		size_t o = cg->owner[i];

		if (!measures(cg, o, k))
			continue;
		if (!ns->in_layout) {
			t->flops[o] = sym_expr_free(t->flops[o]);
			continue;
		}
		add(&t->flops[o], sym__cost_node_flops(sh, n));
		for (size_t j = 0; j < n->n_in; j++)
			cg->lay[cg->slot_base[cg->slot0[i] + j] + k] =
			    sym__intern_layout(&cg->pass, ns->in_layout[j]);
	}
	for (size_t v = 0; v < g->n_value; v++) {
		const sym_value *x = g->value[v];
		sym_layout *xl = sh->layout[v];
		size_t o = cg->vsrc[v];

		if (o == SIZE_MAX || !measures(cg, o, k) || !xl)
			continue;
		cg->lay[cg->val_base[v] + k] =
		    sym__intern_layout(&cg->pass, xl);
		if (!cg->shared[v] && !x->failed)
			add(&t->mem[o],
			    sym__cost_block_bytes(xl,
			        sym__value_shape((sym_value *)x)));
	}
	for (size_t c = 0; c < sh->n_comm; c++) {
		const struct sym__comm *m = &sh->comm[c];
		size_t o;

		if (m->pub.consumer || !m->pub.value->producer)
			continue;
		o = cg->owner[m->pub.value->producer->index];
		if (measures(cg, o, k))
			add(&t->comm[o], steps_fs(s->ctx, m->plan));
	}
	for (size_t o = 0; o < cg->n_owner; o++) {
		size_t oc = cg->oc0[o] + k;

		if (!measures(cg, o, k))
			continue;
		if (t->flops[o] && t->comm[o] && t->mem[o]) {
			cg->term[oc].fs = sym__cost_flops_fs(t->flops[o],
			    sym_topology_flops(s->topo));
			t->flops[o] = NULL;
			add(&cg->term[oc].fs, t->comm[o]);
			t->comm[o] = NULL;
			cg->term[oc].mem = t->mem[o];
			t->mem[o] = NULL;
		}
		sym_expr_free(t->flops[o]);
		sym_expr_free(t->comm[o]);
		sym_expr_free(t->mem[o]);
	}
	if (sym_ctx_last_error(s->ctx) == SYM_ENOMEM)
		return -1;
	sym_ctx_clear_error(s->ctx);
	return 0;
}

/* Return the most candidates an owner of "cg" has. */
static size_t
most_candidates(const struct sym__cg *cg)
{
	size_t most = 1;

	for (size_t o = 0; o < cg->n_owner; o++)
		if (cg->n_cand[o] > most)
			most = cg->n_cand[o];
	return most;
}

/* Run the probes of "cg" over the graph of "s"; 0 or -1 (out of
 * memory). */
static int
probe(sym_search *s, struct sym__cg *cg)
{
	size_t most = most_candidates(cg),
	       *c = calloc(s->n_node + 1, sizeof(*c));
	struct sums t;
	int rc = 0;

	t.flops = calloc(cg->n_owner, sizeof(*t.flops));
	t.comm = calloc(cg->n_owner, sizeof(*t.comm));
	t.mem = calloc(cg->n_owner, sizeof(*t.mem));
	if (!c || !t.flops || !t.comm || !t.mem)
		rc = -1;
	for (size_t k = 0; k < most && rc == 0; k++) {
		for (size_t j = 0; j < s->n_node; j++)
			c[j] = k < s->n_cand[j] ? k : 0;
		cg->n_probe++;
		if (sym__search_shard_with(s, c) < 0) {
			if (s->failed)
				rc = -1;
			continue;
		}
		rc = record(s, cg, k, &t);
	}
	free(c);
	free(t.flops);
	free(t.comm);
	free(t.mem);
	return rc;
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

	cg->lid = calloc(cg->n_lay + 1, sizeof(*cg->lid));
	cg->slot_nid = calloc(cg->n_slot + 1, sizeof(*cg->slot_nid));
	cg->val_nid = calloc(g->n_value + 1, sizeof(*cg->val_nid));
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
		struct cg_edge *x = &cg->edge[e];
		size_t cells =
		    (size_t)cg->val_nid[x->v->index] * cg->slot_nid[x->slot];

		x->memo = malloc(cells * sizeof(*x->memo));
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
	struct sym__cg *cg = calloc(1, sizeof(*cg));

	if (!cg) {
		s->failed = 1;
		return NULL;
	}
	cg->n_owner = s->n_node + 1;
	if (alloc_tables(s, cg) < 0 || make_edges(s, cg) < 0) {
		s->failed = 1;
		sym__cg_free(cg);
		return NULL;
	}
	cg->have_pass = 1;
	if (sym__pass_begin(&cg->pass, s->g, s->topo) < 0) {
		s->failed = 1;
		sym__cg_free(cg);
		return NULL;
	}
	/* the probes and the search's passes plan each redistribution
	 * once, in this pass's memo (until sym_graph_search returns) */
	s->memos = &cg->pass;
	if (probe(s, cg) < 0 || finish_edges(s, cg) < 0 || make_pairs(cg) < 0) {
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
add_term(sym_search *s, const struct sym__cg *cg, struct cg_term *v,
    struct cg_tot *t)
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
static void
add_node(sym_search *s, struct sym__cg *cg, size_t o, size_t c,
    struct cg_tot *t)
{
	add_term(s, cg, &cg->term[cg->oc0[o] + c], t);
}

/* Return the state of edge "e" of "cg" at candidates "ca" (its value's
 * owner) and "cb" (its consumer's), planning the redistribution the
 * first time. */
static int32_t
edge_state(sym_search *s, struct sym__cg *cg, struct cg_edge *e, size_t ca,
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
	if (sym_layout_is_equal(from, to))
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
	if (SYM__RESERVE(NULL, cg->mterm, cg->cap_mterm, i + 1) < 0) {
		cg->failed = 1;
		return E_NONE;
	}
	while (cg->n_mterm <= i) {
		struct cg_term *t = &cg->mterm[cg->n_mterm];
		const struct sym__memo *mt = &cg->pass.memo[cg->n_mterm++];

		memset(t, 0, sizeof(*t));
		t->fs = mt->plan ? steps_fs(s->ctx, mt->plan) : NULL;
		t->mem = sym__cost_block_bytes(mt->to, mt->shape);
	}
	return *st = (int32_t)i;
}

/* Add the term of edge "e" of "cg" at candidates "ca" and "cb" to "t". */
static void
add_edge(sym_search *s, struct sym__cg *cg, struct cg_edge *e, size_t ca,
    size_t cb, struct cg_tot *t)
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
static int
tot_better(struct cg_tot a, struct cg_tot b, int64_t cap)
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
static struct cg_tot
total(sym_search *s, struct sym__cg *cg, const size_t *ch)
{
	struct cg_tot t = { 0, 0, 0 };

	for (size_t o = 0; o < cg->n_owner; o++)
		add_node(s, cg, o, ch[o], &t);
	for (size_t e = 0; e < cg->n_edge; e++)
		add_edge(s, cg, &cg->edge[e], ch[cg->edge[e].a],
		    ch[cg->edge[e].b], &t);
	return t;
}

/* The terms of owner "o" at candidate "c" in the plan "ch": its own and
 * those of its edges, the other ends at "ch" (only those "set" when not
 * NULL; none at "skip"). */
static struct cg_tot
local(sym_search *s, struct sym__cg *cg, const size_t *ch, size_t o, size_t c,
    const unsigned char *set, size_t skip)
{
	struct cg_tot t = { 0, 0, 0 };

	add_node(s, cg, o, c, &t);
	for (size_t k = 0; k < cg->n_adj[o]; k++) {
		struct cg_edge *e = &cg->edge[cg->adj[o][k]];
		size_t other = e->a == o ? e->b : e->a;

		if (other == skip || (set && other != o && !set[other]))
			continue;
		add_edge(s, cg, e, e->a == o ? c : ch[e->a],
		    e->b == o ? c : ch[e->b], &t);
	}
	return t;
}

/* Return "a" plus "b" minus "c". */
static struct cg_tot
tot_shift(struct cg_tot a, struct cg_tot b, struct cg_tot c)
{
	struct cg_tot t;

	t.fs = a.fs + b.fs - c.fs;
	t.mem = a.mem + b.mem - c.mem;
	t.bad = a.bad + b.bad - c.bad;
	return t;
}

/* Add "b" to "a". */
static void
tot_add(struct cg_tot *a, struct cg_tot b)
{
	a->fs += b.fs;
	a->mem += b.mem;
	a->bad += b.bad;
}

/* Complete the plan "ch" greedily in the order "order" (every owner):
 * every owner not in "set" takes its best candidate given the owners set
 * before it. */
static void
greedy(sym_search *s, struct sym__cg *cg, size_t *ch, unsigned char *set,
    const size_t *order)
{
	for (size_t i = 0; i < cg->n_owner; i++) {
		size_t o = order[i];
		struct cg_tot best = { 0, 0, 0 };

		if (set[o])
			continue;
		for (size_t c = 0; c < cg->n_cand[o]; c++) {
			struct cg_tot t = local(s, cg, ch, o, c, set, SIZE_MAX);

			if (c == 0 || tot_better(t, best, s->cap)) {
				best = t;
				ch[o] = c;
			}
		}
		set[o] = 1;
	}
}

/* Store in "order" the owners of "cg" breadth first from "root" through
 * their edges (sharding propagation's order: each owner decided next to
 * one decided before it), the unreached ones after in their order. */
static void
bfs_order(const struct sym__cg *cg, size_t root, size_t *order,
    unsigned char *seen)
{
	size_t n = 0, head = 0;

	memset(seen, 0, cg->n_owner);
	for (size_t k = 0; k <= cg->n_owner; k++) {
		size_t start = k == 0 ? root : k - 1;

		if (seen[start])
			continue;
		seen[start] = 1;
		order[n++] = start;
		while (head < n) {
			size_t o = order[head++];

			for (size_t j = 0; j < cg->n_adj[o]; j++) {
				const struct cg_edge *e =
				    &cg->edge[cg->adj[o][j]];
				size_t other = e->a == o ? e->b : e->a;

				if (!seen[other]) {
					seen[other] = 1;
					order[n++] = other;
				}
			}
		}
	}
}

/* Improve the plan "ch" of value "*t" one owner at a time, each taking
 * its best candidate with the others fixed, until none changes; after
 * the first sweep only the owners next to one that changed are tried
 * again (the others' best cannot have moved). */
static void
descend(sym_search *s, struct sym__cg *cg, size_t *ch, struct cg_tot *t)
{
	unsigned char *look = cg->set;
	int changed = 1;

	memset(look, 1, cg->n_owner);
	for (int sweep = 0; changed && sweep < MAX_SWEEPS; sweep++) {
		changed = 0;
		for (size_t o = 0; o + 1 < cg->n_owner; o++) {
			struct cg_tot cur, best = *t;
			size_t bc = ch[o];

			if (!look[o])
				continue;
			look[o] = 0;
			cur = local(s, cg, ch, o, ch[o], NULL, SIZE_MAX);
			for (size_t c = 0; c < cg->n_cand[o]; c++) {
				struct cg_tot l, n;

				if (c == ch[o])
					continue;
				l = local(s, cg, ch, o, c, NULL, SIZE_MAX);
				n = tot_shift(*t, l, cur);
				if (tot_better(n, best, s->cap)) {
					best = n;
					bc = c;
				}
			}
			if (bc == ch[o])
				continue;
			ch[o] = bc;
			*t = best;
			changed = 1;
			for (size_t k = 0; k < cg->n_adj[o]; k++) {
				const struct cg_edge *e =
				    &cg->edge[cg->adj[o][k]];

				look[e->a] = look[e->b] = 1;
			}
		}
		*t = total(s, cg, ch); /* no drift from the differences */
	}
}

/* Add to "t" the terms of the edges of the pair "q" of "cg" with its
 * owners at candidates "ca" (q->a) and "cb" (q->b). */
static void
pair_terms(sym_search *s, struct sym__cg *cg, const struct cg_pair *q,
    size_t ca, size_t cb, struct cg_tot *t)
{
	for (size_t k = 0; k < q->n; k++) {
		struct cg_edge *e = &cg->edge[cg->pedge[q->e0 + k]];

		add_edge(s, cg, e, e->a == q->a ? ca : cb,
		    e->b == q->b ? cb : ca, t);
	}
}

/* Improve the plan "ch" of value "*t" two neighbouring owners at a
 * time: each pair of owners joined by edges takes its best pair of
 * candidates with the others fixed (what one owner at a time cannot
 * reach when both must change together); 1 when a pair changed. */
static int
pair_sweep(sym_search *s, struct sym__cg *cg, size_t *ch, struct cg_tot *t)
{
	int changed = 0;

	for (size_t p = 0; p < cg->n_pair && !cg->failed; p++) {
		const struct cg_pair *q = &cg->pair[p];
		size_t a = q->a, b = q->b, ba = ch[a], bb = ch[b];
		struct cg_tot cur, best = *t;

		for (size_t c = 0; c < cg->n_cand[a]; c++)
			cg->ta[c] = local(s, cg, ch, a, c, NULL, b);
		for (size_t c = 0; c < cg->n_cand[b]; c++)
			cg->tb[c] = local(s, cg, ch, b, c, NULL, a);
		cur = cg->ta[ch[a]];
		tot_add(&cur, cg->tb[ch[b]]);
		pair_terms(s, cg, q, ch[a], ch[b], &cur);
		for (size_t ca = 0; ca < cg->n_cand[a]; ca++)
			for (size_t cb = 0; cb < cg->n_cand[b]; cb++) {
				struct cg_tot l = cg->ta[ca], n;

				tot_add(&l, cg->tb[cb]);
				pair_terms(s, cg, q, ca, cb, &l);
				n = tot_shift(*t, l, cur);
				if (tot_better(n, best, s->cap)) {
					best = n;
					ba = ca;
					bb = cb;
				}
			}
		if (ba != ch[a] || bb != ch[b]) {
			ch[a] = ba;
			ch[b] = bb;
			*t = best;
			changed = 1;
		}
	}
	*t = total(s, cg, ch);
	return changed;
}

/* Find the pairs of searched owners of "cg" joined by edges, and their
 * edges; 0 or -1. */
static int
make_pairs(struct sym__cg *cg)
{
	size_t most = most_candidates(cg);

	cg->pedge = calloc(cg->n_edge + 1, sizeof(*cg->pedge));
	cg->pair = calloc(cg->n_edge + 1, sizeof(*cg->pair));
	cg->ta = calloc(most, sizeof(*cg->ta));
	cg->tb = calloc(most, sizeof(*cg->tb));
	if (!cg->pedge || !cg->pair || !cg->ta || !cg->tb)
		return -1;
	/* by owner a, its edges to later owners b, grouped by b */
	for (size_t a = 0; a + 1 < cg->n_owner; a++) {
		size_t first = cg->n_pair; /* a's pairs */

		for (size_t k = 0; k < cg->n_adj[a]; k++) {
			const struct cg_edge *e = &cg->edge[cg->adj[a][k]];
			size_t b = e->a == a ? e->b : e->a, m, q;

			if (b <= a || b + 1 == cg->n_owner)
				continue;
			for (q = first; q < cg->n_pair; q++)
				if (cg->pair[q].a == a && cg->pair[q].b == b)
					break;
			if (q < cg->n_pair)
				continue; /* grouped when first met */
			cg->pair[q] = (struct cg_pair){ a, b, cg->n_pedge, 0 };
			for (m = k; m < cg->n_adj[a]; m++) {
				const struct cg_edge *f =
				    &cg->edge[cg->adj[a][m]];

				if ((f->a == a && f->b == b) ||
				    (f->a == b && f->b == a)) {
					cg->pedge[cg->n_pedge++] =
					    cg->adj[a][m];
					cg->pair[q].n++;
				}
			}
			cg->n_pair++;
		}
	}
	return 0;
}

/* A factor of the elimination: a table over the candidates of its
 * owners "var" (index: the sum of candidate times stride). */
struct cg_factor {
	size_t nv;
	size_t var[MAX_SCOPE];
	size_t stride[MAX_SCOPE];
	size_t cells; /* of "val" */
	double *val;
	int dead;
};

/* An eliminated owner: the factor scope it was minimized over, the
 * factors it summed ("fo", its stride in each "so") into factor "k",
 * and, by assignment of that scope, its best candidate ("arg", at the
 * last size). */
struct cg_elim {
	size_t owner, nv, k, nf;
	size_t var[MAX_SCOPE];
	size_t stride[MAX_SCOPE];
	size_t fo[MAX_FACTORS], so[MAX_FACTORS];
	uint32_t *arg;
};

/* The dynamic programming of a cost graph. Its factors and the order of
 * elimination depend on the graph and the candidates only, so they are
 * made once (at the first size) and every size refills the tables: the
 * factor of owner o is f[o], that of pair p f[fixed + p], then those
 * the eliminations make; "rc" 1 when the scopes or the work are too
 * large (at every size). */
struct cg_dp {
	struct cg_factor *f;
	size_t n_f, cap_f;
	size_t **vf, *n_vf, *cap_vf; /* by owner: its factors */
	struct cg_elim *el;
	size_t n_el;
	size_t *stamp, now;
	unsigned char *gone; /* by owner: eliminated */
	/* by owner: the cells its elimination fills (HUGE_VAL: its scope is
	 * too wide), known unless "stale" */
	double *score;
	unsigned char *stale;
	size_t *asg;
	double *acc; /* scratch: a sum by candidate of the owner eliminated */
	int rc;
};

/* The scalar value of "t" for the elimination: time plus "lambda" per
 * byte, unmeasured terms prohibitive. */
static double
scalar(struct cg_tot t, double lambda)
{
	return t.bad ? 1e300 : t.fs + lambda * t.mem;
}

/* Add a factor over "nv" owners "var" to "d" with a zeroed table, listed
 * under each owner; its index, or SIZE_MAX when out of memory. */
static size_t
dp_factor(struct sym__cg *cg, struct cg_dp *d, size_t nv, const size_t *var)
{
	struct cg_factor *f = &d->f[d->n_f];
	size_t cells = 1;

	SYM__INVARIANT(d->n_f < d->cap_f && nv <= MAX_SCOPE);
	memset(f, 0, sizeof(*f));
	f->nv = nv;
	for (size_t k = 0; k < nv; k++) {
		f->var[k] = var[k];
		f->stride[k] = cells;
		cells *= cg->n_cand[var[k]];
	}
	f->cells = cells;
	f->val = calloc(cells, sizeof(*f->val));
	if (!f->val)
		return SIZE_MAX;
	for (size_t k = 0; k < nv; k++) {
		size_t o = var[k];

		if (SYM__RESERVE(NULL, d->vf[o], d->cap_vf[o], d->n_vf[o] + 1) <
		    0) {
			free(f->val);
			return SIZE_MAX;
		}
		d->vf[o][d->n_vf[o]++] = d->n_f;
	}
	return d->n_f++;
}

/* Free "d" (NULL: nothing) of the cost graph "cg". */
static void
dp_free(const struct sym__cg *cg, struct cg_dp *d)
{
	if (!d)
		return;
	for (size_t k = 0; d->f && k < d->n_f; k++)
		free(d->f[k].val);
	for (size_t o = 0; d->vf && o < cg->n_owner; o++)
		free(d->vf[o]);
	for (size_t k = 0; d->el && k < d->n_el; k++)
		free(d->el[k].arg);
	free(d->f);
	free(d->vf);
	free(d->n_vf);
	free(d->cap_vf);
	free(d->el);
	free(d->stamp);
	free(d->gone);
	free(d->score);
	free(d->stale);
	free(d->asg);
	free(d->acc);
	free(d);
}

/* Return the factors of "cg" (one by searched owner, one by pair of
 * owners joined by edges) with zeroed tables; NULL when out of
 * memory. */
static struct cg_dp *
dp_new(struct sym__cg *cg)
{
	size_t no = cg->n_owner, fixed = no - 1, nf = 2 * no + cg->n_pair + 1;
	struct cg_dp *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->f = calloc(nf, sizeof(*d->f));
	d->cap_f = nf;
	d->vf = calloc(no, sizeof(*d->vf));
	d->n_vf = calloc(no, sizeof(*d->n_vf));
	d->cap_vf = calloc(no, sizeof(*d->cap_vf));
	d->el = calloc(no, sizeof(*d->el));
	d->stamp = calloc(no, sizeof(*d->stamp));
	d->gone = calloc(no, 1);
	d->score = calloc(no, sizeof(*d->score));
	d->stale = malloc(no);
	d->asg = calloc(no, sizeof(*d->asg));
	d->acc = calloc(most_candidates(cg), sizeof(*d->acc));
	if (!d->f || !d->vf || !d->n_vf || !d->cap_vf || !d->el || !d->stamp ||
	    !d->gone || !d->score || !d->stale || !d->asg || !d->acc) {
		dp_free(cg, d);
		return NULL;
	}
	memset(d->stale, 1, no);
	for (size_t o = 0; o < fixed; o++)
		if (dp_factor(cg, d, 1, &o) == SIZE_MAX) {
			dp_free(cg, d);
			return NULL;
		}
	for (size_t p = 0; p < cg->n_pair; p++) {
		size_t var[2] = { cg->pair[p].a, cg->pair[p].b };

		if (dp_factor(cg, d, 2, var) == SIZE_MAX) {
			dp_free(cg, d);
			return NULL;
		}
	}
	return d;
}

/* Fill the tables of the factors of owners and pairs of "d" at the size
 * bound in s->b: an owner's term and its edges to itself or the fixed
 * owner; a pair's edges. */
static void
dp_fill(sym_search *s, struct sym__cg *cg, struct cg_dp *d, double lambda)
{
	size_t fixed = cg->n_owner - 1;

	for (size_t o = 0; o < fixed; o++)
		for (size_t c = 0; c < cg->n_cand[o]; c++) {
			struct cg_tot t = { 0, 0, 0 };

			add_node(s, cg, o, c, &t);
			for (size_t j = 0; j < cg->n_adj[o]; j++) {
				struct cg_edge *e = &cg->edge[cg->adj[o][j]];

				if ((e->a == o || e->a == fixed) &&
				    (e->b == o || e->b == fixed))
					add_edge(s, cg, e, e->a == o ? c : 0,
					    e->b == o ? c : 0, &t);
			}
			d->f[o].val[c] = scalar(t, lambda);
		}
	for (size_t p = 0; p < cg->n_pair; p++) {
		const struct cg_pair *q = &cg->pair[p];
		const struct cg_factor *f = &d->f[fixed + p];
		/* the strides of a's and b's candidates (see dp_orient) */
		size_t sa = f->var[0] == q->a ? 1 : cg->n_cand[q->b];
		size_t sb = f->var[0] == q->a ? cg->n_cand[q->a] : 1;

		for (size_t ca = 0; ca < cg->n_cand[q->a]; ca++)
			for (size_t cb = 0; cb < cg->n_cand[q->b]; cb++) {
				struct cg_tot t = { 0, 0, 0 };

				pair_terms(s, cg, q, ca, cb, &t);
				f->val[ca * sa + cb * sb] = scalar(t, lambda);
			}
	}
}

/* The scope of owner "o" in "d": the other owners of its live factors,
 * into "var" (room for MAX_SCOPE); their number, or MAX_SCOPE + 1 when
 * more (or when the factors are more than MAX_FACTORS); the product of
 * their candidates in "*cells". */
static size_t
dp_scope(const struct sym__cg *cg, struct cg_dp *d, size_t o, size_t *var,
    double *cells)
{
	size_t nv = 0, live = 0;

	d->now++;
	d->stamp[o] = d->now;
	*cells = 1;
	for (size_t j = 0; j < d->n_vf[o]; j++) {
		const struct cg_factor *f = &d->f[d->vf[o][j]];

		if (f->dead)
			continue;
		if (++live > MAX_FACTORS)
			return MAX_SCOPE + 1;
		for (size_t k = 0; k < f->nv; k++) {
			size_t u = f->var[k];

			if (d->stamp[u] == d->now)
				continue;
			d->stamp[u] = d->now;
			if (nv == MAX_SCOPE)
				return MAX_SCOPE + 1;
			var[nv++] = u;
			*cells *= (double)cg->n_cand[u];
		}
	}
	return nv;
}

/* Plan the elimination of owner "o" from "d" over the scope "var"
 * ("nv"): a new factor, the live factors of "o" it sums (marked dead),
 * and the table of best candidates; 0 or -1. */
static int
dp_plan(struct sym__cg *cg, struct cg_dp *d, size_t o, size_t nv,
    const size_t *var)
{
	size_t k = dp_factor(cg, d, nv, var), cells = 1;
	struct cg_elim *el = &d->el[d->n_el];

	if (k == SIZE_MAX)
		return -1;
	SYM__INVARIANT(d->n_el < cg->n_owner);
	memset(el, 0, sizeof(*el));
	for (size_t j = 0; j < d->n_vf[o]; j++) {
		struct cg_factor *f = &d->f[d->vf[o][j]];

		if (f->dead || d->vf[o][j] == k)
			continue;
		f->dead = 1;
		SYM__INVARIANT(el->nf < MAX_FACTORS);
		el->fo[el->nf] = d->vf[o][j];
		for (size_t m = 0; m < f->nv; m++)
			if (f->var[m] == o)
				el->so[el->nf] = f->stride[m];
		el->nf++;
	}
	for (size_t m = 0; m < nv; m++)
		cells *= cg->n_cand[var[m]];
	el->owner = o;
	el->nv = nv;
	el->k = k;
	memcpy(el->var, d->f[k].var, sizeof(el->var));
	memcpy(el->stride, d->f[k].stride, sizeof(el->stride));
	el->arg = calloc(cells, sizeof(*el->arg));
	if (!el->arg)
		return -1;
	d->n_el++;
	return 0;
}

/* Run the elimination "el" of "d": its factor's table, the least sum of
 * the factors it sums over the candidates of its owner, and the best
 * candidate by assignment of its scope. */
static void
dp_run(const struct sym__cg *cg, struct cg_dp *d, const struct cg_elim *el)
{
	size_t o = el->owner, nc = cg->n_cand[o], cells = 1;
	struct cg_factor *g = &d->f[el->k];

	for (size_t m = 0; m < el->nv; m++) {
		cells *= cg->n_cand[el->var[m]];
		d->asg[el->var[m]] = 0;
	}
	for (size_t x = 0; x < cells; x++) {
		size_t base[MAX_FACTORS] = { 0 }, bc = 0;
		double bv = 0;

		for (size_t j = 0; j < el->nf; j++) {
			const struct cg_factor *f = &d->f[el->fo[j]];

			base[j] = 0;
			for (size_t m = 0; m < f->nv; m++)
				if (f->var[m] != o)
					base[j] +=
					    d->asg[f->var[m]] * f->stride[m];
			SYM__INVARIANT(base[j] + (nc - 1) * el->so[j] <
			    f->cells);
		}
		/* the sums by candidate, a factor at a time (the same order
		 * of additions as candidate by candidate) */
		for (size_t c = 0; c < nc; c++)
			d->acc[c] = 0;
		for (size_t j = 0; j < el->nf; j++) {
			const double *v = d->f[el->fo[j]].val + base[j];
			size_t st = el->so[j];

			if (st == 1)
				for (size_t c = 0; c < nc; c++)
					d->acc[c] += v[c];
			else
				for (size_t c = 0; c < nc; c++)
					d->acc[c] += v[c * st];
		}
		for (size_t c = 0; c < nc; c++)
			if (c == 0 || d->acc[c] < bv) {
				bv = d->acc[c];
				bc = c;
			}
		SYM__INVARIANT(x < g->cells);
		g->val[x] = bv;
		el->arg[x] = (uint32_t)bc;
		/* the next assignment of the scope, the first owner fastest */
		for (size_t m = 0; m < el->nv; m++) {
			if (++d->asg[el->var[m]] < cg->n_cand[el->var[m]])
				break;
			d->asg[el->var[m]] = 0;
		}
	}
}

/* Lay out the pair factors of "d" (of "cg") so that the owner each is
 * summed over when eliminated varies fastest (its table then read in
 * order, not by strides). */
static void
dp_orient(const struct sym__cg *cg, struct cg_dp *d)
{
	size_t fixed = cg->n_owner - 1;

	for (size_t k = 0; k < d->n_el; k++) {
		struct cg_elim *el = &d->el[k];

		for (size_t j = 0; j < el->nf; j++) {
			struct cg_factor *f = &d->f[el->fo[j]];
			size_t v0 = f->var[0];

			if (el->fo[j] < fixed ||
			    el->fo[j] >= fixed + cg->n_pair || el->so[j] == 1)
				continue;
			f->var[0] = f->var[1];
			f->var[1] = v0;
			f->stride[0] = 1;
			f->stride[1] = cg->n_cand[f->var[0]];
			el->so[j] = 1;
		}
	}
}

/* Make the dynamic programming of "cg" (cg->dp): its factors and its
 * order of elimination, the owner with the smallest scope first, while
 * the scopes span at most MAX_SCOPE owners and the work stays within its
 * bound (else d->rc = 1); 0, or -1 when out of memory. */
static int
dp_make(struct sym__cg *cg)
{
	size_t no = cg->n_owner, fixed = no - 1;
	double work = 0, most = DP_WORK + DP_WORK_OWNER * (double)fixed;
	struct cg_dp *d;

	for (size_t p = 0; p < cg->n_pair; p++)
		work += (double)cg->n_cand[cg->pair[p].a] *
		    (double)cg->n_cand[cg->pair[p].b];
	if (work > most) {
		cg->dp = calloc(1, sizeof(*cg->dp));
		if (!cg->dp)
			return -1;
		cg->dp->rc = 1;
		return 0;
	}
	d = cg->dp = dp_new(cg);
	if (!d)
		return -1;
	work = 0;
	for (size_t step = 0; step < fixed; step++) {
		size_t bo = SIZE_MAX, bnv, var[MAX_SCOPE];
		double cells;

		/* a scope changes only when a neighbour is eliminated */
		for (size_t o = 0; o < fixed; o++) {
			if (d->gone[o])
				continue;
			if (d->stale[o]) {
				size_t nv = dp_scope(cg, d, o, var, &cells);

				d->score[o] = nv > MAX_SCOPE
				    ? HUGE_VAL
				    : cells * (double)cg->n_cand[o];
				d->stale[o] = 0;
			}
			if (d->score[o] < HUGE_VAL &&
			    (bo == SIZE_MAX || d->score[o] < d->score[bo]))
				bo = o;
		}
		if (bo == SIZE_MAX || (work += d->score[bo]) > most) {
			d->rc = 1;
			return 0;
		}
		bnv = dp_scope(cg, d, bo, var, &cells);
		if (dp_plan(cg, d, bo, bnv, var) < 0)
			return -1;
		d->gone[bo] = 1;
		for (size_t m = 0; m < bnv; m++)
			d->stale[var[m]] = 1;
	}
	dp_orient(cg, d);
	return 0;
}

/* Store in "ch" the plan of least time plus "lambda" per byte in the
 * model of "cg" at the bound size, by eliminating the owners one at a
 * time in the order dp_make chose (exact: dynamic programming over the
 * cost graph). Return 0, 1 when the scopes grow beyond MAX_SCOPE owners
 * or the work beyond its bound (nothing done), or -1 when out of
 * memory. */
static int
dp_solve(sym_search *s, struct sym__cg *cg, double lambda, size_t *ch)
{
	struct cg_dp *d;

	if (!cg->dp && dp_make(cg) < 0)
		return -1;
	d = cg->dp;
	if (d->rc)
		return d->rc;
	dp_fill(s, cg, d, lambda);
	for (size_t k = 0; k < d->n_el; k++)
		dp_run(cg, d, &d->el[k]);
	ch[cg->n_owner - 1] = 0;
	for (size_t k = d->n_el; k-- > 0;) {
		const struct cg_elim *el = &d->el[k];
		size_t x = 0;

		for (size_t m = 0; m < el->nv; m++)
			x += ch[el->var[m]] * el->stride[m];
		ch[el->owner] = el->arg[x];
	}
	return 0;
}

/* Make the greedy plans of "cg" at the size bound in s->b, kept for
 * every later size: one from each candidate of a pivot, propagated
 * breadth first from it; the pivots are the owners with the most
 * candidates first, as many as about POOL_WORK edge terms allow (at
 * least the first). 0 or -1. */
static int
make_pool(sym_search *s, struct sym__cg *cg)
{
	size_t no = cg->n_owner, work = 1, most, *order, *piv;
	int rc = 0;

	for (size_t o = 0; o < no; o++)
		work += cg->n_cand[o] * (1 + cg->n_adj[o]);
	order = calloc(no, sizeof(*order));
	piv = calloc(no, sizeof(*piv));
	if (!order || !piv) {
		free(order);
		free(piv);
		return -1;
	}
	/* the searched owners by decreasing candidates */
	for (size_t o = 0; o < no; o++)
		piv[o] = o;
	for (size_t i = 1; i + 1 < no; i++)
		for (size_t j = i;
		     j > 0 && cg->n_cand[piv[j]] > cg->n_cand[piv[j - 1]];
		     j--) {
			size_t t = piv[j];

			piv[j] = piv[j - 1];
			piv[j - 1] = t;
		}
	most = POOL_WORK / work;
	if (most < cg->n_cand[piv[0]])
		most = cg->n_cand[piv[0]];
	cg->pool = calloc(most * no, sizeof(*cg->pool));
	if (!cg->pool)
		rc = -1;
	for (size_t p = 0; rc == 0 && p + 1 < no; p++) {
		size_t pivot = piv[p];

		if (cg->n_pool + cg->n_cand[pivot] > most)
			break;
		bfs_order(cg, pivot, order, cg->set);
		for (size_t k = 0; k < cg->n_cand[pivot]; k++) {
			size_t *ch = cg->pool + cg->n_pool++ * no;

			memset(cg->set, 0, no);
			cg->set[no - 1] = 1;
			ch[pivot] = k;
			cg->set[pivot] = 1;
			greedy(s, cg, ch, cg->set, order);
			for (size_t m = 0; m + 1 < cg->n_pool; m++)
				if (!memcmp(cg->pool + m * no, ch,
				        no * sizeof(*ch))) {
					cg->n_pool--; /* a plan made before */
					memset(ch, 0, no * sizeof(*ch));
					break;
				}
		}
	}
	free(order);
	free(piv);
	return rc;
}

/* Add to the plans "kept" ("*n_keep") of "cg" the optimum of its model
 * in time alone, "t0" (in cg->best), over the memory cap, and the
 * optima of the time plus a price per byte, rising until a plan fits
 * (at most MAX_LAMBDAS), by dynamic programming; 0 or -1 when out of
 * memory. */
static int
dp_starts(sym_search *s, struct sym__cg *cg, struct cg_tot t0,
    struct cg_tot *kept, size_t *n_keep)
{
	struct cg_tot t = t0;
	double lambda = 0;

	memcpy(cg->keep + *n_keep * cg->n_owner, cg->best,
	    cg->n_owner * sizeof(*cg->best));
	kept[(*n_keep)++] = t0;
	for (int k = 0; k < MAX_LAMBDAS && *n_keep < KEEP_MAX; k++) {
		size_t *ch = cg->keep + *n_keep * cg->n_owner;
		int rc;

		if (s->cap <= 0 || t.mem <= (double)s->cap || t.mem <= 0)
			return 0;
		lambda = lambda > 0 ? 8 * lambda : t.fs / t.mem;
		rc = dp_solve(s, cg, lambda, ch);
		if (rc != 0)
			return rc < 0 ? -1 : 0;
		t = total(s, cg, ch);
		kept[(*n_keep)++] = t;
	}
	return 0;
}

/* Store into "out" (a candidate by searched operator) the best plan the
 * model of "s" finds at the size bound in s->b: the "n_start" plans
 * "start" and the best KEEP_GREEDY of the greedy plans (made at the
 * first size) are descended, and the best kept. 0, or -1 when out of
 * memory. */
int
sym__cg_best(sym_search *s, struct sym__cg *cg, const size_t *const *start,
    size_t n_start, size_t *out)
{
	size_t no = cg->n_owner, n_keep = 0;
	struct cg_tot kept[KEEP_MAX], best = { 0, 0, 0 };
	int have = 0, dp;

	if (n_start > 2)
		n_start = 2;
	cg->gen++;
	/* the model's optimum, when dynamic programming can find it and
	 * it fits the cap, is the answer */
	dp = dp_solve(s, cg, 0, cg->best);
	if (dp < 0)
		return -1;
	if (dp == 0) {
		best = total(s, cg, cg->best);
		if (best.bad == 0 &&
		    (s->cap <= 0 || best.mem <= (double)s->cap)) {
			memcpy(out, cg->best, (no - 1) * sizeof(*out));
			return 0;
		}
	}
	if (!cg->pool && make_pool(s, cg) < 0)
		return -1;
	for (size_t k = 0; k < n_start + cg->n_pool && !cg->failed; k++) {
		const size_t *ch =
		    k < n_start ? start[k] : cg->pool + (k - n_start) * no;
		size_t at;
		struct cg_tot t;

		memcpy(cg->ch, ch, (no - 1) * sizeof(*cg->ch));
		cg->ch[no - 1] = 0;
		t = total(s, cg, cg->ch);
		/* the caller's plans, and the best KEEP_GREEDY others */
		if (k < n_start || n_keep < n_start + KEEP_GREEDY) {
			at = n_keep++;
		} else {
			at = n_start;
			for (size_t m = n_start + 1; m < n_keep; m++)
				if (tot_better(kept[at], kept[m], s->cap))
					at = m;
			if (!tot_better(t, kept[at], s->cap))
				continue;
		}
		kept[at] = t;
		memcpy(cg->keep + at * no, cg->ch, no * sizeof(*cg->ch));
	}
	if (dp == 0 && dp_starts(s, cg, best, kept, &n_keep) < 0)
		return -1;
	for (size_t m = 0; m < n_keep && !cg->failed; m++) {
		size_t *ch = cg->keep + m * no;

		descend(s, cg, ch, &kept[m]);
		if (!have || tot_better(kept[m], best, s->cap)) {
			best = kept[m];
			memcpy(cg->best, ch, no * sizeof(*ch));
			have = 1;
		}
	}
	for (int round = 0; have && round < MAX_PAIR_ROUNDS &&
	     pair_sweep(s, cg, cg->best, &best);
	     round++)
		descend(s, cg, cg->best, &best);
	if (cg->failed || !have)
		return -1;
	memcpy(out, cg->best, (no - 1) * sizeof(*out));
	return 0;
}
