/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the redistribution planner: the standard cases (one axis
 * from dimension 0 to dimension 1, the swap on a 2x2 mesh, a three-axis
 * move on 2x2x2) and larger ones on 64 to 1024 devices. Prints one JSON
 * line per case with the number of collectives of each kind in the plan,
 * whether it gathers the whole tensor, and the planning time per plan;
 * with -v, each plan as comment lines too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symshard.h>

#include "util.h"

/* A case: a mesh, two layouts over it (or over a second mesh), and the
 * tensor's rank. */
struct bench_case {
	const char *name;
	size_t n_axes;
	int64_t size[8];
	const char *axis[8];
	size_t n_axes2; /* 0: the same mesh */
	int64_t size2[8];
	const char *axis2[8];
	size_t rank;
	const char *from, *to;
};

static const struct bench_case cases[] = {
	{ "axis_dim0_to_dim1", 2, { 2, 2 }, { "dp", "mp" }, 0, { 0 }, { 0 }, 2,
	    "(mp, None)", "(None, mp)" },
	{ "swap_2x2", 2, { 2, 2 }, { "dp", "mp" }, 0, { 0 }, { 0 }, 2,
	    "(dp, mp)", "(mp, dp)" },
	{ "three_axes_2x2x2", 3, { 2, 2, 2 }, { "dp", "sp", "mp" }, 0, { 0 },
	    { 0 }, 2, "((dp, sp, mp), None)", "(None, (dp, sp, mp))" },
	{ "matmul_reduce_scatter", 3, { 2, 2, 2 }, { "dp", "sp", "mp" }, 0,
	    { 0 }, { 0 }, 2, "(dp, mp) partial(sp)", "((dp, sp), mp)" },
	{ "swap_8x8", 2, { 8, 8 }, { "x", "y" }, 0, { 0 }, { 0 }, 2, "(x, y)",
	    "(y, x)" },
	{ "rotate_4d_2x2x2x2x2x2", 6, { 2, 2, 2, 2, 2, 2 },
	    { "a", "b", "c", "d", "e", "f" }, 0, { 0 }, { 0 }, 4,
	    "((a, b), (c, d), (e, f), None)",
	    "(None, (a, b), (c, d), (e, f))" },
	{ "shuffle_3d_2x2x2x2x2x2", 6, { 2, 2, 2, 2, 2, 2 },
	    { "a", "b", "c", "d", "e", "f" }, 0, { 0 }, { 0 }, 3,
	    "((a, b, c), (d, e), f)", "(f, (e, d), (c, b, a))" },
	{ "partial_to_split_4x4x4", 3, { 4, 4, 4 }, { "dp", "sp", "mp" }, 0,
	    { 0 }, { 0 }, 3, "(dp, None, mp) partial(sp)",
	    "(None, (sp, mp), dp)" },
	{ "sequence_parallel_1024", 4, { 8, 4, 4, 8 },
	    { "dp", "pp", "sp", "tp" }, 0, { 0 }, { 0 }, 3,
	    "(dp, sp, tp) partial(pp)", "((dp, pp), tp, sp)" },
	{ "rotate_4d_2^8", 8, { 2, 2, 2, 2, 2, 2, 2, 2 },
	    { "a", "b", "c", "d", "e", "f", "g", "h" }, 0, { 0 }, { 0 }, 4,
	    "((a, b), (c, d), (e, f), (g, h))",
	    "((g, h), (a, b), (c, d), (e, f))" },
	{ "refined_4x8_to_2x16", 2, { 4, 8 }, { "x", "y" }, 2, { 2, 16 },
	    { "u", "v" }, 2, "(x, y)", "(v, u)" },
	{ "no_refinement_2x3_to_3x2", 2, { 2, 3 }, { "x", "y" }, 2, { 3, 2 },
	    { "x", "y" }, 2, "(x, y)", "(y, x)" },
};

/* Return the monotonic time in seconds. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Abort with "what" and the context's message. */
static void
die(sym_ctx *ctx, const char *what)
{
	fprintf(stderr, "bench_redist: %s: %s\n", what,
	    sym_ctx_last_message(ctx));
	exit(1);
}

/* Return the shape f32[b, 4096, ...] of "rank" dimensions of "ctx". */
static sym_shape *
shape(sym_ctx *ctx, size_t rank)
{
	sym_expr *d[8];
	sym_shape *s;

	d[0] = sym_expr_parse(ctx, "b", NULL);
	for (size_t i = 1; i < rank; i++)
		d[i] = sym_expr_const(ctx, 4096);
	s = sym_shape_new(ctx, SYM_DT_F32, rank, d);
	for (size_t i = 0; i < rank; i++)
		sym_expr_free(d[i]);
	if (!s)
		die(ctx, "shape");
	return s;
}

/* Print the steps of "r" as comment lines. */
static void
print_plan(const sym_redist *r)
{
	char *text = sym_redist_to_str(r);

	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n');

		if (end)
			*end = '\0';
		printf("#   %s\n", line);
		line = end ? end + 1 : NULL;
	}
	free(text);
}

/* Print the JSON line of case "c" in "ctx", and its plan as comments when
 * "verbose". */
static void
run(sym_ctx *ctx, const struct bench_case *c, int verbose)
{
	sym_mesh *ma = sym_mesh_new(ctx, c->n_axes, c->size, c->axis, 0, NULL);
	sym_mesh *mb = c->n_axes2
	    ? sym_mesh_new(ctx, c->n_axes2, c->size2, c->axis2, 0, NULL)
	    : sym_mesh_copy(ma);
	sym_layout *from, *to;
	sym_shape *s = shape(ctx, c->rank);
	sym_redist *r;
	size_t count[SYM_REDIST_BROADCAST + 1] = { 0 }, n = 0;
	double t0, t;

	if (!ma || !mb)
		die(ctx, c->name);
	from = sym_layout_parse(ma, c->from, NULL);
	to = sym_layout_parse(mb, c->to, NULL);
	if (!from || !to)
		die(ctx, c->name);
	t0 = now();
	do {
		r = sym_redist_plan(from, to, s, NULL);
		if (!r)
			die(ctx, c->name);
		if (++n < 5 || now() - t0 < 0.2)
			sym_redist_free(r);
		else
			break;
	} while (1);
	t = (now() - t0) / (double)n;
	for (size_t i = 0; i < sym_redist_n_steps(r); i++)
		count[sym_redist_step_kind(r, i)]++;
	printf("{\"bench\": \"redist\", \"case\": \"%s\", \"devices\": %lld, "
	       "\"steps\": %zu",
	    c->name, (long long)sym_mesh_n_devices(ma), sym_redist_n_steps(r));
	for (int k = 0; k <= SYM_REDIST_BROADCAST; k++)
		printf(", \"%s\": %zu",
		    sym_redist_kind_name((sym_redist_kind)k), count[k]);
	printf(", \"full_gather\": %s, \"plan_us\": %.2f, \"plans\": %zu}\n",
	    sym_redist_full_gather(r) ? "true" : "false", t * 1e6, n);
	if (verbose)
		print_plan(r);
	sym_redist_free(r);
	sym_layout_free(from);
	sym_layout_free(to);
	sym_shape_free(s);
	sym_mesh_free(ma);
	sym_mesh_free(mb);
}

int
main(int argc, char **argv)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;

	if (!ctx)
		return 1;
	bench_header("bench_redist");
	info.divisor = 1024;
	info.unique = 1;
	if (!sym_symbol_new(ctx, "b", &info, NULL))
		die(ctx, "symbol");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run(ctx, &cases[i], verbose);
	sym_ctx_free(ctx);
	return 0;
}
