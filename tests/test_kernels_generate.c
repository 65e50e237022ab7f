/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the kernels of the generate family: arange and range in
 * f32, f64, i32 and i64 (negative steps, float bounds), full in f32,
 * f64, i32 and bool, ones and zeros, against values recorded from
 * PyTorch (tests/gen_kernels_generate.py, a development tool that make
 * check does not run); arange on blocks at global offsets, as a sharded
 * rank calls it; and the checks the kernels make of their outputs.
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

/* Recorded by tests/gen_kernels_generate.py. */
static const double want_arange_f32[] = { 0.5, 0.800000011920929,
	1.100000023841858, 1.399999976158142, 1.7000000476837158, 2.0,
	2.299999952316284, 2.5999999046325684, 2.9000000953674316,
	3.200000047683716 };
static const double want_arange_f64[] = { -1.25, -0.85, -0.44999999999999996,
	-0.04999999999999993, 0.3500000000000001, 0.7500000000000001,
	1.1500000000000001, 1.5500000000000003, 1.9500000000000002 };
static const double want_arange_neg[] = { 10.0, 7.0, 4.0, 1.0, -2.0, -5.0 };
static const double want_arange_i32[] = { 3.0, 8.0, 13.0, 18.0, 23.0, 28.0,
	33.0, 38.0 };
static const double want_arange_s[] = { 1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0,
	15.0, 17.0, 19.0, 21.0 };
static const double want_full_bool[] = { 1.0, 1.0, 1.0, 1.0, 1.0, 1.0 };
static const double want_full_f64[] = { -0.1, -0.1, -0.1, -0.1, -0.1, -0.1 };
static const double want_full_f32[] = { -0.10000000149011612,
	-0.10000000149011612, -0.10000000149011612, -0.10000000149011612,
	-0.10000000149011612, -0.10000000149011612 };
static const double want_full_i32[] = { -7.0, -7.0, -7.0, -7.0, -7.0, -7.0 };

/* Run generator "op" with the attributes "at" into a new tensor of
 * dtype "dt" and dims "dim" ("rank"), and compare it with "want" within
 * "eps". */
static void
check_gen(const char *op, const sym_attrs *at, sym_dtype dt, int rank,
    const int64_t *dim, const double *want, double eps)
{
	struct sym__tensor y = kt_tensor(dt, rank, dim);

	kt_run(op, at, NULL, 0, &y, 1);
	kt_check_tensor(&y, want, eps, op);
	kt_free_all(&y, 1);
}

/* arange and range with float bounds (f32, f64), a negative step and
 * integer dtypes, against PyTorch's arange. */
static void
test_arange(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	int64_t n;

	(void)state;
	sym_attrs_set_float(at, "start", 0.5);
	sym_attrs_set_float(at, "limit", 3.2);
	sym_attrs_set_float(at, "delta", 0.3);
	sym_attrs_set_string(at, "dtype", "f32");
	n = 10;
	check_gen("arange", at, SYM_DT_F32, 1, &n, want_arange_f32, 0);
	sym_attrs_free(at);

	at = kt_attrs(ctx);
	sym_attrs_set_float(at, "start", -1.25);
	sym_attrs_set_float(at, "limit", 2.0);
	sym_attrs_set_float(at, "delta", 0.4);
	sym_attrs_set_string(at, "dtype", "f64");
	n = 9;
	check_gen("range", at, SYM_DT_F64, 1, &n, want_arange_f64, 1e-15);
	sym_attrs_free(at);

	at = kt_attrs(ctx);
	kt_set_ints(ctx, at, "range", 3, (const int64_t[]){ 10, -7, -3 });
	n = 6;
	check_gen("arange", at, SYM_DT_I64, 1, &n, want_arange_neg, 0);
	check_gen("arange", at, SYM_DT_F32, 1, &n, want_arange_neg, 0);
	sym_attrs_free(at);

	at = kt_attrs(ctx);
	sym_attrs_set_int(at, "start", 3);
	sym_attrs_set_int(at, "limit", 40);
	sym_attrs_set_int(at, "delta", 5);
	sym_attrs_set_string(at, "dtype", "i32");
	n = 8;
	check_gen("arange", at, SYM_DT_I32, 1, &n, want_arange_i32, 0);
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* arange(1, 23, 2) cut into blocks of 3 (the last of 2), each at its
 * global offset, gives the blocks of the whole vector. */
static void
test_arange_blocks(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);

	(void)state;
	kt_set_ints(ctx, at, "range", 3, (const int64_t[]){ 1, 23, 2 });
	for (int64_t o = 0; o < 11; o += 3) {
		int64_t n = o + 3 <= 11 ? 3 : 11 - o;
		int64_t off[1][SYM__MAX_RANK] = { { o } };
		struct sym__tensor y = kt_tensor(SYM_DT_I64, 1, &n);
		struct sym__kernel_args a =
		    kt_args("arange", at, NULL, 0, &y, 1);

		a.out_offset = off;
		kt_run_args("arange", &a);
		kt_check_tensor(&y, want_arange_s + o, 0, "arange block");
		kt_release(&a);
		kt_free_all(&y, 1);
	}
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* full in f32, f64, i32 and bool (a nonzero value is true), ones and
 * zeros, against PyTorch's full. */
static void
test_full(void **state)
{
	static const double one[6] = { 1, 1, 1, 1, 1, 1 }, zero[6] = { 0 };
	static const int64_t dim[2] = { 2, 3 };
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);

	(void)state;
	kt_set_ints(ctx, at, "shape", 2, dim);
	sym_attrs_set_float(at, "value", -0.1);
	check_gen("full", at, SYM_DT_F32, 2, dim, want_full_f32, 0);
	sym_attrs_set_string(at, "dtype", "f64");
	check_gen("full", at, SYM_DT_F64, 2, dim, want_full_f64, 0);
	sym_attrs_free(at);

	at = kt_attrs(ctx);
	kt_set_ints(ctx, at, "shape", 2, dim);
	sym_attrs_set_int(at, "value", -7);
	sym_attrs_set_string(at, "dtype", "i32");
	check_gen("full", at, SYM_DT_I32, 2, dim, want_full_i32, 0);
	sym_attrs_free(at);

	at = kt_attrs(ctx);
	kt_set_ints(ctx, at, "shape", 2, dim);
	sym_attrs_set_int(at, "value", 2);
	sym_attrs_set_string(at, "dtype", "bool");
	check_gen("full", at, SYM_DT_BOOL, 2, dim, want_full_bool, 0);
	sym_attrs_free(at);

	at = kt_attrs(ctx);
	kt_set_ints(ctx, at, "shape", 2, dim);
	check_gen("ones", at, SYM_DT_F32, 2, dim, one, 0);
	check_gen("zeros", at, SYM_DT_F32, 2, dim, zero, 0);
	sym_attrs_set_string(at, "dtype", "bool");
	check_gen("ones", at, SYM_DT_BOOL, 2, dim, one, 0);
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* The kernels refuse a bool or multi-dimensional arange, an arange that
 * overflows the executor's 32-bit integers, an input, and a full value
 * that does not fit the 32-bit storage. */
static void
test_errors(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	int64_t n = 4, d2[2] = { 2, 2 };
	struct sym__tensor y = kt_tensor(SYM_DT_BOOL, 1, &n);
	struct sym__tensor m = kt_tensor(SYM_DT_F32, 2, d2);
	struct sym__tensor big = kt_tensor(SYM_DT_I64, 1, &n);

	(void)state;
	kt_set_ints(ctx, at, "range", 1, &n);
	kt_fails("arange", at, NULL, 0, &y, 1, "its output cannot be bool");
	kt_fails("arange", at, NULL, 0, &m, 1, "the output has rank 2, not 1");
	kt_fails("arange", at, &m, 1, &m, 1, "1 input given, 0 to 0 expected");
	sym_attrs_free(at);

	at = kt_attrs(ctx);
	sym_attrs_set_int(at, "start", 2147483646);
	sym_attrs_set_int(at, "limit", 2147483650);
	kt_fails("arange", at, NULL, 0, &big, 1,
	    "element 2 does not fit the executor's 32-bit integers");
	sym_attrs_free(at);

	at = kt_attrs(ctx);
	kt_set_ints(ctx, at, "shape", 1, &n);
	sym_attrs_set_int(at, "value", 4000000000);
	kt_fails("full", at, NULL, 0, &big, 1,
	    "the value 4e+09 does not fit the executor's 32-bit integers");
	sym_attrs_free(at);
	kt_free_all(&y, 1);
	kt_free_all(&m, 1);
	kt_free_all(&big, 1);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arange),
		cmocka_unit_test(test_arange_blocks),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
