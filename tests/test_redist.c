/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of redistribution plans and topologies: the exact plans of
 * the standard cases, bytes as expressions, rank groups, the alpha-beta
 * time, meshes that meet on a common refinement and meshes that do not,
 * topology files and MindSpore rank tables with their errors, and a
 * property test that simulates random plans on the blocks every rank
 * holds and compares the result with the target layout.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <symshard.h>

#include "testlib.h"

/* The most tensor dimensions and ranks of the property test. */
#define MAX_DIMS 4
#define MAX_RANKS 64

/* Check that the expression "e" (taken) prints as "want" and is "secs"
 * seconds, to a femtosecond, at "b". */
static void
check_fs(sym_expr *e, const char *want, const sym_binding *b, double secs)
{
	char *text = sym_expr_to_str(e);
	int64_t fs;

	assert_non_null(text);
	assert_string_equal(text, want);
	assert_int_equal(sym_expr_eval(e, b, &fs), 0);
	assert_true(fabs((double)fs - secs * 1e15) <= 1);
	free(text);
	sym_expr_free(e);
}

/* Check that the string "s" (taken) is "want". */
static void
check_str(char *s, const char *want)
{
	assert_non_null(s);
	if (strcmp(s, want) != 0)
		fail_msg("got\n%s\nwant\n%s", s, want);
	free(s);
}

/* Check that the last error of "ctx" has code "code" and a message that
 * contains "part", then clear it. */
static void
check_error(sym_ctx *ctx, sym_error code, const char *part)
{
	const char *msg = sym_ctx_last_message(ctx);

	assert_int_equal(sym_ctx_last_error(ctx), code);
	assert_non_null(msg);
	if (!strstr(msg, part))
		fail_msg("message '%s' lacks '%s'", msg, part);
	sym_ctx_clear_error(ctx);
}

/* Check that every accessor of step "i" of "r" (of "ctx"), out of range,
 * returns what symshard(3) says (NULL, -1, 0 for counts,
 * SYM_REDIST_INVALID for the kind), leaves what it would store alone and
 * records no error. */
static void
check_out_of_range(sym_ctx *ctx, const sym_redist *r, size_t i)
{
	int axes[2] = { 7, 7 }, fd = 7, td = 7;
	size_t size = 7;

	assert_true(i >= sym_redist_n_steps(r));
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_redist_step_kind(r, i), SYM_REDIST_INVALID);
	assert_int_equal(sym_redist_step_axes(r, i, 2, axes), 0);
	assert_int_equal(axes[0], 7);
	assert_int_equal(sym_redist_step_dims(r, i, &fd, &td), -1);
	assert_int_equal(fd, 7);
	assert_int_equal(td, 7);
	assert_int_equal(sym_redist_step_groups(r, i, &size), 0);
	assert_int_equal(size, 7);
	assert_int_equal(sym_redist_step_group_rank(r, i, 0, 0), -1);
	assert_null(sym_redist_step_bytes(r, i));
	assert_null(sym_redist_step_layout(r, i));
	assert_null(sym_redist_step_femtoseconds(r, i));
	assert_true(sym_redist_step_seconds(r, i, NULL) == -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	assert_string_equal(sym_redist_kind_name(SYM_REDIST_INVALID), "?");
}

/* Check that "got" is within "eps" of "want". */
static void
check_close(double got, double want, double eps)
{
	if (!(got >= want - eps && got <= want + eps))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* Return a new context with the unique symbol "b" (divisor 8). */
static sym_ctx *
new_ctx(void)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;

	info.divisor = 8;
	info.unique = 1;
	assert_non_null(sym_symbol_new(ctx, "b", &info, NULL));
	return ctx;
}

/* Return the mesh of "ctx" with the "n" axes "names" of sizes "size". */
static sym_mesh *
mesh(sym_ctx *ctx, size_t n, const int64_t *size, const char *const *names)
{
	sym_mesh *m = sym_mesh_new(ctx, n, size, names, 0, NULL);

	assert_non_null(m);
	return m;
}

/* Return the layout "text" over "m". */
static sym_layout *
layout(sym_mesh *m, const char *text)
{
	sym_layout *l = sym_layout_parse(m, text, NULL);

	if (!l)
		fail_msg("layout '%s' does not parse", text);
	return l;
}

/* Return the shape f32[b, 1024] of "ctx". */
static sym_shape *
shape_b1024(sym_ctx *ctx)
{
	sym_expr *d[2];
	sym_shape *s;

	d[0] = sym_expr_parse(ctx, "b", NULL);
	d[1] = sym_expr_const(ctx, 1024);
	s = sym_shape_new(ctx, SYM_DT_F32, 2, d);
	assert_non_null(s);
	sym_expr_free(d[0]);
	sym_expr_free(d[1]);
	return s;
}

/* Return the plan from layout "a" over "ma" to layout "b" over "mb" of
 * a tensor of shape "s", checking that it prints as "want" (NULL: not
 * checked). The caller frees it. */
static sym_redist *
plan(sym_mesh *ma, const char *a, sym_mesh *mb, const char *b,
    const sym_shape *s, const sym_topology *topo, const char *want)
{
	sym_layout *la = layout(ma, a), *lb = layout(mb, b);
	sym_redist *r = sym_redist_plan(la, lb, s, topo);

	if (!r)
		fail_msg("no plan from %s to %s", a, b);
	if (want)
		check_str(sym_redist_to_str(r), want);
	sym_layout_free(la);
	sym_layout_free(lb);
	return r;
}

/* Check that the plan from "a" to "b" over "m" for "s" prints as "want"
 * and has "kinds" ("n" of them) as steps. */
static void
check_plan(sym_mesh *m, const char *a, const char *b, const sym_shape *s,
    size_t n, const sym_redist_kind *kinds, const char *want)
{
	sym_redist *r = plan(m, a, m, b, s, NULL, want);

	assert_int_equal(sym_redist_n_steps(r), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sym_redist_step_kind(r, i), kinds[i]);
	assert_int_equal(sym_redist_full_gather(r), 0);
	sym_redist_free(r);
}

/* Check the exact plans of the standard cases. */
static void
test_standard(void **state)
{
	static const int64_t s22[] = { 2, 2 }, s222[] = { 2, 2, 2 };
	static const char *const n22[] = { "dp", "mp" };
	static const char *const n222[] = { "dp", "sp", "mp" };
	sym_ctx *ctx = new_ctx();
	sym_mesh *m2 = mesh(ctx, 2, s22, n22), *m3 = mesh(ctx, 3, s222, n222);
	sym_shape *s = shape_b1024(ctx);
	int axes[4], fd, td;
	sym_redist *r;

	(void)state;
	check_plan(m2, "(mp, None)", "(None, mp)", s, 1,
	    (sym_redist_kind[]){ SYM_REDIST_ALL_TO_ALL },
	    "all_to_all over mp: dim 0 -> dim 1, 2 groups of 2, "
	    "S = 2048*b bytes");
	check_plan(m2, "(dp, mp)", "(mp, dp)", s, 1,
	    (sym_redist_kind[]){ SYM_REDIST_PERMUTE },
	    "permute over (dp, mp): 1 group of 4, S = 1024*b bytes");
	check_plan(m3, "((dp, sp, mp), None)", "(None, (dp, sp, mp))", s, 1,
	    (sym_redist_kind[]){ SYM_REDIST_ALL_TO_ALL },
	    "all_to_all over (dp, sp, mp): dim 0 -> dim 1, 1 group of 8, "
	    "S = 512*b bytes");
	check_plan(m2, "(None, None) partial(mp)", "(None, None)", s, 1,
	    (sym_redist_kind[]){ SYM_REDIST_ALL_REDUCE },
	    "all_reduce over mp: 2 groups of 2, S = 4096*b bytes");
	check_plan(m2, "(None, None) partial(mp)", "(mp, None)", s, 1,
	    (sym_redist_kind[]){ SYM_REDIST_REDUCE_SCATTER },
	    "reduce_scatter over mp: dim 0, 2 groups of 2, "
	    "S = 4096*b bytes");
	check_plan(m2, "(mp, None)", "(None, None)", s, 1,
	    (sym_redist_kind[]){ SYM_REDIST_ALL_GATHER },
	    "all_gather over mp: dim 0, 2 groups of 2, S = 4096*b bytes");
	check_plan(m2, "(None, None)", "(dp, mp)", s, 2,
	    (sym_redist_kind[]){ SYM_REDIST_SLICE, SYM_REDIST_SLICE },
	    "slice over dp: dim 0, local, no communication\n"
	    "slice over mp: dim 1, local, no communication");
	check_plan(m2, "(dp, mp)", "(dp, mp)", s, 0, NULL,
	    "no communication: the layouts are equivalent");
	/* The common prefix stays: only mp moves. */
	check_plan(m3, "((dp, mp), None)", "(dp, mp)", s, 1,
	    (sym_redist_kind[]){ SYM_REDIST_ALL_TO_ALL },
	    "all_to_all over mp: dim 0 -> dim 1, 4 groups of 2, "
	    "S = 1024*b bytes");
	/* Partial sums kept by the target stay partial. */
	check_plan(m3, "(mp, None) partial(dp)", "(None, mp) partial(dp)", s, 1,
	    (sym_redist_kind[]){ SYM_REDIST_ALL_TO_ALL },
	    "all_to_all over mp: dim 0 -> dim 1, 4 groups of 2, "
	    "S = 2048*b bytes");
	/* Slice first, so that the gather moves half as much. */
	check_plan(m3, "(mp, None)", "(None, dp)", s, 2,
	    (sym_redist_kind[]){ SYM_REDIST_SLICE, SYM_REDIST_ALL_GATHER },
	    "slice over dp: dim 1, local, no communication\n"
	    "all_gather over mp: dim 0, 4 groups of 2, S = 2048*b bytes");

	/* The accessors of a step. */
	r = plan(m3, "((dp, sp, mp), None)", m3, "(None, (dp, sp, mp))", s,
	    NULL, NULL);
	assert_int_equal(sym_redist_step_axes(r, 0, 4, axes), 3);
	assert_int_equal(axes[0], 0);
	assert_int_equal(axes[1], 1);
	assert_int_equal(axes[2], 2);
	assert_int_equal(sym_redist_step_dims(r, 0, &fd, &td), 0);
	assert_int_equal(fd, 0);
	assert_int_equal(td, 1);
	check_str(sym_layout_to_str(sym_redist_step_layout(r, 0)),
	    "(None, (dp, sp, mp))");
	check_str(sym_expr_to_str(sym_redist_step_bytes(r, 0)), "512*b");
	check_out_of_range(ctx, r, 1);
	check_out_of_range(ctx, r, 5);
	check_out_of_range(ctx, r, SIZE_MAX);
	sym_redist_free(r);

	assert_string_equal(sym_redist_kind_name(SYM_REDIST_REDUCE_SCATTER),
	    "reduce_scatter");
	assert_string_equal(sym_redist_kind_name(SYM_REDIST_BROADCAST),
	    "broadcast");
	assert_string_equal(sym_redist_kind_name((sym_redist_kind)99), "?");
	assert_int_equal(sym_redist_n_steps(NULL), 0);
	assert_int_equal(sym_redist_full_gather(NULL), -1);
	sym_redist_free(NULL);
	sym_shape_free(s);
	sym_mesh_free(m2);
	sym_mesh_free(m3);
	tl_ctx_free(ctx);
}

/* Check the rank groups of steps, including a mesh with a rank list. */
static void
test_groups(void **state)
{
	static const int64_t s22[] = { 2, 2 }, rev[] = { 3, 2, 1, 0 };
	static const char *const n22[] = { "dp", "mp" };
	static const int64_t s222[] = { 2, 2, 2 };
	static const char *const n222[] = { "dp", "sp", "mp" };
	sym_ctx *ctx = new_ctx();
	sym_mesh *m = mesh(ctx, 2, s22, n22), *m3 = mesh(ctx, 3, s222, n222);
	sym_mesh *mr = sym_mesh_new(ctx, 2, s22, n22, 4, rev);
	sym_shape *s = shape_b1024(ctx);
	sym_redist *r;
	size_t size;

	(void)state;
	r = plan(m, "(None, mp)", m, "(None, None)", s, NULL,
	    "all_gather over mp: dim 1, 2 groups of 2, S = 4096*b bytes");
	assert_int_equal(sym_redist_step_groups(r, 0, &size), 2);
	assert_int_equal(size, 2);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 0), 0);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 1), 1);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 1, 0), 2);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 1, 1), 3);
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 2, 0), -1);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 2), -1);
	assert_int_equal(sym_redist_step_group_rank(r, 0, SIZE_MAX, 0), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	sym_redist_free(r);

	r = plan(m, "(dp, None)", m, "(None, None)", s, NULL, NULL);
	assert_int_equal(sym_redist_step_groups(r, 0, &size), 2);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 1), 2);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 1, 0), 1);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 1, 1), 3);
	sym_redist_free(r);

	/* Positions map to ranks through the rank list. */
	r = plan(mr, "(None, mp)", mr, "(None, None)", s, NULL, NULL);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 0), 3);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 1), 2);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 1, 0), 1);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 1, 1), 0);
	sym_redist_free(r);

	/* A mesh of 2^30 devices: the members are computed when asked, not
	 * stored (8 GiB for this one step before). */
	{
		static const int64_t big[] = { 32768, 32768 };
		static const char *const nab[] = { "a", "c" };
		sym_mesh *mb = mesh(ctx, 2, big, nab);

		r = plan(mb, "(a, None)", mb, "(None, None)", s, NULL,
		    "all_gather over a: dim 0, 32768 groups of 32768, S = "
		    "4096*b bytes");
		assert_int_equal(sym_redist_step_groups(r, 0, &size), 32768);
		assert_int_equal(size, 32768);
		assert_int_equal(sym_redist_step_group_rank(r, 0, 5, 7),
		    7 * 32768 + 5);
		assert_int_equal(sym_redist_step_group_rank(r, 0, 32767, 32767),
		    ((int64_t)1 << 30) - 1);
		assert_int_equal(sym_redist_step_group_rank(r, 0, 32768, 0),
		    -1);
		sym_redist_free(r);
		sym_mesh_free(mb);
	}

	/* Members follow the order of the step's axes: sp, then dp. */
	r = plan(m3, "((sp, dp), None)", m3, "(None, (sp, dp))", s, NULL,
	    "all_to_all over (sp, dp): dim 0 -> dim 1, 2 groups of 4, "
	    "S = 1024*b bytes");
	assert_int_equal(sym_redist_step_groups(r, 0, &size), 2);
	assert_int_equal(size, 4);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 1), 4);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 2), 2);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 0, 3), 6);
	assert_int_equal(sym_redist_step_group_rank(r, 0, 1, 0), 1);
	sym_redist_free(r);
	sym_shape_free(s);
	sym_mesh_free(m);
	sym_mesh_free(m3);
	sym_mesh_free(mr);
	tl_ctx_free(ctx);
}

/* Check the alpha-beta time of steps inside and across nodes. */
static void
test_seconds(void **state)
{
	static const int64_t s22[] = { 2, 2 };
	static const char *const n22[] = { "dp", "mp" };
	sym_ctx *ctx = new_ctx();
	sym_mesh *m = mesh(ctx, 2, s22, n22);
	sym_shape *s = shape_b1024(ctx);
	sym_topology *t = sym_topology_new(ctx, 2, 0, 0, 0, 0);
	sym_binding *b = sym_binding_new(ctx);
	sym_redist *r;
	double bytes = 4.0 * 1024 * 64;

	(void)state;
	assert_int_equal(sym_binding_parse(b, "b = 64", NULL), 0);
	r = plan(m, "(None, mp)", m, "(None, None)", s, t, NULL);
	check_close(sym_redist_step_seconds(r, 0, b),
	    5e-6 + 0.5 * bytes / 100e9, 1e-15);
	assert_true(sym_redist_step_seconds(r, 0, NULL) < 0);
	check_error(ctx, SYM_EUNBOUND, "binding");
	sym_redist_free(r);
	/* Ranks 0, 1 on node 0 and 2, 3 on node 1: dp crosses nodes. */
	r = plan(m, "(dp, None)", m, "(None, None)", s, t,
	    "all_gather over dp: dim 0, 2 groups of 2 across nodes, "
	    "S = 4096*b bytes");
	check_close(sym_redist_step_seconds(r, 0, b),
	    10e-6 + 0.5 * bytes / 25e9, 1e-15);
	/* The same time as an expression in femtoseconds: 10 us, then
	 * half of 4096*b bytes at 25 GB/s (4e4 fs a byte). */
	check_fs(sym_redist_step_femtoseconds(r, 0), "81920000*b + 10000000000",
	    b, 10e-6 + 0.5 * bytes / 25e9);
	assert_null(sym_redist_step_femtoseconds(r, 1));
	sym_redist_free(r);
	r = plan(m, "(None, None) partial(mp)", m, "(None, None)", s, t, NULL);
	check_close(sym_redist_step_seconds(r, 0, b), 2 * 5e-6 + bytes / 100e9,
	    1e-15);
	sym_redist_free(r);
	r = plan(m, "(dp, mp)", m, "(mp, dp)", s, t, NULL);
	check_close(sym_redist_step_seconds(r, 0, b), 10e-6 + bytes / 4 / 25e9,
	    1e-15);
	sym_redist_free(r);
	sym_binding_free(b);
	sym_topology_free(t);
	sym_shape_free(s);
	sym_mesh_free(m);
	tl_ctx_free(ctx);
}

/* Check plans between layouts over different meshes of the same ranks:
 * refined when possible, gathered and sliced when not. */
static void
test_meshes(void **state)
{
	static const int64_t s24[] = { 2, 4 }, s412[] = { 4, 1, 2 };
	static const int64_t s23[] = { 2, 3 }, s32[] = { 3, 2 };
	static const char *const n2[] = { "dp", "mp" };
	static const char *const n3[] = { "x", "y", "z" };
	sym_ctx *ctx = new_ctx();
	sym_mesh *a = mesh(ctx, 2, s24, n2), *b = mesh(ctx, 3, s412, n3);
	sym_mesh *c = mesh(ctx, 2, s23, n2), *d = mesh(ctx, 2, s32, n2);
	sym_shape *s = shape_b1024(ctx);
	sym_redist *r;

	(void)state;
	/* (2, 4) and (4, 1, 2) meet on (dp=2, mp_0=2, z=2): mp is (mp_0,
	 * z), x is (dp, mp_0). */
	r = plan(a, "(mp, None)", b, "(None, x)", s, NULL,
	    "slice over dp: dim 1, local, no communication\n"
	    "all_to_all over (mp_0, z): dim 0 -> dim 1, 2 groups of 4, "
	    "S = 512*b bytes\n"
	    "all_gather over z: dim 1, 4 groups of 2, S = 1024*b bytes");
	check_str(sym_mesh_to_str(sym_layout_mesh(sym_redist_step_layout(r,
	              0))),
	    "(dp=2, mp_0=2, z=2)");
	assert_int_equal(sym_redist_full_gather(r), 0);
	sym_redist_free(r);
	/* Equivalent layouts over different meshes need nothing. */
	r = plan(a, "((dp, mp), None)", b, "((x, z), None)", s, NULL,
	    "no communication: the layouts are equivalent");
	sym_redist_free(r);
	/* Axes of size 1 are ignored. */
	r = plan(b, "(y, None)", b, "(None, y)", s, NULL,
	    "no communication: the layouts are equivalent");
	sym_redist_free(r);

	/* (2, 3) and (3, 2) have no common refinement. */
	r = plan(c, "(mp, None)", d, "(dp, None)", s, NULL,
	    "all_gather over mp: dim 0, 2 groups of 3, S = 4096*b bytes\n"
	    "slice over dp: dim 0, local, no communication\n"
	    "full gather: every rank holds the whole tensor after step 0 "
	    "(meshes (dp=2, mp=3) and (dp=3, mp=2) have no common "
	    "refinement)");
	assert_int_equal(sym_redist_full_gather(r), 1);
	sym_redist_free(r);
	sym_shape_free(s);
	sym_mesh_free(a);
	sym_mesh_free(b);
	sym_mesh_free(c);
	sym_mesh_free(d);
	tl_ctx_free(ctx);
}

/* Check the errors of sym_redist_plan. */
static void
test_plan_errors(void **state)
{
	static const int64_t s22[] = { 2, 2 }, s8[] = { 8 };
	static const char *const n22[] = { "dp", "mp" };
	sym_ctx *ctx = new_ctx();
	sym_mesh *m = mesh(ctx, 2, s22, n22), *m8 = mesh(ctx, 1, s8, NULL);
	sym_shape *s = shape_b1024(ctx);
	sym_layout *a = layout(m, "(mp, None)"), *p = layout(m, "(mp, None)");
	sym_layout *q = layout(m, "(None, None) partial(dp)");
	sym_layout *e = layout(m8, "(a0, None)"), *one = layout(m, "(mp)");

	(void)state;
	assert_null(sym_redist_plan(a, q, s, NULL));
	check_error(ctx, SYM_ELAYOUT, "cannot create partial sums");
	assert_null(sym_redist_plan(a, e, s, NULL));
	check_error(ctx, SYM_ELAYOUT, "over 4 and 8 devices");
	assert_null(sym_redist_plan(a, one, s, NULL));
	check_error(ctx, SYM_ELAYOUT, "rank 2 and 1");
	assert_null(sym_redist_plan(a, NULL, s, NULL));
	check_error(ctx, SYM_EINVAL, "missing");
	assert_null(sym_redist_plan(NULL, NULL, NULL, NULL));
	sym_layout_free(a);
	sym_layout_free(p);
	sym_layout_free(q);
	sym_layout_free(e);
	sym_layout_free(one);
	sym_shape_free(s);
	sym_mesh_free(m);
	sym_mesh_free(m8);
	tl_ctx_free(ctx);
}

/* Write "text" to a new temporary file whose name is stored in "path"
 * (room for 64 bytes). */
static void
write_tmp(char *path, const char *text)
{
	int fd;
	FILE *f;

	snprintf(path, 64, "/tmp/test_redist.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Check that the topology file "text" is refused with SYM_EPARSE at
 * line "line", column "col", with a message containing "part". */
static void
check_topo_error(sym_ctx *ctx, const char *text, int line, int col,
    const char *part)
{
	char path[64];
	sym_loc loc;

	write_tmp(path, text);
	assert_null(sym_topology_parse_file(ctx, path));
	loc = sym_ctx_last_location(ctx);
	assert_non_null(loc.file);
	assert_string_equal(loc.file, path);
	if (loc.line != line || loc.col != col)
		fail_msg("'%s': error at %d:%d, not %d:%d (%s)", text, loc.line,
		    loc.col, line, col, sym_ctx_last_message(ctx));
	check_error(ctx, SYM_EPARSE, part);
	unlink(path);
}

/* Check topologies from arguments and from files. */
static void
test_topology(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_topology *t;
	char path[64];

	(void)state;
	t = sym_topology_new(ctx, 0, 0, -1, 0, 0);
	check_str(sym_topology_to_str(t),
	    "one node, intra 100 GB/s 5 us, inter 25 GB/s 10 us, compute 100 TFLOP/s");
	assert_int_equal(sym_topology_node_of(t, 7), 0);
	assert_int_equal(sym_topology_node_of(t, -1), -1);
	sym_topology_free(t);
	t = sym_topology_new(ctx, 8, 200, 2, 50, 20);
	check_str(sym_topology_to_str(t),
	    "ranks_per_node 8, intra 200 GB/s 2 us, inter 50 GB/s 20 us, compute 100 TFLOP/s");
	assert_int_equal(sym_topology_node_of(t, 7), 0);
	assert_int_equal(sym_topology_node_of(t, 8), 1);
	sym_topology_free(t);
	sym_topology_free(NULL);

	write_tmp(path,
	    "# two nodes of four\n"
	    "ranks_per_node 4   # comment\n"
	    "intra 150GB/s 3us\n"
	    "\n"
	    "inter 100 Gbit/s 0.012 ms\n");
	t = sym_topology_parse_file(ctx, path);
	assert_non_null(t);
	check_str(sym_topology_to_str(t),
	    "ranks_per_node 4, intra 150 GB/s 3 us, inter 12.5 GB/s 12 us, compute 100 TFLOP/s");
	assert_int_equal(sym_topology_node_of(t, 5), 1);
	sym_topology_free(t);
	unlink(path);

	write_tmp(path, "node 0-1 4\nnode 2,3 5\n");
	t = sym_topology_parse_file(ctx, path);
	assert_non_null(t);
	assert_int_equal(sym_topology_node_of(t, 4), 0);
	assert_int_equal(sym_topology_node_of(t, 3), 1);
	assert_int_equal(sym_topology_node_of(t, 6), -1);
	check_str(sym_topology_to_str(t),
	    "6 ranks on 2 nodes, intra 100 GB/s 5 us, inter 25 GB/s 10 us, compute 100 TFLOP/s");
	sym_topology_free(t);
	unlink(path);

	check_topo_error(ctx, "ranks_per_node 8\nintra 100 5us\n", 2, 11,
	    "bandwidth unit");
	check_topo_error(ctx, "intra 100GB/s\n", 1, 14, "expected a latency");
	check_topo_error(ctx, "intra 100GB/s 5 parsecs\n", 1, 17,
	    "latency unit");
	check_topo_error(ctx, "\n\n  bandwidth 3\n", 3, 3,
	    "unknown keyword 'bandwidth'");
	check_topo_error(ctx, "ranks_per_node 2.5\n", 1, 19, "whole number");
	check_topo_error(ctx, "flops 10\n", 1, 9, "compute rate unit");
	check_topo_error(ctx, "flops 1TFLOP/s\nflops 2TFLOP/s\n", 2, 1,
	    "flops given twice");
	check_topo_error(ctx, "flops -1TFLOP/s\n", 1, 7, "positive number");

	/* The compute rate: from a file, set, and the default. */
	write_tmp(path, "flops 2.5TFLOP/s\n");
	t = sym_topology_parse_file(ctx, path);
	assert_non_null(t);
	assert_true(sym_topology_flops(t) == 2.5e12);
	check_str(sym_topology_to_str(t),
	    "one node, intra 100 GB/s 5 us, inter 25 GB/s 10 us, compute 2.5 "
	    "TFLOP/s");
	assert_int_equal(sym_topology_set_flops(t, 400e9), 0);
	assert_true(sym_topology_flops(t) == 400e9);
	assert_int_equal(sym_topology_set_flops(t, 0), 0);
	assert_true(sym_topology_flops(t) == 100e12);
	assert_int_equal(sym_topology_set_flops(t, 1.0 / 0.0), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_true(sym_topology_flops(NULL) == 100e12);
	sym_topology_free(t);
	unlink(path);
	check_topo_error(ctx, "ranks_per_node 2\nranks_per_node 4\n", 2, 1,
	    "twice");
	check_topo_error(ctx, "inter 1GB/s 1us extra\n", 1, 17,
	    "unexpected text");
	check_topo_error(ctx, "node 0 1\nnode 1 2\n", 2, 6,
	    "rank 1 is already on node 0");
	check_topo_error(ctx, "node 0 2\n", 1, 1, "rank 1 is on no node");
	check_topo_error(ctx, "node 0\nranks_per_node 2\n", 2, 1,
	    "exclude each other");
	check_topo_error(ctx, "intra -3GB/s 1us\n", 1, 7, "positive number");
	/* Issue 14, item 16: a huge count is too large, not fractional; a
	 * hexadecimal bandwidth is no decimal number. */
	check_topo_error(ctx, "ranks_per_node 9223372036854775807\n", 1, 35,
	    "ranks_per_node too large (at most 1000000000)");
	check_topo_error(ctx, "intra 0x10GB/s 1us\n", 1, 7,
	    "expected a positive decimal number");
	/* Ranks are bounded: the table of nodes by rank is allocated up to
	 * the greatest (8 GB for rank 2^30, which used to be allowed). */
	check_topo_error(ctx, "node 0-1\nnode 1048576\n", 2, 6,
	    "rank number too large (at most 1048575)");
	check_topo_error(ctx, "node 1073741824\n", 1, 6,
	    "rank number too large (at most 1048575)");

	assert_null(sym_topology_parse_file(ctx, "/nonexistent/topo"));
	check_error(ctx, SYM_EIO, "cannot open");
	/* An endless file stops at its first NUL byte (issue 14, item 10). */
	assert_null(sym_topology_parse_file(ctx, "/dev/zero"));
	check_error(ctx, SYM_EPARSE, "/dev/zero is not a text file");
	tl_ctx_free(ctx);
}

/* The rank table of MindSpore's distributed training tutorial, for two
 * servers of two devices, with "extra" inserted in the first device. */
static void
rank_table(char *out, size_t len, const char *extra, const char *rank0,
    const char *count)
{
	snprintf(out, len,
	    "{\n"
	    "  \"version\": \"1.0\",\n"
	    "  \"server_count\": \"%s\",\n"
	    "  \"server_list\": [\n"
	    "    {\n"
	    "      \"server_id\": \"10.155.111.140\",\n"
	    "      \"device\": [\n"
	    "        {\"device_id\": \"0\", \"device_ip\": \"192.1.27.6\", "
	    "%s\"rank_id\": \"%s\"},\n"
	    "        {\"device_id\": \"1\", \"device_ip\": \"192.2.27.6\", "
	    "\"rank_id\": \"1\"}],\n"
	    "      \"host_nic_ip\": \"reserve\"\n"
	    "    },\n"
	    "    {\n"
	    "      \"server_id\": \"10.155.111.141\",\n"
	    "      \"device\": [\n"
	    "        {\"device_id\": \"0\", \"device_ip\": \"192.1.27.7\", "
	    "\"rank_id\": \"2\"},\n"
	    "        {\"device_id\": \"1\", \"device_ip\": \"192.2.27.7\", "
	    "\"rank_id\": \"3\"}],\n"
	    "      \"host_nic_ip\": \"reserve\"\n"
	    "    }\n"
	    "  ],\n"
	    "  \"status\": \"completed\"\n"
	    "}\n",
	    count, extra, rank0);
}

/* Check that the rank table "text" is refused with "code" and a message
 * containing "part". */
static void
check_table_error(sym_ctx *ctx, const char *text, sym_error code,
    const char *part)
{
	char path[64];

	write_tmp(path, text);
	assert_null(sym_topology_parse_rank_table(ctx, path));
	check_error(ctx, code, part);
	unlink(path);
}

/* Check MindSpore rank tables and their errors. */
static void
test_rank_table(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char text[2048], path[64];
	sym_topology *t;
	sym_loc loc;

	(void)state;
	rank_table(text, sizeof(text), "", "0", "2");
	write_tmp(path, text);
	t = sym_topology_parse_rank_table(ctx, path);
	assert_non_null(t);
	assert_int_equal(sym_topology_node_of(t, 0), 0);
	assert_int_equal(sym_topology_node_of(t, 1), 0);
	assert_int_equal(sym_topology_node_of(t, 2), 1);
	assert_int_equal(sym_topology_node_of(t, 3), 1);
	assert_int_equal(sym_topology_node_of(t, 4), -1);
	check_str(sym_topology_to_str(t),
	    "4 ranks on 2 nodes, intra 100 GB/s 5 us, inter 25 GB/s 10 us, compute 100 TFLOP/s");
	sym_topology_free(t);
	unlink(path);

	rank_table(text, sizeof(text), "", "0", "3");
	check_table_error(ctx, text, SYM_EPARSE,
	    "server_count: does not match the 2 servers");
	rank_table(text, sizeof(text), "", "1", "2");
	check_table_error(ctx, text, SYM_EPARSE,
	    "server_list[0].device[1]: rank 1 appears twice");
	rank_table(text, sizeof(text), "", "x0", "2");
	check_table_error(ctx, text, SYM_EPARSE,
	    "server_list[0].device[0]: \"rank_id\" must be a non-negative "
	    "integer");
	rank_table(text, sizeof(text), "", "4", "2");
	check_table_error(ctx, text, SYM_EPARSE, "rank 0 is missing");
	/* Issue 14, item 16: ranks 1-3 and 5 are 4 devices, to be numbered
	 * 0 to 3 (not 0 to 5). */
	rank_table(text, sizeof(text), "", "5", "2");
	check_table_error(ctx, text, SYM_EPARSE,
	    "rank 0 is missing (rank_id must number the 4 devices 0 to 3)");
	check_table_error(ctx, "{\"server_list\": [{\"device\": [{}]}]}",
	    SYM_EPARSE, "server_list[0].device[0]: missing \"rank_id\"");
	check_table_error(ctx,
	    "{\"server_list\": [{\"device\": [{\"rank_id\": 1048576}]}]}",
	    SYM_EPARSE,
	    "server_list[0].device[0]: \"rank_id\" 1048576 is too large (at "
	    "most 1048575)");
	check_table_error(ctx, "{\"server_list\": [{}]}", SYM_EPARSE,
	    "server_list[0]: missing \"device\"");
	check_table_error(ctx, "{\"version\": \"1.0\"}", SYM_EPARSE,
	    "missing \"server_list\"");
	check_table_error(ctx, "[1, 2]", SYM_EPARSE, "expected a JSON object");

	write_tmp(path, "{\n  \"server_list\": [\n  }\n");
	assert_null(sym_topology_parse_rank_table(ctx, path));
	loc = sym_ctx_last_location(ctx);
	assert_int_equal(loc.line, 3);
	check_error(ctx, SYM_EPARSE, "invalid JSON");
	unlink(path);
	/* Errors before the first character of a line are at column 1. */
	write_tmp(path, "");
	assert_null(sym_topology_parse_rank_table(ctx, path));
	loc = sym_ctx_last_location(ctx);
	assert_int_equal(loc.line, 1);
	assert_int_equal(loc.col, 1);
	check_error(ctx, SYM_EPARSE,
	    "invalid JSON: '[' or '{' expected near "
	    "end of file");
	unlink(path);
	write_tmp(path, "\xf1{}");
	assert_null(sym_topology_parse_rank_table(ctx, path));
	loc = sym_ctx_last_location(ctx);
	assert_int_equal(loc.line, 1);
	assert_int_equal(loc.col, 1);
	check_error(ctx, SYM_EPARSE,
	    "invalid JSON: unable to decode byte "
	    "0xf1");
	unlink(path);
	assert_null(sym_topology_parse_rank_table(ctx, "/nonexistent/rt"));
	check_error(ctx, SYM_EIO, "cannot open");
	assert_null(sym_topology_parse_rank_table(ctx, "/dev/zero"));
	check_error(ctx, SYM_EPARSE, "/dev/zero is not a text file");
	tl_ctx_free(ctx);
}

/* The state of the property test: what every rank holds. */
struct sim {
	sym_ctx *ctx;
	size_t dims;
	int64_t shape[MAX_DIMS];
	int64_t n_ranks;
	int64_t off[MAX_RANKS][MAX_DIMS], ext[MAX_RANKS][MAX_DIMS];
	uint64_t add[MAX_RANKS]; /* the addends a rank holds the sum of */
	unsigned seed;
};

/* Return a pseudo-random number below "n" from "sim". */
static int64_t
rnd(struct sim *sim, int64_t n)
{
	sim->seed = sim->seed * 1103515245u + 12345u;
	return (int64_t)((sim->seed >> 8) % (unsigned)n);
}

/* Store in "off"/"ext" the block of rank "r" under "l" for "sim". */
static void
block_of(const struct sim *sim, const sym_layout *l, int64_t r, int64_t *off,
    int64_t *ext)
{
	const sym_mesh *m = sym_layout_mesh(l);
	int64_t c[SYM_MESH_MAX_AXES];

	assert_int_equal(sym_mesh_coords(m, r, c), 0);
	for (size_t d = 0; d < sim->dims; d++) {
		int64_t b = 0, k = 1;

		for (size_t i = 0; i < sym_layout_dim_n_axes(l, d); i++) {
			int a = sym_layout_dim_axis(l, d, i);

			b = b * sym_mesh_axis_size(m, (size_t)a) + c[a];
			k *= sym_mesh_axis_size(m, (size_t)a);
		}
		ext[d] = sim->shape[d] / k;
		off[d] = b * ext[d];
	}
}

/* Return the addend of rank "r" under "l": its coordinates along the
 * partial axes of "l" whose bits are set in "keep", in mixed radix. */
static int64_t
addend_of(const sym_layout *l, int64_t r, uint32_t keep)
{
	const sym_mesh *m = sym_layout_mesh(l);
	int64_t c[SYM_MESH_MAX_AXES], id = 0;

	assert_int_equal(sym_mesh_coords(m, r, c), 0);
	for (size_t a = 0; a < sym_mesh_n_axes(m); a++)
		if (sym_layout_is_partial(l, a) && (keep >> a & 1))
			id = id * sym_mesh_axis_size(m, a) + c[a];
	return id;
}

/* Return the bytes (f32) a rank of "sim" holds, the same on every rank. */
static int64_t
held_bytes(const struct sim *sim, int64_t r)
{
	int64_t n = 4;

	for (size_t d = 0; d < sim->dims; d++)
		n *= sim->ext[r][d];
	return n;
}

/* Check that the members "g" ("n" ranks) of a group hold the same block
 * except along dimension "skip" (-1: none) and the same addends unless
 * "sum". */
static void
check_alike(const struct sim *sim, const int64_t *g, int64_t n, int skip,
    int sum)
{
	for (int64_t j = 1; j < n; j++) {
		for (size_t d = 0; d < sim->dims; d++)
			if ((int)d != skip) {
				assert_int_equal(sim->off[g[j]][d],
				    sim->off[g[0]][d]);
				assert_int_equal(sim->ext[g[j]][d],
				    sim->ext[g[0]][d]);
			}
		if (!sum)
			assert_int_equal(sim->add[g[j]], sim->add[g[0]]);
	}
}

/* Check that the blocks of members "g" ("n") are consecutive along "d",
 * in the order of the group. */
static void
check_consecutive(const struct sim *sim, const int64_t *g, int64_t n, size_t d)
{
	for (int64_t j = 1; j < n; j++) {
		assert_int_equal(sim->ext[g[j]][d], sim->ext[g[0]][d]);
		assert_int_equal(sim->off[g[j]][d],
		    sim->off[g[0]][d] + j * sim->ext[g[0]][d]);
	}
}

/* Apply a permute on group "g" ("n" ranks) of step "i" of "r": each
 * member takes the block the layout after the step gives it, which some
 * member must hold (a one-to-one exchange). */
static void
sim_permute(struct sim *sim, const sym_redist *r, size_t i, const int64_t *g,
    int64_t n)
{
	const sym_layout *after = sym_redist_step_layout(r, i);
	int used[MAX_RANKS] = { 0 };

	for (int64_t j = 1; j < n; j++)
		assert_int_equal(sim->add[g[j]], sim->add[g[0]]);
	for (int64_t j = 0; j < n; j++) {
		int64_t off[MAX_DIMS], ext[MAX_DIMS], k;

		block_of(sim, after, g[j], off, ext);
		for (k = 0; k < n; k++) {
			if (used[k])
				continue;
			if (memcmp(off, sim->off[g[k]],
			        sim->dims * sizeof(off[0])) == 0 &&
			    memcmp(ext, sim->ext[g[k]],
			        sim->dims * sizeof(ext[0])) == 0)
				break;
		}
		if (k == n)
			fail_msg("permute: no member holds the block of rank "
			         "%lld",
			    (long long)g[j]);
		used[k] = 1;
	}
	for (int64_t j = 0; j < n; j++)
		block_of(sim, after, g[j], sim->off[g[j]], sim->ext[g[j]]);
}

/* Apply step "i" of "r" to group "g" ("n" ranks) of "sim" and return the
 * bytes S it should have by the nccl-tests convention. */
static int64_t
sim_group(struct sim *sim, const sym_redist *r, size_t i, const int64_t *g,
    int64_t n)
{
	sym_redist_kind kind = sym_redist_step_kind(r, i);
	int64_t s = held_bytes(sim, g[0]);
	uint64_t all = 0;
	int fd, td;

	assert_int_equal(sym_redist_step_dims(r, i, &fd, &td), 0);
	switch (kind) {
	case SYM_REDIST_SLICE:
		for (int64_t j = 0; j < n; j++) {
			sim->ext[g[j]][td] /= n;
			sim->off[g[j]][td] += j * sim->ext[g[j]][td];
		}
		return 0;
	case SYM_REDIST_ALL_GATHER:
		check_alike(sim, g, n, fd, 0);
		check_consecutive(sim, g, n, (size_t)fd);
		for (int64_t j = 0; j < n; j++) {
			sim->off[g[j]][fd] = sim->off[g[0]][fd];
			sim->ext[g[j]][fd] *= n;
		}
		return s * n;
	case SYM_REDIST_ALL_TO_ALL:
		check_alike(sim, g, n, fd, 0);
		check_consecutive(sim, g, n, (size_t)fd);
		for (int64_t j = 0; j < n; j++) {
			sim->off[g[j]][fd] = sim->off[g[0]][fd];
			sim->ext[g[j]][fd] *= n;
			sim->ext[g[j]][td] /= n;
			sim->off[g[j]][td] += j * sim->ext[g[j]][td];
		}
		return s;
	case SYM_REDIST_PERMUTE:
		sim_permute(sim, r, i, g, n);
		return s;
	case SYM_REDIST_ALL_REDUCE:
	case SYM_REDIST_REDUCE_SCATTER:
		check_alike(sim, g, n, -1, 1);
		for (int64_t j = 0; j < n; j++) {
			assert_int_equal(all & sim->add[g[j]], 0);
			all |= sim->add[g[j]];
		}
		for (int64_t j = 0; j < n; j++) {
			sim->add[g[j]] = all;
			if (kind == SYM_REDIST_ALL_REDUCE)
				continue;
			sim->ext[g[j]][td] /= n;
			sim->off[g[j]][td] += j * sim->ext[g[j]][td];
		}
		return s;
	case SYM_REDIST_BROADCAST:
	case SYM_REDIST_INVALID:
		break;
	}
	fail_msg("unexpected step %s", sym_redist_kind_name(kind));
	return -1;
}

/* Check that the groups of step "i" of "r" partition the ranks, that
 * members differ only along the step's axes, in mixed radix of them. */
static void
check_groups(const struct sim *sim, const sym_redist *r, size_t i)
{
	const sym_mesh *m = sym_layout_mesh(sym_redist_step_layout(r, i));
	int axes[SYM_MESH_MAX_AXES], seen[MAX_RANKS] = { 0 };
	size_t size, ng = sym_redist_step_groups(r, i, &size);
	size_t na = sym_redist_step_axes(r, i, SYM_MESH_MAX_AXES, axes);

	assert_int_equal(ng * size, (size_t)sim->n_ranks);
	for (size_t k = 0; k < ng; k++) {
		int64_t c0[SYM_MESH_MAX_AXES];

		for (size_t j = 0; j < size; j++) {
			int64_t rk = sym_redist_step_group_rank(r, i, k, j);
			int64_t c[SYM_MESH_MAX_AXES], digit = 0;

			assert_true(rk >= 0 && rk < sim->n_ranks);
			assert_int_equal(seen[rk]++, 0);
			assert_int_equal(sym_mesh_coords(m, rk, c), 0);
			if (j == 0)
				memcpy(c0, c, sizeof(c));
			for (size_t x = 0; x < na; x++) {
				digit = digit *
				        sym_mesh_axis_size(m, (size_t)axes[x]) +
				    c[axes[x]];
				c[axes[x]] = c0[axes[x]];
			}
			assert_int_equal(digit, (int64_t)j);
			assert_memory_equal(c, c0,
			    sym_mesh_n_axes(m) * sizeof(c[0]));
		}
	}
}

/* Simulate step "i" of "r" on "sim": apply it group by group, compare
 * its bytes with the simulated ones and the blocks with its layout. */
static void
sim_step(struct sim *sim, const sym_redist *r, size_t i)
{
	const sym_layout *after = sym_redist_step_layout(r, i);
	size_t size, ng = sym_redist_step_groups(r, i, &size);
	int64_t bytes = -1, s;

	check_groups(sim, r, i);
	for (size_t k = 0; k < ng; k++) {
		int64_t g[MAX_RANKS];

		for (size_t j = 0; j < size; j++)
			g[j] = sym_redist_step_group_rank(r, i, k, j);
		s = sim_group(sim, r, i, g, (int64_t)size);
		assert_true(bytes < 0 || s == bytes);
		bytes = s;
	}
	assert_int_equal(sym_expr_get_const(sym_redist_step_bytes(r, i), &s),
	    0);
	assert_int_equal(s, bytes);
	for (int64_t rk = 0; rk < sim->n_ranks; rk++) {
		int64_t off[MAX_DIMS], ext[MAX_DIMS];

		block_of(sim, after, rk, off, ext);
		assert_memory_equal(off, sim->off[rk],
		    sim->dims * sizeof(off[0]));
		assert_memory_equal(ext, sim->ext[rk],
		    sim->dims * sizeof(ext[0]));
	}
}

/* Return a random mesh of "sim" over "n" devices (0: any number up to
 * 32), listing its ranks in the order "ranks" (NULL: the identity). */
static sym_mesh *
random_mesh(struct sim *sim, int64_t n, const int64_t *ranks)
{
	static const int64_t sizes[] = { 2, 2, 2, 3, 2, 4, 1 };
	int64_t size[SYM_MESH_MAX_AXES], p[8], total = 1;
	size_t k = 0, np = 0;

	if (n == 0) {
		while (k < 4 && (k == 0 || rnd(sim, 4))) {
			int64_t s = sizes[rnd(sim, 7)];

			if (total * s > 32)
				break;
			size[k++] = s;
			total *= s;
		}
		return sym_mesh_new(sim->ctx, k, size, NULL, 0, NULL);
	}
	for (int64_t left = n, f = 2; left > 1;)
		if (left % f == 0) {
			p[np++] = f;
			left /= f;
		} else
			f++;
	for (size_t i = np; i > 1; i--) {
		size_t j = (size_t)rnd(sim, (int64_t)i);
		int64_t t = p[i - 1];

		p[i - 1] = p[j];
		p[j] = t;
	}
	for (size_t i = 0; i < np;) {
		int64_t s = p[i++];

		while (i < np && rnd(sim, 2))
			s *= p[i++];
		size[k++] = s;
		if (rnd(sim, 6) == 0)
			size[k++] = 1;
	}
	if (k == 0)
		size[k++] = 1;
	return sym_mesh_new(sim->ctx, k, size, NULL, ranks ? (size_t)n : 0,
	    ranks);
}

/* Store in "perm" a random permutation of the "n" ranks of "sim". */
static void
random_ranks(struct sim *sim, int64_t n, int64_t *perm)
{
	for (int64_t i = 0; i < n; i++)
		perm[i] = i;
	for (int64_t i = n; i > 1; i--) {
		int64_t j = rnd(sim, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

/* Return a random layout over "m" for "sim", partial only over axes in
 * "may_partial"; store its partial axes in "*partial". */
static sym_layout *
random_layout(struct sim *sim, sym_mesh *m, uint32_t may_partial,
    uint32_t *partial)
{
	int ax[MAX_DIMS][SYM_MESH_MAX_AXES], pa[SYM_MESH_MAX_AXES];
	const int *rows[MAX_DIMS];
	size_t n[MAX_DIMS] = { 0 }, np = 0;

	*partial = 0;
	for (size_t a = 0; a < sym_mesh_n_axes(m); a++) {
		int64_t c = rnd(sim, (int64_t)sim->dims + 2);

		if (c == 0)
			continue;
		if (c == 1) {
			if (may_partial >> a & 1) {
				pa[np++] = (int)a;
				*partial |= UINT32_C(1) << a;
			}
			continue;
		}
		c -= 2;
		size_t pos = (size_t)rnd(sim, (int64_t)n[c] + 1);

		memmove(&ax[c][pos + 1], &ax[c][pos],
		    (n[c] - pos) * sizeof(ax[c][0]));
		ax[c][pos] = (int)a;
		n[c]++;
	}
	for (size_t d = 0; d < sim->dims; d++)
		rows[d] = ax[d];
	return sym_layout_new(m, sim->dims, n, rows, np, pa);
}

/* Run one random case of the property test; return 1 if it needed a full
 * gather. */
static int
random_case(struct sim *sim, size_t *n_steps)
{
	sym_mesh *ma, *mb;
	sym_layout *la, *lb;
	sym_expr *dims[MAX_DIMS];
	sym_shape *shape;
	sym_redist *r;
	uint32_t pa, pb;
	int64_t perm[MAX_RANKS], perm2[MAX_RANKS], order;
	int64_t id[MAX_RANKS], kept[MAX_RANKS];
	int same = 0, fg;
	char *text;

	ma = random_mesh(sim, 0, NULL);
	assert_non_null(ma);
	sim->n_ranks = sym_mesh_n_devices(ma);
	order = rnd(sim, 8);
	random_ranks(sim, sim->n_ranks, perm);
	random_ranks(sim, sim->n_ranks, perm2);
	if (order > 2) {
		/* The same mesh, or the same ranks as another matrix. */
		same = rnd(sim, 3) != 0;
		if (order > 5) {
			sym_mesh *t = random_mesh(sim, sim->n_ranks, perm);

			sym_mesh_free(ma);
			ma = t;
			assert_non_null(ma);
		}
		mb = same
		    ? sym_mesh_copy(ma)
		    : random_mesh(sim, sim->n_ranks, order > 5 ? perm : NULL);
	} else {
		/* Different rank lists. */
		sym_mesh *t = random_mesh(sim, sim->n_ranks, perm);

		sym_mesh_free(ma);
		ma = t;
		assert_non_null(ma);
		mb = random_mesh(sim, sim->n_ranks, perm2);
	}
	assert_non_null(mb);
	sim->dims = 1 + (size_t)rnd(sim, MAX_DIMS);
	for (size_t d = 0; d < sim->dims; d++) {
		sim->shape[d] = sim->n_ranks * (1 + rnd(sim, 3));
		dims[d] = sym_expr_const(sim->ctx, sim->shape[d]);
	}
	shape = sym_shape_new(sim->ctx, SYM_DT_F32, sim->dims, dims);
	for (size_t d = 0; d < sim->dims; d++)
		sym_expr_free(dims[d]);
	la = random_layout(sim, ma, ~UINT32_C(0), &pa);
	lb = random_layout(sim, mb, same ? pa : 0, &pb);
	assert_non_null(la);
	assert_non_null(lb);
	r = sym_redist_plan(la, lb, shape, NULL);
	if (!r)
		fail_msg("no plan: %s", sym_ctx_last_message(sim->ctx));
	for (int64_t rk = 0; rk < sim->n_ranks; rk++) {
		block_of(sim, la, rk, sim->off[rk], sim->ext[rk]);
		id[rk] = addend_of(la, rk, ~UINT32_C(0));
		kept[rk] = addend_of(la, rk, pb);
		sim->add[rk] = UINT64_C(1) << id[rk];
	}
	for (size_t i = 0; i < sym_redist_n_steps(r); i++)
		sim_step(sim, r, i);
	*n_steps += sym_redist_n_steps(r);
	for (int64_t rk = 0; rk < sim->n_ranks; rk++) {
		int64_t off[MAX_DIMS], ext[MAX_DIMS];
		uint64_t want = 0;

		block_of(sim, lb, rk, off, ext);
		assert_memory_equal(off, sim->off[rk],
		    sim->dims * sizeof(off[0]));
		assert_memory_equal(ext, sim->ext[rk],
		    sim->dims * sizeof(ext[0]));
		/* The sum of the addends whose digits along the axes the
		 * target keeps partial are those of the rank. */
		for (int64_t q = 0; q < sim->n_ranks; q++)
			if (kept[q] == kept[rk])
				want |= UINT64_C(1) << id[q];
		assert_int_equal(sim->add[rk], want);
	}
	fg = sym_redist_full_gather(r);
	text = sym_redist_to_str(r);
	assert_non_null(text);
	if (fg && !strstr(text, "no common refinement") &&
	    !strstr(text, "different orders"))
		fail_msg("a full gather between layouts on one mesh: %s %s "
		         "-> %s %s:\n%s",
		    sym_mesh_to_str(ma), sym_layout_to_str(la),
		    sym_mesh_to_str(mb), sym_layout_to_str(lb), text);
	free(text);
	sym_redist_free(r);
	sym_layout_free(la);
	sym_layout_free(lb);
	sym_shape_free(shape);
	sym_mesh_free(ma);
	sym_mesh_free(mb);
	return fg;
}

/* The property test: random layouts of random static shapes on random
 * meshes; every plan, simulated on the blocks each rank holds and on the
 * partial sums, must leave every rank with what the target prescribes. */
static void
test_property(void **state)
{
	struct sim sim;
	size_t steps = 0, full = 0, cases = 3000;

	(void)state;
	memset(&sim, 0, sizeof(sim));
	sim.ctx = sym_ctx_new();
	sim.seed = 20261122u;
	for (size_t i = 0; i < cases; i++)
		full += (size_t)random_case(&sim, &steps);
	assert_true(steps > cases);
	printf("# property: %zu cases, %zu steps, %zu full gathers across "
	       "meshes\n",
	    cases, steps, full);
	tl_ctx_free(sim.ctx);
}

/* Return the femtoseconds of the steps of "r" (static sizes). */
static int64_t
plan_fs(const sym_redist *r)
{
	int64_t total = 0;

	for (size_t i = 0; i < sym_redist_n_steps(r); i++) {
		sym_expr *e = sym_redist_step_femtoseconds(r, i);
		int64_t v;

		assert_int_equal(sym_expr_get_const(e, &v), 0);
		total += v;
		sym_expr_free(e);
	}
	return total;
}

/* The planner's search is bounded (A* under a lower bound of the bytes
 * still to receive, cut at the cost of the always-valid fallback plan):
 * on random layout pairs over meshes of up to six axes (8 to 64 ranks,
 * one node or two with slower links between them) its plan costs the
 * same as the plain shortest-path search's, or less where that one gave
 * up on too many states and fell back. */
static void
test_bounded_search(void **state)
{
	static const int64_t ranks[] = { 8, 12, 16, 32, 64 };
	struct sim sim;
	sym_topology *two;
	size_t cases = getenv("SYMSHARD_EXEC_LIGHT") ? 500 : 3000;
	size_t equal = 0, better = 0, steps = 0;

	(void)state;
	memset(&sim, 0, sizeof(sim));
	sim.ctx = sym_ctx_new();
	sim.seed = 777u;
	two = sym_topology_new(sim.ctx, 4, 0, 0, 0, 0);
	assert_non_null(two);
	for (size_t i = 0; i < cases; i++) {
		sym_expr *dims[MAX_DIMS];
		sym_layout *la, *lb;
		sym_shape *shape;
		sym_redist *r0, *r1;
		sym_mesh *m;
		uint32_t pa, pb;
		int64_t f0, f1;

		sim.n_ranks = ranks[rnd(&sim, 5)];
		m = random_mesh(&sim, sim.n_ranks, NULL);
		assert_non_null(m);
		sim.dims = 1 + (size_t)rnd(&sim, MAX_DIMS);
		for (size_t d = 0; d < sim.dims; d++)
			dims[d] = sym_expr_const(sim.ctx,
			    sim.n_ranks * (1 + rnd(&sim, 3)));
		shape = sym_shape_new(sim.ctx, SYM_DT_F32, sim.dims, dims);
		for (size_t d = 0; d < sim.dims; d++)
			sym_expr_free(dims[d]);
		la = random_layout(&sim, m, ~UINT32_C(0), &pa);
		lb = random_layout(&sim, m, pa, &pb);
		assert_non_null(la);
		assert_non_null(lb);
		assert_int_equal(sym_ctx_set_option(sim.ctx,
		                     SYM_CTX_OPT_REDIST_BOUND, 0),
		    0);
		r0 = sym_redist_plan(la, lb, shape, i % 2 ? two : NULL);
		assert_int_equal(sym_ctx_set_option(sim.ctx,
		                     SYM_CTX_OPT_REDIST_BOUND, 1),
		    0);
		r1 = sym_redist_plan(la, lb, shape, i % 2 ? two : NULL);
		assert_non_null(r0);
		assert_non_null(r1);
		f0 = plan_fs(r0);
		f1 = plan_fs(r1);
		if (f1 > f0)
			fail_msg("the bounded search costs %lld fs, the plain "
			         "one %lld fs: %s %s -> %s",
			    (long long)f1, (long long)f0, sym_mesh_to_str(m),
			    sym_layout_to_str(la), sym_layout_to_str(lb));
		equal += f1 == f0;
		better += f1 < f0;
		steps += sym_redist_n_steps(r1);
		sym_redist_free(r0);
		sym_redist_free(r1);
		sym_layout_free(la);
		sym_layout_free(lb);
		sym_shape_free(shape);
		sym_mesh_free(m);
	}
	printf("# bounded search: %zu cases, %zu equal, %zu cheaper (the "
	       "plain search gave up), %zu steps\n",
	    cases, equal, better, steps);
	assert_int_equal(equal + better, cases);
	assert_true(steps > cases / 2);
	sym_topology_free(two);
	tl_ctx_free(sim.ctx);
}

/* Return 1 when the prover shows that every dimension of "shape" divides
 * by its number of blocks under "l" (of "ctx"). */
static int
divides(sym_ctx *ctx, const sym_layout *l, const sym_shape *shape)
{
	for (size_t d = 0; d < sym_layout_ndim(l); d++) {
		const sym_expr *e = sym_shape_dim(shape, d);
		int64_t k = sym_layout_dim_splits(l, d);

		if (k > 1 && sym_prove_divisible(ctx, e, k, NULL) != SYM_TRUE)
			return 0;
	}
	return 1;
}

/* A layout on the way of a redistribution never cuts a dimension into a
 * number of blocks some admissible size does not divide: with b a
 * multiple of 4 on 8 devices, moving a 4-way split of dimension 0 to an
 * 8-way split of dimension 1 must not slice dimension 0 8 ways first
 * (the cheaper order, which b = 4 cannot take). Then random layouts of
 * random symbolic shapes, every step checked by the prover. */
static void
test_admissible_steps(void **state)
{
	static const char *const names[] = { "a", "r" };
	static const int64_t sizes[] = { 4, 2 };
	sym_ctx *ctx = sym_ctx_new();
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	struct sym_symbol *c[4];
	sym_expr *d[MAX_DIMS];
	sym_shape *shape;
	sym_mesh *m;
	sym_redist *r;
	struct sim sim;
	size_t cases = 0, steps = 0;

	(void)state;
	for (int i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "c%d", i);
		info.divisor = (int64_t)1 << i;
		c[i] = sym_symbol_new(ctx, name, &info, NULL);
		assert_non_null(c[i]);
	}
	d[0] = sym_expr_symbol(c[2]);
	d[1] = sym_expr_const(ctx, 512);
	shape = sym_shape_new(ctx, SYM_DT_F32, 2, d);
	sym_expr_free(d[0]);
	sym_expr_free(d[1]);
	m = mesh(ctx, 2, sizes, names);
	r = plan(m, "(a, None)", m, "(None, (a, r))", shape, NULL, NULL);
	assert_int_equal(sym_redist_n_steps(r), 2);
	assert_int_equal(sym_redist_step_kind(r, 0), SYM_REDIST_ALL_TO_ALL);
	assert_int_equal(sym_redist_step_kind(r, 1), SYM_REDIST_SLICE);
	for (size_t i = 0; i < sym_redist_n_steps(r); i++)
		assert_true(divides(ctx, sym_redist_step_layout(r, i), shape));
	sym_redist_free(r);
	sym_shape_free(shape);
	sym_mesh_free(m);

	memset(&sim, 0, sizeof(sim));
	sim.ctx = ctx;
	sim.seed = 4242u;
	for (int it = 0; it < 3000; it++) {
		sym_layout *la, *lb;
		uint32_t pa, pb;

		m = random_mesh(&sim, 8, NULL);
		assert_non_null(m);
		sim.dims = 1 + (size_t)rnd(&sim, MAX_DIMS);
		for (size_t k = 0; k < sim.dims; k++) {
			int64_t f = 1 + rnd(&sim, 3);

			d[k] = rnd(&sim, 4) == 0
			    ? sym_expr_const(ctx, 8 * f)
			    : sym_expr_mul_si(sym_expr_symbol(c[rnd(&sim, 4)]),
			          f);
		}
		shape = sym_shape_new(ctx, SYM_DT_F32, sim.dims, d);
		for (size_t k = 0; k < sim.dims; k++)
			sym_expr_free(d[k]);
		la = random_layout(&sim, m, ~UINT32_C(0), &pa);
		lb = random_layout(&sim, m, pa, &pb);
		if (divides(ctx, la, shape) && divides(ctx, lb, shape)) {
			r = sym_redist_plan(la, lb, shape, NULL);
			if (!r)
				fail_msg("no plan: %s",
				    sym_ctx_last_message(ctx));
			for (size_t i = 0; i < sym_redist_n_steps(r); i++)
				if (!divides(ctx, sym_redist_step_layout(r, i),
				        shape))
					fail_msg("step %zu of %s -> %s on %s "
					         "cuts unevenly:\n%s",
					    i, sym_layout_to_str(la),
					    sym_layout_to_str(lb),
					    sym_mesh_to_str(m),
					    sym_redist_to_str(r));
			steps += sym_redist_n_steps(r);
			cases++;
			sym_redist_free(r);
		}
		sym_layout_free(la);
		sym_layout_free(lb);
		sym_shape_free(shape);
		sym_mesh_free(m);
	}
	assert_true(cases > 500);
	assert_true(steps > cases);
	printf("# admissible steps: %zu cases, %zu steps\n", cases, steps);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_standard),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_meshes),
		cmocka_unit_test(test_plan_errors),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_rank_table),
		cmocka_unit_test(test_property),
		cmocka_unit_test(test_admissible_steps),
		cmocka_unit_test(test_bounded_search),
	};

	return cmocka_run_group_tests_name("redist", tests, NULL, NULL);
}
