/* SPDX-License-Identifier: MIT */
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

/* A sharding of a graph (sym_sharding(3)): immutable, reference
 * counted. */
typedef struct sym_sharding sym_sharding;

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
	SYM_SHARD_OPT_POWER_OF_TWO, /* MindSpore's rule: splits are powers of 2 */
	SYM_SHARD_OPT_PROPAGATE     /* 1 (default): propagate from neighbours */
} sym_shard_option;

SYM_EXPORT int sym_graph_add_mesh(SYM_KEEP sym_graph *g, const char *text,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_node_set_strategy(SYM_KEEP sym_graph *g,
    SYM_KEEP sym_node *n, const char *text, SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_node_drop_strategy(SYM_KEEP sym_graph *g,
    SYM_KEEP sym_node *n);
SYM_EXPORT int sym_graph_set_auto_parallel(SYM_KEEP sym_graph *g,
    int64_t memory, SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_graph_auto_parallel(SYM_KEEP const sym_graph *g,
    int64_t *memory);
SYM_EXPORT int sym_graph_set_fusion_bytes(SYM_KEEP sym_graph *g, int64_t bytes,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int64_t sym_graph_fusion_bytes(SYM_KEEP const sym_graph *g);
SYM_EXPORT int sym_graph_set_optimizer_shard(SYM_KEEP sym_graph *g, int level,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_graph_optimizer_shard(SYM_KEEP const sym_graph *g);
SYM_EXPORT int sym_graph_set_optimizer_shard_min_bytes(SYM_KEEP sym_graph *g,
    int64_t bytes, SYM_KEEP const sym_loc *where);
SYM_EXPORT int64_t
sym_graph_optimizer_shard_min_bytes(SYM_KEEP const sym_graph *g);
SYM_EXPORT int sym_graph_set_shard_option(SYM_KEEP sym_graph *g,
    sym_shard_option opt, long value);
SYM_EXPORT long sym_graph_get_shard_option(SYM_KEEP const sym_graph *g,
    sym_shard_option opt);
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
/* A strategy assignment (sym_sharding(3)): strategies by node number,
 * written as after "shard" in a graph file (NULL entries, and nodes past
 * "n_strategies": the graph's own clause, or none), and meshes they use
 * besides the graph's, written as after "mesh". */
typedef struct sym_assignment {
	size_t size;
	const char *const *strategies;
	size_t n_strategies;
	const char *const *meshes;
	size_t n_meshes;
} sym_assignment;

#define SYM_ASSIGNMENT_INIT                    \
	{                                      \
		.size = sizeof(sym_assignment) \
	}

SYM_EXPORT SYM_GIVE sym_sharding *sym_sharding_new(SYM_KEEP sym_graph *g,
    SYM_KEEP const sym_assignment *a, SYM_KEEP const sym_topology *topo);
SYM_EXPORT SYM_GIVE sym_sharding *sym_sharding_ref(SYM_KEEP sym_sharding *sh);
SYM_EXPORT SYM_NULL sym_sharding *sym_sharding_free(SYM_TAKE sym_sharding *sh);
SYM_EXPORT SYM_KEEP sym_graph *
sym_sharding_graph(SYM_KEEP const sym_sharding *sh);
SYM_EXPORT SYM_KEEP sym_sharding *
sym_graph_sharding(SYM_KEEP const sym_graph *g);
SYM_EXPORT size_t sym_sharding_n_errors(SYM_KEEP const sym_sharding *sh);
SYM_EXPORT size_t sym_sharding_n_diagnostics(SYM_KEEP const sym_sharding *sh);
SYM_EXPORT SYM_KEEP const sym_diagnostic *
sym_sharding_diagnostic(SYM_KEEP const sym_sharding *sh, size_t i);
SYM_EXPORT size_t sym_sharding_n_guards(SYM_KEEP const sym_sharding *sh);
SYM_EXPORT SYM_KEEP const sym_guard *
sym_sharding_guard(SYM_KEEP const sym_sharding *sh, size_t i);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_sharding_value_layout(SYM_KEEP const sym_sharding *sh,
    SYM_KEEP const sym_value *v);
SYM_EXPORT SYM_KEEP const sym_mesh *
sym_sharding_node_mesh(SYM_KEEP const sym_sharding *sh,
    SYM_KEEP const sym_node *n);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_sharding_input_layout(SYM_KEEP const sym_sharding *sh,
    SYM_KEEP const sym_node *n, size_t i);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_sharding_output_layout(SYM_KEEP const sym_sharding *sh,
    SYM_KEEP const sym_node *n, size_t i);
SYM_EXPORT SYM_KEEP const char *
sym_sharding_strategy_source(SYM_KEEP const sym_sharding *sh,
    SYM_KEEP const sym_node *n);
SYM_EXPORT SYM_KEEP const char *
sym_sharding_strategy(SYM_KEEP const sym_sharding *sh,
    SYM_KEEP const sym_node *n);
SYM_EXPORT size_t sym_sharding_n_reshards(SYM_KEEP const sym_sharding *sh);
SYM_EXPORT SYM_KEEP const sym_reshard *
sym_sharding_reshard(SYM_KEEP const sym_sharding *sh, size_t i);
SYM_EXPORT SYM_KEEP const sym_reshard *
sym_sharding_find_reshard(SYM_KEEP const sym_sharding *sh,
    SYM_KEEP const sym_value *v, SYM_KEEP const sym_node *consumer,
    size_t input);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_reshard_source(SYM_KEEP const sym_reshard *c);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_reshard_target(SYM_KEEP const sym_reshard *c);
SYM_EXPORT SYM_KEEP const sym_reshard *
sym_reshard_shares(SYM_KEEP const sym_reshard *c);
/* Buckets of fused gradient all_reduces (parallel fusion_bytes=). */
SYM_EXPORT size_t sym_sharding_n_buckets(SYM_KEEP const sym_sharding *sh);
SYM_EXPORT size_t sym_sharding_bucket_size(SYM_KEEP const sym_sharding *sh,
    size_t b);
SYM_EXPORT SYM_KEEP const sym_reshard *
sym_sharding_bucket_reshard(SYM_KEEP const sym_sharding *sh, size_t b,
    size_t k);
SYM_EXPORT int64_t sym_sharding_bucket_bytes(SYM_KEEP const sym_sharding *sh,
    size_t b);
SYM_EXPORT size_t sym_reshard_bucket(SYM_KEEP const sym_reshard *c);
/* The level of optimizer sharding in force (parallel optimizer_shard=,
 * or the search's choice under a memory cap). */
SYM_EXPORT int sym_sharding_optimizer_shard(SYM_KEEP const sym_sharding *sh);

#ifdef __cplusplus
}
#endif

#endif
