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
 * slice, ...) count none.
 */
#include <stdlib.h>

#include "shape/shape_private.h"

/* What an operator's count is measured on. */
enum measure {
	M_MISSING, /* no entry: a new operator without its count */
	M_NONE,    /* moves data only: 0 */
	M_OUT,     /* the elements of output 0 */
	M_IN,      /* the elements of input 0 */
	M_MATMUL,  /* 2*M*N*K */
	M_CONV,    /* 2 * elements of y (or dy) * weight elements / Cout */
	M_POOL     /* elements of y (or dy) * kernel height * kernel width */
};

/* The measure and the operations per element of each operator. */
static const struct {
	unsigned char measure;
	unsigned char per;
} work[SYM__N_OPS] = {
	[SYM__OP_MATMUL] = { M_MATMUL, 2 },
	[SYM__OP_BATCH_MATMUL] = { M_MATMUL, 2 },
	[SYM__OP_RELU] = { M_OUT, 1 },
	[SYM__OP_GELU] = { M_OUT, 8 },
	[SYM__OP_EXP] = { M_OUT, 4 },
	[SYM__OP_LOG] = { M_OUT, 4 },
	[SYM__OP_NEG] = { M_OUT, 1 },
	[SYM__OP_SQRT] = { M_OUT, 2 },
	[SYM__OP_TANH] = { M_OUT, 4 },
	[SYM__OP_SIGMOID] = { M_OUT, 4 },
	[SYM__OP_CAST] = { M_OUT, 1 },
	[SYM__OP_IDENTITY] = { M_NONE, 0 },
	[SYM__OP_ADD] = { M_OUT, 1 },
	[SYM__OP_SUB] = { M_OUT, 1 },
	[SYM__OP_MUL] = { M_OUT, 1 },
	[SYM__OP_DIV] = { M_OUT, 1 },
	[SYM__OP_MAXIMUM] = { M_OUT, 1 },
	[SYM__OP_MINIMUM] = { M_OUT, 1 },
	[SYM__OP_BIAS_ADD] = { M_OUT, 1 },
	[SYM__OP_FILL_LIKE] = { M_OUT, 1 },
	[SYM__OP_RELU_GRAD] = { M_OUT, 1 },
	[SYM__OP_EQUAL] = { M_OUT, 1 },
	[SYM__OP_NOT_EQUAL] = { M_OUT, 1 },
	[SYM__OP_LESS] = { M_OUT, 1 },
	[SYM__OP_LESS_EQUAL] = { M_OUT, 1 },
	[SYM__OP_GREATER] = { M_OUT, 1 },
	[SYM__OP_GREATER_EQUAL] = { M_OUT, 1 },
	[SYM__OP_LOGICAL_AND] = { M_OUT, 1 },
	[SYM__OP_LOGICAL_OR] = { M_OUT, 1 },
	[SYM__OP_LOGICAL_NOT] = { M_OUT, 1 },
	[SYM__OP_WHERE] = { M_OUT, 1 },
	[SYM__OP_ERF] = { M_OUT, 4 },
	[SYM__OP_POW] = { M_OUT, 8 },
	[SYM__OP_RSQRT] = { M_OUT, 3 },
	[SYM__OP_RECIPROCAL] = { M_OUT, 1 },
	[SYM__OP_ABS] = { M_OUT, 1 },
	[SYM__OP_SIGN] = { M_OUT, 1 },
	[SYM__OP_FLOOR] = { M_OUT, 1 },
	[SYM__OP_CEIL] = { M_OUT, 1 },
	[SYM__OP_CLIP] = { M_OUT, 2 },
	[SYM__OP_SILU] = { M_OUT, 5 },
	[SYM__OP_SOFTPLUS] = { M_OUT, 8 },
	[SYM__OP_ERF_GRAD] = { M_OUT, 6 },
	[SYM__OP_RSQRT_GRAD] = { M_OUT, 3 },
	[SYM__OP_RECIPROCAL_GRAD] = { M_OUT, 3 },
	[SYM__OP_CLIP_GRAD] = { M_OUT, 3 },
	[SYM__OP_SILU_GRAD] = { M_OUT, 8 },
	[SYM__OP_SOFTPLUS_GRAD] = { M_OUT, 6 },
	[SYM__OP_POW_GRAD] = { M_OUT, 20 },
	[SYM__OP_RESHAPE] = { M_NONE, 0 },
	[SYM__OP_FLATTEN] = { M_NONE, 0 },
	[SYM__OP_TRANSPOSE] = { M_NONE, 0 },
	[SYM__OP_PERMUTE] = { M_NONE, 0 },
	[SYM__OP_EXPAND_DIMS] = { M_NONE, 0 },
	[SYM__OP_SQUEEZE] = { M_NONE, 0 },
	[SYM__OP_EXPAND] = { M_NONE, 0 },
	[SYM__OP_TILE] = { M_NONE, 0 },
	[SYM__OP_PAD] = { M_NONE, 0 },
	[SYM__OP_CONCAT] = { M_NONE, 0 },
	[SYM__OP_SPLIT] = { M_NONE, 0 },
	[SYM__OP_SLICE] = { M_NONE, 0 },
	[SYM__OP_REDUCE_SUM] = { M_IN, 1 },
	[SYM__OP_REDUCE_MEAN] = { M_IN, 1 },
	[SYM__OP_REDUCE_MAX] = { M_IN, 1 },
	[SYM__OP_SUM_TO] = { M_IN, 1 },
	[SYM__OP_REDUCE_MIN] = { M_IN, 1 },
	[SYM__OP_REDUCE_PROD] = { M_IN, 1 },
	[SYM__OP_ARGMAX] = { M_IN, 1 },
	[SYM__OP_ARGMIN] = { M_IN, 1 },
	[SYM__OP_SOFTMAX] = { M_OUT, 5 },
	[SYM__OP_LOG_SOFTMAX] = { M_OUT, 5 },
	[SYM__OP_LAYER_NORM] = { M_OUT, 8 },
	[SYM__OP_BATCH_NORM] = { M_OUT, 4 },
	[SYM__OP_BATCH_NORM_STATS] = { M_IN, 3 },
	[SYM__OP_BATCH_NORM_UPDATE] = { M_OUT, 6 },
	[SYM__OP_BATCH_NORM_GRAD_PARAMS] = { M_IN, 4 },
	[SYM__OP_BATCH_NORM_GRAD] = { M_OUT, 6 },
	[SYM__OP_GATHER] = { M_OUT, 1 },
	[SYM__OP_EMBEDDING] = { M_OUT, 1 },
	[SYM__OP_ONE_HOT] = { M_OUT, 1 },
	[SYM__OP_SOFTMAX_CROSS_ENTROPY] = { M_IN, 6 },
	[SYM__OP_SCE_COUNT] = { M_IN, 1 },
	[SYM__OP_SCE_TARGET] = { M_IN, 1 },
	[SYM__OP_SCE_SUMEXP] = { M_IN, 2 },
	[SYM__OP_CONV2D] = { M_CONV, 2 },
	[SYM__OP_MAX_POOL2D] = { M_POOL, 1 },
	[SYM__OP_AVG_POOL2D] = { M_POOL, 1 },
	[SYM__OP_GLOBAL_AVG_POOL] = { M_IN, 1 },
	[SYM__OP_MAX_POOL2D_GRAD] = { M_POOL, 1 },
	[SYM__OP_AVG_POOL2D_GRAD] = { M_POOL, 1 },
	[SYM__OP_GLOBAL_AVG_POOL_GRAD] = { M_OUT, 1 },
	[SYM__OP_DROPOUT] = { M_OUT, 4 },
	[SYM__OP_DROPOUT_GRAD] = { M_OUT, 4 },
	[SYM__OP_TRIL] = { M_OUT, 1 },
	[SYM__OP_TRIU] = { M_OUT, 1 },
	[SYM__OP_CUMSUM] = { M_OUT, 1 },
	[SYM__OP_ARANGE] = { M_OUT, 1 },
	[SYM__OP_RANGE] = { M_OUT, 1 },
	[SYM__OP_FULL] = { M_OUT, 1 },
	[SYM__OP_ONES] = { M_OUT, 1 },
	[SYM__OP_ZEROS] = { M_OUT, 1 },
	[SYM__OP_SGD_UPDATE] = { M_IN, 4 },
	[SYM__OP_MOMENTUM_UPDATE] = { M_IN, 4 },
	[SYM__OP_ADAM_UPDATE] = { M_IN, 12 },
	[SYM__OP_ADAMW_UPDATE] = { M_IN, 14 },
	[SYM__OP_INCREMENT] = { M_IN, 1 },
	[SYM__OP_GELU_GRAD] = { M_OUT, 10 },
	[SYM__OP_SIGMOID_GRAD] = { M_OUT, 3 },
	[SYM__OP_TANH_GRAD] = { M_OUT, 3 },
	[SYM__OP_SQRT_GRAD] = { M_OUT, 2 },
	[SYM__OP_SCE_GRAD] = { M_OUT, 6 },
	[SYM__OP_REDUCE_SUM_GRAD] = { M_OUT, 1 },
	[SYM__OP_REDUCE_MEAN_GRAD] = { M_OUT, 1 },
	[SYM__OP_REDUCE_MAX_GRAD] = { M_OUT, 2 },
	[SYM__OP_SOFTMAX_GRAD] = { M_OUT, 4 },
	[SYM__OP_LOG_SOFTMAX_GRAD] = { M_OUT, 4 },
	[SYM__OP_LAYER_NORM_GRAD] = { M_OUT, 12 },
	[SYM__OP_MAXIMUM_GRAD] = { M_OUT, 2 },
	[SYM__OP_MINIMUM_GRAD] = { M_OUT, 2 },
	[SYM__OP_CONV2D_INPUT_GRAD] = { M_CONV, 2 },
	[SYM__OP_CONV2D_WEIGHT_GRAD] = { M_CONV, 2 },
	[SYM__OP_GATHER_GRAD] = { M_OUT, 1 },
	[SYM__OP_EMBEDDING_GRAD] = { M_OUT, 1 },
	[SYM__OP_SLICE_GRAD] = { M_OUT, 1 },
	[SYM__OP_REDUCE_PROD_GRAD] = { M_OUT, 3 },
};

/* Return 1 when every operator has its entry in the table of work (the
 * registry test asks). */
int
sym__op_has_work(enum sym__opid id)
{
	return id < SYM__N_OPS && work[id].measure != M_MISSING;
}

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
	const sym_shape *m;
	sym_expr *e;

	if (id >= SYM__N_OPS || !n_out || !out[0])
		return NULL;
	switch (work[id].measure) {
	case M_MATMUL:
		e = n_in ? matmul_work(at, in[0], out[0]) : NULL;
		break;
	case M_CONV:
		e = n_in >= (id == SYM__OP_CONV2D ? 2u : 3u)
		    ? conv_work(id, in, out)
		    : NULL;
		break;
	case M_POOL:
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
	case M_IN:
	case M_OUT:
		m = work[id].measure == M_IN && n_in ? in[0] : out[0];
		e = dims_product(m, 0, m->rank);
		break;
	case M_NONE:
		return sym_expr_const(out[0]->ctx, 0);
	default:
		return NULL;
	}
	return e ? sym_expr_mul_si(e, work[id].per) : NULL;
}
