/* SPDX-License-Identifier: MIT */
/*
 * The gather family: gather, embedding and one_hot.
 */
#include "shape/shape_private.h"

/* Decode the attribute axis (default 0) of gather and gather_grad, an
 * axis of the table, input "table" of "inf"; 0 or -1. */
int
sym__decode_gather_axis(struct sym__infer *inf, size_t table)
{
	static const char *const known[] = { "axis", NULL };
	int64_t axis;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_int(inf, "axis", 0, 0, &axis) < 0 ||
	    sym__axis(inf, "axis", axis, inf->in[table]->rank, table,
	        &inf->at.gather.axis) < 0)
		return -1;
	return 0;
}

/* The decoder of gather: the attribute axis of the table (input 0);
 * "inf" is the run. */
int
sym__decode_gather(struct sym__infer *inf)
{
	return sym__decode_gather_axis(inf, 0);
}

/* The rule of gather(params, indices): output params[:axis] + indices +
 * params[axis+1:] for the decoded axis; the indices have an integer
 * dtype. "inf" is the run. */
int
sym__rule_gather(struct sym__infer *inf)
{
	const sym_shape *p = inf->in[0], *ix = inf->in[1];
	size_t rank, ax = inf->at.gather.axis, n = 0;
	sym_expr **dims;

	if (sym__dtype_integer(inf, 1, "indices") < 0)
		return -1;
	rank = p->rank - 1 + ix->rank;
	dims = sym__scratch(inf, rank, sizeof(*dims));
	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t i = 0; i < ax; i++)
		dims[n++] = p->dim[i];
	for (size_t i = 0; i < ix->rank; i++)
		dims[n++] = ix->dim[i];
	for (size_t i = ax + 1; i < p->rank; i++)
		dims[n++] = p->dim[i];
	return sym__out_shape(inf, p->dtype, rank, dims);
}

/* The rule of embedding(ids, table): integer ids and a table [V, D] give
 * ids.shape + [D] in the table's dtype; "inf" is the run. */
int
sym__rule_embedding(struct sym__infer *inf)
{
	const sym_shape *ids = inf->in[0], *t = inf->in[1];
	sym_expr **dims;

	if (sym__dtype_integer(inf, 0, "ids") < 0 ||
	    sym__rank_is(inf, 1, 2) < 0)
		return -1;
	dims = sym__scratch(inf, ids->rank + 1, sizeof(*dims));
	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t i = 0; i < ids->rank; i++)
		dims[i] = ids->dim[i];
	dims[ids->rank] = t->dim[1];
	return sym__out_shape(inf, t->dtype, ids->rank + 1, dims);
}

/* Return the depth of one_hot in "inf": the required attribute depth, an
 * integer or a list of one expression, at least 1 (a requirement when
 * symbolic), valid as long as the attributes; NULL on error. */
static sym_expr *
depth(struct sym__infer *inf)
{
	const struct sym__attr *at = sym__attrs_find(inf->attrs, "depth");
	sym_expr *d;

	if (!at) {
		sym__infer_fail_attr(inf, "depth",
		    "one_hot needs the attribute depth (for example depth=10)");
		return NULL;
	}
	if (at->kind == SYM_ATTR_INT)
		d = sym__tmp(inf, sym__const(inf->ctx, at->i));
	else if (at->kind == SYM_ATTR_LIST && at->n == 1)
		d = at->items[0];
	else {
		sym__infer_fail_attr(inf, "depth",
		    "attribute depth of one_hot must be an integer or a list "
		    "of one expression");
		return NULL;
	}
	if (!d) {
		sym__infer_nomem(inf);
		return NULL;
	}
	if (sym__const_sign(d) <= 0) {
		sym__infer_fail_attr(inf, "depth",
		    "attribute depth of one_hot is %s: it must be at least 1",
		    sym__txt_expr(inf, d));
		return NULL;
	}
	if (sym__require_ge(inf, d, sym__tmp(inf, sym__const(inf->ctx, 1)),
	        "the depth of one_hot (%s) must be at least 1",
	        sym__txt_expr(inf, d)) < 0)
		return NULL;
	return d;
}

/* The decoder of one_hot: the depth, the axis of the output where the
 * classes go (default -1: last) and the dtype (default f32); "inf" is
 * the run. */
int
sym__decode_one_hot(struct sym__infer *inf)
{
	static const char *const known[] = { "depth", "dtype", "axis", NULL };
	struct sym__opattrs *at = &inf->at;
	sym_expr *d;
	int64_t axis;

	if (sym__check_attrs(inf, known) < 0)
		return -1;
	d = depth(inf);
	if (!d ||
	    sym__attr_dtype(inf, "dtype", 0, SYM_DT_F32, &at->gather.dtype) <
	        0 ||
	    sym__attr_int(inf, "axis", 0, -1, &axis) < 0 ||
	    sym__axis(inf, "axis", axis, inf->in[0]->rank + 1, 0,
	        &at->gather.axis) < 0)
		return -1;
	at->gather.depth_expr = d;
	if (sym_expr_get_const(d, &at->gather.depth) < 0)
		at->gather.depth = -1;
	return 0;
}

/* The rule of one_hot(indices): integer indices give indices.shape with
 * the depth inserted at the decoded axis, in the decoded dtype; "inf" is
 * the run. */
int
sym__rule_one_hot(struct sym__infer *inf)
{
	const sym_shape *ix = inf->in[0];
	sym_expr *d = (sym_expr *)inf->at.gather.depth_expr;
	size_t ax = inf->at.gather.axis;
	sym_dtype dt = inf->at.gather.dtype;
	sym_expr **dims;

	if (sym__dtype_integer(inf, 0, "indices") < 0)
		return -1;
	dims = sym__scratch(inf, ix->rank + 1, sizeof(*dims));
	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t i = 0, j = 0; i <= ix->rank; i++)
		dims[i] = i == ax ? d : ix->dim[j++];
	inf->at.gather.depth_expr = NULL;
	return sym__out_shape(inf, dt, ix->rank + 1, dims);
}
