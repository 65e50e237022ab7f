/* SPDX-License-Identifier: MIT */
/*
 * Optimizer sharding (parallel optimizer_shard, levels 1 to 3; DESIGN
 * section 20) on tests/train/dp8.sg, worked out by hand: its six params are
 * replicated over the one axis of 8 data-parallel ranks, w1 f32[6, 16]
 * (384 bytes), b1 f32[16] (64), w2 f32[16, 8] (512), b2 f32[8] (32),
 * w3 f32[8, 3] (96) and b3 f32[3] (12). A sharded param's state and
 * update are split 8 ways along the first dimension 8 divides (w1's
 * second: 6 is not a multiple of 8), its gradient reduce-scattered into
 * that layout and the updated param all-gathered back (at level 3 the
 * param kept as its shard, gathered whole for its uses); below the
 * threshold a param stays whole; b3, which no split divides, is an error
 * at its declaration when the threshold lets it in; bad values of the
 * statements are located errors; the memory of a device by kind in the
 * cost model. That training is bitwise unchanged is
 * tests/check-train-zero.sh.
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

/* The graph tests/train/dp8.sg with "extra" appended, parsed. */
static sym_graph *
parsed(sym_ctx *ctx, const char *extra)
{
	char *text, *all;
	size_t len;
	sym_graph *g;

	text = tl_read_source("tests/train/dp8.sg", &len);
	assert_non_null(text);
	all = malloc(len + strlen(extra) + 2);
	assert_non_null(all);
	sprintf(all, "%s%s\n", text, extra);
	g = sym_graph_parse(ctx, all, "dp8.sg");
	free(text);
	free(all);
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	return g;
}

/* Assert that value "name" of the sharded "g" is split "k0" ways along
 * dimension 0 and "k1" along dimension 1 (when it has one). */
static void
assert_splits(const sym_graph *g, const char *name, int64_t k0, int64_t k1)
{
	const sym_value *v = sym_graph_find_value(g, name);
	const sym_layout *l = v ? sym_value_layout(v) : NULL;

	assert_non_null(l);
	if (sym_layout_dim_splits(l, 0) != k0 ||
	    (sym_layout_ndim(l) > 1 && sym_layout_dim_splits(l, 1) != k1))
		fail_msg("%s: split (%lld, %lld), not (%lld, %lld)", name,
		    (long long)sym_layout_dim_splits(l, 0),
		    (long long)(sym_layout_ndim(l) > 1
		            ? sym_layout_dim_splits(l, 1)
		            : 1),
		    (long long)k0, (long long)k1);
}

/* Return the kind of the one step of the resolution of value "name" of
 * the sharded "g" (its communication without a consumer). */
static sym_redist_kind
resolution(const sym_graph *g, const char *name)
{
	const sym_value *v = sym_graph_find_value(g, name);
	const sym_reshard *c =
	    sym_sharding_find_reshard(sym_graph_sharding(g), v, NULL, 0);

	assert_non_null(c);
	assert_int_equal(sym_redist_n_steps(c->plan), 1);
	return sym_redist_step_kind(c->plan, 0);
}

/* Threshold 16 bytes: every param but b3 sharded; the state split,
 * the params and their updated values whole, the gradients scattered and
 * the updates gathered. */
static void
test_layouts(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parsed(ctx,
	    "parallel optimizer_shard\n"
	    "parallel optimizer_shard_min_bytes=16");

	(void)state;
	assert_int_equal(sym_graph_optimizer_shard(g), 1);
	assert_int_equal(sym_graph_optimizer_shard_min_bytes(g), 16);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_splits(g, "w1.momentum", 1, 8);
	assert_splits(g, "b1.momentum", 8, 1);
	assert_splits(g, "w2.momentum", 8, 1);
	assert_splits(g, "b2.momentum", 8, 1);
	assert_splits(g, "w3.momentum", 8, 1);
	assert_splits(g, "b3.momentum", 1, 1);
	assert_splits(g, "w1.grad", 1, 8);
	assert_splits(g, "w1", 1, 1);
	assert_splits(g, "w1.next", 1, 1);
	assert_splits(g, "w1.momentum.next", 1, 8);
	assert_int_equal(resolution(g, "w1.grad"), SYM_REDIST_REDUCE_SCATTER);
	assert_int_equal(resolution(g, "w1.next"), SYM_REDIST_ALL_GATHER);
	assert_int_equal(resolution(g, "b2.grad"), SYM_REDIST_REDUCE_SCATTER);
	assert_int_equal(resolution(g, "b3.grad"), SYM_REDIST_ALL_REDUCE);
	assert_null(sym_sharding_find_reshard(sym_graph_sharding(g),
	    sym_graph_find_value(g, "b3.next"), NULL, 0));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Return the number of all_gathers of "name" (a param of the sharded
 * "g") for its consumers, and in "*fwd" those for consumers of the
 * forward part; a use that reads another's copy is not counted. */
static size_t
param_gathers(const sym_graph *g, const char *name, size_t *fwd)
{
	const sym_value *v = sym_graph_find_value(g, name);
	const sym_sharding *sh = sym_graph_sharding(g);
	size_t n = 0;

	*fwd = 0;
	for (size_t i = 0; i < sym_sharding_n_reshards(sh); i++) {
		const sym_reshard *c = sym_sharding_reshard(sh, i);
		size_t j = 0;

		if (c->value != v || !c->consumer || sym_reshard_shares(c) ||
		    sym_redist_n_steps(c->plan) != 1 ||
		    sym_redist_step_kind(c->plan, 0) != SYM_REDIST_ALL_GATHER)
			continue;
		n++;
		while (j < sym_graph_n_forward_nodes(g) &&
		    sym_graph_node(g, j) != c->consumer)
			j++;
		*fwd += j < sym_graph_n_forward_nodes(g);
	}
	return n;
}

/* Level 3, threshold 16: the five sharded params are kept as their
 * shards, laid out like their state, and so are their updated values,
 * with no gather after the update; each is gathered whole for its
 * forward use, and w2 and w3 again for the backward pass (a1.grad and
 * a2.grad read them; w1's input x2 needs no gradient, the biases' none
 * reads them): 7 all_gathers. b3 stays whole and is never gathered. */
static void
test_layouts_level3(void **state)
{
	static const struct {
		const char *name;
		int64_t k0, k1;
		size_t gathers, fwd;
	} c[] = {
		{ "w1", 1, 8, 1, 1 },
		{ "b1", 8, 1, 1, 1 },
		{ "w2", 8, 1, 2, 1 },
		{ "b2", 8, 1, 1, 1 },
		{ "w3", 8, 1, 2, 1 },
		{ "b3", 1, 1, 0, 0 },
	};
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parsed(ctx,
	    "parallel optimizer_shard=3\n"
	    "parallel optimizer_shard_min_bytes=16");
	size_t total = 0, fwd;
	char next[16];

	(void)state;
	assert_int_equal(sym_graph_optimizer_shard(g), 3);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_int_equal(sym_sharding_optimizer_shard(sym_graph_sharding(g)),
	    3);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = param_gathers(g, c[i].name, &fwd);

		assert_splits(g, c[i].name, c[i].k0, c[i].k1);
		snprintf(next, sizeof(next), "%s.next", c[i].name);
		assert_splits(g, next, c[i].k0, c[i].k1);
		assert_null(sym_sharding_find_reshard(sym_graph_sharding(g),
		    sym_graph_find_value(g, next), NULL, 0));
		if (n != c[i].gathers || fwd != c[i].fwd)
			fail_msg("%s: %zu all_gathers (%zu forward), not %zu "
			         "(%zu)",
			    c[i].name, n, fwd, c[i].gathers, c[i].fwd);
		total += n;
	}
	assert_int_equal(total, 7);
	assert_splits(g, "w2.grad", 8, 1);
	assert_splits(g, "w2.momentum", 8, 1);
	assert_int_equal(resolution(g, "w2.grad"), SYM_REDIST_REDUCE_SCATTER);
	assert_int_equal(resolution(g, "b3.grad"), SYM_REDIST_ALL_REDUCE);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The threshold: 64 bytes keeps b2 (32) and b3 (12) whole, each with a
 * note at its declaration, and shards b1 (64); the default (64 KiB)
 * shards none of them. */
static void
test_threshold(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parsed(ctx,
	    "parallel optimizer_shard\n"
	    "parallel optimizer_shard_min_bytes=64");
	size_t notes = 0;

	(void)state;
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_splits(g, "b1.momentum", 8, 1);
	assert_splits(g, "w3.momentum", 8, 1);
	assert_splits(g, "b2.momentum", 1, 1);
	assert_splits(g, "b3.momentum", 1, 1);
	assert_int_equal(resolution(g, "b2.grad"), SYM_REDIST_ALL_REDUCE);
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++) {
		const sym_diagnostic *d = sym_graph_diagnostic(g, i);

		if (!strstr(d->message, "below optimizer_shard_min_bytes=64"))
			continue;
		assert_int_equal(d->severity, SYM_SEV_NOTE);
		assert_true(d->loc.line == 14 || d->loc.line == 16);
		notes++;
	}
	assert_int_equal(notes, 2);
	sym_graph_free(g);
	tl_ctx_free(ctx);

	ctx = tl_ctx_new();
	g = parsed(ctx, "parallel optimizer_shard");
	assert_int_equal(sym_graph_optimizer_shard_min_bytes(g), 65536);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_splits(g, "w2.momentum", 1, 1);
	assert_int_equal(resolution(g, "w2.grad"), SYM_REDIST_ALL_REDUCE);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Threshold 0: b3 f32[3] cannot be split 8 ways, an error at its
 * declaration (line 16) that names it. */
static void
test_indivisible(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parsed(ctx,
	    "parallel optimizer_shard=1\n"
	    "parallel optimizer_shard_min_bytes=0");
	const sym_diagnostic *d = NULL;

	(void)state;
	assert_int_equal(sym_graph_shard(g, NULL), -1);
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++)
		if (sym_graph_diagnostic(g, i)->severity == SYM_SEV_ERROR)
			d = sym_graph_diagnostic(g, i);
	assert_non_null(d);
	assert_int_equal(d->loc.line, 16);
	assert_non_null(strstr(d->message,
	    "no dimension of param b3 can be split 8 more ways over d0"));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The library's setters and getters. */
static void
test_library_option(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = parsed(ctx, "");

	(void)state;
	assert_int_equal(sym_graph_optimizer_shard(g), 0);
	assert_int_equal(sym_graph_set_optimizer_shard(g, 1, NULL), 0);
	assert_int_equal(sym_graph_optimizer_shard(g), 1);
	assert_int_equal(sym_graph_set_optimizer_shard(g, 4, NULL), -1);
	assert_int_equal(sym_graph_optimizer_shard(g), 1);
	assert_int_equal(sym_graph_set_optimizer_shard(g, 3, NULL), 0);
	assert_int_equal(sym_graph_optimizer_shard(g), 3);
	assert_int_equal(sym_graph_set_optimizer_shard(g, 1, NULL), 0);
	assert_int_equal(sym_graph_set_optimizer_shard(g, 2, NULL), 0);
	assert_int_equal(sym_graph_optimizer_shard(g), 2);
	assert_int_equal(sym_graph_set_optimizer_shard(g, 1, NULL), 0);
	assert_int_equal(sym_graph_set_optimizer_shard_min_bytes(g, 100, NULL),
	    0);
	assert_int_equal(sym_graph_optimizer_shard_min_bytes(g), 100);
	assert_int_equal(sym_graph_set_optimizer_shard_min_bytes(g, -1, NULL),
	    -1);
	assert_int_equal(sym_graph_optimizer_shard_min_bytes(g), 100);
	assert_int_equal(sym_graph_optimizer_shard(NULL), 0);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Bad values of the statements: located errors. */
static void
test_bad_values(void **state)
{
	static const char *cases[][2] = {
		{ "parallel optimizer_shard=4",
		    "expected the level 1, 2 or 3" },
		{ "parallel optimizer_shard=12",
		    "expected the level 1, 2 or 3" },
		{ "parallel optimizer_shard=x",
		    "expected the level 1, 2 or 3" },
		{ "parallel optimizer_shard 1", "after" },
		{ "parallel optimizer_shard_min_bytes", "expected '=BYTES'" },
		{ "parallel optimizer_shard_min_bytes=12XB",
		    "unknown unit 'XB' of optimizer_shard_min_bytes" },
		{ "parallel optimizer_shard_min_bytes=", "expected a number" },
	};
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[128];
		sym_graph *g;
		const sym_diagnostic *d;

		snprintf(text, sizeof(text), "devices 8\n%s\n", cases[i][0]);
		g = sym_graph_parse(ctx, text, "bad.sg");
		assert_non_null(g);
		assert_int_equal(sym_graph_n_errors(g), 1);
		d = sym_graph_diagnostic(g, 0);
		assert_int_equal(d->loc.line, 2);
		assert_true(d->loc.col >= 10);
		if (!strstr(d->message, cases[i][1]))
			fail_msg("'%s': '%s' has no '%s'", cases[i][0],
			    d->message, cases[i][1]);
		assert_int_equal(sym_graph_optimizer_shard(g), 0);
		assert_int_equal(sym_graph_optimizer_shard_min_bytes(g), 65536);
		sym_graph_free(g);
	}
	tl_ctx_free(ctx);
}

/* Assert that the expression "e" prints as "want" (what: its name). */
static void
assert_expr(const sym_expr *e, const char *want, const char *what)
{
	char *got = e ? sym_expr_to_str(e) : NULL;

	if (!got || strcmp(got, want))
		fail_msg("%s: %s bytes, not %s", what, got ? got : "(none)",
		    want);
	free(got);
}

/* The memory of one device by kind (sym_graph_cost), by hand: the six
 * params hold 275 f32 (1100 bytes) and momentum keeps one state each;
 * a gradient all-reduced is kept whole twice, its partial sums beside
 * the sum. Unsharded: params and state 1100 bytes each, gradients
 * 2200. Threshold 16: w1, b1, w2, b2, w3 (272 elements) are sharded 8
 * ways, 34 elements (136 bytes) per device, b3 (3 elements, 12 bytes)
 * whole: state 136 + 12 = 148; gradients: the whole partial gradient of
 * the sharded five (1088) beside its reduce_scatter'ed shard (136), and
 * b3 twice (24) = 1248; params: the whole params (1100) and the updated
 * shards gathered back into them (136) = 1236. Threshold 64: b2 (8) and
 * b3 (3) stay whole (44 bytes, twice), the other 264 elements shard to
 * 33 (132 bytes): state 176, gradients 1056 + 132 + 88 = 1276, params
 * 1232. Level 2: the whole partial gradients of the sharded params
 * share one buffer, that of the largest (w2, 512 bytes): threshold 16
 * gradients 512 + 136 + 24 = 672, threshold 64 512 + 132 + 88 = 732;
 * params and state as at level 1. A gradient whose reduce_scatter is
 * fused with others keeps its own buffer until its bucket runs: at
 * level 2, threshold 16, fusion_bytes=1MiB fuses all five (1088 + 136 +
 * 24 = 1248, as level 1), fusion_bytes=200 only w3 and b2 (128 bytes),
 * w2, b1 and w1 sharing the pool of the largest (512): 128 + 512 + 136 +
 * 24 = 800. Level 3: the five sharded params are kept as their shards,
 * 136 bytes, and b3 whole, 12: params 148, a device holding 1/8 of the
 * sharded params' 1088 bytes; gradients and state as at level 2. The
 * activations are 68*b + 12 at levels 0 to 2 (the shard an update reads
 * at levels 1 and 2 is the updated shard's block, counted with the
 * params; the loss's partial sums, 4 bytes, are kept beside their sum);
 * at level 3 the whole copies, gathered for each use, count as
 * activations too: they share one buffer, as large as the largest (w2,
 * 512): 68*b + 524. The executor allocates these bytes (bench_memory). */
static void
test_memory_by_kind(void **state)
{
	static const struct {
		const char *extra;
		const char *param, *grad, *state, *act;
	} c[] = {
		{ "", "1100", "2200", "1100", "68*b + 12" },
		{ "parallel optimizer_shard\n"
		  "parallel optimizer_shard_min_bytes=16",
		    "1236", "1248", "148", NULL },
		{ "parallel optimizer_shard\n"
		  "parallel optimizer_shard_min_bytes=64",
		    "1232", "1276", "176", NULL },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=16",
		    "1236", "672", "148", "68*b + 12" },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=64",
		    "1232", "732", "176", NULL },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=16\n"
		  "parallel fusion_bytes=1MiB",
		    "1236", "1248", "148", NULL },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=16\n"
		  "parallel fusion_bytes=200",
		    "1236", "800", "148", NULL },
		{ "parallel optimizer_shard=3\n"
		  "parallel optimizer_shard_min_bytes=16",
		    "148", "672", "148", "68*b + 524" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		sym_ctx *ctx = tl_ctx_new(); /* symbols are the context's */
		sym_graph *g = parsed(ctx, c[i].extra);
		sym_cost cost;

		assert_int_equal(sym_graph_shard(g, NULL), 0);
		assert_int_equal(sym_graph_cost(g, NULL, &cost), 0);
		assert_expr(cost.param_bytes, c[i].param, "params");
		assert_expr(cost.grad_bytes, c[i].grad, "gradients");
		assert_expr(cost.state_bytes, c[i].state, "state");
		if (c[i].act)
			assert_expr(cost.activation_bytes, c[i].act,
			    "activations");
		sym_cost_clear(&cost);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

/* Return the bytes of the distinct buffers that the executor of rank 0
 * allocates for the gradients of the sharded "g" at b = 16 (the
 * gradients' homes and the whole partial gradients before their
 * resolution), or with "params" for the params that are not optimizer
 * state (their homes and the copies their uses read). */
static int64_t
executor_bytes(sym_ctx *ctx, sym_graph *g, int params)
{
	sym_plan *p = sym_plan_compile(g, 0);
	sym_slices *s = p ? sym_slices_new(p) : NULL;
	sym_communicator *comm = sym_comm_threads_new(ctx, 8);
	sym_comm_endpoint *ep = comm ? sym_comm_attach(ctx, comm, 0) : NULL;
	int64_t b = 16, total = 0;
	void *seen[64];
	size_t most[64], n_seen = 0;
	sym_exec *x;

	assert_non_null(s);
	assert_non_null(ep);
	assert_int_equal(sym_plan_n_symbols(p), 1);
	assert_int_equal(sym_plan_bind_values(p, &b, s), 0);
	x = sym_exec_new(ctx, p, ep);
	assert_non_null(x);
	assert_int_equal(sym_exec_prepare(x, s), 0);
	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		const sym_value *v = sym_plan_tensor_value(p, t);
		size_t bytes = 0, j;
		void *d = sym_exec_data(x, t, &bytes);
		int grad = 0;

		for (size_t i = 0; v && i < sym_graph_n_trained(g); i++)
			grad |= sym_value_grad(sym_graph_trained(g, i)) == v;
		if (params)
			grad = v && sym_value_get_kind(v) == SYM_VALUE_PARAM &&
			    sym_value_is_state(v) == SYM_FALSE;
		if (!grad || !d)
			continue;
		for (j = 0; j < n_seen && seen[j] != d; j++)
			;
		if (j == n_seen) {
			assert_true(n_seen < 64);
			seen[n_seen] = d;
			most[n_seen++] = 0;
		}
		if (bytes > most[j]) /* a shared buffer holds the largest */
			most[j] = bytes;
	}
	for (size_t j = 0; j < n_seen; j++)
		total += (int64_t)most[j];
	sym_exec_free(x);
	sym_comm_detach(ep);
	sym_comm_free(comm);
	sym_slices_free(s);
	sym_plan_free(p);
	return total;
}

/* The executor's gradient buffers, by hand as in test_memory_by_kind:
 * at level 1 (threshold 16) each sharded param's whole partial gradient
 * has its own buffer beside its shard: 1088 + 136 + 12 whole b3 and its
 * partial block before the all_reduce, 12 = 1248; at level 2 the five
 * whole partial gradients share the buffer of the largest (w2, 512):
 * 512 + 136 + 12 + 12 = 672; with their reduce_scatters fused, as the
 * model counts them: 1248 (1 MiB buckets), 800 (200-byte buckets). */
static void
test_executor_grad_buffers(void **state)
{
	static const struct {
		const char *extra;
		int64_t bytes;
	} c[] = {
		{ "parallel optimizer_shard\n"
		  "parallel optimizer_shard_min_bytes=16",
		    1248 },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=16",
		    672 },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=16\n"
		  "parallel fusion_bytes=1MiB",
		    1248 },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=16\n"
		  "parallel fusion_bytes=200",
		    800 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		sym_ctx *ctx = tl_ctx_new();
		sym_graph *g = parsed(ctx, c[i].extra);

		assert_int_equal(sym_graph_shard(g, NULL), 0);
		if (executor_bytes(ctx, g, 0) != c[i].bytes)
			fail_msg("%s: %lld gradient bytes, not %lld",
			    c[i].extra, (long long)executor_bytes(ctx, g, 0),
			    (long long)c[i].bytes);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

/* The executor's param buffers, by hand as in test_memory_by_kind:
 * unsharded the six params, 1100 bytes; at level 2 (threshold 16) the
 * same and the shards the updates read, 136: 1236; at level 3 the
 * shards kept (136) and b3 (12), and one buffer for the whole copies
 * gathered for their uses, whose lives do not overlap, as large as the
 * largest (w2, 512): 660. */
static void
test_executor_param_buffers(void **state)
{
	static const struct {
		const char *extra;
		int64_t bytes;
	} c[] = {
		{ "", 1100 },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=16",
		    1236 },
		{ "parallel optimizer_shard=3\n"
		  "parallel optimizer_shard_min_bytes=16",
		    660 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		sym_ctx *ctx = tl_ctx_new();
		sym_graph *g = parsed(ctx, c[i].extra);

		assert_int_equal(sym_graph_shard(g, NULL), 0);
		if (executor_bytes(ctx, g, 1) != c[i].bytes)
			fail_msg("'%s': %lld param bytes, not %lld", c[i].extra,
			    (long long)executor_bytes(ctx, g, 1),
			    (long long)c[i].bytes);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_layouts_level3),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_indivisible),
		cmocka_unit_test(test_library_option),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_memory_by_kind),
		cmocka_unit_test(test_executor_grad_buffers),
		cmocka_unit_test(test_executor_param_buffers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
