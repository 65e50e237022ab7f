/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: matmul and batch_matmul against a
 * naive product in double, through transpositions, broadcast batches and f64.
 * Each kernel is compared with a reference written in double on small random
 * inputs (seeded, so runs repeat), and every check it makes of its tensors is
 * reached by a mismatched call that must fail with -1 and its message
 * (kerntest.h).
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

/* --- matmul ----------------------------------------------------------- */

/* Store in "c" the product of "x" and "y" (the last two dims of each,
 * transposed when "ta" / "tb"), batch offsets "ax" and "ay" (elements),
 * for [m, n] from a contraction of "k". */
static void
ref_gemm(const struct sym__tensor *x, int64_t ax, const struct sym__tensor *y,
    int64_t ay, int ta, int tb, int64_t m, int64_t n, int64_t k, double *c)
{
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			double s = 0.0;

			for (int64_t p = 0; p < k; p++)
				s += kt_get(x,
				         ax + (ta ? p * m + i : i * k + p)) *
				    kt_get(y,
				        ay + (tb ? j * k + p : p * n + j));
			c[i * n + j] = s;
		}
}

/* matmul in f32, f64 and int32 with every transposition against the
 * reference; empty contractions; mismatches. */
static void
test_matmul(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32 };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 0x9e3779b97f4a7c15u;

	(void)state;
	for (int iter = 0; iter < 48; iter++) {
		sym_dtype dt = dts[iter % 3];
		int ta = iter / 3 % 2, tb = iter / 6 % 2;
		int64_t m = kt_irand(&s, 1, 9), n = kt_irand(&s, 1, 9);
		int64_t k = iter % 16 == 15 ? 0 : kt_irand(&s, 1, 40);
		int64_t da[] = { ta ? k : m, ta ? m : k };
		int64_t db[] = { tb ? n : k, tb ? k : n }, dc[] = { m, n };
		sym_attrs *at = kt_attrs(ctx);
		struct sym__tensor in[2], out = kt_tensor(dt, 2, dc);
		double *want = kt_doubles(m * n);

		in[0] = kt_random_tensor(&s, dt, 2, da, -2, 2);
		in[1] = kt_random_tensor(&s, dt, 2, db, -2, 2);
		kt_fill(&out, &s, -9, 9);
		if (ta)
			sym_attrs_set_bool(at, "transpose_a", 1);
		sym_attrs_set_bool(at, "transpose_b", tb);
		kt_run("matmul", at, in, 2, &out, 1);
		ref_gemm(&in[0], 0, &in[1], 0, ta, tb, m, n, k, want);
		kt_check_tensor(&out, want, kt_tol(dt, TOL_F32_SUM), "matmul");
		free(want);
		kt_free_all(in, 2);
		kt_free_all(&out, 1);
		sym_attrs_free(at);
	}
	{
		int64_t da[] = { 3, 4 }, db[] = { 5, 2 }, dc[] = { 3, 2 };
		int64_t dd[] = { 3, 3 }, d1[] = { 3 };
		struct sym__tensor in[2], out = kt_tensor(SYM_DT_F32, 2, dc),
		                          o2;
		sym_attrs *at = kt_attrs(ctx);

		in[0] = kt_tensor(SYM_DT_F32, 2, da);
		in[1] = kt_tensor(SYM_DT_F32, 2, db);
		kt_fails("matmul", NULL, in, 2, &out, 1,
		    "the contracted dims differ: 4 in input 0, 5 in input 1");
		sym__tensor_free(&in[1]);
		db[0] = 4;
		in[1] = kt_tensor(SYM_DT_F64, 2, db);
		kt_fails("matmul", NULL, in, 2, &out, 1, "input 0 is f32 but");
		sym__tensor_free(&in[1]);
		in[1] = kt_tensor(SYM_DT_F32, 2, db);
		o2 = kt_tensor(SYM_DT_F32, 2, dd);
		kt_fails("matmul", NULL, in, 2, &o2, 1,
		    "the output is [3, 3], the product [3, 2]");
		sym__tensor_free(&o2);
		o2 = kt_tensor(SYM_DT_F32, 1, d1);
		kt_fails("matmul", NULL, in, 2, &o2, 1, "rank 2");
		sym_attrs_set_int(at, "transpose_a", 1);
		kt_decode_fails("matmul", at, in, 2, 1,
		    "attribute transpose_a of matmul must be true or false, not an integer");
		sym__tensor_free(&o2);
		kt_free_all(in, 2);
		kt_free_all(&out, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* One batch_matmul case: inputs of ranks "ra" / "rb" and dims "da" /
 * "db" (the last two given as [m, k] / [k, n] before transposition). */
struct bmm_case {
	int ra, rb;
	int64_t da[5], db[5];
	int ta, tb;
};

/* batch_matmul with broadcast batch dims (missing or 1), transposes, the
 * folded path (a weight without batch), f64, and bad batch dims. */
static void
test_batch_matmul(void **state)
{
	static const struct bmm_case cases[] = {
		{ 3, 2, { 4, 3, 5 }, { 5, 6 }, 0, 0 },
		{ 4, 2, { 2, 3, 4, 5 }, { 5, 6 }, 0, 1 },
		{ 4, 4, { 1, 3, 4, 5 }, { 2, 1, 5, 6 }, 1, 0 },
		{ 3, 3, { 3, 2, 7 }, { 3, 7, 2 }, 1, 1 },
		{ 2, 4, { 4, 5 }, { 2, 3, 5, 6 }, 0, 0 },
		{ 3, 3, { 1, 4, 5 }, { 3, 5, 6 }, 0, 0 },
		{ 5, 3, { 2, 1, 2, 3, 4 }, { 2, 4, 2 }, 0, 0 },
		{ 3, 3, { 2, 3, 0 }, { 2, 0, 4 }, 0, 0 },
		{ 3, 3, { 0, 3, 4 }, { 1, 4, 4 }, 0, 0 },
	};
	uint64_t s = 12345;
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (size_t ci = 0; ci < 2 * sizeof(cases) / sizeof(cases[0]); ci++) {
		const struct bmm_case *c = &cases[ci / 2];
		sym_dtype dt = ci % 2 ? SYM_DT_F64 : SYM_DT_F32;
		int ra = c->ra, rb = c->rb, r = ra > rb ? ra : rb, nb = r - 2;
		int64_t da[5], db[5], dc[5], m = c->da[ra - 2];
		int64_t k = c->da[ra - 1], n = c->db[rb - 1], idx[5];
		sym_attrs *at = kt_attrs(ctx);
		struct sym__tensor in[2], out;
		double *want;

		memcpy(da, c->da, sizeof(da));
		memcpy(db, c->db, sizeof(db));
		if (c->ta) {
			da[ra - 2] = k;
			da[ra - 1] = m;
		}
		if (c->tb) {
			db[rb - 2] = n;
			db[rb - 1] = k;
		}
		for (int d = 0; d < nb; d++) {
			int dx = d - (r - ra), dy = d - (r - rb);
			int64_t nx = dx < 0 ? 1 : da[dx],
			        ny = dy < 0 ? 1 : db[dy];

			dc[d] = nx == 1 ? ny : nx;
		}
		dc[nb] = m;
		dc[nb + 1] = n;
		in[0] = kt_random_tensor(&s, dt, ra, da, -1, 1);
		in[1] = kt_random_tensor(&s, dt, rb, db, -1, 1);
		out = kt_tensor(dt, r, dc);
		kt_fill(&out, &s, -5, 5);
		sym_attrs_set_bool(at, "transpose_a", c->ta);
		sym_attrs_set_bool(at, "transpose_b", c->tb);
		kt_run("batch_matmul", at, in, 2, &out, 1);
		want = kt_doubles(kt_numel(&out));
		for (int64_t b = 0;
		     b < kt_numel(&out) / (m * n > 0 ? m * n : 1); b++) {
			int64_t ox = 0, oy = 0, cx[5], cy[5];

			kt_unravel(b, nb, dc, idx);
			for (int d = 0; d < ra - 2; d++)
				cx[d] = da[d] == 1 ? 0 : idx[d + nb - (ra - 2)];
			for (int d = 0; d < rb - 2; d++)
				cy[d] = db[d] == 1 ? 0 : idx[d + nb - (rb - 2)];
			ox = kt_ravel(ra - 2, da, cx) * m * k;
			oy = kt_ravel(rb - 2, db, cy) * k * n;
			ref_gemm(&in[0], ox, &in[1], oy, c->ta, c->tb, m, n, k,
			    want + b * m * n);
		}
		kt_check_tensor(&out, want, kt_tol(dt, TOL_F32_SUM),
		    "batch_matmul");
		free(want);
		kt_free_all(in, 2);
		kt_free_all(&out, 1);
		sym_attrs_free(at);
	}
	{
		int64_t da[] = { 2, 3, 4 }, db[] = { 3, 4, 5 };
		int64_t dc[] = { 2, 3, 5 }, d1[] = { 4 };
		struct sym__tensor in[2], out = kt_tensor(SYM_DT_F32, 3, dc);

		in[0] = kt_tensor(SYM_DT_F32, 3, da);
		in[1] = kt_tensor(SYM_DT_F32, 3, db);
		kt_fails("batch_matmul", NULL, in, 2, &out, 1,
		    "batch dim 0 differs (2 and 3)");
		sym__tensor_free(&in[1]);
		db[0] = 1;
		in[1] = kt_tensor(SYM_DT_F32, 3, db);
		dc[0] = 1;
		sym__tensor_free(&out);
		out = kt_tensor(SYM_DT_F32, 3, dc);
		kt_fails("batch_matmul", NULL, in, 2, &out, 1,
		    "batch dim 0 of the output is 1, the inputs broadcast to 2");
		sym__tensor_free(&in[1]);
		in[1] = kt_tensor(SYM_DT_F32, 1, d1);
		kt_fails("batch_matmul", NULL, in, 2, &out, 1,
		    "rank at least 2");
		kt_free_all(in, 2);
		kt_free_all(&out, 1);
	}
	tl_ctx_free(ctx);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matmul),
		cmocka_unit_test(test_batch_matmul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
