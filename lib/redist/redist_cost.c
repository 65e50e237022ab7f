/* SPDX-License-Identifier: MIT */
/*
 * The communication cost model of redistribution steps: the alpha-beta
 * time of ring algorithms, inter-node links for groups that span nodes,
 * and the bytes S of a step in the nccl-tests convention.
 */
#include <stdlib.h>
#include <string.h>

#include "redist/planner_private.h"

/* Prepare "cm" for planning over "mesh" with the links of "topo" (NULL:
 * the defaults of sym_topology_new, one node); the ranks are looked at one
 * by one only when they may lie on several nodes. Return 0, or -1 with
 * SYM_EINVAL when "topo" does not place some rank of "mesh". */
int
sym__cost_init(struct sym__cost_model *cm, const sym_mesh *mesh,
    const sym_topology *topo)
{
	int64_t s = 1, first = -1;
	int many = 0;

	memset(cm, 0, sizeof(*cm));
	cm->mesh = mesh;
	cm->intra_bw = topo ? topo->intra_bw : 100e9;
	cm->intra_lat = topo ? topo->intra_lat : 5e-6;
	cm->inter_bw = topo ? topo->inter_bw : 25e9;
	cm->inter_lat = topo ? topo->inter_lat : 10e-6;
	for (size_t a = mesh->n_axes; a-- > 0;) {
		cm->stride[a] = s;
		s *= mesh->size[a];
	}
	if (!topo ||
	    (!topo->node_of &&
	        (topo->ranks_per_node <= 0 ||
	            mesh->n_devices <= topo->ranks_per_node)))
		return 0;
	for (int64_t r = 0; r < mesh->n_devices; r++) {
		int64_t node = sym_topology_node_of(topo, r);

		if (node < 0) {
			sym__error(mesh->ctx, SYM_EINVAL, NULL,
			    "the topology does not place rank %lld of a mesh "
			    "of %lld devices on a node",
			    (long long)r, (long long)mesh->n_devices);
			return -1;
		}
		if (first < 0)
			first = node;
		many |= node != first;
	}
	if (!many)
		return 0;
	cm->node =
	    sym__alloc(mesh->ctx, (size_t)mesh->n_devices * sizeof(*cm->node));
	cm->spans = sym__alloc(mesh->ctx, (size_t)1 << mesh->n_axes);
	if (!cm->node || !cm->spans) {
		sym__cost_clear(cm);
		return -1;
	}
	memset(cm->spans, -1, (size_t)1 << mesh->n_axes);
	for (int64_t p = 0; p < mesh->n_devices; p++)
		cm->node[p] = sym_topology_node_of(topo,
		    mesh->ranks ? mesh->ranks[p] : p);
	return 0;
}

/* Release what "cm" allocated. */
void
sym__cost_clear(struct sym__cost_model *cm)
{
	free(cm->node);
	free(cm->spans);
	cm->node = NULL;
	cm->spans = NULL;
}

/* Return the position of "pos" with its coordinates along the axes of
 * "mask" set to 0 in the mesh of "cm". */
static int64_t
group_base(const struct sym__cost_model *cm, int64_t pos, uint32_t mask)
{
	for (size_t a = 0; a < cm->mesh->n_axes; a++)
		if (mask >> a & 1)
			pos -= (pos / cm->stride[a] % cm->mesh->size[a]) *
			    cm->stride[a];
	return pos;
}

/* Return 1 when some group of ranks that differ only along the axes of
 * "mask" spans two nodes in "cm", else 0. */
int
sym__cost_spans(struct sym__cost_model *cm, uint32_t mask)
{
	int spans = 0;

	if (!cm->node)
		return 0;
	if (cm->spans[mask] >= 0)
		return cm->spans[mask];
	for (int64_t p = 0; p < cm->mesh->n_devices && !spans; p++)
		spans = cm->node[p] != cm->node[group_base(cm, p, mask)];
	cm->spans[mask] = (int8_t)spans;
	return spans;
}

/* Store in "*alpha_count" and "*beta_factor" the latency terms and the
 * multiplier of S/bandwidth of a step of kind "kind" over groups of "n"
 * ranks (ring algorithms; a binomial tree for broadcast). */
void
sym__cost_factors(sym_redist_kind kind, int64_t n, double *alpha_count,
    double *beta_factor)
{
	double m = (double)(n - 1);

	*alpha_count = 0;
	*beta_factor = 0;
	if (n <= 1)
		return;
	switch (kind) {
	case SYM_REDIST_INVALID:
	case SYM_REDIST_SLICE:
		break;
	case SYM_REDIST_ALL_REDUCE:
		*alpha_count = 2 * m;
		*beta_factor = 2 * m / (double)n;
		break;
	case SYM_REDIST_ALL_GATHER:
	case SYM_REDIST_REDUCE_SCATTER:
	case SYM_REDIST_ALL_TO_ALL:
		*alpha_count = m;
		*beta_factor = m / (double)n;
		break;
	case SYM_REDIST_PERMUTE:
		*alpha_count = 1;
		*beta_factor = 1;
		break;
	case SYM_REDIST_BROADCAST:
		for (int64_t k = 1; k < n; k *= 2)
			*alpha_count += 1;
		*beta_factor = 1;
		break;
	}
}

/* Return an internal reference to "num"/"den" times the bytes "total"
 * (borrowed): exact when the division is, else total*num floordiv den. */
sym_expr *
sym__cost_bytes(sym_expr *total, int64_t num, int64_t den)
{
	sym_expr *scaled, *k, *s;
	int64_t a = num, b = den;

	while (b) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	if (a > 1) {
		num /= a;
		den /= a;
	}
	scaled = sym__scale_si(total, num);
	if (!scaled || den == 1)
		return scaled;
	k = sym__const(total->ctx, den);
	s = k ? sym__fdiv(scaled, k) : NULL;
	sym__expr_unref(k);
	sym__expr_unref(scaled);
	return s;
}
