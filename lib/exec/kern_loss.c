/*
 * Kernel of the loss family: softmax_cross_entropy(logits [N, C], labels
 * [N]) with sparse integer labels. The loss of a row is
 * log(sum_c exp(x_c)) - x_label, computed in double after subtracting
 * the row's maximum; a label outside [0, C) is an error. The attribute
 * reduction "none" gives the N losses; "sum" their sum; "mean" (the
 * default) their sum divided by args->normalizer when it is positive (the
 * global batch, so that the ranks' partial means add up), otherwise by
 * the local N.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/kern_private.h"

/*
 * SCE_ROWS(name, T, EXP): the function name(x, lab, n, c, loss) storing
 * in loss[i] (doubles) the cross-entropy of each of the "n" rows of "c"
 * logits of type T against its label, EXP the exponential of T.
 */
#define SCE_ROWS(name, T, EXP)                                             \
	static void name(const T *restrict x, const int32_t *restrict lab, \
	    int64_t n, int64_t c, double *restrict loss)                   \
	{                                                                  \
		for (int64_t i = 0; i < n; i++, x += c) {                  \
			T m = -INFINITY;                                   \
			double s = 0.0;                                    \
                                                                           \
			for (int64_t j = 0; j < c; j++)                    \
				m = x[j] > m ? x[j] : m;                   \
			for (int64_t j = 0; j < c; j++)                    \
				s += EXP(x[j] - m);                        \
			loss[i] = log(s) + (double)m - (double)x[lab[i]];  \
		}                                                          \
	}

SCE_ROWS(sce_f32, float, expf)
SCE_ROWS(sce_f64, double, exp)

/* Store "v" as element "i" of "y" (storage "k", f32 or f64). */
static void
put(void *y, enum sym__kst k, int64_t i, double v)
{
	if (k == SYM__KST_F32)
		((float *)y)[i] = (float)v;
	else
		((double *)y)[i] = v;
}

/* Check the tensors of the call "a" for the reduction "red"; return 0 or
 * -1. */
static int
check(struct sym__kernel_args *a, enum sym__reduction red)
{
	static const char op[] = "softmax_cross_entropy";
	const struct sym__tensor *x = &a->in[0], *lab = &a->in[1];
	const struct sym__tensor *y = &a->out[0];
	int none = red == SYM__RED_NONE;

	if (x->rank != 2 || lab->rank != 1 || lab->dim[0] != x->dim[0])
		return sym__kfail(a, op,
		    "the logits must be [N, C] and the labels [N]");
	if (sym__kfloat(a, op, x, "the logits") < 0 ||
	    sym__kindices(a, op, lab, "the labels") < 0 ||
	    sym__ksame_kst(a, op, x, "the logits", y, "the output") < 0)
		return -1;
	if (y->rank != none || (none && y->dim[0] != x->dim[0]))
		return sym__kfail(a, op, "the output must be %s",
		    none ? "[N]" : "a scalar");
	for (int64_t i = 0; i < lab->dim[0]; i++) {
		int32_t l = ((const int32_t *)lab->data)[i];

		if (l < 0 || l >= x->dim[1])
			return sym__kfail(a, op,
			    "label %lld of row %lld is out of range [0, %lld)",
			    (long long)l, (long long)i, (long long)x->dim[1]);
	}
	return 0;
}

/* The kernel of softmax_cross_entropy; "a" is the call. */
static int
k_sce(struct sym__kernel_args *a)
{
	static const char op[] = "softmax_cross_entropy";
	const struct sym__tensor *x;
	enum sym__kst k;
	enum sym__reduction red;
	double *loss, sum = 0.0;
	int64_t n;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0 || !sym__kat(a, op))
		return -1;
	red = a->at->loss.reduction;
	if (check(a, red) < 0)
		return -1;
	x = &a->in[0];
	n = x->dim[0];
	k = sym__kst(x->dtype);
	loss = sym__kscratch_get(a, (size_t)n * sizeof(*loss));
	if (!loss)
		return sym__kfail(a, op, "out of memory");
	if (k == SYM__KST_F32)
		sce_f32(x->data, a->in[1].data, n, x->dim[1], loss);
	else
		sce_f64(x->data, a->in[1].data, n, x->dim[1], loss);
	if (red == SYM__RED_NONE) {
		for (int64_t i = 0; i < n; i++)
			put(a->out[0].data, k, i, loss[i]);
	} else {
		for (int64_t i = 0; i < n; i++)
			sum += loss[i];
		if (red == SYM__RED_MEAN)
			sum /= (double)(a->normalizer > 0 ? a->normalizer : n);
		put(a->out[0].data, k, 0, sum);
	}
	sym__kscratch_done(a, loss);
	return 0;
}

const sym__kernel_fn sym__kernels_loss[SYM__N_OPS] = {
	[SYM__OP_SOFTMAX_CROSS_ENTROPY] = k_sce,
};
