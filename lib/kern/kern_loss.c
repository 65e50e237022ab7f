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
 *
 * A class-split loss (vocab_parallel) reads two statistics of each row,
 * summed over the blocks of classes by the pass: t = sce_target's, the
 * logit of the label (taken by the rank whose block holds the label's
 * class, 0 elsewhere), and S = sce_sumexp's, the sum over the classes of
 * exp(logit - t). Its loss is log(S) (S >= 1: the label's own term is 1),
 * its gradient exp(logit - t) / S minus the one-hot label on the rank's
 * own classes (at the logits' global offset along dim 1). Shifting by the
 * label's logit rather than the row's maximum needs no max all-reduce; a
 * logit more than about 709 above the label's overflows S, which is an
 * error naming the row (its loss would exceed 709).
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
	int64_t classes = sym__kin_global(a, 0, 1);
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
		if (l[i] < 0 || l[i] >= classes)
			return sym__kfail(a, op,
			    "label %lld of row %lld is out of range [0, %lld) "
			    "and is not ignore_index %lld",
			    (long long)l[i], (long long)i, (long long)classes,
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

/* Check that inputs "i" and "i" + 1 of the call "a" of "op" are the f64
 * statistics [N] of the rows of the logits "x"; return 0 or -1. */
static int
check_stats(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, int i)
{
	for (int k = i; k < i + 2; k++)
		if (a->in[k].dtype != SYM_DT_F64 || a->in[k].rank != 1 ||
		    a->in[k].dim[0] != x->dim[0])
			return sym__kfail(a, op,
			    "operand %d must be the f64 [%lld] %s of the rows",
			    k, (long long)x->dim[0],
			    k == i ? "label logits (sce_target)"
			           : "sums of exponentials (sce_sumexp)");
	return 0;
}

/* Store in "v" the loss of row "i" of a class-split call "a" of "op",
 * log(S) with S its sum of exponentials (the last operand); return 0,
 * or -1 when S overflowed. */
static int
split_row_loss(struct sym__kernel_args *a, const char *op, int64_t i, double *v)
{
	double s = sym__kld(&a->in[a->n_in - 1], i);

	if (isinf(s))
		return sym__kfail(a, op,
		    "row %lld: a logit exceeds the logit of the label by more "
		    "than 709, which overflows the sum of exp(logit - label "
		    "logit) of a class-split loss (vocab_parallel)",
		    (long long)(sym__kin_offset(a, 0, 0) + i));
	/* cppcheck-suppress invalidFunctionArg */
	*v = log(s);
	return 0;
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
int
sym__kern_sce(struct sym__kernel_args *a)
{
	static const char op[] = "softmax_cross_entropy";
	const struct sym__tensor *x = &a->in[0];
	struct sym__tensor *y = &a->out[0];
	enum sym__reduction red;
	struct rows r;
	double sum = 0.0;
	int64_t c;

	if (sym__kio(a, op, 2, 5, 1, 1) < 0 || !sym__kat(a, op))
		return -1;
	red = a->at->loss.reduction;
	if (check_out(a, x, y, red) < 0 ||
	    rows_of(a, op, x, &a->in[1], red,
	        a->n_in == 3 || a->n_in == 5 ? &a->in[2] : NULL, &r) < 0 ||
	    (a->n_in >= 4 && check_stats(a, op, x, a->n_in - 2) < 0))
		return -1;
	c = x->dim[1];
	for (int64_t i = 0; i < x->dim[0]; i++) {
		double v = 0.0;

		if (r.lab[i] != r.ignore && a->n_in >= 4) {
			if (split_row_loss(a, op, i, &v) < 0)
				return -1;
		} else if (r.lab[i] != r.ignore) {
			v = log_sum_exp(x, i, c) -
			    sym__kld(x, i * c + r.lab[i]);
		}
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

/* Return the dloss of row "i" of the call "a" of sce_grad for the
 * reduction "red" and the rows "r": dloss (input 2, its element "i" for
 * "none") over the divisor, 0 without divisor or for an ignored row. */
static double
row_dloss(const struct sym__kernel_args *a, enum sym__reduction red,
    const struct rows *r, int64_t i)
{
	double g = sym__kld(&a->in[2], red == SYM__RED_NONE ? i : 0);

	g = r->divisor > 0 ? g / r->divisor : 0.0;
	if (r->lab[i] == r->ignore)
		g = 0.0;
	return g;
}

/* Store row "i" of the gradient of the call "a" of sce_grad for the
 * logits "x", whose classes start at "c0" globally, the row's dloss "g"
 * and label "lab": (exp(logit - "m") / "s" minus the one-hot label) times
 * "g", 0 everywhere when "g" is 0. */
static void
grad_row(struct sym__kernel_args *a, const struct sym__tensor *x, int64_t i,
    double g, double m, double s, int64_t c0, int64_t lab)
{
	int64_t c = x->dim[1];

	for (int64_t j = 0; j < c; j++)
		sym__kstore(&a->out[0], i * c + j,
		    g != 0.0 ? (exp(sym__kld(x, i * c + j) - m) / s -
		                   (c0 + j == lab)) *
		            g
		             : 0.0);
}

/* The gradient of a class-split sce_grad call "a" (its statistics the
 * last two operands) for the logits "x", the reduction "red" and the rows
 * "r": exp(logit - target) / sumexp minus the one-hot label, on the
 * rank's classes, times the row's dloss; return 0 or -1. */
static int
split_grad(struct sym__kernel_args *a, const struct sym__tensor *x,
    enum sym__reduction red, const struct rows *r)
{
	const struct sym__tensor *t = &a->in[a->n_in - 2];
	const struct sym__tensor *s = &a->in[a->n_in - 1];
	int64_t c0 = sym__kin_offset(a, 0, 1);

	if (check_stats(a, "sce_grad", x, a->n_in - 2) < 0)
		return -1;
	for (int64_t i = 0; i < x->dim[0]; i++)
		grad_row(a, x, i, row_dloss(a, red, r, i), sym__kld(t, i),
		    sym__kld(s, i), c0, r->lab[i]);
	return 0;
}

/* The kernel of sce_grad(logits [N, C], labels, dloss): row i of the
 * gradient is (softmax(logits_i) - onehot(label_i)) times dloss_i for
 * reduction "none", dloss for "sum", dloss over the rows that count for
 * "mean"; 0 for an ignored row. "a" is the call. */
int
sym__kern_sce_grad(struct sym__kernel_args *a)
{
	static const char op[] = "sce_grad";
	const struct sym__tensor *x = &a->in[0];
	enum sym__reduction red;
	struct rows r;
	int64_t c;

	if (sym__kio(a, op, 3, 6, 1, 1) < 0 || !sym__kat(a, op))
		return -1;
	red = a->at->loss.reduction;
	if (check_grad(a, red) < 0 ||
	    rows_of(a, op, x, &a->in[1], red,
	        a->n_in == 4 || a->n_in == 6 ? &a->in[3] : NULL, &r) < 0)
		return -1;
	if (a->n_in >= 5)
		return split_grad(a, x, red, &r);
	c = x->dim[1];
	for (int64_t i = 0; i < x->dim[0]; i++) {
		double g = row_dloss(a, red, &r, i);

		grad_row(a, x, i, g, g != 0.0 ? log_sum_exp(x, i, c) : 0.0, 1.0,
		    0, r.lab[i]);
	}
	return 0;
}

/* The kernel of sce_count(labels [N]): the number of labels that are not
 * ignore_index, as an f64 scalar; "a" is the call. */
int
sym__kern_sce_count(struct sym__kernel_args *a)
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

/* Check the logits and the labels of the call "a" of the class-split
 * statistic "op" and its f64 [N] output, and fill "r" with the rows;
 * return 0 or -1. */
static int
stat_rows(struct sym__kernel_args *a, const char *op, struct rows *r)
{
	const struct sym__tensor *x = &a->in[0];

	if (!sym__kat(a, op))
		return -1;
	if (x->rank != 2 || a->in[1].rank != 1)
		return sym__kfail(a, op,
		    "the logits must be [N, C] and the labels [N]");
	if (sym__kfloat(a, op, x, "the logits") < 0 ||
	    sym__kindices(a, op, &a->in[1], "the labels") < 0)
		return -1;
	if (a->out[0].dtype != SYM_DT_F64 || a->out[0].rank != 1 ||
	    a->out[0].dim[0] != x->dim[0])
		return sym__kfail(a, op, "the output must be f64 [%lld]",
		    (long long)x->dim[0]);
	return rows_of(a, op, x, &a->in[1], SYM__RED_NONE, NULL, r);
}

/* The kernel of sce_target(logits [N, C], labels [N]): the logit of each
 * row's label where the rank's block of classes (at the logits' global
 * offset along dim 1) holds it, else 0 (and 0 for an ignored row), as
 * f64 [N]; "a" is the call. */
int
sym__kern_sce_target(struct sym__kernel_args *a)
{
	static const char op[] = "sce_target";
	const struct sym__tensor *x = &a->in[0];
	int64_t c, c0 = sym__kin_offset(a, 0, 1);
	struct rows r;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 || stat_rows(a, op, &r) < 0)
		return -1;
	c = x->dim[1];
	for (int64_t i = 0; i < x->dim[0]; i++) {
		int64_t l = r.lab[i];

		sym__kstore(&a->out[0], i,
		    l != r.ignore && l >= c0 && l < c0 + c
		        ? sym__kld(x, i * c + (l - c0))
		        : 0.0);
	}
	return 0;
}

/* The kernel of sce_sumexp(logits [N, C], labels [N], target f64 [N]):
 * the sum over the rank's classes of exp(logit - target) for each row (0
 * for an ignored row), as f64 [N]; "a" is the call. */
int
sym__kern_sce_sumexp(struct sym__kernel_args *a)
{
	static const char op[] = "sce_sumexp";
	const struct sym__tensor *x = &a->in[0], *t = &a->in[2];
	struct rows r;
	int64_t c;

	if (sym__kio(a, op, 3, 3, 1, 1) < 0 || stat_rows(a, op, &r) < 0)
		return -1;
	if (t->dtype != SYM_DT_F64 || t->rank != 1 || t->dim[0] != x->dim[0])
		return sym__kfail(a, op,
		    "the target must be the f64 [%lld] of sce_target",
		    (long long)x->dim[0]);
	c = x->dim[1];
	for (int64_t i = 0; i < x->dim[0]; i++) {
		double s = 0.0, ti = sym__kld(t, i);

		for (int64_t j = 0; j < c && r.lab[i] != r.ignore; j++)
			s += exp(sym__kld(x, i * c + j) - ti);
		sym__kstore(&a->out[0], i, s);
	}
	return 0;
}
