/* SPDX-License-Identifier: MIT */
/*
 * The toolbox of the gradient rules (their table and the driver that
 * walks the graph are in grad.c): the names the gradients must have,
 * emitting operators as gradient nodes of the current forward node,
 * passing a gradient on, reducing a broadcast gradient, and the
 * diagnostics of an input without a gradient.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grad/grad_private.h"

/* Return the name the gradient of input "i" of the current node must
 * have, or NULL. */
const char *
sym__gtarget(const struct sym__grad *gr, size_t i)
{
	return gr->cur && i < gr->cur->n_in ? gr->target[i] : NULL;
}

/* Return a new set of attributes for an emitted operator, or NULL (out
 * of memory, recorded). */
sym_attrs *
sym__gattrs(struct sym__grad *gr)
{
	return sym_attrs_new(gr->ctx);
}

/* Return the label of the current node of "gr" for messages, "matmul
 * h1" (malloc'ed; NULL when out of memory). */
static char *
cur_label(const struct sym__grad *gr)
{
	const sym_node *n = gr->cur;

	return sym__asprintf("%s %s", n->op->name,
	    n->n_out ? n->out[0]->name : "?");
}

/* Write into "buf" ("size" bytes) the name of the gradient operator of
 * "n", its operator's name followed by "_grad" (softmax_grad,
 * maximum_grad, ...); return "buf". */
const char *
sym__ggrad_op(const sym_node *n, char *buf, size_t size)
{
	snprintf(buf, size, "%s_grad", n->op->name);
	return buf;
}

/* Record that input "i" of the current node has no gradient because
 * "why"; return -1. */
int
sym__gnone(struct sym__grad *gr, size_t i, const char *why)
{
	char *label = cur_label(gr);

	sym__graph_diag(gr->g, SYM_SEV_ERROR, &gr->cur->loc, NULL, NULL,
	    "%s: no gradient for operand %zu (%s) on the path to the loss "
	    "%s: %s",
	    label ? label : gr->cur->op->name, i, gr->cur->in[i]->name,
	    gr->g->loss->name, why);
	free(label);
	return -1;
}

/* Emit "op" (several outputs); see grad_private.h. */
int
sym__gemit_n(struct sym__grad *gr, int role, const char *op, size_t n_in,
    sym_value *const *in, const sym_attrs *attrs, size_t n_out,
    const char *const *names, const int *mirror, sym_value **out)
{
	const char **nm = sym__calloc(gr->ctx, n_out + 1, sizeof(*nm));
	char **own = nm ? sym__calloc(gr->ctx, n_out + 1, sizeof(*own)) : NULL;
	sym_node *n = NULL;
	int r = -1;

	if (!nm || !own)
		goto done;
	for (size_t k = 0; k < n_out; k++) {
		nm[k] = names ? names[k] : NULL;
		if (!nm[k]) {
			own[k] = sym__asprintf_ctx(gr->ctx, "%s.t%zu",
			    gr->cur && gr->cur->n_out ? gr->cur->out[0]->name
			                              : "grad",
			    ++gr->n_tmp);
			if (!own[k])
				goto done;
			nm[k] = own[k];
		}
	}
	n = sym_graph_add_op(gr->g, op, n_out, nm, n_in, in, attrs,
	    gr->cur ? &gr->cur->loc : NULL);
	if (!n || n->failed || n->n_out != n_out)
		goto done;
	n->fwd = gr->cur;
	n->grad_role = role;
	if (mirror && gr->cur) {
		n->mirror = sym__realloc_array(gr->ctx, NULL, n_in + 1,
		    sizeof(*n->mirror));
		if (!n->mirror)
			goto done;
		memcpy(n->mirror, mirror, n_in * sizeof(*mirror));
	}
	for (size_t k = 0; k < n_out; k++)
		out[k] = n->out[k];
	r = 0;
done:
	if (r < 0 && !n)
		sym__graph_ctx_error(gr->g, gr->cur ? &gr->cur->loc : NULL);
	for (size_t k = 0; own && k < n_out; k++)
		free(own[k]);
	free(own);
	free(nm);
	return r;
}

/* Emit "op" with one output; see grad_private.h. */
sym_value *
sym__gemit(struct sym__grad *gr, int role, const char *op, size_t n_in,
    sym_value *const *in, const sym_attrs *attrs, const char *name,
    const int *mirror)
{
	sym_value *v = NULL;
	const char *names[1] = { name };

	if (sym__gemit_n(gr, role, op, n_in, in, attrs, 1, names, mirror, &v) <
	    0)
		return NULL;
	return v;
}

/* Emit the gradient of an input as one operator; see grad_private.h. */
int
sym__gemit_to(struct sym__grad *gr, size_t i, int role, const char *op,
    size_t n_in, sym_value *const *in, const sym_attrs *attrs,
    const int *mirror)
{
	const char *t = sym__gtarget(gr, i);

	if (!t)
		return 0;
	return sym__gemit(gr, role, op, n_in, in, attrs, t, mirror) ? 0 : -1;
}

/* Emit input 0's gradient as one operator on "dy"; see grad_private.h. */
int
sym__gemit_dx(struct sym__grad *gr, const sym_node *n, const char *op,
    sym_value *dy, sym_attrs *at, int at_ok)
{
	int mirror = SYM__MIRROR_OUT(0);
	sym_value *v;

	if (!at_ok || !at) {
		sym_attrs_free(at);
		return sym__graph_ctx_error(gr->g, &n->loc);
	}
	v = sym__gemit(gr, 1, op, 1, &dy, at, sym__gtarget(gr, 0), &mirror);
	sym_attrs_free(at);
	return v ? 0 : -1;
}

/* Give input "i" of the current node the gradient "g"; see
 * grad_private.h. */
int
sym__gpass(struct sym__grad *gr, size_t i, sym_value *g, int mirror)
{
	const char *t = sym__gtarget(gr, i);

	if (!t)
		return 0;
	if (strcmp(g->name, t) == 0)
		return 0;
	return sym__gemit(gr, 0, "identity", 1, &g, NULL, t, &mirror) ? 0 : -1;
}

/* Reduce "g" to the shape of input "i" of the current node; see
 * grad_private.h. */
int
sym__gunbroadcast(struct sym__grad *gr, size_t i, sym_value *g, int role)
{
	const sym_shape *want = sym__value_shape(gr->cur->in[i]);
	const sym_shape *have = sym__value_shape(g);
	const char *t = sym__gtarget(gr, i);
	int mirror = SYM__MIRROR_OUT(0);
	sym_attrs *at;
	sym_value *v;

	if (!t)
		return 0;
	if (!want || !have)
		return -1;
	if (sym_shape_ndim(want) == sym_shape_ndim(have)) {
		int same = 1;

		for (size_t d = 0; d < sym_shape_ndim(want); d++)
			same &= want->dim[d] == have->dim[d];
		if (same)
			return sym__gpass(gr, i, g, SYM__MIRROR_OUT(0));
	}
	at = sym__gattrs(gr);
	if (!at ||
	    sym_attrs_set_list(at, "shape", want->rank,
	        (sym_expr *const *)want->dim) < 0) {
		sym_attrs_free(at);
		return sym__graph_ctx_error(gr->g, &gr->cur->loc);
	}
	v = sym__gemit(gr, role, "sum_to", 1, &g, at, t, &mirror);
	sym_attrs_free(at);
	return v ? 0 : -1;
}
