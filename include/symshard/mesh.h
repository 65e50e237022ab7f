/* SPDX-License-Identifier: MIT */
/*
 * symshard: device meshes, the device matrices that layouts split tensors
 * over (sym_mesh(3)).
 */
#ifndef SYMSHARD_MESH_H
#define SYMSHARD_MESH_H

#include <symshard/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_mesh sym_mesh;

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
SYM_EXPORT size_t sym_mesh_find_axis(SYM_KEEP const sym_mesh *m,
    const char *name);
SYM_EXPORT int64_t sym_mesh_n_devices(SYM_KEEP const sym_mesh *m);
SYM_EXPORT int64_t sym_mesh_rank(SYM_KEEP const sym_mesh *m, int64_t index);
SYM_EXPORT sym_answer sym_mesh_has_rank_list(SYM_KEEP const sym_mesh *m);
SYM_EXPORT int sym_mesh_coords(SYM_KEEP const sym_mesh *m, int64_t rank,
    int64_t *coords);
SYM_EXPORT int64_t sym_mesh_rank_of(SYM_KEEP const sym_mesh *m,
    const int64_t *coords);
SYM_EXPORT sym_answer sym_mesh_is_equal(SYM_KEEP const sym_mesh *a,
    SYM_KEEP const sym_mesh *b);
SYM_EXPORT SYM_GIVE char *sym_mesh_to_str(SYM_KEEP const sym_mesh *m);

#ifdef __cplusplus
}
#endif

#endif
