/* SPDX-License-Identifier: MIT */
/*
 * String-keyed maps to indices (open addressing, linear probing), for the
 * name lookups of the library: attributes, symbols, meshes. The keys are
 * borrowed: each must outlive its entry and keep its address.
 */
#ifndef SYM_CORE_STRMAP_H
#define SYM_CORE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#include <symshard/ctx.h>

struct sym__strmap {
	const char **key;
	uint64_t *hash;
	size_t *val;
	size_t cap, n; /* cap: 0 or a power of two */
};

int sym__strmap_put(sym_ctx *ctx, struct sym__strmap *m, const char *key,
    size_t val);
int sym__strmap_get(const struct sym__strmap *m, const char *key, size_t *val);
void sym__strmap_clear(struct sym__strmap *m);

#endif
