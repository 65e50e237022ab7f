/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the graph text format parser (sym_graph_parse(3)): every
 * statement form, strategies, every syntax error with its message, line
 * and column, recovery after errors, files, and inputs at the limits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <symshard.h>

#include "testlib.h"

/* An expected syntax error: the text, and the first error's line,
 * column, a part of its message and its hint (NULL: none expected). */
struct bad {
	const char *text;
	int line, col;
	const char *part;
	const char *hint;
};

/* Return the graph parsed from "text" as file "t.sg" in "ctx"; fail the
 * test when there is none. */
static sym_graph *
parse(sym_ctx *ctx, const char *text)
{
	sym_graph *g = sym_graph_parse(ctx, text, "t.sg");

	assert_non_null(g);
	return g;
}

/* Assert that "g" has no error, printing the first one when it has. */
static void
assert_no_errors(const sym_graph *g)
{
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++) {
		const sym_diagnostic *d = sym_graph_diagnostic(g, i);

		if (d->severity == SYM_SEV_ERROR) {
			char *s = sym_diagnostic_format(g, d);

			fail_msg("unexpected error:\n%s", s ? s : d->message);
		}
	}
	assert_int_equal(sym_graph_n_errors(g), 0);
}

/* Return the "k"-th error diagnostic of "g" (from 0); fail the test when
 * there are not that many. */
static const sym_diagnostic *
error_at(const sym_graph *g, size_t k)
{
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++) {
		const sym_diagnostic *d = sym_graph_diagnostic(g, i);

		if (d->severity == SYM_SEV_ERROR && k-- == 0)
			return d;
	}
	fail_msg("no error number %zu", k);
	return NULL;
}

/* Assert that "d" is at "line":"col" of "t.sg", its message contains
 * "part" and its hint is "hint" (NULL: no hint); "text" is printed when
 * it is not. */
static void
assert_diag(const sym_diagnostic *d, int line, int col, const char *part,
    const char *hint, const char *text)
{
	if (!strstr(d->message, part) || d->loc.line != line ||
	    d->loc.col != col)
		fail_msg("for \"%s\": expected %d:%d: ...%s..., got %d:%d: %s",
		    text, line, col, part, d->loc.line, d->loc.col, d->message);
	assert_non_null(d->loc.file);
	assert_string_equal(d->loc.file, "t.sg");
	if (hint) {
		if (!d->hint)
			fail_msg("for \"%s\": no hint, expected \"%s\"", text,
			    hint);
		assert_string_equal(d->hint, hint);
	}
}

/* Assert that "text" parses with exactly one error, described by "b". */
static void
assert_bad(const struct bad *b)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx, b->text);

	if (sym_graph_n_errors(g) != 1)
		fail_msg("for \"%s\": %zu errors, expected 1 (first: %s)",
		    b->text, sym_graph_n_errors(g),
		    sym_graph_n_errors(g) ? error_at(g, 0)->message : "-");
	assert_diag(error_at(g, 0), b->line, b->col, b->part, b->hint, b->text);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Assert that the value "name" of "g" exists, has "kind" and the shape
 * "shape" as text. */
static void
assert_value(const sym_graph *g, const char *name, sym_value_kind kind,
    const char *shape)
{
	sym_value *v = sym_graph_find_value(g, name);
	char *s;

	if (!v)
		fail_msg("no value %s", name);
	assert_int_equal(sym_value_get_kind(v), kind);
	s = sym_shape_to_str(sym_value_shape(v));
	assert_non_null(s);
	assert_string_equal(s, shape);
	free(s);
}

/* Assert that the attributes of node "i" of "g" print as "attrs". */
static void
assert_attrs(const sym_graph *g, size_t i, const char *attrs)
{
	char *s = sym_attrs_to_str(sym_node_attrs(sym_graph_node(g, i)));

	assert_non_null(s);
	assert_string_equal(s, attrs);
	free(s);
}

/* The seed network (HACKING.md section 8). */
static const char ffn[] =
    "# Feed-forward network of the dynamic-shape tutorial, on 8 devices.\n"
    "devices 8\n"
    "symbol b divisor=8\n"
    "\n"
    "input  x  : f32[b, 1, 28, 28]\n"
    "input  y  : i32[b]\n"
    "param  w1 : f32[784, 512]\n"
    "param  w2 : f32[512, 512]\n"
    "param  w3 : f32[512, 10]\n"
    "\n"
    "x2     = reshape(x, [-1, 784])\n"
    "h1     = matmul(x2, w1)  shard ((2, 4), (4, 1))\n"
    "a1     = relu(h1)        shard ((4, 1),)\n"
    "h2     = matmul(a1, w2)  shard ((1, 8), (8, 1))\n"
    "a2     = relu(h2)        shard ((8, 1),)\n"
    "logits = matmul(a2, w3)\n"
    "loss   = softmax_cross_entropy(logits, y)\n"
    "output loss\n";

/* The feed-forward network parses into its values, nodes and outputs. */
static void
test_ffn(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx, ffn);
	sym_node *n;
	sym_loc loc;

	(void)state;
	assert_no_errors(g);
	assert_string_equal(sym_graph_filename(g), "t.sg");
	assert_string_equal(sym_graph_source(g), ffn);
	assert_int_equal(sym_graph_n_devices(g), 8);
	assert_int_equal(sym_graph_n_values(g), 12);
	assert_int_equal(sym_graph_n_nodes(g), 7);
	assert_value(g, "x", SYM_VALUE_INPUT, "f32[b, 1, 28, 28]");
	assert_value(g, "y", SYM_VALUE_INPUT, "i32[b]");
	assert_value(g, "w1", SYM_VALUE_PARAM, "f32[784, 512]");
	assert_value(g, "x2", SYM_VALUE_RESULT, "f32[b, 784]");
	assert_value(g, "a2", SYM_VALUE_RESULT, "f32[b, 512]");
	assert_value(g, "logits", SYM_VALUE_RESULT, "f32[b, 10]");
	assert_value(g, "loss", SYM_VALUE_RESULT, "f32[]");
	assert_attrs(g, 0, "shape=[-1, 784]");
	n = sym_graph_node(g, 1);
	assert_string_equal(sym_node_op_name(n), "matmul");
	assert_int_equal(sym_node_n_inputs(n), 2);
	assert_ptr_equal(sym_node_input(n, 0), sym_graph_find_value(g, "x2"));
	assert_ptr_equal(sym_node_input(n, 1), sym_graph_find_value(g, "w1"));
	loc = sym_node_location(n);
	assert_int_equal(loc.line, 12);
	assert_int_equal(loc.col, 10);
	assert_string_equal(loc.file, "t.sg");
	loc = sym_value_location(sym_graph_find_value(g, "w2"));
	assert_int_equal(loc.line, 8);
	assert_int_equal(loc.col, 8);
	assert_int_equal(sym_graph_n_outputs(g), 1);
	assert_ptr_equal(sym_graph_output(g, 0),
	    sym_graph_find_value(g, "loss"));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Symbol declarations: every option, in any order. */
static void
test_symbols(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "symbol b min=8 max=4096 divisor=8 remainder=0 unique\n"
	    "symbol s  unique remainder=1 divisor=4   # a comment\n"
	    "symbol\tt\n");
	sym_symbol_info info;
	sym_symbol *s;
	sym_loc loc;

	(void)state;
	assert_no_errors(g);
	s = sym_symbol_find(ctx, "b");
	assert_non_null(s);
	sym_symbol_get_info(s, &info);
	assert_int_equal(info.min, 8);
	assert_int_equal(info.max, 4096);
	assert_int_equal(info.divisor, 8);
	assert_int_equal(info.remainder, 0);
	assert_int_equal(info.unique, 1);
	loc = sym_symbol_location(s);
	assert_int_equal(loc.line, 1);
	assert_int_equal(loc.col, 8);
	assert_string_equal(loc.file, "t.sg");
	sym_symbol_get_info(sym_symbol_find(ctx, "s"), &info);
	assert_int_equal(info.min, 1);
	assert_int_equal(info.max, 0);
	assert_int_equal(info.divisor, 4);
	assert_int_equal(info.remainder, 1);
	assert_int_equal(info.unique, 1);
	sym_symbol_get_info(sym_symbol_find(ctx, "t"), &info);
	assert_int_equal(info.divisor, 1);
	assert_int_equal(info.unique, 0);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Each comparison operator of assert statements means what it says:
 * "<=" is not "<", "=" is "==". */
static void
test_comparisons(void **state)
{
	static const struct {
		const char *text;
		sym_answer result;
	} cases[] = {
		{ "assert t == t", SYM_TRUE },
		{ "assert t = t", SYM_TRUE },
		{ "assert t != t", SYM_FALSE },
		{ "assert t <= t", SYM_TRUE },
		{ "assert t < t", SYM_FALSE },
		{ "assert t >= t", SYM_TRUE },
		{ "assert t > t", SYM_FALSE },
		{ "assert t<=t+1", SYM_TRUE },
		{ "assert t<t+1", SYM_TRUE },
		{ "assert t+1>=t", SYM_TRUE },
		{ "assert min(t, 3) <= 3", SYM_TRUE },
		{ "assert (t + 1) * 2 > t # comment < here", SYM_TRUE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sym_ctx *ctx = tl_ctx_new();
		char text[128];
		sym_graph *g;
		const sym_assertion *a;

		snprintf(text, sizeof(text), "symbol t unique\n%s\n",
		    cases[i].text);
		g = parse(ctx, text);
		assert_int_equal(sym_graph_n_assertions(g), 1);
		a = sym_graph_assertion(g, 0);
		if (a->result != cases[i].result)
			fail_msg("%s: %s, expected %s", cases[i].text,
			    sym_answer_name(a->result),
			    sym_answer_name(cases[i].result));
		assert_int_equal(a->loc.line, 2);
		assert_int_equal(a->loc.col, 8);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

/* An assertion keeps its text as written beside its normal form; one
 * false for every admissible value has a witness all the same, as text
 * and as values, on the assertion and on its diagnostic. */
static void
test_assertion_text(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "symbol s divisor=8 remainder=4 unique\n"
	    "assert  s mod 8  == 0   # never\n");
	const sym_assertion *a;
	const sym_diagnostic *d;
	int64_t v = 0;

	(void)state;
	assert_int_equal(sym_graph_n_assertions(g), 1);
	a = sym_graph_assertion(g, 0);
	assert_string_equal(a->text, "s mod 8  == 0");
	assert_string_equal(a->normal, "4 == 0");
	assert_int_equal(a->result, SYM_FALSE);
	assert_string_equal(a->witness, "s = 12");
	assert_non_null(a->witness_binding);
	assert_int_equal(sym_binding_n_symbols(a->witness_binding), 1);
	assert_int_equal(sym_binding_get(a->witness_binding,
	                     sym_symbol_find(ctx, "s"), &v),
	    0);
	assert_int_equal(v, 12);
	d = error_at(g, 0);
	assert_string_equal(d->message, "assertion 's mod 8  == 0' is false");
	assert_string_equal(d->witness, "s = 12");
	assert_non_null(d->witness_binding);
	assert_int_equal(sym_binding_value(d->witness_binding, 0), 12);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The layout example (HACKING.md section 8) with relations and assertions:
 * the relation is assumed, one assertion is proven, one refuted. */
static void
test_design_layout_example(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "devices 8\n"
	    "mesh m = (dp=2, sp=2, mp=2)\n"
	    "input x : f32[2, 4]\n"
	    "input w : f32[4, 16]\n"
	    "y = matmul(x, w) shard (m(mp, (sp, dp)), m((sp, dp), None)) -> "
	    "(m((mp, sp, dp), None),)\n"
	    "output y\n"
	    "\n"
	    "symbol s min=128 max=8192 divisor=128 unique\n"
	    "symbol t unique\n"
	    "relation t = s + 128\n"
	    "assert t mod 128 == 0           # proven\n"
	    "assert 2*s >= t + 128           # refuted, witness s = 128\n");
	const sym_assertion *a;

	(void)state;
	assert_int_equal(sym_graph_n_errors(g), 1);
	assert_diag(error_at(g, 0), 12, 8, "is false", NULL, "assert");
	assert_int_equal(sym_graph_n_assertions(g), 2);
	a = sym_graph_assertion(g, 0);
	assert_int_equal(a->result, SYM_TRUE);
	a = sym_graph_assertion(g, 1);
	assert_int_equal(a->result, SYM_FALSE);
	assert_non_null(a->witness);
	assert_non_null(strstr(a->witness, "s = 128"));
	assert_value(g, "y", SYM_VALUE_RESULT, "f32[2, 16]");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Inputs and parameters: scalars, every expression form in dimensions,
 * commas inside calls, blanks anywhere, CRLF line ends. */
static void
test_inputs(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "symbol h unique\r\n"
	    "symbol s unique\n"
	    "input a : f32[]\n"
	    "param b:bf16[ ]\n"
	    "input c : i64 [ 2*h , min(h, 4), max(s, h) + 1 ]\r\n"
	    "input d : u8[s floordiv 2 + 1, ceildiv(s, 3), s mod 4 + 1, h // 2 + 1]\n"
	    "input e : bool[1,]\n"
	    "\tinput\tf\t:\tf16[h]\t# tabs\n");

	(void)state;
	assert_no_errors(g);
	assert_value(g, "a", SYM_VALUE_INPUT, "f32[]");
	assert_value(g, "b", SYM_VALUE_PARAM, "bf16[]");
	assert_value(g, "c", SYM_VALUE_INPUT,
	    "i64[2*h, min(4, h), max(h, s) + 1]");
	assert_value(g, "e", SYM_VALUE_INPUT, "bool[1]");
	assert_value(g, "f", SYM_VALUE_INPUT, "f16[h]");
	assert_int_equal(sym_shape_ndim(sym_value_shape(sym_graph_find_value(g,
	                     "d"))),
	    4);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Attribute values: booleans, integers, floats, strings, lists, a
 * declared symbol or an expression (lists of one), and other bare names
 * (strings); each located where it was written. */
static void
test_attributes(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "symbol b unique\n"
	    "input x : f32[2]\n"
	    "y = identity(x, t=true, f=False, i=3, n=-2, r=1.5, e=2e3, "
	    "s=\"a, b) # \\\"q\\\"\", l=[1, b], z=[], k=b, x2=2*b, "
	    "m=min(b, 2), w=f16, u=none)\n");
	const sym_attrs *a;

	(void)state;
	assert_int_equal(sym_graph_n_nodes(g), 1);
	a = sym_node_attrs(sym_graph_node(g, 0));
	assert_int_equal(sym_attrs_kind(a, "t"), SYM_ATTR_BOOL);
	assert_int_equal(sym_attrs_kind(a, "f"), SYM_ATTR_BOOL);
	assert_int_equal(sym_attrs_kind(a, "i"), SYM_ATTR_INT);
	assert_int_equal(sym_attrs_kind(a, "n"), SYM_ATTR_INT);
	assert_int_equal(sym_attrs_kind(a, "r"), SYM_ATTR_FLOAT);
	assert_int_equal(sym_attrs_kind(a, "e"), SYM_ATTR_FLOAT);
	assert_int_equal(sym_attrs_kind(a, "s"), SYM_ATTR_STRING);
	assert_int_equal(sym_attrs_kind(a, "l"), SYM_ATTR_LIST);
	assert_int_equal(sym_attrs_kind(a, "z"), SYM_ATTR_LIST);
	assert_int_equal(sym_attrs_kind(a, "k"), SYM_ATTR_LIST);
	assert_int_equal(sym_attrs_kind(a, "x2"), SYM_ATTR_LIST);
	assert_int_equal(sym_attrs_kind(a, "m"), SYM_ATTR_LIST);
	assert_int_equal(sym_attrs_kind(a, "w"), SYM_ATTR_STRING);
	assert_int_equal(sym_attrs_kind(a, "u"), SYM_ATTR_STRING);
	assert_attrs(g, 0,
	    "t=true, f=false, i=3, n=-2, r=1.5, e=2000.0, "
	    "s=\"a, b) # \\\"q\\\"\", l=[1, b], z=[], k=[b], x2=[2*b], "
	    "m=[min(2, b)], w=\"f16\", u=\"none\"");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Attributes the operators know take effect; a bad one is reported at
 * its own column. */
static void
test_attributes_used(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "input x : f32[4, 8]\n"
	    "r = reduce_sum(x, axis=[1], keep_dims=true)\n"
	    "c = cast(x, dtype=f16)\n"
	    "p = transpose(x, [1, 0])\n"
	    "q = softmax(x, axis=-1)\n"
	    "s = reduce_sum(x, keep_dims=true, axis=[7])\n");

	(void)state;
	assert_value(g, "r", SYM_VALUE_RESULT, "f32[4, 1]");
	assert_value(g, "c", SYM_VALUE_RESULT, "f16[4, 8]");
	assert_value(g, "p", SYM_VALUE_RESULT, "f32[8, 4]");
	assert_value(g, "q", SYM_VALUE_RESULT, "f32[4, 8]");
	assert_int_equal(sym_graph_n_errors(g), 1);
	assert_int_equal(error_at(g, 0)->loc.line, 6);
	assert_int_equal(error_at(g, 0)->loc.col, 35);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Several results, values called like keywords, several outputs. */
static void
test_results(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "input x : f32[4, 8]\n"
	    "a, b = split(x, axis=1, output_num=2)\n"
	    "input = relu(a)\n"
	    "output = relu(input)\n"
	    "output output, b , a\n");

	(void)state;
	assert_no_errors(g);
	assert_value(g, "a", SYM_VALUE_RESULT, "f32[4, 4]");
	assert_value(g, "b", SYM_VALUE_RESULT, "f32[4, 4]");
	assert_value(g, "output", SYM_VALUE_RESULT, "f32[4, 4]");
	assert_int_equal(sym_node_n_outputs(sym_graph_node(g, 0)), 2);
	assert_int_equal(sym_graph_n_outputs(g), 3);
	assert_ptr_equal(sym_graph_output(g, 0),
	    sym_graph_find_value(g, "output"));
	assert_ptr_equal(sym_graph_output(g, 2), sym_graph_find_value(g, "a"));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Every strategy form parses without an error. */
static void
test_strategies(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "devices 8\n"
	    "mesh m = (dp=2, sp=2, mp=2)\n"
	    "mesh n = (2, 4,) ranks [7, 6, 5, 4, 3, 2, 1, 0,]\n"
	    "mesh o = (dp=2, 4)\n"
	    "input x : f32[8, 8]\n"
	    "input w : f32[8, 16]\n"
	    "h1 = matmul(x, w) shard ((2, 4), (4, 1))\n"
	    "h2 = matmul(x, w) shard ((2, 4), (4, 1)) -> ((8, 1),)\n"
	    "a1 = relu(x) shard ((4, 1),)\n"
	    "a2 = relu(x) shard ((4, 1))\n"
	    "a3 = relu(x) shard( ( 8 ,1 ) , )->((8,1),)\n"
	    "a4 = relu(x) shard (m(mp, (sp, dp)),)\n"
	    "y = matmul(x, w) shard (m(mp, (sp, dp)), m((sp, dp), None)) -> "
	    "(m((mp, sp, dp), None),)\n"
	    "a5 = relu(x) shard (m(None, mp),)\n"
	    "a6 = relu(x) shard (m((dp,), None,),)\n"
	    "a7 = relu(x) shard (n(None, None),)  # replicated\n");

	(void)state;
	assert_no_errors(g);
	assert_int_equal(sym_graph_n_nodes(g), 10);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Malformed strategies: message and column. */
static void
test_strategy_errors(void **state)
{
	static const char head[] = "devices 8\nmesh m = (dp=2, sp=2, mp=2)\n"
	                           "input x : f32[8, 8]\ny = relu(x) shard";
	static const struct bad cases[] = {
		{ " (4, 1)", 4, 20, "expected a tensor strategy such as (2, 4)",
		    "a strategy has one tuple per tensor, as in ((4, 1),)" },
		{ " ((4, x),)", 4, 24,
		    "expected an integer split count, found 'x'", NULL },
		{ " ((4, 1),", 4, 27,
		    "expected ')' to close the strategy started at column 19",
		    NULL },
		{ " ((4, 1)", 4, 26,
		    "expected ')' to close the strategy started at column 19",
		    NULL },
		{ " ((2.5, 1),)", 4, 21,
		    "expected an integer split count, found '2.5'", NULL },
		{ " (m(mp, (sp, None)),)", 4, 31,
		    "None cannot be part of an axis group", NULL },
		{ " (m(mp, ()),)", 4, 26, "an axis group needs at least one",
		    NULL },
		{ " (m mp),)", 4, 22,
		    "expected '(' after mesh name 'm' in a layout", NULL },
		{ " ((8, 1),) ->", 4, 31,
		    "expected '(' to start the output strategy", NULL },
		{ " ((8, 1),) foo", 4, 29,
		    "unexpected 'foo' after the strategy", NULL },
		{ "", 4, 18, "expected '(' to start the strategy", NULL },
		{ " (m(1),)", 4, 22,
		    "expected an axis name, a group (a, b) or None, found '1'",
		    NULL },
		{ " ((4 1),)", 4, 23,
		    "expected ',' or ')' after a split count, found '1'",
		    NULL },
		{ " ((8, 1),) -> ((8, 1)", 4, 39,
		    "expected ')' to close the output strategy started at "
		    "column 32",
		    NULL },
		{ " (m(mp,, sp),)", 4, 25,
		    "expected an axis name, a group (a, b) or None, found ','",
		    NULL },
		{ " (m(mp, (sp dp)),)", 4, 30,
		    "expected ',' or ')' after an axis, found 'dp'", NULL },
		{ " ((99999999999999999999,),)", 4, 21, "out of range", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		struct bad b = cases[i];

		snprintf(text, sizeof(text), "%s%s\n", head, b.text);
		b.text = text;
		assert_bad(&b);
	}
}

/* Syntax errors of every statement: message, line, column, hint. */
static void
test_syntax_errors(void **state)
{
	static const struct bad cases[] = {
		{ "devices", 1, 8,
		    "expected the number of devices after "
		    "'devices'",
		    NULL },
		{ "devices 8 9", 1, 11,
		    "unexpected '9' after the number of "
		    "devices",
		    NULL },
		{ "devices 0", 1, 9, "must be at least 1", NULL },
		{ "\tdevices x", 1, 10, "expected the number of devices",
		    NULL },
		{ "symbol", 1, 7, "expected a symbol name after 'symbol'",
		    NULL },
		{ "symbol b mni=3", 1, 10, "unknown option 'mni' of symbol b",
		    "did you mean 'min'?" },
		{ "symbol b min=1 min=2", 1, 16,
		    "option 'min' is given twice (first at column 10)", NULL },
		{ "symbol b min", 1, 13, "expected '=' after 'min'", NULL },
		{ "symbol b min=x", 1, 14, "expected an integer after 'min='",
		    NULL },
		{ "symbol b unique=1", 1, 16, "'unique' takes no value", NULL },
		{ "symbol b min=0", 1, 8, "min must be at least 1", NULL },
		{ "symbol b min=99999999999999999999", 1, 14,
		    "integer 99999999999999999999 is out of range", NULL },
		{ "symbol b divisor=8 remainder=8", 1, 8,
		    "remainder must lie in [0, divisor)", NULL },
		{ "symbol min", 1, 8, "invalid symbol name 'min'", NULL },
		{ "symbol b\nsymbol b", 2, 8,
		    "symbol b is already declared at "
		    "t.sg:1:8",
		    NULL },
		{ "input x f32[1]", 1, 9, "expected ':' after input name",
		    NULL },
		{ "param w f32[1]", 1, 9, "expected ':' after parameter name",
		    NULL },
		{ "input : f32[1]", 1, 7, "expected a value name after 'input'",
		    NULL },
		{ "input x : [1]", 1, 11, "expected a dtype after ':'", NULL },
		{ "input x : f23[1]", 1, 11, "unknown dtype 'f23'",
		    "did you mean 'f32'?" },
		{ "input x : f32", 1, 14,
		    "expected '[' after the dtype (f32[] "
		    "is a scalar)",
		    NULL },
		{ "input x : f32[1, 2", 1, 19,
		    "expected ']' to close the shape started at column 14",
		    NULL },
		{ "input x : f32[1, 2,", 1, 20,
		    "expected ']' to close the shape started at column 14",
		    NULL },
		{ "input x : f32[1,, 2]", 1, 17,
		    "expected a dimension, found ','", NULL },
		{ "input x : f32[1, q]", 1, 18, "unknown symbol 'q'", NULL },
		{ "input x : f32[1, 2*]", 1, 20,
		    "expected an expression after '*'", NULL },
		{ "input x : f32[1, (2]", 1, 20, "to close '(' at column 18",
		    NULL },
		{ "input x : f32[-3]", 1, 14, "negative", NULL },
		{ "input x : f32[1] y", 1, 18, "unexpected 'y' after the shape",
		    NULL },
		{ "input x : f32[1]\ninput x : f32[2]", 2, 7,
		    "value 'x' is already defined at line 1", NULL },
		{ "input y : f32[2]\nx = relu6(y)", 2, 5,
		    "unknown operator 'relu6'", "did you mean 'relu'?" },
		{ "input h2 : f32[2]\nx = relu(h3)", 2, 10,
		    "unknown value 'h3'", "did you mean 'h2'?" },
		{ "input y : f32[2]\nx = relu y", 2, 10,
		    "expected '(' after operator name 'relu'", NULL },
		{ "x = (y)", 1, 5,
		    "expected an operator call after '=', found "
		    "'('",
		    NULL },
		{ "x =", 1, 4,
		    "expected an operator call after '=', found end "
		    "of line",
		    NULL },
		{ "input y : f32[2]\nx = relu(y", 2, 11,
		    "expected ')' to close the call of 'relu' started at column "
		    "9",
		    NULL },
		{ "input y : f32[2]\nx = relu(y) z", 2, 13,
		    "unexpected 'z' after the call", NULL },
		{ "input y : f32[2]\nx = relu(y, axis=)", 2, 18,
		    "expected a value after 'axis=', found ')'", NULL },
		{ "input y : f32[2]\nx = relu(y, a=1, a=2)", 2, 18,
		    "attribute 'a' is given twice (first at column 13)", NULL },
		{ "input y : f32[2]\nx = relu(a=1, y)", 2, 15,
		    "operand 'y' after the attributes", NULL },
		{ "input y : f32[2]\nx = relu(y, name=\"abc)", 2, 18,
		    "unterminated string", NULL },
		{ "input y : f32[2]\nx = relu(y, name=\"a\\qb\")", 2, 20,
		    "unknown escape sequence", NULL },
		{ "input y : f32[2]\nx = relu(y, [1])", 2, 13,
		    "operator 'relu' takes no list argument", NULL },
		{ "input y : f32[2]\nx = reshape(y, [2], [2])", 2, 21,
		    "operator 'reshape' takes at most 1 list argument", NULL },
		{ "input y : f32[2]\nx = reshape(y, shape=[2], [2])", 2, 27,
		    "list argument after the attributes", NULL },
		{ "input y : f32[2]\nx = relu(y, f=1e999)", 2, 15,
		    "float 1e999 is out of range", NULL },
		{ "input y : f32[2]\nx = relu(y, a=2 3)", 2, 17,
		    "trailing input after expression", NULL },
		{ "input y : f32[2]\nx = relu(y, 3)", 2, 13,
		    "expected an operand, a list or NAME=value, found '3'",
		    NULL },
		{ "input y : f32[2]\nx = relu(, y)", 2, 10,
		    "expected an operand, a list or NAME=value, found ','",
		    NULL },
		{ "input y : f32[2]\nx = relu(y y)", 2, 12,
		    "expected ',' or ')' after an argument, found 'y'", NULL },
		{ "a, = relu(x)", 1, 4, "expected a result name after ','",
		    NULL },
		{ "a, b relu(x)", 1, 6, "expected '=' after the result names",
		    NULL },
		{ "relation", 1, 9,
		    "expected an expression after 'relation', "
		    "found end of line",
		    NULL },
		{ "symbol t unique\nrelation t", 2, 11,
		    "expected a comparison (==, !=, <=, <, >=, >) after the "
		    "expression",
		    NULL },
		{ "symbol t unique\nrelation t ==", 2, 14,
		    "expected an expression after '=='", NULL },
		{ "symbol t unique\nrelation == t", 2, 10,
		    "expected an expression after 'relation', found '='",
		    NULL },
		{ "symbol t unique\nrelation t => 1", 2, 12,
		    "unknown comparison '=>': did you mean '>='?", NULL },
		{ "symbol t unique\nrelation t < 1 < 2", 2, 16,
		    "only one comparison is allowed in a relation", NULL },
		{ "symbol t unique\nassert t < 1 == 2", 2, 14,
		    "only one comparison is allowed in an assert", NULL },
		{ "symbol t unique\nrelation t ! 1", 2, 12, "expected '!='",
		    NULL },
		{ "symbol t unique\nrelation t == q", 2, 15,
		    "unknown symbol 'q'", NULL },
		{ "symbol t unique\nrelation (t == 1)", 2, 18,
		    "expected a "
		    "comparison",
		    NULL },
		{ "symbol b\nrelation b == 1", 2, 10, "which is not unique",
		    NULL },
		{ "symbol s\ninput x : f32[s]\ninput y : f32[s]\n"
		  "assert s' >= 1",
		    4, 8,
		    "an assertion names s', which is not unique: each use "
		    "of a non-unique symbol is a different variable; declare "
		    "it 'symbol s ... unique'",
		    NULL },
		{ "mesh", 1, 5, "expected a mesh name after 'mesh'", NULL },
		{ "mesh m (2)", 1, 8, "expected '=' after mesh name", NULL },
		{ "mesh m = ()", 1, 10, "a mesh needs at least one axis",
		    NULL },
		{ "mesh m = 2", 1, 10,
		    "expected '(' to start the device "
		    "matrix",
		    NULL },
		{ "mesh m = (dp 2)", 1, 14,
		    "expected '=' and a size after axis name 'dp'", NULL },
		{ "mesh m = (dp=)", 1, 14,
		    "expected the size of axis 'dp' after '='", NULL },
		{ "mesh m = (dp=2", 1, 15,
		    "expected ')' to close the device matrix started at column "
		    "10",
		    NULL },
		{ "mesh m = (dp=2 mp=2)", 1, 16,
		    "expected ',' or ')' after an axis, found 'mp'", NULL },
		{ "mesh m = (2.5)", 1, 11,
		    "expected an axis size or NAME=size, found '2.5'", NULL },
		{ "mesh m = (2) ranks 0", 1, 20, "expected '[' after 'ranks'",
		    NULL },
		{ "mesh m = (2) rank [0, 1]", 1, 14,
		    "unexpected 'rank' after the device matrix", NULL },
		{ "mesh m = (2) ranks [0, 1", 1, 25,
		    "expected ']' to close the rank list started at column 20",
		    NULL },
		{ "mesh m = (2) ranks [0, x]", 1, 24,
		    "expected a rank (an integer), found 'x'", NULL },
		{ "mesh m = (2) ranks [0] 1", 1, 24,
		    "unexpected '1' after the rank list", NULL },
		{ "mesh m = (2)\nmesh m = (4)", 2, 6,
		    "mesh 'm' is already declared", NULL },
		{ "output", 1, 7, "expected a value name after 'output'",
		    NULL },
		{ "input x : f32[1]\noutput x,", 2, 10,
		    "expected a value name after ','", NULL },
		{ "input x : f32[1]\noutput x x", 2, 10,
		    "unexpected 'x' after the output names", NULL },
		{ "output nope", 1, 8, "unknown value 'nope'", NULL },
		{ "inptu x : f32[1]", 1, 1, "unknown statement 'inptu'",
		    "did you mean 'input'?" },
		{ "x y", 1, 1, "unknown statement 'x'", NULL },
		{ "@", 1, 1, "expected a statement, found '@'", NULL },
		{ "\x8f", 1, 1, "expected a statement, found byte 0x8f", NULL },
		{ "# comment\n\n   \n  3", 4, 3,
		    "expected a statement, found "
		    "'3'",
		    NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_bad(&cases[i]);
}

/* Three errors on three lines give three diagnostics, in order, and the
 * statements between them still count. */
static void
test_three_errors(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "devices 8\n"
	    "input x : f32[4, q]\n"
	    "input y : f32[4, 4]\n"
	    "z = relu(y) shard ((4, 1),\n"
	    "w = relu(y)\n"
	    "mesh m = (dp=2, mp=\n"
	    "output w\n");

	(void)state;
	assert_int_equal(sym_graph_n_errors(g), 3);
	assert_diag(error_at(g, 0), 2, 18, "unknown symbol 'q'", NULL, "2");
	assert_diag(error_at(g, 1), 4, 27, "expected ')' to close the strategy",
	    NULL, "4");
	assert_diag(error_at(g, 2), 6, 20, "expected the size of axis 'mp'",
	    NULL, "6");
	assert_value(g, "w", SYM_VALUE_RESULT, "f32[4, 4]");
	assert_int_equal(sym_graph_n_outputs(g), 1);
	assert_null(sym_graph_find_value(g, "x"));
	assert_null(sym_graph_find_value(g, "z"));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A value whose definition failed is not reported again where it is
 * used, nor are the values computed from it. */
static void
test_no_cascade(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "input x : f23[4]\n"
	    "y = relu(x)\n"
	    "a, b = split(y, output_num=2)\n"
	    "c = add(a, b) shard ((4,), (4,))\n"
	    "output c, b\n"
	    "d = relu(e)\n");

	(void)state;
	assert_int_equal(sym_graph_n_errors(g), 2);
	assert_diag(error_at(g, 0), 1, 11, "unknown dtype 'f23'", NULL, "1");
	assert_diag(error_at(g, 1), 6, 10, "unknown value 'e'", NULL, "6");
	assert_int_equal(sym_graph_n_outputs(g), 0);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A symbol whose declaration failed is not reported as unknown where it
 * is used (dimensions, reshape targets, attributes, relations and
 * assertions), nor are the values that use it; an unknown symbol that
 * was never declared still is. */
static void
test_no_cascade_symbol(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx,
	    "symbol b min=0\n"
	    "symbol c divisor=8 mod=3\n"
	    "symbol t unique\n"
	    "input x : f32[b, c]\n"
	    "input y : f32[4, 2 * b]\n"
	    "input z : f32[4, 8]\n"
	    "r = reshape(z, [b, -1])\n"
	    "s = reduce_sum(z, axis=c)\n"
	    "u = relu(y)\n"
	    "relation t >= b\n"
	    "assert c + t >= 1\n"
	    "input w : f32[q]\n"
	    "output u\n");

	(void)state;
	assert_int_equal(sym_graph_n_errors(g), 3);
	assert_diag(error_at(g, 0), 1, 8, "min must be at least 1", NULL, "1");
	assert_diag(error_at(g, 1), 2, 20, "unknown option 'mod'", NULL, "2");
	assert_diag(error_at(g, 2), 12, 15, "unknown symbol 'q'", NULL, "12");
	assert_null(sym_graph_find_value(g, "x"));
	assert_null(sym_graph_find_value(g, "y"));
	assert_int_equal(sym_graph_n_assertions(g), 0);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Diagnostics print like a compiler's: location, message, the line and a
 * caret under the column (tabs kept), then the hint. */
static void
test_format(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parse(ctx, "input h2 : f32[2]\n\tx = relu(h3)\n");
	char *s;

	(void)state;
	assert_int_equal(sym_graph_n_errors(g), 1);
	s = sym_diagnostic_format(g, error_at(g, 0));
	assert_non_null(s);
	assert_string_equal(s,
	    "t.sg:2:11: error: unknown value 'h3'\n"
	    "\tx = relu(h3)\n"
	    "\t         ^\n"
	    "  hint: did you mean 'h2'?");
	free(s);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The names of severities and of kinds of values, as the reports print
 * them, and "unknown" for any other value; "state" is unused. */
static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(sym_severity_name(SYM_SEV_ERROR), "error");
	assert_string_equal(sym_severity_name(SYM_SEV_WARNING), "warning");
	assert_string_equal(sym_severity_name(SYM_SEV_NOTE), "note");
	assert_string_equal(sym_severity_name((sym_severity)3), "unknown");
	assert_string_equal(sym_severity_name((sym_severity)-1), "unknown");
	assert_string_equal(sym_value_kind_name(SYM_VALUE_INPUT), "input");
	assert_string_equal(sym_value_kind_name(SYM_VALUE_PARAM), "param");
	assert_string_equal(sym_value_kind_name(SYM_VALUE_RESULT), "result");
	assert_string_equal(sym_value_kind_name((sym_value_kind)3), "unknown");
}

/* Return the name of a new temporary file holding the "len" bytes of
 * "text" (malloc'ed; the caller removes the file). */
static char *
temp_file(const char *text, size_t len)
{
	char *name = strdup("/tmp/test_parse_XXXXXX");
	int fd;

	assert_non_null(name);
	fd = mkstemp(name);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return name;
}

/* Files: parsed with their name in every location; a missing file is
 * SYM_EIO naming the path and the reason; a NUL byte is an error at its
 * place. */
static void
test_files(void **state)
{
	static const char text[] = "devices 2\ninput x : f32[2]\nouput x\n";
	static const char nul[] = "devices 2\ninput x : f32[2]\noutput x\0y";
	sym_ctx *ctx = tl_ctx_new();
	char *name = temp_file(text, sizeof(text) - 1);
	const char *msg;
	sym_graph *g = sym_graph_parse_file(ctx, name);
	const sym_diagnostic *d;

	(void)state;
	assert_non_null(g);
	assert_string_equal(sym_graph_filename(g), name);
	assert_string_equal(sym_graph_source(g), text);
	assert_int_equal(sym_graph_n_errors(g), 1);
	d = error_at(g, 0);
	assert_string_equal(d->loc.file, name);
	assert_int_equal(d->loc.line, 3);
	assert_int_equal(d->loc.col, 1);
	assert_string_equal(d->hint, "did you mean 'output'?");
	sym_graph_free(g);
	remove(name);
	free(name);

	assert_null(sym_graph_parse_file(ctx, "/nonexistent/x.sg"));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EIO);
	msg = strstr(sym_ctx_last_message(ctx), "/nonexistent/x.sg");
	assert_non_null(msg);
	assert_non_null(strstr(msg, strerror(ENOENT)));
	sym_ctx_clear_error(ctx);

	name = temp_file(nul, sizeof(nul) - 1);
	g = sym_graph_parse_file(ctx, name);
	assert_non_null(g);
	assert_int_equal(sym_graph_n_outputs(g), 1);
	assert_int_equal(sym_graph_n_errors(g), 1);
	d = error_at(g, 0);
	assert_int_equal(d->loc.line, 3);
	assert_int_equal(d->loc.col, 9);
	assert_non_null(strstr(d->message, "NUL byte"));
	sym_graph_free(g);
	remove(name);
	free(name);
	tl_ctx_free(ctx);
}

/* Return the malloc'ed text of "n" lines, line "i" formatted from "fmt"
 * with "i" (at most 64 bytes), after the line "head". */
static char *
lines(const char *head, const char *fmt, int n)
{
	size_t len = strlen(head);
	char *text = malloc(len + (size_t)n * 64 + 1), *p;

	assert_non_null(text);
	p = text + sprintf(text, "%s", head);
	for (int i = 0; i < n; i++)
		p += sprintf(p, fmt, i, i);
	return text;
}

/* Many names (issue 14, item 8): 160 000 meshes, 100 000 symbols and
 * 100 000 attributes on one call are found by name in constant time each
 * (linear searches made each case take minutes); "did you mean" hints for
 * many unknown names among many values stop with the errors. */
static void
test_many_names(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g;
	char *text, *p;

	(void)state;
	text = lines("devices 2\n", "mesh m%d = (a%d=2)\n", 160000);
	g = parse(ctx, text);
	assert_no_errors(g);
	sym_graph_free(g);
	free(text);
	text = lines("devices 2\nmesh m0 = (a=2)\n", "mesh m%d = (a%d=2)\n", 2);
	g = parse(ctx, text);
	assert_int_equal(sym_graph_n_errors(g), 1);
	assert_diag(error_at(g, 0), 3, 6, "mesh 'm0' is already declared", NULL,
	    text);
	sym_graph_free(g);
	free(text);
	sym_ctx_free(ctx);

	ctx = tl_ctx_new();
	text = lines("", "symbol s%d max=1%d\n", 100000);
	strcat(text, "input x : f32[s99999, s4]\n");
	g = parse(ctx, text);
	assert_no_errors(g);
	assert_value(g, "x", SYM_VALUE_INPUT, "f32[s99999, s4]");
	sym_graph_free(g);
	free(text);
	sym_ctx_free(ctx);

	ctx = tl_ctx_new();
	text = malloc(100000 * 16 + 64);
	assert_non_null(text);
	p = text + sprintf(text, "input x : f32[2]\ny = relu(x");
	for (int i = 0; i < 100000; i++)
		p += sprintf(p, ", a%d=%d", i, i);
	strcpy(p, ")\n");
	g = parse(ctx, text);
	assert_int_equal(sym_graph_n_errors(g), 1);
	assert_diag(error_at(g, 0), 2, 13, "relu has no attribute a0", NULL,
	    "many attributes");
	sym_graph_free(g);
	free(text);

	text = lines("", "input x%d : f32[1%d]\n", 100000);
	p = text + strlen(text);
	for (int i = 0; i < 100000; i++)
		p += sprintf(p, "y%d = relu(z%d)\n", i, i);
	g = parse(ctx, text);
	assert_int_equal(sym_graph_n_errors(g), 51);
	assert_diag(error_at(g, 0), 100001, 11, "unknown value 'z0'",
	    "did you mean 'x0'?", "many unknown names");
	assert_diag(error_at(g, 50), 100051, 12, "too many errors (50)", NULL,
	    "many unknown names");
	sym_graph_free(g);
	free(text);
	tl_ctx_free(ctx);
}

/* Diagnostics of long lines and hostile bytes (issue 14, items 11 and
 * 14): the echoed line is clipped around the column with "...", the
 * caret under it; after 50 errors one "too many errors" ends them; control
 * bytes of the line and of strings in messages are escaped as in JSON. */
static void
test_format_hostile(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	size_t n = 6000, total = 0;
	char *text = malloc(n * 8 + 64), *p, *s;
	const char *nl;
	sym_graph *g;

	(void)state;
	assert_non_null(text);
	p = text + sprintf(text, "input x : f32[2]\noutput x");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, ", u%zu", i);
	strcpy(p, "\n");
	g = parse(ctx, text);
	assert_int_equal(sym_graph_n_errors(g), 51);
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++) {
		s = sym_diagnostic_format(g, sym_graph_diagnostic(g, i));
		assert_non_null(s);
		total += strlen(s);
		free(s);
	}
	assert_true(total < 20000);
	s = sym_diagnostic_format(g, error_at(g, 2));
	assert_string_equal(s,
	    "t.sg:2:19: error: unknown value 'u2'\n"
	    "output x, u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, "
	    "u12, u13, u14, u15, u16, u17, u18, u19, u20, u21, u22, u23, "
	    "...\n"
	    "                  ^");
	free(s);
	s = sym_diagnostic_format(g, error_at(g, 40));
	nl = strchr(s, '\n');
	assert_non_null(nl);
	assert_memory_equal(nl, "\n...", 4);
	assert_non_null(strstr(s,
	    "\n                                     "
	    "                          ^"));
	assert_non_null(strstr(s, "u40, u41"));
	free(s);
	sym_graph_free(g);
	free(text);

	g = parse(ctx,
	    "input x : f32[2]\ny = relu(x, \x1b[2J, \x01)\n"
	    "z = conv2d(x, x, data_format=\"\\n\x1b[31mX\")\n");
	assert_true(sym_graph_n_errors(g) >= 2);
	s = sym_diagnostic_format(g, error_at(g, 0));
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\x01'));
	assert_non_null(strstr(s,
	    "\ny = relu(x, \\u001b[2J, \\u0001)\n"
	    "            ^"));
	free(s);
	s = sym_diagnostic_format(g, error_at(g, 1));
	assert_null(strchr(s, '\x1b'));
	assert_non_null(strstr(s, "not \"\\n\\u001b[31mX\"\n"));
	free(s);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Endless or huge inputs fail at once (issue 14, item 10): /dev/zero
 * stops at its first byte, a NUL; a stream longer than the 64 MiB limit
 * is SYM_EIO saying so, without being read to its end; a stream within
 * it parses, with its name in locations. */
static void
test_file_limits(void **state)
{
	size_t big = ((size_t)64 << 20) + 1;
	sym_ctx *ctx = tl_ctx_new();
	char *text = malloc(big);
	const sym_diagnostic *d;
	sym_graph *g;
	FILE *f;

	(void)state;
	g = sym_graph_parse_file(ctx, "/dev/zero");
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 1);
	d = error_at(g, 0);
	assert_int_equal(d->loc.line, 1);
	assert_int_equal(d->loc.col, 1);
	assert_non_null(strstr(d->message, "NUL byte"));
	assert_string_equal(sym_graph_source(g), "");
	sym_graph_free(g);

	assert_non_null(text);
	memset(text, '#', big);
	f = fmemopen(text, big, "r");
	assert_non_null(f);
	assert_null(sym_graph_parse_stream(ctx, f, "<big>"));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EIO);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "<big> is larger than 67108864 bytes, the limit of an input file");
	sym_ctx_clear_error(ctx);
	fclose(f);

	f = fmemopen(text, big - 1, "r");
	assert_non_null(f);
	g = sym_graph_parse_stream(ctx, f, "<big>");
	assert_non_null(g);
	assert_int_equal(sym_graph_n_diagnostics(g), 0);
	sym_graph_free(g);
	fclose(f);

	strcpy(text, "input x : f32[2]\nouput x\n");
	f = fmemopen(text, strlen(text), "r");
	g = sym_graph_parse_stream(ctx, f, "<stdin>");
	assert_int_equal(sym_graph_n_errors(g), 1);
	d = error_at(g, 0);
	assert_string_equal(d->loc.file, "<stdin>");
	assert_int_equal(d->loc.line, 2);
	sym_graph_free(g);
	fclose(f);
	free(text);
	assert_null(sym_graph_parse_stream(ctx, NULL, "x"));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	sym_ctx_clear_error(ctx);
	tl_ctx_free(ctx);
}

/* Inputs at the limits: deep nesting is a clean error, very long lines
 * and binary bytes parse, no text is SYM_EINVAL. */
static void
test_limits(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	size_t n = 300, len = 1 << 20;
	char *text = malloc(len + 64), *p;
	sym_graph *g;

	(void)state;
	assert_non_null(text);
	p = text + sprintf(text, "symbol b\ninput x : f32[");
	memset(p, '(', n);
	p[n] = 'b';
	memset(p + n + 1, ')', n);
	strcpy(p + 2 * n + 1, "]\n");
	g = parse(ctx, text);
	assert_int_equal(sym_graph_n_errors(g), 1);
	assert_diag(error_at(g, 0), 2, 215, "nested too deeply", NULL, "deep");
	sym_graph_free(g);

	p = text + sprintf(text, "input x : f32[1]\noutput x");
	while ((size_t)(p - text) < len - 8)
		p += sprintf(p, ", x");
	strcpy(p, "\n");
	g = parse(ctx, text);
	assert_no_errors(g);
	assert_int_equal(sym_graph_n_outputs(g), 1);
	sym_graph_free(g);

	for (size_t i = 0; i < 4096; i++)
		text[i] = (char)(1 + (i * 7919 + 13) % 255);
	text[4096] = '\0';
	g = parse(ctx, text);
	assert_true(sym_graph_n_errors(g) > 0);
	sym_graph_free(g);
	free(text);

	assert_null(sym_graph_parse(ctx, NULL, "t.sg"));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	sym_ctx_clear_error(ctx);
	g = sym_graph_parse(ctx, "", NULL);
	assert_non_null(g);
	assert_int_equal(sym_graph_n_diagnostics(g), 0);
	assert_null(sym_graph_filename(g));
	sym_graph_free(g);
	assert_null(sym_graph_parse(NULL, "devices 1", NULL));
	tl_ctx_free(ctx);
}

/* Run the tests of this program; returns the number of failures. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ffn),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_comparisons),
		cmocka_unit_test(test_assertion_text),
		cmocka_unit_test(test_design_layout_example),
		cmocka_unit_test(test_inputs),
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_attributes_used),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_strategies),
		cmocka_unit_test(test_strategy_errors),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_three_errors),
		cmocka_unit_test(test_no_cascade),
		cmocka_unit_test(test_no_cascade_symbol),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_file_limits),
		cmocka_unit_test(test_many_names),
		cmocka_unit_test(test_format_hostile),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
