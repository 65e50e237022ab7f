/* SPDX-License-Identifier: MIT */
/*
 * The parser of the graph text format (symshard-graph(5)): one statement
 * per line, "#" comments, every error a located diagnostic after which
 * parsing goes on with the next line.
 *
 *	devices N
 *	symbol NAME [min=V] [max=V] [divisor=V] [remainder=V] [unique]
 *	relation EXPR CMP EXPR		CMP: == = != <= < >= >
 *	assert EXPR CMP EXPR
 *	mesh NAME = ([AXIS=]N, ...) [ranks [R, ...]]
 *	input NAME : DTYPE[EXPR, ...] [init=INIT]
 *	param NAME : DTYPE[EXPR, ...] [init=INIT] [frozen]
 *	state NAME : DTYPE[EXPR, ...] [init=INIT]
 *	NAME [, NAME ...] = OP(ARGS) [shard STRATEGY [-> STRATEGY]]
 *	import "FILE" [(NAME = SYMBOL, ...)]
 *	shard "ONNX NODE" STRATEGY [-> STRATEGY]
 *	output NAME [, NAME ...]
 *	minimize NAME with OPTIMIZER[(ARG, ...)]
 *
 * A line whose first name is followed by "=" or "," is an operator
 * statement (so values may be called "input" or "output"); otherwise the
 * first name is the statement's keyword. Operator statements are in
 * parse_op.c, the lexical layer in lex.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "front/lex.h"

static const char *const keywords[] = { "devices", "symbol", "relation",
	"assert", "mesh", "input", "param", "output", "minimize", "parallel",
	"state", "import", "shard" };

#define N_KEYWORDS (sizeof(keywords) / sizeof(keywords[0]))

enum sym_option_kw {
	OPT_MIN,
	OPT_MAX,
	OPT_DIVISOR,
	OPT_REMAINDER,
	OPT_UNIQUE,
	N_OPT
};

static const char *const options[N_OPT] = { "min", "max", "divisor",
	"remainder", "unique" };

/* Release the expressions (caller references) of "items" and its
 * storage. */
void
sym__parse_free_exprs(struct sym__vec *items)
{
	sym_expr **e = items->v;

	for (size_t i = 0; i < items->n; i++)
		sym_expr_free(e[i]);
	free(items->v);
	items->v = NULL;
	items->n = items->cap = 0;
}

/* Handle the failure of a library call made by "p" for the text at byte
 * "pos": when the call recorded no diagnostic on the graph (it had
 * "before" diagnostics before the call), turn the context's error into
 * one; clear the context's error. Return -1. */
int
sym__parse_failed(struct sym__parser *p, size_t before, size_t pos)
{
	if (p->g->n_diag == before)
		return sym__lex_ctx_error(p, pos);
	if (sym_ctx_last_error(p->ctx) == SYM_ENOMEM)
		p->oom = 1;
	sym_ctx_clear_error(p->ctx);
	return -1;
}

/* Remember that the value "name" could not be defined, unless it exists,
 * so that its uses are skipped without more errors. */
void
sym__parse_poison(struct sym__parser *p, const char *name)
{
	if (name && !sym_graph_find_value(p->g, name))
		sym__nameset_add(p, &p->failed, name);
}

/* Check that the statement of "p" ends here, after the part described by
 * "after"; return 0, or -1 with a diagnostic. */
int
sym__parse_end(struct sym__parser *p, const char *after)
{
	char b[64];

	if (sym__lex_peek(p) == '\0')
		return 0;
	return sym__lex_error(p, p->pos, NULL, "unexpected %s after %s",
	    sym__lex_describe(p, p->pos, b, sizeof(b)), after);
}

/* Report the unknown value of the "len" bytes at "start" of "p", with the
 * closest value name as a hint; nothing when its definition failed.
 * Return -1. */
int
sym__parse_unknown_value(struct sym__parser *p, size_t start, size_t len)
{
	struct sym__suggest s;
	char *name = sym__lex_strndup(p, start, len);
	int failed = name && sym__nameset_has(&p->failed, name);

	free(name);
	if (failed || p->oom || p->g->too_many)
		return -1;
	sym__suggest_init(&s, p->src + start, len);
	for (size_t i = 0; i < p->g->n_value; i++)
		sym__suggest_try(&s, p->g->value[i]->name);
	return sym__lex_error(p, start, sym__suggest_hint(&s),
	    "unknown value '%.*s%s'", SYM__QLEN(len), p->src + start,
	    SYM__QDOTS(len));
}

/* Parse the list "[e, ...]" that comes next in "p" (its '[' is the next
 * byte), a "what" ("shape") of "item"s ("a dimension"), appending the
 * expressions (caller references, freed by the caller) to "items".
 * Return 0; 1 when it is well formed but some expression had an error;
 * -1 on a syntax error. Every error is reported. */
int
sym__parse_expr_list(struct sym__parser *p, const char *what, const char *item,
    struct sym__vec *items)
{
	size_t open, start, end;
	sym_expr *e;
	int bad = 0, r;
	char b[64];

	sym__lex_peek(p);
	open = p->pos++;
	for (r = sym__lex_list_start(p, ']', what, open); r > 0;
	     r = sym__lex_list_next(p, ']', what, open, item)) {
		if (sym__lex_extent(p, ",", "]", &start, &end) < 0)
			return -1;
		if (start == end)
			return sym__lex_error(p, start, NULL,
			    "expected %s, found %s", item,
			    sym__lex_describe(p, start, b, sizeof(b)));
		e = sym__lex_expr(p, start, end);
		if (!e && p->oom)
			return -1;
		if (!e)
			bad = 1;
		else if (sym__lex_push(p, items, sizeof(e), &e) < 0)
			return sym_expr_free(e), -1;
	}
	return r < 0 ? -1 : bad;
}

/* Parse "devices N" after its keyword; return 0 or -1. */
static int
st_devices(struct sym__parser *p)
{
	size_t at, before = p->g->n_diag;
	int64_t n;
	sym_loc loc;
	int r = sym__lex_int(p, &n, &at);

	if (r < 0)
		return -1;
	if (r == 0)
		return sym__lex_error(p, p->pos, NULL,
		    "expected the number of devices after 'devices'");
	if (sym__parse_end(p, "the number of devices") < 0)
		return -1;
	loc = sym__lex_loc(p, at);
	if (sym_graph_set_devices(p->g, n, &loc) < 0)
		return sym__parse_failed(p, before, at);
	return 0;
}

/* Parse the byte count of option "what" ("memory", "fusion_bytes") in
 * "p": digits, optionally followed by KiB, MiB or GiB, into "*bytes"; 0 or
 * -1. */
static int
memory_bytes(struct sym__parser *p, const char *what, int64_t *bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB" };
	const char *s = p->src;
	size_t at, i, start;
	uint64_t n = 0;
	int shift = 0;

	sym__lex_peek(p);
	at = i = p->pos;
	if (s[i] < '0' || s[i] > '9')
		return sym__lex_error(p, at, NULL,
		    "expected a number of bytes after '%s=' (such as "
		    "64GiB)",
		    what);
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (n > (uint64_t)INT64_MAX / 10)
			return sym__lex_error(p, at, NULL,
			    "the %s does not fit in 64 bits", what);
		n = 10 * n + (uint64_t)(s[i] - '0');
	}
	start = i;
	while (sym__lex_is_name_char(s[i]))
		i++;
	for (int k = 0; k < 3 && i > start; k++)
		if (i - start == 3 && !strncmp(s + start, unit[k], 3))
			shift = 10 * (k + 1);
	if (i > start && !shift)
		return sym__lex_error(p, start,
		    "the units are KiB, MiB and GiB",
		    "unknown unit '%.*s%s' of %s", SYM__QLEN(i - start),
		    s + start, SYM__QDOTS(i - start), what);
	if (n > (uint64_t)INT64_MAX >> shift)
		return sym__lex_error(p, at, NULL,
		    "the %s does not fit in 64 bits", what);
	p->pos = i;
	*bytes = (int64_t)(n << shift);
	return 0;
}

/* Parse the byte count of option "what" of "of" ("parallel auto") that
 * comes next in "p" into "*bytes", as memory_bytes does, and check that it
 * is positive; 0 or -1. */
static int
positive_bytes(struct sym__parser *p, const char *what, const char *of,
    int64_t *bytes)
{
	size_t at = p->pos;

	if (memory_bytes(p, what, bytes) < 0)
		return -1;
	if (*bytes <= 0)
		return sym__lex_error(p, at, NULL,
		    "the %s of %s must be positive", what, of);
	return 0;
}

/* Parse "parallel WHAT=BYTES" (fusion_bytes, optimizer_shard_min_bytes)
 * after its option's name "what" at "start" (located at "loc"), the byte
 * count positive when "positive", and set it with "set"; 0 or -1. */
static int
st_bytes(struct sym__parser *p, const char *what, int positive,
    int (*set)(sym_graph *, int64_t, const sym_loc *), size_t start,
    sym_loc loc)
{
	size_t before = p->g->n_diag;
	int64_t bytes = 0;
	char after[64];

	snprintf(after, sizeof(after), "parallel %s", what);
	if (!sym__lex_accept(p, '='))
		return sym__lex_error(p, p->pos, NULL,
		    "expected '=BYTES' after '%s'", after);
	if ((positive ? positive_bytes(p, what, "parallel", &bytes)
	              : memory_bytes(p, what, &bytes)) < 0)
		return -1;
	if (sym__parse_end(p, after) < 0)
		return -1;
	if (set(p->g, bytes, &loc) < 0)
		return sym__parse_failed(p, before, start);
	return 0;
}

/* Parse "parallel optimizer_shard[=LEVEL]" after its option's name
 * "start" (located at "loc"); 0 or -1. */
static int
st_optimizer_shard(struct sym__parser *p, size_t start, sym_loc loc)
{
	size_t at, before = p->g->n_diag;
	const char *s = p->src;
	int level = 1;

	if (sym__lex_accept(p, '=')) {
		sym__lex_peek(p);
		at = p->pos;
		if (s[at] < '1' || s[at] > '3' ||
		    (s[at + 1] >= '0' && s[at + 1] <= '9'))
			return sym__lex_error(p, at,
			    "the levels are 1 (optimizer state), 2 (and "
			    "gradients) and 3 (and params)",
			    "expected the level 1, 2 or 3 after "
			    "'optimizer_shard='");
		level = s[at] - '0';
		p->pos = at + 1;
	}
	if (sym__parse_end(p, "parallel optimizer_shard") < 0)
		return -1;
	if (sym_graph_set_optimizer_shard(p->g, level, &loc) < 0)
		return sym__parse_failed(p, before, start);
	return 0;
}

/* Parse "parallel auto [memory=BYTES]", "parallel fusion_bytes=BYTES",
 * "parallel optimizer_shard[=LEVEL]" or "parallel
 * optimizer_shard_min_bytes=BYTES" after its keyword; 0 or -1. */
static int
st_parallel(struct sym__parser *p)
{
	size_t start = 0, len = 0, before = p->g->n_diag;
	int64_t bytes = 0;
	sym_loc loc = sym__lex_loc(p, p->pos);

	if (sym__lex_name(p, &start, &len) &&
	    sym__lex_word_is(p, start, len, "fusion_bytes"))
		return st_bytes(p, "fusion_bytes", 1,
		    sym_graph_set_fusion_bytes, start, sym__lex_loc(p, start));
	if (len && sym__lex_word_is(p, start, len, "optimizer_shard"))
		return st_optimizer_shard(p, start, sym__lex_loc(p, start));
	if (len && sym__lex_word_is(p, start, len, "optimizer_shard_min_bytes"))
		return st_bytes(p, "optimizer_shard_min_bytes", 0,
		    sym_graph_set_optimizer_shard_min_bytes, start,
		    sym__lex_loc(p, start));
	if (!len || !sym__lex_word_is(p, start, len, "auto"))
		return sym__lex_error(p, len ? start : p->pos, NULL,
		    "expected 'auto', 'fusion_bytes=' or 'optimizer_shard' "
		    "after 'parallel' (parallel auto [memory=BYTES], "
		    "parallel fusion_bytes=BYTES, parallel "
		    "optimizer_shard[=LEVEL], parallel "
		    "optimizer_shard_min_bytes=BYTES)");
	loc = sym__lex_loc(p, start);
	if (sym__lex_name(p, &start, &len)) {
		if (!sym__lex_word_is(p, start, len, "memory") ||
		    !sym__lex_accept(p, '='))
			return sym__lex_error(p, start, NULL,
			    "expected 'memory=BYTES' after 'parallel auto'");
		if (positive_bytes(p, "memory", "parallel auto", &bytes) < 0)
			return -1;
	}
	if (sym__parse_end(p, "parallel auto") < 0)
		return -1;
	if (sym_graph_set_auto_parallel(p->g, bytes, &loc) < 0)
		return sym__parse_failed(p, before, start);
	return 0;
}

/* Return the index of the symbol option of the "len" bytes at "start" of
 * "p", or -1 with a diagnostic about symbol "name". */
static int
symbol_option(struct sym__parser *p, size_t start, size_t len, const char *name)
{
	struct sym__suggest s;

	for (int k = 0; k < N_OPT; k++)
		if (sym__lex_word_is(p, start, len, options[k]))
			return k;
	sym__suggest_init(&s, p->src + start, len);
	for (int k = 0; k < N_OPT; k++)
		sym__suggest_try(&s, options[k]);
	return sym__lex_error(p, start, sym__suggest_hint(&s),
	    "unknown option '%.*s%s' of symbol %.*s%s (expected min, max, "
	    "divisor, remainder or unique)",
	    SYM__QLEN(len), p->src + start, SYM__QDOTS(len),
	    SYM__QLEN(strlen(name)), name, SYM__QDOTS(strlen(name)));
}

/* Parse the option of symbol "name" that comes next in "p" into "info";
 * "seen" holds the position of each option given so far (SIZE_MAX: not
 * yet). Return 0 or -1. */
static int
symbol_option_value(struct sym__parser *p, const char *name,
    sym_symbol_info *info, size_t *seen)
{
	size_t o, len, at;
	int64_t v;
	int k, r;
	char b[64];

	if (!sym__lex_name(p, &o, &len))
		return sym__lex_error(p, p->pos, NULL,
		    "expected an option of symbol %.*s%s (min=, max=, "
		    "divisor=, remainder= or unique), found %s",
		    SYM__QLEN(strlen(name)), name, SYM__QDOTS(strlen(name)),
		    sym__lex_describe(p, p->pos, b, sizeof(b)));
	k = symbol_option(p, o, len, name);
	if (k < 0)
		return -1;
	if (seen[k] != SIZE_MAX)
		return sym__lex_error(p, o, NULL,
		    "option '%s' is given twice (first at column %d)",
		    options[k], sym__lex_loc(p, seen[k]).col);
	seen[k] = o;
	if (k == OPT_UNIQUE) {
		if (sym__lex_peek(p) == '=')
			return sym__lex_error(p, p->pos, NULL,
			    "'unique' takes no value: write 'unique' alone");
		info->unique = 1;
		return 0;
	}
	if (!sym__lex_accept(p, '='))
		return sym__lex_error(p, p->pos, NULL,
		    "expected '=' after '%s'", options[k]);
	r = sym__lex_int(p, &v, &at);
	if (r == 0)
		return sym__lex_error(p, p->pos, NULL,
		    "expected an integer after '%s='", options[k]);
	if (r < 0)
		return -1;
	if (k == OPT_MIN)
		info->min = v;
	else if (k == OPT_MAX)
		info->max = v;
	else if (k == OPT_DIVISOR)
		info->divisor = v;
	else
		info->remainder = v;
	return 0;
}

/* Parse "symbol NAME [options]" after its keyword and declare the symbol;
 * return 0 or -1. A name whose declaration failed is remembered, so that
 * its uses are not reported as unknown symbols. */
static int
st_symbol(struct sym__parser *p)
{
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	size_t seen[N_OPT], start, len;
	char *name;
	sym_loc loc;
	int r = 0;

	for (int k = 0; k < N_OPT; k++)
		seen[k] = SIZE_MAX;
	name =
	    sym__lex_name_copy(p, "a symbol name after 'symbol'", &start, &len);
	if (!name)
		return -1;
	while (r == 0 && sym__lex_peek(p) != '\0')
		r = symbol_option_value(p, name, &info, seen);
	loc = sym__lex_loc(p, start);
	if (r == 0 && !sym_symbol_new(p->ctx, name, &info, &loc))
		r = sym__lex_ctx_error(p, start);
	if (r != 0 && !sym_symbol_find(p->ctx, name))
		sym__nameset_add(p, &p->failed_sym, name);
	free(name);
	return r;
}

/* Return the length of the comparison operator at byte "pos" of "p"
 * (0 when there is none) and store it in "*op". */
static size_t
comparison(const struct sym__parser *p, size_t pos, sym_cmp *op)
{
	const char *s = p->src + pos;

	switch (s[0]) {
	case '=':
		*op = SYM_EQ;
		return s[1] == '=' ? 2 : 1;
	case '!':
		*op = SYM_NE;
		return s[1] == '=' ? 2 : 0;
	case '<':
		*op = s[1] == '=' ? SYM_LE : SYM_LT;
		return s[1] == '=' ? 2 : 1;
	case '>':
		*op = s[1] == '=' ? SYM_GE : SYM_GT;
		return s[1] == '=' ? 2 : 1;
	default:
		return 0;
	}
}

/* Find the comparison "E1 OP E2" that comes next in "p": the extents of
 * E1 in "s1"/"e1", of E2 in "s2"/"e2", the operator in "op"; "what" is
 * "relation" or "assert". Return 0 or -1. */
static int
split_comparison(struct sym__parser *p, const char *what, size_t r[4],
    sym_cmp *op)
{
	static const char cmp_chars[] = "<>=!";
	size_t at, len;
	char b[64];

	if (sym__lex_extent(p, cmp_chars, "", &r[0], &r[1]) < 0)
		return -1;
	at = p->pos;
	len = comparison(p, at, op);
	if (r[0] == r[1])
		return sym__lex_error(p, r[0], NULL,
		    "expected an expression after '%s', found %s", what,
		    sym__lex_describe(p, r[0], b, sizeof(b)));
	if (p->src[at] == '!' && len == 0)
		return sym__lex_error(p, at, NULL, "expected '!=', found %s",
		    sym__lex_describe(p, at, b, sizeof(b)));
	if (len == 0)
		return sym__lex_error(p, at, NULL,
		    "expected a comparison (==, !=, <=, <, >=, >) after the "
		    "expression, found %s",
		    sym__lex_describe(p, at, b, sizeof(b)));
	if (len == 1 && p->src[at] == '=' &&
	    (p->src[at + 1] == '<' || p->src[at + 1] == '>'))
		return sym__lex_error(p, at, NULL,
		    "unknown comparison '=%c': did you mean '%c='?",
		    p->src[at + 1], p->src[at + 1]);
	p->pos = at + len;
	if (sym__lex_extent(p, cmp_chars, "", &r[2], &r[3]) < 0)
		return -1;
	if (r[2] == r[3])
		return sym__lex_error(p, r[2], NULL,
		    "expected an expression after '%.*s', found %s", (int)len,
		    p->src + at, sym__lex_describe(p, r[2], b, sizeof(b)));
	if (sym__lex_peek(p) != '\0')
		return sym__lex_error(p, p->pos, NULL,
		    "only one comparison is allowed in %s %s",
		    what[0] == 'a' ? "an" : "a", what);
	return 0;
}

/* The most symbols of an assertion whose witness binds them all. */
#define MAX_NAMED 16

/* Store in "syms" the distinct declared symbols named in bytes "start" to
 * "end" of "p" (instances with their primes), at most MAX_NAMED; return
 * their number. */
static size_t
named_symbols(struct sym__parser *p, size_t start, size_t end,
    sym_symbol **syms, size_t n)
{
	size_t i = start, len;
	sym_symbol *s;
	char *name;

	while (i < end && n < MAX_NAMED) {
		if (!sym__lex_is_name_start(p->src[i]) ||
		    (i > start && sym__lex_is_name_char(p->src[i - 1]))) {
			i++;
			continue;
		}
		for (len = 1; i + len < end &&
		     (sym__lex_is_name_char(p->src[i + len]) ||
		         p->src[i + len] == '\'');
		     len++)
			;
		name = sym__lex_strndup(p, i, len);
		s = name ? sym_symbol_find(p->ctx, name) : NULL;
		free(name);
		for (size_t k = 0; s && k < n; k++)
			if (syms[k] == s)
				s = NULL;
		if (s)
			syms[n++] = s;
		i += len;
	}
	return n;
}

/* Check the assertion "lhs" "op" "rhs" written in bytes "r"[0] to "r"[3]
 * of "p" at "loc", keeping its text; return what sym_graph_assert
 * returns. */
static sym_answer
assertion(struct sym__parser *p, sym_expr *lhs, sym_cmp op, sym_expr *rhs,
    const size_t r[4], const sym_loc *loc)
{
	sym_symbol *syms[MAX_NAMED];
	size_t n = named_symbols(p, r[0], r[1], syms, 0);
	char *text = sym__lex_strndup(p, r[0], r[3] - r[0]);
	sym_answer a;

	n = named_symbols(p, r[2], r[3], syms, n);
	if (!text)
		return SYM_ERROR;
	a = sym__graph_assert(p->g, lhs, op, rhs, text, syms, n, loc);
	free(text);
	return a;
}

/* Parse "relation E1 OP E2" or, when "is_assert", "assert E1 OP E2" after
 * its keyword, and declare or check it; return 0 or -1. */
static int
st_compare(struct sym__parser *p, int is_assert)
{
	size_t r[4], before = p->g->n_diag;
	sym_expr *lhs, *rhs;
	sym_cmp op;
	sym_loc loc;
	int res = 0;

	if (split_comparison(p, is_assert ? "assert" : "relation", r, &op) < 0)
		return -1;
	lhs = sym__lex_expr(p, r[0], r[1]);
	rhs = p->oom ? NULL : sym__lex_expr(p, r[2], r[3]);
	loc = sym__lex_loc(p, r[0]);
	if (!lhs || !rhs)
		res = -1;
	else if (is_assert && assertion(p, lhs, op, rhs, r, &loc) == SYM_ERROR)
		res = sym__parse_failed(p, before, r[0]);
	else if (!is_assert &&
	    sym_graph_add_relation(p->g, lhs, op, rhs, &loc) < 0)
		res = sym__parse_failed(p, before, r[0]);
	sym_expr_free(lhs);
	sym_expr_free(rhs);
	return res;
}

/* Return the dtype named by the "len" bytes at "start" of "p", or
 * SYM_DT_INVALID with a diagnostic. */
static sym_dtype
dtype(struct sym__parser *p, size_t start, size_t len)
{
	struct sym__suggest s;
	char *name = sym__lex_strndup(p, start, len);
	sym_dtype dt = name ? sym_dtype_from_name(name) : SYM_DT_INVALID;

	free(name);
	if (dt != SYM_DT_INVALID || p->oom)
		return dt;
	sym__suggest_init(&s, p->src + start, len);
	for (int i = SYM_DT_INVALID + 1; i < 64; i++) {
		const char *n = sym_dtype_name((sym_dtype)i);

		if (!strcmp(n, sym_dtype_name(SYM_DT_INVALID)))
			break;
		sym__suggest_try(&s, n);
	}
	sym__lex_error(p, start, sym__suggest_hint(&s),
	    "unknown dtype '%.*s%s'", SYM__QLEN(len), p->src + start,
	    SYM__QDOTS(len));
	return SYM_DT_INVALID;
}

/* Parse ": DTYPE[D, ...]" after the name of "what" ("input") in "p": the
 * dtype in "*dt" (SYM_DT_INVALID after an error) and the dimensions in
 * "dims", the position of its '[' in "*open". Return 0, 1 when a reported error leaves the rest readable, or
 * -1. */
static int
type_and_shape(struct sym__parser *p, const char *what, sym_dtype *dt,
    struct sym__vec *dims, size_t *open)
{
	size_t start, len;
	int r;

	if (!sym__lex_accept(p, ':'))
		return sym__lex_error(p, p->pos, NULL,
		    "expected ':' after %s name", what);
	if (!sym__lex_name(p, &start, &len))
		return sym__lex_error(p, p->pos, NULL,
		    "expected a dtype after ':' (f32, i32, ...)");
	*dt = dtype(p, start, len);
	if (p->oom)
		return -1;
	if (sym__lex_peek(p) != '[')
		return sym__lex_error(p, p->pos, NULL,
		    "expected '[' after the dtype (%.*s%s[] is a scalar)",
		    SYM__QLEN(len), p->src + start, SYM__QDOTS(len));
	*open = p->pos;
	r = sym__parse_expr_list(p, "shape", "a dimension", dims);
	if (r < 0)
		return -1;
	return r || *dt == SYM_DT_INVALID;
}

/* Parse "input NAME : DTYPE[D, ...]" after its keyword (or "param ...",
 * "kind" saying which; "state ...", a param, when "state") and add the
 * value; return 0 or -1. */
static int
st_input(struct sym__parser *p, sym_value_kind kind, int state)
{
	const char *what = state      ? "state"
	    : kind == SYM_VALUE_PARAM ? "parameter"
	                              : "input";
	struct sym__vec dims = { NULL, 0, 0 };
	sym_dtype dt = SYM_DT_INVALID;
	size_t start, len, before = p->g->n_diag, open;
	sym_shape *shape = NULL;
	char *name;
	sym_loc loc;
	struct sym__value_options opts;
	sym_value *v = NULL;
	int r;

	name = sym__lex_name_copy(p,
	    state                         ? "a value name after 'state'"
	        : kind == SYM_VALUE_PARAM ? "a value name after 'param'"
	                                  : "a value name after 'input'",
	    &start, &len);
	if (!name)
		return -1;
	open = start;
	r = type_and_shape(p, what, &dt, &dims, &open);
	if (r == 0 && sym__parse_value_options(p, kind, &opts) < 0)
		r = -1;
	if (r == 0 && state && opts.frozen)
		r = sym__lex_error(p, start, NULL,
		    "a state is never trained: frozen is implied");
	loc = sym__lex_loc(p, start);
	if (r == 0) {
		before = p->g->n_diag;
		shape = sym_shape_new(p->ctx, dt, dims.n, dims.v);
		if (!shape)
			r = sym__lex_ctx_error(p, open);
	}
	if (r == 0) {
		v = sym_graph_add_input(p->g, name, kind, shape, &loc);
		if (!v)
			r = sym__parse_failed(p, before, start);
	}
	if (r == 0 && state && sym_value_set_state(v, 1) < 0)
		r = sym__lex_ctx_error(p, start);
	if (r == 0 && sym__apply_value_options(p, v, &opts) < 0)
		r = -1;
	if (r != 0)
		sym__parse_poison(p, name);
	sym_shape_free(shape);
	sym__parse_free_exprs(&dims);
	free(name);
	return r ? -1 : 0;
}

/* Parse "output NAME [, NAME ...]" after its keyword and mark the values
 * as outputs; return 0 or -1. */
static int
st_output(struct sym__parser *p)
{
	struct sym__vec at = { NULL, 0, 0 }, vals = { NULL, 0, 0 };
	size_t start, len, before;
	int r = 0, first = 1;

	do {
		char *name;
		sym_value *v;

		if (!sym__lex_name(p, &start, &len)) {
			r = sym__lex_error(p, p->pos, NULL,
			    "expected a value name after '%s'",
			    first ? "output" : ",");
			goto done;
		}
		first = 0;
		name = sym__lex_strndup(p, start, len);
		v = name ? sym_graph_find_value(p->g, name) : NULL;
		free(name);
		if (!v)
			r = sym__parse_unknown_value(p, start, len);
		else if (sym__lex_push(p, &vals, sizeof(v), &v) < 0 ||
		    sym__lex_push(p, &at, sizeof(start), &start) < 0)
			goto done;
	} while (sym__lex_accept(p, ','));
	if (sym__parse_end(p, "the output names") < 0) {
		r = -1;
		goto done;
	}
	for (size_t i = 0; i < vals.n && !p->oom; i++) {
		size_t pos = ((size_t *)at.v)[i];
		sym_loc loc = sym__lex_loc(p, pos);

		before = p->g->n_diag;
		if (sym_graph_mark_output(p->g, ((sym_value **)vals.v)[i],
		        &loc) < 0)
			r = sym__parse_failed(p, before, pos);
	}
done:
	free(at.v);
	free(vals.v);
	return r ? -1 : 0;
}

/* Report the unknown statement of the "len" bytes at "start" of "p";
 * return -1. */
static int
unknown_statement(struct sym__parser *p, size_t start, size_t len)
{
	struct sym__suggest s;
	const char *hint;

	sym__suggest_init(&s, p->src + start, len);
	for (size_t k = 0; k < N_KEYWORDS; k++)
		sym__suggest_try(&s, keywords[k]);
	hint = sym__suggest_hint(&s);
	if (!hint)
		hint = "a statement starts with devices, symbol, relation, "
		       "assert, mesh, input, param, output, minimize or "
		       "parallel, or is 'NAME = operator(...)'";
	return sym__lex_error(p, start, hint, "unknown statement '%.*s%s'",
	    SYM__QLEN(len), p->src + start, SYM__QDOTS(len));
}

/* Parse the statement of the current line of "p", if any; return 0, or -1
 * after an error. */
static int
statement(struct sym__parser *p)
{
	size_t start, len, k;
	char c, b[64];

	if (sym__lex_peek(p) == '\0')
		return 0;
	if (!sym__lex_name(p, &start, &len))
		return sym__lex_error(p, p->pos, NULL,
		    "expected a statement, found %s",
		    sym__lex_describe(p, p->pos, b, sizeof(b)));
	c = sym__lex_peek(p);
	if (c == ',' || (c == '=' && p->src[p->pos + 1] != '='))
		return sym__parse_op(p, start, len);
	for (k = 0; k < N_KEYWORDS; k++)
		if (sym__lex_word_is(p, start, len, keywords[k]))
			break;
	switch (k) {
	case 0:
		return st_devices(p);
	case 1:
		return st_symbol(p);
	case 2:
		return st_compare(p, 0);
	case 3:
		return st_compare(p, 1);
	case 4:
		return sym__parse_mesh(p);
	case 5:
		return st_input(p, SYM_VALUE_INPUT, 0);
	case 6:
		return st_input(p, SYM_VALUE_PARAM, 0);
	case 7:
		return st_output(p);
	case 8:
		return sym__parse_minimize(p);
	case 9:
		return st_parallel(p);
	case 10:
		return st_input(p, SYM_VALUE_PARAM, 1);
	case 11:
		return sym__parse_import(p);
	case 12:
		return sym__parse_shard_named(p);
	default:
		return unknown_statement(p, start, len);
	}
}

/* Parse every line of "p". */
static void
parse_lines(struct sym__parser *p)
{
	const char *nl;

	while (!p->oom && !p->g->oom && !p->g->too_many) {
		statement(p);
		if (sym_ctx_last_error(p->ctx) == SYM_ENOMEM)
			p->oom = 1;
		sym_ctx_clear_error(p->ctx);
		nl = strchr(p->src + p->pos, '\n');
		if (!nl)
			break;
		p->pos = (size_t)(nl - p->src) + 1;
		p->bol = p->pos;
		if (p->line < INT_MAX)
			p->line++;
	}
}

/* Return a new graph parsed from "text" (of "len" bytes, without NUL),
 * whose locations name "filename" (may be NULL), or NULL with SYM_ENOMEM
 * on "ctx". */
static sym_graph *
parse(sym_ctx *ctx, const char *text, size_t len, const char *filename)
{
	struct sym__parser p;
	sym_graph *g = sym_graph_new(ctx);

	if (!g)
		return NULL;
	memset(&p, 0, sizeof(p));
	g->source = sym__alloc(ctx, len + 1);
	g->filename = filename ? sym__strdup(ctx, filename) : NULL;
	p.file = filename ? sym__graph_intern_file(g, filename) : NULL;
	if (!g->source || (filename && (!g->filename || !p.file))) {
		sym_graph_free(g);
		sym__oom(ctx);
		return NULL;
	}
	memcpy(g->source, text, len);
	g->source[len] = '\0';
	p.ctx = ctx;
	p.g = g;
	p.src = g->source;
	p.line = 1;
	sym_ctx_clear_error(ctx);
	g->error_limit = SYM__MAX_ERRORS;
	parse_lines(&p);
	g->error_limit = 0;
	sym__nameset_clear(&p.failed);
	sym__nameset_clear(&p.failed_sym);
	if (p.oom || g->oom) {
		sym_graph_free(g);
		sym__oom(ctx);
		return NULL;
	}
	return g;
}

/* Return a new graph (a caller reference) parsed from the graph text
 * "text", its locations naming "filename" (may be NULL). Syntax and
 * semantic errors are diagnostics of the graph (sym_graph_n_errors).
 * Return NULL only with SYM_EINVAL (no text) or SYM_ENOMEM. */
sym_graph *
sym_graph_parse(sym_ctx *ctx, const char *text, const char *filename)
{
	if (!ctx)
		return NULL;
	if (!text) {
		sym__error(ctx, SYM_EINVAL, NULL, "no text to parse");
		return NULL;
	}
	return parse(ctx, text, strlen(text), filename);
}

/* Record on "g" the error of the NUL byte at offset "at" of "text" (the
 * file's text before it was kept). */
static void
nul_error(sym_graph *g, const char *text, size_t at)
{
	sym_loc loc = { NULL, 1, 1 };
	size_t bol = 0;

	for (size_t i = 0; i < at; i++)
		if (text[i] == '\n') {
			loc.line += loc.line < INT_MAX;
			bol = i + 1;
		}
	loc.col = at - bol + 1 > INT_MAX ? INT_MAX : (int)(at - bol + 1);
	loc.file = g->filename;
	sym__graph_diag(g, SYM_SEV_ERROR, &loc, NULL, NULL,
	    "the file contains a NUL byte: the rest of it is ignored");
}

/* Return a new graph parsed from "text" of "len" bytes read from "name"
 * whose first NUL byte, if any, was at "nul_at" (SIZE_MAX for none); free
 * "text". */
static sym_graph *
parse_read(sym_ctx *ctx, char *text, size_t len, size_t nul_at,
    const char *name)
{
	sym_graph *g;

	g = parse(ctx, text, len, name);
	if (g && nul_at != SIZE_MAX)
		nul_error(g, text, nul_at);
	free(text);
	return g;
}

/* Return a new graph (a caller reference) parsed from the file "path",
 * as sym_graph_parse does; NULL with SYM_EIO naming the path and the
 * system's reason when the file cannot be read or is larger than the
 * limit of an input file. */
sym_graph *
sym_graph_parse_file(sym_ctx *ctx, const char *path)
{
	size_t len = 0, nul_at;
	char *text;

	if (!ctx)
		return NULL;
	if (!path) {
		sym__error(ctx, SYM_EINVAL, NULL, "no file to parse");
		return NULL;
	}
	text = sym__read_file(ctx, path, SYM__FILE_LIMIT, &len, &nul_at);
	if (!text)
		return NULL;
	return parse_read(ctx, text, len, nul_at, path);
}

/* Return a new graph (a caller reference) parsed from the open stream "f"
 * read to its end, its locations naming "filename" (may be NULL), as
 * sym_graph_parse_file does. */
sym_graph *
sym_graph_parse_stream(sym_ctx *ctx, FILE *f, const char *filename)
{
	size_t len = 0, nul_at;
	char *text;

	if (!ctx)
		return NULL;
	if (!f) {
		sym__error(ctx, SYM_EINVAL, NULL, "no stream to parse");
		return NULL;
	}
	text = sym__read_stream(ctx, f, filename ? filename : "the stream",
	    SYM__FILE_LIMIT, &len, &nul_at);
	if (!text)
		return NULL;
	return parse_read(ctx, text, len, nul_at, filename);
}
