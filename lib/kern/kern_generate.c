/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the generate family: arange and range (element i of the
 * global vector is start + i * delta: in int64 for integer bounds,
 * checked against the executor's int32 storage of integer dtypes, else
 * in double, rounded once to the dtype as PyTorch's), full, ones and
 * zeros (one value everywhere). A rank generates only its block: the
 * global index of its first element is the block's offset, so every
 * sharding writes what one device does.
 */
#include <math.h>
#include <string.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

/* Store the value "v" (integers: "iv") at element "i" of "y"; 0, or -1
 * when an integer does not fit the executor's int32 storage. */
static int
put(struct sym__tensor *y, int64_t i, double v, int64_t iv, int integer)
{
	switch (sym__kst(y->dtype)) {
	case SYM__KST_F32:
		((float *)y->data)[i] = integer ? (float)iv : (float)v;
		return 0;
	case SYM__KST_F64:
		((double *)y->data)[i] = integer ? (double)iv : v;
		return 0;
	case SYM__KST_I32:
		if (!integer)
			iv = (int64_t)v;
		if (iv < INT32_MIN || iv > INT32_MAX)
			return -1;
		((int32_t *)y->data)[i] = (int32_t)iv;
		return 0;
	case SYM__KST_U8:
		((uint8_t *)y->data)[i] = integer ? iv != 0 : v != 0;
		return 0;
	default:
		return -1;
	}
}

/* The kernel of arange and range, called "op"; "a" is the call. */
int
sym__kern_arange(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	const struct sym__opattrs *at;
	struct sym__tensor *y;
	int64_t off, n;

	if (sym__kio(a, op, 0, 0, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	y = &a->out[0];
	if (y->dtype == SYM_DT_BOOL || sym__kst(y->dtype) == SYM__KST_NONE)
		return sym__kfail(a, op,
		    "it makes numbers: its output cannot be %s",
		    sym_dtype_name(y->dtype));
	if (y->rank != 1)
		return sym__kfail(a, op, "the output has rank %d, not 1",
		    y->rank);
	off = sym__kout_offset(a, 0, 0);
	n = y->dim[0];
	for (int64_t i = 0; i < n; i++) {
		int64_t g = off + i, iv = 0;
		double v = 0;

		if (at->generate.integer) {
			if (__builtin_mul_overflow(g, at->generate.idelta,
			        &iv) ||
			    __builtin_add_overflow(iv, at->generate.istart,
			        &iv))
				return sym__kfail(a, op,
				    "element %lld overflows 64 bits",
				    (long long)g);
		} else {
			v = at->generate.start + (double)g * at->generate.delta;
		}
		if (put(y, i, v, iv, at->generate.integer) < 0)
			return sym__kfail(a, op,
			    "element %lld does not fit the executor's "
			    "32-bit integers",
			    (long long)g);
	}
	sym__kwrap(y->data, y->dtype, n);
	return 0;
}

/* The kernel of full, ones and zeros, called "op"; "a" is the call. */
int
sym__kern_fill(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	const struct sym__opattrs *at;
	struct sym__tensor *y;
	double v;
	int64_t n;

	if (sym__kio(a, op, 0, 0, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	y = &a->out[0];
	if (sym__kst(y->dtype) == SYM__KST_NONE)
		return sym__kfail(a, op, "no storage for dtype %s",
		    sym_dtype_name(y->dtype));
	n = sym__tensor_numel(y);
	v = at->generate.value;
	if (n > 0 && put(y, 0, v, (int64_t)v, 0) < 0)
		return sym__kfail(a, op,
		    "the value %g does not fit the executor's 32-bit "
		    "integers",
		    v);
	for (int64_t i = 1; i < n; i++)
		put(y, i, v, (int64_t)v, 0);
	sym__kwrap(y->data, y->dtype, n);
	return 0;
}
