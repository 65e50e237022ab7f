/*
 * The loss family: softmax_cross_entropy with sparse labels (MindSpore's
 * SparseSoftmaxCrossEntropyWithLogits).
 */
#include <string.h>

#include "shape/shape_private.h"

/* The decoder of softmax_cross_entropy: the attribute reduction of
 * "inf", "mean" (default), "sum" or "none"; return 0 or -1. */
int
sym__decode_sce(struct sym__infer *inf)
{
	static const char *const known[] = { "reduction", NULL };
	static const char *const names[] = { [SYM__RED_MEAN] = "mean",
		[SYM__RED_SUM] = "sum",
		[SYM__RED_NONE] = "none" };
	const char *red;
	int r = 0;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_string(inf, "reduction", "mean", &red) < 0)
		return -1;
	while (r < 3 && strcmp(red, names[r]))
		r++;
	if (r == 3)
		return sym__infer_fail_attr(inf, "reduction",
		    "attribute reduction of softmax_cross_entropy must be "
		    "\"mean\", \"sum\" or \"none\", not \"%s\"",
		    red);
	inf->at.loss.reduction = (enum sym__reduction)r;
	return 0;
}

/* The rule of softmax_cross_entropy(logits, labels): floating-point
 * logits [N, C] and integer labels [N] with equal N; the attribute
 * reduction "mean" (default) or "sum" gives a scalar of the logits' dtype,
 * "none" the per-sample losses [N]. "inf" is the run. */
int
sym__rule_sce(struct sym__infer *inf)
{
	const sym_shape *logits = inf->in[0], *labels = inf->in[1];

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
	if (inf->at.loss.reduction == SYM__RED_NONE)
		return sym__out_shape(inf, logits->dtype, 1, logits->dim);
	return sym__out_shape(inf, logits->dtype, 0, NULL);
}
