/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the dropout kernels: the share of zeros is p, the kept
 * elements are scaled by 1 / (1 - p) exactly, p = 0 and evaluation are
 * the identity and p = 1 zero; a block of the tensor (offsets and
 * global sizes) draws the mask of the whole at its global indices, under
 * the same key, and another key another mask; dropout_grad applies the
 * mask of the output it is given (kerntest.h).
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

/* Return the tensor [rows, cols] of dtype "dt" filled with "v". */
static struct sym__tensor
full(sym_dtype dt, int64_t rows, int64_t cols, double v)
{
	struct sym__tensor t =
	    kt_tensor(dt, 2, (const int64_t[]){ rows, cols });

	for (int64_t i = 0; i < rows * cols; i++)
		kt_set(&t, i, v);
	return t;
}

/* Run dropout with probability "p" and key "key" ("eval": in an
 * evaluation) on "x" into "y"; "ctx" holds the attributes. */
static void
run_dropout(sym_ctx *ctx, double p, uint64_t key, int eval,
    const struct sym__tensor *x, struct sym__tensor *y)
{
	sym_attrs *at = kt_attrs(ctx);
	struct sym__kernel_args a;

	sym_attrs_set_float(at, "p", p);
	a = kt_args("dropout", at, x, 1, y, 1);
	a.rng = key;
	a.eval = eval;
	kt_run_args("dropout", &a);
	sym_attrs_free(at);
}

/* The share of zeros, the scale, p = 0, p = 1 and evaluation. */
static void
test_mask(void **state)
{
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (int f64 = 0; f64 < 2; f64++) {
		sym_dtype dt = f64 ? SYM_DT_F64 : SYM_DT_F32;
		struct sym__tensor x = full(dt, 100, 100, 3.0),
		                   y = full(dt, 100, 100, 0.0);
		int64_t zeros = 0;
		double kept = f64 ? 3.0 / 0.7 : (double)(float)(3.0 / 0.7);

		run_dropout(ctx, 0.3, 42, 0, &x, &y);
		for (int64_t i = 0; i < 10000; i++) {
			double v = kt_get(&y, i);

			zeros += v == 0;
			if (v != 0 && v != kept)
				fail_msg("element %lld is %g, not %g",
				    (long long)i, v, kept);
		}
		assert_true(zeros > 2800 && zeros < 3200);
		run_dropout(ctx, 0.3, 42, 1, &x, &y);
		for (int64_t i = 0; i < 10000; i++)
			assert_true(kt_get(&y, i) == 3.0);
		run_dropout(ctx, 0.0, 42, 0, &x, &y);
		for (int64_t i = 0; i < 10000; i++)
			assert_true(kt_get(&y, i) == 3.0);
		run_dropout(ctx, 1.0, 42, 0, &x, &y);
		for (int64_t i = 0; i < 10000; i++)
			assert_true(kt_get(&y, i) == 0.0);
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
	}
	tl_ctx_free(ctx);
}

/* A block draws the whole tensor's mask at its global indices; another
 * key draws another mask; the gradient applies the mask of y. */
static void
test_blocks(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	struct sym__tensor x = full(SYM_DT_F64, 6, 10, 1.0),
	                   y = full(SYM_DT_F64, 6, 10, 0.0),
	                   z = full(SYM_DT_F64, 6, 10, 0.0);
	sym_attrs *at = kt_attrs(ctx);
	int differ = 0;

	(void)state;
	sym_attrs_set_float(at, "p", 0.5);
	run_dropout(ctx, 0.5, 7, 0, &x, &y);
	run_dropout(ctx, 0.5, 8, 0, &x, &z);
	for (int64_t i = 0; i < 60; i++)
		differ += kt_get(&y, i) != kt_get(&z, i);
	assert_true(differ > 10);
	for (int b = 0; b < 4; b++) {
		int64_t off[2][SYM__MAX_RANK] = { { 3 * (b / 2), 5 * (b % 2) },
			{ 3 * (b / 2), 5 * (b % 2) } };
		int64_t glob[2][SYM__MAX_RANK] = { { 6, 10 }, { 6, 10 } };
		struct sym__tensor in[2], out;
		struct sym__kernel_args a;

		in[0] = full(SYM_DT_F64, 3, 5, 2.0);
		in[1] = full(SYM_DT_F64, 3, 5, 0.0);
		a = kt_args("dropout", at, in, 1, &in[1], 1);
		a.rng = 7;
		a.offset = (const int64_t(*)[SYM__MAX_RANK])off;
		a.global_dim = (const int64_t(*)[SYM__MAX_RANK])glob;
		kt_run_args("dropout", &a);
		for (int64_t i = 0; i < 15; i++)
			assert_true(kt_get(&in[1], i) ==
			    2 *
			        kt_get(&y,
			            (off[0][0] + i / 5) * 10 + off[0][1] +
			                i % 5));
		out = full(SYM_DT_F64, 3, 5, 0.0);
		a = kt_args("dropout_grad", at, in, 2, &out, 1);
		a.rng = 7;
		a.offset = (const int64_t(*)[SYM__MAX_RANK])off;
		a.global_dim = (const int64_t(*)[SYM__MAX_RANK])glob;
		kt_run_args("dropout_grad", &a);
		for (int64_t i = 0; i < 15; i++)
			assert_true(kt_get(&out, i) == kt_get(&in[1], i));
		kt_free_all(in, 2);
		kt_free_all(&out, 1);
	}
	kt_fails("dropout_grad", at, (const struct sym__tensor[]){ x, z }, 1,
	    &y, 1, "input given");
	sym_attrs_free(at);
	kt_free_all(&x, 1);
	kt_free_all(&y, 1);
	kt_free_all(&z, 1);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
