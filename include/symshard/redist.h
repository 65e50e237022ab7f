/* SPDX-License-Identifier: MIT */
/*
 * symshard: redistribution plans between two layouts and the topologies
 * that price them (sym_redist(3)).
 */
#ifndef SYMSHARD_REDIST_H
#define SYMSHARD_REDIST_H

#include <symshard/common.h>
#include <symshard/layout.h>
#include <symshard/shape.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_redist sym_redist;
typedef struct sym_topology sym_topology;

/* Redistribution steps. */
typedef enum sym_redist_kind {
	SYM_REDIST_INVALID = -1, /* a step out of range */
	SYM_REDIST_SLICE,
	SYM_REDIST_ALL_TO_ALL,
	SYM_REDIST_PERMUTE,
	SYM_REDIST_ALL_GATHER,
	SYM_REDIST_ALL_REDUCE,
	SYM_REDIST_REDUCE_SCATTER,
	SYM_REDIST_BROADCAST
} sym_redist_kind;

/* Topology: ranks per node and link parameters (alpha-beta model). */
SYM_EXPORT SYM_GIVE sym_topology *sym_topology_new(SYM_KEEP sym_ctx *ctx,
    int64_t ranks_per_node, double intra_gbps, double intra_latency_us,
    double inter_gbps, double inter_latency_us);
SYM_EXPORT SYM_GIVE sym_topology *sym_topology_parse_file(SYM_KEEP sym_ctx *ctx,
    const char *path);
SYM_EXPORT SYM_GIVE sym_topology *
sym_topology_parse_rank_table(SYM_KEEP sym_ctx *ctx, const char *path);
SYM_EXPORT void sym_topology_free(SYM_TAKE sym_topology *t);
SYM_EXPORT int sym_topology_set_flops(SYM_KEEP sym_topology *t, double flops);
SYM_EXPORT double sym_topology_flops(SYM_KEEP const sym_topology *t);
SYM_EXPORT int64_t sym_topology_node_of(SYM_KEEP const sym_topology *t,
    int64_t rank);
SYM_EXPORT SYM_GIVE char *sym_topology_to_str(SYM_KEEP const sym_topology *t);

SYM_EXPORT SYM_GIVE sym_redist *sym_redist_plan(SYM_KEEP const sym_layout *from,
    SYM_KEEP const sym_layout *to, SYM_KEEP const sym_shape *global,
    SYM_KEEP const sym_topology *topo);
SYM_EXPORT void sym_redist_free(SYM_TAKE sym_redist *r);
SYM_EXPORT size_t sym_redist_n_steps(SYM_KEEP const sym_redist *r);
SYM_EXPORT sym_redist_kind sym_redist_step_kind(SYM_KEEP const sym_redist *r,
    size_t i);
SYM_EXPORT size_t sym_redist_step_axes(SYM_KEEP const sym_redist *r, size_t i,
    size_t cap, int *axes);
SYM_EXPORT int sym_redist_step_dims(SYM_KEEP const sym_redist *r, size_t i,
    int *from_dim, int *to_dim);
SYM_EXPORT size_t sym_redist_step_groups(SYM_KEEP const sym_redist *r, size_t i,
    size_t *group_size);
SYM_EXPORT int64_t sym_redist_step_group_rank(SYM_KEEP const sym_redist *r,
    size_t i, size_t group, size_t member);
SYM_EXPORT SYM_KEEP const sym_expr *
sym_redist_step_bytes(SYM_KEEP const sym_redist *r, size_t i);
SYM_EXPORT SYM_GIVE sym_expr *
sym_redist_step_femtoseconds(SYM_KEEP const sym_redist *r, size_t i);
SYM_EXPORT double sym_redist_step_seconds(SYM_KEEP const sym_redist *r,
    size_t i, SYM_KEEP const sym_binding *b);
SYM_EXPORT double sym_redist_step_latency(SYM_KEEP const sym_redist *r,
    size_t i);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_redist_step_layout(SYM_KEEP const sym_redist *r, size_t i);
SYM_EXPORT int sym_redist_full_gather(SYM_KEEP const sym_redist *r);
SYM_EXPORT SYM_KEEP const char *sym_redist_kind_name(sym_redist_kind kind);
SYM_EXPORT SYM_GIVE char *sym_redist_to_str(SYM_KEEP const sym_redist *r);

#ifdef __cplusplus
}
#endif

#endif
