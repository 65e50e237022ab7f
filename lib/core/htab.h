/* SPDX-License-Identifier: MIT */
/*
 * The library's hash table, written once: open addressing over 64-bit
 * hashes with linear probing, at most half full. A slot holds a hash and
 * an item, a word the caller chooses (an index into its own array, or a
 * pointer cast to uintptr_t); the table never looks at the items, so the
 * caller compares keys. Typical use:
 *
 *	for (size_t i = sym__htab_first(t, h); i != SYM__HTAB_END;
 *	     i = sym__htab_next(t, h, i))
 *		if (same(key, t->slot[i].item))
 *			return t->slot[i].item;
 *	return sym__htab_add(ctx, t, h, new_item);
 *
 * The low bits of a hash choose its first slot, so hashes must be mixed
 * (sym__mix64 in core/hash.h). Removal shifts the following entries back
 * (no tombstones), so a table that loses entries stays as fast as one
 * that never had them. The lookups are inline: the table sits on hot
 * paths (hash-consing, the plan's common subexpressions).
 */
#ifndef SYM_CORE_HTAB_H
#define SYM_CORE_HTAB_H

#include <stddef.h>
#include <stdint.h>

#include <symshard/ctx.h>

/* The item of an empty slot (never a valid item: no index reaches it
 * and no object lives at that address). */
#define SYM__HTAB_EMPTY UINTPTR_MAX

/* The end of a probe: no (further) slot of the hash. */
#define SYM__HTAB_END SIZE_MAX

/* One slot: the hash of its key and the caller's item. */
struct sym__hslot {
	uint64_t hash;
	uintptr_t item;
};

/* A table; all zero is an empty table with no storage. */
struct sym__htab {
	struct sym__hslot *slot;
	size_t cap; /* 0 or a power of two */
	size_t n;   /* occupied slots */
};

/* Return the first slot of "t" at or after "i" on the probe of "h" that
 * holds hash "h", or SYM__HTAB_END at the first empty slot. */
static inline size_t
sym__htab_scan(const struct sym__htab *t, uint64_t h, size_t i)
{
	for (;; i = (i + 1) & (t->cap - 1)) {
		const struct sym__hslot *s = &t->slot[i];

		if (s->item == SYM__HTAB_EMPTY)
			return SYM__HTAB_END;
		if (s->hash == h)
			return i;
	}
}

/* Return the first slot of "t" holding hash "h" (whose item may or may
 * not be the caller's key), or SYM__HTAB_END. */
static inline size_t
sym__htab_first(const struct sym__htab *t, uint64_t h)
{
	if (!t->cap)
		return SYM__HTAB_END;
	return sym__htab_scan(t, h, (size_t)h & (t->cap - 1));
}

/* Return the slot after "i" of "t" holding hash "h", or
 * SYM__HTAB_END. */
static inline size_t
sym__htab_next(const struct sym__htab *t, uint64_t h, size_t i)
{
	return sym__htab_scan(t, h, (i + 1) & (t->cap - 1));
}

int sym__htab_reserve(sym_ctx *ctx, struct sym__htab *t, size_t more);
int sym__htab_add(sym_ctx *ctx, struct sym__htab *t, uint64_t h,
    uintptr_t item);
size_t sym__htab_find_item(const struct sym__htab *t, uint64_t h,
    uintptr_t item);
void sym__htab_remove(struct sym__htab *t, size_t i);
void sym__htab_clear(struct sym__htab *t);

#endif
