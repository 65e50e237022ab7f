/* SPDX-License-Identifier: MIT */
/*
 * Error state kept on the context, and static error texts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ctx_private.h"

/* Return the static description of error "code". */
const char *
sym_strerror(sym_error code)
{
#define SYM__ERROR_TEXT(name, text) [SYM_##name] = text,
	static const char *const text[] = { SYM_ERROR_MAP(SYM__ERROR_TEXT) };
#undef SYM__ERROR_TEXT

	if ((unsigned)code >= sizeof(text) / sizeof(text[0]))
		return "unknown error code";
	return text[code];
}

/* Return the static name of the constant of error "code", "SYM_EINVAL",
 * or "unknown" for a value that is no error code. */
const char *
sym_error_name(sym_error code)
{
#define SYM__ERROR_NAME(name, text) [SYM_##name] = "SYM_" #name,
	static const char *const name[] = { SYM_ERROR_MAP(SYM__ERROR_NAME) };
#undef SYM__ERROR_NAME

	if ((unsigned)code >= sizeof(name) / sizeof(name[0]))
		return "unknown";
	return name[code];
}

/* Return 0 when "size", the first field of an options structure of
 * "max" bytes, is a size this library knows (at least the field itself,
 * at most the structure); else -1 with SYM_EINVAL on "ctx": "who: what
 * of an unknown size", naming the initialiser "init" to use. */
int
sym__options_size(sym_ctx *ctx, size_t size, size_t max, const char *who,
    const char *what, const char *init)
{
	if (size >= sizeof(size_t) && size <= max)
		return 0;
	sym__error(ctx, SYM_EINVAL, NULL,
	    "%s: %s of an unknown size %zu (initialize %s with %s)", who, what,
	    size, strncmp(what, "an ", 3) ? "them" : "it", init);
	return -1;
}

/* Return the name of "answer": "true", "false", "unknown" or "error". */
const char *
sym_answer_name(sym_answer answer)
{
	switch (answer) {
	case SYM_TRUE:
		return "true";
	case SYM_FALSE:
		return "false";
	case SYM_UNKNOWN:
		return "unknown";
	case SYM_ERROR:
		break;
	}
	return "error";
}

/* Return a newly malloc'ed string formatted from "fmt" and "ap", or
 * NULL. */
char *
sym__vasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	char *s;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

/* Return a newly malloc'ed string formatted from "fmt", or NULL. */
char *
sym__asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = sym__vasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* Return a newly malloc'ed string formatted from "fmt", or NULL with
 * SYM_ENOMEM on "ctx". */
char *
sym__asprintf_ctx(sym_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = sym__vasprintf(fmt, ap);
	va_end(ap);
	if (!s)
		sym__oom(ctx);
	return s;
}

/* Record error "code" with a message from "fmt"/"ap" and the location
 * "where" (may be NULL) on "ctx"; return "code". */
sym_error
sym__verror(sym_ctx *ctx, sym_error code, const sym_loc *where, const char *fmt,
    va_list ap)
{
	char *msg;

	if (!ctx)
		return code;
	msg = sym__vasprintf(fmt, ap);
	free(ctx->msg);
	ctx->msg = msg;
	ctx->err = code;
	ctx->n_oom += code == SYM_ENOMEM;
	free(ctx->loc_file);
	ctx->loc_file = NULL;
	ctx->loc.file = NULL;
	ctx->loc.line = 0;
	ctx->loc.col = 0;
	if (where) {
		ctx->loc = *where;
		if (where->file)
			ctx->loc_file = strdup(where->file);
		ctx->loc.file = ctx->loc_file;
	}
	return code;
}

/* printf-style front end of sym__verror. */
sym_error
sym__error(sym_ctx *ctx, sym_error code, const sym_loc *where, const char *fmt,
    ...)
{
	va_list ap;

	va_start(ap, fmt);
	sym__verror(ctx, code, where, fmt, ap);
	va_end(ap);
	return code;
}

/* Record an out-of-memory error on "ctx". */
void
sym__oom(sym_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->msg);
	ctx->msg = NULL;
	ctx->err = SYM_ENOMEM;
	ctx->n_oom++;
}

/* Record on "ctx" an out-of-memory error saying that "n" elements of
 * "size" bytes (their product, or that it overflows) could not be
 * allocated for "what". */
void
sym__oom_bytes(sym_ctx *ctx, size_t n, size_t size, const char *what)
{
	if (size && n > SIZE_MAX / size)
		sym__error(ctx, SYM_ENOMEM, NULL,
		    "out of memory: %zu times %zu bytes for %s overflow the "
		    "address space",
		    n, size, what);
	else
		sym__error(ctx, SYM_ENOMEM, NULL,
		    "out of memory: cannot allocate %zu bytes for %s", n * size,
		    what);
}

/* Return the code of the last error recorded on "ctx". */
sym_error
sym_ctx_last_error(const sym_ctx *ctx)
{
	return ctx ? ctx->err : SYM_EINVAL;
}

/* Return the message of the last error on "ctx" (never NULL). */
const char *
sym_ctx_last_message(const sym_ctx *ctx)
{
	if (!ctx)
		return "no context";
	if (ctx->msg)
		return ctx->msg;
	return sym_strerror(ctx->err);
}

/* Return the input location of the last error on "ctx"; its file is NULL
 * and its line 0 when the error has no location. */
sym_loc
sym_ctx_last_location(const sym_ctx *ctx)
{
	sym_loc none = { NULL, 0, 0 };

	return ctx ? ctx->loc : none;
}

/* Forget the last error recorded on "ctx". */
void
sym_ctx_clear_error(sym_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->msg);
	ctx->msg = NULL;
	free(ctx->loc_file);
	ctx->loc_file = NULL;
	ctx->loc.file = NULL;
	ctx->loc.line = 0;
	ctx->loc.col = 0;
	ctx->err = SYM_OK;
}

/* Return the time of the monotonic clock in seconds. */
double
sym__seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
