/*
 * The kernel registry: the union of the kernel families' constant tables
 * (lib/exec/kern_*.c), each ending with an entry whose name is NULL.
 */
#include <string.h>

#include "exec/kern_private.h"

static const struct sym__kernel_entry *const families[] = {
	sym__kernels_matmul,
	sym__kernels_elementwise,
	sym__kernels_layout,
	sym__kernels_concat,
	sym__kernels_reduce,
	sym__kernels_norm,
	sym__kernels_gather,
	sym__kernels_loss,
	sym__kernels_conv,
};

#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

/* Return the kernel of the operator called "name", or NULL when there is
 * none (or "name" is NULL). */
sym__kernel_fn
sym__kernel_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t f = 0; f < N_FAMILIES; f++)
		for (const struct sym__kernel_entry *k = families[f]; k->name;
		     k++)
			if (k->name[0] == name[0] && !strcmp(k->name, name))
				return k->fn;
	return NULL;
}
