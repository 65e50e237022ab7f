/* SPDX-License-Identifier: MIT */
/*
 * Compiler-style diagnostics.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx_private.h"
#include "core/diag.h"
#include "core/str.h"

/* Return the number of bytes the byte "c" takes once escaped as JSON
 * escapes control bytes ("\n", "\u001b"): 1 for a byte kept, a tab too
 * when "keep_tab". Write the escape to "out" (7 bytes) when given. */
static size_t
escape(unsigned char c, int keep_tab, char *out)
{
	static const char short_esc[] = "btnvfr";
	char tmp[8];

	if (!out)
		out = tmp;
	if ((c >= 0x20 && c != 0x7f) || (c == '\t' && keep_tab)) {
		out[0] = (char)c;
		return 1;
	}
	if (c >= '\b' && c <= '\r' && c != '\v') {
		out[0] = '\\';
		out[1] = short_esc[c - '\b'];
		return 2;
	}
	snprintf(out, 8, "\\u%04x", c);
	return 6;
}

/* Append the "n" bytes of "s" to "b", control bytes escaped (tabs kept
 * when "keep_tab"). */
static void
put_escaped(struct sym__str *b, const char *s, size_t n, int keep_tab)
{
	char out[8];

	for (size_t i = 0; i < n; i++)
		sym__str_add(b, out,
		    escape((unsigned char)s[i], keep_tab, out));
}

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

/* Return whether the byte "c" continues a UTF-8 sequence. */
static int
utf8_cont(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

/* Append to "b" the line "text" of "len" bytes, clipped to at most
 * SYM__DIAG_CLIP bytes around the byte "col" (from 1) with "..." where
 * it was cut, control bytes escaped; then a line with a caret under
 * "col" (tabs kept so that it lines up). */
static void
put_line(struct sym__str *b, const char *text, size_t len, size_t col)
{
	size_t start = 0, end = len, at = col - 1;

	if (len > SYM__DIAG_CLIP) {
		start = at > SYM__DIAG_CLIP / 2 ? at - SYM__DIAG_CLIP / 2 : 0;
		end = start + SYM__DIAG_CLIP;
		if (end > len) {
			end = len;
			start = len - SYM__DIAG_CLIP;
		}
		while (start > 0 && utf8_cont(text[start]))
			start--;
		while (end < len && utf8_cont(text[end]))
			end++;
	}
	sym__str_add(b, "\n", 1);
	if (start > 0)
		sym__str_add(b, "...", 3);
	put_escaped(b, text + start, end - start, 1);
	if (end < len)
		sym__str_add(b, "...", 3);
	sym__str_add(b, "\n", 1);
	sym__str_putc(b, ' ', start > 0 ? 3 : 0);
	for (size_t i = start; i < at; i++)
		if (text[i] == '\t')
			sym__str_add(b, "\t", 1);
		else if (!utf8_cont(text[i]))
			sym__str_putc(b, ' ',
			    escape((unsigned char)text[i], 1, NULL));
	sym__str_add(b, "^", 1);
}

/* Return a malloc'ed diagnostic for "message" of "severity" ("error",
 * "warning", "note") at "loc" (may be NULL): the location prefix, and when
 * "source" (the whole input text, may be NULL) has the line, that line
 * (clipped around the column when long) and a caret under the column,
 * then the "witness" and "hint" lines when given (may be NULL). Control
 * bytes of the message, line, witness and hint are escaped as in JSON
 * ("\n", "\u001b"), so that the text is the lines it seems to be. */
char *
sym__diag_format(const sym_loc *loc, const char *severity, const char *message,
    const char *source, const char *witness, const char *hint)
{
	struct sym__str b = SYM__STR_INIT;
	const char *text = NULL;
	char *head;
	size_t len = 0, col;

	if (loc && loc->line > 0 && loc->file)
		head = sym__asprintf("%s:%d:%d: %s: ", loc->file, loc->line,
		    loc->col, severity);
	else if (loc && loc->line > 0)
		head =
		    sym__asprintf("%d:%d: %s: ", loc->line, loc->col, severity);
	else
		head = sym__asprintf("%s: ", severity);
	if (!head)
		return NULL;
	put_escaped(&b, head, strlen(head), 0);
	free(head);
	put_escaped(&b, message, strlen(message), 0);
	if (source && loc && loc->line > 0)
		text = find_line(source, loc->line, &len);
	if (text) {
		col = loc->col < 1 ? 1 : (size_t)loc->col;
		put_line(&b, text, len, col > len + 1 ? len + 1 : col);
	}
	if (witness) {
		sym__str_add(&b, "\n  witness: ", 12);
		put_escaped(&b, witness, strlen(witness), 0);
	}
	if (hint) {
		sym__str_add(&b, "\n  hint: ", 9);
		put_escaped(&b, hint, strlen(hint), 0);
	}
	return sym__str_take(&b, NULL);
}
