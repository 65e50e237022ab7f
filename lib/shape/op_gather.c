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

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_axis(inf, 0, 0, inf->in[table]->rank, table,
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

/* Return the dimensions of the gather of the table, input "ip" of "inf",
 * by the indices, input "ii", along the table's axis "ax": table[:ax] +
 * indices + table[ax+1:], their number in "*rank", in the scratch of
 * "inf"; NULL when out of memory (an error on "inf"). */
static sym_expr **
gather_dims(struct sym__infer *inf, size_t ip, size_t ii, size_t ax,
    size_t *rank)
{
	const sym_shape *p = inf->in[ip], *ix = inf->in[ii];
	sym_expr **dims;
	size_t n = 0;

	*rank = p->rank - 1 + ix->rank;
	dims = sym__scratch(inf, *rank, sizeof(*dims));
	if (!dims) {
		sym__infer_nomem(inf);
		return NULL;
	}
	for (size_t i = 0; i < ax; i++)
		dims[n++] = p->dim[i];
	for (size_t i = 0; i < ix->rank; i++)
		dims[n++] = ix->dim[i];
	for (size_t i = ax + 1; i < p->rank; i++)
		dims[n++] = p->dim[i];
	return dims;
}

/* Check in "inf" the gather of the table, input "ip", by the indices,
 * input "ii", of an integer dtype, along the decoded axis; return the
 * dimensions of its output (see gather_dims), their number in "*rank",
 * or NULL on error. */
sym_expr **
sym__gather_dims(struct sym__infer *inf, size_t ip, size_t ii, size_t *rank)
{
	if (sym__dtype_integer(inf, ii, "indices") < 0)
		return NULL;
	return gather_dims(inf, ip, ii, inf->at.gather.axis, rank);
}

/* Check in "inf" the embedding of the ids, input "ii", of an integer
 * dtype, in the table [V, D], input "it"; return the dimensions ids.shape
 * + [D] of its output (the gather of the table along axis 0), their
 * number in "*rank", or NULL on error. */
sym_expr **
sym__embedding_dims(struct sym__infer *inf, size_t ii, size_t it, size_t *rank)
{
	if (sym__dtype_integer(inf, ii, "ids") < 0 ||
	    sym__rank_is(inf, it, 2) < 0)
		return NULL;
	return gather_dims(inf, it, ii, 0, rank);
}

/* The rule of gather(params, indices): output params[:axis] + indices +
 * params[axis+1:] for the decoded axis; the indices have an integer
 * dtype. "inf" is the run. */
int
sym__rule_gather(struct sym__infer *inf)
{
	size_t rank;
	sym_expr **dims = sym__gather_dims(inf, 0, 1, &rank);

	if (!dims)
		return -1;
	return sym__out_shape(inf, inf->in[0]->dtype, rank, dims);
}

/* The rule of embedding(ids, table): integer ids and a table [V, D] give
 * ids.shape + [D] in the table's dtype; "inf" is the run. */
int
sym__rule_embedding(struct sym__infer *inf)
{
	size_t rank;
	sym_expr **dims = sym__embedding_dims(inf, 0, 1, &rank);

	if (!dims)
		return -1;
	return sym__out_shape(inf, inf->in[1]->dtype, rank, dims);
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

	if (sym__check_attrs(inf, known) < 0)
		return -1;
	d = depth(inf);
	if (!d ||
	    sym__attr_dtype(inf, "dtype", 0, SYM_DT_F32, &at->gather.dtype) <
	        0 ||
	    sym__attr_axis(inf, 0, -1, inf->in[0]->rank + 1, 0,
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
