/* SPDX-License-Identifier: MIT */
/*
 * The bodies of topologies and redistribution plans, for the layers
 * above that read them (the sharding pass and its search, plans, the
 * executor). The planner's own pieces are in redist/planner_private.h.
 */
#ifndef SYM_REDIST_REDIST_PRIVATE_H
#define SYM_REDIST_REDIST_PRIVATE_H

#include <symshard/redist.h>

#include "layout/layout_private.h"

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
