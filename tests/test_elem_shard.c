/* SPDX-License-Identifier: MIT */
/*
 * The elementwise operators added for real models (comparisons, logical
 * operators, where, pow, erf .. softplus, gelu's tanh form) sharded by
 * random tuple strategies on 4 threads against one device: forward
 * (sym_exec_check) and training, their gradient operators laid out from
 * the forward strategies (sym_exec_train_check), in f64, at several
 * sizes of the batch on one plan.
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

#define DRAWS 4

/*
 * One operator's case: the statement that computes "z" from x [b, 8]
 * (f64, positive where the operator needs it: "e" is exp(x)), y [8],
 * s [b, 1] and the bools c [b, 8] and k [8], with "%s" where its
 * strategy goes; "pattern" gives, by operand, which split counts it
 * takes: "2" both (p, q), "1" the last (q), "0" one unsplit dimension
 * of size 1 and the split of the batch (p, 1).
 */
struct scase {
	const char *stmt, *pattern;
};

static const struct scase scases[] = {
	{ "z = equal(x, y)%s", "21" },
	{ "z = not_equal(x, x)%s", "22" },
	{ "z = less(x, s)%s", "20" },
	{ "z = less_equal(y, x)%s", "12" },
	{ "z = greater(s, y)%s", "01" },
	{ "z = greater_equal(x, y)%s", "21" },
	{ "z = logical_and(c, k)%s", "21" },
	{ "z = logical_or(k, c)%s", "12" },
	{ "z = logical_not(c)%s", "2" },
	{ "z = where(c, x, y)%s", "221" },
	{ "z = where(k, s, x)%s", "102" },
	{ "z = pow(e, y)%s", "21" },
	{ "z = erf(x)%s", "2" },
	{ "z = rsqrt(e)%s", "2" },
	{ "z = reciprocal(e)%s", "2" },
	{ "z = abs(x)%s", "2" },
	{ "z = sign(x)%s", "2" },
	{ "z = floor(x)%s", "2" },
	{ "z = ceil(x)%s", "2" },
	{ "z = clip(x, min=-0.25, max=0.5)%s", "2" },
	{ "z = silu(x)%s", "2" },
	{ "z = softplus(x, beta=3, threshold=1)%s", "2" },
	{ "z = gelu(x, approximate=\"tanh\")%s", "2" },
};

/* Return the next number of the generator "s" (xorshift64). */
static uint64_t
next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Write into "buf" ("n" bytes) the tuple strategy " shard (...)" of
 * "pattern" with split counts "p" (the batch) and "q" (the columns). */
static void
strategy(char *buf, size_t n, const char *pattern, int p, int q)
{
	size_t k = (size_t)snprintf(buf, n, " shard (");

	for (const char *c = pattern; *c && k < n; c++) {
		if (*c == '2')
			k += (size_t)snprintf(buf + k, n - k, "(%d, %d), ", p,
			    q);
		else if (*c == '1')
			k += (size_t)snprintf(buf + k, n - k, "(%d,), ", q);
		else
			k += (size_t)snprintf(buf + k, n - k, "(%d, 1), ", p);
	}
	snprintf(buf + k - 2, n - k + 2, ")");
}

/* Pick split counts "*p" and "*q" whose product divides 4 from "s". */
static void
draw(uint64_t *s, int *p, int *q)
{
	static const int pairs[][2] = { { 1, 1 }, { 2, 1 }, { 1, 2 }, { 4, 1 },
		{ 1, 4 }, { 2, 2 } };
	uint64_t r = next(s) % 6;

	*p = pairs[r][0];
	*q = pairs[r][1];
}

/* The loss of the training graphs, from f [b, 8]: every param reaches
 * it. */
#define LOSS                                                      \
	"g = mul(f, s)\nh = add(g, y)\nl = mul(h, h)\n"           \
	"loss = reduce_mean(l)\noutput loss\nminimize loss with " \
	"sgd(0.1)\n"

/* The graph text of "sc" with the split counts "p" and "q", training "w"
 * when "train" (the inputs x and s are then made from params). */
static void
case_text(char *text, size_t n, const struct scase *sc, int p, int q, int train)
{
	char shard[128], stmt[256];
	int logical = strstr(sc->stmt, "logical") != NULL;

	strategy(shard, sizeof(shard), sc->pattern, p, q);
	snprintf(stmt, sizeof(stmt), sc->stmt, shard);
	snprintf(text, n,
	    "devices 4\nsymbol b divisor=4\n"
	    "input xin : f64[b, 8]\ninput c0 : f64[b, 8]\ninput k0 : f64[8]\n"
	    "input s0 : f64[b, 1]\n%s"
	    "c = greater(c0, xin)\nk = less(k0, y)\n"
	    "e = exp(x)\n%s\n%s",
	    train ? "param w : f64[8]\nparam y : f64[8]\nparam v : f64[1]\n"
	            "x = mul(xin, w)\ns = mul(s0, v)\n"
	          : "input y : f64[8]\nx = identity(xin)\ns = identity(s0)\n",
	    stmt,
	    train ? (logical || strstr(sc->stmt, "equal(") ||
	                        strstr(sc->stmt, "less(") ||
	                        strstr(sc->stmt, "greater(")
	                    ? "f = where(z, x, y)\n" LOSS
	                    : "f = identity(z)\n" LOSS)
	          : "output z\n");
}

/* Parse, shard and compile "text"; fail with "what" on any error. */
static sym_graph *
compile(sym_ctx *ctx, const char *text, const char *what, sym_plan **p,
    sym_plan **single)
{
	sym_graph *g = sym_graph_parse(ctx, text, "elem.sg");

	assert_non_null(g);
	if (sym_graph_n_errors(g) != 0 || sym_graph_shard(g, NULL) != 0)
		fail_msg("%s: %s\n%s", what,
		    sym_graph_n_diagnostics(g)
		        ? sym_graph_diagnostic(g,
		              sym_graph_n_diagnostics(g) - 1)
		              ->message
		        : sym_ctx_last_message(ctx),
		    text);
	*p = sym_plan_compile(g, 0);
	*single = sym_plan_compile(g, SYM_PLAN_SINGLE);
	if (!*p || !*single)
		fail_msg("%s: %s", what, sym_ctx_last_message(ctx));
	return g;
}

/* Every case forward, DRAWS random strategies each, at b = 4, 8 and 12
 * on one plan: the 4 ranks give one device's outputs. */
static void
test_forward(void **state)
{
	static const char *const sizes[] = { "b=4", "b=8", "b=12" };
	uint64_t seed = 0x9e3779b97f4a7c15u;

	(void)state;
	for (size_t i = 0; i < sizeof(scases) / sizeof(scases[0]); i++)
		for (int d = 0; d < DRAWS; d++) {
			sym_ctx *ctx = tl_ctx_new();
			sym_exec_options o = { .size = sizeof(o), .seed = 5 };
			sym_plan *p, *single;
			sym_communicator *comm;
			sym_graph *g;
			char text[2048], what[320];
			int sp, sq;

			draw(&seed, &sp, &sq);
			case_text(text, sizeof(text), &scases[i], sp, sq, 0);
			snprintf(what, sizeof(what), "%s with (%d, %d)",
			    scases[i].stmt, sp, sq);
			g = compile(ctx, text, what, &p, &single);
			assert_int_equal(sym_plan_n_ranks(p), 4);
			comm = sym_comm_threads_new(ctx, 4);
			assert_non_null(comm);
			for (size_t k = 0; k < 3; k++) {
				sym_binding *b = sym_binding_new(ctx);
				sym_exec_report r;

				assert_int_equal(sym_binding_parse(b, sizes[k],
				                     NULL),
				    0);
				if (sym_exec_check(ctx, p, single, comm, b, &o,
				        &r) != 0)
					fail_msg("%s: %s", what,
					    sym_ctx_last_message(ctx));
				if (r.n_mismatch != 0)
					fail_msg("%s at %s: %lld mismatches",
					    what, sizes[k],
					    (long long)r.n_mismatch);
				sym_binding_free(b);
			}
			sym_comm_free(comm);
			sym_plan_free(p);
			sym_plan_free(single);
			sym_graph_free(g);
			tl_ctx_free(ctx);
		}
}

/* Every case trained for three steps (b = 8, 4, 12) with DRAWS random
 * strategies: the loss of every step and the params at the end agree
 * with one device to 1e-9, the gradient operators laid out from the
 * forward strategies. */
static void
test_training(void **state)
{
	static const char *const sizes[] = { "b=8", "b=4", "b=12" };
	uint64_t seed = 0x2545f4914f6cdd1du;

	(void)state;
	for (size_t i = 0; i < sizeof(scases) / sizeof(scases[0]); i++)
		for (int d = 0; d < DRAWS; d++) {
			sym_ctx *ctx = tl_ctx_new();
			sym_exec_options o = { .size = sizeof(o),
				.seed = 9,
				.rtol = 1e-9,
				.atol = 1e-12 };
			sym_binding *bs[3];
			sym_train_report r;
			sym_plan *p, *single;
			sym_communicator *comm;
			sym_graph *g;
			char text[2048], what[320];
			double loss[3];
			int sp, sq;

			draw(&seed, &sp, &sq);
			case_text(text, sizeof(text), &scases[i], sp, sq, 1);
			snprintf(what, sizeof(what),
			    "training %s with (%d, %d)", scases[i].stmt, sp,
			    sq);
			g = compile(ctx, text, what, &p, &single);
			comm = sym_comm_threads_new(ctx, 4);
			assert_non_null(comm);
			for (size_t k = 0; k < 3; k++) {
				bs[k] = sym_binding_new(ctx);
				assert_int_equal(sym_binding_parse(bs[k],
				                     sizes[k], NULL),
				    0);
			}
			if (sym_exec_train_check(ctx, p, single, comm,
			        (const sym_binding *const *)bs, 3, &o, loss,
			        &r) != 0)
				fail_msg("%s: %s", what,
				    sym_ctx_last_message(ctx));
			if (r.outputs.n_mismatch || r.params.n_mismatch)
				fail_msg("%s: %lld output and %lld param "
				         "mismatches",
				    what, (long long)r.outputs.n_mismatch,
				    (long long)r.params.n_mismatch);
			assert_int_equal(r.n_steps, 3);
			for (size_t k = 0; k < 3; k++)
				sym_binding_free(bs[k]);
			sym_comm_free(comm);
			sym_plan_free(p);
			sym_plan_free(single);
			sym_graph_free(g);
			tl_ctx_free(ctx);
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forward),
		cmocka_unit_test(test_training),
	};

	return cmocka_run_group_tests_name("elem_shard", tests, NULL, NULL);
}
