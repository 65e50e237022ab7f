/* SPDX-License-Identifier: MIT */
/*
 * The cost graph's probes (costgraph_private.h): probe pass k gives
 * every searched operator its candidate k (while k is below its count)
 * and records, for every owner it measures, the owner's term (operations,
 * its partial sums' resolutions and the blocks they keep, its values'
 * blocks) as expressions of
 * the symbols, and the layouts of its nodes' inputs and values interned
 * in the cost graph's pass.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "shard/costgraph_private.h"

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
sym_expr *
sym__cg_steps_fs(sym_ctx *ctx, const sym_redist *plan)
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

/* Return 1 when the communication "m" of "sh", one without a consumer,
 * leaves its value's producer a block beside the value's own that the
 * owner's term counts (sym_graph_cost's resolutions): all but the
 * all_gather of an update made on a shard back into its param, whose
 * block the edge from the param into the update already counts. */
static int
kept_block(const sym_sharding *sh, const struct sym__comm *m)
{
	return sym_redist_n_steps(m->plan) > 0 &&
	    sym__cost_resolution_kept(sh, m) &&
	    sym_redist_step_kind(m->plan, 0) != SYM_REDIST_ALL_GATHER;
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
		if (!measures(cg, o, k))
			continue;
		add(&t->comm[o], sym__cg_steps_fs(s->ctx, m->plan));
		if (kept_block(sh, m))
			add(&t->mem[o], sym__cost_written_bytes(sh, m));
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

/* Run the probes of "cg" over the graph of "s"; 0 or -1 (out of
 * memory). */
int
sym__cg_probe(sym_search *s, struct sym__cg *cg)
{
	size_t most = sym__cg_most_candidates(cg),
	       *c = sym__calloc(s->ctx, s->n_node + 1, sizeof(*c));
	struct sums t;
	int rc = 0;

	t.flops = sym__calloc(s->ctx, cg->n_owner, sizeof(*t.flops));
	t.comm = sym__calloc(s->ctx, cg->n_owner, sizeof(*t.comm));
	t.mem = sym__calloc(s->ctx, cg->n_owner, sizeof(*t.mem));
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
