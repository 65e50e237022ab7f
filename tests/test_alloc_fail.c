/* SPDX-License-Identifier: MIT */
/*
 * Allocation failure injection (sym__ctx_fail_alloc, core/ctx_private.h)
 * over the pipeline of a small training graph with "parallel auto":
 * parse, gradient, strategy search (its cost graph and dynamic
 * programming too), the sharding of a piece, its plan and its listing,
 * and a single-device plan run once. One run counts the allocations;
 * then each allocation fails in turn, alone and with every later one:
 * every run must fail with SYM_ENOMEM on the context, never crash, and
 * leave no live object and no leak (the suite runs under valgrind and
 * ASan). A failure inside a sharding rule, a proof or a redistribution
 * that the search would take for a rejected candidate must still end
 * the search with SYM_ENOMEM (sym__ctx_n_oom). The pipeline runs twice:
 * on that graph, and on it data parallel at optimizer_shard=3; the
 * second only with every later allocation failing too, as one failure
 * alone there is taken in its stride by sym__value_shape (graph.c),
 * which keeps a shape unsubstituted when substituting runs out of
 * memory (allocation 175, in the gradient of softmax_cross_entropy).
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

#include "core/ctx_private.h"

/* A matmul, a relu and a loss on 2 devices, in training, searched (the
 * search is told to price at most MAX_EVAL plans at each size, so that
 * its cost graph and dynamic programming run too). */
static const char net[] = "devices 2\n"
                          "symbol b divisor=2 max=16\n"
                          "input  x : f32[b, 8]\n"
                          "input  y : i32[b]\n"
                          "param  w : f32[8, 4]\n"
                          "h = matmul(x, w)\n"
                          "o = relu(h)\n"
                          "loss = softmax_cross_entropy(o, y)\n"
                          "output loss\n"
                          "minimize loss with sgd(lr=0.1)\n"
                          "parallel auto\n";

/* The same at optimizer_shard=3 (every param kept as its shard, gathered
 * for its uses: the pass lays its uses out again, the plan gathers it
 * twice, the cost model pools the copies). */
static const char net3[] = "devices 2\n"
                           "symbol b divisor=2 max=16\n"
                           "input  x : f32[b, 8]\n"
                           "input  y : i32[b]\n"
                           "param  w : f32[8, 4]\n"
                           "h = matmul(x, w) shard ((2, 1), (1, 1))\n"
                           "o = relu(h)\n"
                           "loss = softmax_cross_entropy(o, y)\n"
                           "output loss\n"
                           "minimize loss with sgd(lr=0.1)\n"
                           "parallel optimizer_shard=3\n"
                           "parallel optimizer_shard_min_bytes=0\n"
                           "parallel auto\n";
#define MAX_EVAL 2

/* What one run of the pipeline made: the number of pieces and of the
 * steps of the searched plan, to compare the runs that succeed. */
struct outcome {
	unsigned long n_front; /* allocations of the parse and the gradient */
	size_t n_pieces;
	size_t n_probes;
	size_t n_steps;
	size_t n_single_steps;
};

/* Run a single-device plan of "g" once at b = 8 on "ctx"; 0 or -1. */
static int
run_single(sym_ctx *ctx, sym_graph *g, struct outcome *out)
{
	sym_plan *p = sym_plan_compile(g, SYM_PLAN_SINGLE);
	sym_slices *sl = p ? sym_slices_new(p) : NULL;
	sym_binding *b = sl ? sym_binding_new(ctx) : NULL;
	sym_exec *x = b ? sym_exec_new(ctx, p, NULL) : NULL;
	int rc = -1;

	if (x && sym_binding_parse(b, "b = 8", NULL) == 0 &&
	    sym_plan_bind(p, b, sl) == 0 && sym_exec_prepare(x, sl) == 0 &&
	    sym_exec_fill(x, 3) == 0 && sym_exec_run(x) == 0) {
		out->n_single_steps = sym_plan_n_steps(p);
		rc = 0;
	}
	sym_exec_free(x);
	sym_binding_free(b);
	sym_slices_free(sl);
	sym_plan_free(p);
	return rc;
}

/* Run the pipeline on "ctx": parse "text", search it, compile the plan
 * of its first piece's sharding, print it, and run a single-device plan;
 * release everything. Return 0 when every step succeeded, else -1 (the
 * error on "ctx"). */
static int
pipeline(sym_ctx *ctx, const char *text, struct outcome *out)
{
	sym_graph *g = sym_graph_parse(ctx, text, "alloc.sg");
	sym_search *s = NULL;
	sym_sharding *sh = NULL;
	sym_plan *p = NULL;
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	char *listing = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!g || sym_graph_n_errors(g) != 0 || sym_graph_differentiate(g) < 0)
		goto done;
	out->n_front = sym__ctx_n_alloc(ctx);
	o.max_evaluations = MAX_EVAL;
	s = sym_graph_search(g, &o);
	if (!s)
		goto done;
	out->n_pieces = sym_search_n_pieces(s);
	out->n_probes = sym_search_n_probes(s);
	sh = sym_search_sharding(s, 0);
	if (!sh || sym_sharding_n_errors(sh) != 0)
		goto done;
	p = sym_plan_compile_sharding(sh, 0);
	if (!p)
		goto done;
	out->n_steps = sym_plan_n_steps(p);
	listing = sym_plan_to_str(p);
	if (!listing)
		goto done;
	rc = run_single(ctx, g, out);
done:
	free(listing);
	sym_plan_free(p);
	sym_sharding_free(sh);
	sym_search_free(s);
	sym_graph_free(g);
	return rc;
}

/* Return the number of allocations of one run of the pipeline of
 * "text" that succeeds, with its outcome in "ref". */
static unsigned long
count_allocations(const char *text, struct outcome *ref)
{
	sym_ctx *ctx = sym_ctx_new();
	unsigned long n;

	assert_non_null(ctx);
	sym__ctx_fail_alloc(ctx, -1, 0);
	if (pipeline(ctx, text, ref) != 0)
		fail_msg("pipeline: %s", sym_ctx_last_message(ctx));
	n = sym__ctx_n_alloc(ctx);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
	return n;
}

/* Run the pipeline of "text" with allocation "k" failing (and every
 * later one when "later" is set): it must fail with SYM_ENOMEM and leave
 * no live object. */
static void
fail_at(const char *text, unsigned long k, int later)
{
	sym_ctx *ctx = sym_ctx_new();
	struct outcome out;
	int rc;

	assert_non_null(ctx);
	sym__ctx_fail_alloc(ctx, (long)k, later);
	rc = pipeline(ctx, text, &out);
	sym__ctx_fail_alloc_off(ctx);
	if (rc == 0)
		fail_msg("allocation %lu failed (later: %d), the pipeline "
		         "succeeded",
		    k, later);
	if (sym_ctx_last_error(ctx) != SYM_ENOMEM)
		fail_msg("allocation %lu failed (later: %d): error %s: %s", k,
		    later, sym_error_name(sym_ctx_last_error(ctx)),
		    sym_ctx_last_message(ctx));
	if (sym_ctx_live_objects(ctx) != 0) {
		sym_ctx_report_live(ctx, stderr);
		fail_msg("allocation %lu failed (later: %d): live objects", k,
		    later);
	}
	sym_ctx_free(ctx);
}

/* The number of the allocations to fail in turn: every one, or about
 * 400 evenly spread when SYMSHARD_EXEC_LIGHT asks for light tests (as
 * make check-valgrind does). */
static unsigned long
stride(unsigned long n)
{
	const char *v = getenv("SYMSHARD_EXEC_LIGHT");

	if (v && *v && strcmp(v, "0") && n > 400)
		return n / 400;
	return 1;
}

/* Fail each allocation of the pipeline of the graph "*state" alone. */
static void
test_fail_one(void **state)
{
	struct outcome ref;
	const char *text = *state;
	unsigned long n = count_allocations(text, &ref), st = stride(n);

	print_message("%lu allocations (%lu before the search), %zu pieces, "
	              "%zu steps\n",
	    n, ref.n_front, ref.n_pieces, ref.n_steps);
	assert_true(n > 100);
	assert_true(ref.n_pieces > 0);
	assert_true(ref.n_probes > 0); /* the cost graph ran */
	assert_true(ref.n_steps > 0);
	assert_true(ref.n_single_steps > 0);
	assert_true(ref.n_front > 100 && ref.n_front < n);
	for (unsigned long k = 0; k < n; k += st)
		fail_at(text, k, 0);
}

/* Fail each allocation of the pipeline of the graph "*state" and every
 * later one. */
static void
test_fail_later(void **state)
{
	struct outcome ref;
	const char *text = *state;
	unsigned long n = count_allocations(text, &ref), st = stride(n);

	assert_true(ref.n_front < n);
	for (unsigned long k = 0; k < n; k += st)
		fail_at(text, k, 1);
}

/* Past the last allocation nothing fails: the pipeline of the graph
 * "*state" succeeds with the same outcome and the same number of
 * allocations. */
static void
test_fail_past_end(void **state)
{
	struct outcome ref, out;
	const char *text = *state;
	unsigned long n = count_allocations(text, &ref);
	sym_ctx *ctx = sym_ctx_new();

	assert_non_null(ctx);
	sym__ctx_fail_alloc(ctx, (long)n, 1);
	assert_int_equal(pipeline(ctx, text, &out), 0);
	assert_int_equal(sym__ctx_n_alloc(ctx), n);
	assert_int_equal(out.n_front, ref.n_front);
	assert_int_equal(out.n_pieces, ref.n_pieces);
	assert_int_equal(out.n_probes, ref.n_probes);
	assert_int_equal(out.n_steps, ref.n_steps);
	assert_int_equal(out.n_single_steps, ref.n_single_steps);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_fail_past_end, (void *)net),
		cmocka_unit_test_prestate(test_fail_one, (void *)net),
		cmocka_unit_test_prestate(test_fail_later, (void *)net),
		cmocka_unit_test_prestate(test_fail_past_end, (void *)net3),
		cmocka_unit_test_prestate(test_fail_later, (void *)net3),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
