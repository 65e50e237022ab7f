/* SPDX-License-Identifier: MIT */
/*
 * Dense tensors of the executor: element sizes by storage class, element
 * counts checked against overflow, 64-byte aligned data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kernel.h"

#define ALIGN 64

/* Return the size in bytes of one stored element of "dt": 8 for f64, 4
 * for the other floating dtypes (kept as f32) and the integer dtypes (kept
 * as int32), 1 for bool, 0 for an invalid dtype. */
size_t
sym__tensor_elem_size(sym_dtype dt)
{
	if (dt == SYM_DT_F64)
		return 8;
	if (dt == SYM_DT_BOOL)
		return 1;
	return sym_dtype_size(dt) ? 4 : 0;
}

/* Return the number of elements of the "rank" sizes "dim" (1 for rank
 * 0), or -1 when a size is negative or, no size being 0, the count or
 * that many elements of "es" bytes overflows 64 bits. */
int64_t
sym__dims_numel(const int64_t *dim, size_t rank, size_t es)
{
	int64_t n = 1, bytes;
	int zero = 0;

	for (size_t d = 0; d < rank; d++) {
		if (dim[d] < 0)
			return -1;
		if (dim[d] == 0)
			zero = 1;
		else if (__builtin_mul_overflow(n, dim[d], &n))
			return -1;
	}
	if (zero)
		return 0;
	if (es > INT64_MAX || __builtin_mul_overflow(n, (int64_t)es, &bytes))
		return -1;
	return n;
}

/* Return the number of elements of "t" (1 for rank 0), or -1 when its
 * rank or a dimension is invalid or the count overflows 64 bits. */
int64_t
sym__tensor_numel(const struct sym__tensor *t)
{
	if (!t || t->rank < 0 || t->rank > SYM__MAX_RANK)
		return -1;
	return sym__dims_numel(t->dim, (size_t)t->rank, 1);
}

/* Allocate the data of "t" (any previous pointer is overwritten, not
 * freed): numel times the element size of its dtype, 64-byte aligned and
 * zeroed, at least one aligned block even when empty. Return 0, or -1
 * (t->data NULL) when the dtype, dims or size are invalid or memory runs
 * out. */
int
sym__tensor_alloc(struct sym__tensor *t)
{
	int64_t n;
	size_t es, bytes;

	if (!t)
		return -1;
	t->data = NULL;
	n = sym__tensor_numel(t);
	es = sym__tensor_elem_size(t->dtype);
	if (n < 0 || es == 0 || (uint64_t)n > (SIZE_MAX - ALIGN) / es)
		return -1;
	bytes = ((size_t)n * es + ALIGN - 1) / ALIGN * ALIGN;
	if (bytes == 0)
		bytes = ALIGN;
	t->data = aligned_alloc(ALIGN, bytes);
	if (!t->data)
		return -1;
	memset(t->data, 0, bytes);
	return 0;
}

/* Free the data of "t" (NULL allowed) and set it to NULL. */
void
sym__tensor_free(struct sym__tensor *t)
{
	if (!t)
		return;
	free(t->data);
	t->data = NULL;
}
