/* SPDX-License-Identifier: MIT */
/*
 * plan_bind: the run-time half of the feed-forward network of
 * examples/ffn.sg. The graph is parsed, checked and sharded on its 8
 * devices once, and compiled into a slice plan once; then each step of a
 * dynamic-shape run binds its batch size (b = 8, 64, 40) to the same
 * slices and reads rank 0's local sizes and offsets, with no prover and
 * no recompilation. b = 12 breaks b's declaration (divisor=8) and is
 * rejected with a message naming it. make check runs this program: exit
 * status 1 on any surprise.
 *
 * Usage: plan_bind [FILE.sg]   (default: examples/ffn.sg under
 * $top_srcdir, else under the current directory)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

/* Print "what" and the last error of "ctx" to stderr, then exit 1. */
static void
fail(sym_ctx *ctx, const char *what)
{
	fprintf(stderr, "plan_bind: %s: %s\n", what, sym_ctx_last_message(ctx));
	exit(1);
}

/* Bind "b" = "value" to the slices "s" of "p" and print rank 0's
 * slices; check the local size of the home tensor of "x" against the
 * value divided by 8. */
static void
step(sym_ctx *ctx, const sym_plan *p, sym_slices *s, const sym_value *x,
    int64_t value)
{
	int64_t local[4];
	char *text;

	if (sym_plan_bind_values(p, &value, s) < 0)
		fail(ctx, "sym_plan_bind_values");
	text = sym_slices_to_str(s, 0);
	if (!text)
		fail(ctx, "sym_slices_to_str");
	printf("%s", text);
	free(text);
	if (sym_slices_local(s, sym_plan_value_tensor(p, x), local) < 0 ||
	    local[0] != value / 8) {
		fprintf(stderr, "plan_bind: x has %lld rows on rank 0\n",
		    (long long)local[0]);
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	const char *top = getenv("top_srcdir");
	static const int64_t batch[] = { 8, 64, 40 };
	char path[4096];
	sym_ctx *ctx = sym_ctx_new();
	sym_binding *bad;
	sym_slices *s;
	sym_graph *g;
	sym_plan *p;

	if (!ctx)
		return 1;
	if (argc > 1)
		snprintf(path, sizeof(path), "%s", argv[1]);
	else
		snprintf(path, sizeof(path), "%s/examples/ffn.sg",
		    top ? top : ".");
	g = sym_graph_parse_file(ctx, path);
	if (!g || sym_graph_n_errors(g) > 0 || sym_graph_shard(g, NULL) < 0)
		fail(ctx, "checking and sharding the graph");
	p = sym_plan_compile(g, 0);
	if (!p)
		fail(ctx, "sym_plan_compile");
	printf("%zu steps, %zu tensors, %zu instructions, %zu checks; "
	       "symbol %s\n",
	    sym_plan_n_steps(p), sym_plan_n_tensors(p),
	    sym_plan_n_instructions(p), sym_plan_n_checks(p),
	    sym_symbol_name(sym_plan_symbol(p, 0)));
	s = sym_slices_new(p);
	if (!s)
		fail(ctx, "sym_slices_new");
	for (size_t i = 0; i < sizeof(batch) / sizeof(*batch); i++)
		step(ctx, p, s, sym_graph_find_value(g, "x"), batch[i]);

	bad = sym_binding_new(ctx);
	if (!bad || sym_binding_parse(bad, "b=12", NULL) < 0)
		fail(ctx, "sym_binding_parse");
	if (sym_plan_bind(p, bad, s) == 0 || sym_slices_is_bound(s) ||
	    sym_ctx_last_error(ctx) != SYM_EDOMAIN) {
		fprintf(stderr, "plan_bind: b = 12 was not rejected\n");
		return 1;
	}
	printf("rejected: %s\n", sym_slices_error(s));
	if (!strstr(sym_slices_error(s), "b = 12 violates divisor=8"))
		return 1;

	sym_binding_free(bad);
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	if (sym_ctx_live_objects(ctx) != 0)
		fail(ctx, "objects still alive");
	sym_ctx_free(ctx);
	return 0;
}
