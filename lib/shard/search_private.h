/*
 * The strategy search (search.c): its state.
 */
#ifndef SYM_SHARD_SEARCH_PRIVATE_H
#define SYM_SHARD_SEARCH_PRIVATE_H

#include <symshard/search.h>

#include "shard/shard_private.h"

/* A plan priced: a candidate index by searched operator, its time
 * (femtoseconds) and memory (bytes per device) as expressions; "ok" 0
 * when the pass rejects it. */
struct sym__sentry {
	size_t *choice;
	uint64_t hash;
	int ok;
	sym_expr *fs, *mem;
};

/* A plan at one size: "bad" 0 when it fits the memory cap, 1 when not, 2
 * when it cannot be priced. */
struct sym__sval {
	int bad;
	int64_t fs, mem;
};

/* A piece: the sizes ["lo", "hi"] ("hi" -1: no bound) and its plan. */
struct sym__spiece {
	int64_t lo, hi;
	size_t entry;
	int fits;
};

struct sym_search {
	struct sym__obj obj;
	sym_ctx *ctx;
	sym_graph *g;
	sym_search_options opt;
	const sym_topology *topo;
	int64_t cap;
	size_t max_eval;
	/* The searched operators and their candidates (malloc'ed texts). */
	sym_node **node;
	size_t n_node;
	char ***cand;
	size_t *n_cand;
	size_t *choice, *start; /* the current choice, the default plan */
	/* The plans the pass propagates from one searched operator's
	 * candidate (entries), the starts of the descents. */
	size_t *seed;
	size_t n_seed;
	/* The plans priced. */
	struct sym__sentry *entry;
	size_t n_entry, cap_entry, n_eval;
	/* The entries by hash: "bucket" heads (SIZE_MAX: empty), "next"
	 * chains, "n_bucket" a power of two. */
	size_t *bucket, *next, n_bucket;
	int failed; /* an error other than a rejected plan */
	/* The searched symbol, its admissible sizes, the evaluation binding */
	sym_symbol *sym;
	sym_symbol_info info;
	int64_t lo, hi; /* hi INT64_MAX: no bound */
	sym_binding *b;
	struct sym__spiece *piece;
	size_t n_piece;
	double seconds;
};

#endif
