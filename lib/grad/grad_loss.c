/* SPDX-License-Identifier: MIT */
/*
 * Gradient rule of the loss family: softmax_cross_entropy with sparse
 * labels differentiates to sce_grad(logits, labels, dloss[, count]),
 * which for a mean divides by the count of the rows that count
 * (sce_count's, which the graph adds before a mean) or else by the
 * global batch (its normaliser); the labels are integers and get no
 * gradient. A class-split loss (vocab_parallel) passes on its statistics,
 * sce_target's and sce_sumexp's, as the last two operands: the gradient
 * of each rank's classes is then exp(logit - target) / sumexp minus the
 * one-hot label, with no communication of its own.
 */
#include "grad/grad_private.h"

/* The rule of softmax_cross_entropy; "gr", "n", "dy" as for every rule
 * (grad_private.h). */
int
sym__grad_sce(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[6] = { n->in[0], n->in[1], dy[0] };
	int mirror[6] = { SYM__MIRROR_IN(0), SYM__MIRROR_IN(1),
		SYM__MIRROR_OUT(0) };
	size_t k = 3;

	if (!sym__gtarget(gr, 0))
		return 0;
	/* the operands after the labels: [count][, target, sumexp] */
	for (size_t i = 2; i < n->n_in; i++) {
		mirror[k] = SYM__MIRROR_IN((int)i);
		in[k++] = n->in[i];
	}
	return sym__gemit_to(gr, 0, 1, "sce_grad", k, in, n->attrs, mirror);
}
