/* SPDX-License-Identifier: MIT */
/*
 * The growing string: appends that cannot fail one by one (a failure is
 * remembered and reported once, when the text is taken), printf-style
 * appends formatted in place.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx_private.h"
#include "core/str.h"

/* The capacity of a string's first allocation, in bytes. */
#define STR_FIRST 64

/* Make "b" hold "n" more bytes and its NUL; return 0, or -1 with
 * b->failed set. */
static int
room(struct sym__str *b, size_t n)
{
	size_t cap;
	char *s;

	if (b->failed)
		return -1;
	if (n < b->cap - b->len && b->s)
		return 0;
	if (n > SIZE_MAX - 1 - b->len) {
		b->failed = 1;
		return -1;
	}
	cap = b->cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * b->cap;
	if (cap < STR_FIRST)
		cap = STR_FIRST;
	if (cap < b->len + n + 1)
		cap = b->len + n + 1;
	s = realloc(b->s, cap);
	if (!s) {
		b->failed = 1;
		return -1;
	}
	b->s = s;
	b->cap = cap;
	return 0;
}

/* Append the "n" bytes at "s" to "b". */
void
sym__str_add(struct sym__str *b, const char *s, size_t n)
{
	if (room(b, n) < 0)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Append the string "s" to "b"; a NULL "s" (a string that could not be
 * made) fails "b". */
void
sym__str_puts(struct sym__str *b, const char *s)
{
	if (!s)
		b->failed = 1;
	else
		sym__str_add(b, s, strlen(s));
}

/* Append "n" copies of the byte "c" to "b". */
void
sym__str_putc(struct sym__str *b, char c, size_t n)
{
	if (room(b, n) < 0)
		return;
	memset(b->s + b->len, c, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Append to "b" the text formatted from "fmt" and "ap". */
void
sym__str_vprintf(struct sym__str *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (b->failed)
		return;
	va_copy(aq, ap);
	n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0,
	    fmt, aq);
	va_end(aq);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if (!b->s || (size_t)n >= b->cap - b->len) {
		if (room(b, (size_t)n) < 0)
			return;
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

/* Append to "b" the text formatted from "fmt". */
void
sym__str_printf(struct sym__str *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sym__str_vprintf(b, fmt, ap);
	va_end(ap);
}

/* Return the malloc'ed text of "b", "" when nothing was appended, and
 * empty "b"; NULL when an append failed, with SYM_ENOMEM recorded on
 * "ctx" (when given). */
char *
sym__str_take(struct sym__str *b, sym_ctx *ctx)
{
	char *s;

	if (!b->s)
		sym__str_add(b, "", 0);
	if (b->failed) {
		sym__str_clear(b);
		if (ctx)
			sym__oom(ctx);
		return NULL;
	}
	s = b->s;
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* Free the text of "b" and empty it. */
void
sym__str_clear(struct sym__str *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->failed = 0;
}
