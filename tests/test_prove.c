/* SPDX-License-Identifier: MIT */
/*
 * Tests of the prover: the cases the issue names, facts and scopes,
 * bounds, simplification, the operation budget and error handling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

/* Declare symbol "name" in "ctx" from the fields given; fail on error. */
static sym_symbol *
decl(sym_ctx *ctx, const char *name, int64_t min, int64_t max, int64_t div,
    int64_t rem, int unique)
{
	sym_symbol_info in = SYM_SYMBOL_INFO_INIT;
	sym_symbol *s;

	in.min = min;
	in.max = max;
	in.divisor = div;
	in.remainder = rem;
	in.unique = unique;
	s = sym_symbol_new(ctx, name, &in, NULL);
	assert_non_null(s);
	return s;
}

/* Return the parse of "text" in "ctx"; fail on error. */
static sym_expr *
P(sym_ctx *ctx, const char *text)
{
	sym_expr *e = sym_expr_parse(ctx, text, NULL);

	if (!e)
		fail_msg("parse of '%s': %s", text, sym_ctx_last_message(ctx));
	return e;
}

/* Prove "lhs" "op" "rhs" (parsed) in "ctx"; return the answer and the
 * witness text in "*wit" (malloc'ed, NULL if none). */
static sym_answer
cmp(sym_ctx *ctx, const char *lhs, sym_cmp op, const char *rhs, char **wit)
{
	sym_expr *a = P(ctx, lhs), *b = P(ctx, rhs);
	sym_binding *w = NULL;
	sym_answer r = sym_prove_cmp(ctx, a, op, b, &w);

	if (wit)
		*wit = w ? sym_binding_to_str(w) : NULL;
	if (r == SYM_FALSE)
		assert_non_null(w);
	else
		assert_null(w);
	sym_binding_free(w);
	sym_expr_free(a);
	sym_expr_free(b);
	return r;
}

/* Prove that "k" divides "text" in "ctx"; witness text as in cmp. */
static sym_answer
divisible(sym_ctx *ctx, const char *text, int64_t k, char **wit)
{
	sym_expr *e = P(ctx, text);
	sym_binding *w = NULL;
	sym_answer r = sym_prove_divisible(ctx, e, k, &w);

	if (wit)
		*wit = w ? sym_binding_to_str(w) : NULL;
	sym_binding_free(w);
	sym_expr_free(e);
	return r;
}

/* Check that "ctx" holds no caller object, and free it. */
static void
done(sym_ctx *ctx)
{
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* The cases of the issue with b = 0 (mod 8). */
static void
test_batch_divisor_8(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char *w = NULL;

	(void)state;
	decl(ctx, "b", 1, 0, 8, 0, 0);
	assert_int_equal(cmp(ctx, "4*b mod 8", SYM_EQ, "0", NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "b mod 4", SYM_EQ, "0", NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "b mod 16", SYM_EQ, "0", &w), SYM_FALSE);
	assert_string_equal(w, "b = 8");
	free(w);
	assert_int_equal(divisible(ctx, "b", 16, &w), SYM_FALSE);
	assert_string_equal(w, "b = 8");
	free(w);
	assert_int_equal(divisible(ctx, "3*b", 8, NULL), SYM_TRUE);
	assert_int_equal(divisible(ctx, "b*b", 64, NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "(b floordiv 8)*8", SYM_EQ, "b", NULL),
	    SYM_TRUE);
	assert_int_equal(cmp(ctx, "b ceildiv 8", SYM_EQ, "b floordiv 8", NULL),
	    SYM_TRUE);
	assert_int_equal(cmp(ctx, "b", SYM_GE, "8", NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "b", SYM_GT, "8", &w), SYM_FALSE);
	assert_string_equal(w, "b = 8");
	free(w);
	done(ctx);
}

/* The cases of the issue with a >= 1 and x >= 1. */
static void
test_floor_identities(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char *w = NULL;

	(void)state;
	decl(ctx, "a", 1, 0, 1, 0, 0);
	decl(ctx, "x", 1, 0, 1, 0, 0);
	assert_int_equal(cmp(ctx, "(a floordiv 2)*2", SYM_EQ, "a - a mod 2",
	                     NULL),
	    SYM_TRUE);
	assert_int_equal(cmp(ctx, "a", SYM_GE, "a mod 3", NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "x + ((0 - x) mod 4)", SYM_LE, "x", &w),
	    SYM_FALSE);
	assert_non_null(w);
	assert_string_equal(w, "x = 1");
	free(w);
	assert_int_equal(cmp(ctx, "x + ((0 - x) mod 4)", SYM_GE, "x", NULL),
	    SYM_TRUE);
	assert_int_equal(divisible(ctx, "x + ((0 - x) mod 4)", 4, NULL),
	    SYM_TRUE);
	assert_int_equal(cmp(ctx, "(a + 3) floordiv 4", SYM_EQ, "a ceildiv 4",
	                     NULL),
	    SYM_TRUE);
	assert_int_equal(cmp(ctx, "a mod 3", SYM_LT, "3", NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "a mod 3", SYM_EQ, "a mod 6 mod 3", NULL),
	    SYM_TRUE);
	assert_int_equal(cmp(ctx, "a mod 6", SYM_EQ, "a mod 3", &w), SYM_FALSE);
	assert_string_equal(w, "a = 3");
	free(w);
	assert_int_equal(cmp(ctx, "min(a, x)", SYM_LE, "max(a, x)", NULL),
	    SYM_TRUE);
	assert_int_equal(cmp(ctx, "min(a, x) + max(a, x)", SYM_EQ, "a + x",
	                     NULL),
	    SYM_TRUE);
	done(ctx);
}

/* Declared relations take part in every proof; witnesses satisfy them. */
static void
test_relations(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_expr *t, *s;
	char *w = NULL;
	sym_loc at = { "rel.sg", 4, 1 };

	(void)state;
	decl(ctx, "s", 128, 8192, 128, 0, 1);
	decl(ctx, "t", 1, 0, 1, 0, 1);
	t = P(ctx, "t");
	s = P(ctx, "s + 128");
	assert_int_equal(sym_ctx_assume(ctx, t, SYM_EQ, s, &at), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 1);
	assert_int_equal(divisible(ctx, "t", 128, NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "t mod 128", SYM_EQ, "0", NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "2*s", SYM_GE, "t + 128", &w), SYM_FALSE);
	assert_string_equal(w, "s = 128, t = 256");
	free(w);
	assert_int_equal(cmp(ctx, "t", SYM_LE, "8320", NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "t", SYM_LT, "8320", &w), SYM_FALSE);
	assert_string_equal(w, "s = 8192, t = 8320");
	free(w);
	sym_expr_free(t);
	sym_expr_free(s);
	done(ctx);
}

/* Facts of a scope are forgotten when it is popped; contradictory facts
 * are rejected. */
static void
test_scopes_and_unsat(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_expr *b, *c64, *c65;
	sym_binding *wit = NULL;

	(void)state;
	decl(ctx, "b", 1, 0, 8, 0, 1);
	b = P(ctx, "b");
	c64 = P(ctx, "64");
	c65 = P(ctx, "65");
	assert_int_equal(cmp(ctx, "b", SYM_LE, "64", NULL), SYM_FALSE);
	assert_int_equal(sym_ctx_push(ctx), 0);
	assert_int_equal(sym_ctx_assume(ctx, b, SYM_LE, c64, NULL), 0);
	assert_int_equal(cmp(ctx, "b", SYM_LE, "64", NULL), SYM_TRUE);
	assert_int_equal(cmp(ctx, "b", SYM_LE, "56", NULL), SYM_FALSE);
	assert_int_equal(sym_ctx_assume(ctx, b, SYM_GE, c65, NULL), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EUNSAT);
	assert_int_equal(sym_ctx_n_facts(ctx), 1);
	assert_int_equal(sym_ctx_satisfiable(ctx, &wit), SYM_TRUE);
	assert_non_null(wit);
	sym_binding_free(wit);
	assert_int_equal(sym_ctx_pop(ctx), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 0);
	assert_int_equal(cmp(ctx, "b", SYM_LE, "64", NULL), SYM_FALSE);
	assert_int_equal(sym_ctx_pop(ctx), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ESCOPE);
	sym_expr_free(b);
	sym_expr_free(c64);
	sym_expr_free(c65);
	done(ctx);
}

/* Check that the bounds of "text" are [lo, hi] ("unb" marks unbounded
 * sides with 1 for min, 2 for max) and exact. */
static void
check_bounds(sym_ctx *ctx, const char *text, int64_t lo, int64_t hi, int unb)
{
	sym_expr *e = P(ctx, text), *mn = NULL, *mx = NULL;
	int64_t v;

	assert_int_equal(sym_prove_bounds(ctx, e, &mn, &mx), SYM_TRUE);
	if (unb & 1) {
		assert_null(mn);
	} else {
		assert_non_null(mn);
		assert_int_equal(sym_expr_get_const(mn, &v), 0);
		assert_int_equal(v, lo);
	}
	if (unb & 2) {
		assert_null(mx);
	} else {
		assert_non_null(mx);
		assert_int_equal(sym_expr_get_const(mx, &v), 0);
		assert_int_equal(v, hi);
	}
	sym_expr_free(mn);
	sym_expr_free(mx);
	sym_expr_free(e);
}

/* Exact bounds, bounded and unbounded. */
static void
test_bounds(void **state)
{
	sym_ctx *ctx = sym_ctx_new();

	(void)state;
	decl(ctx, "s", 128, 8192, 128, 0, 1);
	decl(ctx, "b", 1, 0, 8, 0, 0);
	decl(ctx, "r", 1, 100, 8, 3, 0);
	check_bounds(ctx, "s floordiv 128", 1, 64, 0);
	check_bounds(ctx, "s", 128, 8192, 0);
	check_bounds(ctx, "b", 8, 0, 2);
	check_bounds(ctx, "0 - b", 0, -8, 1);
	check_bounds(ctx, "r", 11, 99, 0);
	check_bounds(ctx, "r mod 8", 3, 3, 0);
	check_bounds(ctx, "s - 2*(s floordiv 256)*128", 0, 128, 0);
	check_bounds(ctx, "min(s, b)", 8, 8192, 0);
	check_bounds(ctx, "b mod 3", 0, 2, 0);
	done(ctx);
}

/* Simplification under the context. */
static void
test_simplify(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_expr *t, *s, *e;
	char *str;

	(void)state;
	decl(ctx, "s", 128, 8192, 128, 0, 1);
	decl(ctx, "t", 1, 0, 1, 0, 1);
	decl(ctx, "h", 1, 0, 1, 0, 1);
	t = P(ctx, "t");
	s = P(ctx, "s + 128");
	assert_int_equal(sym_ctx_assume(ctx, t, SYM_EQ, s, NULL), 0);
	e = sym_prove_simplify(ctx, P(ctx, "t - s"));
	str = sym_expr_to_str(e);
	assert_string_equal(str, "128");
	free(str);
	sym_expr_free(e);
	e = sym_prove_simplify(ctx, P(ctx, "min(s, t) + h"));
	str = sym_expr_to_str(e);
	assert_string_equal(str, "s + h");
	free(str);
	sym_expr_free(e);
	e = sym_prove_simplify(ctx,
	    P(ctx, "(t floordiv 128) - (s floordiv 128)"));
	str = sym_expr_to_str(e);
	assert_string_equal(str, "1");
	free(str);
	sym_expr_free(e);
	e = sym_prove_simplify(ctx, P(ctx, "h mod 4"));
	str = sym_expr_to_str(e);
	assert_string_equal(str, "h mod 4");
	free(str);
	sym_expr_free(e);
	sym_expr_free(t);
	sym_expr_free(s);
	done(ctx);
}

/* Non-affine claims: decided when the abstraction suffices, otherwise
 * never answered wrongly. */
static void
test_nonaffine(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char *w = NULL;

	(void)state;
	decl(ctx, "b", 1, 0, 8, 0, 0);
	decl(ctx, "s", 128, 8192, 128, 0, 0);
	assert_int_equal(divisible(ctx, "b*s", 1024, NULL), SYM_TRUE);
	assert_int_equal(divisible(ctx, "b*s", 2048, &w), SYM_FALSE);
	assert_string_equal(w, "b = 8, s = 128");
	free(w);
	assert_int_equal(cmp(ctx, "b*s", SYM_GE, "1024", NULL), SYM_TRUE);
	assert_int_not_equal(cmp(ctx, "b*b", SYM_GE, "b", NULL), SYM_FALSE);
	assert_int_equal(cmp(ctx, "(b*s) floordiv s", SYM_EQ, "b", NULL),
	    SYM_TRUE);
	done(ctx);
}

/* A zero budget of ISL operations answers unknown, never wrongly. */
static void
test_budget(void **state)
{
	sym_ctx *ctx = sym_ctx_new();

	(void)state;
	decl(ctx, "a", 1, 0, 1, 0, 1);
	decl(ctx, "c", 1, 0, 1, 0, 1);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_FAST_TIER, 0), 0);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_ISL_MAX_OPERATIONS,
	                     1),
	    0);
	assert_int_equal(cmp(ctx, "3*(a floordiv 3) + 5*(c floordiv 5)", SYM_LE,
	                     "a + c", NULL),
	    SYM_UNKNOWN);
	assert_int_equal(sym_prove_last_tier(ctx), SYM_TIER_NONE);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_ISL_MAX_OPERATIONS,
	                     0),
	    0);
	assert_int_equal(cmp(ctx, "3*(a floordiv 3) + 5*(c floordiv 5)", SYM_LE,
	                     "a + c", NULL),
	    SYM_TRUE);
	assert_int_equal(sym_prove_last_tier(ctx), SYM_TIER_EXACT);
	done(ctx);
}

/* A chain of CHAIN_N relations s_i <= s_(i-1) + 8 between unique
 * symbols, with a budget of CHAIN_OPS ISL operations for each step of the
 * prover: adding a fact to a component costs about as much whatever the
 * component's size, so the chain is built and the exact bound proved
 * within it. (Each fact cost a redundancy check of every constraint of
 * its component, far beyond this budget, and the bound was unknown; a
 * chain of n relations cost n^4.) The bound one less is refuted with the
 * chain's greatest spread under the default budget. */
#define CHAIN_N 120
#define CHAIN_OPS 300
static void
test_chain_of_relations(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char name[16], rhs[64], *w = NULL;
	sym_expr *a, *b;

	(void)state;
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_ISL_MAX_OPERATIONS,
	                     CHAIN_OPS),
	    0);
	for (int i = 0; i < CHAIN_N; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		decl(ctx, name, 1, 0, 1, 0, 1);
	}
	for (int i = 1; i < CHAIN_N; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		snprintf(rhs, sizeof(rhs), "s%d + 8", i - 1);
		a = P(ctx, name);
		b = P(ctx, rhs);
		assert_int_equal(sym_ctx_assume(ctx, a, SYM_LE, b, NULL), 0);
		sym_expr_free(a);
		sym_expr_free(b);
	}
	assert_int_equal(sym_ctx_n_facts(ctx), CHAIN_N - 1);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_FAST_TIER, 0), 0);
	snprintf(name, sizeof(name), "s%d", CHAIN_N - 1);
	snprintf(rhs, sizeof(rhs), "s0 + %d", 8 * (CHAIN_N - 1));
	assert_int_equal(cmp(ctx, name, SYM_LE, rhs, NULL), SYM_TRUE);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_ISL_MAX_OPERATIONS,
	                     200000),
	    0);
	assert_int_equal(cmp(ctx, name, SYM_LT, rhs, &w), SYM_FALSE);
	assert_non_null(strstr(w, "s0 = 1, s1 = 9, s2 = 17"));
	free(w);
	done(ctx);
}

/* A chain of LONG_N relations refuted under the default budget with the
 * smallest witness, which fixes every symbol (s_i = 1 + 8 i): the
 * parametric lexicographic minimum gets a budget that grows with the
 * dimension, where one integer program per symbol took minutes (500
 * relations: over 300 s of CPU before, 4.3 s after). */
#define LONG_N 200
static void
test_long_chain_refuted(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char name[16], rhs[64], *w = NULL;
	sym_expr *a, *b;

	(void)state;
	for (int i = 0; i < LONG_N; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		decl(ctx, name, 1, 0, 1, 0, 1);
	}
	for (int i = 1; i < LONG_N; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		snprintf(rhs, sizeof(rhs), "s%d + 8", i - 1);
		a = P(ctx, name);
		b = P(ctx, rhs);
		assert_int_equal(sym_ctx_assume(ctx, a, SYM_LE, b, NULL), 0);
		sym_expr_free(a);
		sym_expr_free(b);
	}
	snprintf(name, sizeof(name), "s%d", LONG_N - 1);
	snprintf(rhs, sizeof(rhs), "s0 + %d", 8 * (LONG_N - 1) - 1);
	assert_int_equal(cmp(ctx, name, SYM_LE, rhs, &w), SYM_FALSE);
	snprintf(rhs, sizeof(rhs), "s%d = %d", LONG_N - 1,
	    1 + 8 * (LONG_N - 1));
	assert_non_null(strstr(w, rhs));
	assert_non_null(strstr(w, "s0 = 1, s1 = 9, s2 = 17"));
	free(w);
	done(ctx);
}

/* Which tier answers, and that both tiers agree on the cases. */
static void
test_tiers(void **state)
{
	sym_ctx *ctx = sym_ctx_new();

	(void)state;
	decl(ctx, "b", 1, 0, 8, 0, 0);
	decl(ctx, "a", 1, 0, 1, 0, 0);
	assert_int_equal(cmp(ctx, "4*b mod 8", SYM_EQ, "0", NULL), SYM_TRUE);
	assert_int_equal(sym_prove_last_tier(ctx), SYM_TIER_FAST);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_FAST_TIER, 0), 0);
	assert_int_equal(cmp(ctx, "b mod 4", SYM_EQ, "0", NULL), SYM_TRUE);
	assert_int_equal(sym_prove_last_tier(ctx), SYM_TIER_EXACT);
	assert_int_equal(cmp(ctx, "b mod 16", SYM_EQ, "0", NULL), SYM_FALSE);
	assert_int_equal(cmp(ctx, "a", SYM_GE, "a mod 3", NULL), SYM_TRUE);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_FAST_TIER, 1), 0);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_EXACT_TIER, 0), 0);
	assert_int_equal(cmp(ctx, "b mod 16", SYM_EQ, "0", NULL), SYM_FALSE);
	assert_int_equal(sym_prove_last_tier(ctx), SYM_TIER_FAST);
	done(ctx);
}

/* Invalid queries are errors, not answers. */
static void
test_errors(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_expr *b;
	sym_binding *w = NULL;

	(void)state;
	decl(ctx, "b", 1, 0, 8, 0, 0);
	b = P(ctx, "b");
	assert_int_equal(sym_prove_divisible(ctx, b, 0, &w), SYM_ERROR);
	assert_null(w);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_int_equal(sym_prove_divisible(ctx, NULL, 2, NULL), SYM_ERROR);
	assert_int_equal(sym_prove_cmp(ctx, b, (sym_cmp)42, b, NULL),
	    SYM_ERROR);
	assert_int_equal(sym_prove_cmp(NULL, b, SYM_EQ, b, NULL), SYM_ERROR);
	assert_int_equal(sym_prove_bounds(ctx, NULL, NULL, NULL), SYM_ERROR);
	assert_null(sym_prove_simplify(ctx, NULL));
	assert_string_equal(sym_cmp_name(SYM_LE), "<=");
	sym_expr_free(b);
	done(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_divisor_8),
		cmocka_unit_test(test_floor_identities),
		cmocka_unit_test(test_relations),
		cmocka_unit_test(test_scopes_and_unsat),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_simplify),
		cmocka_unit_test(test_nonaffine),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_chain_of_relations),
		cmocka_unit_test(test_long_chain_refuted),
		cmocka_unit_test(test_tiers),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
