/* SPDX-License-Identifier: MIT */
/*
 * Training statements of the graph text format (symshard-graph(5)):
 *
 *	input NAME : DTYPE[D, ...] [init=INIT]
 *	param NAME : DTYPE[D, ...] [init=INIT] [frozen]
 *	minimize NAME with OPTIMIZER[(ARG, ...)]
 *
 *	INIT := zeros | ones | constant(V) | normal(sigma=S, mean=M)
 *	      | uniform(scale=S) | xavier_uniform(gain=G)
 *	      | he_uniform(negative_slope=A) | he_normal(negative_slope=A)
 *	ARG  := NUMBER | true | false | NAME=NUMBER | NAME=true | NAME=false
 *
 * Arguments without a name are taken in the order of the table of their
 * initializer or optimizer (constant(V) is constant(value=V), sgd(0.1)
 * is sgd(lr=0.1)). Every error names the initializer or optimizer and
 * is located at the offending word.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "front/lex.h"

/* A named argument of an initializer or optimizer: a number (or a
 * boolean when "boolean") stored at byte "offset" of the structure. */
struct arg {
	const char *name;
	size_t offset;
	int boolean;
};

/* A callable: its name, its kind, and its arguments (NULL-terminated),
 * the first "n_required" of which must be given. */
struct callable {
	const char *name;
	int kind;
	size_t n_required;
	const struct arg *args;
};

#define IARG(f)                              \
	{                                    \
#f, offsetof(sym_init, f), 0 \
	}
#define OARG(f)                                   \
	{                                         \
#f, offsetof(sym_optimizer, f), 0 \
	}

static const struct arg no_args[] = { { NULL, 0, 0 } };
static const struct arg constant_args[] = { IARG(value), { NULL, 0, 0 } };
static const struct arg normal_args[] = { IARG(sigma), IARG(mean),
	{ NULL, 0, 0 } };
static const struct arg uniform_args[] = { IARG(scale), { NULL, 0, 0 } };
static const struct arg xavier_args[] = { IARG(gain), { NULL, 0, 0 } };
static const struct arg he_args[] = { IARG(negative_slope), { NULL, 0, 0 } };

static const struct callable inits[] = {
	{ "zeros", SYM_INIT_ZEROS, 0, no_args },
	{ "ones", SYM_INIT_ONES, 0, no_args },
	{ "constant", SYM_INIT_CONSTANT, 1, constant_args },
	{ "normal", SYM_INIT_NORMAL, 0, normal_args },
	{ "uniform", SYM_INIT_UNIFORM, 0, uniform_args },
	{ "xavier_uniform", SYM_INIT_XAVIER_UNIFORM, 0, xavier_args },
	{ "he_uniform", SYM_INIT_HE_UNIFORM, 0, he_args },
	{ "he_normal", SYM_INIT_HE_NORMAL, 0, he_args },
	{ NULL, 0, 0, NULL },
};

static const struct arg sgd_args[] = { OARG(lr), OARG(momentum),
	OARG(dampening), { "nesterov", offsetof(sym_optimizer, nesterov), 1 },
	OARG(weight_decay), { NULL, 0, 0 } };
static const struct arg momentum_args[] = { OARG(lr), OARG(momentum),
	{ "nesterov", offsetof(sym_optimizer, nesterov), 1 },
	OARG(weight_decay), { NULL, 0, 0 } };
static const struct arg adam_args[] = { OARG(lr), OARG(beta1), OARG(beta2),
	OARG(eps), OARG(weight_decay), { NULL, 0, 0 } };

static const struct callable optimizers[] = {
	{ "sgd", SYM_OPTIMIZER_SGD, 1, sgd_args },
	{ "momentum", SYM_OPTIMIZER_MOMENTUM, 2, momentum_args },
	{ "adam", SYM_OPTIMIZER_ADAM, 1, adam_args },
	{ "adamw", SYM_OPTIMIZER_ADAMW, 1, adam_args },
	{ NULL, 0, 0, NULL },
};

/* Report the unknown "what" (initializer, optimizer) of the "len" bytes
 * at "start" of "p", suggesting the closest of "table"; return -1. */
static int
unknown_callable(struct sym__parser *p, const char *what,
    const struct callable *table, size_t start, size_t len)
{
	struct sym__suggest s;
	const char *hint;

	sym__suggest_init(&s, p->src + start, len);
	for (const struct callable *c = table; c->name; c++)
		sym__suggest_try(&s, c->name);
	hint = sym__suggest_hint(&s);
	return sym__lex_error(p, start, hint, "unknown %s '%.*s%s'", what,
	    SYM__QLEN(len), p->src + start, SYM__QDOTS(len));
}

/* Read the value of argument "a" of "c" (of "what") that comes next in
 * "p" into the structure at "out"; return 0 or -1. */
static int
arg_value(struct sym__parser *p, const char *what, const struct callable *c,
    const struct arg *a, void *out)
{
	size_t start, end, n;
	const char *s;
	double v;
	char b[64];

	if (sym__lex_extent(p, ",)", "", &start, &end) < 0)
		return -1;
	s = p->src + start;
	n = end - start;
	p->pos = end;
	if (a->boolean) {
		if ((n == 4 && !memcmp(s, "true", 4)) ||
		    (n == 5 && !memcmp(s, "false", 5))) {
			*(int *)((char *)out + a->offset) = n == 4;
			return 0;
		}
		return sym__lex_error(p, start, NULL,
		    "argument %s of %s %s must be true or false, not %s",
		    a->name, what, c->name,
		    sym__lex_describe(p, start, b, sizeof(b)));
	}
	if (n == 0 || sym__parse_double(p, s, n, &v) < 0) {
		if (p->oom)
			return -1;
		return sym__lex_error(p, start, NULL,
		    "argument %s of %s %s must be a finite number, not %s",
		    a->name, what, c->name,
		    sym__lex_describe(p, start, b, sizeof(b)));
	}
	*(double *)((char *)out + a->offset) = v;
	return 0;
}

/* Return the argument of "c" called by the "len" bytes at "start" of
 * "p", or NULL. */
static const struct arg *
find_arg(const struct sym__parser *p, const struct callable *c, size_t start,
    size_t len)
{
	for (const struct arg *a = c->args; a->name; a++)
		if (sym__lex_word_is(p, start, len, a->name))
			return a;
	return NULL;
}

/* Report the unknown argument of the "len" bytes at "start" of "p" for
 * "c" (a "what"), with the closest name as a hint; return -1. */
static int
unknown_arg(struct sym__parser *p, const char *what, const struct callable *c,
    size_t start, size_t len)
{
	struct sym__suggest s;

	sym__suggest_init(&s, p->src + start, len);
	for (const struct arg *a = c->args; a->name; a++)
		sym__suggest_try(&s, a->name);
	return sym__lex_error(p, start, sym__suggest_hint(&s),
	    "%s %s has no argument '%.*s%s'", what, c->name, SYM__QLEN(len),
	    p->src + start, SYM__QDOTS(len));
}

/* Read one argument (named or the "*next"-th positional) of "c" into
 * "out", marking it in "given"; return 0 or -1. */
static int
one_arg(struct sym__parser *p, const char *what, const struct callable *c,
    size_t *next, unsigned *given, void *out)
{
	const struct arg *a;
	size_t start, len, save = p->pos, k;

	if (sym__lex_name(p, &start, &len) && sym__lex_peek(p) == '=') {
		a = find_arg(p, c, start, len);
		if (!a)
			return unknown_arg(p, what, c, start, len);
		sym__lex_accept(p, '=');
		*next = SIZE_MAX;
	} else {
		p->pos = save;
		sym__lex_peek(p);
		start = p->pos;
		for (k = 0; c->args[k].name && k != *next; k++)
			;
		if (*next == SIZE_MAX)
			return sym__lex_error(p, start, NULL,
			    "a positional argument of %s %s follows a named "
			    "one",
			    what, c->name);
		if (!c->args[k].name)
			return sym__lex_error(p, start, NULL,
			    "%s %s takes at most %zu argument%s", what, c->name,
			    k, k == 1 ? "" : "s");
		a = &c->args[k];
		(*next)++;
	}
	k = (size_t)(a - c->args);
	if (*given & (1u << k))
		return sym__lex_error(p, start, NULL,
		    "argument %s of %s %s is given twice", a->name, what,
		    c->name);
	*given |= 1u << k;
	return arg_value(p, what, c, a, out);
}

/* Read "NAME[(ARG, ...)]" of a "what" from "table" that comes next in
 * "p" into the structure at "out" (its defaults already set); store the
 * entry in "*found". Return 0 or -1. */
static int
callable(struct sym__parser *p, const char *what, const struct callable *table,
    const struct callable **found, void *out,
    void (*defaults)(int kind, void *out))
{
	const struct callable *c = table;
	size_t start, len, open, next = 0;
	unsigned given = 0;

	if (!sym__lex_name(p, &start, &len))
		return sym__lex_error(p, p->pos, NULL,
		    "expected the name of an %s", what);
	while (c->name && !sym__lex_word_is(p, start, len, c->name))
		c++;
	if (!c->name)
		return unknown_callable(p, what, table, start, len);
	if (defaults)
		defaults(c->kind, out);
	*found = c;
	if (sym__lex_peek(p) == '(') {
		open = p->pos;
		sym__lex_accept(p, '(');
		if (!sym__lex_accept(p, ')')) {
			do {
				if (one_arg(p, what, c, &next, &given, out) < 0)
					return -1;
			} while (sym__lex_accept(p, ','));
			if (!sym__lex_accept(p, ')'))
				return sym__lex_unclosed(p, ')', what, open);
		}
	}
	for (size_t k = 0; k < c->n_required; k++)
		if (!(given & (1u << k)))
			return sym__lex_error(p, start, NULL,
			    "%s %s needs its argument %s", what, c->name,
			    c->args[k].name);
	return 0;
}

/* Set the defaults of initializer "kind" in the sym_init at "out":
 * MindSpore's (normal sigma 0.01, uniform scale 0.07, gain 1). */
static void
init_defaults(int kind, void *out)
{
	sym_init *init = out;

	memset(init, 0, sizeof(*init));
	init->kind = (sym_init_kind)kind;
	init->sigma = 0.01;
	init->scale = 0.07;
	init->gain = 1.0;
}

/* Set the defaults of optimizer "kind" in the sym_optimizer at "out". */
static void
opt_defaults(int kind, void *out)
{
	sym_optimizer_defaults((sym_optimizer_kind)kind, out);
}

/* Read the options after the shape of an input or param ("kind") in
 * "p": "init=INIT" and, for a param, "frozen", then the end of the line,
 * into "o"; return 0 or -1. */
int
sym__parse_value_options(struct sym__parser *p, sym_value_kind kind,
    struct sym__value_options *o)
{
	size_t start, len;

	memset(o, 0, sizeof(*o));
	while (sym__lex_name(p, &start, &len)) {
		if (sym__lex_word_is(p, start, len, "init") &&
		    sym__lex_accept(p, '=')) {
			const struct callable *c;

			if (o->has_init)
				return sym__lex_error(p, start, NULL,
				    "init is given twice");
			o->has_init = 1;
			o->init_at = start;
			if (callable(p, "initializer", inits, &c, &o->init,
			        init_defaults) < 0)
				return -1;
		} else if (sym__lex_word_is(p, start, len, "frozen")) {
			if (kind != SYM_VALUE_PARAM)
				return sym__lex_error(p, start, NULL,
				    "only a param can be frozen");
			if (o->frozen)
				return sym__lex_error(p, start, NULL,
				    "frozen is given twice");
			o->frozen = 1;
		} else {
			return sym__lex_error(p, start,
			    kind == SYM_VALUE_PARAM
			        ? "after the shape of a param come init=... "
			          "and frozen"
			        : "after the shape of an input comes "
			          "init=...",
			    "unexpected '%.*s%s' after the shape",
			    SYM__QLEN(len), p->src + start, SYM__QDOTS(len));
		}
	}
	return sym__parse_end(p, "the shape");
}

/* Apply the options "o" read by sym__parse_value_options to the value
 * "v" of "p"; return 0 or -1 (reported). */
int
sym__apply_value_options(struct sym__parser *p, sym_value *v,
    const struct sym__value_options *o)
{
	size_t before = p->g->n_diag;
	sym_loc loc = sym__lex_loc(p, o->init_at);

	if (o->frozen)
		sym_value_set_frozen(v, 1);
	if (o->has_init && sym_value_set_init(v, &o->init, &loc) < 0)
		return sym__parse_failed(p, before, o->init_at);
	return 0;
}

/* Parse "minimize NAME with OPTIMIZER[(ARG, ...)]" after its keyword;
 * return 0 or -1. */
int
sym__parse_minimize(struct sym__parser *p)
{
	const struct callable *c;
	sym_optimizer opt;
	size_t start, len, at, wlen, before;
	sym_value *loss;
	sym_loc loc;
	char *name;

	name = sym__lex_name_copy(p, "the name of the loss after 'minimize'",
	    &start, &len);
	if (!name)
		return -1;
	loss = sym_graph_find_value(p->g, name);
	free(name);
	if (!loss)
		return sym__parse_unknown_value(p, start, len);
	if (!sym__lex_name(p, &at, &wlen) ||
	    !sym__lex_word_is(p, at, wlen, "with"))
		return sym__lex_error(p, p->pos, NULL,
		    "expected 'with OPTIMIZER(...)' after the loss");
	if (callable(p, "optimizer", optimizers, &c, &opt, opt_defaults) < 0 ||
	    sym__parse_end(p, "the optimizer") < 0)
		return -1;
	loc = sym__lex_loc(p, start);
	before = p->g->n_diag;
	if (sym_graph_minimize(p->g, loss, &opt, &loc) < 0)
		return sym__parse_failed(p, before, start);
	return 0;
}
