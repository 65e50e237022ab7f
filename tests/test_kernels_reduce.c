/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: the reductions (negative axes,
 * keep_dims, split blocks and their normalizers), arithmetic on narrow integers
 * and NaN propagation. Each kernel is compared with a reference written in
 * double on small random inputs (seeded, so runs repeat), and every check it
 * makes of its tensors is reached by a mismatched call that must fail with -1
 * and its message (kerntest.h).
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

/* --- reductions ------------------------------------------------------- */

/* reduce_sum, reduce_mean and reduce_max over random axis sets (negative,
 * absent: all), keep_dims, f32 / f64 / int32, a normalizer, NaN and
 * empty reductions; bad output dims. */
static void
test_reduce(void **state)
{
	static const char *const ops[] = { "reduce_sum", "reduce_mean",
		"reduce_max" };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32 };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 1;

	(void)state;
	for (int iter = 0; iter < 120; iter++) {
		int r = iter % 5, op = iter % 3, keep = iter / 3 % 2, ry = 0;
		sym_dtype dt = dts[iter / 6 % 3];
		unsigned char mark[5] = { 0 };
		int64_t dx[5], dy[5], ax[5], cx[5], cy[5], na = 0, norm = 0;
		sym_attrs *at = kt_attrs(ctx);
		struct sym__tensor x, y;
		struct sym__kernel_args a;
		double *want, *cnt;
		int all = iter % 4 == 3;

		for (int d = 0; d < r; d++) {
			dx[d] = kt_irand(&s, iter % 17 == 16 ? 0 : 1, 4);
			if (!all && kt_irand(&s, 0, 1)) {
				mark[d] = 1;
				ax[na++] = kt_irand(&s, 0, 1) ? d - r : d;
			}
		}
		if (all || na == 0)
			for (int d = 0; d < r; d++)
				mark[d] = 1;
		for (int d = 0; d < r; d++)
			if (!mark[d] || keep)
				dy[ry++] = mark[d] ? 1 : dx[d];
		if (na == 1 && iter % 2)
			sym_attrs_set_int(at, "axis", ax[0]);
		else if (na > 0)
			kt_set_ints(ctx, at, "axis", (size_t)na, ax);
		if (keep || iter % 5 == 0)
			sym_attrs_set_bool(at, "keep_dims", keep);
		x = kt_random_tensor(&s, dt, r, dx, -20, 20);
		if (dt != SYM_DT_I32 && op == 2 && kt_numel(&x) > 3 &&
		    iter % 7 == 0)
			kt_set(&x, 2, NAN);
		y = kt_tensor(dt, ry, dy);
		a = kt_args(ops[op], at, &x, 1, &y, 1);
		if (op == 1 && iter % 4 == 1) {
			norm = 7;
			a.normalizer = norm;
		}
		kt_run_args(ops[op], &a);
		want = kt_doubles(kt_numel(&y));
		cnt = kt_doubles(kt_numel(&y));
		for (int64_t i = 0; i < kt_numel(&y); i++)
			want[i] = op == 2 ? -INFINITY : 0.0;
		if (op == 2 && dt == SYM_DT_I32)
			for (int64_t i = 0; i < kt_numel(&y); i++)
				want[i] = INT32_MIN;
		for (int64_t i = 0; i < kt_numel(&x); i++) {
			int64_t k;
			double v = kt_get(&x, i);
			int j = 0;

			kt_unravel(i, r, dx, cx);
			for (int d = 0; d < r; d++)
				if (!mark[d] || keep)
					cy[j++] = mark[d] ? 0 : cx[d];
			k = kt_ravel(ry, dy, cy);
			cnt[k]++;
			if (op < 2)
				want[k] += v;
			else if (isnan(v) || isnan(want[k]))
				want[k] = NAN;
			else
				want[k] = fmax(want[k], v);
		}
		for (int64_t i = 0; i < kt_numel(&y); i++) {
			double c = norm ? (double)norm : cnt[i];

			if (op != 1)
				continue;
			if (dt == SYM_DT_I32)
				want[i] = c ? trunc(want[i] / c) : 0;
			else
				want[i] /= c;
		}
		kt_check_tensor(&y, want, kt_tol(dt, TOL_F32), ops[op]);
		free(want);
		free(cnt);
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3, 4 }, dy[] = { 2, 4 }, dk[] = { 2, 1, 4 };
		struct sym__tensor x = kt_tensor(SYM_DT_F32, 3, dx);
		struct sym__tensor y = kt_tensor(SYM_DT_F32, 2, dy);
		struct sym__tensor k = kt_tensor(SYM_DT_F32, 3, dk);
		struct sym__tensor b = kt_tensor(SYM_DT_BOOL, 3, dx);
		struct sym__tensor bk = kt_tensor(SYM_DT_BOOL, 3, dk);
		sym_attrs *at = kt_attrs(ctx);

		struct sym__tensor cnt = kt_tensor(SYM_DT_I32, 2, dy);
		double want[8];

		sym_attrs_set_int(at, "axis", 1);
		kt_run("reduce_sum", at, &x, 1, &y, 1);
		kt_fails("reduce_sum", at, &x, 1, &k, 1,
		    "with the reduced ones removed");
		for (int64_t i = 0; i < 24; i++)
			kt_set(&b, i, (double)(i % 5 == 0 || i % 7 == 0));
		for (int64_t i = 0; i < 8; i++) {
			want[i] = 0;
			for (int64_t j = 0; j < 3; j++) {
				int64_t e = (i / 4) * 12 + j * 4 + i % 4;

				want[i] += e % 5 == 0 || e % 7 == 0;
			}
		}
		kt_run("reduce_sum", at, &b, 1, &cnt, 1);
		kt_check_tensor(&cnt, want, 0, "reduce_sum of bool");
		kt_fails("reduce_sum", at, &b, 1, &y, 1,
		    "the output of a sum of bool is i32, not f32");
		sym_attrs_set_bool(at, "keep_dims", 1);
		kt_run("reduce_max", at, &x, 1, &k, 1);
		kt_run("reduce_max", at, &b, 1, &bk, 1);
		kt_fails("reduce_mean", at, &b, 1, &bk, 1, "dtype bool is not");
		kt_fails("reduce_max", at, &x, 1, &y, 1,
		    "the output's dims are not the input's with the reduced "
		    "ones set to 1");
		sym_attrs_set_int(at, "axis", 3);
		kt_decode_fails("reduce_sum", at, &x, 1, 1,
		    "axis=3 is out of range for input 0 of rank 3");
		kt_set_ints(ctx, at, "axis", 2, (const int64_t[]){ 1, -2 });
		kt_decode_fails("reduce_sum", at, &x, 1, 1,
		    "attribute axis of reduce_sum names axis 1 of input 0 twice");
		sym_attrs_set_string(at, "axis", "1");
		kt_decode_fails("reduce_sum", at, &x, 1, 1,
		    "attribute axis of reduce_sum must be an integer or a list "
		    "of integers, not a string");
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		kt_free_all(&k, 1);
		kt_free_all(&b, 1);
		kt_free_all(&bk, 1);
		kt_free_all(&cnt, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* Run the binary "op" on the dtype "dt" with u and v (one element each)
 * and check that it gives "want". */
static void
narrow_binary(const char *op, sym_dtype dt, double u, double v, double want)
{
	int64_t one[] = { 1 };
	struct sym__tensor in[2] = { kt_tensor(dt, 1, one),
		kt_tensor(dt, 1, one) };
	struct sym__tensor y = kt_tensor(dt, 1, one);
	char what[64];

	kt_set(&in[0], 0, u);
	kt_set(&in[1], 0, v);
	kt_run(op, NULL, in, 2, &y, 1);
	snprintf(what, sizeof(what), "%s %s", op, sym_dtype_name(dt));
	kt_check_tensor(&y, &want, 0, what);
	kt_free_all(in, 2);
	kt_free_all(&y, 1);
}

/* Integer kernels compute in the width of the dtype, as NumPy and
 * PyTorch: results wrap to i8, i16 and u8 (their int32 storage holds the
 * wrapped value); i64, held in int32, is refused where a result could
 * need more bits. */
static void
test_narrow_ints(void **state)
{
	int64_t d2[] = { 1, 2 }, d21[] = { 2, 1 }, d11[] = { 1, 1 };
	int64_t d12[] = { 1, 2 }, d2c[] = { 2 }, d1[] = { 1 };
	sym_ctx *ctx = tl_ctx_new();
	sym_attrs *at = kt_attrs(ctx);
	struct sym__tensor a, b, y, z;
	double w2[2];

	(void)state;
	narrow_binary("add", SYM_DT_I8, 100, 100, -56);
	narrow_binary("add", SYM_DT_I8, -100, -100, 56);
	narrow_binary("sub", SYM_DT_U8, 3, 5, 254);
	narrow_binary("add", SYM_DT_U8, 200, 100, 44);
	narrow_binary("mul", SYM_DT_I16, 300, 300, 24464);
	narrow_binary("mul", SYM_DT_U8, 16, 17, 16);
	narrow_binary("div", SYM_DT_I8, -128, -1, -128);
	narrow_binary("add", SYM_DT_I32, 2147483647, 1, -2147483648.0);
	narrow_binary("maximum", SYM_DT_I64, 7, -3, 7);
	/* neg: -(-128) is -128 in i8. */
	a = kt_tensor(SYM_DT_I8, 1, d1);
	y = kt_tensor(SYM_DT_I8, 1, d1);
	kt_set(&a, 0, -128);
	kt_run("neg", NULL, &a, 1, &y, 1);
	w2[0] = -128;
	kt_check_tensor(&y, w2, 0, "neg i8");
	kt_free_all(&a, 1);
	kt_free_all(&y, 1);
	/* bias_add: 250 + 10 is 4 in u8. */
	a = kt_tensor(SYM_DT_U8, 2, d12);
	b = kt_tensor(SYM_DT_U8, 1, d2c);
	y = kt_tensor(SYM_DT_U8, 2, d12);
	kt_set(&a, 0, 250);
	kt_set(&a, 1, 1);
	kt_set(&b, 0, 10);
	kt_set(&b, 1, 2);
	{
		struct sym__tensor in[2] = { a, b };

		kt_run("bias_add", NULL, in, 2, &y, 1);
	}
	w2[0] = 4;
	w2[1] = 3;
	kt_check_tensor(&y, w2, 0, "bias_add u8");
	kt_free_all(&a, 1);
	kt_free_all(&b, 1);
	kt_free_all(&y, 1);
	/* matmul: 100 * 1 + 100 * 1 is -56 in i8; batch_matmul alike. */
	for (int batch = 0; batch < 2; batch++) {
		struct sym__tensor in[2];
		const char *op = batch ? "batch_matmul" : "matmul";

		in[0] = kt_tensor(SYM_DT_I8, 2, d2);
		in[1] = kt_tensor(SYM_DT_I8, 2, d21);
		z = kt_tensor(SYM_DT_I8, 2, d11);
		kt_set(&in[0], 0, 100);
		kt_set(&in[0], 1, 100);
		kt_set(&in[1], 0, 1);
		kt_set(&in[1], 1, 1);
		kt_run(op, NULL, in, 2, &z, 1);
		w2[0] = -56;
		kt_check_tensor(&z, w2, 0, op);
		kt_free_all(in, 2);
		kt_free_all(&z, 1);
	}
	/* reduce_sum: 100 + 100 is -56 in i8, 200 + 100 is 44 in u8. */
	sym_attrs_set_int(at, "axis", 1);
	for (int u = 0; u < 2; u++) {
		sym_dtype dt = u ? SYM_DT_U8 : SYM_DT_I8;

		a = kt_tensor(dt, 2, d2);
		y = kt_tensor(dt, 1, d1);
		kt_set(&a, 0, u ? 200 : 100);
		kt_set(&a, 1, 100);
		kt_run("reduce_sum", at, &a, 1, &y, 1);
		w2[0] = u ? 44 : -56;
		kt_check_tensor(&y, w2, 0, "reduce_sum");
		kt_free_all(&a, 1);
		kt_free_all(&y, 1);
	}
	/* i64 is refused where a result could need more than 32 bits. */
	a = kt_tensor(SYM_DT_I64, 1, d1);
	b = kt_tensor(SYM_DT_I64, 1, d1);
	y = kt_tensor(SYM_DT_I64, 1, d1);
	{
		struct sym__tensor in[2] = { a, b };

		kt_fails("add", NULL, in, 2, &y, 1,
		    "input 0 is i64, which is held in 32 bits");
		kt_fails("neg", NULL, &a, 1, &y, 1,
		    "the input is i64, which is held in 32 bits");
	}
	kt_free_all(&a, 1);
	kt_free_all(&b, 1);
	kt_free_all(&y, 1);
	sym_attrs_free(at);
	tl_ctx_free(ctx);
}

/* Return 1 when element "i" of "t" is NaN. */
static int
is_nan_at(const struct sym__tensor *t, int64_t i)
{
	return isnan(kt_get(t, i));
}

/* NaN propagates through every floating kernel as in NumPy and PyTorch,
 * f32 and f64: relu(NaN) is NaN, every other unary function too; each
 * binary operator (maximum and minimum as np.maximum / np.minimum) and
 * bias_add give NaN when either operand is NaN; reductions and the
 * normalisations give NaN where a NaN is reduced. */
static void
test_nan(void **state)
{
	static const char *const unary_ops[] = { "relu", "gelu", "exp", "log",
		"neg", "sqrt", "tanh", "sigmoid", "identity" };
	static const char *const binary_ops[] = { "add", "sub", "mul", "div",
		"maximum", "minimum", "bias_add" };
	static const char *const norm_ops[] = { "reduce_sum", "reduce_mean",
		"reduce_max", "softmax", "log_softmax" };
	int64_t d2[] = { 2, 2 }, d1[] = { 2 };
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (int f = 0; f < 2; f++) {
		sym_dtype dt = f ? SYM_DT_F64 : SYM_DT_F32;

		for (size_t k = 0; k < sizeof(unary_ops) / sizeof(*unary_ops);
		     k++) {
			struct sym__tensor x = kt_tensor(dt, 1, d1);
			struct sym__tensor y = kt_tensor(dt, 1, d1);

			kt_set(&x, 0, NAN);
			kt_set(&x, 1, 0.5);
			kt_run(unary_ops[k], NULL, &x, 1, &y, 1);
			if (!is_nan_at(&y, 0) || is_nan_at(&y, 1))
				fail_msg("%s(NaN) is %g, (0.5) is %g",
				    unary_ops[k], kt_get(&y, 0), kt_get(&y, 1));
			kt_free_all(&x, 1);
			kt_free_all(&y, 1);
		}
		for (size_t k = 0; k < sizeof(binary_ops) / sizeof(*binary_ops);
		     k++) {
			/* [[NaN, 1], [1, 1]] op [1, NaN] (bias_add: the bias
			 * along dim 1): NaN at 0, 1 and 3, a number at 2. */
			struct sym__tensor in[2] = { kt_tensor(dt, 2, d2),
				kt_tensor(dt, 1, d1) };
			struct sym__tensor y = kt_tensor(dt, 2, d2);

			kt_set(&in[0], 0, NAN);
			for (int64_t i = 1; i < 4; i++)
				kt_set(&in[0], i, 1.0);
			kt_set(&in[1], 0, 1.0);
			kt_set(&in[1], 1, NAN);
			kt_run(binary_ops[k], NULL, in, 2, &y, 1);
			if (!is_nan_at(&y, 0) || !is_nan_at(&y, 1) ||
			    is_nan_at(&y, 2) || !is_nan_at(&y, 3))
				fail_msg("%s %s: NaN does not propagate "
				         "(%g %g %g %g)",
				    binary_ops[k], sym_dtype_name(dt),
				    kt_get(&y, 0), kt_get(&y, 1), kt_get(&y, 2),
				    kt_get(&y, 3));
			kt_free_all(in, 2);
			kt_free_all(&y, 1);
		}
		for (size_t k = 0; k < sizeof(norm_ops) / sizeof(*norm_ops);
		     k++) {
			/* Row 0 holds a NaN, row 1 none. */
			int red = !strncmp(norm_ops[k], "reduce", 6);
			sym_attrs *at = kt_attrs(ctx);
			struct sym__tensor x = kt_tensor(dt, 2, d2);
			struct sym__tensor y =
			    red ? kt_tensor(dt, 1, d1) : kt_tensor(dt, 2, d2);

			sym_attrs_set_int(at, "axis", 1);
			kt_set(&x, 0, 2.0);
			kt_set(&x, 1, NAN);
			kt_set(&x, 2, 2.0);
			kt_set(&x, 3, 3.0);
			kt_run(norm_ops[k], at, &x, 1, &y, 1);
			if (!is_nan_at(&y, 0) || is_nan_at(&y, red ? 1 : 2) ||
			    (!red && (!is_nan_at(&y, 1) || is_nan_at(&y, 3))))
				fail_msg(
				    "%s %s: NaN does not propagate (%g %g)",
				    norm_ops[k], sym_dtype_name(dt),
				    kt_get(&y, 0), kt_get(&y, 1));
			kt_free_all(&x, 1);
			kt_free_all(&y, 1);
			sym_attrs_free(at);
		}
	}
	tl_ctx_free(ctx);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_narrow_ints),
		cmocka_unit_test(test_nan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
