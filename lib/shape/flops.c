/* SPDX-License-Identifier: MIT */
/*
 * The work of an operator: how many floating-point operations one call
 * performs on given shapes, as an expression of their sizes. The cost
 * model of a sharded graph (lib/shard/cost.c) calls it on the local
 * shapes of every rank; sym_search(3) documents the counts.
 *
 * Contractions count a multiply and an add per term: matmul and
 * batch_matmul 2*M*N*K, conv2d and its two gradients 2 times the
 * elements of the forward output (dy) times the weight's elements per
 * output channel; max_pool2d, avg_pool2d and their gradients one
 * operation per element of the output (dy) and kernel tap. Every other operator counts a fixed number of
 * operations per element of the tensor it walks (its "measure": the
 * output, or input 0 for reductions, losses and optimizer updates); the
 * operators that only move or alias data (reshape, transpose, concat,
 * slice, ...) count none. The measure and the operations per element
 * of every operator are the last two columns of lib/shape/ops.def.
 */
#include <stdlib.h>

#include "shape/shape_private.h"

/* Return a new reference to the product of dimensions ["from", "to") of
 * "s"; NULL when out of memory. */
static sym_expr *
dims_product(const sym_shape *s, size_t from, size_t to)
{
	sym_expr *e = sym_expr_const(s->ctx, 1);

	for (size_t d = from; e && d < to && d < s->rank; d++)
		e = sym_expr_mul(e, sym_expr_copy(s->dim[d]));
	return e;
}

/* Return a new reference to the operations of a matmul-family call of
 * attributes "at" on "a" (input 0) producing "out": 2 * elements of out
 * * the contracted size. */
static sym_expr *
matmul_work(const struct sym__opattrs *at, const sym_shape *a,
    const sym_shape *out)
{
	size_t k =
	    a->rank >= 2 && at->matmul.transpose_a ? a->rank - 2 : a->rank - 1;

	if (a->rank == 0)
		return dims_product(out, 0, out->rank);
	return sym_expr_mul(dims_product(out, 0, out->rank),
	    sym_expr_copy(a->dim[k]));
}

/* Return a new reference to the operations of conv family operator "id"
 * on inputs "in" and outputs "out": 2 * elements of y (dy) * the weight's
 * elements per output channel. */
static sym_expr *
conv_work(enum sym__opid id, sym_shape *const *in, sym_shape *const *out)
{
	const sym_shape *y = id == SYM__OP_CONV2D ? out[0] : in[0];
	const sym_shape *w = id == SYM__OP_CONV2D ? in[1]
	    : id == SYM__OP_CONV2D_INPUT_GRAD     ? in[1]
	                                          : in[2];

	return sym_expr_mul(dims_product(y, 0, y->rank),
	    dims_product(w, 1, w->rank));
}

/* Return a new reference to the floating-point operations of one call of
 * operator "id" with decoded attributes "at" on the shapes "in" ("n_in")
 * producing "out" ("n_out"), as an expression of their sizes (see the top
 * of the file); NULL when out of memory or the shapes are missing. */
sym_expr *
sym__op_flops(enum sym__opid id, const struct sym__opattrs *at,
    sym_shape *const *in, size_t n_in, sym_shape *const *out, size_t n_out)
{
	const sym_op *op = sym__op(id);
	const sym_shape *m;
	sym_expr *e;

	if (!op || !n_out || !out[0])
		return NULL;
	switch (op->work) {
	case SYM__WORK_MATMUL:
		e = n_in ? matmul_work(at, in[0], out[0]) : NULL;
		break;
	case SYM__WORK_CONV:
		e = n_in >= (id == SYM__OP_CONV2D ? 2u : 3u)
		    ? conv_work(id, in, out)
		    : NULL;
		break;
	case SYM__WORK_POOL:
		m = id == SYM__OP_MAX_POOL2D || id == SYM__OP_AVG_POOL2D
		    ? out[0]
		    : n_in ? in[0]
		           : NULL;
		e = m ? sym_expr_mul_si(sym_expr_mul_si(dims_product(m, 0,
		                                            m->rank),
		                            at->pool.kernel[0]),
		            at->pool.kernel[1])
		      : NULL;
		break;
	case SYM__WORK_IN:
	case SYM__WORK_OUT:
		m = op->work == SYM__WORK_IN && n_in ? in[0] : out[0];
		e = dims_product(m, 0, m->rank);
		break;
	case SYM__WORK_NONE:
		return sym_expr_const(out[0]->ctx, 0);
	default:
		return NULL;
	}
	return e ? sym_expr_mul_si(e, op->per) : NULL;
}
