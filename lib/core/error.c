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
	switch (code) {
	case SYM_OK:
		return "no error";
	case SYM_ENOMEM:
		return "out of memory";
	case SYM_EINVAL:
		return "invalid argument";
	case SYM_EPARSE:
		return "syntax error";
	case SYM_EDECL:
		return "invalid declaration";
	case SYM_EOVERFLOW:
		return "64-bit overflow";
	case SYM_EDIVZERO:
		return "division by zero or by a negative number";
	case SYM_EUNBOUND:
		return "symbol has no value";
	case SYM_EDOMAIN:
		return "value outside the admissible set";
	case SYM_EUNSAT:
		return "contradictory facts";
	case SYM_ESCOPE:
		return "scope misuse";
	case SYM_EINTERNAL:
		return "internal error";
	case SYM_EISL:
		return "error in the integer set library";
	case SYM_ESHAPE:
		return "shape error";
	case SYM_ELAYOUT:
		return "invalid mesh, layout or strategy";
	case SYM_EIO:
		return "input/output error";
	}
	return "unknown error code";
}

/* Return the static name of the constant of error "code", "SYM_EINVAL",
 * or "unknown" for a value that is no error code. */
const char *
sym_error_name(sym_error code)
{
	static const char *const name[] = { "SYM_OK", "SYM_ENOMEM",
		"SYM_EINVAL", "SYM_EPARSE", "SYM_EDECL", "SYM_EOVERFLOW",
		"SYM_EDIVZERO", "SYM_EUNBOUND", "SYM_EDOMAIN", "SYM_EUNSAT",
		"SYM_ESCOPE", "SYM_EINTERNAL", "SYM_EISL", "SYM_ESHAPE",
		"SYM_ELAYOUT", "SYM_EIO" };

	if ((unsigned)code >= sizeof(name) / sizeof(name[0]))
		return "unknown";
	return name[code];
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
