/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the normalisation family (MindSpore's SoftmaxInfo,
 * LogSoftmaxInfo, LayerNormInfo): the device matrix is the strategy of x
 * ("d0", "d1", ...).
 *
 *  - softmax, log_softmax: the softmax axes are unsplit; the output has
 *    the layout of x;
 *  - layer_norm(x, gamma, beta): the normalised dimensions (from
 *    begin_norm_axis on) are unsplit; gamma and beta, which span x's
 *    dimensions from begin_params_axis on, are split exactly like those
 *    dimensions of x (as MindSpore requires), which leaves them
 *    replicated in the usual case begin_params_axis = begin_norm_axis; y
 *    has the layout of x, the mean and the variance x's splits before
 *    begin_norm_axis.
 */
#include "rules/rule_private.h"

/* The layout step of softmax and log_softmax; "s" is the run. */
int
sym__shard_infer_softmax(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0);
	const unsigned char *mark = s->at->norm.mark;

	if (sym__shard_default_replicated(s, 0) < 0)
		return -1;
	for (size_t d = 0; d < r && mark; d++)
		if (mark[d] &&
		    sym__shard_unsplit(s, 0, d, "it is a softmax axis, which") <
		        0)
			return -1;
	return sym__shard_out_same(s, 0, 0);
}

/* The tuple step of layer_norm: the device matrix is the strategy of x,
 * gamma and beta on the axes of the dimensions they span; "s" is the run,
 * "split" the split counts by input. */
int
sym__shard_tuple_layer_norm(struct sym__shard *s, const int64_t *const *split)
{
	size_t r = sym__shard_in_rank(s, 0);
	size_t params = s->at->norm.begin_params;

	if (sym__shard_tuple_first(s, split) < 0)
		return -1;
	for (size_t i = 1; i < 3; i++) {
		if (!split[i])
			continue;
		for (size_t j = 0; j + params < r && split[0]; j++)
			if (split[i][j] != split[0][params + j])
				return sym__shard_fail(s, (int)i, (int)j,
				    "dimension %zu of %s is split %lld way%s, but "
				    "dimension %zu of %s %lld way%s: gamma and beta must "
				    "be split like the dimensions of x they span",
				    j, sym__shard_in_name(s, i),
				    (long long)split[i][j],
				    SYM__WAYS(split[i][j]), params + j,
				    sym__shard_in_name(s, 0),
				    (long long)split[0][params + j],
				    SYM__WAYS(split[0][params + j]));
		if (sym__shard_map_from(s, i, split[i], params) < 0)
			return -1;
	}
	return 0;
}

/* The layout step of layer_norm (see the top of the file); "s" is the
 * run. */
int
sym__shard_infer_layer_norm(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0);
	size_t norm = s->at->norm.begin_norm;
	size_t params = s->at->norm.begin_params;
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0)
		return -1;
	for (size_t d = norm; d < r; d++)
		if (sym__shard_unsplit(s, 0, d,
		        "it is normalised by layer_norm, so it") < 0)
			return -1;
	for (size_t i = 1; i < 3; i++) {
		if (!s->in[i]) {
			if (sym__lb_init(s, &b, r - params) < 0)
				return -1;
			for (size_t j = 0; j + params < r; j++)
				sym__lb_copy(&b, j, s->in[0], params + j);
			if (sym__shard_set_in(s, i, &b) < 0)
				return -1;
		}
		for (size_t j = 0; j + params < r; j++)
			if (!sym__shard_same_dim(s->in[i], j, s->in[0],
			        params + j))
				return sym__shard_fail(s, (int)i, (int)j,
				    "dimension %zu of %s is split by %s, but "
				    "dimension %zu of %s by %s: gamma and beta "
				    "must be split like the dimensions of x "
				    "they span",
				    j, sym__shard_in_name(s, i),
				    sym__shard_axes_txt(s, s->in[i], j),
				    params + j, sym__shard_in_name(s, 0),
				    sym__shard_axes_txt(s, s->in[0],
				        params + j));
	}
	if (sym__shard_out_same(s, 0, 0) < 0)
		return -1;
	for (size_t k = 1; k < s->n_out; k++) {
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		for (size_t d = 0; d < norm; d++)
			sym__lb_copy(&b, d, s->in[0], d);
		if (sym__shard_set_out(s, k, &b) < 0)
			return -1;
	}
	return 0;
}
