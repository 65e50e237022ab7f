/* SPDX-License-Identifier: MIT */
/*
 * exec_ffn: run the feed-forward network of examples/ffn.sg on 8 ranks
 * (threads of this process) for three batch sizes on one plan, each
 * compared with the same graph run on one device, then show that a batch
 * size the graph forbids runs nothing. The path of ffn.sg is the first
 * argument (default: $top_srcdir/examples/ffn.sg, else
 * examples/ffn.sg). make check runs this as a test: exit status 1 on any
 * surprise.
 */
#include <stdio.h>
#include <stdlib.h>

#include <symshard.h>

/* Check with "p" and "single" on "comm" the binding "text" of "ctx";
 * return 0 when the sharded run agrees with the single one, 1 when it
 * does not, -1 when the check itself failed. */
static int
check(sym_plan *p, sym_plan *single, sym_communicator *comm, sym_ctx *ctx,
    const char *text)
{
	sym_exec_options o = SYM_EXEC_OPTIONS_INIT;
	sym_exec_report r;
	sym_binding *b = sym_binding_new(ctx);
	int rc = -1;

	o.seed = 42;
	if (b && sym_binding_parse(b, text, NULL) == 0 &&
	    sym_exec_check(ctx, p, single, comm, b, &o, &r) == 0) {
		printf("%s: %lld mismatches, max |diff| %.3g, sharded %.3f ms, "
		       "single %.3f ms\n",
		    text, (long long)r.n_mismatch, r.max_abs,
		    1e3 * r.sharded_seconds, 1e3 * r.single_seconds);
		rc = r.n_mismatch != 0;
	} else {
		printf("%s: %s\n", text, sym_ctx_last_message(ctx));
	}
	sym_binding_free(b);
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
	sym_communicator *comm = NULL;
	int bad = 1;

	snprintf(path, sizeof(path), "%s%sexamples/ffn.sg", top ? top : "",
	    top ? "/" : "");
	if (ctx)
		g = sym_graph_parse_file(ctx, argc > 1 ? argv[1] : path);
	if (g && sym_graph_n_errors(g) == 0 && sym_graph_shard(g, NULL) == 0) {
		p = sym_plan_compile(g, 0);
		single = sym_plan_compile(g, SYM_PLAN_SINGLE);
	}
	if (p && single)
		comm = sym_comm_threads_new(ctx, (int)sym_plan_n_ranks(p));
	if (comm) {
		/* Three batch sizes on one plan, then one that breaks
		 * "divisor=8": the check fails and nothing runs. */
		bad = check(p, single, comm, ctx, "b=8") != 0 ||
		    check(p, single, comm, ctx, "b=64") != 0 ||
		    check(p, single, comm, ctx, "b=40") != 0 ||
		    check(p, single, comm, ctx, "b=12") != -1;
	} else {
		fprintf(stderr, "exec_ffn: %s\n",
		    ctx ? sym_ctx_last_message(ctx) : "no context");
	}
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(single);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	return bad;
}
