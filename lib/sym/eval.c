/* SPDX-License-Identifier: MIT */
/*
 * Evaluation of expressions under a binding, in checked 64-bit arithmetic.
 */
#include <stdlib.h>

#include "sym/expr_private.h"

/* Where values come from: a binding, or "n" symbols and their values. */
struct env {
	const sym_binding *b;
	sym_symbol *const *sym;
	const int64_t *val;
	size_t n;
	int quiet; /* fail without recording an error */
};

/* Record an evaluation error "code" about "e" on its context; return -1. */
static int
eval_error(const struct sym_expr *e, sym_error code, const char *what)
{
	sym__error(e->ctx, code, NULL, "%s", what);
	return -1;
}

/* As eval_error, unless "env" is quiet. */
static int
env_error(const struct env *env, const struct sym_expr *e, sym_error code,
    const char *what)
{
	return env->quiet ? -1 : eval_error(e, code, what);
}

/* Return floor("a" / "b") for b > 0 without overflow. */
static int64_t
floordiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if (a % b != 0 && a < 0)
		q--;
	return q;
}

static int eval_node(const struct sym_expr *e, const struct env *env,
    int64_t *v);

/* Store the value of "s" in "env" in "*v"; 0, or -1 when it has none. */
static inline int
lookup(const struct env *env, sym_symbol *s, int64_t *v)
{
	if (env->b)
		return sym_binding_get(env->b, s, v);
	for (size_t i = 0; i < env->n; i++)
		if (env->sym[i] == s) {
			*v = env->val[i];
			return 0;
		}
	return -1;
}

/* Store the value in "b" of the symbol atom "e" in "*v"; 0, or -1 when
 * it has none. */
static inline int
eval_var(const struct sym_expr *e, const struct env *b, int64_t *v)
{
	if (lookup(b, e->u.var, v) == 0)
		return 0;
	if (!b->quiet)
		sym__error(e->ctx, SYM_EUNBOUND, NULL, "symbol %s has no value",
		    e->u.var->name);
	return -1;
}

/* Evaluate the atom "e" under "b" into "*v"; 0 or -1. */
static int
eval_atom(const struct sym_expr *e, const struct env *b, int64_t *v)
{
	int64_t x, y;

	if (e->kind == SYM__VAR)
		return eval_var(e, b, v);
	if (eval_node(e->u.bin.a, b, &x) < 0 ||
	    eval_node(e->u.bin.b, b, &y) < 0)
		return -1;
	switch (e->kind) {
	case SYM__FDIV:
	case SYM__MOD:
		if (y <= 0) {
			if (b->quiet)
				return -1;
			sym__error(e->ctx, SYM_EDIVZERO, NULL,
			    "%s by %lld: the divisor must be positive",
			    e->kind == SYM__FDIV ? "division" : "modulo",
			    (long long)y);
			return -1;
		}
		*v = floordiv64(x, y);
		if (e->kind == SYM__MOD)
			*v = x - *v * y;
		return 0;
	case SYM__MIN:
		*v = x < y ? x : y;
		return 0;
	case SYM__MAX:
		*v = x > y ? x : y;
		return 0;
	default:
		break;
	}
	return eval_error(e, SYM_EINTERNAL, "unexpected node in evaluation");
}

/* Evaluate the polynomial or atom "e" under "b" into "*v"; 0 or -1. */
static int
eval_node(const struct sym_expr *e, const struct env *b, int64_t *v)
{
	int64_t s, t, x;

	if (e->kind != SYM__POLY)
		return eval_atom(e, b, v);
	if (!sym__num_fits(&e->u.poly.c, &s))
		return env_error(b, e, SYM_EOVERFLOW,
		    "constant does not fit 64 bits");
	for (uint32_t i = 0; i < e->u.poly.n; i++) {
		const struct sym__term *term = &e->u.poly.t[i];

		if (!sym__num_fits(&term->coef, &t))
			return env_error(b, e, SYM_EOVERFLOW,
			    "coefficient does not fit 64 bits");
		for (uint32_t j = 0; j < term->n; j++) {
			const struct sym_expr *a = term->f[j].atom;

			if ((a->kind == SYM__VAR ? eval_var(a, b, &x)
			                         : eval_atom(a, b, &x)) < 0)
				return -1;
			for (uint32_t k = 0; k < term->f[j].exp; k++)
				if (__builtin_mul_overflow(t, x, &t))
					return env_error(b, e, SYM_EOVERFLOW,
					    "64-bit overflow in evaluation");
		}
		if (__builtin_add_overflow(s, t, &s))
			return env_error(b, e, SYM_EOVERFLOW,
			    "64-bit overflow in evaluation");
	}
	*v = s;
	return 0;
}

/* Evaluate "e" with the values of "b" into "*value". Return 0, or -1 with
 * SYM_EUNBOUND (a symbol without value), SYM_EOVERFLOW (a result or an
 * intermediate value outside 64 bits) or SYM_EDIVZERO. */
int
sym_expr_eval(const sym_expr *e, const sym_binding *b, int64_t *value)
{
	struct env env = { b, NULL, NULL, 0, 0 };
	int64_t v;

	if (!e || !b)
		return -1;
	if (eval_node(e, &env, &v) < 0)
		return -1;
	if (value)
		*value = v;
	return 0;
}

/* Evaluate "e" with the "n" symbols "sym" given the values "val" into
 * "*value"; return 0, or -1 (without recording an error) on overflow,
 * division by a non-positive value or a symbol without value. */
int
sym__expr_eval_vals(const sym_expr *e, sym_symbol *const *sym,
    const int64_t *val, size_t n, int64_t *value)
{
	struct env env = { NULL, sym, val, n, 1 };

	return eval_node(e, &env, value);
}
