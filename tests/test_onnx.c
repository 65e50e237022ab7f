/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the ONNX reader (sym_onnx(3)) on the models of
 * tests/onnx/ (tests/onnx/gen_fixtures.py and tools/onnx/export_gpt.py
 * made them): symbolic shape values folded to exact dimensions, the GPT
 * fixture with no dimension lost, dim_params as declared symbols, and
 * every kind of bad input refused with an error naming what is wrong,
 * nothing leaked.
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

#include "testlib.h"

/* Read the fixture "name" of tests/onnx/ into a new graph of "ctx". */
static sym_graph *
read_fixture(sym_ctx *ctx, const char *name, sym_onnx_stats *st)
{
	const char *top = getenv("top_srcdir");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/onnx/%s", top ? top : ".", name);
	return sym_onnx_read(ctx, path, st);
}

/* Assert that the shape of value "name" of "g" prints as "want". */
static void
assert_shape(const sym_graph *g, const char *name, const char *want)
{
	sym_value *v = sym_graph_find_value(g, name);

	assert_non_null(v);
	char *s = sym_shape_to_str(sym_value_shape(v));
	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

/* Return the first error message of "g", or "". */
static const char *
first_error(const sym_graph *g)
{
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++)
		if (sym_graph_diagnostic(g, i)->severity == SYM_SEV_ERROR)
			return sym_graph_diagnostic(g, i)->message;
	return "";
}

/* Read the fixture "name" into a graph of "ctx" with its statistics in
 * "st", and check that it imported without an error and with "nodes"
 * nodes; return the graph. */
static sym_graph *
read_clean(sym_ctx *ctx, const char *name, sym_onnx_stats *st, size_t nodes)
{
	sym_graph *g = read_fixture(ctx, name, st);

	assert_non_null(g);
	assert_string_equal(first_error(g), "");
	assert_int_equal(st->nodes, nodes);
	return g;
}

/* Shape, Gather, Mul, Div, Unsqueeze, Concat, Slice, ReduceProd, Equal
 * and Where fold into the exact sizes Reshape reads (0 and -1 too), and
 * a scalar's empty shape broadcasts as in NumPy. */
static void
test_shape_values(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_onnx_stats st = SYM_ONNX_STATS_INIT;
	sym_graph *g = read_fixture(ctx, "shapes.onnx", &st);

	(void)state;
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	assert_int_equal(st.opset, 14);
	assert_int_equal(st.nodes, 20);
	assert_int_equal(st.folded, 16);
	assert_int_equal(st.lost_dims, 0);
	assert_shape(g, "x", "f32[b, s, 6]");
	assert_shape(g, "r", "f32[b*s, 3, 2]");
	assert_shape(g, "flat", "f32[b*s, 6]");
	/* Equal(b*s, s*b) is proved, so Where picks b*s, not 6 */
	assert_shape(g, "z", "f32[b*s, 6]");
	/* the sizes were folded, not made tensors */
	assert_null(sym_graph_find_value(g, "sh"));
	assert_null(sym_graph_find_value(g, "zero"));
	sym_graph_free(g);

	/* A shape value of 0 elements (a scalar's shape) broadcasts with a
	 * single element to 0 elements, as in NumPy and ONNX's shape
	 * inference: Add, Equal and Where fold, and Reshape reads the
	 * result as a scalar's shape (Add was left an i64 tensor operator,
	 * refused, when the broadcast made one element) */
	g = read_clean(ctx, "emptyshape.onnx", &st, 6);
	assert_int_equal(st.folded, 4);
	assert_shape(g, "y", "f32[]");
	assert_shape(g, "y2", "f32[]");
	assert_null(sym_graph_find_value(g, "t"));
	assert_null(sym_graph_find_value(g, "w"));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A dim_param names the symbol declared beforehand, with its
 * constraints; the sizes follow it. */
static void
test_declared_symbol(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT, got;

	(void)state;
	info.divisor = 8;
	info.max = 4096;
	info.unique = 1;
	assert_non_null(sym_symbol_new(ctx, "b", &info, NULL));
	sym_graph *g = read_fixture(ctx, "shapes.onnx", NULL);
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	sym_symbol_get_info(sym_symbol_find(ctx, "b"), &got);
	assert_int_equal(got.divisor, 8);
	assert_int_equal(got.max, 4096);
	assert_shape(g, "r", "f32[b*s, 3, 2]");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The GPT-style fixture exported by PyTorch: every dimension an exact
 * expression of batch and seq, none lost (ONNX's own inference loses 59
 * of 111 on this file), and the weights held by the params. */
static void
test_gpt_tiny(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_onnx_stats st = SYM_ONNX_STATS_INIT;
	sym_graph *g = read_clean(ctx, "gpt_tiny.onnx", &st, 143);
	sym_symbol *batch, *seq;

	(void)state;
	assert_int_equal(st.lost_dims, 0);
	assert_shape(g, "logits", "f32[batch, seq, 32]");
	assert_shape(g, "/blocks.0/MatMul_output_0", "f32[batch, 2, seq, seq]");
	batch = sym_symbol_find(ctx, "batch");
	seq = sym_symbol_find(ctx, "seq");
	assert_non_null(batch);
	assert_non_null(seq);
	/* no value has a dimension of any other symbol */
	for (size_t i = 0; i < sym_graph_n_values(g); i++) {
		const sym_shape *s = sym_value_shape(sym_graph_value(g, i));
		for (size_t k = 0; s && k < sym_shape_ndim(s); k++) {
			sym_symbol *syms[4];
			size_t n =
			    sym_expr_symbols(sym_shape_dim(s, k), syms, 4);
			for (size_t j = 0; j < n && j < 4; j++)
				assert_true(syms[j] == batch || syms[j] == seq);
		}
	}
	/* the token table [32, 16] holds the exporter's weights */
	sym_value *tok = sym_graph_find_value(g, "tok.weight");
	size_t bytes;
	assert_non_null(tok);
	assert_int_equal(sym_value_get_kind(tok), SYM_VALUE_PARAM);
	assert_non_null(sym_value_data(tok, &bytes));
	assert_int_equal(bytes, 32 * 16 * 4);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Imported nodes keep their ONNX node's name; a strategy for a Gemm
 * applies to its matmul (its add has the name too), nodes of the graph
 * file have none, and a name two ONNX nodes share finds nothing. */
static void
test_node_names(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = read_fixture(ctx, "named.onnx", NULL);

	(void)state;
	assert_non_null(g);
	assert_string_equal(first_error(g), "");
	sym_node *fc = sym_graph_find_onnx_node(g, "fc");
	assert_non_null(fc);
	assert_string_equal(sym_node_op_name(fc), "matmul");
	assert_string_equal(sym_node_onnx_name(fc), "fc");
	sym_node *add = sym_value_producer(sym_graph_find_value(g, "h"));
	assert_non_null(add);
	assert_string_equal(sym_node_op_name(add), "add");
	assert_string_equal(sym_node_onnx_name(add), "fc");
	assert_ptr_equal(sym_node_input(add, 0), sym_node_output(fc, 0));
	sym_node *act = sym_graph_find_onnx_node(g, "act");
	assert_non_null(act);
	assert_string_equal(sym_node_op_name(act), "relu");
	assert_null(sym_graph_find_onnx_node(g, "twin"));
	assert_null(sym_graph_find_onnx_node(g, "h"));
	assert_null(sym_graph_find_onnx_node(g, NULL));
	assert_null(sym_node_onnx_name(NULL));
	sym_graph_free(g);

	g = sym_graph_parse(ctx, "input x : f32[4]\ny = relu(x)\n", NULL);
	assert_non_null(g);
	assert_null(sym_node_onnx_name(sym_graph_node(g, 0)));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Each refused model gives an error naming the node or tensor. */
static void
test_refused(void **state)
{
	static const struct {
		const char *file, *want;
	} cases[] = {
		{ "unmapped.onnx",
		    "node 'hm0' (Hardmax, opset 14): operator Hardmax is not "
		    "supported" },
		{ "opset9.onnx",
		    "opset 9 of the default domain is not "
		    "supported" },
		{ "badsize.onnx",
		    "tensor 'w': 20 bytes of raw data, its shape needs 24" },
		{ "bntrain.onnx",
		    "node 'bn' (BatchNormalization, opset 15): in training, "
		    "the running statistics must be initializers, but mean "
		    "is not" },
		{ "bnshared.onnx",
		    "node 'y2' (BatchNormalization, opset 15): in training, m "
		    "would be updated by two BatchNormalization nodes" },
		{ "bn4.onnx",
		    "node 'bn' (BatchNormalization, opset 15): "
		    "BatchNormalization takes 5 inputs, not 4" },
		{ "extout.onnx",
		    "tensor 'w': external data location '../secret.bin' is not "
		    "a relative path inside the model's folder" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sym_ctx *ctx = tl_ctx_new();
		sym_graph *g = read_fixture(ctx, cases[i].file, NULL);
		assert_non_null(g);
		assert_true(sym_graph_n_errors(g) >= 1);
		if (!strstr(first_error(g), cases[i].want))
			fail_msg("%s: '%s' lacks '%s'", cases[i].file,
			    first_error(g), cases[i].want);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

/* External data beside the model is read into the param. */
static void
test_external_data(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = read_fixture(ctx, "extin.onnx", NULL);
	size_t bytes;
	float w[2];

	(void)state;
	assert_non_null(g);
	assert_string_equal(first_error(g), "");
	const void *d = sym_value_data(sym_graph_find_value(g, "w"), &bytes);
	assert_non_null(d);
	assert_int_equal(bytes, 8);
	memcpy(w, d, 8);
	assert_true(w[0] == 1.5f && w[1] == -2.0f);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Bytes that are not a model: truncated, garbage, nested too deeply,
 * a missing file: NULL with an error, nothing leaked. */
static void
test_not_a_model(void **state)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/onnx/gpt_tiny.onnx",
	    top ? top : ".");
	char *model = tl_read_file(path, &len);
	assert_non_null(model);
	sym_ctx *ctx = tl_ctx_new();
	/* cut in the middle of a field */
	assert_null(sym_onnx_read_mem(ctx, model, len / 2 + 3, "cut", NULL));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EPARSE);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "cut: not a valid"));
	sym_ctx_clear_error(ctx);
	assert_null(sym_onnx_read_mem(ctx, "# a graph\n", 10, "text", NULL));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EPARSE);
	sym_ctx_clear_error(ctx);
	/* a graph (ModelProto field 7) of a node (GraphProto 1) of an
	 * attribute (NodeProto 5) of a graph (AttributeProto 6) of a node
	 * ... 300 levels: refused before protobuf-c recurses */
	static unsigned char bomb[4096], tmp[4096];
	static const unsigned char keys[4] = { 0x0a, 0x2a, 0x32, 0x3a };
	size_t n = 0;
	for (int level = 0; level < 301; level++) {
		/* inside out: g of an attribute, attribute of a node, node of
		 * a graph; the model's graph last */
		for (int k = 2; k >= 0; k--) {
			unsigned char key = level == 300 ? keys[3] : keys[k];
			size_t h = 0;
			tmp[h++] = key;
			if (n < 128) {
				tmp[h++] = (unsigned char)n;
			} else {
				tmp[h++] = (unsigned char)(0x80 | (n & 0x7f));
				tmp[h++] = (unsigned char)(n >> 7);
			}
			assert_true(n + h <= sizeof(bomb));
			memcpy(tmp + h, bomb, n);
			n += h;
			memcpy(bomb, tmp, n);
			if (level == 300)
				break;
		}
	}
	assert_null(sym_onnx_read_mem(ctx, bomb, n, "bomb", NULL));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EPARSE);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "nested too deeply"));
	sym_ctx_clear_error(ctx);
	assert_null(sym_onnx_read(ctx, "/nonexistent/model.onnx", NULL));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EIO);
	free(model);
	tl_ctx_free(ctx);
}

/* Bind "text" ("b=2, n=3, s=17") to "sl" of "p"; return what
 * sym_plan_bind returned. */
static int
bind_text(const sym_plan *p, sym_slices *sl, const char *text)
{
	sym_binding *b = sym_binding_new(sym_graph_ctx(sym_plan_graph(p)));
	int r;

	assert_non_null(b);
	assert_int_equal(sym_binding_parse(b, text, NULL), 0);
	r = sym_plan_bind(p, b, sl);
	sym_binding_free(b);
	return r;
}

/* Assert that binding "text" to "sl" of "p" fails with SYM_EDOMAIN and
 * the message "want", on the context and in the slices, left unbound. */
static void
assert_rejected(const sym_plan *p, sym_slices *sl, const char *text,
    const char *want)
{
	sym_ctx *ctx = sym_graph_ctx(sym_plan_graph(p));

	assert_int_equal(bind_text(p, sl, text), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EDOMAIN);
	assert_string_equal(sym_ctx_last_message(ctx), want);
	assert_string_equal(sym_slices_error(sl), want);
	assert_int_equal(sym_slices_is_bound(sl), 0);
	sym_ctx_clear_error(ctx);
}

/* A Slice whose start is b*n (sliceguard.onnx: y = x[:, b*n:]): with s
 * at least 16, s >= b*n is neither proved nor refuted, so the import
 * keeps it as a guard naming the node, and the gather's arange adds
 * that s - b*n is at least 1, naming its operator. Binding sizes that
 * break either is an error with the values. */
static void
test_slice_guard(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	int64_t v[3];

	(void)state;
	info.min = 16;
	info.unique = 1;
	assert_non_null(sym_symbol_new(ctx, "s", &info, NULL));
	sym_graph *g = read_fixture(ctx, "sliceguard.onnx", NULL);
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	assert_shape(g, "y", "f32[b, s - b*n, 4]");
	assert_int_equal(sym_graph_n_guards(g), 2);
	const sym_guard *gd = sym_graph_guard(g, 0);
	assert_string_equal(gd->text, "s >= b*n");
	assert_string_equal(gd->reason,
	    "Slice node 'tail': the start of axis 1 within the dimension");
	gd = sym_graph_guard(g, 1);
	assert_string_equal(gd->text, "s - b*n >= 1");
	assert_string_equal(gd->reason,
	    "arange y/step0: arange from 0 to s - b*n by 1 must not be "
	    "empty: s - b*n must be at least 1");
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	sym_plan *p = sym_plan_compile(g, 0);
	assert_non_null(p);
	sym_slices *sl = sym_slices_new(p);
	assert_non_null(sl);
	size_t y = sym_plan_value_tensor(p, sym_graph_find_value(g, "y"));

	assert_int_equal(bind_text(p, sl, "b=2, n=3, s=17"), 0);
	assert_int_equal(sym_slices_global(sl, y, v), 0);
	assert_int_equal(v[0], 2);
	assert_int_equal(v[1], 11);
	assert_int_equal(v[2], 4);
	assert_rejected(p, sl, "b=4, n=5, s=16",
	    "s = 16, b = 4, n = 5 violate guard s >= b*n (Slice node 'tail': "
	    "the start of axis 1 within the dimension)");
	assert_rejected(p, sl, "b=4, n=4, s=16",
	    "s = 16, b = 4, n = 4 violate guard s - b*n >= 1 (arange "
	    "y/step0: arange from 0 to s - b*n by 1 must not be empty: s - "
	    "b*n must be at least 1)");
	/* the slices bind again after the failures */
	assert_int_equal(bind_text(p, sl, "b=1, n=15, s=16"), 0);
	assert_int_equal(sym_slices_global(sl, y, v), 0);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 1);
	assert_int_equal(v[2], 4);
	sym_slices_free(sl);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The supported list is sorted, names the operators of the issue, and
 * sym_onnx_is_model tells models from text. */
static void
test_supported(void **state)
{
	(void)state;
	size_t n = sym_onnx_n_supported();
	assert_true(n >= 50);
	for (size_t i = 1; i < n; i++)
		assert_true(strcmp(sym_onnx_supported(i - 1),
		                sym_onnx_supported(i)) < 0);
	assert_null(sym_onnx_supported(n));
	assert_true(sym_onnx_is_model("\x08\x07", 2));
	assert_false(sym_onnx_is_model("input x", 7));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_values),
		cmocka_unit_test(test_declared_symbol),
		cmocka_unit_test(test_gpt_tiny),
		cmocka_unit_test(test_node_names),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_external_data),
		cmocka_unit_test(test_not_a_model),
		cmocka_unit_test(test_slice_guard),
		cmocka_unit_test(test_supported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
