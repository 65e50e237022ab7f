/* SPDX-License-Identifier: MIT */
/*
 * Traversals of expressions: every atom (sym__expr_foreach_atom), the
 * distinct symbols up to a bound, and rebuilding with the atoms mapped
 * (sym__expr_map).
 */
#include "sym/expr_private.h"

/* Visit "e" and its descendants, calling "fn" on every atom after its
 * children; stop at the first non-zero return value. */
static int
foreach_atom(struct sym_expr *e, sym__atom_fn fn, void *user)
{
	int r;

	if (e->kind == SYM__POLY) {
		for (uint32_t i = 0; i < e->u.poly.n; i++)
			for (uint32_t k = 0; k < e->u.poly.t[i].n; k++) {
				r = foreach_atom(e->u.poly.t[i].f[k].atom, fn,
				    user);
				if (r)
					return r;
			}
		return 0;
	}
	if (e->kind != SYM__VAR) {
		r = foreach_atom(e->u.bin.a, fn, user);
		if (!r)
			r = foreach_atom(e->u.bin.b, fn, user);
		if (r)
			return r;
	}
	return fn(e, user);
}

/* Add "s" to the "n" symbols of "out" (room for "cap") unless it is there
 * already; return the new count, or "cap" + 1 when "out" is full. */
static inline size_t
add_symbol(sym_symbol **out, size_t n, size_t cap, sym_symbol *s)
{
	for (size_t i = 0; i < n; i++)
		if (out[i] == s)
			return n;
	if (n == cap)
		return cap + 1;
	out[n] = s;
	return n + 1;
}

/* Add the symbols of "e" not among the "n" of "out" to "out" (room for
 * "cap"), in the order of sym_expr_symbols; return the new count, or
 * "cap" + 1 as soon as there are more than "cap". */
static size_t
collect_upto(const struct sym_expr *e, sym_symbol **out, size_t n, size_t cap)
{
	switch (e->kind) {
	case SYM__VAR:
		return add_symbol(out, n, cap, e->u.var);
	case SYM__POLY:
		for (uint32_t i = 0; i < e->u.poly.n && n <= cap; i++)
			for (uint32_t k = 0; k < e->u.poly.t[i].n && n <= cap;
			     k++) {
				const struct sym_expr *a =
				    e->u.poly.t[i].f[k].atom;

				n = a->kind == SYM__VAR
				    ? add_symbol(out, n, cap, a->u.var)
				    : collect_upto(a, out, n, cap);
			}
		return n;
	default:
		n = collect_upto(e->u.bin.a, out, n, cap);
		return n <= cap ? collect_upto(e->u.bin.b, out, n, cap) : n;
	}
}

/* Store the distinct symbols of "e" in "out" (room for "cap"), in order
 * of first appearance as sym_expr_symbols does, and return how many there
 * are, or "cap" + 1 when there are more than "cap" (then stopping early,
 * without allocating). */
size_t
sym__expr_symbols_upto(const sym_expr *e, sym_symbol **out, size_t cap)
{
	return collect_upto(e, out, 0, cap);
}

/* Call "fn"(atom, "user") on every atom occurrence of "e", children before
 * parents; return the first non-zero value "fn" returns, or 0. */
int
sym__expr_foreach_atom(sym_expr *e, sym__atom_fn fn, void *user)
{
	return foreach_atom(e, fn, user);
}

/* Return the atom "a" rebuilt by sym__expr_map (internal reference). */
static sym_expr *
map_atom(struct sym_expr *a, sym__atom_map fn, void *user)
{
	sym_expr *x, *y, *r = NULL, *s;

	if (a->kind == SYM__VAR) {
		r = sym__atom_poly(a);
	} else {
		x = sym__expr_map(a->u.bin.a, fn, user);
		y = sym__expr_map(a->u.bin.b, fn, user);
		if (x && y) {
			if (a->kind == SYM__FDIV)
				r = sym__fdiv(x, y);
			else if (a->kind == SYM__MOD)
				r = sym__mod(x, y);
			else if (a->kind == SYM__MIN)
				r = sym__min(x, y);
			else
				r = sym__max(x, y);
		}
		sym__expr_unref(x);
		sym__expr_unref(y);
	}
	if (!r)
		return NULL;
	s = fn(a, r, user);
	sym__expr_unref(r);
	return s;
}

/* Return the polynomial "e" (borrowed) rebuilt bottom-up, each atom
 * replaced by what "fn"("atom", "rebuilt", "user") returns, "rebuilt"
 * being the atom over its own rebuilt operands; an internal reference,
 * simplified by the constructors, or NULL on error. */
sym_expr *
sym__expr_map(sym_expr *e, sym__atom_map fn, void *user)
{
	sym_expr *sum = sym__const_num(e->ctx, &e->u.poly.c);

	for (uint32_t i = 0; sum && i < e->u.poly.n; i++) {
		const struct sym__term *t = &e->u.poly.t[i];
		sym_expr *prod = sym__const_num(e->ctx, &t->coef), *next;

		for (uint32_t j = 0; prod && j < t->n; j++) {
			sym_expr *f = map_atom(t->f[j].atom, fn, user);

			for (uint32_t k = 0; f && prod && k < t->f[j].exp;
			     k++) {
				next = sym__mul(prod, f);
				sym__expr_unref(prod);
				prod = next;
			}
			if (!f) {
				sym__expr_unref(prod);
				prod = NULL;
			}
			sym__expr_unref(f);
		}
		next = prod ? sym__add(sum, prod) : NULL;
		sym__expr_unref(prod);
		sym__expr_unref(sum);
		sum = next;
	}
	return sum;
}
