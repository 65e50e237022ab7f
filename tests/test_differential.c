/* SPDX-License-Identifier: MIT */
/*
 * Differential soundness test of the prover.
 *
 * Random expressions over up to three symbols with small declared ranges
 * and classes are built twice: as a tree that this file evaluates itself
 * (the oracle, independent of the library's canonical forms) and through
 * the library's constructors. Every query is answered three times (tier 0
 * only, exact tier only, both), and every SYM_TRUE / SYM_FALSE is checked
 * against brute-force enumeration of all admissible bindings; every
 * witness is checked to be admissible and to refute the claim.
 *
 * SYMSHARD_DIFF_QUERIES (default 100000) sets the number of queries and
 * SYMSHARD_DIFF_SEED (default 1) the seed: set a large count for long runs.
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

#define MAX_SYMS 3
#define MAX_POINTS 4096

enum op {
	LEAF_SYM,
	LEAF_CONST,
	ADD,
	SUB,
	MUL,
	FDIV,
	CDIV,
	MOD,
	MIN,
	MAX
};

struct node {
	enum op op;
	int sym;   /* LEAF_SYM */
	int64_t v; /* LEAF_CONST */
	struct node *a, *b;
};

struct world {
	sym_ctx *ctx;
	int n_sym;
	sym_symbol *sym[MAX_SYMS];
	int bounded;
	int64_t pts[MAX_POINTS][MAX_SYMS]; /* admissible bindings */
	int n_pts;
	int64_t window_hi; /* unbounded: search window */
};

struct stats {
	long queries, decided[3], unknown[3], true_[3], false_[3];
};

static uint64_t rng_state;

/* Return the next pseudo-random 64-bit number (splitmix64). */
static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Return a uniform integer in [lo, hi]. */
static int64_t
rnd_in(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* Return floor(a / b) for b > 0. */
static int64_t
fdiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Evaluate the tree "n" at the point "x"; return 0 on success. */
static int
eval(const struct node *n, const int64_t *x, int64_t *out)
{
	int64_t a, b;

	if (n->op == LEAF_SYM) {
		*out = x[n->sym];
		return 0;
	}
	if (n->op == LEAF_CONST) {
		*out = n->v;
		return 0;
	}
	if (eval(n->a, x, &a) || eval(n->b, x, &b))
		return -1;
	switch (n->op) {
	case ADD:
		*out = a + b;
		return 0;
	case SUB:
		*out = a - b;
		return 0;
	case MUL:
		*out = a * b;
		return 0;
	case FDIV:
	case CDIV:
	case MOD:
		if (b <= 0)
			return -1;
		if (n->op == FDIV)
			*out = fdiv(a, b);
		else if (n->op == CDIV)
			*out = -fdiv(-a, b);
		else
			*out = a - b * fdiv(a, b);
		return 0;
	case MIN:
		*out = a < b ? a : b;
		return 0;
	case MAX:
		*out = a > b ? a : b;
		return 0;
	default:
		return -1;
	}
}

/* Return a new tree node. */
static struct node *
mk(enum op op, struct node *a, struct node *b)
{
	struct node *n = calloc(1, sizeof(*n));

	assert_non_null(n);
	n->op = op;
	n->a = a;
	n->b = b;
	return n;
}

/* Return a random tree of depth at most "depth" over "ns" symbols; "affine"
 * restricts it to the quasi-affine fragment. */
static struct node *
gen(int depth, int ns, int affine)
{
	struct node *n;
	int r = (int)rnd_in(0, 99);

	if (depth == 0 || r < 30) {
		if (rnd_in(0, 2) == 0) {
			n = mk(LEAF_CONST, NULL, NULL);
			n->v = rnd_in(-6, 6);
		} else {
			n = mk(LEAF_SYM, NULL, NULL);
			n->sym = (int)rnd_in(0, ns - 1);
		}
		return n;
	}
	r = (int)rnd_in(0, 99);
	if (r < 20)
		return mk(ADD, gen(depth - 1, ns, affine),
		    gen(depth - 1, ns, affine));
	if (r < 32)
		return mk(SUB, gen(depth - 1, ns, affine),
		    gen(depth - 1, ns, affine));
	if (r < 47) {
		struct node *k;

		if (!affine && rnd_in(0, 3) == 0)
			return mk(MUL, gen(depth - 1, ns, affine),
			    gen(depth - 1, ns, affine));
		k = mk(LEAF_CONST, NULL, NULL);
		k->v = rnd_in(-3, 4);
		return mk(MUL, k, gen(depth - 1, ns, affine));
	}
	if (r < 87) {
		enum op ops[] = { FDIV, CDIV, MOD };
		struct node *k;

		if (!affine && rnd_in(0, 4) == 0) {
			k = mk(LEAF_SYM, NULL, NULL);
			k->sym = (int)rnd_in(0, ns - 1);
		} else {
			k = mk(LEAF_CONST, NULL, NULL);
			k->v = rnd_in(1, 9);
		}
		return mk(ops[rnd_in(0, 2)], gen(depth - 1, ns, affine), k);
	}
	return mk(r < 94 ? MIN : MAX, gen(depth - 1, ns, affine),
	    gen(depth - 1, ns, affine));
}

/* Free the tree "n". */
static void
node_free(struct node *n)
{
	if (!n)
		return;
	node_free(n->a);
	node_free(n->b);
	free(n);
}

/* Return the library expression of the tree "n" in world "w". */
static sym_expr *
build(const struct world *w, const struct node *n)
{
	sym_expr *a, *b;

	if (n->op == LEAF_SYM)
		return sym_expr_symbol(w->sym[n->sym]);
	if (n->op == LEAF_CONST)
		return sym_expr_const(w->ctx, n->v);
	a = build(w, n->a);
	b = build(w, n->b);
	switch (n->op) {
	case ADD:
		return sym_expr_add(a, b);
	case SUB:
		return sym_expr_sub(a, b);
	case MUL:
		return sym_expr_mul(a, b);
	case FDIV:
		return sym_expr_floordiv(a, b);
	case CDIV:
		return sym_expr_ceildiv(a, b);
	case MOD:
		return sym_expr_mod(a, b);
	case MIN:
		return sym_expr_min(a, b);
	case MAX:
		return sym_expr_max(a, b);
	default:
		break;
	}
	sym_expr_free(a);
	sym_expr_free(b);
	return NULL;
}

/* Declare "ns" random symbols in a new world; "bounded" gives each a max
 * so that enumeration is exhaustive. */
static void
world_init(struct world *w, int ns, int bounded)
{
	memset(w, 0, sizeof(*w));
	w->ctx = sym_ctx_new();
	assert_non_null(w->ctx);
	w->n_sym = ns;
	w->bounded = bounded;
	for (int i = 0; i < ns; i++) {
		static const int64_t divs[] = { 1, 1, 2, 3, 4, 8 };
		sym_symbol_info in = SYM_SYMBOL_INFO_INIT;
		char name[8];

		snprintf(name, sizeof(name), "%c", 'a' + i);
		do {
			in.min = rnd_in(1, 6);
			in.divisor = divs[rnd_in(0, 5)];
			in.remainder = rnd_in(0, in.divisor - 1);
			in.max = bounded
			    ? in.min + rnd_in(0, 4 * in.divisor + 8)
			    : 0;
			in.unique = 1;
			w->sym[i] = sym_symbol_new(w->ctx, name, &in, NULL);
			if (!w->sym[i]) {
				assert_int_equal(sym_ctx_last_error(w->ctx),
				    SYM_EDECL);
				sym_ctx_clear_error(w->ctx);
			}
		} while (!w->sym[i]);
	}
	w->window_hi = 14;
}

/* Recompute the admissible points of "w" given the fact trees "facts" (a
 * fact is "tree >= 0"); in an unbounded world, points up to the window. */
static void
world_points(struct world *w, struct node **facts, int nf)
{
	int64_t x[MAX_SYMS] = { 0 }, hi[MAX_SYMS];

	w->n_pts = 0;
	for (int i = 0; i < w->n_sym; i++) {
		hi[i] = sym_symbol_greatest(w->sym[i]);
		if (hi[i] == 0)
			hi[i] = sym_symbol_least(w->sym[i]) + w->window_hi;
		x[i] = sym_symbol_least(w->sym[i]);
	}
	for (;;) {
		int ok = 1, i;

		for (i = 0; i < w->n_sym && ok; i++)
			ok = sym_symbol_admits(w->sym[i], x[i]);
		for (i = 0; i < nf && ok; i++) {
			int64_t v;

			ok = eval(facts[i], x, &v) == 0 && v >= 0;
		}
		if (ok) {
			assert_true(w->n_pts < MAX_POINTS);
			memcpy(w->pts[w->n_pts++], x, sizeof(x));
		}
		for (i = w->n_sym - 1; i >= 0; i--) {
			if (++x[i] <= hi[i])
				break;
			x[i] = sym_symbol_least(w->sym[i]);
		}
		if (i < 0)
			break;
	}
}

/* Return 1 when "claim" (tree "e" with relation "rel" and divisor "k":
 * 0 ==, 1 >=, 2 !=, 3 k | e) holds at point "x". */
static int
claim_at(const struct node *e, int rel, int64_t k, const int64_t *x)
{
	int64_t v;

	if (eval(e, x, &v))
		return -1;
	switch (rel) {
	case 0:
		return v == 0;
	case 1:
		return v >= 0;
	case 2:
		return v != 0;
	default:
		return v % k == 0;
	}
}

/* Return 1 when "x" is admissible in "w" (facts included). */
static int
admissible(const struct world *w, struct node **facts, int nf, const int64_t *x)
{
	for (int i = 0; i < w->n_sym; i++)
		if (!sym_symbol_admits(w->sym[i], x[i]))
			return 0;
	for (int i = 0; i < nf; i++) {
		int64_t v;

		if (eval(facts[i], x, &v) || v < 0)
			return 0;
	}
	return 1;
}

/* Complete the witness "b" into an admissible point "x" of "w": the
 * symbols it binds keep their values; the others take values of some
 * admissible point (bounded worlds) or their least value. Return 1 when
 * such a point exists. */
static int
witness_point(const struct world *w, struct node **facts, int nf,
    const sym_binding *b, int64_t *x)
{
	int bound[MAX_SYMS];

	for (int i = 0; i < w->n_sym; i++) {
		bound[i] = sym_binding_get(b, w->sym[i], &x[i]) == 0;
		if (!bound[i])
			x[i] = sym_symbol_least(w->sym[i]);
	}
	if (!w->bounded)
		return admissible(w, facts, nf, x);
	for (int p = 0; p < w->n_pts; p++) {
		int ok = 1;

		for (int i = 0; i < w->n_sym && ok; i++)
			ok = !bound[i] || w->pts[p][i] == x[i];
		if (ok) {
			memcpy(x, w->pts[p], sizeof(w->pts[p]));
			return 1;
		}
	}
	return 0;
}

/* Print the tree "n" to "f" (for failure reports). */
static void
node_print(FILE *f, const struct node *n)
{
	static const char *name[] = { "", "", "+", "-", "*", "floordiv",
		"ceildiv", "mod", "min", "max" };

	if (n->op == LEAF_SYM) {
		fprintf(f, "%c", 'a' + n->sym);
		return;
	}
	if (n->op == LEAF_CONST) {
		fprintf(f, "(%lld)", (long long)n->v);
		return;
	}
	if (n->op == MIN || n->op == MAX) {
		fprintf(f, "%s(", name[n->op]);
		node_print(f, n->a);
		fprintf(f, ", ");
		node_print(f, n->b);
		fprintf(f, ")");
		return;
	}
	fprintf(f, "(");
	node_print(f, n->a);
	fprintf(f, " %s ", name[n->op]);
	node_print(f, n->b);
	fprintf(f, ")");
}

/* Report a wrong answer and fail. */
static void
wrong(const struct world *w, const struct node *e, int rel, int64_t k,
    const char *what, int mode)
{
	fprintf(stderr, "# WRONG ANSWER (mode %d): %s for claim ", mode, what);
	node_print(stderr, e);
	fprintf(stderr, " rel=%d k=%lld; symbols:", rel, (long long)k);
	for (int i = 0; i < w->n_sym; i++) {
		char *s = sym_symbol_to_str(w->sym[i]);

		fprintf(stderr, " [%s]", s);
		free(s);
	}
	fprintf(stderr, "\n");
	fail();
}

/* Set the tiers of the context of "w" for mode 0 (tier 0 only), 1 (exact
 * only) or 2 (both). */
static void
set_mode(struct world *w, int mode)
{
	sym_ctx_set_option(w->ctx, SYM_CTX_OPT_FAST_TIER, mode != 1);
	sym_ctx_set_option(w->ctx, SYM_CTX_OPT_EXACT_TIER, mode != 0);
}

/* Ask one random claim about "e" in all three modes and check the answers
 * against enumeration. */
static void
check_claim(struct world *w, struct node **facts, int nf, struct node *e,
    struct stats *st)
{
	int rel = (int)rnd_in(0, 3);
	int64_t k = rnd_in(2, 8);
	int holds_all = 1, undefined = 0;
	sym_expr *x = build(w, e), *zero;

	assert_non_null(x);
	for (int p = 0; p < w->n_pts; p++) {
		int h = claim_at(e, rel, k, w->pts[p]);

		if (h < 0)
			undefined = 1;
		if (h == 0)
			holds_all = 0;
	}
	zero = sym_expr_const(w->ctx, 0);
	for (int mode = 0; mode < 3; mode++) {
		sym_binding *wit = NULL;
		sym_answer a;
		static const sym_cmp cmp[] = { SYM_EQ, SYM_GE, SYM_NE };

		set_mode(w, mode);
		if (rel == 3)
			a = sym_prove_divisible(w->ctx, x, k, &wit);
		else
			a = sym_prove_cmp(w->ctx, x, cmp[rel], zero, &wit);
		if (a == SYM_ERROR) {
			fprintf(stderr, "# error: %s\n",
			    sym_ctx_last_message(w->ctx));
			wrong(w, e, rel, k, "SYM_ERROR", mode);
		}
		if (a == SYM_UNKNOWN) {
			st->unknown[mode]++;
			continue;
		}
		st->decided[mode]++;
		if (undefined)
			continue;
		if (a == SYM_TRUE) {
			st->true_[mode]++;
			if (w->bounded && !holds_all)
				wrong(w, e, rel, k, "TRUE but a point fails",
				    mode);
			if (!w->bounded && !holds_all)
				wrong(w, e, rel, k,
				    "TRUE but a point in the window fails",
				    mode);
		} else {
			int64_t pt[MAX_SYMS];

			st->false_[mode]++;
			if (w->bounded && holds_all)
				wrong(w, e, rel, k, "FALSE but it holds", mode);
			assert_non_null(wit);
			if (!witness_point(w, facts, nf, wit, pt))
				wrong(w, e, rel, k, "witness not admissible",
				    mode);
			if (claim_at(e, rel, k, pt) != 0)
				wrong(w, e, rel, k, "witness does not refute",
				    mode);
		}
		sym_binding_free(wit);
	}
	sym_expr_free(zero);
	sym_expr_free(x);
	st->queries++;
}

/* Check the bounds of "e" in all three modes against enumeration. */
static void
check_bounds(struct world *w, struct node *e, struct stats *st)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, v;
	sym_expr *x = build(w, e);

	assert_non_null(x);
	for (int p = 0; p < w->n_pts; p++) {
		if (eval(e, w->pts[p], &v)) {
			sym_expr_free(x);
			return;
		}
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	for (int mode = 0; mode < 3 && w->n_pts > 0; mode++) {
		sym_expr *mn = NULL, *mx = NULL;
		int64_t a = 0, b = 0;
		sym_answer r;

		set_mode(w, mode);
		r = sym_prove_bounds(w->ctx, x, &mn, &mx);
		assert_int_not_equal(r, SYM_ERROR);
		if (mn)
			assert_int_equal(sym_expr_get_const(mn, &a), 0);
		if (mx)
			assert_int_equal(sym_expr_get_const(mx, &b), 0);
		if (r == SYM_TRUE && w->bounded) {
			if (!mn || !mx || a != lo || b != hi) {
				fprintf(stderr,
				    "# bounds [%lld, %lld] "
				    "expected [%lld, %lld]\n",
				    (long long)a, (long long)b, (long long)lo,
				    (long long)hi);
				wrong(w, e, -1, 0, "exact bounds differ", mode);
			}
		}
		if ((mn && a > lo) || (mx && b < hi))
			wrong(w, e, -1, 0, "unsound bound", mode);
		if (r == SYM_TRUE)
			st->decided[mode]++;
		else
			st->unknown[mode]++;
		sym_expr_free(mn);
		sym_expr_free(mx);
	}
	sym_expr_free(x);
}

/* Return the number of queries to run (environment or default). */
static long
n_queries(void)
{
	const char *s = getenv("SYMSHARD_DIFF_QUERIES");
	long n = s ? atol(s) : 0;

	return n > 0 ? n : 100000;
}

/* Seed the generator from the environment, offset by "salt". */
static void
seed(uint64_t salt)
{
	const char *s = getenv("SYMSHARD_DIFF_SEED");
	uint64_t v = s ? strtoull(s, NULL, 10) : 0;

	rng_state = (v ? v : 1) * 1000003ULL + salt;
}

/* Print the statistics "st" as TAP comments. */
static void
report(const char *name, const struct stats *st)
{
	static const char *mode[] = { "tier0", "exact", "both" };

	for (int m = 0; m < 3; m++)
		printf("# %s %s: %ld queries, %ld true, %ld false, "
		       "%ld unknown\n",
		    name, mode[m], st->queries, st->true_[m], st->false_[m],
		    st->unknown[m]);
}

/* Run "n" random queries in worlds of "bounded" symbols, with random facts
 * when "with_facts", quasi-affine only when "affine". */
static void
run(long n, int bounded, int with_facts, int affine, struct stats *st)
{
	while (st->queries < n) {
		struct world w;
		struct node *facts[2] = { NULL, NULL };
		int nf = 0, ns = (int)rnd_in(1, MAX_SYMS);

		world_init(&w, ns, bounded);
		if (with_facts) {
			int want = (int)rnd_in(1, 2);

			for (int i = 0; i < want; i++) {
				struct node *f = gen(2, ns, 1);
				sym_expr *fe = build(&w, f), *z;
				int r;

				assert_non_null(fe);
				z = sym_expr_const(w.ctx, 0);
				r = sym_ctx_assume(w.ctx, fe, SYM_GE, z, NULL);
				sym_expr_free(fe);
				sym_expr_free(z);
				if (r < 0) {
					assert_int_equal(
					    sym_ctx_last_error(w.ctx),
					    SYM_EUNSAT);
					sym_ctx_clear_error(w.ctx);
					facts[nf] = f;
					world_points(&w, facts, nf + 1);
					if (bounded)
						assert_int_equal(w.n_pts, 0);
					node_free(f);
					facts[nf] = NULL;
					continue;
				}
				facts[nf++] = f;
			}
		}
		world_points(&w, facts, nf);
		for (int q = 0; q < 200 && st->queries < n; q++) {
			struct node *e = gen((int)rnd_in(1, 3), ns, affine);

			if (rnd_in(0, 9) == 0)
				check_bounds(&w, e, st);
			else
				check_claim(&w, facts, nf, e, st);
			node_free(e);
		}
		for (int i = 0; i < nf; i++)
			node_free(facts[i]);
		assert_int_equal(sym_ctx_live_objects(w.ctx), 0);
		sym_ctx_free(w.ctx);
	}
}

/* Quasi-affine claims over bounded symbols, checked exhaustively. */
static void
test_affine_bounded(void **state)
{
	struct stats st = { 0 };

	(void)state;
	seed(1);
	run(n_queries() * 4 / 10, 1, 0, 1, &st);
	report("affine-bounded", &st);
	assert_true(st.false_[1] > 0 && st.true_[1] > 0);
}

/* Non-affine claims (products, division by symbols) over bounded
 * symbols. */
static void
test_nonaffine_bounded(void **state)
{
	struct stats st = { 0 };

	(void)state;
	seed(2);
	run(n_queries() * 2 / 10, 1, 0, 0, &st);
	report("nonaffine-bounded", &st);
	assert_true(st.false_[2] > 0 && st.true_[2] > 0);
}

/* Claims under random facts over bounded symbols. */
static void
test_facts_bounded(void **state)
{
	struct stats st = { 0 };

	(void)state;
	seed(3);
	run(n_queries() * 2 / 10, 1, 1, 1, &st);
	report("facts-bounded", &st);
	assert_true(st.false_[1] > 0 && st.true_[1] > 0);
}

/* Unbounded symbols: TRUE answers are checked on a window and witnesses
 * are checked exactly. */
static void
test_unbounded(void **state)
{
	struct stats st = { 0 };

	(void)state;
	seed(4);
	run(n_queries() * 2 / 10, 0, 0, 1, &st);
	report("unbounded", &st);
	assert_true(st.false_[1] > 0 && st.true_[1] > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_affine_bounded),
		cmocka_unit_test(test_nonaffine_bounded),
		cmocka_unit_test(test_facts_bounded),
		cmocka_unit_test(test_unbounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
