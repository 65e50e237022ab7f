/*
 * symshard: device meshes, tensor layouts and redistribution
 * (sym_mesh(3), sym_layout(3), sym_redist(3)).
 */
#ifndef SYMSHARD_LAYOUT_H
#define SYMSHARD_LAYOUT_H

#include <symshard/common.h>
#include <symshard/shape.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_mesh sym_mesh;
typedef struct sym_layout sym_layout;
typedef struct sym_redist sym_redist;
typedef struct sym_topology sym_topology;

/* The most axes a mesh may have. */
#define SYM_MESH_MAX_AXES 16

/* Meshes: a device matrix over ranks, last axis fastest. */
SYM_EXPORT SYM_GIVE sym_mesh *sym_mesh_new(SYM_KEEP sym_ctx *ctx, size_t n_axes,
    const int64_t *sizes, const char *const *names, size_t n_ranks,
    const int64_t *ranks);
SYM_EXPORT SYM_GIVE sym_mesh *sym_mesh_copy(SYM_KEEP const sym_mesh *m);
SYM_EXPORT SYM_NULL sym_mesh *sym_mesh_free(SYM_TAKE sym_mesh *m);
SYM_EXPORT size_t sym_mesh_n_axes(SYM_KEEP const sym_mesh *m);
SYM_EXPORT int64_t sym_mesh_axis_size(SYM_KEEP const sym_mesh *m, size_t axis);
SYM_EXPORT SYM_KEEP const char *sym_mesh_axis_name(SYM_KEEP const sym_mesh *m,
    size_t axis);
SYM_EXPORT int sym_mesh_find_axis(SYM_KEEP const sym_mesh *m, const char *name);
SYM_EXPORT int64_t sym_mesh_n_devices(SYM_KEEP const sym_mesh *m);
SYM_EXPORT int64_t sym_mesh_rank(SYM_KEEP const sym_mesh *m, int64_t index);
SYM_EXPORT int sym_mesh_has_rank_list(SYM_KEEP const sym_mesh *m);
SYM_EXPORT int sym_mesh_coords(SYM_KEEP const sym_mesh *m, int64_t rank,
    int64_t *coords);
SYM_EXPORT int64_t sym_mesh_rank_of(SYM_KEEP const sym_mesh *m,
    const int64_t *coords);
SYM_EXPORT int sym_mesh_is_equal(SYM_KEEP const sym_mesh *a,
    SYM_KEEP const sym_mesh *b);
SYM_EXPORT SYM_GIVE char *sym_mesh_to_str(SYM_KEEP const sym_mesh *m);

/* Layouts: for each tensor dimension the mesh axes that split it, most
 * significant first, plus the axes over which the tensor holds partial
 * sums. Axes are mesh axis numbers. */
SYM_EXPORT SYM_GIVE sym_layout *sym_layout_new(SYM_KEEP const sym_mesh *mesh,
    size_t rank, const size_t *n_axes, const int *const *axes, size_t n_partial,
    const int *partial);
SYM_EXPORT SYM_GIVE sym_layout *
sym_layout_replicated(SYM_KEEP const sym_mesh *mesh, size_t rank);
SYM_EXPORT SYM_GIVE sym_layout *sym_layout_parse(SYM_KEEP const sym_mesh *mesh,
    const char *text, SYM_KEEP const sym_loc *where);
SYM_EXPORT SYM_GIVE sym_layout *sym_layout_copy(SYM_KEEP const sym_layout *l);
SYM_EXPORT SYM_NULL sym_layout *sym_layout_free(SYM_TAKE sym_layout *l);
SYM_EXPORT SYM_KEEP const sym_mesh *
sym_layout_mesh(SYM_KEEP const sym_layout *l);
SYM_EXPORT size_t sym_layout_ndim(SYM_KEEP const sym_layout *l);
SYM_EXPORT size_t sym_layout_dim_n_axes(SYM_KEEP const sym_layout *l,
    size_t dim);
SYM_EXPORT int sym_layout_dim_axis(SYM_KEEP const sym_layout *l, size_t dim,
    size_t i);
SYM_EXPORT int64_t sym_layout_dim_splits(SYM_KEEP const sym_layout *l,
    size_t dim);
SYM_EXPORT int sym_layout_is_partial(SYM_KEEP const sym_layout *l, size_t axis);
SYM_EXPORT int sym_layout_axis_dim(SYM_KEEP const sym_layout *l, size_t axis);
SYM_EXPORT SYM_GIVE sym_layout *
sym_layout_standard(SYM_KEEP const sym_layout *l);
SYM_EXPORT int sym_layout_is_equal(SYM_KEEP const sym_layout *a,
    SYM_KEEP const sym_layout *b);
SYM_EXPORT int sym_layout_tensor_map(SYM_KEEP const sym_layout *l, size_t dim,
    size_t cap, int *map);
SYM_EXPORT SYM_GIVE char *sym_layout_to_str(SYM_KEEP const sym_layout *l);
SYM_EXPORT int64_t sym_layout_block(SYM_KEEP const sym_layout *l, int64_t rank,
    size_t dim);
SYM_EXPORT SYM_GIVE sym_expr *sym_layout_local_dim(SYM_KEEP const sym_layout *l,
    SYM_KEEP const sym_expr *global, size_t dim);
SYM_EXPORT SYM_GIVE sym_expr *sym_layout_offset(SYM_KEEP const sym_layout *l,
    SYM_KEEP const sym_expr *global, size_t dim, int64_t rank);
SYM_EXPORT SYM_GIVE sym_shape *
sym_layout_local_shape(SYM_KEEP const sym_layout *l,
    SYM_KEEP const sym_shape *global);

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
SYM_EXPORT SYM_KEEP const sym_layout *
sym_redist_step_layout(SYM_KEEP const sym_redist *r, size_t i);
SYM_EXPORT int sym_redist_full_gather(SYM_KEEP const sym_redist *r);
SYM_EXPORT SYM_KEEP const char *sym_redist_kind_name(sym_redist_kind kind);
SYM_EXPORT SYM_GIVE char *sym_redist_to_str(SYM_KEEP const sym_redist *r);

#ifdef __cplusplus
}
#endif

#endif
