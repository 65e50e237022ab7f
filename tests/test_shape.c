/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the shape family: dtypes, shapes, attributes, the
 * operator registry, and every operator family's shape rule reached
 * through the graph API on static and symbolic shapes, failures included.
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

/* Return a new context with the unique symbols "b", "h", "w", "n" (plain)
 * and "q" (divisor 4), and the plain symbol "s" that is not unique (each
 * use in an input is a fresh variable: s, s', s'', ...). */
static sym_ctx *
new_ctx(void)
{
	static const struct {
		const char *name;
		int64_t divisor;
		int unique;
	} decl[] = { { "b", 1, 1 }, { "h", 1, 1 }, { "w", 1, 1 }, { "n", 1, 1 },
		{ "q", 4, 1 }, { "s", 1, 0 } };
	sym_ctx *ctx = tl_ctx_new();

	for (size_t i = 0; i < sizeof(decl) / sizeof(decl[0]); i++) {
		sym_symbol_info info = SYM_SYMBOL_INFO_INIT;

		info.divisor = decl[i].divisor;
		info.unique = decl[i].unique;
		assert_non_null(sym_symbol_new(ctx, decl[i].name, &info, NULL));
	}
	return ctx;
}

/* Return the expression "text" of "ctx" (a caller reference). */
static sym_expr *
ex(sym_ctx *ctx, const char *text)
{
	sym_expr *e = sym_expr_parse(ctx, text, NULL);

	assert_non_null(e);
	return e;
}

/* Return a caller reference to the shape "text" of "ctx", written as
 * "f32[b, 784]" (dimensions without commas inside). */
static sym_shape *
shape(sym_ctx *ctx, const char *text)
{
	const char *open = strchr(text, '[');
	sym_expr *dims[16];
	size_t n = 0;
	char dt[16], buf[256];
	sym_shape *s;
	char *p, *tok, *save = NULL;

	assert_non_null(open);
	assert_true((size_t)(open - text) < sizeof(dt));
	memcpy(dt, text, (size_t)(open - text));
	dt[open - text] = '\0';
	snprintf(buf, sizeof(buf), "%s", open + 1);
	p = strchr(buf, ']');
	assert_non_null(p);
	*p = '\0';
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		assert_true(n < 16);
		dims[n++] = ex(ctx, tok);
	}
	s = sym_shape_new(ctx, sym_dtype_from_name(dt), n, dims);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		sym_expr_free(dims[i]);
	return s;
}

/* Assert that "s" prints as "want". */
static void
assert_shape(const sym_shape *s, const char *want)
{
	char *t;

	assert_non_null(s);
	t = sym_shape_to_str(s);
	assert_non_null(t);
	assert_string_equal(t, want);
	free(t);
}

/* Return a new list of the expressions of "ctx" written in "texts"
 * ("n" of them) set as attribute "name" of "a". */
static void
set_list(sym_attrs *a, sym_ctx *ctx, const char *name, size_t n,
    const char *const *texts)
{
	sym_expr *items[16];

	assert_true(n <= 16);
	for (size_t i = 0; i < n; i++)
		items[i] = ex(ctx, texts[i]);
	assert_int_equal(sym_attrs_set_list(a, name, n, items), 0);
	for (size_t i = 0; i < n; i++)
		sym_expr_free(items[i]);
}

/* Check dtype names, sizes and classes; "state" is unused. */
static void
test_dtypes(void **state)
{
	static const char *const names[] = { "f16", "bf16", "f32", "f64", "i8",
		"i16", "i32", "i64", "u8", "bool" };
	static const size_t sizes[] = { 2, 2, 4, 8, 1, 2, 4, 8, 1, 1 };

	(void)state;
	for (size_t i = 0; i < 10; i++) {
		sym_dtype dt = sym_dtype_from_name(names[i]);

		assert_int_equal(dt, SYM_DT_F16 + (int)i);
		assert_string_equal(sym_dtype_name(dt), names[i]);
		assert_int_equal(sym_dtype_size(dt), sizes[i]);
		assert_int_equal(sym_dtype_is_float(dt), i < 4);
	}
	assert_int_equal(sym_dtype_from_name("f65"), SYM_DT_INVALID);
	assert_int_equal(sym_dtype_from_name(""), SYM_DT_INVALID);
	assert_int_equal(sym_dtype_from_name(NULL), SYM_DT_INVALID);
	assert_int_equal(sym_dtype_from_name("invalid"), SYM_DT_INVALID);
	assert_int_equal(sym_dtype_size(SYM_DT_INVALID), 0);
	assert_int_equal(sym_dtype_size((sym_dtype)99), 0);
	assert_int_equal(sym_dtype_is_float((sym_dtype)-3), SYM_ERROR);
	assert_string_equal(sym_dtype_name((sym_dtype)99), "invalid");
}

/* Check shape construction, printing, numel, equality and reference
 * counts; "state" is unused. */
static void
test_shapes(void **state)
{
	sym_ctx *ctx = new_ctx();
	sym_shape *a, *b, *c, *d, *scalar;
	sym_expr *dims[2], *numel;
	char *t;

	(void)state;
	a = shape(ctx, "f32[b, 784]");
	b = shape(ctx, "f32[b, 784]");
	c = shape(ctx, "f16[b, 784]");
	d = shape(ctx, "f32[784, b]");
	scalar = sym_shape_new(ctx, SYM_DT_I64, 0, NULL);
	assert_shape(a, "f32[b, 784]");
	assert_shape(scalar, "i64[]");
	t = sym_shape_dims_to_str(a);
	assert_string_equal(t, "[b, 784]");
	free(t);
	t = sym_shape_dims_to_str(scalar);
	assert_string_equal(t, "[]");
	free(t);
	assert_int_equal(sym_shape_ndim(a), 2);
	assert_int_equal(sym_shape_dtype(c), SYM_DT_F16);
	assert_null(sym_shape_dim(a, 2));
	assert_true(sym_expr_is_symbol(sym_shape_dim(a, 0)));
	assert_int_equal(sym_shape_is_equal(a, b), 1);
	assert_int_equal(sym_shape_is_equal(a, c), 0);
	assert_int_equal(sym_shape_is_equal(a, d), 0);
	assert_int_equal(sym_shape_is_equal(a, scalar), 0);
	assert_int_equal(sym_shape_is_equal(a, NULL), -1);

	numel = sym_shape_numel(a);
	t = sym_expr_to_str(numel);
	assert_string_equal(t, "784*b");
	free(t);
	sym_expr_free(numel);
	numel = sym_shape_numel(scalar);
	t = sym_expr_to_str(numel);
	assert_string_equal(t, "1");
	free(t);
	sym_expr_free(numel);

	/* Copies are counted like the originals. */
	assert_int_equal(sym_ctx_live_objects(ctx), 5);
	b = sym_shape_free(b);
	assert_null(b);
	b = sym_shape_copy(a);
	assert_ptr_equal(b, a);
	assert_int_equal(sym_ctx_live_objects(ctx), 5);
	sym_shape_free(b);
	sym_shape_free(a);
	sym_shape_free(c);
	sym_shape_free(d);
	sym_shape_free(scalar);
	assert_null(sym_shape_free(NULL));

	/* Invalid arguments. */
	dims[0] = sym_expr_const(ctx, -2);
	dims[1] = NULL;
	assert_null(sym_shape_new(ctx, SYM_DT_F32, 1, dims));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	sym_ctx_clear_error(ctx);
	assert_null(sym_shape_new(ctx, SYM_DT_F32, 2, dims));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_null(sym_shape_new(ctx, SYM_DT_INVALID, 0, NULL));
	assert_null(sym_shape_new(ctx, (sym_dtype)42, 0, NULL));
	assert_null(sym_shape_new(ctx, SYM_DT_F32, 1, NULL));
	assert_null(sym_shape_new(NULL, SYM_DT_F32, 0, NULL));
	sym_expr_free(dims[0]);
	assert_null(sym_shape_to_str(NULL));
	assert_int_equal(sym_shape_ndim(NULL), 0);
	assert_int_equal(sym_shape_dtype(NULL), SYM_DT_INVALID);
	tl_ctx_free(ctx);
}

/* Check that shapes a caller forgets are released with their context
 * (the sanitizers check the memory); "state" is unused. */
static void
test_shape_forgotten(void **state)
{
	sym_ctx *ctx = new_ctx();
	sym_shape *a = shape(ctx, "f32[b, 3]");

	(void)state;
	assert_non_null(sym_shape_copy(a));
	assert_non_null(shape(ctx, "i8[h]"));
	assert_int_equal(sym_ctx_live_objects(ctx), 3);
	sym_ctx_free(ctx);
}

/* Check every kind of attribute, replacement, printing and kind errors;
 * "state" is unused. */
static void
test_attrs(void **state)
{
	static const char *const axes[] = { "1", "b + 1" };
	sym_ctx *ctx = new_ctx();
	sym_attrs *a = sym_attrs_new(ctx);
	sym_loc loc = { "net.sg", 3, 14 };
	int64_t i = 0;
	double f = 0;
	int v = -1;
	char *t;

	(void)state;
	assert_non_null(a);
	assert_int_equal(sym_ctx_live_objects(ctx), 1);
	t = sym_attrs_to_str(a);
	assert_string_equal(t, "");
	free(t);
	assert_int_equal(sym_attrs_set_bool(a, "transpose_b", 7), 0);
	set_list(a, ctx, "axis", 2, axes);
	assert_int_equal(sym_attrs_set_int(a, "group", -2), 0);
	assert_int_equal(sym_attrs_set_float(a, "epsilon", 1e-5), 0);
	assert_int_equal(sym_attrs_set_string(a, "dtype", "f\"16"), 0);
	assert_int_equal(sym_attrs_set_float(a, "scale", 2.0), 0);
	assert_int_equal(sym_attrs_n_names(a), 6);
	assert_string_equal(sym_attrs_name(a, 1), "axis");
	assert_null(sym_attrs_name(a, 6));
	t = sym_attrs_to_str(a);
	assert_string_equal(t,
	    "transpose_b=true, axis=[1, b + 1], group=-2, "
	    "epsilon=1e-05, dtype=\"f\\\"16\", scale=2.0");
	free(t);

	assert_int_equal(sym_attrs_kind(a, "transpose_b"), SYM_ATTR_BOOL);
	assert_int_equal(sym_attrs_kind(a, "axis"), SYM_ATTR_LIST);
	assert_int_equal(sym_attrs_kind(a, "group"), SYM_ATTR_INT);
	assert_int_equal(sym_attrs_kind(a, "epsilon"), SYM_ATTR_FLOAT);
	assert_int_equal(sym_attrs_kind(a, "dtype"), SYM_ATTR_STRING);
	assert_int_equal(sym_attrs_kind(a, "nothing"), SYM_ATTR_NONE);
	assert_int_equal(sym_attrs_get_bool(a, "transpose_b", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sym_attrs_get_int(a, "group", &i), 0);
	assert_int_equal(i, -2);
	assert_int_equal(sym_attrs_get_float(a, "epsilon", &f), 0);
	assert_true(f == 1e-5);
	assert_string_equal(sym_attrs_get_string(a, "dtype"), "f\"16");
	assert_int_equal(sym_attrs_list_n_items(a, "axis"), 2);
	assert_int_equal(sym_expr_get_const(sym_attrs_list_item(a, "axis", 0),
	                     &i),
	    0);
	assert_int_equal(i, 1);
	assert_null(sym_attrs_list_item(a, "axis", 2));

	/* Absent: -1 without error; another kind: -1 with SYM_EINVAL. */
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_attrs_get_int(a, "nothing", &i), -1);
	assert_null(sym_attrs_get_string(a, "nothing"));
	assert_int_equal(sym_attrs_list_n_items(a, "nothing"), 0);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	assert_int_equal(sym_attrs_get_int(a, "transpose_b", &i), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_attrs_get_bool(a, "group", &v), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_attrs_get_float(a, "group", &f), -1);
	assert_null(sym_attrs_get_string(a, "group"));
	assert_int_equal(sym_attrs_list_n_items(a, "group"), 0);
	assert_null(sym_attrs_list_item(a, "group", 0));
	assert_int_equal(sym_attrs_get_int(a, "axis", &i), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);

	/* Replacing keeps the position and changes the kind. */
	assert_int_equal(sym_attrs_set_int(a, "axis", 3), 0);
	assert_int_equal(sym_attrs_set_list(a, "transpose_b", 0, NULL), 0);
	assert_int_equal(sym_attrs_n_names(a), 6);
	assert_int_equal(sym_attrs_get_int(a, "axis", &i), 0);
	assert_int_equal(i, 3);
	t = sym_attrs_to_str(a);
	assert_string_equal(t,
	    "transpose_b=[], axis=3, group=-2, "
	    "epsilon=1e-05, dtype=\"f\\\"16\", scale=2.0");
	free(t);

	/* Locations. */
	assert_int_equal(sym_attrs_set_loc(a, "axis", &loc), 0);
	assert_int_equal(sym_attrs_set_loc(a, "nothing", &loc), -1);
	assert_int_equal(sym_attrs_set_loc(a, "axis", NULL), -1);

	/* Invalid arguments. */
	assert_int_equal(sym_attrs_set_int(a, "", 1), -1);
	assert_int_equal(sym_attrs_set_int(a, NULL, 1), -1);
	assert_int_equal(sym_attrs_set_string(a, "s", NULL), -1);
	assert_int_equal(sym_attrs_set_list(a, "l", 2, NULL), -1);
	assert_int_equal(sym_attrs_set_int(NULL, "x", 1), -1);
	assert_int_equal(sym_attrs_n_names(a), 6);
	assert_int_equal(sym_attrs_n_names(NULL), 0);
	assert_null(sym_attrs_to_str(NULL));
	sym_attrs_free(a);
	sym_attrs_free(NULL);
	tl_ctx_free(ctx);
}

/* Check the registry covers the operators of the catalogue of
 * symshard-operators(7) (HACKING.md section 8) with their families and
 * positional arguments; "state" is unused. */
static void
test_registry(void **state)
{
	static const char *const ops[] = { "matmul", "batch_matmul", "relu",
		"gelu", "exp", "log", "neg", "sqrt", "tanh", "sigmoid", "cast",
		"add", "sub", "mul", "div", "maximum", "minimum", "bias_add",
		"reshape", "flatten", "transpose", "permute", "expand_dims",
		"squeeze", "expand", "tile", "pad", "concat", "split", "slice",
		"reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
		"reduce_prod", "argmax", "argmin", "softmax", "log_softmax",
		"layer_norm", "gather", "embedding", "one_hot",
		"softmax_cross_entropy", "sce_count", "sce_target",
		"sce_sumexp", "conv2d", "identity", "fill_like", "relu_grad",
		"equal", "not_equal", "less", "less_equal", "greater",
		"greater_equal", "logical_and", "logical_or", "logical_not",
		"where", "erf", "pow", "rsqrt", "reciprocal", "abs", "sign",
		"floor", "ceil", "clip", "silu", "softplus", "erf_grad",
		"rsqrt_grad", "reciprocal_grad", "clip_grad", "silu_grad",
		"softplus_grad", "pow_grad", "sum_to", "sgd_update",
		"momentum_update", "adam_update", "adamw_update", "increment",
		"gelu_grad", "sigmoid_grad", "tanh_grad", "sqrt_grad",
		"sce_grad", "reduce_sum_grad", "reduce_mean_grad",
		"reduce_max_grad", "softmax_grad", "log_softmax_grad",
		"layer_norm_grad", "maximum_grad", "minimum_grad",
		"conv2d_input_grad", "conv2d_weight_grad", "gather_grad",
		"embedding_grad", "slice_grad", "max_pool2d", "avg_pool2d",
		"global_avg_pool", "max_pool2d_grad", "avg_pool2d_grad",
		"global_avg_pool_grad", "dropout", "dropout_grad", "tril",
		"triu", "cumsum", "reduce_prod_grad", "batch_norm",
		"batch_norm_stats", "batch_norm_update",
		"batch_norm_grad_params", "batch_norm_grad", "arange", "range",
		"full", "ones", "zeros" };
	/* the generators take no input; every other operator at least one */
	static const char *const generators[] = { "arange", "range", "full",
		"ones", "zeros" };
	size_t n = sizeof(ops) / sizeof(ops[0]);
	const sym_op *op;

	(void)state;
	assert_int_equal(sym_registry_n_ops(), n);
	for (size_t i = 0; i < n; i++) {
		op = sym_op_find(ops[i]);
		assert_non_null(op);
		assert_string_equal(sym_op_name(op), ops[i]);
		assert_non_null(sym_op_family(op));
		assert_true(sym_op_min_inputs(op) >= 1 ||
		    !strcmp(sym_op_family(op), "generate"));
	}
	for (size_t i = 0; i < sizeof(generators) / sizeof(generators[0]);
	     i++) {
		op = sym_op_find(generators[i]);
		assert_string_equal(sym_op_family(op), "generate");
		assert_int_equal(sym_op_min_inputs(op), 0);
		assert_int_equal(sym_op_max_inputs(op), 0);
	}
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(sym_op_find(sym_op_name(sym_registry_op(i))),
		    sym_registry_op(i));
	assert_null(sym_registry_op(n));
	assert_null(sym_op_find("matmull"));
	assert_null(sym_op_find(NULL));
	op = sym_op_find("reshape");
	assert_string_equal(sym_op_family(op), "layout");
	assert_string_equal(sym_op_positional(op, 0), "shape");
	assert_null(sym_op_positional(op, 1));
	assert_string_equal(sym_op_positional(sym_op_find("permute"), 0),
	    "perm");
	assert_null(sym_op_positional(sym_op_find("matmul"), 0));
	assert_int_equal(sym_op_max_inputs(sym_op_find("concat")), -1);
	assert_int_equal(sym_op_min_inputs(sym_op_find("layer_norm")), 3);
	assert_int_equal(sym_op_max_inputs(sym_op_find("matmul")), 2);
	assert_string_equal(sym_op_family(sym_op_find("conv2d")), "conv");
	assert_string_equal(sym_op_family(sym_op_find("max_pool2d")), "pool");
	assert_null(sym_op_name(NULL));
	assert_int_equal(sym_op_min_inputs(NULL), -1);
}

/* A graph under test with its context. */
struct t {
	sym_ctx *ctx;
	sym_graph *g;
	size_t n_diag; /* diagnostics seen so far */
	size_t n_err;  /* errors expected so far */
	size_t n_op;   /* operators applied, to name their outputs */
};

/* Return a new graph under test in a new context. */
static struct t
t_new(void)
{
	struct t t;

	t.ctx = new_ctx();
	t.g = sym_graph_new(t.ctx);
	assert_non_null(t.g);
	t.n_diag = 0;
	t.n_err = 0;
	t.n_op = 0;
	return t;
}

/* Free the graph under test "t" and check nothing is left alive. */
static void
t_free(struct t *t)
{
	sym_graph_free(t->g);
	tl_ctx_free(t->ctx);
}

/* Add to "t" the input "name" of shape "text"; return its value. */
static sym_value *
input(struct t *t, const char *name, const char *text)
{
	sym_shape *s = shape(t->ctx, text);
	sym_value *v =
	    sym_graph_add_input(t->g, name, SYM_VALUE_INPUT, s, NULL);

	sym_shape_free(s);
	assert_non_null(v);
	return v;
}

/* Apply "op" to the "n_in" inputs "in" with attributes "a" (may be NULL)
 * in "t", naming "n_out" outputs uniquely; return the node. */
static sym_node *
apply_n(struct t *t, const char *op, size_t n_out, size_t n_in,
    sym_value *const *in, const sym_attrs *a)
{
	char buf[8][24];
	const char *names[8];
	sym_node *n;

	assert_true(n_out <= 8);
	for (size_t i = 0; i < n_out; i++) {
		snprintf(buf[i], sizeof(buf[i]), "r%zu_%zu", t->n_op, i);
		names[i] = buf[i];
	}
	t->n_op++;
	n = sym_graph_add_op(t->g, op, n_out, n_out ? names : NULL, n_in, in, a,
	    NULL);
	assert_non_null(n);
	return n;
}

/* Apply "op" as apply_n with one output; return its value. */
static sym_value *
apply(struct t *t, const char *op, size_t n_in, sym_value *const *in,
    const sym_attrs *a)
{
	sym_node *n = apply_n(t, op, 1, n_in, in, a);

	assert_int_equal(sym_node_n_outputs(n), 1);
	return sym_node_output(n, 0);
}

/* A set of attributes that a setter failed on is refused by
 * sym_graph_add_op, naming the operator, whatever it still holds: an
 * operator never runs without an attribute its caller meant to give
 * (a transpose_b lost to an allocation failure would transpose
 * nothing); a set that never failed is accepted. "state" is unused. */
static void
test_attrs_failed(void **state)
{
	struct t t = t_new();
	sym_value *in[2];
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_node *n;

	(void)state;
	in[0] = input(&t, "x", "f32[4, 3]");
	in[1] = input(&t, "w", "f32[5, 3]");
	assert_int_equal(sym_attrs_set_bool(a, "transpose_b", 1), 0);
	n = sym_graph_add_op(t.g, "matmul", 0, NULL, 2, in, a, NULL);
	assert_non_null(n);
	assert_int_equal(sym_node_n_outputs(n), 1);
	assert_int_equal(sym_attrs_set_int(a, "", 1), -1);
	n = sym_graph_add_op(t.g, "matmul", 0, NULL, 2, in, a, NULL);
	assert_null(n);
	assert_int_equal(sym_ctx_last_error(t.ctx), SYM_EINVAL);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx),
	    "matmul: its attributes are incomplete"));
	/* a later successful setter does not clear the mark */
	assert_int_equal(sym_attrs_set_bool(a, "transpose_b", 1), 0);
	assert_null(sym_graph_add_op(t.g, "matmul", 0, NULL, 2, in, a, NULL));
	sym_attrs_free(a);
	t_free(&t);
}

/* Assert that "t" has no new error. */
static void
expect_ok(struct t *t)
{
	if (sym_graph_n_errors(t->g) != t->n_err) {
		const sym_diagnostic *d = sym_graph_diagnostic(t->g,
		    sym_graph_n_diagnostics(t->g) - 1);

		fail_msg("unexpected error: %s", d ? d->message : "?");
	}
	t->n_diag = sym_graph_n_diagnostics(t->g);
}

/* Assert that "v" has the shape "want" and that "t" has no new error. */
static void
expect(struct t *t, sym_value *v, const char *want)
{
	expect_ok(t);
	assert_shape(sym_value_shape(v), want);
}

/* Assert that the last operation added an error diagnostic to "t" whose
 * message contains "part" and "part2" (may be NULL), and whose witness
 * contains "witness" when not NULL; clear it from the count. */
static void
expect_error(struct t *t, const char *part, const char *part2,
    const char *witness)
{
	size_t n = sym_graph_n_diagnostics(t->g);
	const sym_diagnostic *d = NULL;

	for (size_t i = t->n_diag; i < n; i++) {
		const sym_diagnostic *x = sym_graph_diagnostic(t->g, i);

		if (x->severity == SYM_SEV_ERROR)
			d = x;
	}
	if (!d)
		fail_msg("no error; expected one about \"%s\"", part);
	if (!strstr(d->message, part) || (part2 && !strstr(d->message, part2)))
		fail_msg("error \"%s\" lacks \"%s\" / \"%s\"", d->message, part,
		    part2 ? part2 : "");
	if (witness && (!d->witness || !strstr(d->witness, witness)))
		fail_msg("error \"%s\": witness \"%s\", expected \"%s\"",
		    d->message, d->witness ? d->witness : "(none)", witness);
	assert_true(sym_graph_n_errors(t->g) > t->n_err);
	t->n_diag = n;
	t->n_err = sym_graph_n_errors(t->g);
}

/* matmul and batch_matmul, static and symbolic; "state" is unused. */
static void
test_matmul(void **state)
{
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *x, *w1, *w3, *in[3], *p, *q;

	(void)state;
	x = input(&t, "x2", "f32[b, 784]");
	w1 = input(&t, "w1", "f32[784, 512]");
	w3 = input(&t, "w3", "f32[512, 10]");
	in[0] = x;
	in[1] = w1;
	expect(&t, apply(&t, "matmul", 2, in, NULL), "f32[b, 512]");

	/* The failure of the tutorial: both dimensions named. */
	in[1] = w3;
	apply(&t, "matmul", 2, in, NULL);
	assert_int_equal(sym_graph_n_errors(t.g), 1);
	expect_error(&t, "dimension 1 of x2 (784)", "dimension 0 of w3 (512)",
	    NULL);

	/* Transposes. */
	assert_int_equal(sym_attrs_set_bool(a, "transpose_a", 1), 0);
	assert_int_equal(sym_attrs_set_bool(a, "transpose_b", 1), 0);
	p = input(&t, "p", "f32[784, h]");
	q = input(&t, "q", "f32[n, 784]");
	in[0] = p;
	in[1] = q;
	expect(&t, apply(&t, "matmul", 2, in, a), "f32[h, n]");

	/* A symbolic contracted dimension unifies two uses of s. */
	in[0] = input(&t, "u", "f32[s, h]");
	in[1] = input(&t, "v", "f32[h, s]");
	assert_shape(sym_value_shape(in[1]), "f32[h, s']");
	assert_int_equal(sym_graph_n_relations(t.g), 0);
	expect(&t, apply(&t, "matmul", 2, in, NULL), "f32[s, s']");
	in[0] = input(&t, "u2", "f32[h, s]");
	expect(&t, apply(&t, "matmul", 2, in, NULL), "f32[h, s']");
	assert_int_equal(sym_graph_n_relations(t.g), 1);

	/* Structural errors: rank, dtype, arity, attribute kind. */
	in[0] = input(&t, "r3", "f32[2, 3, 4]");
	in[1] = w1;
	apply(&t, "matmul", 2, in, NULL);
	expect_error(&t, "r3 of matmul must have rank 2", NULL, NULL);
	in[0] = input(&t, "hx", "f16[b, 784]");
	apply(&t, "matmul", 2, in, NULL);
	expect_error(&t, "dtype", "f16", NULL);
	in[0] = x;
	in[2] = w1;
	apply(&t, "matmul", 3, in, NULL);
	expect_error(&t, "matmul takes 2 inputs, not 3", NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "transpose_a", 1), 0);
	apply(&t, "matmul", 2, in, a);
	expect_error(&t, "transpose_a", "true or false", NULL);
	sym_attrs_free(a);
	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_bool(a, "tranpose_b", 1), 0);
	apply(&t, "matmul", 2, in, a);
	expect_error(&t, "no attribute tranpose_b", "transpose_b", NULL);
	sym_attrs_free(a);

	/* batch_matmul: broadcast batch dimensions. */
	in[0] = input(&t, "ba", "f32[b, 1, h, 8]");
	in[1] = input(&t, "bb", "f32[4, 8, w]");
	expect(&t, apply(&t, "batch_matmul", 2, in, NULL), "f32[b, 4, h, w]");
	in[1] = input(&t, "bc", "f32[8, 3]");
	expect(&t, apply(&t, "batch_matmul", 2, in, NULL), "f32[b, 1, h, 3]");
	in[1] = input(&t, "bd", "f32[5, 8, 3]");
	in[0] = input(&t, "be", "f32[6, 2, 8]");
	apply(&t, "batch_matmul", 2, in, NULL);
	expect_error(&t, "dimension 0 of be (6)", "broadcasting", NULL);
	in[0] = input(&t, "bf", "f32[8]");
	apply(&t, "batch_matmul", 2, in, NULL);
	expect_error(&t, "rank at least 2", NULL, NULL);
	t_free(&t);
}

/* Unary, cast, binary with broadcasting, bias_add, identity; "state" is
 * unused. */
static void
test_elementwise(void **state)
{
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *x, *in[2];

	(void)state;
	x = input(&t, "x", "f32[b, 3, h, w]");
	expect(&t, apply(&t, "relu", 1, &x, NULL), "f32[b, 3, h, w]");
	expect(&t, apply(&t, "sigmoid", 1, &x, NULL), "f32[b, 3, h, w]");
	expect(&t, apply(&t, "identity", 1, &x, NULL), "f32[b, 3, h, w]");
	in[0] = input(&t, "k", "i32[b]");
	apply(&t, "exp", 1, in, NULL);
	expect_error(&t, "floating-point", "i32", NULL);
	expect(&t, apply(&t, "neg", 1, in, NULL), "i32[b]");

	/* cast */
	assert_int_equal(sym_attrs_set_string(a, "dtype", "f16"), 0);
	expect(&t, apply(&t, "cast", 1, &x, a), "f16[b, 3, h, w]");
	apply(&t, "cast", 1, &x, NULL);
	expect_error(&t, "cast needs attribute dtype", NULL, NULL);
	assert_int_equal(sym_attrs_set_string(a, "dtype", "f65"), 0);
	apply(&t, "cast", 1, &x, a);
	expect_error(&t, "unknown dtype \"f65\"", NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "dtype", 3), 0);
	apply(&t, "cast", 1, &x, a);
	expect_error(&t, "must be a string", NULL, NULL);
	sym_attrs_free(a);

	/* Broadcasting. */
	in[0] = input(&t, "p", "f32[b, 1, 5]");
	in[1] = input(&t, "r", "f32[3, 5]");
	expect(&t, apply(&t, "add", 2, in, NULL), "f32[b, 3, 5]");
	in[1] = input(&t, "s", "f32[]");
	expect(&t, apply(&t, "mul", 2, in, NULL), "f32[b, 1, 5]");
	in[1] = input(&t, "u", "f32[4, 5]");
	in[0] = input(&t, "v", "f32[3, 5]");
	apply(&t, "sub", 2, in, NULL);
	expect_error(&t,
	    "dimension 0 of v (3) must equal dimension 0 of u "
	    "(4)",
	    NULL, NULL);
	in[0] = input(&t, "c", "f32[h, 5]");
	in[1] = input(&t, "c1", "f32[1, 5]");
	expect(&t, apply(&t, "maximum", 2, in, NULL), "f32[h, 5]");
	in[0] = input(&t, "m", "i32[n]");
	in[1] = input(&t, "m2", "f32[n]");
	apply(&t, "minimum", 2, in, NULL);
	expect_error(&t, "one dtype", NULL, NULL);

	/* A symbolic dimension is never taken for 1: [q] + [3] cannot hold
	 * (q is a multiple of 4). */
	in[0] = input(&t, "g", "f32[q]");
	in[1] = input(&t, "g3", "f32[3]");
	apply(&t, "div", 2, in, NULL);
	expect_error(&t, "dimension 0 of g (q) must equal dimension 0 of g3",
	    NULL, NULL);

	/* bias_add along dimension 1, or the last with NHWC. */
	in[0] = x;
	in[1] = input(&t, "bias", "f32[3]");
	expect(&t, apply(&t, "bias_add", 2, in, NULL), "f32[b, 3, h, w]");
	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_string(a, "data_format", "NHWC"), 0);
	apply(&t, "bias_add", 2, in, a);
	expect_error(&t, "dimension 0 of bias bias (3)",
	    "channel dimension for data_format=NHWC", NULL);
	in[0] = input(&t, "nhwc", "f32[b, h, w, 3]");
	expect(&t, apply(&t, "bias_add", 2, in, a), "f32[b, h, w, 3]");
	assert_int_equal(sym_attrs_set_string(a, "data_format", "HWCN"), 0);
	apply(&t, "bias_add", 2, in, a);
	expect_error(&t, "data_format", "HWCN", NULL);
	sym_attrs_free(a);
	in[0] = in[1];
	apply(&t, "bias_add", 2, in, NULL);
	expect_error(&t, "rank at least 2", NULL, NULL);
	t_free(&t);
}

/* The operators of DESIGN section 17: comparisons (bool results, one
 * dtype), logical operators (bool only), where (three-way broadcasting,
 * refuted with a witness), pow, the unary maths and their attributes;
 * "state" is unused. */
static void
test_elementwise_more(void **state)
{
	static const char *const cmp[] = { "equal", "not_equal", "less",
		"less_equal", "greater", "greater_equal" };
	static const char *const fl[] = { "erf", "rsqrt", "reciprocal", "floor",
		"ceil", "silu", "softplus" };
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *x, *in[3];

	(void)state;
	x = input(&t, "x", "f32[b, 1, w]");
	in[0] = x;
	in[1] = input(&t, "r", "f32[h, w]");
	for (size_t i = 0; i < 6; i++)
		expect(&t, apply(&t, cmp[i], 2, in, NULL), "bool[b, h, w]");
	in[1] = input(&t, "ri", "i32[h, w]");
	apply(&t, "less", 2, in, NULL);
	expect_error(&t, "less needs operands of one dtype", "i32", NULL);
	in[0] = input(&t, "bb", "bool[h, 1]");
	in[1] = input(&t, "bc", "bool[w]");
	expect(&t, apply(&t, "equal", 2, in, NULL), "bool[h, w]");
	expect(&t, apply(&t, "logical_and", 2, in, NULL), "bool[h, w]");
	expect(&t, apply(&t, "logical_or", 2, in, NULL), "bool[h, w]");
	expect(&t, apply(&t, "logical_not", 1, in, NULL), "bool[h, 1]");
	in[1] = x;
	apply(&t, "logical_or", 2, in, NULL);
	expect_error(&t, "operand x of logical_or must be bool, not f32", NULL,
	    NULL);
	apply(&t, "logical_not", 1, &x, NULL);
	expect_error(&t, "must be bool, not f32", NULL, NULL);

	/* where: three-way broadcasting, the values' dtype. */
	in[0] = input(&t, "c", "bool[h, 1, 1]");
	in[1] = input(&t, "x2", "f32[b, 1]");
	in[2] = input(&t, "y", "f32[w]");
	expect(&t, apply(&t, "where", 3, in, NULL), "f32[h, b, w]");
	in[2] = input(&t, "yi", "i32[w]");
	apply(&t, "where", 3, in, NULL);
	expect_error(&t, "where needs operands of one dtype", "i32", NULL);
	in[0] = x;
	in[2] = x;
	apply(&t, "where", 3, in, NULL);
	expect_error(&t, "the condition x of where must be bool, not f32", NULL,
	    NULL);
	in[0] = input(&t, "cs", "bool[h, h]");
	in[1] = input(&t, "ws", "f32[n, h]");
	in[2] = input(&t, "w1", "f32[1]");
	apply(&t, "where", 3, in, NULL);
	expect_error(&t,
	    "dimension 0 of ws (n) must equal dimension 0 of cs (h)",
	    "broadcasting", "n = ");
	in[1] = input(&t, "w3", "f32[3]");
	in[2] = input(&t, "w4", "f32[4, 1]");
	apply(&t, "where", 3, in, NULL);
	expect_error(&t, "dimension 0 of w3 (3) must equal dimension 1 of cs",
	    NULL, NULL);

	/* pow: floating, one dtype, broadcast. */
	in[0] = x;
	in[1] = input(&t, "e", "f32[h, 1]");
	expect(&t, apply(&t, "pow", 2, in, NULL), "f32[b, h, w]");
	in[0] = input(&t, "k", "i32[b]");
	in[1] = in[0];
	apply(&t, "pow", 2, in, NULL);
	expect_error(&t, "pow needs a floating-point input", "i32", NULL);

	/* The floating unary maths; abs, sign and clip on integers but not
	 * bool (abs not on i64); bool arithmetic is an error. */
	for (size_t i = 0; i < 7; i++) {
		expect(&t, apply(&t, fl[i], 1, &x, NULL), "f32[b, 1, w]");
		apply(&t, fl[i], 1, in, NULL);
		expect_error(&t, "floating-point", "i32", NULL);
	}
	expect(&t, apply(&t, "abs", 1, in, NULL), "i32[b]");
	expect(&t, apply(&t, "sign", 1, in, NULL), "i32[b]");
	in[1] = input(&t, "k64", "i64[b]");
	expect(&t, apply(&t, "sign", 1, &in[1], NULL), "i64[b]");
	apply(&t, "abs", 1, &in[1], NULL);
	expect_error(&t, "abs does not take i64", NULL, NULL);
	in[2] = input(&t, "kb", "bool[b]");
	apply(&t, "abs", 1, &in[2], NULL);
	expect_error(&t, "abs needs a numeric input, but kb is bool", NULL,
	    NULL);
	apply(&t, "sign", 1, &in[2], NULL);
	expect_error(&t, "sign needs a numeric input", NULL, NULL);
	apply(&t, "pow", 2, (sym_value *const[]){ in[2], in[2] }, NULL);
	expect_error(&t, "pow needs a floating-point input", "bool", NULL);

	/* clip's bounds. */
	assert_int_equal(sym_attrs_set_float(a, "min", -0.5), 0);
	expect(&t, apply(&t, "clip", 1, &x, a), "f32[b, 1, w]");
	apply(&t, "clip", 1, in, a);
	expect_error(&t, "attribute min of clip of k (i32) must be a whole",
	    "-0.5", NULL);
	assert_int_equal(sym_attrs_set_int(a, "min", -3), 0);
	assert_int_equal(sym_attrs_set_int(a, "max", 300), 0);
	expect(&t, apply(&t, "clip", 1, in, a), "i32[b]");
	in[1] = input(&t, "k8", "i8[b]");
	apply(&t, "clip", 1, &in[1], a);
	expect_error(&t, "attribute max of clip", "[-128, 127], not 300", NULL);
	apply(&t, "clip", 1, &in[2], a);
	expect_error(&t, "clip needs a numeric input, but kb is bool", NULL,
	    NULL);
	assert_int_equal(sym_attrs_set_string(a, "max", "big"), 0);
	apply(&t, "clip", 1, &x, a);
	expect_error(&t, "attribute max of clip must be a number", NULL, NULL);
	sym_attrs_free(a);

	/* softplus's beta and threshold, gelu's approximate. */
	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_float(a, "beta", 0), 0);
	apply(&t, "softplus", 1, &x, a);
	expect_error(&t,
	    "attribute beta of softplus must be a finite number "
	    "other than 0",
	    NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "beta", 2), 0);
	assert_int_equal(sym_attrs_set_int(a, "threshold", 5), 0);
	expect(&t, apply(&t, "softplus", 1, &x, a), "f32[b, 1, w]");
	sym_attrs_free(a);
	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_string(a, "approximate", "tanh"), 0);
	expect(&t, apply(&t, "gelu", 1, &x, a), "f32[b, 1, w]");
	assert_int_equal(sym_attrs_set_string(a, "approximate", "erf"), 0);
	apply(&t, "gelu", 1, &x, a);
	expect_error(&t, "approximate of gelu must be \"none\" or \"tanh\"",
	    "\"erf\"", NULL);
	sym_attrs_free(a);
	t_free(&t);
}

/* reshape, flatten, transpose / permute, expand_dims, squeeze; "state" is
 * unused. */
static void
test_layout(void **state)
{
	static const char *const tgt[] = { "-1", "784" };
	static const char *const tgt4[] = { "-1", "4" };
	static const char *const two[] = { "-1", "-1" };
	static const char *const zero[] = { "0", "-1" };
	static const char *const same[] = { "b", "785" };
	static const char *const perm[] = { "2", "0", "1" };
	static const char *const bad_perm[] = { "0", "0", "1" };
	static const char *const ax[] = { "-1" };
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *x, *y, *z;
	sym_value *qv;

	(void)state;
	x = input(&t, "x", "f32[b, 1, 28, 28]");
	set_list(a, t.ctx, "shape", 2, tgt);
	expect(&t, apply(&t, "reshape", 1, &x, a), "f32[b, 784]");

	/* [b, 3] to [-1, 4]: 4 must divide 3*b, refuted with b = 1. */
	y = input(&t, "y", "f32[b, 3]");
	set_list(a, t.ctx, "shape", 2, tgt4);
	apply(&t, "reshape", 1, &y, a);
	expect_error(&t, "reshape of y to [-1, 4]", "divisible by 4", "b = 1");
	/* ... and accepted when the symbol is a multiple of 4. */
	qv = input(&t, "qv", "f32[q, 3]");
	z = apply(&t, "reshape", 1, &qv, a);
	expect_ok(&t);
	assert_non_null(sym_value_shape(z));
	assert_int_equal(sym_shape_ndim(sym_value_shape(z)), 2);

	set_list(a, t.ctx, "shape", 2, two);
	apply(&t, "reshape", 1, &x, a);
	expect_error(&t, "more than one -1", NULL, NULL);
	set_list(a, t.ctx, "shape", 2, zero);
	apply(&t, "reshape", 1, &x, a);
	expect_error(&t, "dimension 0 of the target shape [0, -1]",
	    "at least 1", NULL);
	set_list(a, t.ctx, "shape", 2, same);
	apply(&t, "reshape", 1, &x, a);
	expect_error(&t, "must keep the number of elements", NULL, "b = ");
	apply(&t, "reshape", 1, &x, NULL);
	expect_error(&t, "reshape needs its shape argument", NULL, NULL);
	sym_attrs_free(a);

	expect(&t, apply(&t, "flatten", 1, &x, NULL), "f32[b, 784]");
	a = sym_attrs_new(t.ctx);
	set_list(a, t.ctx, "perm", 3, perm);
	z = input(&t, "z", "f32[b, h, 5]");
	expect(&t, apply(&t, "transpose", 1, &z, a), "f32[5, b, h]");
	expect(&t, apply(&t, "permute", 1, &z, a), "f32[5, b, h]");
	apply(&t, "transpose", 1, &x, a);
	expect_error(&t, "has 3 items, but x has rank 4", NULL, NULL);
	set_list(a, t.ctx, "perm", 3, bad_perm);
	apply(&t, "transpose", 1, &z, a);
	expect_error(&t, "not a permutation", "axis 0 twice", NULL);
	sym_attrs_free(a);

	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_int(a, "axis", -1), 0);
	expect(&t, apply(&t, "expand_dims", 1, &z, a), "f32[b, h, 5, 1]");
	assert_int_equal(sym_attrs_set_int(a, "axis", 0), 0);
	expect(&t, apply(&t, "expand_dims", 1, &z, a), "f32[1, b, h, 5]");
	assert_int_equal(sym_attrs_set_int(a, "axis", 4), 0);
	apply(&t, "expand_dims", 1, &z, a);
	expect_error(&t, "axis=4 is out of range", "-4 to 3", NULL);
	apply(&t, "expand_dims", 1, &z, NULL);
	expect_error(&t, "needs the integer attribute axis", NULL, NULL);
	sym_attrs_free(a);

	expect(&t, apply(&t, "squeeze", 1, &x, NULL), "f32[b, 28, 28]");
	a = sym_attrs_new(t.ctx);
	set_list(a, t.ctx, "axis", 1, ax);
	apply(&t, "squeeze", 1, &x, a);
	expect_error(&t, "cannot remove dimension 3 of x", "28, not 1", NULL);
	assert_int_equal(sym_attrs_set_int(a, "axis", 0), 0);
	apply(&t, "squeeze", 1, &x, a);
	expect_error(&t, "dimension 0 of x (b) must be 1", NULL, "b = ");
	sym_attrs_free(a);
	t_free(&t);
}

/* concat, split and slice; "state" is unused. */
static void
test_concat(void **state)
{
	static const char *const begin[] = { "0", "2" };
	static const char *const size[] = { "-1", "3" };
	static const char *const big[] = { "0", "9" };
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *in[3], *x;
	sym_node *n;

	(void)state;
	in[0] = input(&t, "p", "f32[b, 3]");
	in[1] = input(&t, "r", "f32[b, h]");
	in[2] = input(&t, "s", "f32[b, 2]");
	assert_int_equal(sym_attrs_set_int(a, "axis", 1), 0);
	expect(&t, apply(&t, "concat", 3, in, a), "f32[b, h + 5]");
	expect(&t, apply(&t, "concat", 1, in, a), "f32[b, 3]");
	assert_int_equal(sym_attrs_set_int(a, "axis", 0), 0);
	apply(&t, "concat", 3, in, a);
	expect_error(&t, "dimension 1 of p (3) must equal dimension 1 of s (2)",
	    NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "axis", 2), 0);
	apply(&t, "concat", 3, in, a);
	expect_error(&t, "axis=2 is out of range", NULL, NULL);
	apply(&t, "concat", 0, in, NULL);
	expect_error(&t, "concat takes at least 1 input, not 0", NULL, NULL);
	sym_attrs_free(a);

	/* split */
	x = input(&t, "x", "f32[b, 8]");
	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_int(a, "axis", 1), 0);
	n = apply_n(&t, "split", 2, 1, &x, a);
	assert_int_equal(sym_node_n_outputs(n), 2);
	expect(&t, sym_node_output(n, 1), "f32[b, 4]");
	assert_int_equal(sym_attrs_set_int(a, "axis", 0), 0);
	apply_n(&t, "split", 4, 1, &x, a);
	expect_error(&t, "divisible by output_num=4", NULL, "b = ");
	in[0] = input(&t, "xq", "f32[q, 8]");
	n = apply_n(&t, "split", 4, 1, in, a);
	assert_int_equal(sym_node_n_outputs(n), 4);
	expect(&t, sym_node_output(n, 3), "f32[q floordiv 4, 8]");
	assert_int_equal(sym_attrs_set_int(a, "output_num", 3), 0);
	apply_n(&t, "split", 2, 1, &x, a);
	expect_error(&t, "output_num=3 produces 3 outputs, but 2 are named",
	    NULL, NULL);
	sym_attrs_free(a);

	/* slice */
	a = sym_attrs_new(t.ctx);
	set_list(a, t.ctx, "begin", 2, begin);
	set_list(a, t.ctx, "size", 2, size);
	expect(&t, apply(&t, "slice", 1, &x, a), "f32[b, 3]");
	set_list(a, t.ctx, "size", 2, big);
	apply(&t, "slice", 1, &x, a);
	expect_error(&t, "size[0] of slice is 0", NULL, NULL);
	set_list(a, t.ctx, "begin", 2, size);
	apply(&t, "slice", 1, &x, a);
	expect_error(&t, "begin[0] of slice is -1", NULL, NULL);
	set_list(a, t.ctx, "begin", 2, big);
	set_list(a, t.ctx, "size", 2, size);
	apply(&t, "slice", 1, &x, a);
	expect_error(&t,
	    "dimension 1 of x (8) must be at least begin + size "
	    "= 12",
	    NULL, NULL);
	set_list(a, t.ctx, "begin", 1, big);
	apply(&t, "slice", 1, &x, a);
	expect_error(&t, "attribute begin of slice has 1 item", NULL, NULL);
	sym_attrs_free(a);
	t_free(&t);
}

/* reduce_sum, reduce_mean, reduce_max; "state" is unused. */
static void
test_reduce(void **state)
{
	static const char *const axes[] = { "1", "-1" };
	static const char *const dup[] = { "1", "-2" };
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *x;

	(void)state;
	x = input(&t, "x", "f32[b, h, 7]");
	expect(&t, apply(&t, "reduce_sum", 1, &x, NULL), "f32[]");
	set_list(a, t.ctx, "axis", 2, axes);
	expect(&t, apply(&t, "reduce_mean", 1, &x, a), "f32[b]");
	assert_int_equal(sym_attrs_set_bool(a, "keep_dims", 1), 0);
	expect(&t, apply(&t, "reduce_max", 1, &x, a), "f32[b, 1, 1]");
	assert_int_equal(sym_attrs_set_int(a, "axis", -3), 0);
	expect(&t, apply(&t, "reduce_max", 1, &x, a), "f32[1, h, 7]");
	set_list(a, t.ctx, "axis", 0, NULL);
	expect(&t, apply(&t, "reduce_sum", 1, &x, a), "f32[1, 1, 1]");
	set_list(a, t.ctx, "axis", 2, dup);
	apply(&t, "reduce_sum", 1, &x, a);
	expect_error(&t, "names axis 1 of x twice", NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "axis", 3), 0);
	apply(&t, "reduce_sum", 1, &x, a);
	expect_error(&t, "axis=3 is out of range for x of rank 3", NULL, NULL);
	assert_int_equal(sym_attrs_set_string(a, "axis", "1"), 0);
	apply(&t, "reduce_sum", 1, &x, a);
	expect_error(&t, "an integer or a list of integers", NULL, NULL);
	sym_attrs_free(a);
	t_free(&t);
}

/* softmax, log_softmax and layer_norm; "state" is unused. */
static void
test_norm(void **state)
{
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *x, *in[3];
	sym_node *n;

	(void)state;
	x = input(&t, "x", "f32[b, h, 64]");
	expect(&t, apply(&t, "softmax", 1, &x, NULL), "f32[b, h, 64]");
	assert_int_equal(sym_attrs_set_int(a, "axis", 1), 0);
	expect(&t, apply(&t, "log_softmax", 1, &x, a), "f32[b, h, 64]");
	assert_int_equal(sym_attrs_set_int(a, "axis", -4), 0);
	apply(&t, "softmax", 1, &x, a);
	expect_error(&t, "axis=-4 is out of range", NULL, NULL);
	sym_attrs_free(a);

	in[0] = x;
	in[1] = input(&t, "gamma", "f32[64]");
	in[2] = input(&t, "beta", "f32[64]");
	expect(&t, apply(&t, "layer_norm", 3, in, NULL), "f32[b, h, 64]");
	n = apply_n(&t, "layer_norm", 3, 3, in, NULL);
	assert_int_equal(sym_node_n_outputs(n), 3);
	expect(&t, sym_node_output(n, 1), "f32[b, h, 1]");
	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_int(a, "begin_norm_axis", 1), 0);
	assert_int_equal(sym_attrs_set_int(a, "begin_params_axis", 1), 0);
	in[1] = input(&t, "g2", "f32[h, 64]");
	in[2] = input(&t, "b2", "f32[h, 64]");
	n = apply_n(&t, "layer_norm", 3, 3, in, a);
	expect(&t, sym_node_output(n, 2), "f32[b, 1, 1]");
	apply(&t, "layer_norm", 3, in, NULL);
	expect_error(&t,
	    "gamma g2 of layer_norm must have the shape of x from "
	    "dimension 2 on, [64], but its shape is [h, 64]",
	    NULL, NULL);
	in[1] = input(&t, "g3", "f32[h, 32]");
	apply(&t, "layer_norm", 3, in, a);
	expect_error(&t,
	    "dimension 1 of g3 (32) must equal dimension 2 of x "
	    "(64)",
	    NULL, NULL);
	apply_n(&t, "layer_norm", 2, 3, in, a);
	expect_error(&t, "layer_norm produces 1 output (y) or 3", NULL, NULL);
	sym_attrs_free(a);
	t_free(&t);
}

/* gather, embedding and one_hot; "state" is unused. */
static void
test_gather(void **state)
{
	static const char *const depth[] = { "n" };
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *in[2], *ids;

	(void)state;
	in[0] = input(&t, "table", "f32[n, 64]");
	ids = in[1] = input(&t, "ids", "i32[b, h]");
	expect(&t, apply(&t, "gather", 2, in, NULL), "f32[b, h, 64]");
	assert_int_equal(sym_attrs_set_int(a, "axis", -1), 0);
	expect(&t, apply(&t, "gather", 2, in, a), "f32[n, b, h]");
	assert_int_equal(sym_attrs_set_int(a, "axis", 2), 0);
	apply(&t, "gather", 2, in, a);
	expect_error(&t, "axis=2 is out of range for table", NULL, NULL);
	in[1] = input(&t, "fids", "f32[b]");
	apply(&t, "gather", 2, in, NULL);
	expect_error(&t, "indices fids of gather must have an integer dtype",
	    NULL, NULL);
	sym_attrs_free(a);

	in[0] = ids;
	in[1] = input(&t, "emb", "f16[n, 32]");
	expect(&t, apply(&t, "embedding", 2, in, NULL), "f16[b, h, 32]");
	in[1] = input(&t, "emb3", "f16[n, 32, 2]");
	apply(&t, "embedding", 2, in, NULL);
	expect_error(&t, "emb3 of embedding must have rank 2", NULL, NULL);

	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_int(a, "depth", 10), 0);
	expect(&t, apply(&t, "one_hot", 1, &ids, a), "f32[b, h, 10]");
	set_list(a, t.ctx, "depth", 1, depth);
	assert_int_equal(sym_attrs_set_string(a, "dtype", "f16"), 0);
	assert_int_equal(sym_attrs_set_int(a, "axis", 0), 0);
	expect(&t, apply(&t, "one_hot", 1, &ids, a), "f16[n, b, h]");
	assert_int_equal(sym_attrs_set_int(a, "depth", 0), 0);
	apply(&t, "one_hot", 1, &ids, a);
	expect_error(&t, "depth of one_hot is 0", NULL, NULL);
	sym_attrs_free(a);
	apply(&t, "one_hot", 1, &ids, NULL);
	expect_error(&t, "one_hot needs the attribute depth", NULL, NULL);
	t_free(&t);
}

/* softmax_cross_entropy with sparse labels; "state" is unused. */
static void
test_loss(void **state)
{
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *in[2];

	(void)state;
	in[0] = input(&t, "logits", "f32[b, 10]");
	in[1] = input(&t, "y", "i32[b]");
	expect(&t, apply(&t, "softmax_cross_entropy", 2, in, NULL), "f32[]");
	assert_int_equal(sym_attrs_set_string(a, "reduction", "none"), 0);
	expect(&t, apply(&t, "softmax_cross_entropy", 2, in, a), "f32[b]");
	assert_int_equal(sym_attrs_set_string(a, "reduction", "avg"), 0);
	apply(&t, "softmax_cross_entropy", 2, in, a);
	expect_error(&t, "reduction", "\"avg\"", NULL);
	sym_attrs_free(a);
	in[1] = input(&t, "y2", "i32[12]");
	in[0] = input(&t, "l2", "f32[7, 10]");
	apply(&t, "softmax_cross_entropy", 2, in, NULL);
	expect_error(&t,
	    "dimension 0 of labels y2 (12) must equal dimension 0 "
	    "of logits l2 (7)",
	    NULL, NULL);
	in[1] = input(&t, "yf", "f32[7]");
	apply(&t, "softmax_cross_entropy", 2, in, NULL);
	expect_error(&t, "labels yf", "integer dtype", NULL);
	t_free(&t);
}

/* conv2d: static sizes, symbolic sizes with floordiv, groups, errors;
 * "state" is unused. */
static void
test_conv(void **state)
{
	static const char *const pad4[] = { "1", "0", "2", "2" };
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *in[2], *y;
	const sym_shape *s;
	char *d;

	(void)state;
	in[0] = input(&t, "img", "f32[b, 3, 32, 32]");
	in[1] = input(&t, "k", "f32[16, 3, 3, 3]");
	expect(&t, apply(&t, "conv2d", 2, in, NULL), "f32[b, 16, 30, 30]");
	assert_int_equal(sym_attrs_set_int(a, "stride", 2), 0);
	assert_int_equal(sym_attrs_set_int(a, "pad", 1), 0);
	expect(&t, apply(&t, "conv2d", 2, in, a), "f32[b, 16, 16, 16]");
	set_list(a, t.ctx, "pad", 4, pad4);
	assert_int_equal(sym_attrs_set_int(a, "dilation", 2), 0);
	expect(&t, apply(&t, "conv2d", 2, in, a), "f32[b, 16, 15, 16]");

	/* Symbolic height and width stay symbolic, with floordiv; with
	 * padding 1, h = 1 gives (1 + 1 - 2 - 1) floordiv 2 + 1 = 1 (the
	 * least admissible size), but with the dilated kernel it does not. */
	in[0] = input(&t, "sym", "f32[b, 3, h, w]");
	apply(&t, "conv2d", 2, in, a);
	expect_error(&t,
	    "output height of conv2d (h floordiv 2 - 1) must be "
	    "at least 1",
	    NULL, "h = ");
	sym_attrs_free(a);
	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_int(a, "stride", 2), 0);
	assert_int_equal(sym_attrs_set_int(a, "pad", 1), 0);
	y = apply(&t, "conv2d", 2, in, a);
	expect_ok(&t);
	s = sym_value_shape(y);
	assert_non_null(s);
	assert_false(sym_expr_is_const(sym_shape_dim(s, 2)));
	d = sym_expr_to_str(sym_shape_dim(s, 2));
	assert_non_null(strstr(d, "floordiv"));
	assert_non_null(strstr(d, "h"));
	free(d);
	d = sym_expr_to_str(sym_shape_dim(s, 3));
	assert_non_null(strstr(d, "floordiv"));
	assert_non_null(strstr(d, "w"));
	free(d);
	sym_attrs_free(a);

	/* Groups: C == Cw * group. */
	a = sym_attrs_new(t.ctx);
	in[0] = input(&t, "g", "f32[b, 8, 9, 9]");
	in[1] = input(&t, "gk", "f32[4, 2, 1, 1]");
	assert_int_equal(sym_attrs_set_int(a, "group", 4), 0);
	expect(&t, apply(&t, "conv2d", 2, in, a), "f32[b, 4, 9, 9]");
	assert_int_equal(sym_attrs_set_int(a, "group", 2), 0);
	apply(&t, "conv2d", 2, in, a);
	expect_error(&t,
	    "dimension 1 of g (8) must equal dimension 1 of gk "
	    "(2) times group=2",
	    NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "group", 0), 0);
	apply(&t, "conv2d", 2, in, a);
	expect_error(&t, "group of conv2d must be at least 1", NULL, NULL);
	sym_attrs_free(a);

	/* A kernel larger than the input. */
	in[0] = input(&t, "tiny", "f32[b, 3, 2, 2]");
	in[1] = input(&t, "k5", "f32[16, 3, 5, 5]");
	apply(&t, "conv2d", 2, in, NULL);
	expect_error(&t, "output height of conv2d (-2) must be at least 1",
	    NULL, NULL);
	in[1] = input(&t, "k2", "f32[16, 3, 5]");
	apply(&t, "conv2d", 2, in, NULL);
	expect_error(&t, "k2 of conv2d must have rank 4", NULL, NULL);
	a = sym_attrs_new(t.ctx);
	set_list(a, t.ctx, "stride", 0, NULL);
	in[1] = input(&t, "k1", "f32[16, 3, 1, 1]");
	apply(&t, "conv2d", 2, in, a);
	expect_error(&t, "attribute stride of conv2d must be an integer", NULL,
	    NULL);
	sym_attrs_free(a);
	t_free(&t);
}

/* max_pool2d, avg_pool2d, global_avg_pool and their gradients: PyTorch's
 * output sizes (ceil_mode included) over constants and symbols, windows
 * larger than the padded input refuted with a witness, bad attributes;
 * "state" is unused. */
static void
test_pool(void **state)
{
	static const char *const k32[] = { "3", "2" };
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *in[2], *y;

	(void)state;
	in[0] = input(&t, "img", "f32[b, 3, 32, 31]");
	assert_int_equal(sym_attrs_set_int(a, "kernel", 2), 0);
	expect(&t, apply(&t, "max_pool2d", 1, in, a), "f32[b, 3, 16, 15]");
	assert_int_equal(sym_attrs_set_bool(a, "ceil_mode", 1), 0);
	expect(&t, apply(&t, "avg_pool2d", 1, in, a), "f32[b, 3, 16, 16]");
	/* PyTorch drops a last window that starts in the right padding:
	 * 32 + 2 with kernel 3, stride 2 gives 17, 31 gives 16. */
	assert_int_equal(sym_attrs_set_int(a, "kernel", 3), 0);
	assert_int_equal(sym_attrs_set_int(a, "stride", 2), 0);
	assert_int_equal(sym_attrs_set_int(a, "pad", 1), 0);
	expect(&t, apply(&t, "max_pool2d", 1, in, a), "f32[b, 3, 17, 16]");
	expect(&t, apply(&t, "global_avg_pool", 1, in, NULL),
	    "f32[b, 3, 1, 1]");
	sym_attrs_free(a);

	/* Symbolic sizes: one floordiv in both modes. */
	a = sym_attrs_new(t.ctx);
	set_list(a, t.ctx, "kernel", 2, k32);
	in[0] = input(&t, "sym", "f32[b, 3, h + 2, q]");
	y = apply(&t, "max_pool2d", 1, in, a);
	expect(&t, y, "f32[b, 3, (h + 2) floordiv 3, q floordiv 2]");
	assert_int_equal(sym_attrs_set_bool(a, "ceil_mode", 1), 0);
	expect(&t, apply(&t, "avg_pool2d", 1, in, a),
	    "f32[b, 3, (h + 1) floordiv 3 + 1, q floordiv 2]");
	in[1] = in[0];
	in[0] = y;
	assert_int_equal(sym_attrs_set_bool(a, "ceil_mode", 0), 0);
	expect(&t, apply(&t, "max_pool2d_grad", 2, in, a),
	    "f32[b, 3, h + 2, q]");
	apply(&t, "avg_pool2d_grad", 2, in, NULL);
	expect_error(&t, "avg_pool2d_grad needs attribute kernel", NULL, NULL);
	in[0] = input(&t, "gy", "f32[b, 3, 1, 1]");
	expect(&t, apply(&t, "global_avg_pool_grad", 2, in, NULL),
	    "f32[b, 3, h + 2, q]");

	/* A window larger than the padded input, at symbolic sizes. */
	in[0] = input(&t, "hw", "f32[b, 3, h, w]");
	apply(&t, "max_pool2d", 1, in, a);
	expect_error(&t,
	    "the pool window of max_pool2d (3, the dilated kernel)",
	    "larger than the padded input height", "h = ");
	in[0] = input(&t, "small", "f32[b, 3, 4, 4]");
	assert_int_equal(sym_attrs_set_int(a, "dilation", 2), 0);
	apply(&t, "max_pool2d", 1, in, a);
	expect_error(&t,
	    "the pool window of max_pool2d (5, the dilated kernel)",
	    "dimension 2 of small (4) plus padding 0", NULL);
	sym_attrs_free(a);

	/* Bad attributes. */
	a = sym_attrs_new(t.ctx);
	apply(&t, "max_pool2d", 1, in, a);
	expect_error(&t, "max_pool2d needs attribute kernel", NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "kernel", 2), 0);
	assert_int_equal(sym_attrs_set_int(a, "stride", 0), 0);
	apply(&t, "max_pool2d", 1, in, a);
	expect_error(&t, "attribute stride of max_pool2d must be at least 1",
	    NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "stride", 1), 0);
	assert_int_equal(sym_attrs_set_int(a, "dilation", 0), 0);
	apply(&t, "max_pool2d", 1, in, a);
	expect_error(&t, "attribute dilation of max_pool2d must be at least 1",
	    NULL, NULL);
	apply(&t, "avg_pool2d", 1, in, a);
	expect_error(&t, "dilation", "avg_pool2d", NULL);
	sym_attrs_free(a);
	a = sym_attrs_new(t.ctx);
	assert_int_equal(sym_attrs_set_int(a, "kernel", 3), 0);
	assert_int_equal(sym_attrs_set_int(a, "pad", 2), 0);
	apply(&t, "avg_pool2d", 1, in, a);
	expect_error(&t,
	    "attribute pad of avg_pool2d (2) must be at most half the kernel "
	    "height (3 / 2)",
	    NULL, NULL);
	assert_int_equal(sym_attrs_set_int(a, "pad", 1), 0);
	in[0] = input(&t, "r3", "f32[b, 3, 4]");
	apply(&t, "global_avg_pool", 1, in, NULL);
	expect_ok(&t);
	apply(&t, "max_pool2d", 1, in, a);
	expect_error(&t, "r3 of max_pool2d must have rank 4", NULL, NULL);
	in[0] = input(&t, "int", "i32[b, 3, 4, 4]");
	apply(&t, "global_avg_pool", 1, in, NULL);
	expect_error(&t, "int", "float", NULL);
	sym_attrs_free(a);
	t_free(&t);
}

/* dropout and dropout_grad: the shape of x at symbolic sizes, p a
 * probability, floating-point operands; "state" is unused. */
static void
test_dropout(void **state)
{
	struct t t = t_new();
	sym_attrs *a = sym_attrs_new(t.ctx);
	sym_value *in[2], *y;

	(void)state;
	in[0] = input(&t, "x", "f32[b, h, 3]");
	y = apply(&t, "dropout", 1, in, NULL);
	expect(&t, y, "f32[b, h, 3]");
	assert_int_equal(sym_attrs_set_float(a, "p", 0.25), 0);
	in[1] = apply(&t, "dropout", 1, in, a);
	expect(&t, in[1], "f32[b, h, 3]");
	expect(&t, apply(&t, "dropout_grad", 2, in, a), "f32[b, h, 3]");
	assert_int_equal(sym_attrs_set_float(a, "p", 1.5), 0);
	apply(&t, "dropout", 1, in, a);
	expect_error(&t, "attribute p of dropout (1.5) must be a probability",
	    NULL, NULL);
	assert_int_equal(sym_attrs_set_string(a, "p", "half"), 0);
	apply(&t, "dropout", 1, in, a);
	expect_error(&t, "attribute p of dropout must be a number", NULL, NULL);
	in[1] = input(&t, "z", "f32[b, w, 3]");
	apply(&t, "dropout_grad", 2, in, NULL);
	expect_error(&t, "z", "h", "w = ");
	in[0] = input(&t, "i", "i32[b]");
	apply(&t, "dropout", 1, in, NULL);
	expect_error(&t, "i", "float", NULL);
	sym_attrs_free(a);
	t_free(&t);
}

/* Apply every operator to combinations of shapes of rank 0 to 4 and to
 * hostile attributes; each application must give outputs or an error,
 * never crash or leak. "state" is unused. */
static void
test_robustness(void **state)
{
	static const char *const shapes[] = { "f32[]", "i32[b]", "f32[b, 4]",
		"f32[1, 4, h]", "f16[b, 3, 8, 8]", "bool[2, 2]" };
	static const char *const names[] = { "axis", "shape", "perm", "begin",
		"size", "depth", "stride", "pad", "group", "dtype",
		"output_num", "keep_dims", "transpose_a", "data_format",
		"begin_norm_axis", "reduction", "dilation" };
	static const char *const huge[] = { "-9223372036854775807",
		"9223372036854775807", "b", "100000000000000000000" };
	size_t n_shapes = sizeof(shapes) / sizeof(shapes[0]);
	struct t t = t_new();
	sym_value *v[6];
	sym_attrs *att[5];

	(void)state;
	for (size_t i = 0; i < n_shapes; i++) {
		char name[8];

		snprintf(name, sizeof(name), "v%zu", i);
		v[i] = input(&t, name, shapes[i]);
	}
	for (size_t k = 0; k < 5; k++)
		att[k] = sym_attrs_new(t.ctx);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		sym_expr *e = sym_expr_const(t.ctx, INT64_MIN);

		assert_int_equal(sym_attrs_set_int(att[1], names[i], INT64_MAX),
		    0);
		assert_int_equal(sym_attrs_set_list(att[2], names[i], 0, NULL),
		    0);
		set_list(att[3], t.ctx, names[i], 4, huge);
		assert_int_equal(sym_attrs_set_list(att[4], names[i], 1, &e),
		    0);
		sym_expr_free(e);
	}
	for (size_t o = 0; o < sym_registry_n_ops(); o++) {
		const char *op = sym_op_name(sym_registry_op(o));

		for (size_t k = 0; k < 5; k++)
			for (size_t i = 0; i < n_shapes; i++)
				for (size_t j = 0; j < n_shapes; j++) {
					sym_value *in[3] = { v[i], v[j], v[i] };
					size_t before = sym_graph_n_errors(t.g);
					sym_node *n;

					n = apply_n(&t, op, 1 + (i + j) % 3,
					    1 + (i + k) % 3, in, att[k]);
					for (size_t r = 0;
					     r < sym_node_n_outputs(n); r++)
						if (!sym_value_shape(
						        sym_node_output(n, r)))
							assert_true(
							    sym_graph_n_errors(
							        t.g) > before);
				}
	}
	for (size_t k = 0; k < 5; k++)
		sym_attrs_free(att[k]);
	t_free(&t);
}

/* 100 000 attributes on one set (issue 14, item 8): set, replaced, found
 * and copied by name in constant time each (a linear search made this
 * take minutes); the order of the names is kept. */
static void
test_attrs_many(void **state)
{
	const int n = 100000;
	sym_ctx *ctx = new_ctx();
	sym_attrs *a = sym_attrs_new(ctx);
	char name[32];
	int64_t v = 0;

	(void)state;
	assert_non_null(a);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "a%d", i);
		assert_int_equal(sym_attrs_set_int(a, name, i), 0);
	}
	for (int i = 0; i < n; i += 2) {
		snprintf(name, sizeof(name), "a%d", i);
		assert_int_equal(sym_attrs_set_int(a, name, -i), 0);
	}
	assert_int_equal(sym_attrs_n_names(a), n);
	assert_string_equal(sym_attrs_name(a, 12345), "a12345");
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "a%d", i);
		assert_int_equal(sym_attrs_get_int(a, name, &v), 0);
		assert_int_equal(v, i % 2 ? i : -i);
	}
	assert_int_equal(sym_attrs_kind(a, "a100000"), SYM_ATTR_NONE);
	assert_int_equal(sym_attrs_kind(a, "a"), SYM_ATTR_NONE);
	sym_attrs_free(a);
	tl_ctx_free(ctx);
}

/* Run the tests of this program; return the number of failures. */
/* Parse "text" in a context of its own; return the shape of value
 * "name" as text (to free), asserting the graph has no error. */
static char *
shape_of(const char *text, const char *name)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, text, "ops.sg");
	const sym_value *v;
	char *s;

	assert_non_null(g);
	if (sym_graph_n_errors(g))
		fail_msg("%s: %s", name, sym_graph_diagnostic(g, 0)->message);
	v = sym_graph_find_value(g, name);
	assert_non_null(v);
	s = sym_shape_to_str(sym_value_shape(v));
	assert_non_null(s);
	sym_graph_free(g);
	tl_ctx_free(ctx);
	return s;
}

/* Parse "text" in a context of its own and assert that its first error
 * is at "line", contains "part" and has a witness containing "witness"
 * (NULL: none asked). */
static void
error_at(const char *text, int line, const char *part, const char *witness)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, text, "ops.sg");
	const sym_diagnostic *d = NULL;

	assert_non_null(g);
	for (size_t i = 0; i < sym_graph_n_diagnostics(g) && !d; i++)
		if (sym_graph_diagnostic(g, i)->severity == SYM_SEV_ERROR)
			d = sym_graph_diagnostic(g, i);
	if (!d)
		fail_msg("no error; expected \"%s\"", part);
	if (d->loc.line != line || !strstr(d->message, part))
		fail_msg("error at line %d \"%s\"; expected line %d, \"%s\"",
		    d->loc.line, d->message, line, part);
	if (witness && (!d->witness || !strstr(d->witness, witness)))
		fail_msg("error \"%s\": witness \"%s\", expected \"%s\"",
		    d->message, d->witness ? d->witness : "(none)", witness);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The shapes of reduce_min, reduce_prod, argmax, argmin, expand, tile,
 * pad, tril, triu and cumsum over symbolic sizes, and their bad input:
 * each a located error, with a witness where sizes are symbolic. */
static void
test_index_ops(void **state)
{
	static const struct {
		const char *text, *value, *want;
	} ok[] = {
		{ "y = reduce_min(x, axis=[0, 2], keep_dims=true)\n", "y",
		    "f32[1, s, 1]" },
		{ "y = reduce_prod(x, axis=-1)\n", "y", "f32[b, s]" },
		{ "y = argmax(x, axis=1)\n", "y", "i64[b, 4]" },
		{ "y = argmin(x, axis=-1, keep_dims=true, dtype=i32)\n", "y",
		    "i32[b, s, 1]" },
		{ "y = expand(z, [b, s, 4])\n", "y", "f32[b, s, 4]" },
		{ "y = expand(x, [2, -1, s, 4])\n", "y", "f32[2, b, s, 4]" },
		{ "y = tile(x, [3, 1, 2])\n", "y", "f32[3*b, s, 8]" },
		{ "y = tile(x, [2])\n", "y", "f32[b, s, 8]" },
		{ "y = pad(x, [0, 1, 2, -1, -1, -1])\n", "y",
		    "f32[b + 1, s + 1, 2]" },
		{ "y = tril(x, diagonal=-1)\n", "y", "f32[b, s, 4]" },
		{ "y = triu(m)\n", "y", "bool[s', s'']" },
		{ "y = cumsum(x, axis=1, reverse=true)\n", "y",
		    "f32[b, s, 4]" },
	};
	static const struct {
		const char *text, *part, *witness;
	} bad[] = {
		{ "y = expand(x, [b, 8, 4])\n",
		    "dimension 1 of x (s) must equal", "s = " },
		{ "y = expand(x, [b, s, 5])\n",
		    "dimension 2 of x (4) must equal", NULL },
		{ "y = expand(x, [s, 4])\n", "fewer than x", NULL },
		{ "y = expand(z, [-1, s, 4])\n", "has no dimension there",
		    NULL },
		{ "y = pad(x, [0, 0, -1, -2, 0, 0])\n",
		    "crops all of dimension 1 (s)", "s = " },
		{ "y = pad(x, [0, 0, 0, 0, -2, -2])\n",
		    "crops all of dimension 2 (4)", NULL },
		{ "y = pad(x, [0, 0, 0, 0])\n", "2 counts per dimension",
		    NULL },
		{ "y = pad(x, [0, 0, 0, 0, 1, 1], mode=\"reflect\")\n",
		    "only the mode", NULL },
		{ "y = tile(x, [1, 0, 1])\n", "must be at least 1", NULL },
		{ "y = tril(v)\n", "rank at least 2", NULL },
		{ "y = cumsum(m, axis=0)\n", "bool", NULL },
		{ "y = cumsum(x)\n", "needs the integer attribute axis", NULL },
		{ "y = argmax(x, axis=3)\n", "axis=3 is out of range", NULL },
		{ "y = argmax(x, dtype=f32)\n", "i64 or i32, not f32", NULL },
		{ "y = reduce_prod(m)\n", "bool", NULL },
	};
	static const char head[] = "symbol b\nsymbol s\n"
	                           "input x : f32[b, s, 4]\n"
	                           "input z : f32[1, 4]\n"
	                           "input m : bool[s, s]\n"
	                           "input v : f32[4]\n";
	char text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *s;

		snprintf(text, sizeof(text), "%s%s", head, ok[i].text);
		s = shape_of(text, ok[i].value);
		if (strcmp(s, ok[i].want))
			fail_msg("%s: %s, expected %s", ok[i].text, s,
			    ok[i].want);
		free(s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", head, bad[i].text);
		error_at(text, 7, bad[i].part, bad[i].witness);
	}
}

/* The shapes of the generators (arange, range, full, ones, zeros) over
 * symbolic sizes, and their bad input: each a located error, with a
 * witness where the sizes are symbolic. */
static void
test_generate(void **state)
{
	static const struct {
		const char *text, *want;
	} ok[] = {
		{ "y = arange([s])\n", "i64[s]" },
		{ "y = arange([1, s, 2])\n", "i64[s floordiv 2]" },
		{ "y = range([1, s, 2], dtype=f32)\n", "f32[s floordiv 2]" },
		{ "y = arange([2, 2*s + 5, 3], dtype=i32)\n",
		    "i32[(2*s + 2) floordiv 3 + 1]" },
		{ "y = arange(start=5, limit=5 - s, delta=-2)\n",
		    "i64[(s + 1) floordiv 2]" },
		{ "y = arange(limit=s, dtype=f64)\n", "f64[s]" },
		{ "y = arange(start=0.5, limit=3.2, delta=0.3)\n", "f32[10]" },
		{ "y = arange(start=1, limit=2.5)\n", "f32[2]" },
		{ "y = ones([s, s])\n", "f32[s, s]" },
		{ "y = zeros([b, s - 1, 3], dtype=i32)\n", "i32[b, s - 1, 3]" },
		{ "y = full([s], value=2)\n", "i64[s]" },
		{ "y = full([2, s], value=true)\n", "bool[2, s]" },
		{ "y = full([], value=1.5, dtype=f64)\n", "f64[]" },
	};
	static const struct {
		const char *text, *part, *witness;
	} bad[] = {
		{ "y = arange([5, s])\n", "must not be empty", "s = " },
		{ "y = arange([1, s, 0])\n", "delta of arange is 0", NULL },
		{ "y = arange([1, s, s])\n", "must be a constant", NULL },
		{ "y = arange([s, 9])\n", "must be a constant", NULL },
		{ "y = arange(start=0.5, limit=s)\n", "must be a constant",
		    NULL },
		{ "y = arange(start=3.0, limit=1.0)\n", "is empty", NULL },
		{ "y = arange([4], dtype=bool)\n", "cannot be bool", NULL },
		{ "y = arange(limit=2.5, dtype=i32)\n", "integer bounds",
		    NULL },
		{ "y = arange([4], start=1)\n", "not both", NULL },
		{ "y = arange(dtype=f32)\n", "needs its limit", NULL },
		{ "y = arange([1, 2, 3, 4])\n", "[start, limit, delta]", NULL },
		{ "y = full([s, s])\n", "needs its value", NULL },
		{ "y = full([s], value=1.5, dtype=i32)\n",
		    "does not fit its dtype i32", NULL },
		{ "y = full([s], value=300, dtype=u8)\n",
		    "does not fit its dtype u8", NULL },
		{ "y = ones([s, 0])\n", "must be at least 1", NULL },
		{ "y = zeros([s - 2])\n", "must be at least 1", "s = " },
		{ "y = ones(shape=4)\n", "needs its shape as a list", NULL },
		{ "y = ones([s], value=1)\n", "value", NULL },
	};
	static const char head[] = "symbol b\nsymbol s min=2 unique\n";
	char text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *sh;

		snprintf(text, sizeof(text), "%s%s", head, ok[i].text);
		sh = shape_of(text, "y");
		if (strcmp(sh, ok[i].want))
			fail_msg("%s: %s, expected %s", ok[i].text, sh,
			    ok[i].want);
		free(sh);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", head, bad[i].text);
		error_at(text, 3, bad[i].part, bad[i].witness);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dtypes),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_shape_forgotten),
		cmocka_unit_test(test_attrs),
		cmocka_unit_test(test_attrs_many),
		cmocka_unit_test(test_attrs_failed),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_matmul),
		cmocka_unit_test(test_elementwise),
		cmocka_unit_test(test_elementwise_more),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_concat),
		cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_norm),
		cmocka_unit_test(test_gather),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_conv),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_dropout),
		cmocka_unit_test(test_robustness),
		cmocka_unit_test(test_index_ops),
		cmocka_unit_test(test_generate),
	};

	return cmocka_run_group_tests_name("shape", tests, NULL, NULL);
}
