/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of training graphs (sym_grad(3)): the statements init=,
 * frozen and minimize with their located errors, the gradients the
 * differentiation appends and their names, and the strategies the
 * sharding pass derives for them (the mirror operator of the tutorial
 * network).
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

/* The tutorial network (examples/ffn.sg) with a loss made of operators
 * whose gradients exist in every build, trained with sgd. */
static const char ffn[] =
    "devices 8\n"
    "symbol b divisor=8\n"
    "input  x  : f32[b, 1, 28, 28]\n"
    "param  w1 : f32[784, 512] init=normal(sigma=0.02)\n"
    "param  w2 : f32[512, 512] init=he_uniform\n"
    "param  w3 : f32[512, 10]  init=xavier_uniform(gain=1.5)\n"
    "x2     = reshape(x, [-1, 784])\n"
    "h1     = matmul(x2, w1)  shard ((2, 4), (4, 1))\n"
    "a1     = relu(h1)        shard ((4, 1),)\n"
    "h2     = matmul(a1, w2)  shard ((1, 8), (8, 1))\n"
    "a2     = relu(h2)        shard ((8, 1),)\n"
    "logits = matmul(a2, w3)\n"
    "sq     = mul(logits, logits)\n"
    "loss   = sum_to(sq, [])\n"
    "output loss\n"
    "minimize loss with sgd(0.1, momentum=0.9, nesterov=true)\n";

/* Return the graph parsed from "text" in "ctx", which must have
 * "errors" errors. */
static sym_graph *
parse(sym_ctx *ctx, const char *text, size_t errors)
{
	sym_graph *g = sym_graph_parse(ctx, text, "t.sg");

	assert_non_null(g);
	if (sym_graph_n_errors(g) != errors) {
		for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++)
			fprintf(stderr, "%s\n",
			    sym_graph_diagnostic(g, i)->message);
		fail_msg("%zu errors, %zu expected", sym_graph_n_errors(g),
		    errors);
	}
	return g;
}

/* Assert that the graph parsed from "text" has exactly one error, at
 * "line":"col", whose message contains "want". */
static void
fails(const char *text, int line, int col, const char *want)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, text, "t.sg");
	const sym_diagnostic *d;

	assert_non_null(g);
	if (sym_graph_n_errors(g) != 1)
		fail_msg("%zu errors for \"%s\"", sym_graph_n_errors(g), want);
	d = sym_graph_diagnostic(g, 0);
	if (!strstr(d->message, want) || d->loc.line != line ||
	    d->loc.col != col)
		fail_msg("%d:%d: %s; want %d:%d: %s", d->loc.line, d->loc.col,
		    d->message, line, col, want);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* Assert that "l" prints as "want". */
static void
assert_layout(const sym_layout *l, const char *want)
{
	char *s = sym_layout_to_str(l);

	assert_non_null(s);
	if (strcmp(s, want))
		fail_msg("layout %s, expected %s", s, want);
	free(s);
}

/* Assert that the node of "g" producing "name" got the strategy derived
 * from its forward node "fwd" ("softmax p"), and that its output "k" is
 * laid out as "want" (partial sums included). */
static void
assert_derived(const sym_graph *g, const char *name, const char *fwd, size_t k,
    const char *want)
{
	sym_value *v = sym_graph_find_value(g, name);
	sym_node *n = v ? sym_value_producer(v) : NULL;
	char src[128];

	if (!n)
		fail_msg("no node produces %s", name);
	snprintf(src, sizeof(src), "derived from %s (its gradient)", fwd);
	if (strcmp(sym_node_strategy_source(n), src))
		fail_msg("%s: strategy %s, expected %s", name,
		    sym_node_strategy_source(n), src);
	assert_layout(sym_node_output_layout(n, k), want);
}

/* Parse the training graph "text" (f64, on "devices" devices), make the
 * gradients of the params it trains outputs, shard it and check, for
 * each binding of the NULL-ended "bindings", that the sharded plan run
 * on a threads communicator agrees with one device within 1e-9
 * (relative and absolute), as shape-run does; return the graph (of
 * "ctx") for the caller's checks. */
static sym_graph *
grads_agree(sym_ctx *ctx, const char *text, int64_t devices,
    const char *const *bindings)
{
	sym_graph *g = parse(ctx, text, 0);
	sym_exec_options o = {
		.size = sizeof(o), .seed = 7, .rtol = 1e-9, .atol = 1e-9
	};
	sym_plan *p, *single;
	sym_communicator *comm;

	assert_int_equal(sym_graph_differentiate(g), 0);
	assert_true(sym_graph_n_trained(g) > 0);
	for (size_t i = 0; i < sym_graph_n_trained(g); i++)
		assert_int_equal(sym_graph_mark_output(g,
		                     sym_value_grad(sym_graph_trained(g, i)),
		                     NULL),
		    0);
	if (sym_graph_shard(g, NULL) != 0 || sym_graph_n_errors(g) != 0) {
		for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++)
			fprintf(stderr, "%s\n",
			    sym_graph_diagnostic(g, i)->message);
		fail_msg("%zu errors when sharding", sym_graph_n_errors(g));
	}
	p = sym_plan_compile(g, 0);
	single = sym_plan_compile(g, SYM_PLAN_SINGLE);
	if (!p || !single)
		fail_msg("compile: %s", sym_ctx_last_message(ctx));
	assert_int_equal(sym_plan_n_ranks(p), devices);
	comm = sym_comm_threads_new(ctx, (int)devices);
	assert_non_null(comm);
	for (size_t k = 0; bindings[k]; k++) {
		sym_binding *b = sym_binding_new(ctx);
		sym_exec_report r;

		assert_non_null(b);
		if (sym_binding_parse(b, bindings[k], NULL) < 0)
			fail_msg("binding %s: %s", bindings[k],
			    sym_ctx_last_message(ctx));
		if (sym_exec_check(ctx, p, single, comm, b, &o, &r) != 0)
			fail_msg("%s: %s", bindings[k],
			    sym_ctx_last_message(ctx));
		sym_binding_free(b);
		if (r.n_mismatch != 0)
			fail_msg("%s: %lld mismatches, max |diff| %g at "
			         "%s[%lld]",
			    bindings[k], (long long)r.n_mismatch, r.max_abs,
			    r.worst ? sym_value_name(r.worst) : "?",
			    (long long)r.worst_index);
	}
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(single);
	return g;
}

/* The statements are read into the graph: initializers with their
 * arguments and defaults, frozen params, the loss and the optimizer. */
static void
test_statements(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = parse(ctx,
	    "input x : f32[4, 3] init=constant(2)\n"
	    "param w : f32[3, 2] init=normal(mean=1)\n"
	    "param v : f32[2] init=uniform(0.5) frozen\n"
	    "param u : i32[2] init=ones\n"
	    "h = matmul(x, w)\n"
	    "y = bias_add(h, v)\n"
	    "l = sum_to(y, [])\n"
	    "minimize l with adamw(lr=0.001, beta2=0.99)\n",
	    0);
	sym_init init;
	sym_optimizer opt;

	(void)state;
	assert_int_equal(sym_value_get_init(sym_graph_find_value(g, "x"),
	                     &init),
	    0);
	assert_int_equal(init.kind, SYM_INIT_CONSTANT);
	assert_true(init.value == 2.0);
	sym_value_get_init(sym_graph_find_value(g, "w"), &init);
	assert_int_equal(init.kind, SYM_INIT_NORMAL);
	assert_true(init.sigma == 0.01 && init.mean == 1.0);
	sym_value_get_init(sym_graph_find_value(g, "v"), &init);
	assert_int_equal(init.kind, SYM_INIT_UNIFORM);
	assert_true(init.scale == 0.5);
	assert_true(sym_value_is_frozen(sym_graph_find_value(g, "v")));
	assert_false(sym_value_is_frozen(sym_graph_find_value(g, "w")));
	sym_value_get_init(sym_graph_find_value(g, "h"), &init);
	assert_int_equal(init.kind, SYM_INIT_DEFAULT);
	assert_ptr_equal(sym_graph_loss(g), sym_graph_find_value(g, "l"));
	assert_int_equal(sym_graph_optimizer(g, &opt), 0);
	assert_int_equal(opt.kind, SYM_OPTIMIZER_ADAMW);
	assert_true(opt.lr == 0.001 && opt.beta1 == 0.9 && opt.beta2 == 0.99);
	assert_true(opt.eps == 1e-8 && opt.weight_decay == 0.01);
	assert_string_equal(sym_optimizer_kind_name(opt.kind), "adamw");
	assert_string_equal(sym_init_kind_name(SYM_INIT_HE_NORMAL),
	    "he_normal");
	assert_null(sym_init_kind_name((sym_init_kind)99));
	assert_false(sym_graph_is_training(g));
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* Every bad training statement is one located error. */
static void
test_statement_errors(void **state)
{
	(void)state;
	fails("input x : f32[4] init=normal(sigm=1)\n", 1, 30,
	    "initializer normal has no argument 'sigm'");
	fails("input z : i32[4] init=normal\n", 1, 18,
	    "initializer normal does not fit z (i32)");
	fails("param w : f32[4] init=constant\n", 1, 23,
	    "initializer constant needs its argument value");
	fails("param w : i8[4] init=constant(300)\n", 1, 17,
	    "not one the dtype holds");
	fails("param q : f32[] init=he_normal\n", 1, 17,
	    "at least 1 dimension");
	fails("input i : f32[4] frozen\n", 1, 18, "only a param can be frozen");
	fails("param w : f32[4] init=zeros init=ones\n", 1, 29,
	    "init is given twice");
	fails("param w : f32[4] init=nope\n", 1, 23,
	    "unknown initializer 'nope'");
	fails("param w : f32[4] shard\n", 1, 18,
	    "unexpected 'shard' after the shape");
	fails("param w : f32[4]\ny = neg(w)\nminimize y with adam(0.1)\n", 3,
	    10, "the loss y must be a floating-point scalar");
	fails("param w : f32[4]\ny = sum_to(w, [])\nminimize y with sgdd(1)\n",
	    3, 17, "unknown optimizer 'sgdd'");
	fails("param w : f32[4]\ny = sum_to(w, [])\nminimize y with "
	      "momentum(0.1)\n",
	    3, 17, "optimizer momentum needs its argument momentum");
	fails("param w : f32[4]\ny = sum_to(w, [])\nminimize y with "
	      "sgd(lr=0.1, 0.9)\n",
	    3, 29, "a positional argument of optimizer sgd follows a named");
	fails("param w : f32[4]\ny = sum_to(w, [])\nminimize y with "
	      "sgd(0.1, nesterov=true)\n",
	    3, 10, "nesterov needs momentum > 0 and dampening 0");
	fails("param w : f32[4]\ny = sum_to(w, [])\nminimize y with "
	      "adam(0.1, beta1=1)\n",
	    3, 10, "beta1 and beta2 must be in [0, 1)");
	fails("param w : f32[4]\ny = sum_to(w, [])\nminimize y with "
	      "sgd(0.1, nesterov=2)\n",
	    3, 35, "argument nesterov of optimizer sgd must be true or false");
	fails("param w : f32[4] frozen\ninput x : f32[4]\nm = mul(x, w)\n"
	      "y = sum_to(m, [])\nminimize y with sgd(1)\n",
	    5, 10, "no param that is not frozen reaches the loss y");
	fails("param w : f32[4]\ny = sum_to(w, [])\nminimize y with sgd(1)\n"
	      "minimize y with sgd(2)\n",
	    4, 10, "the graph already minimizes y (line 3)");
	fails("param w : f32[4]\nminimize zz with sgd(1)\n", 2, 10,
	    "unknown value 'zz'");
}

/* Return the communication of "g" that resolves the partial sums of the
 * value called "name", or NULL. */
static const sym_reshard *
resolution(const sym_graph *g, const char *name)
{
	for (size_t i = 0; i < sym_graph_n_reshards(g); i++) {
		const sym_reshard *c = sym_graph_reshard(g, i);

		if (!c->consumer && strcmp(sym_value_name(c->value), name) == 0)
			return c;
	}
	return NULL;
}

/* Assert that communication "c" is one all_reduce over groups of
 * "group" ranks. */
static void
assert_all_reduce(const sym_reshard *c, int64_t group)
{
	int axes[SYM_MESH_MAX_AXES];
	size_t n;
	const sym_mesh *m;
	int64_t size = 1;

	assert_non_null(c);
	assert_int_equal(sym_redist_n_steps(c->plan), 1);
	assert_int_equal(sym_redist_step_kind(c->plan, 0),
	    SYM_REDIST_ALL_REDUCE);
	n = sym_redist_step_axes(c->plan, 0, SYM_MESH_MAX_AXES, axes);
	m = sym_layout_mesh(sym_redist_step_layout(c->plan, 0));
	for (size_t k = 0; k < n; k++)
		size *= sym_mesh_axis_size(m, (size_t)axes[k]);
	assert_int_equal(size, group);
}

/* The tutorial network's gradients: every param and activation gets
 * NAME.grad, and the strategies derived from the forward ones make w1's
 * gradient partial over the 2-way batch axis its weight is replicated
 * on, w2's complete, w3's partial over all 8 devices: the mirror
 * operator, resolved by one all_reduce each. */
static void
test_mirror(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = parse(ctx, ffn, 0);
	const char *const grads[] = { "loss.grad", "sq.grad", "logits.grad",
		"a2.grad", "h2.grad", "a1.grad", "h1.grad", "w1.grad",
		"w2.grad", "w3.grad" };

	(void)state;
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_true(sym_graph_is_training(g));
	for (size_t i = 0; i < sizeof(grads) / sizeof(grads[0]); i++)
		assert_non_null(sym_graph_find_value(g, grads[i]));
	assert_null(sym_graph_find_value(g, "x.grad"));
	assert_null(sym_graph_find_value(g, "x2.grad"));
	assert_ptr_equal(sym_value_grad(sym_graph_find_value(g, "w1")),
	    sym_graph_find_value(g, "w1.grad"));
	assert_int_equal(sym_graph_n_trained(g), 3);
	assert_string_equal(sym_value_name(sym_graph_trained(g, 0)), "w1");
	assert_string_equal(sym_value_name(sym_graph_trained(g, 2)), "w3");
	assert_all_reduce(resolution(g, "w1.grad"), 2);
	assert_null(resolution(g, "w2.grad"));
	assert_all_reduce(resolution(g, "w3.grad"), 8);
	assert_string_equal(sym_node_strategy_source(sym_value_producer(
	                        sym_graph_find_value(g, "w1.grad"))),
	    "derived from matmul h1 (its gradient)");
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* A value used twice gets one gradient per use, summed; frozen params,
 * integer inputs and values off the loss's path get none. */
static void
test_sums_and_exclusions(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = parse(ctx,
	    "input x : f32[4]\n"
	    "param w : f32[4]\n"
	    "param f : f32[4] frozen\n"
	    "param off : f32[4]\n"
	    "m = mul(w, w)\n"
	    "n = mul(m, f)\n"
	    "o = neg(off)\n"
	    "l = sum_to(n, [])\n"
	    "output o\n"
	    "minimize l with sgd(0.5)\n",
	    0);
	const sym_value *wg;

	(void)state;
	assert_int_equal(sym_graph_differentiate(g), 0);
	assert_int_equal(sym_graph_differentiate(g), 0);
	assert_non_null(sym_graph_find_value(g, "w.grad.1"));
	assert_non_null(sym_graph_find_value(g, "w.grad.2"));
	wg = sym_graph_find_value(g, "w.grad");
	assert_non_null(wg);
	assert_string_equal(sym_node_op_name(sym_value_producer(wg)), "add");
	assert_null(sym_value_grad(sym_graph_find_value(g, "f")));
	assert_null(sym_value_grad(sym_graph_find_value(g, "off")));
	assert_null(sym_value_grad(sym_graph_find_value(g, "x")));
	assert_int_equal(sym_graph_n_trained(g), 1);
	assert_int_equal(sym_value_set_frozen(sym_graph_find_value(g, "w"), 1),
	    -1);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* An operator on the path to the loss without a gradient rule is a
 * located error naming it and its operand, and nothing is sharded. */
static void
test_no_gradient(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = parse(ctx,
	    "param w : f32[4, 2]\n"
	    "c = tanh_grad(w, w)\n"
	    "l = sum_to(c, [])\n"
	    "minimize l with sgd(0.5)\n",
	    0);
	const sym_diagnostic *d;

	(void)state;
	assert_int_equal(sym_graph_shard(g, NULL), -1);
	assert_int_equal(sym_graph_n_errors(g), 1);
	d = sym_graph_diagnostic(g, sym_graph_n_diagnostics(g) - 1);
	assert_int_equal(d->loc.line, 2);
	if (!strstr(d->message, "tanh_grad c: no gradient for operand 0 (w)"))
		fail_msg("%s", d->message);
	assert_null(sym_value_layout(sym_graph_find_value(g, "w")));
	sym_graph_free(g);
	g = parse(ctx,
	    "symbol b\n"
	    "param w : f32[4, 2]\n"
	    "input v : f32[b, 2]\n"
	    "c = concat(v, w, axis=0)\n"
	    "l = sum_to(c, [])\n"
	    "minimize l with sgd(0.5)\n",
	    0);
	assert_int_equal(sym_graph_shard(g, NULL), -1);
	d = sym_graph_diagnostic(g, sym_graph_n_diagnostics(g) - 1);
	assert_int_equal(d->loc.line, 4);
	if (!strstr(d->message, "concat c: no gradient for operand 1 (w)") ||
	    !strstr(d->message, "differ in size along the axis"))
		fail_msg("%s", d->message);
	assert_int_equal(sym_graph_differentiate(NULL), -1);
	sym_graph_free(g);
	g = parse(ctx, "input x : f32[4]\n", 0);
	assert_int_equal(sym_graph_differentiate(g), -1);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* softmax, log_softmax and layer_norm (normalised over the last
 * dimension, and over the last two with gamma spanning them) in a
 * training graph on 8 devices: their gradients take the layouts of the
 * forward operators, dgamma and dbeta partial over the axes that split
 * the dimensions they sum over, and the gradients of the params agree
 * with one device. */
static void
test_grad_norm(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input x : f64[b, 6, 16]\n"
	    "input c : f64[b, 6, 16]\n"
	    "param w : f64[16]\n"
	    "param g1 : f64[16]\n"
	    "param b1 : f64[16]\n"
	    "param g2 : f64[6, 16]\n"
	    "param b2 : f64[6, 16]\n"
	    "h = mul(x, w)\n"
	    "p = softmax(h) shard ((4, 2, 1),)\n"
	    "q = log_softmax(p, axis=1) shard ((2, 1, 4),)\n"
	    "y1 = layer_norm(q, g1, b1) shard ((4, 2, 1), (1,), (1,))\n"
	    "y2 = layer_norm(h, g2, b2, begin_norm_axis=1, begin_params_axis=1, "
	    "epsilon=0.01) shard ((8, 1, 1), (1, 1), (1, 1))\n"
	    "s = add(y1, y2)\n"
	    "m = mul(s, c)\n"
	    "loss = sum_to(m, [])\n"
	    "minimize loss with sgd(0.1)\n";
	static const char *const bindings[] = { "b=8", "b=24", NULL };
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = grads_agree(ctx, text, 8, bindings);

	(void)state;
	assert_int_equal(sym_graph_n_trained(g), 5);
	assert_derived(g, "h.grad.2", "softmax p", 0, "(d0, d1, d2)");
	assert_derived(g, "p.grad", "log_softmax q", 0, "(d0, d1, d2)");
	assert_derived(g, "q.grad", "layer_norm y1", 0, "(d0, d1, d2)");
	assert_derived(g, "g1.grad", "layer_norm y1", 1,
	    "(d2) partial(d0, d1)");
	assert_derived(g, "b1.grad", "layer_norm y1", 2,
	    "(d2) partial(d0, d1)");
	assert_derived(g, "g2.grad", "layer_norm y2", 1,
	    "(d1, d2) partial(d0)");
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* maximum and minimum, with broadcasting, in a training graph on 8
 * devices: maximum_grad and minimum_grad take the layouts of the
 * forward operators, the gradients of the broadcast params are summed
 * back (partial over the axes of the dimensions they lack), and the
 * gradients of the params agree with one device. */
static void
test_grad_extremum(void **state)
{
	static const char text[] = "devices 8\n"
	                           "symbol b divisor=8\n"
	                           "input x : f64[b, 16]\n"
	                           "input c : f64[b, 16]\n"
	                           "param w : f64[16, 16]\n"
	                           "param v : f64[16]\n"
	                           "param u : f64[1, 16]\n"
	                           "h = matmul(x, w) shard ((4, 1), (1, 2))\n"
	                           "m = maximum(h, v) shard ((4, 2), (2,))\n"
	                           "n = minimum(m, u) shard ((8, 1), (1, 1))\n"
	                           "p = mul(n, c)\n"
	                           "loss = sum_to(p, [])\n"
	                           "minimize loss with sgd(0.1)\n";
	static const char *const bindings[] = { "b=8", "b=32", NULL };
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = grads_agree(ctx, text, 8, bindings);

	(void)state;
	assert_int_equal(sym_graph_n_trained(g), 3);
	assert_derived(g, "n.t3", "minimum n", 1, "(d0, d1)");
	assert_derived(g, "u.grad", "minimum n", 0, "(None, d1) partial(d0)");
	assert_derived(g, "m.t5", "maximum m", 1, "(d0, d1)");
	assert_derived(g, "v.grad", "maximum m", 0, "(d1) partial(d0)");
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* conv2d with strides, asymmetric pads, dilations and groups in a
 * training graph on 8 devices, the batch, the input channels and the
 * output channels split: conv2d_input_grad and conv2d_weight_grad take
 * the layouts of the forward operators, dx partial over the axes of the
 * output channels, dw over those of the batch (the mirror operator),
 * and the gradients of the params agree with one device. */
static void
test_grad_conv(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input x : f64[b, 3, 8, 8]\n"
	    "input c : f64[b, 4, 4, 4]\n"
	    "input e : f64[b, 4, 8, 6]\n"
	    "param k1 : f64[4, 3, 3, 3]\n"
	    "param k2 : f64[4, 2, 3, 3]\n"
	    "param k3 : f64[4, 4, 3, 3]\n"
	    "h = conv2d(x, k1, pad=1) shard ((4, 1, 1, 1), (2, 1, 1, 1))\n"
	    "y = conv2d(h, k2, pad=1, stride=2, group=2) shard ((2, 1, 1, 1), "
	    "(4, 1, 1, 1))\n"
	    "z = conv2d(h, k3, pad=[1, 1, 0, 2], dilation=[1, 2]) shard ((2, "
	    "2, 1, 1), (2, 2, 1, 1))\n"
	    "m = mul(y, c)\n"
	    "q = mul(z, e)\n"
	    "l1 = sum_to(m, [])\n"
	    "l2 = sum_to(q, [])\n"
	    "loss = add(l1, l2)\n"
	    "minimize loss with sgd(0.1)\n";
	static const char *const bindings[] = { "b=8", "b=16", NULL };
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = grads_agree(ctx, text, 8, bindings);

	(void)state;
	assert_int_equal(sym_graph_n_trained(g), 3);
	assert_derived(g, "k1.grad", "conv2d h", 0,
	    "(o, c, None, None) partial(n)");
	assert_derived(g, "h.grad.2", "conv2d y", 0, "(n, c, h, w) partial(o)");
	assert_derived(g, "k2.grad", "conv2d y", 0,
	    "(o, c, None, None) partial(n)");
	assert_derived(g, "h.grad.1", "conv2d z", 0, "(n, c, h, w) partial(o)");
	assert_derived(g, "k3.grad", "conv2d z", 0,
	    "(o, c, None, None) partial(n)");
	assert_null(sym_graph_find_value(g, "x.grad"));
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* embedding and gather in a training graph on 8 devices, the ids and
 * indices split (repeated indices accumulate): embedding_grad and
 * gather_grad take the layouts of the forward operators, the gradients
 * of the tables partial over the axes of the indices, and the gradients
 * of the params agree with one device; the indices get none. */
static void
test_grad_gather(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input ids : i32[b, 4]\n"
	    "input ix : i32[b]\n"
	    "input c : f64[b, 4, 8]\n"
	    "input d : f64[6, b]\n"
	    "param tab : f64[32, 8]\n"
	    "param q : f64[6, 20]\n"
	    "e = embedding(ids, tab) shard ((4, 1), (1, 2))\n"
	    "m = mul(e, c)\n"
	    "l1 = sum_to(m, [])\n"
	    "g = gather(q, ix, axis=1) shard ((2, 1), (4,))\n"
	    "n = mul(g, d)\n"
	    "l2 = sum_to(n, [])\n"
	    "loss = add(l1, l2)\n"
	    "minimize loss with sgd(0.1)\n";
	static const char *const bindings[] = { "b=8", "b=40", NULL };
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = grads_agree(ctx, text, 8, bindings);

	(void)state;
	assert_int_equal(sym_graph_n_trained(g), 2);
	assert_derived(g, "tab.grad", "embedding e", 0,
	    "(vocab, embed) partial(i0)");
	assert_derived(g, "q.grad", "gather g", 0, "(p0, p1) partial(i0)");
	assert_null(sym_graph_find_value(g, "ids.grad"));
	assert_null(sym_graph_find_value(g, "ix.grad"));
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* Gradients through split, concat and slice on 8 devices: split's
 * concatenate the parts back (zeros for the part no gradient reaches),
 * concat's split the output's, slice's pad it with zeros; the backward
 * operators take the forward strategies. */
static void
test_grad_concat(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input x : f64[b, 12]\n"
	    "input c : f64[b, 4]\n"
	    "param w : f64[12, 12]\n"
	    "param v : f64[12, 4]\n"
	    "h = matmul(x, w) shard ((4, 1), (1, 2))\n"
	    "k = matmul(x, v) shard ((8, 1), (1, 1))\n"
	    "p, q, r = split(h, axis=1, output_num=3) shard ((4, 1),)\n"
	    "j = concat(p, k, axis=1) shard ((2, 1), (2, 1))\n"
	    "s, t = split(j, axis=1) shard ((8, 1),)\n"
	    "m = mul(r, t)\n"
	    "n = mul(m, c)\n"
	    "l1 = sum_to(n, [])\n"
	    "l2 = sum_to(s, [])\n"
	    "u = slice(h, begin=[0, 2], size=[-1, 6]) shard ((8, 1),)\n"
	    "z = slice(u, begin=[0, 1], size=[-1, 3])\n"
	    "cz = concat(z, u, axis=1) shard ((8, 1), (8, 1))\n"
	    "uz = mul(cz, cz)\n"
	    "l3 = sum_to(uz, [])\n"
	    "l4 = add(l1, l2)\n"
	    "loss = add(l4, l3)\n"
	    "minimize loss with sgd(0.1)\n";
	static const char *const bindings[] = { "b=8", "b=32", NULL };
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = grads_agree(ctx, text, 8, bindings);

	(void)state;
	assert_int_equal(sym_graph_n_trained(g), 2);
	assert_derived(g, "h.grad.2", "split p", 0, "(d0, d1)");
	assert_derived(g, "h.grad.1", "slice u", 0, "(d0, d1)");
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* A graph text with upper-case letters standing for split counts. */
static const char *const random_templates[] = {
	"devices 8\nsymbol b divisor=8\n"
	"input x : f64[b, 16]\ninput c : f64[b, 8]\n"
	"param w1 : f64[16, 16]\nparam b1 : f64[16]\nparam w2 : f64[16, 8]\n"
	"h = matmul(x, w1) shard ((A, B), (B, C))\n"
	"hb = add(h, b1) shard ((D, E), (E,))\n"
	"a = tanh(hb) shard ((F, G),)\n"
	"o = matmul(a, w2) shard ((H, I), (I, J))\n"
	"m = mul(o, c) shard ((K, L), (K, L))\n"
	"s = reduce_sum(m, axis=1) shard ((M, N),)\n"
	"loss = sum_to(s, [])\nminimize loss with sgd(0.1)\n",
	"devices 8\nsymbol b divisor=8\n"
	"input x : f64[b, 4, 8]\ninput c : f64[b, 8, 4]\n"
	"param w : f64[8, 8]\nparam g : f64[8]\nparam be : f64[8]\n"
	"h = batch_matmul(x, w) shard ((A, B, C), (C, D))\n"
	"n = layer_norm(h, g, be) shard ((E, F, 1), (1,), (1,))\n"
	"p = softmax(n, axis=1) shard ((G, 1, H),)\n"
	"t = transpose(p, [0, 2, 1]) shard ((I, J, K),)\n"
	"m = mul(t, c) shard ((L, M, N), (L, M, N))\n"
	"l = reduce_mean(m, axis=[1, 2]) shard ((B, D, H),)\n"
	"loss = sum_to(l, [])\nminimize loss with sgd(0.1)\n",
	"devices 8\nsymbol b divisor=8\n"
	"input x : f64[b, 8]\ninput y : i32[b]\ninput ids : i32[b]\n"
	"param tab : f64[16, 8]\nparam w : f64[8, 8]\nparam u : f64[8]\n"
	"e = embedding(ids, tab) shard ((A,), (1, B))\n"
	"m = maximum(e, u) shard ((C, D), (D,))\n"
	"k = minimum(m, x) shard ((E, F), (E, F))\n"
	"c = concat(k, x, axis=1) shard ((G, 1), (G, 1))\n"
	"p, q = split(c, axis=1) shard ((H, 1),)\n"
	"r = slice(q, begin=[0, 2], size=[-1, 6]) shard ((I, 1),)\n"
	"g = gelu(p) shard ((J, K),)\n"
	"s = sigmoid(g) shard ((L, M),)\n"
	"h = matmul(s, w) shard ((N, O), (O, P))\n"
	"z = log_softmax(h) shard ((Q, 1),)\n"
	"t = mul(z, p) shard ((R, S), (R, S))\n"
	"l = softmax_cross_entropy(t, y) shard ((T, 1), (T,))\n"
	"rr = reduce_sum(r) shard ((U, V),)\n"
	"loss = add(l, rr)\nminimize loss with sgd(0.1)\n",
	"devices 8\nsymbol b divisor=8\n"
	"input x : f64[b, 4, 6, 6]\ninput c : f64[b, 4, 6, 6]\n"
	"param k : f64[4, 4, 3, 3]\nparam q : f64[4, 10]\n"
	"input ix : i32[b]\ninput d : f64[4, b]\n"
	"h = conv2d(x, k, pad=1) shard ((A, B, 1, 1), (C, B, 1, 1))\n"
	"m = mul(h, c) shard ((D, E, 1, 1), (D, E, 1, 1))\n"
	"l1 = reduce_sum(m) shard ((F, G, 1, 1),)\n"
	"g = gather(q, ix, axis=1) shard ((H, 1), (I,))\n"
	"n = mul(g, d) shard ((J, K), (J, K))\n"
	"l2 = reduce_sum(n) shard ((L, M),)\n"
	"loss = add(l1, l2)\nminimize loss with sgd(0.1)\n",
	"devices 8\nsymbol b divisor=8\n"
	"input x : f64[b, 8]\ninput c : f64[b, 8]\n"
	"param w : f64[8, 8]\nparam u : f64[8]\nparam v : f64[b, 1]\n"
	"h = matmul(x, w) shard ((A, B), (B, C))\n"
	"e = expand(u, [b, 8]) shard ((D,),)\n"
	"f = expand(v, [-1, 8]) shard ((E, 1),)\n"
	"t = tril(h, diagonal=1) shard ((F, G),)\n"
	"s = cumsum(t, axis=1) shard ((H, 1),)\n"
	"a = mul(s, e) shard ((I, J), (I, J))\n"
	"p = pad(a, [0, 0, 1, -1], value=0.5) shard ((K, 1),)\n"
	"q = triu(p) shard ((L, M),)\n"
	"r = reduce_min(q, axis=1, keep_dims=true) shard ((N, 1),)\n"
	"k = reduce_prod(f, axis=1, keep_dims=true) shard ((O, 1),)\n"
	"m = tile(r, [1, 8]) shard ((P, 1),)\n"
	"z = mul(q, m) shard ((Q, R), (Q, R))\n"
	"o = mul(z, k) shard ((S, T), (S, 1))\n"
	"am = argmax(c, axis=1) shard ((U, 1),)\n"
	"ac = cast(am, dtype=f64)\n"
	"ae = expand_dims(ac, axis=1)\n"
	"o2 = mul(o, ae)\n"
	"l = reduce_sum(o2) shard ((V, W),)\n"
	"loss = sum_to(l, [])\nminimize loss with sgd(0.1)\n",
};

/* Replace each upper-case letter of "tpl" by a split count from {1, 2,
 * 4, 8} drawn by "*seed" (one per letter; 1 half of the time, 2 a
 * quarter, 4 and 8 an eighth each) into "out" ("size" bytes). */
static void
draw_strategies(const char *tpl, uint64_t *seed, char *out, size_t size)
{
	int64_t v[26];
	size_t n = 0;

	for (int k = 0; k < 26; k++) {
		*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
		v[k] = (*seed >> 33) % 8 < 4 ? 1
		    : (*seed >> 33) % 8 < 6  ? 2
		    : (*seed >> 33) % 8 < 7  ? 4
		                             : 8;
	}
	for (const char *c = tpl; *c && n + 2 < size; c++) {
		int letter = *c >= 'A' && *c <= 'Z' &&
		    (c == tpl ||
		        !((c[-1] >= 'a' && c[-1] <= 'z') ||
		            (c[-1] >= 'A' && c[-1] <= 'Z'))) &&
		    !((c[1] >= 'a' && c[1] <= 'z') ||
		        (c[1] >= 'A' && c[1] <= 'Z'));

		if (letter)
			out[n++] = (char)('0' + v[*c - 'A']);
		else
			out[n++] = *c;
	}
	out[n] = '\0';
}

/* Return 1 when the training graph "text" shards (its strategies are
 * valid on 8 devices), 0 otherwise. */
static int
shards(const char *text)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, text, "t.sg");
	int ok = g && sym_graph_n_errors(g) == 0 &&
	    sym_graph_shard(g, NULL) == 0 && sym_graph_n_errors(g) == 0;

	sym_graph_free(g);
	sym_ctx_free(ctx);
	return ok;
}

/* Random strategies: for each template (between them every
 * differentiable family: matmul, elementwise with broadcasts, layout,
 * concat, split, slice, reduce, norm, loss, conv, gather, and expand,
 * tile, pad, tril, triu, cumsum, reduce_min, reduce_prod and argmax's
 * forward), draws of
 * split counts that shard (multi-axis device matrices, repeated
 * computation, partial sums resolved by the planner) give the params'
 * gradients of one device, at two batch sizes; enough draws must be
 * valid for the test to mean something. */
static void
test_random_strategies(void **state)
{
	static const char *const bindings[] = { "b=8", "b=24", NULL };
	uint64_t seed = 12345;

	(void)state;
	for (size_t t = 0;
	     t < sizeof(random_templates) / sizeof(random_templates[0]); t++) {
		int valid = 0;

		for (int k = 0; k < 3000 && valid < 12; k++) {
			char text[2048];
			sym_ctx *ctx;

			draw_strategies(random_templates[t], &seed, text,
			    sizeof(text));
			if (!shards(text))
				continue;
			valid++;
			ctx = sym_ctx_new();
			sym_graph_free(grads_agree(ctx, text, 8, bindings));
			sym_ctx_free(ctx);
		}
		if (valid < 12)
			fail_msg("template %zu: %d valid draws of 3000", t,
			    valid);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_statement_errors),
		cmocka_unit_test(test_mirror),
		cmocka_unit_test(test_sums_and_exclusions),
		cmocka_unit_test(test_no_gradient),
		cmocka_unit_test(test_grad_concat),
		cmocka_unit_test(test_random_strategies),
		cmocka_unit_test(test_grad_norm),
		cmocka_unit_test(test_grad_extremum),
		cmocka_unit_test(test_grad_conv),
		cmocka_unit_test(test_grad_gather),
	};

	return cmocka_run_group_tests_name("grad", tests, NULL, NULL);
}
