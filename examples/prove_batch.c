/* SPDX-License-Identifier: MIT */
/*
 * prove_batch: MindSpore's dynamic batch b (divisor=8), a sequence length
 * s (min=128 max=8192 divisor=128 unique) and t = s + 128: four claims
 * proven, two refuted with a witness. Answers and witnesses are checked,
 * so make check runs this as a test: exit status 1 on any surprise.
 */
#include <stdio.h>
#include <stdlib.h>

#include <symshard.h>

/* A claim: "lhs" "op" "rhs", or "k" divides "lhs" when "k" > 0. */
struct claim {
	const char *lhs;
	sym_cmp op;
	const char *rhs;
	int64_t k;
	sym_answer expected;
};

static const struct claim claims[] = {
	{ "b", SYM_EQ, NULL, 4, SYM_TRUE },
	{ "4*b", SYM_EQ, NULL, 8, SYM_TRUE },
	{ "(b floordiv 8)*8", SYM_EQ, "b", 0, SYM_TRUE },
	{ "t", SYM_EQ, NULL, 128, SYM_TRUE },
	{ "b", SYM_EQ, NULL, 16, SYM_FALSE },
	{ "2*s", SYM_GE, "t + 128", 0, SYM_FALSE },
};

/* Print "what" and the last error of "ctx" to stderr, then exit 1. */
static void
fail(sym_ctx *ctx, const char *what)
{
	fprintf(stderr, "prove_batch: %s: %s\n", what,
	    sym_ctx_last_message(ctx));
	exit(1);
}

/* Return the expression written in "text", or exit. */
static sym_expr *
parse(sym_ctx *ctx, const char *text)
{
	sym_expr *e = sym_expr_parse(ctx, text, NULL);

	if (!e)
		fail(ctx, text);
	return e;
}

/* Return 1 when claim "c" about "lhs" and "rhs" holds at the binding "w",
 * 0 when it fails; exit on error. */
static int
holds(sym_ctx *ctx, const struct claim *c, sym_expr *lhs, sym_expr *rhs,
    const sym_binding *w)
{
	int64_t x, y = 0;

	if (sym_expr_eval(lhs, w, &x) < 0 ||
	    (rhs && sym_expr_eval(rhs, w, &y) < 0))
		fail(ctx, "sym_expr_eval");
	if (c->k > 0)
		return x % c->k == 0;
	switch (c->op) {
	case SYM_EQ:
		return x == y;
	case SYM_NE:
		return x != y;
	case SYM_LE:
		return x <= y;
	case SYM_LT:
		return x < y;
	case SYM_GE:
		return x >= y;
	case SYM_GT:
		return x > y;
	}
	return 0;
}

/* Prove claim "c" in "ctx", print the answer and check it; exit on error
 * or when the answer or its witness is not the expected one. */
static void
prove(sym_ctx *ctx, const struct claim *c)
{
	sym_expr *lhs = parse(ctx, c->lhs);
	sym_expr *rhs = c->k > 0 ? NULL : parse(ctx, c->rhs);
	sym_binding *w = NULL;
	sym_answer a;
	char *ws = NULL;

	if (c->k > 0) {
		a = sym_prove_divisible(ctx, lhs, c->k, &w);
		printf("%s mod %lld == 0: ", c->lhs, (long long)c->k);
	} else {
		a = sym_prove_cmp(ctx, lhs, c->op, rhs, &w);
		printf("%s %s %s: ", c->lhs, sym_cmp_name(c->op), c->rhs);
	}
	if (a == SYM_ERROR)
		fail(ctx, "prove");
	if (w && !(ws = sym_binding_to_str(w)))
		fail(ctx, "sym_binding_to_str");
	printf("%s%s%s\n", sym_answer_name(a), ws ? ", witness " : "",
	    ws ? ws : "");
	if (a != c->expected) {
		fprintf(stderr, "prove_batch: expected %s\n",
		    sym_answer_name(c->expected));
		exit(1);
	}
	/* A witness must be admissible and break the claim. */
	if (a == SYM_FALSE && (!w || sym_binding_check(w) < 0))
		fail(ctx, "the witness is not admissible");
	if (a == SYM_FALSE && holds(ctx, c, lhs, rhs, w)) {
		fprintf(stderr, "prove_batch: the claim holds at %s\n", ws);
		exit(1);
	}
	free(ws);
	sym_binding_free(w);
	sym_expr_free(lhs);
	sym_expr_free(rhs);
}

/* Declare the symbols and the relation, run every claim; 0 on success. */
int
main(void)
{
	sym_symbol_info b = SYM_SYMBOL_INFO_INIT;
	sym_symbol_info s = SYM_SYMBOL_INFO_INIT;
	sym_symbol_info t = SYM_SYMBOL_INFO_INIT;
	sym_ctx *ctx = sym_ctx_new();
	sym_expr *lhs, *rhs;

	if (!ctx) {
		fprintf(stderr, "prove_batch: out of memory\n");
		return 1;
	}
	b.divisor = 8;
	s.min = 128;
	s.max = 8192;
	s.divisor = 128;
	s.unique = 1;
	t.unique = 1;
	if (!sym_symbol_new(ctx, "b", &b, NULL) ||
	    !sym_symbol_new(ctx, "s", &s, NULL) ||
	    !sym_symbol_new(ctx, "t", &t, NULL))
		fail(ctx, "sym_symbol_new");

	/* relation t = s + 128 */
	lhs = parse(ctx, "t");
	rhs = parse(ctx, "s + 128");
	if (sym_ctx_assume(ctx, lhs, SYM_EQ, rhs, NULL) < 0)
		fail(ctx, "sym_ctx_assume");
	sym_expr_free(lhs);
	sym_expr_free(rhs);

	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++)
		prove(ctx, &claims[i]);

	/* Every expression and binding was released. */
	if (sym_ctx_live_objects(ctx) != 0) {
		sym_ctx_report_live(ctx, stderr);
		return 1;
	}
	sym_ctx_free(ctx);
	return 0;
}
