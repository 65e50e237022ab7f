/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the pooling family, NCHW, f32 and f64, by direct loops over
 * each image plane (rows of the window outer, columns inner, so that a
 * window reads contiguous runs of x):
 *
 *  - max_pool2d: the maximum of each window's taps inside x (padding
 *    never wins; a NaN wins, as in PyTorch); max_pool2d_grad(dy, x) adds
 *    each dy to the first maximum of its window in row-major order;
 *  - avg_pool2d: the sum of each window's taps inside x over PyTorch's
 *    divisor: the window clipped to the padded input with
 *    count_include_pad, else to x; avg_pool2d_grad spreads dy / divisor
 *    over the taps;
 *  - global_avg_pool: the mean of each plane over the global sizes of
 *    its pooled dimensions (args->global_dim: a block of them gives a
 *    partial sum of the mean); global_avg_pool_grad spreads dy / count.
 *
 * Sums are kept in double and rounded once. The sharding rule splits a
 * pooled dimension only where the windows tile it, so a local block is
 * pooled exactly like the global tensor.
 */
#include <math.h>
#include <string.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

/* The geometry of one max_pool2d or avg_pool2d call (or gradient). */
struct pool {
	int64_t planes, h, w, ho, wo;
	int64_t k[2], s[2], d[2], pad[4]; /* height, width */
	int cip;                          /* count_include_pad */
};

/* Fill "p" from the attributes of the call "a" of "op" and its x (input
 * "ix") and pooled tensor "y" (called "yn": the output, or dy), checking
 * them; return 0 or -1. */
static int
setup(struct sym__kernel_args *a, const char *op, int ix,
    const struct sym__tensor *y, const char *yn, struct pool *p)
{
	const struct sym__opattrs *at = sym__kat(a, op);
	const struct sym__tensor *x = &a->in[ix];

	if (!at || sym__kfloat(a, op, x, "x") < 0 ||
	    sym__ksame_kst(a, op, x, "x", y, yn) < 0)
		return -1;
	if (x->rank != 4 || y->rank != 4)
		return sym__kfail(a, op, "x and %s must have rank 4", yn);
	memcpy(p->k, at->pool.kernel, sizeof(p->k));
	memcpy(p->s, at->pool.stride, sizeof(p->s));
	memcpy(p->d, at->pool.dilation, sizeof(p->d));
	memcpy(p->pad, at->pool.pad, sizeof(p->pad));
	p->cip = at->pool.count_include_pad;
	p->planes = x->dim[0] * x->dim[1];
	p->h = x->dim[2];
	p->w = x->dim[3];
	for (int i = 0; i < 2; i++)
		if (p->k[i] < 1 || p->s[i] < 1 || p->d[i] < 1 ||
		    sym__pool_extent(x->dim[2 + i], p->k[i], p->pad[2 * i],
		        p->pad[2 * i + 1], p->d[i], p->s[i], at->pool.ceil_mode,
		        i ? &p->wo : &p->ho) < 0)
			return sym__kfail(a, op, "invalid decoded attributes");
	if (p->ho < 1 || p->wo < 1 || y->dim[0] != x->dim[0] ||
	    y->dim[1] != x->dim[1] || y->dim[2] != p->ho || y->dim[3] != p->wo)
		return sym__kfail(a, op,
		    "%s must be [%lld, %lld, %lld, %lld] (output sizes at "
		    "least 1)",
		    yn, (long long)x->dim[0], (long long)x->dim[1],
		    (long long)p->ho, (long long)p->wo);
	return 0;
}

/* Store in "*lo" and "*hi" the taps [lo, hi) of a window starting at
 * "start" ("k" taps "dil" apart) that fall inside [0, "size"). */
static inline void
taps(int64_t start, int64_t k, int64_t dil, int64_t size, int64_t *lo,
    int64_t *hi)
{
	*lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
	*hi = size - start <= 0 ? 0 : (size - start + dil - 1) / dil;
	*hi = *hi < k ? *hi : k;
	*lo = *lo < *hi ? *lo : *hi;
}

/* Return PyTorch's divisor of the avg_pool2d window at output (oh, ow)
 * of "p", whose taps inside x are [ilo, ihi) x [jlo, jhi). */
static inline double
divisor(const struct pool *p, int64_t oh, int64_t ow, int64_t ilo, int64_t ihi,
    int64_t jlo, int64_t jhi)
{
	int64_t hs, ws, he, we;

	if (!p->cip)
		return (double)((ihi - ilo) * (jhi - jlo));
	hs = oh * p->s[0] - p->pad[0];
	ws = ow * p->s[1] - p->pad[2];
	he = hs + p->k[0] < p->h + p->pad[1] ? hs + p->k[0] : p->h + p->pad[1];
	we = ws + p->k[1] < p->w + p->pad[3] ? ws + p->k[1] : p->w + p->pad[3];
	return (double)((he - hs) * (we - ws));
}

/*
 * POOL(T, suffix): the four loops of max_pool2d and avg_pool2d on
 * elements of type T: max_fwd_suffix(p, x, y), max_bwd_suffix(p, dy, x,
 * dx), avg_fwd_suffix(p, x, y), avg_bwd_suffix(p, dy, dx) (dx zeroed
 * first by the caller). WINDOW walks the output positions of one plane
 * with the window's taps inside x.
 */
#define WINDOW(BODY)                                                     \
	for (int64_t oh = 0; oh < p->ho; oh++) {                         \
		int64_t hs = oh * p->s[0] - p->pad[0], ilo, ihi;         \
		taps(hs, p->k[0], p->d[0], p->h, &ilo, &ihi);            \
		for (int64_t ow = 0; ow < p->wo; ow++) {                 \
			int64_t ws = ow * p->s[1] - p->pad[2], jlo, jhi; \
			int64_t at = (hs + ilo * p->d[0]) * p->w + ws;   \
			int64_t o = oh * p->wo + ow;                     \
			taps(ws, p->k[1], p->d[1], p->w, &jlo, &jhi);    \
			BODY                                             \
		}                                                        \
	}

#define POOL(T, suffix)                                                        \
	static void max_fwd_##suffix(const struct pool *p,                     \
	    const T *restrict x, T *restrict y)                                \
	{                                                                      \
		int64_t hw = p->h * p->w, ohw = p->ho * p->wo;                 \
		for (int64_t c = 0; c < p->planes; c++, x += hw, y += ohw)     \
			WINDOW({                                               \
				T best = (T)-INFINITY;                         \
				for (int64_t i = ilo; i < ihi; i++) {          \
					int64_t r =                            \
					    at + (i - ilo) * p->d[0] * p->w;   \
					for (int64_t j = jlo; j < jhi; j++) {  \
						T v = x[r + j * p->d[1]];      \
						if (v > best || v != v)        \
							best = v;              \
					}                                      \
				}                                              \
				y[o] = best;                                   \
			})                                                     \
	}                                                                      \
	static void max_bwd_##suffix(const struct pool *p,                     \
	    const T *restrict dy, const T *restrict x, T *restrict dx)         \
	{                                                                      \
		int64_t hw = p->h * p->w, ohw = p->ho * p->wo;                 \
		for (int64_t c = 0; c < p->planes;                             \
		     c++, x += hw, dx += hw, dy += ohw)                        \
			WINDOW({                                               \
				T best = (T)-INFINITY;                         \
				int64_t arg = -1;                              \
				for (int64_t i = ilo; i < ihi; i++) {          \
					int64_t r =                            \
					    at + (i - ilo) * p->d[0] * p->w;   \
					for (int64_t j = jlo; j < jhi; j++) {  \
						T v = x[r + j * p->d[1]];      \
						if (arg < 0 || v > best ||     \
						    v != v) {                  \
							best = v;              \
							arg = r + j * p->d[1]; \
						}                              \
					}                                      \
				}                                              \
				if (arg >= 0)                                  \
					dx[arg] += dy[o];                      \
			})                                                     \
	}                                                                      \
	static void avg_fwd_##suffix(const struct pool *p,                     \
	    const T *restrict x, T *restrict y)                                \
	{                                                                      \
		int64_t hw = p->h * p->w, ohw = p->ho * p->wo;                 \
		for (int64_t c = 0; c < p->planes; c++, x += hw, y += ohw)     \
			WINDOW({                                               \
				double sum = 0;                                \
				for (int64_t i = ilo; i < ihi; i++) {          \
					int64_t r = at + (i - ilo) * p->w;     \
					for (int64_t j = jlo; j < jhi; j++)    \
						sum += x[r + j];               \
				}                                              \
				y[o] = (T)(sum /                               \
				    divisor(p, oh, ow, ilo, ihi, jlo, jhi));   \
			})                                                     \
	}                                                                      \
	static void avg_bwd_##suffix(const struct pool *p,                     \
	    const T *restrict dy, T *restrict dx)                              \
	{                                                                      \
		int64_t hw = p->h * p->w, ohw = p->ho * p->wo;                 \
		for (int64_t c = 0; c < p->planes; c++, dx += hw, dy += ohw)   \
			WINDOW({                                               \
				T g = (T)(dy[o] /                              \
				    divisor(p, oh, ow, ilo, ihi, jlo, jhi));   \
				for (int64_t i = ilo; i < ihi; i++) {          \
					int64_t r = at + (i - ilo) * p->w;     \
					for (int64_t j = jlo; j < jhi; j++)    \
						dx[r + j] += g;                \
				}                                              \
			})                                                     \
	}

POOL(float, f32)
POOL(double, f64)

/* Run max_pool2d ("max") or avg_pool2d, called "op", on the call "a";
 * return 0 or -1. */
int
sym__kern_pool(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int max = a->op->id == SYM__OP_MAX_POOL2D;
	struct pool p;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 ||
	    setup(a, op, 0, &a->out[0], "the output", &p) < 0)
		return -1;
	if (a->in[0].dtype == SYM_DT_F64)
		(max ? max_fwd_f64 : avg_fwd_f64)(&p, a->in[0].data,
		    a->out[0].data);
	else
		(max ? max_fwd_f32 : avg_fwd_f32)(&p, a->in[0].data,
		    a->out[0].data);
	return 0;
}

/* Run max_pool2d_grad(dy, x) ("max") or avg_pool2d_grad(dy, x) -> dx of
 * the dims of x, called "op", on the call "a"; return 0 or -1. */
int
sym__kern_pool_grad(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int max = a->op->id == SYM__OP_MAX_POOL2D_GRAD;
	struct sym__tensor *dx = &a->out[0];
	struct pool p;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 ||
	    setup(a, op, 1, &a->in[0], "dy", &p) < 0 ||
	    sym__ksame_kst(a, op, &a->in[1], "x", dx, "the output") < 0 ||
	    sym__ksame_dims(a, op, &a->in[1], "x", dx, "the output") < 0)
		return -1;
	memset(dx->data, 0,
	    (size_t)sym__tensor_numel(dx) * sym__tensor_elem_size(dx->dtype));
	if (dx->dtype == SYM_DT_F64 && max)
		max_bwd_f64(&p, a->in[0].data, a->in[1].data, dx->data);
	else if (dx->dtype == SYM_DT_F64)
		avg_bwd_f64(&p, a->in[0].data, dx->data);
	else if (max)
		max_bwd_f32(&p, a->in[0].data, a->in[1].data, dx->data);
	else
		avg_bwd_f32(&p, a->in[0].data, dx->data);
	return 0;
}

/* Return the global element count of dimensions 2 on of input "i" of
 * the call "a" (what global_avg_pool divides by). */
static double
pooled_count(const struct sym__kernel_args *a, int i)
{
	double n = 1;

	for (int d = 2; d < a->in[i].rank; d++)
		n *= (double)sym__kin_global(a, i, d);
	return n;
}

/* Check the call "a" of global_avg_pool or its gradient "op": x (input
 * "ix") of rank at least 3, floating, and "y" (called "yn") [N, C, 1,
 * ...] of its dtype; return 0 or -1. */
static int
global_setup(struct sym__kernel_args *a, const char *op, int ix,
    const struct sym__tensor *y, const char *yn)
{
	const struct sym__tensor *x = &a->in[ix];
	int ok = x->rank >= 3 && y->rank == x->rank;

	if (sym__kfloat(a, op, x, "x") < 0 ||
	    sym__ksame_kst(a, op, x, "x", y, yn) < 0)
		return -1;
	for (int d = 0; ok && d < x->rank; d++)
		ok = y->dim[d] == (d < 2 ? x->dim[d] : 1);
	if (!ok)
		return sym__kfail(a, op,
		    "x must have rank at least 3 and %s the dims of x with 1 "
		    "from dimension 2 on",
		    yn);
	return 0;
}

/* The kernel of global_avg_pool; "a" is the call. */
int
sym__kern_global_avg_pool(struct sym__kernel_args *a)
{
	static const char op[] = "global_avg_pool";
	const struct sym__tensor *x = &a->in[0];
	int64_t planes, len;
	double n;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 ||
	    global_setup(a, op, 0, &a->out[0], "the output") < 0)
		return -1;
	planes = x->dim[0] * x->dim[1];
	len = sym__kprod(x->dim, 2, x->rank);
	n = pooled_count(a, 0);
	for (int64_t c = 0; c < planes; c++) {
		double sum = 0;

		if (x->dtype == SYM_DT_F64) {
			const double *r = (const double *)x->data + c * len;

			for (int64_t i = 0; i < len; i++)
				sum += r[i];
			((double *)a->out[0].data)[c] = sum / n;
		} else {
			const float *r = (const float *)x->data + c * len;

			for (int64_t i = 0; i < len; i++)
				sum += r[i];
			((float *)a->out[0].data)[c] = (float)(sum / n);
		}
	}
	return 0;
}

/* The kernel of global_avg_pool_grad(dy, x) -> dx of the dims of x; "a"
 * is the call. */
int
sym__kern_global_avg_pool_grad(struct sym__kernel_args *a)
{
	static const char op[] = "global_avg_pool_grad";
	const struct sym__tensor *x = &a->in[1], *dy = &a->in[0];
	struct sym__tensor *dx = &a->out[0];
	int64_t planes, len;
	double n;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 ||
	    global_setup(a, op, 1, dy, "dy") < 0 ||
	    sym__ksame_kst(a, op, x, "x", dx, "the output") < 0 ||
	    sym__ksame_dims(a, op, x, "x", dx, "the output") < 0)
		return -1;
	planes = x->dim[0] * x->dim[1];
	len = sym__kprod(x->dim, 2, x->rank);
	n = pooled_count(a, 1);
	for (int64_t c = 0; c < planes; c++) {
		if (dx->dtype == SYM_DT_F64) {
			double *r = (double *)dx->data + c * len;
			double g = ((const double *)dy->data)[c] / n;

			for (int64_t i = 0; i < len; i++)
				r[i] = g;
		} else {
			float *r = (float *)dx->data + c * len;
			float g = (float)(((const float *)dy->data)[c] / n);

			for (int64_t i = 0; i < len; i++)
				r[i] = g;
		}
	}
	return 0;
}
