/* SPDX-License-Identifier: MIT */
/*
 * The optimizer family: the update operators a training graph ends with
 * (lib/grad/optim.c emits them), one per trained param, and increment,
 * which advances the step count.
 *
 *	p' = sgd_update(p, g)			momentum 0
 *	p', b' = sgd_update(p, b, g, t)		momentum > 0
 *	p', v' = momentum_update(p, v, g)
 *	p', m', v' = adam_update(p, m, v, g, t)	(adamw_update alike)
 *	t' = increment(t)
 *
 * Output k is input k updated in place (SYM__OPF_INPLACE): the param and
 * its state come first, then the gradient, all of one shape and dtype,
 * and the step
 * count t is an i32 scalar, the number of steps taken before this one.
 * The hyper-parameters are attributes (lr, momentum, dampening,
 * nesterov, weight_decay, beta1, beta2, eps), checked by
 * sym_graph_minimize; sym_grad(3) gives the formulas.
 */
#include "shape/shape_private.h"

/* The decoder of the update operators: their hyper-parameters (the
 * defaults of sym_optimizer_defaults); "inf" is the run. */
int
sym__decode_optim(struct sym__infer *inf)
{
	static const char *const known[] = { "lr", "momentum", "dampening",
		"nesterov", "weight_decay", "beta1", "beta2", "eps", NULL };
	int adamw = inf->op->id == SYM__OP_ADAMW_UPDATE;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_number(inf, "lr", 0.01, &inf->at.optim.lr) < 0 ||
	    sym__attr_number(inf, "momentum",
	        inf->op->id == SYM__OP_MOMENTUM_UPDATE ? 0.9 : 0.0,
	        &inf->at.optim.momentum) < 0 ||
	    sym__attr_number(inf, "dampening", 0, &inf->at.optim.dampening) <
	        0 ||
	    sym__attr_number(inf, "weight_decay", adamw ? 0.01 : 0.0,
	        &inf->at.optim.weight_decay) < 0 ||
	    sym__attr_number(inf, "beta1", 0.9, &inf->at.optim.beta1) < 0 ||
	    sym__attr_number(inf, "beta2", 0.999, &inf->at.optim.beta2) < 0 ||
	    sym__attr_number(inf, "eps", 1e-8, &inf->at.optim.eps) < 0 ||
	    sym__attr_bool(inf, "nesterov", 0, &inf->at.optim.nesterov) < 0)
		return -1;
	if (inf->op->id == SYM__OP_SGD_UPDATE &&
	    (inf->at.optim.momentum != 0) != (inf->n_in == 4))
		return sym__infer_fail(inf, -1,
		    "sgd_update takes (p, g) without momentum and (p, buf, g, "
		    "step) with it, not %zu inputs",
		    inf->n_in);
	return 0;
}

/* Check that input "i" of "inf" is the i32 scalar step count; return 0
 * or -1. */
static int
step_count(struct sym__infer *inf, size_t i)
{
	if (inf->in[i]->rank == 0 && inf->in[i]->dtype == SYM_DT_I32)
		return 0;
	return sym__infer_fail(inf, (int)i,
	    "%s, the step count of %s, must be an i32 scalar, not %s %s",
	    sym__in_name(inf, i), inf->op->name,
	    sym_dtype_name(inf->in[i]->dtype), sym__txt_dims(inf, inf->in[i]));
}

/* The rule of the update operators: a floating-point param, then its
 * state and its gradient of the same shape and dtype, then the step
 * count when the operator takes one; the param and its state out.
 * "inf" is the run. */
int
sym__rule_optim(struct sym__infer *inf)
{
	size_t n_state = inf->n_in - 2, n_same = inf->n_in;

	if (inf->op->id == SYM__OP_ADAM_UPDATE ||
	    inf->op->id == SYM__OP_ADAMW_UPDATE ||
	    (inf->op->id == SYM__OP_SGD_UPDATE && inf->n_in == 4)) {
		n_same--;
		n_state--;
		if (step_count(inf, inf->n_in - 1) < 0)
			return -1;
	}
	if (sym__dtype_float(inf, 0) < 0)
		return -1;
	for (size_t i = 1; i < n_same; i++) {
		if (sym__same_dtype(inf, 0, i) < 0 ||
		    sym__rank_is(inf, i, inf->in[0]->rank) < 0)
			return -1;
		for (size_t d = 0; d < inf->in[0]->rank; d++)
			if (sym__require_dims_equal(inf, i, d, 0, d) < 0)
				return -1;
	}
	if (sym__out_same(inf, 0) < 0)
		return -1;
	for (size_t k = 0; k < n_state; k++)
		if (sym__out_same(inf, 1 + k) < 0)
			return -1;
	return 0;
}

/* The rule of increment: an i32 scalar step count in, the next out;
 * "inf" is the run. */
int
sym__rule_increment(struct sym__infer *inf)
{
	if (step_count(inf, 0) < 0)
		return -1;
	return sym__out_same(inf, 0);
}
