/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the slice plan of a checked graph at the sizes --bind
 * gives (sym_plan(3)): the "slices" section of the readable report and
 * the "binding" and "slices" members of the JSON report, with the offset
 * and the local size of every input and output of every kernel step, on
 * the rank --rank names or on every rank.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Set up the plan of "r" at the binding "b" (kept by "r"): compile the
 * plan of its graph, when it has no error, and bind it. Return 0 when the
 * slices are bound or a diagnostic says why not (a violated constraint
 * becomes an error of the graph, located where the constraint was
 * written); -1 with the message in "*why" (malloc'ed) for what is a
 * usage error (a symbol without value), -2 for an internal error. */
int
report_slices_prepare(struct report *r, sym_binding *b, char **why)
{
	sym_loc at;

	*why = NULL;
	r->bind = b;
	if (sym_graph_n_errors(r->g) > 0) {
		r->slices_note = "not computed: the graph has errors";
		return 0;
	}
	r->plan = sym_plan_compile(r->g, 0);
	if (!r->plan) {
		*why = report_format("cannot compile the plan: %s",
		    sym_ctx_last_message(r->ctx));
		return -2;
	}
	r->slices = sym_slices_new(r->plan);
	if (!r->slices) {
		*why = text_dup("out of memory");
		return -2;
	}
	if (r->rank >= sym_plan_n_ranks(r->plan)) {
		*why = report_format("--rank %lld: the ranks of the plan are 0 "
		                     "to %lld",
		    (long long)r->rank,
		    (long long)sym_plan_n_ranks(r->plan) - 1);
		return -1;
	}
	if (sym_plan_bind(r->plan, b, r->slices) == 0)
		return 0;
	if (sym_ctx_last_error(r->ctx) == SYM_EUNBOUND &&
	    !sym_binding_n_symbols(b)) {
		*why = report_format("--rank without --bind: %s",
		    sym_slices_error(r->slices));
		return -1;
	}
	at = sym_ctx_last_location(r->ctx);
	sym_graph_error(r->g, at.line > 0 ? &at : NULL,
	    sym_slices_error(r->slices));
	r->slices_note = "not computed: the binding is rejected (see the "
	                 "diagnostics)";
	return 0;
}

/* Release the plan and slices of "r". */
void
report_slices_release(struct report *r)
{
	sym_slices_free(r->slices);
	sym_plan_free(r->plan);
	r->slices = NULL;
	r->plan = NULL;
}

/* Return "[1, 2]" for the "n" integers "v", malloc'ed. */
static char *
ints_text(const int64_t *v, size_t n)
{
	struct strbuf b = { NULL, 0, 0, 0 };

	strbuf_add(&b, "[");
	for (size_t i = 0; i < n; i++)
		strbuf_add(&b, "%s%lld", i ? ", " : "", (long long)v[i]);
	strbuf_add(&b, "]");
	return strbuf_take(&b);
}

/* Return the values of the binding of "r" in the order of the plan's
 * symbols, "b = 40, s = 256", malloc'ed. */
static char *
binding_text(const struct report *r)
{
	struct strbuf b = { NULL, 0, 0, 0 };
	size_t n = sym_plan_n_symbols(r->plan);

	for (size_t i = 0; i < n; i++) {
		sym_symbol *s = sym_plan_symbol(r->plan, i);

		strbuf_add(&b, "%s%s = %lld", i ? ", " : "", sym_symbol_name(s),
		    (long long)sym_slices_symbol(r->slices, s));
	}
	if (n == 0)
		strbuf_add(&b, "no symbols to bind");
	return strbuf_take(&b);
}

/* Store in "off" and "size" the offset and the local size of tensor "t"
 * of "r" on "rank"; 0 or -1. */
static int
slice_of(const struct report *r, size_t t, int64_t rank, int64_t *off,
    int64_t *size)
{
	if (sym_slices_offset(r->slices, t, rank, off) < 0 ||
	    sym_slices_local(r->slices, t, size) < 0)
		return -1;
	return 0;
}

/* Add to "t" the rows of tensor "x" ("dir": "in" or "out") of the kernel
 * step labelled "label" (taken; NULL after the first row) on "rank". */
static void
tensor_row(const struct report *r, struct table *t, char **label,
    const char *dir, size_t x, int64_t rank)
{
	size_t n = sym_plan_tensor_ndim(r->plan, x);
	int64_t *v = malloc((2 * n + 1) * sizeof(*v));
	char *c[5];

	if (!v || slice_of(r, x, rank, v, v + n) < 0) {
		free(v);
		t->oom = 1;
		return;
	}
	c[0] = *label ? *label : text_dup("");
	*label = NULL;
	c[1] = text_dup(dir);
	c[2] = text_dup(sym_value_name(sym_plan_tensor_value(r->plan, x)));
	c[3] = ints_text(v, n);
	c[4] = ints_text(v + n, n);
	free(v);
	if (!c[0] || !c[1] || !c[2] || !c[3] || !c[4])
		t->oom = 1;
	if (c[3]) {
		char *o = report_format("offset %s", c[3]);

		free(c[3]);
		c[3] = o;
	}
	if (c[4]) {
		char *s = report_format("size %s", c[4]);

		free(c[4]);
		c[4] = s;
	}
	table_row(t, 4, 5, c);
}

/* Add to "t" the kernel steps of "r" on "rank": per step its operator,
 * then each input and output with its offset and local size. */
static void
rank_rows(const struct report *r, struct table *t, int64_t rank)
{
	size_t n = sym_plan_n_steps(r->plan);

	table_line(t, 2, report_format("rank %lld", (long long)rank));
	for (size_t i = 0; i < n && !t->oom; i++) {
		const sym_plan_step *s = sym_plan_get_step(r->plan, i);
		char *name, *label;

		if (s->kind != SYM_PLAN_KERNEL)
			continue;
		name = report_node_name(s->node);
		label = name
		    ? report_format("%s %s", sym_node_op_name(s->node), name)
		    : NULL;
		free(name);
		if (!label) {
			t->oom = 1;
			return;
		}
		for (size_t k = 0; k < s->n_in; k++)
			tensor_row(r, t, &label, "in", s->in[k], rank);
		for (size_t k = 0; k < s->n_out; k++)
			tensor_row(r, t, &label, "out", s->out[k], rank);
		free(label);
	}
}

/* Print the section "slices" of "r" to "out" when --bind was given: the
 * binding, then on each rank asked for the offset and local size of every
 * input and output of every kernel step. Return 0, or -1 when out of
 * memory. */
int
report_text_slices(const struct report *r, FILE *out)
{
	struct table t = { NULL, 0, 0, 0 };
	int64_t lo, hi;
	char *text;

	if (!r->bind)
		return 0;
	fputs("\nslices\n", out);
	if (!r->slices || !sym_slices_is_bound(r->slices)) {
		fprintf(out, "  %s\n",
		    r->slices_note ? r->slices_note : "not computed");
		return 0;
	}
	lo = r->rank >= 0 ? r->rank : 0;
	hi = r->rank >= 0 ? r->rank + 1 : sym_plan_n_ranks(r->plan);
	text = binding_text(r);
	table_line(&t, 2,
	    text ? report_format(sym_plan_n_symbols(r->plan) ? "at %s" : "%s",
	               text)
	         : NULL);
	free(text);
	for (int64_t rank = lo; rank < hi && !t.oom; rank++)
		rank_rows(r, &t, rank);
	return table_print(&t, out);
}

/* Return the binding of "r" as {symbol: value}, in the order of the
 * plan's symbols, or null when the slices are not bound. */
json_t *
json_binding(struct doc *d)
{
	const struct report *r = d->r;
	json_t *o;

	if (!r->slices || !sym_slices_is_bound(r->slices))
		return doc_chk(d, json_null());
	o = doc_chk(d, json_object());
	for (size_t i = 0; i < sym_plan_n_symbols(r->plan); i++) {
		sym_symbol *s = sym_plan_symbol(r->plan, i);

		doc_set(d, o, sym_symbol_name(s),
		    doc_num(d, sym_slices_symbol(r->slices, s)));
	}
	return o;
}

/* Return the array of "n" integers "v". */
static json_t *
ints_array(struct doc *d, const int64_t *v, size_t n)
{
	json_t *a = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++)
		doc_push(d, a, doc_num(d, v[i]));
	return a;
}

/* Append to "arr" the slice of tensor "x" ("dir" "in" or "out") of step
 * "i" of "r" on "rank". */
static void
json_slice(struct doc *d, json_t *arr, size_t i, const char *dir, size_t x,
    int64_t rank)
{
	const struct report *r = d->r;
	const sym_plan_step *s = sym_plan_get_step(r->plan, i);
	size_t n = sym_plan_tensor_ndim(r->plan, x);
	int64_t *v = malloc((2 * n + 1) * sizeof(*v));
	json_t *o = doc_chk(d, json_object());
	char *name = report_node_name(s->node);

	if (!v || !name || slice_of(r, x, rank, v, v + n) < 0) {
		d->oom = 1;
		free(v);
		free(name);
		json_decref(o);
		return;
	}
	doc_set(d, o, "rank", doc_num(d, rank));
	doc_set(d, o, "step", doc_num(d, (int64_t)i));
	doc_set(d, o, "op", doc_str(d, sym_node_op_name(s->node)));
	doc_set(d, o, "node", doc_str_take(d, name));
	doc_set(d, o, "io", doc_str(d, dir));
	doc_set(d, o, "value",
	    doc_str(d, sym_value_name(sym_plan_tensor_value(r->plan, x))));
	doc_set(d, o, "tensor", doc_num(d, (int64_t)x));
	doc_set(d, o, "offset", ints_array(d, v, n));
	doc_set(d, o, "size", ints_array(d, v + n, n));
	free(v);
	doc_push(d, arr, o);
}

/* Return the slices of "r" as an array of {rank, step, op, node, io,
 * value, tensor, offset, size}: every input and output of every kernel
 * step on the rank asked for or on every rank; null when not bound. */
json_t *
json_slices(struct doc *d)
{
	const struct report *r = d->r;
	int64_t lo, hi;
	json_t *arr;

	if (!r->slices || !sym_slices_is_bound(r->slices))
		return doc_chk(d, json_null());
	arr = doc_chk(d, json_array());
	lo = r->rank >= 0 ? r->rank : 0;
	hi = r->rank >= 0 ? r->rank + 1 : sym_plan_n_ranks(r->plan);
	for (int64_t rank = lo; rank < hi; rank++)
		for (size_t i = 0; i < sym_plan_n_steps(r->plan); i++) {
			const sym_plan_step *s = sym_plan_get_step(r->plan, i);

			if (s->kind != SYM_PLAN_KERNEL)
				continue;
			for (size_t k = 0; k < s->n_in; k++)
				json_slice(d, arr, i, "in", s->in[k], rank);
			for (size_t k = 0; k < s->n_out; k++)
				json_slice(d, arr, i, "out", s->out[k], rank);
		}
	return arr;
}
