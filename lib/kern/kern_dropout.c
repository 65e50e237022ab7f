/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the dropout family, f32 and f64. dropout(x, p=) zeroes
 * each element with probability p and scales the others by 1 / (1 - p)
 * (zero everywhere at p = 1); in an evaluation (args->eval) it is the
 * identity. dropout_grad(dy, y, p=) gives dy times the same mask and
 * scale.
 *
 * The mask is counter based: element i (its row-major index in the
 * global tensor, from args->offset and args->global_dim of input 0) is
 * kept when the SplitMix64 finaliser of args->rng + (i + 1) * golden
 * ratio, as a number in [0, 1), is at least p. args->rng mixes the
 * step's seed with the name of the dropout's output, so every layout
 * of the tensor, and the gradient, draw the mask one device draws.
 */
#include <string.h>

#include "core/hash.h"
#include "kern/kern_private.h"

/* Return 1 when global element "i" is kept under the key "key" and the
 * probability "p" of a zero. */
static inline int
kept(uint64_t key, uint64_t i, double p)
{
	uint64_t z = sym__mix64(key + SYM__GOLDEN * (i + 1));

	return (double)(z >> 11) * 0x1p-53 >= p;
}

/* Store in "out" ("n" elements, row "row" of input "i" of the call "a",
 * whose rows are its last dimension) "src" times the mask and "scale":
 * f64 when "f64", else f32. */
static void
mask_row(const struct sym__kernel_args *a, int i, int64_t row, const void *src,
    void *out, int64_t n, double scale, int f64)
{
	const struct sym__tensor *t = &a->in[i];
	int r = t->rank;
	uint64_t base = 0, stride = 1;
	int64_t rest = row;
	double p = a->at->dropout.p;

	for (int d = r - 1; d >= 0; d--) {
		int64_t c = d == r - 1 ? 0 : rest % t->dim[d];

		if (d < r - 1)
			rest /= t->dim[d];
		base += (uint64_t)(sym__kin_offset(a, i, d) + c) * stride;
		stride *= (uint64_t)sym__kin_global(a, i, d);
	}
	if (f64)
		for (int64_t j = 0; j < n; j++)
			((double *)out)[j] = kept(a->rng, base + (uint64_t)j, p)
			    ? ((const double *)src)[j] * scale
			    : 0.0;
	else
		for (int64_t j = 0; j < n; j++)
			((float *)out)[j] = kept(a->rng, base + (uint64_t)j, p)
			    ? (float)(((const float *)src)[j] * scale)
			    : 0.0f;
}

/* Write output 0 of the call "a" of "op": input 0 times the mask of its
 * global elements and 1 / (1 - p), or input 0 itself in an evaluation of
 * the forward operator ("fwd"); return 0 or -1. */
static int
masked(struct sym__kernel_args *a, const char *op, int fwd)
{
	const struct sym__tensor *x = &a->in[0];
	struct sym__tensor *y = &a->out[0];
	int64_t n = x->rank ? x->dim[x->rank - 1] : 1;
	int64_t rows = x->rank ? sym__kprod(x->dim, 0, x->rank - 1) : 1;
	size_t es = sym__tensor_elem_size(x->dtype);
	double p;

	if (!sym__kat(a, op) || sym__kfloat(a, op, x, "x") < 0 ||
	    sym__ksame_kst(a, op, x, "x", y, "the output") < 0 ||
	    sym__ksame_dims(a, op, x, "x", y, "the output") < 0)
		return -1;
	p = a->at->dropout.p;
	if (a->eval && fwd) {
		if (y->data != x->data)
			memcpy(y->data, x->data,
			    (size_t)sym__tensor_numel(x) * es);
		return 0;
	}
	for (int64_t r = 0; r < rows && n > 0; r++)
		mask_row(a, 0, r, (const char *)x->data + r * n * (int64_t)es,
		    (char *)y->data + r * n * (int64_t)es, n,
		    p < 1 ? 1 / (1 - p) : 0, x->dtype == SYM_DT_F64);
	return 0;
}

/* The kernel of dropout(x); "a" is the call. */
int
sym__kern_dropout(struct sym__kernel_args *a)
{
	if (sym__kio(a, "dropout", 1, 1, 1, 1) < 0)
		return -1;
	return masked(a, "dropout", 1);
}

/* The kernel of dropout_grad(dy, y) -> dy times y's mask; "a" is the
 * call. */
int
sym__kern_dropout_grad(struct sym__kernel_args *a)
{
	static const char op[] = "dropout_grad";

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 ||
	    sym__ksame_dims(a, op, &a->in[0], "dy", &a->in[1], "y") < 0)
		return -1;
	return masked(a, op, 0);
}
