/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: the layout kernels (reshape,
 * flatten, expand_dims, squeeze, transpose) and concat, split and slice. Each
 * kernel is compared with a reference written in double on small random inputs
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

/* --- layout ----------------------------------------------------------- */

/* reshape, flatten, expand_dims and squeeze: copies, aliases and the
 * shape checks. */
static void
test_reshape_family(void **state)
{
	int64_t dx[] = { 2, 1, 3, 4 }, dr[] = { 6, 4 }, df[] = { 2, 12 };
	int64_t de[] = { 2, 1, 3, 4, 1 }, dq[] = { 2, 3, 4 };
	int64_t dq2[] = { 2, 3, 4, 1 }, ax[] = { 1, -1 };
	sym_ctx *ctx = tl_ctx_new();
	struct sym__tensor x, y;
	struct sym__opattrs dec = { 0 };
	sym_attrs *at;
	uint64_t s = 5;
	double *want;

	(void)state;
	x = kt_random_tensor(&s, SYM_DT_F32, 4, dx, -1, 1);
	want = kt_doubles(kt_numel(&x));
	for (int64_t i = 0; i < kt_numel(&x); i++)
		want[i] = kt_get(&x, i);
	at = kt_attrs(ctx);
	kt_set_ints(ctx, at, "shape", 2, (const int64_t[]){ -1, 4 });
	y = kt_tensor(SYM_DT_F32, 2, dr);
	kt_run("reshape", at, &x, 1, &y, 1);
	kt_check_tensor(&y, want, 0.0, "reshape");
	sym__tensor_free(&y);
	y.data = x.data;
	kt_run("reshape", at, &x, 1, &y, 1);
	kt_check_tensor(&y, want, 0.0, "reshape alias");
	y.dim[0] = 5;
	kt_fails("reshape", at, &x, 1, &y, 1,
	    "the input has 24 elements but the output 20");
	y.dim[0] = 6;
	y.dtype = SYM_DT_I32;
	kt_fails("reshape", at, &x, 1, &y, 1,
	    "the input is f32 but the output");
	sym_attrs_free(at);
	y = kt_tensor(SYM_DT_F32, 2, df);
	kt_run("flatten", NULL, &x, 1, &y, 1);
	kt_check_tensor(&y, want, 0.0, "flatten");
	y.dim[0] = 4;
	y.dim[1] = 6;
	kt_fails("flatten", NULL, &x, 1, &y, 1, "the output must be [dim 0");
	sym__tensor_free(&y);
	at = kt_attrs(ctx);
	sym_attrs_set_int(at, "axis", -1);
	y = kt_tensor(SYM_DT_F32, 5, de);
	kt_run("expand_dims", at, &x, 1, &y, 1);
	kt_check_tensor(&y, want, 0.0, "expand_dims");
	sym_attrs_set_int(at, "axis", 2);
	kt_fails("expand_dims", at, &x, 1, &y, 1,
	    "the output must have rank 5 and a dim 1 at 2");
	sym_attrs_set_int(at, "axis", 1);
	kt_fails("expand_dims", at, &x, 1, &y, 1,
	    "dim 2 of the output is 3, not 1");
	sym_attrs_set_int(at, "axis", 6);
	kt_decode_fails("expand_dims", at, &x, 1, 1,
	    "axis=6 is out of range for input 0 of rank 4");
	kt_decode_fails("expand_dims", NULL, &x, 1, 1,
	    "expand_dims needs the integer attribute axis");
	sym__tensor_free(&y);
	sym_attrs_free(at);
	y = kt_tensor(SYM_DT_F32, 3, dq);
	kt_run("squeeze", NULL, &x, 1, &y, 1);
	kt_check_tensor(&y, want, 0.0, "squeeze");
	at = kt_attrs(ctx);
	sym_attrs_set_int(at, "axis", -3);
	kt_run("squeeze", at, &x, 1, &y, 1);
	kt_check_tensor(&y, want, 0.0, "squeeze axis");
	sym_attrs_set_int(at, "axis", 0);
	kt_decode_fails("squeeze", at, &x, 1, 1,
	    "squeeze cannot remove dimension 0 of input 0: its size is 2");
	kt_set_ints(ctx, at, "axis", 2, ax);
	kt_decode_fails("squeeze", at, &x, 1, 1,
	    "squeeze cannot remove dimension 3 of input 0: its size is 4");
	dec.layout.mark = (const unsigned char[]){ 1, 0, 0, 0 };
	kt_fails_at("squeeze", &dec, &x, 1, &y, 1,
	    "dim 0 of the input is 2, not 1");
	sym__tensor_free(&y);
	y = kt_tensor(SYM_DT_F32, 4, dq2);
	kt_fails("squeeze", NULL, &x, 1, &y, 1,
	    "the output has rank 4, 3 expected");
	y.dim[3] = 5;
	y.dim[2] = 1;
	kt_fails("squeeze", NULL, &x, 1, &y, 1, "the output dims are not");
	sym_attrs_free(at);
	free(want);
	kt_free_all(&x, 1);
	kt_free_all(&y, 1);
	tl_ctx_free(ctx);
}

/* transpose and permute of ranks 0 to 6 with random permutations written
 * with negative axes, in every element size; bad permutations. */
static void
test_transpose(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_BOOL,
		SYM_DT_I32 };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 31337;

	(void)state;
	for (int iter = 0; iter < 60; iter++) {
		int r = iter % 7, perm[8];
		int64_t dx[8], dy[8], p[8], cx[8], cy[8];
		sym_dtype dt = dts[iter % 4];
		sym_attrs *at = kt_attrs(ctx);
		struct sym__tensor x, y;
		double *want;

		for (int d = 0; d < r; d++) {
			dx[d] = kt_irand(&s, 1, 5);
			perm[d] = d;
		}
		for (int d = r - 1; d > 0; d--) {
			int j = (int)kt_irand(&s, 0, d), t = perm[d];

			perm[d] = perm[j];
			perm[j] = t;
		}
		for (int d = 0; d < r; d++) {
			dy[d] = dx[perm[d]];
			p[d] = kt_irand(&s, 0, 1) ? perm[d] - r : perm[d];
		}
		kt_set_ints(ctx, at, "perm", (size_t)r, p);
		x = kt_random_tensor(&s, dt, r, dx, -9, 9);
		y = kt_tensor(dt, r, dy);
		kt_run(iter % 2 ? "transpose" : "permute", at, &x, 1, &y, 1);
		want = kt_doubles(kt_numel(&y));
		for (int64_t i = 0; i < kt_numel(&y); i++) {
			kt_unravel(i, r, dy, cy);
			for (int d = 0; d < r; d++)
				cx[perm[d]] = cy[d];
			want[i] = kt_get(&x, kt_ravel(r, dx, cx));
		}
		kt_check_tensor(&y, want, 0.0, "transpose");
		free(want);
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 }, dy[] = { 3, 2 };
		struct sym__tensor x = kt_tensor(SYM_DT_F32, 2, dx);
		struct sym__tensor y = kt_tensor(SYM_DT_F32, 2, dy);
		sym_attrs *at = kt_attrs(ctx);

		kt_decode_fails("transpose", NULL, &x, 1, 1,
		    "transpose needs its perm argument");
		kt_set_ints(ctx, at, "perm", 2, (const int64_t[]){ 1, -1 });
		kt_decode_fails("transpose", at, &x, 1, 1,
		    "is not a permutation: it names axis 1 twice");
		kt_set_ints(ctx, at, "perm", 2, (const int64_t[]){ 0, 1 });
		kt_fails("permute", at, &x, 1, &y, 1,
		    "dim 0 of the output is 3, dim 0 of the input 2");
		kt_set_ints(ctx, at, "perm", 2, (const int64_t[]){ 1, 0 });
		kt_fails("permute", at, &x, 1, &x, 1, "may not alias");
		kt_set_ints(ctx, at, "perm", 2, (const int64_t[]){ 1, 2 });
		kt_decode_fails("permute", at, &x, 1, 1,
		    "perm=2 is out of range for input 0 of rank 2");
		sym_attrs_free(at);
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
	}
	tl_ctx_free(ctx);
}

/* --- concat, split, slice --------------------------------------------- */

/* concat of 1 to 3 inputs along every axis (negative too) and split into
 * 1 to 3 unequal parts, checked against each other and by index. */
static void
test_concat_split(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 2024;

	(void)state;
	for (int iter = 0; iter < 40; iter++) {
		int r = 1 + iter % 4, n = 1 + iter % 3, ax = iter % r;
		int64_t base[4], dims[3][4], dy[4], cy[4], at0;
		sym_dtype dt = iter % 5 == 4 ? SYM_DT_F64 : SYM_DT_F32;
		struct sym__tensor in[3], y, parts[3];
		sym_attrs *at = kt_attrs(ctx);
		double *want;

		for (int d = 0; d < r; d++)
			base[d] = kt_irand(&s, 1, 4);
		memcpy(dy, base, sizeof(dy));
		dy[ax] = 0;
		for (int i = 0; i < n; i++) {
			memcpy(dims[i], base, sizeof(base));
			dims[i][ax] = kt_irand(&s, iter % 7 == 6 ? 0 : 1, 4);
			dy[ax] += dims[i][ax];
			in[i] = kt_random_tensor(&s, dt, r, dims[i], -1, 1);
		}
		sym_attrs_set_int(at, "axis", iter % 2 ? ax - r : ax);
		y = kt_tensor(dt, r, dy);
		kt_run("concat", at, in, n, &y, 1);
		want = kt_doubles(kt_numel(&y));
		for (int64_t i = 0; i < kt_numel(&y); i++) {
			int k = 0;

			kt_unravel(i, r, dy, cy);
			at0 = cy[ax];
			while (at0 >= dims[k][ax])
				at0 -= dims[k++][ax];
			cy[ax] = at0;
			want[i] = kt_get(&in[k], kt_ravel(r, dims[k], cy));
		}
		kt_check_tensor(&y, want, 0.0, "concat");
		for (int i = 0; i < n; i++)
			parts[i] = kt_tensor(dt, r, dims[i]);
		if (iter % 3 == 0)
			sym_attrs_set_int(at, "output_num", n);
		kt_run("split", at, &y, 1, parts, n);
		for (int i = 0; i < n; i++) {
			double *w = kt_doubles(kt_numel(&in[i]));

			for (int64_t j = 0; j < kt_numel(&in[i]); j++)
				w[j] = kt_get(&in[i], j);
			kt_check_tensor(&parts[i], w, 0.0, "split");
			free(w);
		}
		free(want);
		kt_free_all(in, n);
		kt_free_all(parts, n);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t da[] = { 2, 3 }, db[] = { 3, 3 }, dy[] = { 4, 3 };
		struct sym__tensor in[2], y = kt_tensor(SYM_DT_F32, 2, dy);
		struct sym__opattrs dec = { 0 };
		sym_attrs *at = kt_attrs(ctx);

		in[0] = kt_tensor(SYM_DT_F32, 2, da);
		in[1] = kt_tensor(SYM_DT_F32, 2, db);
		kt_fails("concat", NULL, in, 2, &y, 1,
		    "the inputs add up to 5 along axis 0, the output has 4");
		sym_attrs_set_int(at, "axis", 1);
		kt_fails("concat", at, in, 2, &y, 1,
		    "dim 0 of input 0 is 2, not 4");
		sym_attrs_set_int(at, "axis", 2);
		kt_decode_fails("concat", at, in, 2, 1,
		    "axis=2 is out of range for input 0 of rank 2");
		kt_fails("split", NULL, &y, 1, in, 2,
		    "the outputs add up to 5 along axis 0, the input has 4");
		sym_attrs_set_int(at, "axis", 0);
		sym_attrs_set_int(at, "output_num", 3);
		kt_decode_fails("split", at, &y, 1, 2,
		    "split with output_num=3 produces 3 outputs, but 2 are");
		dec.concat.parts = 3;
		kt_fails_at("split", &dec, &y, 1, in, 2,
		    "output_num=3 but 2 outputs");
		sym__tensor_free(&in[1]);
		in[1] = kt_tensor(SYM_DT_I32, 2, da);
		kt_fails("concat", NULL, in, 2, &y, 1,
		    "input 1 is i32, not f32");
		kt_free_all(in, 2);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* slice with a step in every dimension, positive or negative (negative:
 * backwards, begin counted from the last element), against the
 * definition: element i of a dimension d is begin + i * step, or
 * d - 1 - begin - i * |step| backwards; size -1 is ceildiv(d - begin,
 * |step|). f64 and f32, whose kernels copy by element size. */
static void
test_slice_step(void **state)
{
	int64_t dx[] = { 7, 5, 6 }, cx[3], cy[3];
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 11;

	(void)state;
	for (int iter = 0; iter < 40; iter++) {
		int64_t b[3], sz[3], st[3], dy[3];
		sym_dtype dt = iter % 2 ? SYM_DT_F32 : SYM_DT_F64;
		struct sym__tensor x = kt_random_tensor(&s, dt, 3, dx, -1, 1);
		struct sym__tensor y;
		sym_attrs *at = kt_attrs(ctx);
		double *want;

		for (int d = 0; d < 3; d++) {
			int64_t mag = kt_irand(&s, 1, 3), room;

			st[d] = kt_irand(&s, 0, 1) ? mag : -mag;
			b[d] = kt_irand(&s, 0, dx[d] - 1);
			room = (dx[d] - b[d] + mag - 1) / mag; /* ceildiv */
			dy[d] = kt_irand(&s, 1, room);
			sz[d] =
			    dy[d] == room && kt_irand(&s, 0, 1) ? -1 : dy[d];
		}
		kt_set_ints(ctx, at, "begin", 3, b);
		kt_set_ints(ctx, at, "size", 3, sz);
		kt_set_ints(ctx, at, "step", 3, st);
		y = kt_tensor(dt, 3, dy);
		kt_run("slice", at, &x, 1, &y, 1);
		want = kt_doubles(kt_numel(&y));
		for (int64_t i = 0; i < kt_numel(&y); i++) {
			kt_unravel(i, 3, dy, cy);
			for (int d = 0; d < 3; d++)
				cx[d] = st[d] > 0
				    ? b[d] + cy[d] * st[d]
				    : dx[d] - 1 - b[d] + cy[d] * st[d];
			want[i] = kt_get(&x, kt_ravel(3, dx, cx));
		}
		kt_check_tensor(&y, want, 0.0, "slice with a step");
		free(want);
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* slice with begin / size (size -1: to the end), on whole tensors and on
 * split blocks (global sizes), and out-of-range bounds. */
static void
test_slice(void **state)
{
	int64_t dx[] = { 4, 5, 6 }, cx[3], cy[3];
	int64_t gdim[1][SYM__MAX_RANK] = { { 4, 10, 6 } };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 8;

	(void)state;
	for (int iter = 0; iter < 30; iter++) {
		int64_t b[3], sz[3], dy[3];
		struct sym__tensor x =
		    kt_random_tensor(&s, SYM_DT_F64, 3, dx, -1, 1);
		struct sym__tensor y;
		struct sym__kernel_args a;
		sym_attrs *at = kt_attrs(ctx);
		int split = iter % 3 == 2;
		double *want;

		for (int d = 0; d < 3; d++) {
			b[d] = kt_irand(&s, 0, dx[d] - 1);
			dy[d] = kt_irand(&s, 1, dx[d] - b[d]);
			sz[d] = dy[d] == dx[d] - b[d] && kt_irand(&s, 0, 1)
			    ? -1
			    : dy[d];
		}
		if (split) {
			b[1] = 0;
			sz[1] = 10;
			dy[1] = dx[1];
		}
		kt_set_ints(ctx, at, "begin", 3, b);
		kt_set_ints(ctx, at, "size", 3, sz);
		y = kt_tensor(SYM_DT_F64, 3, dy);
		a = kt_args("slice", at, &x, 1, &y, 1);
		if (split)
			a.global_dim = gdim;
		kt_run_args("slice", &a);
		want = kt_doubles(kt_numel(&y));
		for (int64_t i = 0; i < kt_numel(&y); i++) {
			kt_unravel(i, 3, dy, cy);
			for (int d = 0; d < 3; d++)
				cx[d] = cy[d] + b[d];
			want[i] = kt_get(&x, kt_ravel(3, dx, cx));
		}
		kt_check_tensor(&y, want, 0.0, "slice");
		free(want);
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dy[] = { 2, 5, 6 };
		struct sym__tensor x = kt_tensor(SYM_DT_F32, 3, dx);
		struct sym__tensor y = kt_tensor(SYM_DT_F32, 3, dy);
		struct sym__kernel_args a;
		sym_attrs *at = kt_attrs(ctx);

		kt_set_ints(ctx, at, "begin", 3, (const int64_t[]){ 3, 0, 0 });
		kt_set_ints(ctx, at, "size", 3, (const int64_t[]){ 2, -1, -1 });
		kt_fails("slice", at, &x, 1, &y, 1,
		    "dim 0: begin 3 size 2 step 1 of a dim of 4");
		kt_set_ints(ctx, at, "begin", 2, (const int64_t[]){ 0, 0 });
		kt_decode_fails("slice", at, &x, 1, 1,
		    "attribute begin of slice has 2 items, but input 0 has rank 3");
		kt_set_ints(ctx, at, "begin", 3, (const int64_t[]){ 1, 0, 0 });
		kt_set_ints(ctx, at, "size", 3, (const int64_t[]){ 2, 3, -1 });
		sym__tensor_free(&y);
		y = kt_tensor(SYM_DT_F32, 3, (const int64_t[]){ 2, 3, 6 });
		kt_run("slice", at, &x, 1, &y, 1);
		a = kt_args("slice", at, &x, 1, &y, 1);
		a.global_dim = gdim;
		kt_fail_args("slice", &a,
		    "dim 1 is split: the slice must keep its 5 elements, not 3");
		kt_free_all(&x, 1);
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
		cmocka_unit_test(test_reshape_family),
		cmocka_unit_test(test_transpose),
		cmocka_unit_test(test_concat_split),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_slice_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
