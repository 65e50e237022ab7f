/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the normalisation family: softmax and log_softmax over the
 * attribute axis (an integer or a list, default -1: the axes listed are
 * normalised jointly), and layer_norm.
 *
 * Softmax subtracts the maximum before exponentiating and accumulates the
 * sum in double. layer_norm(x, gamma, beta) normalises over the dims of x
 * from begin_norm_axis on (default -1) with the biased (population)
 * variance, y = (x - mean) / sqrt(var + epsilon) * gamma + beta, gamma and
 * beta spanning the dims of x from begin_params_axis on (default -1);
 * epsilon defaults to 1e-5. With three outputs the mean and the variance
 * (dims of x before begin_norm_axis, then 1s) are written too. Statistics
 * are computed in double, in two passes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

/*
 * SOFTMAX_ROWS(name, T, EXP, LOW): the function name(x, y, rows, n, lg)
 * that normalises "rows" contiguous rows of "n" values of type T, a
 * log-softmax when "lg", with EXP the exponential of T, which is +0 for
 * every argument below LOW: those (a causal mask's -1e9) are set to 0
 * without calling EXP, whose underflow path is slow, with the same
 * result.
 */
#define SOFTMAX_ROWS(name, T, EXP, LOW)                                    \
	static void name(const T *restrict x, T *restrict y, int64_t rows, \
	    int64_t n, int lg)                                             \
	{                                                                  \
		for (int64_t r = 0; r < rows; r++, x += n, y += n) {       \
			T m = -INFINITY;                                   \
			double s = 0.0;                                    \
                                                                           \
			for (int64_t i = 0; i < n; i++)                    \
				m = x[i] > m ? x[i] : m;                   \
			for (int64_t i = 0; i < n; i++) {                  \
				T d = x[i] - m;                            \
				T e = d < (LOW) ? (T)0 : EXP(d);           \
				s += e;                                    \
				if (!lg)                                   \
					y[i] = e;                          \
			}                                                  \
			if (lg) {                                          \
				T c = m + (T)log(s);                       \
				SYM__SIMD                                  \
				for (int64_t i = 0; i < n; i++)            \
					y[i] = x[i] - c;                   \
				continue;                                  \
			}                                                  \
			T q = (T)(1.0 / s);                                \
			SYM__SIMD                                          \
			for (int64_t i = 0; i < n; i++)                    \
				y[i] *= q;                                 \
		}                                                          \
	}

/* expf is +0 below about -103.97 and exp below about -745.13. */
SOFTMAX_ROWS(rows_f32, float, expf, -110.0f)
SOFTMAX_ROWS(rows_f64, double, exp, -760.0)

/*
 * SOFTMAX_COLS(name, T, EXP): the function name(x, y, outer, n, inner,
 * w, lg) that normalises x of dims [outer, n, inner] of type T along the
 * middle dim, vectorised along "inner", with "w" scratch of 2 * inner
 * doubles; a log-softmax when "lg".
 */
#define SOFTMAX_COLS(name, T, EXP)                                            \
	static void name(const T *restrict x, T *restrict y, int64_t outer,   \
	    int64_t n, int64_t inner, double *restrict w, int lg)             \
	{                                                                     \
		double *restrict m = w, *restrict s = w + inner;              \
                                                                              \
		for (int64_t o = 0; o < outer; o++) {                         \
			const T *xo = x + o * n * inner;                      \
			T *yo = y + o * n * inner;                            \
                                                                              \
			for (int64_t j = 0; j < inner; j++) {                 \
				m[j] = -INFINITY;                             \
				s[j] = 0.0;                                   \
			}                                                     \
			for (int64_t l = 0; l < n; l++) {                     \
				SYM__SIMD                                     \
				for (int64_t j = 0; j < inner; j++) {         \
					double v = xo[l * inner + j];         \
					m[j] = v > m[j] ? v : m[j];           \
				}                                             \
			}                                                     \
			for (int64_t l = 0; l < n; l++) {                     \
				for (int64_t j = 0; j < inner; j++) {         \
					T e =                                 \
					    EXP(xo[l * inner + j] - (T)m[j]); \
					s[j] += e;                            \
					yo[l * inner + j] = e;                \
				}                                             \
			}                                                     \
			for (int64_t j = 0; j < inner; j++)                   \
				s[j] = lg ? m[j] + log(s[j]) : 1.0 / s[j];    \
			for (int64_t l = 0; l < n; l++) {                     \
				SYM__SIMD                                     \
				for (int64_t j = 0; j < inner; j++)           \
					yo[l * inner + j] = lg                \
					    ? xo[l * inner + j] - (T)s[j]     \
					    : yo[l * inner + j] * (T)s[j];    \
			}                                                     \
		}                                                             \
	}

SOFTMAX_COLS(cols_f32, float, expf)
SOFTMAX_COLS(cols_f64, double, exp)

/* Normalise "x" into "y" (storage "k", dims [outer, n, inner]) along the
 * middle dim, a log-softmax when "lg", with "w" room for 2 * inner
 * doubles when inner > 1. */
static void
softmax_block(const void *x, void *y, enum sym__kst k, int64_t outer, int64_t n,
    int64_t inner, int lg, double *w)
{
	if (inner == 1) {
		if (k == SYM__KST_F32)
			rows_f32(x, y, outer, n, lg);
		else
			rows_f64(x, y, outer, n, lg);
	} else if (k == SYM__KST_F32) {
		cols_f32(x, y, outer, n, inner, w, lg);
	} else {
		cols_f64(x, y, outer, n, inner, w, lg);
	}
}

/*
 * Normalise "x" into "y" (storage "k") along the axes marked in "mark"
 * when they are not one block of neighbours: copy x into "t" (room for
 * twice its elements) with the marked axes moved last, normalise its
 * rows, and copy back.
 */
static void
softmax_moved(const struct sym__tensor *x, struct sym__tensor *y,
    enum sym__kst k, const unsigned char *mark, int lg, char *t)
{
	int64_t sx[SYM__MAX_RANK], ps[SYM__MAX_RANK], pd[SYM__MAX_RANK];
	int64_t ts[SYM__MAX_RANK], n = 1, total = sym__tensor_numel(x);
	size_t es = sym__tensor_elem_size(x->dtype);
	int perm[SYM__MAX_RANK] = { 0 }, r = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int d = 0; d < x->rank; d++)
			if (mark[d] == pass)
				perm[r++] = d;
	for (int d = 0; d < x->rank; d++)
		n *= mark[d] ? x->dim[d] : 1;
	sym__kstrides(x, sx);
	for (int i = x->rank - 1; i >= 0; i--) {
		pd[i] = x->dim[perm[i]];
		ps[i] = sx[perm[i]];
		ts[i] = i == x->rank - 1 ? 1 : ts[i + 1] * pd[i + 1];
	}
	sym__kcopy(t, ts, x->data, ps, es, x->rank, pd);
	softmax_block(t, t + total * (int64_t)es, k, total / n, n, 1, lg, NULL);
	sym__kcopy(y->data, ps, t + total * (int64_t)es, ts, es, x->rank, pd);
}

/* Return the bytes of the work area of a softmax of "x": a moved copy
 * of the input and of the output when "moved", else two doubles for
 * each of the "inner" columns. */
static size_t
work_bytes(const struct sym__tensor *x, int moved, int64_t inner)
{
	return moved
	    ? 2 * (size_t)sym__tensor_numel(x) * sym__tensor_elem_size(x->dtype)
	    : 2 * (size_t)inner * sizeof(double);
}

/* Store in "*first" and "*last" the first and last dims of "x" marked
 * in "mark" other than 1 (-1 both: none); return 1 when a dim between
 * them is not marked and not 1 (the axes must be moved together). */
static int
marked_span(const struct sym__tensor *x, const unsigned char *mark, int *first,
    int *last)
{
	int moved = 0;

	*first = *last = -1;
	for (int d = 0; d < x->rank; d++)
		if (mark[d] && x->dim[d] != 1) {
			*first = *first < 0 ? d : *first;
			*last = d;
		}
	for (int d = *first; d >= 0 && d <= *last; d++)
		moved |= !mark[d] && x->dim[d] != 1;
	return moved;
}

/* Return the scratch bytes of the call "a" of softmax or log_softmax
 * (sym__kernel_scratch): softmax_run's work area, 0 when it takes none
 * or the call is refused. */
size_t
sym__kscratch_softmax(const struct sym__kernel_args *a)
{
	const struct sym__tensor *x = &a->in[0];
	int first, last, moved;
	int64_t inner;

	if (a->n_in != 1 || a->n_out != 1 || !a->at || !a->at->norm.mark ||
	    sym__tensor_numel(x) <= 0)
		return 0;
	moved = marked_span(x, a->at->norm.mark, &first, &last);
	inner = first < 0 ? 1 : sym__kprod(x->dim, last + 1, x->rank);
	return moved || inner > 1 ? work_bytes(x, moved, inner) : 0;
}

/* Normalise the input of the call "a" of "op" into its output along the
 * axes marked in "mark", the marked dims other than 1 spanning dims
 * "first" to "last" (first -1: none), a log-softmax when "lg"; return 0,
 * or -1 when out of memory. */
static int
softmax_run(struct sym__kernel_args *a, const char *op,
    const unsigned char *mark, int first, int last, int lg)
{
	const struct sym__tensor *x = &a->in[0];
	enum sym__kst k = sym__kst(x->dtype);
	int64_t outer, n, inner;
	int moved = marked_span(x, mark, &first, &last);
	void *w = NULL;

	if (first < 0) {
		first = x->rank;
		last = x->rank - 1;
	}
	outer = sym__kprod(x->dim, 0, first);
	n = sym__kprod(x->dim, first, last + 1);
	inner = sym__kprod(x->dim, last + 1, x->rank);
	if (moved || inner > 1) {
		w = sym__kscratch_get(a, work_bytes(x, moved, inner));
		if (!w)
			return sym__kfail(a, op, "out of memory");
	}
	if (moved)
		softmax_moved(x, &a->out[0], k, mark, lg, w);
	else
		softmax_block(x->data, a->out[0].data, k, outer, n, inner, lg,
		    w);
	sym__kscratch_done(a, w);
	return 0;
}

/* The kernel of softmax (log_softmax when "lg"), called "op"; "a" is the
 * call. */
int
sym__kern_softmax(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int lg = a->op->id == SYM__OP_LOG_SOFTMAX;
	const unsigned char *mark;
	const struct sym__tensor *x;
	int first = -1, last = -1;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !sym__kat(a, op))
		return -1;
	x = &a->in[0];
	mark = a->at->norm.mark;
	if (!mark)
		return sym__kfail(a, op, "no decoded axes");
	if (sym__kfloat(a, op, x, "the input") < 0 ||
	    sym__ksame_kst(a, op, x, "the input", &a->out[0], "the output") <
	        0 ||
	    sym__ksame_dims(a, op, x, "the input", &a->out[0], "the output") <
	        0)
		return -1;
	if (sym__tensor_numel(x) == 0)
		return 0;
	marked_span(x, mark, &first, &last);
	return softmax_run(a, op, mark, first, last, lg);
}

/* The sizes of one layer_norm call: "rows" rows of "n" normalised
 * values; gamma and beta hold "p" values, repeating every "p" elements of
 * x. */
struct ln {
	int64_t rows, n, p;
	double eps;
};

/*
 * LAYER_NORM(name, T): the function name(s, x, g, b, y, mean, var) of
 * type T for the sizes "s"; "mean" and "var" may be NULL.
 */
#define LAYER_NORM(name, T)                                                    \
	static void name(const struct ln *s, const T *restrict x,              \
	    const T *restrict g, const T *restrict b, T *restrict y,           \
	    T *restrict mean, T *restrict var)                                 \
	{                                                                      \
		int64_t n = s->n;                                              \
                                                                               \
		for (int64_t r = 0; r < s->rows; r++, x += n, y += n) {        \
			double m = 0.0, v = 0.0, q;                            \
			int64_t at = r * n % s->p;                             \
                                                                               \
			SYM__SIMD_SUM(m)                                       \
			for (int64_t i = 0; i < n; i++)                        \
				m += x[i];                                     \
			m /= (double)n;                                        \
			SYM__SIMD_SUM(v)                                       \
			for (int64_t i = 0; i < n; i++)                        \
				v += (x[i] - m) * (x[i] - m);                  \
			v /= (double)n;                                        \
			q = 1.0 / sqrt(v + s->eps);                            \
			if (mean) {                                            \
				mean[r] = (T)m;                                \
				var[r] = (T)v;                                 \
			}                                                      \
			for (int64_t i = 0; i < n; i += s->p - at, at = 0) {   \
				int64_t e =                                    \
				    s->p - at < n - i ? s->p - at : n - i;     \
				const T *gg = g + at, *bb = b + at;            \
				const T *xx = x + i;                           \
				T *yy = y + i, mm = (T)m, qq = (T)q;           \
                                                                               \
				SYM__SIMD                                      \
				for (int64_t j = 0; j < e; j++)                \
					yy[j] =                                \
					    (xx[j] - mm) * qq * gg[j] + bb[j]; \
			}                                                      \
		}                                                              \
	}

LAYER_NORM(ln_f32, float)
LAYER_NORM(ln_f64, double)

/* Check that gamma or beta ("t", input "i" of the call "a") has the dims
 * of x from "from" on; return 0 or -1. */
static int
check_param(struct sym__kernel_args *a, int i, int from)
{
	const struct sym__tensor *x = &a->in[0], *t = &a->in[i];
	int same = t->rank == x->rank - from;

	for (int d = 0; same && d < t->rank; d++)
		same = t->dim[d] == x->dim[from + d];
	if (!same)
		return sym__kfail(a, "layer_norm",
		    "%s must have the dims of x from dim %d on",
		    i == 1 ? "gamma" : "beta", from);
	return sym__ksame_kst(a, "layer_norm", x, "x", t,
	    i == 1 ? "gamma" : "beta");
}

/* Check the mean and variance outputs of the call "a": the dims of x
 * before "norm", then 1s; return 0 or -1. */
static int
check_stats(struct sym__kernel_args *a, int norm)
{
	const struct sym__tensor *x = &a->in[0];

	for (int o = 1; o < a->n_out; o++) {
		const struct sym__tensor *t = &a->out[o];
		int same = t->rank == x->rank;

		for (int d = 0; same && d < x->rank; d++)
			same = t->dim[d] == (d < norm ? x->dim[d] : 1);
		if (!same)
			return sym__kfail(a, "layer_norm",
			    "output %d must have the dims of x before dim %d, "
			    "then 1s",
			    o, norm);
		if (sym__ksame_kst(a, "layer_norm", x, "x", t,
		        o == 1 ? "the mean" : "the variance") < 0)
			return -1;
	}
	return 0;
}

/* The kernel of layer_norm(x, gamma, beta) -> y [, mean, variance]; "a"
 * is the call. */
int
sym__kern_layer_norm(struct sym__kernel_args *a)
{
	static const char op[] = "layer_norm";
	const struct sym__tensor *x;
	struct sym__tensor *y;
	const struct sym__opattrs *at;
	int norm, params;
	struct ln s;
	void *mean, *var;

	if (sym__kio(a, op, 3, 3, 1, 3) < 0 || !(at = sym__kat(a, op)))
		return -1;
	if (a->n_out == 2)
		return sym__kfail(a, op, "1 or 3 outputs expected, not 2");
	x = &a->in[0];
	y = &a->out[0];
	s.eps = at->norm.epsilon;
	norm = (int)at->norm.begin_norm;
	params = (int)at->norm.begin_params;
	if (sym__kaxis(a, op, "begin_norm_axis", at->norm.begin_norm, x->rank) <
	        0 ||
	    sym__kaxis(a, op, "begin_params_axis", at->norm.begin_params,
	        x->rank) < 0 ||
	    sym__kfloat(a, op, x, "x") < 0 || check_param(a, 1, params) < 0 ||
	    check_param(a, 2, params) < 0 ||
	    sym__ksame_dims(a, op, x, "x", y, "y") < 0 ||
	    sym__ksame_kst(a, op, x, "x", y, "y") < 0 ||
	    check_stats(a, norm) < 0)
		return -1;
	s.n = sym__kprod(x->dim, norm, x->rank);
	s.p = sym__kprod(x->dim, params, x->rank);
	if (s.n == 0 || s.p == 0 || sym__tensor_numel(x) == 0)
		return 0;
	s.rows = sym__tensor_numel(x) / s.n;
	mean = a->n_out == 3 ? a->out[1].data : NULL;
	var = a->n_out == 3 ? a->out[2].data : NULL;
	if (sym__kst(x->dtype) == SYM__KST_F32)
		ln_f32(&s, x->data, a->in[1].data, a->in[2].data, y->data, mean,
		    var);
	else
		ln_f64(&s, x->data, a->in[1].data, a->in[2].data, y->data, mean,
		    var);
	return 0;
}
