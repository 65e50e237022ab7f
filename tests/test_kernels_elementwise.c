/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: the unary and binary elementwise
 * kernels, cast and bias_add, through broadcasting and every dtype. Each kernel
 * is compared with a reference written in double on small random inputs
 * (seeded, so runs repeat), and every check it makes of its tensors is reached
 * by a mismatched call that must fail with -1 and its message (kerntest.h).
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

/* --- elementwise ------------------------------------------------------ */

/* Return the reference of the unary "op" at "v" (integer semantics when
 * "integer"). */
static double
ref_unary(const char *op, double v, int integer)
{
	if (!strcmp(op, "relu"))
		return v > 0 ? v : 0;
	if (!strcmp(op, "neg"))
		return integer && v == INT32_MIN ? v : -v;
	if (!strcmp(op, "gelu"))
		return 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
	if (!strcmp(op, "exp"))
		return exp(v);
	if (!strcmp(op, "log"))
		return log(v);
	if (!strcmp(op, "sqrt"))
		return sqrt(v);
	if (!strcmp(op, "tanh"))
		return tanh(v);
	return 1.0 / (1.0 + exp(-v));
}

/* Every unary operator in f32 and f64 (and int32 for relu and neg)
 * against libm in double, special values included; unsupported dtypes and
 * mismatched dims. */
static void
test_unary(void **state)
{
	static const char *const ops[] = { "relu", "neg", "gelu", "exp", "log",
		"sqrt", "tanh", "sigmoid" };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BF16 };
	int64_t dim[] = { 3, 37 }, d2[] = { 3, 36 };
	uint64_t s = 777;

	(void)state;
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (size_t t = 0; t < 4; t++) {
			sym_dtype dt = dts[t];
			int positive =
			    !strcmp(ops[o], "log") || !strcmp(ops[o], "sqrt");
			struct sym__tensor x, y;
			double *want;

			if (dt == SYM_DT_I32 && o > 1)
				continue;
			x = kt_random_tensor(&s, dt, 2, dim,
			    positive ? 0.01 : -6, 6);
			y = kt_tensor(dt, 2, dim);
			if (dt == SYM_DT_I32) {
				kt_set(&x, 0, INT32_MIN);
				kt_set(&x, 1, INT32_MAX);
			} else if (!positive) {
				kt_set(&x, 0, -100.0);
				kt_set(&x, 1, 100.0);
			}
			kt_run(ops[o], NULL, &x, 1, &y, 1);
			want = kt_doubles(kt_numel(&x));
			for (int64_t i = 0; i < kt_numel(&x); i++)
				want[i] = ref_unary(ops[o], kt_get(&x, i),
				    dt == SYM_DT_I32);
			if (dt != SYM_DT_F64)
				for (int64_t i = 0; i < kt_numel(&x); i++)
					want[i] = dt == SYM_DT_I32
					    ? want[i]
					    : (double)(float)want[i];
			kt_check_tensor(&y, want, kt_tol(dt, TOL_F32_FN),
			    ops[o]);
			free(want);
			kt_free_all(&x, 1);
			kt_free_all(&y, 1);
		}
	{
		struct sym__tensor x = kt_tensor(SYM_DT_I32, 2, dim);
		struct sym__tensor y = kt_tensor(SYM_DT_I32, 2, dim);
		struct sym__tensor z = kt_tensor(SYM_DT_F32, 2, d2);
		struct sym__tensor w = kt_tensor(SYM_DT_F32, 2, dim);
		struct sym__tensor b = kt_tensor(SYM_DT_BOOL, 2, dim);

		kt_fails("exp", NULL, &x, 1, &y, 1,
		    "dtype i32 is not supported");
		kt_fails("relu", NULL, &b, 1, &b, 1,
		    "dtype bool is not supported");
		kt_fails("tanh", NULL, &w, 1, &z, 1,
		    "the input [3, 37] and the output [3, 36] must have the "
		    "same dims");
		kt_fails("sigmoid", NULL, &w, 1, &x, 1,
		    "the input is f32 but the output is i32");
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		kt_free_all(&z, 1);
		kt_free_all(&w, 1);
		kt_free_all(&b, 1);
	}
}

/* identity and cast: conversions between every storage class, with
 * truncation, saturation, NaN, wrapping to narrow integers and bool. */
static void
test_cast(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BOOL, SYM_DT_I8, SYM_DT_U8, SYM_DT_I16, SYM_DT_F16 };
	static const double special[] = { 0.0, -0.0, 1.5, -1.5, 2.7, -2.7,
		127.0, 128.0, -129.0, 255.9, 256.0, 3e9, -3e9, 40000.0, -1.0,
		NAN, INFINITY, -INFINITY, 70000.0, 1e-3 };
	int64_t n = sizeof(special) / sizeof(special[0]), dim[] = { n };
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (size_t f = 0; f < 8; f++)
		for (size_t t = 0; t < 8; t++) {
			struct sym__tensor x = kt_tensor(dts[f], 1, dim);
			struct sym__tensor y = kt_tensor(dts[t], 1, dim);
			sym_attrs *at = kt_attrs(ctx);
			int fi = !sym_dtype_is_float(dts[f]);
			double *want = kt_doubles(n);

			for (int64_t i = 0; i < n; i++) {
				double v = special[i];

				if (dts[f] == SYM_DT_BOOL)
					v = v != 0.0;
				else if (fi)
					v = isnan(v) ? 7
					             : fmax(-2e9, fmin(2e9, v));
				kt_set(&x, i, v);
			}
			for (int64_t i = 0; i < n; i++) {
				double v = kt_get(&x, i), lo = INT32_MIN;
				double hi = INT32_MAX;

				if (dts[t] == SYM_DT_BOOL) {
					want[i] = v != 0.0;
					continue;
				}
				if (sym_dtype_is_float(dts[t])) {
					want[i] = dts[t] == SYM_DT_F64
					    ? v
					    : (double)(float)v;
					continue;
				}
				if (dts[t] == SYM_DT_I8)
					lo = -128, hi = 127;
				else if (dts[t] == SYM_DT_U8)
					lo = 0, hi = 255;
				else if (dts[t] == SYM_DT_I16)
					lo = -32768, hi = 32767;
				if (!sym_dtype_is_float(dts[f])) {
					int32_t w = (int32_t)v;

					want[i] = dts[t] == SYM_DT_I8
					    ? (int8_t)w
					    : dts[t] == SYM_DT_U8  ? (uint8_t)w
					    : dts[t] == SYM_DT_I16 ? (int16_t)w
					                           : w;
					continue;
				}
				want[i] =
				    isnan(v) ? 0 : trunc(fmax(lo, fmin(hi, v)));
			}
			sym_attrs_set_string(at, "dtype",
			    sym_dtype_name(dts[t]));
			kt_run("cast", at, &x, 1, &y, 1);
			kt_check_tensor(&y, want, 0.0, "cast");
			if (dts[f] == dts[t]) {
				kt_run("identity", NULL, &x, 1, &y, 1);
				for (int64_t i = 0; i < n; i++)
					want[i] = kt_get(&x, i);
				kt_check_tensor(&y, want, 0.0, "identity");
				kt_run("identity", NULL, &x, 1, &x, 1);
			}
			free(want);
			kt_free_all(&x, 1);
			kt_free_all(&y, 1);
			sym_attrs_free(at);
		}
	{
		struct sym__tensor x = kt_tensor(SYM_DT_F32, 1, dim);
		struct sym__tensor y = kt_tensor(SYM_DT_I32, 1, dim);
		sym_attrs *at = kt_attrs(ctx);

		sym_attrs_set_string(at, "dtype", "f64");
		kt_fails("cast", at, &x, 1, &y, 1,
		    "the output is i32 but the attribute dtype says f64");
		kt_fails("identity", NULL, &x, 1, &y, 1, "is f32 but");
		sym_attrs_free(at);
		at = kt_attrs(ctx);
		sym_attrs_set_int(at, "dtype", 3);
		kt_decode_fails("cast", at, &x, 1, 1,
		    "attribute dtype of cast must be a string, not an integer");
		sym_attrs_set_string(at, "dtype", sym_dtype_name(x.dtype));
		kt_fails("cast", at, &x, 1, &x, 1, "may not alias");
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* Return the reference of the binary "op" on "u" and "v" of dtype "dt". */
static double
ref_binary(const char *op, double u, double v, sym_dtype dt)
{
	int integer = !sym_dtype_is_float(dt) && dt != SYM_DT_BOOL;
	double r;

	if (dt == SYM_DT_BOOL) {
		if (!strcmp(op, "add") || !strcmp(op, "maximum"))
			return u || v;
		return u && v;
	}
	if (!strcmp(op, "add"))
		r = u + v;
	else if (!strcmp(op, "sub"))
		r = u - v;
	else if (!strcmp(op, "mul"))
		r = u * v;
	else if (!strcmp(op, "div"))
		r = integer ? floor(u / v) : u / v;
	else if (!strcmp(op, "maximum"))
		r = isnan(u) || isnan(v) ? NAN : fmax(u, v);
	else
		r = isnan(u) || isnan(v) ? NAN : fmin(u, v);
	if (integer)
		return (double)(int32_t)(uint32_t)(int64_t)r;
	return dt == SYM_DT_F64 ? r : (double)(float)r;
}

/* One broadcasting case: operand ranks and dims. */
struct bc_case {
	int ra, rb;
	int64_t da[4], db[4];
};

/* The binary operators on every storage class through NumPy broadcasting
 * (scalars, missing and unit dims on either side), integer wrapping and
 * floor division, NaN in maximum / minimum, and failures. */
static void
test_binary(void **state)
{
	static const struct bc_case cases[] = {
		{ 2, 2, { 3, 5 }, { 3, 5 } },
		{ 3, 1, { 2, 3, 4 }, { 4 } },
		{ 1, 3, { 4 }, { 2, 3, 4 } },
		{ 3, 2, { 2, 1, 4 }, { 3, 1 } },
		{ 0, 2, { 0 }, { 3, 2 } },
		{ 2, 0, { 3, 2 }, { 0 } },
		{ 0, 0, { 0 }, { 0 } },
		{ 4, 4, { 2, 1, 3, 1 }, { 1, 4, 1, 5 } },
		{ 3, 3, { 1, 1, 1 }, { 2, 3, 4 } },
		{ 2, 3, { 3, 1 }, { 2, 1, 7 } },
		{ 2, 2, { 0, 3 }, { 1, 3 } },
	};
	static const char *const ops[] = { "add", "sub", "mul", "div",
		"maximum", "minimum" };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BOOL };
	uint64_t s = 4242;

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (size_t o = 0; o < 6; o++)
			for (size_t t = 0; t < 4; t++) {
				const struct bc_case *bc = &cases[c];
				sym_dtype dt = dts[t];
				int r = bc->ra > bc->rb ? bc->ra : bc->rb;
				int64_t dc[4], cz[4], cx[4], cy[4], dx[4],
				    dy[4];
				struct sym__tensor x, y, z;
				double *want;

				if (dt == SYM_DT_BOOL && (o == 1 || o == 3))
					continue;
				for (int d = 0; d < r; d++) {
					int ia = d - (r - bc->ra),
					    ib = d - (r - bc->rb);
					int64_t na = ia < 0 ? 1 : bc->da[ia];
					int64_t nb = ib < 0 ? 1 : bc->db[ib];

					dc[d] = na == 1 ? nb : na;
				}
				x = kt_random_tensor(&s, dt, bc->ra, bc->da,
				    -50, 50);
				y = kt_random_tensor(&s, dt, bc->rb, bc->db,
				    -50, 50);
				if (o == 3 && dt == SYM_DT_I32)
					for (int64_t i = 0; i < kt_numel(&y);
					     i++)
						if (kt_get(&y, i) == 0)
							kt_set(&y, i, 3);
				if (o >= 4 && sym_dtype_is_float(dt) &&
				    kt_numel(&x) > 1)
					kt_set(&x, 1, NAN);
				if (o < 3 && dt == SYM_DT_I32 &&
				    kt_numel(&x) > 0)
					kt_set(&x, 0, INT32_MAX);
				z = kt_tensor(dt, r, dc);
				kt_run(ops[o], NULL,
				    (struct sym__tensor[]){ x, y }, 2, &z, 1);
				want = kt_doubles(kt_numel(&z));
				memcpy(dx, bc->da, sizeof(dx));
				memcpy(dy, bc->db, sizeof(dy));
				for (int64_t i = 0; i < kt_numel(&z); i++) {
					kt_unravel(i, r, dc, cz);
					for (int d = 0; d < bc->ra; d++)
						cx[d] = dx[d] == 1
						    ? 0
						    : cz[d + r - bc->ra];
					for (int d = 0; d < bc->rb; d++)
						cy[d] = dy[d] == 1
						    ? 0
						    : cz[d + r - bc->rb];
					want[i] = ref_binary(ops[o],
					    kt_get(&x,
					        kt_ravel(bc->ra, dx, cx)),
					    kt_get(&y,
					        kt_ravel(bc->rb, dy, cy)),
					    dt);
				}
				kt_check_tensor(&z, want, kt_tol(dt, TOL_F32),
				    ops[o]);
				free(want);
				kt_free_all(&x, 1);
				kt_free_all(&y, 1);
				kt_free_all(&z, 1);
			}
	{
		int64_t da[] = { 2, 3 }, db[] = { 4 }, dz[] = { 2, 4 };
		int64_t dw[] = { 2, 1 };
		struct sym__tensor in[2], z = kt_tensor(SYM_DT_I32, 2, da);
		struct sym__tensor w = kt_tensor(SYM_DT_I32, 2, dw);

		in[0] = kt_tensor(SYM_DT_I32, 2, da);
		in[1] = kt_tensor(SYM_DT_I32, 2, da);
		kt_fails("div", NULL, in, 2, &z, 1, "integer division by zero");
		kt_fails("add", NULL, in, 2, &w, 1,
		    "dim 1: the inputs have 3 and 3, the output 1");
		sym__tensor_free(&in[1]);
		in[1] = kt_tensor(SYM_DT_I32, 1, db);
		sym__tensor_free(&z);
		z = kt_tensor(SYM_DT_I32, 2, dz);
		kt_fails("mul", NULL, in, 2, &z, 1, "(not a broadcast)");
		kt_fails("maximum", NULL, in, 2, &z, 0, "0 outputs given");
		sym__tensor_free(&in[1]);
		in[1] = kt_tensor(SYM_DT_F32, 2, da);
		kt_fails("sub", NULL, in, 2, &z, 1,
		    "input 0 is i32 but input 1 is f32");
		kt_free_all(in, 2);
		in[0] = kt_tensor(SYM_DT_BOOL, 2, da);
		in[1] = kt_tensor(SYM_DT_BOOL, 2, da);
		sym__tensor_free(&z);
		z = kt_tensor(SYM_DT_BOOL, 2, da);
		kt_fails("sub", NULL, in, 2, &z, 1,
		    "dtype bool is not supported");
		sym__tensor_free(&z);
		z = kt_tensor(SYM_DT_BOOL, 1, db);
		kt_fails("add", NULL, in, 2, &z, 1,
		    "the output has rank 1, not 2");
		kt_free_all(in, 2);
		kt_free_all(&z, 1);
		kt_free_all(&w, 1);
	}
}

/* bias_add in NCHW, NCDHW and NHWC (f32, f64, int32); bad formats and
 * bias sizes. */
static void
test_bias_add(void **state)
{
	static const char *const fmts[] = { "NCHW", "NHWC", "NCDHW", NULL };
	static const int64_t shapes[][5] = { { 2, 3, 4, 5 }, { 3, 4 },
		{ 2, 3, 2, 2, 3 } };
	static const int ranks[] = { 4, 2, 5 };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32 };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 99;

	(void)state;
	for (int f = 0; f < 4; f++)
		for (int sh = 0; sh < 3; sh++)
			for (int t = 0; t < 3; t++) {
				int r = ranks[sh];
				int c = fmts[f] && !strcmp(fmts[f], "NHWC")
				    ? r - 1
				    : 1;
				int64_t cd[5], bd[1] = { shapes[sh][c] };
				struct sym__tensor in[2], y;
				sym_attrs *at = kt_attrs(ctx);
				double *want;

				if (fmts[f])
					sym_attrs_set_string(at, "data_format",
					    fmts[f]);
				in[0] = kt_random_tensor(&s, dts[t], r,
				    shapes[sh], -9, 9);
				in[1] =
				    kt_random_tensor(&s, dts[t], 1, bd, -9, 9);
				y = kt_tensor(dts[t], r, shapes[sh]);
				kt_run("bias_add", at, in, 2, &y, 1);
				want = kt_doubles(kt_numel(&y));
				for (int64_t i = 0; i < kt_numel(&y); i++) {
					kt_unravel(i, r, shapes[sh], cd);
					want[i] = kt_get(&in[0], i) +
					    kt_get(&in[1], cd[c]);
					if (dts[t] == SYM_DT_F32)
						want[i] = (float)want[i];
				}
				kt_check_tensor(&y, want,
				    kt_tol(dts[t], TOL_F32), "bias_add");
				free(want);
				kt_free_all(in, 2);
				kt_free_all(&y, 1);
				sym_attrs_free(at);
			}
	{
		int64_t dx[] = { 2, 3, 4 }, db[] = { 4 };
		struct sym__tensor in[2], y = kt_tensor(SYM_DT_F32, 3, dx);
		sym_attrs *at = kt_attrs(ctx);

		in[0] = kt_tensor(SYM_DT_F32, 3, dx);
		in[1] = kt_tensor(SYM_DT_F32, 1, db);
		kt_fails("bias_add", NULL, in, 2, &y, 1,
		    "the bias has 4 elements but dim 1 of x is 3");
		sym_attrs_set_string(at, "data_format", "HWCN");
		kt_decode_fails("bias_add", at, in, 2, 1,
		    "must be \"NCHW\", \"NHWC\" or \"NCDHW\", not \"HWCN\"");
		kt_decode_fails("bias_add", NULL,
		    (struct sym__tensor[]){ in[1], in[1] }, 2, 1,
		    "must have rank at least 2");
		kt_fails_at("bias_add", &(struct sym__opattrs){ 0 },
		    (struct sym__tensor[]){ in[1], in[1] }, 2, &y, 1,
		    "x must have rank at least 2");
		kt_free_all(in, 2);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unary),
		cmocka_unit_test(test_cast),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_bias_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
