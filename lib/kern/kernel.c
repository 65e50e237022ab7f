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
