/*
 * symshard: sharding a graph over device meshes (sym_shard(3)).
 *
 * Meshes, operator strategies, the propagation and choice of layouts,
 * and the redistributions the sharded graph needs between them.
 */
#ifndef SYMSHARD_SHARD_H
#define SYMSHARD_SHARD_H

#include <symshard/common.h>
#include <symshard/graph.h>
#include <symshard/redist.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A communication the sharded graph needs: the redistribution of
 * "value" for input "input" of "consumer", or, when "consumer" is NULL,
 * the resolution of the partial sums of "value" after its producer. */
typedef struct sym_reshard {
	const sym_value *value;
	const sym_node *consumer;
	size_t input;
	const sym_redist *plan;
	const char *reason;
} sym_reshard;

/* Options of sym_graph_shard. */
typedef enum sym_shard_option {
	SYM_SHARD_POWER_OF_TWO, /* MindSpore's rule: splits are powers of 2 */
	SYM_SHARD_PROPAGATE     /* 1 (default): propagate from neighbours */
} sym_shard_option;

SYM_EXPORT int sym_graph_add_mesh(SYM_KEEP sym_graph *g, const char *text,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_node_set_strategy(SYM_KEEP sym_graph *g,
    SYM_KEEP sym_node *n, const char *text, SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_graph_set_auto_parallel(SYM_KEEP sym_graph *g,
    int64_t memory, SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_graph_auto_parallel(SYM_KEEP const sym_graph *g,
    int64_t *memory);
SYM_EXPORT int sym_graph_set_shard_option(SYM_KEEP sym_graph *g,
    sym_shard_option opt, long value);
SYM_EXPORT int sym_graph_shard(SYM_KEEP sym_graph *g,
    SYM_KEEP const sym_topology *topo);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_value_layout(SYM_KEEP const sym_value *v);
SYM_EXPORT SYM_KEEP const sym_mesh *sym_node_mesh(SYM_KEEP const sym_node *n);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_node_input_layout(SYM_KEEP const sym_node *n, size_t i);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_node_output_layout(SYM_KEEP const sym_node *n, size_t i);
SYM_EXPORT SYM_KEEP const char *
sym_node_strategy_source(SYM_KEEP const sym_node *n);
SYM_EXPORT SYM_GIVE char *sym_node_strategy_to_str(SYM_KEEP const sym_node *n);
SYM_EXPORT size_t sym_graph_n_reshards(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP const sym_reshard *
sym_graph_reshard(SYM_KEEP const sym_graph *g, size_t i);
SYM_EXPORT SYM_KEEP const sym_reshard *
sym_graph_find_reshard(SYM_KEEP const sym_graph *g, SYM_KEEP const sym_value *v,
    SYM_KEEP const sym_node *consumer, size_t input);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_reshard_source(SYM_KEEP const sym_reshard *c);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_reshard_target(SYM_KEEP const sym_reshard *c);

/* The cost of a step of a sharded graph (sym_search(3)): expressions of
 * the symbols (references owned by the structure, released by
 * sym_cost_clear). Times in femtoseconds, memory in bytes per device. */
typedef struct sym_cost {
	sym_expr *seconds_fs;   /* compute_fs + comm_fs */
	sym_expr *compute_fs;   /* flops at the topology's compute rate */
	sym_expr *comm_fs;      /* every communication step, alpha-beta */
	sym_expr *flops;        /* floating-point operations of a device */
	sym_expr *memory_bytes; /* the four below */
	sym_expr *param_bytes, *grad_bytes, *state_bytes, *activation_bytes;
} sym_cost;

SYM_EXPORT int sym_graph_cost(SYM_KEEP const sym_graph *g,
    SYM_KEEP const sym_topology *topo, sym_cost *c);
SYM_EXPORT void sym_cost_clear(sym_cost *c);

/* The strategy search (sym_search(3)). */
typedef struct sym_search sym_search;

typedef struct sym_search_options {
	size_t size;
	int64_t memory; /* bytes per device; 0: the graph's, or none */
	const sym_topology *topo;
	size_t max_evaluations; /* enumerate at most this many plans */
} sym_search_options;

#define SYM_SEARCH_OPTIONS_INIT                    \
	{                                          \
		.size = sizeof(sym_search_options) \
	}

SYM_EXPORT SYM_GIVE sym_search *sym_graph_search(SYM_KEEP sym_graph *g,
    SYM_KEEP const sym_search_options *o);
SYM_EXPORT void sym_search_free(SYM_TAKE sym_search *s);
SYM_EXPORT int sym_search_apply(SYM_KEEP sym_search *s, size_t i);
SYM_EXPORT SYM_KEEP sym_symbol *sym_search_symbol(SYM_KEEP const sym_search *s);
SYM_EXPORT size_t sym_search_n_pieces(SYM_KEEP const sym_search *s);
SYM_EXPORT int sym_search_piece_range(SYM_KEEP const sym_search *s, size_t i,
    int64_t *lo, int64_t *hi);
SYM_EXPORT size_t sym_search_n_nodes(SYM_KEEP const sym_search *s);
SYM_EXPORT SYM_KEEP const sym_node *
sym_search_node(SYM_KEEP const sym_search *s, size_t j);
SYM_EXPORT SYM_KEEP const char *
sym_search_strategy(SYM_KEEP const sym_search *s, size_t i, size_t j);
SYM_EXPORT SYM_KEEP const sym_expr *
sym_search_piece_seconds(SYM_KEEP const sym_search *s, size_t i);
SYM_EXPORT SYM_KEEP const sym_expr *
sym_search_piece_memory(SYM_KEEP const sym_search *s, size_t i);
SYM_EXPORT double sym_search_seconds(SYM_KEEP const sym_search *s);
SYM_EXPORT size_t sym_search_n_evaluations(SYM_KEEP const sym_search *s);

#ifdef __cplusplus
}
#endif

#endif
