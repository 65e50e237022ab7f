/* SPDX-License-Identifier: MIT */
/*
 * The run-time checks of a plan and their messages: every symbol's
 * declaration (range and class), the variables unification eliminated
 * (their derived value against their own declaration, and against a
 * value the binding gives anyway), the declared relations, the run-time
 * guards the prover left, and, as a last line of defence that cannot fail
 * when the rest holds, the divisibility of every split dimension; and
 * that the dimensions of inputs the prover could not show positive are
 * at least 1. A
 * message names the constraint, where it was written and the values that
 * break it: "b = 12 violates divisor=8 declared at ffn.sg:3:8".
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_private.h"

/* Append the text formatted from "fmt" to "buf" of "size" bytes holding
 * "n"; return the new length, at most size - 1. */
size_t
sym__append(char *buf, size_t size, size_t n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (n + 1 >= size)
		return n;
	va_start(ap, fmt);
	k = vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
	if (k < 0)
		return n;
	return n + (size_t)k >= size ? size - 1 : n + (size_t)k;
}

/* Append "prefix" and "loc" as "FILE:LINE:COL" to "buf" (of "size"
 * bytes holding "n"), nothing when "loc" is unknown; return the new
 * length. */
size_t
sym__append_loc(char *buf, size_t size, size_t n, const char *prefix,
    const sym_loc *loc)
{
	if (!loc || loc->line <= 0)
		return n;
	if (!loc->file)
		return sym__append(buf, size, n, "%s%d:%d", prefix, loc->line,
		    loc->col);
	return sym__append(buf, size, n, "%s%s:%d:%d", prefix, loc->file,
	    loc->line, loc->col);
}

/* Release what check "c" holds. */
void
sym__check_clear(struct sym__check *c)
{
	free(c->text);
	free(c->named);
}

/* Return a new check of "kind" in "p", its text "text" (taken) and
 * location "loc" (may be NULL), or NULL. */
static struct sym__check *
new_check(sym_plan *p, enum sym__check_kind kind, char *text,
    const sym_loc *loc)
{
	struct sym__check *c;

	if (!text ||
	    SYM__RESERVE(p->ctx, p->check, p->cap_check, p->n_check + 1) < 0) {
		free(text);
		if (!text)
			sym__oom(p->ctx);
		return NULL;
	}
	c = &p->check[p->n_check++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->text = text;
	c->slot = SYM__NO_SLOT;
	if (loc)
		c->loc = *loc;
	return c;
}

/* Return the position of the first occurrence of the name "name" as a
 * whole word in "text", or the length of "text". */
static size_t
word_pos(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *t = strstr(text, name); t; t = strstr(t + 1, name)) {
		int before = t > text &&
		    (isalnum((unsigned char)t[-1]) || t[-1] == '_' ||
		        t[-1] == '\'');
		int after =
		    isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == '\'';

		if (!before && !after)
			return (size_t)(t - text);
	}
	return strlen(text);
}

/* Set the symbols check "i" of "p" names: those of "e", in the order
 * they appear in "text" (all of them when it is NULL), each with its
 * slot; a check naming an optional symbol is optional. 0 or -1. */
static int
set_named(sym_plan *p, size_t i, sym_expr *e, const char *text)
{
	size_t n = sym_expr_symbols(e, NULL, 0), *pos;
	sym_symbol **s = sym__realloc_array(p->ctx, NULL, n + 1, sizeof(*s));
	struct sym__named *named = sym__calloc(p->ctx, n + 1, sizeof(*named));

	pos = sym__calloc(p->ctx, n + 1, sizeof(*pos));
	if (!s || !named || !pos) {
		free(s);
		free(named);
		free(pos);
		return -1;
	}
	sym_expr_symbols(e, s, n);
	for (size_t k = 0; k < n; k++)
		pos[k] = text ? word_pos(text, s[k]->name) : k;
	for (size_t k = 0; k < n; k++) { /* insertion sort: a few names */
		size_t j = k;

		while (j > 0 && pos[j - 1] > pos[j]) {
			size_t tp = pos[j];
			sym_symbol *ts = s[j];

			pos[j] = pos[j - 1];
			s[j] = s[j - 1];
			pos[j - 1] = tp;
			s[j - 1] = ts;
			j--;
		}
	}
	for (size_t k = 0; k < n; k++) {
		named[k].name = s[k]->name;
		named[k].slot = sym__plan_expr(p, s[k]->expr);
		if (named[k].slot >= p->n_sym &&
		    named[k].slot < p->n_sym + p->n_extra)
			p->check[i].optional = 1;
	}
	free(s);
	free(pos);
	p->check[i].named = named;
	p->check[i].n_named = n;
	return p->failed ? -1 : 0;
}

/* Return the text of the declaration of "s" without its name, "min=8
 * divisor=8" ("" when it has none), malloc'ed. */
static char *
decl_text(const sym_symbol *s)
{
	char *t = sym_symbol_to_str(s->origin), *r;
	size_t n = strlen(s->origin->name);

	if (!t)
		return NULL;
	r = strdup(t[n] == ' ' ? t + n + 1 : t + n);
	free(t);
	return r;
}

/* Add the check of the declaration of symbol number "i" of "p"; 0 or
 * -1. */
static int
symbol_check(sym_plan *p, size_t i)
{
	sym_symbol *s = p->sym[i];
	char *d = decl_text(s), *text;
	struct sym__check *c;
	char at[256];

	at[0] = '\0';
	sym__append_loc(at, sizeof(at), 0, " declared at ", &s->origin->loc);
	text = d
	    ? sym__asprintf("symbol %s%s%s%s", s->name, *d ? " " : "", d, at)
	    : NULL;
	free(d);
	c = new_check(p, SYM__C_SYMBOL, text, &s->origin->loc);
	if (!c)
		return -1;
	c->sym = s;
	c->slot = (uint32_t)i;
	c->optional = i >= p->n_sym;
	return 0;
}

/* Return the text of the derived relation of eliminated variable "e" of
 * "p": "derived relation b' = b at ffn.sg:17:10 (why)", malloc'ed. */
static char *
derived_text(const sym_plan *p, const struct sym__elim *e)
{
	const struct sym__relation *r = &p->g->rel[e->rel];
	char *v = sym_expr_to_str(e->value), *t;
	char at[256];

	at[0] = '\0';
	sym__append_loc(at, sizeof(at), 0, " at ", &r->pub.loc);
	t = v ? sym__asprintf("derived relation %s = %s%s%s%s%s", e->var->name,
	            v, at, r->reason ? " (" : "", r->reason ? r->reason : "",
	            r->reason ? ")" : "")
	      : NULL;
	free(v);
	return t;
}

/* Add a check of "kind" of eliminated variable "k" of "p" at "loc": its
 * derived value against the variable's own value; 0 or -1. */
static int
elim_check(sym_plan *p, size_t k, enum sym__check_kind kind, const sym_loc *loc)
{
	struct sym__elim *e = &p->elim[k];
	struct sym__check *c = new_check(p, kind, derived_text(p, e), loc);
	size_t i;

	if (!c)
		return -1;
	i = (size_t)(c - p->check);
	c->sym = e->var;
	c->elim = k;
	if (sym__plan_what(p, SYM__W_CHECK, i, 0) < 0)
		return -1;
	p->check[i].slot = sym__plan_expr(p, e->var->expr);
	return set_named(p, i, e->value, p->check[i].text);
}

/* Add the checks of eliminated variable "k" of "p": its derived value
 * against its declaration (unless the declarations imply it), and
 * against a value the binding gives; 0 or -1. */
static int
elim_checks(sym_plan *p, size_t k)
{
	struct sym__elim *e = &p->elim[k];
	const sym_loc *loc = &p->g->rel[e->rel].pub.loc;

	if (!sym__av_subset(e->value->av, e->var->av) &&
	    elim_check(p, k, SYM__C_DERIVED, loc) < 0)
		return -1;
	return elim_check(p, k, SYM__C_AGREE, loc);
}

/* Return 1 when the fact "f" restates the derived relation of an
 * eliminated variable of "p" (unification assumes "b' == b" when not
 * every value of b is one of b'). */
static int
derived_fact(const sym_plan *p, const struct sym__fact *f)
{
	sym_symbol *buf[8];
	size_t n;
	int r = 0;

	if (f->rel != SYM__REL_EQ)
		return 0;
	n = sym_expr_symbols(f->e, buf, 8);
	for (size_t i = 0; i < n && i < 8 && !r; i++) {
		long k = sym__plan_elim_index(p, buf[i]);
		sym_expr *d, *m;

		if (k < 0)
			continue;
		d = sym__sub(p->elim[k].var->expr, p->elim[k].value);
		m = d ? sym__scale_si(d, -1) : NULL;
		r = f->e == d || f->e == m;
		sym__expr_unref(d);
		sym__expr_unref(m);
	}
	return r;
}

/* Return the text of the declared relation "f": "relation t = s + 128
 * declared at x.sg:7:1", malloc'ed. */
static char *
fact_text(const struct sym__fact *f)
{
	char at[256], *t, *eq;

	at[0] = '\0';
	sym__append_loc(at, sizeof(at), 0, " declared at ", &f->loc);
	t = sym__asprintf("relation %s%s", f->text ? f->text : "?", at);
	eq = t && f->rel == SYM__REL_EQ ? strstr(t, " == ") : NULL;
	if (eq)
		memmove(eq + 2, eq + 3, strlen(eq + 3) + 1);
	return t;
}

/* Add the check of the declared relation "f" to "p"; 0 or -1. */
static int
fact_check(sym_plan *p, const struct sym__fact *f)
{
	struct sym__check *c = new_check(p, SYM__C_FACT, fact_text(f), &f->loc);
	size_t i;

	if (!c)
		return -1;
	i = (size_t)(c - p->check);
	c->rel = f->rel;
	c->k = f->k;
	if (sym__plan_what(p, SYM__W_CHECK, i, 0) < 0)
		return -1;
	p->check[i].slot = sym__plan_expr(p, f->e);
	return set_named(p, i, f->e, f->text ? f->text : p->check[i].text);
}

/* Add the check of run-time guard "gd" to "p"; 0 or -1. */
static int
guard_check(sym_plan *p, const struct sym__guard *gd)
{
	struct sym__check *c;
	char at[256];
	size_t i;

	at[0] = '\0';
	sym__append_loc(at, sizeof(at), 0, " required at ", &gd->pub.loc);
	c = new_check(p, SYM__C_GUARD,
	    sym__asprintf("guard %s%s%s%s%s", gd->text, at,
	        gd->reason ? " (" : "", gd->reason ? gd->reason : "",
	        gd->reason ? ")" : ""),
	    &gd->pub.loc);
	if (!c)
		return -1;
	i = (size_t)(c - p->check);
	c->rel = gd->rel;
	c->k = gd->k;
	if (sym__plan_what(p, SYM__W_CHECK, i, 0) < 0)
		return -1;
	p->check[i].slot = sym__plan_expr(p, gd->e);
	return set_named(p, i, gd->e, gd->text);
}

/* Add the checks that the dimensions of the input or parameter "v" are
 * at least 1 where the declarations do not show it (the graph accepts
 * what the prover cannot refute); 0 or -1. */
static int
size_checks(sym_plan *p, sym_value *v)
{
	sym_shape *sh = sym__value_shape(v);
	struct sym__check *c;
	char at[256], *e;
	size_t i;
	int r;

	at[0] = '\0';
	sym__append_loc(at, sizeof(at), 0, " declared at ", &v->loc);
	for (size_t d = 0; sh && d < sh->rank; d++) {
		sym__av a = sh->dim[d]->av;

		if (!a.empty && !a.lo_inf && a.lo >= 1)
			continue;
		c = new_check(p, SYM__C_SIZE,
		    sym__asprintf("dimension %zu of %s%s", d, v->name, at),
		    &v->loc);
		if (!c)
			return -1;
		i = (size_t)(c - p->check);
		c->dim = d;
		if (sym__plan_what(p, SYM__W_CHECK, i, 0) < 0)
			return -1;
		p->check[i].slot = sym__plan_expr(p, sh->dim[d]);
		e = sym_expr_to_str(sh->dim[d]);
		r = set_named(p, i, sh->dim[d], e);
		free(e);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Build the checks of "p" whose expressions the first segment of its
 * program computes: the declarations of its symbols, its eliminated
 * variables, the declared relations, the guards and the sizes of the
 * inputs; 0 or -1. */
int
sym__plan_checks(sym_plan *p)
{
	for (size_t i = 0; i < p->n_sym + p->n_extra; i++)
		if (symbol_check(p, i) < 0)
			return -1;
	p->n_check_sym = p->n_check;
	for (size_t k = 0; k < p->n_elim; k++)
		if (elim_checks(p, k) < 0)
			return -1;
	for (size_t i = 0; i < p->ctx->n_fact; i++)
		if (!derived_fact(p, &p->ctx->fact[i]) &&
		    fact_check(p, &p->ctx->fact[i]) < 0)
			return -1;
	for (size_t i = 0; i < p->g->n_guard; i++)
		if (guard_check(p, &p->g->guard[i]) < 0)
			return -1;
	for (size_t i = 0; p->sh && !p->single && i < p->sh->n_guard; i++)
		if (guard_check(p, &p->sh->guard[i]) < 0)
			return -1;
	for (size_t i = 0; i < p->g->n_value; i++)
		if (p->g->value[i]->kind != SYM_VALUE_RESULT &&
		    size_checks(p, p->g->value[i]) < 0)
			return -1;
	return p->failed ? -1 : 0;
}

/* Add the check that dimension "d" of tensor "t" of "p" divides into "k"
 * blocks; return its number, or -1. */
long
sym__plan_split_check(sym_plan *p, size_t t, size_t d, int64_t k)
{
	const struct sym__tensor *x = &p->tensor[t];
	sym_shape *sh = sym__value_shape((sym_value *)x->value);
	char *l = sym_layout_to_str(x->layout);
	char *m = sym_mesh_to_str(x->layout->mesh), *e;
	struct sym__check *c;
	size_t i;
	int r;

	c = new_check(p, SYM__C_SPLIT,
	    l && m ? sym__asprintf("dimension %zu of %s split %lld ways by "
	                           "%s on %s",
	                 d, x->value->name, (long long)k, l, m)
	           : NULL,
	    &x->value->loc);
	free(l);
	free(m);
	if (!c)
		return -1;
	i = (size_t)(c - p->check);
	c->rel = SYM__REL_DIV;
	c->k = k;
	c->tensor = t;
	c->dim = d;
	c->slot = p->tensor[t].global[d];
	e = sym_expr_to_str(sh->dim[d]);
	r = set_named(p, i, sh->dim[d], e);
	free(e);
	return r < 0 ? -1 : (long)i;
}

/* Append "a = 1, b = 2" for the symbols check "c" names, at the values
 * of "s", to "buf"; return the new length. */
static size_t
named_values(const struct sym__check *c, const sym_slices *s, char *buf,
    size_t size, size_t n)
{
	for (size_t k = 0; k < c->n_named; k++)
		n = sym__append(buf, size, n, "%s%s = %lld", k ? ", " : "",
		    c->named[k].name, (long long)s->val[c->named[k].slot]);
	return n;
}

/* Return "violates" or "violate" for check "c" (one name or more). */
static const char *
verb(const struct sym__check *c, const char *one, const char *more)
{
	return c->n_named == 1 ? one : more;
}

/* Append to "buf" the rule of the declaration of "sym" that "v"
 * violates, "divisor=8 declared at ffn.sg:3:8"; return the new length. */
static size_t
rule_text(const sym_symbol *sym, int64_t v, char *buf, size_t size, size_t n)
{
	const sym_symbol_info *in = &sym->info;

	if (v < in->min)
		n = sym__append(buf, size, n, "min=%lld", (long long)in->min);
	else if (in->max && v > in->max)
		n = sym__append(buf, size, n, "max=%lld", (long long)in->max);
	else if (in->remainder == 0)
		n = sym__append(buf, size, n, "divisor=%lld",
		    (long long)in->divisor);
	else
		n = sym__append(buf, size, n, "divisor=%lld remainder=%lld",
		    (long long)in->divisor, (long long)in->remainder);
	return sym__append_loc(buf, size, n, " declared at ",
	    &sym->origin->loc);
}

/* Return 1 when the optional check "c" of "p" must be skipped at "s": it
 * names an optional symbol the binding omitted. */
static int
skipped(const sym_plan *p, const struct sym__check *c, const sym_slices *s)
{
	if (c->kind == SYM__C_SYMBOL)
		return !s->has[p->n_elim + (c->slot - p->n_sym)];
	for (size_t k = 0; k < c->n_named; k++) {
		uint32_t sl = c->named[k].slot;

		if (sl >= p->n_sym && sl < p->n_sym + p->n_extra &&
		    !s->has[p->n_elim + (sl - p->n_sym)])
			return 1;
	}
	return 0;
}

/* Evaluate check "i" of "p" at the slots of "s": 1 when it holds or is
 * skipped, 0 with the message in "s->error" when it fails. */
int
sym__check_eval(const sym_plan *p, sym_slices *s, size_t i)
{
	const struct sym__check *c = &p->check[i];
	size_t n = 0, size = sizeof(s->error);
	char *buf = s->error;
	int64_t v;

	if (c->optional && skipped(p, c, s))
		return 1;
	if (c->kind == SYM__C_AGREE && !s->has[c->elim])
		return 1;
	if (s->partial && c->slot != SYM__NO_SLOT && s->poison[c->slot]) {
		n = sym__append(buf, size, 0,
		    "64-bit overflow or division by a non-positive number "
		    "evaluating %s at ",
		    c->text);
		named_values(c, s, buf, size, n);
		return 0;
	}
	v = s->val[c->slot];
	switch (c->kind) {
	case SYM__C_SYMBOL:
		if (sym_symbol_admits(c->sym, v))
			return 1;
		n = sym__append(buf, size, 0, "%s = %lld violates ",
		    c->sym->name, (long long)v);
		rule_text(c->sym, v, buf, size, n);
		return 0;
	case SYM__C_DERIVED:
		if (sym_symbol_admits(c->sym, v))
			return 1;
		n = named_values(c, s, buf, size, 0);
		n = sym__append(buf, size, n,
		    " %s %s = %lld by the %s, which "
		    "violates ",
		    verb(c, "gives", "give"), c->sym->name, (long long)v,
		    c->text);
		rule_text(c->sym, v, buf, size, n);
		return 0;
	case SYM__C_AGREE:
		if (s->given[c->elim] == v)
			return 1;
		n = sym__append(buf, size, 0, "%s = %lld, ", c->sym->name,
		    (long long)s->given[c->elim]);
		n = named_values(c, s, buf, size, n);
		sym__append(buf, size, n, " violate the %s", c->text);
		return 0;
	case SYM__C_FACT:
	case SYM__C_GUARD:
		if (sym__rel_holds(c->rel, v, c->k))
			return 1;
		n = named_values(c, s, buf, size, 0);
		sym__append(buf, size, n, "%s%s %s", n ? " " : "",
		    n ? verb(c, "violates", "violate") : "violated:", c->text);
		return 0;
	case SYM__C_SIZE:
		if (v >= 1)
			return 1;
		n = named_values(c, s, buf, size, 0);
		sym__append(buf, size, n, "%s%s %s (size %lld) less than 1",
		    n ? " " : "", verb(c, "makes", "make"), c->text,
		    (long long)v);
		return 0;
	case SYM__C_SPLIT:
		if (v % c->k == 0)
			return 1;
		sym__check_split_message(p, i, v, s);
		return 0;
	}
	return 1;
}

/* Write into "s->error" the message of the failed split check "i" of
 * "p", whose dimension has size "v": "b = 12 makes dimension 0 of x2
 * (size 12) not divisible by its split 8 (layout ...)". */
void
sym__check_split_message(const sym_plan *p, size_t i, int64_t v, sym_slices *s)
{
	const struct sym__check *c = &p->check[i];
	const struct sym__tensor *x = &p->tensor[c->tensor];
	size_t n = named_values(c, s, s->error, sizeof(s->error), 0);
	char *l = sym_layout_to_str(x->layout);

	sym__append(s->error, sizeof(s->error), n,
	    "%s%s dimension %zu of %s (size %lld) not divisible by its "
	    "split %lld (layout %s)",
	    n ? " " : "", n ? verb(c, "makes", "make") : "makes", c->dim,
	    x->value->name, (long long)v, (long long)c->k, l ? l : "?");
	free(l);
}
