/* SPDX-License-Identifier: MIT */
/*
 * String-keyed maps to indices, for the name lookups of the library:
 * attributes, symbols, meshes, values. The keys are borrowed: each must
 * outlive its entry and keep its address. The entries live in an array
 * in the order they were added, indexed by the library's hash table
 * (core/htab.h).
 */
#ifndef SYM_CORE_STRMAP_H
#define SYM_CORE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#include <symshard/ctx.h>

#include "core/htab.h"

/* One name and its value. */
struct sym__strmap_entry {
	const char *key;
	size_t val;
};

struct sym__strmap {
	struct sym__strmap_entry *e;
	size_t n, cap_e;
	struct sym__htab index; /* hash of a key -> position in "e" */
};

int sym__strmap_put(sym_ctx *ctx, struct sym__strmap *m, const char *key,
    size_t val);
int sym__strmap_get(const struct sym__strmap *m, const char *key, size_t *val);
void sym__strmap_clear(struct sym__strmap *m);

#endif
