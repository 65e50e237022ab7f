/* SPDX-License-Identifier: MIT */
/*
 * What makes a graph a training graph, as the graph records it: the
 * initializers of inputs and params, frozen params, and the loss with
 * its optimizer (sym_graph_minimize). Differentiating is the grad
 * layer's (lib/grad/); this file only checks and keeps the user's
 * statements, so that every error is located where it was written.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_private.h"

static const char *const init_names[] = {
	[SYM_INIT_DEFAULT] = "default",
	[SYM_INIT_ZEROS] = "zeros",
	[SYM_INIT_ONES] = "ones",
	[SYM_INIT_CONSTANT] = "constant",
	[SYM_INIT_NORMAL] = "normal",
	[SYM_INIT_UNIFORM] = "uniform",
	[SYM_INIT_XAVIER_UNIFORM] = "xavier_uniform",
	[SYM_INIT_HE_UNIFORM] = "he_uniform",
	[SYM_INIT_HE_NORMAL] = "he_normal",
};

static const char *const opt_names[] = {
	[SYM_OPTIMIZER_NONE] = "none",
	[SYM_OPTIMIZER_SGD] = "sgd",
	[SYM_OPTIMIZER_MOMENTUM] = "momentum",
	[SYM_OPTIMIZER_ADAM] = "adam",
	[SYM_OPTIMIZER_ADAMW] = "adamw",
};

/* Return the name of initializer "kind" ("he_normal"), or NULL. */
const char *
sym_init_kind_name(sym_init_kind kind)
{
	return (unsigned)kind <= SYM_INIT_HE_NORMAL ? init_names[kind] : NULL;
}

/* Return the name of optimizer "kind" ("adamw"), or NULL. */
const char *
sym_optimizer_kind_name(sym_optimizer_kind kind)
{
	return (unsigned)kind <= SYM_OPTIMIZER_ADAMW ? opt_names[kind] : NULL;
}

/* Fill "opt" with the defaults of optimizer "kind" (MindSpore's, and
 * PyTorch's where MindSpore has none): lr 0.01, momentum 0 (0.9 for
 * momentum, which MindSpore requires), dampening 0, no Nesterov, weight
 * decay 0 (0.01 for adamw), betas 0.9 and 0.999, eps 1e-8. */
void
sym_optimizer_defaults(sym_optimizer_kind kind, sym_optimizer *opt)
{
	if (!opt)
		return;
	memset(opt, 0, sizeof(*opt));
	opt->kind = kind;
	opt->lr = 0.01;
	opt->momentum = kind == SYM_OPTIMIZER_MOMENTUM ? 0.9 : 0.0;
	opt->weight_decay = kind == SYM_OPTIMIZER_ADAMW ? 0.01 : 0.0;
	opt->beta1 = 0.9;
	opt->beta2 = 0.999;
	opt->eps = 1e-8;
}

/* Return 1 when "x" is a whole number that dtype "dt" holds. */
static int
fits_integer(double x, sym_dtype dt)
{
	double lo, hi;

	if (x != floor(x))
		return 0;
	switch (dt) {
	case SYM_DT_BOOL:
		return x == 0 || x == 1;
	case SYM_DT_U8:
		lo = 0, hi = 255;
		break;
	case SYM_DT_I8:
		lo = -128, hi = 127;
		break;
	case SYM_DT_I16:
		lo = -32768, hi = 32767;
		break;
	case SYM_DT_I32:
		lo = -2147483648.0, hi = 2147483647.0;
		break;
	default:
		lo = -9007199254740992.0, hi = 9007199254740992.0;
		break;
	}
	return x >= lo && x <= hi;
}

/* Check "init" for value "v" of "g"; return NULL when it fits, else a
 * static description of why not (the caller adds the names). */
static const char *
init_misfit(const sym_value *v, const sym_init *init)
{
	sym_dtype dt = v->shape ? sym_shape_dtype(v->shape) : SYM_DT_INVALID;
	int fl = sym_dtype_is_float(dt);

	switch (init->kind) {
	case SYM_INIT_DEFAULT:
	case SYM_INIT_ZEROS:
	case SYM_INIT_ONES:
		return NULL;
	case SYM_INIT_CONSTANT:
		if (!isfinite(init->value))
			return "its value is not finite";
		if (!fl && !fits_integer(init->value, dt))
			return "its value is not one the dtype holds";
		return NULL;
	default:
		break;
	}
	if (!fl)
		return "it draws random reals, which need a floating dtype";
	if ((init->kind == SYM_INIT_NORMAL &&
	        (!(init->sigma >= 0) || !isfinite(init->sigma) ||
	            !isfinite(init->mean))) ||
	    (init->kind == SYM_INIT_UNIFORM &&
	        (!(init->scale >= 0) || !isfinite(init->scale))) ||
	    (init->kind == SYM_INIT_XAVIER_UNIFORM &&
	        (!(init->gain >= 0) || !isfinite(init->gain))) ||
	    ((init->kind == SYM_INIT_HE_UNIFORM ||
	         init->kind == SYM_INIT_HE_NORMAL) &&
	        !isfinite(init->negative_slope)))
		return "an argument is negative or not finite";
	if (init->kind >= SYM_INIT_XAVIER_UNIFORM && v->shape &&
	    sym_shape_ndim(v->shape) == 0)
		return "its fans are those of a tensor of at least 1 dimension";
	return NULL;
}

/* Give input or param "v" the initializer "init" (copied), written at
 * "where" (may be NULL); return 0, or -1 with a located error on the
 * graph when it does not fit the value's dtype or rank. */
int
sym_value_set_init(sym_value *v, const sym_init *init, const sym_loc *where)
{
	const char *why;

	if (!v || !init || (unsigned)init->kind > SYM_INIT_HE_NORMAL)
		return -1;
	if (v->kind == SYM_VALUE_RESULT)
		return sym__graph_diag(v->graph, SYM_SEV_ERROR, where, NULL,
		    NULL,
		    "%s is computed by an operator: only inputs and "
		    "params take an initializer",
		    v->name);
	why = init_misfit(v, init);
	if (why)
		return sym__graph_diag(v->graph, SYM_SEV_ERROR, where, NULL,
		    NULL, "initializer %s does not fit %s (%s): %s",
		    init_names[init->kind], v->name,
		    v->shape ? sym_dtype_name(sym_shape_dtype(v->shape)) : "?",
		    why);
	v->init = *init;
	if (where)
		v->init_loc = *where;
	return 0;
}

/* Store the initializer of "v" in "*init"; return 0, or -1 for NULL. */
int
sym_value_get_init(const sym_value *v, sym_init *init)
{
	if (!v || !init)
		return -1;
	*init = v->init;
	return 0;
}

/* Exclude param "v" from training when "frozen" (or include it again);
 * return 0, or -1 when "v" is not a param or the graph was already
 * differentiated. */
int
sym_value_set_frozen(sym_value *v, int frozen)
{
	if (!v || v->kind != SYM_VALUE_PARAM || v->graph->differentiated)
		return -1;
	v->frozen = frozen != 0;
	return 0;
}

/* Make the param "v" state ("state" non-zero): not trained (frozen),
 * updated in place by the operators that own it, saved in checkpoints
 * and started at its initializer (zeros unless one was set) when a
 * checkpoint lacks it; return 0, or -1 when "v" is not a param or the
 * graph was already differentiated. */
int
sym_value_set_state(sym_value *v, int state)
{
	if (!v || v->kind != SYM_VALUE_PARAM || v->graph->differentiated)
		return -1;
	v->state = state ? 2 : 0; /* 2: declared, 1: an optimizer's */
	v->frozen = v->state || v->frozen;
	if (v->state && v->init.kind == SYM_INIT_DEFAULT)
		v->init.kind = SYM_INIT_ZEROS;
	return 0;
}

/* Return SYM_TRUE when "v" is state (declared so, or an optimizer's),
 * SYM_FALSE when not, SYM_ERROR for NULL. */
sym_answer
sym_value_is_state(const sym_value *v)
{
	if (!v)
		return SYM_ERROR;
	return v->state ? SYM_TRUE : SYM_FALSE;
}

/* Return SYM_TRUE when "v" is a frozen param, SYM_FALSE when not,
 * SYM_ERROR for NULL. */
sym_answer
sym_value_is_frozen(const sym_value *v)
{
	if (!v)
		return SYM_ERROR;
	return v->frozen ? SYM_TRUE : SYM_FALSE;
}

/* Check the hyper-parameters of "o"; return NULL, or a static text
 * saying which is wrong. */
static const char *
bad_hyper(const sym_optimizer *o)
{
	if (!(o->lr >= 0) || !isfinite(o->lr))
		return "lr must be a finite number >= 0";
	if (!(o->weight_decay >= 0) || !isfinite(o->weight_decay))
		return "weight_decay must be a finite number >= 0";
	if (o->kind == SYM_OPTIMIZER_SGD || o->kind == SYM_OPTIMIZER_MOMENTUM) {
		if (!(o->momentum >= 0) || !isfinite(o->momentum))
			return "momentum must be a finite number >= 0";
		if (!(o->dampening >= 0) || !isfinite(o->dampening))
			return "dampening must be a finite number >= 0";
		if (o->nesterov && (o->momentum <= 0 || o->dampening != 0))
			return "nesterov needs momentum > 0 and dampening 0";
	}
	if (o->kind == SYM_OPTIMIZER_ADAM || o->kind == SYM_OPTIMIZER_ADAMW) {
		if (!(o->beta1 >= 0 && o->beta1 < 1) ||
		    !(o->beta2 >= 0 && o->beta2 < 1))
			return "beta1 and beta2 must be in [0, 1)";
		if (!(o->eps > 0) || !isfinite(o->eps))
			return "eps must be a finite number > 0";
	}
	return NULL;
}

/* Return 1 when a param of "g" that is not frozen reaches "v" (through
 * the producers of its operands), marking visited values in "seen". */
static int
reached_by_param(const sym_graph *g, const sym_value *v, unsigned char *seen)
{
	const sym_node *n;

	if (seen[v->index])
		return 0;
	seen[v->index] = 1;
	if (v->kind == SYM_VALUE_PARAM)
		return !v->frozen;
	n = v->producer;
	for (size_t i = 0; n && i < n->n_in; i++)
		if (reached_by_param(g, n->in[i], seen))
			return 1;
	return 0;
}

/*
 * Make "g" a training graph that minimizes "loss" with "opt" (copied),
 * as written at "where": the loss must be a floating-point scalar that a
 * param which is not frozen reaches, the hyper-parameters must be in
 * range, and a graph minimizes one loss. Return 0, or -1 with a located
 * error on the graph.
 */
int
sym_graph_minimize(sym_graph *g, sym_value *loss, const sym_optimizer *opt,
    const sym_loc *where)
{
	const sym_shape *s;
	unsigned char *seen;
	const char *why;
	int reached;

	if (!g || !loss || !opt || loss->graph != g)
		return -1;
	if (g->loss)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "the graph already minimizes %s (line %d): a graph has "
		    "one loss",
		    g->loss->name, g->minimize_loc.line);
	if ((unsigned)opt->kind > SYM_OPTIMIZER_ADAMW ||
	    opt->kind == SYM_OPTIMIZER_NONE)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "no optimizer given");
	s = loss->failed ? NULL : sym__value_shape(loss);
	if (!s) /* its operator failed: the graph has that error already */
		return 0;
	if (sym_shape_ndim(s) != 0 ||
	    (sym_shape_dtype(s) != SYM_DT_F32 &&
	        sym_shape_dtype(s) != SYM_DT_F64))
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "the loss %s must be a floating-point scalar (f32[] or "
		    "f64[]), not %s%s",
		    loss->name, sym_dtype_name(sym_shape_dtype(s)),
		    sym_shape_ndim(s) ? " with dimensions" : "");
	why = bad_hyper(opt);
	if (why)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "%s: %s", opt_names[opt->kind], why);
	seen = sym__calloc(g->ctx, g->n_value, 1);
	if (!seen)
		return sym__graph_ctx_error(g, where);
	reached = reached_by_param(g, loss, seen);
	free(seen);
	if (!reached)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "no param that is not frozen reaches the loss %s: "
		    "nothing would train",
		    loss->name);
	g->loss = loss;
	g->opt = *opt;
	if (where)
		g->minimize_loc = *where;
	return 0;
}

/* Return the loss "g" minimizes, or NULL. */
sym_value *
sym_graph_loss(const sym_graph *g)
{
	return g ? g->loss : NULL;
}

/* Store the optimizer of "g" in "*opt"; return 0, or -1 when "g" has no
 * loss. */
int
sym_graph_optimizer(const sym_graph *g, sym_optimizer *opt)
{
	if (!g || !opt || !g->loss)
		return -1;
	*opt = g->opt;
	return 0;
}

/* Return SYM_TRUE when "g" has been differentiated into a training
 * graph, SYM_FALSE when not, SYM_ERROR for NULL. */
sym_answer
sym_graph_is_training(const sym_graph *g)
{
	if (!g)
		return SYM_ERROR;
	return g->differentiated ? SYM_TRUE : SYM_FALSE;
}

/* Return the number of nodes of the forward part of "g": those before
 * the backward and update parts of a training graph, every node
 * otherwise; 0 for NULL. */
size_t
sym_graph_n_forward_nodes(const sym_graph *g)
{
	if (!g)
		return 0;
	return g->differentiated ? g->n_forward : g->n_node;
}

/* Return the gradient of "v" ("NAME.grad"), or NULL. */
sym_value *
sym_value_grad(const sym_value *v)
{
	return v ? v->grad : NULL;
}

/* Return the number of params "g" trains (after differentiation). */
size_t
sym_graph_n_trained(const sym_graph *g)
{
	return g ? g->n_trained : 0;
}

/* Return the "i"-th param "g" trains, in declaration order, or NULL. */
sym_value *
sym_graph_trained(const sym_graph *g, size_t i)
{
	return g && i < g->n_trained ? g->trained[i] : NULL;
}
