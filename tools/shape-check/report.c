/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the facts both report writers present the same way.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Return the severity of "d" once the options of "r" are applied: with
 * --strict, every warning (a run-time guard, an undecided assertion) is an
 * error. */
sym_severity
report_severity(const struct report *r, const sym_diagnostic *d)
{
	if (r->strict && d->severity == SYM_SEV_WARNING)
		return SYM_SEV_ERROR;
	return d->severity;
}

/* Count the errors and warnings of the graph of "r" into "r", with the
 * options of "r" applied. */
void
report_count(struct report *r)
{
	size_t n = sym_graph_n_diagnostics(r->g);

	r->n_errors = 0;
	r->n_warnings = 0;
	for (size_t i = 0; i < n; i++) {
		sym_severity sev =
		    report_severity(r, sym_graph_diagnostic(r->g, i));

		if (sev == SYM_SEV_ERROR)
			r->n_errors++;
		else if (sev == SYM_SEV_WARNING)
			r->n_warnings++;
	}
}

/* Return 1 when "v" is one of the outputs of "g". */
int
report_is_output(const sym_graph *g, const sym_value *v)
{
	size_t n = sym_graph_n_outputs(g);

	for (size_t i = 0; i < n; i++)
		if (sym_graph_output(g, i) == v)
			return 1;
	return 0;
}

/* Return the declared shape of input or parameter "v" when unification
 * changed it (the graph's object), else NULL. */
const sym_shape *
report_declared_if_different(const sym_value *v)
{
	const sym_shape *decl = sym_value_declared_shape(v);
	const sym_shape *now = sym_value_shape(v);

	if (sym_value_get_kind(v) == SYM_VALUE_RESULT || !decl || !now ||
	    sym_shape_is_equal(decl, now))
		return NULL;
	return decl;
}

/* Return the malloc'ed options of the declaration of "sym" (its text
 * after the name), "instance of NAME" for an instance. */
char *
report_symbol_decl(const sym_symbol *sym)
{
	const sym_symbol *origin = sym_symbol_origin(sym);
	const char *name = sym_symbol_name(sym);
	char *text, *opts;
	size_t len;

	if (origin && origin != sym) {
		const char *o = sym_symbol_name(origin);
		char *s = malloc(strlen(o) + sizeof("instance of "));

		if (s)
			strcat(strcpy(s, "instance of "), o);
		return s;
	}
	text = sym_symbol_to_str(sym);
	if (!text)
		return NULL;
	len = strlen(name);
	if (strncmp(text, name, len) == 0)
		opts = strdup(text + len + (text[len] == ' '));
	else
		opts = strdup(text);
	free(text);
	return opts;
}

/* Append "s" to the string "*buf" of length "*len"; 0, or -1 when out of
 * memory ("*buf" is then freed and NULL). */
static int
append(char **buf, size_t *len, const char *s)
{
	size_t n = strlen(s);
	char *b = realloc(*buf, *len + n + 1);

	if (!b) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	memcpy(b + *len, s, n + 1);
	*buf = b;
	*len += n;
	return 0;
}

/* Return the malloc'ed list of the first admissible values of "sym": up
 * to three, then "..." and, when the symbol is bounded, its greatest
 * value. */
char *
report_symbol_values(const sym_symbol *sym)
{
	sym_symbol_info info;
	int64_t v = sym_symbol_least(sym), last = sym_symbol_greatest(sym);
	char *buf = NULL, num[32];
	size_t len = 0;
	int n = 0;

	sym_symbol_get_info(sym, &info);
	if (append(&buf, &len, "") < 0)
		return NULL;
	while (n < 3 && v >= 1 && sym_symbol_admits(sym, v)) {
		snprintf(num, sizeof(num), "%s%" PRId64, n ? ", " : "", v);
		if (append(&buf, &len, num) < 0)
			return NULL;
		n++;
		if ((last && v >= last) || v > INT64_MAX - info.divisor)
			return buf;
		v += info.divisor;
	}
	if (n == 0)
		return append(&buf, &len, "no admissible value") < 0 ? NULL
		                                                     : buf;
	if (!last)
		return append(&buf, &len, ", ...") < 0 ? NULL : buf;
	snprintf(num, sizeof(num), "%s%" PRId64, v < last ? ", ..., " : ", ",
	    last);
	return append(&buf, &len, num) < 0 ? NULL : buf;
}

/* Return a malloc'ed string formatted from "fmt" and its arguments, or
 * NULL when out of memory. Formatted once into a buffer on the stack,
 * again only when it does not fit. */
char *
report_format(const char *fmt, ...)
{
	va_list ap;
	char buf[256], *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	if ((size_t)n < sizeof(buf)) {
		memcpy(s, buf, (size_t)n + 1);
		return s;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* Append the text formatted from "fmt" and its arguments to "b"; a
 * failed allocation marks "b" out of memory. Formatted once into the room
 * left in "b", again only when it does not fit. */
void
strbuf_add(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room = b->cap - b->len;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if ((size_t)n >= room) {
		size_t cap = 2 * (b->len + (size_t)n + 1) + 64;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* Return the malloc'ed text of "b", "" when nothing was added, and reset
 * "b"; NULL when "b" ran out of memory. */
char *
strbuf_take(struct strbuf *b)
{
	char *s = b->s;

	if (b->oom) {
		free(s);
		s = NULL;
	} else if (!s) {
		s = strdup("");
	}
	memset(b, 0, sizeof(*b));
	return s;
}
