/* SPDX-License-Identifier: MIT */
/*
 * The cost of a sharded graph (sym_graph_cost, sym_search(3)): the time
 * of one step and the memory of one device, as expressions of the
 * symbols, so that any two plans compare under one model at every size.
 *
 * Time, in femtoseconds: the floating-point operations every node
 * performs on its local blocks (sym__op_flops) at the topology's compute
 * rate, plus the alpha-beta time of every step of every communication
 * the pass planned (redistributions and resolutions of partial sums),
 * one after the other: nothing overlaps. Memory, in bytes: the local
 * block of every value the executor holds for a step (it keeps them
 * all: parameters, gradients, optimizer state, inputs and every
 * intermediate result, the results of aliasing and in-place operators
 * sharing their input's block), of every redistributed copy a
 * consumer reads, and, under optimizer sharding, of the whole partial
 * gradient beside its reduce_scatter'ed shard and of the updated shard
 * beside the param it is gathered into (the executor keeps both); at
 * optimizer_shard=3 a param split by it is held as its shard, and its
 * whole copies, gathered for its uses, share buffers as the executor's
 * do (param_copies_memory). Each
 * counts in the sum of its value's kind: params (and an update's
 * result), gradients, optimizer state, activations. Not counted yet:
 * the block a producer writes before an all_reduce resolves its partial
 * sums (the executor keeps it too) and the intermediate layouts of a
 * redistribution of several steps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <symshard/search.h>

#include "shard/shard_private.h"

/* Sums being built; "failed" once an expression could not be made. */
struct acc {
	sym_expr *flops, *comm_fs;
	sym_expr *param, *grad, *state, *act;
	sym_expr *pool; /* optimizer_shard=2: the largest whole partial
	                 * gradient (one buffer for all), or NULL */
	int failed;
};

/* Add "e" (consumed; NULL: failure) to "*sum" in "a". */
static void
add_to(struct acc *a, sym_expr **sum, sym_expr *e)
{
	if (!e) {
		a->failed = 1;
		return;
	}
	*sum = sym_expr_add(*sum, e);
	if (!*sum)
		a->failed = 1;
}

/* Return a new reference to the bytes of the block of "layout" (NULL:
 * the whole) of a tensor of shape "global"; NULL on failure. */
sym_expr *
sym__cost_block_bytes(const sym_layout *layout, const sym_shape *global)
{
	sym_shape *s = layout ? sym_layout_local_shape(layout, global)
	                      : sym_shape_copy((sym_shape *)global);
	sym_expr *e;

	if (!s)
		return NULL;
	e = sym_expr_mul_si(sym_shape_numel(s),
	    (int64_t)sym_dtype_size(sym_shape_dtype(s)));
	sym_shape_free(s);
	return e;
}

/* Return a new reference to the operations of node "n" on its local
 * blocks (its layouts in the sharding "sh" set); NULL on failure. */
sym_expr *
sym__cost_node_flops(const sym_sharding *sh, const sym_node *n)
{
	const struct sym__nshard *ns = sym__nshard(sh, n);
	sym_shape *in[16], *out[16];
	size_t ni = n->n_in < 16 ? n->n_in : 16;
	size_t no = n->n_out < 16 ? n->n_out : 16;
	size_t i, k;
	sym_expr *e = NULL;

	for (i = 0; i < ni; i++)
		in[i] = sym_layout_local_shape(ns->in_layout[i],
		    sym__value_shape(n->in[i]));
	for (k = 0; k < no; k++)
		out[k] = sym_layout_local_shape(ns->out_layout[k],
		    sym__value_shape(n->out[k]));
	for (i = 0; i < ni && in[i]; i++)
		;
	for (k = 0; k < no && out[k]; k++)
		;
	if (i == ni && k == no)
		e = sym__op_flops(n->op->id, &n->at, in, ni, out, no);
	for (size_t j = 0; j < ni; j++)
		sym_shape_free(in[j]);
	for (size_t j = 0; j < no; j++)
		sym_shape_free(out[j]);
	return e;
}

/* Return 1 when output "k" of "n" shares the block of one of its inputs
 * (an aliasing or in-place operator). */
int
sym__cost_shares_block(const sym_node *n, size_t k)
{
	if (n->op->flags & SYM__OPF_ALIAS)
		return k == 0;
	return (n->op->flags & SYM__OPF_INPLACE) && k < n->n_in;
}

/* Return 1 when "v" is the gradient of a trained param of "g". */
static int
is_grad(const sym_graph *g, const sym_value *v)
{
	for (size_t t = 0; t < g->n_trained; t++)
		if (g->trained[t]->grad == v)
			return 1;
	return 0;
}

/* Return the sum of "a" the memory of "v" (of the graph "g") counts in:
 * optimizer state, params, gradients or activations. An output that an
 * operator writes in place of input k (an update) is of that input's
 * kind. */
static sym_expr **
kind_sum(struct acc *a, const sym_graph *g, const sym_value *v)
{
	const sym_node *n = v->producer;

	if (n && (n->op->flags & SYM__OPF_INPLACE))
		for (size_t k = 0; k < n->n_out && k < n->n_in; k++)
			if (n->out[k] == v)
				return kind_sum(a, g, n->in[k]);
	return v->state                  ? &a->state
	    : v->kind == SYM_VALUE_PARAM ? &a->param
	    : is_grad(g, v)              ? &a->grad
	                                 : &a->act;
}

/* Add the memory of the values of the graph of "sh" laid out as "sh"
 * says to "a", each in the sum of its kind. */
static void
values_memory(struct acc *a, const sym_sharding *sh)
{
	const sym_graph *g = sh->g;
	unsigned char *shared = sym__calloc(g->ctx, g->n_value + 1, 1);

	if (!shared) {
		a->failed = 1;
		return;
	}
	for (size_t k = 0; k < g->n_node; k++)
		for (size_t j = 0; j < g->node[k]->n_out; j++)
			if (sym__cost_shares_block(g->node[k], j))
				shared[g->node[k]->out[j]->index] = 1;
	for (size_t i = 0; i < g->n_value && !a->failed; i++) {
		const sym_value *v = g->value[i];

		if (shared[i] || v->failed)
			continue;
		add_to(a, kind_sum(a, g, v),
		    sym__cost_block_bytes(sym__vlayout(sh, v),
		        sym__value_shape((sym_value *)v)));
	}
	free(shared);
}

/* Return the femtoseconds communication "c" of "sh" saves by being
 * fused into a bucket whose collective another member's latency already
 * pays (lib/shard/fusion.c): its step's latency, else 0. */
static int64_t
fused_saving(const sym_sharding *sh, size_t c)
{
	const struct sym__step *st = &sh->comm[c].plan->step[0];
	const sym_redist *r = sh->comm[c].plan;
	size_t b = sh->comm_bucket ? sh->comm_bucket[c] : SIZE_MAX;

	if (b == SIZE_MAX || sh->bucket_comm[sh->bucket_first[b]] == c)
		return 0;
	return llround(st->alpha_count *
	    (st->inter_node ? r->inter_lat : r->intra_lat) * 1e15);
}

/* Return 1 when the communication "m" of "sh" (one without a consumer)
 * leaves the block its value was written in beside the value's own: the
 * all_reduce of partial sums (an output's, or a gradient's unless fused
 * with others: the executor lays a fused bucket's gradients out in the
 * bucket and reduces them in place, lib/exec/exec_fuse.c), or one optimizer
 * sharding makes, the reduce_scatter of a gradient into its update's
 * shard or the all_gather of an update made on a shard back into its
 * param. */
int
sym__cost_resolution_kept(const sym_sharding *sh, const struct sym__comm *m)
{
	const sym_value *v = m->pub.value;
	const sym_node *n = v->producer;
	sym_redist_kind k = sym_redist_step_kind(m->plan, 0);
	size_t c = (size_t)(m - sh->comm);

	if (k == SYM_REDIST_ALL_REDUCE)
		return !(sh->comm_bucket &&
		    sym_sharding_bucket_size(sh, sh->comm_bucket[c]) >= 2 &&
		    is_grad(sh->g, v));
	if (sh->optshard < 1)
		return 0;
	if (k == SYM_REDIST_REDUCE_SCATTER)
		return is_grad(sh->g, v);
	return k == SYM_REDIST_ALL_GATHER && n &&
	    (n->op->flags & SYM__OPF_INPLACE) && n->n_in > 0 &&
	    n->out[0] == v && n->in[0]->kind == SYM_VALUE_PARAM;
}

/* Return a new reference to the bytes of the block in which the
 * producer of the value of the communication "m" of "sh" writes it (its
 * output's layout), or NULL on failure or when the value has no
 * producer. */
sym_expr *
sym__cost_written_bytes(const sym_sharding *sh, const struct sym__comm *m)
{
	const sym_value *v = m->pub.value;
	const sym_node *n = v->producer;

	for (size_t k = 0; n && k < n->n_out; k++)
		if (n->out[k] == v)
			return sym__cost_block_bytes(
			    sym_sharding_output_layout(sh, n, k),
			    sym__value_shape((sym_value *)v));
	return NULL;
}

/* Add to "a" the memory of the block in which the producer of "v" (of
 * the graph of "sh") writes it before its partial sums are resolved or
 * it is gathered: the executor keeps it beside the value's own block
 * (the whole partial gradient beside its reduce_scatter'ed shard, the
 * updated shard of a param beside the param). At optimizer_shard=2 the
 * whole partial gradients scattered to their shards share one buffer
 * (lib/exec/exec.c), those of one node packed together: the largest
 * node's sum counts ("group" accumulates the node's; "*node" is the
 * node of "group"), except a gradient whose reduce_scatter is fused
 * with others (lib/shard/fusion.c), which keeps its own buffer until
 * its bucket runs. */
static void
resolution_memory(struct acc *a, const sym_sharding *sh,
    const struct sym__comm *m, sym_expr **group, const sym_node **node)
{
	const sym_value *v = m->pub.value;
	const sym_node *n = v->producer;
	size_t b = sh->comm_bucket ? sh->comm_bucket[m - sh->comm] : SIZE_MAX;
	int pooled = sh->optshard >= 2 &&
	    sym_redist_step_kind(m->plan, 0) == SYM_REDIST_REDUCE_SCATTER &&
	    is_grad(sh->g, v) && sym_sharding_bucket_size(sh, b) < 2;
	sym_expr *e;

	if (!n)
		return;
	e = sym__cost_written_bytes(sh, m);
	if (!pooled) {
		add_to(a, kind_sum(a, sh->g, v), e);
		return;
	}
	if (*group && *node != n) {
		a->pool = a->pool ? sym_expr_max(a->pool, *group) : *group;
		*group = NULL;
		if (!a->pool)
			a->failed = 1;
	}
	*node = n;
	if (!e)
		a->failed = 1;
	else if (!(*group = *group ? sym_expr_add(*group, e) : e))
		a->failed = 1;
}

/* Return 1 when the communication "m" of "sh" gathers a param kept as
 * its shard between steps (optimizer_shard=3) for a consumer. */
static int
param_copy(const sym_sharding *sh, const struct sym__comm *m)
{
	return sh->optshard >= 3 && m->pub.consumer &&
	    m->pub.value->kind == SYM_VALUE_PARAM &&
	    sym_redist_n_steps(m->plan) > 0;
}

/*
 * Add to "a" the memory of the whole copies of the params kept sharded
 * (optimizer_shard=3) that the consumers of "sh" read, as the executor
 * keeps them (lib/exec/exec.c): a copy lives from its first consumer to
 * the last that shares it, and copies whose lives do not overlap share
 * one buffer, as large as the largest; each copy takes the first buffer
 * free, in the order of the pass. "end" and "slot" have room for the
 * communications of "sh". The buffers count as activations.
 */
static void
param_copies_memory(struct acc *a, const sym_sharding *sh, size_t *end,
    sym_expr **slot)
{
	size_t n_slot = 0, *last = end + sh->n_comm;

	for (size_t c = 0; c < sh->n_comm; c++)
		last[c] = param_copy(sh, &sh->comm[c])
		    ? sh->comm[c].pub.consumer->index
		    : SIZE_MAX;
	for (size_t c = 0; c < sh->n_comm; c++)
		if (last[c] != SIZE_MAX && sh->comm[c].shares != SIZE_MAX &&
		    last[sh->comm[c].shares] != SIZE_MAX)
			last[sh->comm[c].shares] = last[c];
	for (size_t c = 0; c < sh->n_comm && !a->failed; c++) {
		const struct sym__comm *m = &sh->comm[c];
		size_t start, j = 0;
		sym_expr *e;

		if (last[c] == SIZE_MAX || m->shares != SIZE_MAX)
			continue;
		start = m->pub.consumer->index;
		while (j < n_slot && end[j] >= start)
			j++;
		e = sym__cost_block_bytes(sym__nshard(sh, m->pub.consumer)
		                              ->in_layout[m->pub.input],
		    sym__value_shape((sym_value *)m->pub.value));
		if (j == n_slot)
			slot[n_slot++] = NULL;
		end[j] = last[c];
		slot[j] = slot[j] && e ? sym_expr_max(slot[j], e) : e;
		if (!slot[j])
			a->failed = 1;
	}
	for (size_t j = 0; j < n_slot; j++)
		if (a->failed)
			sym_expr_free(slot[j]);
		else
			add_to(a, &a->act, slot[j]);
}

/* Return 1 when the communication "m" of "sh" lays a param out as the
 * shard that an update made in place reads (optimizer_shard=1 or 2): the
 * executor slices the param into the update's own block, which
 * resolution_memory counts beside the param, so the copy is not an
 * activation too. */
static int
update_shard(const sym_sharding *sh, const struct sym__comm *m)
{
	const sym_node *n = m->pub.consumer;

	return sh->optshard >= 1 && n && (n->op->flags & SYM__OPF_INPLACE) &&
	    m->pub.input < n->n_out && m->pub.value->kind == SYM_VALUE_PARAM;
}

/* Add the time of every communication of "sh" to "a" (one latency per
 * fused bucket), and the memory of the redistributed copies its
 * consumers read. */
static void
comm_cost(struct acc *a, const sym_sharding *sh)
{
	sym_expr *group = NULL;
	const sym_node *node = NULL;

	if (sh->optshard >= 3) {
		size_t *end =
		    sym__calloc(sh->ctx, 2 * sh->n_comm + 1, sizeof(*end));
		sym_expr **slot =
		    sym__calloc(sh->ctx, sh->n_comm + 1, sizeof(*slot));

		if (end && slot)
			param_copies_memory(a, sh, end, slot);
		else
			a->failed = 1;
		free(end);
		free(slot);
	}
	for (size_t c = 0; c < sh->n_comm && !a->failed; c++) {
		const struct sym__comm *m = &sh->comm[c];
		size_t ns = sym_redist_n_steps(m->plan);

		for (size_t s = 0; s < ns; s++)
			add_to(a, &a->comm_fs,
			    sym_redist_step_femtoseconds(m->plan, s));
		if (ns && fused_saving(sh, c))
			add_to(a, &a->comm_fs,
			    sym_expr_add_si(sym_expr_const(sh->ctx, 0),
			        -fused_saving(sh, c)));
		if (param_copy(sh, m) || update_shard(sh, m))
			continue;
		if (m->pub.consumer && ns)
			add_to(a, &a->act,
			    sym__cost_block_bytes(sym__nshard(sh,
			                              m->pub.consumer)
			                              ->in_layout[m->pub.input],
			        sym__value_shape((sym_value *)m->pub.value)));
		else if (ns && sym__cost_resolution_kept(sh, m))
			resolution_memory(a, sh, m, &group, &node);
	}
	if (group && !a->failed) {
		a->pool = a->pool ? sym_expr_max(a->pool, group) : group;
		group = NULL;
		a->failed = !a->pool;
	}
	sym_expr_free(group);
	if (a->pool && !a->failed) {
		add_to(a, &a->grad, a->pool);
		a->pool = NULL;
	}
	sym_expr_free(a->pool);
	a->pool = NULL;
}

/* Return a new reference to "flops" (consumed) operations at "rate"
 * operations per second, in femtoseconds. */
sym_expr *
sym__cost_flops_fs(sym_expr *flops, double rate)
{
	double per = 1e15 / rate;

	if (per >= 1)
		return sym_expr_mul_si(flops, llround(per));
	return sym_expr_floordiv_si(flops, llround(rate / 1e15));
}

/* Release the expressions of "c" and zero it (NULL is ignored). */
void
sym_cost_clear(sym_cost *c)
{
	if (!c)
		return;
	sym_expr_free(c->time_fs);
	sym_expr_free(c->compute_fs);
	sym_expr_free(c->comm_fs);
	sym_expr_free(c->flops);
	sym_expr_free(c->memory_bytes);
	sym_expr_free(c->param_bytes);
	sym_expr_free(c->grad_bytes);
	sym_expr_free(c->state_bytes);
	sym_expr_free(c->activation_bytes);
	memset(c, 0, sizeof(*c));
}

/* Fill "c" with the cost of a step of the current sharding of "g" (see
 * sym_sharding_cost); 0, or -1 with an error on the context ("c" then
 * zeroed): "g" is not sharded, or out of memory. */
int
sym_graph_cost(const sym_graph *g, const sym_topology *topo, sym_cost *c)
{
	if (c)
		memset(c, 0, sizeof(*c));
	if (!g || !c)
		return -1;
	if (!g->sharding) {
		sym__error(g->ctx, SYM_EINVAL, NULL,
		    "cost: the graph is not sharded");
		return -1;
	}
	return sym_sharding_cost(g->sharding, topo, c);
}

/* Fill "c" with the cost of a step of the graph of "sh" sharded as "sh"
 * says (see the top of the file) at the compute rate of "topo" (NULL: the
 * default); the communication is priced on the topology "sh" was made
 * with. Return 0, or -1 with an error on the context ("c" then zeroed):
 * out of memory. */
int
sym_sharding_cost(const sym_sharding *sh, const sym_topology *topo, sym_cost *c)
{
	const sym_graph *g;
	struct acc a;

	if (!c)
		return -1;
	memset(c, 0, sizeof(*c));
	if (!sh)
		return -1;
	g = sh->g;
	memset(&a, 0, sizeof(a));
	a.flops = sym_expr_const(g->ctx, 0);
	a.comm_fs = sym_expr_const(g->ctx, 0);
	a.param = sym_expr_const(g->ctx, 0);
	a.grad = sym_expr_const(g->ctx, 0);
	a.state = sym_expr_const(g->ctx, 0);
	a.act = sym_expr_const(g->ctx, 0);
	a.failed =
	    !a.flops || !a.comm_fs || !a.param || !a.grad || !a.state || !a.act;
	for (size_t k = 0; k < sh->n_node && !a.failed; k++)
		add_to(&a, &a.flops, sym__cost_node_flops(sh, g->node[k]));
	if (!a.failed)
		values_memory(&a, sh);
	if (!a.failed)
		comm_cost(&a, sh);
	c->flops = a.flops;
	c->comm_fs = a.comm_fs;
	c->param_bytes = a.param;
	c->grad_bytes = a.grad;
	c->state_bytes = a.state;
	c->activation_bytes = a.act;
	if (!a.failed) {
		c->compute_fs = sym__cost_flops_fs(sym_expr_copy(a.flops),
		    sym_topology_flops(topo));
		c->time_fs = sym_expr_add(sym_expr_copy(c->compute_fs),
		    sym_expr_copy(a.comm_fs));
		c->memory_bytes =
		    sym_expr_add(sym_expr_add(sym_expr_copy(a.param),
		                     sym_expr_copy(a.grad)),
		        sym_expr_add(sym_expr_copy(a.state),
		            sym_expr_copy(a.act)));
	}
	if (a.failed || !c->compute_fs || !c->time_fs || !c->memory_bytes) {
		sym_cost_clear(c);
		if (sym_ctx_last_error(g->ctx) == SYM_OK)
			sym__oom(g->ctx);
		return -1;
	}
	return 0;
}
