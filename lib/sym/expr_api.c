/* SPDX-License-Identifier: MIT */
/*
 * The public expression API: reference-counted wrappers around the
 * canonical constructors, queries and substitution.
 */
#include <stdlib.h>
#include <string.h>

#include "sym/expr_private.h"

/* Return a caller reference to the constant "value" of "ctx". */
sym_expr *
sym_expr_const(sym_ctx *ctx, int64_t value)
{
	return ctx ? sym__expr_give(sym__const(ctx, value)) : NULL;
}

/* Return a caller reference to the constant written in decimal in
 * "decimal" (optional sign, any size), or NULL with SYM_EPARSE. */
sym_expr *
sym_expr_const_str(sym_ctx *ctx, const char *decimal)
{
	sym__num n = SYM__NUM_ZERO;
	sym_expr *e;

	if (!ctx || !decimal)
		return NULL;
	if (sym__num_from_str(&n, decimal) < 0) {
		sym__error(ctx, SYM_EPARSE, NULL, "invalid integer '%s'",
		    decimal);
		return NULL;
	}
	e = sym__const_num(ctx, &n);
	sym__num_clear(&n);
	return sym__expr_give(e);
}

/* Return a caller reference to the expression of symbol "sym". */
sym_expr *
sym_expr_symbol(sym_symbol *sym)
{
	return sym ? sym__expr_give(sym__var(sym)) : NULL;
}

/* Return a new caller reference to "e". */
sym_expr *
sym_expr_copy(const sym_expr *e)
{
	return sym__expr_give(sym__expr_ref((sym_expr *)e));
}

/* Release the caller reference "e"; return NULL. */
sym_expr *
sym_expr_free(sym_expr *e)
{
	if (!e)
		return NULL;
	e->ctx->live[SYM__OBJ_EXPR]--;
	sym__expr_unref(e);
	return NULL;
}

typedef sym_expr *(*binop)(sym_expr *, sym_expr *);

/* Apply the internal constructor "op" to "a" and "b", consuming both
 * caller references and returning a new one. */
static sym_expr *
apply(sym_expr *a, sym_expr *b, binop op)
{
	sym_expr *r = NULL;

	if (a && b)
		r = op(a, b);
	sym_expr_free(a);
	sym_expr_free(b);
	return sym__expr_give(r);
}

/* Return "a" + "b"; both are consumed. */
sym_expr *
sym_expr_add(sym_expr *a, sym_expr *b)
{
	return apply(a, b, sym__add);
}

/* Return "a" - "b"; both are consumed. */
sym_expr *
sym_expr_sub(sym_expr *a, sym_expr *b)
{
	return apply(a, b, sym__sub);
}

/* Return "a" * "b"; both are consumed. */
sym_expr *
sym_expr_mul(sym_expr *a, sym_expr *b)
{
	return apply(a, b, sym__mul);
}

/* Return -"a"; "a" is consumed. */
sym_expr *
sym_expr_neg(sym_expr *a)
{
	return sym_expr_mul_si(a, -1);
}

/* Return "a" floordiv "b" (floor of the quotient; "b" must be positive);
 * both are consumed. A non-positive constant divisor is SYM_EDIVZERO. */
sym_expr *
sym_expr_floordiv(sym_expr *a, sym_expr *b)
{
	return apply(a, b, sym__fdiv);
}

/* Return ceiling("a" / "b") for a positive "b"; both are consumed. */
static sym_expr *
ceildiv(sym_expr *a, sym_expr *b)
{
	const sym__num *k;
	sym_expr *t, *q, *r;

	if (sym__expr_const_num(b, &k) && sym__num_sgn(k) > 0) {
		sym__num k1 = SYM__NUM_ZERO, m1 = { -1, NULL };
		sym_expr *c;

		sym__num_add(&k1, k, &m1);
		c = sym__const_num(a->ctx, &k1);
		sym__num_clear(&k1);
		t = sym__add(a, c);
		sym__expr_unref(c);
		r = sym__fdiv(t, b);
		sym__expr_unref(t);
		return r;
	}
	t = sym__scale_si(a, -1);
	q = sym__fdiv(t, b);
	r = sym__scale_si(q, -1);
	sym__expr_unref(t);
	sym__expr_unref(q);
	return r;
}

/* Return ceiling("a" / "b") ("b" positive); both are consumed. */
sym_expr *
sym_expr_ceildiv(sym_expr *a, sym_expr *b)
{
	return apply(a, b, ceildiv);
}

/* Return "a" mod "b" (in [0, b) for a positive "b"); both are consumed. */
sym_expr *
sym_expr_mod(sym_expr *a, sym_expr *b)
{
	return apply(a, b, sym__mod);
}

/* Return min("a", "b"); both are consumed. */
sym_expr *
sym_expr_min(sym_expr *a, sym_expr *b)
{
	return apply(a, b, sym__min);
}

/* Return max("a", "b"); both are consumed. */
sym_expr *
sym_expr_max(sym_expr *a, sym_expr *b)
{
	return apply(a, b, sym__max);
}

/* Return "a" + "v"; "a" is consumed. */
sym_expr *
sym_expr_add_si(sym_expr *a, int64_t v)
{
	return a ? sym_expr_add(a, sym_expr_const(a->ctx, v)) : NULL;
}

/* Return "a" * "v"; "a" is consumed. */
sym_expr *
sym_expr_mul_si(sym_expr *a, int64_t v)
{
	return a ? sym_expr_mul(a, sym_expr_const(a->ctx, v)) : NULL;
}

/* Return "a" floordiv "v"; "a" is consumed. */
sym_expr *
sym_expr_floordiv_si(sym_expr *a, int64_t v)
{
	return a ? sym_expr_floordiv(a, sym_expr_const(a->ctx, v)) : NULL;
}

/* Return ceiling("a" / "v"); "a" is consumed. */
sym_expr *
sym_expr_ceildiv_si(sym_expr *a, int64_t v)
{
	return a ? sym_expr_ceildiv(a, sym_expr_const(a->ctx, v)) : NULL;
}

/* Return "a" mod "v"; "a" is consumed. */
sym_expr *
sym_expr_mod_si(sym_expr *a, int64_t v)
{
	return a ? sym_expr_mod(a, sym_expr_const(a->ctx, v)) : NULL;
}

/* Return the context of "e". */
sym_ctx *
sym_expr_ctx(const sym_expr *e)
{
	return e ? e->ctx : NULL;
}

/* Return SYM_TRUE when "e" is an integer constant, SYM_FALSE when not,
 * SYM_ERROR for NULL. */
sym_answer
sym_expr_is_const(const sym_expr *e)
{
	if (!e)
		return SYM_ERROR;
	return sym__expr_const_num(e, NULL) ? SYM_TRUE : SYM_FALSE;
}

/* Store the value of the constant "e" in "*value" (may be NULL) and return
 * 0; return -1 when "e" is not a constant or does not fit 64 bits. */
int
sym_expr_get_const(const sym_expr *e, int64_t *value)
{
	const sym__num *n;

	if (!sym__expr_const_num(e, &n) || !sym__num_fits(n, value))
		return -1;
	return 0;
}

/* Return SYM_TRUE when "e" is exactly one symbol, SYM_FALSE when not,
 * SYM_ERROR for NULL. */
sym_answer
sym_expr_is_symbol(const sym_expr *e)
{
	struct sym_expr *a;

	if (!e)
		return SYM_ERROR;
	a = sym__poly_single_atom(e);
	return a && a->kind == SYM__VAR ? SYM_TRUE : SYM_FALSE;
}

/* Return 1 when "e" is quasi-affine: a sum of constants times symbols,
 * floordiv and mod by constants of quasi-affine expressions, and min and
 * max of quasi-affine expressions. */
sym_answer
sym_expr_is_affine(const sym_expr *e)
{
	if (!e)
		return SYM_ERROR;
	return e->affine ? SYM_TRUE : SYM_FALSE;
}

/* Return SYM_TRUE when "a" and "b" are the same expression (canonical
 * forms are hash-consed, so this is pointer equality), SYM_FALSE when
 * not, SYM_ERROR when either is NULL. */
sym_answer
sym_expr_is_equal(const sym_expr *a, const sym_expr *b)
{
	if (!a || !b)
		return SYM_ERROR;
	return a == b ? SYM_TRUE : SYM_FALSE;
}

/* Return the structural hash of "e". */
uint32_t
sym_expr_hash(const sym_expr *e)
{
	return e ? e->hash : 0;
}

struct find_sym {
	const sym_symbol *sym;
};

/* Atom visitor: return 1 when "atom" is the symbol sought by "user". */
static int
is_sym(struct sym_expr *atom, void *user)
{
	return atom->kind == SYM__VAR &&
	    atom->u.var == ((struct find_sym *)user)->sym;
}

/* Return SYM_TRUE when "e" involves the symbol "sym", SYM_FALSE when
 * not, SYM_ERROR when either is NULL. */
sym_answer
sym_expr_involves(const sym_expr *e, const sym_symbol *sym)
{
	struct find_sym f = { sym };

	if (!e || !sym)
		return SYM_ERROR;
	return sym__expr_foreach_atom((sym_expr *)e, is_sym, &f) ? SYM_TRUE
	                                                         : SYM_FALSE;
}

struct collect {
	sym_symbol **all; /* "buf" until it outgrows it */
	size_t n, cap;
	int err;
	sym_symbol *buf[16];
};

/* Atom visitor: record a symbol in "user" once. */
static int
collect_sym(struct sym_expr *atom, void *user)
{
	struct collect *c = user;

	if (atom->kind != SYM__VAR)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->all[i] == atom->u.var)
			return 0;
	if (c->n == c->cap) {
		size_t cap = 2 * c->cap;
		sym_symbol **p =
		    sym__realloc_array(atom->ctx, NULL, cap, sizeof(*p));

		if (!p) {
			c->err = 1;
			return 1;
		}
		memcpy(p, c->all, c->n * sizeof(*p));
		if (c->all != c->buf)
			free(c->all);
		c->all = p;
		c->cap = cap;
	}
	c->all[c->n++] = atom->u.var;
	return 0;
}

/* Store up to "cap" distinct symbols of "e" in "out", in order of first
 * appearance, and return how many distinct symbols "e" has in all (0 with
 * SYM_ENOMEM on allocation failure). */
size_t
sym_expr_symbols(const sym_expr *e, sym_symbol **out, size_t cap)
{
	struct collect c;
	size_t n;

	if (!e)
		return 0;
	c.all = c.buf;
	c.n = 0;
	c.cap = sizeof(c.buf) / sizeof(c.buf[0]);
	c.err = 0;
	sym__expr_foreach_atom((sym_expr *)e, collect_sym, &c);
	if (c.err) {
		if (c.all != c.buf)
			free(c.all);
		return 0;
	}
	n = c.n;
	for (size_t i = 0; i < n && i < cap; i++)
		out[i] = c.all[i];
	if (c.all != c.buf)
		free(c.all);
	return n;
}

struct subst {
	sym_symbol *sym;
	const sym_expr *value;
};

/* Atom map of substitution: the symbol sought by "user" becomes its
 * value, every other atom its "rebuilt" self (internal references). */
static sym_expr *
subst_atom(struct sym_expr *atom, sym_expr *rebuilt, void *user)
{
	struct subst *su = user;

	if (atom->kind == SYM__VAR && atom->u.var == su->sym)
		return sym__expr_ref((sym_expr *)su->value);
	return sym__expr_ref(rebuilt);
}

/* Return "e" with every occurrence of "sym" replaced by "value" (kept),
 * simplified; "e" is consumed. */
sym_expr *
sym_expr_substitute(sym_expr *e, sym_symbol *sym, const sym_expr *value)
{
	struct subst su = { sym, value };
	sym_expr *r = NULL;

	if (e && sym && value)
		r = sym__expr_map(e, subst_atom, &su);
	sym_expr_free(e);
	return sym__expr_give(r);
}
