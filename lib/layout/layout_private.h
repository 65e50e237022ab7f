/* SPDX-License-Identifier: MIT */
/*
 * The bodies of meshes, layouts, topologies and redistribution plans.
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

/* A topology: which node each rank is on, and the link parameters. */
struct sym_topology {
	sym_ctx *ctx;
	struct sym__obj obj;
	int64_t ranks_per_node; /* used when node_of is NULL */
	int64_t *node_of;       /* by rank, from a rank table; may be NULL */
	int64_t n_ranks;
	double intra_bw, intra_lat; /* bytes/s, seconds */
	double inter_bw, inter_lat;
	double flops; /* floating-point operations per second per device */
};

/* Return how many of the ranks 0 to "devices" - 1 are on the node of
 * rank 0 of "t" (all of them for NULL or a topology of one node): in
 * constant time unless "t" lists its ranks' nodes. */
int64_t sym__topology_first_node_size(const sym_topology *t, int64_t devices);

/* One step of a redistribution plan. */
struct sym__step {
	sym_redist_kind kind;
	int axes[SYM_MESH_MAX_AXES]; /* mesh axes of the groups */
	size_t n_axes;
	int from_dim, to_dim;         /* -1 when not applicable */
	sym_expr *bytes;              /* S, nccl-tests convention */
	sym_layout *after;            /* the layout after this step */
	int64_t group_size, n_groups; /* members: sym_redist_step_group_rank */
	double alpha_count;           /* latency terms of the algorithm */
	double beta_factor;           /* S multiplier of the bandwidth term */
	int inter_node;               /* some group spans nodes */
};

struct sym_redist {
	sym_ctx *ctx;
	struct sym__obj obj;
	struct sym__step *step;
	size_t n_step;
	int full_gather; /* had to replicate the whole tensor */
	char *note;      /* why, for sym_redist_to_str; may be NULL */
	double intra_bw, intra_lat, inter_bw, inter_lat;
};

/* A copy of the plan "r" (sharing its expressions and layouts), a new
 * plan of its context; NULL when out of memory. */
sym_redist *sym__redist_copy(const sym_redist *r);

#endif
