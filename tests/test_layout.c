/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of device meshes and tensor layouts: construction and every
 * validation error, rank coordinates, MindSpore's documented example,
 * tensor maps, standard forms, printing and parsing, symbolic local
 * shapes and offsets, and a property test that the blocks of random
 * layouts tile their tensor exactly once per replica.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

#include "testlib.h"

/* Return the mesh (dp=2, sp=2, mp=2) of "ctx". */
static sym_mesh *
mesh_222(sym_ctx *ctx)
{
	static const int64_t size[] = { 2, 2, 2 };
	static const char *const name[] = { "dp", "sp", "mp" };
	sym_mesh *m = sym_mesh_new(ctx, 3, size, name, 0, NULL);

	assert_non_null(m);
	return m;
}

/* Check that the string "s" (taken) is "want". */
static void
check_str(char *s, const char *want)
{
	assert_non_null(s);
	assert_string_equal(s, want);
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

/* Check that parsing "text" over "m" of "ctx" gives a layout that prints
 * as "want". */
static void
check_parse(sym_ctx *ctx, sym_mesh *m, const char *text, const char *want)
{
	sym_layout *l = sym_layout_parse(m, text, NULL);

	if (!l)
		fail_msg("'%s' does not parse: %s", text,
		    sym_ctx_last_message(ctx));
	check_str(sym_layout_to_str(l), want);
	sym_layout_free(l);
}

/* Check a mesh's accessors, names, printing, copies and equality. */
static void
test_mesh_new(void **state)
{
	static const int64_t size[] = { 2, 2, 2 };
	static const int64_t rev[] = { 7, 6, 5, 4, 3, 2, 1, 0 };
	static const int64_t id[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const char *const other[] = { "dp", "sp", "tp" };
	static const char *const some[] = { NULL, "x", NULL };
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m = mesh_222(ctx), *c, *d, *e;

	(void)state;
	assert_int_equal(sym_mesh_n_axes(m), 3);
	assert_int_equal(sym_mesh_n_devices(m), 8);
	assert_int_equal(sym_mesh_axis_size(m, 1), 2);
	assert_int_equal(sym_mesh_axis_size(m, 3), -1);
	assert_string_equal(sym_mesh_axis_name(m, 2), "mp");
	assert_null(sym_mesh_axis_name(m, 3));
	assert_int_equal(sym_mesh_find_axis(m, "sp"), 1);
	assert_int_equal(sym_mesh_find_axis(m, "tp"), SYM_NPOS);
	check_str(sym_mesh_to_str(m), "(dp=2, sp=2, mp=2)");

	c = sym_mesh_copy(m);
	assert_ptr_equal(c, m);
	assert_null(sym_mesh_free(c));
	d = mesh_222(ctx);
	assert_true(sym_mesh_is_equal(m, d));
	sym_mesh_free(d);
	d = sym_mesh_new(ctx, 3, size, other, 0, NULL);
	assert_false(sym_mesh_is_equal(m, d));
	sym_mesh_free(d);
	d = sym_mesh_new(ctx, 3, size, some, 0, NULL);
	check_str(sym_mesh_to_str(d), "(a0=2, x=2, a2=2)");
	sym_mesh_free(d);
	d = sym_mesh_new(ctx, 2, size, NULL, 0, NULL);
	check_str(sym_mesh_to_str(d), "(a0=2, a1=2)");
	assert_false(sym_mesh_is_equal(m, d));
	sym_mesh_free(d);

	d = sym_mesh_new(ctx, 3, size,
	    (const char *const[]){ "dp", "sp", "mp" }, 8, rev);
	assert_non_null(d);
	check_str(sym_mesh_to_str(d),
	    "(dp=2, sp=2, mp=2) ranks [7, 6, 5, 4, 3, 2, 1, 0]");
	assert_false(sym_mesh_is_equal(m, d));
	e = sym_mesh_new(ctx, 3, size,
	    (const char *const[]){ "dp", "sp", "mp" }, 8, id);
	assert_true(sym_mesh_is_equal(m, e));
	check_str(sym_mesh_to_str(e), "(dp=2, sp=2, mp=2)");
	sym_mesh_free(e);
	e = sym_mesh_new(ctx, 3, size,
	    (const char *const[]){ "dp", "sp", "mp" }, 8, rev);
	assert_true(sym_mesh_is_equal(d, e));
	sym_mesh_free(e);
	sym_mesh_free(d);
	sym_mesh_free(m);
	assert_null(sym_mesh_free(NULL));
	tl_ctx_free(ctx);
}

/* Check that every invalid mesh is refused with SYM_ELAYOUT ("state" is
 * unused, as in every test below). */
static void
test_mesh_errors(void **state)
{
	int64_t size[SYM_MESH_MAX_AXES + 1];
	static const int64_t two[] = { 2, 2 };
	static const int64_t bad[] = { 2, 0 };
	static const int64_t neg[] = { -2, 2 };
	static const int64_t huge[] = { INT64_MAX / 2, 4 };
	static const int64_t dup[] = { 0, 1, 1, 3 };
	static const int64_t out[] = { 0, 1, 2, 4 };
	static const int64_t neg_rank[] = { 0, -1, 2, 3 };
	sym_ctx *ctx = sym_ctx_new();

	(void)state;
	for (size_t i = 0; i <= SYM_MESH_MAX_AXES; i++)
		size[i] = 1;
	assert_null(sym_mesh_new(ctx, 0, two, NULL, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "1 to 16 axes, not 0");
	assert_null(sym_mesh_new(ctx, SYM_MESH_MAX_AXES + 1, size, NULL, 0,
	    NULL));
	check_error(ctx, SYM_ELAYOUT, "not 17");
	assert_null(sym_mesh_new(ctx, 2, NULL, NULL, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "axis sizes");
	assert_null(sym_mesh_new(ctx, 2, bad, NULL, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "axis 1 of a mesh has size 0");
	assert_null(sym_mesh_new(ctx, 2, neg, NULL, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "size -2");
	assert_null(sym_mesh_new(ctx, 2, huge, NULL, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "overflows");
	assert_null(sym_mesh_new(ctx, 2, two,
	    (const char *const[]){ "1x", "y" }, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "named '1x'");
	assert_null(sym_mesh_new(ctx, 2, two,
	    (const char *const[]){ "x", "a-b" }, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "named 'a-b'");
	assert_null(sym_mesh_new(ctx, 2, two, (const char *const[]){ "", "y" },
	    0, NULL));
	check_error(ctx, SYM_ELAYOUT, "named ''");
	assert_null(sym_mesh_new(ctx, 2, two,
	    (const char *const[]){ "None", "y" }, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "named 'None'");
	assert_null(sym_mesh_new(ctx, 2, two,
	    (const char *const[]){ "dp", "dp" }, 0, NULL));
	check_error(ctx, SYM_ELAYOUT,
	    "axes 0 and 1 of a mesh are both named "
	    "dp");
	assert_null(sym_mesh_new(ctx, 2, two,
	    (const char *const[]){ NULL, "a0" }, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "both named a0");
	assert_null(sym_mesh_new(ctx, 2, two, NULL, 3, dup));
	check_error(ctx, SYM_ELAYOUT, "4 devices has 3 entries");
	assert_null(sym_mesh_new(ctx, 2, two, NULL, 4, NULL));
	check_error(ctx, SYM_ELAYOUT, "has 0 entries");
	assert_null(sym_mesh_new(ctx, 2, two, NULL, 5, dup));
	check_error(ctx, SYM_ELAYOUT, "4 devices has 5 entries");
	assert_null(sym_mesh_new(ctx, 2, two, NULL, 4, dup));
	check_error(ctx, SYM_ELAYOUT, "rank 1 at position 2 is repeated");
	assert_null(sym_mesh_new(ctx, 2, two, NULL, 4, out));
	check_error(ctx, SYM_ELAYOUT, "rank 4 at position 3 is out of range");
	assert_null(sym_mesh_new(ctx, 2, two, NULL, 4, neg_rank));
	check_error(ctx, SYM_ELAYOUT, "not a permutation of 0 .. 3");
	assert_null(sym_mesh_new(NULL, 2, two, NULL, 0, NULL));
	tl_ctx_free(ctx);
}

/* Check the coordinates of every rank of a mesh of "n" axes of sizes
 * "size" with the rank list "ranks" ("n_ranks" of them): position i of
 * the list is i in mixed radix, last axis fastest, and coordinates map
 * back to the rank. */
static void
check_coords(sym_ctx *ctx, size_t n, const int64_t *size, size_t n_ranks,
    const int64_t *ranks)
{
	sym_mesh *m = sym_mesh_new(ctx, n, size, NULL, n_ranks, ranks);
	int64_t c[SYM_MESH_MAX_AXES];
	int64_t devices = sym_mesh_n_devices(m);

	assert_non_null(m);
	for (int64_t pos = 0; pos < devices; pos++) {
		int64_t r = sym_mesh_rank(m, pos), rest = pos;

		assert_int_equal(r, ranks ? ranks[pos] : pos);
		assert_int_equal(sym_mesh_coords(m, r, c), 0);
		for (size_t i = n; i-- > 0;) {
			assert_int_equal(c[i], rest % size[i]);
			rest /= size[i];
		}
		assert_int_equal(sym_mesh_rank_of(m, c), r);
	}
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_mesh_rank(m, devices), -1);
	assert_int_equal(sym_mesh_rank(m, -1), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	assert_int_equal(sym_mesh_coords(m, -1, c), -1);
	check_error(ctx, SYM_EINVAL, "rank -1 is outside");
	c[0] = size[0];
	assert_int_equal(sym_mesh_rank_of(m, c), -1);
	check_error(ctx, SYM_EINVAL, "outside axis a0");
	sym_mesh_free(m);
}

/* Check rank/coordinate round trips on several meshes, with and without
 * rank lists, and the layout example's mesh (HACKING.md section 8): rank 5 of (dp=2, sp=2, mp=2) is
 * (dp=1, sp=0, mp=1). */
static void
test_mesh_coords(void **state)
{
	static const int64_t s222[] = { 2, 2, 2 }, s34[] = { 3, 4 };
	static const int64_t s1321[] = { 1, 3, 2, 1 }, s5[] = { 5 };
	static const int64_t r12[] = { 11, 3, 7, 0, 1, 2, 10, 9, 8, 4, 5, 6 };
	static const int64_t r8[] = { 4, 5, 6, 7, 0, 1, 2, 3 };
	static const int64_t r5[] = { 4, 2, 0, 1, 3 };
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m;
	int64_t c[3];

	(void)state;
	check_coords(ctx, 3, s222, 0, NULL);
	check_coords(ctx, 3, s222, 8, r8);
	check_coords(ctx, 2, s34, 0, NULL);
	check_coords(ctx, 2, s34, 12, r12);
	check_coords(ctx, 4, s1321, 0, NULL);
	check_coords(ctx, 1, s5, 5, r5);
	m = mesh_222(ctx);
	assert_int_equal(sym_mesh_coords(m, 5, c), 0);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 1);
	sym_mesh_free(m);
	m = sym_mesh_new(ctx, 3, s222, NULL, 8, r8);
	assert_int_equal(sym_mesh_coords(m, 5, c), 0);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 1);
	sym_mesh_free(m);
	tl_ctx_free(ctx);
}

/* Return the layout over "m" of rank "rank" whose dimension d is split by
 * the axes named in the NULL-terminated list "dims"[d] (NULL: unsplit). */
static sym_layout *
layout_of(sym_mesh *m, size_t rank, const char *const *const *dims)
{
	size_t n[4] = { 0 };
	int ax[4][SYM_MESH_MAX_AXES];
	const int *axp[4];
	sym_layout *l;

	for (size_t d = 0; d < rank; d++) {
		for (size_t i = 0; dims[d] && dims[d][i]; i++) {
			ax[d][i] = (int)sym_mesh_find_axis(m, dims[d][i]);
			n[d]++;
		}
		axp[d] = ax[d];
	}
	l = sym_layout_new(m, rank, n, axp, 0, NULL);
	assert_non_null(l);
	return l;
}

/* MindSpore's documented example: with Layout((2, 2, 2), ("dp", "sp",
 * "mp")), the tensor [[a0 .. a3], [a4 .. a7]] laid out as ("mp", ("sp",
 * "dp")) puts row 0, a0 a1 a2 a3, on ranks 0, 4, 2, 6 and row 1 on 1, 5,
 * 3, 7: rank r = (dp, sp, mp) holds row mp and column 2 sp + dp. */
static void
test_mindspore_example(void **state)
{
	static const int64_t holder[8] = { 0, 4, 2, 6, 1, 5, 3, 7 };
	static const char *const d0[] = { "mp", NULL };
	static const char *const d1[] = { "sp", "dp", NULL };
	static const char *const *const dims[] = { d0, d1 };
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m = mesh_222(ctx);
	sym_layout *l = layout_of(m, 2, dims), *p;
	int count[8] = { 0 }, map[4];
	sym_expr *rows = sym_expr_const(ctx, 2), *cols = sym_expr_const(ctx, 4);

	(void)state;
	assert_int_equal(sym_layout_dim_splits(l, 0), 2);
	assert_int_equal(sym_layout_dim_splits(l, 1), 4);
	for (int64_t r = 0; r < 8; r++) {
		int64_t b0 = sym_layout_block(l, r, 0);
		int64_t b1 = sym_layout_block(l, r, 1);
		int64_t elem = b0 * 4 + b1;

		assert_int_equal(b0, r & 1);
		assert_int_equal(b1, 2 * ((r >> 1) & 1) + (r >> 2));
		assert_int_equal(holder[elem], r);
		count[elem]++;
	}
	for (int i = 0; i < 8; i++)
		assert_int_equal(count[i], 1);
	for (int64_t r = 0; r < 8; r++) {
		sym_expr *o0 = sym_layout_offset(l, rows, 0, r);
		sym_expr *o1 = sym_layout_offset(l, cols, 1, r);
		int64_t v0, v1;

		assert_int_equal(sym_expr_get_const(o0, &v0), 0);
		assert_int_equal(sym_expr_get_const(o1, &v1), 0);
		assert_int_equal(holder[v0 * 4 + v1], r);
		sym_expr_free(o0);
		sym_expr_free(o1);
	}
	assert_int_equal(sym_layout_tensor_map(l, 0, 4, map), 1);
	assert_int_equal(map[0], 0);
	assert_int_equal(sym_layout_tensor_map(l, 1, 4, map), 2);
	assert_int_equal(map[0], 1);
	assert_int_equal(map[1], 2);
	check_str(sym_layout_to_str(l), "(mp, (sp, dp))");
	p = sym_layout_parse(m, "m(mp, (sp, dp))", NULL);
	assert_non_null(p);
	assert_true(sym_layout_is_equal(l, p));
	sym_layout_free(p);
	sym_expr_free(rows);
	sym_expr_free(cols);
	sym_layout_free(l);
	sym_mesh_free(m);
	tl_ctx_free(ctx);
}

/* Check the accessors of a layout and MindSpore's tensor maps. */
static void
test_accessors(void **state)
{
	static const int64_t size[] = { 2, 4, 3, 1 };
	static const char *const name[] = { "dp", "sp", "mp", "one" };
	static const int d0[] = { 2, 0 }, d2[] = { 1 }, part[] = { 3 };
	static const int *const axes[] = { d0, NULL, d2 };
	static const size_t n[] = { 2, 0, 1 };
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m = sym_mesh_new(ctx, 4, size, name, 0, NULL);
	sym_layout *l = sym_layout_new(m, 3, n, axes, 1, part), *c;
	int map[4] = { 9, 9, 9, 9 };

	(void)state;
	assert_non_null(l);
	assert_ptr_equal(sym_layout_mesh(l), m);
	assert_int_equal(sym_layout_ndim(l), 3);
	assert_int_equal(sym_layout_dim_n_axes(l, 0), 2);
	assert_int_equal(sym_layout_dim_n_axes(l, 1), 0);
	assert_int_equal(sym_layout_dim_n_axes(l, 3), 0);
	assert_int_equal(sym_layout_dim_axis(l, 0, 0), 2);
	assert_int_equal(sym_layout_dim_axis(l, 0, 1), 0);
	assert_int_equal(sym_layout_dim_axis(l, 0, 2), -1);
	assert_int_equal(sym_layout_dim_splits(l, 0), 6);
	assert_int_equal(sym_layout_dim_splits(l, 1), 1);
	assert_int_equal(sym_layout_dim_splits(l, 2), 4);
	assert_int_equal(sym_layout_dim_splits(l, 3), -1);
	assert_int_equal(sym_layout_axis_dim(l, 0), 0);
	assert_int_equal(sym_layout_axis_dim(l, 1), 2);
	assert_int_equal(sym_layout_axis_dim(l, 2), 0);
	assert_int_equal(sym_layout_axis_dim(l, 3), -2);
	assert_int_equal(sym_layout_axis_dim(l, 4), -1);
	assert_true(sym_layout_is_partial(l, 3));
	assert_false(sym_layout_is_partial(l, 2));
	assert_int_equal(sym_layout_tensor_map(l, 0, 4, map), 2);
	assert_int_equal(map[0], 1);
	assert_int_equal(map[1], 3);
	assert_int_equal(sym_layout_tensor_map(l, 0, 1, map), 2);
	assert_int_equal(sym_layout_tensor_map(l, 1, 4, map), 1);
	assert_int_equal(map[0], -1);
	assert_int_equal(sym_layout_tensor_map(l, 2, 4, map), 1);
	assert_int_equal(map[0], 2);
	assert_int_equal(sym_layout_tensor_map(l, 3, 4, map), -1);
	check_str(sym_layout_to_str(l), "((mp, dp), None, sp) partial(one)");
	c = sym_layout_copy(l);
	assert_ptr_equal(c, l);
	sym_layout_free(c);
	/* The layout keeps its mesh alive. */
	sym_mesh_free(m);
	assert_int_equal(sym_mesh_n_devices(sym_layout_mesh(l)), 24);
	assert_int_equal(sym_layout_block(l, 23, 0), 5);
	assert_int_equal(sym_layout_block(l, 23, 2), 3);
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_layout_block(l, 23, 3), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	assert_int_equal(sym_layout_block(l, 24, 0), -1);
	check_error(ctx, SYM_EINVAL, "rank 24");
	sym_layout_free(l);
	assert_null(sym_layout_free(NULL));
	tl_ctx_free(ctx);
}

/* Check that invalid layouts are refused with SYM_ELAYOUT messages that
 * name the axis. */
static void
test_layout_errors(void **state)
{
	static const int a_mp[] = { 2 }, a_dp_dp[] = { 0, 0 }, a_dp[] = { 0 };
	static const int a_bad[] = { 3 }, a_neg[] = { -1 };
	static const int *const two_mp[] = { a_mp, a_mp };
	static const int *const dpdp[] = { a_dp_dp };
	static const int *const bad[] = { a_bad };
	static const int *const neg[] = { a_neg };
	static const int *const dp[] = { a_dp };
	static const size_t one_one[] = { 1, 1 }, two[] = { 2 }, one[] = { 1 };
	static const size_t many[] = { 4 };
	static const int p_dp[] = { 0 }, p_twice[] = { 1, 1 }, p_bad[] = { 5 };
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m = mesh_222(ctx);

	(void)state;
	assert_null(sym_layout_new(m, 2, one_one, two_mp, 0, NULL));
	check_error(ctx, SYM_ELAYOUT,
	    "axis mp splits dimension 0 and dimension 1");
	assert_null(sym_layout_new(m, 1, two, dpdp, 0, NULL));
	check_error(ctx, SYM_ELAYOUT,
	    "axis dp splits dimension 0 and dimension 0");
	assert_null(sym_layout_new(m, 1, one, bad, 0, NULL));
	check_error(ctx, SYM_ELAYOUT,
	    "split by axis 3, not an axis of a "
	    "mesh of 3 axes");
	assert_null(sym_layout_new(m, 1, one, neg, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "axis -1");
	assert_null(sym_layout_new(m, 1, many, dp, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "lists 4 axes of a mesh of 3");
	assert_null(sym_layout_new(m, 1, one, NULL, 0, NULL));
	check_error(ctx, SYM_ELAYOUT, "lists 1 axes");
	assert_null(sym_layout_new(m, 1, one, dp, 1, p_dp));
	check_error(ctx, SYM_ELAYOUT,
	    "axis dp splits dimension 0 of a layout and is also partial");
	assert_null(sym_layout_new(m, 1, one, dp, 2, p_twice));
	check_error(ctx, SYM_ELAYOUT, "axis sp is listed twice as partial");
	assert_null(sym_layout_new(m, 1, one, dp, 1, p_bad));
	check_error(ctx, SYM_ELAYOUT, "partial axis 5");
	assert_null(sym_layout_new(NULL, 1, one, dp, 0, NULL));
	sym_mesh_free(m);
	tl_ctx_free(ctx);
}

/* Check standard forms: axes of size 1 are dropped, so layouts written
 * with and without them are equal; equality also needs equal meshes. */
static void
test_standard(void **state)
{
	static const int64_t size[] = { 2, 1, 4 };
	static const char *const name[] = { "dp", "one", "mp" };
	static const int64_t size2[] = { 2, 2, 4 };
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m = sym_mesh_new(ctx, 3, size, name, 0, NULL);
	sym_mesh *m2 = sym_mesh_new(ctx, 3, size2, name, 0, NULL);
	sym_layout *a = sym_layout_parse(m, "((dp, one), mp)", NULL);
	sym_layout *b = sym_layout_parse(m, "(dp, mp)", NULL);
	sym_layout *c = sym_layout_parse(m, "((one, dp), mp)", NULL);
	sym_layout *d = sym_layout_parse(m, "(mp, dp)", NULL);
	sym_layout *e = sym_layout_parse(m2, "(dp, mp)", NULL);
	sym_layout *f = sym_layout_parse(m, "(dp, mp, None)", NULL);
	sym_layout *g = sym_layout_parse(m, "(None, mp)", NULL);
	sym_layout *h = sym_layout_parse(m, "(one, mp)", NULL);
	sym_layout *i = sym_layout_parse(m, "(dp, mp) partial(one)", NULL);
	sym_layout *j = sym_layout_parse(m, "(dp, None) partial(mp)", NULL);
	sym_layout *k = sym_layout_parse(m, "(dp, None)", NULL);
	sym_layout *s;

	(void)state;
	assert_non_null(a);
	assert_non_null(c);
	assert_non_null(h);
	assert_true(sym_layout_is_equal(a, b));
	assert_true(sym_layout_is_equal(b, a));
	assert_true(sym_layout_is_equal(a, c));
	assert_true(sym_layout_is_equal(g, h));
	assert_true(sym_layout_is_equal(i, b));
	assert_false(sym_layout_is_equal(j, k));
	assert_false(sym_layout_is_equal(a, d));
	assert_false(sym_layout_is_equal(b, e));
	assert_false(sym_layout_is_equal(b, f));
	assert_false(sym_layout_is_equal(b, g));
	assert_int_equal(sym_layout_dim_splits(a, 0), 2);
	s = sym_layout_standard(c);
	check_str(sym_layout_to_str(c), "((one, dp), mp)");
	check_str(sym_layout_to_str(s), "(dp, mp)");
	assert_true(sym_layout_is_equal(s, c));
	assert_ptr_equal(sym_layout_mesh(s), m);
	sym_layout_free(s);
	s = sym_layout_standard(i);
	check_str(sym_layout_to_str(i), "(dp, mp) partial(one)");
	check_str(sym_layout_to_str(s), "(dp, mp)");
	sym_layout_free(s);
	s = sym_layout_standard(j);
	check_str(sym_layout_to_str(s), "(dp, None) partial(mp)");
	sym_layout_free(s);
	s = sym_layout_standard(h);
	check_str(sym_layout_to_str(s), "(None, mp)");
	sym_layout_free(s);
	sym_layout_free(a);
	sym_layout_free(b);
	sym_layout_free(c);
	sym_layout_free(d);
	sym_layout_free(e);
	sym_layout_free(f);
	sym_layout_free(g);
	sym_layout_free(h);
	sym_layout_free(i);
	sym_layout_free(j);
	sym_layout_free(k);
	sym_mesh_free(m);
	sym_mesh_free(m2);
	tl_ctx_free(ctx);
}

/* Check printing and parsing, replicated layouts and round trips. */
static void
test_parse(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m = mesh_222(ctx);
	sym_layout *l;

	(void)state;
	check_parse(ctx, m, "(mp, (sp, dp))", "(mp, (sp, dp))");
	check_parse(ctx, m, "m(mp, (sp, dp))", "(mp, (sp, dp))");
	check_parse(ctx, m, "  mesh_1 ( mp ,( sp,dp, ) , ) ", "(mp, (sp, dp))");
	check_parse(ctx, m, "(None, mp)", "(None, mp)");
	check_parse(ctx, m, "(mp,)", "(mp)");
	check_parse(ctx, m, "((mp))", "(mp)");
	check_parse(ctx, m, "()", "()");
	check_parse(ctx, m, "(None, None, dp) partial(mp, sp)",
	    "(None, None, dp) partial(sp, mp)");
	check_parse(ctx, m, "(dp)partial (sp,)", "(dp) partial(sp)");
	check_parse(ctx, m, "((dp, sp, mp))", "((dp, sp, mp))");
	l = sym_layout_replicated(m, 3);
	check_str(sym_layout_to_str(l), "(None, None, None)");
	assert_int_equal(sym_layout_dim_splits(l, 2), 1);
	sym_layout_free(l);
	l = sym_layout_replicated(m, 0);
	check_str(sym_layout_to_str(l), "()");
	sym_layout_free(l);
	sym_mesh_free(m);
	tl_ctx_free(ctx);
}

/* Check that parsing "text" over "m" of "ctx" fails with "code" at line
 * "line", column "col" (the text starts at model.sg:3:5) with a message
 * containing "part". */
static void
check_parse_error(sym_ctx *ctx, sym_mesh *m, const char *text, sym_error code,
    int line, int col, const char *part)
{
	sym_loc where = { "model.sg", 3, 5 };
	sym_layout *l = sym_layout_parse(m, text, &where);
	sym_loc at = sym_ctx_last_location(ctx);

	if (l)
		fail_msg("'%s' parses", text);
	assert_non_null(at.file);
	assert_string_equal(at.file, "model.sg");
	assert_int_equal(at.line, line);
	assert_int_equal(at.col, col);
	check_error(ctx, code, part);
}

/* Check the located errors of sym_layout_parse. */
static void
test_parse_errors(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m = mesh_222(ctx);

	(void)state;
	check_parse_error(ctx, m, "", SYM_EPARSE, 3, 5,
	    "expected a mesh name or '(' in layout ''");
	check_parse_error(ctx, m, "(", SYM_EPARSE, 3, 6,
	    "expected an axis name, None or '('");
	check_parse_error(ctx, m, "(mp", SYM_EPARSE, 3, 8,
	    "expected ',' or ')'");
	check_parse_error(ctx, m, "(mp,,)", SYM_EPARSE, 3, 9,
	    "expected an axis name, None or '('");
	check_parse_error(ctx, m, "(())", SYM_EPARSE, 3, 7,
	    "expected an axis name");
	check_parse_error(ctx, m, "((dp sp))", SYM_EPARSE, 3, 10,
	    "expected ',' or ')'");
	check_parse_error(ctx, m, "(xx)", SYM_ELAYOUT, 3, 6,
	    "unknown axis 'xx' of mesh (dp=2, sp=2, mp=2)");
	check_parse_error(ctx, m, "(mp, mp)", SYM_ELAYOUT, 3, 10,
	    "axis mp splits dimension 0 and dimension 1");
	check_parse_error(ctx, m, "((dp, sp, dp))", SYM_ELAYOUT, 3, 15,
	    "axis dp splits dimension 0 and dimension 0");
	check_parse_error(ctx, m, "1m(mp)", SYM_EPARSE, 3, 5,
	    "expected a mesh name or '('");
	check_parse_error(ctx, m, "m mp", SYM_EPARSE, 3, 7,
	    "expected '(' after the mesh name");
	check_parse_error(ctx, m, "(mp) junk", SYM_EPARSE, 3, 10,
	    "expected the end of the layout");
	check_parse_error(ctx, m, "(mp) partial(mp)", SYM_ELAYOUT, 3, 18,
	    "axis mp both splits a dimension and is partial");
	check_parse_error(ctx, m, "(None) partial(dp, dp)", SYM_ELAYOUT, 3, 24,
	    "axis dp both splits a dimension and is partial");
	check_parse_error(ctx, m, "(mp) partial()", SYM_EPARSE, 3, 18,
	    "expected an axis name");
	check_parse_error(ctx, m, "(mp) partial mp", SYM_EPARSE, 3, 18,
	    "expected '('");
	check_parse_error(ctx, m, "(dp,\n  zz)", SYM_ELAYOUT, 4, 3,
	    "unknown axis 'zz'");
	assert_null(sym_layout_parse(m, NULL, NULL));
	check_error(ctx, SYM_EINVAL, "no layout text");
	assert_null(sym_layout_parse(NULL, "(dp)", NULL));
	sym_mesh_free(m);
	tl_ctx_free(ctx);
}

/* Check that the expression "e" (taken) prints as "want". */
static void
check_expr(sym_expr *e, const char *want)
{
	assert_non_null(e);
	check_str(sym_expr_to_str(e), want);
	sym_expr_free(e);
}

/* Check symbolic local extents, offsets and local shapes. */
static void
test_local(void **state)
{
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	sym_ctx *ctx = sym_ctx_new(), *other = sym_ctx_new();
	sym_mesh *m = mesh_222(ctx);
	sym_layout *l = sym_layout_parse(m, "((dp, sp), mp)", NULL);
	sym_expr *b, *h, *dims[2], *alien;
	sym_shape *g, *s, *g3;

	(void)state;
	assert_non_null(l);
	assert_non_null(sym_symbol_new(ctx, "b", &info, NULL));
	assert_non_null(sym_symbol_new(ctx, "h", &info, NULL));
	b = sym_expr_parse(ctx, "b", NULL);
	h = sym_expr_parse(ctx, "h", NULL);
	check_expr(sym_layout_local_dim(l, b, 0), "b floordiv 4");
	check_expr(sym_layout_local_dim(l, h, 1), "h floordiv 2");
	/* Rank 6 is (dp=1, sp=1, mp=0): block 3 of 4, block 0 of 2. */
	check_expr(sym_layout_offset(l, b, 0, 6), "3*(b floordiv 4)");
	check_expr(sym_layout_offset(l, h, 1, 6), "0");
	/* Rank 5 is (dp=1, sp=0, mp=1): block 2 of 4, block 1 of 2. */
	check_expr(sym_layout_offset(l, b, 0, 5), "2*(b floordiv 4)");
	check_expr(sym_layout_offset(l, h, 1, 5), "h floordiv 2");
	dims[0] = b;
	dims[1] = h;
	g = sym_shape_new(ctx, SYM_DT_F32, 2, dims);
	s = sym_layout_local_shape(l, g);
	assert_non_null(s);
	assert_int_equal(sym_shape_dtype(s), SYM_DT_F32);
	assert_int_equal(sym_shape_ndim(s), 2);
	check_str(sym_expr_to_str(sym_shape_dim(s, 0)), "b floordiv 4");
	check_str(sym_expr_to_str(sym_shape_dim(s, 1)), "h floordiv 2");
	sym_shape_free(s);

	assert_null(sym_layout_local_dim(l, b, 2));
	check_error(ctx, SYM_EINVAL, "dimension 2 is outside");
	assert_null(sym_layout_offset(l, b, 0, 8));
	check_error(ctx, SYM_EINVAL, "rank 8");
	alien = sym_expr_const(other, 8);
	assert_null(sym_layout_local_dim(l, alien, 0));
	check_error(ctx, SYM_EINVAL, "from another context");
	assert_null(sym_layout_local_dim(l, NULL, 0));
	check_error(ctx, SYM_EINVAL, "missing");
	sym_expr_free(alien);
	dims[1] = dims[0];
	g3 = sym_shape_new(ctx, SYM_DT_F32, 1, dims);
	assert_null(sym_layout_local_shape(l, g3));
	check_error(ctx, SYM_ELAYOUT,
	    "a layout of rank 2 cannot cut a shape of rank 1");
	sym_shape_free(g3);
	sym_shape_free(g);
	sym_expr_free(b);
	sym_expr_free(h);
	sym_layout_free(l);
	sym_mesh_free(m);
	tl_ctx_free(ctx);
	tl_ctx_free(other);
}

/* Check that meshes and layouts the caller forgets are counted live and
 * released by sym_ctx_free (valgrind checks the release). */
static void
test_forgotten(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m = mesh_222(ctx);
	sym_layout *l = sym_layout_parse(m, "(dp, mp)", NULL);
	sym_layout *k = sym_layout_parse(m, "(sp)", NULL);

	(void)state;
	assert_non_null(l);
	assert_non_null(sym_layout_copy(l));
	assert_int_equal(sym_ctx_live_objects(ctx), 4);
	sym_mesh_free(m);
	sym_layout_free(k);
	assert_int_equal(sym_ctx_live_objects(ctx), 2);
	sym_ctx_free(ctx);
}

/* A small deterministic random generator for the property test. */
struct rng {
	uint64_t s;
};

/* Return a pseudo-random number in 0 .. "n"-1 from "r". */
static int64_t
rnd(struct rng *r, int64_t n)
{
	r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int64_t)((r->s >> 33) % (uint64_t)n);
}

/* Return a random mesh of "ctx" from "r": 1 to 4 axes of sizes 1 to 4,
 * half the time with a shuffled rank list. */
static sym_mesh *
random_mesh(sym_ctx *ctx, struct rng *r)
{
	int64_t size[4], ranks[256], n = 1;
	size_t n_axes = 1 + (size_t)rnd(r, 4);
	sym_mesh *m;

	for (size_t i = 0; i < n_axes; i++) {
		size[i] = 1 + rnd(r, 4);
		n *= size[i];
	}
	for (int64_t i = 0; i < n; i++)
		ranks[i] = i;
	for (int64_t i = n - 1; i > 0; i--) {
		int64_t j = rnd(r, i + 1), t = ranks[i];

		ranks[i] = ranks[j];
		ranks[j] = t;
	}
	m = sym_mesh_new(ctx, n_axes, size, NULL, rnd(r, 2) ? (size_t)n : 0,
	    ranks);
	assert_non_null(m);
	return m;
}

/* Return a random layout over "m" of rank "rank" from "r": each axis, in
 * a random order, splits a random dimension, is partial or is unused. */
static sym_layout *
random_layout(sym_mesh *m, size_t rank, struct rng *r)
{
	size_t n_axes = sym_mesh_n_axes(m), n[3] = { 0 }, n_partial = 0;
	int order[4], ax[3][4], partial[4];
	const int *axp[3] = { ax[0], ax[1], ax[2] };
	sym_layout *l;

	for (size_t i = 0; i < n_axes; i++)
		order[i] = (int)i;
	for (size_t i = n_axes; i-- > 1;) {
		size_t j = (size_t)rnd(r, (int64_t)i + 1);
		int t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n_axes; i++) {
		int64_t what = rnd(r, 4);

		if (what == 0)
			continue;
		if (what == 1) {
			partial[n_partial++] = order[i];
			continue;
		}
		size_t d = (size_t)rnd(r, (int64_t)rank);
		ax[d][n[d]++] = order[i];
	}
	l = sym_layout_new(m, rank, n, axp, n_partial, partial);
	assert_non_null(l);
	return l;
}

/* Return the constant value of "e" (taken). */
static int64_t
value_of(sym_expr *e)
{
	int64_t v;

	assert_non_null(e);
	assert_int_equal(sym_expr_get_const(e, &v), 0);
	sym_expr_free(e);
	return v;
}

/* Add 1 to the count in "cover" of every element of the block of a
 * tensor of "rank" dimensions "dim" starting at "off" of extent "ext". */
static void
cover_block(int *cover, size_t rank, const int64_t *dim, const int64_t *off,
    const int64_t *ext)
{
	int64_t idx[3] = { 0, 0, 0 };

	for (;;) {
		int64_t lin = 0;
		size_t d;

		for (d = 0; d < rank; d++)
			lin = lin * dim[d] + off[d] + idx[d];
		cover[lin]++;
		for (d = rank; d-- > 0;) {
			if (++idx[d] < ext[d])
				break;
			idx[d] = 0;
		}
		if (d == (size_t)-1)
			return;
	}
}

/* Check one random case of "r" on "ctx": over all ranks, the blocks of a
 * random layout of a random static shape cover every element exactly
 * "replicas" times for each combination of partial coordinates. Also
 * check that the layout prints and parses back to itself and equals its
 * standard form. */
static void
property_case(sym_ctx *ctx, struct rng *r)
{
	sym_mesh *m = random_mesh(ctx, r);
	size_t rank = 1 + (size_t)rnd(r, 3), n_axes = sym_mesh_n_axes(m);
	sym_layout *l = random_layout(m, rank, r), *p, *s;
	int64_t dim[3], ext[3], off[3], c[4], elems = 1, n_part = 1;
	int64_t replicas = 1;
	sym_expr *g[3];
	int *cover;
	char *text;

	for (size_t a = 0; a < n_axes; a++) {
		int d = sym_layout_axis_dim(l, a);

		if (d == -1)
			replicas *= sym_mesh_axis_size(m, a);
		else if (d == -2)
			n_part *= sym_mesh_axis_size(m, a);
	}
	for (size_t d = 0; d < rank; d++) {
		dim[d] = sym_layout_dim_splits(l, d) * (1 + rnd(r, 3));
		elems *= dim[d];
		g[d] = sym_expr_const(ctx, dim[d]);
		ext[d] = value_of(sym_layout_local_dim(l, g[d], d));
		assert_int_equal(ext[d] * sym_layout_dim_splits(l, d), dim[d]);
	}
	cover = calloc((size_t)(elems * n_part), sizeof(*cover));
	assert_non_null(cover);
	for (int64_t rk = 0; rk < sym_mesh_n_devices(m); rk++) {
		int64_t part = 0;

		assert_int_equal(sym_mesh_coords(m, rk, c), 0);
		for (size_t a = 0; a < n_axes; a++)
			if (sym_layout_is_partial(l, a))
				part = part * sym_mesh_axis_size(m, a) + c[a];
		for (size_t d = 0; d < rank; d++) {
			off[d] = value_of(sym_layout_offset(l, g[d], d, rk));
			assert_int_equal(off[d],
			    sym_layout_block(l, rk, d) * ext[d]);
			assert_true(off[d] + ext[d] <= dim[d]);
		}
		cover_block(cover + part * elems, rank, dim, off, ext);
	}
	for (int64_t i = 0; i < elems * n_part; i++)
		if (cover[i] != replicas) {
			text = sym_layout_to_str(l);
			fail_msg("layout %s: element %lld covered %d times, "
			         "not %lld",
			    text, (long long)i, cover[i], (long long)replicas);
		}
	free(cover);
	for (size_t d = 0; d < rank; d++)
		sym_expr_free(g[d]);

	text = sym_layout_to_str(l);
	p = sym_layout_parse(m, text, NULL);
	assert_non_null(p);
	assert_true(sym_layout_is_equal(l, p));
	check_str(sym_layout_to_str(p), text);
	free(text);
	s = sym_layout_standard(l);
	assert_true(sym_layout_is_equal(l, s));
	for (size_t d = 0; d < rank; d++)
		assert_int_equal(sym_layout_dim_splits(s, d),
		    sym_layout_dim_splits(l, d));
	sym_layout_free(s);
	sym_layout_free(p);
	sym_layout_free(l);
	sym_mesh_free(m);
}

/* The property test: a few thousand random meshes, layouts and shapes. */
static void
test_property_tiling(void **state)
{
	struct rng r = { 20261122 };
	sym_ctx *ctx = sym_ctx_new();

	(void)state;
	for (int i = 0; i < 3000; i++)
		property_case(ctx, &r);
	tl_ctx_free(ctx);
}

/* Run the tests of this program; return the number of failures. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mesh_new),
		cmocka_unit_test(test_mesh_errors),
		cmocka_unit_test(test_mesh_coords),
		cmocka_unit_test(test_mindspore_example),
		cmocka_unit_test(test_accessors),
		cmocka_unit_test(test_layout_errors),
		cmocka_unit_test(test_standard),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_forgotten),
		cmocka_unit_test(test_property_tiling),
	};

	return cmocka_run_group_tests_name("layout", tests, NULL, NULL);
}
