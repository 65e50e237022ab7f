/* SPDX-License-Identifier: MIT */
/*
 * The JSON header of a safetensors file, read as a stream: an object of
 * tensor name -> {"dtype", "shape", "data_offsets"} and an optional
 * "__metadata__" object of strings. Nothing but what is kept is stored:
 * the names in one arena, each tensor in a small record, the sizes in one
 * pool, so memory follows the tensors and not the text. Syntax errors
 * (with the byte of the header) come first, then a key given twice, then
 * the metadata, then the first tensor in error, as a whole parse would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/checkpoint_private.h"

/* Bytes read from the file at a time. */
#define CHUNK 65536

/* The state of a header being read: the file, the bytes of the header
 * left and consumed, the buffer, the string last decoded, the first
 * syntax, metadata and tensor errors and the best duplicate key found
 * (its byte and name), the nesting depth and what is kept. */
struct scan {
	sym_ctx *ctx;
	FILE *f;
	uint64_t left, at;
	unsigned char buf[CHUNK];
	size_t b_at, b_n;
	char *s;
	size_t n_s, cap_s;
	char *syntax, *meta_err, *entry_err, *dup;
	uint64_t dup_at;
	unsigned depth;
	int n_meta_objects;
	struct sym__st_header *h;
};

/* Return the next byte of the header of "sc" without consuming it, or
 * -1 at its end (or when the file ends early). */
static int
peek(struct scan *sc)
{
	if (sc->b_at == sc->b_n) {
		size_t want = sc->left < CHUNK ? (size_t)sc->left : CHUNK;

		sc->b_at = 0;
		sc->b_n = want ? fread(sc->buf, 1, want, sc->f) : 0;
		sc->left -= sc->b_n;
		if (!sc->b_n)
			return -1;
	}
	return sc->buf[sc->b_at];
}

/* Consume and return the next byte of "sc", -1 at its end. */
static int
next(struct scan *sc)
{
	int c = peek(sc);

	if (c >= 0) {
		sc->b_at++;
		sc->at++;
	}
	return c;
}

/* Record the syntax error "fmt" of "sc" at its current byte unless one
 * is recorded; return -1. */
static int __attribute__((format(printf, 2, 3)))
syntax(struct scan *sc, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (sc->syntax)
		return -1;
	va_start(ap, fmt);
	msg = sym__vasprintf(fmt, ap);
	va_end(ap);
	sc->syntax = sym__asprintf("not a safetensors file: its header is "
	                           "not JSON (%s, at byte %llu of the header)",
	    msg ? msg : "?", (unsigned long long)sc->at);
	free(msg);
	if (!sc->syntax)
		sym__oom(sc->ctx);
	return -1;
}

/* Record in "*slot" the message "fmt" unless one is there. */
static void __attribute__((format(printf, 2, 3)))
defer(char **slot, const char *fmt, ...)
{
	va_list ap;

	if (*slot)
		return;
	va_start(ap, fmt);
	*slot = sym__vasprintf(fmt, ap);
	va_end(ap);
}

/* Skip whitespace in "sc". */
static void
skip_ws(struct scan *sc)
{
	int c;

	while ((c = peek(sc)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		next(sc);
}

/* Consume "c" from "sc" after whitespace; 0, or -1 with a syntax error
 * naming "what". */
static int
expect(struct scan *sc, int c, const char *what)
{
	skip_ws(sc);
	if (peek(sc) != c)
		return syntax(sc, "%s expected", what);
	next(sc);
	return 0;
}

/* Append the byte "c" to the string of "sc"; 0 or -1. */
static int
put(struct scan *sc, int c)
{
	if (SYM__RESERVE(sc->ctx, sc->s, sc->cap_s, sc->n_s + 2) < 0)
		return -1;
	sc->s[sc->n_s++] = (char)c;
	sc->s[sc->n_s] = '\0';
	return 0;
}

/* Read 4 hexadecimal digits of "sc" into "*u"; 0 or -1. */
static int
hex4(struct scan *sc, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		int c = next(sc),
		    d = c >= '0' && c <= '9' ? c - '0'
		    : c >= 'a' && c <= 'f'   ? c - 'a' + 10
		    : c >= 'A' && c <= 'F'   ? c - 'A' + 10
		                             : -1;

		if (d < 0)
			return syntax(sc, "invalid \\u escape");
		*u = *u << 4 | (unsigned)d;
	}
	return 0;
}

/* Append the code point "u" to the string of "sc" in UTF-8; 0 or -1. */
static int
put_utf8(struct scan *sc, unsigned u)
{
	if (u < 0x80)
		return put(sc, (int)u);
	if (u < 0x800)
		return put(sc, 0xc0 | (int)(u >> 6)) ||
		    put(sc, 0x80 | (int)(u & 0x3f));
	if (u < 0x10000)
		return put(sc, 0xe0 | (int)(u >> 12)) ||
		    put(sc, 0x80 | (int)(u >> 6 & 0x3f)) ||
		    put(sc, 0x80 | (int)(u & 0x3f));
	return put(sc, 0xf0 | (int)(u >> 18)) ||
	    put(sc, 0x80 | (int)(u >> 12 & 0x3f)) ||
	    put(sc, 0x80 | (int)(u >> 6 & 0x3f)) ||
	    put(sc, 0x80 | (int)(u & 0x3f));
}

/* Read the escape after a backslash of "sc" into its string; 0 or -1. */
static int
escape(struct scan *sc)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	int c = next(sc);
	const char *p = c > 0 ? strchr(from, c) : NULL;
	unsigned u, lo;

	if (p && *p)
		return put(sc, to[p - from]);
	if (c != 'u')
		return syntax(sc, "invalid escape");
	if (hex4(sc, &u) < 0)
		return -1;
	if (u >= 0xdc00 && u <= 0xdfff)
		return syntax(sc, "a lone low surrogate \\u%04X", u);
	if (u >= 0xd800 && u <= 0xdbff) {
		if (next(sc) != '\\' || next(sc) != 'u' || hex4(sc, &lo) < 0 ||
		    lo < 0xdc00 || lo > 0xdfff)
			return syntax(sc,
			    "a high surrogate \\u%04X without "
			    "its low one",
			    u);
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!u)
		return syntax(sc, "\\u0000 in a string");
	return put_utf8(sc, u);
}

/* Read the continuation bytes of a UTF-8 sequence of "sc" that began
 * with "c" into its string; 0, or -1 when it is not valid UTF-8. */
static int
utf8_rest(struct scan *sc, int c)
{
	int n = c >= 0xc2 && c <= 0xdf ? 1
	    : c >= 0xe0 && c <= 0xef   ? 2
	    : c >= 0xf0 && c <= 0xf4   ? 3
	                               : 0;
	int lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	int hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;

	if (!n)
		return syntax(sc, "invalid UTF-8 byte 0x%02x", c);
	if (put(sc, c) < 0)
		return -1;
	for (int i = 0; i < n; i++, lo = 0x80, hi = 0xbf) {
		int d = next(sc);

		if (d < lo || d > hi)
			return syntax(sc, "invalid UTF-8 sequence");
		if (put(sc, d) < 0)
			return -1;
	}
	return 0;
}

/* Read a JSON string of "sc" (its opening quote next) into its string;
 * 0, or -1 with an error. */
static int
string(struct scan *sc)
{
	int c;

	sc->n_s = 0;
	if (put(sc, 0) < 0)
		return -1;
	sc->n_s = 0;
	if (next(sc) != '"')
		return syntax(sc, "a string expected");
	while ((c = next(sc)) != '"') {
		int r = c < 0   ? syntax(sc, "the header ends in a string")
		    : c < 0x20  ? syntax(sc,
		                      "control character 0x%02x in a "
		                       "string",
		                      c)
		    : c == '\\' ? escape(sc)
		    : c < 0x80  ? put(sc, c)
		                : utf8_rest(sc, c);

		if (r < 0)
			return -1;
	}
	return 0;
}

/* A number read: an integer that fits in 64 bits, or something else. */
struct num {
	int integer;
	int64_t v;
};

/* Read a JSON number of "sc" into "*n"; 0, or -1 with an error. An
 * integer beyond 64 bits is an error naming the limit. */
static int
number(struct scan *sc, struct num *n)
{
	int neg = peek(sc) == '-', digits = 0, over = 0;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;

	if (neg)
		next(sc);
	if (peek(sc) == '0') {
		next(sc);
		digits = 1;
	} else {
		for (; peek(sc) >= '0' && peek(sc) <= '9'; digits++) {
			unsigned d = (unsigned)(next(sc) - '0');

			over |= v > (lim - d) / 10;
			v = v * 10 + d;
		}
	}
	if (!digits)
		return syntax(sc, "a digit expected");
	n->integer = 1;
	if (peek(sc) == '.') {
		next(sc);
		n->integer = 0;
		if (peek(sc) < '0' || peek(sc) > '9')
			return syntax(sc, "a digit expected");
		while (peek(sc) >= '0' && peek(sc) <= '9')
			next(sc);
	}
	if (peek(sc) == 'e' || peek(sc) == 'E') {
		next(sc);
		n->integer = 0;
		if (peek(sc) == '+' || peek(sc) == '-')
			next(sc);
		if (peek(sc) < '0' || peek(sc) > '9')
			return syntax(sc, "a digit expected");
		while (peek(sc) >= '0' && peek(sc) <= '9')
			next(sc);
	}
	if (n->integer && over)
		return syntax(sc, "an integer beyond the 64-bit limit, %s%llu",
		    neg ? "-" : "", (unsigned long long)lim);
	n->v = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int value(struct scan *sc, struct num *n);

/* Read the items of an array or the members of an object of "sc" (its
 * bracket next) as values that are not kept; 0, or -1. */
static int
container(struct scan *sc)
{
	int close = next(sc) == '[' ? ']' : '}';
	struct num n;

	if (++sc->depth > SYM__CKPT_MAX_DEPTH)
		return syntax(sc, "nesting deeper than the limit, %d levels",
		    SYM__CKPT_MAX_DEPTH);
	skip_ws(sc);
	if (peek(sc) == close) {
		next(sc);
		sc->depth--;
		return 0;
	}
	for (;;) {
		skip_ws(sc);
		if (close == '}' &&
		    (string(sc) < 0 || expect(sc, ':', "':'") < 0))
			return -1;
		if (value(sc, &n) < 0)
			return -1;
		skip_ws(sc);
		if (peek(sc) == close)
			break;
		if (expect(sc, ',',
		        close == ']' ? "',' or ']'" : "',' or '}'") < 0)
			return -1;
	}
	next(sc);
	sc->depth--;
	return 0;
}

/* Read any JSON value of "sc", not kept; when it is a number, "*n" is
 * set, else n->integer is 0. Return 0 or -1. */
static int
value(struct scan *sc, struct num *n)
{
	static const char *const lit[3] = { "true", "false", "null" };
	int c;

	skip_ws(sc);
	c = peek(sc);
	n->integer = 0;
	if (c == '"')
		return string(sc);
	if (c == '[' || c == '{')
		return container(sc);
	if (c == '-' || (c >= '0' && c <= '9'))
		return number(sc, n);
	for (int i = 0; i < 3; i++)
		if (c == lit[i][0]) {
			for (const char *p = lit[i]; *p; p++)
				if (next(sc) != *p)
					return syntax(sc, "invalid literal");
			return 0;
		}
	return syntax(sc,
	    c < 0 ? "the header ends before a value" : "a value expected");
}

/* Remember that the key of "sc"'s string, found at byte "at", is the
 * second of its object when it comes before the one known. */
static void
duplicate(struct scan *sc, const char *key, uint64_t at)
{
	if (sc->dup && sc->dup_at <= at)
		return;
	free(sc->dup);
	sc->dup = sym__asprintf("%s", key);
	sc->dup_at = at;
}

/* Append the string of "sc" to the names of its header; return its
 * offset there, or UINT64_MAX. */
static uint64_t
keep_string(struct scan *sc)
{
	struct sym__st_header *h = sc->h;
	uint64_t at = h->n_names;

	if (SYM__RESERVE(sc->ctx, h->names, h->cap_names,
	        h->n_names + sc->n_s + 1) < 0)
		return UINT64_MAX;
	memcpy(h->names + h->n_names, sc->s, sc->n_s + 1);
	h->n_names += sc->n_s + 1;
	return at;
}

/* Read the "__metadata__" object of "sc"; 0, or -1. */
static int
metadata(struct scan *sc)
{
	struct sym__st_header *h = sc->h;
	struct num n;

	skip_ws(sc);
	if (peek(sc) != '{') {
		defer(&sc->meta_err, "%s is not an object of strings",
		    SYM__CKPT_METADATA);
		return value(sc, &n);
	}
	next(sc);
	skip_ws(sc);
	if (peek(sc) == '}')
		return next(sc) < 0 ? -1 : 0;
	for (;;) {
		struct sym__st_meta m;

		skip_ws(sc);
		m.at = sc->at;
		if (string(sc) < 0 || expect(sc, ':', "':'") < 0)
			return -1;
		skip_ws(sc);
		if (!sc->n_s || peek(sc) != '"') {
			defer(&sc->meta_err,
			    "%s: the key '%s' is empty or its value not a "
			    "string",
			    SYM__CKPT_METADATA, sc->s);
			if (value(sc, &n) < 0)
				return -1;
		} else if ((m.key = keep_string(sc)) == UINT64_MAX ||
		    string(sc) < 0 ||
		    (m.value = keep_string(sc)) == UINT64_MAX ||
		    SYM__RESERVE(sc->ctx, h->meta, h->cap_meta, h->n_meta + 1) <
		        0) {
			return -1;
		} else {
			h->meta[h->n_meta++] = m;
		}
		skip_ws(sc);
		if (peek(sc) == '}')
			return next(sc) < 0 ? -1 : 0;
		if (expect(sc, ',', "',' or '}'") < 0)
			return -1;
	}
}

/* What a tensor's object told: whether it had a dtype string, whether
 * its shape was a list, its size count and whether one was not a
 * count, whether its data offsets were two counts. */
struct parts {
	int has_dtype, shape_list, shape_bad, offsets_ok;
	size_t ndim;
	int64_t dim[SYM__CKPT_MAX_NDIM];
	int64_t off[2];
};

/* Read a list of "sc" whose items are counts (non-negative integers)
 * into "dim" (at most "max" kept), their number in "*count"; "*bad" set
 * when an item is not a count or the value not a list. 0 or -1. */
static int
counts(struct scan *sc, int64_t *dim, size_t max, size_t *count, int *bad)
{
	struct num n;

	*count = 0;
	skip_ws(sc);
	if (peek(sc) != '[') {
		*bad = 2;
		return value(sc, &n);
	}
	next(sc);
	skip_ws(sc);
	if (peek(sc) == ']')
		return next(sc) < 0 ? -1 : 0;
	for (;;) {
		if (value(sc, &n) < 0)
			return -1;
		if (!n.integer || n.v < 0)
			*bad = 1;
		else if (*count < max)
			dim[*count] = n.v;
		++*count;
		skip_ws(sc);
		if (peek(sc) == ']')
			return next(sc) < 0 ? -1 : 0;
		if (expect(sc, ',', "',' or ']'") < 0)
			return -1;
	}
}

/* Read the members of a tensor's object of "sc" (its brace next) into
 * "p", its dtype name into "dt" ("n_dt" bytes); 0 or -1. */
static int
members(struct scan *sc, struct parts *p, char *dt, size_t n_dt)
{
	int seen[3] = { 0, 0, 0 };
	struct num n;

	next(sc);
	skip_ws(sc);
	if (peek(sc) == '}')
		return next(sc) < 0 ? -1 : 0;
	for (;;) {
		static const char *const known[3] = { "dtype", "shape",
			"data_offsets" };
		int k = 3;
		uint64_t at;
		size_t cnt;
		int bad = 0;

		skip_ws(sc);
		at = sc->at;
		if (string(sc) < 0 || expect(sc, ':', "':'") < 0)
			return -1;
		while (k > 0 && strcmp(sc->s, known[k - 1]))
			k--;
		if (k && seen[k - 1]++)
			duplicate(sc, known[k - 1], at);
		skip_ws(sc);
		if (k == 1 && peek(sc) == '"') {
			if (string(sc) < 0)
				return -1;
			p->has_dtype = 1;
			snprintf(dt, n_dt, "%s", sc->s);
		} else if (k == 2) {
			if (counts(sc, p->dim, SYM__CKPT_MAX_NDIM, &p->ndim,
			        &bad) < 0)
				return -1;
			p->shape_list = bad != 2;
			p->shape_bad = bad;
		} else if (k == 3) {
			if (counts(sc, p->off, 2, &cnt, &bad) < 0)
				return -1;
			p->offsets_ok =
			    !bad && cnt == 2 && p->off[0] <= p->off[1];
		} else if (value(sc, &n) < 0) {
			return -1;
		}
		skip_ws(sc);
		if (peek(sc) == '}')
			return next(sc) < 0 ? -1 : 0;
		if (expect(sc, ',', "',' or '}'") < 0)
			return -1;
	}
}

/* Store in "*bytes" the byte count of a tensor of "dt" and the "ndim"
 * sizes "dim"; 0, or -1 when it does not fit in 64 bits. */
static int
shape_bytes(sym_dtype dt, size_t ndim, const int64_t *dim, uint64_t *bytes)
{
	uint64_t n = sym_dtype_size(dt);

	for (size_t i = 0; i < ndim; i++) {
		if (dim[i] && n > (uint64_t)INT64_MAX / (uint64_t)dim[i])
			return -1;
		n *= (uint64_t)dim[i];
	}
	*bytes = n;
	return 0;
}

/* Return the message for the tensor "name" of "dt" and the "ndim" sizes
 * "dim" whose data offsets [b, e] do not hold its "want" bytes. */
static char *
size_error(const char *name, sym_dtype dt, size_t ndim, const int64_t *dim,
    uint64_t b, uint64_t e, uint64_t want)
{
	char shape[SYM__CKPT_MAX_NDIM * 22];
	size_t at = 0;

	shape[0] = '\0';
	for (size_t i = 0; i < ndim && at < sizeof(shape); i++)
		at += (size_t)snprintf(shape + at, sizeof(shape) - at, "%s%lld",
		    i ? ", " : "", (long long)dim[i]);
	return sym__asprintf("tensor '%s': its data_offsets [%llu, %llu] hold "
	                     "%llu bytes, but %s [%s] takes %llu",
	    name, (unsigned long long)b, (unsigned long long)e,
	    (unsigned long long)(e - b), sym__ckpt_dtype_name(dt), shape,
	    (unsigned long long)want);
}

/* Return the error of the tensor "name" whose object told "p" (its dtype
 * name "dt") as "e" holds it, NULL when it is valid. */
static char *
check_parts(const char *name, const struct parts *p, const char *dt,
    struct sym__st_entry *e)
{
	uint64_t want = 0;

	if (!p->has_dtype)
		return sym__asprintf("tensor '%s' has no dtype string", name);
	if (e->dtype == SYM_DT_INVALID)
		return sym__asprintf("tensor '%s': unknown dtype '%s' "
		                     "(symshard reads F16, BF16, F32, F64, I8, "
		                     "I16, I32, I64, U8 and BOOL)",
		    name, dt);
	if (!p->shape_list)
		return sym__asprintf("tensor '%s': its shape is not a list of "
		                     "non-negative integers",
		    name);
	if (p->ndim > SYM__CKPT_MAX_NDIM)
		return sym__asprintf("tensor '%s' has %zu dimensions, more "
		                     "than %d",
		    name, p->ndim, SYM__CKPT_MAX_NDIM);
	if (p->shape_bad)
		return sym__asprintf("tensor '%s': its shape is not a list of "
		                     "non-negative integers",
		    name);
	if (!p->offsets_ok)
		return sym__asprintf(
		    "tensor '%s': its data_offsets are not two "
		    "integers [BEGIN, END] with 0 <= BEGIN <= "
		    "END",
		    name);
	if (shape_bytes(e->dtype, p->ndim, p->dim, &want) < 0)
		return sym__asprintf("tensor '%s': its shape has more bytes "
		                     "than 64 bits count",
		    name);
	if (e->end - e->begin == want)
		return NULL;
	return size_error(name, e->dtype, p->ndim, p->dim, e->begin, e->end,
	    want);
}

/* Read the value of the tensor whose name is the string of "sc" (its
 * key found at byte "at") and keep it; 0 or -1. */
static int
tensor(struct scan *sc, uint64_t at)
{
	struct sym__st_header *h = sc->h;
	struct parts p;
	struct sym__st_entry e;
	char dt[32], *name;
	struct num n;

	memset(&p, 0, sizeof(p));
	memset(&e, 0, sizeof(e));
	e.at = at;
	if (sc->entry_err) /* only the syntax matters now */
		return value(sc, &n);
	if ((e.name = keep_string(sc)) == UINT64_MAX)
		return -1;
	name = h->names + e.name;
	skip_ws(sc);
	if (!*name) {
		defer(&sc->entry_err,
		    "a tensor of the header has an empty name");
		return value(sc, &n);
	}
	if (peek(sc) != '{') {
		defer(&sc->entry_err,
		    "tensor '%s' is not an object with a dtype, a shape and "
		    "data_offsets",
		    name);
		return value(sc, &n);
	}
	dt[0] = '\0';
	if (members(sc, &p, dt, sizeof(dt)) < 0)
		return -1;
	name = h->names + e.name;
	e.dtype = p.has_dtype ? sym__ckpt_dtype_from_name(dt) : SYM_DT_INVALID;
	e.begin = (uint64_t)p.off[0];
	e.end = (uint64_t)p.off[1];
	e.ndim = (uint8_t)(p.ndim < SYM__CKPT_MAX_NDIM ? p.ndim
	                                               : SYM__CKPT_MAX_NDIM);
	sc->entry_err = check_parts(name, &p, dt, &e);
	if (sc->entry_err)
		return 0;
	e.dim = h->n_dims;
	if (SYM__RESERVE(sc->ctx, h->dims, h->cap_dims, h->n_dims + e.ndim) <
	        0 ||
	    SYM__RESERVE(sc->ctx, h->e, h->cap, h->n + 1) < 0)
		return -1;
	memcpy(h->dims + h->n_dims, p.dim, e.ndim * sizeof(*p.dim));
	h->n_dims += e.ndim;
	h->e[h->n++] = e;
	return 0;
}

/* Read the top object of the header of "sc"; 0 or -1. */
static int
top(struct scan *sc)
{
	int c;

	skip_ws(sc);
	c = peek(sc);
	if (c != '{') {
		if (c >= 0 && strchr("[\"-0123456789tfn", c))
			defer(&sc->syntax,
			    "not a safetensors file: its header "
			    "is not a JSON object");
		return syntax(sc, "an object expected");
	}
	next(sc);
	skip_ws(sc);
	if (peek(sc) == '}') {
		next(sc);
	} else {
		for (;;) {
			uint64_t at;

			skip_ws(sc);
			at = sc->at;
			if (string(sc) < 0 || expect(sc, ':', "':'") < 0)
				return -1;
			if (!strcmp(sc->s, SYM__CKPT_METADATA) &&
			    sc->n_meta_objects++)
				duplicate(sc, SYM__CKPT_METADATA, at);
			if (!strcmp(sc->s, SYM__CKPT_METADATA)
			        ? metadata(sc) < 0
			        : tensor(sc, at) < 0)
				return -1;
			skip_ws(sc);
			if (peek(sc) == '}')
				break;
			if (expect(sc, ',', "',' or '}'") < 0)
				return -1;
		}
		next(sc);
	}
	skip_ws(sc);
	if (peek(sc) >= 0)
		return syntax(sc, "the end of the header expected");
	if (sc->left)
		return syntax(sc, "the file shrank");
	return 0;
}

/* A key and the byte of the header where it starts. */
struct key {
	const char *name;
	uint64_t at;
};

/* Order two keys by name, then by their place in the header. */
static int
by_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->at < y->at ? -1 : x->at > y->at;
}

/* Sort the "n" keys "k" of "sc" and note every one given twice. */
static void
note_twice(struct scan *sc, struct key *k, size_t n)
{
	qsort(k, n, sizeof(*k), by_key);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(k[i].name, k[i - 1].name))
			duplicate(sc, k[i].name, k[i].at);
}

/* Find the tensor names and the metadata keys of "sc" given twice: the
 * second one met first in the header is its duplicate. 0 or -1. */
static int
find_duplicates(struct scan *sc)
{
	struct sym__st_header *h = sc->h;
	size_t n = h->n > h->n_meta ? h->n : h->n_meta;
	struct key *k = sym__realloc_array(sc->ctx, NULL, n + 1, sizeof(*k));

	if (!k)
		return -1;
	for (size_t i = 0; i < h->n; i++)
		k[i] = (struct key){ h->names + h->e[i].name, h->e[i].at };
	note_twice(sc, k, h->n);
	for (size_t i = 0; i < h->n_meta; i++)
		k[i] = (struct key){ h->names + h->meta[i].key, h->meta[i].at };
	note_twice(sc, k, h->n_meta);
	free(k);
	return 0;
}

/* Read the header of "len" bytes of the file "f" (at its start) named
 * "path" into "h" (empty); 0, or -1 with an error on "ctx" naming "path".
 * The tensors and metadata of "h" come in the order of the header. */
int
sym__st_header_read(sym_ctx *ctx, const char *path, FILE *f, uint64_t len,
    struct sym__st_header *h)
{
	struct scan *sc = sym__calloc(ctx, 1, sizeof(*sc));
	const char *msg;
	int r;

	if (!sc)
		return -1;
	sc->ctx = ctx;
	sc->f = f;
	sc->left = len;
	sc->h = h;
	r = top(sc);
	if (r == 0 && find_duplicates(sc) < 0)
		r = -1;
	msg = sc->syntax ? sc->syntax : NULL;
	if (!msg && sc->dup) {
		free(sc->entry_err);
		sc->entry_err = sym__asprintf("the header has the key '%s' "
		                              "twice",
		    sc->dup);
		msg = sc->entry_err;
	}
	if (!msg)
		msg = sc->meta_err ? sc->meta_err : sc->entry_err;
	if (msg)
		sym__error(ctx, SYM_EINVAL, NULL, "%s: %s", path, msg);
	else if (r < 0 && !sym_ctx_last_error(ctx))
		sym__oom(ctx);
	r = msg || r < 0 ? -1 : 0;
	free(sc->s);
	free(sc->syntax);
	free(sc->meta_err);
	free(sc->entry_err);
	free(sc->dup);
	free(sc);
	return r;
}

/* Free what "h" holds. */
void
sym__st_header_clear(struct sym__st_header *h)
{
	free(h->names);
	free(h->dims);
	free(h->e);
	free(h->meta);
	memset(h, 0, sizeof(*h));
}
