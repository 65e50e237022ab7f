/* SPDX-License-Identifier: MIT */
/*
 * shape-check --dot: the sharded graph in Graphviz's DOT language. Inputs
 * and parameters are ellipses, operators boxes (outputs, operator,
 * strategy and how it was chosen, device matrix), outputs dashed ellipses;
 * every communication the sharding inserted is a small filled node on its
 * edge (one line per step: kind, axes, bytes; grey when it only slices). Edges are labelled with the
 * local shape of the tensor they carry: each rank's block, before and
 * after a communication. Graph order throughout, so the same input gives
 * the same file.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Write "s" to "out" as the inside of a DOT string: quotes and
 * backslashes escaped, newlines as \n. */
static void
put_escaped(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* Return the index of node "n" in the graph of "r". */
static size_t
node_index(const struct report *r, const sym_node *n)
{
	size_t k = sym_graph_n_nodes(r->g);

	for (size_t i = 0; i < k; i++)
		if (sym_graph_node(r->g, i) == n)
			return i;
	return 0;
}

/* Return the index of communication "c" in the graph of "r". */
static size_t
comm_index(const struct report *r, const sym_reshard *c)
{
	size_t k = sym_graph_n_reshards(r->g);

	for (size_t i = 0; i < k; i++)
		if (sym_graph_reshard(r->g, i) == c)
			return i;
	return 0;
}

/* Return the malloc'ed label of the tensor "v" under "l" on an edge: its
 * local shape, its global shape when it has no layout; prefixed by its
 * name when its producer has several outputs. */
static char *
edge_label(const sym_value *v, const sym_layout *l)
{
	sym_node *p = sym_value_producer(v);
	char *shape, *s;

	if (!sym_value_shape(v))
		shape = strdup("?");
	else if (l)
		shape = report_local_shape_text(v, l);
	else
		shape = sym_shape_to_str(sym_value_shape(v));
	if (!shape)
		return NULL;
	if (!p || sym_node_n_outputs(p) < 2)
		return shape;
	s = report_format("%s: %s", sym_value_name(v), shape);
	free(shape);
	return s;
}

/* Write the edge from "from" to "to" labelled "label" (taken) to "out";
 * return 0, or -1 when "label" is NULL. */
static int
edge(FILE *out, const char *from, const char *to, char *label)
{
	if (!label)
		return -1;
	fprintf(out, "\t%s -> %s [label=\"", from, to);
	put_escaped(out, label);
	fputs("\"];\n", out);
	free(label);
	return 0;
}

/* Write the node of input or parameter "v" (value "i") to "out"; 0 or
 * -1. */
static int
value_node(FILE *out, const sym_value *v, size_t i)
{
	char *shape = sym_value_shape(v) ? sym_shape_to_str(sym_value_shape(v))
	                                 : strdup("?");
	char *lay =
	    sym_value_layout(v) ? sym_layout_to_str(sym_value_layout(v)) : NULL;

	fprintf(out, "\tv%zu [shape=ellipse, label=\"", i);
	put_escaped(out, sym_value_name(v));
	fprintf(out, "\\n%s ", sym_value_kind_name(sym_value_get_kind(v)));
	put_escaped(out, shape ? shape : "?");
	if (lay) {
		fputs("\\n", out);
		put_escaped(out, lay);
	}
	fputs("\"];\n", out);
	free(shape);
	free(lay);
	return shape ? 0 : -1;
}

/* Write the node of operator "n" (node "i") to "out": its outputs and
 * operator, strategy, how it was chosen (up to the first ':') and device
 * matrix; 0 or -1. */
static int
op_node(FILE *out, const sym_node *n, size_t i)
{
	char *name = report_node_name(n), *st = sym_node_strategy_to_str(n);
	const char *src = sym_node_strategy_source(n);
	const sym_mesh *m = sym_node_mesh(n);
	char *ms = m ? sym_mesh_to_str(m) : NULL;

	fprintf(out, "\tn%zu [shape=box, label=\"", i);
	put_escaped(out, name ? name : "?");
	fputs(" = ", out);
	put_escaped(out, sym_node_op_name(n));
	if (st) {
		fputs("\\n", out);
		put_escaped(out, st);
	}
	if (src) {
		fputs("\\n", out);
		fwrite(src, 1, strcspn(src, ":"), out);
	}
	if (ms) {
		fputs("\\non ", out);
		put_escaped(out, ms);
	}
	if (!src && !st)
		fputs("\\nnot sharded", out);
	fputs("\"];\n", out);
	free(name);
	free(st);
	free(ms);
	return name ? 0 : -1;
}

/* Write the node of communication "c" (number "i") to "out": one line per
 * step, its kind, axes and bytes; orange when it communicates, grey when
 * it only slices locally. Return 0 or -1. */
static int
comm_node(FILE *out, const sym_reshard *c, size_t i)
{
	size_t n = sym_redist_n_steps(c->plan);
	int res = 0, local = 1;

	for (size_t s = 0; s < n; s++)
		local &= sym_redist_step_kind(c->plan, s) == SYM_REDIST_SLICE;
	fprintf(out,
	    "\tc%zu [shape=box, style=\"rounded,filled\", "
	    "fillcolor=\"%s\", fontsize=8, label=\"",
	    i, local ? "#e8e8e8" : "#ffe4b5");
	for (size_t s = 0; s < n; s++) {
		char *axes = report_step_axes(c->plan, s);
		char *bytes =
		    sym_expr_to_str(sym_redist_step_bytes(c->plan, s));
		sym_redist_kind kind = sym_redist_step_kind(c->plan, s);

		if (!axes || !bytes)
			res = -1;
		fprintf(out, "%s%s over ", s ? "\\n" : "",
		    sym_redist_kind_name(kind));
		put_escaped(out, axes ? axes : "?");
		if (kind == SYM_REDIST_SLICE) {
			fputs(" (local)", out);
		} else {
			fputs(", ", out);
			put_escaped(out, bytes ? bytes : "?");
			fputs(" bytes", out);
		}
		free(axes);
		free(bytes);
	}
	fputs("\"];\n", out);
	return res;
}

/* Write the edges that carry value "v" (number "i") of "r" to "out": from
 * its producer (or its node), through the resolution of its partial sums
 * and the redistributions its consumers need, to its consumers and its
 * output node. Return 0 or -1. */
static int
value_edges(const struct report *r, FILE *out, const sym_value *v, size_t i)
{
	const sym_node *p = sym_value_producer(v);
	const sym_reshard *c = sym_graph_find_reshard(r->g, v, NULL, 0);
	const sym_layout *l = sym_value_layout(v);
	size_t nn = sym_graph_n_nodes(r->g);
	char src[32], dst[32];
	int res = 0;

	snprintf(src, sizeof(src), p ? "n%zu" : "v%zu",
	    p ? node_index(r, p) : i);
	if (c) {
		snprintf(dst, sizeof(dst), "c%zu", comm_index(r, c));
		res |=
		    edge(out, src, dst, edge_label(v, sym_reshard_source(c)));
		memcpy(src, dst, sizeof(src));
	}
	for (size_t j = 0; j < nn; j++) {
		const sym_node *n = sym_graph_node(r->g, j);

		for (size_t k = 0; k < sym_node_n_inputs(n); k++) {
			if (sym_node_input(n, k) != v)
				continue;
			c = sym_graph_find_reshard(r->g, v, n, k);
			snprintf(dst, sizeof(dst), "n%zu", j);
			if (c && sym_reshard_shares(c)) {
				char first[32];

				snprintf(first, sizeof(first), "c%zu",
				    comm_index(r, sym_reshard_shares(c)));
				res |= edge(out, first, dst,
				    edge_label(v, sym_reshard_target(c)));
			} else if (c) {
				char via[32];

				snprintf(via, sizeof(via), "c%zu",
				    comm_index(r, c));
				res |= edge(out, src, via, edge_label(v, l));
				res |= edge(out, via, dst,
				    edge_label(v, sym_reshard_target(c)));
			} else {
				res |= edge(out, src, dst,
				    edge_label(v,
				        l ? l : sym_node_input_layout(n, k)));
			}
		}
	}
	if (report_is_output(r->g, v)) {
		snprintf(dst, sizeof(dst), "o%zu", i);
		res |= edge(out, src, dst, edge_label(v, l));
	}
	return res;
}

/* Write the sharded graph of "r" to "out" in the DOT language; 0, or -1
 * when out of memory. */
int
report_dot(const struct report *r, FILE *out)
{
	size_t nv = sym_graph_n_values(r->g), nn = sym_graph_n_nodes(r->g);
	size_t nc = sym_graph_n_reshards(r->g);
	const char *file = sym_graph_filename(r->g);
	int64_t devices = sym_graph_n_devices(r->g);
	int res = 0;

	fputs("digraph sharded {\n\tgraph [labelloc=t, fontname=\"Helvetica\", "
	      "label=\"",
	    out);
	put_escaped(out, file ? file : "<graph>");
	fprintf(out, ": %lld device%s%s\"];\n",
	    (long long)(devices > 0 ? devices : 1), devices > 1 ? "s" : "",
	    r->sharded ? "" : ", not sharded (errors)");
	fputs("\tnode [fontname=\"Helvetica\", fontsize=10];\n"
	      "\tedge [fontname=\"Helvetica\", fontsize=9];\n",
	    out);
	for (size_t i = 0; i < nv; i++) {
		const sym_value *v = sym_graph_value(r->g, i);

		if (!sym_value_producer(v))
			res |= value_node(out, v, i);
		if (report_is_output(r->g, v)) {
			fprintf(out,
			    "\to%zu [shape=ellipse, style=dashed, "
			    "label=\"output ",
			    i);
			put_escaped(out, sym_value_name(v));
			fputs("\"];\n", out);
		}
	}
	for (size_t j = 0; j < nn; j++)
		res |= op_node(out, sym_graph_node(r->g, j), j);
	for (size_t k = 0; k < nc; k++)
		if (!sym_reshard_shares(sym_graph_reshard(r->g, k)))
			res |= comm_node(out, sym_graph_reshard(r->g, k), k);
	for (size_t i = 0; i < nv; i++)
		res |= value_edges(r, out, sym_graph_value(r->g, i), i);
	fputs("}\n", out);
	return res ? -1 : 0;
}
