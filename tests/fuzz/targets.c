/* SPDX-License-Identifier: MIT */
/*
 * The fuzz targets of the parsers: parse one input as a graph file or as
 * an expression, exercise what prints the result, and check the
 * properties every input must keep (no object left alive; an expression
 * prints as text that parses back to itself); and what every target
 * shares. The run-time half and the other text inputs have targets of
 * their own (target_pipeline.c, target_inputs.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#include "targets.h"

/* Return a malloc'ed NUL-terminated copy of the "size" bytes of "data"
 * (the parsers read C strings: the text ends at the first NUL), or
 * NULL. */
char *
fuzz_text_of(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return NULL;
	if (size)
		memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* Print "fuzz: " and the message formatted from "fmt" on stderr: which
 * property an input broke. Return -1. */
int
fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Print "fuzz: " and the message formatted from "fmt" on stderr when
 * the environment sets SYMSHARD_FUZZ_VERBOSE: what an input did. */
void
fuzz_note(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("SYMSHARD_FUZZ_VERBOSE"))
		return;
	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Print every diagnostic, value shape and node attribute set of "g",
 * freeing the texts; return 0, or -1 when a value has no name. */
int
fuzz_print_graph(const sym_graph *g)
{
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++)
		free(sym_diagnostic_format(g, sym_graph_diagnostic(g, i)));
	for (size_t i = 0; i < sym_graph_n_values(g); i++) {
		sym_value *v = sym_graph_value(g, i);

		if (!sym_value_name(v))
			return -1;
		free(sym_shape_to_str(sym_value_shape(v)));
	}
	for (size_t i = 0; i < sym_graph_n_nodes(g); i++)
		free(sym_attrs_to_str(sym_node_attrs(sym_graph_node(g, i))));
	return 0;
}

/* Return a new context whose exact prover tier gives up early, so that
 * fuzzing spends its time in the parsers, or NULL. */
sym_ctx *
fuzz_new_ctx(void)
{
	sym_ctx *ctx = sym_ctx_new();

	if (ctx)
		sym_ctx_set_option(ctx, SYM_CTX_OPT_ISL_MAX_OPERATIONS, 20000);
	return ctx;
}

/* Parse the "size" bytes of "data" as a graph file, print what it holds
 * and free it. Return 0, or -1 when a property is broken: no graph
 * without an allocation failure, or objects left alive. */
int
fuzz_graph_one(const uint8_t *data, size_t size)
{
	sym_ctx *ctx = fuzz_new_ctx();
	char *text = fuzz_text_of(data, size);
	sym_graph *g;
	int r = 0;

	if (!ctx || !text) {
		free(text);
		sym_ctx_free(ctx);
		return 0;
	}
	g = sym_graph_parse(ctx, text, "fuzz.sg");
	if (!g && sym_ctx_last_error(ctx) != SYM_ENOMEM)
		r = -1;
	if (g && fuzz_print_graph(g) < 0)
		r = -1;
	sym_graph_free(g);
	if (sym_ctx_live_objects(ctx) != 0)
		r = -1;
	sym_ctx_free(ctx);
	free(text);
	return r;
}

/* Declare in "ctx" the symbols the expression inputs name: b, s, t
 * (unique), h (bounded), k (with a remainder). Return 0 or -1. */
static int
declare(sym_ctx *ctx)
{
	sym_symbol_info b = { 1, 0, 8, 0, 0 }, s = { 128, 8192, 128, 0, 1 };
	sym_symbol_info t = { 1, 0, 1, 0, 1 }, h = { 1, 64, 1, 0, 1 };
	sym_symbol_info k = { 1, 0, 4, 1, 1 };

	if (!sym_symbol_new(ctx, "b", &b, NULL) ||
	    !sym_symbol_new(ctx, "s", &s, NULL) ||
	    !sym_symbol_new(ctx, "t", &t, NULL) ||
	    !sym_symbol_new(ctx, "h", &h, NULL) ||
	    !sym_symbol_new(ctx, "k", &k, NULL))
		return -1;
	return sym_symbol_instantiate(sym_symbol_find(ctx, "b")) ? 0 : -1;
}

/* Return 0 when the expression "e" prints as text that parses back to
 * "e" itself, else -1. */
static int
round_trip(sym_ctx *ctx, sym_expr *e)
{
	char *text = sym_expr_to_str(e);
	sym_expr *again;
	int r;

	if (!text)
		return sym_ctx_last_error(ctx) == SYM_ENOMEM ? 0 : -1;
	again = sym_expr_parse(ctx, text, NULL);
	r = again && sym_expr_is_equal(again, e) == 1 ? 0 : -1;
	sym_expr_free(again);
	free(text);
	return r;
}

/* Parse the "size" bytes of "data" as an expression over the symbols of
 * declare(), print it and parse the text again. Return 0, or -1 when a
 * property is broken: a failure without an error, a round trip that
 * changes the expression, or objects left alive. */
int
fuzz_expr_one(const uint8_t *data, size_t size)
{
	sym_ctx *ctx = fuzz_new_ctx();
	char *text = fuzz_text_of(data, size);
	sym_loc where = { "fuzz", 1, 1 };
	sym_expr *e;
	int r = 0;

	if (!ctx || !text || declare(ctx) < 0) {
		free(text);
		sym_ctx_free(ctx);
		return 0;
	}
	e = sym_expr_parse(ctx, text, &where);
	if (!e && sym_ctx_last_error(ctx) == SYM_OK)
		r = -1;
	if (e && round_trip(ctx, e) < 0)
		r = -1;
	sym_expr_free(e);
	if (sym_ctx_live_objects(ctx) != 0)
		r = -1;
	sym_ctx_free(ctx);
	free(text);
	return r;
}
