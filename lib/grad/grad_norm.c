/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the normalisation family, each one operator of the
 * grad family that takes the forward node's attributes unchanged:
 *
 *	softmax:	dx = softmax_grad(dy, y)
 *	log_softmax:	dx = log_softmax_grad(dy, y)
 *	layer_norm:	dx, dgamma, dbeta = layer_norm_grad(dy, x, gamma)
 *
 * (y the forward output); beta's gradient is dbeta. The mean and the
 * variance that layer_norm produces when three outputs are named carry
 * no gradient of their own: a loss that depends on them is an error
 * naming the operand.
 */
#include "grad/grad_private.h"

/* The rule of softmax and log_softmax: their gradient operator
 * (softmax_grad, log_softmax_grad) on dy and y with the forward node's
 * attributes, as the gradient of input 0 of "n"; 0 or -1. */
int
sym__grad_softmax(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	char op[64];
	sym_value *in[2] = { dy[0], n->out[0] };
	int mirror[2] = { SYM__MIRROR_OUT(0), SYM__MIRROR_OUT(0) };

	return sym__gemit_to(gr, 0, 1, sym__ggrad_op(n, op, sizeof(op)), 2, in,
	    n->attrs, mirror);
}

/* The rule of layer_norm(x, gamma, beta): one layer_norm_grad whose
 * outputs are named after the targets of x, gamma and beta (an
 * intermediate name where none is needed). */
int
sym__grad_layer_norm(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[3] = { dy[0], n->in[0], n->in[1] }, *out[3];
	int mirror[3] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN(0),
		SYM__MIRROR_IN(1) };
	const char *names[3];
	int stats = !dy[0];
	size_t first = 0;

	for (size_t k = 1; k < n->n_out; k++)
		stats |= dy[k] != NULL;
	if (stats) {
		while (first + 1 < n->n_in && !sym__gtarget(gr, first))
			first++;
		return sym__gnone(gr, first,
		    "the gradient through the mean and the variance of "
		    "layer_norm is not supported");
	}
	for (size_t i = 0; i < 3; i++)
		names[i] = sym__gtarget(gr, i);
	return sym__gemit_n(gr, 1, "layer_norm_grad", 3, in, n->attrs, 3, names,
	    mirror, out);
}

/*
 * The rule of batch_norm(x, gamma, beta, running_mean, running_var,
 * stats):
 *
 *	dgamma, dbeta = batch_norm_grad_params(dy, x, stats, rm, rv)
 *	dx = batch_norm_grad(dy, x, stats, rm, rv, gamma, dgamma, dbeta)
 *
 * dgamma and dbeta are sums over the batch, partial sums where it is
 * split, which the pass all-reduces before batch_norm_grad reads them.
 * The statistics carry no gradient of their own (grad.c does not make
 * them active): batch_norm_grad differentiates through them. The running
 * statistics get none: a trained param there is an error.
 */
int
sym__grad_batch_norm(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[8] = { dy[0], n->in[0], n->in[5], n->in[3], n->in[4],
		n->in[1], NULL, NULL };
	sym_value *out[2];
	int mirror[8] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN(0),
		SYM__MIRROR_IN(5), SYM__MIRROR_IN(3), SYM__MIRROR_IN(4),
		SYM__MIRROR_IN(1), SYM__MIRROR_IN(1), SYM__MIRROR_IN(2) };
	const char *names[2] = { sym__gtarget(gr, 1), sym__gtarget(gr, 2) };

	if (n->n_in != 6 || !dy[0])
		return sym__gnone(gr, 0,
		    "batch_norm needs its statistics operand (the graph adds "
		    "it)");
	for (size_t i = 3; i < 5; i++)
		if (sym__gtarget(gr, i))
			return sym__gnone(gr, i,
			    "running statistics are not trained; declare "
			    "them with state");
	if (sym__gemit_n(gr, 1, "batch_norm_grad_params", 5, in, n->attrs, 2,
	        names, mirror, out) < 0)
		return -1;
	in[6] = out[0];
	in[7] = out[1];
	return sym__gemit_to(gr, 0, 2, "batch_norm_grad", 8, in, n->attrs,
	    mirror);
}
