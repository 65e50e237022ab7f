/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the readable report. A header line, then the sections
 * symbols, values, layouts, strategies, communication (those three in
 * text_shard.c), relations, guards and assertions, one aligned
 * table each ("none" when empty), and a summary line. Nothing in it
 * depends on the run (no addresses, no measured timings), so the golden
 * tests can compare it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Return "loc" as "at FILE:LINE:COL" (malloc'ed), "" when unknown. */
static char *
at_text(sym_loc loc)
{
	if (loc.line <= 0)
		return text_dup("");
	if (!loc.file)
		return report_format("at %d:%d", loc.line, loc.col);
	return report_format("at %s:%d:%d", loc.file, loc.line, loc.col);
}

/* Add the rows of the symbols of "r" to "t": declared symbols and their
 * instances, with their options and first admissible values. */
static void
symbol_rows(const struct report *r, struct table *t)
{
	size_t n = sym_ctx_n_symbols(r->ctx);

	for (size_t i = 0; i < n && !t->oom; i++) {
		sym_symbol *s = sym_ctx_symbol(r->ctx, i);
		char *decl = report_symbol_decl(s);
		char *vals = report_symbol_values(s);
		char *paren = vals ? report_format("(%s)", vals) : NULL;

		free(vals);
		if (!decl || !paren) {
			free(decl);
			free(paren);
			t->oom = 1;
			return;
		}
		table_add(t, text_dup(sym_symbol_name(s)), decl, paren, NULL);
	}
}

/* Return the malloc'ed text of "s" ("?" when it could not be
 * inferred). */
static char *
shape_text(const sym_shape *s)
{
	return s ? sym_shape_to_str(s) : text_dup("?");
}

/* Add the rows of the values of "r" to "t": name, kind or operator,
 * shape, and the declared shape of an input that unification changed,
 * or "output". */
static void
value_rows(const struct report *r, struct table *t)
{
	size_t n = sym_graph_n_values(r->g);

	for (size_t i = 0; i < n && !t->oom; i++) {
		sym_value *v = sym_graph_value(r->g, i);
		sym_node *p = sym_value_producer(v);
		const sym_shape *decl = report_declared_if_different(v);
		const char *kind = p ? sym_node_op_name(p)
		    : sym_value_is_state(v)
		    ? "state"
		    : sym_value_kind_name(sym_value_get_kind(v));
		char *shape, *extra = NULL;

		if (decl) {
			shape = shape_text(decl);
			extra = sym_shape_to_str(sym_value_shape(v));
			if (extra) {
				char *e = report_format("= %s", extra);

				free(extra);
				extra = e;
			}
		} else {
			shape = shape_text(sym_value_shape(v));
		}
		if (report_is_output(r->g, v)) {
			char *e = extra ? report_format("%s  (output)", extra)
			                : text_dup("(output)");

			free(extra);
			extra = e;
		} else if (!extra) {
			extra = text_dup("");
		}
		if (!shape || !extra)
			t->oom = 1;
		table_add(t, text_dup(sym_value_name(v)), text_dup(kind), shape,
		    extra);
	}
}

/* Return 1 when the fact "text" restates a relation that unification
 * derived in "r" (it assumes "b' == b" when b's values are not all b''s),
 * so that it is not reported as declared. */
static int
is_derived_fact(const struct report *r, const char *text)
{
	size_t n = sym_graph_n_relations(r->g);
	const char *name;
	size_t len;
	char *val;
	int same;

	for (size_t i = 0; i < n; i++) {
		const sym_relation *rel = sym_graph_relation(r->g, i);

		name = sym_symbol_name(rel->var);
		len = strlen(name);
		if (strncmp(text, name, len) || strncmp(text + len, " == ", 4))
			continue;
		val = sym_expr_to_str(rel->value);
		same = val && !strcmp(text + len + 4, val);
		free(val);
		if (same)
			return 1;
	}
	return 0;
}

/* Add the relations of "r" to "t": those derived by unification ("b' =
 * b", where, why), then the relations declared in the file (the facts of
 * the context that no derived relation explains). */
static void
relation_rows(const struct report *r, struct table *t)
{
	size_t n = sym_graph_n_relations(r->g);

	for (size_t i = 0; i < n && !t->oom; i++) {
		const sym_relation *rel = sym_graph_relation(r->g, i);
		char *val = sym_expr_to_str(rel->value);
		char *text = val
		    ? report_format("%s = %s", sym_symbol_name(rel->var), val)
		    : NULL;

		free(val);
		table_add(t, text, at_text(rel->loc),
		    rel->reason ? report_format("(%s)", rel->reason)
		                : text_dup(""),
		    NULL);
	}
	n = sym_ctx_n_facts(r->ctx);
	for (size_t i = 0; i < n && !t->oom; i++) {
		char *fact = sym_ctx_fact_to_str(r->ctx, i);

		if (!fact)
			t->oom = 1;
		else if (is_derived_fact(r, fact))
			free(fact);
		else
			table_add(t, fact, text_dup("declared"), NULL, NULL);
	}
}

/* Add the run-time guards of "r" to "t". */
static void
guard_rows(const struct report *r, struct table *t)
{
	size_t n = sym_graph_n_guards(r->g);

	for (size_t i = 0; i < n && !t->oom; i++) {
		const sym_guard *g = sym_graph_guard(r->g, i);

		table_add(t, text_dup(g->text), at_text(g->loc),
		    g->reason ? report_format("(%s)", g->reason) : text_dup(""),
		    NULL);
	}
}

/* Return the malloc'ed last column of the row of assertion "a": its
 * witness, and its normal form when it differs from the text. */
static char *
assertion_notes(const sym_assertion *a)
{
	int norm = a->normal && strcmp(a->normal, a->text) != 0;

	if (a->witness && norm)
		return report_format("witness: %s  normal form: %s", a->witness,
		    a->normal);
	if (a->witness)
		return report_format("witness: %s", a->witness);
	if (norm)
		return report_format("normal form: %s", a->normal);
	return text_dup("");
}

/* Add the assertions of "r" to "t": text as written, answer, where,
 * witness and normal form. */
static void
assertion_rows(const struct report *r, struct table *t)
{
	size_t n = sym_graph_n_assertions(r->g);

	for (size_t i = 0; i < n && !t->oom; i++) {
		const sym_assertion *a = sym_graph_assertion(r->g, i);

		table_add(t, text_dup(a->text),
		    text_dup(sym_answer_name(a->result)), at_text(a->loc),
		    assertion_notes(a));
	}
}

/* Print the section "title" of "r" to "out", its rows added by "rows";
 * 0 or -1 when out of memory. */
static int
section(const struct report *r, FILE *out, const char *title,
    void (*rows)(const struct report *, struct table *))
{
	struct table t = { NULL, 0, 0, 0 };

	fprintf(out, "\n%s\n", title);
	rows(r, &t);
	return table_print(&t, out);
}

/* Return "n" followed by "word", with an "s" unless "n" is 1, in "buf" of
 * "size" bytes. */
static const char *
count(char *buf, size_t size, size_t n, const char *word)
{
	snprintf(buf, size, "%zu %s%s", n, word, n == 1 ? "" : "s");
	return buf;
}

/* Write the readable report of "r" to "out": the header line (file,
 * devices, operators, verdict), the sections and the summary line.
 * Return 0, or -1 when out of memory. */
int
report_text(const struct report *r, FILE *out)
{
	const char *file = sym_graph_filename(r->g);
	int64_t devices = sym_graph_n_devices(r->g);
	char b1[64], b2[64];
	int res = 0;

	fprintf(out, "%s: ", file ? file : "<graph>");
	if (devices <= 0)
		fputs("devices not declared (1 device)", out);
	else
		fputs(count(b1, sizeof(b1), (size_t)devices, "device"), out);
	if (r->overridden && r->file_devices > 0)
		fprintf(out, " (--devices; the file says %" PRId64 ")",
		    r->file_devices);
	else if (r->overridden)
		fputs(" (--devices)", out);
	fputs(", ", out);
	fprintf(out, "%s: %s%s\n",
	    count(b1, sizeof(b1), sym_graph_n_nodes(r->g), "operator"),
	    r->n_errors ? "invalid" : "valid", r->strict ? " (strict)" : "");
	res |= section(r, out, "symbols", symbol_rows);
	res |= section(r, out, "values", value_rows);
	res |= report_text_sharding(r, out);
	res |= report_text_cost(r, out);
	res |= section(r, out, "relations", relation_rows);
	res |= section(r, out, "guards", guard_rows);
	res |= section(r, out, "assertions", assertion_rows);
	res |= report_text_slices(r, out);
	fprintf(out, "\n%s, %s\n", count(b1, sizeof(b1), r->n_errors, "error"),
	    count(b2, sizeof(b2), r->n_warnings, "warning"));
	return res ? -1 : 0;
}
