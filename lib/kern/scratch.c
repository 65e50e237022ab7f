/* SPDX-License-Identifier: MIT */
/*
 * Temporary memory of a kernel call: the caller's scratch area, grown
 * when too small and kept, or a block of its own freed at the end of the
 * call when the caller gives none (a kernel called on its own).
 */
#include <stdint.h>
#include <stdlib.h>

#include "kern/kernel.h"

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

/* Make the kept buffer "*data" of "*cap" bytes hold at least "bytes",
 * 64-byte aligned: kept when large enough, else replaced (contents not
 * kept) and the allocation counted in "*grows". Return 1 when replaced,
 * 0 when kept, -1 when memory runs out (the buffer is then empty). */
int
sym__kbuf_grow(void **data, size_t *cap, size_t *grows, size_t bytes)
{
	size_t want = rounded(bytes);

	if (!want)
		return -1;
	if (*data && *cap >= want)
		return 0;
	free(*data);
	*cap = 0;
	*data = aligned_alloc(ALIGN, want);
	if (!*data)
		return -1;
	*cap = want;
	(*grows)++;
	return 1;
}

/* Return at least "bytes" of memory for the call "a", 64-byte aligned,
 * its contents undefined: the area of a->scratch (sym__kbuf_grow), or
 * without a scratch area a new block that sym__kscratch_done frees. A
 * kernel takes one area per call (from a scratch area, a second request
 * would return the same memory). NULL when memory runs out. */
void *
sym__kscratch_get(struct sym__kernel_args *a, size_t bytes)
{
	struct sym__kscratch *s = a->scratch;
	size_t want = rounded(bytes);

	if (!want)
		return NULL;
	if (!s)
		return aligned_alloc(ALIGN, want);
	return sym__kbuf_grow(&s->data, &s->cap, &s->grows, bytes) < 0
	    ? NULL
	    : s->data;
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
