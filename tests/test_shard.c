/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of sharding (sym_graph_shard(3)): the seed network
 * (HACKING.md section 8) on 8 devices, tuple and layout strategies with their device
 * matrices, repeat axes, output strategies (AllReduce or ReduceScatter),
 * every structural error, divisibility proofs with witnesses and hints,
 * multi-axis layouts on dynamic dimensions, the default strategy and
 * propagation, a rule for every operator of the registry, and plans made
 * once per distinct redistribution that equal fresh ones.
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

/* The seed network (HACKING.md section 8, examples/ffn.sg). */
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

/* The layout example (HACKING.md section 8), with MindSpore's 2 rows. */
static const char layout_design[] =
    "devices 8\n"
    "mesh m = (dp=2, sp=2, mp=2)\n"
    "input x : f32[2, 4]\n"
    "input w : f32[4, 16]\n"
    "y = matmul(x, w) shard (m(mp, (sp, dp)), m((sp, dp), None)) -> "
    "(m((mp, sp, dp), None),)\n"
    "output y\n";

/* Print the diagnostics of "g" (to explain a failure). */
static void
print_diags(const sym_graph *g)
{
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++) {
		char *s = sym_diagnostic_format(g, sym_graph_diagnostic(g, i));

		print_message("%s\n", s ? s : "?");
		free(s);
	}
}

/* Parse "text" as "t.sg" in "ctx" (without errors) and shard it; store
 * the graph in "*g" and return what sym_graph_shard returned. */
static int
shard(sym_ctx *ctx, const char *text, sym_graph **g)
{
	int r;

	*g = sym_graph_parse(ctx, text, "t.sg");
	assert_non_null(*g);
	if (sym_graph_n_errors(*g)) {
		print_diags(*g);
		fail_msg("the graph has parse or shape errors");
	}
	r = sym_graph_shard(*g, NULL);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	return r;
}

/* Shard "text", which must be valid; return the graph. */
static sym_graph *
shard_ok(sym_ctx *ctx, const char *text)
{
	sym_graph *g;

	if (shard(ctx, text, &g) != 0 || sym_graph_n_errors(g)) {
		print_diags(g);
		fail_msg("sharding failed");
	}
	return g;
}

/* Return the node of "g" that produces "name". */
static sym_node *
node(const sym_graph *g, const char *name)
{
	sym_value *v = sym_graph_find_value(g, name);

	if (!v || !sym_value_producer(v))
		fail_msg("no node produces %s", name);
	return sym_value_producer(v);
}

/* Assert that "l" prints as "want". */
static void
assert_layout(const sym_layout *l, const char *want)
{
	char *s = sym_layout_to_str(l);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

/* Assert that the device matrix of the node producing "name" prints as
 * "want". */
static void
assert_mesh(const sym_graph *g, const char *name, const char *want)
{
	char *s = sym_mesh_to_str(sym_node_mesh(node(g, name)));

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

/* Assert that node "name" of "g" needs the layouts "ins" (NULL-ended)
 * and produces "out" (partial sums included). */
static void
assert_node(const sym_graph *g, const char *name, const char *const *ins,
    const char *out)
{
	sym_node *n = node(g, name);
	size_t i;

	for (i = 0; ins[i]; i++)
		assert_layout(sym_node_input_layout(n, i), ins[i]);
	assert_int_equal(i, sym_node_n_inputs(n));
	assert_layout(sym_node_output_layout(n, 0), out);
}

/* Return the communication of "g" for value "value" and the consumer
 * producing "consumer" (NULL: the resolution of partial sums), or NULL.
 */
static const sym_reshard *
find_comm(const sym_graph *g, const char *value, const char *consumer)
{
	for (size_t i = 0; i < sym_graph_n_reshards(g); i++) {
		const sym_reshard *c = sym_graph_reshard(g, i);

		if (strcmp(sym_value_name(c->value), value) != 0)
			continue;
		if (!consumer && !c->consumer)
			return c;
		if (consumer && c->consumer &&
		    strcmp(sym_value_name(sym_node_output(c->consumer, 0)),
		        consumer) == 0)
			return c;
	}
	return NULL;
}

/* Assert that the plan of "c" has the steps "want", written as "kind(axis
 * axis) kind(axis)" in order. */
static void
assert_steps(const sym_reshard *c, const char *want)
{
	char buf[512] = "";

	assert_non_null(c);
	for (size_t i = 0; i < sym_redist_n_steps(c->plan); i++) {
		int axes[SYM_MESH_MAX_AXES];
		size_t n =
		    sym_redist_step_axes(c->plan, i, SYM_MESH_MAX_AXES, axes);
		const sym_mesh *m =
		    sym_layout_mesh(sym_redist_step_layout(c->plan, i));

		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s(",
		    i ? " " : "",
		    sym_redist_kind_name(sym_redist_step_kind(c->plan, i)));
		for (size_t k = 0; k < n; k++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "%s%s", k ? " " : "",
			    sym_mesh_axis_name(m, (size_t)axes[k]));
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ")");
	}
	assert_string_equal(buf, want);
}

/* Assert that step "i" of the plan of "c" communicates "want" bytes (as
 * an expression). */
static void
assert_bytes(const sym_reshard *c, size_t i, const char *want)
{
	char *s = sym_expr_to_str(sym_redist_step_bytes(c->plan, i));

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

/* Return the first diagnostic of "g" of severity "sev" whose message
 * contains "part", or NULL. */
static const sym_diagnostic *
find_diag(const sym_graph *g, sym_severity sev, const char *part)
{
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++) {
		const sym_diagnostic *d = sym_graph_diagnostic(g, i);

		if (d->severity == sev && strstr(d->message, part))
			return d;
	}
	return NULL;
}

/* Return the first error of "g". */
static const sym_diagnostic *
first_error(const sym_graph *g)
{
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++)
		if (sym_graph_diagnostic(g, i)->severity == SYM_SEV_ERROR)
			return sym_graph_diagnostic(g, i);
	fail_msg("no error");
	return NULL;
}

/* Assert that the strategy source of node "name" of "g" is "want". */
static void
assert_source(const sym_graph *g, const char *name, const char *want)
{
	const char *s = sym_node_strategy_source(node(g, name));

	assert_non_null(s);
	assert_string_equal(s, want);
}

/* Assert that the strategy of node "name" of "g" prints as "want". */
static void
assert_strategy(const sym_graph *g, const char *name, const char *want)
{
	char *s = sym_node_strategy_to_str(node(g, name));

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

/* The seed network: device matrices of the tuple strategies (with the
 * repeat axis of a1), layouts, partial sums resolved by all_reduce, the
 * redistributions between the strategies, defaults, and inputs loaded in
 * the layout of their first consumer. */
static void
test_seed(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_ok(ctx, ffn);
	const sym_reshard *c;

	(void)state;
	assert_mesh(g, "h1", "(m=2, k=4, n=1)");
	assert_node(g, "h1", (const char *const[]){ "(m, k)", "(k, n)", NULL },
	    "(m, n) partial(k)");
	assert_layout(sym_value_layout(sym_graph_find_value(g, "h1")),
	    "(m, n)");
	assert_source(g, "h1", "shard clause");
	assert_strategy(g, "h1", "((2, 4), (4, 1))");
	assert_mesh(g, "a1", "(d0=4, d1=1, rep=2)");
	assert_node(g, "a1", (const char *const[]){ "(d0, d1)", NULL },
	    "(d0, d1)");
	assert_mesh(g, "h2", "(m=1, k=8, n=1)");
	assert_node(g, "h2", (const char *const[]){ "(m, k)", "(k, n)", NULL },
	    "(m, n) partial(k)");
	assert_mesh(g, "a2", "(d0=8, d1=1)");

	/* partial sums over the 4-way and the 8-way contracted axes */
	c = find_comm(g, "h1", NULL);
	assert_steps(c, "all_reduce(k)");
	assert_bytes(c, 0, "1024*b");
	assert_string_equal(c->reason,
	    "h1: partial sums over k resolved by all_reduce");
	c = find_comm(g, "h2", NULL);
	assert_steps(c, "all_reduce(k)");
	assert_bytes(c, 0, "2048*b");
	assert_null(c->consumer);

	/* the redistributions between the strategies */
	c = find_comm(g, "x2", "h1");
	assert_non_null(c);
	assert_int_equal(c->input, 0);
	assert_steps(c, "all_to_all(k)");
	assert_string_equal(c->reason,
	    "x2 -> h1: (d0, None) over (d0=8, d1=1, d2=1, d3=1) to (m, k) "
	    "over (m=2, k=4, n=1)");
	assert_non_null(find_comm(g, "h1", "a1"));
	assert_non_null(find_comm(g, "a1", "h2"));
	assert_non_null(find_comm(g, "h2", "a2"));
	assert_null(find_comm(g, "a2", "logits"));
	assert_null(find_comm(g, "logits", "loss"));
	assert_steps(find_comm(g, "loss", NULL), "all_reduce(batch)");
	assert_int_equal(sym_graph_n_reshards(g), 7);

	/* defaults: the leading dimension across the 8 devices */
	assert_source(g, "x2",
	    "default: dimension 0 of x split across 8 "
	    "devices");
	assert_strategy(g, "x2", "((8, 1, 1, 1),)");
	assert_source(g, "logits",
	    "default: dimension 0 of a2 split across "
	    "8 devices");
	assert_mesh(g, "logits", "(m=8, k=1, n=1)");
	assert_node(g, "loss",
	    (const char *const[]){ "(batch, class)", "(batch)", NULL },
	    "() partial(batch)");

	/* inputs and parameters as their first consumer needs them */
	assert_layout(sym_value_layout(sym_graph_find_value(g, "x")),
	    "(d0, d1, d2, d3)");
	assert_layout(sym_value_layout(sym_graph_find_value(g, "w1")),
	    "(k, n)");
	assert_layout(sym_value_layout(sym_graph_find_value(g, "y")),
	    "(batch)");
	assert_int_equal(sym_graph_n_guards(g), 0);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The seed network with b only a multiple of 4: the default of x2 falls
 * back to a 4-way split that always divides b, the 8-way split of the
 * batch written by the user for a2 is refuted with the witness b = 4,
 * named by value and dimension, with a hint; the 2- and 4-way ones of h1
 * and a1 hold. */
static void
test_seed_divisor_4(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	char *text = strdup(ffn);
	const sym_diagnostic *d;
	sym_graph *g;

	(void)state;
	assert_non_null(text);
	memcpy(strstr(text, "divisor=8"), "divisor=4", 9);
	assert_int_equal(shard(ctx, text, &g), -1);
	assert_null(find_diag(g, SYM_SEV_ERROR, "reshape x2:"));
	assert_string_equal(sym_node_strategy_source(sym_value_producer(
	                        sym_graph_find_value(g, "x2"))),
	    "default: dimension 0 of x split 4 ways and repeated 2 times "
	    "(across 8 devices it is not always divisible)");
	d = first_error(g);
	assert_string_equal(d->message,
	    "relu a2: b = 4 makes dimension 0 of h2 (size b) not divisible "
	    "by 8 (axis d0)");
	assert_string_equal(d->witness, "b = 4");
	assert_string_equal(d->hint, "declare b with divisor=8");
	d = find_diag(g, SYM_SEV_ERROR, "relu a2:");
	assert_non_null(d);
	assert_string_equal(d->message,
	    "relu a2: b = 4 makes dimension 0 of h2 (size b) not divisible "
	    "by 8 (axis d0)");
	assert_null(find_diag(g, SYM_SEV_ERROR, "matmul h1:"));
	assert_null(find_diag(g, SYM_SEV_ERROR, "relu a1:"));
	assert_int_equal(sym_graph_n_errors(g), 2);
	sym_graph_free(g);
	free(text);
	tl_ctx_free(ctx);
}

/* The layout example (HACKING.md section 8): a ReduceScatter along dimension 0
 * in the order (mp, sp, dp); as written (2 rows) its output cannot be cut
 * in 8, with 8 rows it is valid; any other output layout is an error
 * naming both accepted ones. */
static void
test_layout_example(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	char *text = strdup(layout_design), *p;
	const sym_diagnostic *d;
	const sym_reshard *c;
	sym_graph *g;

	(void)state;
	assert_non_null(text);
	assert_int_equal(shard(ctx, layout_design, &g), -1);
	assert_int_equal(sym_graph_n_errors(g), 1);
	assert_null(find_diag(g, SYM_SEV_ERROR, "neither"));
	assert_string_equal(first_error(g)->message,
	    "matmul y: dimension 0 of y (size 2) is not divisible by 8 (axes "
	    "mp, sp, dp)");
	sym_graph_free(g);

	memcpy(strstr(text, "f32[2, 4]"), "f32[8, 4]", 9);
	g = shard_ok(ctx, text);
	assert_mesh(g, "y", "(dp=2, sp=2, mp=2)");
	assert_node(g, "y",
	    (const char *const[]){ "(mp, (sp, dp))", "((sp, dp), None)", NULL },
	    "(mp, None) partial(dp, sp)");
	assert_layout(sym_value_layout(sym_graph_find_value(g, "y")),
	    "((mp, sp, dp), None)");
	c = find_comm(g, "y", NULL);
	assert_steps(c, "reduce_scatter(sp) reduce_scatter(dp)");
	assert_string_equal(c->reason,
	    "y: partial sums over sp, dp resolved by reduce_scatter along "
	    "dimension 0");
	sym_graph_free(g);

	/* the inferred layout: an all_reduce */
	p = strstr(text, "-> (m((mp, sp, dp), None),)");
	memcpy(p, "-> (m(mp, None),)          ", 27);
	g = shard_ok(ctx, text);
	assert_layout(sym_value_layout(sym_graph_find_value(g, "y")),
	    "(mp, None)");
	assert_steps(find_comm(g, "y", NULL), "all_reduce(dp sp)");
	sym_graph_free(g);

	/* neither */
	memcpy(p, "-> (m((sp, dp, mp), None),)", 27);
	assert_int_equal(shard(ctx, text, &g), -1);
	d = first_error(g);
	assert_string_equal(d->message,
	    "matmul y: the output strategy m((sp, dp, mp), None) of y is "
	    "neither m(mp, None) (partial sums resolved by all_reduce) nor "
	    "m((mp, sp, dp), None) (reduce_scatter along dimension 0)");
	assert_int_equal(d->loc.line, 5);
	assert_int_equal(d->loc.col, 65);
	sym_graph_free(g);
	free(text);
	tl_ctx_free(ctx);
}

/* Output strategies in tuple form: ((a, c),) is the all_reduce, ((a*b,
 * c),) the reduce_scatter along dimension 0 (blocks ordered m then k),
 * anything else an error naming both; an operator without partial sums
 * accepts only its own output layout. */
static void
test_out_tuple(void **state)
{
	static const char head[] = "devices 8\n"
	                           "symbol b divisor=8\n"
	                           "input x : f32[b, 16]\n"
	                           "input w : f32[16, 32]\n";
	sym_ctx *ctx = tl_ctx_new();
	char text[512];
	sym_graph *g;

	(void)state;
	snprintf(text, sizeof(text),
	    "%sy = matmul(x, w) shard ((2, 4), (4, 1)) -> ((2, 1),)\n", head);
	g = shard_ok(ctx, text);
	assert_layout(sym_value_layout(sym_graph_find_value(g, "y")), "(m, n)");
	assert_steps(find_comm(g, "y", NULL), "all_reduce(k)");
	assert_strategy(g, "y", "((2, 4), (4, 1)) -> ((2, 1),)");
	sym_graph_free(g);
	tl_ctx_free(ctx);
	ctx = tl_ctx_new();

	snprintf(text, sizeof(text),
	    "%sy = matmul(x, w) shard ((2, 4), (4, 1)) -> ((8, 1),)\n", head);
	g = shard_ok(ctx, text);
	assert_layout(sym_value_layout(sym_graph_find_value(g, "y")),
	    "((m, k), n)");
	assert_layout(sym_node_output_layout(node(g, "y"), 0),
	    "(m, n) partial(k)");
	assert_steps(find_comm(g, "y", NULL), "reduce_scatter(k)");
	sym_graph_free(g);
	tl_ctx_free(ctx);
	ctx = tl_ctx_new();

	snprintf(text, sizeof(text),
	    "%sy = matmul(x, w) shard ((2, 4), (4, 1)) -> ((4, 1),)\n", head);
	assert_int_equal(shard(ctx, text, &g), -1);
	assert_string_equal(first_error(g)->message,
	    "matmul y: the output strategy (4, 1) of y is neither (2, 1) "
	    "(partial sums resolved by all_reduce) nor (8, 1) (reduce_scatter "
	    "along dimension 0)");
	sym_graph_free(g);
	tl_ctx_free(ctx);
	ctx = tl_ctx_new();

	snprintf(text, sizeof(text),
	    "%sy = relu(x) shard ((4, 1),) -> ((2, 1),)\n", head);
	assert_int_equal(shard(ctx, text, &g), -1);
	assert_string_equal(first_error(g)->message,
	    "relu y: the output strategy (2, 1) of y must be (4, 1), the "
	    "layout relu produces");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A strategy using fewer devices than there are gets a repeat axis as
 * its last (fastest) axis: ((2, 2), (2, 1)) on 8 devices is (2, 2, 1,
 * 2), and every tensor is replicated over it. */
static void
test_repeat_axis(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g;

	(void)state;
	g = shard_ok(ctx,
	    "devices 8\n"
	    "input x : f32[16, 16]\n"
	    "input w : f32[16, 16]\n"
	    "y = matmul(x, w) shard ((2, 2), (2, 1))\n"
	    "z = relu(y) shard ((4, 1),)\n"
	    "s = relu(z) shard ((8, 1),)\n");
	assert_mesh(g, "y", "(m=2, k=2, n=1, rep=2)");
	assert_node(g, "y", (const char *const[]){ "(m, k)", "(k, n)", NULL },
	    "(m, n) partial(k)");
	assert_int_equal(sym_mesh_n_devices(sym_node_mesh(node(g, "y"))), 8);
	assert_mesh(g, "z", "(d0=4, d1=1, rep=2)");
	assert_mesh(g, "s", "(d0=8, d1=1)");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* An invalid strategy: the text, where its first error is and a part of
 * its message. */
struct bad {
	const char *text;
	int line, col;
	const char *part;
};

/* Every structural error of a strategy, with its location. */
static void
test_structural_errors(void **state)
{
#define XW "devices 8\ninput x : f32[8, 16]\ninput w : f32[16, 32]\n"
#define M "devices 8\nmesh m = (dp=2, sp=2, mp=2)\ninput x : f32[8, 16]\n"
	static const struct bad bad[] = {
		{ XW "y = matmul(x, w) shard ((2, 4),)\n", 4, 24,
		    "matmul y: the strategy has 1 tensor strategy, but matmul "
		    "has 2 inputs" },
		{ XW "y = matmul(x, w) shard ((2, 4, 1), (4, 1))\n", 4, 25,
		    "matmul y: the strategy (2, 4, 1) of x has 3 split counts, "
		    "but x has rank 2" },
		{ XW "y = matmul(x, w) shard ((0, 4), (4, 1))\n", 4, 25,
		    "matmul y: the split count 0 of dimension 0 of x must be at "
		    "least 1" },
		{ XW "y = relu(x) shard ((3, 1),)\n", 4, 19,
		    "relu y: the device matrix (3, 1) uses 3 devices, which "
		    "does not divide the 8 devices" },
		{ XW "y = relu(x) shard ((16, 1),)\n", 4, 19,
		    "relu y: the device matrix (16, 1) needs 16 devices, but "
		    "there are only 8" },
		{ "devices 8\nmesh q = (a=2, b=2)\ninput x : f32[8, 16]\n"
		  "y = relu(x) shard (q(a, b),)\n",
		    4, 20,
		    "relu y: mesh q = (a=2, b=2) has 4 devices, but the graph "
		    "has 8" },
		{ M "y = relu(x) shard (m(dp, dp),)\n", 4, 26,
		    "relu y: axis dp is used twice in the layout of x "
		    "(dimensions 0 and 1)" },
		{ M "y = relu(x) shard (m((dp, dp), None),)\n", 4, 22,
		    "relu y: axis dp is used twice in the layout of x (twice in "
		    "dimension 0)" },
		{ M "y = relu(x) shard (z(dp, None),)\n", 4, 20,
		    "relu y: unknown mesh 'z'" },
		{ M "y = relu(x) shard (m(zz, None),)\n", 4, 22,
		    "relu y: mesh m has no axis 'zz' (its axes are dp, sp, mp)" },
		{ M "input w : f32[16, 32]\n"
		    "y = matmul(x, w) shard (m(dp, None), (1, 1))\n",
		    5, 38, "a strategy cannot mix the two forms" },
		{ XW "y = matmul(x, w) shard ((2, 4), m(dp, None))\n", 4, 33,
		    "a strategy cannot mix the two forms" },
		{ M "mesh q = (a=8)\ninput w : f32[16, 32]\n"
		    "y = matmul(x, w) shard (m(dp, None), q(None, a))\n",
		    6, 38, "all layouts of a strategy use one mesh" },
		{ XW "y = matmul(x, w) shard ((2, 4), (2, 1))\n", 4, 33,
		    "matmul y: the contracted dimension is split 4 ways in x "
		    "(dimension 1) but 2 ways in w (dimension 0): they must be "
		    "equal" },
		{ M "input w : f32[16, 32]\n"
		    "y = matmul(x, w) shard (m(None, dp), m(sp, None))\n",
		    5, 40,
		    "matmul y: the contracted dimension is split by dp in x "
		    "(dimension 1) but by sp in w (dimension 0)" },
		{ M "input w : f32[16, 32]\n"
		    "y = matmul(x, w) shard (m(dp, None), m(None, dp))\n",
		    5, 46,
		    "matmul y: axis dp splits both M (dimension 0 of x) and N "
		    "(dimension 1 of w)" },
		{ "devices 8\ninput x : f32[8, 16]\ninput w : f32[32, 16]\n"
		  "y = matmul(x, w, transpose_b=true) shard ((2, 4), (4, "
		  "1))\n",
		    4, 51,
		    "the contracted dimension is split 4 ways in x (dimension 1) "
		    "but 1 way in w (dimension 1)" },
		{ XW "y = matmul(x, w) shard ((2, 4), (4, 1)) -> ((2, 1), (2, "
		     "1))\n",
		    4, 45,
		    "matmul y: the output strategy has 2 tensor strategies, but "
		    "matmul has 1 output" },
		{ XW "y = softmax(x) shard ((1, 8),)\n", 4, 23,
		    "softmax y: dimension 1 of x is split by d1 (8 ways), but it "
		    "is a softmax axis, which must not be split" },
		{ XW "y = concat(x, x, axis=1) shard ((1, 2), (1, 2))\n", 4, 33,
		    "concat y: dimension 1 of x is split by d1 (2 ways), but it "
		    "is the concatenated dimension, which must not be split" },
		{ XW "z = relu(x)\ny = add(x, z) shard ((2, 1), (4, 1))\n", 5,
		    30,
		    "add y: dimension 0 of z is split 4 ways, but the matching "
		    "dimension 0 of x 2 ways: the operands of add must be "
		    "split alike" },
		{ XW "input z : f32[1, 16]\ny = add(x, z) shard ((2, 1), (2, "
		     "1))\n",
		    5, 30, "add y: dimension 0 of z cannot be split" },
		{ XW "y = reduce_max(x, axis=1) shard ((1, 8),)\n", 4, 34,
		    "reduce_max y: dimension 1 of x is split by d1 (8 ways), but "
		    "reduce_max reduces it" },
		{ XW "y = reduce_prod(x, axis=0) shard ((2, 4),)\n", 4, 35,
		    "reduce_prod y: dimension 0 of x is split by d0 (2 ways), "
		    "but reduce_prod reduces it" },
		{ XW "y = argmin(x, axis=1) shard ((1, 8),)\n", 4, 30,
		    "argmin y: dimension 1 of x is split by d1 (8 ways), but "
		    "argmin takes the index along it" },
		{ XW "y = cumsum(x, axis=1) shard ((2, 4),)\n", 4, 30,
		    "cumsum y: dimension 1 of x is split by d1 (4 ways), but "
		    "cumsum sums along it" },
		{ XW "y = tile(x, [2, 1]) shard ((8, 1),)\n", 4, 28,
		    "tile y: dimension 0 of x is split by d0 (8 ways), but tile "
		    "repeats it" },
		{ XW "y = pad(x, [0, 0, 1, 0]) shard ((2, 4),)\n", 4, 33,
		    "pad y: dimension 1 of x is split by d1 (4 ways), but pad "
		    "pads or crops it" },
		{ XW "input g : f32[16]\ninput bt : f32[16]\n"
		     "y = layer_norm(x, g, bt) shard ((1, 8), (8,), (8,))\n",
		    6, 33,
		    "it is normalised by layer_norm, so it must not be" },
		{ "devices 8\nmesh m = (a=2, b=4)\ninput t : f32[96, 16]\n"
		  "input i : i32[8]\n"
		  "y = embedding(i, t) shard (m(b), m(b, None))\n",
		    5, 27,
		    "embedding y: axis b would both split dimension 0 of the "
		    "output and hold partial sums of it" },
		{ "devices 8\ninput x : f32[8, 4, 16, 16]\n"
		  "input w : f32[8, 4, 3, 3]\n"
		  "y = conv2d(x, w) shard ((1, 1, 2, 1), (1, 1, 1, 1))\n",
		    4, 25,
		    "it is a spatial dimension, which must not be split" },
		{ "devices 8\ninput x : f32[8, 4, 16, 16]\n"
		  "input w : f32[8, 2, 3, 3]\n"
		  "y = conv2d(x, w, group=2) shard ((1, 2, 1, 1), (1, 2, 1, "
		  "1))\n",
		    4, 34, "conv2d has group > 1, so its input channel" },
		{ "devices 8\ninput x : f32[8, 4, 16, 16]\n"
		  "y = max_pool2d(x, kernel=3, stride=2, pad=1) shard ((1, 1, "
		  "2, 1),)\n",
		    3, 53,
		    "max_pool2d y: dimension 2 of x (the height) is split by h, "
		    "but the windows of max_pool2d overlap or are padded along "
		    "it (kernel 3, stride 2, dilation 1, pad 1, 1): a block "
		    "would need a halo" },
		{ "devices 8\ninput x : f32[8, 4, 18, 16]\n"
		  "y = avg_pool2d(x, kernel=2) shard ((1, 1, 2, 1),)\n",
		    3, 36,
		    "avg_pool2d y: dimension 2 of x (the height) is split 2 ways, "
		    "but its size is not provably divisible by 4 (the split "
		    "times the kernel 2)" },
		{ "devices 8\ninput x : f32[8, 4, 16, 16]\n"
		  "input d : f32[8, 4, 1, 1]\n"
		  "y = global_avg_pool_grad(d, x) shard ((1, 1, 2, 1), (1, 1, 2, "
		  "1))\n",
		    4, 39, "dimension 2 of d cannot be split" },
		{ "devices 8\ninput t : f32[2, 1, 1, 1, 1, 1, 1, 1]\n"
		  "input i : i32[2, 1, 1, 1, 1, 1, 1, 1]\n"
		  "y = gather(t, i) shard ((2, 1, 1, 1, 1, 1, 1, 1), (1, 1, 1, "
		  "1, 1, 1, 1, 1))\n",
		    4, 24,
		    "gather y: gather of tensors of 8 and 8 dimensions needs "
		    "more device-matrix axes than supported" },
		{ "devices 8\ninput t : f32[96, 16]\n"
		  "input i : i32[2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
		  "y = embedding(i, t) shard ((2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
		  "1, 1, 1), (1, 1))\n",
		    4, 27,
		    "embedding y: embedding of tensors of 2 and 14 dimensions "
		    "needs more device-matrix axes than supported" },
	};
	sym_ctx *ctx = tl_ctx_new();
	int wrong = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const sym_diagnostic *d;
		sym_graph *g;

		if (shard(ctx, bad[i].text, &g) != -1)
			fail_msg("no error for:\n%s", bad[i].text);
		d = first_error(g);
		if (!strstr(d->message, bad[i].part) ||
		    d->loc.line != bad[i].line || d->loc.col != bad[i].col) {
			print_message("for:\n%sexpected %d:%d: ...%s...\ngot "
			              "%d:%d: %s\n",
			    bad[i].text, bad[i].line, bad[i].col, bad[i].part,
			    d->loc.line, d->loc.col, d->message);
			wrong++;
		}
		assert_non_null(d->loc.file);
		assert_string_equal(d->loc.file, "t.sg");
		assert_null(sym_node_mesh(node(g, "y")));
		sym_graph_free(g);
	}
	assert_int_equal(wrong, 0);
	tl_ctx_free(ctx);
#undef XW
#undef M
}

/* MindSpore's power-of-two rule applies only when asked for. */
static void
test_power_of_two(void **state)
{
	static const char text[] = "devices 12\n"
	                           "mesh m = (a=3, b=4)\n"
	                           "input x : f32[12, 12]\n"
	                           "y = relu(x) shard ((6, 2),)\n"
	                           "z = relu(y) shard (m(a, b),)\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g;

	(void)state;
	g = shard_ok(ctx, text);
	assert_int_equal(sym_graph_set_shard_option(g,
	                     SYM_SHARD_OPT_POWER_OF_TWO, 1),
	    0);
	assert_int_equal(sym_graph_shard(g, NULL), -1);
	assert_string_equal(first_error(g)->message,
	    "relu y: the split count 6 of dimension 0 of x is not a power of "
	    "2 (MindSpore's rule, asked for with SYM_SHARD_OPT_POWER_OF_TWO)");
	assert_non_null(find_diag(g, SYM_SEV_ERROR,
	    "relu z: axis a of mesh m has size 3, not a power of 2"));
	assert_int_equal(sym_graph_n_errors(g), 2);
	assert_int_equal(sym_graph_set_shard_option(g,
	                     SYM_SHARD_OPT_POWER_OF_TWO, 0),
	    0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_int_equal(sym_graph_n_errors(g), 0);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A dynamic dimension split by several axes is proved divisible when its
 * divisor allows (b divisor=8 by (sp, dp) = 4) and refuted with a witness
 * and a hint when it does not (divisor=2). */
static void
test_multi_axis_dynamic(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "mesh m = (dp=2, sp=2, mp=2)\n"
	    "symbol b divisor=8\n"
	    "input x : f32[b, 16]\n"
	    "param w : f32[16, 16]\n"
	    "y = matmul(x, w) shard (m((sp, dp), None), m(None, mp))\n"
	    "output y\n";
	sym_ctx *ctx = tl_ctx_new();
	char *t = strdup(text);
	const sym_diagnostic *d;
	sym_graph *g;

	(void)state;
	assert_non_null(t);
	g = shard_ok(ctx, text);
	assert_node(g, "y",
	    (const char *const[]){ "((sp, dp), None)", "(None, mp)", NULL },
	    "((sp, dp), mp)");
	assert_int_equal(sym_graph_n_guards(g), 0);
	assert_int_equal(sym_graph_n_reshards(g), 0);
	sym_graph_free(g);
	tl_ctx_free(ctx);
	ctx = tl_ctx_new();

	memcpy(strstr(t, "divisor=8"), "divisor=2", 9);
	assert_int_equal(shard(ctx, t, &g), -1);
	d = first_error(g);
	assert_string_equal(d->message,
	    "matmul y: b = 2 makes dimension 0 of x (size b) not divisible "
	    "by 4 (axes sp, dp)");
	assert_string_equal(d->witness, "b = 2");
	assert_string_equal(d->hint, "declare b with divisor=4");
	assert_int_equal(d->loc.line, 6);
	sym_graph_free(g);
	free(t);
	tl_ctx_free(ctx);
}

/* A split the prover cannot decide becomes a run-time guard and a
 * warning, not an error. */
static void
test_guard(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	const sym_guard *gd;
	sym_graph *g;

	(void)state;
	g = shard_ok(ctx,
	    "devices 2\n"
	    "symbol n unique\n"
	    "input x : f32[n*n + n, 8]\n"
	    "y = relu(x) shard ((2, 1),)\n");
	assert_int_equal(sym_graph_n_guards(g), 1);
	gd = sym_graph_guard(g, 0);
	assert_string_equal(gd->text, "(n + n*n) mod 2 == 0");
	assert_string_equal(gd->reason,
	    "dimension 0 of x split 2 ways (axis d0)");
	assert_string_equal(find_diag(g, SYM_SEV_WARNING, "relu y:")->message,
	    "relu y: dimension 0 of x (size n + n*n) could not be proved "
	    "divisible by 2 (axis d0); checked at run time");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Nodes without a strategy: the default splits the leading dimension;
 * propagation keeps a producer's layout when that communicates less, and
 * the source says why at which sizes; without propagation the default
 * stays; a default the rule rejects falls back to replication. */
static void
test_default_and_propagation(void **state)
{
	static const char tp[] = "devices 8\n"
	                         "symbol b min=8 divisor=8\n"
	                         "input  x  : f32[b, 1024]\n"
	                         "param  w1 : f32[1024, 4096]\n"
	                         "param  w2 : f32[4096, 1024]\n"
	                         "h = matmul(x, w1) shard ((1, 1), (1, 8))\n"
	                         "a = gelu(h)\n"
	                         "y = matmul(a, w2) shard ((1, 8), (8, 1))\n"
	                         "output y\n";
	sym_ctx *ctx = tl_ctx_new();
	const char *src;
	sym_graph *g;

	(void)state;
	g = shard_ok(ctx, tp);
	src = sym_node_strategy_source(node(g, "a"));
	assert_non_null(src);
	if (strncmp(src,
	        "propagated from h: no communication (default would "
	        "need ",
	        56) != 0 ||
	    !strstr(src, "bytes at the least sizes b = 8)"))
		fail_msg("unexpected source: %s", src);
	assert_strategy(g, "a", "((1, 8),)");
	assert_mesh(g, "a", "(m=1, k=1, n=8)");
	assert_int_equal(sym_graph_n_reshards(g), 1);
	assert_steps(find_comm(g, "y", NULL), "all_reduce(k)");

	assert_int_equal(sym_graph_set_shard_option(g, SYM_SHARD_OPT_PROPAGATE,
	                     0),
	    0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_source(g, "a",
	    "default: dimension 0 of h split across 8 "
	    "devices");
	assert_mesh(g, "a", "(d0=8, d1=1)");
	assert_non_null(find_comm(g, "h", "a"));
	assert_non_null(find_comm(g, "a", "y"));
	sym_graph_free(g);

	g = shard_ok(ctx,
	    "devices 4\n"
	    "input x : f32[16]\n"
	    "s = softmax(x, axis=0)\n"
	    "t = reduce_sum(x)\n"
	    "u = relu(t)\n");
	assert_source(g, "s",
	    "default: replicated (dimension 0 of x cannot be split: dimension "
	    "0 of x is split by d0 (4 ways), but it is a softmax axis, which "
	    "must not be split)");
	assert_layout(sym_node_input_layout(node(g, "s"), 0), "(d0)");
	assert_mesh(g, "s", "(d0=1, rep=4)");
	src = sym_node_strategy_source(node(g, "t"));
	assert_non_null(src);
	if (strncmp(src,
	        "propagated from x: no communication (default would "
	        "need ",
	        56) != 0 ||
	    !strstr(src, "all_reduce over d0"))
		fail_msg("unexpected source: %s", src);
	assert_source(g, "u", "default: replicated (t is a scalar)");
	assert_mesh(g, "u", "(rep=4)");
	assert_null(find_comm(g, "t", NULL));
	sym_graph_free(g);

	g = shard_ok(ctx,
	    "devices 4\n"
	    "input x : f32[16]\n"
	    "t = reduce_sum(x)\n");
	assert_source(g, "t",
	    "default: dimension 0 of x split across 4 "
	    "devices");
	assert_layout(sym_node_output_layout(node(g, "t"), 0),
	    "() partial(d0)");
	assert_steps(find_comm(g, "t", NULL), "all_reduce(d0)");
	assert_bytes(find_comm(g, "t", NULL), 0, "4");
	sym_graph_free(g);

	g = shard_ok(ctx, "input x : f32[4, 4]\ny = relu(x)\n");
	assert_source(g, "y", "default: one device");
	assert_mesh(g, "y", "(d0=1, d1=1)");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Every operator of the registry has a sharding rule: a graph using all
 * of them shards with the defaults on 4 devices. */
static void
test_every_operator(void **state)
{
	static const char text[] =
	    "devices 4\n"
	    "symbol b divisor=4\n"
	    "input x : f32[b, 16]\n"
	    "input z : f32[b, 16]\n"
	    "input bias : f32[16]\n"
	    "input ids : i32[b]\n"
	    "input tab : f32[100, 16]\n"
	    "input img : f32[b, 3, 8, 8]\n"
	    "input ker : f32[4, 3, 3, 3]\n"
	    "input g : f32[16]\n"
	    "input bt : f32[16]\n"
	    "input x3 : f32[b, 4, 16]\n"
	    "input w3 : f32[b, 16, 4]\n"
	    "input w : f32[16, 16]\n"
	    "input dl : f32[]\n"
	    "input c3 : f32[3]\n"
	    "param bg : f32[3]\n"
	    "state bm : f32[3]\n"
	    "state bv : f32[3]\n"
	    "e1 = relu(x)\n"
	    "e2 = gelu(e1)\n"
	    "e3 = exp(e2)\n"
	    "e4 = log(e3)\n"
	    "e5 = neg(e4)\n"
	    "e6 = sqrt(e5)\n"
	    "e7 = tanh(e6)\n"
	    "e8 = sigmoid(e7)\n"
	    "e9 = cast(e8, dtype=f32)\n"
	    "e10 = identity(e9)\n"
	    "b1 = add(e10, z)\n"
	    "b2 = sub(b1, z)\n"
	    "b3 = mul(b2, z)\n"
	    "b4 = div(b3, z)\n"
	    "b5 = maximum(b4, z)\n"
	    "b6 = minimum(b5, z)\n"
	    "b7 = bias_add(b6, bias)\n"
	    "m1 = matmul(b7, w)\n"
	    "m2 = batch_matmul(x3, w3)\n"
	    "r1 = reshape(m1, [-1, 4, 4])\n"
	    "r2 = flatten(r1)\n"
	    "t1 = transpose(r2, [1, 0])\n"
	    "t2 = permute(t1, [1, 0])\n"
	    "u1 = expand_dims(t2, axis=1)\n"
	    "u2 = squeeze(u1, axis=1)\n"
	    "c1 = concat(u2, x, axis=1)\n"
	    "s1, s2 = split(c1, axis=1, output_num=2)\n"
	    "sl = slice(s1, begin=[0, 0], size=[-1, 8])\n"
	    "rs = reduce_sum(sl, axis=1)\n"
	    "rm = reduce_mean(s2, axis=[1], keep_dims=true)\n"
	    "rx = reduce_max(x, axis=1)\n"
	    "rn = reduce_min(x, axis=1)\n"
	    "rp = reduce_prod(x, axis=[1], keep_dims=true)\n"
	    "ax = argmax(x, axis=1)\n"
	    "an = argmin(x, axis=-1, dtype=i32)\n"
	    "ex = expand(bias, [b, 16])\n"
	    "ti = tile(x, [1, 2])\n"
	    "pd = pad(x, [0, 0, 2, -1])\n"
	    "tl = tril(x)\n"
	    "tu = triu(x, diagonal=-1)\n"
	    "cs = cumsum(x, axis=1)\n"
	    "ar = arange([b])\n"
	    "rgn = range([1, 33, 2], dtype=f32) shard ((2,))\n"
	    "fu = full([b, 16], value=2.5)\n"
	    "on = ones([b, 16]) shard ((4, 1))\n"
	    "ze = zeros([16], dtype=i32)\n"
	    "sm = softmax(x)\n"
	    "ls = log_softmax(x, axis=-1)\n"
	    "ln = layer_norm(x, g, bt)\n"
	    "bn = batch_norm(img, bg, c3, bm, bv)\n"
	    "bs = batch_norm_stats(img)\n"
	    "bu1, bu2 = batch_norm_update(c3, c3, bs, training=false)\n"
	    "bgg, bgb = batch_norm_grad_params(img, img, bs, c3, c3)\n"
	    "bgx = batch_norm_grad(img, img, bs, c3, c3, bg, bgg, bgb)\n"
	    "ga = gather(tab, ids)\n"
	    "em = embedding(ids, tab)\n"
	    "oh = one_hot(ids, depth=10)\n"
	    "loss = softmax_cross_entropy(x, ids)\n"
	    "cnt = sce_count(ids)\n"
	    "tg = sce_target(x, ids)\n"
	    "se = sce_sumexp(x, ids, tg)\n"
	    "cv = conv2d(img, ker, pad=1)\n"
	    "mx = max_pool2d(img, kernel=2)\n"
	    "ap2 = avg_pool2d(img, kernel=3, stride=2, pad=1)\n"
	    "gap = global_avg_pool(img)\n"
	    "dr = dropout(x, p=0.25)\n"
	    "drg = dropout_grad(x, dr, p=0.25)\n"
	    "fl = fill_like(x, value=2)\n"
	    "rg = relu_grad(x, z)\n"
	    "cq = equal(x, z)\n"
	    "cn = not_equal(x, bias)\n"
	    "cl = less(x, z)\n"
	    "cle = less_equal(x, z)\n"
	    "cg = greater(x, z)\n"
	    "cge = greater_equal(ids, ids)\n"
	    "la = logical_and(cq, cl)\n"
	    "lo = logical_or(la, cn)\n"
	    "lnt = logical_not(lo)\n"
	    "wh = where(lnt, x, bias)\n"
	    "ef = erf(x)\n"
	    "pw = pow(x, bias)\n"
	    "rq = rsqrt(x)\n"
	    "rc = reciprocal(x)\n"
	    "ab = abs(x)\n"
	    "sn = sign(ids)\n"
	    "fo = floor(x)\n"
	    "ce = ceil(x)\n"
	    "cp = clip(x, min=-1, max=1)\n"
	    "si = silu(x)\n"
	    "sp = softplus(x, beta=2)\n"
	    "xg1 = erf_grad(x, z)\n"
	    "xg2 = rsqrt_grad(x, z)\n"
	    "xg3 = reciprocal_grad(x, z)\n"
	    "xg4 = clip_grad(x, z, min=0)\n"
	    "xg5 = silu_grad(x, z)\n"
	    "xg6 = softplus_grad(x, z)\n"
	    "pa, pb = pow_grad(x, x, bias)\n"
	    "st = sum_to(x3, [1, 16])\n"
	    "input stp : i32[]\n"
	    "su = sgd_update(w, w, lr=0.5)\n"
	    "mp, mv = momentum_update(w, w, w, momentum=0.9)\n"
	    "ap, am, av = adam_update(w, w, w, w, stp)\n"
	    "wp, wm, wv = adamw_update(w, w, w, w, stp)\n"
	    "inc = increment(stp)\n"
	    "g1 = gelu_grad(x, z)\n"
	    "g2 = sigmoid_grad(g1, z)\n"
	    "g3 = tanh_grad(g2, z)\n"
	    "g4 = sqrt_grad(g3, z)\n"
	    "sg = sce_grad(x, ids, dl)\n"
	    "rg1 = reduce_sum_grad(rs, sl, axis=1)\n"
	    "rg2 = reduce_mean_grad(rm, s2, axis=[1], keep_dims=true)\n"
	    "rg3 = reduce_max_grad(rx, x, rx, axis=1)\n"
	    "smg = softmax_grad(x, sm)\n"
	    "lsg = log_softmax_grad(x, ls)\n"
	    "lx, lg, lb = layer_norm_grad(x, x, g)\n"
	    "mxa, mxb = maximum_grad(x, x, bias)\n"
	    "mna, mnb = minimum_grad(x, z, x)\n"
	    "cvx = conv2d_input_grad(cv, ker, img, pad=1)\n"
	    "cvw = conv2d_weight_grad(cv, img, ker, pad=1)\n"
	    "mxg = max_pool2d_grad(mx, img, kernel=2)\n"
	    "apg = avg_pool2d_grad(ap2, img, kernel=3, stride=2, pad=1)\n"
	    "gapg = global_avg_pool_grad(gap, img)\n"
	    "gg = gather_grad(ga, ids, tab)\n"
	    "eg = embedding_grad(em, ids, tab)\n"
	    "slg = slice_grad(sl, s1, begin=[0, 0], size=[-1, 8])\n"
	    "rpg = reduce_prod_grad(rp, x, axis=[1], keep_dims=true)\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g;

	(void)state;
	for (size_t i = 0; i < sym_registry_n_ops(); i++) {
		char call[64];

		snprintf(call, sizeof(call), " = %s(",
		    sym_op_name(sym_registry_op(i)));
		if (!strstr(text, call))
			fail_msg("operator %s is not tested",
			    sym_op_name(sym_registry_op(i)));
	}
	g = shard_ok(ctx, text);
	for (size_t i = 0; i < sym_graph_n_nodes(g); i++) {
		sym_node *n = sym_graph_node(g, i);

		assert_non_null(sym_node_mesh(n));
		assert_int_equal(sym_mesh_n_devices(sym_node_mesh(n)), 4);
		assert_non_null(sym_node_strategy_source(n));
		for (size_t k = 0; k < sym_node_n_outputs(n); k++)
			assert_non_null(sym_value_layout(sym_node_output(n,
			    k)));
	}
	assert_source(g, "ga",
	    "default: dimension 0 of ids split across 4 "
	    "devices");
	/* generators: replicated by default, the split of their output
	 * from a clause */
	assert_source(g, "ar",
	    "default: replicated (a generator; its consumers slice their "
	    "blocks locally)");
	assert_layout(sym_node_output_layout(node(g, "ar"), 0), "(d0)");
	assert_int_equal(sym_mesh_axis_size(sym_node_mesh(node(g, "ar")), 0),
	    1);
	assert_layout(sym_node_output_layout(node(g, "on"), 0), "(d0, d1)");
	assert_int_equal(sym_mesh_axis_size(sym_node_mesh(node(g, "on")), 0),
	    4);
	assert_int_equal(sym_mesh_axis_size(sym_node_mesh(node(g, "rgn")), 0),
	    2);
	assert_node(g, "ga",
	    (const char *const[]){ "(None, None)", "(i0)", NULL },
	    "(i0, None)");
	assert_layout(sym_node_output_layout(node(g, "rs"), 0), "(d0)");
	assert_layout(sym_node_output_layout(node(g, "ex"), 0), "(None, d0)");
	assert_layout(sym_node_output_layout(node(g, "tl"), 0), "(d0, d1)");
	assert_layout(sym_node_output_layout(node(g, "cv"), 0),
	    "(n, None, None, None)");
	assert_layout(sym_node_output_layout(node(g, "m2"), 0),
	    "(b0, m, None)");
	assert_layout(sym_node_output_layout(node(g, "bn"), 0),
	    "(d0, d1, d2, d3)");
	assert_layout(sym_node_output_layout(node(g, "bn.stats"), 0),
	    "(None, d1) partial(d0)");
	assert_layout(sym_node_output_layout(node(g, "bgg"), 0),
	    "(d1) partial(d0)");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Reshape keeps the split of a leading dimension that maps unchanged,
 * carries a split through a merge or into the first dimension it
 * provably divides, and otherwise needs its input gathered, in a note. */
static void
test_reshape(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	const sym_diagnostic *d;
	sym_graph *g;

	(void)state;
	g = shard_ok(ctx,
	    "devices 2\n"
	    "symbol b divisor=2\n"
	    "input x : f32[b, 768]\n"
	    "input y : f32[8, 6]\n"
	    "q = reshape(x, [b, 12, 64]) shard ((1, 2),)\n"
	    "r = reshape(y, [48]) shard ((1, 2),)\n"
	    "s = reshape(y, [48]) shard ((2, 1),)\n");
	assert_node(g, "q", (const char *const[]){ "(d0, d1)", NULL },
	    "(d0, d1, None)");
	assert_node(g, "r", (const char *const[]){ "(d0, None)", NULL },
	    "(None)");
	d = find_diag(g, SYM_SEV_NOTE, "reshape r:");
	assert_non_null(d);
	assert_string_equal(d->message,
	    "reshape r: reshape cannot keep the split of dimension 1 of y (by "
	    "d1): it needs y gathered (all_gather) along that dimension "
	    "first");
	assert_node(g, "s", (const char *const[]){ "(d0, d1)", NULL }, "(d0)");
	assert_layout(sym_value_layout(sym_graph_find_value(g, "y")),
	    "(d0, None)");
	assert_steps(find_comm(g, "y", "s"), "slice(d1)");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Sharding twice gives the same result; a graph with errors is refused;
 * bad options and NULL arguments are rejected. */
static void
test_reshard_and_refusal(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	size_t n_diag, n_comm;
	sym_graph *g;

	(void)state;
	g = shard_ok(ctx, ffn);
	n_diag = sym_graph_n_diagnostics(g);
	n_comm = sym_graph_n_reshards(g);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_int_equal(sym_graph_n_diagnostics(g), n_diag);
	assert_int_equal(sym_graph_n_reshards(g), n_comm);
	assert_int_equal(sym_graph_set_shard_option(g, (sym_shard_option)99, 1),
	    -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	sym_ctx_clear_error(ctx);
	sym_graph_free(g);

	g = sym_graph_parse(ctx, "input x : f32[4]\ny = matmul(x, x)\n",
	    "t.sg");
	assert_non_null(g);
	assert_true(sym_graph_n_errors(g) > 0);
	assert_int_equal(sym_graph_shard(g, NULL), -1);
	assert_non_null(find_diag(g, SYM_SEV_ERROR,
	    "cannot shard a graph with errors"));
	assert_null(sym_node_mesh(sym_graph_node(g, 0)));
	sym_graph_free(g);

	assert_int_equal(sym_graph_shard(NULL, NULL), -1);
	assert_null(sym_value_layout(NULL));
	assert_null(sym_node_mesh(NULL));
	assert_null(sym_node_input_layout(NULL, 0));
	assert_null(sym_node_output_layout(NULL, 0));
	assert_null(sym_node_strategy_source(NULL));
	assert_null(sym_node_strategy_to_str(NULL));
	assert_int_equal(sym_graph_n_reshards(NULL), 0);
	assert_null(sym_graph_reshard(NULL, 0));
	assert_null(sym_graph_find_reshard(NULL, NULL, NULL, 0));
	assert_null(sym_reshard_source(NULL));
	assert_null(sym_reshard_target(NULL));
	tl_ctx_free(ctx);
}

/* The examples shard without errors: the seed network is the one tested
 * above, the tensor-parallel MLP propagates the column split and ends in
 * one all_reduce, the layout example ends in a reduce_scatter. */
static void
test_examples(void **state)
{
	static const char *const names[] = { "ffn", "transformer", "tp_mlp",
		"layout" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		sym_ctx *ctx = tl_ctx_new();
		char path[4096], *text;
		sym_graph *g;

		snprintf(path, sizeof(path), "examples/%s.sg", names[i]);
		text = tl_read_source(path, NULL);
		if (i == 0)
			assert_string_equal(text, ffn);
		g = shard_ok(ctx, text);
		if (i == 1)
			assert_int_equal(sym_graph_n_reshards(g), 0);
		if (i == 2) {
			assert_int_equal(
			    strncmp(sym_node_strategy_source(node(g, "a")),
			        "propagated from h: no communication", 35),
			    0);
			assert_int_equal(sym_graph_n_reshards(g), 1);
			assert_steps(find_comm(g, "y", NULL), "all_reduce(k)");
		}
		if (i == 3)
			assert_steps(find_comm(g, "y", NULL),
			    "reduce_scatter(sp) reduce_scatter(dp)");
		sym_graph_free(g);
		free(text);
		tl_ctx_free(ctx);
	}
}

/* Layouts that differ only in their axis names, tensors that differ only
 * in their shapes, and blocks that repeat: the pass plans each distinct
 * redistribution once, so these must not share plans. */
static const char repeats[] = "devices 8\n"
                              "mesh m1 = (dp=8)\n"
                              "mesh m2 = (tp=8)\n"
                              "input x : f32[64, 32]\n"
                              "input y : f32[64, 32]\n"
                              "input z : f32[64, 64]\n"
                              "param w : f32[32, 32]\n"
                              "param v : f32[32, 16]\n"
                              "a = relu(x) shard (m1(dp, None),)\n"
                              "c = relu(a) shard (m1(None, dp),)\n"
                              "d = relu(y) shard (m2(tp, None),)\n"
                              "e = relu(d) shard (m2(None, tp),)\n"
                              "f = relu(z) shard (m1(dp, None),)\n"
                              "h = relu(f) shard (m1(None, dp),)\n"
                              "i = matmul(c, w)\n"
                              "j = matmul(e, w)\n"
                              "k = matmul(i, v) shard ((1, 8), (8, 1))\n"
                              "l = matmul(j, v) shard ((1, 8), (8, 1))\n"
                              "output h\n"
                              "output k\n"
                              "output l\n";

/* Assert that the plan of the communication "c" of "g" is the plan
 * sym_redist_plan makes from scratch for its layouts and shape. */
static void
assert_fresh_plan(const sym_graph *g, const sym_reshard *c)
{
	const sym_layout *from, *to;
	char *got, *want;
	sym_redist *fresh;

	if (c->consumer) {
		from = sym_value_layout(c->value);
		to = sym_node_input_layout(c->consumer, c->input);
	} else {
		from = sym_node_output_layout(sym_value_producer(c->value), 0);
		to = sym_value_layout(c->value);
	}
	fresh = sym_redist_plan(from, to, sym_value_shape(c->value), NULL);
	assert_non_null(fresh);
	got = sym_redist_to_str(c->plan);
	want = sym_redist_to_str(fresh);
	assert_non_null(got);
	assert_non_null(want);
	assert_string_equal(got, want);
	assert_int_equal(sym_redist_n_steps(c->plan),
	    sym_redist_n_steps(fresh));
	for (size_t i = 0; i < sym_redist_n_steps(fresh); i++) {
		size_t gs, fs;

		assert_int_equal(sym_redist_step_groups(c->plan, i, &gs),
		    sym_redist_step_groups(fresh, i, &fs));
		assert_int_equal(gs, fs);
		assert_int_equal(sym_redist_step_group_rank(c->plan, i, 0,
		                     gs - 1),
		    sym_redist_step_group_rank(fresh, i, 0, fs - 1));
	}
	(void)g;
	free(got);
	free(want);
	sym_redist_free(fresh);
}

/* Check that sym_graph_find_reshard finds every communication of "g" by
 * its value, consumer and input, and nothing for an input that needs
 * none; and that each starts from and ends in the layouts its ends have:
 * a redistribution from the value's layout to the one its consumer
 * needs, a resolution from its producer's output layout to the value's. */
static void
assert_found_by_place(const sym_graph *g)
{
	size_t n = sym_graph_n_reshards(g), misses = 0;

	for (size_t i = 0; i < n; i++) {
		const sym_reshard *c = sym_graph_reshard(g, i);
		const sym_node *p = sym_value_producer(c->value);

		assert_ptr_equal(sym_graph_find_reshard(g, c->value,
		                     c->consumer, c->input),
		    c);
		if (c->consumer) {
			assert_ptr_equal(sym_reshard_source(c),
			    sym_value_layout(c->value));
			assert_ptr_equal(sym_reshard_target(c),
			    sym_node_input_layout(c->consumer, c->input));
			continue;
		}
		assert_ptr_equal(sym_reshard_target(c),
		    sym_value_layout(c->value));
		assert_non_null(p);
		for (size_t k = 0; k < sym_node_n_outputs(p); k++)
			if (sym_node_output(p, k) == c->value)
				assert_ptr_equal(sym_reshard_source(c),
				    sym_node_output_layout(p, k));
	}
	for (size_t j = 0; j < sym_graph_n_nodes(g); j++) {
		const sym_node *nd = sym_graph_node(g, j);

		for (size_t k = 0; k < sym_node_n_inputs(nd); k++) {
			const sym_value *v = sym_node_input(nd, k);
			int listed = 0;

			for (size_t i = 0; i < n; i++) {
				const sym_reshard *c = sym_graph_reshard(g, i);

				listed |= c->value == v && c->consumer == nd &&
				    c->input == k;
			}
			if (listed)
				continue;
			assert_null(sym_graph_find_reshard(g, v, nd, k));
			misses++;
		}
		assert_null(sym_graph_find_reshard(g, sym_node_input(nd, 0), nd,
		    sym_node_n_inputs(nd)));
	}
	assert_true(misses > 0);
}

/* Each distinct redistribution is planned once per pass: the plans of
 * the report equal fresh ones, layouts that differ only in axis names or
 * shapes get their own, and sharding twice gives the same report. */
static void
test_planned_once(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_ok(ctx, repeats);
	char *first[64];
	size_t n = sym_graph_n_reshards(g);

	(void)state;
	assert_true(n >= 6 && n <= 64);
	for (size_t i = 0; i < n; i++)
		assert_fresh_plan(g, sym_graph_reshard(g, i));
	assert_found_by_place(g);
	assert_steps(find_comm(g, "a", "c"), "all_to_all(dp)");
	assert_steps(find_comm(g, "d", "e"), "all_to_all(tp)");
	assert_steps(find_comm(g, "f", "h"), "all_to_all(dp)");
	assert_bytes(find_comm(g, "a", "c"), 0, "1024");
	assert_bytes(find_comm(g, "d", "e"), 0, "1024");
	assert_bytes(find_comm(g, "f", "h"), 0, "2048");
	assert_string_equal(find_comm(g, "d", "e")->reason,
	    "d -> e: (tp, None) over (tp=8) to (None, tp) over (tp=8)");
	assert_steps(find_comm(g, "k", NULL), "all_reduce(k)");
	assert_steps(find_comm(g, "l", NULL), "all_reduce(k)");
	assert_source(g, "i",
	    "default: dimension 0 of c split across 8 devices (propagation "
	    "from c would need all_reduce over dp, slice over dp, 8192 "
	    "bytes, the default all_to_all over dp, all_to_all over m, 2048 "
	    "bytes)");
	assert_source(g, "j",
	    "default: dimension 0 of e split across 8 devices (propagation "
	    "from e would need slice over m, all_reduce over tp, slice over "
	    "tp, 8192 bytes, the default all_to_all over tp, all_to_all over "
	    "m, 2048 bytes)");
	for (size_t i = 0; i < n; i++) {
		first[i] = sym_redist_to_str(sym_graph_reshard(g, i)->plan);
		assert_non_null(first[i]);
	}
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_int_equal(sym_graph_n_reshards(g), n);
	for (size_t i = 0; i < n; i++) {
		char *again = sym_redist_to_str(sym_graph_reshard(g, i)->plan);

		assert_non_null(again);
		assert_string_equal(again, first[i]);
		free(again);
		free(first[i]);
	}
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Assert that the last diagnostic of "g" formats as "want". */
static void
assert_last_diag(const sym_graph *g, const char *want)
{
	size_t n = sym_graph_n_diagnostics(g);
	char *s;

	assert_true(n > 0);
	s = sym_diagnostic_format(g, sym_graph_diagnostic(g, n - 1));
	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

/* A graph written for 8 devices, its shard clause over a mesh and a
 * tuple strategy, fails on 1 device until its strategies are dropped;
 * then the operator runs whole and its strategy is the default. */
static void
test_drop_strategy(void **state)
{
	static const char text[] = "devices 8\n"
	                           "mesh m = (dp=2, mp=4)\n"
	                           "input x : f32[16, 32]\n"
	                           "input w : f32[32, 64]\n"
	                           "y = matmul(x, w) shard (m(dp, mp), m(mp, "
	                           "None))\n"
	                           "z = relu(y) shard ((8, 1),)\n"
	                           "output z\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, text, "t.sg");

	(void)state;
	assert_non_null(g);
	assert_int_equal(sym_graph_set_devices(g, 1, NULL), 0);
	assert_int_equal(sym_graph_shard(g, NULL), -1);
	sym_graph_free(g);
	g = sym_graph_parse(ctx, text, "t.sg");
	assert_non_null(g);
	assert_int_equal(sym_graph_set_devices(g, 1, NULL), 0);
	assert_int_equal(sym_node_drop_strategy(g, node(g, "y")), 0);
	assert_int_equal(sym_node_drop_strategy(g, node(g, "z")), 0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_int_equal(sym_graph_n_errors(g), 0);
	assert_string_not_equal(sym_node_strategy_source(node(g, "y")),
	    "shard clause");
	assert_mesh(g, "y", "(m=1, k=1, n=1)");
	assert_int_equal(sym_node_drop_strategy(NULL, node(g, "y")), -1);
	assert_int_equal(sym_node_drop_strategy(g, NULL), -1);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Strategies and meshes given through the API: tuple, layouts over a
 * mesh declared after the strategy, an output strategy, a replaced
 * strategy; errors located where the caller says, without quoting the
 * graph's own source line. */
static void
test_api_strategies(void **state)
{
	static const char text[] = "devices 8\n"
	                           "input x : f32[16, 32]\n"
	                           "input w : f32[32, 64]\n"
	                           "y = matmul(x, w)\n"
	                           "output y\n";
	static const char *const tuple_in[] = { "(m, k)", "(k, n)", NULL };
	static const char *const mesh_in[] = { "(dp, mp)", "(mp, None)", NULL };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, text, "t.sg");
	sym_loc at = { "api.c", 3, 5 };
	sym_node *n;
	char *s;

	(void)state;
	assert_non_null(g);
	n = node(g, "y");
	assert_int_equal(sym_node_set_strategy(g, n, "((2, 4), (4, 1))", NULL),
	    0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_string_equal(sym_node_strategy_source(n), "shard clause");
	assert_mesh(g, "y", "(m=2, k=4, n=1)");
	assert_node(g, "y", tuple_in, "(m, n) partial(k)");
	/* replaced, over a mesh declared afterwards */
	assert_int_equal(sym_node_set_strategy(g, n,
	                     "(z(dp, mp), z(mp, None)) -> (z(dp, None),)",
	                     NULL),
	    0);
	assert_int_equal(sym_graph_add_mesh(g, "z = (dp=2, mp=4)", NULL), 0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_int_equal(sym_graph_n_errors(g), 0);
	s = sym_node_strategy_to_str(n);
	assert_string_equal(s, "(z(dp, mp), z(mp, None)) -> (z(dp, None),)");
	free(s);
	assert_node(g, "y", mesh_in, "(dp, None) partial(mp)");
	/* a split the devices cannot take: found by the pass, located at
	 * the caller's text, whose line is not the graph's line 3 */
	assert_int_equal(sym_node_set_strategy(g, n, "((3, 1), (1, 1))", &at),
	    0);
	assert_int_equal(sym_graph_shard(g, NULL), -1);
	assert_last_diag(g,
	    "api.c:3:5: error: matmul y: the device matrix (3, 1, 1) uses 3 "
	    "devices, which does not divide the 8 devices");
	assert_null(sym_node_strategy_to_str(n));
	/* texts that do not parse; a mesh declared twice */
	assert_int_equal(sym_graph_add_mesh(g, "z = (a=8)", &at), -1);
	assert_last_diag(g, "api.c:3:5: error: mesh 'z' is already declared");
	assert_int_equal(sym_node_set_strategy(g, n, "((2, 4), (4", &at), -1);
	assert_last_diag(g,
	    "api.c:3:16: error: expected ')' to close the tensor strategy "
	    "started at column 14");
	assert_int_equal(sym_graph_add_mesh(g, "q = (a=", &at), -1);
	assert_last_diag(g,
	    "api.c:3:12: error: expected the size of axis 'a' after '='");
	/* the pass's own error stays until the next sharding drops it */
	assert_int_equal(sym_graph_n_errors(g), 4);
	assert_int_equal(sym_graph_shard(g, NULL), -1);
	assert_last_diag(g,
	    "error: cannot shard a graph with errors (3 found before "
	    "sharding)");
	assert_int_equal(sym_node_set_strategy(NULL, n, "((1, 1), (1, 1))",
	                     NULL),
	    -1);
	assert_int_equal(sym_node_set_strategy(g, NULL, "((1, 1), (1, 1))",
	                     NULL),
	    -1);
	assert_int_equal(sym_node_set_strategy(g, n, NULL, NULL), -1);
	assert_int_equal(sym_graph_add_mesh(g, NULL, NULL), -1);
	assert_int_equal(sym_graph_add_mesh(NULL, "m = (a=2)", NULL), -1);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The default strategy of a graph on a huge device count walks the
 * divisors of the count, not every number below it: a prime count
 * (2^61 - 1) replicates, 2^63 - 1 = 7^2 * 73 * 127 * 337 * 92737 *
 * 649657 splits a dimension of 73 * 127 = 9271 that many ways, the
 * product of the two primes 1000000007 * 1000000009 and the square of
 * 2^31 - 1 split by their prime factor. */
static void
test_default_huge_devices(void **state)
{
	static const struct {
		const char *devices, *dim, *source;
	} c[] = {
		{ "2305843009213693951", "8",
		    "default: replicated (dimension 0 of x cannot be split: "
		    "across 2305843009213693951 devices it is not always "
		    "divisible)" },
		{ "9223372036854775807", "9271",
		    "default: dimension 0 of x split 9271 ways and repeated "
		    "994862694084217 times (across 9223372036854775807 "
		    "devices it is not always divisible)" },
		{ "1000000016000000063", "3000000021",
		    "default: dimension 0 of x split 1000000007 ways and "
		    "repeated 1000000009 times (across 1000000016000000063 "
		    "devices it is not always divisible)" },
		{ "4611686014132420609", "6442450941",
		    "default: dimension 0 of x split 2147483647 ways and "
		    "repeated 2147483647 times (across 4611686014132420609 "
		    "devices it is not always divisible)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
		sym_ctx *ctx = tl_ctx_new();
		char text[128];
		sym_graph *g;

		snprintf(text, sizeof(text),
		    "devices %s\ninput x : f32[%s, 4]\ny = relu(x)\n"
		    "output y\n",
		    c[i].devices, c[i].dim);
		g = shard_ok(ctx, text);
		assert_string_equal(sym_node_strategy_source(node(g, "y")),
		    c[i].source);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

/* Shard "text" (valid before sharding) expecting a refuted divisibility
 * whose first error has the message "msg" and witness "wit", and the hint
 * "hint" (NULL: none). */
static void
assert_hint(const char *text, const char *msg, const char *wit,
    const char *hint)
{
	sym_ctx *ctx = tl_ctx_new();
	const sym_diagnostic *d;
	sym_graph *g;

	assert_int_equal(shard(ctx, text, &g), -1);
	d = first_error(g);
	assert_string_equal(d->message, msg);
	assert_string_equal(d->witness, wit);
	if (hint)
		assert_string_equal(d->hint, hint);
	else
		assert_null(d->hint);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A divisor hint is given only when the hinted declaration admits a
 * value: not for b in [5, 7] (no multiple of 8), nor for a min whose
 * next even number does not fit 64 bits, nor when a relation bounds a
 * unique b below the divisor; given when it fits. */
static void
test_hints(void **state)
{
	static const char mm[] = "devices 8\n"
	                         "symbol b %s\n"
	                         "%s\n"
	                         "input x : f32[b, 4]\n"
	                         "input w : f32[4, 4]\n"
	                         "y = matmul(x, w) shard ((8, 1), (1, 1))\n"
	                         "output y\n";
	static const char *const cases[][4] = {
		{ "min=5 max=7", "", "b = 5", NULL },
		{ "min=5 max=20", "", "b = 5", "declare b with divisor=8" },
		{ "unique", "relation b <= 7", "b = 1", NULL },
		{ "unique", "relation b <= 100", "b = 1",
		    "declare b with divisor=8" },
	};
	char text[512], msg[160];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), mm, cases[i][0], cases[i][1]);
		snprintf(msg, sizeof(msg),
		    "matmul y: %s makes dimension 0 of x (size b) not "
		    "divisible by 8 (axis m)",
		    cases[i][2]);
		assert_hint(text, msg, cases[i][2], cases[i][3]);
	}
	assert_hint("devices 2\n"
	            "symbol n min=9223372036854775807\n"
	            "input q : f32[n]\n"
	            "r = relu(q) shard ((2,),)\n"
	            "output r\n",
	    "relu r: n = 9223372036854775807 makes dimension 0 of q (size "
	    "n) not divisible by 2 (axis d0)",
	    "n = 9223372036854775807", NULL);
	assert_hint("devices 2\n"
	            "symbol n min=9223372036854775806\n"
	            "input q : f32[n]\n"
	            "r = relu(q) shard ((2,),)\n"
	            "output r\n",
	    "relu r: n = 9223372036854775807 makes dimension 0 of q (size "
	    "n) not divisible by 2 (axis d0)",
	    "n = 9223372036854775807", "declare n with divisor=2");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_seed_divisor_4),
		cmocka_unit_test(test_layout_example),
		cmocka_unit_test(test_out_tuple),
		cmocka_unit_test(test_repeat_axis),
		cmocka_unit_test(test_structural_errors),
		cmocka_unit_test(test_power_of_two),
		cmocka_unit_test(test_multi_axis_dynamic),
		cmocka_unit_test(test_guard),
		cmocka_unit_test(test_default_and_propagation),
		cmocka_unit_test(test_every_operator),
		cmocka_unit_test(test_reshape),
		cmocka_unit_test(test_reshard_and_refusal),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_planned_once),
		cmocka_unit_test(test_api_strategies),
		cmocka_unit_test(test_drop_strategy),
		cmocka_unit_test(test_default_huge_devices),
		cmocka_unit_test(test_hints),
	};

	return cmocka_run_group_tests_name("shard", tests, NULL, NULL);
}
