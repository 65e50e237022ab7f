/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: gather and one_hot, with indices
 * out of range. Each kernel is compared with a reference written in double on
 * small random inputs (seeded, so runs repeat), and every check it makes of its
 * tensors is reached by a mismatched call that must fail with -1 and its
 * message (kerntest.h).
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

/* --- gather ----------------------------------------------------------- */

/* gather along each axis with indices of ranks 0 to 2, embedding, and a
 * table split in blocks (offsets, global size) whose partial outputs add
 * up to the whole; indices out of range. */
static void
test_gather(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 3;

	(void)state;
	for (int iter = 0; iter < 36; iter++) {
		int rp = 1 + iter % 3, ri = iter / 3 % 3, ax = iter % rp, ry;
		int emb = iter % 6 == 5, blocks = iter % 4 == 3 ? 3 : 1;
		int64_t dp[3], di[2], dy[5], cy[5], cp[3];
		sym_dtype dt = iter % 2 ? SYM_DT_F64 : SYM_DT_F32;
		struct sym__tensor p, ix, y, part;
		sym_attrs *at = kt_attrs(ctx);
		double *want, *acc;

		if (emb) {
			rp = 2;
			ax = 0;
		}
		for (int d = 0; d < rp; d++)
			dp[d] = kt_irand(&s, 1, 4);
		dp[ax] = blocks * kt_irand(&s, 1, 3);
		for (int d = 0; d < ri; d++)
			di[d] = kt_irand(&s, 1, 4);
		ry = rp - 1 + ri;
		for (int d = 0, k = 0; d < rp; d++)
			if (d == ax)
				for (int j = 0; j < ri; j++)
					dy[k++] = di[j];
			else
				dy[k++] = dp[d];
		p = kt_random_tensor(&s, dt, rp, dp, -1, 1);
		ix = kt_random_tensor(&s, SYM_DT_I32, ri, di, 0,
		    (double)dp[ax] - 1);
		y = kt_tensor(dt, ry, dy);
		if (!emb)
			sym_attrs_set_int(at, "axis", iter % 2 ? ax - rp : ax);
		want = kt_doubles(kt_numel(&y));
		for (int64_t i = 0; i < kt_numel(&y); i++) {
			int64_t ci[2];

			kt_unravel(i, ry, dy, cy);
			for (int d = 0; d < ri; d++)
				ci[d] = cy[ax + d];
			for (int d = 0, k = 0; d < rp; d++) {
				cp[d] = d == ax
				    ? (int64_t)kt_get(&ix, kt_ravel(ri, di, ci))
				    : cy[k];
				k += d == ax ? ri : 1;
			}
			want[i] = kt_get(&p, kt_ravel(rp, dp, cp));
		}
		acc = kt_doubles(kt_numel(&y));
		for (int b = 0; b < blocks; b++) {
			int64_t dq[3], off[2][SYM__MAX_RANK] = { { 0 } };
			int64_t glob[2][SYM__MAX_RANK] = { { 0 } }, cq[3];
			int ip = emb ? 1 : 0;
			struct sym__kernel_args a;
			struct sym__tensor in[2];

			memcpy(dq, dp, sizeof(dq));
			dq[ax] = dp[ax] / blocks;
			part = kt_tensor(dt, rp, dq);
			for (int64_t i = 0; i < kt_numel(&part); i++) {
				kt_unravel(i, rp, dq, cq);
				cq[ax] += b * dq[ax];
				kt_set(&part, i,
				    kt_get(&p, kt_ravel(rp, dp, cq)));
			}
			off[ip][ax] = b * dq[ax];
			memcpy(glob[ip], dp, sizeof(dp));
			in[ip] = part;
			in[1 - ip] = ix;
			a = kt_args(emb ? "embedding" : "gather", at, in, 2, &y,
			    1);
			if (blocks > 1 || iter % 2) {
				a.offset = off;
				a.global_dim = glob;
			}
			kt_run_args(emb ? "embedding" : "gather", &a);
			for (int64_t i = 0; i < kt_numel(&y); i++)
				acc[i] += kt_get(&y, i);
			sym__tensor_free(&part);
		}
		kt_check_tensor(&(struct sym__tensor){ .data = acc,
		                    .dtype = SYM_DT_F64,
		                    .rank = 1,
		                    .dim = { kt_numel(&y) } },
		    want, 0.0, emb ? "embedding" : "gather");
		free(acc);
		free(want);
		kt_free_all(&p, 1);
		kt_free_all(&ix, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dp[] = { 4, 3 }, di[] = { 2 }, dy[] = { 2, 3 };
		struct sym__tensor in[2], y = kt_tensor(SYM_DT_F32, 2, dy);
		int64_t off[2][SYM__MAX_RANK] = { { 3 } };
		int64_t glob[2][SYM__MAX_RANK] = { { 6, 3 } };
		struct sym__kernel_args a;

		in[0] = kt_tensor(SYM_DT_F32, 2, dp);
		in[1] = kt_tensor(SYM_DT_I32, 1, di);
		((int32_t *)in[1].data)[1] = 4;
		kt_fails("gather", NULL, in, 2, &y, 1,
		    "index 4 (element 1) is out of range [0, 4)");
		a = kt_args("gather", NULL, in, 2, &y, 1);
		a.offset = off;
		a.global_dim = glob;
		kt_fail_args("gather", &a,
		    "the local block [3, 7) of the table is not inside its "
		    "global size 6");
		kt_fails("embedding", NULL,
		    (struct sym__tensor[]){ in[1], in[0] }, 2, &y, 1,
		    "index 4 (element 1) is out of range [0, 4)");
		kt_fails("gather", NULL, (struct sym__tensor[]){ in[0], in[0] },
		    2, &y, 1,
		    "the indices must have an integer dtype, not f32");
		kt_fails("embedding", NULL,
		    (struct sym__tensor[]){ in[1], in[1] }, 2, &y, 1,
		    "the table must have rank 2, not 1");
		y.dim[1] = 4;
		((int32_t *)in[1].data)[1] = 1;
		kt_fails("gather", NULL, in, 2, &y, 1,
		    "dim 1 of the output is 4, 3 expected");
		y.dim[1] = 3;
		kt_free_all(in, 2);
		kt_free_all(&y, 1);
	}
	tl_ctx_free(ctx);
}

/* one_hot at every axis, into f32 / f64 / int32 / bool, with blocks of
 * classes (out_offset) that concatenate to the whole, indices outside
 * the depth (zero rows); bad dtype and depth. */
static void
test_one_hot(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BOOL };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 6;

	(void)state;
	for (int iter = 0; iter < 32; iter++) {
		int ri = iter % 3, ax = (int)kt_irand(&s, 0, ri),
		    blocks = 1 + iter % 2;
		int64_t di[2], dy[3], cy[3], depth = 2 * kt_irand(&s, 1, 4);
		sym_dtype dt = dts[iter / 2 % 4];
		sym_attrs *at = kt_attrs(ctx);
		struct sym__tensor ix, y;

		for (int d = 0; d < ri; d++)
			di[d] = kt_irand(&s, 1, 4);
		for (int d = 0, k = 0; d < ri + 1; d++)
			dy[d] = d == ax ? depth / blocks : di[k++];
		ix =
		    kt_random_tensor(&s, SYM_DT_I32, ri, di, -1, (double)depth);
		if (iter % 3 == 0)
			sym_attrs_set_int(at, "depth", depth);
		else if (iter % 3 == 1)
			kt_set_ints(ctx, at, "depth", 1, &depth);
		else
			kt_set_depth_symbol(ctx, at);
		if (ax != ri || iter % 2)
			sym_attrs_set_int(at, "axis",
			    iter % 2 ? ax - ri - 1 : ax);
		if (dt != SYM_DT_F32 || iter % 4 == 0)
			sym_attrs_set_string(at, "dtype", sym_dtype_name(dt));
		y = kt_tensor(dt, ri + 1, dy);
		for (int b = 0; b < blocks; b++) {
			int64_t off[1][SYM__MAX_RANK] = { { 0 } }, ci[2];
			struct sym__kernel_args a =
			    kt_args("one_hot", at, &ix, 1, &y, 1);
			double *want = kt_doubles(kt_numel(&y));

			off[0][ax] = b * dy[ax];
			if (blocks > 1)
				a.out_offset = off;
			kt_run_args("one_hot", &a);
			for (int64_t i = 0; i < kt_numel(&y); i++) {
				kt_unravel(i, ri + 1, dy, cy);
				for (int d = 0, k = 0; d < ri + 1; d++)
					if (d != ax)
						ci[k++] = cy[d];
				want[i] = kt_get(&ix, kt_ravel(ri, di, ci)) ==
				    (double)(cy[ax] + off[0][ax]);
			}
			kt_check_tensor(&y, want, 0.0, "one_hot");
			free(want);
		}
		kt_free_all(&ix, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t di[] = { 3 }, dy[] = { 3, 4 };
		struct sym__tensor ix = kt_tensor(SYM_DT_I32, 1, di);
		struct sym__tensor y = kt_tensor(SYM_DT_F64, 2, dy);
		int64_t off[1][SYM__MAX_RANK] = { { 0, 2 } };
		struct sym__kernel_args a;
		sym_attrs *at = kt_attrs(ctx);

		sym_attrs_set_int(at, "depth", 4);
		kt_fails("one_hot", at, &ix, 1, &y, 1,
		    "the output is f64 but the attribute dtype says f32");
		sym_attrs_set_string(at, "dtype", "f64");
		sym_attrs_set_int(at, "depth", 5);
		a = kt_args("one_hot", at, &ix, 1, &y, 1);
		a.out_offset = off;
		kt_fail_args("one_hot", &a,
		    "the 4 classes from 2 of the output are not inside the "
		    "depth 5");
		kt_fails("one_hot", at, &y, 1, &y, 1,
		    "the indices must have an integer dtype");
		sym_attrs_set_int(at, "axis", 0);
		kt_fails("one_hot", at, &ix, 1, &y, 1,
		    "dim 1 of the output is 4, not 3");
		kt_free_all(&ix, 1);
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
		cmocka_unit_test(test_gather),
		cmocka_unit_test(test_one_hot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
