/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor through its API: the examples' graphs on 8
 * threads (sym_exec_check, several bindings on one plan) agree with the
 * single device; a corrupted plan is caught; a binding the graph forbids
 * runs nothing; options of an unknown size are refused; a rank that
 * fails, or never starts, does not hang the others; buffers are kept
 * across bindings; inputs are deterministic and within what indexes with
 * them. The redistribution steps themselves are tested by
 * tests/test_exec_redist.c.
 */
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <symshard.h>

#include "exec/exec_private.h"
#include "testlib.h"

#define MAX_RANKS 8
#define MAX_DIMS 3
/* Return 1 when the environment asks for a lighter run
 * (SYMSHARD_EXEC_LIGHT=1, set by make check-valgrind, where BLAS is
 * hundreds of times slower): fewer random cases, no transformer. */
static int
light(void)
{
	const char *v = getenv("SYMSHARD_EXEC_LIGHT");

	return v && *v && strcmp(v, "0") != 0;
}

/* ---- The executor ------------------------------------------------------ */

/* A graph sharded and compiled twice (sharded and single), and a threads
 * communicator of as many ranks as the sharded plan. */
struct compiled {
	sym_ctx *ctx;
	sym_graph *g;
	sym_plan *p, *single;
	sym_communicator *comm;
};

/* Parse "text" (named "file"), shard and compile it into "c". */
static void
compile_text(struct compiled *c, const char *text, const char *file)
{
	memset(c, 0, sizeof(*c));
	c->ctx = sym_ctx_new();
	assert_non_null(c->ctx);
	c->g = sym_graph_parse(c->ctx, text, file);
	assert_non_null(c->g);
	if (sym_graph_n_errors(c->g) != 0)
		fail_msg("%s: %zu errors", file, sym_graph_n_errors(c->g));
	if (sym_graph_shard(c->g, NULL) != 0)
		fail_msg("%s: %s", file, sym_ctx_last_message(c->ctx));
	c->p = sym_plan_compile(c->g, 0);
	c->single = sym_plan_compile(c->g, SYM_PLAN_SINGLE);
	if (!c->p || !c->single)
		fail_msg("%s: %s", file, sym_ctx_last_message(c->ctx));
	c->comm = sym_comm_threads_new(c->ctx, (int)sym_plan_n_ranks(c->p));
	assert_non_null(c->comm);
	assert_int_equal(sym_comm_set_option(c->comm, SYM_COMM_OPT_TIMEOUT_MS,
	                     20000),
	    0);
}

/* Compile examples/"name".sg into "c". */
static void
compile_example(struct compiled *c, const char *name)
{
	char path[4096], file[64], *text;

	snprintf(path, sizeof(path), "examples/%s.sg", name);
	snprintf(file, sizeof(file), "%s.sg", name);
	text = tl_read_source(path, NULL);
	compile_text(c, text, file);
	free(text);
}

/* Release what "c" holds and check that nothing else is left. */
static void
compiled_clear(struct compiled *c)
{
	sym_comm_free(c->comm);
	sym_plan_free(c->p);
	sym_plan_free(c->single);
	sym_graph_free(c->g);
	tl_ctx_free(c->ctx);
}

/* What the progress callback saw. */
struct progress {
	size_t calls, last, n;
	int out_of_order;
};

/* The progress callback: count the calls of "arg" (a struct progress). */
static void
on_progress(void *arg, size_t step, size_t n_steps)
{
	struct progress *pr = arg;

	if (step != pr->calls)
		pr->out_of_order = 1;
	pr->calls++;
	pr->last = step;
	pr->n = n_steps;
}

/* Return a new binding of "c" parsed from "text". */
static sym_binding *
binding(struct compiled *c, const char *text)
{
	sym_binding *b = sym_binding_new(c->ctx);

	assert_non_null(b);
	if (sym_binding_parse(b, text, NULL) < 0)
		fail_msg("binding %s: %s", text, sym_ctx_last_message(c->ctx));
	return b;
}

/* Check "c" bound by "text" (seed 7) and return the report; fail unless
 * both runs ran, every rank-0 step was reported once and in order, and
 * no element differs beyond the default tolerance. */
static sym_exec_report
check_agrees(struct compiled *c, const char *text)
{
	sym_exec_options o = { .size = sizeof(o), .seed = 7 };
	struct progress pr = { 0 };
	sym_binding *b = binding(c, text);
	sym_exec_report r;

	o.progress = on_progress;
	o.progress_arg = &pr;
	if (sym_exec_check(c->ctx, c->p, c->single, c->comm, b, &o, &r) != 0)
		fail_msg("%s: %s", text, sym_ctx_last_message(c->ctx));
	sym_binding_free(b);
	if (r.n_mismatch != 0)
		fail_msg("%s: %lld mismatches, max |diff| %g at %s[%lld]", text,
		    (long long)r.n_mismatch, r.max_abs,
		    r.worst ? sym_value_name(r.worst) : "?",
		    (long long)r.worst_index);
	assert_int_equal(pr.calls, sym_plan_n_steps(c->p));
	assert_int_equal(pr.n, sym_plan_n_steps(c->p));
	assert_false(pr.out_of_order);
	assert_true(r.sharded_seconds > 0 && r.single_seconds > 0);
	printf("# %s: max |diff| %.3g, max rel %.3g, sharded %.3f ms, "
	       "single %.3f ms\n",
	    text, r.max_abs, r.max_rel, 1e3 * r.sharded_seconds,
	    1e3 * r.single_seconds);
	return r;
}

/* The network of examples/ffn.sg on 8 threads for three batch sizes on
 * one plan agrees with one device; b = 12 breaks divisor=8 and runs
 * nothing. */
static void
test_ffn(void **state)
{
	struct compiled c;
	struct progress pr = { 0 };
	sym_exec_options o = { .size = sizeof(o), .seed = 7 };
	sym_exec_report r;
	sym_binding *b;

	(void)state;
	compile_example(&c, "ffn");
	assert_int_equal(sym_plan_n_ranks(c.p), 8);
	check_agrees(&c, "b=8");
	check_agrees(&c, "b=64");
	r = check_agrees(&c, "b=40");
	assert_true(r.max_abs < 1e-3);
	b = binding(&c, "b=12");
	o.progress = on_progress;
	o.progress_arg = &pr;
	assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b, &o,
	                     &r),
	    -1);
	assert_string_equal(sym_ctx_last_message(c.ctx),
	    "b = 12 violates divisor=8 declared at ffn.sg:3:8");
	assert_int_equal(pr.calls, 0);
	sym_binding_free(b);
	compiled_clear(&c);
}

/* Store in "split" ("n" counts) a random strategy over at most 8
 * devices drawn from "*seed": powers of two whose product divides 8,
 * dimension d split at most "most"[d] ways, the dimensions taken from a
 * random one on. */
static void
random_split(uint64_t *seed, int64_t *split, size_t n, const int64_t *most)
{
	int64_t left = 8;

	size_t first;

	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	first = (size_t)(*seed >> 40) % n;
	for (size_t i = 0; i < n; i++) {
		size_t d = (first + i) % n;
		int64_t k = 1;

		*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
		for (unsigned r = (unsigned)(*seed >> 60) % 4; r > 0; r--)
			if (k * 2 <= left && k * 2 <= most[d])
				k *= 2;
		split[d] = k;
		left /= k;
	}
}

/* Pooling and dropout under random strategies (batch, channels, and the
 * spatial dimensions where the windows tile them) agree with one
 * device, at two batch sizes on one plan. */
static void
test_pool_random(void **state)
{
	static const int64_t most[4][4] = { { 8, 8, 4, 4 }, { 8, 8, 1, 1 },
		{ 8, 8, 4, 4 }, { 8, 8, 1, 1 } };
	uint64_t seed = 11;

	(void)state;
	for (int iter = 0; iter < 6; iter++) {
		char text[1024], st[4][32];
		struct compiled c;

		for (int k = 0; k < 4; k++) {
			int64_t sp[4];

			random_split(&seed, sp, 4, most[k]);
			snprintf(st[k], sizeof(st[k]),
			    "(%lld, %lld, %lld, %lld)", (long long)sp[0],
			    (long long)sp[1], (long long)sp[2],
			    (long long)sp[3]);
		}
		snprintf(text, sizeof(text),
		    "devices 8\n"
		    "symbol b divisor=8\n"
		    "input x : f32[b, 8, 8, 8]\n"
		    "m = max_pool2d(x, kernel=2) shard (%s,)\n"
		    "a = avg_pool2d(x, kernel=3, stride=2, pad=1, "
		    "ceil_mode=true) shard (%s,)\n"
		    "g = global_avg_pool(m) shard (%s,)\n"
		    "d = dropout(a, p=0.3) shard (%s,)\n"
		    "output m\noutput a\noutput g\noutput d\n",
		    st[0], st[1], st[2], st[3]);
		printf("# %s %s %s %s\n", st[0], st[1], st[2], st[3]);
		compile_text(&c, text, "pool.sg");
		check_agrees(&c, "b=8");
		check_agrees(&c, "b=16");
		compiled_clear(&c);
	}
}

/* The other examples agree with one device: the layout example (a
 * reduce_scatter), the tensor-parallel MLP (an all_reduce), a
 * Megatron-style block (two all_reduces) and a transformer block with
 * dynamic batch and sequence. */
static void
test_examples(void **state)
{
	struct compiled c;

	(void)state;
	compile_example(&c, "layout");
	check_agrees(&c, "");
	compiled_clear(&c);
	compile_example(&c, "tp_mlp");
	check_agrees(&c, "b=8");
	if (!light())
		check_agrees(&c, "b=24");
	compiled_clear(&c);
	compile_example(&c, "megatron");
	check_agrees(&c, "b=2, s=8");
	check_agrees(&c, "b=6, s=64");
	compiled_clear(&c);
	compile_example(&c, "transformer");
	if (light())
		printf("# transformer: compiled only (SYMSHARD_EXEC_LIGHT)\n");
	else
		check_agrees(&c, "b=8, s=128");
	compiled_clear(&c);
}

/* Strategies that need a permute, all_to_all over two axes, an
 * all_gather and a slice, and a mean over a split axis (partial means
 * resolved by an all_reduce). */
static const char moves[] = "devices 8\n"
                            "mesh m = (dp=2, mp=4)\n"
                            "symbol b divisor=8\n"
                            "input x : f32[b, 32]\n"
                            "a = relu(x) shard (m((dp, mp), None),)\n"
                            "p = relu(a) shard (m((mp, dp), None),)\n"
                            "c = relu(p) shard (m(None, (dp, mp)),)\n"
                            "d = exp(c) shard (m(dp, None),)\n"
                            "s = reduce_mean(d, axis=1) shard (m(dp, mp),)\n"
                            "output s\n";

/* Integer inputs that index: embedding ids (64 rows), labels for
 * one_hot (depth 16) and a gather (64 rows), a mean over a split axis. */
static const char indices[] = "devices 8\n"
                              "symbol b divisor=8\n"
                              "input ids : i32[b]\n"
                              "param table : f32[64, 16]\n"
                              "input lab : i32[b]\n"
                              "e = embedding(ids, table) shard ((8,), (1, 1))\n"
                              "h = one_hot(lab, depth=16)\n"
                              "g = gather(table, lab, axis=0)\n"
                              "m = mul(e, h)\n"
                              "n = add(m, g)\n"
                              "r = reduce_mean(n, axis=1) shard ((1, 8),)\n"
                              "output r\n";

/* Return 1 when step kind "k" of a communication occurs in "p". */
static int
has_comm(const sym_plan *p, sym_redist_kind k)
{
	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		const sym_plan_step *ps = sym_plan_get_step(p, i);

		if (ps->kind == SYM_PLAN_COMM && ps->comm == k)
			return 1;
	}
	return 0;
}

/* Graphs whose plans move data in every way the planner knows, and whose
 * integer inputs index tables and classes, agree with one device; the
 * integer inputs stay within what they index. */
static void
test_moves(void **state)
{
	struct compiled c;
	sym_exec *x;
	sym_slices *s;
	sym_binding *b;
	size_t bytes = 0;
	const int32_t *v;

	(void)state;
	compile_text(&c, moves, "moves.sg");
	assert_true(has_comm(c.p, SYM_REDIST_PERMUTE));
	assert_true(has_comm(c.p, SYM_REDIST_ALL_TO_ALL));
	assert_true(has_comm(c.p, SYM_REDIST_ALL_GATHER));
	assert_true(has_comm(c.p, SYM_REDIST_SLICE));
	assert_true(has_comm(c.p, SYM_REDIST_ALL_REDUCE));
	check_agrees(&c, "b=16");
	check_agrees(&c, "b=8");
	compiled_clear(&c);
	compile_text(&c, indices, "indices.sg");
	check_agrees(&c, "b=32");
	x = sym_exec_new(c.ctx, c.single, NULL);
	s = sym_slices_new(c.single);
	b = binding(&c, "b=64");
	assert_int_equal(sym_plan_bind(c.single, b, s), 0);
	assert_int_equal(sym_exec_prepare(x, s), 0);
	assert_int_equal(sym_exec_fill(x, 11), 0);
	v = sym_exec_data(x,
	    sym_plan_value_tensor(c.single, sym_graph_find_value(c.g, "ids")),
	    &bytes);
	assert_int_equal(bytes, 64 * 4);
	for (int i = 0; i < 64; i++)
		assert_true(v[i] >= 0 && v[i] < 64);
	v = sym_exec_data(x,
	    sym_plan_value_tensor(c.single, sym_graph_find_value(c.g, "lab")),
	    &bytes);
	for (int i = 0; i < 64; i++)
		assert_true(v[i] >= 0 && v[i] < 16);
	assert_int_equal(sym_exec_run(x), 0);
	sym_exec_free(x);
	sym_binding_free(b);
	sym_slices_free(s);
	compiled_clear(&c);
}

/* A small graph on 8 devices whose two unary operators take the same
 * shapes: the plan is corrupted by making the step of "a" run the kernel
 * of "n", and the check must see the difference. */
static const char two_unary[] = "devices 8\n"
                                "symbol b divisor=8\n"
                                "input x : f32[b, 16]\n"
                                "a = relu(x) shard ((8, 1),)\n"
                                "n = neg(x) shard ((8, 1),)\n"
                                "y = add(a, n)\n"
                                "output y\n";

/* Return the kernel step of "p" whose node produces "name". */
static sym_plan_step *
kernel_step(const sym_plan *p, const char *name)
{
	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		const sym_plan_step *ps = sym_plan_get_step(p, i);

		if (ps->kind == SYM_PLAN_KERNEL &&
		    !strcmp(sym_value_name(sym_node_output(ps->node, 0)), name))
			return (sym_plan_step *)ps;
	}
	fail_msg("no kernel step for %s", name);
	return NULL;
}

/* The comparison detects a difference: the corrupted plan mismatches
 * (every element where x > 0), the intact one does not. */
static void
test_detects(void **state)
{
	struct compiled c;
	sym_exec_options o = {
		.size = sizeof(o), .seed = 3, .rtol = 1e-6, .atol = 1e-7
	};
	sym_exec_report r;
	sym_binding *b;
	sym_plan_step *sa;
	const sym_node *keep;

	(void)state;
	compile_text(&c, two_unary, "two.sg");
	b = binding(&c, "b=16");
	assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b, &o,
	                     &r),
	    0);
	assert_int_equal(r.n_mismatch, 0);
	assert_true(r.max_abs == 0.0);
	sa = kernel_step(c.p, "a");
	keep = sa->node;
	sa->node = kernel_step(c.p, "n")->node;
	assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b, &o,
	                     &r),
	    0);
	sa->node = keep;
	/* relu(x) + neg(x) is 0 or -x; neg(x) + neg(x) is -2x: they differ
	 * wherever x is not 0. */
	assert_true(r.n_mismatch > 16 * 16 * 9 / 10);
	assert_true(r.n_mismatch <= 16 * 16);
	assert_non_null(r.worst);
	assert_string_equal(sym_value_name(r.worst), "y");
	assert_true(r.max_abs > 0.5 && r.max_abs <= 2.0);
	assert_true(r.worst_index >= 0 && r.worst_index < 16 * 16);
	sym_binding_free(b);
	compiled_clear(&c);
}

/* Outputs that are infinite or NaN on both sides: x / (x - x) is +inf,
 * -inf or (where x is 0) NaN, the same on 2 ranks as on one. */
static const char infinities[] = "devices 2\n"
                                 "input x : f32[4, 2]\n"
                                 "z = sub(x, x)\n"
                                 "y = div(x, z) shard ((2, 1), (2, 1))\n"
                                 "n = div(z, z) shard ((2, 1), (2, 1))\n"
                                 "output y, n\n";

/* Equal infinities and NaNs on both sides agree: they used to count as
 * mismatches, inf - inf being NaN. */
static void
test_infinities(void **state)
{
	struct compiled c;
	sym_exec_report r;
	sym_binding *b;

	(void)state;
	compile_text(&c, infinities, "inf.sg");
	b = binding(&c, "");
	assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b, NULL,
	                     &r),
	    0);
	assert_int_equal(r.n_mismatch, 0);
	assert_true(r.max_abs == 0.0);
	assert_null(r.worst);
	assert_int_equal(r.worst_index, -1);
	sym_binding_free(b);
	compiled_clear(&c);
}

/* Options of an unknown size are refused with SYM_EINVAL by both checks
 * and nothing runs; a shorter structure (an older version's) leaves the
 * members it lacks at their defaults: the progress callback past its end
 * is never called, while the full structure's is. */
static void
test_options_size(void **state)
{
	static const size_t bad[] = { 0, sizeof(size_t) - 1,
		sizeof(sym_exec_options) + 1, SIZE_MAX };
	sym_exec_options o = SYM_EXEC_OPTIONS_INIT;
	struct progress pr = { 0 };
	sym_train_report tr;
	struct compiled c;
	sym_exec_report r;
	sym_binding *b;

	(void)state;
	compile_text(&c, infinities, "inf.sg");
	b = binding(&c, "");
	o.progress = on_progress;
	o.progress_arg = &pr;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.size = bad[i];
		sym_ctx_clear_error(c.ctx);
		assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b,
		                     &o, &r),
		    -1);
		assert_int_equal(sym_ctx_last_error(c.ctx), SYM_EINVAL);
		assert_non_null(strstr(sym_ctx_last_message(c.ctx),
		    "check: options of an unknown size"));
		assert_non_null(strstr(sym_ctx_last_message(c.ctx),
		    "SYM_EXEC_OPTIONS_INIT"));
		sym_ctx_clear_error(c.ctx);
		assert_int_equal(sym_exec_train_check(c.ctx, c.p, c.single,
		                     c.comm, NULL, 0, &o, NULL, &tr),
		    -1);
		assert_int_equal(sym_ctx_last_error(c.ctx), SYM_EINVAL);
		assert_non_null(strstr(sym_ctx_last_message(c.ctx),
		    "train check: options of an unknown size"));
	}
	assert_int_equal(pr.calls, 0);
	o.size = offsetof(sym_exec_options, progress);
	sym_ctx_clear_error(c.ctx);
	assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b, &o,
	                     &r),
	    0);
	assert_int_equal(r.n_mismatch, 0);
	assert_int_equal(pr.calls, 0);
	o.size = sizeof(o);
	assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b, &o,
	                     &r),
	    0);
	assert_int_equal(pr.calls, sym_plan_n_steps(c.p));
	sym_binding_free(b);
	compiled_clear(&c);
}

/* A rank of ffn whose labels are out of range fails its kernel with a
 * located message while the others finish without waiting for the
 * communicator's timeout. */
struct frank {
	struct compiled *c;
	sym_slices *s;
	int corrupt;
	int rc;
	char msg[512];
};

/* Run rank "m" of the ffn executor of "arg" (a struct frank), its labels
 * corrupted on rank arg->corrupt; return 0 or -1. */
static int
run_ffn_rank(struct tl_member *m, void *arg)
{
	struct frank *f = arg;
	sym_exec *x = sym_exec_new(m->ctx, f[m->rank].c->p, m->ep);
	const sym_value *y = sym_graph_find_value(f->c->g, "y");
	size_t bytes = 0;
	int32_t *lab;

	if (!x || sym_exec_prepare(x, f->s) < 0 || sym_exec_fill(x, 5) < 0)
		return tl_failed(m, "setup: %s", sym_ctx_last_message(m->ctx));
	assert_int_equal(sym_exec_rank(x), m->rank);
	lab = sym_exec_data(x, sym_plan_value_tensor(f->c->p, y), &bytes);
	if (!lab || bytes < 4)
		return tl_failed(m, "no labels");
	for (size_t i = 0; i < bytes / 4; i++)
		if (lab[i] < 0 || lab[i] >= 10)
			return tl_failed(m, "label %d out of [0, 10)", lab[i]);
	if (m->rank == f->corrupt)
		lab[0] = 1000;
	f[m->rank].rc = sym_exec_run(x);
	snprintf(f[m->rank].msg, sizeof(f->msg), "%s",
	    f[m->rank].rc ? sym_ctx_last_message(m->ctx) : "");
	sym_exec_free(x);
	return 0;
}

/* An allocation that fails says how many bytes it asked for and what for,
 * or that their number overflows. */
static void
test_oom_messages(void **state)
{
	sym_ctx *ctx = sym_ctx_new();

	(void)state;
	assert_non_null(ctx);
	sym__oom_bytes(ctx, 3, 8, "check: output y");
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ENOMEM);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "out of memory: cannot allocate 24 bytes for check: output y");
	sym__oom_bytes(ctx, SIZE_MAX, 2, "check: output y");
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ENOMEM);
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "times 2 bytes for check: output y overflow"));
	sym_ctx_free(ctx);
}

/* An array whose size overflows is refused with SYM_ENOMEM on the
 * context; an empty one is a valid allocation that records nothing. */
static void
test_calloc_records(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char *p;

	(void)state;
	assert_non_null(ctx);
	assert_null(sym__calloc(ctx, SIZE_MAX / 2 + 1, 2));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ENOMEM);
	assert_string_equal(sym_ctx_last_message(ctx), "out of memory");
	sym_ctx_clear_error(ctx);
	p = sym__calloc(ctx, 0, 8);
	assert_non_null(p);
	free(p);
	p = sym__asprintf_ctx(ctx, "%s %d", "x", 3);
	assert_string_equal(p, "x 3");
	free(p);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	sym_ctx_free(ctx);
}

/* A failing rank lets the others finish; a rank that cannot start (its
 * handle is held elsewhere) makes sym_exec_check fail at once. */
static void
test_failing_rank(void **state)
{
	struct compiled c;
	struct tl_team t;
	struct frank f[MAX_RANKS];
	sym_binding *b;
	sym_slices *s;
	sym_exec_report r;
	sym_comm_endpoint *held;
	double t0;
	int n_failed = 0;

	(void)state;
	compile_example(&c, "ffn");
	tl_team_init(&t, MAX_RANKS, 20000);
	s = sym_slices_new(c.p);
	b = binding(&c, "b=16");
	assert_int_equal(sym_plan_bind(c.p, b, s), 0);
	for (int k = 0; k < MAX_RANKS; k++)
		f[k] = (struct frank){ .c = &c, .s = s, .corrupt = 3 };
	t0 = (double)time(NULL);
	tl_team_run(&t, MAX_RANKS, run_ffn_rank, f);
	assert_true((double)time(NULL) - t0 < 10);
	assert_int_equal(f[3].rc, -1);
	for (int k = 0; k < MAX_RANKS; k++) {
		if (!f[k].rc)
			continue;
		n_failed++;
		if (!strstr(f[k].msg, "ffn.sg:17:10: ") ||
		    !strstr(f[k].msg, "softmax_cross_entropy loss (step ") ||
		    !strstr(f[k].msg, "label 1000 of row"))
			fail_msg("rank %d: '%s'", k, f[k].msg);
	}
	printf("# %d of 8 ranks saw the bad label: %s\n", n_failed, f[3].msg);
	/* Rank 5 is held by this thread: its job cannot attach, nobody
	 * runs, the check fails at once. */
	held = sym_comm_attach(c.ctx, c.comm, 5);
	assert_non_null(held);
	t0 = (double)time(NULL);
	assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b, NULL,
	                     &r),
	    -1);
	assert_true((double)time(NULL) - t0 < 10);
	assert_non_null(strstr(sym_ctx_last_message(c.ctx),
	    "rank 5: attach: rank 5 is already attached"));
	sym_comm_detach(held);
	assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b, NULL,
	                     &r),
	    0);
	assert_int_equal(r.n_mismatch, 0);
	sym_binding_free(b);
	sym_slices_free(s);
	tl_team_clear(&t);
	compiled_clear(&c);
}

/* What one rank of the narrow-sum test computes: the plan and slices,
 * the dtype, the input value, and the first output element it got. */
struct wrank {
	struct compiled *c;
	sym_slices *s;
	int32_t in, out;
};

/* Run rank "m" of the graph of "arg" (a struct wrank per rank): every
 * element of its block of x set to arg->in, y's first element kept;
 * return 0 or -1. */
static int
run_wrap_rank(struct tl_member *m, void *arg)
{
	struct wrank *w = &((struct wrank *)arg)[m->rank];
	const sym_plan *p = w->c->p;
	sym_exec *x = sym_exec_new(m->ctx, p, m->ep);
	size_t bytes = 0, yb = 0;
	int32_t *xv, *yv;

	if (!x || sym_exec_prepare(x, w->s) < 0)
		return tl_failed(m, "setup: %s", sym_ctx_last_message(m->ctx));
	xv = sym_exec_data(x,
	    sym_plan_value_tensor(p, sym_graph_find_value(w->c->g, "x")),
	    &bytes);
	for (size_t i = 0; xv && i < bytes / 4; i++)
		xv[i] = w->in;
	if (!xv || sym_exec_run(x) < 0) {
		sym_exec_free(x);
		return tl_failed(m, "run: %s", sym_ctx_last_message(m->ctx));
	}
	yv = sym_exec_data(x,
	    sym_plan_value_tensor(p, sym_graph_find_value(w->c->g, "y")), &yb);
	w->out = yv && yb >= 4 ? yv[0] : INT32_MAX;
	sym_exec_free(x);
	return 0;
}

/* Integer partial sums added across ranks wrap to the width of their
 * dtype like the kernels' sums: an i8 row of eight 25s summed on two
 * ranks (100 each, then an all_reduce) is 200 - 256 = -56 on every rank,
 * as NumPy's sum in int8; a u8 row of 250s gives 8 * 250 mod 256 = 208
 * and an i16 row of 5000s 40000 - 65536 = -25536. */
static void
test_narrow_partial_sums(void **state)
{
	static const struct {
		const char *dt;
		int32_t in, want;
	} cases[] = { { "i8", 25, -56 }, { "u8", 250, 208 },
		{ "i16", 5000, -25536 } };
	struct tl_team t;

	(void)state;
	tl_team_init(&t, MAX_RANKS, 20000);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct compiled c;
		struct wrank w[2];
		sym_binding *b;
		char text[256];

		snprintf(text, sizeof(text),
		    "devices 2\ninput x : %s[1, 8]\n"
		    "y = reduce_sum(x, axis=[1]) shard ((1, 2),)\noutput y\n",
		    cases[k].dt);
		compile_text(&c, text, "wrap.sg");
		b = binding(&c, "");
		w[0] = (struct wrank){
			.c = &c, .s = sym_slices_new(c.p), .in = cases[k].in
		};
		assert_non_null(w[0].s);
		assert_int_equal(sym_plan_bind(c.p, b, w[0].s), 0);
		w[1] = w[0];
		tl_team_run(&t, 2, run_wrap_rank, w);
		for (int r = 0; r < 2; r++)
			if (w[r].out != cases[k].want)
				fail_msg("%s: rank %d has %d, not %d",
				    cases[k].dt, r, w[r].out, cases[k].want);
		sym_slices_free(w[0].s);
		sym_binding_free(b);
		compiled_clear(&c);
	}
	tl_team_clear(&t);
}

/* The executor's API on one rank: errors before prepare and with
 * unbound slices, buffers kept across bindings (none reallocated for a
 * smaller or equal batch), deterministic inputs within their ranges. */
static void
test_exec_api(void **state)
{
	struct compiled c;
	sym_exec *x, *x2;
	sym_slices *s;
	sym_binding *b64, *b8, *b12;
	size_t n, bytes = 0, ty, tx;
	void **ptr;
	float *xv;
	int32_t *yv;

	(void)state;
	compile_example(&c, "ffn");
	x = sym_exec_new(c.ctx, c.single, NULL);
	assert_non_null(x);
	assert_int_equal(sym_exec_rank(x), 0);
	assert_int_equal(sym_exec_run(x), -1);
	assert_string_equal(sym_ctx_last_message(c.ctx),
	    "executor: run before prepare");
	assert_int_equal(sym_exec_fill(x, 1), -1);
	assert_null(sym_exec_data(x, 0, NULL));
	s = sym_slices_new(c.single);
	b12 = binding(&c, "b=12");
	assert_int_equal(sym_plan_bind(c.single, b12, s), -1);
	assert_int_equal(sym_exec_prepare(x, s), -1);
	assert_string_equal(sym_ctx_last_message(c.ctx),
	    "executor: the slices are not bound: b = 12 violates divisor=8 "
	    "declared at ffn.sg:3:8");
	b64 = binding(&c, "b=64");
	b8 = binding(&c, "b=8");
	assert_int_equal(sym_plan_bind(c.single, b64, s), 0);
	assert_int_equal(sym_exec_prepare(x, s), 0);
	n = sym_plan_n_tensors(c.single);
	ptr = calloc(n, sizeof(*ptr));
	assert_non_null(ptr);
	for (size_t t = 0; t < n; t++)
		assert_non_null(ptr[t] = sym_exec_data(x, t, NULL));
	/* x2 = reshape(x) shares the buffer of x. */
	assert_ptr_equal(ptr[sym_plan_value_tensor(c.single,
	                     sym_graph_find_value(c.g, "x2"))],
	    ptr[sym_plan_value_tensor(c.single,
	        sym_graph_find_value(c.g, "x"))]);
	assert_null(sym_exec_data(x, n, &bytes));
	assert_int_equal(bytes, 0);
	assert_int_equal(sym_exec_fill(x, 9), 0);
	assert_int_equal(sym_exec_run(x), 0);
	assert_int_equal(sym_plan_bind(c.single, b8, s), 0);
	assert_int_equal(sym_exec_prepare(x, s), 0);
	for (size_t t = 0; t < n; t++)
		assert_ptr_equal(sym_exec_data(x, t, NULL), ptr[t]);
	assert_int_equal(sym_exec_fill(x, 9), 0);
	assert_int_equal(sym_exec_run(x), 0);
	/* Inputs: floats in [-1, 1), labels in [0, 10), the same on a
	 * second executor, others with another seed. */
	tx = sym_plan_value_tensor(c.single, sym_graph_find_value(c.g, "x"));
	ty = sym_plan_value_tensor(c.single, sym_graph_find_value(c.g, "y"));
	xv = sym_exec_data(x, tx, &bytes);
	assert_int_equal(bytes, 8 * 784 * 4);
	yv = sym_exec_data(x, ty, &bytes);
	assert_int_equal(bytes, 8 * 4);
	for (int i = 0; i < 8 * 784; i++)
		assert_true(xv[i] >= -1.0f && xv[i] < 1.0f);
	for (int i = 0; i < 8; i++)
		assert_true(yv[i] >= 0 && yv[i] < 10);
	x2 = sym_exec_new(c.ctx, c.single, NULL);
	assert_non_null(x2);
	assert_int_equal(sym_exec_prepare(x2, s), 0);
	assert_int_equal(sym_exec_fill(x2, 9), 0);
	assert_memory_equal(sym_exec_data(x2, tx, NULL), xv, 8 * 784 * 4);
	assert_int_equal(sym_exec_fill(x2, 10), 0);
	assert_memory_not_equal(sym_exec_data(x2, tx, NULL), xv, 8 * 784 * 4);
	sym_exec_free(x2);
	free(ptr);
	sym_binding_free(b64);
	sym_binding_free(b8);
	sym_binding_free(b12);
	sym_slices_free(s);
	sym_exec_free(x);
	compiled_clear(&c);
}

/* Kernels that need temporary memory (conv2d by im2col, the loss, a
 * softmax along columns and a log_softmax along axes apart, sums and
 * means) after communication steps, with a dynamic batch. */
static const char scratchy[] =
    "devices 8\n"
    "symbol b divisor=8\n"
    "input img : f32[b, 2, 6, 6]\n"
    "input lab : i32[b]\n"
    "param k : f32[4, 2, 3, 3]\n"
    "param w : f32[64, 10]\n"
    "c = conv2d(img, k) shard ((8, 1, 1, 1), (1, 1, 1, 1))\n"
    "f = reshape(c, [-1, 64])\n"
    "t = softmax(f, axis=0)\n"
    "u = log_softmax(c, axis=[1, 3])\n"
    "s = reduce_sum(u, axis=[1, 2, 3])\n"
    "m = matmul(t, w) shard ((1, 8), (8, 1))\n"
    "r = reduce_mean(m, axis=1)\n"
    "loss = softmax_cross_entropy(m, lab)\n"
    "output loss\n"
    "output r\n"
    "output s\n";

/* A plan run for b = 8, 16, 8, 16 on each rank, and what each rank's
 * executor had allocated after each run. */
struct steady {
	const sym_plan *p;
	sym_slices *s[2];
	size_t allocs[MAX_RANKS][4];
	size_t kernel_grows[MAX_RANKS];
};

/* Return what "x" has allocated so far: tensor buffers and the growths
 * of the kernels' and the communication steps' scratch areas. */
static size_t
exec_allocs(const sym_exec *x)
{
	return x->buffer_allocs + x->kscratch.grows + x->scratch.grows;
}

/* Run the plan of "arg" (a struct steady) for its two bindings in turn,
 * twice, on rank "m" (NULL handle: a plan of one rank), recording what
 * its executor allocated; return 0 or -1. */
static int
run_steady_rank(struct tl_member *m, void *arg)
{
	struct steady *st = arg;
	sym_exec *x = sym_exec_new(m->ctx, st->p, m->ep);

	if (!x)
		return tl_failed(m, "new: %s", sym_ctx_last_message(m->ctx));
	for (int i = 0; i < 4; i++) {
		if (sym_exec_prepare(x, st->s[i % 2]) < 0 ||
		    sym_exec_fill(x, 3) < 0 || sym_exec_run(x) < 0) {
			tl_failed(m, "run %d: %s", i,
			    sym_ctx_last_message(m->ctx));
			sym_exec_free(x);
			return -1;
		}
		st->allocs[m->rank][i] = exec_allocs(x);
	}
	st->kernel_grows[m->rank] = x->kscratch.grows;
	sym_exec_free(x);
	return 0;
}

/* Check that each of the "n" ranks of "st" allocated in its first two
 * runs (b = 8, then the larger b = 16) and nothing in the next two, of
 * sizes it had seen, and that its kernels used their scratch area. */
static void
check_steady(const struct steady *st, int n)
{
	for (int r = 0; r < n; r++) {
		const size_t *a = st->allocs[r];

		printf("# rank %d: %zu, %zu, %zu, %zu allocations after each "
		       "run (kernel scratch grown %zu times)\n",
		    r, a[0], a[1], a[2], a[3], st->kernel_grows[r]);
		assert_true(a[0] > 0);
		assert_true(a[1] > a[0]);
		assert_int_equal(a[2], a[1]);
		assert_int_equal(a[3], a[1]);
		assert_true(st->kernel_grows[r] >= 1);
	}
}

/* A dynamic-shape run allocates nothing once it has seen its sizes:
 * neither buffers nor scratch areas, on 8 ranks and on one device. */
static void
test_steady_state(void **state)
{
	static const char *const texts[2] = { "b=8", "b=16" };
	struct compiled c;
	struct tl_team t;
	struct steady st;
	struct tl_member one;

	(void)state;
	compile_text(&c, scratchy, "scratchy.sg");
	tl_team_init(&t, MAX_RANKS, 20000);
	for (int single = 0; single < 2; single++) {
		const sym_plan *p = single ? c.single : c.p;

		memset(&st, 0, sizeof(st));
		st.p = p;
		for (int i = 0; i < 2; i++) {
			sym_binding *b = binding(&c, texts[i]);

			st.s[i] = sym_slices_new(p);
			assert_non_null(st.s[i]);
			assert_int_equal(sym_plan_bind(p, b, st.s[i]), 0);
			sym_binding_free(b);
		}
		if (single) {
			memset(&one, 0, sizeof(one));
			one.ctx = c.ctx;
			assert_int_equal(run_steady_rank(&one, &st), 0);
			check_steady(&st, 1);
		} else {
			tl_team_run(&t, MAX_RANKS, run_steady_rank, &st);
			check_steady(&st, MAX_RANKS);
		}
		sym_slices_free(st.s[0]);
		sym_slices_free(st.s[1]);
	}
	tl_team_clear(&t);
	compiled_clear(&c);
}

/* A training graph: forward, backward (with the all_reduces of the
 * mirror operator), adam's updates in place; the mean of each row of
 * the scores as a second output, whose kernel takes a scratch area (the
 * backward of log_softmax over contiguous rows takes none). */
static const char trainer[] = "devices 8\n"
                              "symbol b divisor=8\n"
                              "input x : f32[b, 32]\n"
                              "input lab : i32[b]\n"
                              "param w1 : f32[32, 64] init=he_uniform\n"
                              "param w2 : f32[64, 10] init=xavier_uniform\n"
                              "h = matmul(x, w1) shard ((2, 1), (1, 4))\n"
                              "a = relu(h)\n"
                              "m = matmul(a, w2) shard ((2, 4), (4, 1))\n"
                              "q = log_softmax(m, axis=1)\n"
                              "loss = softmax_cross_entropy(q, lab)\n"
                              "mq = reduce_mean(q, axis=[1])\n"
                              "output loss\n"
                              "output mq\n"
                              "minimize loss with adam(lr=0.01)\n";

/* Training steps allocate nothing once their sizes have been seen: on
 * each of 8 ranks and on one device, b = 8, 16, 8, 16, the backward and
 * update operators included. */
static void
test_steady_training(void **state)
{
	static const char *const texts[2] = { "b=8", "b=16" };
	struct compiled c;
	struct tl_team t;
	struct steady st;
	struct tl_member one;

	(void)state;
	compile_text(&c, trainer, "trainer.sg");
	assert_true(sym_graph_is_training(c.g));
	tl_team_init(&t, MAX_RANKS, 20000);
	for (int single = 0; single < 2; single++) {
		const sym_plan *p = single ? c.single : c.p;

		memset(&st, 0, sizeof(st));
		st.p = p;
		for (int i = 0; i < 2; i++) {
			sym_binding *b = binding(&c, texts[i]);

			st.s[i] = sym_slices_new(p);
			assert_non_null(st.s[i]);
			assert_int_equal(sym_plan_bind(p, b, st.s[i]), 0);
			sym_binding_free(b);
		}
		if (single) {
			memset(&one, 0, sizeof(one));
			one.ctx = c.ctx;
			assert_int_equal(run_steady_rank(&one, &st), 0);
			check_steady(&st, 1);
		} else {
			tl_team_run(&t, MAX_RANKS, run_steady_rank, &st);
			check_steady(&st, MAX_RANKS);
		}
		sym_slices_free(st.s[0]);
		sym_slices_free(st.s[1]);
	}
	tl_team_clear(&t);
	compiled_clear(&c);
}

/* Element counts are multiplied with overflow checks: an output of
 * 2^64 elements, a one_hot of depth 2^63 - 1 and a symbolic square bound
 * too large are refused with SYM_EOVERFLOW, named and located at the
 * output's declaration, and nothing runs. */
static void
test_overflow_sizes(void **state)
{
	static const struct {
		const char *text, *bind, *message;
		int line;
	} t[] = {
		{ "devices 1\ninput x : f32[4294967296, 4294967296]\n"
		  "y = relu(x)\noutput y\n",
		    "",
		    "check: output y is f32[4294967296, 4294967296] at "
		    "these sizes: more elements or bytes than 64 bits count",
		    3 },
		{ "devices 1\ninput i : i32[2]\n"
		  "y = one_hot(i, depth=9223372036854775807)\noutput y\n",
		    "",
		    "check: output y is f32[2, 9223372036854775807] at "
		    "these sizes: more elements or bytes than 64 bits count",
		    3 },
		{ "devices 2\nsymbol n divisor=2 unique\ninput x : f32[n, n]\n"
		  "y = relu(x)\noutput y\n",
		    "n=3037000500",
		    "check: output y is f32[3037000500, "
		    "3037000500] at these sizes: more elements "
		    "or bytes than 64 bits count",
		    4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		sym_exec_options o = { .size = sizeof(o), .seed = 1 };
		struct progress pr = { 0 };
		struct compiled c;
		sym_exec_report r;
		sym_binding *b;

		compile_text(&c, t[i].text, "big.sg");
		b = t[i].bind[0] ? binding(&c, t[i].bind)
		                 : sym_binding_new(c.ctx);
		o.progress = on_progress;
		o.progress_arg = &pr;
		assert_int_equal(sym_exec_check(c.ctx, c.p, c.single, c.comm, b,
		                     &o, &r),
		    -1);
		assert_int_equal(sym_ctx_last_error(c.ctx), SYM_EOVERFLOW);
		assert_string_equal(sym_ctx_last_message(c.ctx), t[i].message);
		assert_string_equal(sym_ctx_last_location(c.ctx).file,
		    "big.sg");
		assert_int_equal(sym_ctx_last_location(c.ctx).line, t[i].line);
		assert_int_equal(pr.calls, 0);
		sym_binding_free(b);
		compiled_clear(&c);
	}
}

/* Run the tests. */
/* The heap bytes in use (glibc's mallinfo2), or 0 where they cannot be
 * read (sanitizer and valgrind runs replace the allocator). */
static size_t
heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	return mallinfo2().uordblks;
#else
	return 0;
#endif
}

/* The heap bytes per rank of the executors of every rank of a plan of
 * "n" ranks whose steps communicate over all of them (an all_to_all and
 * an all_gather), made in one process as the threads backend does; 0
 * when the heap cannot be read. */
static size_t
bytes_per_rank(int n)
{
	char text[512];
	struct compiled c;
	sym_exec **x;
	sym_comm_endpoint **ep;
	size_t before, after;

	snprintf(text, sizeof(text),
	    "devices %d\n"
	    "symbol b divisor=%d\n"
	    "input x : f32[b, %d]\n"
	    "a = relu(x) shard ((%d, 1),)\n"
	    "c = relu(a) shard ((1, %d),)\n"
	    "d = exp(c) shard ((1, 1),)\n"
	    "output d\n",
	    n, n, n, n, n);
	compile_text(&c, text, "tables.sg");
	x = calloc((size_t)n, sizeof(*x));
	ep = calloc((size_t)n, sizeof(*ep));
	assert_true(x && ep);
	for (int r = 0; r < n; r++) {
		ep[r] = sym_comm_attach(c.ctx, c.comm, r);
		assert_non_null(ep[r]);
	}
	before = heap_in_use();
	for (int r = 0; r < n; r++) {
		x[r] = sym_exec_new(c.ctx, c.p, ep[r]);
		assert_non_null(x[r]);
	}
	after = heap_in_use();
	for (int r = 0; r < n; r++) {
		sym_exec_free(x[r]);
		sym_comm_detach(ep[r]);
	}
	free(x);
	free(ep);
	compiled_clear(&c);
	return before && after > before ? (after - before) / (size_t)n : 0;
}

/* One process running n ranks (the threads backend) holds memory
 * linear in n: a rank's executor keeps no table of its groups' members,
 * so its bytes do not grow with the group. Before, every communication
 * step kept each member's rank and blocks on every rank: n^2 in all
 * (702 MB for 2048 ranks on one matmul). */
static void
test_tables_per_rank(void **state)
{
	size_t small, large;

	(void)state;
	small = bytes_per_rank(16);
	large = bytes_per_rank(256);
	if (!small || !large) {
		/* cmocka's skip() is a failure to automake's TAP driver */
		printf("# the heap cannot be read here: not measured\n");
		return;
	}
	printf("# executor bytes per rank: %zu at 16 ranks, %zu at 256\n",
	    small, large);
	assert_true(large * 4 < small * 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ffn),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_pool_random),
		cmocka_unit_test(test_moves),
		cmocka_unit_test(test_detects),
		cmocka_unit_test(test_infinities),
		cmocka_unit_test(test_options_size),
		cmocka_unit_test(test_failing_rank),
		cmocka_unit_test(test_oom_messages),
		cmocka_unit_test(test_calloc_records),
		cmocka_unit_test(test_narrow_partial_sums),
		cmocka_unit_test(test_exec_api),
		cmocka_unit_test(test_steady_state),
		cmocka_unit_test(test_steady_training),
		cmocka_unit_test(test_overflow_sizes),
		cmocka_unit_test(test_tables_per_rank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
