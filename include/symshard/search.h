/* SPDX-License-Identifier: MIT */
/*
 * symshard: the cost of a sharded graph and the search of its strategies
 * over symbolic sizes (sym_search(3)).
 */
#ifndef SYMSHARD_SEARCH_H
#define SYMSHARD_SEARCH_H

#include <symshard/common.h>
#include <symshard/graph.h>
#include <symshard/redist.h>
#include <symshard/shard.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The cost of a step of a sharded graph (sym_search(3)): expressions of
 * the symbols (references owned by the structure, released by
 * sym_cost_clear). Times in femtoseconds, memory in bytes per device. */
typedef struct sym_cost {
	sym_expr *time_fs;      /* compute_fs + comm_fs */
	sym_expr *compute_fs;   /* flops at the topology's compute rate */
	sym_expr *comm_fs;      /* every communication step, alpha-beta */
	sym_expr *flops;        /* floating-point operations of a device */
	sym_expr *memory_bytes; /* the four below */
	sym_expr *param_bytes, *grad_bytes, *state_bytes, *activation_bytes;
} sym_cost;

SYM_EXPORT int sym_graph_cost(SYM_KEEP const sym_graph *g,
    SYM_KEEP const sym_topology *topo, sym_cost *c);
SYM_EXPORT int sym_sharding_cost(SYM_KEEP const sym_sharding *sh,
    SYM_KEEP const sym_topology *topo, sym_cost *c);
SYM_EXPORT void sym_cost_clear(sym_cost *c);

/* The strategy search (sym_search(3)). */
typedef struct sym_search sym_search;

typedef struct sym_search_options {
	size_t size;
	int64_t memory; /* bytes per device; 0: the graph's, or none */
	const sym_topology *topo;
	size_t max_evaluations; /* enumerate at most this many plans */
	int tuples_only; /* no layout strategies, even on several nodes */
} sym_search_options;

#define SYM_SEARCH_OPTIONS_INIT                    \
	{                                          \
		.size = sizeof(sym_search_options) \
	}

SYM_EXPORT SYM_GIVE sym_search *sym_graph_search(SYM_KEEP sym_graph *g,
    SYM_KEEP const sym_search_options *o);
SYM_EXPORT void sym_search_free(SYM_TAKE sym_search *s);
SYM_EXPORT int sym_search_apply(SYM_KEEP sym_search *s, size_t i);
SYM_EXPORT SYM_GIVE sym_sharding *sym_search_sharding(SYM_KEEP sym_search *s,
    size_t i);
SYM_EXPORT size_t sym_search_n_symbols(SYM_KEEP const sym_search *s);
SYM_EXPORT SYM_KEEP sym_symbol *sym_search_symbol(SYM_KEEP const sym_search *s,
    size_t k);
SYM_EXPORT size_t sym_search_n_pieces(SYM_KEEP const sym_search *s);
SYM_EXPORT int sym_search_piece_range(SYM_KEEP const sym_search *s, size_t i,
    size_t k, int64_t *lo, int64_t *hi);

/* What a piece is (sym_search_piece_fit). */
#define SYM_SEARCH_FITS 0        /* its plan fits the memory cap */
#define SYM_SEARCH_OVER_MEMORY 1 /* none does: the least memory's */
#define SYM_SEARCH_OVERFLOW 2    /* its sizes overflow 64 bits: no plan */

SYM_EXPORT int sym_search_piece_fit(SYM_KEEP const sym_search *s, size_t i);
SYM_EXPORT int sym_search_piece_optimizer_shard(SYM_KEEP const sym_search *s,
    size_t i);
SYM_EXPORT sym_answer
sym_search_chooses_optimizer_shard(SYM_KEEP const sym_search *s);
SYM_EXPORT size_t sym_search_n_nodes(SYM_KEEP const sym_search *s);
SYM_EXPORT SYM_KEEP const sym_node *
sym_search_node(SYM_KEEP const sym_search *s, size_t j);
SYM_EXPORT SYM_KEEP const char *
sym_search_strategy(SYM_KEEP const sym_search *s, size_t i, size_t j);
SYM_EXPORT SYM_KEEP const sym_expr *
sym_search_piece_femtoseconds(SYM_KEEP const sym_search *s, size_t i);
SYM_EXPORT SYM_KEEP const sym_expr *
sym_search_piece_memory(SYM_KEEP const sym_search *s, size_t i);
SYM_EXPORT double sym_search_seconds(SYM_KEEP const sym_search *s);
SYM_EXPORT size_t sym_search_n_evaluations(SYM_KEEP const sym_search *s);
SYM_EXPORT size_t sym_search_n_probes(SYM_KEEP const sym_search *s);
SYM_EXPORT size_t sym_search_n_meshes(SYM_KEEP const sym_search *s);
SYM_EXPORT SYM_KEEP const char *sym_search_mesh(SYM_KEEP const sym_search *s,
    size_t k);

#ifdef __cplusplus
}
#endif

#endif
