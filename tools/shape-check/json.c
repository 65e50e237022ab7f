/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the --json report, one object whose members shape-check(1)
 * documents. Built with jansson, printed with two-space indentation and
 * the members in the order they are added. The sharding members (layouts,
 * operators, communication) are in json_shard.c.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json.h"

/* Return "v", marking "d" out of memory when it is NULL. */
json_t *
doc_chk(struct doc *d, json_t *v)
{
	if (!v)
		d->oom = 1;
	return v;
}

/* Set member "key" of "obj" to "v" (taken); a failure marks "d". */
void
doc_set(struct doc *d, json_t *obj, const char *key, json_t *v)
{
	if (!obj || !v || json_object_set_new(obj, key, v) < 0)
		d->oom = 1;
}

/* Append "v" (taken) to the array "arr"; a failure marks "d". */
void
doc_push(struct doc *d, json_t *arr, json_t *v)
{
	if (!arr || !v || json_array_append_new(arr, v) < 0)
		d->oom = 1;
}

/* Return a JSON string of "s" (null for NULL); bytes that are not valid
 * UTF-8 become '?'. */
json_t *
doc_str(struct doc *d, const char *s)
{
	json_t *v;
	char *c;

	if (!s)
		return doc_chk(d, json_null());
	v = json_string(s);
	if (v)
		return v;
	c = strdup(s);
	if (!c)
		return doc_chk(d, NULL);
	for (char *p = c; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(c);
	free(c);
	return doc_chk(d, v);
}

/* Return a JSON string of the malloc'ed "s" (taken; NULL is out of
 * memory). */
json_t *
doc_str_take(struct doc *d, char *s)
{
	json_t *v = s ? doc_str(d, s) : doc_chk(d, NULL);

	free(s);
	return v;
}

/* Return a JSON integer "n". */
json_t *
doc_num(struct doc *d, int64_t n)
{
	return doc_chk(d, json_integer((json_int_t)n));
}

/* Return the dimensions of "s" as an array of expression strings. */
json_t *
doc_dims(struct doc *d, const sym_shape *s)
{
	size_t n = sym_shape_ndim(s);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++)
		doc_push(d, arr,
		    doc_str_take(d, sym_expr_to_str(sym_shape_dim(s, i))));
	return arr;
}

/* Return the location "loc" as {file, line, col}, or null when it is
 * unknown. */
json_t *
doc_loc(struct doc *d, sym_loc loc)
{
	json_t *o;

	if (loc.line <= 0)
		return doc_chk(d, json_null());
	o = doc_chk(d, json_object());
	doc_set(d, o, "file", doc_str(d, loc.file));
	doc_set(d, o, "line", doc_num(d, loc.line));
	doc_set(d, o, "col", doc_num(d, loc.col));
	return o;
}

/* Return the array of the symbols of "d": their admissible sets and, for
 * an instance, the symbol it is an instance of. */
static json_t *
symbols(struct doc *d)
{
	sym_ctx *ctx = d->r->ctx;
	size_t n = sym_ctx_n_symbols(ctx);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		sym_symbol *s = sym_ctx_symbol(ctx, i);
		sym_symbol *origin = sym_symbol_origin(s);
		sym_symbol_info info;
		json_t *o = doc_chk(d, json_object());

		sym_symbol_get_info(s, &info);
		doc_set(d, o, "name", doc_str(d, sym_symbol_name(s)));
		doc_set(d, o, "min", doc_num(d, info.min));
		doc_set(d, o, "max",
		    info.max ? doc_num(d, info.max) : json_null());
		doc_set(d, o, "divisor", doc_num(d, info.divisor));
		doc_set(d, o, "remainder", doc_num(d, info.remainder));
		doc_set(d, o, "unique", json_boolean(info.unique));
		doc_set(d, o, "instance_of",
		    origin && origin != s ? doc_str(d, sym_symbol_name(origin))
		                          : json_null());
		doc_set(d, o, "location", doc_loc(d, sym_symbol_location(s)));
		doc_push(d, arr, o);
	}
	return arr;
}

/* Return the array of the values of "d", inputs, parameters and results
 * in the order of the file. */
static json_t *
values(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_values(g);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		sym_value *v = sym_graph_value(g, i);
		sym_node *p = sym_value_producer(v);
		const sym_shape *s = sym_value_shape(v);
		const sym_shape *decl = report_declared_if_different(v);
		json_t *o = doc_chk(d, json_object());

		doc_set(d, o, "name", doc_str(d, sym_value_name(v)));
		doc_set(d, o, "kind",
		    doc_str(d,
		        sym_value_is_state(v)
		            ? "state"
		            : sym_value_kind_name(sym_value_get_kind(v))));
		doc_set(d, o, "op", doc_str(d, p ? sym_node_op_name(p) : NULL));
		doc_set(d, o, "output", json_boolean(report_is_output(g, v)));
		doc_set(d, o, "dtype",
		    doc_str(d, s ? sym_dtype_name(sym_shape_dtype(s)) : NULL));
		doc_set(d, o, "shape", s ? doc_dims(d, s) : json_null());
		if (decl)
			doc_set(d, o, "declared_shape", doc_dims(d, decl));
		doc_set(d, o, "layout", json_layout(d, sym_value_layout(v)));
		doc_set(d, o, "local_shape",
		    json_local_shape(d, v, sym_value_layout(v)));
		doc_set(d, o, "location", doc_loc(d, sym_value_location(v)));
		doc_push(d, arr, o);
	}
	return arr;
}

/* Return the array of the relations that unification derived. */
static json_t *
relations(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_relations(g);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_relation *rel = sym_graph_relation(g, i);
		json_t *o = doc_chk(d, json_object());

		doc_set(d, o, "var", doc_str(d, sym_symbol_name(rel->var)));
		doc_set(d, o, "value",
		    doc_str_take(d, sym_expr_to_str(rel->value)));
		doc_set(d, o, "reason", doc_str(d, rel->reason));
		doc_set(d, o, "location", doc_loc(d, rel->loc));
		doc_push(d, arr, o);
	}
	return arr;
}

/* Return the array of the texts of the facts of the context. */
static json_t *
facts(struct doc *d)
{
	size_t n = sym_ctx_n_facts(d->r->ctx);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++)
		doc_push(d, arr,
		    doc_str_take(d, sym_ctx_fact_to_str(d->r->ctx, i)));
	return arr;
}

/* Return the array of the run-time guards. */
static json_t *
guards(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_guards(g);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_guard *gd = sym_graph_guard(g, i);
		json_t *o = doc_chk(d, json_object());

		doc_set(d, o, "text", doc_str(d, gd->text));
		doc_set(d, o, "reason", doc_str(d, gd->reason));
		doc_set(d, o, "location", doc_loc(d, gd->loc));
		doc_push(d, arr, o);
	}
	return arr;
}

/* Return the witness "w" as an object mapping each symbol it binds to its
 * value, or null for NULL. */
static json_t *
witness(struct doc *d, const sym_binding *w)
{
	json_t *o;

	if (!w)
		return doc_chk(d, json_null());
	o = doc_chk(d, json_object());
	for (size_t i = 0; i < sym_binding_n_symbols(w); i++)
		doc_set(d, o, sym_symbol_name(sym_binding_symbol(w, i)),
		    doc_num(d, sym_binding_value(w, i)));
	return o;
}

/* Return the array of the assertions and their answers. */
static json_t *
assertions(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_assertions(g);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_assertion *a = sym_graph_assertion(g, i);
		json_t *o = doc_chk(d, json_object());

		doc_set(d, o, "text", doc_str(d, a->text));
		doc_set(d, o, "normal", doc_str(d, a->normal));
		doc_set(d, o, "result", doc_str(d, sym_answer_name(a->result)));
		doc_set(d, o, "witness", witness(d, a->witness_binding));
		doc_set(d, o, "witness_text", doc_str(d, a->witness));
		doc_set(d, o, "location", doc_loc(d, a->loc));
		doc_push(d, arr, o);
	}
	return arr;
}

/* Return the array of the diagnostics, with --strict applied to their
 * severities. */
static json_t *
diagnostics(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_diagnostics(g);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_diagnostic *dg = sym_graph_diagnostic(g, i);
		int has = dg->loc.line > 0;
		json_t *o = doc_chk(d, json_object());

		doc_set(d, o, "severity",
		    doc_str(d, sym_severity_name(report_severity(d->r, dg))));
		doc_set(d, o, "file", doc_str(d, has ? dg->loc.file : NULL));
		doc_set(d, o, "line",
		    has ? doc_num(d, dg->loc.line) : json_null());
		doc_set(d, o, "col",
		    has ? doc_num(d, dg->loc.col) : json_null());
		doc_set(d, o, "message", doc_str(d, dg->message));
		doc_set(d, o, "witness", witness(d, dg->witness_binding));
		doc_set(d, o, "witness_text", doc_str(d, dg->witness));
		doc_set(d, o, "hint", doc_str(d, dg->hint));
		doc_push(d, arr, o);
	}
	return arr;
}

/* Return the whole report of "d" as one object. */
static json_t *
document(struct doc *d)
{
	const struct report *r = d->r;
	int64_t devices = sym_graph_n_devices(r->g);
	json_t *o = doc_chk(d, json_object());

	doc_set(d, o, "file", doc_str(d, sym_graph_filename(r->g)));
	doc_set(d, o, "devices",
	    devices > 0 ? doc_num(d, devices) : json_null());
	doc_set(d, o, "strict", json_boolean(r->strict));
	doc_set(d, o, "valid", json_boolean(r->n_errors == 0));
	doc_set(d, o, "errors", doc_num(d, (int64_t)r->n_errors));
	doc_set(d, o, "warnings", doc_num(d, (int64_t)r->n_warnings));
	doc_set(d, o, "sharded", json_boolean(r->sharded));
	doc_set(d, o, "topology", doc_str(d, r->topo_text));
	doc_set(d, o, "sizes_at_least", json_sizes_at_least(d));
	doc_set(d, o, "symbols", symbols(d));
	doc_set(d, o, "values", values(d));
	doc_set(d, o, "operators", json_operators(d));
	doc_set(d, o, "communication", json_communication(d));
	if (sym_graph_fusion_bytes(d->r->g) > 0)
		doc_set(d, o, "fusion", json_fusion(d));
	doc_set(d, o, "cost", json_cost(d));
	doc_set(d, o, "search", json_search(d));
	doc_set(d, o, "relations", relations(d));
	doc_set(d, o, "facts", facts(d));
	doc_set(d, o, "guards", guards(d));
	doc_set(d, o, "assertions", assertions(d));
	doc_set(d, o, "diagnostics", diagnostics(d));
	if (r->bind) {
		doc_set(d, o, "binding", json_binding(d));
		doc_set(d, o, "slices", json_slices(d));
	}
	return o;
}

/* Write the JSON report of "r" to "out", followed by a newline; 0, or -1
 * when out of memory (nothing is written then). */
int
report_json(const struct report *r, FILE *out)
{
	struct doc d = { r, 0 };
	json_t *root = document(&d);
	char *text = NULL;

	if (!d.oom)
		text = json_dumps(root,
		    JSON_INDENT(2) | JSON_PRESERVE_ORDER |
		        JSON_REAL_PRECISION(6));
	json_decref(root);
	if (!text)
		return -1;
	fputs(text, out);
	fputc('\n', out);
	free(text);
	return 0;
}
