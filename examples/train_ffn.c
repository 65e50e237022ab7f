/* SPDX-License-Identifier: MIT */
/*
 * train_ffn: train the feed-forward network of examples/ffn_train.sg.
 * First on one device with a training loop of the library's calls: one
 * executor whose params are initialized once and persist, twenty steps
 * on one fixed batch (its inputs written every step), the loss printed
 * as it falls. Then sharded on 8 ranks (threads of this process) for
 * five steps of different batch sizes on one plan, compared with one
 * device step by step (sym_exec_train_check). The path of ffn_train.sg
 * is the first argument (default: $top_srcdir/examples/ffn_train.sg,
 * else examples/ffn_train.sg). make check runs this as a test: exit
 * status 1 on any surprise.
 */
#include <stdio.h>
#include <stdlib.h>

#include <symshard.h>

/* Train the single-device plan "single" of graph "g" (in "ctx") for
 * "steps" steps on one batch of b = 64; return 0 when the loss fell, 1
 * when it did not, -1 on an error. */
static int
train_one_device(sym_graph *g, sym_plan *single, sym_ctx *ctx, int steps)
{
	sym_binding *b = sym_binding_new(ctx);
	sym_slices *s = sym_slices_new(single);
	sym_exec *x = sym_exec_new(ctx, single, NULL);
	const sym_value *loss = sym_graph_loss(g);
	double first = 0, last = 0;
	int rc = -1;

	if (!b || !s || !x || sym_binding_parse(b, "b=64", NULL) < 0 ||
	    sym_plan_bind(single, b, s) < 0 || sym_exec_prepare(x, s) < 0 ||
	    sym_exec_init_params(x, 1) < 0)
		goto done;
	for (int i = 0; i < steps; i++) {
		const float *l;

		/* The same batch every step: the loss must fall. */
		if (sym_exec_fill_inputs(x, 2) < 0 || sym_exec_run(x) < 0)
			goto done;
		l = sym_exec_data(x, sym_plan_value_tensor(single, loss), NULL);
		if (i == 0)
			first = *l;
		last = *l;
		if (i % 5 == 0 || i == steps - 1)
			printf("one device, step %2d: loss %.4f\n", i + 1, *l);
	}
	rc = last < first ? 0 : 1;
done:
	if (rc < 0)
		printf("one device: %s\n", sym_ctx_last_message(ctx));
	sym_exec_free(x);
	sym_slices_free(s);
	sym_binding_free(b);
	return rc;
}

/* Train "p" on 8 ranks and "single" alongside for five steps of
 * different batch sizes; return 0 when they agree, 1 when not, -1 on an
 * error. */
static int
train_sharded(sym_plan *p, sym_plan *single, sym_ctx *ctx)
{
	static const char *const sizes[] = { "b=8", "b=64", "b=40", "b=16",
		"b=64" };
	sym_communicator *comm = sym_comm_threads_new(ctx, 8);
	sym_binding *b[5] = { NULL };
	sym_exec_options o = SYM_EXEC_OPTIONS_INIT;
	sym_train_report r;
	double loss[5];
	int rc = -1;

	o.seed = 1;
	for (int i = 0; i < 5; i++) {
		b[i] = sym_binding_new(ctx);
		if (!b[i] || sym_binding_parse(b[i], sizes[i], NULL) < 0)
			goto done;
	}
	if (!comm ||
	    sym_exec_train_check(ctx, p, single, comm,
	        (const sym_binding *const *)b, 5, &o, loss, &r) < 0)
		goto done;
	for (int i = 0; i < 5; i++)
		printf("8 ranks, step %d (%s): loss %.4f\n", i + 1, sizes[i],
		    loss[i]);
	printf("against one device: %lld outputs and %lld params beyond "
	       "tolerance\n",
	    (long long)r.outputs.n_mismatch, (long long)r.params.n_mismatch);
	rc = r.outputs.n_mismatch || r.params.n_mismatch;
done:
	if (rc < 0)
		printf("8 ranks: %s\n", sym_ctx_last_message(ctx));
	for (int i = 0; i < 5; i++)
		sym_binding_free(b[i]);
	sym_comm_free(comm);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = NULL;
	sym_plan *p = NULL, *single = NULL;
	int bad = 1;

	snprintf(path, sizeof(path), "%s%sexamples/ffn_train.sg",
	    top ? top : "", top ? "/" : "");
	if (ctx)
		g = sym_graph_parse_file(ctx, argc > 1 ? argv[1] : path);
	/* Sharding differentiates the graph first (it minimizes a loss). */
	if (g && sym_graph_n_errors(g) == 0 && sym_graph_shard(g, NULL) == 0) {
		p = sym_plan_compile(g, 0);
		single = sym_plan_compile(g, SYM_PLAN_SINGLE);
	}
	/* Under valgrind the test suite sets SYMSHARD_EXEC_LIGHT (its BLAS
	 * runs there a hundred times slower): five steps show the fall. */
	if (p && single)
		bad = train_one_device(g, single, ctx,
		          getenv("SYMSHARD_EXEC_LIGHT") ? 5 : 20) != 0 ||
		    train_sharded(p, single, ctx) != 0;
	else
		printf("%s\n", ctx ? sym_ctx_last_message(ctx) : "no context");
	sym_plan_free(p);
	sym_plan_free(single);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	return bad;
}
