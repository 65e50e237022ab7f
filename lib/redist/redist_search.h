/* SPDX-License-Identifier: MIT */
/*
 * The state of the search for redistribution steps, shared by the search
 * (redist_search.c) and the generation of the steps from one layout
 * (redist_steps.c).
 */
#ifndef SYM_REDIST_REDIST_SEARCH_H
#define SYM_REDIST_REDIST_SEARCH_H

#include "core/htab.h"
#include "redist/planner_private.h"

struct sym__snode;
struct sym__qent;

/* A layout decoded from its key, for generating steps. */
struct sym__sstate {
	uint8_t *n;
	int8_t (*ax)[SYM_MESH_MAX_AXES];
	uint32_t pending;
	uint32_t used; /* axes in the lists, pending or kept */
};

/* The search. */
struct sym__search {
	sym_ctx *ctx;
	const struct sym__rproblem *p;
	struct sym__cost_model *cm;
	const sym_mesh *mesh;
	uint8_t *pre;   /* the frozen prefix length of each dimension */
	size_t *active; /* the dimensions whose lists may change */
	size_t n_active;
	uint32_t target_axes; /* the axes of the target beyond the prefixes */
	uint32_t spare;       /* axes of size > 1 the target does not use */
	struct sym__rkey goal;
	struct sym__snode *node;
	size_t n_node, cap_node;
	struct sym__htab table; /* hash of a key -> node id */
	struct sym__qent *heap;
	size_t n_heap, cap_heap;
	uint32_t seq;
	struct sym__sstate cur, nxt;
	int overflow;
	/* the cost of the fallback plan: no step beyond it is explored */
	double bound_beta, bound_alpha;
	int have_bound;
	/* the lower bound of what remains (redist_search.c): the positions
	 * of the axes outside the prefixes ("n_pos", 0: no bound), the
	 * position of axis a being r / pos_div[a] % its size; by position
	 * and active dimension, where the target's block starts ("tlo", by
	 * dimension then position,
	 * relative to the prefix's block); by active dimension its length;
	 * their product "tvol"; the fraction of the tensor a prefix block
	 * is; the cheapest rate relative to the intra-node one; by axis and
	 * position, the axis's coordinate; scratch by position */
	size_t n_pos;
	int64_t pos_div[SYM_MESH_MAX_AXES];
	double *tlo, *tlen, tvol, prefix_frac, min_rate, *both;
	uint16_t *coord;
	struct sym__sstate hst;
};

struct sym__rkey sym__rkey_encode(size_t n_axes, size_t rank, const uint8_t *n,
    const int8_t (*ax)[SYM_MESH_MAX_AXES], uint32_t pending);
uint32_t sym__axes_mask(const int8_t *ax, size_t n);
int64_t sym__search_mask_size(const struct sym__search *s, uint32_t mask);
int sym__search_relax(struct sym__search *s, int32_t from,
    const struct sym__rmove *mv, double frac);
void sym__search_decode(const struct sym__search *s, const struct sym__rkey *k,
    struct sym__sstate *st);
int sym__search_expand(struct sym__search *s, int32_t id,
    const struct sym__rkey *key);

#endif
