/* SPDX-License-Identifier: MIT */
/*
 * The bodies of meshes and layouts (topologies and redistribution plans:
 * redist/redist_private.h).
 */
#ifndef SYM_LAYOUT_LAYOUT_PRIVATE_H
#define SYM_LAYOUT_LAYOUT_PRIVATE_H

#include <symshard/redist.h>

#include "shape/shape_private.h"

/* A device matrix: axis sizes (named), over n_devices ranks, row-major
 * (last axis fastest); ranks[i] is the rank at position i and pos[r] the
 * position of rank r (both NULL: the identity, never stored otherwise).
 * Immutable and reference counted by its header, as shapes are. The
 * names are stored in the mesh's own allocation, right after the
 * struct. */
struct sym_mesh {
	struct sym__obj obj;
	sym_ctx *ctx;
	size_t n_axes;
	int64_t size[SYM_MESH_MAX_AXES];
	char *name[SYM_MESH_MAX_AXES];
	int64_t n_devices;
	int64_t *ranks;
	int64_t *pos;
};

/* A layout over "mesh" of a tensor of "rank" dimensions: dimension d is
 * split by the axes axes[d][0 .. n[d]-1], most significant first; bit a of
 * "partial" marks axis a as holding partial sums. Immutable, reference
 * counted by its header like meshes; holds an internal reference to its
 * mesh. "n" and "axes" point into the layout's own allocation, right
 * after the struct. */
struct sym_layout {
	struct sym__obj obj;
	sym_ctx *ctx;
	sym_mesh *mesh;
	size_t rank;
	uint8_t *n;
	int8_t (*axes)[SYM_MESH_MAX_AXES];
	uint32_t partial;
};

/* Internal (uncounted) constructors and references. */
sym_mesh *sym__mesh_new(sym_ctx *ctx, size_t n_axes, const int64_t *sizes,
    const char *const *names, size_t n_ranks, const int64_t *ranks);
sym_mesh *sym__mesh_ref(sym_mesh *m);
void sym__mesh_unref(sym_mesh *m);
sym_layout *sym__layout_new(sym_mesh *mesh, size_t rank, const uint8_t *n,
    const int8_t (*axes)[SYM_MESH_MAX_AXES], uint32_t partial);
sym_layout *sym__layout_ref(sym_layout *l);
void sym__layout_unref(sym_layout *l);
sym_layout *sym__layout_give(sym_layout *l);

struct sym__tensor_strategy;
/* The layout of the parsed layout strategy "t" over "mesh" (internal
 * reference), or NULL with a malloc'ed message in "*error" (unknown axis,
 * axis used twice, ...) which the caller locates (t->dims[i].loc) and
 * frees; NULL with "*error" NULL on out of memory (error on the ctx). */
sym_layout *sym__layout_from_spec(sym_mesh *mesh,
    const struct sym__tensor_strategy *t, char **error);

#endif
