/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the loss family: softmax_cross_entropy(logits [N, C], labels
 * [N]) with sparse integer labels, and its gradient sce_grad(logits,
 * labels, dloss). The loss of a row is log(sum_c exp(x_c)) - x_label,
 * computed in double after subtracting the row's maximum.
 *
 * A row whose label equals the decoded ignore_index (default -100, as
 * PyTorch) counts for nothing: its loss (reduction "none") and its
 * gradient are 0. Any other label outside [0, C) is an error. The
 * reduction "sum" adds the losses; "mean" divides that sum by the number
 * of rows that count -- 0 when none does (PyTorch gives NaN; 0 with a
 * zero gradient suits batches of padding).
 *
 * A mean the graph wrote divides by the count of sce_count(labels), the
 * f64 scalar of the rows whose label is not ignore_index over the whole
 * batch (each rank counts its block, the pass all-reduces), given as the
 * last operand of softmax_cross_entropy and sce_grad. Without it (an
 * operator called directly) the labels are either the rows' own [N] or
 * the whole batch's, whose rows of this rank are those at the logits'
 * global offset along dim 0 (args->offset); with the rows' own labels of
 * a block of the batch (args->normalizer, the global batch, larger than
 * N), "mean" divides by the global batch and refuses an ignored row (it
 * cannot count the other blocks' rows).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern_private.h"

/* The rows of a call: their labels, the label that ignores a row, and
 * what the reduction divides by. */
struct rows {
	const int32_t *lab;
	int64_t ignore;
	double divisor;
};

/*
 * Check the logits "x" and the labels "lab" of the call "a" of "op" and
 * fill "r": the labels of the rows, the label that ignores a row, and
 * the divisor of the reduction "red", the count "cnt" when not NULL.
 * Return 0 or -1.
 */
static int
rows_of(struct sym__kernel_args *a, const char *op, const struct sym__tensor *x,
    const struct sym__tensor *lab, enum sym__reduction red,
    const struct sym__tensor *cnt, struct rows *r)
{
	const int32_t *l = lab->data;
	int64_t n = x->dim[0], glob = sym__kin_global(a, 0, 0);
	int64_t row0 = sym__kin_offset(a, 0, 0), off = row0, ignored = 0;
	int64_t counted = 0;
	int64_t ii = a->at->loss.ignore_index;

	if (x->rank != 2 || lab->rank != 1)
		return sym__kfail(a, op,
		    "the logits must be [N, C] and the labels [N]");
	if (lab->dim[0] == n)
		off = 0;
	else if (lab->dim[0] != glob || off < 0 || off > glob - n)
		return sym__kfail(a, op,
		    "the logits must be [N, C] and the labels [N] (or the "
		    "whole batch's [%lld] for rows %lld to %lld)",
		    (long long)glob, (long long)off, (long long)(off + n));
	for (int64_t i = 0; i < lab->dim[0]; i++) {
		if (l[i] == ii) {
			ignored += i >= off && i < off + n;
			continue;
		}
		if (l[i] < 0 || l[i] >= x->dim[1])
			return sym__kfail(a, op,
			    "label %lld of row %lld is out of range [0, %lld) "
			    "and is not ignore_index %lld",
			    (long long)l[i], (long long)i, (long long)x->dim[1],
			    (long long)ii);
		counted++;
	}
	r->lab = l + off;
	r->ignore = ii;
	r->divisor = 1.0;
	if (red != SYM__RED_MEAN)
		return 0;
	if (cnt) {
		if (cnt->rank != 0 || cnt->dtype != SYM_DT_F64 ||
		    lab->dim[0] != n)
			return sym__kfail(a, op,
			    "the count must be an f64 scalar and the labels "
			    "the rows' own [%lld]",
			    (long long)n);
		r->divisor = sym__kld(cnt, 0);
		if (!(r->divisor >= 0))
			return sym__kfail(a, op,
			    "the count of the rows that count is %g",
			    r->divisor);
		return 0;
	}
	if (lab->dim[0] == glob &&
	    (a->normalizer <= 0 || a->normalizer == glob)) {
		r->divisor = (double)counted;
		return 0;
	}
	if (ignored)
		return sym__kfail(a, op,
		    "a row of the block of the batch from row %lld has the "
		    "label ignore_index %lld, but the labels are not the "
		    "whole batch's, so the mean cannot count the rows of the "
		    "other blocks: write ignore_index=%lld in the graph, "
		    "which counts them over the whole batch (sce_count)",
		    (long long)row0, (long long)ii, (long long)ii);
	r->divisor = (double)a->normalizer;
	return 0;
}

/* Return the log-sum-exp of row "i" of the logits "x" ("c" classes), in
 * double. */
static double
log_sum_exp(const struct sym__tensor *x, int64_t i, int64_t c)
{
	double m = -INFINITY, s = 0.0;

	for (int64_t j = 0; j < c; j++)
		m = fmax(m, sym__kld(x, i * c + j));
	for (int64_t j = 0; j < c; j++)
		s += exp(sym__kld(x, i * c + j) - m);
	/* s >= 1 (the largest term is 1) unless a logit is NaN, which must
	 * reach the loss: no clamp. */
	/* cppcheck-suppress invalidFunctionArg */
	return log(s) + m;
}

/* Check the output "y" of the call "a" of softmax_cross_entropy for the
 * logits "x" and reduction "red"; return 0 or -1. */
static int
check_out(struct sym__kernel_args *a, const struct sym__tensor *x,
    const struct sym__tensor *y, enum sym__reduction red)
{
	static const char op[] = "softmax_cross_entropy";
	int none = red == SYM__RED_NONE;

	if (x->rank != 2 || a->in[1].rank != 1)
		return sym__kfail(a, op,
		    "the logits must be [N, C] and the labels [N]");
	if (sym__kfloat(a, op, x, "the logits") < 0 ||
	    sym__kindices(a, op, &a->in[1], "the labels") < 0 ||
	    sym__ksame_kst(a, op, x, "the logits", y, "the output") < 0)
		return -1;
	if (y->rank != none || (none && y->dim[0] != x->dim[0]))
		return sym__kfail(a, op, "the output must be %s",
		    none ? "[N]" : "a scalar");
	return 0;
}

/* The kernel of softmax_cross_entropy; "a" is the call. */
static int
k_sce(struct sym__kernel_args *a)
{
	static const char op[] = "softmax_cross_entropy";
	const struct sym__tensor *x = &a->in[0];
	struct sym__tensor *y = &a->out[0];
	enum sym__reduction red;
	struct rows r;
	double sum = 0.0;
	int64_t c;

	if (sym__kio(a, op, 2, 3, 1, 1) < 0 || !sym__kat(a, op))
		return -1;
	red = a->at->loss.reduction;
	if (check_out(a, x, y, red) < 0 ||
	    rows_of(a, op, x, &a->in[1], red, a->n_in == 3 ? &a->in[2] : NULL,
	        &r) < 0)
		return -1;
	c = x->dim[1];
	for (int64_t i = 0; i < x->dim[0]; i++) {
		double v = 0.0;

		if (r.lab[i] != r.ignore)
			v = log_sum_exp(x, i, c) -
			    sym__kld(x, i * c + r.lab[i]);
		if (red == SYM__RED_NONE)
			sym__kstore(y, i, v);
		sum += v;
	}
	if (red != SYM__RED_NONE)
		sym__kstore(y, 0, r.divisor > 0 ? sum / r.divisor : 0.0);
	return 0;
}

/* Check the tensors of the call "a" of sce_grad for the reduction
 * "red"; return 0 or -1. */
static int
check_grad(struct sym__kernel_args *a, enum sym__reduction red)
{
	static const char op[] = "sce_grad";
	const struct sym__tensor *x = &a->in[0], *dl = &a->in[2];
	int none = red == SYM__RED_NONE;

	if (x->rank != 2 || a->in[1].rank != 1)
		return sym__kfail(a, op,
		    "the logits must be [N, C] and the labels [N]");
	if (sym__kfloat(a, op, x, "the logits") < 0 ||
	    sym__ksame_kst(a, op, x, "the logits", dl, "dloss") < 0 ||
	    sym__ksame_kst(a, op, x, "the logits", &a->out[0], "the output") <
	        0 ||
	    sym__kindices(a, op, &a->in[1], "the labels") < 0 ||
	    sym__ksame_dims(a, op, x, "the logits", &a->out[0], "the output") <
	        0)
		return -1;
	if (dl->rank != none || (none && dl->dim[0] != x->dim[0]))
		return sym__kfail(a, op, "dloss must be %s",
		    none ? "[N]" : "a scalar");
	return 0;
}

/* The kernel of sce_grad(logits [N, C], labels, dloss): row i of the
 * gradient is (softmax(logits_i) - onehot(label_i)) times dloss_i for
 * reduction "none", dloss for "sum", dloss over the rows that count for
 * "mean"; 0 for an ignored row. "a" is the call. */
int
sym__k_sce_grad(struct sym__kernel_args *a)
{
	static const char op[] = "sce_grad";
	const struct sym__tensor *x = &a->in[0];
	enum sym__reduction red;
	struct rows r;
	int64_t c;

	if (sym__kio(a, op, 3, 4, 1, 1) < 0 || !sym__kat(a, op))
		return -1;
	red = a->at->loss.reduction;
	if (check_grad(a, red) < 0 ||
	    rows_of(a, op, x, &a->in[1], red, a->n_in == 4 ? &a->in[3] : NULL,
	        &r) < 0)
		return -1;
	c = x->dim[1];
	for (int64_t i = 0; i < x->dim[0]; i++) {
		double g = sym__kld(&a->in[2], red == SYM__RED_NONE ? i : 0),
		       lse;

		g = r.divisor > 0 ? g / r.divisor : 0.0;
		if (r.lab[i] == r.ignore)
			g = 0.0;
		lse = g != 0.0 ? log_sum_exp(x, i, c) : 0.0;
		for (int64_t j = 0; j < c; j++)
			sym__kstore(&a->out[0], i * c + j,
			    g != 0.0 ? (exp(sym__kld(x, i * c + j) - lse) -
			                   (j == r.lab[i])) *
			            g
			             : 0.0);
	}
	return 0;
}

/* The kernel of sce_count(labels [N]): the number of labels that are not
 * ignore_index, as an f64 scalar; "a" is the call. */
static int
k_sce_count(struct sym__kernel_args *a)
{
	static const char op[] = "sce_count";
	const struct sym__tensor *lab = &a->in[0];
	const int32_t *l;
	int64_t counted = 0;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !sym__kat(a, op) ||
	    sym__kindices(a, op, lab, "the labels") < 0)
		return -1;
	if (lab->rank != 1 || a->out[0].rank != 0 ||
	    a->out[0].dtype != SYM_DT_F64)
		return sym__kfail(a, op,
		    "the labels must be [N] and the output an f64 scalar");
	l = lab->data;
	for (int64_t i = 0; i < lab->dim[0]; i++)
		counted += l[i] != a->at->loss.ignore_index;
	sym__kstore(&a->out[0], 0, (double)counted);
	return 0;
}

const sym__kernel_fn sym__kernels_loss[SYM__N_OPS] = {
	[SYM__OP_SOFTMAX_CROSS_ENTROPY] = k_sce,
	[SYM__OP_SCE_COUNT] = k_sce_count,
};
