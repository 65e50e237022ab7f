/* SPDX-License-Identifier: MIT */
/*
 * Kernel of the convolution family: conv2d(x [N, C, H, W], weight [O,
 * C / group, kh, kw]) -> [N, O, Ho, Wo] in NCHW, with stride, pad
 * (top, bottom, left, right), dilation and group read as the shape rule
 * reads them, by im2col and one CBLAS product per image and group (a
 * 1x1 kernel with unit stride and no padding skips im2col). f32 and f64.
 *
 * The weight's output channels may be a block of the global ones
 * (args->offset / args->global_dim of input 1 along dim 0): each local
 * output channel then uses the input channels of its global group.
 * Split input channels (group 1) simply give partial sums.
 *
 * Its gradients, conv2d_input_grad(dy, weight, x) -> dx and
 * conv2d_weight_grad(dy, x, weight) -> dw, check the same geometry with
 * dy in the place of the output and use the same columns: per image and
 * group, dx's columns are weight^T x dy (one CBLAS product), added back
 * into dx by col2im (the transposed convolution); dw is dy x columns^T,
 * accumulated over the images by the product itself (beta 1). A 1x1
 * kernel with unit stride and no padding reads and writes x and dx in
 * place of the columns. The output channels of dy and the weight may be
 * a block of the global ones as for conv2d (the group of each from the
 * weight's offset); a block of the batch gives dw a partial sum, a block
 * of O gives dx one.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

/* The geometry of one conv2d call. */
struct conv {
	enum sym__kst kst;
	int64_t n, c, h, w;        /* x */
	int64_t o, cg, kh, kw;     /* weight (local O) */
	int64_t ho, wo;            /* output */
	int64_t stride[2], dil[2]; /* height, width */
	int64_t pad[4];            /* top, bottom, left, right */
	int64_t group, o_global, o_off;
};

/* Copy the decoded attributes of the call "a" of "op" into "cv";
 * return 0 or -1. */
static int
read_attrs(struct sym__kernel_args *a, const char *op, struct conv *cv)
{
	const struct sym__opattrs *at = sym__kat(a, op);

	if (!at)
		return -1;
	memcpy(cv->stride, at->conv.stride, sizeof(cv->stride));
	memcpy(cv->dil, at->conv.dilation, sizeof(cv->dil));
	memcpy(cv->pad, at->conv.pad, sizeof(cv->pad));
	cv->group = at->conv.group;
	if (cv->group < 1 || cv->stride[0] < 1 || cv->stride[1] < 1 ||
	    cv->dil[0] < 1 || cv->dil[1] < 1)
		return sym__kfail(a, op, "invalid decoded attributes");
	return 0;
}

/* Fill "cv" from the tensors and attributes of the call "a" of "op",
 * checking them: x, the weight and the convolution's output "y" (called
 * "yn": the output of conv2d, dy of its gradients) are inputs "ix" and
 * "iw" and the tensor "y". Return 0 or -1. */
static int
setup(struct sym__kernel_args *a, const char *op, int ix, int iw,
    const struct sym__tensor *y, const char *yn, struct conv *cv)
{
	const struct sym__tensor *x = &a->in[ix], *w = &a->in[iw];

	if (read_attrs(a, op, cv) < 0 || sym__kfloat(a, op, x, "x") < 0 ||
	    sym__ksame_kst(a, op, x, "x", w, "the weight") < 0 ||
	    sym__ksame_kst(a, op, x, "x", y, yn) < 0)
		return -1;
	if (x->rank != 4 || w->rank != 4 || y->rank != 4)
		return sym__kfail(a, op,
		    "x, the weight and %s must have rank 4", yn);
	cv->kst = sym__kst(x->dtype);
	cv->n = x->dim[0], cv->c = x->dim[1], cv->h = x->dim[2];
	cv->w = x->dim[3];
	cv->o = w->dim[0], cv->cg = w->dim[1], cv->kh = w->dim[2];
	cv->kw = w->dim[3];
	cv->o_global = sym__kin_global(a, iw, 0);
	cv->o_off = sym__kin_offset(a, iw, 0);
	if (cv->c != cv->cg * cv->group || cv->o_global % cv->group ||
	    cv->o_off < 0 || cv->o > cv->o_global - cv->o_off)
		return sym__kfail(a, op,
		    "x has %lld channels, the weight %lld per group, %lld of "
		    "%lld outputs from %lld, for group=%lld",
		    (long long)cv->c, (long long)cv->cg, (long long)cv->o,
		    (long long)cv->o_global, (long long)cv->o_off,
		    (long long)cv->group);
	if (sym__conv_extent(cv->h, cv->kh, cv->pad[0], cv->pad[1], cv->dil[0],
	        cv->stride[0], &cv->ho) < 0 ||
	    sym__conv_extent(cv->w, cv->kw, cv->pad[2], cv->pad[3], cv->dil[1],
	        cv->stride[1], &cv->wo) < 0)
		return sym__kfail(a, op,
		    "the output extent overflows 64 bits (stride %lld, %lld, "
		    "pad %lld, %lld, %lld, %lld)",
		    (long long)cv->stride[0], (long long)cv->stride[1],
		    (long long)cv->pad[0], (long long)cv->pad[1],
		    (long long)cv->pad[2], (long long)cv->pad[3]);
	if (cv->ho < 1 || cv->wo < 1 || y->dim[0] != cv->n ||
	    y->dim[1] != cv->o || y->dim[2] != cv->ho || y->dim[3] != cv->wo)
		return sym__kfail(a, op,
		    "%s must be [%lld, %lld, %lld, %lld] (output sizes at "
		    "least 1)",
		    yn, (long long)cv->n, (long long)cv->o, (long long)cv->ho,
		    (long long)cv->wo);
	if (cv->cg * cv->kh * cv->kw > INT_MAX || cv->ho * cv->wo > INT_MAX ||
	    cv->o > INT_MAX)
		return sym__kfail(a, op,
		    "the products exceed CBLAS's int sizes");
	return 0;
}

/* Store in "*lo" and "*hi" the range of output positions whose input
 * position "pos" * "stride" + "base" is inside [0, "size"), clamped to
 * [0, "n"). */
static void
valid_range(int64_t base, int64_t stride, int64_t size, int64_t n, int64_t *lo,
    int64_t *hi)
{
	*lo = base >= 0 ? 0 : (-base + stride - 1) / stride;
	*hi = size - base <= 0 ? 0 : (size - base + stride - 1) / stride;
	*hi = *hi < n ? *hi : n;
	*lo = *lo < *hi ? *lo : *hi;
}

/* Row r of the columns of a convolution (IM2COL): its channel "c", the
 * input row "ih0" of output row 0, the input column "bw" of output
 * column 0, and the output columns [lo, hi) whose input column is inside
 * the image. */
struct col_row {
	int64_t c, ih0, bw, lo, hi;
};

/* Return the geometry of row "r" of the columns of "cv". */
static struct col_row
col_row(const struct conv *cv, int64_t r)
{
	int64_t kk = cv->kh * cv->kw;
	struct col_row cr;

	cr.c = r / kk;
	cr.ih0 = r % kk / cv->kw * cv->dil[0] - cv->pad[0];
	cr.bw = r % cv->kw * cv->dil[1] - cv->pad[2];
	valid_range(cr.bw, cv->stride[1], cv->w, cv->wo, &cr.lo, &cr.hi);
	return cr;
}

/*
 * IM2COL(name, T): the function name(cv, x, col) that writes the columns
 * of the "cv->cg" channels of one image at "x" (type T) into "col",
 * [cg * kh * kw, ho * wo]: row (c, i, j) holds, for each output position
 * (oh, ow), the input at (oh * stride + i * dilation - pad, likewise for
 * the width), 0 in the padding.
 */
#define IM2COL(name, T)                                                       \
	static void name(const struct conv *cv, const T *restrict x,          \
	    T *restrict col)                                                  \
	{                                                                     \
		int64_t sw = cv->stride[1], wo = cv->wo;                      \
                                                                              \
		for (int64_t r = 0; r < cv->cg * cv->kh * cv->kw; r++) {      \
			struct col_row cr = col_row(cv, r);                   \
			int64_t bw = cr.bw, lo = cr.lo, hi = cr.hi;           \
                                                                              \
			for (int64_t oh = 0; oh < cv->ho; oh++) {             \
				T *o = col + (r * cv->ho + oh) * wo;          \
				int64_t ih = oh * cv->stride[0] + cr.ih0;     \
				const T *xr;                                  \
                                                                              \
				if (ih < 0 || ih >= cv->h) {                  \
					memset(o, 0, (size_t)wo * sizeof(T)); \
					continue;                             \
				}                                             \
				xr = x + (cr.c * cv->h + ih) * cv->w;         \
				for (int64_t q = 0; q < lo; q++)              \
					o[q] = 0;                             \
				SYM__SIMD                                     \
				for (int64_t q = lo; q < hi; q++)             \
					o[q] = xr[bw + q * sw];               \
				for (int64_t q = hi; q < wo; q++)             \
					o[q] = 0;                             \
			}                                                     \
		}                                                             \
	}

/*
 * COL2IM(name, T): the function name(cv, col, x) that adds the columns
 * "col" ([cg * kh * kw, ho * wo], as IM2COL lays them out) back into the
 * "cv->cg" channels of one image at "x" (type T): each column element to
 * the input position it was read from, nothing for the padding. It walks
 * the columns as IM2COL does; the two stay apart because joining them
 * made conv2d_input_grad 10 to 25 % slower (bench_conv).
 */
#define COL2IM(name, T)                                                    \
	static void name(const struct conv *cv, const T *restrict col,     \
	    T *restrict x)                                                 \
	{                                                                  \
		int64_t sw = cv->stride[1], wo = cv->wo;                   \
                                                                           \
		for (int64_t r = 0; r < cv->cg * cv->kh * cv->kw; r++) {   \
			struct col_row cr = col_row(cv, r);                \
			int64_t bw = cr.bw, lo = cr.lo, hi = cr.hi;        \
                                                                           \
			for (int64_t oh = 0; oh < cv->ho; oh++) {          \
				const T *o = col + (r * cv->ho + oh) * wo; \
				int64_t ih = oh * cv->stride[0] + cr.ih0;  \
				T *xr;                                     \
                                                                           \
				if (ih < 0 || ih >= cv->h)                 \
					continue;                          \
				xr = x + (cr.c * cv->h + ih) * cv->w + bw; \
				for (int64_t q = lo; q < hi; q++)          \
					xr[q * sw] += o[q];                \
			}                                                  \
		}                                                          \
	}

IM2COL(im2col_f32, float)
IM2COL(im2col_f64, double)
COL2IM(col2im_f32, float)
COL2IM(col2im_f64, double)

/* c = op(a) x op(b) + beta c in the storage of "cv", row-major: op(a) is
 * [m, k] ("ta": a is stored [k, m]), op(b) [k, n] ("tb": b is [n, k]),
 * "lda", "ldb" and "ldc" their leading dimensions. */
static void
gemm(const struct conv *cv, int ta, int tb, int64_t m, int64_t n, int64_t k,
    const void *a, int64_t lda, const void *b, int64_t ldb, int beta, void *c,
    int64_t ldc)
{
	enum CBLAS_TRANSPOSE oa = ta ? CblasTrans : CblasNoTrans;
	enum CBLAS_TRANSPOSE ob = tb ? CblasTrans : CblasNoTrans;

	if (cv->kst == SYM__KST_F32)
		cblas_sgemm(CblasRowMajor, oa, ob, (int)m, (int)n, (int)k, 1.0f,
		    a, (int)lda, b, (int)ldb, (float)beta, c, (int)ldc);
	else
		cblas_dgemm(CblasRowMajor, oa, ob, (int)m, (int)n, (int)k, 1.0,
		    a, (int)lda, b, (int)ldb, (double)beta, c, (int)ldc);
}

/* Return 1 when the convolution "cv" is a plain 1x1 product (no im2col
 * needed). */
static int
pointwise(const struct conv *cv)
{
	return cv->kh == 1 && cv->kw == 1 && cv->stride[0] == 1 &&
	    cv->stride[1] == 1 && !cv->pad[0] && !cv->pad[1] && !cv->pad[2] &&
	    !cv->pad[3];
}

/* Return the bytes of an element of the storage of "cv". */
static int64_t
elem_bytes(const struct conv *cv)
{
	return cv->kst == SYM__KST_F32 ? 4 : 8;
}

/* Return the end of the run of local output channels of "cv" from "o0"
 * that belong to one group, storing that group in "*g". */
static int64_t
group_end(const struct conv *cv, int64_t o0, int64_t *g)
{
	int64_t per = cv->o_global / cv->group, o1;

	*g = (cv->o_off + o0) / per;
	o1 = (*g + 1) * per - cv->o_off;
	return o1 < cv->o ? o1 : cv->o;
}

/* Return the offset in bytes of the channels of group "g" of image "i"
 * in x (or dx) for "cv". */
static int64_t
group_offset(const struct conv *cv, int64_t i, int64_t g)
{
	return (i * cv->c + g * cv->cg) * cv->h * cv->w * elem_bytes(cv);
}

/* Write the columns of the channels of group "g" of image "i" of "x" for
 * "cv" into "col"; return them ("col", or x itself when pointwise). */
static const char *
columns(const struct conv *cv, const char *x, int64_t i, int64_t g, char *col)
{
	const char *xg = x + group_offset(cv, i, g);

	if (pointwise(cv))
		return xg;
	if (cv->kst == SYM__KST_F32)
		im2col_f32(cv, (const float *)(const void *)xg,
		    (float *)(void *)col);
	else
		im2col_f64(cv, (const double *)(const void *)xg,
		    (double *)(void *)col);
	return col;
}

/* Convolve image "i" of "x" with "w" into "y" for "cv", one product per
 * group, using "col" (room for cg * kh * kw * ho * wo elements, unused
 * when pointwise). */
static void
image(const struct conv *cv, int64_t i, const char *x, const char *w, char *y,
    char *col)
{
	int64_t es = elem_bytes(cv), k = cv->cg * cv->kh * cv->kw;
	int64_t p = cv->ho * cv->wo;

	for (int64_t o0 = 0, o1, g; o0 < cv->o; o0 = o1) {
		o1 = group_end(cv, o0, &g);
		gemm(cv, 0, 0, o1 - o0, p, k, w + o0 * k * es, k,
		    columns(cv, x, i, g, col), p, 0,
		    y + (i * cv->o + o0) * p * es, p);
	}
}

/* Return the bytes of the columns of one image of "cv". */
static size_t
col_bytes(const struct conv *cv)
{
	return (size_t)(cv->cg * cv->kh * cv->kw) * (size_t)(cv->ho * cv->wo) *
	    (size_t)elem_bytes(cv);
}

/* Return room for the columns of one image of the call "a" of "op" for
 * "cv" from its scratch area, NULL with an error when out of memory. */
static char *
col_area(struct sym__kernel_args *a, const char *op, const struct conv *cv)
{
	char *col = sym__kscratch_get(a, col_bytes(cv));

	if (!col)
		sym__kfail(a, op, "out of memory");
	return col;
}

/* The kernel of conv2d; "a" is the call. */
int
sym__kern_conv2d(struct sym__kernel_args *a)
{
	static const char op[] = "conv2d";
	struct conv cv;
	char *col = NULL;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 ||
	    setup(a, op, 0, 1, &a->out[0], "the output", &cv) < 0)
		return -1;
	if (sym__tensor_numel(&a->out[0]) == 0)
		return 0;
	if (cv.cg * cv.kh * cv.kw == 0) {
		memset(a->out[0].data, 0,
		    (size_t)sym__tensor_numel(&a->out[0]) *
		        (size_t)elem_bytes(&cv));
		return 0;
	}
	if (!pointwise(&cv) && !(col = col_area(a, op, &cv)))
		return -1;
	for (int64_t i = 0; i < cv.n; i++)
		image(&cv, i, a->in[0].data, a->in[1].data, a->out[0].data,
		    col);
	sym__kscratch_done(a, col);
	return 0;
}

/* Add to image "i" of "dx" the gradient that the local output channels
 * of "cv" give it through the weight "w" from "dy", one product per
 * group into "col" (added back into dx by col2im; directly into dx
 * when pointwise). */
static void
input_grad_image(const struct conv *cv, int64_t i, const char *dy,
    const char *w, char *dx, char *col)
{
	int64_t es = elem_bytes(cv), k = cv->cg * cv->kh * cv->kw;
	int64_t p = cv->ho * cv->wo;
	int pw = pointwise(cv);

	for (int64_t o0 = 0, o1, g; o0 < cv->o; o0 = o1) {
		char *xg;

		o1 = group_end(cv, o0, &g);
		xg = dx + group_offset(cv, i, g);
		gemm(cv, 1, 0, k, p, o1 - o0, w + o0 * k * es, k,
		    dy + (i * cv->o + o0) * p * es, p, pw, pw ? xg : col, p);
		if (!pw && cv->kst == SYM__KST_F32)
			col2im_f32(cv, (const float *)(const void *)col,
			    (float *)(void *)xg);
		else if (!pw)
			col2im_f64(cv, (const double *)(const void *)col,
			    (double *)(void *)xg);
	}
}

/* Add to "dw" the gradient of the weight of "cv" that image "i" of "x"
 * and "dy" give (set it when "beta" is 0), one product per group, the
 * columns in "col". */
static void
weight_grad_image(const struct conv *cv, int64_t i, const char *dy,
    const char *x, char *dw, char *col, int beta)
{
	int64_t es = elem_bytes(cv), k = cv->cg * cv->kh * cv->kw;
	int64_t p = cv->ho * cv->wo;

	for (int64_t o0 = 0, o1, g; o0 < cv->o; o0 = o1) {
		o1 = group_end(cv, o0, &g);
		gemm(cv, 0, 1, o1 - o0, k, p, dy + (i * cv->o + o0) * p * es, p,
		    columns(cv, x, i, g, col), p, beta, dw + o0 * k * es, k);
	}
}

/* Return the scratch bytes of the call "a" of conv2d or one of its
 * gradients (sym__kernel_scratch): the columns of one image, none for
 * a pointwise conv2d, 0 when the tensors do not fit (the kernel then
 * refuses them); checked on a copy of "a", whose message is dropped. */
size_t
sym__kscratch_conv(const struct sym__kernel_args *a)
{
	struct sym__kernel_args c = *a;
	struct conv cv;
	int id = a->op->id, fwd = id == SYM__OP_CONV2D, rc;

	c.error = NULL;
	if (fwd)
		rc = sym__kio(&c, "conv2d", 2, 2, 1, 1) < 0 ||
		    setup(&c, "conv2d", 0, 1, &c.out[0], "the output", &cv) < 0;
	else
		rc = sym__kio(&c, a->op->name, 3, 3, 1, 1) < 0 ||
		    setup(&c, a->op->name,
		        id == SYM__OP_CONV2D_INPUT_GRAD ? 2 : 1,
		        id == SYM__OP_CONV2D_INPUT_GRAD ? 1 : 2, &c.in[0], "dy",
		        &cv) < 0;
	free(c.error);
	if (rc || (fwd && pointwise(&cv)))
		return 0;
	return col_bytes(&cv) ? col_bytes(&cv) : 1;
}

/* The kernel of conv2d_input_grad(dy, weight, x) -> dx of the dims of
 * x; "a" is the call. */
int
sym__kern_conv2d_input_grad(struct sym__kernel_args *a)
{
	static const char op[] = "conv2d_input_grad";
	struct sym__tensor *dx = &a->out[0];
	struct conv cv;
	char *col;

	if (sym__kio(a, op, 3, 3, 1, 1) < 0 ||
	    setup(a, op, 2, 1, &a->in[0], "dy", &cv) < 0 ||
	    sym__ksame_kst(a, op, &a->in[2], "x", dx, "the output") < 0 ||
	    sym__ksame_dims(a, op, &a->in[2], "x", dx, "the output") < 0)
		return -1;
	memset(dx->data, 0,
	    (size_t)sym__tensor_numel(dx) * sym__tensor_elem_size(dx->dtype));
	if (sym__tensor_numel(dx) == 0 || cv.cg * cv.kh * cv.kw == 0)
		return 0;
	col = col_area(a, op, &cv);
	if (!col)
		return -1;
	for (int64_t i = 0; i < cv.n; i++)
		input_grad_image(&cv, i, a->in[0].data, a->in[1].data, dx->data,
		    col);
	sym__kscratch_done(a, col);
	return 0;
}

/* The kernel of conv2d_weight_grad(dy, x, weight) -> dw of the dims of
 * the weight; "a" is the call. */
int
sym__kern_conv2d_weight_grad(struct sym__kernel_args *a)
{
	static const char op[] = "conv2d_weight_grad";
	struct sym__tensor *dw = &a->out[0];
	struct conv cv;
	char *col;

	if (sym__kio(a, op, 3, 3, 1, 1) < 0 ||
	    setup(a, op, 1, 2, &a->in[0], "dy", &cv) < 0 ||
	    sym__ksame_kst(a, op, &a->in[2], "the weight", dw, "the output") <
	        0 ||
	    sym__ksame_dims(a, op, &a->in[2], "the weight", dw, "the output") <
	        0)
		return -1;
	memset(dw->data, 0,
	    (size_t)sym__tensor_numel(dw) * sym__tensor_elem_size(dw->dtype));
	if (sym__tensor_numel(dw) == 0 || cv.n == 0 || cv.ho * cv.wo == 0)
		return 0;
	col = col_area(a, op, &cv);
	if (!col)
		return -1;
	for (int64_t i = 0; i < cv.n; i++)
		weight_grad_image(&cv, i, a->in[0].data, a->in[1].data,
		    dw->data, col, i > 0);
	sym__kscratch_done(a, col);
	return 0;
}
