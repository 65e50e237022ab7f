/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the operator identity across the layers: every operator
 * of the registry has, under the same identity, a shape rule (and its
 * attribute decoder), a sharding rule and a kernel; the registry's
 * facts for the executor (aliasing, index operand, normaliser) are
 * consistent with the operators' arity; a graph node carries its
 * attributes decoded once, as the sharding rules and kernels read them;
 * and the shape rules and the kernels agree on every operator and dtype:
 * a graph the rule accepts runs, one it rejects (with an error naming
 * the dtype, located) is one whose kernel refuses the dtype too.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

#include "kern/kernel.h"
#include "graph/graph_private.h"
#include "rules/rule_private.h"

static const sym_dtype all_dtypes[] = { SYM_DT_F16, SYM_DT_BF16, SYM_DT_F32,
	SYM_DT_F64, SYM_DT_I8, SYM_DT_I16, SYM_DT_I32, SYM_DT_I64, SYM_DT_U8,
	SYM_DT_BOOL };

#define N_DTYPES (sizeof(all_dtypes) / sizeof(all_dtypes[0]))

/* Every identity below SYM__N_OPS is the registry entry at that index,
 * with a name found back by sym_op_find, a family, a shape rule, a
 * sharding rule, a kernel and a count of operations; nothing exists
 * beyond. */
static void
test_every_layer(void **state)
{
	(void)state;
	assert_int_equal(sym_registry_n_ops(), SYM__N_OPS);
	for (size_t i = 0; i < SYM__N_OPS; i++) {
		const sym_op *op = sym__op((enum sym__opid)i);

		assert_non_null(op);
		assert_ptr_equal(op, sym_registry_op(i));
		assert_int_equal(op->id, i);
		assert_non_null(op->name);
		assert_ptr_equal(sym_op_find(op->name), op);
		assert_non_null(sym_op_family(op));
		if (!op->rule)
			fail_msg("operator %s has no shape rule", op->name);
		if (!sym__shard_rule_find(op))
			fail_msg("operator %s has no sharding rule", op->name);
		if (!sym__kernel(op))
			fail_msg("operator %s has no kernel", op->name);
	}
	assert_null(sym__op(SYM__N_OPS));
	assert_null(sym_registry_op(SYM__N_OPS));
	assert_null(sym__shard_rule_find(NULL));
	assert_null(sym__kernel(NULL));
}

/* The executor's facts: aliasing operators have one input and one
 * output; an index operand is an input of the operator, bounded by a
 * tensor it has; normalisers belong to one-output operators; the
 * operators the executor used to single out by name carry the facts. */
static void
test_facts(void **state)
{
	(void)state;
	for (size_t i = 0; i < SYM__N_OPS; i++) {
		const sym_op *op = sym__op((enum sym__opid)i);
		const struct sym__index_operand *ix = &op->index;

		if (op->flags & SYM__OPF_ALIAS) {
			assert_int_equal(op->min_in, 1);
			assert_int_equal(op->max_in, 1);
		}
		if (op->norm != SYM__NORM_NONE)
			assert_true(op->norm_input >= 0 &&
			    op->norm_input < op->min_in);
		else
			assert_int_equal(op->norm_input, 0);
		if (ix->input >= 0) {
			assert_true(ix->input < op->min_in);
			assert_true(ix->tensor < op->min_in);
			assert_true(ix->dim >= SYM__INDEX_AXIS);
			assert_true(ix->tensor != ix->input);
		}
	}
	assert_true(sym_op_find("reshape")->flags & SYM__OPF_ALIAS);
	assert_true(sym_op_find("identity")->flags & SYM__OPF_ALIAS);
	assert_false(sym_op_find("transpose")->flags & SYM__OPF_ALIAS);
	assert_int_equal(sym_op_find("reduce_mean")->norm, SYM__NORM_REDUCED);
	assert_int_equal(sym_op_find("reduce_sum")->norm, SYM__NORM_NONE);
	assert_int_equal(sym_op_find("softmax_cross_entropy")->norm,
	    SYM__NORM_BATCH);
	assert_int_equal(sym_op_find("reduce_mean_grad")->norm,
	    SYM__NORM_REDUCED);
	assert_int_equal(sym_op_find("reduce_mean_grad")->norm_input, 1);
	assert_int_equal(sym_op_find("sce_grad")->norm, SYM__NORM_BATCH);
	assert_int_equal(sym_op_find("sce_grad")->norm_input, 0);
	assert_int_equal(sym_op_find("sce_grad")->index.input, 1);
	assert_int_equal(sym_op_find("gather")->index.input, 1);
	assert_int_equal(sym_op_find("embedding")->index.input, 0);
	assert_int_equal(sym_op_find("embedding")->index.tensor, 1);
	assert_int_equal(sym_op_find("one_hot")->index.tensor, -1);
	assert_int_equal(sym_op_find("matmul")->index.input, -1);
}

/* Return the node that produces value "name" of the graph parsed from
 * "text" (kept in "*g"). */
static const sym_node *
node_of(sym_ctx *ctx, sym_graph **g, const char *text, const char *name)
{
	const sym_value *v;

	*g = sym_graph_parse(ctx, text, "ops.sg");
	assert_non_null(*g);
	assert_int_equal(sym_graph_n_errors(*g), 0);
	v = sym_graph_find_value(*g, name);
	assert_non_null(v);
	assert_non_null(sym_value_producer(v));
	return sym_value_producer(v);
}

/* A node keeps its attributes as its shape rule decoded them: axes
 * normalised, defaults applied, lists owned by the node. */
static void
test_decoded_on_node(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g;
	const struct sym__opattrs *at;

	(void)state;
	at = sym__node_opattrs(node_of(ctx, &g,
	    "input x : f32[2, 3, 4]\n"
	    "y = reduce_sum(x, axis=[-1, 0], keep_dims=true)\n",
	    "y"));
	assert_non_null(at->reduce.mark);
	assert_int_equal(at->reduce.mark[0], 1);
	assert_int_equal(at->reduce.mark[1], 0);
	assert_int_equal(at->reduce.mark[2], 1);
	assert_int_equal(at->reduce.keep_dims, 1);
	sym_graph_free(g);

	at = sym__node_opattrs(node_of(ctx, &g,
	    "input x : f32[2, 3, 4]\ny = transpose(x, [2, -3, 1])\n", "y"));
	assert_int_equal(at->layout.perm[0], 2);
	assert_int_equal(at->layout.perm[1], 0);
	assert_int_equal(at->layout.perm[2], 1);
	sym_graph_free(g);

	at = sym__node_opattrs(node_of(ctx, &g,
	    "input x : f32[1, 2, 9, 9]\ninput w : f32[4, 2, 3, 3]\n"
	    "y = conv2d(x, w, stride=[2, 1], pad=[1, 2])\n",
	    "y"));
	assert_int_equal(at->conv.stride[0], 2);
	assert_int_equal(at->conv.stride[1], 1);
	assert_int_equal(at->conv.dilation[0], 1);
	assert_int_equal(at->conv.pad[0], 1);
	assert_int_equal(at->conv.pad[1], 1);
	assert_int_equal(at->conv.pad[2], 2);
	assert_int_equal(at->conv.pad[3], 2);
	assert_int_equal(at->conv.group, 1);
	sym_graph_free(g);

	at = sym__node_opattrs(node_of(ctx, &g,
	    "input i : i32[5]\ny = one_hot(i, depth=7, axis=0, dtype=\"f64\")\n",
	    "y"));
	assert_int_equal(at->gather.axis, 0);
	assert_int_equal(at->gather.depth, 7);
	assert_int_equal(at->gather.dtype, SYM_DT_F64);
	assert_null(at->gather.depth_expr);
	sym_graph_free(g);

	at = sym__node_opattrs(node_of(ctx, &g,
	    "input x : f32[4, 3]\ninput l : i32[4]\n"
	    "y = softmax_cross_entropy(x, l, reduction=\"sum\")\n",
	    "y"));
	assert_int_equal(at->loss.reduction, SYM__RED_SUM);
	sym_graph_free(g);

	at = sym__node_opattrs(node_of(ctx, &g,
	    "input x : f32[2, 5, 3]\ninput b : f32[3]\n"
	    "y = bias_add(x, b, data_format=\"NHWC\")\n",
	    "y"));
	assert_int_equal(at->elementwise.channel, 2);
	sym_graph_free(g);
	assert_int_equal(sym_ctx_report_live(ctx, NULL), 0);
	sym_ctx_free(ctx);
}

/*
 * One operator's graph for the dtype test: "text" declares the inputs
 * and computes "y" (and "z" for split), with "@A" and "@B" standing for
 * two dtypes, "a" and "b" by default (a valid graph). "battr" says that
 * "@B" is an attribute (cast's and one_hot's dtype) that the output
 * takes; otherwise the output takes "@A" unless the rule says another.
 */
struct dtype_case {
	const char *op, *text;
	sym_dtype a, b;
	int battr;
};

#define F32 SYM_DT_F32
#define I32 SYM_DT_I32
#define BOOL SYM_DT_BOOL

static const struct dtype_case dtype_cases[] = {
	{ "matmul",
	    "input x : @A[2, 3]\ninput w : @A[3, 4]\n"
	    "y = matmul(x, w)\n",
	    F32, F32, 0 },
	{ "batch_matmul",
	    "input x : @A[2, 2, 3]\ninput w : @A[2, 3, 4]\n"
	    "y = batch_matmul(x, w)\n",
	    F32, F32, 0 },
	{ "relu", "input x : @A[2, 3]\ny = relu(x)\n", F32, F32, 0 },
	{ "gelu", "input x : @A[2, 3]\ny = gelu(x)\n", F32, F32, 0 },
	{ "exp", "input x : @A[2, 3]\ny = exp(x)\n", F32, F32, 0 },
	{ "log", "input x : @A[2, 3]\ny = log(x)\n", F32, F32, 0 },
	{ "neg", "input x : @A[2, 3]\ny = neg(x)\n", F32, F32, 0 },
	{ "sqrt", "input x : @A[2, 3]\ny = sqrt(x)\n", F32, F32, 0 },
	{ "tanh", "input x : @A[2, 3]\ny = tanh(x)\n", F32, F32, 0 },
	{ "sigmoid", "input x : @A[2, 3]\ny = sigmoid(x)\n", F32, F32, 0 },
	{ "cast", "input x : @A[2, 3]\ny = cast(x, dtype=\"@B\")\n", I32, F32,
	    1 },
	{ "identity", "input x : @A[2, 3]\ny = identity(x)\n", F32, F32, 0 },
	{ "add", "input x : @A[2, 3]\ninput w : @A[3]\ny = add(x, w)\n", F32,
	    F32, 0 },
	{ "sub", "input x : @A[2, 3]\ninput w : @A[3]\ny = sub(x, w)\n", F32,
	    F32, 0 },
	{ "mul", "input x : @A[2, 3]\ninput w : @A[3]\ny = mul(x, w)\n", F32,
	    F32, 0 },
	{ "div", "input x : @A[2, 3]\ninput w : @A[3]\ny = div(x, w)\n", F32,
	    F32, 0 },
	{ "maximum",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = maximum(x, w)\n",
	    F32, F32, 0 },
	{ "minimum",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = minimum(x, w)\n",
	    F32, F32, 0 },
	{ "bias_add",
	    "input x : @A[2, 3, 2]\ninput w : @A[3]\n"
	    "y = bias_add(x, w)\n",
	    F32, F32, 0 },
	{ "reshape", "input x : @A[2, 3]\ny = reshape(x, [3, 2])\n", F32, F32,
	    0 },
	{ "flatten", "input x : @A[2, 3, 2]\ny = flatten(x)\n", F32, F32, 0 },
	{ "transpose", "input x : @A[2, 3]\ny = transpose(x, [1, 0])\n", F32,
	    F32, 0 },
	{ "permute", "input x : @A[2, 3]\ny = permute(x, [1, 0])\n", F32, F32,
	    0 },
	{ "expand_dims", "input x : @A[2, 3]\ny = expand_dims(x, axis=1)\n",
	    F32, F32, 0 },
	{ "squeeze", "input x : @A[2, 1, 3]\ny = squeeze(x, axis=1)\n", F32,
	    F32, 0 },
	{ "expand", "input x : @A[2, 1]\ny = expand(x, [3, 2, 4])\n", F32, F32,
	    0 },
	{ "tile", "input x : @A[2, 3]\ny = tile(x, [2, 1])\n", F32, F32, 0 },
	{ "pad", "input x : @A[2, 3]\ny = pad(x, [1, 0, -1, 2], value=1)\n",
	    F32, F32, 0 },
	{ "concat",
	    "input x : @A[2, 3]\ninput w : @A[2, 1]\n"
	    "y = concat(x, w, axis=1)\n",
	    F32, F32, 0 },
	{ "split",
	    "input x : @A[2, 4]\n"
	    "y, z = split(x, axis=1, output_num=2)\noutput z\n",
	    F32, F32, 0 },
	{ "slice",
	    "input x : @A[2, 4]\n"
	    "y = slice(x, begin=[0, 1], size=[-1, 2])\n",
	    F32, F32, 0 },
	{ "reduce_sum", "input x : @A[2, 3]\ny = reduce_sum(x, axis=[1])\n",
	    F32, F32, 0 },
	{ "reduce_mean", "input x : @A[2, 3]\ny = reduce_mean(x, axis=[1])\n",
	    F32, F32, 0 },
	{ "reduce_max", "input x : @A[2, 3]\ny = reduce_max(x, axis=[1])\n",
	    F32, F32, 0 },
	{ "reduce_min", "input x : @A[2, 3]\ny = reduce_min(x, axis=[1])\n",
	    F32, F32, 0 },
	{ "reduce_prod", "input x : @A[2, 3]\ny = reduce_prod(x, axis=[1])\n",
	    F32, F32, 0 },
	{ "argmax", "input x : @A[2, 3]\ny = argmax(x, axis=1)\n", F32, F32,
	    0 },
	{ "argmin",
	    "input x : @A[2, 3]\ny = argmin(x, axis=0, keep_dims=true)\n", F32,
	    F32, 0 },
	{ "tril", "input x : @A[3, 3]\ny = tril(x)\n", F32, F32, 0 },
	{ "triu", "input x : @A[2, 3, 3]\ny = triu(x, diagonal=1)\n", F32, F32,
	    0 },
	{ "cumsum", "input x : @A[2, 3]\ny = cumsum(x, axis=1)\n", F32, F32,
	    0 },
	{ "arange", "y = arange([3], dtype=\"@A\")\n", I32, I32, 0 },
	{ "range", "y = range([1, 7, 2], dtype=\"@A\")\n", F32, F32, 0 },
	{ "full", "y = full([2, 3], value=1, dtype=\"@B\")\n", F32, I32, 1 },
	{ "ones", "y = ones([2, 3], dtype=\"@B\")\n", F32, BOOL, 1 },
	{ "zeros", "y = zeros([3], dtype=\"@B\")\n", F32, F32, 1 },
	{ "softmax", "input x : @A[2, 3]\ny = softmax(x)\n", F32, F32, 0 },
	{ "log_softmax", "input x : @A[2, 3]\ny = log_softmax(x)\n", F32, F32,
	    0 },
	{ "layer_norm",
	    "input x : @A[2, 3]\ninput g : @A[3]\ninput w : @A[3]\n"
	    "y = layer_norm(x, g, w, begin_norm_axis=1, "
	    "begin_params_axis=1)\n",
	    F32, F32, 0 },
	{ "batch_norm",
	    "input x : @A[2, 3, 2, 2]\ninput g : @A[3]\ninput b : @A[3]\n"
	    "state m : @A[3]\nstate v : @A[3] init=ones\n"
	    "y = batch_norm(x, g, b, m, v)\n",
	    F32, F32, 0 },
	{ "batch_norm_stats",
	    "input x : @A[2, 3, 2]\ny = batch_norm_stats(x)\n", F32, F32, 0 },
	{ "batch_norm_update",
	    "input m : @A[3]\ninput v : @A[3]\ninput s : f64[3, 3]\n"
	    "y, z = batch_norm_update(m, v, s, training=false)\n",
	    F32, F32, 0 },
	{ "batch_norm_grad_params",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\ninput s : f64[3, 3]\n"
	    "input m : @A[3]\ninput v : @A[3]\n"
	    "y, z = batch_norm_grad_params(d, x, s, m, v)\n",
	    F32, F32, 0 },
	{ "batch_norm_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\ninput s : f64[3, 3]\n"
	    "input m : @A[3]\ninput v : @A[3]\ninput g : @A[3]\n"
	    "y = batch_norm_grad(d, x, s, m, v, g, m, v)\n",
	    F32, F32, 0 },
	{ "gather",
	    "input x : @A[4, 3]\ninput i : @B[2]\n"
	    "y = gather(x, i, axis=0)\n",
	    F32, I32, 0 },
	{ "embedding",
	    "input i : @B[2]\ninput x : @A[4, 3]\n"
	    "y = embedding(i, x)\n",
	    F32, I32, 0 },
	{ "one_hot",
	    "input i : @A[2]\n"
	    "y = one_hot(i, depth=4, dtype=\"@B\")\n",
	    I32, F32, 1 },
	{ "softmax_cross_entropy",
	    "input x : @A[2, 4]\ninput i : @B[2]\n"
	    "y = softmax_cross_entropy(x, i)\n",
	    F32, I32, 0 },
	{ "sce_count",
	    "input i : @A[3]\n"
	    "y = sce_count(i)\n",
	    I32, F32, 0 },
	{ "sce_target",
	    "input x : @A[2, 4]\ninput i : @B[2]\n"
	    "y = sce_target(x, i)\n",
	    F32, I32, 0 },
	{ "sce_sumexp",
	    "input x : @A[2, 4]\ninput i : @B[2]\ninput t : f64[2]\n"
	    "y = sce_sumexp(x, i, t)\n",
	    F32, I32, 0 },
	{ "conv2d",
	    "input x : @A[1, 2, 4, 4]\ninput w : @A[3, 2, 3, 3]\n"
	    "y = conv2d(x, w)\n",
	    F32, F32, 0 },
	{ "max_pool2d",
	    "input x : @A[1, 2, 5, 4]\n"
	    "y = max_pool2d(x, kernel=3, stride=2, pad=1, ceil_mode=true)\n",
	    F32, F32, 0 },
	{ "avg_pool2d",
	    "input x : @A[1, 2, 5, 4]\n"
	    "y = avg_pool2d(x, kernel=[2, 3], count_include_pad=false)\n",
	    F32, F32, 0 },
	{ "global_avg_pool",
	    "input x : @A[2, 3, 2, 2]\ny = global_avg_pool(x)\n", F32, F32, 0 },
	{ "dropout", "input x : @A[2, 3]\ny = dropout(x, p=0.5)\n", F32, F32,
	    0 },
	{ "dropout_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = dropout_grad(d, x, p=0.5)\n",
	    F32, F32, 0 },
	{ "fill_like", "input x : @A[2, 3]\ny = fill_like(x, value=1)\n", F32,
	    F32, 0 },
	{ "relu_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = relu_grad(d, x)\n",
	    F32, F32, 0 },
	{ "equal",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = equal(x, w)\n",
	    F32, F32, 0 },
	{ "not_equal",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = not_equal(x, w)\n",
	    F32, F32, 0 },
	{ "less",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = less(x, w)\n",
	    F32, F32, 0 },
	{ "less_equal",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = less_equal(x, w)\n",
	    F32, F32, 0 },
	{ "greater",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = greater(x, w)\n",
	    F32, F32, 0 },
	{ "greater_equal",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = greater_equal(x, w)\n",
	    F32, F32, 0 },
	{ "pow",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = pow(x, w)\n",
	    F32, F32, 0 },
	{ "logical_and",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = logical_and(x, w)\n",
	    BOOL, BOOL, 0 },
	{ "logical_or",
	    "input x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = logical_or(x, w)\n",
	    BOOL, BOOL, 0 },
	{ "logical_not", "input x : @A[2, 3]\ny = logical_not(x)\n", BOOL, BOOL,
	    0 },
	{ "where",
	    "input c : @B[2, 3]\ninput x : @A[2, 3]\ninput w : @A[3]\n"
	    "y = where(c, x, w)\n",
	    F32, BOOL, 0 },
	{ "erf", "input x : @A[2, 3]\ny = erf(x)\n", F32, F32, 0 },
	{ "rsqrt", "input x : @A[2, 3]\ny = rsqrt(x)\n", F32, F32, 0 },
	{ "reciprocal", "input x : @A[2, 3]\ny = reciprocal(x)\n", F32, F32,
	    0 },
	{ "abs", "input x : @A[2, 3]\ny = abs(x)\n", F32, F32, 0 },
	{ "sign", "input x : @A[2, 3]\ny = sign(x)\n", F32, F32, 0 },
	{ "floor", "input x : @A[2, 3]\ny = floor(x)\n", F32, F32, 0 },
	{ "ceil", "input x : @A[2, 3]\ny = ceil(x)\n", F32, F32, 0 },
	{ "clip", "input x : @A[2, 3]\ny = clip(x, min=0, max=1)\n", F32, F32,
	    0 },
	{ "silu", "input x : @A[2, 3]\ny = silu(x)\n", F32, F32, 0 },
	{ "softplus", "input x : @A[2, 3]\ny = softplus(x, beta=2)\n", F32, F32,
	    0 },
	{ "erf_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = erf_grad(d, x)\n",
	    F32, F32, 0 },
	{ "rsqrt_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = rsqrt_grad(d, x)\n",
	    F32, F32, 0 },
	{ "reciprocal_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = reciprocal_grad(d, x)\n",
	    F32, F32, 0 },
	{ "clip_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = clip_grad(d, x, min=0)\n",
	    F32, F32, 0 },
	{ "silu_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = silu_grad(d, x)\n",
	    F32, F32, 0 },
	{ "softplus_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = softplus_grad(d, x, threshold=3)\n",
	    F32, F32, 0 },
	{ "pow_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\ninput w : @A[3]\n"
	    "y, z = pow_grad(d, x, w)\noutput z\n",
	    F32, F32, 0 },
	{ "sum_to", "input x : @A[2, 3]\ny = sum_to(x, [1, 3])\n", F32, F32,
	    0 },
	{ "sgd_update",
	    "input p : @A[2, 3]\ninput g : @A[2, 3]\n"
	    "y = sgd_update(p, g, lr=0.5)\n",
	    F32, F32, 0 },
	{ "momentum_update",
	    "input p : @A[2, 3]\ninput g : @A[2, 3]\ninput v : @A[2, 3]\n"
	    "y, z = momentum_update(p, v, g)\noutput z\n",
	    F32, F32, 0 },
	{ "adam_update",
	    "input p : @A[2, 3]\ninput g : @A[2, 3]\ninput m : @A[2, 3]\n"
	    "input v : @A[2, 3]\ninput t : @B[]\n"
	    "y, z, u = adam_update(p, m, v, g, t)\noutput z\n",
	    F32, I32, 0 },
	{ "adamw_update",
	    "input p : @A[2, 3]\ninput g : @A[2, 3]\ninput m : @A[2, 3]\n"
	    "input v : @A[2, 3]\ninput t : @B[]\n"
	    "y, z, u = adamw_update(p, m, v, g, t)\noutput z\n",
	    F32, I32, 0 },
	{ "increment", "input t : @A[]\ny = increment(t)\n", I32, I32, 0 },
	{ "gelu_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = gelu_grad(d, x)\n",
	    F32, F32, 0 },
	{ "sigmoid_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = sigmoid_grad(d, x)\n",
	    F32, F32, 0 },
	{ "tanh_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = tanh_grad(d, x)\n",
	    F32, F32, 0 },
	{ "sqrt_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = sqrt_grad(d, x)\n",
	    F32, F32, 0 },
	{ "sce_grad",
	    "input x : @A[2, 4]\ninput i : @B[2]\ninput d : @A[]\n"
	    "y = sce_grad(x, i, d)\n",
	    F32, I32, 0 },
	{ "reduce_sum_grad",
	    "input d : @A[2]\ninput x : @A[2, 3]\n"
	    "y = reduce_sum_grad(d, x, axis=[1])\n",
	    F32, F32, 0 },
	{ "reduce_mean_grad",
	    "input d : @A[2]\ninput x : @A[2, 3]\n"
	    "y = reduce_mean_grad(d, x, axis=[1])\n",
	    F32, F32, 0 },
	{ "reduce_max_grad",
	    "input d : @A[2]\ninput x : @A[2, 3]\ninput m : @A[2]\n"
	    "y = reduce_max_grad(d, x, m, axis=[1])\n",
	    F32, F32, 0 },
	{ "softmax_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = softmax_grad(d, x)\n",
	    F32, F32, 0 },
	{ "log_softmax_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\n"
	    "y = log_softmax_grad(d, x)\n",
	    F32, F32, 0 },
	{ "layer_norm_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\ninput g : @A[3]\n"
	    "y, z, u = layer_norm_grad(d, x, g, begin_norm_axis=1, "
	    "begin_params_axis=1)\noutput z\n",
	    F32, F32, 0 },
	{ "slice_grad",
	    "input d : @A[2, 2]\ninput x : @A[2, 3]\n"
	    "y = slice_grad(d, x, begin=[0, 1], size=[-1, 2])\noutput y\n",
	    F32, F32, 0 },
	{ "maximum_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\ninput w : @A[3]\n"
	    "y, z = maximum_grad(d, x, w)\noutput z\n",
	    F32, F32, 0 },
	{ "minimum_grad",
	    "input d : @A[2, 3]\ninput x : @A[2, 3]\ninput w : @A[3]\n"
	    "y, z = minimum_grad(d, x, w)\noutput z\n",
	    F32, F32, 0 },
	{ "conv2d_input_grad",
	    "input d : @A[1, 3, 2, 2]\ninput w : @A[3, 2, 3, 3]\n"
	    "input x : @A[1, 2, 4, 4]\n"
	    "y = conv2d_input_grad(d, w, x)\n",
	    F32, F32, 0 },
	{ "conv2d_weight_grad",
	    "input d : @A[1, 3, 2, 2]\ninput x : @A[1, 2, 4, 4]\n"
	    "input w : @A[3, 2, 3, 3]\n"
	    "y = conv2d_weight_grad(d, x, w)\n",
	    F32, F32, 0 },
	{ "max_pool2d_grad",
	    "input d : @A[1, 2, 3, 3]\ninput x : @A[1, 2, 5, 4]\n"
	    "y = max_pool2d_grad(d, x, kernel=3, stride=2, pad=1, "
	    "ceil_mode=true)\n",
	    F32, F32, 0 },
	{ "avg_pool2d_grad",
	    "input d : @A[1, 2, 2, 1]\ninput x : @A[1, 2, 5, 4]\n"
	    "y = avg_pool2d_grad(d, x, kernel=[2, 3])\n",
	    F32, F32, 0 },
	{ "global_avg_pool_grad",
	    "input d : @A[2, 3, 1, 1]\ninput x : @A[2, 3, 2, 2]\n"
	    "y = global_avg_pool_grad(d, x)\n",
	    F32, F32, 0 },
	{ "gather_grad",
	    "input d : @A[2, 2]\ninput i : @B[2]\ninput x : @A[4, 2]\n"
	    "y = gather_grad(d, i, x, axis=0)\n",
	    F32, I32, 0 },
	{ "embedding_grad",
	    "input d : @A[2, 3]\ninput i : @B[2]\ninput x : @A[4, 3]\n"
	    "y = embedding_grad(d, i, x)\n",
	    F32, I32, 0 },
	{ "reduce_prod_grad",
	    "input d : @A[2]\ninput x : @A[2, 3]\n"
	    "y = reduce_prod_grad(d, x, axis=[1])\n",
	    F32, F32, 0 },
};

/* Return a new graph text: "text" of a dtype case with "@A" replaced by
 * the name of "a", "@B" by that of "b", and "output y" appended. */
static char *
dtype_text(const char *text, sym_dtype a, sym_dtype b)
{
	size_t n = strlen(text) + 64;
	char *s = malloc(n * 2), *p = s;

	assert_non_null(s);
	for (const char *t = text; *t; t++) {
		if (t[0] == '@' && (t[1] == 'A' || t[1] == 'B')) {
			const char *name = sym_dtype_name(t[1] == 'A' ? a : b);

			memcpy(p, name, strlen(name));
			p += strlen(name);
			t++;
			continue;
		}
		*p++ = *t;
	}
	strcpy(p, "output y\n");
	return s;
}

/* Return the number of elements of the constant shape "sh", its dims
 * stored in "dim" ("*rank" of them). */
static int64_t
const_dims(const sym_shape *sh, int64_t *dim, int *rank)
{
	int64_t n = 1;

	*rank = (int)sym_shape_ndim(sh);
	assert_true(*rank <= SYM__MAX_RANK);
	for (int d = 0; d < *rank; d++) {
		assert_int_equal(sym_expr_get_const(sym_shape_dim(sh,
		                                        (size_t)d),
		                     &dim[d]),
		    0);
		n *= dim[d];
	}
	return n;
}

/* Return 1 when "msg" names the dtype "dt" as a word ("f16" is not named
 * by "bf16"). */
static int
names_dtype(const char *msg, sym_dtype dt)
{
	const char *name = sym_dtype_name(dt), *p = msg;
	size_t len = strlen(name);

	while ((p = strstr(p, name)) != NULL) {
		int before = p > msg && (isalnum((unsigned char)p[-1]));
		int after = isalnum((unsigned char)p[len]);

		if (!before && !after)
			return 1;
		p++;
	}
	return 0;
}

/* Set the "n" elements of "t" to 1 in its storage. */
static void
set_ones(struct sym__tensor *t, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		if (t->dtype == SYM_DT_F64)
			((double *)t->data)[i] = 1.0;
		else if (t->dtype == SYM_DT_BOOL)
			((uint8_t *)t->data)[i] = 1;
		else if (sym_dtype_is_float(t->dtype))
			((float *)t->data)[i] = 1.0f;
		else
			((int32_t *)t->data)[i] = 1;
}

/*
 * Call the kernel of the node "n" of the valid graph "base" on tensors of
 * its sizes (inputs all ones) whose dtypes are those that graph "g"
 * declares for the same input names, the outputs of dtype "out"; return
 * the kernel's result and its message in "*error" (to free).
 */
static int
call_kernel(const sym_node *n, const sym_graph *g, sym_dtype out, char **error)
{
	struct sym__tensor in[8], res[3];
	struct sym__kernel_args a;
	size_t ni = sym_node_n_inputs(n), no = sym_node_n_outputs(n);
	int r;

	assert_true(ni <= 8 && no <= 3);
	memset(&a, 0, sizeof(a));
	memset(in, 0, sizeof(in));
	memset(res, 0, sizeof(res));
	for (size_t i = 0; i < ni; i++) {
		const sym_value *v = sym_node_input(n, i);
		const sym_value *w = sym_graph_find_value(g, sym_value_name(v));
		int64_t k;

		/* the statistics the graph adds to batch_norm fail with
		 * x: they keep the valid graph's dtype */
		const sym_shape *ws = w ? sym_value_shape(w) : NULL;

		in[i].dtype = ws ? sym_shape_dtype(ws)
		                 : sym_shape_dtype(sym_value_shape(v));
		k = const_dims(sym_value_shape(v), in[i].dim, &in[i].rank);
		assert_int_equal(sym__tensor_alloc(&in[i]), 0);
		set_ones(&in[i], k);
	}
	for (size_t o = 0; o < no; o++) {
		res[o].dtype = out;
		const_dims(sym_value_shape(sym_node_output(n, o)), res[o].dim,
		    &res[o].rank);
		assert_int_equal(sym__tensor_alloc(&res[o]), 0);
	}
	a.op = sym_node_op(n);
	a.at = sym__node_opattrs(n);
	a.n_in = (int)ni;
	a.in = in;
	a.n_out = (int)no;
	a.out = res;
	r = sym__kernel(a.op)(&a);
	*error = a.error;
	for (size_t i = 0; i < ni; i++)
		sym__tensor_free(&in[i]);
	for (size_t o = 0; o < no; o++)
		sym__tensor_free(&res[o]);
	return r;
}

/* Run the graph "g" (valid, named "what") on one device with
 * sym_exec_check; return 0 or -1 with the message in "msg" ("size"
 * bytes). */
static int
run_one_device(sym_graph *g, const char *what, char *msg, size_t size)
{
	sym_ctx *ctx = sym_graph_ctx(g);
	sym_plan *p = NULL, *single = NULL;
	sym_communicator *comm = NULL;
	sym_binding *b = sym_binding_new(ctx);
	sym_exec_options o = { .size = sizeof(o), .seed = 3 };
	sym_exec_report rep;
	int r = -1;

	assert_non_null(b);
	if (sym_graph_shard(g, NULL) == 0 &&
	    (p = sym_plan_compile(g, 0)) != NULL &&
	    (single = sym_plan_compile(g, SYM_PLAN_SINGLE)) != NULL &&
	    (comm = sym_comm_threads_new(ctx, 1)) != NULL)
		r = sym_exec_check(ctx, p, single, comm, b, &o, &rep);
	if (r != 0)
		snprintf(msg, size, "%s: %s", what, sym_ctx_last_message(ctx));
	else if (rep.n_mismatch != 0)
		r = -1,
		snprintf(msg, size,
		    "%s: one device disagrees with "
		    "itself",
		    what);
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(single);
	sym_binding_free(b);
	return r;
}

/*
 * Check one case of "c" with dtypes "a" and "b" in "ctx": when the shape
 * rule accepts the graph, it runs on one device and its kernel accepts
 * the dtypes; when the rule rejects it, the error is located and names
 * a dtype that differs from the valid graph's, and the kernel refuses
 * the same dtypes with a message naming that dtype.
 */
static void
check_dtype_case(sym_ctx *ctx, const struct dtype_case *c, sym_dtype a,
    sym_dtype b)
{
	char *text = dtype_text(c->text, a, b);
	char *btext = dtype_text(c->text, c->a, c->battr ? b : c->b);
	sym_graph *g = sym_graph_parse(ctx, text, "dtype.sg");
	sym_graph *base = sym_graph_parse(ctx, btext, "base.sg");
	const sym_value *y;
	const sym_node *n;
	char what[128], msg[512], *error = NULL;
	int kr;

	snprintf(what, sizeof(what), "%s with @A = %s, @B = %s", c->op,
	    sym_dtype_name(a), sym_dtype_name(b));
	assert_non_null(g);
	assert_non_null(base);
	if (sym_graph_n_errors(base) != 0)
		fail_msg("%s: the valid graph has errors", what);
	n = sym_value_producer(sym_graph_find_value(base, "y"));
	assert_non_null(n);
	assert_string_equal(sym_node_op_name(n), c->op);
	if (sym_graph_n_errors(g) == 0) {
		y = sym_graph_find_value(g, "y");
		kr = call_kernel(n, g, sym_shape_dtype(sym_value_shape(y)),
		    &error);
		if (kr != 0)
			fail_msg("%s: the rule accepts it, the kernel says %s",
			    what, error ? error : "?");
		if (run_one_device(g, what, msg, sizeof(msg)) != 0)
			fail_msg("the rule accepts it, the executor says %s",
			    msg);
	} else {
		const sym_diagnostic *d = NULL;
		sym_dtype named = SYM_DT_INVALID;

		for (size_t i = 0; i < sym_graph_n_diagnostics(g) && !d; i++)
			if (sym_graph_diagnostic(g, i)->severity ==
			    SYM_SEV_ERROR)
				d = sym_graph_diagnostic(g, i);
		assert_non_null(d);
		if (a != c->a && names_dtype(d->message, a))
			named = a;
		else if (!c->battr && b != c->b && names_dtype(d->message, b))
			named = b;
		if (named == SYM_DT_INVALID || d->loc.line < 1)
			fail_msg("%s: the rule's error \"%s\" (line %d) names "
			         "no dtype of the case",
			    what, d->message, d->loc.line);
		kr = call_kernel(n, g, c->battr ? b : a, &error);
		if (kr == 0)
			fail_msg("%s: the rule says \"%s\", the kernel runs it",
			    what, d->message);
		if (!error || !names_dtype(error, named))
			fail_msg("%s: the rule says \"%s\", the kernel \"%s\" "
			         "(not about %s)",
			    what, d->message, error ? error : "?",
			    sym_dtype_name(named));
	}
	free(error);
	sym_graph_free(g);
	sym_graph_free(base);
	free(text);
	free(btext);
}

/* Every operator of the registry, with every dtype in each of its dtype
 * places: the shape rule's verdict is the executor's. */
static void
test_dtypes_agree(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	size_t nc = sizeof(dtype_cases) / sizeof(dtype_cases[0]);

	(void)state;
	assert_non_null(ctx);
	for (size_t i = 0; i < SYM__N_OPS; i++) {
		size_t k = 0;

		while (k < nc && strcmp(dtype_cases[k].op, sym__op(i)->name))
			k++;
		if (k == nc)
			fail_msg("operator %s has no dtype case",
			    sym__op(i)->name);
	}
	for (size_t i = 0; i < nc; i++) {
		const struct dtype_case *c = &dtype_cases[i];

		assert_non_null(sym_op_find(c->op));
		for (size_t ia = 0; ia < N_DTYPES; ia++)
			for (size_t ib = 0; ib < N_DTYPES; ib++)
				if (strstr(c->text, "@B") ||
				    all_dtypes[ib] == c->b)
					check_dtype_case(ctx, c, all_dtypes[ia],
					    all_dtypes[ib]);
	}
	assert_int_equal(sym_ctx_report_live(ctx, NULL), 0);
	sym_ctx_free(ctx);
}

/* conv2d's output extent is one checked arithmetic in the shape rule and
 * the kernel: attributes near 2^63 whose extent overflows 64 bits are an
 * error located at the attribute (also with symbolic sizes when the pads
 * alone overflow), and large ones that fit give the same extent to
 * shape-check and to a run. */
static void
test_conv_extent_overflow(void **state)
{
	static const char *const bad[] = {
		"input x : f32[1, 2, 4, 4]\ninput w : f32[4, 2, 3, 3]\n"
		"y = conv2d(x, w, stride=[9223372036854775807, 1], "
		"pad=[4611686018427387904, 4611686018427387903, 0, 0])\n",
		"symbol h\ninput x : f32[1, 2, h, 4]\n"
		"input w : f32[4, 2, 3, 3]\n"
		"y = conv2d(x, w, stride=[2, 1], "
		"pad=[4611686018427387904, 4611686018427387904, 0, 0])\n",
		"input x : f32[1, 2, 4, 9]\ninput w : f32[4, 2, 3, 3]\n"
		"y = conv2d(x, w, dilation=[1, 4611686018427387904])\n",
	};
	static const int col[] = { 51, 33, 18 };
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g;
	char *s, msg[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const sym_diagnostic *d;

		g = sym_graph_parse(ctx, bad[i], "conv.sg");
		assert_non_null(g);
		assert_int_equal(sym_graph_n_errors(g), 1);
		d = sym_graph_diagnostic(g, 0);
		assert_int_equal(d->loc.line, i == 1 ? 4 : 3);
		assert_int_equal(d->loc.col, col[i]);
		if (!strstr(d->message, "overflow 64 bits"))
			fail_msg("case %zu: %s", i, d->message);
		sym_graph_free(g);
	}
	g = sym_graph_parse(ctx,
	    "input x : f32[1, 2, 4, 4]\ninput w : f32[4, 2, 3, 3]\n"
	    "y = conv2d(x, w, stride=[4611686018427387904, 1], "
	    "pad=[2305843009213693952, 2305843009213693952, 0, 0])\n"
	    "output y\n",
	    "conv.sg");
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	s = sym_shape_to_str(sym_value_shape(sym_graph_find_value(g, "y")));
	assert_string_equal(s, "f32[1, 4, 2, 2]");
	free(s);
	if (run_one_device(g, "conv2d", msg, sizeof(msg)) != 0)
		fail_msg("%s", msg);
	sym_graph_free(g);
	assert_int_equal(sym_ctx_report_live(ctx, NULL), 0);
	sym_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_layer),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_decoded_on_node),
		cmocka_unit_test(test_dtypes_agree),
		cmocka_unit_test(test_conv_extent_overflow),
	};

	return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
