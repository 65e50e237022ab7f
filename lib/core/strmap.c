/* SPDX-License-Identifier: MIT */
/*
 * String-keyed maps to indices: open addressing with linear probing, at
 * most half full, so that looking a name up is constant time however many
 * names there are.
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
	uint64_t h = sym__fnv1a_str(SYM__FNV_BASIS, s);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

/* Return the slot of "key", whose hash is "h", in "m" (cap > 0): its
 * own, or the empty one where it would go. */
static size_t
slot(const struct sym__strmap *m, const char *key, uint64_t h)
{
	size_t i = h & (m->cap - 1);

	while (m->key[i] && (m->hash[i] != h || strcmp(m->key[i], key) != 0))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Double the capacity of "m" (64 at first); 0, or -1 with SYM_ENOMEM on
 * "ctx". */
static int
grow(sym_ctx *ctx, struct sym__strmap *m)
{
	struct sym__strmap big = { NULL, NULL, NULL, 0, m->n };
	size_t i;

	big.cap = m->cap ? 2 * m->cap : 64;
	big.key = calloc(big.cap, sizeof(*big.key));
	big.hash = calloc(big.cap, sizeof(*big.hash));
	big.val = calloc(big.cap, sizeof(*big.val));
	if (!big.key || !big.hash || !big.val) {
		sym__strmap_clear(&big);
		sym__oom(ctx);
		return -1;
	}
	for (size_t j = 0; j < m->cap; j++)
		if (m->key[j]) {
			i = slot(&big, m->key[j], m->hash[j]);
			big.key[i] = m->key[j];
			big.hash[i] = m->hash[j];
			big.val[i] = m->val[j];
		}
	sym__strmap_clear(m);
	*m = big;
	return 0;
}

/* Map "key" (borrowed) to "val" in "m", replacing its former value; 0,
 * or -1 with SYM_ENOMEM on "ctx". */
int
sym__strmap_put(sym_ctx *ctx, struct sym__strmap *m, const char *key,
    size_t val)
{
	uint64_t h = str_hash(key);
	size_t i;

	if (2 * (m->n + 1) > m->cap && grow(ctx, m) < 0)
		return -1;
	i = slot(m, key, h);
	if (!m->key[i])
		m->n++;
	m->key[i] = key;
	m->hash[i] = h;
	m->val[i] = val;
	return 0;
}

/* Return 1 and store in "*val" the value of "key" in "m", or return 0
 * when "m" does not have it. */
int
sym__strmap_get(const struct sym__strmap *m, const char *key, size_t *val)
{
	size_t i;

	if (!m->cap || !key)
		return 0;
	i = slot(m, key, str_hash(key));
	if (!m->key[i])
		return 0;
	*val = m->val[i];
	return 1;
}

/* Free the tables of "m" and leave it empty. */
void
sym__strmap_clear(struct sym__strmap *m)
{
	free(m->key);
	free(m->hash);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
