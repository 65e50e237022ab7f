/* SPDX-License-Identifier: MIT */
/*
 * The loss family: softmax_cross_entropy with sparse labels (MindSpore's
 * SparseSoftmaxCrossEntropyWithLogits).
 */
#include <string.h>

#include "shape/shape_private.h"

/* The decoder of softmax_cross_entropy and of its gradient sce_grad:
 * the attributes reduction of "inf", "mean" (default), "sum" or "none",
 * and ignore_index (default -100); return 0 or -1. */
int
sym__decode_sce(struct sym__infer *inf)
{
	static const char *const known[] = { "reduction", "ignore_index",
		NULL };
	static const char *const names[] = { [SYM__RED_MEAN] = "mean",
		[SYM__RED_SUM] = "sum",
		[SYM__RED_NONE] = "none" };
	const char *red;
	int r = 0;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_string(inf, "reduction", "mean", &red) < 0 ||
	    sym__attr_int(inf, "ignore_index", 0, -100,
	        &inf->at.loss.ignore_index) < 0)
		return -1;
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

/* The rule of softmax_cross_entropy(logits, labels): floating-point
 * logits [N, C] and integer labels [N] with equal N; the attribute
 * reduction "mean" (default) or "sum" gives a scalar of the logits' dtype,
 * "none" the per-sample losses [N]. A non-negative ignore_index must not
 * be a class: at least C. A third operand, the f64 scalar of sce_count,
 * is the number of rows the mean divides by (the graph adds it). "inf"
 * is the run. */
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
	if (inf->n_in == 3 && sym__sce_check_count(inf, 2) < 0)
		return -1;
	if (inf->at.loss.reduction == SYM__RED_NONE)
		return sym__out_shape(inf, logits->dtype, 1, logits->dim);
	return sym__out_shape(inf, logits->dtype, 0, NULL);
}
