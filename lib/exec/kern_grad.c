/*
 * Kernels of the gradient family (see lib/shape/op_grad.c), f32 and f64.
 *
 * The unary gradients take dy and the forward input (gelu) or output
 * (the others) of the same dims: gelu_grad is dy times the derivative of
 * the exact gelu the forward kernel computes, 0.5 (1 + erf(x / sqrt 2))
 * + x exp(-x^2 / 2) / sqrt(2 pi); sigmoid_grad dy y (1 - y); tanh_grad
 * dy (1 - y^2); sqrt_grad dy / (2 y), infinite where y is 0 (as 1 /
 * sqrt(x) at 0).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/kern_private.h"

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
	const struct sym__tensor *g, *v, *z;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0)
		return -1;
	g = &a->in[0];
	v = &a->in[1];
	z = &a->out[0];
	if (sym__kfloat(a, op, g, "dy") < 0 ||
	    sym__ksame_kst(a, op, g, "dy", v, "the second operand") < 0 ||
	    sym__ksame_kst(a, op, g, "dy", z, "the output") < 0 ||
	    sym__ksame_dims(a, op, g, "dy", v, "the second operand") < 0 ||
	    sym__ksame_dims(a, op, g, "dy", z, "the output") < 0)
		return -1;
	(sym__kst(g->dtype) == SYM__KST_F32 ? f32 : f64)(g->data, v->data,
	    z->data, sym__tensor_numel(g));
	return 0;
}

/* PAIR_KERNEL(name): the kernel k_name of the unary gradient name. */
#define PAIR_KERNEL(name)                                      \
	static int k_##name(struct sym__kernel_args *a)        \
	{                                                      \
		return pair(a, #name, name##_f32, name##_f64); \
	}

PAIR_KERNEL(gelu_grad)
PAIR_KERNEL(sigmoid_grad)
PAIR_KERNEL(tanh_grad)
PAIR_KERNEL(sqrt_grad)

const sym__kernel_fn sym__kernels_grad[SYM__N_OPS] = {
	[SYM__OP_GELU_GRAD] = k_gelu_grad,
	[SYM__OP_SIGMOID_GRAD] = k_sigmoid_grad,
	[SYM__OP_TANH_GRAD] = k_tanh_grad,
	[SYM__OP_SQRT_GRAD] = k_sqrt_grad,
};
