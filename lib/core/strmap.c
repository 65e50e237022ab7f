/* SPDX-License-Identifier: MIT */
/*
 * String-keyed maps to indices (core/strmap.h): an array of entries
 * indexed by the library's hash table, so that looking a name up is
 * constant time however many names there are.
 */
#include <stdlib.h>
#include <string.h>

#include "core/ctx_private.h"
#include "core/hash.h"
#include "core/strmap.h"

/* Return the FNV-1a hash of "s", mixed so that its low bits are good. */
static uint64_t
str_hash(const char *s)
{
	return sym__mix64(sym__fnv1a_str(SYM__FNV_BASIS, s));
}

/* Return the position in "m->e" of "key", whose hash is "h", or
 * SYM__HTAB_END. */
static size_t
find(const struct sym__strmap *m, const char *key, uint64_t h)
{
	const struct sym__htab *t = &m->index;

	for (size_t i = sym__htab_first(t, h); i != SYM__HTAB_END;
	     i = sym__htab_next(t, h, i))
		if (strcmp(m->e[t->slot[i].item].key, key) == 0)
			return t->slot[i].item;
	return SYM__HTAB_END;
}

/* Map "key" (borrowed) to "val" in "m", replacing its former value; 0,
 * or -1 with SYM_ENOMEM on "ctx" and "m" unchanged. */
int
sym__strmap_put(sym_ctx *ctx, struct sym__strmap *m, const char *key,
    size_t val)
{
	uint64_t h = str_hash(key);
	size_t at = find(m, key, h);

	if (at != SYM__HTAB_END) {
		m->e[at].val = val;
		return 0;
	}
	if (SYM__RESERVE(ctx, m->e, m->cap_e, m->n + 1) < 0 ||
	    sym__htab_add(ctx, &m->index, h, m->n) < 0)
		return -1;
	m->e[m->n].key = key;
	m->e[m->n].val = val;
	m->n++;
	return 0;
}

/* Return 1 and store in "*val" the value of "key" in "m", or return 0
 * when "m" does not have it. */
int
sym__strmap_get(const struct sym__strmap *m, const char *key, size_t *val)
{
	size_t at;

	if (!m->n || !key)
		return 0;
	at = find(m, key, str_hash(key));
	if (at == SYM__HTAB_END)
		return 0;
	*val = m->e[at].val;
	return 1;
}

/* Free the tables of "m" and leave it empty. */
void
sym__strmap_clear(struct sym__strmap *m)
{
	free(m->e);
	sym__htab_clear(&m->index);
	memset(m, 0, sizeof(*m));
}
