/* SPDX-License-Identifier: MIT */
/*
 * The integer program of a plan: expressions compiled into a
 * straight-line sequence of 64-bit operations, one slot per instruction,
 * with common subexpressions shared twice over: expression nodes are
 * hash-consed, so a map from node to slot shares whole subexpressions,
 * and equal instructions (same operation on the same slots) are emitted
 * once. The interpreter checks every operation for overflow and every
 * divisor for sign, and reports what the failing instruction was computed
 * for, so a binding can never wrap around or divide by zero.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_private.h"

/* Return the slot the expression node numbered "id" compiles to in
 * "p", or SYM__NO_SLOT. The table's hash is the mixed id itself
 * (sym__mix64 is a bijection), so a slot of that hash is the entry. */
static uint32_t
expr_map_get(const sym_plan *p, uint64_t id)
{
	size_t i = sym__htab_first(&p->expr_map, sym__mix64(id));

	return i == SYM__HTAB_END ? SYM__NO_SLOT
	                          : (uint32_t)p->expr_map.slot[i].item;
}

/* Return the hash of an instruction "op" "a" "b" "k". */
static uint64_t
insn_hash(enum sym__pop op, uint32_t a, uint32_t b, int64_t k)
{
	return sym__mix64(sym__mix64(((uint64_t)op << 56) ^
	                      ((uint64_t)a << 24) ^ b) ^
	    (uint64_t)k);
}

/* Return the slot of the instruction "op" "a" "b" "k" of "p", hashed
 * "h", from the table of common subexpressions, or SYM__NO_SLOT. */
static uint32_t
cse_find(const sym_plan *p, uint64_t h, enum sym__pop op, uint32_t a,
    uint32_t b, int64_t k)
{
	const struct sym__htab *t = &p->cse;

	for (size_t i = sym__htab_first(t, h); i != SYM__HTAB_END;
	     i = sym__htab_next(t, h, i)) {
		const struct sym__insn *x = &p->insn[t->slot[i].item];

		if (x->op == op && x->a == a && x->b == b && x->k == k)
			return (uint32_t)t->slot[i].item;
	}
	return SYM__NO_SLOT;
}

/* Add what is compiled from now on ("kind", "a", "b", see sym__what) to
 * "p"; 0 or -1. */
int
sym__plan_what(sym_plan *p, enum sym__what_kind kind, size_t a, size_t b)
{
	if (SYM__RESERVE(p->ctx, p->what, p->cap_what, p->n_what + 1) < 0)
		return -1;
	p->what[p->n_what].kind = (uint8_t)kind;
	p->what[p->n_what].a = a;
	p->what[p->n_what].b = b;
	p->cur_what = (uint32_t)p->n_what++;
	return 0;
}

/* Return the slot of the instruction "op" on the slots "a" and "b" with
 * the constant "k" in "p": an equal instruction already emitted, else a
 * new one; SYM__NO_SLOT when an operand is missing or out of memory. */
uint32_t
sym__plan_emit(sym_plan *p, enum sym__pop op, uint32_t a, uint32_t b, int64_t k)
{
	struct sym__insn *x;
	uint64_t h;
	uint32_t s;

	if (p->failed)
		return SYM__NO_SLOT;
	if (op != SYM__P_CONST && op != SYM__P_SYM &&
	    (a == SYM__NO_SLOT || (op != SYM__P_DIVEXACT && b == SYM__NO_SLOT)))
		return SYM__NO_SLOT;
	if (op == SYM__P_CONST)
		a = b = 0;
	else if (op == SYM__P_SYM || op == SYM__P_DIVEXACT)
		b = a;
	if (p->n_insn >= SYM__NO_SLOT - 1) {
		sym__error(p->ctx, SYM_EINVAL, NULL,
		    "the plan's program is too large");
		p->failed = 1;
		return SYM__NO_SLOT;
	}
	h = insn_hash(op, a, b, k);
	if (sym__htab_reserve(p->ctx, &p->cse, 1) < 0 ||
	    SYM__RESERVE(p->ctx, p->insn, p->cap_insn, p->n_insn + 1) < 0) {
		sym__oom(p->ctx);
		p->failed = 1;
		return SYM__NO_SLOT;
	}
	s = cse_find(p, h, op, a, b, k);
	if (s != SYM__NO_SLOT)
		return s;
	s = (uint32_t)p->n_insn++;
	x = &p->insn[s];
	x->op = (uint8_t)op;
	x->a = a;
	x->b = b;
	x->k = k;
	x->what = p->cur_what;
	x->flags = 0;
	if (op == SYM__P_SYM)
		x->flags = a >= p->n_sym ? SYM__INSN_OPTIONAL : 0;
	else if (op != SYM__P_CONST)
		x->flags =
		    (p->insn[a].flags | p->insn[b].flags) & SYM__INSN_OPTIONAL;
	/* Room was reserved above: this cannot fail. */
	(void)sym__htab_add(p->ctx, &p->cse, h, s);
	return s;
}

/* Return the number of symbol "sym" among those of "p", or -1. */
long
sym__plan_symbol_index(const sym_plan *p, const sym_symbol *sym)
{
	for (size_t i = 0; i < p->n_sym + p->n_extra; i++)
		if (p->sym[i] == sym)
			return (long)i;
	return -1;
}

/* Return the number of the eliminated variable "var" of "p", or -1. */
long
sym__plan_elim_index(const sym_plan *p, const sym_symbol *var)
{
	for (size_t i = 0; i < p->n_elim; i++)
		if (p->elim[i].var == var)
			return (long)i;
	return -1;
}

/* Return the slot of the constant "v" in "p". */
static uint32_t
constant(sym_plan *p, int64_t v)
{
	return sym__plan_emit(p, SYM__P_CONST, 0, 0, v);
}

/* Record that the expression compiler of "p" failed with "code" and the
 * message "msg" about "what"; return SYM__NO_SLOT. */
static uint32_t
fail(sym_plan *p, sym_error code, const char *msg, const char *what)
{
	if (!p->failed)
		sym__error(p->ctx, code, NULL, "%s%s%s", msg, what ? " " : "",
		    what ? what : "");
	p->failed = 1;
	return SYM__NO_SLOT;
}

static uint32_t expr_slot(sym_plan *p, struct sym_expr *e);

/* Return the slot of the symbol atom "var" of "p": an input, or the value
 * of a variable unification eliminated. */
static uint32_t
var_slot(sym_plan *p, sym_symbol *var)
{
	long i = sym__plan_symbol_index(p, var);
	struct sym__elim *el;
	uint32_t s;

	if (i >= 0)
		return (uint32_t)i;
	i = sym__plan_elim_index(p, var);
	if (i < 0)
		return fail(p, SYM_EINTERNAL, "plan: unexpected symbol",
		    var->name);
	el = &p->elim[i];
	if (el->slot != SYM__NO_SLOT)
		return el->slot;
	if (el->busy)
		return fail(p, SYM_EINTERNAL,
		    "plan: derived relations define in a cycle", var->name);
	el->busy = 1;
	s = expr_slot(p, el->value);
	el->busy = 0;
	el = &p->elim[i];
	el->slot = s;
	return s;
}

/* Return 1 when every coefficient and the constant of the polynomial "e"
 * are at most 0 and one is negative. */
static int
all_negative(const struct sym_expr *e)
{
	if (e->kind != SYM__POLY || sym__num_sgn(&e->u.poly.c) > 0)
		return 0;
	for (uint32_t i = 0; i < e->u.poly.n; i++)
		if (sym__num_sgn(&e->u.poly.t[i].coef) >= 0)
			return 0;
	return e->u.poly.n > 0;
}

/* Return the slot of the atom "a" (not a symbol) of "p". */
static uint32_t
node_slot(sym_plan *p, struct sym_expr *a)
{
	uint32_t x = expr_slot(p, a->u.bin.a), y = expr_slot(p, a->u.bin.b);

	switch (a->kind) {
	case SYM__FDIV:
		return sym__plan_emit(p, SYM__P_FDIV, x, y, 0);
	case SYM__MOD:
		return sym__plan_emit(p, SYM__P_MOD, x, y, 0);
	case SYM__MIN:
		return sym__plan_emit(p, SYM__P_MIN, x, y, 0);
	case SYM__MAX:
		return sym__plan_emit(p, SYM__P_MAX, x, y, 0);
	default:
		break;
	}
	return fail(p, SYM_EINTERNAL, "plan: unexpected expression node", NULL);
}

/* Return the slot of -1 * "atom", an FDIV whose numerator has no
 * positive coefficient, as ceildiv(-numerator, divisor); SYM__NO_SLOT
 * with "*none" set when "atom" is not such a node. */
static uint32_t
negated_fdiv(sym_plan *p, struct sym_expr *atom, int *none)
{
	sym_expr *y;
	uint32_t s;

	*none = atom->kind != SYM__FDIV || !all_negative(atom->u.bin.a);
	if (*none)
		return SYM__NO_SLOT;
	y = sym__scale_si(atom->u.bin.a, -1);
	if (!y)
		return fail(p, SYM_ENOMEM, "out of memory", NULL);
	s = sym__plan_emit(p, SYM__P_CDIV, expr_slot(p, y),
	    expr_slot(p, atom->u.bin.b), 0);
	sym__expr_unref(y);
	return s;
}

/* Return the slot of term "t" of a polynomial of "p" without its sign
 * when its coefficient is -1 ("*neg" then set): the product of its
 * atoms, times its coefficient. */
static uint32_t
term_slot(sym_plan *p, const struct sym__term *t, int *neg)
{
	uint32_t m = SYM__NO_SLOT;
	int64_t c;
	int none;

	*neg = 0;
	if (!sym__num_fits(&t->coef, &c))
		return fail(p, SYM_EOVERFLOW,
		    "a coefficient does not fit 64 bits", NULL);
	if (c == -1 && t->n == 1 && t->f[0].exp == 1) {
		m = negated_fdiv(p, t->f[0].atom, &none);
		if (!none)
			return m;
	}
	for (uint32_t j = 0; j < t->n; j++) {
		uint32_t a = expr_slot(p, t->f[j].atom);

		for (uint32_t e = 0; e < t->f[j].exp; e++)
			m = m == SYM__NO_SLOT
			    ? a
			    : sym__plan_emit(p, SYM__P_MUL, m, a, 0);
	}
	if (c == -1) {
		*neg = 1;
		return m;
	}
	if (c == 1)
		return m;
	return sym__plan_emit(p, SYM__P_MUL, constant(p, c), m, 0);
}

/* Return the slot of the polynomial "e" of "p": its terms added in
 * order, then its constant. */
static uint32_t
poly_slot(sym_plan *p, struct sym_expr *e)
{
	uint32_t acc = SYM__NO_SLOT;
	int64_t c;

	for (uint32_t i = 0; i < e->u.poly.n && !p->failed; i++) {
		int neg;
		uint32_t t = term_slot(p, &e->u.poly.t[i], &neg);

		if (acc == SYM__NO_SLOT && neg)
			acc =
			    sym__plan_emit(p, SYM__P_SUB, constant(p, 0), t, 0);
		else if (acc == SYM__NO_SLOT)
			acc = t;
		else
			acc = sym__plan_emit(p, neg ? SYM__P_SUB : SYM__P_ADD,
			    acc, t, 0);
	}
	if (!sym__num_fits(&e->u.poly.c, &c))
		return fail(p, SYM_EOVERFLOW, "a constant does not fit 64 bits",
		    NULL);
	if (acc == SYM__NO_SLOT)
		return constant(p, c);
	if (c == 0)
		return acc;
	return sym__plan_emit(p, SYM__P_ADD, acc, constant(p, c), 0);
}

/* Return the slot of the expression node "e" of "p" (a polynomial or an
 * atom), compiling it once. */
static uint32_t
expr_slot(sym_plan *p, struct sym_expr *e)
{
	uint32_t s;

	if (p->failed)
		return SYM__NO_SLOT;
	if (e->kind == SYM__POLY && e->u.poly.n == 1 &&
	    sym__num_sgn(&e->u.poly.c) == 0 && e->u.poly.t[0].n == 1 &&
	    e->u.poly.t[0].f[0].exp == 1 &&
	    sym__num_cmp_si(&e->u.poly.t[0].coef, 1) == 0)
		return expr_slot(p, e->u.poly.t[0].f[0].atom);
	s = expr_map_get(p, e->id);
	if (s != SYM__NO_SLOT)
		return s;
	if (e->kind == SYM__POLY)
		s = poly_slot(p, e);
	else if (e->kind == SYM__VAR)
		s = var_slot(p, e->u.var);
	else
		s = node_slot(p, e);
	if (s == SYM__NO_SLOT)
		return SYM__NO_SLOT;
	if (sym__htab_add(p->ctx, &p->expr_map, sym__mix64(e->id), s) < 0)
		return fail(p, SYM_ENOMEM, "out of memory", NULL);
	return s;
}

/* Return the slot of the expression "e" in "p", compiled for what
 * "p->cur_what" says; SYM__NO_SLOT with the error on the context. */
uint32_t
sym__plan_expr(sym_plan *p, sym_expr *e)
{
	if (!e || e->ctx != p->ctx)
		return fail(p, SYM_EINVAL,
		    "plan: an expression of another context", NULL);
	return expr_slot(p, e);
}

/* Return floor("a" / "b") for b > 0. */
static inline int64_t
fdiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Return ceiling("a" / "b") for b > 0. */
static inline int64_t
cdiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a > 0) ? q + 1 : q;
}

/* Write into "buf" of "size" bytes what instruction "x" of "p" was
 * computed for, "dimension 1 of h1 (size b*512)", and set "*where". */
static void
describe(const sym_plan *p, const struct sym__insn *x, char *buf, size_t size,
    const sym_loc **where)
{
	const struct sym__what *w = &p->what[x->what];
	size_t n = 0;

	*where = NULL;
	buf[0] = '\0';
	if (w->kind == SYM__W_CHECK) {
		const struct sym__check *c = &p->check[w->a];

		*where = c->loc.line > 0 ? &c->loc : NULL;
		sym__append(buf, size, 0, "%s", c->text);
	} else if (w->kind == SYM__W_DIM) {
		const struct sym__tensor *t = &p->tensor[w->a];
		sym_shape *sh = sym__value_shape((sym_value *)t->value);
		char *e = sh && w->b < sh->rank ? sym_expr_to_str(sh->dim[w->b])
		                                : NULL;

		*where = t->value->loc.line > 0 ? &t->value->loc : NULL;
		n = sym__append(buf, size, n, "dimension %zu of %s", w->b,
		    t->value->name);
		if (e)
			sym__append(buf, size, n, " (size %s)", e);
		free(e);
	} else {
		struct sym__str b = SYM__STR_INIT;

		sym__step_label(p, w->a, &b);
		sym__append(buf, size, 0, "the bytes of step %zu (%s)", w->a,
		    b.s ? b.s : "?");
		free(b.s);
	}
}

/* Record in "s" the failure of instruction "i" of "p" (an overflow, or a
 * division when "division" is set) with "*code" and "*where", naming
 * what it computed and the values it depends on: the symbols a check
 * names, or every symbol of the plan; return -1. */
static int
run_error(const sym_plan *p, sym_slices *s, size_t i, int division,
    sym_error *code, const sym_loc **where)
{
	const struct sym__insn *x = &p->insn[i];
	const struct sym__what *w = &p->what[x->what];
	char what[512];
	size_t n, size = sizeof(s->error);

	describe(p, x, what, sizeof(what), where);
	if (division) {
		*code = SYM_EDIVZERO;
		n = sym__append(s->error, size, 0, "%s by %lld computing %s",
		    x->op == SYM__P_MOD ? "modulo" : "division",
		    (long long)s->val[x->b], what);
	} else {
		*code = SYM_EOVERFLOW;
		n = sym__append(s->error, size, 0,
		    "64-bit overflow computing %s", what);
	}
	if (w->kind == SYM__W_CHECK) {
		const struct sym__check *c = &p->check[w->a];

		for (size_t k = 0; k < c->n_named; k++)
			n = sym__append(s->error, size, n, "%s%s = %lld",
			    k ? ", " : " with ", c->named[k].name,
			    (long long)s->val[c->named[k].slot]);
		return -1;
	}
	for (size_t k = 0; k < p->n_sym; k++)
		n = sym__append(s->error, size, n, "%s%s = %lld",
		    k ? ", " : " with ", p->sym[k]->name, (long long)s->val[k]);
	return -1;
}

/* Return 1 when instruction "x" (number "i") of "p" reads a slot
 * poisoned in "s" (an optional symbol the binding omitted, or a failed
 * optional instruction), poisoning slot "i" in turn, else 0. */
static inline int
poisoned(const sym_slices *s, const struct sym__insn *x, size_t i)
{
	s->poison[i] = s->poison[x->a] | s->poison[x->b];
	if (s->poison[i])
		s->val[i] = 0;
	return s->poison[i];
}

/* Run the instructions [from, to) of "p" on the slots of "s". Return 0,
 * or -1 with the message in "s->error", the code in "*code" and the
 * location it refers to in "*where" (may be NULL). When the binding
 * omitted an optional symbol, an instruction that depends on one is
 * poisoned instead of failing: only checks that are then skipped, or
 * that report the poison, read it. */
int
sym__plan_run(const sym_plan *p, sym_slices *s, size_t from, size_t to,
    sym_error *code, const sym_loc **where)
{
	const struct sym__insn *in = p->insn;
	int64_t *v = s->val, r = 0;
	int partial = s->partial;

	for (size_t i = from; i < to; i++) {
		const struct sym__insn *x = &in[i];
		int64_t a = v[x->a], b = v[x->b];

		if (partial && (x->flags & SYM__INSN_OPTIONAL) &&
		    x->op != SYM__P_SYM && poisoned(s, x, i))
			continue;
		switch (x->op) {
		case SYM__P_SYM:
			continue;
		case SYM__P_CONST:
			r = x->k;
			break;
		case SYM__P_ADD:
			if (__builtin_add_overflow(a, b, &r))
				goto overflow;
			break;
		case SYM__P_SUB:
			if (__builtin_sub_overflow(a, b, &r))
				goto overflow;
			break;
		case SYM__P_MUL:
			if (__builtin_mul_overflow(a, b, &r))
				goto overflow;
			break;
		case SYM__P_FDIV:
			if (b <= 0)
				goto division;
			r = fdiv64(a, b);
			break;
		case SYM__P_CDIV:
			if (b <= 0)
				goto division;
			r = cdiv64(a, b);
			break;
		case SYM__P_MOD:
			if (b <= 0)
				goto division;
			r = a % b;
			r += r < 0 ? b : 0;
			break;
		case SYM__P_MIN:
			r = a < b ? a : b;
			break;
		case SYM__P_MAX:
			r = a > b ? a : b;
			break;
		case SYM__P_DIVEXACT:
			if (a % x->k != 0) {
				size_t c = p->what[x->what].a;

				*code = SYM_EDOMAIN;
				*where = p->check[c].loc.line > 0
				    ? &p->check[c].loc
				    : NULL;
				sym__check_split_message(p, c, a, s);
				return -1;
			}
			r = a / x->k;
			break;
		default:
			*code = SYM_EINTERNAL;
			*where = NULL;
			snprintf(s->error, sizeof(s->error),
			    "plan: invalid instruction %zu", i);
			return -1;
		}
		v[i] = r;
		continue;
overflow:
		if (partial && (x->flags & SYM__INSN_OPTIONAL)) {
			s->poison[i] = 1;
			v[i] = 0;
			continue;
		}
		return run_error(p, s, i, 0, code, where);
division:
		if (partial && (x->flags & SYM__INSN_OPTIONAL)) {
			s->poison[i] = 1;
			v[i] = 0;
			continue;
		}
		return run_error(p, s, i, 1, code, where);
	}
	return 0;
}
