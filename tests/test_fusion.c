/* SPDX-License-Identifier: MIT */
/*
 * Communication fusion (parallel fusion_bytes=N, DESIGN section 20): the
 * buckets of the gradient all_reduces worked out by hand for
 * tests/train/dp8.sg (gradients of 12, 96, 32, 512, 64 and 384 bytes, in
 * backward order b3, w3, b2, w2, b1, w1, all over the 8 ranks) at several
 * bucket sizes, a gradient larger than N alone, gradients over different
 * groups (tests/train/clf8.sg, w2's block of 2 x 3 floats) never fused, the plan's fused steps, and
 * bad values of the option refused with their place. That training with
 * and without fusion is bitwise equal is tests/check-train-fusion.sh.
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

#include "plan/plan_fuse.h"
#include "testlib.h"

/* The graph of tests/train/NAME.sg with "extra" appended, sharded. */
static sym_graph *
sharded(sym_ctx *ctx, const char *name, const char *extra)
{
	char path[64], *text, *all;
	size_t len;
	sym_graph *g;

	snprintf(path, sizeof(path), "tests/train/%s.sg", name);
	text = tl_read_source(path, &len);
	assert_non_null(text);
	all = malloc(len + strlen(extra) + 2);
	assert_non_null(all);
	sprintf(all, "%s%s\n", text, extra);
	g = sym_graph_parse(ctx, all, path);
	free(text);
	free(all);
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	return g;
}

/* Assert that the buckets of "g" are "want": bucket after bucket, the
 * names of the gradients it packs separated by spaces, then ":" and its
 * bytes, the buckets separated by " | ". */
static void
assert_buckets(const sym_graph *g, const char *want)
{
	const sym_sharding *sh = sym_graph_sharding(g);
	char got[512] = "";
	size_t n = 0;

	for (size_t b = 0; b < sym_sharding_n_buckets(sh); b++) {
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s",
		    b ? " | " : "");
		for (size_t k = 0; k < sym_sharding_bucket_size(sh, b); k++) {
			const sym_reshard *c =
			    sym_sharding_bucket_reshard(sh, b, k);

			assert_int_equal(sym_reshard_bucket(c), b);
			n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s",
			    k ? " " : "", sym_value_name(c->value));
		}
		n += (size_t)snprintf(got + n, sizeof(got) - n, ":%lld",
		    (long long)sym_sharding_bucket_bytes(sh, b));
	}
	assert_string_equal(got, want);
}

/* Buckets of about N bytes over dp8: boundaries, a gradient larger than
 * N alone, everything in one bucket, nothing fused. */
static void
test_buckets(void **state)
{
	static const char *cases[][2] = {
		{ "parallel fusion_bytes=600",
		    "b3.grad w3.grad b2.grad:140 | w2.grad b1.grad:576 | "
		    "w1.grad:384" },
		{ "parallel fusion_bytes=140",
		    "b3.grad w3.grad b2.grad:140 | w2.grad:512 | b1.grad:64 | "
		    "w1.grad:384" },
		{ "parallel fusion_bytes=139",
		    "b3.grad w3.grad:108 | b2.grad:32 | w2.grad:512 | "
		    "b1.grad:64 | w1.grad:384" },
		{ "parallel fusion_bytes=1MiB",
		    "b3.grad w3.grad b2.grad w2.grad b1.grad w1.grad:1100" },
		{ "parallel fusion_bytes=1",
		    "b3.grad:12 | w3.grad:96 | b2.grad:32 | w2.grad:512 | "
		    "b1.grad:64 | w1.grad:384" },
		{ "", "" },
		/* optimizer_shard: b3 (12 bytes, below 16) all-reduced,
		 * the other five reduce-scattered; the kinds never share a
		 * bucket. */
		{ "parallel optimizer_shard\n"
		  "parallel optimizer_shard_min_bytes=16\n"
		  "parallel fusion_bytes=1MiB",
		    "b3.grad:12 | w3.grad b2.grad w2.grad b1.grad w1.grad:1088" },
		{ "parallel optimizer_shard=2\n"
		  "parallel optimizer_shard_min_bytes=16\n"
		  "parallel fusion_bytes=600",
		    "b3.grad:12 | w3.grad b2.grad:128 | w2.grad b1.grad:576 | "
		    "w1.grad:384" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sym_ctx *ctx = tl_ctx_new();
		sym_graph *g = sharded(ctx, "dp8", cases[i][0]);

		assert_buckets(g, cases[i][1]);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

/* The option set through the library equals the statement; a negative
 * one is refused. */
static void
test_library_option(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, "dp8", "");

	(void)state;
	assert_int_equal(sym_graph_fusion_bytes(g), 0);
	assert_int_equal(sym_graph_set_fusion_bytes(g, 600, NULL), 0);
	assert_int_equal(sym_graph_fusion_bytes(g), 600);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_buckets(g,
	    "b3.grad w3.grad b2.grad:140 | w2.grad b1.grad:576 | "
	    "w1.grad:384");
	assert_int_equal(sym_graph_set_fusion_bytes(g, -1, NULL), -1);
	assert_int_equal(sym_graph_fusion_bytes(g), 600);
	assert_non_null(strstr(sym_graph_diagnostic(g, 0)->message,
	    "must be positive, not -1"));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* clf8: w2's gradient is all-reduced over the 4 groups of 2 ranks of the
 * data-parallel axis, w1's over all 8 ranks: never in one bucket. */
static void
test_groups_apart(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, "clf8", "parallel fusion_bytes=1GiB");

	(void)state;
	assert_buckets(g, "w2.grad:24 | w1.grad:192");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The plan of dp8 at 600 bytes: the buckets of two gradients or more,
 * their steps in order, the other steps unfused. */
static void
test_plan_steps(void **state)
{
	static const char *want[][3] = { { "b3.grad", "w3.grad", "b2.grad" },
		{ "w2.grad", "b1.grad", NULL } };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, "dp8", "parallel fusion_bytes=600");
	sym_plan *p = sym_plan_compile(g, 0);
	size_t fused = 0;

	(void)state;
	assert_non_null(p);
	assert_int_equal(sym__plan_n_buckets(p), 2);
	for (size_t b = 0; b < 2; b++) {
		size_t n;
		const size_t *st = sym__plan_bucket_steps(p, b, &n);

		assert_int_equal(n, b ? 2 : 3);
		for (size_t k = 0; k < n; k++) {
			const sym_plan_step *s = sym_plan_get_step(p, st[k]);

			assert_int_equal(s->kind, SYM_PLAN_COMM);
			assert_int_equal(s->comm, SYM_REDIST_ALL_REDUCE);
			assert_string_equal(sym_value_name(s->value),
			    want[b][k]);
			assert_int_equal(sym__plan_step_bucket(p, st[k]), b);
			assert_true(k == 0 || st[k] > st[k - 1]);
		}
	}
	for (size_t i = 0; i < sym_plan_n_steps(p); i++)
		fused += sym__plan_step_bucket(p, i) != SIZE_MAX;
	assert_int_equal(fused, 5);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The executor of dp8 at 600 bytes lays out each bucket's gradients in
 * one buffer, one after another in step order, each all_reduced in
 * place (its partial and reduced tensors the same block), so that the
 * bucket needs no packing; without fusion each gradient has its own
 * partial and reduced blocks. */
static void
test_bucket_views(void **state)
{
	(void)state;
	for (int fused = 0; fused < 2; fused++) {
		sym_ctx *ctx = tl_ctx_new();
		sym_graph *g = sharded(ctx, "dp8",
		    fused ? "parallel fusion_bytes=600" : "");
		sym_plan *p = sym_plan_compile(g, 0);
		sym_slices *s = sym_slices_new(p);
		sym_communicator *comm =
		    sym_comm_threads_new(ctx, (int)sym_plan_n_ranks(p));
		sym_comm_endpoint *ep = sym_comm_attach(ctx, comm, 0);
		sym_exec *x = sym_exec_new(ctx, p, ep);
		sym_binding *bind = sym_binding_new(ctx);
		size_t views = 0;

		if (!x)
			fail_msg("%s", sym_ctx_last_message(ctx));
		assert_int_equal(sym_binding_parse(bind, "b=16", NULL), 0);
		assert_int_equal(sym_plan_bind(p, bind, s), 0);
		assert_int_equal(sym_exec_prepare(x, s), 0);
		for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
			const sym_plan_step *st = sym_plan_get_step(p, i);
			size_t in_bytes, out_bytes, prev_bytes, b, n;
			const size_t *m;
			char *in, *out, *prev;

			if (st->kind != SYM_PLAN_COMM ||
			    st->comm != SYM_REDIST_ALL_REDUCE)
				continue;
			in = sym_exec_data(x, st->in[0], &in_bytes);
			out = sym_exec_data(x, st->out[0], &out_bytes);
			assert_non_null(in);
			assert_int_equal(in_bytes, out_bytes);
			b = fused ? sym__plan_step_bucket(p, i) : SIZE_MAX;
			if (b == SIZE_MAX) {
				assert_ptr_not_equal(in, out);
				continue;
			}
			/* the bucket's members, adjacent in step order */
			assert_ptr_equal(in, out);
			m = sym__plan_bucket_steps(p, b, &n);
			for (size_t j = 1; j < n; j++) {
				if (m[j] != i)
					continue;
				prev = sym_exec_data(x,
				    sym_plan_get_step(p, m[j - 1])->in[0],
				    &prev_bytes);
				assert_ptr_equal(prev + prev_bytes, in);
			}
			views++;
		}
		assert_int_equal(views, fused ? 5 : 0);
		sym_binding_free(bind);
		sym_exec_free(x);
		sym_comm_detach(ep);
		sym_comm_free(comm);
		sym_slices_free(s);
		sym_plan_free(p);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

/* Under optimizer_shard the plan runs the five reduce_scatters of dp8's
 * sharded gradients as one bucket, in step order, b3's all_reduce
 * alone. */
static void
test_plan_scatter_steps(void **state)
{
	static const char *want[] = { "w3.grad", "b2.grad", "w2.grad",
		"b1.grad", "w1.grad" };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, "dp8",
	    "parallel optimizer_shard\n"
	    "parallel optimizer_shard_min_bytes=16\n"
	    "parallel fusion_bytes=1MiB");
	sym_plan *p = sym_plan_compile(g, 0);
	const size_t *st;
	size_t n;

	(void)state;
	assert_non_null(p);
	assert_int_equal(sym__plan_n_buckets(p), 1);
	st = sym__plan_bucket_steps(p, 0, &n);
	assert_int_equal(n, 5);
	for (size_t k = 0; k < n; k++) {
		const sym_plan_step *s = sym_plan_get_step(p, st[k]);

		assert_int_equal(s->kind, SYM_PLAN_COMM);
		assert_int_equal(s->comm, SYM_REDIST_REDUCE_SCATTER);
		assert_string_equal(sym_value_name(s->value), want[k]);
		assert_true(k == 0 || st[k] > st[k - 1]);
	}
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Return the communication time of "g" in femtoseconds (a constant: the
 * gradients' sizes are static). */
static int64_t
comm_fs(const sym_graph *g)
{
	sym_cost c;
	int64_t v = -1;

	assert_int_equal(sym_graph_cost(g, NULL, &c), 0);
	assert_int_equal(sym_expr_get_const(c.comm_fs, &v), 0);
	sym_cost_clear(&c);
	return v;
}

/* The cost model charges one latency per bucket: at 600 bytes dp8's six
 * gradient all_reduces run as three, saving three latencies of an
 * all_reduce over 8 ranks on the default topology, 2 x (8 - 1) x 5 us
 * (sym_redist(3)'s ring model). */
static void
test_cost(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, "dp8", "");
	int64_t plain = comm_fs(g), fused;

	(void)state;
	assert_int_equal(sym_graph_set_fusion_bytes(g, 600, NULL), 0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	fused = comm_fs(g);
	assert_int_equal(plain - fused, 3 * 2 * 7 * INT64_C(5000000000));
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Bad values of the statement: located errors. */
static void
test_bad_values(void **state)
{
	static const char *cases[][2] = {
		{ "parallel fusion_bytes=0", "must be positive" },
		{ "parallel fusion_bytes", "expected '=BYTES'" },
		{ "parallel fusion_bytes=", "expected a number of bytes" },
		{ "parallel fusion_bytes=12XB",
		    "unknown unit 'XB' of "
		    "fusion_bytes" },
		{ "parallel fusion_bytes=99999999999999999999",
		    "the fusion_bytes does not fit in 64 bits" },
		{ "parallel fusion_bytes=8GiB extra", "after" },
		{ "parallel fusing=8",
		    "expected 'auto', 'fusion_bytes=' or 'optimizer_shard'" },
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
		assert_int_equal(sym_graph_fusion_bytes(g), 0);
		sym_graph_free(g);
	}
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_library_option),
		cmocka_unit_test(test_groups_apart),
		cmocka_unit_test(test_plan_steps),
		cmocka_unit_test(test_bucket_views),
		cmocka_unit_test(test_plan_scatter_steps),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
