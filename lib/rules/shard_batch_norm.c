/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of batch_norm and its kin (normalisation family). The
 * device matrix is the strategy of x (or of dy and x, laid out alike;
 * of running_mean for batch_norm_update), "d0", "d1", .... Every
 * dimension of x may be split: the batch, the channels and the spatial
 * dimensions.
 *
 *  - batch_norm_stats(x): the statistics [3, C] have their channels
 *    split like dimension 1 of x and are partial sums over the axes that
 *    split the other dimensions of x (the batch, the spatial ones),
 *    which the pass all-reduces: the statistics are those of the whole
 *    batch (with training=false they are zeros nothing reads, not
 *    partial, and nothing is all-reduced);
 *  - batch_norm(x, gamma, beta, running_mean, running_var, stats): the
 *    channel vectors and the channels of the statistics are split like
 *    dimension 1 of x and replicated over the other axes; y has the
 *    layout of x. Each element is normalised with the global statistics
 *    of its channel, so every split gives the values of one device;
 *  - batch_norm_update(running_mean, running_var, stats): the three laid
 *    out alike along the channels; the outputs are the inputs (in
 *    place);
 *  - batch_norm_grad_params(dy, x, stats, running_mean, running_var):
 *    dy and x alike, the others along the channels; dgamma and dbeta
 *    like the channels, partial sums over the other axes of x (resolved
 *    by the pass: MindSpore's mirror operator);
 *  - batch_norm_grad(dy, x, stats, running_mean, running_var, gamma,
 *    dgamma, dbeta): dx like x.
 */
#include "rules/rule_private.h"

/* Map input "i" of "s", whose dimension "cd" holds the channels, onto
 * the axis "axis" of the channels (-1: none) with the split counts
 * "split" (may be NULL); 0 or -1. */
static int
map_channels(struct sym__shard *s, size_t i, size_t cd, int axis,
    const int64_t *split)
{
	size_t r = sym__shard_in_rank(s, i);
	int *axis_of = sym__shard_scratch(s, r, sizeof(*axis_of));

	if (!axis_of)
		return sym__shard_nomem(s);
	for (size_t d = 0; d < r; d++)
		axis_of[d] = d == cd ? axis : -1;
	return sym__shard_map(s, i, split, axis_of);
}

/* Complete input "i" of "s" (its dimension "cd" the channels, the
 * others unsplit) from dimension "xd" of input "xi" when it has no
 * layout, and check it; 0 or -1. */
static int
channels_like(struct sym__shard *s, size_t i, size_t cd, size_t xi, size_t xd)
{
	size_t r = sym__shard_in_rank(s, i);
	struct sym__lb b;

	if (!s->in[i]) {
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		sym__lb_copy(&b, cd, s->in[xi], xd);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	for (size_t d = 0; d < r; d++)
		if (d != cd && sym__shard_is_split(s->in[i], d))
			return sym__shard_fail(s, (int)i, (int)d,
			    "dimension %zu of %s is split by %s, but only its "
			    "channels (dimension %zu) may be split",
			    d, sym__shard_in_name(s, i),
			    sym__shard_axes_txt(s, s->in[i], d), cd);
	if (!sym__shard_same_dim(s->in[i], cd, s->in[xi], xd))
		return sym__shard_fail(s, (int)i, (int)cd,
		    "dimension %zu of %s is split by %s, but the channels of "
		    "%s (dimension %zu) by %s: they must be split alike",
		    cd, sym__shard_in_name(s, i),
		    sym__shard_axes_txt(s, s->in[i], cd),
		    sym__shard_in_name(s, xi), xd,
		    sym__shard_axes_txt(s, s->in[xi], xd));
	return 0;
}

/* The tuple step of batch_norm_stats and batch_norm: the device matrix is
 * the strategy of x; "s" is the run, "split" the split counts. */
int
sym__bn_tuple(struct sym__shard *s, const int64_t *const *split)
{
	if (sym__shard_tuple_first(s, split) < 0)
		return -1;
	for (size_t i = 1; i < s->n_in; i++)
		if (split[i] &&
		    map_channels(s, i, i == 5 ? 1 : 0, 1, split[i]) < 0)
			return -1;
	return 0;
}

/* Set output "k" of "s" to the channels of input "xi" at dimension "cd"
 * of a layout of rank "r", partial over the axes that split the other
 * dimensions of that input; 0 or -1. */
static int
partial_channels(struct sym__shard *s, size_t k, size_t r, size_t cd, size_t xi)
{
	size_t xr = sym__shard_in_rank(s, xi);
	struct sym__lb b;

	if (sym__lb_init(s, &b, r) < 0)
		return -1;
	sym__lb_copy(&b, cd, s->in[xi], 1);
	for (size_t d = 0; d < xr; d++)
		if (d != 1)
			sym__lb_partial_dim(&b, s->in[xi], d);
	return sym__shard_set_out(s, k, &b);
}

/* The layout step of batch_norm_stats; "s" is the run. With
 * training=false the kernel writes zeros that nothing reads (batch_norm
 * normalises with the running statistics), so they are laid out along
 * the channels and replicated over the other axes: no partial sums, and
 * no all-reduce of them. */
int
sym__bn_infer_stats(struct sym__shard *s)
{
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0)
		return -1;
	if (s->at->norm.training)
		return partial_channels(s, 0, 2, 1, 0);
	if (sym__lb_init(s, &b, 2) < 0)
		return -1;
	sym__lb_copy(&b, 1, s->in[0], 1);
	return sym__shard_set_out(s, 0, &b);
}

/* The layout step of batch_norm; "s" is the run. */
int
sym__bn_infer(struct sym__shard *s)
{
	if (sym__shard_default_replicated(s, 0) < 0)
		return -1;
	for (size_t i = 1; i < s->n_in; i++)
		if (channels_like(s, i, i == 5 ? 1 : 0, 0, 1) < 0)
			return -1;
	return sym__shard_out_same(s, 0, 0);
}

/* The tuple step of batch_norm_update: the device matrix is the strategy
 * of running_mean; "s" is the run, "split" the split counts. */
int
sym__bn_tuple_update(struct sym__shard *s, const int64_t *const *split)
{
	if (sym__shard_tuple_first(s, split) < 0)
		return -1;
	if (split[1] && map_channels(s, 1, 0, 0, split[1]) < 0)
		return -1;
	return split[2] ? map_channels(s, 2, 1, 0, split[2]) : 0;
}

/* The layout step of batch_norm_update; "s" is the run. */
int
sym__bn_infer_update(struct sym__shard *s)
{
	if (sym__shard_default_replicated(s, 0) < 0 ||
	    channels_like(s, 1, 0, 0, 0) < 0 ||
	    channels_like(s, 2, 1, 0, 0) < 0)
		return -1;
	if (sym__shard_out_same(s, 0, 0) < 0)
		return -1;
	return sym__shard_out_same(s, 1, 1);
}

/* The tuple step of the gradients: the device matrix is the strategy of
 * dy (or of x), the other of the two split alike; "s" is the run,
 * "split" the split counts. */
int
sym__bn_tuple_grad(struct sym__shard *s, const int64_t *const *split)
{
	size_t r = sym__shard_in_rank(s, 1);
	int *ident = sym__shard_scratch(s, r, sizeof(*ident));

	if (!ident)
		return sym__shard_nomem(s);
	for (size_t d = 0; d < r; d++)
		ident[d] = (int)d;
	if (sym__shard_tuple_input(s, split[0] ? split[0] : split[1], 0, "d") <
	        0 ||
	    sym__shard_map(s, 1, split[1], ident) < 0)
		return -1;
	for (size_t i = 2; i < s->n_in; i++)
		if (split[i] &&
		    map_channels(s, i, i == 2 ? 1 : 0, 1, split[i]) < 0)
			return -1;
	return 0;
}

/* Complete dy and x (inputs 0 and 1 of "s") from each other (replicated
 * when neither has a layout) and check that they are split alike; 0 or
 * -1. */
static int
dy_like_x(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 1);
	struct sym__lb b;

	if (!s->in[0] && !s->in[1] && sym__shard_default_replicated(s, 1) < 0)
		return -1;
	for (size_t i = 0; i < 2; i++) {
		if (s->in[i])
			continue;
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		for (size_t d = 0; d < r; d++)
			sym__lb_copy(&b, d, s->in[1 - i], d);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	for (size_t d = 0; d < r; d++)
		if (!sym__shard_same_dim(s->in[0], d, s->in[1], d))
			return sym__shard_fail(s, 0, (int)d,
			    "dimension %zu of %s is split by %s, but that of "
			    "%s by %s: they must be split alike",
			    d, sym__shard_in_name(s, 0),
			    sym__shard_axes_txt(s, s->in[0], d),
			    sym__shard_in_name(s, 1),
			    sym__shard_axes_txt(s, s->in[1], d));
	for (size_t i = 2; i < s->n_in; i++)
		if (channels_like(s, i, i == 2 ? 1 : 0, 1, 1) < 0)
			return -1;
	return 0;
}

/* The layout step of batch_norm_grad_params; "s" is the run. */
int
sym__bn_infer_grad_params(struct sym__shard *s)
{
	if (dy_like_x(s) < 0 || partial_channels(s, 0, 1, 0, 1) < 0)
		return -1;
	return partial_channels(s, 1, 1, 0, 1);
}

/* The layout step of batch_norm_grad; "s" is the run. */
int
sym__bn_infer_grad(struct sym__shard *s)
{
	if (dy_like_x(s) < 0)
		return -1;
	return sym__shard_out_same(s, 0, 1);
}
