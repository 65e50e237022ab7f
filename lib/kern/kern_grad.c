/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the gradient family (see lib/shape/op_grad.c), f32 and f64.
 *
 * The unary gradients take dy and the forward input (gelu) or output
 * (the others) of the same dims: gelu_grad is dy times the derivative of
 * the exact gelu the forward kernel computes, 0.5 (1 + erf(x / sqrt 2))
 * + x exp(-x^2 / 2) / sqrt(2 pi); sigmoid_grad dy y (1 - y); tanh_grad
 * dy (1 - y^2); sqrt_grad dy / (2 y), infinite where y is 0 (as 1 /
 * sqrt(x) at 0). With approximate="tanh", gelu_grad is dy times the
 * derivative of the tanh approximation (kern_math.c).
 *
 * maximum_grad and minimum_grad(dy, a, b) route dy, element by element
 * of its (broadcast) dims, to the operand the forward kernel returned: a
 * where a > b (a < b for the minimum) or a is NaN, b where b wins or is
 * NaN while a is not; an exact tie (a == b) gives each half. Their two
 * outputs have dy's dims, the broadcast being summed back by sum_to.
 *
 * gather_grad(dy, indices, params) and embedding_grad(dy, ids, table)
 * scatter-add dy into zeros of the table's dims along the gathered axis,
 * repeated indices accumulating. Indices are global: when the table's
 * gathered dim is split (args->offset and args->global_dim of input 2),
 * a rank adds only the rows of its block; an index outside [0, global
 * size) is an error.
 *
 * The others compute in double and round once: see each kernel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern_elementwise.h"
#include "shape/shape_private.h"

/* A loop z = f(a, b) over "n" elements of one storage. */
typedef void (*binary_fn)(const void *a, const void *b, void *z, int64_t n);

/*
 * PAIR(name, T, expr): the function name(a, b, z, n) that stores in z[i]
 * the expression "expr" of g = a[i] (the incoming gradient) and v = b[i],
 * for "n" elements of type T.
 */
#define PAIR(name, T, expr)                                                   \
	static void name(const void *pa, const void *pb, void *pz, int64_t n) \
	{                                                                     \
		const T *restrict a = pa, *restrict b = pb;                   \
		T *restrict z = pz;                                           \
                                                                              \
		for (int64_t i = 0; i < n; i++) {                             \
			T g = a[i], v = b[i];                                 \
			z[i] = (expr);                                        \
		}                                                             \
	}

PAIR(gelu_grad_f32, float,
    g *(0.5f * (1.0f + erff(v * 0.70710678118654752f)) +
        v * expf(-0.5f * v * v) * 0.39894228040143268f))
PAIR(gelu_grad_f64, double,
    g *(0.5 * (1.0 + erf(v * 0.70710678118654752)) +
        v * exp(-0.5 * v * v) * 0.39894228040143268))
PAIR(sigmoid_grad_f32, float, g *v *(1.0f - v))
PAIR(sigmoid_grad_f64, double, g *v *(1.0 - v))
PAIR(tanh_grad_f32, float, g *(1.0f - v * v))
PAIR(tanh_grad_f64, double, g *(1.0 - v * v))
PAIR(sqrt_grad_f32, float, g / (2.0f * v))
PAIR(sqrt_grad_f64, double, g / (2.0 * v))

/* Run the unary gradient "op" on the call "a" (dy, v -> dx of the same
 * dims) with the loops "f32" and "f64"; return 0 or -1. */
static int
pair(struct sym__kernel_args *a, const char *op, binary_fn f32, binary_fn f64)
{
	const struct sym__tensor *g = &a->in[0];

	if (sym__kgrad_pair(a, op) < 0)
		return -1;
	(sym__kst(g->dtype) == SYM__KST_F32 ? f32 : f64)(g->data, a->in[1].data,
	    a->out[0].data, sym__tensor_numel(g));
	return 0;
}

/* PAIR_KERNEL(name): the kernel sym__kern_name of the unary gradient name. */
#define PAIR_KERNEL(name)                                      \
	int sym__kern_##name(struct sym__kernel_args *a)       \
	{                                                      \
		return pair(a, #name, name##_f32, name##_f64); \
	}

PAIR(gelu_tanh_grad_f32, float, g *(float)sym__gelu_tanh_grad(v))
PAIR(gelu_tanh_grad_f64, double, g *sym__gelu_tanh_grad(v))

/* The kernel of gelu_grad: dy times the derivative of the exact gelu, or
 * of its tanh approximation when the decoded attribute approximate says
 * so (no attributes: exact); "a" is the call. */
int
sym__kern_gelu_grad(struct sym__kernel_args *a)
{
	if (a->at && a->at->elementwise.approximate)
		return pair(a, "gelu_grad", gelu_tanh_grad_f32,
		    gelu_tanh_grad_f64);
	return pair(a, "gelu_grad", gelu_grad_f32, gelu_grad_f64);
}

PAIR_KERNEL(sigmoid_grad)
PAIR_KERNEL(tanh_grad)
PAIR_KERNEL(sqrt_grad)

/* Check that the "n" tensors "t" (called "names") of the call "a" of
 * "op" are all floating and stored like the first; return 0 or -1. */
static int
all_float(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *const *t, const char *const *names, int n)
{
	if (sym__kfloat(a, op, t[0], names[0]) < 0)
		return -1;
	for (int i = 1; i < n; i++)
		if (sym__ksame_kst(a, op, t[0], names[0], t[i], names[i]) < 0)
			return -1;
	return 0;
}

/*
 * A walk over the elements of a row-major tensor of "rank" dims "dim"
 * that follows, alongside, the offset of each element in a second tensor
 * of strides "stride" (0 along the dims it does not have): the reduced
 * tensor of a reduction, the groups of a softmax.
 */
struct walk {
	int rank;
	int64_t dim[SYM__MAX_RANK], stride[SYM__MAX_RANK];
	int64_t idx[SYM__MAX_RANK], off;
};

/* Start "w" over "x" with a second tensor that has the dims of "x"
 * except those marked in "mark" (size 1 or absent: the same strides). */
static void
walk_init(struct walk *w, const struct sym__tensor *x,
    const unsigned char *mark)
{
	int64_t s = 1;

	memset(w, 0, sizeof(*w));
	w->rank = x->rank;
	for (int d = x->rank - 1; d >= 0; d--) {
		w->dim[d] = x->dim[d];
		w->stride[d] = mark[d] ? 0 : s;
		s *= mark[d] ? 1 : x->dim[d];
	}
}

/* Move "w" to the next element. */
static inline void
walk_next(struct walk *w)
{
	for (int d = w->rank - 1; d >= 0; d--) {
		w->off += w->stride[d];
		if (++w->idx[d] < w->dim[d])
			return;
		w->off -= w->stride[d] * w->dim[d];
		w->idx[d] = 0;
	}
}

/* Return the number of elements of "x" per element of the tensor that
 * lacks the dims marked in "mark": the product of those dims. */
static int64_t
group_size(const struct sym__tensor *x, const unsigned char *mark)
{
	int64_t n = 1;

	for (int d = 0; d < x->rank; d++)
		n *= mark[d] ? x->dim[d] : 1;
	return n;
}

/* Check that "g", called "gn", of the call "a" of "op" has the dims of
 * "x" with those marked in "mark" removed, or set to 1 when "keep";
 * return 0 or -1. */
static int
check_reduced(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *g, const char *gn, const struct sym__tensor *x,
    const unsigned char *mark, int keep)
{
	int r = 0;

	for (int d = 0; d < x->rank; d++) {
		if (mark[d] && !keep)
			continue;
		if (r >= g->rank || g->dim[r] != (mark[d] ? 1 : x->dim[d]))
			return sym__kfail(a, op,
			    "the dims of %s are not those of x with the "
			    "reduced ones %s",
			    gn, keep ? "set to 1" : "removed");
		r++;
	}
	if (r != g->rank)
		return sym__kfail(a, op, "%s has rank %d, not %d", gn, g->rank,
		    r);
	return 0;
}

/* Check the call "a" of the reduction gradient "op": "n_in" inputs (dy,
 * x and, when 3, y) and one output of x's dims, all floating and of one
 * storage, dy (and y) of x's dims reduced by the decoded axes; store in
 * "t" the inputs then the output and return the decoded attributes, or
 * NULL after an error. */
static const struct sym__opattrs *
check_reduce_grad(struct sym__kernel_args *a, const char *op, int n_in,
    const struct sym__tensor **t)
{
	static const char *const names[] = { "dy", "x", "y" };
	const struct sym__opattrs *at;

	if (sym__kio(a, op, n_in, n_in, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return NULL;
	if (!at->reduce.mark) {
		sym__kfail(a, op, "no decoded axes");
		return NULL;
	}
	for (int i = 0; i < n_in; i++)
		t[i] = &a->in[i];
	t[n_in] = &a->out[0];
	if (all_float(a, op, t, names, n_in) < 0 ||
	    sym__ksame_kst(a, op, t[0], "dy", t[n_in], "the output") < 0 ||
	    sym__ksame_dims(a, op, t[1], "x", t[n_in], "the output") < 0 ||
	    check_reduced(a, op, t[0], "dy", t[1], at->reduce.mark,
	        at->reduce.keep_dims) < 0 ||
	    (n_in == 3 &&
	        check_reduced(a, op, t[2], "y", t[1], at->reduce.mark,
	            at->reduce.keep_dims) < 0))
		return NULL;
	return at;
}

/* The kernels of reduce_sum_grad(dy, x), reduce_mean_grad(dy, x) and
 * reduce_max_grad(dy, x, y), called "op": dy broadcast to the dims of x,
 * divided by the global count of the reduced elements for the mean
 * (args->normalizer, else the local count); for the max, routed to the
 * elements of x equal to y (NaN counting as equal to a NaN maximum),
 * split equally among them. "is_mean" and "is_max" say which; "a" is the
 * call. */
int
sym__kern_reduce_grad(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int is_mean = a->op->id == SYM__OP_REDUCE_MEAN_GRAD;
	int is_max = a->op->id == SYM__OP_REDUCE_MAX_GRAD;
	const struct sym__tensor *t[4];
	const struct sym__opattrs *at;
	double scale = 1.0, *cnt = NULL;
	int64_t n, ng;
	struct walk w;

	if (!(at = check_reduce_grad(a, op, is_max ? 3 : 2, t)))
		return -1;
	n = sym__tensor_numel(t[1]);
	ng = sym__tensor_numel(t[0]);
	if (is_mean) {
		int64_t c = a->normalizer > 0 ? a->normalizer : ng ? n / ng : 0;

		scale = c ? 1.0 / (double)c : NAN;
	}
	if (is_max) {
		cnt =
		    sym__kscratch_get(a, (size_t)(ng ? ng : 1) * sizeof(*cnt));
		if (!cnt)
			return sym__kfail(a, op, "out of memory");
		memset(cnt, 0, (size_t)ng * sizeof(*cnt));
		walk_init(&w, t[1], at->reduce.mark);
		for (int64_t i = 0; i < n; i++, walk_next(&w)) {
			double v = sym__kld(t[1], i), m = sym__kld(t[2], w.off);

			cnt[w.off] += v == m || (v != v && m != m);
		}
	}
	walk_init(&w, t[1], at->reduce.mark);
	for (int64_t i = 0; i < n; i++, walk_next(&w)) {
		double g = sym__kld(t[0], w.off) * scale;

		if (is_max) {
			double v = sym__kld(t[1], i), m = sym__kld(t[2], w.off);

			g = v == m || (v != v && m != m) ? g / cnt[w.off] : 0.0;
		}
		sym__kstore(&a->out[0], i, g);
	}
	sym__kscratch_done(a, cnt);
	return 0;
}

/* The kernel of reduce_prod_grad(dy, x): dy broadcast to the dims of x
 * times the product of the other elements of each reduced group, exact
 * with zeros (none: the group's product over the element; one: the
 * product of the others at the zero, 0 elsewhere; more: 0); "a" is the
 * call. */
int
sym__kern_reduce_prod_grad(struct sym__kernel_args *a)
{
	static const char op[] = "reduce_prod_grad";
	const struct sym__tensor *t[3];
	const struct sym__opattrs *at;
	double *prod;
	int64_t n, ng, *zeros;
	struct walk w;

	if (!(at = check_reduce_grad(a, op, 2, t)))
		return -1;
	n = sym__tensor_numel(t[1]);
	ng = sym__tensor_numel(t[0]);
	prod = sym__kscratch_get(a, (size_t)(ng ? ng : 1) * 16);
	if (!prod)
		return sym__kfail(a, op, "out of memory");
	zeros = (int64_t *)(prod + (ng ? ng : 1));
	for (int64_t g = 0; g < ng; g++) {
		prod[g] = 1.0;
		zeros[g] = 0;
	}
	walk_init(&w, t[1], at->reduce.mark);
	for (int64_t i = 0; i < n; i++, walk_next(&w)) {
		double v = sym__kld(t[1], i);

		if (v == 0.0)
			zeros[w.off]++;
		else
			prod[w.off] *= v;
	}
	walk_init(&w, t[1], at->reduce.mark);
	for (int64_t i = 0; i < n; i++, walk_next(&w)) {
		double v = sym__kld(t[1], i), g = sym__kld(t[0], w.off);
		int64_t z = zeros[w.off];

		if (z == 0)
			g *= prod[w.off] / v;
		else
			g = z == 1 && v == 0.0 ? g * prod[w.off] : 0.0;
		sym__kstore(&a->out[0], i, g);
	}
	sym__kscratch_done(a, prod);
	return 0;
}

/* The softmax axes of "x" marked in "mark" as rows: when the marked
 * dims other than 1 are neighbours and last, store in "*rows" and "*n"
 * the number of groups and their size (each group then "n" contiguous
 * elements) and return 1; else 0. */
static int
softmax_rows(const struct sym__tensor *x, const unsigned char *mark,
    int64_t *rows, int64_t *n)
{
	int first = -1, last = -1;

	for (int d = 0; d < x->rank; d++)
		if (mark[d] && x->dim[d] != 1) {
			first = first < 0 ? d : first;
			last = d;
		}
	for (int d = first; d >= 0 && d <= last; d++)
		if (!mark[d] && x->dim[d] != 1)
			return 0;
	if (first >= 0 && sym__kprod(x->dim, last + 1, x->rank) != 1)
		return 0;
	*n = first < 0 ? 1 : sym__kprod(x->dim, first, last + 1);
	*rows = *n ? sym__tensor_numel(x) / *n : 0;
	return 1;
}

/* softmax_grad (log_softmax_grad when "lg") of f32 "dy" and "y" into
 * "dx" over "rows" contiguous rows of "n": the generic loop's arithmetic
 * (double sums in the same order, one rounding to f32 at the store), so
 * the results are the same bit for bit, without its per-element dtype
 * dispatch and index walk. "dx" may be "dy" or "y". */
static void
softmax_grad_rows_f32(const float *dy, const float *y, float *dx, int64_t rows,
    int64_t n, int lg)
{
	for (int64_t r = 0; r < rows; r++, dy += n, y += n, dx += n) {
		double sum = 0;

		if (lg)
			for (int64_t i = 0; i < n; i++)
				sum += (double)dy[i];
		else
			for (int64_t i = 0; i < n; i++)
				sum += (double)dy[i] * (double)y[i];
		for (int64_t i = 0; i < n; i++) {
			double g = dy[i], v = y[i];

			dx[i] = (float)(lg ? g - exp(v) * sum : v * (g - sum));
		}
	}
}

/* The kernels of softmax_grad(dy, y): dx = y (dy - sum(dy y)), and of
 * log_softmax_grad(dy, y): dx = dy - exp(y) sum(dy), the sums over the
 * softmax axes (the decoded mark), in double; "lg" chooses, "op" names
 * it and "a" is the call. */
int
sym__kern_softmax_grad(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int lg = a->op->id == SYM__OP_LOG_SOFTMAX_GRAD;
	static const char *const names[] = { "dy", "y", "the output" };
	const struct sym__tensor *t[3] = { &a->in[0], &a->in[1], &a->out[0] };
	const struct sym__opattrs *at;
	int64_t n, groups;
	struct walk w;
	double *sum;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	if (!at->norm.mark)
		return sym__kfail(a, op, "no decoded axes");
	if (all_float(a, op, t, names, 3) < 0 ||
	    sym__ksame_dims(a, op, t[0], "dy", t[1], "y") < 0 ||
	    sym__ksame_dims(a, op, t[0], "dy", t[2], "the output") < 0)
		return -1;
	if (t[0]->dtype == SYM_DT_F32 && t[1]->dtype == SYM_DT_F32 &&
	    t[2]->dtype == SYM_DT_F32 &&
	    softmax_rows(t[0], at->norm.mark, &groups, &n)) {
		softmax_grad_rows_f32(t[0]->data, t[1]->data, a->out[0].data,
		    groups, n, lg);
		return 0;
	}
	n = sym__tensor_numel(t[0]);
	groups = n ? n / group_size(t[0], at->norm.mark) : 0;
	sum =
	    sym__kscratch_get(a, (size_t)(groups ? groups : 1) * sizeof(*sum));
	if (!sum)
		return sym__kfail(a, op, "out of memory");
	memset(sum, 0, (size_t)groups * sizeof(*sum));
	walk_init(&w, t[0], at->norm.mark);
	for (int64_t i = 0; i < n; i++, walk_next(&w))
		sum[w.off] += lg ? sym__kld(t[0], i)
		                 : sym__kld(t[0], i) * sym__kld(t[1], i);
	walk_init(&w, t[0], at->norm.mark);
	for (int64_t i = 0; i < n; i++, walk_next(&w)) {
		double g = sym__kld(t[0], i), y = sym__kld(t[1], i);

		sym__kstore(&a->out[0], i,
		    lg ? g - exp(y) * sum[w.off] : y * (g - sum[w.off]));
	}
	sym__kscratch_done(a, sum);
	return 0;
}

/* Check the tensors of the call "a" of layer_norm_grad(dy, x, gamma)
 * -> (dx, dgamma, dbeta) against the decoded axes "at"; return 0 or
 * -1. */
static int
check_layer_norm_grad(struct sym__kernel_args *a, const struct sym__opattrs *at)
{
	static const char op[] = "layer_norm_grad";
	static const char *const names[] = { "dy", "x", "gamma", "dx", "dgamma",
		"dbeta" };
	const struct sym__tensor *t[6] = { &a->in[0], &a->in[1], &a->in[2],
		&a->out[0], &a->out[1], &a->out[2] };
	size_t params = at->norm.begin_params;
	const struct sym__tensor *x = t[1], *g = t[2];

	if (sym__kaxis(a, op, "begin_norm_axis", at->norm.begin_norm, x->rank) <
	        0 ||
	    sym__kaxis(a, op, "begin_params_axis", params, x->rank) < 0 ||
	    all_float(a, op, t, names, 6) < 0 ||
	    sym__ksame_dims(a, op, x, "x", t[0], "dy") < 0 ||
	    sym__ksame_dims(a, op, x, "x", t[3], "dx") < 0 ||
	    sym__ksame_dims(a, op, g, "gamma", t[4], "dgamma") < 0 ||
	    sym__ksame_dims(a, op, g, "gamma", t[5], "dbeta") < 0)
		return -1;
	if (g->rank != x->rank - (int)params)
		return sym__kfail(a, op, "gamma has rank %d, not %d", g->rank,
		    x->rank - (int)params);
	for (int j = 0; j < g->rank; j++)
		if (g->dim[j] != x->dim[params + (size_t)j])
			return sym__kfail(a, op,
			    "dim %d of gamma is %lld, not %lld", j,
			    (long long)g->dim[j],
			    (long long)x->dim[params + (size_t)j]);
	return 0;
}

/* Return the scratch bytes of the call "a" of a gradient kernel that
 * takes scratch (sym__kernel_scratch): the counts of reduce_max_grad,
 * the products and zero counts of reduce_prod_grad, the sums of the
 * general path of softmax_grad and log_softmax_grad (none on their f32
 * rows), the two accumulators of layer_norm_grad's params, the double
 * table of gather_grad and embedding_grad; 0 when the call is refused
 * or takes none. */
size_t
sym__kscratch_grad(const struct sym__kernel_args *a)
{
	const struct sym__tensor *t0 = &a->in[0];
	int64_t n, g;

	if (a->n_in < 2 || a->n_out < 1)
		return 0;
	switch (a->op->id) {
	case SYM__OP_REDUCE_MAX_GRAD:
		g = sym__tensor_numel(t0);
		return (size_t)(g ? g : 1) * sizeof(double);
	case SYM__OP_REDUCE_PROD_GRAD:
		g = sym__tensor_numel(t0);
		return (size_t)(g ? g : 1) * 16;
	case SYM__OP_SOFTMAX_GRAD:
	case SYM__OP_LOG_SOFTMAX_GRAD:
		if (!a->at || !a->at->norm.mark ||
		    (t0->dtype == SYM_DT_F32 && a->in[1].dtype == SYM_DT_F32 &&
		        a->out[0].dtype == SYM_DT_F32 &&
		        softmax_rows(t0, a->at->norm.mark, &g, &n)))
			return 0;
		n = sym__tensor_numel(t0);
		g = n ? n / group_size(t0, a->at->norm.mark) : 0;
		return (size_t)(g ? g : 1) * sizeof(double);
	case SYM__OP_LAYER_NORM_GRAD:
		if (a->n_in != 3)
			return 0;
		g = sym__tensor_numel(&a->in[2]);
		return 2 * (size_t)(g ? g : 1) * sizeof(double);
	case SYM__OP_GATHER_GRAD:
	case SYM__OP_EMBEDDING_GRAD:
		g = sym__tensor_numel(&a->out[0]);
		return (size_t)(g ? g : 1) * sizeof(double);
	default:
		return 0;
	}
}

/* The kernel of layer_norm_grad(dy, x, gamma) -> (dx, dgamma, dbeta),
 * MindSpore's LayerNormGrad with the statistics recomputed: over each
 * group of the dims of x from begin_norm_axis on (M elements), with
 * xhat = (x - mean) rstd, rstd = 1 / sqrt(var + epsilon) and g = dy
 * gamma, dx = rstd (g - mean(g) - xhat mean(g xhat)); dgamma and dbeta
 * are the sums of dy xhat and of dy over the dims before
 * begin_params_axis. In double; "a" is the call. */
int
sym__kern_layer_norm_grad(struct sym__kernel_args *a)
{
	static const char op[] = "layer_norm_grad";
	const struct sym__opattrs *at;
	const struct sym__tensor *dy, *x, *gm;
	int64_t rows, m, p;
	double *acc;

	if (sym__kio(a, op, 3, 3, 3, 3) < 0 || !(at = sym__kat(a, op)) ||
	    check_layer_norm_grad(a, at) < 0)
		return -1;
	dy = &a->in[0];
	x = &a->in[1];
	gm = &a->in[2];
	m = sym__kprod(x->dim, (int)at->norm.begin_norm, x->rank);
	rows = m ? sym__tensor_numel(x) / m : 0;
	p = sym__tensor_numel(gm);
	acc = sym__kscratch_get(a, 2 * (size_t)(p ? p : 1) * sizeof(*acc));
	if (!acc)
		return sym__kfail(a, op, "out of memory");
	memset(acc, 0, 2 * (size_t)p * sizeof(*acc));
	for (int64_t r = 0; r < rows; r++) {
		int64_t o = r * m;
		double mean = 0, var = 0, rstd, s1 = 0, s2 = 0;

		for (int64_t j = 0; j < m; j++)
			mean += sym__kld(x, o + j);
		mean /= (double)m;
		for (int64_t j = 0; j < m; j++)
			var += (sym__kld(x, o + j) - mean) *
			    (sym__kld(x, o + j) - mean);
		rstd = 1.0 / sqrt(var / (double)m + at->norm.epsilon);
		for (int64_t j = 0; j < m; j++) {
			double xh = (sym__kld(x, o + j) - mean) * rstd;
			double g =
			    sym__kld(dy, o + j) * sym__kld(gm, (o + j) % p);

			s1 += g;
			s2 += g * xh;
			acc[(o + j) % p] += sym__kld(dy, o + j) * xh;
			acc[p + (o + j) % p] += sym__kld(dy, o + j);
		}
		for (int64_t j = 0; j < m; j++) {
			double xh = (sym__kld(x, o + j) - mean) * rstd;
			double g =
			    sym__kld(dy, o + j) * sym__kld(gm, (o + j) % p);

			sym__kstore(&a->out[0], o + j,
			    rstd * (g - s1 / (double)m - xh * s2 / (double)m));
		}
	}
	for (int64_t j = 0; j < p; j++) {
		sym__kstore(&a->out[1], j, acc[j]);
		sym__kstore(&a->out[2], j, acc[p + j]);
	}
	sym__kscratch_done(a, acc);
	return 0;
}

/* Start "w" over the dims of "z" following alongside the offsets of
 * "x", aligned with "z" from the right, whose dims are those of "z" or
 * 1 (broadcast: stride 0), or absent. */
static void
walk_bcast(struct walk *w, const struct sym__tensor *z,
    const struct sym__tensor *x)
{
	int64_t s = 1;

	memset(w, 0, sizeof(*w));
	w->rank = z->rank;
	for (int d = z->rank - 1; d >= 0; d--) {
		int k = d - (z->rank - x->rank);

		w->dim[d] = z->dim[d];
		w->stride[d] = k < 0 || x->dim[k] == 1 ? 0 : s;
		s *= k < 0 ? 1 : x->dim[k];
	}
}

/* Check that "x", called "xn", of the call "a" of "op" broadcasts to the
 * dims of dy "z": rank at most dy's, each dim 1 or dy's aligned from the
 * right; return 0 or -1. */
static int
check_bcast(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn, const struct sym__tensor *z)
{
	if (x->rank > z->rank)
		return sym__kfail(a, op, "%s has rank %d, more than dy's %d",
		    xn, x->rank, z->rank);
	for (int k = 0; k < x->rank; k++) {
		int d = k + z->rank - x->rank;

		if (x->dim[k] != 1 && x->dim[k] != z->dim[d])
			return sym__kfail(a, op,
			    "dim %d of %s is %lld, neither 1 nor dy's %lld", k,
			    xn, (long long)x->dim[k], (long long)z->dim[d]);
	}
	return 0;
}

/* The kernels of maximum_grad(dy, a, b) and minimum_grad(dy, a, b) ->
 * (da, db) of dy's dims, called "op" ("is_max" says which): see the top
 * of the file. "a" is the call. */
int
sym__kern_extremum_grad(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int is_max = a->op->id == SYM__OP_MAXIMUM_GRAD;
	static const char *const names[] = { "dy", "a", "b", "da", "db" };
	const struct sym__tensor *t[5] = { &a->in[0], &a->in[1], &a->in[2],
		&a->out[0], &a->out[1] };
	struct walk wa, wb;
	int64_t n;

	if (sym__kio(a, op, 3, 3, 2, 2) < 0 ||
	    all_float(a, op, t, names, 5) < 0 ||
	    sym__ksame_dims(a, op, t[0], "dy", t[3], "da") < 0 ||
	    sym__ksame_dims(a, op, t[0], "dy", t[4], "db") < 0 ||
	    check_bcast(a, op, t[1], "a", t[0]) < 0 ||
	    check_bcast(a, op, t[2], "b", t[0]) < 0)
		return -1;
	n = sym__tensor_numel(t[0]);
	walk_bcast(&wa, t[0], t[1]);
	walk_bcast(&wb, t[0], t[2]);
	for (int64_t i = 0; i < n; i++, walk_next(&wa), walk_next(&wb)) {
		double g = sym__kld(t[0], i), u = sym__kld(t[1], wa.off),
		       v = sym__kld(t[2], wb.off);
		int first = is_max ? u > v : u < v;

		if (u == v) {
			sym__kstore(&a->out[0], i, 0.5 * g);
			sym__kstore(&a->out[1], i, 0.5 * g);
		} else {
			first |= u != u;
			sym__kstore(&a->out[0], i, first ? g : 0.0);
			sym__kstore(&a->out[1], i, first ? 0.0 : g);
		}
	}
	return 0;
}

/* Scatter-add, for the call "a" of "op", dy (input 0, of dims table[:ax]
 * + indices + table[ax+1:], checked) into output 0, zeros of the dims
 * of the table (input 2), along its axis "ax" at the indices (input 1),
 * keeping the rows of the table's local block; in double. Return 0 or
 * -1. */
static int
scatter_add(struct sym__kernel_args *a, const char *op, int ax)
{
	const struct sym__tensor *dy = &a->in[0], *ix = &a->in[1];
	const struct sym__tensor *p = &a->in[2];
	struct sym__tensor *z = &a->out[0];
	const struct sym__tensor *t[3] = { dy, p, z };
	static const char *const names[] = { "dy", "the table", "the output" };
	int64_t n = p->dim[ax], off = sym__kin_offset(a, 2, ax);
	int64_t nidx = sym__tensor_numel(ix), outer, inner;
	const int32_t *idx = ix->data;
	double *acc;

	if (sym__kindices(a, op, ix, "the indices") < 0 ||
	    all_float(a, op, t, names, 3) < 0 ||
	    sym__ksame_dims(a, op, p, "the table", z, "the output") < 0 ||
	    sym__kgather_check(a, op, 2, 1, ax, dy, "dy") < 0)
		return -1;
	outer = sym__kprod(p->dim, 0, ax);
	inner = sym__kprod(p->dim, ax + 1, p->rank);
	acc = sym__kscratch_get(a,
	    (size_t)(sym__tensor_numel(z) ? sym__tensor_numel(z) : 1) *
	        sizeof(*acc));
	if (!acc)
		return sym__kfail(a, op, "out of memory");
	memset(acc, 0, (size_t)sym__tensor_numel(z) * sizeof(*acc));
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < nidx; j++) {
			int64_t l = idx[j] - off;
			double *row = acc + (o * n + l) * inner;
			int64_t g0 = (o * nidx + j) * inner;

			if (l < 0 || l >= n)
				continue;
			for (int64_t i = 0; i < inner; i++)
				row[i] += sym__kld(dy, g0 + i);
		}
	for (int64_t i = 0; i < sym__tensor_numel(z); i++)
		sym__kstore(z, i, acc[i]);
	sym__kscratch_done(a, acc);
	return 0;
}

/* The kernel of gather_grad(dy, indices, params) along the decoded
 * axis; "a" is the call. */
int
sym__kern_gather_grad(struct sym__kernel_args *a)
{
	static const char op[] = "gather_grad";
	int ax;

	if (sym__kgather_axis(a, op, 3, 2, &ax) < 0)
		return -1;
	return scatter_add(a, op, ax);
}

/* The kernel of embedding_grad(dy, ids, table [V, D]); "a" is the
 * call. */
int
sym__kern_embedding_grad(struct sym__kernel_args *a)
{
	static const char op[] = "embedding_grad";

	if (sym__kembedding_table(a, op, 3, 2) < 0)
		return -1;
	return scatter_add(a, op, 0);
}
