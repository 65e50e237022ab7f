/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the elementwise family's unary maths beyond the first set
 * (erf rsqrt reciprocal abs sign floor ceil clip silu softplus) and of
 * their gradients (erf_grad rsqrt_grad reciprocal_grad clip_grad
 * silu_grad softplus_grad), with the formulas of PyTorch:
 *
 *  - erf, rsqrt (1 / sqrt x), reciprocal (1 / x), floor, ceil, silu
 *    (x sigmoid(x)) and softplus (log(1 + exp(beta x)) / beta, x itself
 *    where beta x > threshold) take floating dtypes;
 *  - abs, sign and clip also take integers, held in int32 and wrapped to
 *    their dtype (abs(-128) is -128 in i8, as in PyTorch); abs refuses
 *    i64, whose absolute value can need 33 bits; sign is 0 at 0 and NaN;
 *  - clip(x, min=, max=) is min(max(x, min), max), so that min > max
 *    gives max everywhere; NaN stays NaN;
 *  - the gradients take dy and the forward input x (erf, clip, silu,
 *    softplus) or output y (rsqrt, reciprocal): erf_grad dy 2/sqrt(pi)
 *    exp(-x^2), rsqrt_grad -dy y^3 / 2, reciprocal_grad -dy y^2,
 *    clip_grad dy where min <= x <= max and 0 elsewhere, silu_grad dy s
 *    (1 + x (1 - s)) with s = sigmoid(x), softplus_grad dy where beta x >
 *    threshold and dy sigmoid(beta x) elsewhere.
 *
 * gelu's tanh approximation, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
 * x^3))), and its derivative are here too, computed in double.
 */
#include <math.h>
#include <stdint.h>

#include "kern/kern_elementwise.h"

#define SQRT_2_OVER_PI 0.79788456080286535588
#define TWO_OVER_SQRT_PI 1.12837916709551257390
#define GELU_C 0.044715

/* A loop y = f(x) over "n" elements with the decoded attributes "at". */
typedef void (*unary_fn)(const void *x, void *y, int64_t n,
    const struct sym__opattrs *at);

/*
 * UNARY(name, T, expr): the function name(x, y, n, at) that stores in
 * y[i] the expression "expr" of v = x[i] and the attributes "at".
 */
#define UNARY(name, T, expr)                                  \
	static void name(const void *px, void *py, int64_t n, \
	    const struct sym__opattrs *at)                    \
	{                                                     \
		const T *restrict x = px;                     \
		T *restrict y = py;                           \
                                                              \
		(void)at;                                     \
		for (int64_t i = 0; i < n; i++) {             \
			T v = x[i];                           \
			y[i] = (expr);                        \
		}                                             \
	}

/* Return softplus of "v" with "beta" and "threshold", in double. */
static inline double
softplus(double v, double beta, double threshold)
{
	return beta * v > threshold ? v : log1p(exp(beta * v)) / beta;
}

/* Return "v" clipped to [lo, hi] with PyTorch's clamp: max wins. */
static inline double
clip_d(double v, double lo, double hi)
{
	v = v < lo ? lo : v;
	return v > hi ? hi : v;
}

/* Return the bound "b" of clip as an int32, saturated, rounded toward
 * the values it admits ("up": a lower bound, rounded up). */
static inline int32_t
int_bound(double b, int up)
{
	if (b <= INT32_MIN)
		return INT32_MIN;
	if (b >= INT32_MAX)
		return INT32_MAX;
	return (int32_t)(up ? ceil(b) : floor(b));
}

UNARY(erf_f32, float, erff(v))
UNARY(erf_f64, double, erf(v))
UNARY(rsqrt_f32, float, 1.0f / sqrtf(v))
UNARY(rsqrt_f64, double, 1.0 / sqrt(v))
UNARY(reciprocal_f32, float, 1.0f / v)
UNARY(reciprocal_f64, double, 1.0 / v)
UNARY(abs_f32, float, fabsf(v))
UNARY(abs_f64, double, fabs(v))
UNARY(abs_i32, int32_t, v < 0 ? (int32_t)(0u - (uint32_t)v) : v)
UNARY(sign_f32, float, (float)((v > 0) - (v < 0)))
UNARY(sign_f64, double, (double)((v > 0) - (v < 0)))
UNARY(sign_i32, int32_t, (v > 0) - (v < 0))
UNARY(floor_f32, float, floorf(v))
UNARY(floor_f64, double, floor(v))
UNARY(ceil_f32, float, ceilf(v))
UNARY(ceil_f64, double, ceil(v))
UNARY(clip_f32, float, (float)clip_d(v, at->elementwise.lo, at->elementwise.hi))
UNARY(clip_f64, double, clip_d(v, at->elementwise.lo, at->elementwise.hi))
UNARY(silu_f32, float, v / (1.0f + expf(-v)))
UNARY(silu_f64, double, v / (1.0 + exp(-v)))
UNARY(softplus_f32, float,
    (float)softplus(v, at->elementwise.beta, at->elementwise.threshold))
UNARY(softplus_f64, double,
    softplus(v, at->elementwise.beta, at->elementwise.threshold))

/* The int32 loop of clip: "n" elements of "px" into "py" within the
 * bounds of "at". */
static void
clip_i32(const void *px, void *py, int64_t n, const struct sym__opattrs *at)
{
	const int32_t *restrict x = px;
	int32_t *restrict y = py;
	int32_t lo = int_bound(at->elementwise.lo, 1);
	int32_t hi = int_bound(at->elementwise.hi, 0);

	for (int64_t i = 0; i < n; i++) {
		int32_t v = x[i] < lo ? lo : x[i];

		y[i] = v > hi ? hi : v;
	}
}

/* The loops of one unary operator by storage (NULL: not supported),
 * whether it reads attributes, and whether it refuses i64. */
struct unary_op {
	const char *name;
	unary_fn f32, f64, i32;
	int attrs, no_i64;
};

/* Run the unary operator "u" on the call "a"; return 0 or -1. */
static int
unary(struct sym__kernel_args *a, const struct unary_op *u)
{
	const struct sym__tensor *x, *y;
	const struct sym__opattrs *at = NULL;
	unary_fn f = NULL;

	if (sym__kio(a, u->name, 1, 1, 1, 1) < 0 ||
	    (u->attrs && !(at = sym__kat(a, u->name))))
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	if (sym__ksame_dims(a, u->name, x, "the input", y, "the output") < 0 ||
	    sym__ksame_kst(a, u->name, x, "the input", y, "the output") < 0)
		return -1;
	switch (sym__kst(x->dtype)) {
	case SYM__KST_F32:
		f = u->f32;
		break;
	case SYM__KST_F64:
		f = u->f64;
		break;
	case SYM__KST_I32:
		f = u->i32;
		break;
	default:
		break;
	}
	if (!f)
		return sym__kfail(a, u->name, "dtype %s is not supported",
		    sym_dtype_name(x->dtype));
	if (u->no_i64 && sym__kno_i64(a, u->name, x, "the input") < 0)
		return -1;
	f(x->data, y->data, sym__tensor_numel(x), at);
	sym__kwrap(y->data, y->dtype, sym__tensor_numel(y));
	return 0;
}

/* UNARY_KERNEL(name, i32, attrs, no_i64): the kernel sym__kern_name of the
 * unary operator name with its int32 loop "i32" (or NULL). */
#define UNARY_KERNEL(name, i32, attrs, no_i64)                        \
	int sym__kern_##name(struct sym__kernel_args *a)              \
	{                                                             \
		static const struct unary_op u = { #name, name##_f32, \
			name##_f64, i32, attrs, no_i64 };             \
                                                                      \
		return unary(a, &u);                                  \
	}

/* The kernels of the unary maths: "a" is the call, the result 0 or -1. */
UNARY_KERNEL(erf, NULL, 0, 0)
UNARY_KERNEL(rsqrt, NULL, 0, 0)
UNARY_KERNEL(reciprocal, NULL, 0, 0)
UNARY_KERNEL(abs, abs_i32, 0, 1)
UNARY_KERNEL(sign, sign_i32, 0, 0)
UNARY_KERNEL(floor, NULL, 0, 0)
UNARY_KERNEL(ceil, NULL, 0, 0)
UNARY_KERNEL(clip, clip_i32, 1, 0)
UNARY_KERNEL(silu, NULL, 0, 0)
UNARY_KERNEL(softplus, NULL, 1, 0)

/* Return gelu's tanh approximation at "x". */
double
sym__gelu_tanh(double x)
{
	return 0.5 * x *
	    (1.0 + tanh(SQRT_2_OVER_PI * (x + GELU_C * x * x * x)));
}

/* Return the derivative of gelu's tanh approximation at "x". */
double
sym__gelu_tanh_grad(double x)
{
	double t = tanh(SQRT_2_OVER_PI * (x + GELU_C * x * x * x));

	return 0.5 * (1.0 + t) +
	    0.5 * x * (1.0 - t * t) * SQRT_2_OVER_PI *
	    (1.0 + 3.0 * GELU_C * x * x);
}

/* Return dy times the derivative of softplus at "x" with the attributes
 * "at". */
static inline double
softplus_grad(double dy, double x, const struct sym__opattrs *at)
{
	double bx = at->elementwise.beta * x;

	return bx > at->elementwise.threshold ? dy : dy / (1.0 + exp(-bx));
}

/* Return dy times the derivative of silu at "x". */
static inline double
silu_grad(double dy, double x)
{
	double s = 1.0 / (1.0 + exp(-x));

	return dy * s * (1.0 + x * (1.0 - s));
}

/* A loop z = f(g, v) over "n" elements with the attributes "at". */
typedef void (*pair_fn)(const void *g, const void *v, void *z, int64_t n,
    const struct sym__opattrs *at);

/*
 * PAIR(name, T, expr): the function name(g, v, z, n, at) that stores in
 * z[i] the expression "expr" of the incoming gradient d = g[i], the
 * forward value v = v[i] and the attributes "at".
 */
#define PAIR(name, T, expr)                                                   \
	static void name(const void *pg, const void *pv, void *pz, int64_t n, \
	    const struct sym__opattrs *at)                                    \
	{                                                                     \
		const T *restrict g = pg, *restrict x = pv;                   \
		T *restrict z = pz;                                           \
                                                                              \
		(void)at;                                                     \
		for (int64_t i = 0; i < n; i++) {                             \
			T d = g[i], v = x[i];                                 \
			z[i] = (expr);                                        \
		}                                                             \
	}

PAIR(erf_grad_f32, float, d *(float)TWO_OVER_SQRT_PI *expf(-v *v))
PAIR(erf_grad_f64, double, d *TWO_OVER_SQRT_PI *exp(-v *v))
PAIR(rsqrt_grad_f32, float, -0.5f * d * v * v * v)
PAIR(rsqrt_grad_f64, double, -0.5 * d * v * v * v)
PAIR(reciprocal_grad_f32, float, -d *v *v)
PAIR(reciprocal_grad_f64, double, -d *v *v)
PAIR(clip_grad_f32, float,
    v >= at->elementwise.lo && v <= at->elementwise.hi ? d : 0.0f)
PAIR(clip_grad_f64, double,
    v >= at->elementwise.lo && v <= at->elementwise.hi ? d : 0.0)
PAIR(silu_grad_f32, float, (float)silu_grad(d, v))
PAIR(silu_grad_f64, double, silu_grad(d, v))
PAIR(softplus_grad_f32, float, (float)softplus_grad(d, v, at))
PAIR(softplus_grad_f64, double, softplus_grad(d, v, at))

/* Run the unary gradient "op" (dy, v -> dx, all of one floating dtype
 * and dims) on the call "a" with the loops "f32" and "f64", reading the
 * attributes when "attrs"; return 0 or -1. */
static int
pair(struct sym__kernel_args *a, const char *op, pair_fn f32, pair_fn f64,
    int attrs)
{
	const struct sym__tensor *g = &a->in[0];
	const struct sym__opattrs *at = NULL;

	if (sym__kgrad_pair(a, op) < 0 || (attrs && !(at = sym__kat(a, op))))
		return -1;
	(sym__kst(g->dtype) == SYM__KST_F32 ? f32 : f64)(g->data, a->in[1].data,
	    a->out[0].data, sym__tensor_numel(g), at);
	return 0;
}

/* PAIR_KERNEL(name, attrs): the kernel sym__kern_name of the gradient
 * name. */
#define PAIR_KERNEL(name, attrs)                                      \
	int sym__kern_##name(struct sym__kernel_args *a)              \
	{                                                             \
		return pair(a, #name, name##_f32, name##_f64, attrs); \
	}

/* The kernels of the gradients: "a" is the call, the result 0 or -1. */
PAIR_KERNEL(erf_grad, 0)
PAIR_KERNEL(rsqrt_grad, 0)
PAIR_KERNEL(reciprocal_grad, 0)
PAIR_KERNEL(clip_grad, 1)
PAIR_KERNEL(silu_grad, 0)
PAIR_KERNEL(softplus_grad, 1)
