/* SPDX-License-Identifier: MIT */
/*
 * The import statement of graph files (symshard-graph(5)): an ONNX
 * model read into the graph being parsed, its dimension parameters bound
 * to declared symbols:
 *
 *     import "gpt.onnx" (batch = b, seq = s)
 *
 * "training" after the bindings imports BatchNormalization nodes in
 * training: batch statistics, running statistics updated as state.
 *
 * The path is relative to the graph file's folder. A shard clause may
 * then name an imported ONNX node, whose registry node it shards
 * (sym_onnx(3) says which one when the node became several):
 *
 *     shard "/blocks.0/fc1/MatMul" ((1, 1, 1), (1, 8))
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
		from[*n] = sym__lex_name_copy(p,
		    "a dimension parameter of the model", &start, &len);
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

/* Consume the name "word" when it is next in "p"; 1 if it was, else 0
 * (nothing consumed). */
static int
accept_word(struct sym__parser *p, const char *word)
{
	size_t save, start, len;

	sym__lex_peek(p);
	save = p->pos;
	if (sym__lex_name(p, &start, &len) &&
	    sym__lex_word_is(p, start, len, word))
		return 1;
	p->pos = save;
	return 0;
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

/* Parse "import "FILE" [(NAME = SYMBOL, ...)] [training]" after
 * "import" in "p"; return 0, or -1 after an error. */
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
	int training = r == 0 && accept_word(p, "training");
	if (r == 0)
		r = sym__parse_end(p, "the import");
	path = r == 0 ? beside(p->file, file) : NULL;
	if (r == 0 && path) {
		into = (struct sym__onnx_into){ p->g, (const char *const *)from,
			to, n, training };
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

/* Report that no imported node of "p"'s graph is named "name" (the
 * string at "at"), with the closest ONNX node name as a hint; -1. */
static int
no_such_node(struct sym__parser *p, size_t at, const char *name)
{
	const sym_graph *g = p->g;
	struct sym__suggest sg;
	size_t named = 0;
	const char *hint;

	sym__suggest_init(&sg, name, strlen(name));
	for (size_t i = 0; i < g->n_node; i++)
		if (g->node[i]->onnx_primary && g->node[i]->onnx_name) {
			sym__suggest_try(&sg, g->node[i]->onnx_name);
			named++;
		}
	hint = sym__suggest_hint(&sg);
	if (!hint)
		hint = named ? "name a node of a model imported above the "
		               "clause, as the model names it (nodes folded "
		               "as shape values have no operator to shard)"
		             : "no model was imported above the clause";
	return sym__lex_error(p, at, hint,
	    "no operator was imported from an ONNX node named '%.*s%s'",
	    SYM__QLEN(strlen(name)), name, SYM__QDOTS(strlen(name)));
}

/* Parse "shard "NODE" STRATEGY [-> STRATEGY]" after "shard" in "p": the
 * strategy of the node imported from the ONNX node NODE, which takes the
 * clause's place as its location; return 0, or -1 after an error (no such
 * node, several, or one that has a clause already). */
int
sym__parse_shard_named(struct sym__parser *p)
{
	char *name = NULL;
	sym_node *n;
	size_t at, count;
	struct sym__strategy *s;
	int r;

	sym__lex_peek(p);
	at = p->pos;
	r = sym__lex_string(p, &name);
	if (r <= 0)
		return r < 0 ? -1
		             : sym__lex_error(p, at,
		                   "outside an import, a shard clause follows "
		                   "its operator: y = op(x) shard ((2, 1),)",
		                   "expected the name of an imported ONNX node "
		                   "in quotes after 'shard'");
	s = sym__parse_strategy(p);
	if (!s) {
		free(name);
		return -1;
	}
	count = sym__graph_onnx_nodes(p->g, name, &n);
	if (count == 0)
		r = no_such_node(p, at, name);
	else if (count > 1)
		r = sym__lex_error(p, at, NULL,
		    "%zu nodes of the imported models are named '%.*s%s'; a "
		    "clause must name one",
		    count, SYM__QLEN(strlen(name)), name,
		    SYM__QDOTS(strlen(name)));
	else if (n->strategy)
		r = sym__lex_error(p, at, NULL,
		    "ONNX node '%.*s%s' already has a shard clause, at line %d",
		    SYM__QLEN(strlen(name)), name, SYM__QDOTS(strlen(name)),
		    n->loc.line);
	free(name);
	if (r < 0) {
		sym__strategy_free(s);
		return -1;
	}
	sym__node_set_strategy(n, s);
	n->loc = sym__lex_loc(p, at);
	return 0;
}
