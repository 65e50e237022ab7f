/* SPDX-License-Identifier: MIT */
/*
 * The lexical layer of the graph text format: see lex.h.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "front/lex.h"

/* Longest name for which "did you mean" suggestions are computed. */
#define MAX_SUGGEST_LEN 64

/* Return the location of byte "pos" of the current line of "p": its
 * file, line and 1-based column (a tab counts as one column; on the
 * first line, after the "col0" columns that precede the text). */
sym_loc
sym__lex_loc(const struct sym__parser *p, size_t pos)
{
	sym_loc loc;
	size_t col = pos >= p->bol ? pos - p->bol + 1 : 1;

	if (p->bol == 0)
		col += (size_t)p->col0;

	loc.file = p->file;
	loc.line = p->line;
	loc.col = col > INT_MAX ? INT_MAX : (int)col;
	return loc;
}

/* Record on the graph of "p" an error diagnostic at byte "pos" with the
 * message formatted from "fmt" and the "hint" (may be NULL). Return -1. */
int
sym__lex_error(struct sym__parser *p, size_t pos, const char *hint,
    const char *fmt, ...)
{
	sym_loc loc = sym__lex_loc(p, pos);
	size_t before = p->g->n_diag;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = sym__vasprintf(fmt, ap);
	va_end(ap);
	if (!msg) {
		p->oom = 1;
		return -1;
	}
	sym__graph_diag(p->g, SYM_SEV_ERROR, &loc, NULL, hint, "%s", msg);
	free(msg);
	if (p->g->n_diag == before && !p->g->too_many)
		p->oom = 1;
	return -1;
}

/* Report that the "what" opened by "open" at byte "open" of "p" is not
 * closed by "close" before the end of the line, at the current
 * position; return -1. */
int
sym__lex_unclosed(struct sym__parser *p, char close, const char *what,
    size_t open)
{
	return sym__lex_error(p, p->pos, NULL,
	    "expected '%c' to close the %s started at column %d", close, what,
	    sym__lex_loc(p, open).col);
}

/* Start reading the list opened by the byte "open" of "p" (just read)
 * and closed by "close", a "what" ("device matrix"): return 0 when it is
 * empty (its "close" is read), 1 when an element follows, -1 with a
 * diagnostic when the line ends. */
int
sym__lex_list_start(struct sym__parser *p, char close, const char *what,
    size_t open)
{
	if (sym__lex_accept(p, close))
		return 0;
	if (sym__lex_peek(p) == '\0')
		return sym__lex_unclosed(p, close, what, open);
	return 1;
}

/* Go on reading the list opened by the byte "open" of "p" and closed by
 * "close", a "what" of "elem"s ("an axis"), after an element: return 1
 * when another element follows its ',', 0 when the list ended (a trailing
 * ',' is allowed), -1 with a diagnostic otherwise. */
int
sym__lex_list_next(struct sym__parser *p, char close, const char *what,
    size_t open, const char *elem)
{
	char b[64];

	if (sym__lex_accept(p, ','))
		return sym__lex_list_start(p, close, what, open);
	if (sym__lex_accept(p, close))
		return 0;
	if (sym__lex_peek(p) == '\0')
		return sym__lex_unclosed(p, close, what, open);
	return sym__lex_error(p, p->pos, NULL,
	    "expected ',' or '%c' after %s, found %s", close, elem,
	    sym__lex_describe(p, p->pos, b, sizeof(b)));
}

/* Turn the error a library call left on the context of "p" into an error
 * diagnostic, at the context's location when it has one, else at byte
 * "pos"; clear the context's error. Return -1. */
int
sym__lex_ctx_error(struct sym__parser *p, size_t pos)
{
	sym_loc loc = sym__lex_loc(p, pos);
	size_t before = p->g->n_diag;

	if (sym_ctx_last_error(p->ctx) == SYM_ENOMEM) {
		p->oom = 1;
		sym_ctx_clear_error(p->ctx);
		return -1;
	}
	if (sym_ctx_last_error(p->ctx) == SYM_OK)
		return sym__lex_error(p, pos, NULL,
		    "internal error: a library call failed without saying why");
	sym__graph_ctx_error(p->g, &loc);
	if (p->g->n_diag == before && !p->g->too_many)
		p->oom = 1;
	return -1;
}

/* Append the "size" bytes at "elem" to the vector "v" of "p"; return 0,
 * or -1 when out of memory. */
int
sym__lex_push(struct sym__parser *p, struct sym__vec *v, size_t size,
    const void *elem)
{
	if (sym__reserve(p->ctx, &v->v, &v->cap, v->n + 1, size) < 0) {
		p->oom = 1;
		return -1;
	}
	memcpy((char *)v->v + v->n * size, elem, size);
	v->n++;
	return 0;
}

/* Return 1 when "c" may start a name. */
int
sym__lex_is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Return 1 when "c" may continue a name. */
int
sym__lex_is_name_char(char c)
{
	return sym__lex_is_name_start(c) || (c >= '0' && c <= '9');
}

/* Return 1 when "c" ends a line: its end, a newline or a comment. */
static int
is_eol(char c)
{
	return c == '\0' || c == '\n' || c == '#';
}

/* Skip the blanks at the position of "p" and return the byte there, or
 * '\0' at the end of the line (a newline, a comment or the end). */
char
sym__lex_peek(struct sym__parser *p)
{
	const char *s = p->src;

	while (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\r' ||
	    s[p->pos] == '\v' || s[p->pos] == '\f')
		p->pos++;
	return is_eol(s[p->pos]) ? '\0' : s[p->pos];
}

/* Skip the blanks of "p" and the byte "c" if it comes next; return 1 when
 * it did, else 0. */
int
sym__lex_accept(struct sym__parser *p, char c)
{
	if (c == '\0' || sym__lex_peek(p) != c)
		return 0;
	p->pos++;
	return 1;
}

/* Return 1 when "->" comes next in "p" (after blanks), not consuming
 * it. */
int
sym__lex_at_arrow(struct sym__parser *p)
{
	return sym__lex_peek(p) == '-' && p->src[p->pos + 1] == '>';
}

/* Read the name that comes next in "p" (after blanks), its first byte in
 * "*start" and its length in "*len"; return 1, or 0 when no name comes
 * next (nothing is consumed). */
int
sym__lex_name(struct sym__parser *p, size_t *start, size_t *len)
{
	size_t i;

	if (!sym__lex_is_name_start(sym__lex_peek(p)))
		return 0;
	i = p->pos;
	while (sym__lex_is_name_char(p->src[i]))
		i++;
	*start = p->pos;
	*len = i - p->pos;
	p->pos = i;
	return 1;
}

/* Return 1 when the "len" bytes at "start" of the text of "p" are
 * "word". */
int
sym__lex_word_is(const struct sym__parser *p, size_t start, size_t len,
    const char *word)
{
	return strlen(word) == len && memcmp(p->src + start, word, len) == 0;
}

/* Return a malloc'ed copy of the "len" bytes at "start" of the text of
 * "p", or NULL when out of memory. */
char *
sym__lex_strndup(struct sym__parser *p, size_t start, size_t len)
{
	char *s = sym__alloc(p->ctx, len + 1);

	if (!s) {
		p->oom = 1;
		return NULL;
	}
	memcpy(s, p->src + start, len);
	s[len] = '\0';
	return s;
}

/* Read the name that comes next in "p", its first byte in "*start" and
 * its length in "*len", and return a malloc'ed copy of it; NULL after the
 * diagnostic "expected EXPECTED" when no name comes next, or when out of
 * memory. */
char *
sym__lex_name_copy(struct sym__parser *p, const char *expected, size_t *start,
    size_t *len)
{
	if (!sym__lex_name(p, start, len)) {
		sym__lex_error(p, p->pos, NULL, "expected %s", expected);
		return NULL;
	}
	return sym__lex_strndup(p, *start, *len);
}

/* Read the integer literal ("-"? digits) that comes next in "p" (after
 * blanks) into "*value", its first byte in "*start". Return 1; 0 when no
 * integer comes next, or digits run into a name or a '.' (nothing is
 * consumed); -1 with a diagnostic when it is out of range. */
int
sym__lex_int(struct sym__parser *p, int64_t *value, size_t *start)
{
	const char *s = p->src;
	size_t i;
	int neg, over = 0;
	uint64_t v = 0, limit;

	sym__lex_peek(p);
	i = p->pos;
	neg = s[i] == '-';
	if (neg)
		i++;
	if (s[i] < '0' || s[i] > '9')
		return 0;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	*start = p->pos;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (over || v > (limit - d) / 10)
			over = 1;
		else
			v = 10 * v + d;
	}
	if (sym__lex_is_name_char(s[i]) || s[i] == '.')
		return 0;
	p->pos = i;
	if (over)
		return sym__lex_error(p, *start, NULL,
		    "integer %.*s%s is out of range (64 bits)",
		    i - *start > SYM__PARSE_MAX_QUOTE ? SYM__PARSE_MAX_QUOTE
		                                      : (int)(i - *start),
		    s + *start, i - *start > SYM__PARSE_MAX_QUOTE ? "..." : "");
	if (neg)
		*value = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else
		*value = (int64_t)v;
	return 1;
}

/* Return the byte that the escape sequence "\c" stands for in a string,
 * or -1 when there is no such escape. */
static int
unescape(char c)
{
	switch (c) {
	case '"':
	case '\\':
		return c;
	case 'n':
		return '\n';
	case 't':
		return '\t';
	default:
		return -1;
	}
}

/* Read the string literal that comes next in "p" (after blanks), with the
 * escapes \" \\ \n \t, into the malloc'ed "*out". Return 1; 0 when no
 * string comes next; -1 with a diagnostic when it is malformed. */
int
sym__lex_string(struct sym__parser *p, char **out)
{
	const char *s = p->src;
	size_t open, i, n = 0;
	char *r;

	if (sym__lex_peek(p) != '"')
		return 0;
	open = p->pos;
	for (i = open + 1; s[i] != '"'; i++) {
		if (s[i] == '\0' || s[i] == '\n')
			return sym__lex_error(p, open, NULL,
			    "unterminated string: missing '\"'");
		if (s[i] == '\\') {
			if (unescape(s[i + 1]) < 0) {
				char b[16];

				return sym__lex_error(p, i, NULL,
				    "unknown escape sequence '\\' followed by "
				    "%s in a string (use \\\" \\\\ \\n \\t)",
				    sym__lex_describe(p, i + 1, b, sizeof(b)));
			}
			i++;
		}
		n++;
	}
	r = sym__alloc(p->ctx, n + 1);
	if (!r) {
		p->oom = 1;
		return -1;
	}
	n = 0;
	for (i = open + 1; s[i] != '"'; i++) {
		if (s[i] == '\\')
			i++, r[n++] = (char)unescape(s[i]);
		else
			r[n++] = s[i];
	}
	r[n] = '\0';
	p->pos = i + 1;
	*out = r;
	return 1;
}

/* Return a description of the token at byte "pos" of "p" for messages,
 * written in "buf" of "size" bytes: "end of line", "'word'" (a name or
 * number, cut at SYM__PARSE_MAX_QUOTE bytes), "'c'" or "byte 0x8f". */
const char *
sym__lex_describe(const struct sym__parser *p, size_t pos, char *buf,
    size_t size)
{
	const char *s = p->src + pos;
	size_t n = 0;

	if (is_eol(*s) && *s != '#') {
		snprintf(buf, size, "end of line");
		return buf;
	}
	if (*s == '#') {
		snprintf(buf, size, "a comment");
		return buf;
	}
	if (*s == '-' && s[1] >= '0' && s[1] <= '9')
		n = 1;
	if (sym__lex_is_name_char(s[n])) {
		while (sym__lex_is_name_char(s[n]) || s[n] == '.')
			n++;
		if (n > SYM__PARSE_MAX_QUOTE)
			snprintf(buf, size, "'%.*s...'", SYM__PARSE_MAX_QUOTE,
			    s);
		else
			snprintf(buf, size, "'%.*s'", (int)n, s);
	} else if (*s == '-' && s[1] == '>') {
		snprintf(buf, size, "'->'");
	} else if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) {
		snprintf(buf, size, "'%c'", *s);
	} else {
		snprintf(buf, size, "byte 0x%02x", (unsigned)(unsigned char)*s);
	}
	return buf;
}

/* Find the extent of the expression that comes next in "p" (after
 * blanks): it ends before the first byte of "stop" outside parentheses,
 * the first byte of "hard" anywhere, or the end of the line. Store its
 * first byte in "*start" and the byte after its last non-blank one in
 * "*end"; leave "p" at the byte that stopped it. Return 0, or -1 with a
 * diagnostic when parentheses nest more than SYM__PARSE_MAX_NESTING
 * deep. */
int
sym__lex_extent(struct sym__parser *p, const char *stop, const char *hard,
    size_t *start, size_t *end)
{
	const char *s = p->src;
	size_t i, e;
	int depth = 0;

	sym__lex_peek(p);
	*start = p->pos;
	for (i = p->pos; !is_eol(s[i]); i++) {
		if ((depth == 0 && strchr(stop, s[i])) || strchr(hard, s[i]))
			break;
		if (s[i] == '(' && ++depth > SYM__PARSE_MAX_NESTING)
			return sym__lex_error(p, i, NULL,
			    "parentheses nested too deeply (more than %d "
			    "levels)",
			    SYM__PARSE_MAX_NESTING);
		if (s[i] == ')' && depth > 0)
			depth--;
	}
	e = i;
	while (e > *start &&
	    (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' ||
	        s[e - 1] == '\v' || s[e - 1] == '\f'))
		e--;
	*end = e;
	p->pos = i;
	return 0;
}

/* Return 1 when the error the expression parser left on the context of
 * "p" for the text between bytes "start" and "end" (at "loc") is an
 * unknown symbol whose declaration failed: the error is then cleared, as
 * it was reported where the symbol was declared. Else return 0. */
static int
failed_symbol(struct sym__parser *p, size_t start, size_t end, sym_loc loc)
{
	sym_loc at = sym_ctx_last_location(p->ctx);
	size_t pos, len = 0;
	char *name;
	int failed;

	if (sym_ctx_last_error(p->ctx) != SYM_EDECL || p->failed_sym.n == 0 ||
	    at.line != loc.line || at.col < loc.col)
		return 0;
	pos = start + (size_t)(at.col - loc.col);
	while (pos + len < end && sym__lex_is_name_char(p->src[pos + len]))
		len++;
	if (pos >= end || len == 0 || !sym__lex_is_name_start(p->src[pos]))
		return 0;
	name = sym__lex_strndup(p, pos, len);
	failed = name && sym__nameset_has(&p->failed_sym, name);
	free(name);
	if (failed)
		sym_ctx_clear_error(p->ctx);
	return failed;
}

/* Return the expression written in bytes "start" to "end" (excluded) of
 * the current line of "p", or NULL with a diagnostic at the offending
 * column (none when it names a symbol whose declaration failed). */
sym_expr *
sym__lex_expr(struct sym__parser *p, size_t start, size_t end)
{
	sym_loc loc = sym__lex_loc(p, start);
	char *text = sym__lex_strndup(p, start, end - start);
	sym_expr *e;

	if (!text)
		return NULL;
	e = sym_expr_parse(p->ctx, text, &loc);
	free(text);
	if (!e && !failed_symbol(p, start, end, loc))
		sym__lex_ctx_error(p, start);
	return e;
}

/* Return the optimal-string-alignment distance (edits: insert, delete,
 * substitute, swap adjacent) between the "la" bytes of "a" and the "lb"
 * of "b", or "max" + 1 when it exceeds "max"; both at most
 * MAX_SUGGEST_LEN + 2 bytes long. */
static int
distance(const char *a, size_t la, const char *b, size_t lb, int max)
{
	int row[3][MAX_SUGGEST_LEN + 4];
	int *pp = row[0], *prev = row[1], *cur = row[2], *t;

	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int best = cur[0] = (int)i;

		for (size_t j = 1; j <= lb; j++) {
			int c = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < c)
				c = prev[j] + 1;
			if (cur[j - 1] + 1 < c)
				c = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < c)
				c = pp[j - 2] + 1;
			cur[j] = c;
			if (c < best)
				best = c;
		}
		if (best > max)
			return max + 1;
		t = pp;
		pp = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] > max ? max + 1 : prev[lb];
}

/* Start looking for the closest match of the "len" bytes of "name" (not
 * necessarily terminated) in "s". */
void
sym__suggest_init(struct sym__suggest *s, const char *name, size_t len)
{
	s->name = name;
	s->len = len;
	s->best = NULL;
	s->best_dist = (int)((len + 2) / 3);
	if (s->best_dist > 2)
		s->best_dist = 2;
	s->best_dist++;
	s->hint[0] = '\0';
}

/* Consider "candidate" as a match of the name of "s": it is kept when it
 * is within the allowed distance and closer than the best so far. */
void
sym__suggest_try(struct sym__suggest *s, const char *candidate)
{
	size_t lc;
	int d;

	if (!candidate || s->len == 0 || s->len > MAX_SUGGEST_LEN)
		return;
	lc = strlen(candidate);
	if (lc > s->len + 2 || s->len > lc + 2)
		return;
	d = distance(s->name, s->len, candidate, lc, s->best_dist - 1);
	if (d > 0 && d < s->best_dist) {
		s->best_dist = d;
		s->best = candidate;
	}
}

/* Return the hint "did you mean 'x'?" for the best match of "s", or NULL
 * when nothing was close enough. */
const char *
sym__suggest_hint(struct sym__suggest *s)
{
	if (!s->best)
		return NULL;
	snprintf(s->hint, sizeof(s->hint), "did you mean '%s'?", s->best);
	return s->hint;
}

/* Return the hash of "s" for a set of names. */
static uint64_t
name_hash(const char *s)
{
	return sym__mix64(sym__fnv1a_str(SYM__FNV_BASIS, s));
}

/* Return 1 when "name", hashed "h", is in "set". */
static int
nameset_find(const struct sym__nameset *set, const char *name, uint64_t h)
{
	for (size_t i = sym__htab_first(&set->t, h); i != SYM__HTAB_END;
	     i = sym__htab_next(&set->t, h, i))
		if (strcmp((const char *)set->t.slot[i].item, name) == 0)
			return 1;
	return 0;
}

/* Add a copy of "name" to the set of failed names "set" of "p"; 0 or
 * -1. */
int
sym__nameset_add(struct sym__parser *p, struct sym__nameset *set,
    const char *name)
{
	uint64_t h = name_hash(name);
	char *copy;

	if (nameset_find(set, name, h))
		return 0;
	copy = sym__strdup(p->ctx, name);
	if (!copy || sym__htab_add(p->ctx, &set->t, h, (uintptr_t)copy) < 0) {
		free(copy);
		p->oom = 1;
		return -1;
	}
	set->n++;
	return 0;
}

/* Return 1 when "name" is in the set of failed names "set". */
int
sym__nameset_has(const struct sym__nameset *set, const char *name)
{
	return set->n && nameset_find(set, name, name_hash(name));
}

/* Free the names of "set" and empty it. */
void
sym__nameset_clear(struct sym__nameset *set)
{
	for (size_t i = 0; i < set->t.cap; i++)
		if (set->t.slot[i].item != SYM__HTAB_EMPTY)
			free((char *)set->t.slot[i].item);
	sym__htab_clear(&set->t);
	set->n = 0;
}
