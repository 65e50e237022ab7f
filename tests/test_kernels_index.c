/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the kernels of reduce_min, reduce_prod, argmax, argmin
 * (reduce family), expand, tile, pad (layout family), tril, triu and
 * cumsum (index family) and reduce_prod_grad: values recorded from
 * PyTorch (tests/gen_kernels_index.py, a development tool that make
 * check does not run) in f32 and f64, and on integers and bool where
 * the operators take them; tril and triu on blocks at global offsets;
 * and the checks the kernels make of their tensors.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

#include "kern/kernel.h"
#include "shape/shape_private.h"

#include "kerntest.h"
#include "testlib.h"

/* The input of most cases, [2, 3, 4], with ties and zeros. */
static const double X[] = { 3, -1, 0, 2, 5, 5, -2, 1, 0, 0, 4, -3, 1.5, 2, -0.5,
	7, 2, 2, 0, -1, 6, -4, 3, 1 };
static const int64_t XD[] = { 2, 3, 4 };

/* Expected values, printed by tests/gen_kernels_index.py. */
static const double want_min_1[] = { 0.0, -1.0, -2.0, -3.0, 1.5, -4.0, -0.5,
	-1.0 };
static const double want_min_02k[] = { -1.0, -2.0, -4.0 };
static const double want_prod_2[] = { -0.0, -50.0, -0.0, -10.5, -0.0, -72.0 };
static const double want_prod_all[] = { 0.0 };
static const double want_argmax_1[] = { 1.0, 1.0, 2.0, 0.0, 2.0, 0.0, 2.0,
	0.0 };
static const double want_argmin_2k[] = { 1.0, 2.0, 3.0, 2.0, 3.0, 1.0 };
static const double want_cumsum_1[] = { 3.0, -1.0, 0.0, 2.0, 8.0, 4.0, -2.0,
	3.0, 8.0, 4.0, 2.0, 0.0, 1.5, 2.0, -0.5, 7.0, 3.5, 4.0, -0.5, 6.0, 9.5,
	0.0, 2.5, 7.0 };
static const double want_cumsum_2r[] = { 4.0, 1.0, 2.0, 2.0, 9.0, 4.0, -1.0,
	1.0, 1.0, 1.0, 1.0, -3.0, 10.0, 8.5, 6.5, 7.0, 3.0, 1.0, -1.0, -1.0,
	6.0, 0.0, 4.0, 1.0 };
static const double want_cumsum_0re[] = { 1.5, 2.0, -0.5, 7.0, 2.0, 2.0, 0.0,
	-1.0, 6.0, -4.0, 3.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
	0.0, 0.0, 0.0 };
static const double want_tril_0[] = { 3.0, 0.0, 0.0, 0.0, 5.0, 5.0, 0.0, 0.0,
	0.0, 0.0, 4.0, 0.0, 1.5, 0.0, 0.0, 0.0, 2.0, 2.0, 0.0, 0.0, 6.0, -4.0,
	3.0, 0.0 };
static const double want_tril_m1[] = { 0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0,
	0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 6.0, -4.0,
	0.0, 0.0 };
static const double want_triu_1[] = { 0.0, -1.0, 0.0, 2.0, 0.0, 0.0, -2.0, 1.0,
	0.0, 0.0, 0.0, -3.0, 0.0, 2.0, -0.5, 7.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0,
	0.0, 1.0 };
static const double want_triu_m2[] = { 3.0, -1.0, 0.0, 2.0, 5.0, 5.0, -2.0, 1.0,
	0.0, 0.0, 4.0, -3.0, 1.5, 2.0, -0.5, 7.0, 2.0, 2.0, 0.0, -1.0, 6.0,
	-4.0, 3.0, 1.0 };
static const double want_expand[] = { 1.0, 1.0, 1.0, 1.0, -2.0, -2.0, -2.0,
	-2.0, 3.5, 3.5, 3.5, 3.5, 1.0, 1.0, 1.0, 1.0, -2.0, -2.0, -2.0, -2.0,
	3.5, 3.5, 3.5, 3.5 };
static const double want_tile[] = { 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0,
	4.0, 5.0, 6.0, 4.0, 5.0, 6.0, 4.0, 5.0, 6.0, 1.0, 2.0, 3.0, 1.0, 2.0,
	3.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 4.0, 5.0, 6.0, 4.0, 5.0, 6.0 };
static const double want_pad[] = { 9.0, 9.0, 9.0, 9.0, 2.0, 3.0, 9.0, 9.0, 5.0,
	6.0, 9.0, 9.0 };
static const double want_prod_grad[] = { 18.0, 12.0, 9.0, -60.0, -0.0, -0.0,
	0.0, 0.0, 0.0, -0.25, -0.5, 0.125 };
static const double want_min_grad[] = { 0.75, 0.75, 0.0, -0.0, -1.0, -1.0, 1.0,
	1.0, 1.0, 0.25, 0.0, 0.0 };
static const double want_i_min_1[] = { 0.0, -1.0, -2.0, -3.0, 1.0, -4.0, 0.0,
	-1.0 };
static const double want_i_prod_2[] = { 0.0, -50.0, 0.0, 0.0, 0.0, -72.0 };
static const double want_i_argmax_1[] = { 1.0, 1.0, 2.0, 0.0, 2.0, 0.0, 2.0,
	0.0 };
static const double want_i_cumsum_1[] = { 3.0, -1.0, 0.0, 2.0, 8.0, 4.0, -2.0,
	3.0, 8.0, 4.0, 2.0, 0.0, 1.0, 2.0, 0.0, 7.0, 3.0, 4.0, 0.0, 6.0, 9.0,
	0.0, 3.0, 7.0 };
static const double want_i_tril_m1[] = { 0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0,
	0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 6.0, -4.0,
	0.0, 0.0 };

/* Run "op" with attributes "at" on the "xr"-dimensional input of dims
 * "xd" and values "xv" stored as "dt", into an output of dims "yd" ("yr")
 * and dtype "ydt" (SYM_DT_INVALID: "dt"), and check it against "want". */
static void
check_op(const char *op, const sym_attrs *at, sym_dtype dt, int xr,
    const int64_t *xd, const double *xv, int yr, const int64_t *yd,
    sym_dtype ydt, const double *want)
{
	struct sym__tensor x = kt_tensor(dt, xr, xd);
	struct sym__tensor y =
	    kt_tensor(ydt == SYM_DT_INVALID ? dt : ydt, yr, yd);
	char what[96];

	for (int64_t i = 0; i < kt_numel(&x); i++)
		kt_set(&x, i, dt == SYM_DT_BOOL ? xv[i] != 0 : xv[i]);
	kt_run(op, at, &x, 1, &y, 1);
	snprintf(what, sizeof(what), "%s on %s", op, sym_dtype_name(dt));
	if (dt == SYM_DT_BOOL) {
		double *w = kt_doubles(kt_numel(&y));

		for (int64_t i = 0; i < kt_numel(&y); i++)
			w[i] = want[i] != 0;
		kt_check_tensor(&y, w, 0, what);
		free(w);
	} else {
		kt_check_tensor(&y, want, kt_tol(dt, TOL_F32), what);
	}
	kt_free_all(&x, 1);
	kt_free_all(&y, 1);
}

/* The same in f32 and f64. */
static void
check_float(const char *op, const sym_attrs *at, int xr, const int64_t *xd,
    const double *xv, int yr, const int64_t *yd, const double *want)
{
	check_op(op, at, SYM_DT_F32, xr, xd, xv, yr, yd, SYM_DT_INVALID, want);
	check_op(op, at, SYM_DT_F64, xr, xd, xv, yr, yd, SYM_DT_INVALID, want);
}

/* reduce_min, reduce_prod, argmax and argmin against PyTorch's amin,
 * prod, argmax and argmin (ties: the first index), in f32, f64 and
 * i32. */
static void
test_reductions(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	double xi[24];

	(void)state;
	for (int i = 0; i < 24; i++)
		xi[i] = trunc(X[i]);
	sym_attrs_set_int(at, "axis", 1);
	check_float("reduce_min", at, 3, XD, X, 2, (const int64_t[]){ 2, 4 },
	    want_min_1);
	check_op("reduce_min", at, SYM_DT_I32, 3, XD, xi, 2,
	    (const int64_t[]){ 2, 4 }, SYM_DT_INVALID, want_i_min_1);
	check_op("argmax", at, SYM_DT_F32, 3, XD, X, 2,
	    (const int64_t[]){ 2, 4 }, SYM_DT_I64, want_argmax_1);
	check_op("argmax", at, SYM_DT_F64, 3, XD, X, 2,
	    (const int64_t[]){ 2, 4 }, SYM_DT_I32, want_argmax_1);
	check_op("argmax", at, SYM_DT_I16, 3, XD, xi, 2,
	    (const int64_t[]){ 2, 4 }, SYM_DT_I64, want_i_argmax_1);
	kt_set_ints(ctx, at, "axis", 2, (const int64_t[]){ 0, 2 });
	sym_attrs_set_bool(at, "keep_dims", 1);
	check_float("reduce_min", at, 3, XD, X, 3, (const int64_t[]){ 1, 3, 1 },
	    want_min_02k);
	sym_attrs_set_int(at, "axis", 2);
	check_op("argmin", at, SYM_DT_F64, 3, XD, X, 3,
	    (const int64_t[]){ 2, 3, 1 }, SYM_DT_I64, want_argmin_2k);
	sym_attrs_set_bool(at, "keep_dims", 0);
	check_float("reduce_prod", at, 3, XD, X, 2, (const int64_t[]){ 2, 3 },
	    want_prod_2);
	check_op("reduce_prod", at, SYM_DT_I32, 3, XD, xi, 2,
	    (const int64_t[]){ 2, 3 }, SYM_DT_INVALID, want_i_prod_2);
	sym_attrs_free(at);
	at = kt_attrs(ctx);
	check_float("reduce_prod", at, 3, XD, X, 0, NULL, want_prod_all);
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* Integer products wrap to the width of their dtype; minima over no
 * element are +inf; argmax takes the first NaN; the kernels refuse
 * bool and i64 where the shape rules do, and outputs of other dims. */
static void
test_reduction_edges(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	int64_t d4[] = { 4 }, d2[] = { 2 };
	struct sym__tensor x = kt_tensor(SYM_DT_I8, 1, d4);
	struct sym__tensor s = kt_tensor(SYM_DT_I8, 0, NULL);
	struct sym__tensor f = kt_tensor(SYM_DT_F32, 1, d4);
	struct sym__tensor e = kt_tensor(SYM_DT_F32, 1, (const int64_t[]){ 0 });
	struct sym__tensor fs = kt_tensor(SYM_DT_F32, 0, NULL);
	struct sym__tensor i = kt_tensor(SYM_DT_I64, 0, NULL);
	struct sym__tensor b = kt_tensor(SYM_DT_BOOL, 1, d4);
	struct sym__tensor bs = kt_tensor(SYM_DT_BOOL, 0, NULL);
	struct sym__tensor l = kt_tensor(SYM_DT_I64, 1, d4);
	struct sym__tensor ls = kt_tensor(SYM_DT_I64, 0, NULL);
	struct sym__tensor w = kt_tensor(SYM_DT_F32, 1, d2);

	(void)state;
	for (int k = 0; k < 4; k++) {
		kt_set(&x, k, 5 + k);
		kt_set(&f, k, k == 2 || k == 3 ? NAN : k);
	}
	kt_run("reduce_prod", at, &x, 1, &s, 1);
	kt_check_tensor(&s, (const double[]){ (double)(int8_t)(5 * 6 * 7 * 8) },
	    0, "reduce_prod of i8 wraps");
	kt_run("reduce_min", at, &e, 1, &fs, 1);
	assert_true(isinf(kt_get(&fs, 0)) && kt_get(&fs, 0) > 0);
	kt_run("reduce_prod", at, &e, 1, &fs, 1);
	kt_check_tensor(&fs, (const double[]){ 1 }, 0, "empty product");
	kt_run("reduce_min", at, &f, 1, &fs, 1);
	assert_true(isnan(kt_get(&fs, 0)));
	kt_run("argmax", at, &f, 1, &i, 1);
	kt_check_tensor(&i, (const double[]){ 2 }, 0, "argmax of NaN");
	kt_run("argmin", at, &f, 1, &i, 1);
	kt_check_tensor(&i, (const double[]){ 2 }, 0, "argmin of NaN");
	for (int k = 0; k < 4; k++)
		kt_set(&b, k, k != 1);
	kt_run("reduce_min", at, &b, 1, &bs, 1);
	kt_check_tensor(&bs, (const double[]){ 0 }, 0, "reduce_min of bool");
	kt_fails("reduce_prod", at, &b, 1, &bs, 1, "dtype bool");
	kt_fails("reduce_prod", at, &l, 1, &ls, 1, "i64");
	kt_fails("argmax", at, &b, 1, &i, 1, "dtype bool");
	kt_fails("argmax", at, &f, 1, &fs, 1, "the indices are i32 or i64");
	kt_fails("argmin", at, &f, 1, &w, 1, "rank");
	kt_fails("reduce_min", at, &f, 1, &w, 1, "rank");
	kt_free_all(&x, 1);
	kt_free_all(&s, 1);
	kt_free_all(&f, 1);
	kt_free_all(&e, 1);
	kt_free_all(&fs, 1);
	kt_free_all(&i, 1);
	kt_free_all(&b, 1);
	kt_free_all(&bs, 1);
	kt_free_all(&l, 1);
	kt_free_all(&ls, 1);
	kt_free_all(&w, 1);
	sym_attrs_set_int(at, "axis", 1);
	kt_decode_fails("argmax", at, &f, 1, 1,
	    "axis=1 is out of range for input 0 of rank 1");
	sym_attrs_set_int(at, "axis", 0);
	sym_attrs_set_string(at, "dtype", "f32");
	kt_decode_fails("argmax", at, &f, 1, 1,
	    "the indices of argmax are i64 or i32, not f32");
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* cumsum forward, reverse and reverse exclusive; tril and triu on four
 * diagonals, in f32, f64, i32 (cumsum, tril) and bool (tril, triu). */
static void
test_index(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	double xi[24];

	(void)state;
	for (int i = 0; i < 24; i++)
		xi[i] = trunc(X[i]);
	sym_attrs_set_int(at, "axis", 1);
	check_float("cumsum", at, 3, XD, X, 3, XD, want_cumsum_1);
	check_op("cumsum", at, SYM_DT_I32, 3, XD, xi, 3, XD, SYM_DT_INVALID,
	    want_i_cumsum_1);
	sym_attrs_set_int(at, "axis", -1);
	sym_attrs_set_bool(at, "reverse", 1);
	check_float("cumsum", at, 3, XD, X, 3, XD, want_cumsum_2r);
	sym_attrs_set_int(at, "axis", 0);
	sym_attrs_set_bool(at, "exclusive", 1);
	check_float("cumsum", at, 3, XD, X, 3, XD, want_cumsum_0re);
	sym_attrs_free(at);
	at = kt_attrs(ctx);
	check_float("tril", at, 3, XD, X, 3, XD, want_tril_0);
	check_op("tril", at, SYM_DT_BOOL, 3, XD, X, 3, XD, SYM_DT_INVALID,
	    want_tril_0);
	sym_attrs_set_int(at, "diagonal", -1);
	check_float("tril", at, 3, XD, X, 3, XD, want_tril_m1);
	check_op("tril", at, SYM_DT_I32, 3, XD, xi, 3, XD, SYM_DT_INVALID,
	    want_i_tril_m1);
	sym_attrs_set_int(at, "diagonal", 1);
	check_float("triu", at, 3, XD, X, 3, XD, want_triu_1);
	check_op("triu", at, SYM_DT_BOOL, 3, XD, X, 3, XD, SYM_DT_INVALID,
	    want_triu_1);
	sym_attrs_set_int(at, "diagonal", -2);
	check_float("triu", at, 3, XD, X, 3, XD, want_triu_m2);
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* tril and triu on every block of a [2, 3, 4] input cut into blocks of
 * [1, 1, 2] or [2, 2, 1] rows and columns, each at its global offsets,
 * give the blocks of the whole result. */
static void
test_tri_blocks(void **state)
{
	static const int64_t cut[2][3] = { { 1, 1, 2 }, { 2, 3, 1 } };
	static const char *const ops[] = { "tril", "triu" };
	static const double *const want[] = { want_tril_m1, want_triu_1 };
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (int o = 0; o < 2; o++)
		for (int c = 0; c < 2; c++) {
			sym_attrs *at = kt_attrs(ctx);
			const int64_t *bd = cut[c];

			sym_attrs_set_int(at, "diagonal", o ? 1 : -1);
			for (int64_t m = 0; m < 2; m += bd[0])
				for (int64_t r = 0; r < 3; r += bd[1])
					for (int64_t q = 0; q < 4; q += bd[2]) {
						struct sym__tensor x =
						    kt_tensor(SYM_DT_F64, 3,
						        bd);
						struct sym__tensor y =
						    kt_tensor(SYM_DT_F64, 3,
						        bd);
						int64_t off[1]
						           [SYM__MAX_RANK] = {
							           { m, r, q }
						           };
						double w[24];
						struct sym__kernel_args a;
						int64_t n = 0;

						for (int64_t i = m;
						     i < m + bd[0]; i++)
							for (int64_t j = r;
							     j < r + bd[1]; j++)
								for (int64_t k =
								         q;
								     k <
								     q + bd[2];
								     k++) {
									int64_t g =
									    (i * 3 +
									        j) *
									        4 +
									    k;

									kt_set(
									    &x,
									    n,
									    X[g]);
									w[n++] = want
									    [o]
									    [g];
								}
						a = kt_args(ops[o], at, &x, 1,
						    &y, 1);
						a.offset = off;
						kt_run_args(ops[o], &a);
						kt_check_tensor(&y, w, 0,
						    ops[o]);
						kt_free_all(&x, 1);
						kt_free_all(&y, 1);
					}
			sym_attrs_free(at);
		}
	tl_ctx_free(ctx);
}

/* expand, tile and pad against PyTorch's expand, tile and pad (the pad
 * cropping one dimension), in f32, f64, i32 and bool; pad's value
 * converted to each dtype. */
static void
test_moves(void **state)
{
	static const double m[] = { 1, 2, 3, 4, 5, 6 };
	static const double s[] = { 1, -2, 3.5 };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BOOL };
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	const int64_t md[] = { 2, 3 }, sd[] = { 3, 1 };

	(void)state;
	check_float("expand", NULL, 2, sd, s, 3, (const int64_t[]){ 2, 3, 4 },
	    want_expand);
	for (size_t k = 0; k < sizeof(dts) / sizeof(dts[0]); k++) {
		sym_attrs *t = kt_attrs(ctx);

		kt_set_ints(ctx, t, "repeats", 2, (const int64_t[]){ 2, 3 });
		check_op("tile", t, dts[k], 2, md, m, 2,
		    (const int64_t[]){ 4, 9 }, SYM_DT_INVALID, want_tile);
		sym_attrs_free(t);
	}
	kt_set_ints(ctx, at, "pads", 4, (const int64_t[]){ 1, 0, -1, 2 });
	sym_attrs_set_float(at, "value", 9.0);
	check_float("pad", at, 2, md, m, 2, (const int64_t[]){ 3, 4 },
	    want_pad);
	check_op("pad", at, SYM_DT_I32, 2, md, m, 2, (const int64_t[]){ 3, 4 },
	    SYM_DT_INVALID, want_pad);
	check_op("pad", at, SYM_DT_BOOL, 2, md, m, 2, (const int64_t[]){ 3, 4 },
	    SYM_DT_INVALID, want_pad);
	sym_attrs_set_float(at, "value", 300.0);
	{
		struct sym__tensor x = kt_tensor(SYM_DT_I8, 2, md);
		struct sym__tensor y =
		    kt_tensor(SYM_DT_I8, 2, (const int64_t[]){ 3, 4 });

		kt_run("pad", at, &x, 1, &y, 1);
		assert_int_equal((int64_t)kt_get(&y, 0), (int8_t)300);
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
	}
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* The checks expand, tile, pad, tril, triu and cumsum make of their
 * tensors, and the attributes their decoders refuse. */
static void
test_move_errors(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	const int64_t md[] = { 2, 3 };
	struct sym__tensor x = kt_tensor(SYM_DT_F32, 2, md);
	struct sym__tensor v = kt_tensor(SYM_DT_F32, 1, (const int64_t[]){ 3 });
	struct sym__tensor y =
	    kt_tensor(SYM_DT_F32, 2, (const int64_t[]){ 4, 3 });
	struct sym__tensor d = kt_tensor(SYM_DT_F64, 2, md);
	struct sym__tensor b = kt_tensor(SYM_DT_BOOL, 2, md);
	struct sym__tensor l = kt_tensor(SYM_DT_I64, 2, md);

	(void)state;
	kt_fails("expand", NULL, &x, 1, &y, 1,
	    "dim 0 of the output is 4, dim 0 of the input 2");
	kt_fails("expand", NULL, &x, 1, &v, 1, "the output has rank 1");
	kt_fails("expand", NULL, &x, 1, &d, 1, "");
	kt_set_ints(ctx, at, "repeats", 2, (const int64_t[]){ 2, 2 });
	kt_fails("tile", at, &x, 1, &y, 1,
	    "dim 1 of the output is 3, not 2 times 3");
	kt_set_ints(ctx, at, "repeats", 1, (const int64_t[]){ 0 });
	kt_decode_fails("tile", at, &x, 1, 1,
	    "the repeat count of dimension 1 of input 0 is 0");
	kt_set_ints(ctx, at, "repeats", 3, (const int64_t[]){ 1, 1, 1 });
	kt_decode_fails("tile", at, &x, 1, 1, "more than the rank");
	sym_attrs_free(at);
	at = kt_attrs(ctx);
	kt_set_ints(ctx, at, "pads", 4, (const int64_t[]){ 1, 1, 0, 0 });
	kt_fails("pad", at, &x, 1, &x, 1,
	    "dim 0 of the output is 2, not 2 padded by 1 and 1");
	kt_set_ints(ctx, at, "pads", 2, (const int64_t[]){ 1, 1 });
	kt_decode_fails("pad", at, &x, 1, 1,
	    "pad needs 2 counts per dimension");
	kt_set_ints(ctx, at, "pads", 4, (const int64_t[]){ 0, 0, 0, 0 });
	sym_attrs_set_string(at, "mode", "reflect");
	kt_decode_fails("pad", at, &x, 1, 1, "only the mode \"constant\"");
	sym_attrs_free(at);
	at = kt_attrs(ctx);
	kt_fails("tril", at, &v, 1, &v, 1, "the input has rank 1, below 2");
	kt_fails("triu", at, &x, 1, &d, 1, "");
	sym_attrs_set_int(at, "axis", 1);
	kt_fails("cumsum", at, &b, 1, &b, 1, "dtype bool is not supported");
	kt_fails("cumsum", at, &l, 1, &l, 1, "i64");
	kt_fails("cumsum", at, &x, 1, &x, 1, "may not alias");
	sym_attrs_set_int(at, "axis", 2);
	kt_decode_fails("cumsum", at, &x, 1, 1, "axis=2 is out of range");
	sym_attrs_free(at);
	kt_free_all(&x, 1);
	kt_free_all(&v, 1);
	kt_free_all(&y, 1);
	kt_free_all(&d, 1);
	kt_free_all(&b, 1);
	kt_free_all(&l, 1);
	tl_ctx_free(ctx);
}

/* reduce_prod_grad with no, one and two zeros in a group, and
 * reduce_max_grad as the gradient of reduce_min with ties, against
 * PyTorch's autograd of prod and amin. */
static void
test_grads(void **state)
{
	static const double g[] = { 2, 3, 4, 0, 5, 6, 0, 7, 0, 1, 0.5, -2 };
	static const double h[] = { 1, 1, 2, 3, -1, -1, 0, 0, 0, 4, 5, 6 };
	static const double dyv[] = { 1.5, -2, 3, 0.25 };
	static const double hmin[] = { 1, -1, 0, 4 };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64 };
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	const int64_t xd[] = { 4, 3 }, yd[] = { 4 };

	(void)state;
	sym_attrs_set_int(at, "axis", 1);
	for (size_t k = 0; k < 2; k++) {
		struct sym__tensor in[3] = { kt_tensor(dts[k], 1, yd),
			kt_tensor(dts[k], 2, xd), kt_tensor(dts[k], 1, yd) };
		struct sym__tensor dx = kt_tensor(dts[k], 2, xd);

		for (int i = 0; i < 4; i++) {
			kt_set(&in[0], i, dyv[i]);
			kt_set(&in[2], i, hmin[i]);
		}
		for (int i = 0; i < 12; i++)
			kt_set(&in[1], i, g[i]);
		kt_run("reduce_prod_grad", at, in, 2, &dx, 1);
		kt_check_tensor(&dx, want_prod_grad, kt_tol(dts[k], TOL_F32),
		    "reduce_prod_grad");
		kt_fails("reduce_prod_grad", at, in, 2, &in[0], 1, "");
		for (int i = 0; i < 12; i++)
			kt_set(&in[1], i, h[i]);
		kt_run("reduce_max_grad", at, in, 3, &dx, 1);
		kt_check_tensor(&dx, want_min_grad, kt_tol(dts[k], TOL_F32),
		    "reduce_max_grad of a minimum");
		kt_free_all(in, 3);
		kt_free_all(&dx, 1);
	}
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reductions),
		cmocka_unit_test(test_reduction_edges),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_tri_blocks),
		cmocka_unit_test(test_moves),
		cmocka_unit_test(test_move_errors),
		cmocka_unit_test(test_grads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
