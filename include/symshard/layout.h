/* SPDX-License-Identifier: MIT */
/*
 * symshard: tensor layouts over a device mesh (sym_layout(3)).
 */
#ifndef SYMSHARD_LAYOUT_H
#define SYMSHARD_LAYOUT_H

#include <symshard/common.h>
#include <symshard/mesh.h>
#include <symshard/shape.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_layout sym_layout;

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
SYM_EXPORT sym_answer sym_layout_is_partial(SYM_KEEP const sym_layout *l,
    size_t axis);
SYM_EXPORT int sym_layout_axis_dim(SYM_KEEP const sym_layout *l, size_t axis);
SYM_EXPORT SYM_GIVE sym_layout *
sym_layout_standard(SYM_KEEP const sym_layout *l);
SYM_EXPORT sym_answer sym_layout_is_equal(SYM_KEEP const sym_layout *a,
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

#ifdef __cplusplus
}
#endif

#endif
