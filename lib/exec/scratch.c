/*
 * Temporary memory of a kernel call: the caller's scratch area, grown
 * when too small and kept, or a block of its own freed at the end of the
 * call when the caller gives none (a kernel called on its own).
 */
#include <stdint.h>
#include <stdlib.h>

#include "exec/kernel.h"

#define ALIGN 64

/* Return "bytes" rounded up to a multiple of ALIGN (at least ALIGN), or
 * 0 when that overflows. */
static size_t
rounded(size_t bytes)
{
	if (bytes > SIZE_MAX - ALIGN)
		return 0;
	return bytes ? (bytes + ALIGN - 1) / ALIGN * ALIGN : ALIGN;
}

/* Return at least "bytes" of memory for the call "a", 64-byte aligned,
 * its contents undefined: the area of a->scratch, reallocated (and
 * counted) when smaller, or without a scratch area a new block that
 * sym__kscratch_done frees. A kernel takes one area per call (from a
 * scratch area, a second request would return the same memory). NULL
 * when memory runs out. */
void *
sym__kscratch_get(struct sym__kernel_args *a, size_t bytes)
{
	struct sym__kscratch *s = a->scratch;
	size_t want = rounded(bytes);

	if (!want)
		return NULL;
	if (!s)
		return aligned_alloc(ALIGN, want);
	if (s->data && s->cap >= want)
		return s->data;
	free(s->data);
	s->cap = 0;
	s->data = aligned_alloc(ALIGN, want);
	if (!s->data)
		return NULL;
	s->cap = want;
	s->grows++;
	return s->data;
}

/* End the use of "p", from sym__kscratch_get of the call "a": free it
 * unless it belongs to a->scratch (NULL is ignored). */
void
sym__kscratch_done(struct sym__kernel_args *a, void *p)
{
	if (!a->scratch)
		free(p);
}

/* Free the area of "s" and empty it (its count is kept). */
void
sym__kscratch_free(struct sym__kscratch *s)
{
	if (!s)
		return;
	free(s->data);
	s->data = NULL;
	s->cap = 0;
}
