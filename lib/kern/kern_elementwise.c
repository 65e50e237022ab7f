/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the elementwise family: the unary maths (relu gelu exp log
 * neg sqrt tanh sigmoid), cast, identity, the binary arithmetic (add sub
 * mul div maximum minimum) with NumPy broadcasting, and bias_add.
 *
 * Floating kernels run in f32 (f64 for f64 tensors) and propagate NaN,
 * as NumPy and PyTorch: relu(NaN) is NaN, and maximum and minimum give
 * NaN when either operand is NaN (np.maximum, not np.fmax). gelu is the
 * exact form 0.5 x (1 + erf(x / sqrt 2)) (erff) by default, the tanh
 * approximation with approximate="tanh" (see kern_math.c).
 * The kernels of the operators added for real models (comparisons,
 * logical operators, where, pow, the unary maths from erf to softplus
 * and their gradients) are in kern_compare.c and kern_math.c.
 * relu, neg, bias_add and the binary ops also take integers, held in
 * int32 and computed in the width of their dtype: results wrap to i8,
 * i16, u8 or i32 like NumPy's and PyTorch's (100 + 100 is -56 in i8).
 * i64, held in int32 too, is refused where a result could need more
 * bits (neg, add, sub, mul, div, bias_add, and cast from a floating
 * dtype). Integer div is floor division (Python's //) and a zero divisor
 * is an error. On bool, add and maximum are "or", mul and minimum "and";
 * sub and div are errors (as in NumPy).
 *
 * cast converts to the output's dtype (the attribute dtype, which must
 * match it): float to integer truncates toward zero and saturates to the
 * target's range (NaN gives 0), integer to narrower integer wraps (two's
 * complement), anything to bool is "!= 0". f16 and bf16 are held as f32
 * and cast to them does not round to half precision.
 */
#include <math.h>
#include <string.h>

#include "kern/kern_elementwise.h"

/* A loop y = f(x) over "n" elements, by storage class. */
typedef void (*unary_fn)(const void *x, void *y, int64_t n);

/*
 * UNARY(name, T, expr): the function name(x, y, n) that stores in y[i]
 * the expression "expr" of v = x[i], for "n" elements of type T.
 */
#define UNARY(name, T, expr)                                  \
	static void name(const void *px, void *py, int64_t n) \
	{                                                     \
		const T *restrict x = px;                     \
		T *restrict y = py;                           \
                                                              \
		SYM__SIMD                                     \
		for (int64_t i = 0; i < n; i++) {             \
			T v = x[i];                           \
			y[i] = (expr);                        \
		}                                             \
	}

/*
 * UNARY_CALL(name, T, expr): the same as UNARY(name, T, expr) for an
 * expression that calls libm, which no compiler here vectorises.
 */
#define UNARY_CALL(name, T, expr)                             \
	static void name(const void *px, void *py, int64_t n) \
	{                                                     \
		const T *restrict x = px;                     \
		T *restrict y = py;                           \
                                                              \
		for (int64_t i = 0; i < n; i++) {             \
			T v = x[i];                           \
			y[i] = (expr);                        \
		}                                             \
	}

UNARY(relu_f32, float, v > 0.0f || v != v ? v : 0.0f)
UNARY(relu_f64, double, v > 0.0 || v != v ? v : 0.0)
UNARY(relu_i32, int32_t, v > 0 ? v : 0)
UNARY(neg_f32, float, -v)
UNARY(neg_f64, double, -v)
UNARY(neg_i32, int32_t, (int32_t)(0u - (uint32_t)v))
UNARY_CALL(gelu_f32, float, 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)))
UNARY_CALL(gelu_f64, double, 0.5 * v * (1.0 + erf(v * 0.70710678118654752)))
UNARY_CALL(exp_f32, float, expf(v))
UNARY_CALL(exp_f64, double, exp(v))
UNARY_CALL(log_f32, float, logf(v))
UNARY_CALL(log_f64, double, log(v))
UNARY_CALL(sqrt_f32, float, sqrtf(v))
UNARY_CALL(sqrt_f64, double, sqrt(v))
UNARY_CALL(tanh_f32, float, tanhf(v))
UNARY_CALL(tanh_f64, double, tanh(v))
UNARY_CALL(sigmoid_f32, float, 1.0f / (1.0f + expf(-v)))
UNARY_CALL(sigmoid_f64, double, 1.0 / (1.0 + exp(-v)))

/* Run the unary "op" on the call "a" with the loops "f32", "f64" and
 * "i32" (NULL: that storage is not supported); return 0 or -1. */
static int
unary(struct sym__kernel_args *a, const char *op, unary_fn f32, unary_fn f64,
    unary_fn i32)
{
	const struct sym__tensor *x, *y;
	unary_fn f = NULL;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	if (sym__ksame_dims(a, op, x, "the input", y, "the output") < 0 ||
	    sym__ksame_kst(a, op, x, "the input", y, "the output") < 0)
		return -1;
	switch (sym__kst(x->dtype)) {
	case SYM__KST_F32:
		f = f32;
		break;
	case SYM__KST_F64:
		f = f64;
		break;
	case SYM__KST_I32:
		f = i32;
		break;
	default:
		break;
	}
	if (!f)
		return sym__kfail(a, op, "dtype %s is not supported",
		    sym_dtype_name(x->dtype));
	f(x->data, y->data, sym__tensor_numel(x));
	sym__kwrap(y->data, y->dtype, sym__tensor_numel(y));
	return 0;
}

/* UNARY_KERNEL(name, i32): the kernel sym__kern_name of the unary operator name,
 * with its int32 loop "i32" (or NULL). */
#define UNARY_KERNEL(name, i32)                                      \
	int sym__kern_##name(struct sym__kernel_args *a)             \
	{                                                            \
		return unary(a, #name, name##_f32, name##_f64, i32); \
	}

UNARY_KERNEL(relu, relu_i32)
UNARY_KERNEL(exp, NULL)
UNARY_KERNEL(log, NULL)
UNARY_KERNEL(sqrt, NULL)
UNARY_KERNEL(tanh, NULL)
UNARY_KERNEL(sigmoid, NULL)

/* The loops of gelu's tanh approximation (kern_math.c), over "n"
 * elements of "px" into "py". */
static void
gelu_tanh_f32(const void *px, void *py, int64_t n)
{
	const float *x = px;
	float *y = py;

	for (int64_t i = 0; i < n; i++)
		y[i] = (float)sym__gelu_tanh(x[i]);
}

/* The same in f64. */
static void
gelu_tanh_f64(const void *px, void *py, int64_t n)
{
	const double *x = px;
	double *y = py;

	for (int64_t i = 0; i < n; i++)
		y[i] = sym__gelu_tanh(x[i]);
}

/* The kernel of gelu: the exact form, or the tanh approximation when the
 * decoded attribute approximate says so (no attributes: exact); "a" is
 * the call. */
int
sym__kern_gelu(struct sym__kernel_args *a)
{
	if (a->at && a->at->elementwise.approximate)
		return unary(a, "gelu", gelu_tanh_f32, gelu_tanh_f64, NULL);
	return unary(a, "gelu", gelu_f32, gelu_f64, NULL);
}

/* The kernel of neg, which refuses i64 (-INT32_MIN needs 33 bits); "a"
 * is the call. */
int
sym__kern_neg(struct sym__kernel_args *a)
{
	if (sym__kio(a, "neg", 1, 1, 1, 1) < 0 ||
	    sym__kno_i64(a, "neg", &a->in[0], "the input") < 0)
		return -1;
	return unary(a, "neg", neg_f32, neg_f64, neg_i32);
}

/* The kernel of identity: a copy (or an alias) of the input; "a" is the
 * call. */
int
sym__kern_identity(struct sym__kernel_args *a)
{
	static const char op[] = "identity";

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 ||
	    sym__ksame_dims(a, op, &a->in[0], "the input", &a->out[0],
	        "the output") < 0)
		return -1;
	return sym__kcopy_or_alias(a, op);
}

/* Store in "lo" and "hi" the range of the integer dtype "dt" as stored
 * (i64 is held in int32). */
static void
int_range(sym_dtype dt, double *lo, double *hi)
{
	switch (dt) {
	case SYM_DT_I8:
		*lo = INT8_MIN;
		*hi = INT8_MAX;
		break;
	case SYM_DT_I16:
		*lo = INT16_MIN;
		*hi = INT16_MAX;
		break;
	case SYM_DT_U8:
		*lo = 0;
		*hi = UINT8_MAX;
		break;
	default:
		*lo = INT32_MIN;
		*hi = INT32_MAX;
		break;
	}
}

/* Store in "y" the "n" values of "x" (storage "k") converted to double. */
static void
load_double(const void *x, enum sym__kst k, double *restrict y, int64_t n)
{
	if (k == SYM__KST_F32) {
		const float *restrict s = x;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			y[i] = s[i];
	} else if (k == SYM__KST_F64) {
		memcpy(y, x, (size_t)n * sizeof(*y));
	} else if (k == SYM__KST_I32) {
		const int32_t *restrict s = x;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			y[i] = s[i];
	} else {
		const uint8_t *restrict s = x;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			y[i] = s[i];
	}
}

/* Store the "n" doubles "x" into "y" of dtype "dt" (see the top of the
 * file for the rules). */
static void
store_double(const double *restrict x, void *y, sym_dtype dt, int64_t n)
{
	enum sym__kst k = sym__kst(dt);
	double lo, hi;

	if (k == SYM__KST_F32) {
		float *restrict d = y;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			d[i] = (float)x[i];
	} else if (k == SYM__KST_F64) {
		memcpy(y, x, (size_t)n * sizeof(*x));
	} else if (k == SYM__KST_U8) {
		uint8_t *restrict d = y;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			d[i] = x[i] != 0.0;
	} else {
		int32_t *restrict d = y;

		int_range(dt, &lo, &hi);
		SYM__SIMD
		for (int64_t i = 0; i < n; i++) {
			double v = x[i] != x[i] ? 0.0 : x[i];

			v = v < lo ? lo : v > hi ? hi : v;
			d[i] = (int32_t)v;
		}
	}
}

/* Store in "y" (int32 of dtype "dt") the "n" int32 values "x" wrapped to
 * the width of "dt". */
static void
wrap_ints(const int32_t *restrict x, int32_t *restrict y, sym_dtype dt,
    int64_t n)
{
	switch (dt) {
	case SYM_DT_I8:
		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			y[i] = (int8_t)x[i];
		break;
	case SYM_DT_I16:
		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			y[i] = (int16_t)x[i];
		break;
	case SYM_DT_U8:
		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			y[i] = (uint8_t)x[i];
		break;
	default:
		memmove(y, x, (size_t)n * sizeof(*y));
		break;
	}
}

#define CAST_CHUNK 256

/* Convert the "n" elements of "x" to "y" (see the top of the file). */
static void
convert(const struct sym__tensor *x, struct sym__tensor *y, int64_t n)
{
	enum sym__kst kx = sym__kst(x->dtype), ky = sym__kst(y->dtype);
	size_t ex = sym__tensor_elem_size(x->dtype);
	size_t ey = sym__tensor_elem_size(y->dtype);
	double buf[CAST_CHUNK];

	if (kx == SYM__KST_I32 && ky == SYM__KST_I32) {
		wrap_ints(x->data, y->data, y->dtype, n);
		return;
	}
	for (int64_t i = 0; i < n; i += CAST_CHUNK) {
		int64_t m = n - i < CAST_CHUNK ? n - i : CAST_CHUNK;

		load_double((const char *)x->data + i * (int64_t)ex, kx, buf,
		    m);
		store_double(buf, (char *)y->data + i * (int64_t)ey, y->dtype,
		    m);
	}
}

/* The kernel of cast: the input converted to the output's dtype, which
 * must be the decoded attribute dtype; "a" is the call. */
int
sym__kern_cast(struct sym__kernel_args *a)
{
	static const char op[] = "cast";
	const struct sym__opattrs *at;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 ||
	    sym__ksame_dims(a, op, &a->in[0], "the input", &a->out[0],
	        "the output") < 0 ||
	    !(at = sym__kat(a, op)))
		return -1;
	if (at->elementwise.dtype != a->out[0].dtype)
		return sym__kfail(a, op,
		    "the output is %s but the attribute dtype says %s",
		    sym_dtype_name(a->out[0].dtype),
		    sym_dtype_name(at->elementwise.dtype));
	if (a->in[0].data == a->out[0].data && sym__tensor_numel(&a->in[0]))
		return sym__kfail(a, op, "the output may not alias the input");
	if (sym_dtype_is_float(a->in[0].dtype) && a->out[0].dtype == SYM_DT_I64)
		return sym__kfail(a, op,
		    "a cast from %s to i64 is not supported: i64 is held in "
		    "32 bits",
		    sym_dtype_name(a->in[0].dtype));
	convert(&a->in[0], &a->out[0], sym__tensor_numel(&a->in[0]));
	return 0;
}

/* A row of a binary operation: z = x op y over "n" elements, "sx" and
 * "sy" the strides (1, or 0 for a broadcast scalar) of the operands. */
typedef void (*binary_fn)(const void *x, int64_t sx, const void *y, int64_t sy,
    void *z, int64_t n);

/*
 * BINARY(name, T, expr): the row function name(x, sx, y, sy, z, n) of
 * type T that stores in z[i] the expression "expr" of u = x[i * sx] and
 * v = y[i * sy], with one loop per stride pattern.
 */
#define BINARY(name, T, expr)                                        \
	static void name(const void *px, int64_t sx, const void *py, \
	    int64_t sy, void *pz, int64_t n)                         \
	{                                                            \
		const T *restrict x = px;                            \
		const T *restrict y = py;                            \
		T *restrict z = pz;                                  \
                                                                     \
		if (sx && sy) {                                      \
			SYM__SIMD                                    \
			for (int64_t i = 0; i < n; i++) {            \
				T u = x[i], v = y[i];                \
				z[i] = (expr);                       \
			}                                            \
		} else if (sx) {                                     \
			T v = y[0];                                  \
			SYM__SIMD                                    \
			for (int64_t i = 0; i < n; i++) {            \
				T u = x[i];                          \
				z[i] = (expr);                       \
			}                                            \
		} else {                                             \
			T u = x[0];                                  \
			SYM__SIMD                                    \
			for (int64_t i = 0; i < n; i++) {            \
				T v = y[i * sy];                     \
				z[i] = (expr);                       \
			}                                            \
		}                                                    \
	}

/* Return the floor division of "u" by "v" (not 0), wrapped to int32. */
static inline int32_t
floor_div(int32_t u, int32_t v)
{
	int64_t q = (int64_t)u / v;

	if ((int64_t)q * v != u && ((u < 0) != (v < 0)))
		q--;
	return (int32_t)(uint32_t)q;
}

#define WRAP(op) (int32_t)((uint32_t)u op(uint32_t) v)

BINARY(add_f32, float, u + v)
BINARY(add_f64, double, u + v)
BINARY(add_i32, int32_t, WRAP(+))
BINARY(add_u8, uint8_t, u | v)
BINARY(sub_f32, float, u - v)
BINARY(sub_f64, double, u - v)
BINARY(sub_i32, int32_t, WRAP(-))
BINARY(mul_f32, float, u *v)
BINARY(mul_f64, double, u *v)
BINARY(mul_i32, int32_t, WRAP(*))
BINARY(mul_u8, uint8_t, u &v)
BINARY(div_f32, float, u / v)
BINARY(div_f64, double, u / v)
BINARY(div_i32, int32_t, floor_div(u, v))
BINARY(maximum_f32, float, u > v || u != u ? u : v)
BINARY(maximum_f64, double, u > v || u != u ? u : v)
BINARY(maximum_i32, int32_t, u > v ? u : v)
BINARY(maximum_u8, uint8_t, u | v)
BINARY(minimum_f32, float, u < v || u != u ? u : v)
BINARY(minimum_f64, double, u < v || u != u ? u : v)
BINARY(minimum_i32, int32_t, u < v ? u : v)
BINARY(minimum_u8, uint8_t, u &v)
BINARY(relu_grad_f32, float, v > 0.0f ? u : 0.0f)
BINARY(relu_grad_f64, double, v > 0.0 ? u : 0.0)
BINARY(relu_grad_i32, int32_t, v > 0 ? u : 0)

/* The row functions of one binary operator by storage class (NULL: not
 * supported); "wide" when its integer results can need more bits than
 * its operands (not for i64, held in int32). */
struct binary_op {
	const char *name;
	binary_fn f32, f64, i32, u8;
	int wide;
};

/* The broadcast loops of one binary call: "n" merged dims of the output
 * and the strides of both operands along them (0: broadcast). */
struct bcast {
	int n;
	int64_t dim[SYM__MAX_RANK], sx[SYM__MAX_RANK], sy[SYM__MAX_RANK];
};

/* Check that the output of the call "a" of "op" has the broadcast dims of
 * its inputs and fill "b" with the merged loops; return 0 or -1. */
static int
broadcast(struct sym__kernel_args *a, const char *op, struct bcast *b)
{
	const struct sym__tensor *x = &a->in[0], *y = &a->in[1], *z;
	int64_t tx[SYM__MAX_RANK], ty[SYM__MAX_RANK];
	int r = x->rank > y->rank ? x->rank : y->rank;

	z = &a->out[0];
	if (z->rank != r)
		return sym__kfail(a, op, "the output has rank %d, not %d",
		    z->rank, r);
	sym__kstrides(x, tx);
	sym__kstrides(y, ty);
	b->n = 0;
	for (int d = 0; d < r; d++) {
		int dx = d - (r - x->rank), dy = d - (r - y->rank);
		int64_t nx = dx < 0 ? 1 : x->dim[dx],
		        ny = dy < 0 ? 1 : y->dim[dy];
		int64_t nz = nx == 1 ? ny : nx;
		int64_t sx = nx == 1 ? 0 : tx[dx], sy = ny == 1 ? 0 : ty[dy];
		int k = b->n;

		if ((ny != 1 && ny != nz) || z->dim[d] != nz)
			return sym__kfail(a, op,
			    "dim %d: the inputs have %lld and %lld, the output "
			    "%lld (not a broadcast)",
			    d, (long long)nx, (long long)ny,
			    (long long)z->dim[d]);
		if (nz == 1)
			continue;
		if (k > 0 && b->sx[k - 1] == sx * nz &&
		    b->sy[k - 1] == sy * nz) {
			b->dim[k - 1] *= nz;
			b->sx[k - 1] = sx;
			b->sy[k - 1] = sy;
			continue;
		}
		b->dim[k] = nz;
		b->sx[k] = sx;
		b->sy[k] = sy;
		b->n++;
	}
	return 0;
}

/* Return the row function of "bo" for the storage of the call "a" of its
 * operator, or NULL after an error (unsupported dtype, zero integer
 * divisor). */
static binary_fn
pick(struct sym__kernel_args *a, const struct binary_op *bo)
{
	const struct sym__tensor *y = &a->in[1];
	binary_fn f = NULL;

	switch (sym__kst(a->in[0].dtype)) {
	case SYM__KST_F32:
		f = bo->f32;
		break;
	case SYM__KST_F64:
		f = bo->f64;
		break;
	case SYM__KST_I32:
		f = bo->i32;
		break;
	default:
		f = bo->u8;
		break;
	}
	if (!f) {
		sym__kfail(a, bo->name, "dtype %s is not supported",
		    sym_dtype_name(a->in[0].dtype));
		return NULL;
	}
	if (bo->wide && sym__kno_i64(a, bo->name, &a->in[0], "input 0") < 0)
		return NULL;
	if (f == div_i32)
		for (int64_t i = 0, n = sym__tensor_numel(y); i < n; i++)
			if (((const int32_t *)y->data)[i] == 0) {
				sym__kfail(a, bo->name,
				    "integer division by zero");
				return NULL;
			}
	return f;
}

/* Run the binary operator "bo" on the call "a"; return 0 or -1. */
static int
binary(struct sym__kernel_args *a, const struct binary_op *bo)
{
	const char *op = bo->name;
	int64_t idx[SYM__MAX_RANK] = { 0 }, inner, outer, ox = 0, oy = 0;
	size_t es;
	struct bcast b;
	binary_fn f;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 ||
	    sym__ksame_kst(a, op, &a->in[0], "input 0", &a->in[1], "input 1") <
	        0 ||
	    sym__ksame_kst(a, op, &a->in[0], "input 0", &a->out[0],
	        "the output") < 0 ||
	    broadcast(a, op, &b) < 0)
		return -1;
	if (sym__tensor_numel(&a->out[0]) == 0)
		return 0;
	f = pick(a, bo);
	if (!f)
		return -1;
	es = sym__tensor_elem_size(a->out[0].dtype);
	inner = b.n ? b.dim[b.n - 1] : 1;
	outer = sym__tensor_numel(&a->out[0]) / inner;
	for (int64_t i = 0; i < outer; i++) {
		int d;

		f((const char *)a->in[0].data + ox * (int64_t)es,
		    b.n ? b.sx[b.n - 1] : 0,
		    (const char *)a->in[1].data + oy * (int64_t)es,
		    b.n ? b.sy[b.n - 1] : 0,
		    (char *)a->out[0].data + i * inner * (int64_t)es, inner);
		for (d = b.n - 2; d >= 0; d--) {
			ox += b.sx[d];
			oy += b.sy[d];
			if (++idx[d] < b.dim[d])
				break;
			ox -= b.sx[d] * b.dim[d];
			oy -= b.sy[d] * b.dim[d];
			idx[d] = 0;
		}
	}
	sym__kwrap(a->out[0].data, a->out[0].dtype,
	    sym__tensor_numel(&a->out[0]));
	return 0;
}

/* BINARY_KERNEL(name, i32, u8, wide): the kernel sym__kern_name of the binary
 * operator name, with its int32 and bool rows (or NULL) and its "wide"
 * flag. */
#define BINARY_KERNEL(name, i32, u8, wide)                              \
	int sym__kern_##name(struct sym__kernel_args *a)                \
	{                                                               \
		static const struct binary_op bo = { #name, name##_f32, \
			name##_f64, i32, u8, wide };                    \
                                                                        \
		return binary(a, &bo);                                  \
	}

BINARY_KERNEL(add, add_i32, add_u8, 1)
BINARY_KERNEL(sub, sub_i32, NULL, 1)
BINARY_KERNEL(mul, mul_i32, mul_u8, 1)
BINARY_KERNEL(div, div_i32, NULL, 1)
BINARY_KERNEL(maximum, maximum_i32, maximum_u8, 0)
BINARY_KERNEL(minimum, minimum_i32, minimum_u8, 0)
BINARY_KERNEL(relu_grad, relu_grad_i32, NULL, 0)

/* The kernel of fill_like: every element of the output (of the input's
 * dims and dtype) set to the decoded value; "a" is the call. */
int
sym__kern_fill_like(struct sym__kernel_args *a)
{
	static const char op[] = "fill_like";
	struct sym__tensor *y;
	double v;
	int64_t n;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !sym__kat(a, op) ||
	    sym__ksame_dims(a, op, &a->in[0], "the input", &a->out[0],
	        "the output") < 0 ||
	    sym__ksame_kst(a, op, &a->in[0], "the input", &a->out[0],
	        "the output") < 0)
		return -1;
	y = &a->out[0];
	v = a->at->elementwise.value;
	n = sym__tensor_numel(y);
	switch (sym__kst(y->dtype)) {
	case SYM__KST_F32:
		for (int64_t i = 0; i < n; i++)
			((float *)y->data)[i] = (float)v;
		break;
	case SYM__KST_F64:
		for (int64_t i = 0; i < n; i++)
			((double *)y->data)[i] = v;
		break;
	case SYM__KST_I32:
		for (int64_t i = 0; i < n; i++)
			((int32_t *)y->data)[i] = (int32_t)v;
		break;
	case SYM__KST_U8:
		for (int64_t i = 0; i < n; i++)
			((uint8_t *)y->data)[i] = (uint8_t)(v != 0);
		break;
	default:
		return sym__kfail(a, op, "dtype %s is not supported",
		    sym_dtype_name(y->dtype));
	}
	return 0;
}

/*
 * BIAS(name, T, expr): the function name(x, b, y, outer, c, inner) that
 * adds the "c" biases "b" of type T to "x" of dims [outer, c, inner] into
 * "y", with "expr" the sum of u = x[...] and v = b[k].
 */
#define BIAS(name, T, expr)                                                \
	static void name(const void *px, const void *pb, void *py,         \
	    int64_t outer, int64_t c, int64_t inner)                       \
	{                                                                  \
		const T *restrict x = px;                                  \
		const T *restrict b = pb;                                  \
		T *restrict y = py;                                        \
                                                                           \
		for (int64_t o = 0; o < outer; o++) {                      \
			if (inner == 1) {                                  \
				SYM__SIMD                                  \
				for (int64_t k = 0; k < c; k++) {          \
					T u = x[o * c + k], v = b[k];      \
					y[o * c + k] = (expr);             \
				}                                          \
				continue;                                  \
			}                                                  \
			for (int64_t k = 0; k < c; k++) {                  \
				const T *xr = x + (o * c + k) * inner;     \
				T *yr = y + (o * c + k) * inner, v = b[k]; \
                                                                           \
				SYM__SIMD                                  \
				for (int64_t i = 0; i < inner; i++) {      \
					T u = xr[i];                       \
					yr[i] = (expr);                    \
				}                                          \
			}                                                  \
		}                                                          \
	}

BIAS(bias_f32, float, u + v)
BIAS(bias_f64, double, u + v)
BIAS(bias_i32, int32_t, WRAP(+))

/* The kernel of bias_add(x, bias): bias [C] added along the decoded
 * channel dim of x; "a" is the call. */
int
sym__kern_bias_add(struct sym__kernel_args *a)
{
	static const char op[] = "bias_add";
	const struct sym__opattrs *at;
	const struct sym__tensor *x, *b;
	int c;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	x = &a->in[0];
	b = &a->in[1];
	if (x->rank < 2 || b->rank != 1)
		return sym__kfail(a, op,
		    "x must have rank at least 2 and the bias rank 1 (ranks "
		    "%d and %d)",
		    x->rank, b->rank);
	if (sym__kaxis(a, op, "the channel axis", at->elementwise.channel,
	        x->rank) < 0)
		return -1;
	c = (int)at->elementwise.channel;
	if (b->dim[0] != x->dim[c])
		return sym__kfail(a, op,
		    "the bias has %lld elements but dim %d of x is %lld",
		    (long long)b->dim[0], c, (long long)x->dim[c]);
	if (sym__ksame_dims(a, op, x, "x", &a->out[0], "the output") < 0 ||
	    sym__ksame_kst(a, op, x, "x", b, "the bias") < 0 ||
	    sym__ksame_kst(a, op, x, "x", &a->out[0], "the output") < 0)
		return -1;
	switch (sym__kst(x->dtype)) {
	case SYM__KST_F32:
		bias_f32(x->data, b->data, a->out[0].data,
		    sym__kprod(x->dim, 0, c), x->dim[c],
		    sym__kprod(x->dim, c + 1, x->rank));
		return 0;
	case SYM__KST_F64:
		bias_f64(x->data, b->data, a->out[0].data,
		    sym__kprod(x->dim, 0, c), x->dim[c],
		    sym__kprod(x->dim, c + 1, x->rank));
		return 0;
	case SYM__KST_I32:
		if (sym__kno_i64(a, op, x, "x") < 0)
			return -1;
		bias_i32(x->data, b->data, a->out[0].data,
		    sym__kprod(x->dim, 0, c), x->dim[c],
		    sym__kprod(x->dim, c + 1, x->rank));
		sym__kwrap(a->out[0].data, x->dtype,
		    sym__tensor_numel(&a->out[0]));
		return 0;
	default:
		return sym__kfail(a, op, "dtype %s is not supported",
		    sym_dtype_name(x->dtype));
	}
}
