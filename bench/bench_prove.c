/* SPDX-License-Identifier: MIT */
/*
 * The prover benchmark: a fixed mix of divisibility, comparison and bounds
 * queries typical of shape checking, built once and answered in timing
 * loops by both tiers (the default), by tier 0 alone on the queries it
 * decides, and by the exact tier alone, all with one reused context. Every
 * answer is checked against the expected one; witnesses of SYM_FALSE
 * answers are checked by evaluation. Prints one JSON object per line.
 *
 * Usage: bench_prove [--mix] [--per-query] [--min-time SECONDS] [--samples N]
 *   --mix       print the symbols, facts and queries of the mix, one JSON
 *               object per line, and exit (bench/sympy_mix.py reads them)
 *   --per-query also time each query alone (one JSON line per query)
 *   --min-time  the least time of one sample (default 0.2)
 *   --samples   samples per measurement, reported as their median (5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symshard.h>

#include "util.h"

/* The goals stated in the issue, in nanoseconds per query. */
#define GOAL_TIER0_NS 100.0
#define GOAL_EXACT_NS 50000.0

/* The most samples of one measurement. */
#define MAX_SAMPLES 101

enum qkind {
	Q_DIV,
	Q_CMP,
	Q_BOUNDS
};

/* One query of the mix, as text: "lhs" divisible by "k", "lhs" "op" "rhs",
 * or the bounds of "lhs" ("lo" and "hi", NULL when unbounded). */
struct qdef {
	enum qkind kind;
	const char *lhs;
	sym_cmp op;
	const char *rhs;
	int64_t k;
	sym_answer expect;
	const char *lo;
	const char *hi;
};

/* clang-format off */
#define DIV(e, k, a) { Q_DIV, e, SYM_EQ, NULL, k, a, NULL, NULL }
#define CMP(l, op, r, a) { Q_CMP, l, op, r, 0, a, NULL, NULL }
#define BOUNDS(e, lo, hi) { Q_BOUNDS, e, SYM_EQ, NULL, 0, SYM_TRUE, lo, hi }
/* clang-format on */

/* A symbol declaration of the mix. */
struct decl {
	const char *name;
	sym_symbol_info info;
};

/* A fact of the mix: "lhs" "op" "rhs". */
struct fact {
	const char *lhs;
	sym_cmp op;
	const char *rhs;
};

/* clang-format off */
static const struct decl decls[] = {
	/* name  min  max   divisor remainder unique */
	{ "b", { 1,   0,    8,      0,        0 } },
	{ "s", { 128, 8192, 128,    0,        0 } },
	{ "h", { 1,   0,    64,     0,        0 } },
	{ "d", { 1,   0,    1,      0,        0 } },
	{ "x", { 1,   0,    1,      0,        0 } },
	{ "n", { 1,   64,   1,      0,        0 } },
	{ "t", { 1,   0,    8,      1,        0 } },
	{ "p", { 64,  4096, 64,     0,        1 } },
	{ "q", { 1,   0,    1,      0,        1 } },
};

static const struct fact facts[] = {
	{ "q", SYM_EQ, "2*p + 128" },
};

static const struct qdef mix[] = {
	DIV("b*s", 8, SYM_TRUE),
	DIV("s*h", 8192, SYM_TRUE),
	DIV("b + s", 8, SYM_TRUE),
	DIV("3*b + 5*s", 8, SYM_TRUE),
	DIV("b*s*h", 65536, SYM_TRUE),
	DIV("d*b", 16, SYM_FALSE),
	DIV("s floordiv 128", 2, SYM_FALSE),
	DIV("h", 128, SYM_FALSE),
	DIV("t - 1", 8, SYM_TRUE),
	DIV("b floordiv 2", 4, SYM_TRUE),
	DIV("n*64", 128, SYM_FALSE),
	DIV("q", 128, SYM_TRUE),
	DIV("s - 2*h", 64, SYM_TRUE),
	CMP("b floordiv 8 * 8", SYM_EQ, "b", SYM_TRUE),
	CMP("s mod 128", SYM_EQ, "0", SYM_TRUE),
	CMP("(b + 7) floordiv 8", SYM_LE, "b", SYM_TRUE),
	CMP("min(b, s)", SYM_LE, "s", SYM_TRUE),
	CMP("max(b, s)", SYM_GE, "b", SYM_TRUE),
	CMP("x + ((0 - x) mod 4)", SYM_LE, "x", SYM_FALSE),
	CMP("b + ((0 - b) mod 8)", SYM_EQ, "b", SYM_TRUE),
	CMP("s ceildiv 128 * 128", SYM_EQ, "s", SYM_TRUE),
	CMP("d floordiv 2", SYM_LT, "d", SYM_TRUE),
	CMP("s", SYM_LE, "4096", SYM_FALSE),
	CMP("b", SYM_NE, "s", SYM_FALSE),
	CMP("h*s", SYM_GE, "8192", SYM_TRUE),
	CMP("2*b", SYM_LT, "b + s", SYM_FALSE),
	CMP("(x + 3) floordiv 4 * 4", SYM_GE, "x", SYM_TRUE),
	CMP("x mod 4", SYM_LE, "3", SYM_TRUE),
	CMP("min(b, 64)", SYM_LE, "64", SYM_TRUE),
	CMP("s floordiv 128", SYM_LE, "64", SYM_TRUE),
	CMP("t mod 8", SYM_EQ, "1", SYM_TRUE),
	CMP("t*t mod 8", SYM_EQ, "1", SYM_TRUE),
	CMP("q", SYM_GT, "p", SYM_TRUE),
	CMP("q", SYM_LE, "8192", SYM_FALSE),
	CMP("q floordiv 2 - p", SYM_EQ, "64", SYM_TRUE),
	CMP("d mod 2", SYM_EQ, "0", SYM_FALSE),
	CMP("x ceildiv 4", SYM_LE, "x floordiv 4 + 1", SYM_TRUE),
	CMP("b*s mod 1024", SYM_EQ, "0", SYM_TRUE),
	BOUNDS("s floordiv 128", "1", "64"),
	BOUNDS("s mod 256", "0", "128"),
	BOUNDS("b + s", "136", NULL),
	BOUNDS("min(b, s)", "8", "8192"),
	BOUNDS("h floordiv 64 - 1", "0", NULL),
	BOUNDS("q - 2*p", "128", "128"),
	BOUNDS("x mod 4", "0", "3"),
	BOUNDS("n*64 floordiv 128", "0", "32"),
	BOUNDS("s - b", NULL, "8184"),
	BOUNDS("s ceildiv 1000", "1", "9"),
};
/* clang-format on */

#define N_DECLS (sizeof(decls) / sizeof(decls[0]))
#define N_FACTS (sizeof(facts) / sizeof(facts[0]))
#define N_MIX (sizeof(mix) / sizeof(mix[0]))

/* A query of the mix, built: the expressions are owned by the query. */
struct query {
	const struct qdef *def;
	sym_expr *lhs, *rhs, *lo, *hi;
};

/* What one pass over some queries found. */
struct tally {
	size_t n_true, n_false, n_unknown, by_tier[2];
};

/* Print "msg" with the text of query "q" and the context's last error to
 * stderr and exit with status 1. */
static void
die(const sym_ctx *ctx, const struct qdef *q, const char *msg)
{
	fprintf(stderr, "bench_prove: %s", msg);
	if (q)
		fprintf(stderr, " (query: %s%s%s)", q->lhs,
		    q->kind == Q_CMP ? " " : "",
		    q->kind == Q_CMP ? sym_cmp_name(q->op) : "");
	if (q && q->rhs)
		fprintf(stderr, " %s", q->rhs);
	if (ctx && sym_ctx_last_error(ctx) != SYM_OK)
		fprintf(stderr, ": %s", sym_ctx_last_message(ctx));
	fputc('\n', stderr);
	exit(1);
}

/* Return the parse of "text" in "ctx"; NULL "text" gives NULL; exits on a
 * parse error, naming query "q". */
static sym_expr *
parse(sym_ctx *ctx, const char *text, const struct qdef *q)
{
	sym_expr *e;

	if (!text)
		return NULL;
	e = sym_expr_parse(ctx, text, NULL);
	if (!e)
		die(ctx, q, "cannot parse an expression of the mix");
	return e;
}

/* Declare the symbols and assume the facts of the mix in "ctx". */
static void
declare(sym_ctx *ctx)
{
	for (size_t i = 0; i < N_DECLS; i++)
		if (!sym_symbol_new(ctx, decls[i].name, &decls[i].info, NULL))
			die(ctx, NULL, "cannot declare a symbol");
	for (size_t i = 0; i < N_FACTS; i++) {
		sym_expr *l = parse(ctx, facts[i].lhs, NULL);
		sym_expr *r = parse(ctx, facts[i].rhs, NULL);

		if (sym_ctx_assume(ctx, l, facts[i].op, r, NULL) < 0)
			die(ctx, NULL, "cannot assume a fact");
		sym_expr_free(l);
		sym_expr_free(r);
	}
}

/* Build every query of the mix in "ctx" into "qs" (N_MIX entries). */
static void
build(sym_ctx *ctx, struct query *qs)
{
	for (size_t i = 0; i < N_MIX; i++) {
		const struct qdef *d = &mix[i];

		qs[i].def = d;
		qs[i].lhs = parse(ctx, d->lhs, d);
		qs[i].rhs = parse(ctx, d->rhs, d);
		qs[i].lo = parse(ctx, d->lo, d);
		qs[i].hi = parse(ctx, d->hi, d);
	}
}

/* Free the expressions of the "n" queries "qs". */
static void
unbuild(struct query *qs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sym_expr_free(qs[i].lhs);
		sym_expr_free(qs[i].rhs);
		sym_expr_free(qs[i].lo);
		sym_expr_free(qs[i].hi);
	}
}

/* Return 1 when "l" "op" "r" holds. */
static int
cmp_holds(int64_t l, sym_cmp op, int64_t r)
{
	switch (op) {
	case SYM_EQ:
		return l == r;
	case SYM_NE:
		return l != r;
	case SYM_LE:
		return l <= r;
	case SYM_LT:
		return l < r;
	case SYM_GE:
		return l >= r;
	case SYM_GT:
		return l > r;
	}
	return 0;
}

/* Check the witness "w" of a SYM_FALSE answer to "q" in "ctx": admissible,
 * complete, and breaking the claim. Exits when it is not. */
static void
check_witness(sym_ctx *ctx, const struct query *q, const sym_binding *w)
{
	int64_t l, r = 0;

	if (!w)
		die(ctx, q->def, "SYM_FALSE without a witness");
	if (sym_binding_check(w) < 0)
		die(ctx, q->def, "the witness is not admissible");
	if (sym_expr_eval(q->lhs, w, &l) < 0 ||
	    (q->rhs && sym_expr_eval(q->rhs, w, &r) < 0))
		die(ctx, q->def, "the witness does not evaluate");
	if (q->def->kind == Q_DIV ? l % q->def->k == 0
	                          : cmp_holds(l, q->def->op, r))
		die(ctx, q->def, "the claim holds at the witness");
}

/* Return 1 when the bound "got" of query "q" is right: equal to "want"
 * when "exact", else no tighter than it ("upper" for a maximum). */
static int
bound_ok(const sym_expr *got, const sym_expr *want, int exact, int upper)
{
	int64_t g, v;

	if (exact)
		return got && want ? sym_expr_is_equal(got, want) : got == want;
	if (!got)
		return 1;
	if (!want || sym_expr_get_const(got, &g) < 0 ||
	    sym_expr_get_const(want, &v) < 0)
		return 0;
	return upper ? g >= v : g <= v;
}

/* Answer query "q" in "ctx" with its current options; exit when the answer
 * is wrong; check the witness when "check" is set. Add the answer to "t"
 * (may be NULL). Return a value to fold into the checksum. */
static uint64_t
answer(sym_ctx *ctx, const struct query *q, int check, struct tally *t)
{
	const struct qdef *d = q->def;
	sym_binding *w = NULL;
	sym_expr *lo = NULL, *hi = NULL;
	sym_answer a;
	uint64_t sum;

	if (d->kind == Q_BOUNDS) {
		a = sym_prove_bounds(ctx, q->lhs, &lo, &hi);
		if (a == SYM_ERROR || !bound_ok(lo, q->lo, a == SYM_TRUE, 0) ||
		    !bound_ok(hi, q->hi, a == SYM_TRUE, 1))
			die(ctx, d, "wrong bounds");
	} else {
		a = d->kind == Q_DIV
		    ? sym_prove_divisible(ctx, q->lhs, d->k, &w)
		    : sym_prove_cmp(ctx, q->lhs, d->op, q->rhs, &w);
		if (a == SYM_ERROR || (a != SYM_UNKNOWN && a != d->expect))
			die(ctx, d, "wrong answer");
		if (check && a == SYM_FALSE)
			check_witness(ctx, q, w);
	}
	sum = (uint64_t)a * 4 + (uint64_t)(sym_prove_last_tier(ctx) + 1);
	sum = sum * 0x9e3779b97f4a7c15u + (lo ? sym_expr_hash(lo) : 1) +
	    (hi ? 3u * sym_expr_hash(hi) : 7) +
	    (w ? sym_binding_n_symbols(w) : 0);
	if (t) {
		if (a == SYM_UNKNOWN)
			t->n_unknown++;
		else
			t->by_tier[sym_prove_last_tier(ctx) ==
			    SYM_TIER_EXACT]++;
		t->n_true += a == SYM_TRUE;
		t->n_false += a == SYM_FALSE;
	}
	sym_binding_free(w);
	sym_expr_free(lo);
	sym_expr_free(hi);
	return sum;
}

/* Return the monotonic clock in nanoseconds. */
static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Answer the "n" queries "qs" of "ctx" "rounds" times, folding the answers
 * into "*checksum". Return the elapsed nanoseconds. */
static double
run(sym_ctx *ctx, const struct query *const *qs, size_t n, long rounds,
    uint64_t *checksum)
{
	double t0 = now_ns();
	uint64_t sum = *checksum;

	for (long r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++)
			sum = sum * 31 + answer(ctx, qs[i], 0, NULL);
	*checksum = sum;
	return now_ns() - t0;
}

/* qsort comparison of doubles. */
static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The result of one measurement, in nanoseconds per query. */
struct timing {
	long rounds;
	double median, min, max;
};

/* Time the "n" queries "qs" of "ctx": choose a number of rounds that takes
 * at least "min_ns", then take "samples" samples of it. Return the
 * timing; fold the answers into "*checksum". */
static struct timing
measure(sym_ctx *ctx, const struct query *const *qs, size_t n, double min_ns,
    int samples, uint64_t *checksum)
{
	struct timing tm = { 1, 0, 0, 0 };
	double ns[MAX_SAMPLES] = { 0 }, el;

	while ((el = run(ctx, qs, n, tm.rounds, checksum)) < min_ns)
		tm.rounds = el < min_ns / 64 ? tm.rounds * 8 : tm.rounds * 2;
	for (int i = 0; i < samples; i++)
		ns[i] = run(ctx, qs, n, tm.rounds, checksum) /
		    ((double)tm.rounds * (double)n);
	qsort(ns, (size_t)samples, sizeof(ns[0]), dcmp);
	tm.median = ns[samples / 2];
	tm.min = ns[0];
	tm.max = ns[samples - 1];
	return tm;
}

/* Answer the "n" queries "qs" once in "ctx", checking witnesses, and
 * return the tally. */
static struct tally
verify(sym_ctx *ctx, const struct query *const *qs, size_t n)
{
	struct tally t = { 0, 0, 0, { 0, 0 } };

	for (size_t i = 0; i < n; i++)
		answer(ctx, qs[i], 1, &t);
	return t;
}

/* Set the tiers of "ctx": "fast" and "exact" are 0 or 1. */
static void
set_tiers(sym_ctx *ctx, int fast, int exact)
{
	if (sym_ctx_set_option(ctx, SYM_CTX_OPT_FAST_TIER, fast) < 0 ||
	    sym_ctx_set_option(ctx, SYM_CTX_OPT_EXACT_TIER, exact) < 0)
		die(ctx, NULL, "cannot set the tiers");
}

/* How to measure: the least time of a sample, the samples per case, and
 * whether to time every query alone too. */
struct settings {
	double min_ns;
	int samples;
	int per_query;
};

/* Index of query "q" in the mix. */
static size_t
query_id(const struct query *q)
{
	return (size_t)(q->def - mix);
}

/* Measure case "name": verify, then time, the "n" queries "qs" of "ctx"
 * as "set" says; print its JSON line (and one per query when
 * "set->per_query"). Fold the answers into "*checksum"; store the tally in
 * "*t". Return the median nanoseconds per query. */
static double
bench_case(sym_ctx *ctx, const char *name, const struct query *const *qs,
    size_t n, const struct settings *set, uint64_t *checksum, struct tally *t)
{
	struct timing tm;

	*t = verify(ctx, qs, n);
	tm = measure(ctx, qs, n, set->min_ns, set->samples, checksum);
	printf("{\"bench\":\"prove\",\"case\":\"%s\",\"queries\":%zu,"
	       "\"ns_per_query\":%.1f,\"ns_min\":%.1f,\"ns_max\":%.1f,"
	       "\"rounds\":%ld,\"samples\":%d,\"true\":%zu,\"false\":%zu,"
	       "\"unknown\":%zu,\"by_tier0\":%zu,\"by_exact\":%zu",
	    name, n, tm.median, tm.min, tm.max, tm.rounds, set->samples,
	    t->n_true, t->n_false, t->n_unknown, t->by_tier[0], t->by_tier[1]);
	if (n < N_MIX)
		for (size_t i = 0; i < n; i++)
			printf("%s%zu", i ? "," : ",\"ids\":[",
			    query_id(qs[i]));
	printf("%s}\n", n < N_MIX ? "]" : "");
	for (size_t i = 0; set->per_query && i < n; i++) {
		struct timing one =
		    measure(ctx, &qs[i], 1, set->min_ns / 16, 3, checksum);

		answer(ctx, qs[i], 0, NULL);
		printf("{\"bench\":\"prove\",\"case\":\"%s\",\"query\":%zu,"
		       "\"ns\":%.1f,\"tier\":%d}\n",
		    name, query_id(qs[i]), one.median,
		    (int)sym_prove_last_tier(ctx));
	}
	return tm.median;
}

/* Print "s" as a JSON string. */
static void
json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

/* Print the mix: symbols, facts and queries, one JSON object a line. */
static void
print_mix(void)
{
	static const char *kind[] = { "divisible", "cmp", "bounds" };

	for (size_t i = 0; i < N_DECLS; i++) {
		const sym_symbol_info *f = &decls[i].info;

		printf("{\"mix\":\"symbol\",\"name\":");
		json_str(decls[i].name);
		printf(",\"min\":%lld,\"max\":%lld,\"divisor\":%lld,"
		       "\"remainder\":%lld,\"unique\":%s}\n",
		    (long long)f->min, (long long)f->max, (long long)f->divisor,
		    (long long)f->remainder, f->unique ? "true" : "false");
	}
	for (size_t i = 0; i < N_FACTS; i++) {
		printf("{\"mix\":\"fact\",\"lhs\":");
		json_str(facts[i].lhs);
		printf(",\"op\":\"%s\",\"rhs\":", sym_cmp_name(facts[i].op));
		json_str(facts[i].rhs);
		printf("}\n");
	}
	for (size_t i = 0; i < N_MIX; i++) {
		const struct qdef *d = &mix[i];

		printf("{\"mix\":\"query\",\"id\":%zu,\"kind\":\"%s\","
		       "\"lhs\":",
		    i, kind[d->kind]);
		json_str(d->lhs);
		if (d->kind == Q_DIV)
			printf(",\"k\":%lld", (long long)d->k);
		if (d->kind == Q_CMP) {
			printf(",\"op\":\"%s\",\"rhs\":", sym_cmp_name(d->op));
			json_str(d->rhs);
		}
		if (d->kind == Q_BOUNDS) {
			printf(",\"min\":");
			json_str(d->lo);
			printf(",\"max\":");
			json_str(d->hi);
		} else {
			printf(",\"expect\":\"%s\"",
			    d->expect == SYM_TRUE ? "true" : "false");
		}
		printf("}\n");
	}
}

/* Parse the command line "argc", "argv" into "*set" and "*mix_only"; exit
 * with a usage message on a bad one. */
static void
options(int argc, char **argv, struct settings *set, int *mix_only)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i],
		           *val = i + 1 < argc ? argv[i + 1] : "";
		char *end = NULL;

		if (!strcmp(arg, "--mix")) {
			*mix_only = 1;
			continue;
		}
		if (!strcmp(arg, "--per-query")) {
			set->per_query = 1;
			continue;
		}
		if (!strcmp(arg, "--min-time")) {
			set->min_ns = strtod(val, &end) * 1e9;
			if (end != val && !*end && set->min_ns > 0 &&
			    set->min_ns < 1e12) {
				i++;
				continue;
			}
		} else if (!strcmp(arg, "--samples")) {
			set->samples = (int)strtol(val, &end, 10);
			if (end != val && !*end && set->samples >= 1 &&
			    set->samples <= MAX_SAMPLES) {
				i++;
				continue;
			}
		}
		fprintf(stderr,
		    "usage: bench_prove [--mix] [--per-query] "
		    "[--min-time SECONDS] [--samples N]\n");
		exit(2);
	}
}

/* Split the "n" queries "qs" of "ctx" into those tier 0 alone decides
 * ("fast", "*n_fast") and the others ("rest", "*n_rest"). Leaves "ctx"
 * with tier 0 only. */
static void
split(sym_ctx *ctx, const struct query *const *qs, size_t n,
    const struct query **fast, size_t *n_fast, const struct query **rest,
    size_t *n_rest)
{
	set_tiers(ctx, 1, 0);
	*n_fast = *n_rest = 0;
	for (size_t i = 0; i < n; i++) {
		struct tally t = verify(ctx, &qs[i], 1);

		if (t.n_unknown)
			rest[(*n_rest)++] = qs[i];
		else
			fast[(*n_fast)++] = qs[i];
	}
	if (!*n_fast)
		die(ctx, NULL, "tier 0 decides none of the queries");
}

/* Run the benchmark; "argc" and "argv" as in options(). Return 0, or exit
 * with status 1 on a wrong answer or an error. */
int
main(int argc, char **argv)
{
	struct settings set = { 0.2e9, 5, 0 };
	struct query qs[N_MIX];
	const struct query *all[N_MIX], *fast[N_MIX], *rest[N_MIX];
	size_t n_fast, n_rest;
	double ns_def, ns_fast, ns_exact;
	int mix_only = 0;
	uint64_t checksum = 0;
	struct tally t_def, t_fast, t_exact, t_rest;
	sym_ctx *ctx;

	options(argc, argv, &set, &mix_only);
	if (mix_only) {
		print_mix();
		return 0;
	}
	bench_header("bench_prove");
	ctx = sym_ctx_new();
	if (!ctx)
		die(NULL, NULL, "out of memory");
	declare(ctx);
	build(ctx, qs);
	for (size_t i = 0; i < N_MIX; i++)
		all[i] = &qs[i];

	ns_def =
	    bench_case(ctx, "default", all, N_MIX, &set, &checksum, &t_def);
	split(ctx, all, N_MIX, fast, &n_fast, rest, &n_rest);
	ns_fast =
	    bench_case(ctx, "tier0", fast, n_fast, &set, &checksum, &t_fast);
	set_tiers(ctx, 0, 1);
	ns_exact =
	    bench_case(ctx, "exact", all, N_MIX, &set, &checksum, &t_exact);
	if (n_rest)
		bench_case(ctx, "exact_not_tier0", rest, n_rest, &set,
		    &checksum, &t_rest);

	printf("{\"bench\":\"prove\",\"case\":\"summary\",\"queries\":%zu,"
	       "\"default_ns\":%.1f,\"tier0_ns\":%.1f,\"exact_ns\":%.1f,"
	       "\"tier0_goal_ns\":%.0f,\"tier0_over_goal\":%.3f,"
	       "\"exact_goal_ns\":%.0f,\"exact_over_goal\":%.3f,"
	       "\"exact_over_tier0\":%.1f,\"exact_over_default\":%.2f,"
	       "\"goals_met\":{\"tier0\":%s,\"exact\":%s},"
	       "\"checksum\":\"%016llx\"}\n",
	    N_MIX, ns_def, ns_fast, ns_exact, GOAL_TIER0_NS,
	    ns_fast / GOAL_TIER0_NS, GOAL_EXACT_NS, ns_exact / GOAL_EXACT_NS,
	    ns_exact / ns_fast, ns_exact / ns_def,
	    ns_fast <= GOAL_TIER0_NS && !t_fast.n_unknown ? "true" : "false",
	    ns_exact <= GOAL_EXACT_NS && !t_exact.n_unknown ? "true" : "false",
	    (unsigned long long)checksum);

	unbuild(qs, N_MIX);
	if (sym_ctx_live_objects(ctx) != 0) {
		sym_ctx_report_live(ctx, stderr);
		die(NULL, NULL, "objects still alive at the end");
	}
	sym_ctx_free(ctx);
	return 0;
}
