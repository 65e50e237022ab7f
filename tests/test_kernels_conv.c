/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: conv2d against a direct convolution
 * in double (strides, padding, dilation, groups; NHWC refused). Each kernel is
 * compared with a reference written in double on small random inputs (seeded,
 * so runs repeat), and every check it makes of its tensors is reached by a
 * mismatched call that must fail with -1 and its message (kerntest.h).
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

/* --- convolution ------------------------------------------------------ */

/* The parameters of one conv2d case. */
struct conv_case {
	int64_t n, c, h, w, o, kh, kw;
	int64_t sh, sw, ph0, ph1, pw0, pw1, dh, dw, group;
	int attr_form; /* 0: lists of 2 / 4, 1: integers, 2: lists of 4 */
};

/* Return the reference output at [i, o, y, x] of conv2d "cc" of "x" and
 * "w" (its "o" global). */
static double
ref_conv(const struct conv_case *cc, const struct sym__tensor *x,
    const struct sym__tensor *w, int64_t i, int64_t o, int64_t oy, int64_t ox)
{
	int64_t cg = cc->c / cc->group, g = o / (cc->o / cc->group);
	double sum = 0.0;

	for (int64_t c = 0; c < cg; c++)
		for (int64_t ky = 0; ky < cc->kh; ky++)
			for (int64_t kx = 0; kx < cc->kw; kx++) {
				int64_t iy =
				    oy * cc->sh - cc->ph0 + ky * cc->dh;
				int64_t ix =
				    ox * cc->sw - cc->pw0 + kx * cc->dw;

				if (iy < 0 || iy >= cc->h || ix < 0 ||
				    ix >= cc->w)
					continue;
				sum += kt_get(x,
				           ((i * cc->c + g * cg + c) * cc->h +
				               iy) *
				                   cc->w +
				               ix) *
				    kt_get(w,
				        ((o * cg + c) * cc->kh + ky) * cc->kw +
				            kx);
			}
	return sum;
}

/* Set the attributes of "cc" on "at" (of "ctx") in its attr_form. */
static void
conv_attrs(sym_ctx *ctx, sym_attrs *at, const struct conv_case *cc)
{
	if (cc->attr_form == 1) {
		sym_attrs_set_int(at, "stride", cc->sh);
		sym_attrs_set_int(at, "dilation", cc->dh);
		sym_attrs_set_int(at, "pad", cc->ph0);
	} else {
		kt_set_ints(ctx, at, "stride", cc->attr_form ? 4 : 2,
		    cc->attr_form ? (const int64_t[]){ 1, 1, cc->sh, cc->sw }
		                  : (const int64_t[]){ cc->sh, cc->sw });
		kt_set_ints(ctx, at, "dilation", 2,
		    (const int64_t[]){ cc->dh, cc->dw });
		if (cc->attr_form == 2)
			kt_set_ints(ctx, at, "pad", 2,
			    (const int64_t[]){ cc->ph0, cc->pw0 });
		else
			kt_set_ints(ctx, at, "pad", 4,
			    (const int64_t[]){
			        cc->ph0, cc->ph1, cc->pw0, cc->pw1 });
	}
	if (cc->group != 1)
		sym_attrs_set_int(at, "group", cc->group);
	if (cc->attr_form == 2)
		sym_attrs_set_string(at, "data_format", "NCHW");
}

/* Return the output extent of conv2d for one spatial dim. */
static int64_t
conv_extent(int64_t size, int64_t k, int64_t p0, int64_t p1, int64_t d,
    int64_t st)
{
	return (size + p0 + p1 - d * (k - 1) - 1) / st + 1;
}

/* conv2d on fixed and random cases (stride, asymmetric pad, dilation,
 * groups, 1x1), f32 and f64, with the output channels split in blocks
 * (offset and global size of the weight) and the input channels split
 * (partial sums); bad geometry. */
static void
test_conv2d(void **state)
{
	static const struct conv_case fixed[] = {
		{ 2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 },
		{ 1, 4, 9, 8, 6, 3, 2, 2, 3, 0, 2, 1, 0, 2, 1, 2, 0 },
		{ 2, 6, 5, 5, 6, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 3, 0 },
		{ 1, 2, 4, 4, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1 },
		{ 1, 4, 6, 7, 8, 2, 3, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2 },
		{ 3, 2, 5, 6, 2, 5, 6, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0 },
		{ 1, 1, 3, 3, 1, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1 },
	};
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 2718;

	(void)state;
	for (int iter = 0; iter < 60; iter++) {
		struct conv_case cc;
		int64_t ho, wo, blocks, cblocks = 1;
		sym_dtype dt = iter % 3 == 2 ? SYM_DT_F64 : SYM_DT_F32;
		sym_attrs *at = kt_attrs(ctx);
		struct sym__tensor x, w, y;
		double *want, *acc;

		if (iter < (int)(sizeof(fixed) / sizeof(fixed[0]))) {
			cc = fixed[iter];
		} else {
			cc.group = kt_irand(&s, 1, 3);
			cc.n = kt_irand(&s, 1, 2);
			cc.c = cc.group * kt_irand(&s, 1, 3);
			cc.o = cc.group * kt_irand(&s, 1, 3);
			cc.kh = kt_irand(&s, 1, 3);
			cc.kw = kt_irand(&s, 1, 3);
			cc.sh = kt_irand(&s, 1, 3);
			cc.sw = kt_irand(&s, 1, 3);
			cc.dh = kt_irand(&s, 1, 2);
			cc.dw = kt_irand(&s, 1, 2);
			cc.ph0 = kt_irand(&s, 0, 2);
			cc.ph1 = kt_irand(&s, 0, 2);
			cc.pw0 = kt_irand(&s, 0, 2);
			cc.pw1 = kt_irand(&s, 0, 2);
			cc.h = kt_irand(&s, 1, 8) + cc.dh * (cc.kh - 1);
			cc.w = kt_irand(&s, 1, 8) + cc.dw * (cc.kw - 1);
			cc.attr_form = iter % 3;
		}
		if (cc.attr_form == 1) {
			cc.sw = cc.sh;
			cc.dw = cc.dh;
			cc.ph1 = cc.pw0 = cc.pw1 = cc.ph0;
		} else if (cc.attr_form == 2) {
			cc.ph1 = cc.ph0;
			cc.pw1 = cc.pw0;
		}
		conv_attrs(ctx, at, &cc);
		ho = conv_extent(cc.h, cc.kh, cc.ph0, cc.ph1, cc.dh, cc.sh);
		wo = conv_extent(cc.w, cc.kw, cc.pw0, cc.pw1, cc.dw, cc.sw);
		x = kt_random_tensor(&s, dt, 4,
		    (const int64_t[]){ cc.n, cc.c, cc.h, cc.w }, -1, 1);
		w = kt_random_tensor(&s, dt, 4,
		    (const int64_t[]){ cc.o, cc.c / cc.group, cc.kh, cc.kw },
		    -1, 1);
		want = kt_doubles(cc.n * cc.o * ho * wo);
		for (int64_t i = 0; i < cc.n * cc.o * ho * wo; i++)
			want[i] = ref_conv(&cc, &x, &w, i / (cc.o * ho * wo),
			    i / (ho * wo) % cc.o, i / wo % ho, i % wo);
		blocks = cc.o % 2 == 0 && iter % 2 ? 2 : 1;
		if (cc.group == 1 && cc.c % 2 == 0 && blocks == 1)
			cblocks = 2;
		acc = kt_doubles(cc.n * cc.o * ho * wo);
		for (int64_t b = 0; b < blocks * cblocks; b++) {
			int64_t ob = cc.o / blocks, cb = cc.c / cblocks;
			int64_t o0 = b % blocks * ob, c0 = b / blocks * cb;
			int64_t off[2][SYM__MAX_RANK] = { { 0 } };
			int64_t glob[2][SYM__MAX_RANK] = { { 0 } };
			struct sym__tensor in[2];
			struct sym__kernel_args a;

			in[0] = kt_tensor(dt, 4,
			    (const int64_t[]){ cc.n, cb, cc.h, cc.w });
			for (int64_t i = 0; i < kt_numel(&in[0]); i++) {
				int64_t hw = cc.h * cc.w, img = i / (cb * hw);

				kt_set(&in[0], i,
				    kt_get(&x,
				        (img * cc.c + c0 + i / hw % cb) * hw +
				            i % hw));
			}
			in[1] = kt_tensor(dt, 4,
			    (const int64_t[]){ ob,
			        cb / (cblocks > 1 ? 1 : cc.group), cc.kh,
			        cc.kw });
			for (int64_t i = 0; i < kt_numel(&in[1]); i++) {
				int64_t kk = cc.kh * cc.kw, cw = in[1].dim[1];
				int64_t cwg = cc.c / cc.group;

				kt_set(&in[1], i,
				    kt_get(&w,
				        ((o0 + i / (cw * kk)) * cwg + c0 +
				            i / kk % cw) *
				                kk +
				            i % kk));
			}
			y = kt_tensor(dt, 4,
			    (const int64_t[]){ cc.n, ob, ho, wo });
			a = kt_args("conv2d", at, in, 2, &y, 1);
			off[1][0] = o0;
			off[0][1] = off[1][1] = c0;
			glob[0][1] = glob[1][1] = cc.c;
			glob[1][0] = cc.o;
			if (blocks * cblocks > 1) {
				a.offset = off;
				a.global_dim = glob;
			}
			kt_run_args("conv2d", &a);
			for (int64_t i = 0; i < kt_numel(&y); i++) {
				int64_t hw = ho * wo, img = i / (ob * hw);

				acc[(img * cc.o + o0 + i / hw % ob) * hw +
				    i % hw] += kt_get(&y, i);
			}
			kt_free_all(in, 2);
			kt_free_all(&y, 1);
		}
		kt_check_tensor(&(struct sym__tensor){ .data = acc,
		                    .dtype = SYM_DT_F64,
		                    .rank = 1,
		                    .dim = { cc.n * cc.o * ho * wo } },
		    want, kt_tol(dt, TOL_F32_SUM), "conv2d");
		free(acc);
		free(want);
		kt_free_all(&x, 1);
		kt_free_all(&w, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 1, 4, 5, 5 }, dw[] = { 4, 2, 3, 3 };
		int64_t dy[] = { 1, 4, 3, 3 };
		struct sym__tensor in[2], y = kt_tensor(SYM_DT_F32, 4, dy);
		sym_attrs *at = kt_attrs(ctx);

		in[0] = kt_tensor(SYM_DT_F32, 4, dx);
		in[1] = kt_tensor(SYM_DT_F32, 4, dw);
		kt_fails("conv2d", NULL, in, 2, &y, 1,
		    "x has 4 channels, the weight 2 per group");
		sym_attrs_set_int(at, "group", 2);
		kt_run("conv2d", at, in, 2, &y, 1);
		sym_attrs_set_int(at, "stride", 2);
		kt_fails("conv2d", at, in, 2, &y, 1,
		    "the output must be [1, 4, 2, 2]");
		kt_set_ints(ctx, at, "stride", 3, (const int64_t[]){ 1, 2, 2 });
		kt_decode_fails("conv2d", at, in, 2, 1,
		    "attribute stride of conv2d must be an integer, a list of 2");
		sym_attrs_set_int(at, "stride", 0);
		kt_decode_fails("conv2d", at, in, 2, 1,
		    "attribute stride of conv2d must be at least 1");
		sym_attrs_set_int(at, "stride", 1);
		sym_attrs_set_int(at, "pad", -1);
		kt_decode_fails("conv2d", at, in, 2, 1,
		    "attribute pad of conv2d must not be negative");
		sym_attrs_set_int(at, "pad", 0);
		sym_attrs_set_string(at, "data_format", "NHWC");
		kt_decode_fails("conv2d", at, in, 2, 1,
		    "conv2d supports data_format=\"NCHW\" only, not \"NHWC\"");
		sym_attrs_set_string(at, "data_format", "NCHW");
		sym_attrs_set_int(at, "group", 0);
		kt_decode_fails("conv2d", at, in, 2, 1,
		    "attribute group of conv2d must be at least 1");
		sym_attrs_set_int(at, "group", 2);
		sym_attrs_set_int(at, "dilation", 3);
		kt_fails("conv2d", at, in, 2, &y, 1,
		    "(output sizes at least 1)");
		sym_attrs_set_int(at, "dilation", 1);
		sym_attrs_set_int(at, "pad", INT64_MAX);
		kt_fails("conv2d", at, in, 2, &y, 1,
		    "the output extent overflows 64 bits (stride 1, 1, pad "
		    "9223372036854775807, 9223372036854775807");
		kt_free_all(in, 2);
		in[0] = kt_tensor(SYM_DT_I32, 4, dx);
		in[1] = kt_tensor(SYM_DT_I32, 4, dw);
		kt_fails("conv2d", NULL, in, 2, &y, 1,
		    "x must have a floating dtype");
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
		cmocka_unit_test(test_conv2d),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
