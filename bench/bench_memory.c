/* SPDX-License-Identifier: MIT */
/*
 * The memory of one device by kind, two ways (make bench): the cost
 * model's figures for the plan of a graph (sym_graph_cost: params,
 * gradients, optimizer state, activations) and the bytes of the
 * buffers the executor allocates on rank 0 for the same plan
 * (sym_exec_data after sym_exec_prepare, a buffer shared by several
 * tensors counted once, as large as the largest of them), both at one
 * binding of every symbol.
 *
 * Usage: bench_memory GRAPH.sg SIZE [NAME]
 * Prints one JSON line per figure kind ("model", "executor").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

/* The kinds, in the order of the report. */
enum {
	PARAM,
	GRAD,
	STATE,
	ACT,
	N_KIND
};

/* Return 1 when "v" is the result of an optimizer's update. */
static int
update_result(const sym_value *v)
{
	const sym_node *n = sym_value_producer(v);
	const char *op = n ? sym_op_name(sym_node_op(n)) : "";

	return !strcmp(op, "sgd_update") || !strcmp(op, "momentum_update") ||
	    !strcmp(op, "adam_update") || !strcmp(op, "adamw_update");
}

/* Return the kind of plan tensor value "v" of "g": the optimizer
 * state, a param (or an update's result, the new param or state), a
 * gradient, or an activation. */
static int
kind_of(const sym_graph *g, const sym_value *v)
{
	if (sym_value_is_state(v))
		return STATE;
	if (sym_value_get_kind(v) == SYM_VALUE_PARAM || update_result(v))
		return PARAM;
	for (size_t i = 0; i < sym_graph_n_trained(g); i++)
		if (sym_value_grad(sym_graph_trained(g, i)) == v)
			return GRAD;
	return ACT;
}

/* Return 1 when plan tensor "t" of "p" is a whole copy of a param kept
 * as its shard (optimizer_shard=3), gathered for a use: an activation,
 * as the cost model counts it. */
static int
param_copy(const sym_plan *p, size_t t)
{
	const sym_value *v = sym_plan_tensor_value(p, t);

	return sym_sharding_optimizer_shard(sym_plan_sharding(p)) >= 3 &&
	    sym_value_get_kind(v) == SYM_VALUE_PARAM &&
	    sym_value_is_state(v) != SYM_TRUE &&
	    sym_plan_value_tensor(p, v) != t;
}

/* Print one JSON line of the bytes "b" of kind "figures". */
static void
row(const char *name, const char *figures, const int64_t *b, int level)
{
	printf("{\"bench\": \"memory\", \"graph\": \"%s\", "
	       "\"optimizer_shard\": %d, \"figures\": \"%s\", "
	       "\"param_bytes\": %" PRId64 ", \"grad_bytes\": %" PRId64
	       ", \"state_bytes\": %" PRId64 ", \"activation_bytes\": %" PRId64
	       "}\n",
	    name, level, figures, b[PARAM], b[GRAD], b[STATE], b[ACT]);
}

/* The model's figures of the sharded "g" at every symbol of its plan
 * "p" = "size". */
static int
model(sym_ctx *ctx, sym_graph *g, const sym_plan *p, int64_t size, int64_t *out)
{
	sym_binding *b = sym_binding_new(ctx);
	sym_cost c;
	const sym_expr *e[N_KIND];
	int r = 0;

	if (!b || sym_graph_cost(g, NULL, &c) < 0) {
		sym_binding_free(b);
		return -1;
	}
	for (size_t i = 0; i < sym_plan_n_symbols(p); i++)
		if (sym_binding_set(b, sym_plan_symbol(p, i), size) < 0)
			r = -1;
	e[PARAM] = c.param_bytes;
	e[GRAD] = c.grad_bytes;
	e[STATE] = c.state_bytes;
	e[ACT] = c.activation_bytes;
	for (int k = 0; k < N_KIND && r == 0; k++)
		if (sym_expr_eval(e[k], b, &out[k]) < 0)
			r = -1;
	sym_cost_clear(&c);
	sym_binding_free(b);
	return r;
}

/* The executor's buffers on rank 0 of the plan "p" of "g" at every
 * symbol = "size". */
static int
executor(sym_ctx *ctx, const sym_graph *g, const sym_plan *p, int64_t size,
    int64_t *out)
{
	sym_slices *s = p ? sym_slices_new(p) : NULL;
	size_t nsym = p ? sym_plan_n_symbols(p) : 0, nt;
	int64_t *vals = calloc(nsym + 1, sizeof(*vals));
	sym_communicator *comm =
	    p ? sym_comm_threads_new(ctx, (int)sym_plan_n_ranks(p)) : NULL;
	sym_comm_endpoint *ep = comm ? sym_comm_attach(ctx, comm, 0) : NULL;
	sym_exec *x = NULL;
	void **seen = NULL;
	size_t *most = NULL, n_seen = 0;
	int *kind = NULL;
	int r = -1;

	if (!s || !vals || !ep)
		goto done;
	for (size_t i = 0; i < nsym; i++)
		vals[i] = size;
	if (sym_plan_bind_values(p, vals, s) < 0)
		goto done;
	x = sym_exec_new(ctx, p, ep);
	if (!x || sym_exec_prepare(x, s) < 0)
		goto done;
	nt = sym_plan_n_tensors(p);
	seen = calloc(nt + 1, sizeof(*seen));
	most = calloc(nt + 1, sizeof(*most));
	kind = calloc(nt + 1, sizeof(*kind));
	if (!seen || !most || !kind)
		goto done;
	for (size_t t = 0; t < nt; t++) {
		size_t bytes = 0, j;
		void *d = sym_exec_data(x, t, &bytes);

		if (!d)
			continue;
		for (j = 0; j < n_seen && seen[j] != d; j++)
			;
		if (j == n_seen) {
			seen[n_seen] = d;
			most[n_seen] = 0;
			kind[n_seen++] = param_copy(p, t)
			    ? ACT
			    : kind_of(g, sym_plan_tensor_value(p, t));
		}
		if (bytes > most[j]) /* a shared buffer holds the largest */
			most[j] = bytes;
	}
	for (size_t j = 0; j < n_seen; j++)
		out[kind[j]] += (int64_t)most[j];
	r = 0;
done:
	free(kind);
	free(most);
	free(seen);
	sym_exec_free(x);
	if (ep)
		sym_comm_detach(ep);
	sym_comm_free(comm);
	free(vals);
	sym_slices_free(s);
	return r;
}

int
main(int argc, char **argv)
{
	sym_ctx *ctx;
	sym_graph *g;
	sym_plan *p = NULL;
	int64_t m[N_KIND] = { 0 }, e[N_KIND] = { 0 };
	int64_t size;
	int rc = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_memory GRAPH.sg SIZE [NAME]\n");
		return 2;
	}
	size = strtoll(argv[2], NULL, 10);
	ctx = sym_ctx_new();
	g = ctx ? sym_graph_parse_file(ctx, argv[1]) : NULL;
	if (g && sym_graph_n_errors(g) == 0 && sym_graph_shard(g, NULL) == 0)
		p = sym_plan_compile(g, 0);
	if (p && model(ctx, g, p, size, m) == 0 &&
	    executor(ctx, g, p, size, e) == 0) {
		const char *name = argc > 3 ? argv[3] : argv[1];
		int level = sym_graph_optimizer_shard(g);

		row(name, "model", m, level);
		row(name, "executor", e, level);
		rc = 0;
	} else {
		fprintf(stderr, "bench_memory: %s: %s\n", argv[1],
		    g && sym_graph_n_errors(g)
		        ? "the graph has errors (see shape-check)"
		        : ctx ? sym_ctx_last_message(ctx)
		              : "out of memory");
	}
	sym_plan_free(p);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	return rc;
}
