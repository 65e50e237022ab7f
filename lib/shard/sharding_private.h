/* SPDX-License-Identifier: MIT */
/*
 * The body of a sharding (sym_sharding(3), DESIGN section 16): what the
 * sharding pass computed from a graph, a strategy assignment and a
 * topology. The graph keeps what its author wrote; a sharding keeps, by
 * node and value number of that graph, the layouts, meshes and strategies
 * in force, and the communications. Immutable once built; plans hold a
 * reference to the sharding they were compiled from.
 */
#ifndef SYM_SHARD_SHARDING_PRIVATE_H
#define SYM_SHARD_SHARDING_PRIVATE_H

#include "graph/graph_private.h"

/* What the pass gave one node (internal references). */
struct sym__nshard {
	size_t n_in, n_out; /* the node's, so that freeing needs no graph */
	sym_mesh *mesh;
	sym_layout **in_layout;  /* what the operator needs, by input */
	sym_layout **out_layout; /* what it produces, partial sums included */
	char *source;            /* "shard clause", "default: ..." */
	char *text;              /* the strategy in force, as text */
};

/* A communication of a sharding (see sym_reshard): "pub" first, so that
 * a sym_reshard pointer leads back to its sharding. */
struct sym__comm {
	sym_reshard pub;
	sym_redist *plan;
	char *reason;
	const sym_sharding *sh;
	/* the index of the earlier communication of the same value to the
	 * same layout whose result this one reads, or SIZE_MAX: a (value,
	 * layout) pair is communicated once (sym_reshard_shares) */
	size_t shares;
};

struct sym_sharding {
	struct sym__obj obj;
	sym_ctx *ctx;
	sym_graph *g;             /* not referenced: the graph outlives it */
	size_t n_node;            /* the graph's nodes when it was built */
	size_t n_value;           /* and its values */
	struct sym__nshard *node; /* by node number */
	sym_layout **layout;      /* by value number: producer-side layout */
	struct sym__comm *comm;   /* in the order the pass walks the nodes */
	size_t n_comm, cap_comm;
	/* What the pass reported, when the sharding keeps its reports
	 * apart from the graph (sym_sharding_new): diagnostics and run-time
	 * guards; the graph's own are the ones before sharding. */
	struct sym__diag *diag;
	size_t n_diag, n_errors;
	struct sym__guard *guard;
	size_t n_guard;
	int failed; /* the pass could not run (out of memory) */
	/* The level of optimizer sharding in force (0: none, 1 to 3): the
	 * graph's "parallel optimizer_shard", or the search's choice. */
	int optshard;
	/* Buckets of fused gradient all_reduces (fusion.c): bucket b fuses
	 * the communications bucket_comm[bucket_first[b] ..
	 * bucket_first[b + 1]) of bucket_bytes[b] bytes; comm_bucket gives
	 * a communication's bucket (SIZE_MAX: none). All NULL without
	 * fusion. */
	size_t *bucket_comm, *bucket_first, *comm_bucket;
	int64_t *bucket_bytes;
	size_t n_bucket;
};

/* The graph's current sharding (sym_graph_shard's), or NULL. */
static inline sym_sharding *
sym__graph_sharding(const sym_graph *g)
{
	return g ? g->sharding : NULL;
}

/* What a sharding "sh" gave node "n" (NULL when "sh" is NULL or "n" came
 * after it). */
static inline const struct sym__nshard *
sym__nshard(const sym_sharding *sh, const sym_node *n)
{
	return sh && n && n->index < sh->n_node && n->graph == sh->g
	    ? &sh->node[n->index]
	    : NULL;
}

/* The layout of "v" in "sh" (NULL: none). */
static inline sym_layout *
sym__vlayout(const sym_sharding *sh, const sym_value *v)
{
	return sh && v && v->index < sh->n_value && v->graph == sh->g
	    ? sh->layout[v->index]
	    : NULL;
}

/* A new sharding of "g" with room for its nodes and values, or NULL
 * (SYM_ENOMEM on the context). */
sym_sharding *sym__sharding_alloc(sym_graph *g);

/* Cut the gradient all_reduces of "sh" into buckets of about "limit"
 * bytes (fusion.c); 0, or -1 out of memory. */
int sym__fusion_build(sym_sharding *sh, int64_t limit);

#endif
