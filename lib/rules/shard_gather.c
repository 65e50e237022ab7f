/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the gather family (MindSpore's GatherInfo,
 * EmbeddingLookup, OneHotInfo).
 *
 *  - gather(params, indices, axis): the device matrix is the strategy of
 *    params ("p0", ...) followed by that of the indices ("i0", ...); the
 *    output params[:axis] + indices + params[axis+1:] takes each part's
 *    axes. The gathered dimension of params may be split (vocabulary
 *    parallelism, Megatron's and MindSpore's row-split table): each rank
 *    looks up the indices inside its block of rows and writes zeros for
 *    the others, so the output holds partial sums over the axes that
 *    split that dimension, resolved by an AllReduce. The default strategy
 *    splits the indices' leading dimension, the table being replicated
 *    (MindSpore's batch strategy of Gather).
 *  - embedding(ids, table): device matrix ("i0", ..., "vocab", "embed");
 *    the ids keep their layout, the output is ids.shape + [D] split like
 *    the ids and the embedding dimension; a table split on its
 *    vocabulary dimension makes the output partial over those axes, as
 *    for gather.
 *  - one_hot(indices): the device matrix is the indices' strategy; the
 *    output has the indices' layout with the depth dimension inserted
 *    unsplit.
 */
#include "rules/rule_private.h"

/* The tuple step of gather: "s" is the run, "split" the split counts by
 * input. */
int
sym__shard_tuple_gather(struct sym__shard *s, const int64_t *const *split)
{
	size_t rp = sym__shard_in_rank(s, 0), ri = sym__shard_in_rank(s, 1);
	const char **pn, **in;
	int64_t sizes[SYM_MESH_MAX_AXES];
	const char *names[SYM_MESH_MAX_AXES];

	if (sym__shard_gather_axes(s, rp, ri, &pn, &in) < 0)
		return -1;
	sym__shard_axes_put(sizes, names, 0, rp, split[0], pn);
	sym__shard_axes_put(sizes, names, rp, ri, split[1], in);
	if (sym__shard_set_mesh(s, rp + ri, sizes, names) < 0 ||
	    sym__shard_map_from(s, 0, split[0], 0) < 0)
		return -1;
	return sym__shard_map_from(s, 1, split[1], rp);
}

/* The layout step of gather; "s" is the run. */
int
sym__shard_infer_gather(struct sym__shard *s)
{
	size_t rp = sym__shard_in_rank(s, 0), ri = sym__shard_in_rank(s, 1);
	size_t ax = s->at->gather.axis;
	size_t k = 0;
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__shard_default_replicated(s, 1) < 0 ||
	    sym__lb_init(s, &b, rp - 1 + ri) < 0)
		return -1;
	for (size_t d = 0; d < ax; d++)
		sym__lb_copy(&b, k++, s->in[0], d);
	for (size_t d = 0; d < ri; d++)
		sym__lb_copy(&b, k++, s->in[1], d);
	for (size_t d = ax + 1; d < rp; d++)
		sym__lb_copy(&b, k++, s->in[0], d);
	sym__lb_partial_dim(&b, s->in[0], ax);
	return sym__shard_set_out(s, 0, &b);
}

/* The tuple step of embedding: "s" is the run, "split" the split counts
 * by input. */
int
sym__shard_tuple_embedding(struct sym__shard *s, const int64_t *const *split)
{
	static const char *const table[] = { "vocab", "embed" };
	size_t ri = sym__shard_in_rank(s, 0);
	const char **pn, **in;
	int64_t sizes[SYM_MESH_MAX_AXES];
	const char *names[SYM_MESH_MAX_AXES];

	if (sym__shard_gather_axes(s, 2, ri, &pn, &in) < 0)
		return -1;
	sym__shard_axes_put(sizes, names, 0, ri, split[0], in);
	sym__shard_axes_put(sizes, names, ri, 2, split[1], table);
	if (sym__shard_set_mesh(s, ri + 2, sizes, names) < 0 ||
	    sym__shard_map_from(s, 0, split[0], 0) < 0)
		return -1;
	return sym__shard_map_from(s, 1, split[1], ri);
}

/* The layout step of embedding; "s" is the run. */
int
sym__shard_infer_embedding(struct sym__shard *s)
{
	size_t ri = sym__shard_in_rank(s, 0);
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__shard_default_replicated(s, 1) < 0 ||
	    sym__lb_init(s, &b, ri + 1) < 0)
		return -1;
	for (size_t d = 0; d < ri; d++)
		sym__lb_copy(&b, d, s->in[0], d);
	sym__lb_copy(&b, ri, s->in[1], 1);
	sym__lb_partial_dim(&b, s->in[1], 0);
	return sym__shard_set_out(s, 0, &b);
}

/* The layout step of one_hot; "s" is the run. */
int
sym__shard_infer_one_hot(struct sym__shard *s)
{
	return sym__shard_out_inserted(s, s->at->gather.axis);
}
