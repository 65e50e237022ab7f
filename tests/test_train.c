/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of sharded training (sym_exec_train_check): several steps of
 * a training graph on 8 ranks, a different batch size at every step on
 * one plan, against the same training on one device: the loss at every
 * step and every param and optimizer state at the end, for every
 * optimizer; the loss falls.
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

/* A two-layer perceptron in f64 with a squared error against a target,
 * data and tensor parallel; "%s" is the minimize statement's optimizer. */
static const char mlp[] = "devices 8\n"
                          "symbol b divisor=2\n"
                          "input  x  : f64[b, 16]\n"
                          "input  t  : f64[b, 8]\n"
                          "param  w1 : f64[16, 32]  init=he_normal\n"
                          "param  b1 : f64[32]      init=zeros\n"
                          "param  w2 : f64[32, 8]   init=xavier_uniform\n"
                          "h   = matmul(x, w1)      shard ((2, 1), (1, 4))\n"
                          "hb  = add(h, b1)         shard ((2, 4), (4,))\n"
                          "a   = relu(hb)           shard ((2, 4),)\n"
                          "o   = matmul(a, w2)      shard ((2, 4), (4, 1))\n"
                          "e   = sub(o, t)\n"
                          "sq  = mul(e, e)\n"
                          "loss = reduce_mean(sq)\n"
                          "output loss\n"
                          "minimize loss with %s\n";

/* The tutorial network of examples/ffn.sg in f32 with its strategies. */
static const char ffn[] = "devices 8\n"
                          "symbol b divisor=8\n"
                          "input  x  : f32[b, 1, 28, 28]\n"
                          "input  y  : i32[b]\n"
                          "param  w1 : f32[784, 64] init=normal(sigma=0.05)\n"
                          "param  w2 : f32[64, 64]  init=he_uniform\n"
                          "param  w3 : f32[64, 10]  init=xavier_uniform\n"
                          "x2     = reshape(x, [-1, 784])\n"
                          "h1     = matmul(x2, w1)  shard ((2, 4), (4, 1))\n"
                          "a1     = relu(h1)        shard ((4, 1),)\n"
                          "h2     = matmul(a1, w2)  shard ((1, 8), (8, 1))\n"
                          "a2     = relu(h2)        shard ((8, 1),)\n"
                          "logits = matmul(a2, w3)\n"
                          "loss   = softmax_cross_entropy(logits, y)\n"
                          "output loss\n"
                          "minimize loss with %s\n";

/* A Megatron block, data parallel on 2 and tensor parallel on 4: the
 * first matmul split by columns, the second by rows (its partial sums
 * all-reduced), a residual, a layer norm and a classifier; "%s" is the
 * optimizer. */
static const char megatron[] =
    "devices 8\n"
    "symbol b divisor=8\n"
    "input  x  : f64[b, 16]\n"
    "input  y  : i32[b]\n"
    "param  w1 : f64[16, 32]  init=he_normal\n"
    "param  b1 : f64[32]      init=uniform(scale=0.1)\n"
    "param  w2 : f64[32, 16]  init=normal(sigma=0.2)\n"
    "param  g  : f64[16]      init=ones\n"
    "param  be : f64[16]      init=zeros\n"
    "param  w3 : f64[16, 8]   init=xavier_uniform\n"
    "h   = matmul(x, w1)      shard ((2, 1), (1, 4))\n"
    "hb  = add(h, b1)         shard ((2, 4), (4,))\n"
    "a   = gelu(hb)           shard ((2, 4),)\n"
    "o   = matmul(a, w2)      shard ((2, 4), (4, 1))\n"
    "r   = add(o, x)          shard ((8, 1), (8, 1))\n"
    "n   = layer_norm(r, g, be) shard ((8, 1), (1,), (1,))\n"
    "lg  = matmul(n, w3)      shard ((2, 1), (1, 4))\n"
    "p   = softmax(lg)        shard ((8, 1),)\n"
    "loss = softmax_cross_entropy(lg, y)\n"
    "output loss\n"
    "output p\n"
    "minimize loss with %s\n";

/* Sequence parallelism: the layer norms and the residual split along the
 * tokens on all 8 ranks, the matmuls between them tensor parallel, so the
 * tokens are gathered before the first and the row-parallel partial sums
 * reduced and split along the tokens after the second (an all-reduce and
 * a local slice today, not yet one reduce-scatter); "%s" is the
 * optimizer. */
static const char seqpar[] =
    "devices 8\n"
    "symbol t divisor=8\n"
    "input  x   : f64[t, 16]\n"
    "input  tgt : f64[t, 16]\n"
    "param  g1  : f64[16]     init=ones\n"
    "param  be1 : f64[16]     init=zeros\n"
    "param  w1  : f64[16, 32] init=he_uniform\n"
    "param  w2  : f64[32, 16] init=normal(sigma=0.2)\n"
    "param  g2  : f64[16]     init=ones\n"
    "param  be2 : f64[16]     init=zeros\n"
    "n1  = layer_norm(x, g1, be1) shard ((8, 1), (1,), (1,))\n"
    "h   = matmul(n1, w1)     shard ((1, 1), (1, 8))\n"
    "a   = tanh(h)            shard ((1, 8),)\n"
    "o   = matmul(a, w2)      shard ((1, 8), (8, 1))\n"
    "r   = add(o, x)          shard ((8, 1), (8, 1))\n"
    "n2  = layer_norm(r, g2, be2) shard ((8, 1), (1,), (1,))\n"
    "e   = sub(n2, tgt)\n"
    "sq  = mul(e, e)\n"
    "loss = reduce_mean(sq)\n"
    "output loss\n"
    "minimize loss with %s\n";

/* A convolutional net with pooling in f64: the convolutions data
 * parallel and output-channel parallel, max_pool2d split along the
 * batch, the height and the width (2 x 2 windows tile the 2 x 2 blocks),
 * avg_pool2d along the batch and the channels, global_avg_pool along the
 * batch and the height (partial sums of the mean, all-reduced), a
 * dropout before the classifier (one device's mask on every rank); the
 * "%%s" are the strategies of the pooling operators (data parallel: all
 * "(8, 1, 1, 1)") and the optimizer. */
static const char pool_net[] =
    "devices 8\n"
    "symbol b divisor=8\n"
    "input  x  : f64[b, 2, 8, 8]\n"
    "input  y  : i32[b]\n"
    "param  k1 : f64[8, 2, 3, 3]  init=he_normal\n"
    "param  k2 : f64[8, 8, 3, 3]  init=he_normal\n"
    "param  w  : f64[8, 4]        init=xavier_uniform\n"
    "c1 = conv2d(x, k1, pad=1)   shard ((8, 1, 1, 1), (1, 1, 1, 1))\n"
    "r1 = relu(c1)\n"
    "p1 = max_pool2d(r1, kernel=2) shard (%s,)\n"
    "c2 = conv2d(p1, k2, pad=1)  shard ((2, 1, 1, 1), (4, 1, 1, 1))\n"
    "p2 = avg_pool2d(c2, kernel=3, stride=2, pad=1, ceil_mode=true, "
    "count_include_pad=false) shard (%s,)\n"
    "g1 = global_avg_pool(p2)\n"
    "g2 = global_avg_pool(c2)    shard (%s,)\n"
    "s  = add(g1, g2)\n"
    "f  = reshape(s, [-1, 8])\n"
    "fd = dropout(f, p=0.25)\n"
    "lg = matmul(fd, w)\n"
    "loss = softmax_cross_entropy(lg, y)\n"
    "output loss\n"
    "minimize loss with %s\n";

/* Fail with the first mismatch of "r" ("what" names the run). */
static void
check_report(const sym_train_report *r, const char *what)
{
	if (r->outputs.n_mismatch || r->params.n_mismatch)
		fail_msg(
		    "%s: step %zu: outputs %lld beyond tolerance (max abs "
		    "%g, rel %g, %s), params %lld (max abs %g, rel %g, %s)",
		    what, r->first_mismatch, (long long)r->outputs.n_mismatch,
		    r->outputs.max_abs, r->outputs.max_rel,
		    r->outputs.worst ? sym_value_name(r->outputs.worst) : "-",
		    (long long)r->params.n_mismatch, r->params.max_abs,
		    r->params.max_rel,
		    r->params.worst ? sym_value_name(r->params.worst) : "-");
}

/* Train the graph "text" for the bindings "bind" ("n" of them, each
 * "NAME=VALUE, ...") on 8 threads and on one device within "tol"; check
 * that both ran and, if "check", that they agree; return the report in
 * "rep" and the losses in "losses" (room for "n"); "what" names the run
 * in messages. */
static void
run_text(const char *text, const char *what, const char *const *bind, size_t n,
    double tol, int check, sym_train_report *rep, double *losses)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g;
	sym_plan *p, *single;
	sym_communicator *comm;
	sym_binding *b[16];
	sym_exec_options o = {
		.size = sizeof(o), .seed = 7, .rtol = tol, .atol = tol
	};

	assert_true(n <= 16);
	g = sym_graph_parse(ctx, text, "train.sg");
	assert_non_null(g);
	if (sym_graph_n_errors(g) || sym_graph_shard(g, NULL) < 0)
		fail_msg("%s: %s", what,
		    sym_graph_diagnostic(g, sym_graph_n_diagnostics(g) - 1)
		        ->message);
	p = sym_plan_compile(g, 0);
	single = sym_plan_compile(g, SYM_PLAN_SINGLE);
	comm = sym_comm_threads_new(ctx, 8);
	assert_non_null(p);
	assert_non_null(single);
	assert_non_null(comm);
	for (size_t i = 0; i < n; i++) {
		b[i] = sym_binding_new(ctx);
		assert_non_null(b[i]);
		assert_int_equal(sym_binding_parse(b[i], bind[i], NULL), 0);
	}
	if (sym_exec_train_check(ctx, p, single, comm,
	        (const sym_binding *const *)b, n, &o, losses, rep) < 0)
		fail_msg("%s: %s", what, sym_ctx_last_message(ctx));
	assert_int_equal(rep->n_steps, n);
	if (check)
		check_report(rep, what);

	for (size_t i = 0; i < n; i++)
		sym_binding_free(b[i]);
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(single);
	sym_graph_free(g);
	assert_int_equal(sym_ctx_report_live(ctx, NULL), 0);
	sym_ctx_free(ctx);
}

/* run_text() on the graph "fmt" with optimizer "opt" and the sizes "bs"
 * of its one symbol, "b" or "t". */
static void
run(const char *fmt, const char *opt, const int64_t *bs, size_t n, double tol,
    int check, sym_train_report *rep, double *losses)
{
	char text[2048], bind[16][32];
	const char *bp[16];
	const char *sym = strstr(fmt, "symbol t ") ? "t" : "b";

	assert_true(n <= 16);
	snprintf(text, sizeof(text), fmt, opt);
	for (size_t i = 0; i < n; i++) {
		snprintf(bind[i], sizeof(bind[i]), "%s=%lld", sym,
		    (long long)bs[i]);
		bp[i] = bind[i];
	}
	run_text(text, opt, bp, n, tol, check, rep, losses);
}

/* Train as run() does and check that the loss of every step and every
 * param and optimizer state at the end agree within "tol"; the losses in
 * "losses". */
static void
train(const char *fmt, const char *opt, const int64_t *bs, size_t n, double tol,
    double *losses)
{
	sym_train_report r;

	run(fmt, opt, bs, n, tol, 1, &r, losses);
}

/* The pooling net trains on 8 ranks as on one device, step by step, to
 * 1e-9 in f64, data parallel and with the pooling split along channels
 * and spatial dimensions. */
static void
test_pool_net(void **state)
{
	static const char *const strat[2][3] = {
		{ "(8, 1, 1, 1)", "(8, 1, 1, 1)", "(8, 1, 1, 1)" },
		{ "(2, 1, 2, 2)", "(2, 4, 1, 1)", "(2, 1, 4, 1)" },
	};
	static const char *const bind[] = { "b=16", "b=8", "b=24", "b=16",
		"b=16", "b=16" };
	size_t n = sizeof(bind) / sizeof(bind[0]);
	char text[2048];
	double losses[6];
	sym_train_report r;

	(void)state;
	for (int i = 0; i < 2; i++) {
		snprintf(text, sizeof(text), pool_net, strat[i][0], strat[i][1],
		    strat[i][2], "momentum(lr=0.05, momentum=0.9)");
		run_text(text, strat[i][0], bind, n, 1e-9, 1, &r, losses);
		for (size_t k = 0; k < n; k++)
			assert_true(losses[k] > 0 && losses[k] < 10);
	}
}

/* Every optimizer trains the perceptron on 8 ranks as on one device, to
 * 1e-9 in f64, ten steps of batch sizes 2 to 24 on one plan. */
static void
test_optimizers(void **state)
{
	static const char *const opts[] = { "sgd(lr=0.05)",
		"sgd(0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)",
		"sgd(0.05, momentum=0.9, nesterov=true)",
		"momentum(lr=0.02, momentum=0.9, weight_decay=0.001)",
		"momentum(0.02, 0.9, nesterov=true)", "adam(lr=0.01)",
		"adam(0.01, weight_decay=0.1)", "adamw(lr=0.01)" };
	static const int64_t bs[] = { 8, 2, 24, 6, 16, 4, 10, 2, 12, 8 };

	(void)state;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		double loss[10];

		train(mlp, opts[i], bs, 10, 1e-9, loss);
	}
}

/* The tutorial network trains on 8 ranks with its strategies as on one
 * device (f32: the tolerance of sums in another order). The params
 * persist and move: on the same inputs, training with a learning rate of
 * 0 gives the losses of training with 0.1 at the first step only, bit
 * for bit. A tolerance too tight for f32 is
 * reported as a mismatch, so the comparison looks. */
static void
test_tutorial(void **state)
{
	static const int64_t bs[] = { 16, 8, 64, 40, 16, 8, 32, 24, 16, 8 };
	double a[10], z[10];
	sym_train_report r;

	(void)state;
	train(ffn, "momentum(lr=0.05, momentum=0.9)", bs, 10, 1e-4, a);
	train(ffn, "sgd(0.1)", bs, 10, 1e-4, a);
	train(ffn, "sgd(0)", bs, 10, 1e-4, z);
	assert_true(a[0] == z[0]);
	for (size_t i = 1; i < 10; i++)
		assert_true(a[i] != z[i]);
	run(ffn, "sgd(0.1)", bs, 10, 1e-15, 0, &r, a);
	assert_true(r.outputs.n_mismatch + r.params.n_mismatch > 0);
}

/* The step through the optimizer lists below: 1, or 3 when
 * SYMSHARD_EXEC_LIGHT is set (by make check-valgrind, where the full
 * lists take minutes): plain SGD, momentum with weight decay and Adam
 * with weight decay, one of each kind; make check and the sanitizer
 * builds run every one. */
static size_t
opt_stride(void)
{
	const char *v = getenv("SYMSHARD_EXEC_LIGHT");

	return v && *v && strcmp(v, "0") != 0 ? 3 : 1;
}

/* The optimizers of the tests below, one of each kind and option. */
static const char *const all_opts[] = { "sgd(lr=0.05)",
	"sgd(0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)",
	"sgd(0.05, momentum=0.9, nesterov=true)",
	"momentum(lr=0.02, momentum=0.9, weight_decay=0.001)",
	"momentum(0.02, 0.9, nesterov=true)", "adam(lr=0.01)",
	"adam(0.01, weight_decay=0.1)", "adamw(lr=0.01)" };

/* Train "fmt" with every optimizer for ten steps of the sizes "bs" on 8
 * ranks as on one device, to 1e-9 in f64, and check that the loss of the
 * last step is below that of the first (the sizes "bs" begin and end
 * with the same batch, for which the data are the same). */
static void
train_all(const char *fmt, const int64_t *bs)
{
	for (size_t i = 0; i < sizeof(all_opts) / sizeof(all_opts[0]);
	     i += opt_stride()) {
		double loss[10];

		train(fmt, all_opts[i], bs, 10, 1e-9, loss);
		if (!(loss[9] < loss[0]))
			fail_msg("%s: the loss went from %g to %g", all_opts[i],
			    loss[0], loss[9]);
	}
}

/* Megatron's tensor parallelism with data parallelism trains as on one
 * device with every optimizer, over ten batch sizes on one plan. */
static void
test_megatron(void **state)
{
	static const int64_t bs[] = { 16, 8, 40, 24, 64, 8, 32, 16, 48, 16 };

	(void)state;
	train_all(megatron, bs);
}

/* Sequence parallelism trains as on one device with every optimizer,
 * over ten token counts on one plan. */
static void
test_seqpar(void **state)
{
	static const int64_t ts[] = { 24, 8, 56, 16, 40, 8, 32, 64, 16, 24 };

	(void)state;
	train_all(seqpar, ts);
}

/* Read examples/"name".sg (under $top_srcdir) and append a squared
 * error of its output y against a target, the loss and "minimize" with
 * optimizer "opt"; the caller frees the text. */
static char *
example_text(const char *name, const char *opt)
{
	static const char tail[] = "input tgt : f64[s, b, 64]\n"
	                           "e = sub(y, tgt)\n"
	                           "sq = mul(e, e)\n"
	                           "loss = reduce_mean(sq)\n"
	                           "output loss\n"
	                           "minimize loss with %s\n";
	char path[4096];
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "examples/%s.sg", name);
	text = tl_read_source(path, &len);
	assert_true(len > 0);
	text = realloc(text, len + sizeof(tail) + strlen(opt) + 1);
	assert_non_null(text);
	sprintf(text + len, tail, opt);
	for (char *d = text; (d = strstr(d, "f32[")) != NULL; d += 4)
		d[1] = '6', d[2] = '4';
	return text;
}

/* The transformer blocks of examples/megatron.sg (tensor parallel) and
 * examples/seqpar.sg (sequence parallel, its row-parallel outputs
 * reduce-scattered) with a loss train on 8 ranks as on one device with
 * every optimizer, ten steps of different sequence lengths and batch
 * sizes on one plan each, to the tolerance of f32 sums in another
 * order. */
static void
test_examples(void **state)
{
	static const char *const names[] = { "megatron", "seqpar" };
	static const char *const opts[] = { "sgd(lr=0.002)",
		"sgd(0.002, momentum=0.9, dampening=0.1, weight_decay=0.01)",
		"sgd(0.002, momentum=0.9, nesterov=true)",
		"momentum(lr=0.001, momentum=0.9, weight_decay=0.001)",
		"momentum(0.001, 0.9, nesterov=true)", "adam(lr=0.001)",
		"adam(0.001, weight_decay=0.1)", "adamw(lr=0.001)" };
	static const char *const bind[] = { "s=16, b=2", "s=8, b=4",
		"s=64, b=2", "s=24, b=6", "s=32, b=2", "s=8, b=2", "s=40, b=4",
		"s=16, b=8", "s=56, b=2", "s=16, b=2" };

	(void)state;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]);
		     i += opt_stride()) {
			char *text = example_text(names[k], opts[i]);
			char what[128];
			double loss[10];
			sym_train_report r;

			snprintf(what, sizeof(what), "%s.sg, %s", names[k],
			    opts[i]);
			run_text(text, what, bind, 10, 1e-9, 1, &r, loss);
			if (!(loss[9] < loss[0]))
				fail_msg("%s: the loss went from %g to %g",
				    what, loss[0], loss[9]);
			free(text);
		}
}

/* Params by name on 8 ranks of the perceptron: every rank takes its
 * block of a whole tensor, the blocks placed back rebuild it, the block
 * of w1 (split 4 ways by columns) is a quarter of it; unknown names,
 * computed values, wrong sizes and an unprepared executor are errors. */
static void
test_params_by_name(void **state)
{
	char text[2048];
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g;
	sym_plan *p;
	sym_communicator *comm;
	sym_binding *b = sym_binding_new(ctx);
	sym_slices *sl;
	sym_exec *x[8];
	double whole[16 * 32], back[16 * 32], tiny[4];
	size_t bytes;

	(void)state;
	snprintf(text, sizeof(text), mlp, "adam(0.01)");
	g = sym_graph_parse(ctx, text, "train.sg");
	assert_non_null(g);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	p = sym_plan_compile(g, 0);
	assert_non_null(p);
	comm = sym_comm_threads_new(ctx, 8);
	assert_non_null(comm);
	sl = sym_slices_new(p);
	assert_int_equal(sym_binding_parse(b, "b=6", NULL), 0);
	assert_int_equal(sym_plan_bind(p, b, sl), 0);
	for (int r = 0; r < 8; r++) {
		x[r] = sym_exec_new(ctx, p, sym_comm_attach(ctx, comm, r));
		assert_non_null(x[r]);
	}
	assert_int_equal(sym_exec_set_whole(x[0], "w1", whole, sizeof(whole)),
	    -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "not prepared"));
	for (int r = 0; r < 8; r++)
		assert_int_equal(sym_exec_prepare(x[r], sl), 0);
	for (size_t i = 0; i < 16 * 32; i++)
		whole[i] = (double)i * 0.5 - 3;
	for (int r = 0; r < 8; r++)
		assert_int_equal(sym_exec_set_whole(x[r], "w1", whole,
		                     sizeof(whole)),
		    0);
	assert_non_null(sym_exec_value_data(x[3], "w1", &bytes));
	assert_int_equal(bytes, sizeof(whole) / 4);
	memset(back, 0, sizeof(back));
	for (int r = 0; r < 8; r++)
		assert_int_equal(sym_exec_get_whole(x[r], "w1", back,
		                     sizeof(back)),
		    0);
	assert_memory_equal(back, whole, sizeof(whole));
	assert_non_null(sym_exec_value_data(x[0], "w1.adam_m", &bytes));
	assert_int_equal(bytes, sizeof(whole) / 4);

	assert_null(sym_exec_value_data(x[0], "nope", &bytes));
	assert_int_equal(bytes, 0);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "no value 'nope'"));
	assert_int_equal(sym_exec_get_whole(x[0], "h", back, sizeof(back)), -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "is computed"));
	assert_int_equal(sym_exec_set_whole(x[0], "b1", tiny, sizeof(tiny)),
	    -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "'b1' has 256 bytes whole, not 32"));

	for (int r = 0; r < 8; r++)
		sym_exec_free(x[r]);
	sym_slices_free(sl);
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_binding_free(b);
	sym_graph_free(g);
	assert_int_equal(sym_ctx_report_live(ctx, NULL), 0);
	sym_ctx_free(ctx);
}

/* Vocabulary parallelism (Megatron) in f64: an embedding table and a
 * gathered table split along their vocabulary (4 and 8 ways: each rank
 * looks up the ids of its rows, the partial sums all-reduced; the
 * backward scatters into the local rows only), a matmul and a cross
 * entropy whose labels partly equal an explicit ignore_index (labels in
 * [0, 4) through an identity, 3 classes: about a quarter of the rows
 * ignored, counted over the whole batch); "%s" is the optimizer. */
static const char vocab[] =
    "devices 8\n"
    "symbol b divisor=8\n"
    "input  ids : i32[b]\n"
    "input  y   : i32[b]\n"
    "param  wte : f64[32, 8]  init=normal(sigma=0.5)\n"
    "param  tab : f64[40, 6]  init=uniform(scale=0.5)\n"
    "param  w   : f64[14, 3]  init=xavier_uniform\n"
    "e   = embedding(ids, wte)     shard ((2,), (4, 1))\n"
    "q   = gather(tab, ids)        shard ((8, 1), (1,))\n"
    "c   = concat(e, q, axis=1)\n"
    "lg  = matmul(c, w)            shard ((8, 1), (1, 1))\n"
    "lab = identity(y)\n"
    "loss = softmax_cross_entropy(lg, lab, ignore_index=3)\n"
    "output loss\n"
    "minimize loss with %s\n";

/* The vocabulary-parallel embedding and gather train on 8 ranks as on
 * one device, to 1e-9 in f64, with ignored rows, for two optimizers. */
static void
test_vocab(void **state)
{
	static const int64_t bs[] = { 16, 8, 24, 16, 8, 32, 16, 8 };
	double loss[8];

	(void)state;
	train(vocab, "sgd(lr=0.5)", bs, 8, 1e-9, loss);
	train(vocab, "adam(lr=0.05)", bs, 8, 1e-9, loss);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optimizers),
		cmocka_unit_test(test_tutorial),
		cmocka_unit_test(test_megatron),
		cmocka_unit_test(test_seqpar),
		cmocka_unit_test(test_pool_net),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_params_by_name),
		cmocka_unit_test(test_vocab),
	};

	return cmocka_run_group_tests_name("train", tests, NULL, NULL);
}
