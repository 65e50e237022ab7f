/* SPDX-License-Identifier: MIT */
/*
 * redist_plan: plans for a tensor f32[b, 1024] (b with divisor 8) on the
 * mesh (dp=2, mp=2) with nodes of two ranks: moving the split of
 * dimension 0 to dimension 1 is one all_to_all, swapping the axes of the
 * two dimensions one permute. Prints each plan and the time of its first
 * step at b = 64, and checks both, so make check runs this as a test:
 * exit status 1 on any surprise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

/* Print "what" and the last error of "ctx" to stderr, then exit 1. */
static void
fail(sym_ctx *ctx, const char *what)
{
	fprintf(stderr, "redist_plan: %s: %s\n", what,
	    sym_ctx_last_message(ctx));
	exit(1);
}

/* Plan the redistribution of a tensor of shape "shape" from layout "a"
 * to layout "b" over "m" on "topo", print it and its time at "bind", and
 * check that it prints as "want". */
static void
show(sym_ctx *ctx, sym_mesh *m, const char *a, const char *b,
    const sym_shape *shape, const sym_topology *topo, const sym_binding *bind,
    const char *want)
{
	sym_layout *from = sym_layout_parse(m, a, NULL);
	sym_layout *to = sym_layout_parse(m, b, NULL);
	sym_redist *r;
	char *text;

	if (!from || !to)
		fail(ctx, "sym_layout_parse");
	r = sym_redist_plan(from, to, shape, topo);
	if (!r)
		fail(ctx, "sym_redist_plan");
	text = sym_redist_to_str(r);
	if (!text)
		fail(ctx, "sym_redist_to_str");
	printf("%s -> %s:\n%s\n%g s\n", a, b, text,
	    sym_redist_step_seconds(r, 0, bind));
	if (strcmp(text, want) != 0) {
		fprintf(stderr, "redist_plan: expected %s\n", want);
		exit(1);
	}
	free(text);
	sym_redist_free(r);
	sym_layout_free(from);
	sym_layout_free(to);
}

int
main(void)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	sym_expr *dims[2];
	sym_shape *shape;
	sym_mesh *m;
	sym_topology *topo;
	sym_binding *b;

	if (!ctx)
		return 1;
	info.divisor = 8;
	info.unique = 1;
	if (!sym_symbol_new(ctx, "b", &info, NULL))
		fail(ctx, "sym_symbol_new");
	dims[0] = sym_expr_parse(ctx, "b", NULL);
	dims[1] = sym_expr_const(ctx, 1024);
	shape = sym_shape_new(ctx, SYM_DT_F32, 2, dims);
	m = sym_mesh_new(ctx, 2, (int64_t[]){ 2, 2 },
	    (const char *const[]){ "dp", "mp" }, 0, NULL);
	topo = sym_topology_new(ctx, 2, 0, 0, 0, 0);
	b = sym_binding_new(ctx);
	if (!shape || !m || !topo || !b ||
	    sym_binding_parse(b, "b = 64", NULL) < 0)
		fail(ctx, "setup");

	show(ctx, m, "(mp, None)", "(None, mp)", shape, topo, b,
	    "all_to_all over mp: dim 0 -> dim 1, 2 groups of 2, "
	    "S = 2048*b bytes");
	show(ctx, m, "(dp, mp)", "(mp, dp)", shape, topo, b,
	    "permute over (dp, mp): 1 group of 4 across nodes, "
	    "S = 1024*b bytes");

	sym_binding_free(b);
	sym_topology_free(topo);
	sym_mesh_free(m);
	sym_shape_free(shape);
	sym_expr_free(dims[0]);
	sym_expr_free(dims[1]);
	if (sym_ctx_live_objects(ctx) != 0)
		fail(ctx, "objects left alive");
	sym_ctx_free(ctx);
	return 0;
}
