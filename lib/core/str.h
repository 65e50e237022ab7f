/* SPDX-License-Identifier: MIT */
/*
 * The growing string every text the library builds is written into.
 */
#ifndef SYM_CORE_STR_H
#define SYM_CORE_STR_H

#include <stdarg.h>
#include <stddef.h>

#include <symshard/ctx.h>

/* A growing NUL-terminated string, empty when zeroed (SYM__STR_INIT).
 * Once an append fails (out of memory, or a NULL string appended),
 * "failed" is set and every later append does nothing: the builder's
 * user checks once, at sym__str_take. */
struct sym__str {
	char *s;
	size_t len, cap;
	int failed;
};

#define SYM__STR_INIT         \
	{                     \
		NULL, 0, 0, 0 \
	}

void sym__str_add(struct sym__str *b, const char *s, size_t n);
void sym__str_puts(struct sym__str *b, const char *s);
void sym__str_putc(struct sym__str *b, char c, size_t n);
void sym__str_printf(struct sym__str *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sym__str_vprintf(struct sym__str *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
char *sym__str_take(struct sym__str *b, sym_ctx *ctx);
void sym__str_clear(struct sym__str *b);

#endif
