/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the elementwise family that broadcast any number of
 * operands, NumPy style: the comparisons (equal not_equal less
 * less_equal greater greater_equal: operands of one dtype, any, and a
 * bool result), logical_and, logical_or and logical_not (bool), where(c,
 * a, b) (a bool condition selecting a where true, b where false, any
 * dtype), pow(a, b) (floating) and its gradient pow_grad(dy, a, b).
 *
 * Comparisons follow IEEE: every comparison with NaN is false but
 * not_equal, which is true. pow is C's pow, as PyTorch's: a negative
 * base to a non-integer exponent is NaN, 0 to a negative exponent
 * infinite. pow_grad gives, at dy's dims, dy b a^(b - 1) (0 where b is 0)
 * and dy a^b log(a) (0 where a is 0 and b >= 0), PyTorch's formulas.
 */
#include <math.h>
#include <string.h>

#include "kern/kern_elementwise.h"

/* A row of an operation over broadcast operands: the "n" elements of the
 * outputs "z" (contiguous) from the operands "x" read at the strides "s"
 * (0: broadcast). */
typedef void (*nary_fn)(const char *const *x, const int64_t *s, char *const *z,
    int64_t n);

#define MAX_IN 3
#define MAX_OUT 2

/* The loops of one call: "n" merged dims of the outputs and, by operand,
 * its strides along them in elements (0: broadcast). */
struct loops {
	int n;
	int64_t dim[SYM__MAX_RANK];
	int64_t s[MAX_IN][SYM__MAX_RANK];
};

/* Fill "l" with the merged loops of the call "a" of "op" after checking
 * that every output has the broadcast dims of the inputs; return 0 or
 * -1. */
static int
plan_loops(struct sym__kernel_args *a, const char *op, struct loops *l)
{
	int64_t t[MAX_IN][SYM__MAX_RANK];
	int r = 0;

	l->n = 0;
	for (int i = 0; i < a->n_in; i++) {
		r = a->in[i].rank > r ? a->in[i].rank : r;
		sym__kstrides(&a->in[i], t[i]);
	}
	for (int o = 0; o < a->n_out; o++)
		if (a->out[o].rank != r)
			return sym__kfail(a, op,
			    "output %d has rank %d, not %d", o, a->out[o].rank,
			    r);
	for (int d = 0; d < r; d++) {
		int64_t nz = 1, sz[MAX_IN];
		int k = l->n, merge = k > 0;

		for (int i = 0; i < a->n_in; i++) {
			int di = d - (r - a->in[i].rank);
			int64_t ni = di < 0 ? 1 : a->in[i].dim[di];

			if (ni != 1 && nz != 1 && ni != nz)
				return sym__kfail(a, op,
				    "dim %d of input %d is %lld, not %lld or 1 "
				    "(not a broadcast)",
				    di, i, (long long)ni, (long long)nz);
			nz = ni != 1 ? ni : nz;
			sz[i] = ni == 1 ? 0 : t[i][di];
		}
		for (int o = 0; o < a->n_out; o++)
			if (a->out[o].dim[d] != nz)
				return sym__kfail(a, op,
				    "dim %d of output %d is %lld, not the "
				    "broadcast %lld",
				    d, o, (long long)a->out[o].dim[d],
				    (long long)nz);
		if (nz == 1)
			continue;
		for (int i = 0; i < a->n_in && merge; i++)
			merge = l->s[i][k - 1] == sz[i] * nz;
		if (merge)
			l->dim[k - 1] *= nz;
		else
			l->dim[l->n++] = nz;
		for (int i = 0; i < a->n_in; i++)
			l->s[i][merge ? k - 1 : k] = sz[i];
	}
	return 0;
}

/* Run the row function "f" over the broadcast operands of the call "a"
 * of "op" (at most MAX_IN inputs and MAX_OUT outputs, whose dtypes the
 * caller checked); return 0 or -1. */
static int
run_nary(struct sym__kernel_args *a, const char *op, nary_fn f)
{
	int64_t idx[SYM__MAX_RANK] = { 0 }, off[MAX_IN] = { 0 }, inner, outer;
	int64_t es[MAX_IN], eo[MAX_OUT], s[MAX_IN];
	const char *x[MAX_IN];
	char *z[MAX_OUT];
	struct loops l;

	if (plan_loops(a, op, &l) < 0)
		return -1;
	if (a->n_out < 1 || sym__tensor_numel(&a->out[0]) == 0)
		return 0;
	inner = l.n ? l.dim[l.n - 1] : 1;
	outer = sym__tensor_numel(&a->out[0]) / inner;
	for (int i = 0; i < a->n_in; i++) {
		es[i] = (int64_t)sym__tensor_elem_size(a->in[i].dtype);
		s[i] = l.n ? l.s[i][l.n - 1] : 0;
	}
	for (int o = 0; o < a->n_out; o++)
		eo[o] = (int64_t)sym__tensor_elem_size(a->out[o].dtype);
	for (int64_t r = 0; r < outer; r++) {
		for (int i = 0; i < a->n_in; i++)
			x[i] = (const char *)a->in[i].data + off[i] * es[i];
		for (int o = 0; o < a->n_out; o++)
			z[o] = (char *)a->out[o].data + r * inner * eo[o];
		f(x, s, z, inner);
		for (int d = l.n - 2; d >= 0; d--) {
			for (int i = 0; i < a->n_in; i++)
				off[i] += l.s[i][d];
			if (++idx[d] < l.dim[d])
				break;
			for (int i = 0; i < a->n_in; i++)
				off[i] -= l.s[i][d] * l.dim[d];
			idx[d] = 0;
		}
	}
	return 0;
}

/*
 * ROW2(name, T, R, expr): the row function name of two operands of type
 * T and one output of type R that stores the expression "expr" of u and
 * v, the operands' elements.
 */
#define ROW2(name, T, R, expr)                                   \
	static void name(const char *const *x, const int64_t *s, \
	    char *const *z, int64_t n)                           \
	{                                                        \
		const T *restrict xu = (const void *)x[0];       \
		const T *restrict xv = (const void *)x[1];       \
		R *restrict o = (void *)z[0];                    \
		int64_t su = s[0], sv = s[1];                    \
                                                                 \
		for (int64_t i = 0; i < n; i++) {                \
			T u = xu[i * su], v = xv[i * sv];        \
			o[i] = (expr);                           \
		}                                                \
	}

/* ROW_CMP(name, expr): the comparison rows name_f32 .. name_u8. */
#define ROW_CMP(name, expr)                      \
	ROW2(name##_f32, float, uint8_t, expr)   \
	ROW2(name##_f64, double, uint8_t, expr)  \
	ROW2(name##_i32, int32_t, uint8_t, expr) \
	ROW2(name##_u8, uint8_t, uint8_t, expr)

ROW_CMP(equal, u == v)
ROW_CMP(not_equal, u != v)
ROW_CMP(less, u < v)
ROW_CMP(less_equal, u <= v)
ROW_CMP(greater, u > v)
ROW_CMP(greater_equal, u >= v)
ROW2(logical_and_u8, uint8_t, uint8_t, u &&v)
ROW2(logical_or_u8, uint8_t, uint8_t, u || v)
ROW2(pow_f32, float, float, powf(u, v))
ROW2(pow_f64, double, double, pow(u, v))

/* The rows of one comparison by storage. */
struct cmp_rows {
	nary_fn f32, f64, i32, u8;
};

/* Run the comparison "op" with the rows "r" on the call "a": operands of
 * one dtype, a bool output; return 0 or -1. */
static int
compare(struct sym__kernel_args *a, const char *op, const struct cmp_rows *r)
{
	nary_fn f;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0)
		return -1;
	if (a->in[0].dtype != a->in[1].dtype)
		return sym__kfail(a, op,
		    "the operands must have one dtype, not %s and %s",
		    sym_dtype_name(a->in[0].dtype),
		    sym_dtype_name(a->in[1].dtype));
	if (a->out[0].dtype != SYM_DT_BOOL)
		return sym__kfail(a, op, "the output must be bool, not %s",
		    sym_dtype_name(a->out[0].dtype));
	switch (sym__kst(a->in[0].dtype)) {
	case SYM__KST_F32:
		f = r->f32;
		break;
	case SYM__KST_F64:
		f = r->f64;
		break;
	case SYM__KST_I32:
		f = r->i32;
		break;
	case SYM__KST_U8:
		f = r->u8;
		break;
	default:
		return sym__kfail(a, op, "dtype %s is not supported",
		    sym_dtype_name(a->in[0].dtype));
	}
	return run_nary(a, op, f);
}

/* CMP_KERNEL(name): the kernel sym__kern_name of the comparison name. */
#define CMP_KERNEL(name)                                                   \
	int sym__kern_##name(struct sym__kernel_args *a)                   \
	{                                                                  \
		static const struct cmp_rows r = { name##_f32, name##_f64, \
			name##_i32, name##_u8 };                           \
                                                                           \
		return compare(a, #name, &r);                              \
	}

/* The kernels of the comparisons: "a" is the call, the result 0 or -1. */
CMP_KERNEL(equal)
CMP_KERNEL(not_equal)
CMP_KERNEL(less)
CMP_KERNEL(less_equal)
CMP_KERNEL(greater)
CMP_KERNEL(greater_equal)

/* Check that every input and output of the call "a" of "op" is bool;
 * return 0 or -1. */
static int
all_bool(struct sym__kernel_args *a, const char *op)
{
	for (int i = 0; i < a->n_in; i++)
		if (a->in[i].dtype != SYM_DT_BOOL)
			return sym__kfail(a, op,
			    "input %d must be bool, not %s", i,
			    sym_dtype_name(a->in[i].dtype));
	if (a->out[0].dtype != SYM_DT_BOOL)
		return sym__kfail(a, op, "the output must be bool, not %s",
		    sym_dtype_name(a->out[0].dtype));
	return 0;
}

/* Run the logical operator "op" of "n_in" bool operands with the row
 * "f" on the call "a"; return 0 or -1. */
static int
logical(struct sym__kernel_args *a, const char *op, int n_in, nary_fn f)
{
	if (sym__kio(a, op, n_in, n_in, 1, 1) < 0 || all_bool(a, op) < 0)
		return -1;
	return run_nary(a, op, f);
}

/* The kernel of logical_and; "a" is the call; 0 or -1. */
int
sym__kern_logical_and(struct sym__kernel_args *a)
{
	return logical(a, "logical_and", 2, logical_and_u8);
}

/* The kernel of logical_or; "a" is the call; 0 or -1. */
int
sym__kern_logical_or(struct sym__kernel_args *a)
{
	return logical(a, "logical_or", 2, logical_or_u8);
}

/* The row of logical_not: z = !x over "n" elements at stride "s"[0]. */
static void
logical_not_u8(const char *const *x, const int64_t *s, char *const *z,
    int64_t n)
{
	const uint8_t *restrict u = (const void *)x[0];
	uint8_t *restrict o = (void *)z[0];

	for (int64_t i = 0; i < n; i++)
		o[i] = !u[i * s[0]];
}

/* The kernel of logical_not; "a" is the call; 0 or -1. */
int
sym__kern_logical_not(struct sym__kernel_args *a)
{
	return logical(a, "logical_not", 1, logical_not_u8);
}

/*
 * SELECT(name, T): the row function of where for elements of type T: the
 * element of operand 1 where the condition (operand 0) is true, of
 * operand 2 where it is false.
 */
#define SELECT(name, T)                                                 \
	static void name(const char *const *x, const int64_t *s,        \
	    char *const *z, int64_t n)                                  \
	{                                                               \
		const uint8_t *restrict c = (const void *)x[0];         \
		const T *restrict p = (const void *)x[1];               \
		const T *restrict q = (const void *)x[2];               \
		T *restrict o = (void *)z[0];                           \
                                                                        \
		for (int64_t i = 0; i < n; i++)                         \
			o[i] = c[i * s[0]] ? p[i * s[1]] : q[i * s[2]]; \
	}

SELECT(select_1, uint8_t)
SELECT(select_4, uint32_t)
SELECT(select_8, uint64_t)

/* The kernel of where(c, a, b): a bool condition, values and output of
 * one dtype; "a" is the call; 0 or -1. */
int
sym__kern_where(struct sym__kernel_args *a)
{
	static const char op[] = "where";
	size_t es;

	if (sym__kio(a, op, 3, 3, 1, 1) < 0)
		return -1;
	if (a->in[0].dtype != SYM_DT_BOOL)
		return sym__kfail(a, op, "the condition must be bool, not %s",
		    sym_dtype_name(a->in[0].dtype));
	if (a->in[1].dtype != a->in[2].dtype ||
	    sym__kst(a->in[1].dtype) != sym__kst(a->out[0].dtype))
		return sym__kfail(a, op,
		    "the values (%s and %s) and the output (%s) must have one "
		    "dtype",
		    sym_dtype_name(a->in[1].dtype),
		    sym_dtype_name(a->in[2].dtype),
		    sym_dtype_name(a->out[0].dtype));
	es = sym__tensor_elem_size(a->in[1].dtype);
	if (es != 1 && es != 4 && es != 8)
		return sym__kfail(a, op, "dtype %s is not supported",
		    sym_dtype_name(a->in[1].dtype));
	return run_nary(a, op,
	    es == 1       ? select_1
	        : es == 4 ? select_4
	                  : select_8);
}

/* Check that the inputs and outputs of the call "a" of "op" are floating
 * and of one dtype; return 0 or -1. */
static int
same_float(struct sym__kernel_args *a, const char *op)
{
	if (sym__kfloat(a, op, &a->in[0], "input 0") < 0)
		return -1;
	for (int i = 1; i < a->n_in; i++)
		if (a->in[i].dtype != a->in[0].dtype)
			return sym__kfail(a, op,
			    "the operands must have one dtype, not %s and %s",
			    sym_dtype_name(a->in[0].dtype),
			    sym_dtype_name(a->in[i].dtype));
	for (int o = 0; o < a->n_out; o++)
		if (sym__ksame_kst(a, op, &a->in[0], "input 0", &a->out[o],
		        "an output") < 0)
			return -1;
	return 0;
}

/* Run "op", of "n_in" floating operands of one dtype and "n_out"
 * outputs, on the call "a" with the row "f32" or "f64"; return 0 or
 * -1. */
static int
floating(struct sym__kernel_args *a, const char *op, int n_in, int n_out,
    nary_fn f32, nary_fn f64)
{
	if (sym__kio(a, op, n_in, n_in, n_out, n_out) < 0 ||
	    same_float(a, op) < 0)
		return -1;
	return run_nary(a, op,
	    sym__kst(a->in[0].dtype) == SYM__KST_F64 ? f64 : f32);
}

/* The kernel of pow(a, b): floating operands of one dtype; "a" is the
 * call; 0 or -1. */
int
sym__kern_pow(struct sym__kernel_args *a)
{
	return floating(a, "pow", 2, 1, pow_f32, pow_f64);
}

/*
 * POW_GRAD(name, T, POW, LOG): the row of pow_grad for type T with the
 * libm functions POW and LOG: from dy, a and b, the gradients of a and b.
 */
#define POW_GRAD(name, T, POW, LOG)                                           \
	static void name(const char *const *x, const int64_t *s,              \
	    char *const *z, int64_t n)                                        \
	{                                                                     \
		const T *restrict g = (const void *)x[0];                     \
		const T *restrict p = (const void *)x[1];                     \
		const T *restrict q = (const void *)x[2];                     \
		T *restrict da = (void *)z[0], *restrict db = (void *)z[1];   \
                                                                              \
		for (int64_t i = 0; i < n; i++) {                             \
			T dy = g[i * s[0]], u = p[i * s[1]], v = q[i * s[2]]; \
                                                                              \
			da[i] = v == 0 ? 0 : dy * v * POW(u, v - 1);          \
			db[i] =                                               \
			    u == 0 && v >= 0 ? 0 : dy * POW(u, v) * LOG(u);   \
		}                                                             \
	}

POW_GRAD(pow_grad_f32, float, powf, logf)
POW_GRAD(pow_grad_f64, double, pow, log)

/* The kernel of pow_grad(dy, a, b): two outputs of dy's dims; "a" is the
 * call; 0 or -1. */
int
sym__kern_pow_grad(struct sym__kernel_args *a)
{
	return floating(a, "pow_grad", 3, 2, pow_grad_f32, pow_grad_f64);
}
