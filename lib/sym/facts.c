/* SPDX-License-Identifier: MIT */
/*
 * Facts and scopes: what every proof in a context may assume.
 */
#include <stdlib.h>
#include <string.h>

#include "sym/prove_private.h"

/* Free the facts of "ctx" (the expressions belong to the node table, which
 * is freed by its own hook). */
static void
facts_free(sym_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n_fact; i++) {
		free(ctx->fact[i].syms);
		free(ctx->fact[i].text);
		free(ctx->fact[i].loc_file);
	}
	free(ctx->fact);
	ctx->fact = NULL;
	ctx->n_fact = ctx->cap_fact = 0;
	free(ctx->fact_w);
	ctx->fact_w = NULL;
	ctx->cap_fact_w = 0;
}

/* Store in "f" the symbols of "e" (from "ctx") and raise their fact
 * counts; return 0, or -1 out of memory (recorded on "ctx"; nothing
 * counted). */
static int
count_symbols(sym_ctx *ctx, struct sym__fact *f, sym_expr *e)
{
	size_t n = sym_expr_symbols(e, NULL, 0);

	f->syms = sym__alloc(ctx, (n ? n : 1) * sizeof(*f->syms));
	if (!f->syms)
		return -1;
	f->n_syms = sym_expr_symbols(e, f->syms, n);
	for (size_t i = 0; i < f->n_syms; i++)
		f->syms[i]->n_facts++;
	return 0;
}

/* Release fact "f" completely. */
static void
fact_clear(struct sym__fact *f)
{
	for (size_t i = 0; i < f->n_syms; i++)
		f->syms[i]->n_facts--;
	free(f->syms);
	sym__expr_unref(f->e);
	free(f->text);
	free(f->loc_file);
}

/* Return 1 when fact "f" of "ctx" holds at the values ctx->fact_w, at
 * which every earlier fact holds, completed with the least value of each
 * symbol of "f" they lack: the facts are then satisfiable, which the
 * prover need not check (the n-th fact of a chain of relations cost a
 * sample of a set of n dimensions). 0 when it does not hold, cannot be
 * evaluated, or the values are not known to satisfy the earlier facts;
 * -1 out of memory. */
static int
witness_holds(sym_ctx *ctx, const struct sym__fact *f)
{
	int64_t val[16], v;
	size_t old = ctx->cap_fact_w;

	if (ctx->fact_w_bad || f->n_syms > 16)
		return 0;
	if (SYM__RESERVE(ctx, ctx->fact_w, ctx->cap_fact_w, ctx->n_sym) < 0)
		return -1;
	if (ctx->cap_fact_w > old)
		memset(ctx->fact_w + old, 0,
		    (ctx->cap_fact_w - old) * sizeof(*ctx->fact_w));
	for (size_t i = 0; i < f->n_syms; i++) {
		size_t id = f->syms[i]->id;

		if (id >= ctx->cap_fact_w)
			return 0;
		if (ctx->fact_w[id] == 0)
			ctx->fact_w[id] = sym_symbol_least(f->syms[i]);
		val[i] = ctx->fact_w[id];
	}
	if (sym__expr_eval_vals(f->e, f->syms, val, f->n_syms, &v) < 0)
		return 0;
	switch (f->rel) {
	case SYM__REL_EQ:
		return v == 0;
	case SYM__REL_NE:
		return v != 0;
	case SYM__REL_GE:
		return v >= 0;
	case SYM__REL_DIV:
		return f->k > 0 && v % f->k == 0;
	default:
		return 0;
	}
}

/* Forget the values at which the facts of "ctx" hold when none is left
 * (any values satisfy no fact). */
static void
witness_reset(sym_ctx *ctx)
{
	if (ctx->n_fact == 0 && ctx->fact_w_bad) {
		memset(ctx->fact_w, 0, ctx->cap_fact_w * sizeof(*ctx->fact_w));
		ctx->fact_w_bad = 0;
	}
}

/* Open a new scope in "ctx": facts assumed from now on are forgotten by
 * the matching sym_ctx_pop. Return 0 or -1. */
int
sym_ctx_push(sym_ctx *ctx)
{
	if (!ctx)
		return -1;
	ctx->depth++;
	return 0;
}

/* Close the innermost scope of "ctx", forgetting its facts. Return 0, or
 * -1 with SYM_ESCOPE when no scope is open. */
int
sym_ctx_pop(sym_ctx *ctx)
{
	if (!ctx)
		return -1;
	if (ctx->depth == 0) {
		sym__error(ctx, SYM_ESCOPE, NULL,
		    "sym_ctx_pop without a matching sym_ctx_push");
		return -1;
	}
	while (ctx->n_fact > 0 &&
	    ctx->fact[ctx->n_fact - 1].depth == ctx->depth)
		fact_clear(&ctx->fact[--ctx->n_fact]);
	ctx->depth--;
	ctx->facts_gen++;
	witness_reset(ctx);
	return 0;
}

/* Return the number of scopes open in "ctx". */
int
sym_ctx_depth(const sym_ctx *ctx)
{
	return ctx ? ctx->depth : 0;
}

/* Append the fact "rel" about "e" (borrowed) with divisor "k" and source
 * text "text" (taken; NULL when making it ran out of memory) to "ctx",
 * then check that the facts are still satisfiable. Return 0, or -1
 * (SYM_EUNSAT when the fact contradicts the others; it is then not kept;
 * SYM_ENOMEM when "text" is missing). */
static int
add_fact(sym_ctx *ctx, enum sym__rel rel, sym_expr *e, int64_t k, char *text,
    const sym_loc *where)
{
	struct sym__fact *f;
	sym_answer sat;
	int held, was_bad = ctx->fact_w_bad;

	if (!e || !text) {
		if (e)
			sym__oom(ctx);
		free(text);
		return -1;
	}
	if ((!ctx->fact && sym__ctx_add_hook(ctx, facts_free) < 0) ||
	    SYM__RESERVE(ctx, ctx->fact, ctx->cap_fact, ctx->n_fact + 1) < 0) {
		free(text);
		return -1;
	}
	f = &ctx->fact[ctx->n_fact];
	memset(f, 0, sizeof(*f));
	if (count_symbols(ctx, f, e) < 0 ||
	    (where && where->file &&
	        !(f->loc_file = sym__strdup(ctx, where->file)))) {
		for (size_t i = 0; i < f->n_syms; i++)
			f->syms[i]->n_facts--;
		free(f->syms);
		free(text);
		return -1;
	}
	ctx->n_fact++;
	f->rel = rel;
	f->e = sym__expr_ref(e);
	f->k = k;
	f->depth = ctx->depth;
	f->text = text;
	if (where) {
		f->loc = *where;
		f->loc.file = f->loc_file;
	}
	ctx->facts_gen++;
	held = witness_holds(ctx, f);
	sat = held < 0 ? SYM_ERROR
	    : held     ? SYM_TRUE
	               : sym_ctx_satisfiable(ctx, NULL);
	if (!held)
		ctx->fact_w_bad = 1;
	if (sat == SYM_FALSE) {
		sym__error(ctx, SYM_EUNSAT, where,
		    "'%s' contradicts the declarations and the facts "
		    "already assumed",
		    text);
		fact_clear(&ctx->fact[--ctx->n_fact]);
		ctx->facts_gen++;
		ctx->fact_w_bad = was_bad;
		witness_reset(ctx);
		return -1;
	}
	if (sat == SYM_ERROR) {
		fact_clear(&ctx->fact[--ctx->n_fact]);
		ctx->facts_gen++;
		ctx->fact_w_bad = was_bad;
		witness_reset(ctx);
		return -1;
	}
	return 0;
}

/* Return the malloc'ed text "lhs op rhs" of a relation, or NULL. */
static char *
relation_text(const sym_expr *lhs, sym_cmp op, const sym_expr *rhs)
{
	char *a = sym_expr_to_str(lhs), *b = sym_expr_to_str(rhs), *s = NULL;

	if (a && b)
		s = sym__asprintf("%s %s %s", a, sym_cmp_name(op), b);
	free(a);
	free(b);
	return s;
}

/* Assume "lhs" "op" "rhs" (both borrowed) for every proof in the current
 * scope of "ctx"; "where" (may be NULL) says where it was declared.
 * Return 0, or -1 (SYM_EUNSAT when it contradicts what is known). */
int
sym_ctx_assume(sym_ctx *ctx, const sym_expr *lhs, sym_cmp op,
    const sym_expr *rhs, const sym_loc *where)
{
	sym_expr *d = NULL, *e = NULL;
	enum sym__rel rel = SYM__REL_GE;
	int r;

	if (!ctx || !lhs || !rhs)
		return -1;
	switch (op) {
	case SYM_EQ:
	case SYM_NE:
		e = sym__sub((sym_expr *)lhs, (sym_expr *)rhs);
		rel = op == SYM_EQ ? SYM__REL_EQ : SYM__REL_NE;
		break;
	case SYM_LE:
	case SYM_LT:
		d = sym__sub((sym_expr *)rhs, (sym_expr *)lhs);
		e = sym__add_si(d, op == SYM_LT ? -1 : 0);
		break;
	case SYM_GE:
	case SYM_GT:
		d = sym__sub((sym_expr *)lhs, (sym_expr *)rhs);
		e = sym__add_si(d, op == SYM_GT ? -1 : 0);
		break;
	default:
		sym__error(ctx, SYM_EINVAL, where, "invalid comparison %d",
		    (int)op);
		return -1;
	}
	r = add_fact(ctx, rel, e, 0, relation_text(lhs, op, rhs), where);
	sym__expr_unref(d);
	sym__expr_unref(e);
	return r;
}

/* Assume that "k" >= 1 divides "e" (borrowed) in the current scope of
 * "ctx". Return 0 or -1. */
int
sym_ctx_assume_divisible(sym_ctx *ctx, const sym_expr *e, int64_t k,
    const sym_loc *where)
{
	char *s, *text;

	if (!ctx || !e)
		return -1;
	if (k < 1) {
		sym__error(ctx, SYM_EINVAL, where,
		    "divisibility by %lld: the divisor must be at least 1",
		    (long long)k);
		return -1;
	}
	s = sym_expr_to_str(e);
	if (s &&
	    (sym_expr_is_symbol(e) == SYM_TRUE ||
	        sym_expr_is_const(e) == SYM_TRUE))
		text = sym__asprintf("%s mod %lld == 0", s, (long long)k);
	else if (s)
		text = sym__asprintf("(%s) mod %lld == 0", s, (long long)k);
	else
		text = NULL;
	free(s);
	return add_fact(ctx, SYM__REL_DIV, (sym_expr *)e, k, text, where);
}

/* Return the number of facts in scope in "ctx". */
size_t
sym_ctx_n_facts(const sym_ctx *ctx)
{
	return ctx ? ctx->n_fact : 0;
}

/* Return a malloc'ed text of fact "i" of "ctx", or NULL (SYM_ENOMEM on
 * "ctx" when out of memory). */
char *
sym_ctx_fact_to_str(const sym_ctx *ctx, size_t i)
{
	if (!ctx || i >= ctx->n_fact)
		return NULL;
	return sym__strdup((sym_ctx *)ctx, ctx->fact[i].text);
}

/* Decide whether some binding satisfies the declarations and every fact
 * in scope of "ctx": SYM_TRUE (with a witness binding when "witness" is
 * not NULL), SYM_FALSE, SYM_UNKNOWN or SYM_ERROR. */
sym_answer
sym_ctx_satisfiable(sym_ctx *ctx, sym_binding **witness)
{
	sym_answer a;

	if (witness)
		*witness = NULL;
	if (!ctx)
		return SYM_ERROR;
	if (ctx->n_fact == 0) {
		if (witness) {
			*witness = sym_binding_new(ctx);
			if (!*witness)
				return SYM_ERROR;
		}
		return SYM_TRUE;
	}
	if (!ctx->opt_exact)
		return SYM_UNKNOWN;
	a = sym__isl_satisfiable(ctx, witness);
	return a;
}
