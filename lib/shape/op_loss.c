/* SPDX-License-Identifier: MIT */
/*
 * The loss family: softmax_cross_entropy with sparse labels (MindSpore's
 * SparseSoftmaxCrossEntropyWithLogits).
 */
#include <string.h>

#include "shape/shape_private.h"

/* The decoder of softmax_cross_entropy and of its gradient sce_grad:
 * the attributes reduction of "inf", "mean" (default), "sum" or "none",
 * ignore_index (default -100) and vocab_parallel (0 or 1, read by the
 * graph, which then adds the statistics sce_target and sce_sumexp);
 * return 0 or -1. */
int
sym__decode_sce(struct sym__infer *inf)
{
	static const char *const known[] = { "reduction", "ignore_index",
		"vocab_parallel", NULL };
	static const char *const names[] = { [SYM__RED_MEAN] = "mean",
		[SYM__RED_SUM] = "sum",
		[SYM__RED_NONE] = "none" };
	const char *red;
	int64_t vp;
	int r = 0;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_string(inf, "reduction", "mean", &red) < 0 ||
	    sym__attr_int(inf, "ignore_index", 0, -100,
	        &inf->at.loss.ignore_index) < 0 ||
	    sym__attr_int(inf, "vocab_parallel", 0, 0, &vp) < 0)
		return -1;
	if (vp != 0 && vp != 1)
		return sym__infer_fail_attr(inf, "vocab_parallel",
		    "attribute vocab_parallel of %s must be 0 or 1, not %lld",
		    inf->op->name, (long long)vp);
	while (r < 3 && strcmp(red, names[r]))
		r++;
	if (r == 3)
		return sym__infer_fail_attr(inf, "reduction",
		    "attribute reduction of %s must be \"mean\", \"sum\" or "
		    "\"none\", not \"%s\"",
		    inf->op->name, red);
	inf->at.loss.reduction = (enum sym__reduction)r;
	inf->at.loss.ignore_set =
	    sym__attrs_find(inf->attrs, "ignore_index") != NULL;
	return 0;
}

/* Check that input "i" of "inf" is the f64 scalar count of the rows that
 * count, which sce_count computes; return 0 or -1. */
int
sym__sce_check_count(struct sym__infer *inf, size_t i)
{
	const sym_shape *c = inf->in[i];

	if (c->dtype != SYM_DT_F64 || c->rank != 0)
		return sym__infer_fail(inf, (int)i,
		    "operand %s of %s must be the f64 scalar count of the "
		    "rows that count, which sce_count computes, but it is "
		    "%s%s",
		    sym__in_name(inf, i), inf->op->name,
		    sym_dtype_name(c->dtype), sym__txt_dims(inf, c));
	return 0;
}

/* The rule of sce_count(labels) -> f64 scalar, the number of labels that
 * are not ignore_index: integer labels [N]; "inf" is the run. */
int
sym__rule_sce_count(struct sym__infer *inf)
{
	if (sym__rank_is(inf, 0, 1) < 0 ||
	    sym__dtype_integer(inf, 0, "labels") < 0)
		return -1;
	return sym__out_shape(inf, SYM_DT_F64, 0, NULL);
}

/* Check that inputs "i" and "i" + 1 of "inf" are the f64 statistics
 * [N] of a class-split softmax_cross_entropy, sce_target's and
 * sce_sumexp's, for the N rows of the logits (input 0); 0 or -1. */
int
sym__sce_check_stats(struct sym__infer *inf, size_t i)
{
	for (size_t k = i; k < i + 2; k++) {
		const sym_shape *c = inf->in[k];

		if (c->dtype != SYM_DT_F64 || c->rank != 1)
			return sym__infer_fail(inf, (int)k,
			    "operand %s of %s must be the f64 [N] %s of the "
			    "rows, which %s computes, but it is %s%s",
			    sym__in_name(inf, k), inf->op->name,
			    k == i ? "label logit" : "sum of exponentials",
			    k == i ? "sce_target" : "sce_sumexp",
			    sym_dtype_name(c->dtype), sym__txt_dims(inf, c));
		if (sym__require_dims_equal(inf, k, 0, 0, 0) < 0)
			return -1;
	}
	return 0;
}

/* Check the logits [N, C] (input 0) and the labels [N] (input 1) of "inf"
 * and their common N; 0 or -1. */
static int
logits_labels(struct sym__infer *inf)
{
	const sym_shape *logits = inf->in[0], *labels = inf->in[1];

	if (sym__rank_is(inf, 0, 2) < 0 || sym__dtype_float(inf, 0) < 0 ||
	    sym__rank_is(inf, 1, 1) < 0 ||
	    sym__dtype_integer(inf, 1, "labels") < 0)
		return -1;
	return sym__require_equal(inf, labels->dim[0], logits->dim[0],
	    "dimension 0 of labels %s (%s) must equal dimension 0 of "
	    "logits %s (%s)",
	    sym__in_name(inf, 1), sym__txt_expr(inf, labels->dim[0]),
	    sym__in_name(inf, 0), sym__txt_expr(inf, logits->dim[0]));
}

/* The rule of sce_target(logits [N, C], labels [N]) -> f64 [N], the
 * logit of each row's label (0 for an ignored row); "inf" is the run. */
int
sym__rule_sce_target(struct sym__infer *inf)
{
	if (logits_labels(inf) < 0)
		return -1;
	return sym__out_shape(inf, SYM_DT_F64, 1, inf->in[0]->dim);
}

/* The rule of sce_sumexp(logits [N, C], labels [N], target f64 [N]) ->
 * f64 [N], the sum over the classes of exp(logit - target) (0 for an
 * ignored row); "inf" is the run. */
int
sym__rule_sce_sumexp(struct sym__infer *inf)
{
	const sym_shape *t = inf->in[2];

	if (logits_labels(inf) < 0)
		return -1;
	if (t->dtype != SYM_DT_F64 || t->rank != 1)
		return sym__infer_fail(inf, 2,
		    "operand %s of sce_sumexp must be the f64 [N] label "
		    "logits of sce_target, but it is %s%s",
		    sym__in_name(inf, 2), sym_dtype_name(t->dtype),
		    sym__txt_dims(inf, t));
	if (sym__require_dims_equal(inf, 2, 0, 0, 0) < 0)
		return -1;
	return sym__out_shape(inf, SYM_DT_F64, 1, inf->in[0]->dim);
}

/* The rule of softmax_cross_entropy(logits, labels): floating-point
 * logits [N, C] and integer labels [N] with equal N; the attribute
 * reduction "mean" (default) or "sum" gives a scalar of the logits' dtype,
 * "none" the per-sample losses [N]. A non-negative ignore_index must not
 * be a class: at least C. A third operand, the f64 scalar of sce_count,
 * is the number of rows the mean divides by (the graph adds it); the
 * last two of four or five, sce_target's and sce_sumexp's [N], are the
 * statistics of a class-split loss (vocab_parallel). "inf" is the
 * run. */
int
sym__rule_sce(struct sym__infer *inf)
{
	const sym_shape *logits = inf->in[0], *labels = inf->in[1];
	int64_t ii = inf->at.loss.ignore_index;

	if (sym__rank_is(inf, 0, 2) < 0 || sym__dtype_float(inf, 0) < 0 ||
	    sym__rank_is(inf, 1, 1) < 0 ||
	    sym__dtype_integer(inf, 1, "labels") < 0)
		return -1;
	if (sym__require_equal(inf, labels->dim[0], logits->dim[0],
	        "dimension 0 of labels %s (%s) must equal dimension 0 of "
	        "logits %s (%s)",
	        sym__in_name(inf, 1), sym__txt_expr(inf, labels->dim[0]),
	        sym__in_name(inf, 0), sym__txt_expr(inf, logits->dim[0])) < 0)
		return -1;
	if (ii >= 0 &&
	    sym__require_ge(inf, sym__tmp(inf, sym__const(inf->ctx, ii)),
	        logits->dim[1],
	        "ignore_index=%lld of %s is a class of the logits %s (%s "
	        "classes): it must be negative or at least the number of "
	        "classes",
	        (long long)ii, inf->op->name, sym__in_name(inf, 0),
	        sym__txt_expr(inf, logits->dim[1])) < 0)
		return -1;
	if ((inf->n_in == 3 || inf->n_in == 5) &&
	    sym__sce_check_count(inf, 2) < 0)
		return -1;
	if (inf->n_in >= 4 && sym__sce_check_stats(inf, inf->n_in - 2) < 0)
		return -1;
	if (inf->at.loss.reduction == SYM__RED_NONE)
		return sym__out_shape(inf, logits->dtype, 1, logits->dim);
	return sym__out_shape(inf, logits->dtype, 0, NULL);
}
