/* SPDX-License-Identifier: MIT */
/*
 * The operator registry: one entry per operator identity (lib/shape/op.h)
 * with its name, family, arity, positional arguments, attribute decoder,
 * shape rule and the facts the executor needs. The sharding rules
 * (lib/rules/rules.c) and the kernels (lib/kern/kernel.c) are tables
 * indexed by the same identities.
 */
#include <string.h>

#include "shape/shape_private.h"

static const char *const reshape_pos[] = { "shape", NULL };
static const char *const perm_pos[] = { "perm", NULL };
static const char *const sum_to_pos[] = { "shape", NULL };
static const char *const expand_pos[] = { "shape", NULL };
static const char *const tile_pos[] = { "repeats", NULL };
static const char *const pad_pos[] = { "pads", NULL };
static const char *const arange_pos[] = { "range", NULL };
static const char *const full_pos[] = { "shape", NULL };

static const char *const family_name[SYM__N_FAMILIES] = {
	[SYM__FAM_MATMUL] = "matmul",
	[SYM__FAM_ELEMENTWISE] = "elementwise",
	[SYM__FAM_LAYOUT] = "layout",
	[SYM__FAM_CONCAT] = "concat",
	[SYM__FAM_REDUCE] = "reduce",
	[SYM__FAM_NORM] = "norm",
	[SYM__FAM_GATHER] = "gather",
	[SYM__FAM_LOSS] = "loss",
	[SYM__FAM_CONV] = "conv",
	[SYM__FAM_POOL] = "pool",
	[SYM__FAM_DROPOUT] = "dropout",
	[SYM__FAM_INDEX] = "index",
	[SYM__FAM_GENERATE] = "generate",
	[SYM__FAM_OPTIM] = "optim",
	[SYM__FAM_GRAD] = "grad",
};

/* An entry with no index operand, no normaliser and no flags. */
#define OP(ID, NAME, FAM, MIN, MAX, DECODE, RULE)                              \
	[SYM__OP_##ID] = { SYM__OP_##ID, NAME, SYM__FAM_##FAM, MIN, MAX, NULL, \
		DECODE, RULE, 0, SYM__NORM_NONE, { -1, 0, 0 }, 0 }
/* The same with every field given. */
#define OPX(ID, NAME, FAM, MIN, MAX, POS, DECODE, RULE, FLAGS, NORM, IN, T, D) \
	[SYM__OP_##ID] = { SYM__OP_##ID, NAME, SYM__FAM_##FAM, MIN, MAX, POS,  \
		DECODE, RULE, FLAGS, NORM, { IN, T, D }, 0 }
/* The same with the input whose dimensions the normaliser counts. */
#define OPN(ID, NAME, FAM, MIN, MAX, DECODE, RULE, NORM, NIN, IN, T, D)        \
	[SYM__OP_##ID] = { SYM__OP_##ID, NAME, SYM__FAM_##FAM, MIN, MAX, NULL, \
		DECODE, RULE, 0, NORM, { IN, T, D }, NIN }

static const sym_op ops[SYM__N_OPS] = {
	OP(MATMUL, "matmul", MATMUL, 2, 2, sym__decode_matmul,
	    sym__rule_matmul),
	OP(BATCH_MATMUL, "batch_matmul", MATMUL, 2, 2, sym__decode_matmul,
	    sym__rule_batch_matmul),

	OP(RELU, "relu", ELEMENTWISE, 1, 1, sym__decode_none,
	    sym__rule_numeric),
	OP(GELU, "gelu", ELEMENTWISE, 1, 1, sym__decode_gelu, sym__rule_float),
	OP(EXP, "exp", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_float),
	OP(LOG, "log", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_float),
	OP(NEG, "neg", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_numeric),
	OP(SQRT, "sqrt", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_float),
	OP(TANH, "tanh", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_float),
	OP(SIGMOID, "sigmoid", ELEMENTWISE, 1, 1, sym__decode_none,
	    sym__rule_float),
	OP(CAST, "cast", ELEMENTWISE, 1, 1, sym__decode_cast, sym__rule_cast),
	OPX(IDENTITY, "identity", ELEMENTWISE, 1, 1, NULL, sym__decode_none,
	    sym__rule_identity, SYM__OPF_ALIAS, SYM__NORM_NONE, -1, 0, 0),
	OP(ADD, "add", ELEMENTWISE, 2, 2, sym__decode_none, sym__rule_binary),
	OP(SUB, "sub", ELEMENTWISE, 2, 2, sym__decode_none, sym__rule_binary),
	OP(MUL, "mul", ELEMENTWISE, 2, 2, sym__decode_none, sym__rule_binary),
	OP(DIV, "div", ELEMENTWISE, 2, 2, sym__decode_none, sym__rule_binary),
	OP(MAXIMUM, "maximum", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_binary),
	OP(MINIMUM, "minimum", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_binary),
	OP(BIAS_ADD, "bias_add", ELEMENTWISE, 2, 2, sym__decode_bias_add,
	    sym__rule_bias_add),
	OP(FILL_LIKE, "fill_like", ELEMENTWISE, 1, 1, sym__decode_fill_like,
	    sym__rule_identity),
	OP(RELU_GRAD, "relu_grad", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_same_shapes),
	OP(EQUAL, "equal", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_compare),
	OP(NOT_EQUAL, "not_equal", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_compare),
	OP(LESS, "less", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_compare),
	OP(LESS_EQUAL, "less_equal", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_compare),
	OP(GREATER, "greater", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_compare),
	OP(GREATER_EQUAL, "greater_equal", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_compare),
	OP(LOGICAL_AND, "logical_and", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_logical),
	OP(LOGICAL_OR, "logical_or", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_logical),
	OP(LOGICAL_NOT, "logical_not", ELEMENTWISE, 1, 1, sym__decode_none,
	    sym__rule_logical),
	OP(WHERE, "where", ELEMENTWISE, 3, 3, sym__decode_none,
	    sym__rule_where),
	OP(ERF, "erf", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_float),
	OP(POW, "pow", ELEMENTWISE, 2, 2, sym__decode_none, sym__rule_pow),
	OP(RSQRT, "rsqrt", ELEMENTWISE, 1, 1, sym__decode_none,
	    sym__rule_float),
	OP(RECIPROCAL, "reciprocal", ELEMENTWISE, 1, 1, sym__decode_none,
	    sym__rule_float),
	OP(ABS, "abs", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_signed),
	OP(SIGN, "sign", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_signed),
	OP(FLOOR, "floor", ELEMENTWISE, 1, 1, sym__decode_none,
	    sym__rule_float),
	OP(CEIL, "ceil", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_float),
	OP(CLIP, "clip", ELEMENTWISE, 1, 1, sym__decode_clip, sym__rule_clip),
	OP(SILU, "silu", ELEMENTWISE, 1, 1, sym__decode_none, sym__rule_float),
	OP(SOFTPLUS, "softplus", ELEMENTWISE, 1, 1, sym__decode_softplus,
	    sym__rule_float),
	OP(ERF_GRAD, "erf_grad", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_grad_unary),
	OP(RSQRT_GRAD, "rsqrt_grad", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_grad_unary),
	OP(RECIPROCAL_GRAD, "reciprocal_grad", ELEMENTWISE, 2, 2,
	    sym__decode_none, sym__rule_grad_unary),
	OP(CLIP_GRAD, "clip_grad", ELEMENTWISE, 2, 2, sym__decode_clip,
	    sym__rule_grad_unary),
	OP(SILU_GRAD, "silu_grad", ELEMENTWISE, 2, 2, sym__decode_none,
	    sym__rule_grad_unary),
	OP(SOFTPLUS_GRAD, "softplus_grad", ELEMENTWISE, 2, 2,
	    sym__decode_softplus, sym__rule_grad_unary),
	OP(POW_GRAD, "pow_grad", ELEMENTWISE, 3, 3, sym__decode_none,
	    sym__rule_extremum_grad),

	OPX(RESHAPE, "reshape", LAYOUT, 1, 1, reshape_pos, NULL,
	    sym__rule_reshape, SYM__OPF_ALIAS, SYM__NORM_NONE, -1, 0, 0),
	OPX(FLATTEN, "flatten", LAYOUT, 1, 1, NULL, sym__decode_none,
	    sym__rule_flatten, SYM__OPF_ALIAS, SYM__NORM_NONE, -1, 0, 0),
	OPX(TRANSPOSE, "transpose", LAYOUT, 1, 1, perm_pos,
	    sym__decode_transpose, sym__rule_transpose, 0, SYM__NORM_NONE, -1,
	    0, 0),
	OPX(PERMUTE, "permute", LAYOUT, 1, 1, perm_pos, sym__decode_transpose,
	    sym__rule_transpose, 0, SYM__NORM_NONE, -1, 0, 0),
	OPX(EXPAND_DIMS, "expand_dims", LAYOUT, 1, 1, NULL,
	    sym__decode_expand_dims, sym__rule_expand_dims, SYM__OPF_ALIAS,
	    SYM__NORM_NONE, -1, 0, 0),
	OPX(SQUEEZE, "squeeze", LAYOUT, 1, 1, NULL, sym__decode_squeeze,
	    sym__rule_squeeze, SYM__OPF_ALIAS, SYM__NORM_NONE, -1, 0, 0),
	OPX(EXPAND, "expand", LAYOUT, 1, 1, expand_pos, sym__decode_expand,
	    sym__rule_expand, 0, SYM__NORM_NONE, -1, 0, 0),
	OPX(TILE, "tile", LAYOUT, 1, 1, tile_pos, sym__decode_tile,
	    sym__rule_tile, 0, SYM__NORM_NONE, -1, 0, 0),
	OPX(PAD, "pad", LAYOUT, 1, 1, pad_pos, sym__decode_pad, sym__rule_pad,
	    0, SYM__NORM_NONE, -1, 0, 0),

	OP(CONCAT, "concat", CONCAT, 1, -1, sym__decode_concat,
	    sym__rule_concat),
	OP(SPLIT, "split", CONCAT, 1, 1, sym__decode_split, sym__rule_split),
	OP(SLICE, "slice", CONCAT, 1, 1, sym__decode_slice, sym__rule_slice),

	OP(REDUCE_SUM, "reduce_sum", REDUCE, 1, 1, sym__decode_reduce,
	    sym__rule_reduce),
	OPX(REDUCE_MEAN, "reduce_mean", REDUCE, 1, 1, NULL, sym__decode_reduce,
	    sym__rule_reduce, 0, SYM__NORM_REDUCED, -1, 0, 0),
	OP(REDUCE_MAX, "reduce_max", REDUCE, 1, 1, sym__decode_reduce,
	    sym__rule_reduce),
	OPX(SUM_TO, "sum_to", REDUCE, 1, 1, sum_to_pos, sym__decode_sum_to,
	    sym__rule_sum_to, 0, SYM__NORM_NONE, -1, 0, 0),
	OP(REDUCE_MIN, "reduce_min", REDUCE, 1, 1, sym__decode_reduce,
	    sym__rule_reduce),
	OP(REDUCE_PROD, "reduce_prod", REDUCE, 1, 1, sym__decode_reduce,
	    sym__rule_reduce),
	OP(ARGMAX, "argmax", REDUCE, 1, 1, sym__decode_arg, sym__rule_arg),
	OP(ARGMIN, "argmin", REDUCE, 1, 1, sym__decode_arg, sym__rule_arg),

	OP(SOFTMAX, "softmax", NORM, 1, 1, sym__decode_softmax,
	    sym__rule_float),
	OP(LOG_SOFTMAX, "log_softmax", NORM, 1, 1, sym__decode_softmax,
	    sym__rule_float),
	OP(LAYER_NORM, "layer_norm", NORM, 3, 3, sym__decode_layer_norm,
	    sym__rule_layer_norm),
	/* batch_norm(x, gamma, beta, running_mean, running_var, stats):
	 * the graph adds "stats" = batch_norm_stats(x) before it and
	 * batch_norm_update(running_mean, running_var, stats) after it
	 * (graph.c), so that the sums over a split batch are partial sums
	 * the sharding pass all-reduces. */
	OP(BATCH_NORM, "batch_norm", NORM, 5, 6, sym__decode_batch_norm,
	    sym__rule_batch_norm),
	OP(BATCH_NORM_STATS, "batch_norm_stats", NORM, 1, 1,
	    sym__decode_batch_norm, sym__rule_batch_norm_stats),
	OPX(BATCH_NORM_UPDATE, "batch_norm_update", NORM, 3, 3, NULL,
	    sym__decode_batch_norm, sym__rule_batch_norm_update,
	    SYM__OPF_INPLACE, SYM__NORM_NONE, -1, 0, 0),
	OP(BATCH_NORM_GRAD_PARAMS, "batch_norm_grad_params", NORM, 5, 5,
	    sym__decode_batch_norm, sym__rule_batch_norm_grad_params),
	OP(BATCH_NORM_GRAD, "batch_norm_grad", NORM, 8, 8,
	    sym__decode_batch_norm, sym__rule_batch_norm_grad),

	/* gather's indices (input 1) are bounded by the gathered axis of the
	 * table, embedding's ids (input 0) by the rows of the table (input
	 * 1), one_hot's indices by the class axis of its output. */
	OPX(GATHER, "gather", GATHER, 2, 2, NULL, sym__decode_gather,
	    sym__rule_gather, 0, SYM__NORM_NONE, 1, 0, SYM__INDEX_AXIS),
	OPX(EMBEDDING, "embedding", GATHER, 2, 2, NULL, sym__decode_none,
	    sym__rule_embedding, 0, SYM__NORM_NONE, 0, 1, 0),
	OPX(ONE_HOT, "one_hot", GATHER, 1, 1, NULL, sym__decode_one_hot,
	    sym__rule_one_hot, 0, SYM__NORM_NONE, 0, -1, SYM__INDEX_AXIS),

	/* The labels (input 1) are bounded by the classes of the logits; a
	 * mean divides by the global batch. */
	OPX(SOFTMAX_CROSS_ENTROPY, "softmax_cross_entropy", LOSS, 2, 5, NULL,
	    sym__decode_sce, sym__rule_sce, 0, SYM__NORM_BATCH, 1, 0, 1),
	/* The rows that count for the mean of softmax_cross_entropy; the
	 * graph adds it before a mean (lib/graph/check.c). */
	OP(SCE_COUNT, "sce_count", LOSS, 1, 1, sym__decode_sce,
	    sym__rule_sce_count),
	/* The statistics of a class-split softmax_cross_entropy (its
	 * attribute vocab_parallel; lib/graph/check.c). */
	OP(SCE_TARGET, "sce_target", LOSS, 2, 2, sym__decode_sce,
	    sym__rule_sce_target),
	OP(SCE_SUMEXP, "sce_sumexp", LOSS, 3, 3, sym__decode_sce,
	    sym__rule_sce_sumexp),

	OP(CONV2D, "conv2d", CONV, 2, 2, sym__decode_conv2d, sym__rule_conv2d),

	/* Pooling in NCHW; the gradients take (dy, x) and the forward
	 * operator's attributes. */
	OP(MAX_POOL2D, "max_pool2d", POOL, 1, 1, sym__decode_pool,
	    sym__rule_pool2d),
	OP(AVG_POOL2D, "avg_pool2d", POOL, 1, 1, sym__decode_pool,
	    sym__rule_pool2d),
	OP(GLOBAL_AVG_POOL, "global_avg_pool", POOL, 1, 1, sym__decode_none,
	    sym__rule_global_avg_pool),
	OP(MAX_POOL2D_GRAD, "max_pool2d_grad", POOL, 2, 2, sym__decode_pool,
	    sym__rule_pool2d_grad),
	OP(AVG_POOL2D_GRAD, "avg_pool2d_grad", POOL, 2, 2, sym__decode_pool,
	    sym__rule_pool2d_grad),
	OP(GLOBAL_AVG_POOL_GRAD, "global_avg_pool_grad", POOL, 2, 2,
	    sym__decode_none, sym__rule_global_avg_pool_grad),

	/* dropout(x) and dropout_grad(dy, y), y the output of the dropout
	 * whose mask the gradient draws again. */
	OP(DROPOUT, "dropout", DROPOUT, 1, 1, sym__decode_dropout,
	    sym__rule_float),
	OP(DROPOUT_GRAD, "dropout_grad", DROPOUT, 2, 2, sym__decode_dropout,
	    sym__rule_dropout_grad),
	OP(TRIL, "tril", INDEX, 1, 1, sym__decode_tri, sym__rule_tri),
	OP(TRIU, "triu", INDEX, 1, 1, sym__decode_tri, sym__rule_tri),
	OP(CUMSUM, "cumsum", INDEX, 1, 1, sym__decode_cumsum, sym__rule_cumsum),

	/* Generators: no tensor input; the output's shape comes from the
	 * attributes (a length or a shape of expressions). */
	OPX(ARANGE, "arange", GENERATE, 0, 0, arange_pos, sym__decode_arange,
	    sym__rule_arange, 0, SYM__NORM_NONE, -1, 0, 0),
	OPX(RANGE, "range", GENERATE, 0, 0, arange_pos, sym__decode_arange,
	    sym__rule_arange, 0, SYM__NORM_NONE, -1, 0, 0),
	OPX(FULL, "full", GENERATE, 0, 0, full_pos, sym__decode_full,
	    sym__rule_full, 0, SYM__NORM_NONE, -1, 0, 0),
	OPX(ONES, "ones", GENERATE, 0, 0, full_pos, sym__decode_full,
	    sym__rule_full, 0, SYM__NORM_NONE, -1, 0, 0),
	OPX(ZEROS, "zeros", GENERATE, 0, 0, full_pos, sym__decode_full,
	    sym__rule_full, 0, SYM__NORM_NONE, -1, 0, 0),

	/* The optimizers' update operators: output k is input k updated in
	 * place (param, then its state); the step count, when they take one,
	 * is a scalar that increment advances once per step. */
	OPX(SGD_UPDATE, "sgd_update", OPTIM, 2, 4, NULL, sym__decode_optim,
	    sym__rule_optim, SYM__OPF_INPLACE, SYM__NORM_NONE, -1, 0, 0),
	OPX(MOMENTUM_UPDATE, "momentum_update", OPTIM, 3, 3, NULL,
	    sym__decode_optim, sym__rule_optim, SYM__OPF_INPLACE,
	    SYM__NORM_NONE, -1, 0, 0),
	OPX(ADAM_UPDATE, "adam_update", OPTIM, 5, 5, NULL, sym__decode_optim,
	    sym__rule_optim, SYM__OPF_INPLACE, SYM__NORM_NONE, -1, 0, 0),
	OPX(ADAMW_UPDATE, "adamw_update", OPTIM, 5, 5, NULL, sym__decode_optim,
	    sym__rule_optim, SYM__OPF_INPLACE, SYM__NORM_NONE, -1, 0, 0),
	OPX(INCREMENT, "increment", OPTIM, 1, 1, NULL, sym__decode_none,
	    sym__rule_increment, SYM__OPF_INPLACE, SYM__NORM_NONE, -1, 0, 0),
	OP(GELU_GRAD, "gelu_grad", GRAD, 2, 2, sym__decode_gelu,
	    sym__rule_grad_unary),
	OP(SIGMOID_GRAD, "sigmoid_grad", GRAD, 2, 2, sym__decode_none,
	    sym__rule_grad_unary),
	OP(TANH_GRAD, "tanh_grad", GRAD, 2, 2, sym__decode_none,
	    sym__rule_grad_unary),
	OP(SQRT_GRAD, "sqrt_grad", GRAD, 2, 2, sym__decode_none,
	    sym__rule_grad_unary),
	/* The labels (input 1) are bounded by the classes of the logits; a
	 * mean divides by the global batch. */
	OPN(SCE_GRAD, "sce_grad", GRAD, 3, 6, sym__decode_sce_grad,
	    sym__rule_sce_grad, SYM__NORM_BATCH, 0, 1, 0, 1),
	OP(REDUCE_SUM_GRAD, "reduce_sum_grad", GRAD, 2, 2,
	    sym__decode_reduce_grad, sym__rule_reduce_grad),
	/* The mean divides by the global count of x's reduced elements. */
	OPN(REDUCE_MEAN_GRAD, "reduce_mean_grad", GRAD, 2, 2,
	    sym__decode_reduce_grad, sym__rule_reduce_grad, SYM__NORM_REDUCED,
	    1, -1, 0, 0),
	OP(REDUCE_MAX_GRAD, "reduce_max_grad", GRAD, 3, 3,
	    sym__decode_reduce_grad, sym__rule_reduce_grad),
	OP(SOFTMAX_GRAD, "softmax_grad", GRAD, 2, 2, sym__decode_softmax,
	    sym__rule_softmax_grad),
	OP(LOG_SOFTMAX_GRAD, "log_softmax_grad", GRAD, 2, 2,
	    sym__decode_softmax, sym__rule_softmax_grad),
	OP(LAYER_NORM_GRAD, "layer_norm_grad", GRAD, 3, 3,
	    sym__decode_layer_norm_grad, sym__rule_layer_norm_grad),
	OP(MAXIMUM_GRAD, "maximum_grad", GRAD, 3, 3, sym__decode_none,
	    sym__rule_extremum_grad),
	OP(MINIMUM_GRAD, "minimum_grad", GRAD, 3, 3, sym__decode_none,
	    sym__rule_extremum_grad),
	OP(CONV2D_INPUT_GRAD, "conv2d_input_grad", CONV, 3, 3,
	    sym__decode_conv2d, sym__rule_conv2d_input_grad),
	OP(CONV2D_WEIGHT_GRAD, "conv2d_weight_grad", CONV, 3, 3,
	    sym__decode_conv2d, sym__rule_conv2d_weight_grad),
	/* The indices (input 1) are bounded by the gathered axis of params
	 * (input 2), the ids by the rows of the table (input 2). */
	OPX(GATHER_GRAD, "gather_grad", GRAD, 3, 3, NULL,
	    sym__decode_gather_grad, sym__rule_gather_grad, 0, SYM__NORM_NONE,
	    1, 2, SYM__INDEX_AXIS),
	OPX(EMBEDDING_GRAD, "embedding_grad", GRAD, 3, 3, NULL,
	    sym__decode_none, sym__rule_embedding_grad, 0, SYM__NORM_NONE, 1, 2,
	    0),
	OP(SLICE_GRAD, "slice_grad", CONCAT, 2, 2, sym__decode_slice_grad,
	    sym__rule_slice_grad),
	OP(REDUCE_PROD_GRAD, "reduce_prod_grad", GRAD, 2, 2,
	    sym__decode_reduce_grad, sym__rule_reduce_grad),
};

/* Return the registry entry of "id", or NULL when out of range. */
const sym_op *
sym__op(enum sym__opid id)
{
	return (unsigned)id < SYM__N_OPS ? &ops[id] : NULL;
}

/* Return the operator called "name", or NULL when there is none. */
const sym_op *
sym_op_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < SYM__N_OPS; i++)
		if (ops[i].name[0] == name[0] && !strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}

/* Return the number of registered operators. */
size_t
sym_op_n_ops(void)
{
	return SYM__N_OPS;
}

/* Return the "i"-th registered operator (family by family), or NULL
 * when "i" is out of range. */
const sym_op *
sym_op_at(size_t i)
{
	return i < SYM__N_OPS ? &ops[i] : NULL;
}

/* Return the name of "op" ("matmul"), or NULL. */
const char *
sym_op_name(const sym_op *op)
{
	return op ? op->name : NULL;
}

/* Return the family of "op" ("matmul", "elementwise", ...), or NULL. */
const char *
sym_op_family(const sym_op *op)
{
	return op ? family_name[op->family] : NULL;
}

/* Return the least number of inputs of "op", or -1 for NULL. */
int
sym_op_min_inputs(const sym_op *op)
{
	return op ? op->min_in : -1;
}

/* Return the largest number of inputs of "op", -1 when unbounded (or for
 * NULL). */
int
sym_op_max_inputs(const sym_op *op)
{
	return op ? op->max_in : -1;
}

/* Return the name of the attribute that holds positional list argument
 * "i" of "op" (reshape's "shape"), or NULL when there is none. */
const char *
sym_op_positional(const sym_op *op, size_t i)
{
	if (!op || !op->positional)
		return NULL;
	for (size_t k = 0; op->positional[k]; k++)
		if (k == i)
			return op->positional[k];
	return NULL;
}
