/* SPDX-License-Identifier: MIT */
/*
 * Parsing the text of an expression: a recursive-descent parser over a
 * one-token lexer, with located errors and a bound on nesting.
 *
 *	expr    := term (("+" | "-") term)*
 *	term    := unary (("*" | "floordiv" | "ceildiv" | "mod" | "//" | "%")
 *	           unary)*
 *	unary   := ("-" | "+") unary | primary
 *	primary := INTEGER | NAME "'"* | "(" expr ")"
 *	         | ("min" | "max") "(" expr ("," expr)+ ")"
 *	         | ("floordiv" | "ceildiv" | "mod") "(" expr "," expr ")"
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sym/expr_private.h"

/* Nesting of parentheses, calls and signs allowed in the text. */
#define MAX_NESTING 1000
/* Depth of atoms allowed in the expression built: sym_expr_to_str prints
 * an expression of this depth with at most three levels of nesting per
 * atom, which MAX_NESTING accepts. */
#define MAX_DEPTH 300
/* Digits allowed in an integer literal. */
#define MAX_DIGITS 10000
/* Characters of a name quoted in an error message. */
#define MAX_QUOTE 64

enum tok_kind {
	T_EOF,
	T_INT,
	T_NAME,
	T_FLOORDIV,
	T_CEILDIV,
	T_MOD,
	T_MIN,
	T_MAX,
	T_PLUS,
	T_MINUS,
	T_STAR,
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
	T_ERR
};

struct tok {
	enum tok_kind kind;
	size_t pos, len;
};

struct parser {
	sym_ctx *ctx;
	const char *text;
	const sym_loc *where;
	size_t pos;     /* where the lexer resumes */
	struct tok tok; /* the current token */
	int depth;
	int failed; /* an error was recorded */
};

static sym_expr *parse_expr(struct parser *p, const struct tok *after);
static sym_expr *fail(struct parser *p, sym_error code, size_t pos,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Return the location of byte "pos" of the text of "p": the position of
 * its first byte comes from the caller's location, line 1 column 1 when
 * none was given; a newline starts a new line at column 1. */
static sym_loc
loc_at(const struct parser *p, size_t pos)
{
	sym_loc loc = { NULL, 1, 1 };

	if (p->where)
		loc = *p->where;
	for (size_t i = 0; i < pos; i++) {
		if (p->text[i] == '\n') {
			loc.line++;
			loc.col = 1;
		} else {
			loc.col++;
		}
	}
	return loc;
}

/* Record the error of the current token of "p", which cannot be read: a
 * too long integer literal or a character that starts no token; return
 * NULL. */
static sym_expr *
bad_token(struct parser *p)
{
	size_t pos = p->tok.pos;
	unsigned char c = (unsigned char)p->text[pos];
	sym_loc loc = loc_at(p, pos);

	p->failed = 1;
	if (c >= '0' && c <= '9')
		sym__error(p->ctx, SYM_EPARSE, &loc,
		    "integer literal too long (more than %d digits)",
		    MAX_DIGITS);
	else if (c == '/')
		sym__error(p->ctx, SYM_EPARSE, &loc,
		    "unexpected '/': use '//' or 'floordiv' to divide");
	else if (c >= 0x20 && c < 0x7f)
		sym__error(p->ctx, SYM_EPARSE, &loc,
		    "unexpected character '%c'", c);
	else
		sym__error(p->ctx, SYM_EPARSE, &loc, "unexpected byte 0x%02x",
		    c);
	return NULL;
}

/* Record the error "code" with a message from "fmt" at byte "pos" of the
 * text of "p", unless an error was already recorded; return NULL. */
static sym_expr *
fail(struct parser *p, sym_error code, size_t pos, const char *fmt, ...)
{
	va_list ap;
	sym_loc loc;

	if (p->failed)
		return NULL;
	if (p->tok.kind == T_ERR && pos == p->tok.pos)
		return bad_token(p);
	p->failed = 1;
	loc = loc_at(p, pos);
	va_start(ap, fmt);
	sym__verror(p->ctx, code, &loc, fmt, ap);
	va_end(ap);
	return NULL;
}

/* Return 1 when "c" may start a name. */
static int
is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Return 1 when "c" may continue a name. */
static int
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/* Return 1 when "c" is white space. */
static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	    c == '\f';
}

/* Return the kind of the word of "len" bytes at "s": a keyword or a
 * name. */
static enum tok_kind
word_kind(const char *s, size_t len)
{
	static const struct {
		const char *word;
		enum tok_kind kind;
	} kw[] = {
		{ "floordiv", T_FLOORDIV },
		{ "ceildiv", T_CEILDIV },
		{ "mod", T_MOD },
		{ "min", T_MIN },
		{ "max", T_MAX },
	};

	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strlen(kw[i].word) == len && !memcmp(kw[i].word, s, len))
			return kw[i].kind;
	return T_NAME;
}

/* Return the kind of the token at byte "start" of "p", setting "p->pos"
 * to its end; a token that cannot be read is T_ERR (see bad_token). */
static enum tok_kind
lex(struct parser *p, size_t start)
{
	const char *s = p->text;
	size_t i = start;

	p->pos = start + 1;
	if (s[i] >= '0' && s[i] <= '9') {
		while (s[i] >= '0' && s[i] <= '9')
			i++;
		p->pos = i;
		return i - start > MAX_DIGITS ? T_ERR : T_INT;
	}
	if (is_name_start(s[i])) {
		while (is_name_char(s[i]))
			i++;
		p->pos = i;
		if (s[i] != '\'')
			return word_kind(s + start, i - start);
		while (s[i] == '\'')
			i++;
		p->pos = i;
		return T_NAME;
	}
	switch (s[i]) {
	case '\0':
		p->pos = start;
		return T_EOF;
	case '+':
		return T_PLUS;
	case '-':
		return T_MINUS;
	case '*':
		return T_STAR;
	case '%':
		return T_MOD;
	case '(':
		return T_LPAREN;
	case ')':
		return T_RPAREN;
	case ',':
		return T_COMMA;
	case '/':
		if (s[i + 1] != '/')
			break;
		p->pos = start + 2;
		return T_FLOORDIV;
	default:
		break;
	}
	return T_ERR;
}

/* Move "p" to its next token. */
static void
next(struct parser *p)
{
	size_t start = p->pos;

	if (p->tok.kind == T_ERR)
		return;
	while (is_space(p->text[start]))
		start++;
	p->tok.pos = start;
	p->tok.kind = lex(p, start);
	p->tok.len = p->pos - start;
}

/* Return the first character after the current token of "p" that is not
 * white space. */
static char
peek_char(const struct parser *p)
{
	size_t i = p->pos;

	while (is_space(p->text[i]))
		i++;
	return p->text[i];
}

/* Return 1 when the current token of "p" is a multiplicative operator. */
static int
at_mul_op(const struct parser *p)
{
	switch (p->tok.kind) {
	case T_STAR:
	case T_FLOORDIV:
	case T_CEILDIV:
	case T_MOD:
		return 1;
	default:
		return 0;
	}
}

/* Check the result "e" of the operator at byte "pos" of "p": when it is
 * NULL, give the error recorded by the constructor the location of the
 * operator; when it is nested too deeply, free it with an error. Return
 * "e" or NULL. */
static sym_expr *
built(struct parser *p, sym_expr *e, size_t pos)
{
	sym_ctx *ctx = p->ctx;
	sym_error code;
	char *msg;

	if (e && e->depth > MAX_DEPTH) {
		sym_expr_free(e);
		return fail(p, SYM_EPARSE, pos,
		    "expression too deep (more than %d nested operations)",
		    MAX_DEPTH);
	}
	if (e || p->failed)
		return e;
	if (ctx->err == SYM_OK)
		return fail(p, SYM_EINTERNAL, pos,
		    "could not build the expression");
	if (ctx->err == SYM_ENOMEM) {
		p->failed = 1;
		return NULL;
	}
	code = ctx->err;
	msg = ctx->msg ? strdup(ctx->msg) : NULL;
	fail(p, code, pos, "%s", msg ? msg : sym_strerror(code));
	free(msg);
	return NULL;
}

/* Return the result of the operator "op" at byte "pos" of "p" applied to
 * "a" and "b" (both consumed). */
static sym_expr *
apply(struct parser *p, enum tok_kind op, sym_expr *a, sym_expr *b, size_t pos)
{
	sym_expr *r = NULL;

	if (p->failed) {
		sym_expr_free(a);
		sym_expr_free(b);
		return NULL;
	}
	switch (op) {
	case T_PLUS:
		r = sym_expr_add(a, b);
		break;
	case T_MINUS:
		r = sym_expr_sub(a, b);
		break;
	case T_STAR:
		r = sym_expr_mul(a, b);
		break;
	case T_FLOORDIV:
		r = sym_expr_floordiv(a, b);
		break;
	case T_CEILDIV:
		r = sym_expr_ceildiv(a, b);
		break;
	case T_MOD:
		r = sym_expr_mod(a, b);
		break;
	case T_MIN:
		r = sym_expr_min(a, b);
		break;
	case T_MAX:
		r = sym_expr_max(a, b);
		break;
	default:
		sym_expr_free(a);
		sym_expr_free(b);
		return fail(p, SYM_EINTERNAL, pos, "unexpected operator");
	}
	return built(p, r, pos);
}

/* Enter one more level of nesting at the current token of "p"; return 0,
 * or -1 with an error when the text is nested too deeply. */
static int
enter(struct parser *p)
{
	if (++p->depth <= MAX_NESTING)
		return 0;
	fail(p, SYM_EPARSE, p->tok.pos,
	    "expression nested too deeply (more than %d levels)", MAX_NESTING);
	return -1;
}

/* Record the error of a missing ')' for the '(' at byte "open" of "p",
 * found at the current token instead; return NULL. */
static sym_expr *
missing_paren(struct parser *p, size_t open)
{
	sym_loc lp = loc_at(p, open), here = loc_at(p, p->tok.pos);
	const char *what = p->tok.kind == T_EOF ? "missing" : "expected";

	if (lp.line == here.line)
		return fail(p, SYM_EPARSE, p->tok.pos,
		    "%s ')' to close '(' at column %d", what, lp.col);
	return fail(p, SYM_EPARSE, p->tok.pos,
	    "%s ')' to close '(' at line %d, column %d", what, lp.line, lp.col);
}

/* Return a malloc'ed copy of the text of the current token of "p", or
 * NULL when out of memory ("p" failed). */
static char *
tok_text(struct parser *p)
{
	char *s = sym__alloc(p->ctx, p->tok.len + 1);

	if (!s) {
		p->failed = 1;
		return NULL;
	}
	memcpy(s, p->text + p->tok.pos, p->tok.len);
	s[p->tok.len] = '\0';
	return s;
}

/* Return the constant of the integer literal at the current token of
 * "p". */
static sym_expr *
parse_int(struct parser *p)
{
	char *digits = tok_text(p);
	sym_expr *e;

	if (!digits)
		return NULL;
	e = built(p, sym_expr_const_str(p->ctx, digits), p->tok.pos);
	free(digits);
	return e;
}

/* Return the expression of the symbol named by the current token of
 * "p". */
static sym_expr *
parse_name(struct parser *p)
{
	const struct tok *t = &p->tok;
	char *name = tok_text(p);
	sym_symbol *sym;
	int n = t->len > MAX_QUOTE ? MAX_QUOTE : (int)t->len;

	if (!name)
		return NULL;
	sym = sym_symbol_find(p->ctx, name);
	free(name);
	if (!sym)
		return fail(p, SYM_EDECL, t->pos, "unknown symbol '%.*s%s'", n,
		    p->text + t->pos, (size_t)n < t->len ? "..." : "");
	return built(p, sym_expr_symbol(sym), t->pos);
}

/* Return the call of the function named by the current token of "p"
 * ("min", "max", "floordiv", "ceildiv" or "mod"), whose '(' follows. */
static sym_expr *
parse_call(struct parser *p)
{
	struct tok fn = p->tok, open;
	sym_expr *acc, *arg;
	int n = 1, variadic = fn.kind == T_MIN || fn.kind == T_MAX;
	int len = (int)fn.len;

	next(p);
	open = p->tok;
	if (enter(p) < 0)
		return NULL;
	next(p);
	acc = parse_expr(p, &open);
	while (acc && p->tok.kind == T_COMMA) {
		struct tok comma = p->tok;

		if (!variadic && n == 2) {
			sym_expr_free(acc);
			return fail(p, SYM_EPARSE, comma.pos,
			    "%.*s() takes exactly two arguments", len,
			    p->text + fn.pos);
		}
		next(p);
		arg = parse_expr(p, &comma);
		if (!arg)
			return sym_expr_free(acc);
		acc = apply(p, fn.kind, acc, arg, fn.pos);
		n++;
	}
	if (!acc)
		return NULL;
	if (p->tok.kind == T_RPAREN && n < 2) {
		sym_expr_free(acc);
		return fail(p, SYM_EPARSE, p->tok.pos,
		    "%.*s() takes %s two arguments", len, p->text + fn.pos,
		    variadic ? "at least" : "exactly");
	}
	if (p->tok.kind == T_RPAREN) {
		p->depth--;
		next(p);
		return acc;
	}
	sym_expr_free(acc);
	if (p->tok.kind == T_EOF)
		return missing_paren(p, open.pos);
	return fail(p, SYM_EPARSE, p->tok.pos,
	    "expected ',' or ')' after an argument of %.*s()", len,
	    p->text + fn.pos);
}

/* Return the parenthesised expression at the current token of "p". */
static sym_expr *
parse_group(struct parser *p)
{
	struct tok open = p->tok;
	sym_expr *e;

	if (enter(p) < 0)
		return NULL;
	next(p);
	e = parse_expr(p, &open);
	if (!e)
		return NULL;
	if (p->tok.kind != T_RPAREN) {
		sym_expr_free(e);
		return missing_paren(p, open.pos);
	}
	p->depth--;
	next(p);
	return e;
}

/* Record the error of a missing operand at the current token of "p",
 * after the token "after" (NULL at the start of the text); return NULL. */
static sym_expr *
missing_operand(struct parser *p, const struct tok *after)
{
	const struct tok *t = &p->tok;

	if (after)
		return fail(p, SYM_EPARSE, t->pos,
		    "expected an expression after '%.*s'", (int)after->len,
		    p->text + after->pos);
	if (t->kind == T_EOF)
		return fail(p, SYM_EPARSE, t->pos, "expected an expression");
	if (at_mul_op(p))
		return fail(p, SYM_EPARSE, t->pos,
		    "expected an expression before '%.*s'", (int)t->len,
		    p->text + t->pos);
	return fail(p, SYM_EPARSE, t->pos, "unexpected '%.*s'", (int)t->len,
	    p->text + t->pos);
}

/* Return the primary expression at the current token of "p", which
 * follows the token "after" (NULL at the start of the text). */
static sym_expr *
parse_primary(struct parser *p, const struct tok *after)
{
	sym_expr *e;

	switch (p->tok.kind) {
	case T_INT:
		e = parse_int(p);
		break;
	case T_NAME:
		e = parse_name(p);
		break;
	case T_LPAREN:
		return parse_group(p);
	case T_FLOORDIV:
	case T_CEILDIV:
	case T_MOD:
	case T_MIN:
	case T_MAX:
		if (!is_name_start(p->text[p->tok.pos]))
			return missing_operand(p, after);
		if (peek_char(p) == '(')
			return parse_call(p);
		return fail(p, SYM_EPARSE, p->tok.pos,
		    "'%.*s' is a reserved word and cannot name a symbol",
		    (int)p->tok.len, p->text + p->tok.pos);
	case T_ERR:
		return bad_token(p);
	default:
		return missing_operand(p, after);
	}
	if (e)
		next(p);
	return e;
}

/* Return the unary expression at the current token of "p", which follows
 * the token "after" (NULL at the start of the text). */
static sym_expr *
parse_unary(struct parser *p, const struct tok *after)
{
	struct tok op = p->tok;
	sym_expr *e;

	if (op.kind != T_MINUS && op.kind != T_PLUS)
		return parse_primary(p, after);
	if (enter(p) < 0)
		return NULL;
	next(p);
	e = parse_unary(p, &op);
	if (e && op.kind == T_MINUS)
		e = built(p, sym_expr_neg(e), op.pos);
	p->depth--;
	return e;
}

/* Return the product, quotient or remainder at the current token of "p",
 * which follows the token "after" (NULL at the start of the text). */
static sym_expr *
parse_term(struct parser *p, const struct tok *after)
{
	sym_expr *e = parse_unary(p, after), *r;

	while (e && at_mul_op(p)) {
		struct tok op = p->tok;

		next(p);
		r = parse_unary(p, &op);
		if (!r)
			return sym_expr_free(e);
		e = apply(p, op.kind, e, r, op.pos);
	}
	return e;
}

/* Return the sum at the current token of "p", which follows the token
 * "after" (NULL at the start of the text). */
static sym_expr *
parse_expr(struct parser *p, const struct tok *after)
{
	/* Partial sums of 2^level terms, so that a long sum is added up
	 * pairwise in O(n log n) rather than term by term in O(n^2). */
	sym_expr *level[64] = { NULL };
	sym_expr *e = parse_term(p, after), *r;
	size_t pos = 0;

	while (e && (p->tok.kind == T_PLUS || p->tok.kind == T_MINUS)) {
		struct tok op = p->tok;
		int i;

		next(p);
		r = parse_term(p, &op);
		if (r && op.kind == T_MINUS)
			r = apply(p, T_MINUS, sym_expr_const(p->ctx, 0), r,
			    op.pos);
		if (!r)
			break;
		pos = op.pos;
		for (i = 0; i < 63 && level[i] && r; i++) {
			r = apply(p, T_PLUS, level[i], r, pos);
			level[i] = NULL;
		}
		if (!r)
			break;
		if (level[i])
			r = apply(p, T_PLUS, level[i], r, pos);
		level[i] = r;
	}
	for (int i = 0; i < 64; i++) {
		if (!level[i])
			continue;
		if (!e || p->failed) {
			sym_expr_free(level[i]);
			continue;
		}
		e = apply(p, T_PLUS, e, level[i], pos);
	}
	if (p->failed)
		return sym_expr_free(e);
	return e;
}

/* Return the expression written in "text", with symbols of "ctx"; the
 * first character of "text" is at "where" (NULL: line 1, column 1), which
 * locates errors. Return NULL with SYM_EPARSE (syntax), SYM_EDECL (an
 * unknown symbol) or an error of a constructor (SYM_EDIVZERO, ...),
 * located at the offending character. */
sym_expr *
sym_expr_parse(sym_ctx *ctx, const char *text, const sym_loc *where)
{
	struct parser p;
	sym_expr *e;

	if (!ctx)
		return NULL;
	if (!text) {
		sym__error(ctx, SYM_EINVAL, where, "no text to parse");
		return NULL;
	}
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.text = text;
	p.where = where;
	next(&p);
	e = parse_expr(&p, NULL);
	if (e && !p.failed && p.tok.kind != T_EOF) {
		if (p.tok.kind == T_RPAREN)
			fail(&p, SYM_EPARSE, p.tok.pos,
			    "unexpected ')' without a matching '('");
		else
			fail(&p, SYM_EPARSE, p.tok.pos,
			    "trailing input after expression");
	}
	if (p.failed)
		return sym_expr_free(e);
	return e;
}
