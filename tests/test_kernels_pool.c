/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the pooling kernels: max_pool2d, avg_pool2d,
 * global_avg_pool and their gradients against the values PyTorch
 * computed (tests/pool_expect.h, written by tests/gen_pool.py), f32 and
 * f64; the output extent against PyTorch's formula over a range of
 * geometries; global_avg_pool over a block of the pooled dimensions
 * (partial sums of the global mean); every check of the tensors reached
 * by a call that must fail (kerntest.h).
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
#include "pool_expect.h"
#include "testlib.h"

/* One case of tests/gen_pool.py. */
struct pool_case {
	const char *op; /* forward operator */
	int64_t x[4], y[4];
	int64_t kernel[2], stride[2], pad[2], dilation[2];
	int ceil_mode, count_include_pad;
	const double *want_y, *want_dx;
};

/* Return the tensor of dtype "dt" and dims "dim" whose element i is
 * 2 sin(1.3 i + 0.5) ("dy" 0) or cos(0.9 i) ("dy" 1), as gen_pool.py. */
static struct sym__tensor
seq(sym_dtype dt, const int64_t *dim, int dy)
{
	struct sym__tensor t = kt_tensor(dt, 4, dim);

	for (int64_t i = 0; i < kt_numel(&t); i++)
		kt_set(&t, i,
		    dy ? cos(0.9 * (double)i) : 2 * sin(1.3 * (double)i + 0.5));
	return t;
}

/* Set the attributes of "pc" on "at" (of "ctx"). */
static void
pool_attrs(sym_ctx *ctx, sym_attrs *at, const struct pool_case *pc)
{
	if (!strcmp(pc->op, "global_avg_pool"))
		return;
	kt_set_ints(ctx, at, "kernel", 2, pc->kernel);
	kt_set_ints(ctx, at, "stride", 2, pc->stride);
	kt_set_ints(ctx, at, "pad", 2, pc->pad);
	if (!strcmp(pc->op, "max_pool2d"))
		kt_set_ints(ctx, at, "dilation", 2, pc->dilation);
	else
		sym_attrs_set_bool(at, "count_include_pad",
		    pc->count_include_pad);
	sym_attrs_set_bool(at, "ceil_mode", pc->ceil_mode);
}

/* The forward operators and their gradients agree with PyTorch on the
 * recorded cases, f32 and f64. */
static void
test_pytorch(void **state)
{
	static const struct pool_case cases[] = {
		{ "max_pool2d", { 2, 3, 7, 6 }, { 2, 3, 4, 6 }, { 3, 2 },
		    { 2, 1 }, { 1, 1 }, { 1, 2 }, 1, 1, max_a_y, max_a_dx },
		{ "max_pool2d", { 1, 2, 5, 5 }, { 1, 2, 3, 3 }, { 2, 2 },
		    { 2, 2 }, { 0, 0 }, { 1, 1 }, 1, 1, max_b_y, max_b_dx },
		{ "avg_pool2d", { 2, 2, 7, 6 }, { 2, 2, 4, 4 }, { 3, 3 },
		    { 2, 2 }, { 1, 1 }, { 1, 1 }, 1, 1, avg_a_y, avg_a_dx },
		{ "avg_pool2d", { 2, 2, 7, 6 }, { 2, 2, 4, 4 }, { 3, 3 },
		    { 2, 2 }, { 1, 1 }, { 1, 1 }, 1, 0, avg_b_y, avg_b_dx },
		{ "avg_pool2d", { 1, 2, 5, 5 }, { 1, 2, 3, 3 }, { 2, 2 },
		    { 2, 2 }, { 1, 1 }, { 1, 1 }, 1, 1, avg_c_y, avg_c_dx },
		{ "global_avg_pool", { 2, 3, 4, 5 }, { 2, 3, 1, 1 }, { 1, 1 },
		    { 1, 1 }, { 0, 0 }, { 1, 1 }, 0, 1, glob_y, glob_dx },
	};
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int f64 = 0; f64 < 2; f64++) {
			const struct pool_case *pc = &cases[c];
			sym_dtype dt = f64 ? SYM_DT_F64 : SYM_DT_F32;
			sym_attrs *at = kt_attrs(ctx);
			struct sym__tensor in[2], y, dx;
			char grad[64];

			pool_attrs(ctx, at, pc);
			in[0] = seq(dt, pc->x, 0);
			y = kt_tensor(dt, 4, pc->y);
			kt_run(pc->op, at, in, 1, &y, 1);
			kt_check_tensor(&y, pc->want_y, kt_tol(dt, TOL_F32_SUM),
			    pc->op);
			in[1] = in[0];
			in[0] = seq(dt, pc->y, 1);
			dx = kt_tensor(dt, 4, pc->x);
			snprintf(grad, sizeof(grad), "%s_grad", pc->op);
			kt_run(grad, at, in, 2, &dx, 1);
			kt_check_tensor(&dx, pc->want_dx,
			    kt_tol(dt, TOL_F32_SUM), grad);
			kt_free_all(in, 2);
			sym__tensor_free(&y);
			sym__tensor_free(&dx);
			sym_attrs_free(at);
		}
	tl_ctx_free(ctx);
}

/* Return PyTorch's pooling_output_shape (aten/src/ATen/native/Pool.h)
 * for one dimension, pads "pa" before and "pb" after. */
static int64_t
torch_extent(int64_t size, int64_t k, int64_t pa, int64_t pb, int64_t dil,
    int64_t s, int ceil_mode)
{
	int64_t e =
	    size + pa + pb - dil * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
	int64_t o = (e >= 0 ? e / s : -((-e + s - 1) / s)) + 1;

	if (ceil_mode && (o - 1) * s >= size + pa)
		o--;
	return o;
}

/* Check sym__pool_extent against torch_extent for input "size", kernel
 * "k" and stride "s" over every pad up to half the kernel, dilation up
 * to 3 and both modes where the window fits; return the cases checked. */
static int64_t
check_extent(int64_t size, int64_t k, int64_t s)
{
	int64_t o, n = 0;

	for (int64_t pa = 0; pa <= k / 2; pa++)
		for (int64_t pb = 0; pb <= k / 2; pb++)
			for (int64_t d = 1; d <= 3; d++)
				for (int c = 0; c < 2; c++) {
					if (size + pa + pb < d * (k - 1) + 1)
						continue;
					assert_int_equal(sym__pool_extent(size,
					                     k, pa, pb, d, s, c,
					                     &o),
					    0);
					assert_int_equal(o,
					    torch_extent(size, k, pa, pb, d, s,
					        c));
					n++;
				}
	return n;
}

/* sym__pool_extent, one floordiv in both modes, is PyTorch's rule on
 * every geometry whose window fits the padded input. */
static void
test_extent(void **state)
{
	int64_t o, n = 0;

	(void)state;
	for (int64_t size = 1; size <= 13; size++)
		for (int64_t k = 1; k <= 5; k++)
			for (int64_t s = 1; s <= 5; s++)
				n += check_extent(size, k, s);
	assert_true(n > 4000);
	assert_int_equal(sym__pool_extent(INT64_MAX, 1, 5, 5, 1, 1, 0, &o), -1);
	assert_int_equal(sym__pool_extent(5, 2, 0, 0, 1, 0, 0, &o), -1);
}

/* global_avg_pool on a block of the pooled dimensions divides by their
 * global sizes: the blocks' results sum to the global mean, and the
 * gradient of a block is dy over the global count. */
static void
test_global_block(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	struct sym__tensor x = seq(SYM_DT_F64, (const int64_t[]){ 1, 2, 4, 3 },
	                       0),
	                   in[2], y, dx;
	int64_t off[2][SYM__MAX_RANK] = { { 0 } };
	int64_t glob[2][SYM__MAX_RANK] = { { 1, 2, 4, 3 }, { 1, 2, 4, 3 } };
	double sum[2] = { 0, 0 }, want[2] = { 0, 0 };
	struct sym__kernel_args a;

	(void)state;
	for (int64_t i = 0; i < 24; i++)
		want[i / 12] += kt_get(&x, i) / 12;
	for (int b = 0; b < 2; b++) {
		in[0] =
		    kt_tensor(SYM_DT_F64, 4, (const int64_t[]){ 1, 2, 2, 3 });
		for (int64_t i = 0; i < 12; i++)
			kt_set(&in[0], i,
			    kt_get(&x, i / 6 * 12 + b * 6 + i % 6));
		y = kt_tensor(SYM_DT_F64, 4, (const int64_t[]){ 1, 2, 1, 1 });
		off[0][2] = 2 * b;
		a = kt_args("global_avg_pool", NULL, in, 1, &y, 1);
		a.offset = (const int64_t(*)[SYM__MAX_RANK])off;
		a.global_dim = (const int64_t(*)[SYM__MAX_RANK])glob;
		kt_run_args("global_avg_pool", &a);
		sum[0] += kt_get(&y, 0);
		sum[1] += kt_get(&y, 1);
		in[1] = in[0];
		in[0] = y;
		dx = kt_tensor(SYM_DT_F64, 4, (const int64_t[]){ 1, 2, 2, 3 });
		kt_set(&in[0], 0, 6.0);
		kt_set(&in[0], 1, -12.0);
		off[1][2] = 2 * b;
		a = kt_args("global_avg_pool_grad", NULL, in, 2, &dx, 1);
		a.offset = (const int64_t(*)[SYM__MAX_RANK])off;
		a.global_dim = (const int64_t(*)[SYM__MAX_RANK])glob;
		kt_run_args("global_avg_pool_grad", &a);
		assert_true(kt_get(&dx, 0) == 0.5 && kt_get(&dx, 5) == 0.5);
		assert_true(kt_get(&dx, 6) == -1.0 && kt_get(&dx, 11) == -1.0);
		kt_free_all(in, 2);
		sym__tensor_free(&dx);
	}
	kt_check_close(sum[0], want[0], TOL_F64, "mean", 0);
	kt_check_close(sum[1], want[1], TOL_F64, "mean", 1);
	sym__tensor_free(&x);
	tl_ctx_free(ctx);
}

/* Ties go to the first maximum in row-major order; padding never wins;
 * a NaN wins and its gradient goes to it. */
static void
test_max_ties(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	struct sym__tensor in[2], y, dx;
	static const double ones[4] = { 1, 0, 0, 0 };

	(void)state;
	sym_attrs_set_int(at, "kernel", 2);
	in[0] = kt_tensor(SYM_DT_F32, 4, (const int64_t[]){ 1, 1, 2, 2 });
	for (int64_t i = 0; i < 4; i++)
		kt_set(&in[0], i, -3.0);
	y = kt_tensor(SYM_DT_F32, 4, (const int64_t[]){ 1, 1, 1, 1 });
	kt_run("max_pool2d", at, in, 1, &y, 1);
	assert_true(kt_get(&y, 0) == -3.0);
	in[1] = in[0];
	in[0] = y;
	kt_set(&in[0], 0, 1.0);
	dx = kt_tensor(SYM_DT_F32, 4, (const int64_t[]){ 1, 1, 2, 2 });
	kt_run("max_pool2d_grad", at, in, 2, &dx, 1);
	kt_check_tensor(&dx, ones, 0, "first maximum");
	kt_set(&in[1], 2, NAN);
	kt_run("max_pool2d_grad", at, in, 2, &dx, 1);
	assert_true(kt_get(&dx, 2) == 1.0 && kt_get(&dx, 0) == 0.0);
	y = kt_tensor(SYM_DT_F32, 4, (const int64_t[]){ 1, 1, 1, 1 });
	kt_run("max_pool2d", at, &in[1], 1, &y, 1);
	assert_true(isnan(kt_get(&y, 0)));
	kt_free_all(in, 2);
	sym__tensor_free(&y);
	sym__tensor_free(&dx);
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* Mismatched tensors fail with their message. */
static void
test_errors(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	struct sym__tensor in[2], y;

	(void)state;
	sym_attrs_set_int(at, "kernel", 2);
	in[0] = kt_tensor(SYM_DT_F32, 4, (const int64_t[]){ 1, 1, 4, 4 });
	in[1] = kt_tensor(SYM_DT_F32, 4, (const int64_t[]){ 1, 1, 4, 4 });
	y = kt_tensor(SYM_DT_F32, 4, (const int64_t[]){ 1, 1, 3, 2 });
	kt_fails("max_pool2d", at, in, 1, &y, 1,
	    "the output must be [1, 1, 2, 2]");
	kt_fails("avg_pool2d_grad", at, in, 2, &y, 1,
	    "dy must be [1, 1, 2, 2]");
	sym__tensor_free(&y);
	y = kt_tensor(SYM_DT_F64, 4, (const int64_t[]){ 1, 1, 2, 2 });
	kt_fails("max_pool2d", at, in, 1, &y, 1, "the output");
	sym__tensor_free(&y);
	y = kt_tensor(SYM_DT_F32, 4, (const int64_t[]){ 1, 1, 1, 2 });
	kt_fails("global_avg_pool", NULL, in, 1, &y, 1,
	    "the output the dims of x with 1");
	kt_free_all(in, 2);
	sym__tensor_free(&y);
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pytorch),
		cmocka_unit_test(test_extent),
		cmocka_unit_test(test_global_block),
		cmocka_unit_test(test_max_ties),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
