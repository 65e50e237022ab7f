/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the API's rules (symshard(3), "Names" and "Options"):
 * predicates answer SYM_ERROR, never 0, for NULL and for positions out of
 * range; finds answer SYM_NPOS; counts of NULL are 0; options are read
 * back as set and an unknown one is SYM_EINVAL; the version is the one
 * the header names.
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

/* Every predicate of the public headers on NULL, and on a value that
 * holds: SYM_ERROR then SYM_TRUE, so that an error never reads as
 * false. */
static void
test_predicates(void **state)
{
	static const int64_t size[] = { 2, 4 };
	static const char *const name[] = { "dp", "mp" };
	static const char text[] = "symbol b max=64\n"
	                           "input x : f32[b, 8]\n"
	                           "param w : f32[8, 8]\n"
	                           "y = matmul(x, w)\n"
	                           "output y\n";
	sym_ctx *ctx = sym_ctx_new();
	sym_mesh *m;
	sym_layout *l;
	sym_expr *e, *c;
	sym_graph *g;
	sym_symbol *b;

	(void)state;
	assert_non_null(ctx);
	assert_int_equal(sym_expr_is_const(NULL), SYM_ERROR);
	assert_int_equal(sym_expr_is_symbol(NULL), SYM_ERROR);
	assert_int_equal(sym_expr_is_affine(NULL), SYM_ERROR);
	assert_int_equal(sym_expr_is_equal(NULL, NULL), SYM_ERROR);
	assert_int_equal(sym_expr_involves(NULL, NULL), SYM_ERROR);
	assert_int_equal(sym_value_is_frozen(NULL), SYM_ERROR);
	assert_int_equal(sym_value_is_state(NULL), SYM_ERROR);
	assert_int_equal(sym_graph_is_training(NULL), SYM_ERROR);
	assert_int_equal(sym_layout_is_partial(NULL, 0), SYM_ERROR);
	assert_int_equal(sym_layout_is_equal(NULL, NULL), SYM_ERROR);
	assert_int_equal(sym_mesh_has_rank_list(NULL), SYM_ERROR);
	assert_int_equal(sym_mesh_is_equal(NULL, NULL), SYM_ERROR);
	assert_int_equal(sym_onnx_is_model(NULL, 4), SYM_ERROR);
	assert_int_equal(sym_slices_is_bound(NULL), SYM_ERROR);
	assert_int_equal(sym_dtype_is_float(SYM_DT_INVALID), SYM_ERROR);
	assert_int_equal(sym_shape_is_equal(NULL, NULL), SYM_ERROR);
	assert_int_equal(sym_symbol_is_unique(NULL), SYM_ERROR);
	assert_int_equal(sym_search_chooses_optimizer_shard(NULL), SYM_ERROR);
	assert_true(sym_comm_mpi_available() == SYM_TRUE ||
	    sym_comm_mpi_available() == SYM_FALSE);

	/* The same predicates where they hold, and where they do not. */
	g = sym_graph_parse(ctx, text, "api.sg");
	assert_non_null(g);
	b = sym_symbol_find(ctx, "b");
	assert_non_null(b);
	e = sym_expr_symbol(b);
	c = sym_expr_const(ctx, 8);
	assert_int_equal(sym_expr_is_symbol(e), SYM_TRUE);
	assert_int_equal(sym_expr_is_const(e), SYM_FALSE);
	assert_int_equal(sym_expr_is_const(c), SYM_TRUE);
	assert_int_equal(sym_expr_is_affine(e), SYM_TRUE);
	assert_int_equal(sym_expr_involves(e, b), SYM_TRUE);
	assert_int_equal(sym_expr_involves(c, b), SYM_FALSE);
	assert_int_equal(sym_expr_is_equal(e, e), SYM_TRUE);
	assert_int_equal(sym_expr_is_equal(e, c), SYM_FALSE);
	assert_int_equal(sym_expr_is_equal(e, NULL), SYM_ERROR);
	assert_int_equal(sym_symbol_is_unique(b), SYM_FALSE);
	assert_int_equal(sym_graph_is_training(g), SYM_FALSE);
	assert_int_equal(sym_value_is_frozen(sym_graph_find_value(g, "w")),
	    SYM_FALSE);
	assert_int_equal(sym_dtype_is_float(SYM_DT_F32), SYM_TRUE);
	assert_int_equal(sym_dtype_is_float(SYM_DT_I64), SYM_FALSE);
	assert_int_equal(sym_onnx_is_model("x", 1), SYM_FALSE);

	m = sym_mesh_new(ctx, 2, size, name, 0, NULL);
	assert_non_null(m);
	assert_int_equal(sym_mesh_has_rank_list(m), SYM_FALSE);
	assert_int_equal(sym_mesh_is_equal(m, m), SYM_TRUE);
	assert_int_equal(sym_mesh_is_equal(m, NULL), SYM_ERROR);
	l = sym_layout_replicated(m, 2);
	assert_non_null(l);
	assert_int_equal(sym_layout_is_partial(l, 0), SYM_FALSE);
	/* A position out of range is SYM_ERROR too. */
	assert_int_equal(sym_layout_is_partial(l, 2), SYM_ERROR);
	assert_int_equal(sym_layout_is_equal(l, l), SYM_TRUE);

	/* Finds answer SYM_NPOS; counts of NULL are 0. */
	assert_true(sym_mesh_find_axis(m, "mp") == 1);
	assert_true(sym_mesh_find_axis(m, "tp") == SYM_NPOS);
	assert_true(sym_mesh_find_axis(NULL, "dp") == SYM_NPOS);
	assert_true(sym_checkpoint_find(NULL, "w") == SYM_NPOS);
	assert_true(sym_dataset_find_column(NULL, "x") == SYM_NPOS);
	assert_true(sym_graph_n_nodes(NULL) == 0);
	assert_true(sym_graph_n_nodes(g) == 1);
	assert_null(sym_graph_node(g, 1));

	sym_layout_free(l);
	sym_mesh_free(m);
	sym_expr_free(e);
	sym_expr_free(c);
	sym_graph_free(g);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* Options of long-lived objects are read back as set; an unknown one is
 * SYM_EINVAL. */
static void
test_options(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g;

	(void)state;
	assert_non_null(ctx);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_WITNESS, 0), 0);
	assert_int_equal(sym_ctx_get_option(ctx, SYM_CTX_OPT_WITNESS), 0);
	g = sym_graph_parse(ctx, "input x : f32[4]\ny = relu(x)\noutput y\n",
	    "opt.sg");
	assert_non_null(g);
	assert_int_equal(sym_graph_get_shard_option(g,
	                     SYM_SHARD_OPT_POWER_OF_TWO),
	    0);
	assert_int_equal(sym_graph_get_shard_option(g, SYM_SHARD_OPT_PROPAGATE),
	    1);
	assert_int_equal(sym_graph_set_shard_option(g,
	                     SYM_SHARD_OPT_POWER_OF_TWO, 7),
	    0);
	assert_int_equal(sym_graph_get_shard_option(g,
	                     SYM_SHARD_OPT_POWER_OF_TWO),
	    1);
	assert_int_equal(sym_graph_set_shard_option(g, SYM_SHARD_OPT_PROPAGATE,
	                     0),
	    0);
	assert_int_equal(sym_graph_get_shard_option(g, SYM_SHARD_OPT_PROPAGATE),
	    0);
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_graph_get_shard_option(g, (sym_shard_option)99),
	    -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_int_equal(sym_graph_set_shard_option(g, (sym_shard_option)99, 1),
	    -1);
	assert_int_equal(sym_graph_get_shard_option(NULL,
	                     SYM_SHARD_OPT_PROPAGATE),
	    -1);
	assert_string_equal(sym_optimizer_kind_name(SYM_OPTIMIZER_ADAMW),
	    "adamw");
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* The running library is the version its header names. */
static void
test_version(void **state)
{
	(void)state;
	assert_string_equal(sym_version(), SYM_VERSION_STRING);
	assert_int_equal(SYM_VERSION_MAJOR, 0);
	assert_int_equal(SYM_VERSION_MINOR, 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_predicates),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
