/*
 * Compiler-style diagnostics.
 */
#include <stdlib.h>
#include <string.h>

#include "core/ctx_private.h"
#include "core/diag.h"

/* Return the start of line "line" (from 1) of "source" and its length in
 * "*len", or NULL when "source" has fewer lines. */
static const char *
find_line(const char *source, int line, size_t *len)
{
	const char *p = source;

	for (int i = 1; i < line && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return NULL;
	*len = strcspn(p, "\r\n");
	return p;
}

/* Return a malloc'ed diagnostic for "message" of "severity" ("error",
 * "warning", "note") at "loc" (may be NULL): the location prefix, and when
 * "source" (the whole input text, may be NULL) has the line, that line
 * and a caret under the column, tabs kept so the caret lines up. */
char *
sym__diag_format(const sym_loc *loc, const char *severity, const char *message,
    const char *source)
{
	const char *text = NULL;
	size_t len = 0;
	char *prefix, *caret, *res;
	int col;

	if (loc && loc->line > 0 && loc->file)
		prefix = sym__asprintf("%s:%d:%d: %s: %s", loc->file, loc->line,
		    loc->col, severity, message);
	else if (loc && loc->line > 0)
		prefix = sym__asprintf("%d:%d: %s: %s", loc->line, loc->col,
		    severity, message);
	else
		prefix = sym__asprintf("%s: %s", severity, message);
	if (!prefix)
		return NULL;
	if (source && loc && loc->line > 0)
		text = find_line(source, loc->line, &len);
	if (!text)
		return prefix;
	col = loc->col < 1 ? 1 : loc->col;
	if ((size_t)col > len + 1)
		col = (int)len + 1;
	caret = malloc((size_t)col + 1);
	if (!caret) {
		free(prefix);
		return NULL;
	}
	for (int i = 0; i < col - 1; i++)
		caret[i] = text[i] == '\t' ? '\t' : ' ';
	caret[col - 1] = '^';
	caret[col] = '\0';
	res = sym__asprintf("%s\n%.*s\n%s", prefix, (int)len, text, caret);
	free(prefix);
	free(caret);
	return res;
}
