/*
 * Unit tests of the operator identity across the layers: every operator
 * of the registry has, under the same identity, a shape rule (and its
 * attribute decoder), a sharding rule and a kernel; the registry's
 * facts for the executor (aliasing, index operand, normaliser) are
 * consistent with the operators' arity; and a graph node carries its
 * attributes decoded once, as the sharding rules and kernels read them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

#include "exec/kernel.h"
#include "graph/graph_private.h"
#include "layout/rule_private.h"

/* Every identity below SYM__N_OPS is the registry entry at that index,
 * with a name found back by sym_op_find, a family, a shape rule, a
 * sharding rule and a kernel; nothing exists beyond. */
static void
test_every_layer(void **state)
{
	(void)state;
	assert_int_equal(sym_op_count(), SYM__N_OPS);
	for (size_t i = 0; i < SYM__N_OPS; i++) {
		const sym_op *op = sym__op((enum sym__opid)i);

		assert_non_null(op);
		assert_ptr_equal(op, sym_op_at(i));
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
	assert_null(sym_op_at(SYM__N_OPS));
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_layer),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_decoded_on_node),
	};

	return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
