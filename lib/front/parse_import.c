/* SPDX-License-Identifier: MIT */
/*
 * The import statement of graph files (symshard-graph(5)): an ONNX
 * model read into the graph being parsed, its dimension parameters bound
 * to declared symbols:
 *
 *     import "gpt.onnx" (batch = b, seq = s)
 *
 * The path is relative to the graph file's folder.
 */
#include <stdlib.h>
#include <string.h>

#include "front/front.h"
#include "front/lex.h"

#define MAX_ALIAS 16

/* Read "(NAME = SYMBOL, ...)" of "p" into "from" and "to" (at most
 * MAX_ALIAS), their number in "*n"; 0, or -1 after an error. */
static int
aliases(struct sym__parser *p, char **from, sym_symbol **to, size_t *n)
{
	size_t open = p->pos, start, len;
	int r;

	*n = 0;
	if (!sym__lex_accept(p, '('))
		return 0;
	r = sym__lex_list_start(p, ')', "the import's bindings", open);
	while (r > 0) {
		if (*n == MAX_ALIAS)
			return sym__lex_error(p, p->pos, NULL,
			    "more than %d bindings in an import", MAX_ALIAS);
		if (!sym__lex_name(p, &start, &len))
			return sym__lex_error(p, p->pos, NULL,
			    "expected a dimension parameter of the model");
		from[*n] = sym__lex_strndup(p, start, len);
		if (!from[*n])
			return -1;
		if (!sym__lex_accept(p, '=') || !sym__lex_name(p, &start, &len))
			return sym__lex_error(p, p->pos, NULL,
			    "expected '= SYMBOL' after '%s'", from[*n]);
		char *name = sym__lex_strndup(p, start, len);
		to[*n] = name ? sym_symbol_find(p->ctx, name) : NULL;
		free(name);
		if (!to[*n]) {
			free(from[*n]);
			return sym__lex_error(p, start,
			    "declare it with 'symbol NAME' before the import",
			    "unknown symbol '%.*s'", SYM__QLEN(len),
			    p->src + start);
		}
		(*n)++;
		r = sym__lex_list_next(p, ')', "the import's bindings", open,
		    "a binding");
	}
	return r < 0 ? -1 : 0;
}

/* Return "path" relative to the folder of the graph file "file" (may be
 * NULL), malloc'ed, or NULL when out of memory. */
static char *
beside(const char *file, const char *path)
{
	const char *slash = file ? strrchr(file, '/') : NULL;

	if (path[0] == '/' || !slash)
		return strdup(path);
	return sym__asprintf("%.*s/%s", (int)(slash - file + 0), file, path);
}

/* Parse "import "FILE" [(NAME = SYMBOL, ...)]" after "import" in "p";
 * return 0, or -1 after an error. */
int
sym__parse_import(struct sym__parser *p)
{
	char *file = NULL, *path = NULL, *from[MAX_ALIAS];
	sym_symbol *to[MAX_ALIAS];
	size_t at = p->pos, n = 0;
	struct sym__onnx_into into;
	int r = sym__lex_string(p, &file);

	if (r <= 0) {
		if (r == 0)
			sym__lex_error(p, p->pos, NULL,
			    "expected the model's file name in quotes after "
			    "'import'");
		return -1;
	}
	r = aliases(p, from, to, &n);
	if (r == 0)
		r = sym__parse_end(p, "the import");
	path = r == 0 ? beside(p->file, file) : NULL;
	if (r == 0 && path) {
		into = (struct sym__onnx_into){ p->g, (const char *const *)from,
			to, n };
		if (sym__onnx_import(p->g, path, &into) < 0)
			r = sym__lex_error(p, at, NULL, "%s",
			    sym_ctx_last_message(p->ctx));
	}
	for (size_t i = 0; i < n; i++)
		free(from[i]);
	free(file);
	free(path);
	return r;
}
