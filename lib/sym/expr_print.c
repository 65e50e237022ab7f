/* SPDX-License-Identifier: MIT */
/*
 * Printing expressions as the text the parser reads back: terms in their
 * canonical order, then the constant; powers as repeated products.
 */
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "sym/expr_private.h"

/* Append the decimal value of "v" to "b", without its sign when "abs". */
static void
buf_num(struct sym__str *b, const sym__num *v, int abs)
{
	char *s = sym__num_to_str(v);

	if (!s) {
		b->failed = 1;
		return;
	}
	sym__str_puts(b, abs && s[0] == '-' ? s + 1 : s);
	free(s);
}

static void print_node(struct sym__str *b, const struct sym_expr *e);

/* Return 1 when the polynomial "e" is a single term "coef" * one atom to
 * the power one, without constant; store the atom in "*atom" and the
 * coefficient in "*coef". */
static int
single_atom_term(const struct sym_expr *e, struct sym_expr **atom,
    const sym__num **coef)
{
	const struct sym__term *t;

	if (e->kind != SYM__POLY || e->u.poly.n != 1 ||
	    sym__num_sgn(&e->u.poly.c) != 0)
		return 0;
	t = &e->u.poly.t[0];
	if (t->n != 1 || t->f[0].exp != 1)
		return 0;
	*atom = t->f[0].atom;
	*coef = &t->coef;
	return 1;
}

/* Return 1 when "kind" is a division atom, printed with an infix word. */
static int
is_division(int kind)
{
	return kind == SYM__FDIV || kind == SYM__MOD;
}

/* Return 1 when the left operand "e" of floordiv or mod must be
 * parenthesised: it is a sum, a negative term or constant, or itself a
 * lone division. */
static int
left_needs_parens(const struct sym_expr *e)
{
	struct sym_expr *atom;
	const sym__num *coef;

	if (e->kind != SYM__POLY)
		return is_division(e->kind);
	if (e->u.poly.n == 0)
		return sym__num_sgn(&e->u.poly.c) < 0;
	if (e->u.poly.n > 1 || sym__num_sgn(&e->u.poly.c) != 0)
		return 1;
	if (sym__num_sgn(&e->u.poly.t[0].coef) < 0)
		return 1;
	return single_atom_term(e, &atom, &coef) && is_division(atom->kind);
}

/* Return 1 when the divisor "e" can be printed without parentheses: a
 * non-negative constant, a symbol, or a min or max. */
static int
divisor_is_bare(const struct sym_expr *e)
{
	struct sym_expr *atom;
	const sym__num *coef;

	if (e->kind != SYM__POLY)
		return !is_division(e->kind);
	if (e->u.poly.n == 0)
		return sym__num_sgn(&e->u.poly.c) >= 0;
	if (!single_atom_term(e, &atom, &coef) || sym__num_cmp_si(coef, 1))
		return 0;
	return !is_division(atom->kind);
}

/* Append "e" to "b", in parentheses when "parens". */
static void
print_wrapped(struct sym__str *b, const struct sym_expr *e, int parens)
{
	if (parens)
		sym__str_puts(b, "(");
	print_node(b, e);
	if (parens)
		sym__str_puts(b, ")");
}

/* Append the atom "a" to "b"; a division is parenthesised when "wrap". */
static void
print_atom(struct sym__str *b, const struct sym_expr *a, int wrap)
{
	switch (a->kind) {
	case SYM__VAR:
		sym__str_puts(b, a->u.var->name);
		return;
	case SYM__FDIV:
	case SYM__MOD:
		if (wrap)
			sym__str_puts(b, "(");
		print_wrapped(b, a->u.bin.a, left_needs_parens(a->u.bin.a));
		sym__str_puts(b, a->kind == SYM__FDIV ? " floordiv " : " mod ");
		print_wrapped(b, a->u.bin.b, !divisor_is_bare(a->u.bin.b));
		if (wrap)
			sym__str_puts(b, ")");
		return;
	case SYM__MIN:
	case SYM__MAX:
		sym__str_puts(b, a->kind == SYM__MIN ? "min(" : "max(");
		print_node(b, a->u.bin.a);
		sym__str_puts(b, ", ");
		print_node(b, a->u.bin.b);
		sym__str_puts(b, ")");
		return;
	case SYM__POLY:
		print_node(b, a);
		return;
	}
}

/* Append the monomial of term "t" to "b" as a product of atoms; a lone
 * division atom is parenthesised only when "wrap". */
static void
print_monomial(struct sym__str *b, const struct sym__term *t, int wrap)
{
	int first = 1;

	if (t->n > 1 || (t->n == 1 && t->f[0].exp > 1))
		wrap = 1;
	for (uint32_t i = 0; i < t->n && !b->failed; i++)
		for (uint32_t k = 0; k < t->f[i].exp && !b->failed; k++) {
			if (!first)
				sym__str_puts(b, "*");
			print_atom(b, t->f[i].atom, wrap);
			first = 0;
		}
}

/* Append term "t" of a sum to "b", with its sign: a leading minus when
 * "first", else " + " or " - ". */
static void
print_term(struct sym__str *b, const struct sym__term *t, int first)
{
	int neg = sym__num_sgn(&t->coef) < 0;
	int unit = sym__num_cmp_si(&t->coef, neg ? -1 : 1) == 0;

	if (first)
		sym__str_puts(b, neg ? "-" : "");
	else
		sym__str_puts(b, neg ? " - " : " + ");
	if (!unit) {
		buf_num(b, &t->coef, 1);
		sym__str_puts(b, "*");
	}
	print_monomial(b, t, !unit || (first && neg));
}

/* Append the polynomial "e" to "b": its terms, then its constant. */
static void
print_poly(struct sym__str *b, const struct sym_expr *e)
{
	int sgn = sym__num_sgn(&e->u.poly.c);

	if (e->u.poly.n == 0) {
		buf_num(b, &e->u.poly.c, 0);
		return;
	}
	for (uint32_t i = 0; i < e->u.poly.n && !b->failed; i++)
		print_term(b, &e->u.poly.t[i], i == 0);
	if (sgn == 0)
		return;
	sym__str_puts(b, sgn < 0 ? " - " : " + ");
	buf_num(b, &e->u.poly.c, 1);
}

/* Append the node "e" (a polynomial or an atom) to "b". */
static void
print_node(struct sym__str *b, const struct sym_expr *e)
{
	if (b->failed)
		return;
	if (e->kind == SYM__POLY)
		print_poly(b, e);
	else
		print_atom(b, e, 0);
}

/* Return a malloc'ed text of the atom "atom" (or of any node), readable
 * by sym_expr_parse; NULL when "atom" is NULL or on allocation failure. */
static char *
atom_to_str(const struct sym_expr *atom)
{
	struct sym__str b = SYM__STR_INIT;

	if (!atom)
		return NULL;
	print_node(&b, atom);
	return sym__str_take(&b, atom->ctx);
}

/* Return a malloc'ed text of "e" that sym_expr_parse reads back to the
 * same expression ("2*b + 1", "-(b mod 4)", "min(a, b)"); the caller frees
 * it. NULL when "e" is NULL or on allocation failure. */
char *
sym_expr_to_str(const sym_expr *e)
{
	return atom_to_str(e);
}
