/* SPDX-License-Identifier: MIT */
/*
 * Operator statements of the graph text format (strategies are read by
 * parse_shard.c):
 *
 *	OUT [, OUT ...] = OP(ARG, ...) [shard STRATEGY [-> STRATEGY]]
 *
 *	ARG      := VALUE | "[" EXPR, ... "]" | NAME "=" ATTR
 *	ATTR     := true | false | INTEGER | FLOAT | "STRING"
 *	          | "[" EXPR, ... "]" | EXPR | NAME
 *
 * Operands come first, then positional lists (named by the operator:
 * reshape's first list is its "shape"), then attributes. An attribute
 * value that is a bare name is the symbol's expression when a symbol has
 * that name, else a string (dtype=f16).
 */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "front/lex.h"

/* An operator call being read. */
struct call {
	const sym_op *op;
	const char *name;   /* the operator's name */
	size_t open;        /* position of its '(' */
	struct sym__vec in; /* sym_value * */
	sym_attrs *attrs;   /* a caller object */
	size_t n_lists;     /* positional lists read */
	size_t first_attr;  /* position of the first attribute, or 0 */
	int bad;            /* an error was reported: do not apply */
	int skip;           /* an operand failed earlier: skip quietly */
};

/* An attribute value being read. */
struct value {
	sym_attr_kind kind;
	int64_t i;
	double f;
	char *s;
	struct sym__vec items; /* sym_expr * */
};

/* Return the operator named by the "len" bytes at "start" of "p", or NULL
 * with a diagnostic. */
static const sym_op *
find_op(struct sym__parser *p, size_t start, size_t len)
{
	struct sym__suggest s;
	char *name = sym__lex_strndup(p, start, len);
	const sym_op *op = name ? sym_op_find(name) : NULL;
	size_t n = sym_registry_n_ops();

	free(name);
	if (op || p->oom)
		return op;
	sym__suggest_init(&s, p->src + start, len);
	for (size_t i = 0; i < n; i++)
		sym__suggest_try(&s, sym_op_name(sym_registry_op(i)));
	sym__lex_error(p, start, sym__suggest_hint(&s),
	    "unknown operator '%.*s%s'", SYM__QLEN(len), p->src + start,
	    SYM__QDOTS(len));
	return NULL;
}

/* Return 1 when the "n" bytes at "s" are an integer literal, "-"?
 * digits. */
static int
is_int_text(const char *s, size_t n)
{
	size_t i = n && s[0] == '-';

	if (i == n)
		return 0;
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Return the number of digits at "s", at most "n". */
static size_t
digits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* Return 1 when the "n" bytes at "s" are a float literal: "-"? then
 * digits with a '.' (digits on at least one side) and/or an exponent
 * "e" ["+"|"-"] digits. */
static int
is_float_text(const char *s, size_t n)
{
	size_t i = n && s[0] == '-', a, b = 0;
	int dot = 0, expo = 0;

	a = digits(s + i, n - i);
	i += a;
	if (i < n && s[i] == '.') {
		dot = 1;
		i++;
		b = digits(s + i, n - i);
		i += b;
	}
	if (a + b == 0)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (digits(s + i, n - i) == 0)
			return 0;
		i += digits(s + i, n - i);
		expo = 1;
	}
	return i == n && (dot || expo);
}

/* Return 1 when the "n" bytes at "s" are one name. */
static int
is_name_text(const char *s, size_t n)
{
	if (n == 0 || !sym__lex_is_name_start(s[0]))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!sym__lex_is_name_char(s[i]))
			return 0;
	return 1;
}

/* Convert the float literal of the "n" bytes at "s" into "*v" whatever
 * the locale's decimal point; return 0, or -1 when it is out of range or
 * out of memory (then "p" records it). */
int
sym__parse_double(struct sym__parser *p, const char *s, size_t n, double *v)
{
	const char *point = localeconv()->decimal_point;
	size_t lp = point && *point ? strlen(point) : 1;
	char *t = sym__alloc(p->ctx, n * lp + 1), *end;
	size_t k = 0;

	if (!t) {
		p->oom = 1;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.' && point && *point) {
			memcpy(t + k, point, lp);
			k += lp;
		} else {
			t[k++] = s[i];
		}
	}
	t[k] = '\0';
	*v = strtod(t, &end);
	k = (size_t)(end - t) == k && isfinite(*v);
	free(t);
	return k ? 0 : -1;
}

/* Read the value written in bytes "start" to "end" of "p" (not a list or
 * a string) into "v"; return 0, or 1 after a reported error. */
static int
scalar_value(struct sym__parser *p, size_t start, size_t end, struct value *v)
{
	const char *s = p->src + start;
	size_t n = end - start;
	sym_expr *e = NULL;
	char *name;

	if ((n == 4 && (!memcmp(s, "true", 4) || !memcmp(s, "True", 4))) ||
	    (n == 5 && (!memcmp(s, "false", 5) || !memcmp(s, "False", 5)))) {
		v->kind = SYM_ATTR_BOOL;
		v->i = n == 4;
		return 0;
	}
	if (is_int_text(s, n)) {
		size_t at;

		p->pos = start;
		if (sym__lex_int(p, &v->i, &at) < 0)
			return 1;
		p->pos = end;
		v->kind = SYM_ATTR_INT;
		return 0;
	}
	if (is_float_text(s, n)) {
		if (sym__parse_double(p, s, n, &v->f) < 0) {
			if (p->oom)
				return 1;
			sym__lex_error(p, start, NULL,
			    "float %.*s%s is out of range", SYM__QLEN(n), s,
			    SYM__QDOTS(n));
			return 1;
		}
		v->kind = SYM_ATTR_FLOAT;
		return 0;
	}
	if (is_name_text(s, n)) {
		name = sym__lex_strndup(p, start, n);
		if (!name)
			return 1;
		if (sym__nameset_has(&p->failed_sym, name)) {
			free(name);
			return 1;
		}
		if (!sym_symbol_find(p->ctx, name)) {
			v->kind = SYM_ATTR_STRING;
			v->s = name;
			return 0;
		}
		free(name);
	}
	e = sym__lex_expr(p, start, end);
	if (!e)
		return 1;
	v->kind = SYM_ATTR_LIST;
	if (sym__lex_push(p, &v->items, sizeof(e), &e) < 0) {
		sym_expr_free(e);
		return 1;
	}
	return 0;
}

/* Read the attribute value that comes next in "p", after "NAME=" (the
 * name of "len" bytes at "name"), into "v". Return 0; 1 after a reported
 * error that leaves the rest of the line readable; -1 after a syntax
 * error. */
static int
attr_value(struct sym__parser *p, size_t name, size_t len, struct value *v)
{
	size_t start, end;
	char b[64];
	int r;

	if (sym__lex_peek(p) == '[') {
		v->kind = SYM_ATTR_LIST;
		return sym__parse_expr_list(p, "list", "an expression",
		    &v->items);
	}
	if (sym__lex_peek(p) == '"') {
		v->kind = SYM_ATTR_STRING;
		r = sym__lex_string(p, &v->s);
		return r < 0 ? -1 : 0;
	}
	if (sym__lex_extent(p, ",)", "]", &start, &end) < 0)
		return -1;
	if (start == end)
		return sym__lex_error(p, start, NULL,
		    "expected a value after '%.*s%s=', found %s",
		    SYM__QLEN(len), p->src + name, SYM__QDOTS(len),
		    sym__lex_describe(p, start, b, sizeof(b)));
	return scalar_value(p, start, end, v);
}

/* Set attribute "name" of "c" to "v", written at byte "at" of "p"; return
 * 0 or -1. */
static int
set_attr(struct sym__parser *p, struct call *c, const char *name,
    const struct value *v, size_t at)
{
	sym_loc loc = sym__lex_loc(p, at);
	int r = -1;

	switch (v->kind) {
	case SYM_ATTR_BOOL:
		r = sym_attrs_set_bool(c->attrs, name, (int)v->i);
		break;
	case SYM_ATTR_INT:
		r = sym_attrs_set_int(c->attrs, name, v->i);
		break;
	case SYM_ATTR_FLOAT:
		r = sym_attrs_set_float(c->attrs, name, v->f);
		break;
	case SYM_ATTR_STRING:
		r = sym_attrs_set_string(c->attrs, name, v->s);
		break;
	case SYM_ATTR_LIST:
		r = sym_attrs_set_list(c->attrs, name, v->items.n, v->items.v);
		break;
	case SYM_ATTR_NONE:
		break;
	}
	if (r == 0)
		r = sym_attrs_set_loc(c->attrs, name, &loc);
	if (r < 0)
		return sym__lex_ctx_error(p, at);
	return 0;
}

/* Release what "v" holds. */
static void
value_clear(struct value *v)
{
	free(v->s);
	sym__parse_free_exprs(&v->items);
}

/* Read the attribute "NAME=VALUE" whose name (of "len" bytes at "start")
 * "p" has read, and whose '=' comes next, into "c"; return 0 or -1. */
static int
attribute(struct sym__parser *p, struct call *c, size_t start, size_t len)
{
	struct value v;
	const struct sym__attr *old;
	char *name;
	int r;

	memset(&v, 0, sizeof(v));
	sym__lex_accept(p, '=');
	if (!c->first_attr)
		c->first_attr = start;
	name = sym__lex_strndup(p, start, len);
	if (!name)
		return -1;
	r = attr_value(p, start, len, &v);
	old = sym__attrs_find(c->attrs, name);
	if (r == 0 && old) {
		c->bad = 1;
		sym__lex_error(p, start, NULL,
		    "attribute '%.*s%s' is given twice (first at column %d)",
		    SYM__QLEN(len), name, SYM__QDOTS(len),
		    old->has_loc ? old->loc.col : 0);
	} else if (r == 0 && set_attr(p, c, name, &v, start) < 0) {
		c->bad = 1;
	}
	if (r > 0)
		c->bad = 1;
	value_clear(&v);
	free(name);
	return r < 0 || p->oom ? -1 : 0;
}

/* Read the positional list "[...]" that comes next in "p" into "c";
 * return 0 or -1. */
static int
positional(struct sym__parser *p, struct call *c)
{
	const char *name = sym_op_positional(c->op, c->n_lists);
	struct value v;
	size_t at;
	int r;

	sym__lex_peek(p);
	at = p->pos;
	if (c->first_attr)
		return sym__lex_error(p, at, NULL,
		    "list argument after the attributes: write lists before "
		    "NAME=value");
	memset(&v, 0, sizeof(v));
	v.kind = SYM_ATTR_LIST;
	r = sym__parse_expr_list(p, "list", "an expression", &v.items);
	if (r == 0 && !name) {
		c->bad = 1;
		if (c->n_lists == 0)
			sym__lex_error(p, at, NULL,
			    "operator '%s' takes no list argument", c->name);
		else
			sym__lex_error(p, at, NULL,
			    "operator '%s' takes at most %zu list argument%s",
			    c->name, c->n_lists, c->n_lists == 1 ? "" : "s");
	} else if (r == 0 && set_attr(p, c, name, &v, at) < 0) {
		c->bad = 1;
	}
	if (r > 0)
		c->bad = 1;
	c->n_lists++;
	value_clear(&v);
	return r < 0 || p->oom ? -1 : 0;
}

/* Read the operand of the "len" bytes at "start" of "p" into "c"; return
 * 0 or -1. */
static int
operand(struct sym__parser *p, struct call *c, size_t start, size_t len)
{
	char *name;
	sym_value *v;

	if (c->first_attr)
		return sym__lex_error(p, start, NULL,
		    "operand '%.*s%s' after the attributes: write operands "
		    "first",
		    SYM__QLEN(len), p->src + start, SYM__QDOTS(len));
	name = sym__lex_strndup(p, start, len);
	if (!name)
		return -1;
	v = sym_graph_find_value(p->g, name);
	if (!v && sym__nameset_has(&p->failed, name))
		c->skip = 1;
	else if (!v) {
		c->bad = 1;
		sym__parse_unknown_value(p, start, len);
	} else {
		sym__lex_push(p, &c->in, sizeof(v), &v);
	}
	free(name);
	return p->oom ? -1 : 0;
}

/* Read the arguments of the call "c" up to its ')'; return 0 or -1. */
static int
arguments(struct sym__parser *p, struct call *c)
{
	size_t start, len;
	char what[SYM__PARSE_MAX_QUOTE + 16], b[64];
	int r;

	snprintf(what, sizeof(what), "call of '%s'", c->name);
	for (r = sym__lex_list_start(p, ')', what, c->open); r > 0;
	     r = sym__lex_list_next(p, ')', what, c->open, "an argument")) {
		if (sym__lex_peek(p) == '[') {
			r = positional(p, c);
		} else if (sym__lex_name(p, &start, &len)) {
			if (sym__lex_peek(p) == '=' &&
			    p->src[p->pos + 1] != '=')
				r = attribute(p, c, start, len);
			else
				r = operand(p, c, start, len);
		} else {
			return sym__lex_error(p, p->pos, NULL,
			    "expected an operand, a list or NAME=value, found "
			    "%s",
			    sym__lex_describe(p, p->pos, b, sizeof(b)));
		}
		if (r < 0)
			return -1;
	}
	return r;
}

/* Read the result names "A, B, ..." of which "p" has read the first (of
 * "len" bytes at "start") into "names", and the '=' after them; return 0
 * or -1. */
static int
results(struct sym__parser *p, size_t start, size_t len, struct sym__vec *names)
{
	char *name;

	for (;;) {
		name = sym__lex_strndup(p, start, len);
		if (!name || sym__lex_push(p, names, sizeof(name), &name) < 0) {
			free(name);
			return -1;
		}
		if (!sym__lex_accept(p, ','))
			break;
		if (!sym__lex_name(p, &start, &len))
			return sym__lex_error(p, p->pos, NULL,
			    "expected a result name after ','");
	}
	if (sym__lex_peek(p) != '=' || p->src[p->pos + 1] == '=')
		return sym__lex_error(p, p->pos, NULL,
		    "expected '=' after the result names");
	p->pos++;
	return 0;
}

/* Read the call "OP(ARGS) [shard ...]" after the '=' of an operator
 * statement into "c" and "*strat"; return the position of the operator's
 * name, or -1 (as size_t SIZE_MAX) after an error. */
static size_t
call(struct sym__parser *p, struct call *c, struct sym__strategy **strat,
    char **op_name)
{
	size_t start, len, at;
	char b[64];

	if (!sym__lex_name(p, &start, &len)) {
		sym__lex_error(p, p->pos, NULL,
		    "expected an operator call after '=', found %s",
		    sym__lex_describe(p, p->pos, b, sizeof(b)));
		return SIZE_MAX;
	}
	if (sym__lex_peek(p) != '(') {
		sym__lex_error(p, p->pos, NULL,
		    "expected '(' after operator name '%.*s%s'", SYM__QLEN(len),
		    p->src + start, SYM__QDOTS(len));
		return SIZE_MAX;
	}
	c->open = p->pos++;
	c->op = find_op(p, start, len);
	*op_name = c->op ? sym__lex_strndup(p, start, len) : NULL;
	c->name = *op_name;
	if (!*op_name || arguments(p, c) < 0)
		return SIZE_MAX;
	if (!sym__lex_name(p, &at, &len)) {
		if (sym__lex_peek(p) == '\0')
			return start;
		at = p->pos;
	} else if (sym__lex_word_is(p, at, len, "shard")) {
		*strat = sym__parse_strategy(p);
		return *strat ? start : SIZE_MAX;
	}
	sym__lex_error(p, at, NULL,
	    "unexpected %s after the call (expected 'shard' or the end of "
	    "the line)",
	    sym__lex_describe(p, at, b, sizeof(b)));
	return SIZE_MAX;
}

/* Parse the operator statement of "p" whose first result name (of "len"
 * bytes at "start") it has read, and add the node; return 0 or -1. */
int
sym__parse_op(struct sym__parser *p, size_t start, size_t len)
{
	struct sym__vec names = { NULL, 0, 0 };
	struct sym__strategy *strat = NULL;
	struct call c;
	char *op_name = NULL;
	size_t at = SIZE_MAX, before;
	sym_node *node = NULL;
	char **out;
	sym_loc loc;

	memset(&c, 0, sizeof(c));
	c.attrs = sym_attrs_new(p->ctx);
	if (!c.attrs) {
		p->oom = 1;
		return -1;
	}
	if (results(p, start, len, &names) == 0)
		at = call(p, &c, &strat, &op_name);
	out = names.v;
	if (at != SIZE_MAX && !c.bad && !c.skip && !p->oom) {
		loc = sym__lex_loc(p, at);
		before = p->g->n_diag;
		node = sym_graph_add_op(p->g, op_name, names.n,
		    (const char *const *)out, c.in.n, c.in.v, c.attrs, &loc);
		if (!node)
			sym__parse_failed(p, before, at);
		sym__node_set_strategy(node, strat);
		strat = NULL;
	}
	for (size_t i = 0; !node && i < names.n; i++)
		sym__parse_poison(p, out[i]);
	for (size_t i = 0; i < names.n; i++)
		free(out[i]);
	free(names.v);
	free(c.in.v);
	free(op_name);
	sym_attrs_free(c.attrs);
	sym__strategy_free(strat);
	return node ? 0 : -1;
}
