/* SPDX-License-Identifier: MIT */
/*
 * The kernel registry: the kernel families' tables (lib/kern/kern_*.c),
 * indexed by family and operator identity.
 */
#include "kern/kern_private.h"
#include "shape/shape_private.h"

static const sym__kernel_fn *const families[SYM__N_FAMILIES] = {
	[SYM__FAM_MATMUL] = sym__kernels_matmul,
	[SYM__FAM_ELEMENTWISE] = sym__kernels_elementwise,
	[SYM__FAM_LAYOUT] = sym__kernels_layout,
	[SYM__FAM_CONCAT] = sym__kernels_concat,
	[SYM__FAM_REDUCE] = sym__kernels_reduce,
	[SYM__FAM_NORM] = sym__kernels_norm,
	[SYM__FAM_GATHER] = sym__kernels_gather,
	[SYM__FAM_LOSS] = sym__kernels_loss,
	[SYM__FAM_CONV] = sym__kernels_conv,
	[SYM__FAM_POOL] = sym__kernels_pool,
	[SYM__FAM_DROPOUT] = sym__kernels_dropout,
	[SYM__FAM_INDEX] = sym__kernels_index,
	[SYM__FAM_GENERATE] = sym__kernels_generate,
	[SYM__FAM_OPTIM] = sym__kernels_optim,
	[SYM__FAM_GRAD] = sym__kernels_grad,
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
	if (!op || (unsigned)op->family >= SYM__N_FAMILIES ||
	    (unsigned)op->id >= SYM__N_OPS)
		return NULL;
	return families[op->family][op->id];
}
