/* SPDX-License-Identifier: MIT */
/*
 * The kernel registry: every operator's kernel, as lib/shape/ops.def
 * names it (the kernels are in lib/kern/kern_*.c), by operator
 * identity.
 */
#include "kern/kern_private.h"
#include "shape/shape_private.h"

/* The kernels, by operator identity. */
static const sym__kernel_fn kernels[SYM__N_OPS] = {
#define SYM__OPIMPL(ID, KERNEL, ...) [SYM__OP_##ID] = KERNEL,
#include "shape/ops.def"
};

/* Return the scratch bytes of the call "a" (kernel.h): by operator, the
 * kernels that take scratch; 0 for the others. */
size_t
sym__kernel_scratch(const struct sym__kernel_args *a)
{
	if (!a || !a->op)
		return 0;
	switch (a->op->id) {
	case SYM__OP_REDUCE_SUM:
	case SYM__OP_REDUCE_MEAN:
	case SYM__OP_REDUCE_PROD:
	case SYM__OP_SUM_TO:
		return sym__kscratch_reduce(a);
	case SYM__OP_CONV2D:
	case SYM__OP_CONV2D_INPUT_GRAD:
	case SYM__OP_CONV2D_WEIGHT_GRAD:
		return sym__kscratch_conv(a);
	case SYM__OP_SOFTMAX:
	case SYM__OP_LOG_SOFTMAX:
		return sym__kscratch_softmax(a);
	case SYM__OP_REDUCE_MAX_GRAD:
	case SYM__OP_REDUCE_PROD_GRAD:
	case SYM__OP_SOFTMAX_GRAD:
	case SYM__OP_LOG_SOFTMAX_GRAD:
	case SYM__OP_LAYER_NORM_GRAD:
	case SYM__OP_GATHER_GRAD:
	case SYM__OP_EMBEDDING_GRAD:
		return sym__kscratch_grad(a);
	default:
		return 0;
	}
}

/* Return the kernel of operator "op", or NULL when there is none (or
 * "op" is NULL). */
sym__kernel_fn
sym__kernel(const sym_op *op)
{
	if (!op || (unsigned)op->id >= SYM__N_OPS)
		return NULL;
	return kernels[op->id];
}
