/* SPDX-License-Identifier: MIT */
/*
 * The pieces of the redistribution planner (sym_redist(3)) shared by its
 * files: the common refinement of two meshes (redist_mesh.c), the
 * communication cost model (redist_cost.c) and the search for the
 * cheapest sequence of steps (redist_search.c); redist.c puts them
 * together.
 */
#ifndef SYM_REDIST_PLANNER_PRIVATE_H
#define SYM_REDIST_PLANNER_PRIVATE_H

#include "redist/redist_private.h"

/* Where an axis is in the key of a planning state. */
#define SYM__WHERE_NONE 0xFF    /* unused (replicated, or a kept partial) */
#define SYM__WHERE_PENDING 0xFE /* partial sums still to be resolved */
#define SYM__KEY_LEN (2 * SYM_MESH_MAX_AXES)

/*
 * A planning state: for each axis a, key[2a] is the dimension it splits
 * (or SYM__WHERE_*) and key[2a + 1] its position in that dimension's
 * list, most significant first.
 */
struct sym__rkey {
	uint8_t b[SYM__KEY_LEN];
};

/* Two layouts of one tensor mapped onto one mesh, axes of size 1 left
 * out: the lists "n_from"/"from" and "n_to"/"to" per dimension, the
 * partial axes to resolve ("pending") and those both keep ("kept").
 * "mod" (NULL: no constraint) gives, by dimension, a number every
 * admissible size of the dimension is a multiple of: a layout on the way
 * may split dimension d only into a number of blocks that divides
 * mod[d], so that no intermediate step cuts a tensor unevenly. */
struct sym__rproblem {
	sym_mesh *mesh; /* internal reference */
	size_t rank;
	uint8_t *n_from, *n_to;
	int8_t (*from)[SYM_MESH_MAX_AXES];
	int8_t (*to)[SYM_MESH_MAX_AXES];
	uint32_t pending, kept;
	int64_t *mod;
};

/* The mapping of two layouts onto a common mesh. */
int sym__redist_map(struct sym__rproblem *p, const sym_layout *from,
    const sym_layout *to, char **why);
void sym__redist_problem_clear(struct sym__rproblem *p);

/* The cost model of the planner over the positions of one mesh. */
struct sym__cost_model {
	double intra_bw, intra_lat, inter_bw, inter_lat; /* bytes/s, s */
	const sym_mesh *mesh;
	int64_t *node; /* node of each position; NULL: one node */
	int8_t *spans; /* by axis mask: -1 unknown, 0 or 1 */
	int64_t stride[SYM_MESH_MAX_AXES];
};

int sym__cost_init(struct sym__cost_model *cm, const sym_mesh *mesh,
    const sym_topology *topo);
void sym__cost_clear(struct sym__cost_model *cm);
int sym__cost_spans(struct sym__cost_model *cm, uint32_t mask);
void sym__cost_factors(sym_redist_kind kind, int64_t n, double *alpha_count,
    double *beta_factor);
sym_expr *sym__cost_bytes(sym_expr *total, int64_t num, int64_t den);

/* One step the search chose: its kind, its axes in order, its
 * dimensions (-1: none) and the state after it. */
struct sym__rmove {
	sym_redist_kind kind;
	uint8_t n_axes;
	int8_t axes[SYM_MESH_MAX_AXES];
	int from_dim, to_dim;
	struct sym__rkey after;
};

int sym__redist_search(const struct sym__rproblem *p,
    struct sym__cost_model *cm, struct sym__rmove **moves, size_t *n_moves);
void sym__rkey_decode(const struct sym__rkey *k, size_t n_axes, size_t rank,
    uint8_t *n, int8_t (*axes)[SYM_MESH_MAX_AXES], uint32_t *pending);

#endif
