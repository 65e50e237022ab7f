/* SPDX-License-Identifier: MIT */
/*
 * The update part of a training graph: for every trained param, its
 * optimizer state (new params, zeros at first, frozen, marked as state)
 * and one update operator that writes the param and its state in place;
 * then one increment of the step count when the optimizer counts steps.
 *
 *	sgd, momentum 0		p' = sgd_update(p, p.grad)
 *	sgd			p', b' = sgd_update(p, p.momentum, p.grad, t)
 *	momentum		p', v' = momentum_update(p, p.momentum, p.grad)
 *	adam, adamw		p', m', v' = adam_update(p, p.adam_m, p.adam_v,
 *				    p.grad, t)
 *
 * where t is "optimizer.step", an i32 scalar. The outputs are named
 * "p.next" and "p.momentum.next" and so on: the executor gives them the
 * buffers of their inputs, so the param and its state persist.
 */
#include <stdlib.h>
#include <string.h>

#include "grad/grad_private.h"

/* The state names of "opt"'s update, after the param's: NULL-terminated,
 * static. */
static const char *const *
state_names(const sym_optimizer *opt)
{
	static const char *const none[] = { NULL };
	static const char *const momentum[] = { "momentum", NULL };
	static const char *const adam[] = { "adam_m", "adam_v", NULL };

	switch (opt->kind) {
	case SYM_OPTIMIZER_SGD:
		return opt->momentum != 0 ? momentum : none;
	case SYM_OPTIMIZER_MOMENTUM:
		return momentum;
	case SYM_OPTIMIZER_ADAM:
	case SYM_OPTIMIZER_ADAMW:
		return adam;
	default:
		return none;
	}
}

/* Return 1 when the update of "opt" reads the step count. */
static int
counts_steps(const sym_optimizer *opt)
{
	return opt->kind == SYM_OPTIMIZER_ADAM ||
	    opt->kind == SYM_OPTIMIZER_ADAMW ||
	    (opt->kind == SYM_OPTIMIZER_SGD && opt->momentum != 0);
}

/* Return a new state value of "g" called "name" with the shape "shape"
 * (zeros, frozen, marked state), declared at "where"; NULL after an
 * error on the graph. */
static sym_value *
state_value(sym_graph *g, const char *name, sym_shape *shape,
    const sym_loc *where)
{
	sym_init zeros = { .kind = SYM_INIT_ZEROS };
	sym_value *v =
	    sym_graph_add_input(g, name, SYM_VALUE_PARAM, shape, where);

	if (!v) {
		sym__graph_ctx_error(g, where);
		return NULL;
	}
	v->init = zeros;
	v->frozen = 1;
	v->state = 1;
	return v;
}

/* Return the attributes of the update operator of "opt": its
 * hyper-parameters; NULL when out of memory. */
static sym_attrs *
hyper(sym_ctx *ctx, const sym_optimizer *opt)
{
	sym_attrs *at = sym_attrs_new(ctx);
	int r;

	if (!at)
		return NULL;
	r = sym_attrs_set_float(at, "lr", opt->lr) |
	    sym_attrs_set_float(at, "weight_decay", opt->weight_decay);
	if (opt->kind == SYM_OPTIMIZER_SGD ||
	    opt->kind == SYM_OPTIMIZER_MOMENTUM)
		r |= sym_attrs_set_float(at, "momentum", opt->momentum) |
		    sym_attrs_set_bool(at, "nesterov", opt->nesterov);
	if (opt->kind == SYM_OPTIMIZER_SGD)
		r |= sym_attrs_set_float(at, "dampening", opt->dampening);
	if (opt->kind == SYM_OPTIMIZER_ADAM || opt->kind == SYM_OPTIMIZER_ADAMW)
		r |= sym_attrs_set_float(at, "beta1", opt->beta1) |
		    sym_attrs_set_float(at, "beta2", opt->beta2) |
		    sym_attrs_set_float(at, "eps", opt->eps);
	if (r) {
		sym_attrs_free(at);
		return NULL;
	}
	return at;
}

/* Return the operator that updates a param under "opt". */
static const char *
update_op(const sym_optimizer *opt)
{
	switch (opt->kind) {
	case SYM_OPTIMIZER_MOMENTUM:
		return "momentum_update";
	case SYM_OPTIMIZER_ADAM:
		return "adam_update";
	case SYM_OPTIMIZER_ADAMW:
		return "adamw_update";
	default:
		return "sgd_update";
	}
}

/* Emit the update of trained param "p" of "gr" under "opt" with the step
 * count "t" (NULL when it counts none) and the attributes "at"; return 0
 * or -1. */
static int
update_param(struct sym__grad *gr, sym_value *p, const sym_optimizer *opt,
    sym_value *t, const sym_attrs *at)
{
	const char *const *states = state_names(opt);
	sym_value *in[5], *out[3];
	char *names[3] = { NULL, NULL, NULL };
	size_t n_in = 0, n_out = 0;
	int r = -1;

	in[n_in++] = p;
	names[n_out++] = sym__asprintf_ctx(gr->ctx, "%s.next", p->name);
	for (size_t k = 0; states[k]; k++) {
		char *sn =
		    sym__asprintf_ctx(gr->ctx, "%s.%s", p->name, states[k]);

		in[n_in] = sn
		    ? state_value(gr->g, sn, sym__value_shape(p), &p->loc)
		    : NULL;
		names[n_out++] =
		    sn ? sym__asprintf_ctx(gr->ctx, "%s.next", sn) : NULL;
		free(sn);
		if (!in[n_in++])
			goto done;
	}
	in[n_in++] = p->grad;
	if (t)
		in[n_in++] = t;
	for (size_t k = 0; k < n_out; k++)
		if (!names[k]) {
			sym__graph_ctx_error(gr->g, &p->loc);
			goto done;
		}
	r = sym__gemit_n(gr, 0, update_op(opt), n_in, in, at, n_out,
	    (const char *const *)names, NULL, out);
done:
	for (size_t k = 0; k < 3; k++)
		free(names[k]);
	return r;
}

/*
 * Append the update part of the training graph of "gr" (see the top of
 * the file), after its gradients: one update operator per trained param
 * and the increment of the step count. Return 0 or -1.
 */
int
sym__grad_updates(struct sym__grad *gr)
{
	sym_graph *g = gr->g;
	const sym_optimizer *opt = &g->opt;
	sym_value *t = NULL;
	sym_shape *scalar = NULL;
	sym_attrs *at = hyper(gr->ctx, opt);
	int r = -1;

	gr->cur = NULL;
	if (!at)
		return sym__graph_ctx_error(g, &g->minimize_loc);
	if (counts_steps(opt)) {
		scalar = sym_shape_new(gr->ctx, SYM_DT_I32, 0, NULL);
		t = scalar
		    ? state_value(g, "optimizer.step", scalar, &g->minimize_loc)
		    : NULL;
		if (!t)
			goto done;
	}
	for (size_t i = 0; i < g->n_trained; i++)
		if (update_param(gr, g->trained[i], opt, t, at) < 0)
			goto done;
	if (t &&
	    !sym__gemit(gr, 0, "increment", 1, &t, NULL, "optimizer.step.next",
	        NULL))
		goto done;
	r = 0;
done:
	sym_shape_free(scalar);
	sym_attrs_free(at);
	return r;
}
