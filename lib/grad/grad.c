/* SPDX-License-Identifier: MIT */
/*
 * Reverse-mode differentiation (sym_graph_differentiate): the driver
 * that walks the forward graph from the loss back to the trained params
 * and asks each family's gradient rule for the gradients of a node's
 * inputs, summing those of values used several times. See
 * grad_private.h for the division of work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grad/grad_private.h"

/* The gradient rules, by operator identity. */
static const sym__grad_rule rules[SYM__N_OPS] = {
#define SYM__OPIMPL(ID, KERNEL, SHARD_INPUT, TUPLE, INFER, GRAD) \
	[SYM__OP_##ID] = GRAD,
#include "shape/ops.def"
};

/* The gradient rule of the operators gradients do not flow through
 * (ops.def): fine when no input of "n" needs a gradient (integer,
 * frozen, or off the loss's path), else an error at the first that
 * does. "gr" is the differentiation, "dy" unused. */
int
sym__grad_none(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	(void)dy;
	for (size_t i = 0; i < n->n_in; i++)
		if (gr->target[i])
			return sym__gnone(gr, i,
			    "the operator has no gradient rule");
	return 0;
}

/* Return 1 when values of "v"'s dtype carry gradients (floating). */
static int
differentiable(const sym_value *v)
{
	const sym_shape *s = v->shape;

	return s && sym_dtype_is_float(sym_shape_dtype(s));
}

/* Warn at every param of "gr" that is not frozen and that the loss
 * depends on ("back" & 1) through no value a gradient can flow into
 * (not "active"): an integer param, or one the loss reads only through
 * a cast to an integer dtype. It does not train. */
static void
warn_untrained(struct sym__grad *gr, const unsigned char *back)
{
	sym_graph *g = gr->g;

	for (size_t i = 0; i < g->n_value; i++) {
		const sym_value *v = g->value[i];

		if (v->kind != SYM_VALUE_PARAM || v->frozen || v->state ||
		    !(back[i] & 1) || gr->active[i])
			continue;
		sym__graph_diag(g, SYM_SEV_WARNING, &v->loc, NULL, NULL,
		    "param %s reaches the loss %s only through values that "
		    "carry no gradient (%s): it does not train; declare it "
		    "frozen",
		    v->name, g->loss->name,
		    differentiable(v) ? "a cast to an integer dtype"
		                      : "it is not floating-point");
	}
}

/* Mark in "gr->active" the values a gradient flows into: floating
 * values that a trained param reaches and that the loss depends on;
 * count their uses by nodes with an active output. Return 0 or -1. */
static int
mark_active(struct sym__grad *gr)
{
	sym_graph *g = gr->g;
	unsigned char *fwd = sym__calloc(gr->ctx, g->n_value + 1, 1);
	unsigned char *back =
	    fwd ? sym__calloc(gr->ctx, g->n_value + 1, 1) : NULL;

	if (!back) {
		free(fwd);
		return -1;
	}
	for (size_t i = 0; i < g->n_value; i++) {
		const sym_value *v = g->value[i];

		fwd[i] = v->kind == SYM_VALUE_PARAM && !v->frozen &&
		    differentiable(v);
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const sym_node *n = g->node[i];
		int any = 0;

		for (size_t k = 0; k < n->n_in; k++)
			any |= fwd[n->in[k]->index];
		/* batch_norm's and a class-split
		 * softmax_cross_entropy's statistics: their rules
		 * differentiate through them */
		if (n->op->id == SYM__OP_BATCH_NORM_STATS ||
		    n->op->id == SYM__OP_SCE_TARGET ||
		    n->op->id == SYM__OP_SCE_SUMEXP)
			any = 0;
		for (size_t k = 0; k < n->n_out && any; k++)
			fwd[n->out[k]->index] = differentiable(n->out[k]);
	}
	/* back: 1 the loss depends on the value, 2 through values a
	 * gradient can flow into as well */
	back[g->loss->index] = fwd[g->loss->index] ? 3 : 1;
	for (size_t i = g->n_node; i-- > 0;) {
		const sym_node *n = g->node[i];
		int any = 0;

		for (size_t k = 0; k < n->n_out; k++)
			any |= back[n->out[k]->index] &
			    (fwd[n->out[k]->index] ? 3 : 1);
		for (size_t k = 0; k < n->n_in && any; k++)
			back[n->in[k]->index] |= (unsigned char)any;
	}
	for (size_t i = 0; i < g->n_value; i++)
		gr->active[i] = fwd[i] && (back[i] & 2);
	warn_untrained(gr, back);
	for (size_t i = 0; i < g->n_node; i++) {
		const sym_node *n = g->node[i];
		int any = 0;

		for (size_t k = 0; k < n->n_out; k++)
			any |= gr->active[n->out[k]->index];
		for (size_t k = 0; k < n->n_in && any; k++)
			if (gr->active[n->in[k]->index])
				gr->n_uses[n->in[k]->index]++;
	}
	free(fwd);
	free(back);
	return 0;
}

/* Add the gradient "c" that a use gave value "v" to its running sum in
 * "gr"; the last one names the sum "NAME.grad". Return 0 or -1. */
static int
accumulate(struct sym__grad *gr, sym_value *v, sym_value *c)
{
	size_t i = v->index;
	sym_value *in[2];
	char *name;
	sym_node *keep = gr->cur;

	gr->n_done[i]++;
	if (!gr->contrib[i]) {
		gr->contrib[i] = c;
	} else {
		in[0] = gr->contrib[i];
		in[1] = c;
		name = gr->n_done[i] == gr->n_uses[i]
		    ? sym__asprintf_ctx(gr->ctx, "%s.grad", v->name)
		    : sym__asprintf_ctx(gr->ctx, "%s.grad.s%zu", v->name,
		          gr->n_done[i]);
		if (!name)
			return sym__graph_ctx_error(gr->g, &keep->loc);
		gr->cur = v->producer;
		gr->contrib[i] =
		    sym__gemit(gr, 0, "add", 2, in, NULL, name, NULL);
		gr->cur = keep;
		free(name);
		if (!gr->contrib[i])
			return -1;
	}
	if (gr->n_done[i] == gr->n_uses[i])
		v->grad = gr->contrib[i];
	return 0;
}

/* Name the gradients the inputs of node "n" must get in "gr->target":
 * "NAME.grad" for a value used once, "NAME.grad.K" for its K-th use.
 * Return 0 or -1. */
static int
name_targets(struct sym__grad *gr, sym_node *n)
{
	for (size_t i = 0; i < n->n_in; i++) {
		sym_value *v = n->in[i];
		size_t k = gr->n_done[v->index] + 1;

		gr->target[i] = NULL;
		if (!gr->active[v->index])
			continue;
		for (size_t j = 0; j < i; j++)
			k += n->in[j] == v;
		gr->target[i] = gr->n_uses[v->index] == 1
		    ? sym__asprintf_ctx(gr->ctx, "%s.grad", v->name)
		    : sym__asprintf_ctx(gr->ctx, "%s.grad.%zu", v->name, k);
		if (!gr->target[i])
			return sym__graph_ctx_error(gr->g, &n->loc);
	}
	return 0;
}

/* Differentiate forward node "n": run its rule and collect the
 * gradients of its inputs; return 0 or -1. */
static int
node_grad(struct sym__grad *gr, sym_node *n)
{
	sym__grad_rule rule = rules[n->op->id];
	sym_value **dy = sym__calloc(gr->ctx, n->n_out + 1, sizeof(*dy));
	int any = 0, r = -1;

	if (!dy)
		return sym__graph_ctx_error(gr->g, &n->loc);
	for (size_t k = 0; k < n->n_out; k++) {
		dy[k] = gr->contrib[n->out[k]->index];
		any |= dy[k] != NULL;
	}
	gr->cur = n;
	if (!any || name_targets(gr, n) < 0)
		goto done;
	if (rule(gr, n, dy) < 0)
		goto done;
	r = 0;
	for (size_t i = 0; i < n->n_in && r == 0; i++) {
		sym_value *c;

		if (!gr->target[i])
			continue;
		c = sym_graph_find_value(gr->g, gr->target[i]);
		if (!c)
			r = sym__gnone(gr, i,
			    "internal error: the rule gave none");
		else
			r = accumulate(gr, n->in[i], c);
	}
done:
	for (size_t i = 0; i < n->n_in; i++) {
		free(gr->target[i]);
		gr->target[i] = NULL;
	}
	gr->cur = NULL;
	free(dy);
	return any ? r : 0;
}

/* Seed the gradient of the loss of "gr": "LOSS.grad", a scalar 1;
 * return 0 or -1. */
static int
seed(struct sym__grad *gr)
{
	sym_value *loss = gr->g->loss, *v;
	sym_attrs *at = sym__gattrs(gr);
	char *name = sym__asprintf_ctx(gr->ctx, "%s.grad", loss->name);
	int mirror = SYM__MIRROR_OUT(0);

	gr->cur = loss->producer;
	for (size_t k = 0; gr->cur && k < gr->cur->n_out; k++)
		if (gr->cur->out[k] == loss)
			mirror = SYM__MIRROR_OUT(k);
	v = at && name && sym_attrs_set_float(at, "value", 1.0) == 0
	    ? sym__gemit(gr, 0, "fill_like", 1, &loss, at, name, &mirror)
	    : NULL;
	gr->cur = NULL;
	sym_attrs_free(at);
	free(name);
	if (!v)
		return sym__graph_ctx_error(gr->g, &gr->g->minimize_loc);
	gr->contrib[loss->index] = v;
	loss->grad = v;
	return 0;
}

/* Record the params "gr" trains, in declaration order; 0 or -1. */
static int
list_trained(struct sym__grad *gr)
{
	sym_graph *g = gr->g;

	for (size_t i = 0; i < g->n_value; i++) {
		sym_value *v = g->value[i];

		if (v->kind != SYM_VALUE_PARAM || !gr->active[i])
			continue;
		if (!v->grad)
			return sym__graph_diag(g, SYM_SEV_ERROR, &v->loc, NULL,
			    NULL, "internal error: param %s has no gradient",
			    v->name);
		if (SYM__RESERVE(g->ctx, g->trained, g->cap_trained,
		        g->n_trained + 1) < 0)
			return sym__graph_ctx_error(g, &v->loc);
		g->trained[g->n_trained++] = v;
	}
	return 0;
}

/* Release what "gr" holds. */
static void
grad_clear(struct sym__grad *gr)
{
	free(gr->active);
	free(gr->n_uses);
	free(gr->n_done);
	free(gr->contrib);
	free(gr->target);
}

/*
 * Differentiate the graph "g", which minimizes a loss (sym_graph_minimize):
 * append the backward operators that compute "NAME.grad" for every value
 * between a trained param and the loss. Return 0 (also when it was done
 * before), or -1 with located diagnostics on the graph (no loss, errors
 * before, an operator on the path without a gradient).
 */
int
sym_graph_differentiate(sym_graph *g)
{
	struct sym__grad gr;
	size_t n_fwd, nv, max_in = 0;
	int r = -1;

	if (!g)
		return -1;
	if (g->differentiated)
		return 0;
	if (!g->loss)
		return sym__graph_diag(g, SYM_SEV_ERROR, NULL, NULL, NULL,
		    "nothing to differentiate: the graph minimizes no loss");
	if (g->n_errors)
		return sym__graph_diag(g, SYM_SEV_ERROR, &g->minimize_loc, NULL,
		    NULL,
		    "cannot differentiate a graph with errors (%zu found "
		    "before)",
		    g->n_errors);
	memset(&gr, 0, sizeof(gr));
	gr.g = g;
	gr.ctx = g->ctx;
	nv = g->n_value + 1;
	n_fwd = g->n_node;
	gr.active = sym__calloc(g->ctx, nv, 1);
	gr.n_uses = sym__calloc(g->ctx, nv, sizeof(*gr.n_uses));
	gr.n_done = sym__calloc(g->ctx, nv, sizeof(*gr.n_done));
	gr.contrib = sym__calloc(g->ctx, nv, sizeof(*gr.contrib));
	for (size_t i = 0; i < n_fwd; i++)
		if (g->node[i]->n_in > max_in)
			max_in = g->node[i]->n_in;
	gr.target = sym__calloc(g->ctx, max_in + 1, sizeof(*gr.target));
	if (!gr.active || !gr.n_uses || !gr.n_done || !gr.contrib ||
	    !gr.target) {
		sym__graph_ctx_error(g, &g->minimize_loc);
		goto done;
	}
	if (mark_active(&gr) < 0 || seed(&gr) < 0)
		goto done;
	for (size_t i = n_fwd; i-- > 0;)
		if (node_grad(&gr, g->node[i]) < 0)
			goto done;
	if (list_trained(&gr) < 0)
		goto done;
	if (g->n_trained == 0) {
		sym__graph_diag(g, SYM_SEV_ERROR, &g->minimize_loc, NULL, NULL,
		    "no param reaches the loss %s through values that carry "
		    "a gradient: nothing would train",
		    g->loss->name);
		goto done;
	}
	if (sym__grad_updates(&gr) < 0)
		goto done;
	g->differentiated = 1;
	g->n_forward = n_fwd;
	r = 0;
done:
	grad_clear(&gr);
	return r;
}
