/* SPDX-License-Identifier: MIT */
/*
 * The library's hash table (core/htab.h): growth, insertion, removal by
 * backward shift. The lookups are inline in the header.
 */
#include <stdlib.h>

#include "core/ctx_private.h"
#include "core/htab.h"

/* The capacity of a table's first storage. */
#define HTAB_FIRST 64

/* Return the empty slot where hash "h" goes in "t" (which has one). */
static size_t
free_slot(const struct sym__htab *t, uint64_t h)
{
	size_t i = (size_t)h & (t->cap - 1);

	while (t->slot[i].item != SYM__HTAB_EMPTY)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Make room in "t" for "more" entries beyond its "n", keeping it at most
 * half full; 0, or -1 with SYM_ENOMEM on "ctx" (which may be NULL: no
 * error recorded) and "t" unchanged. */
int
sym__htab_reserve(sym_ctx *ctx, struct sym__htab *t, size_t more)
{
	struct sym__htab big;
	size_t need;

	if (more > SIZE_MAX / 4 - t->n) {
		sym__oom(ctx);
		return -1;
	}
	need = 2 * (t->n + more);
	if (need <= t->cap)
		return 0;
	big.cap = t->cap ? t->cap : HTAB_FIRST;
	while (big.cap < need)
		big.cap *= 2;
	big.n = t->n;
	/* not zeroed by calloc: every slot is written below */
	big.slot = sym__realloc_array(ctx, NULL, big.cap, sizeof(*big.slot));
	if (!big.slot)
		return -1;
	for (size_t i = 0; i < big.cap; i++) {
		big.slot[i].hash = 0;
		big.slot[i].item = SYM__HTAB_EMPTY;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].item != SYM__HTAB_EMPTY)
			big.slot[free_slot(&big, t->slot[i].hash)] = t->slot[i];
	free(t->slot);
	*t = big;
	return 0;
}

/* Add "item" (not SYM__HTAB_EMPTY) under hash "h" to "t", after the
 * entries of the same hash (the caller has checked that it is not there
 * when it must be unique); 0, or -1 with SYM_ENOMEM on "ctx" (may be
 * NULL) and "t" unchanged. */
int
sym__htab_add(sym_ctx *ctx, struct sym__htab *t, uint64_t h, uintptr_t item)
{
	size_t i;

	/* the test of sym__htab_reserve, without the call when there is
	 * room (a table is at most half full, so this cannot overflow) */
	if (2 * (t->n + 1) > t->cap && sym__htab_reserve(ctx, t, 1) < 0)
		return -1;
	i = free_slot(t, h);
	t->slot[i].hash = h;
	t->slot[i].item = item;
	t->n++;
	return 0;
}

/* Return the slot of "t" holding "item" under hash "h", or
 * SYM__HTAB_END. */
size_t
sym__htab_find_item(const struct sym__htab *t, uint64_t h, uintptr_t item)
{
	size_t i = sym__htab_first(t, h);

	while (i != SYM__HTAB_END && t->slot[i].item != item)
		i = sym__htab_next(t, h, i);
	return i;
}

/* Empty slot "i" of "t" (occupied) and move back the entries after it
 * that it separated from their first slot, so that every probe still
 * reaches its entries without crossing an empty slot. */
void
sym__htab_remove(struct sym__htab *t, size_t i)
{
	size_t mask = t->cap - 1, j = i;

	for (;;) {
		size_t home;

		t->slot[i].item = SYM__HTAB_EMPTY;
		for (;;) {
			j = (j + 1) & mask;
			if (t->slot[j].item == SYM__HTAB_EMPTY) {
				t->n--;
				return;
			}
			home = (size_t)t->slot[j].hash & mask;
			/* The entry at j may move to i unless its first slot
			 * lies cyclically in (i, j]. */
			if (i <= j ? (home <= i || home > j)
			           : (home <= i && home > j))
				break;
		}
		t->slot[i] = t->slot[j];
		i = j;
	}
}

/* Free the storage of "t" and leave it empty. */
void
sym__htab_clear(struct sym__htab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->cap = t->n = 0;
}
