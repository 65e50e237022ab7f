/*
 * shape-check: the --json report, one object whose members shape-check(1)
 * documents. Built with jansson, printed with two-space indentation and
 * the members in the order they are added.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_report.h"

/* A JSON document being built; "oom" is set by the first failure. */
struct doc {
	const struct report *r;
	int oom;
};

/* Return "v", marking "d" out of memory when it is NULL. */
static json_t *
chk(struct doc *d, json_t *v)
{
	if (!v)
		d->oom = 1;
	return v;
}

/* Set member "key" of "obj" to "v" (taken); a failure marks "d". */
static void
set(struct doc *d, json_t *obj, const char *key, json_t *v)
{
	if (!obj || !v || json_object_set_new(obj, key, v) < 0)
		d->oom = 1;
}

/* Append "v" (taken) to the array "arr"; a failure marks "d". */
static void
push(struct doc *d, json_t *arr, json_t *v)
{
	if (!arr || !v || json_array_append_new(arr, v) < 0)
		d->oom = 1;
}

/* Return a JSON string of "s" (null for NULL); bytes that are not valid
 * UTF-8 become '?'. */
static json_t *
str(struct doc *d, const char *s)
{
	json_t *v;
	char *c;

	if (!s)
		return chk(d, json_null());
	v = json_string(s);
	if (v)
		return v;
	c = strdup(s);
	if (!c)
		return chk(d, NULL);
	for (char *p = c; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(c);
	free(c);
	return chk(d, v);
}

/* Return a JSON string of the malloc'ed "s" (taken; NULL is out of
 * memory). */
static json_t *
str_take(struct doc *d, char *s)
{
	json_t *v = s ? str(d, s) : chk(d, NULL);

	free(s);
	return v;
}

/* Return a JSON integer "n". */
static json_t *
num(struct doc *d, int64_t n)
{
	return chk(d, json_integer((json_int_t)n));
}

/* Return the location "loc" as {file, line, col}, or null when it is
 * unknown. */
static json_t *
loc_obj(struct doc *d, sym_loc loc)
{
	json_t *o;

	if (loc.line <= 0)
		return chk(d, json_null());
	o = chk(d, json_object());
	set(d, o, "file", str(d, loc.file));
	set(d, o, "line", num(d, loc.line));
	set(d, o, "col", num(d, loc.col));
	return o;
}

/* Return the array of the symbols of "d": their admissible sets and, for
 * an instance, the symbol it is an instance of. */
static json_t *
symbols(struct doc *d)
{
	sym_ctx *ctx = d->r->ctx;
	size_t n = sym_ctx_n_symbols(ctx);
	json_t *arr = chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		sym_symbol *s = sym_ctx_symbol(ctx, i);
		sym_symbol *origin = sym_symbol_origin(s);
		sym_symbol_info info;
		json_t *o = chk(d, json_object());

		sym_symbol_get_info(s, &info);
		set(d, o, "name", str(d, sym_symbol_name(s)));
		set(d, o, "min", num(d, info.min));
		set(d, o, "max", info.max ? num(d, info.max) : json_null());
		set(d, o, "divisor", num(d, info.divisor));
		set(d, o, "remainder", num(d, info.remainder));
		set(d, o, "unique", json_boolean(info.unique));
		set(d, o, "instance_of",
		    origin && origin != s ? str(d, sym_symbol_name(origin))
		                          : json_null());
		set(d, o, "location", loc_obj(d, sym_symbol_location(s)));
		push(d, arr, o);
	}
	return arr;
}

/* Return the dimensions of "s" as an array of expression strings. */
static json_t *
dims(struct doc *d, const sym_shape *s)
{
	size_t n = sym_shape_rank(s);
	json_t *arr = chk(d, json_array());

	for (size_t i = 0; i < n; i++)
		push(d, arr, str_take(d, sym_expr_to_str(sym_shape_dim(s, i))));
	return arr;
}

/* Return the array of the values of "d", inputs, parameters and results
 * in the order of the file. */
static json_t *
values(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_values(g);
	json_t *arr = chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		sym_value *v = sym_graph_value(g, i);
		sym_node *p = sym_value_producer(v);
		sym_shape *s = sym_value_shape(v);
		sym_shape *decl = report_declared_if_different(v);
		json_t *o = chk(d, json_object());

		set(d, o, "name", str(d, sym_value_name(v)));
		set(d, o, "kind", str(d, report_kind_name(v)));
		set(d, o, "op", str(d, p ? sym_node_op_name(p) : NULL));
		set(d, o, "output", json_boolean(report_is_output(g, v)));
		set(d, o, "dtype",
		    str(d, s ? sym_dtype_name(sym_shape_dtype(s)) : NULL));
		set(d, o, "shape", s ? dims(d, s) : json_null());
		if (decl)
			set(d, o, "declared_shape", dims(d, decl));
		set(d, o, "location", loc_obj(d, sym_value_location(v)));
		push(d, arr, o);
	}
	return arr;
}

/* Return the array of the relations that unification derived. */
static json_t *
relations(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_relations(g);
	json_t *arr = chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_relation *rel = sym_graph_relation(g, i);
		json_t *o = chk(d, json_object());

		set(d, o, "var", str(d, sym_symbol_name(rel->var)));
		set(d, o, "value", str_take(d, sym_expr_to_str(rel->value)));
		set(d, o, "reason", str(d, rel->reason));
		set(d, o, "location", loc_obj(d, rel->loc));
		push(d, arr, o);
	}
	return arr;
}

/* Return the array of the texts of the facts of the context. */
static json_t *
facts(struct doc *d)
{
	size_t n = sym_ctx_n_facts(d->r->ctx);
	json_t *arr = chk(d, json_array());

	for (size_t i = 0; i < n; i++)
		push(d, arr, str_take(d, sym_ctx_fact_to_str(d->r->ctx, i)));
	return arr;
}

/* Return the array of the run-time guards. */
static json_t *
guards(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_guards(g);
	json_t *arr = chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_guard *gd = sym_graph_guard(g, i);
		json_t *o = chk(d, json_object());

		set(d, o, "text", str(d, gd->text));
		set(d, o, "reason", str(d, gd->reason));
		set(d, o, "location", loc_obj(d, gd->loc));
		push(d, arr, o);
	}
	return arr;
}

/* Return the array of the assertions and their answers. */
static json_t *
assertions(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_assertions(g);
	json_t *arr = chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_assertion *a = sym_graph_assertion(g, i);
		json_t *o = chk(d, json_object());

		set(d, o, "text", str(d, a->text));
		set(d, o, "result", str(d, sym_answer_name(a->result)));
		set(d, o, "witness", str(d, a->witness));
		set(d, o, "location", loc_obj(d, a->loc));
		push(d, arr, o);
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
	json_t *arr = chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_diagnostic *dg = sym_graph_diagnostic(g, i);
		int has = dg->loc.line > 0;
		json_t *o = chk(d, json_object());

		set(d, o, "severity",
		    str(d, report_severity_name(report_severity(d->r, dg))));
		set(d, o, "file", str(d, has ? dg->loc.file : NULL));
		set(d, o, "line", has ? num(d, dg->loc.line) : json_null());
		set(d, o, "col", has ? num(d, dg->loc.col) : json_null());
		set(d, o, "message", str(d, dg->message));
		set(d, o, "witness", str(d, dg->witness));
		set(d, o, "hint", str(d, dg->hint));
		push(d, arr, o);
	}
	return arr;
}

/* Return the whole report of "d" as one object. */
static json_t *
document(struct doc *d)
{
	const struct report *r = d->r;
	int64_t devices = sym_graph_devices(r->g);
	json_t *o = chk(d, json_object());

	set(d, o, "file", str(d, sym_graph_filename(r->g)));
	set(d, o, "devices", devices > 0 ? num(d, devices) : json_null());
	set(d, o, "operators", num(d, (int64_t)sym_graph_n_nodes(r->g)));
	set(d, o, "strict", json_boolean(r->strict));
	set(d, o, "valid", json_boolean(r->n_errors == 0));
	set(d, o, "errors", num(d, (int64_t)r->n_errors));
	set(d, o, "warnings", num(d, (int64_t)r->n_warnings));
	set(d, o, "symbols", symbols(d));
	set(d, o, "values", values(d));
	set(d, o, "relations", relations(d));
	set(d, o, "facts", facts(d));
	set(d, o, "guards", guards(d));
	set(d, o, "assertions", assertions(d));
	set(d, o, "diagnostics", diagnostics(d));
	set(d, o, "communication", chk(d, json_array()));
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
		text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		return -1;
	fputs(text, out);
	fputc('\n', out);
	free(text);
	return 0;
}
