/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the cost of the sharded graph and the strategy search, in
 * both reports. "cost": the time of a step (computation and
 * communication, in femtoseconds) and the memory of a device (parameters,
 * gradients, optimizer state, activations) as expressions of the
 * symbols, and their values at the least sizes or at --bind; "search"
 * (with --auto or "parallel auto"): every piece of the plan with its
 * range of the searched symbol, the strategies of the searched operators
 * written as shard clauses, its time and memory, and the time the
 * search took.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

/* Release the cost of "r". */
void
report_cost_release(struct report *r)
{
	sym_cost_clear(&r->cost);
	r->has_cost = 0;
}

/* Compute the cost of the sharded graph of "r" (nothing when it is not
 * sharded or its plan is invalid); 0, or -1 when out of memory. */
int
report_cost_prepare(struct report *r)
{
	if (!r->sharded || r->n_errors)
		return 0;
	if (sym_graph_cost(r->g, r->topo, &r->cost) == 0) {
		r->has_cost = 1;
		return 0;
	}
	return sym_ctx_last_error(r->ctx) == SYM_ENOMEM ? -1 : 0;
}

/* The binding the numbers of the report of "r" are given at: --bind,
 * else every symbol at its least value. */
static const sym_binding *
cost_binding(const struct report *r)
{
	return r->bind ? r->bind : r->least;
}

/* Return the malloc'ed "EXPR fs" of "e" evaluated and written as
 * "12.3 us (EXPR fs)"; NULL when out of memory. */
static char *
time_text(const struct report *r, const sym_expr *e)
{
	char *x = sym_expr_to_str(e), *s;
	int64_t fs;

	if (!x)
		return NULL;
	if (sym_expr_eval(e, cost_binding(r), &fs) < 0)
		s = report_format("%s fs", x);
	else if (fs >= 1000000000000LL)
		s = report_format("%.3g ms  (%s fs)", (double)fs / 1e12, x);
	else
		s = report_format("%.3g us  (%s fs)", (double)fs / 1e9, x);
	free(x);
	return s;
}

/* Return the malloc'ed "1.5 MiB (EXPR bytes)" of the bytes "e" at the
 * binding of "r"; NULL when out of memory. */
static char *
bytes_text(const struct report *r, const sym_expr *e)
{
	char *x = sym_expr_to_str(e), *s;
	int64_t n;

	if (!x)
		return NULL;
	if (sym_expr_eval(e, cost_binding(r), &n) < 0)
		s = report_format("%s bytes", x);
	else if (n >= 1 << 30)
		s = report_format("%.3g GiB  (%s bytes)", (double)n / (1 << 30),
		    x);
	else if (n >= 1 << 20)
		s = report_format("%.3g MiB  (%s bytes)", (double)n / (1 << 20),
		    x);
	else
		s = report_format("%.3g KiB  (%s bytes)", (double)n / 1024, x);
	free(x);
	return s;
}

/* Add the rows of the cost of "r" to "t". */
static void
cost_rows(const struct report *r, struct table *t)
{
	const sym_cost *c = &r->cost;

	if (r->search)
		table_line(t, 2,
		    report_format("at %s, with piece %zu of the search",
		        r->bind ? "the binding of --bind" : "the least sizes",
		        r->piece + 1));
	else
		table_line(t, 2,
		    report_format("at %s",
		        r->bind ? "the binding of --bind" : "the least sizes"));
	table_add(t, text_dup("time"), time_text(r, c->time_fs), NULL, NULL);
	table_add(t, text_dup("  compute"), time_text(r, c->compute_fs), NULL,
	    NULL);
	table_add(t, text_dup("  communication"), time_text(r, c->comm_fs),
	    NULL, NULL);
	table_add(t, text_dup("memory"), bytes_text(r, c->memory_bytes), NULL,
	    NULL);
	table_add(t, text_dup("  parameters"), bytes_text(r, c->param_bytes),
	    NULL, NULL);
	table_add(t, text_dup("  gradients"), bytes_text(r, c->grad_bytes),
	    NULL, NULL);
	table_add(t, text_dup("  optimizer state"),
	    bytes_text(r, c->state_bytes), NULL, NULL);
	table_add(t, text_dup("  activations"),
	    bytes_text(r, c->activation_bytes), NULL, NULL);
}

/* Return the malloc'ed reason for the level of optimizer sharding of
 * piece "i" of the search "s", or NULL when there is nothing to say (the
 * search did not choose it and it is 0) or out of memory. */
static char *
optshard_reason(const sym_search *s, size_t i)
{
	int level = sym_search_piece_optimizer_shard(s, i);

	if (level < 0 || (!sym_search_chooses_optimizer_shard(s) && !level))
		return NULL;
	if (!sym_search_chooses_optimizer_shard(s))
		return report_format("the graph's parallel optimizer_shard=%d",
		    level);
	if (sym_search_piece_fit(s, i) != SYM_SEARCH_FITS)
		return report_format("chosen by the search: no plan fits the "
		                     "memory cap at any level (0, 1, 2, 3); "
		                     "this one needs the least");
	if (level == 0)
		return report_format("chosen by the search: a plan fits the "
		                     "memory cap without sharding the "
		                     "optimizer");
	return report_format("chosen by the search: it found no plan that "
	                     "fits the memory cap at level%s %s",
	    level > 1 ? "s" : "",
	    level > 2       ? "0, 1 and 2"
	        : level > 1 ? "0 and 1"
	                    : "0");
}

/* Return the malloc'ed range of symbol "k" in piece "i" of the search
 * "s": "8 <= b <= 176", "b >= 184" or "s = 8". */
static char *
symbol_range(const sym_search *s, size_t i, size_t k)
{
	const char *n = sym_symbol_name(sym_search_symbol(s, k));
	int64_t lo = 0, hi = 0;

	sym_search_piece_range(s, i, k, &lo, &hi);
	if (hi < 0)
		return report_format("%s >= %" PRId64, n, lo);
	if (hi == lo)
		return report_format("%s = %" PRId64, n, lo);
	return report_format("%" PRId64 " <= %s <= %" PRId64, lo, n, hi);
}

/* Return the malloc'ed range of piece "i" of the search of "r": "8 <= b
 * <= 176", "b >= 184, 16 <= s <= 64" or "every size". */
static char *
range_text(const struct report *r, size_t i)
{
	const sym_search *s = r->search;
	char *t = NULL;

	if (sym_search_n_symbols(s) == 0)
		return text_dup("every size");
	for (size_t k = 0; k < sym_search_n_symbols(s); k++) {
		char *one = symbol_range(s, i, k), *u;

		u = one
		    ? report_format("%s%s%s", t ? t : "", t ? ", " : "", one)
		    : NULL;
		free(one);
		free(t);
		t = u;
		if (!t)
			return NULL;
	}
	return t;
}

/* Return "s" for a count other than 1, else "". */
static const char *
plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* Return 1 when "x" is a symbol the search "s" ranges over. */
static int
searched_symbol(const sym_search *s, const sym_symbol *x)
{
	for (size_t k = 0; k < sym_search_n_symbols(s); k++)
		if (sym_search_symbol(s, k) == x)
			return 1;
	return 0;
}

/* Return, malloc'ed, the sizes the search of "r" holds the symbols it
 * does not range over at while it chooses (their least): " over b and
 * s; t = 8 held at its least while choosing", NULL when there are
 * none. */
static char *
held_text(const struct report *r)
{
	const sym_search *s = r->search;
	sym_ctx *ctx = sym_graph_ctx(r->g);
	char *t = NULL;
	size_t n = 0;

	for (size_t i = 0;
	     sym_search_n_symbols(s) && i < sym_ctx_n_symbols(ctx); i++) {
		const sym_symbol *x = sym_ctx_symbol(ctx, i);
		char *u;

		if (searched_symbol(s, x) || sym_symbol_origin(x) != x)
			continue;
		u = report_format("%s%s%s = %" PRId64, t ? t : "",
		    t ? ", " : "", sym_symbol_name(x), sym_symbol_least(x));
		free(t);
		t = u;
		if (!t)
			return NULL;
		n++;
	}
	if (t) {
		const sym_symbol *y = sym_search_symbol(s, 0);
		const sym_symbol *z = sym_search_symbol(s, 1);
		char *u = report_format(" over %s%s%s; %s held at %s least "
		                        "while choosing",
		    sym_symbol_name(y), z ? " and " : "",
		    z ? sym_symbol_name(z) : "", t, n > 1 ? "their" : "its");

		free(t);
		t = u;
	}
	return t;
}

/* Add the rows of the search of "r" to "t": its summary, then per piece
 * its range, time, memory and the strategies of the searched operators
 * as shard clauses. */
static void
search_rows(const struct report *r, struct table *t)
{
	const sym_search *s = r->search;

	char *held = held_text(r);

	if (sym_search_n_probes(s))
		table_line(t, 2,
		    report_format("%zu operator%s searched on a cost graph of "
		                  "%zu probe passes, %zu plan%s priced in "
		                  "%.3f s; %zu piece%s%s",
		        sym_search_n_nodes(s), plural(sym_search_n_nodes(s)),
		        sym_search_n_probes(s), sym_search_n_evaluations(s),
		        plural(sym_search_n_evaluations(s)),
		        sym_search_seconds(s), sym_search_n_pieces(s),
		        plural(sym_search_n_pieces(s)), held ? held : ""));
	else
		table_line(t, 2,
		    report_format("%zu operator%s searched, %zu plan%s priced "
		                  "in %.3f s; %zu piece%s%s",
		        sym_search_n_nodes(s), plural(sym_search_n_nodes(s)),
		        sym_search_n_evaluations(s),
		        plural(sym_search_n_evaluations(s)),
		        sym_search_seconds(s), sym_search_n_pieces(s),
		        plural(sym_search_n_pieces(s)), held ? held : ""));
	free(held);
	for (size_t k = 0; k < sym_search_n_meshes(s); k++)
		table_line(t, 2,
		    report_format("mesh %s", sym_search_mesh(s, k)));
	for (size_t i = 0; i < sym_search_n_pieces(s) && !t->oom; i++) {
		char *range = range_text(r, i);
		char *fs = sym_expr_to_str(sym_search_piece_femtoseconds(s, i));
		char *mem = sym_expr_to_str(sym_search_piece_memory(s, i));
		int fit = sym_search_piece_fit(s, i);

		if (fit == SYM_SEARCH_OVERFLOW)
			table_line(t, 2,
			    report_format("piece %zu: %s: no plan: the search "
			                  "stops where the time or memory of "
			                  "its plans overflows 64 bits",
			        i + 1, range ? range : "?"));
		else if (fit == SYM_SEARCH_OVER_MEMORY)
			table_line(t, 2,
			    report_format("piece %zu: %s: no plan fits the "
			                  "memory cap (the least needs %s "
			                  "bytes)",
			        i + 1, range ? range : "?", mem ? mem : "?"));
		else
			table_line(t, 2,
			    report_format("piece %zu: %s: %s fs, %s bytes",
			        i + 1, range ? range : "?", fs ? fs : "?",
			        mem ? mem : "?"));
		free(range);
		free(fs);
		free(mem);
		if ((range = optshard_reason(s, i)))
			table_add(t, text_dup("optimizer_shard"),
			    report_format("%d: %s",
			        sym_search_piece_optimizer_shard(s, i), range),
			    NULL, NULL);
		free(range);
		for (size_t j = 0;
		     fit == SYM_SEARCH_FITS && j < sym_search_n_nodes(s); j++)
			table_add(t, report_node_name(sym_search_node(s, j)),
			    report_format("shard %s",
			        sym_search_strategy(s, i, j)),
			    NULL, NULL);
	}
}

/* Print one section "title" of "r" to "out" with the rows "rows"; 0 or
 * -1 when out of memory. */
static int
print_section(const struct report *r, FILE *out, const char *title,
    void (*rows)(const struct report *, struct table *))
{
	struct table t = { NULL, 0, 0, 0 };

	fprintf(out, "\n%s\n", title);
	rows(r, &t);
	return table_print(&t, out);
}

/* Write the cost and search sections of the readable report of "r" to
 * "out" (none when there is no cost); 0, or -1 when out of memory. */
int
report_text_cost(const struct report *r, FILE *out)
{
	int res = 0;

	if (r->has_cost)
		res |= print_section(r, out, "cost", cost_rows);
	if (r->search)
		res |= print_section(r, out, "search", search_rows);
	return res;
}

/* Return the JSON string "1e-15*(EXPR)" of the femtoseconds "fs". */
static json_t *
seconds_str(struct doc *d, const sym_expr *fs)
{
	char *x = sym_expr_to_str(fs);
	char *s = x ? report_format("1e-15*(%s)", x) : NULL;

	free(x);
	return doc_str_take(d, s);
}

/* Return the JSON string of "e" (NULL: out of memory). */
static json_t *
expr_str(struct doc *d, const sym_expr *e)
{
	return doc_str_take(d, sym_expr_to_str(e));
}

/* Return the cost of the report of "d" as {seconds, femtoseconds,
 * compute_femtoseconds, communication_femtoseconds, memory_bytes,
 * parameter_bytes, gradient_bytes, state_bytes, activation_bytes,
 * optimizer_shard (under parallel optimizer_shard: the reduce_scatters
 * of gradients and all_gathers of updated params, the all_reduces they
 * replace and their seconds), at_binding}, or null when there is none. */
json_t *
json_cost(struct doc *d)
{
	const struct report *r = d->r;
	const sym_cost *c = &r->cost;
	json_t *o, *at;
	int64_t fs, mem;

	if (!r->has_cost)
		return json_null();
	o = doc_chk(d, json_object());
	doc_set(d, o, "seconds", seconds_str(d, c->time_fs));
	doc_set(d, o, "memory_bytes", expr_str(d, c->memory_bytes));
	doc_set(d, o, "femtoseconds", expr_str(d, c->time_fs));
	doc_set(d, o, "compute_femtoseconds", expr_str(d, c->compute_fs));
	doc_set(d, o, "communication_femtoseconds", expr_str(d, c->comm_fs));
	doc_set(d, o, "flops", expr_str(d, c->flops));
	doc_set(d, o, "parameter_bytes", expr_str(d, c->param_bytes));
	doc_set(d, o, "gradient_bytes", expr_str(d, c->grad_bytes));
	doc_set(d, o, "state_bytes", expr_str(d, c->state_bytes));
	doc_set(d, o, "activation_bytes", expr_str(d, c->activation_bytes));
	if (sym_sharding_optimizer_shard(sym_graph_sharding(r->g)) >= 1) {
		json_t *os = doc_chk(d, json_object());
		size_t rs, ag;
		double sec;

		report_optshard_comms(r, &rs, &ag, &sec);
		doc_set(d, os, "level",
		    doc_num(d,
		        sym_sharding_optimizer_shard(
		            sym_graph_sharding(r->g))));
		doc_set(d, os, "reduce_scatters", doc_num(d, (int64_t)rs));
		doc_set(d, os, "all_gathers", doc_num(d, (int64_t)ag));
		doc_set(d, os, "replaced_all_reduces", doc_num(d, (int64_t)rs));
		doc_set(d, os, "seconds",
		    sec < 0 ? json_null() : doc_chk(d, json_real(sec)));
		doc_set(d, o, "optimizer_shard", os);
	}
	if (r->bind && sym_expr_eval(c->time_fs, r->bind, &fs) == 0 &&
	    sym_expr_eval(c->memory_bytes, r->bind, &mem) == 0) {
		at = doc_chk(d, json_object());
		doc_set(d, at, "seconds",
		    doc_chk(d, json_real((double)fs / 1e15)));
		doc_set(d, at, "memory_bytes", doc_num(d, mem));
		doc_set(d, o, "at_binding", at);
	}
	return o;
}

/* Return piece "i" of the search of "d" as {range, fit, strategies,
 * seconds, femtoseconds, memory_bytes}: "fit" "fits", "over_memory" (the
 * plan needing the least memory) or "overflow" (no plan: no
 * strategies, the expressions null). */
static json_t *
json_piece(struct doc *d, size_t i)
{
	const sym_search *s = d->r->search;
	json_t *o = doc_chk(d, json_object()), *range, *st, *lh;
	int fit = sym_search_piece_fit(s, i);
	char *why;

	range = doc_chk(d, json_object());
	for (size_t k = 0; k < sym_search_n_symbols(s); k++) {
		int64_t lo = 0, hi = 0;

		sym_search_piece_range(s, i, k, &lo, &hi);
		lh = doc_chk(d, json_array());
		doc_push(d, lh, doc_num(d, lo));
		doc_push(d, lh, hi < 0 ? json_null() : doc_num(d, hi));
		doc_set(d, range, sym_symbol_name(sym_search_symbol(s, k)), lh);
	}
	doc_set(d, o, "range", range);
	doc_set(d, o, "fit",
	    doc_str(d,
	        fit == SYM_SEARCH_FITS              ? "fits"
	            : fit == SYM_SEARCH_OVER_MEMORY ? "over_memory"
	                                            : "overflow"));
	st = doc_chk(d, json_object());
	for (size_t j = 0;
	     fit != SYM_SEARCH_OVERFLOW && j < sym_search_n_nodes(s); j++) {
		char *name = report_node_name(sym_search_node(s, j));

		if (!name) {
			d->oom = 1;
			continue;
		}
		doc_set(d, st, name, doc_str(d, sym_search_strategy(s, i, j)));
		free(name);
	}
	doc_set(d, o, "strategies", st);
	why = optshard_reason(s, i);
	if (why) {
		json_t *os = doc_chk(d, json_object());

		doc_set(d, os, "level",
		    doc_num(d, sym_search_piece_optimizer_shard(s, i)));
		doc_set(d, os, "chosen",
		    json_boolean(sym_search_chooses_optimizer_shard(s)));
		doc_set(d, os, "reason", doc_str(d, why));
		doc_set(d, o, "optimizer_shard", os);
		free(why);
	}
	if (fit == SYM_SEARCH_OVERFLOW) {
		doc_set(d, o, "seconds", json_null());
		doc_set(d, o, "femtoseconds", json_null());
		doc_set(d, o, "memory_bytes", json_null());
		return o;
	}
	doc_set(d, o, "seconds",
	    seconds_str(d, sym_search_piece_femtoseconds(s, i)));
	doc_set(d, o, "femtoseconds",
	    expr_str(d, sym_search_piece_femtoseconds(s, i)));
	doc_set(d, o, "memory_bytes",
	    expr_str(d, sym_search_piece_memory(s, i)));
	return o;
}

/* Return the search of the report of "d" as {pieces, piece,
 * seconds_searched, operators_searched, plans_priced, probe_passes,
 * meshes, held}, or null when it did not search; "piece" is the index of
 * the piece the graph is sharded with (the cost's); "held" maps the
 * symbols the pieces do not range over to the size (their least) the
 * search chose at. */
json_t *
json_search(struct doc *d)
{
	const sym_search *s = d->r->search;
	const sym_symbol *y = sym_search_symbol(s, 0);
	sym_ctx *ctx = sym_graph_ctx(d->r->g);
	json_t *o, *pieces, *meshes, *held;

	if (!s)
		return json_null();
	o = doc_chk(d, json_object());
	pieces = doc_chk(d, json_array());
	for (size_t i = 0; i < sym_search_n_pieces(s); i++)
		doc_push(d, pieces, json_piece(d, i));
	doc_set(d, o, "pieces", pieces);
	doc_set(d, o, "piece", doc_num(d, (int64_t)d->r->piece));
	doc_set(d, o, "seconds_searched",
	    doc_chk(d, json_real(sym_search_seconds(s))));
	doc_set(d, o, "operators_searched",
	    doc_num(d, (int64_t)sym_search_n_nodes(s)));
	doc_set(d, o, "plans_priced",
	    doc_num(d, (int64_t)sym_search_n_evaluations(s)));
	doc_set(d, o, "probe_passes",
	    doc_num(d, (int64_t)sym_search_n_probes(s)));
	meshes = doc_chk(d, json_array());
	for (size_t k = 0; k < sym_search_n_meshes(s); k++)
		doc_push(d, meshes,
		    doc_chk(d, json_string(sym_search_mesh(s, k))));
	doc_set(d, o, "meshes", meshes);
	held = doc_chk(d, json_object());
	for (size_t i = 0; y && i < sym_ctx_n_symbols(ctx); i++) {
		const sym_symbol *x = sym_ctx_symbol(ctx, i);

		if (!searched_symbol(s, x) && sym_symbol_origin(x) == x)
			doc_set(d, held, sym_symbol_name(x),
			    doc_num(d, sym_symbol_least(x)));
	}
	doc_set(d, o, "held", held);
	return o;
}
