/* SPDX-License-Identifier: MIT */
/*
 * The normalisation family: softmax, log_softmax and layer_norm.
 */
#include "shape/shape_private.h"

/* The decoder of softmax and log_softmax: the axes the input is
 * normalised along, the attribute axis (an integer or a list, default
 * -1); the rule is sym__rule_float. "inf" is the run. */
int
sym__decode_softmax(struct sym__infer *inf)
{
	static const char *const known[] = { "axis", NULL };
	const sym_shape *x = inf->in[0];
	unsigned char *mark = sym__at_alloc(inf, x->rank, 1);
	int64_t *axes, last = -1;
	size_t n;
	int r;

	if (!mark)
		return -1;
	inf->at.norm.mark = mark;
	if (sym__check_attrs(inf, known) < 0)
		return -1;
	r = sym__attr_ints(inf, "axis", 1, &axes, &n);
	if (r < 0)
		return -1;
	if (r == 1) {
		axes = &last;
		n = 1;
	}
	if (n == 0)
		return sym__infer_fail_attr(inf, "axis",
		    "attribute axis of %s must name at least one axis",
		    inf->op->name);
	return sym__axes(inf, "axis", axes, n, x->rank, 0, mark);
}

/* Check that input "p" of "inf" (gamma or beta of layer_norm or of its
 * gradient, called "role") has the dtype of x, input "ix", and its
 * dimensions from "from" on; return 0 or -1. */
int
sym__check_norm_param(struct sym__infer *inf, size_t ix, size_t p,
    const char *role, size_t from)
{
	const sym_shape *x = inf->in[ix], *g = inf->in[p];

	if (sym__same_dtype(inf, ix, p) < 0)
		return -1;
	if (g->rank != x->rank - from)
		return sym__infer_fail(inf, (int)p,
		    "%s %s of %s must have the shape of %s from dimension %zu "
		    "on, %s, but its shape is %s",
		    role, sym__in_name(inf, p), inf->op->name,
		    sym__in_name(inf, ix), from,
		    sym__txt_dim_list(inf, x->rank - from, x->dim + from),
		    sym__txt_dims(inf, g));
	for (size_t j = 0; j < g->rank; j++)
		if (sym__require_dims_equal(inf, p, j, ix, from + j) < 0)
			return -1;
	return 0;
}

/* Append the mean and variance outputs of layer_norm to "inf": the
 * dimensions of input 0 before "from", then 1s; return 0 or -1. */
static int
stats_outputs(struct sym__infer *inf, size_t from)
{
	const sym_shape *x = inf->in[0];
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));
	sym_expr *one = sym__tmp(inf, sym__const(inf->ctx, 1));

	if (!dims || !one)
		return sym__infer_nomem(inf);
	for (size_t i = 0; i < x->rank; i++)
		dims[i] = i < from ? x->dim[i] : one;
	if (sym__out_shape(inf, x->dtype, x->rank, dims) < 0 ||
	    sym__out_shape(inf, x->dtype, x->rank, dims) < 0)
		return -1;
	return 0;
}

/* Decode the attributes layer_norm and layer_norm_grad share for x,
 * input "x" of "inf": begin_norm_axis and begin_params_axis (default -1
 * each) and epsilon (default 1e-5, a positive number); 0 or -1. */
int
sym__decode_layer_norm_attrs(struct sym__infer *inf, size_t x)
{
	static const char *const known[] = { "begin_norm_axis",
		"begin_params_axis", "epsilon", NULL };
	size_t rank = inf->in[x]->rank;
	int64_t bna, bpa;

	if (sym__check_attrs(inf, known) < 0)
		return -1;
	if (sym__attr_number(inf, "epsilon", 1e-5, &inf->at.norm.epsilon) < 0)
		return -1;
	if (!(inf->at.norm.epsilon > 0))
		return sym__infer_fail_attr(inf, "epsilon",
		    "attribute epsilon of %s must be positive",
		    sym_op_name(inf->op));
	if (sym__attr_int(inf, "begin_norm_axis", 0, -1, &bna) < 0 ||
	    sym__attr_int(inf, "begin_params_axis", 0, -1, &bpa) < 0 ||
	    sym__axis(inf, "begin_norm_axis", bna, rank, x,
	        &inf->at.norm.begin_norm) < 0 ||
	    sym__axis(inf, "begin_params_axis", bpa, rank, x,
	        &inf->at.norm.begin_params) < 0)
		return -1;
	return 0;
}

/* The decoder of layer_norm: its attributes (see above) and one output
 * (y) or three (y, mean, variance); "inf" is the run. */
int
sym__decode_layer_norm(struct sym__infer *inf)
{
	if (inf->n_out_wanted > 1 && inf->n_out_wanted != 3)
		return sym__infer_fail(inf, -1,
		    "layer_norm produces 1 output (y) or 3 (y, mean, "
		    "variance), but %zu are named",
		    inf->n_out_wanted);
	return sym__decode_layer_norm_attrs(inf, 0);
}

/*
 * The rule of layer_norm(x, gamma, beta): normalisation over the
 * dimensions of x from begin_norm_axis on, gamma and beta of the shape of
 * x from begin_params_axis on; output y of the shape of x and, when three
 * outputs are named, the mean and the variance (MindSpore's LayerNorm).
 * "inf" is the run.
 */
int
sym__rule_layer_norm(struct sym__infer *inf)
{
	size_t norm = inf->at.norm.begin_norm;
	size_t params = inf->at.norm.begin_params;

	if (sym__dtype_float(inf, 0) < 0 ||
	    sym__check_norm_param(inf, 0, 1, "gamma", params) < 0 ||
	    sym__check_norm_param(inf, 0, 2, "beta", params) < 0 ||
	    sym__out_same(inf, 0) < 0)
		return -1;
	return inf->n_out_wanted == 3 ? stats_outputs(inf, norm) : 0;
}
