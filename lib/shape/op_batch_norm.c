/* SPDX-License-Identifier: MIT */
/*
 * Shape rules of batch_norm and its kin (normalisation family), on x of
 * shape [N, C, ...] (NC, NCHW or more spatial dimensions), channel
 * dimension 1:
 *
 *	batch_norm(x, gamma, beta, running_mean, running_var, stats) -> y
 *	batch_norm_stats(x) -> stats : f64[3, C]
 *	batch_norm_update(running_mean, running_var, stats)
 *	    -> running_mean, running_var (in place)
 *	batch_norm_grad_params(dy, x, stats, running_mean, running_var)
 *	    -> dgamma, dbeta
 *	batch_norm_grad(dy, x, stats, running_mean, running_var, gamma,
 *	    dgamma, dbeta) -> dx
 *
 * "stats" holds, by channel, the count of the elements, their sum and
 * the sum of their squares: sums over every dimension but 1, so that a
 * split batch makes them partial sums that the sharding pass
 * all-reduces. A program writes batch_norm with five operands; the graph
 * adds the other operators (lib/graph/check.c).
 */
#include "shape/shape_private.h"
#include "sym/expr_private.h"

/* The decoder of batch_norm and its kin: training (default true),
 * momentum (default 0.1, in [0, 1]) and epsilon (default 1e-5,
 * positive); "inf" is the run. */
int
sym__decode_batch_norm(struct sym__infer *inf)
{
	static const char *const known[] = { "training", "momentum", "epsilon",
		NULL };
	static const char *const num[] = { "momentum", "epsilon" };
	double v[2] = { 0.1, 1e-5 };

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_bool(inf, "training", 1, &inf->at.norm.training) < 0)
		return -1;
	for (size_t i = 0; i < 2; i++) {
		const struct sym__attr *a = sym__attrs_find(inf->attrs, num[i]);

		if (a && a->kind == SYM_ATTR_FLOAT)
			v[i] = a->f;
		else if (a && a->kind == SYM_ATTR_INT)
			v[i] = (double)a->i;
		else if (a)
			return sym__infer_fail_attr(inf, num[i],
			    "attribute %s of %s must be a number", num[i],
			    inf->op->name);
	}
	if (!(v[0] >= 0 && v[0] <= 1))
		return sym__infer_fail_attr(inf, "momentum",
		    "attribute momentum of %s (%g) must be in [0, 1]",
		    inf->op->name, v[0]);
	if (!(v[1] > 0))
		return sym__infer_fail_attr(inf, "epsilon",
		    "attribute epsilon of %s must be positive", inf->op->name);
	inf->at.norm.momentum = v[0];
	inf->at.norm.epsilon = v[1];
	return 0;
}

/* Check that input "i" of "inf" (called "role") is a vector of the
 * channels of input "xi" ([C], C its dimension 1) of its dtype; 0 or
 * -1. */
static int
check_channels(struct sym__infer *inf, size_t i, size_t xi, const char *role)
{
	const sym_shape *x = inf->in[xi], *p = inf->in[i];

	if (sym__same_dtype(inf, xi, i) < 0)
		return -1;
	if (p->rank != 1)
		return sym__infer_fail(inf, (int)i,
		    "%s %s of %s must be a vector of the %s channels of %s "
		    "(dimension 1), but its shape is %s",
		    role, sym__in_name(inf, i), inf->op->name,
		    sym__txt_expr(inf, x->dim[1]), sym__in_name(inf, xi),
		    sym__txt_dims(inf, p));
	return sym__require_dims_equal(inf, i, 0, xi, 1);
}

/* Check that input "i" of "inf" is the f64[3, C] statistics of the
 * channels of input "xi"; 0 or -1. */
static int
check_stats(struct sym__infer *inf, size_t i, size_t xi)
{
	const sym_shape *s = inf->in[i];
	int64_t three;

	if (s->dtype != SYM_DT_F64 || s->rank != 2 ||
	    sym_expr_get_const(s->dim[0], &three) < 0 || three != 3)
		return sym__infer_fail(inf, (int)i,
		    "operand %s of %s must be the f64[3, C] statistics that "
		    "batch_norm_stats computes, but it is %s%s",
		    sym__in_name(inf, i), inf->op->name,
		    sym_dtype_name(s->dtype), sym__txt_dims(inf, s));
	return sym__require_dims_equal(inf, i, 1, xi, 1);
}

/* Check that input "i" of "inf" is floating point of rank at least 2
 * (N, C, ...); 0 or -1. */
static int
check_x(struct sym__infer *inf, size_t i)
{
	if (sym__dtype_float(inf, i) < 0)
		return -1;
	if (inf->in[i]->rank < 2)
		return sym__infer_fail(inf, (int)i,
		    "operand %s of %s must have a batch and a channel "
		    "dimension ([N, C, ...]), but its shape is %s",
		    sym__in_name(inf, i), inf->op->name,
		    sym__txt_dims(inf, inf->in[i]));
	return 0;
}

/* The rule of batch_norm(x, gamma, beta, running_mean, running_var
 * [, stats]): y of the shape of x; "inf" is the run. */
int
sym__rule_batch_norm(struct sym__infer *inf)
{
	static const char *const role[] = { "gamma", "beta", "running_mean",
		"running_var" };

	if (check_x(inf, 0) < 0)
		return -1;
	for (size_t i = 1; i < 5; i++)
		if (check_channels(inf, i, 0, role[i - 1]) < 0)
			return -1;
	if (inf->n_in == 6 && check_stats(inf, 5, 0) < 0)
		return -1;
	return sym__out_same(inf, 0);
}

/* The rule of batch_norm_stats(x) -> f64[3, C]; "inf" is the run. */
int
sym__rule_batch_norm_stats(struct sym__infer *inf)
{
	sym_expr *dims[2];

	if (check_x(inf, 0) < 0)
		return -1;
	dims[0] = sym__tmp(inf, sym__const(inf->ctx, 3));
	dims[1] = inf->in[0]->dim[1];
	if (!dims[0])
		return sym__infer_nomem(inf);
	return sym__out_shape(inf, SYM_DT_F64, 2, dims);
}

/* The rule of batch_norm_update(running_mean, running_var, stats): both
 * running statistics, updated in place; "inf" is the run. */
int
sym__rule_batch_norm_update(struct sym__infer *inf)
{
	if (sym__dtype_float(inf, 0) < 0 || sym__rank_is(inf, 0, 1) < 0 ||
	    sym__same_dtype(inf, 0, 1) < 0 || sym__rank_is(inf, 1, 1) < 0 ||
	    sym__require_dims_equal(inf, 1, 0, 0, 0) < 0)
		return -1;
	if (inf->in[2]->dtype != SYM_DT_F64 || inf->in[2]->rank != 2)
		return sym__infer_fail(inf, 2,
		    "operand %s of %s must be the f64[3, C] statistics that "
		    "batch_norm_stats computes",
		    sym__in_name(inf, 2), inf->op->name);
	if (sym__require_dims_equal(inf, 2, 1, 0, 0) < 0)
		return -1;
	return sym__out_same(inf, 0) < 0 ? -1 : sym__out_same(inf, 1);
}

/* Check dy, x, stats, running_mean and running_var (inputs 0 to 4 of
 * "inf"): x as batch_norm's, dy of its dtype and shape; 0 or -1. */
static int
check_dy(struct sym__infer *inf)
{
	const sym_shape *dy = inf->in[0], *x = inf->in[1];

	if (check_x(inf, 1) < 0 || sym__same_dtype(inf, 0, 1) < 0)
		return -1;
	if (dy->rank != x->rank)
		return sym__infer_fail(inf, 0,
		    "operand %s of %s must have the shape of %s, %s, but it "
		    "is %s",
		    sym__in_name(inf, 0), inf->op->name, sym__in_name(inf, 1),
		    sym__txt_dims(inf, x), sym__txt_dims(inf, dy));
	for (size_t d = 0; d < x->rank; d++)
		if (sym__require_dims_equal(inf, 0, d, 1, d) < 0)
			return -1;
	if (check_stats(inf, 2, 1) < 0 ||
	    check_channels(inf, 3, 1, "running_mean") < 0)
		return -1;
	return check_channels(inf, 4, 1, "running_var");
}

/* The rule of batch_norm_grad_params(dy, x, stats, running_mean,
 * running_var) -> dgamma, dbeta, both [C] of x's dtype; "inf" is the
 * run. */
int
sym__rule_batch_norm_grad_params(struct sym__infer *inf)
{
	const sym_shape *x;

	if (check_dy(inf) < 0)
		return -1;
	x = inf->in[1];
	if (sym__out_shape(inf, x->dtype, 1, &x->dim[1]) < 0)
		return -1;
	return sym__out_shape(inf, x->dtype, 1, &x->dim[1]);
}

/* The rule of batch_norm_grad(dy, x, stats, running_mean, running_var,
 * gamma, dgamma, dbeta) -> dx of the shape of x; "inf" is the run. */
int
sym__rule_batch_norm_grad(struct sym__infer *inf)
{
	static const char *const role[] = { "gamma", "dgamma", "dbeta" };

	if (check_dy(inf) < 0)
		return -1;
	for (size_t i = 5; i < 8; i++)
		if (check_channels(inf, i, 1, role[i - 5]) < 0)
			return -1;
	return sym__out_same(inf, 1);
}
