/* SPDX-License-Identifier: MIT */
/*
 * Sharding rule of the loss family: softmax_cross_entropy(logits [N, C],
 * labels [N]) (MindSpore's SparseSoftmaxCrossEntropyWithLogitsInfo). The
 * device matrix is the strategy of the logits, ("batch", "class").
 *
 * The class dimension is unsplit (the softmax runs over it). The labels
 * are split like the batch dimension of the logits. For the reduction
 * "mean" the graph adds sce_count(labels) before the loss: each rank
 * counts the rows of its block whose label is not ignore_index, a scalar
 * of partial sums over the axes that split the labels, which the pass
 * all-reduces (a derived communication, like batch_norm's statistics);
 * the loss reads that count replicated as its third operand and divides
 * by it, so labels stay split and ignore_index needs no gathering. With
 * reduction "none" the per-sample losses [N] are split like the batch;
 * with "mean" or "sum" the scalar output holds partial sums over the
 * batch axes (each rank sums its samples' losses, divided by the global
 * count for the mean), resolved by an AllReduce.
 *
 * With vocab_parallel=1 (Megatron's vocabulary-parallel cross entropy)
 * the graph computes two statistics of each row first: sce_target(logits,
 * labels), the label's logit, taken by the rank whose block of classes
 * holds it (0 on the others), and sce_sumexp(logits, labels, target), the
 * sum of exp(logit - target) over the rank's classes. Both are [N] split
 * like the batch and hold partial sums over the axes that split the
 * classes, which the pass all-reduces (two derived communications of N
 * values). The loss then reads them replicated over the class axes as
 * its last two operands, so its class dimension may be split: its loss
 * of a row is log(sumexp), the same on every rank of the class axes
 * (the output is not partial over them). The shift by the label's logit
 * replaces the all-reduced maximum of Megatron and of MindSpore's slides
 * with a sum, which the layouts express; the sums of exact zeros make the
 * label logit the same bits on every sharding.
 */
#include <string.h>

#include "rules/rule_private.h"

/* The tuple step: "s" is the run, "split" the split counts by input. */
/*
 * Set the device matrix ("batch", "class") of the tuple step "s" of a
 * loss-family operator from the split counts "split" by input: the
 * strategy of the logits (input 0), or without it the batch split of the
 * labels (input 1) or of input "extra" (an [N] operand; -1: none).
 * Return 0 or -1.
 */
int
sym__shard_loss_mesh(struct sym__shard *s, const int64_t *const *split,
    int extra)
{
	int64_t sizes[2] = { 1, 1 };
	const char *names[2] = { "batch", "class" };

	if (split[0]) {
		sizes[0] = split[0][0];
		sizes[1] = split[0][1];
	} else if (split[1]) {
		sizes[0] = split[1][0];
	} else if (extra >= 0 && split[extra]) {
		sizes[0] = split[extra][0];
	}
	return sym__shard_set_mesh(s, 2, sizes, names);
}

int
sym__shard_tuple_sce(struct sym__shard *s, const int64_t *const *split)
{
	if (split[0] && split[1] && split[1][0] != split[0][0])
		return sym__shard_fail(s, 1, 0,
		    "the labels %s are split %lld way%s, but the batch "
		    "dimension of the logits %s %lld way%s: they must be "
		    "equal",
		    sym__shard_in_name(s, 1), (long long)split[1][0],
		    SYM__WAYS(split[1][0]), sym__shard_in_name(s, 0),
		    (long long)split[0][0], SYM__WAYS(split[0][0]));
	if (sym__shard_loss_mesh(s, split, -1) < 0)
		return -1;
	if (sym__shard_map_from(s, 0, split[0], 0) < 0)
		return -1;
	if (sym__shard_map_from(s, 1, split[1], 0) < 0)
		return -1;
	/* the statistics [N] of a class-split loss (sce_sumexp's target,
	 * or the loss's last two operands) go with the batch */
	for (size_t i = s->n_in >= 4 ? s->n_in - 2 : s->n_in; i < s->n_in; i++)
		if (sym__shard_map_from(s, i, split[i], 0) < 0)
			return -1;
	return 0;
}

/* Give input "i" of "s" (an [N] input along the batch: a statistic of a
 * class-split loss, the labels, a dloss) the layout of the batch
 * dimension of the logits when it has none, and check it otherwise; 0 or
 * -1 with an error. */
int
sym__shard_sce_stat(struct sym__shard *s, size_t i)
{
	if (!s->in[i])
		return sym__shard_complete_from(s, i, 0, 0, 1);
	if (sym__shard_same_dim(s->in[i], 0, s->in[0], 0))
		return 0;
	return sym__shard_fail(s, (int)i, 0,
	    "%s is split by %s, but the batch dimension of the logits %s by "
	    "%s: they must be split alike",
	    sym__shard_in_name(s, i), sym__shard_axes_txt(s, s->in[i], 0),
	    sym__shard_in_name(s, 0), sym__shard_axes_txt(s, s->in[0], 0));
}

/* The layout step (see the top of the file); "s" is the run. */
int
sym__shard_infer_sce(struct sym__shard *s)
{
	int none = s->at->loss.reduction == SYM__RED_NONE;
	struct sym__lb b;

	if (!s->in[0] && !s->in[1] && sym__shard_default_replicated(s, 0) < 0)
		return -1;
	if (sym__shard_complete_from(s, 0, 1, 0, 2) < 0 ||
	    sym__shard_complete_from(s, 1, 0, 0, 1) < 0)
		return -1;
	if (s->n_in < 4 &&
	    sym__shard_unsplit(s, 0, 1,
	        "it is the class dimension, which (without vocab_parallel=1)") <
	        0)
		return -1;
	if ((s->n_in == 3 || s->n_in == 5) &&
	    sym__shard_complete_from(s, 2, 0, 0, 0) < 0)
		return -1;
	for (size_t i = s->n_in >= 4 ? s->n_in - 2 : s->n_in; i < s->n_in; i++)
		if (sym__shard_sce_stat(s, i) < 0)
			return -1;
	if (!sym__shard_same_dim(s->in[1], 0, s->in[0], 0))
		return sym__shard_fail(s, 1, 0,
		    "the labels %s are split by %s, but the batch dimension "
		    "of the logits %s by %s: they must be split alike",
		    sym__shard_in_name(s, 1),
		    sym__shard_axes_txt(s, s->in[1], 0),
		    sym__shard_in_name(s, 0),
		    sym__shard_axes_txt(s, s->in[0], 0));
	if (sym__lb_init(s, &b, s->out_shape[0]->rank) < 0)
		return -1;
	if (none)
		sym__lb_copy(&b, 0, s->in[0], 0);
	else
		sym__lb_partial_dim(&b, s->in[0], 0);
	return sym__shard_set_out(s, 0, &b);
}

/* The layout step of sce_count: a scalar of partial sums over the axes
 * that split the labels; "s" is the run. */
int
sym__shard_infer_count(struct sym__shard *s)
{
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__lb_init(s, &b, 0) < 0)
		return -1;
	sym__lb_partial_dim(&b, s->in[0], 0);
	return sym__shard_set_out(s, 0, &b);
}

/* The tuple step of sce_target(logits, labels) and sce_sumexp(logits,
 * labels, target): the device matrix ("batch", "class") of the logits
 * or, without their strategy, of the labels' or the target's batch
 * split; "s" is the run, "split" the split counts by input. */
int
sym__shard_tuple_stat(struct sym__shard *s, const int64_t *const *split)
{
	if (sym__shard_loss_mesh(s, split, s->n_in == 3 ? 2 : -1) < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++)
		if (sym__shard_map_from(s, i, split[i], 0) < 0)
			return -1;
	return 0;
}

/* The layout step of sce_target and sce_sumexp: the labels (and the
 * target) split like the batch dimension of the logits, whose class
 * dimension may be split; the output [N] split like the batch, with
 * partial sums over the axes that split the classes. "s" is the run. */
int
sym__shard_infer_stat(struct sym__shard *s)
{
	size_t from = s->in[0] ? 0 : s->in[1] ? 1 : s->n_in == 3 ? 2 : 0;
	struct sym__lb b;

	if (!s->in[0] && sym__shard_default_replicated(s, from) < 0)
		return -1;
	if (sym__shard_complete_from(s, 0, from, 0, 2) < 0)
		return -1;
	for (size_t i = 1; i < s->n_in; i++)
		if (sym__shard_sce_stat(s, i) < 0)
			return -1;
	if (sym__lb_init(s, &b, 1) < 0)
		return -1;
	sym__lb_copy(&b, 0, s->in[0], 0);
	sym__lb_partial_dim(&b, s->in[0], 1);
	return sym__shard_set_out(s, 0, &b);
}
