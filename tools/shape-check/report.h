/* SPDX-License-Identifier: MIT */
/*
 * shape-check: what its two report writers (readable text, JSON) share.
 */
#ifndef SHAPE_CHECK_REPORT_H
#define SHAPE_CHECK_REPORT_H

#include <stdio.h>

#include <symshard.h>

/* A checked graph and how to report it. */
struct report {
	sym_ctx *ctx;
	sym_graph *g;
	int strict;               /* --strict: warnings count as errors */
	int overridden;           /* --devices replaced the file's devices */
	int64_t file_devices;     /* what the file said (0: nothing) */
	size_t n_errors;          /* with --strict applied */
	size_t n_warnings;        /* with --strict applied */
	int sharded;              /* sym_graph_shard ran (no error before it) */
	const sym_topology *topo; /* --topology, --rank-table, or NULL */
	sym_binding *least;       /* every symbol at its least value */
	char *least_text;         /* "b = 8" for the declared symbols, or "" */
	char *topo_text;          /* the topology in force, in one line */
	sym_binding *bind;        /* --bind, or NULL */
	int64_t rank;             /* --rank, or -1: every rank */
	sym_plan *plan;           /* compiled for --bind, or NULL */
	sym_slices *slices;       /* bound at "bind", or NULL */
	const char *slices_note;  /* why there are no slices */
	sym_cost cost;            /* of the sharded graph, when has_cost */
	int has_cost;
	sym_search *search; /* --auto, --memory, "parallel auto"; or NULL */
	size_t piece; /* the piece of "search" the graph is sharded with */
};

/* A growing string; "oom" is set by the first failed allocation. */
struct strbuf {
	char *s;
	size_t len, cap;
	int oom;
};

/* Return a malloc'ed string formatted from "fmt", or NULL. */
char *report_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Append the text formatted from "fmt" to "b". */
void strbuf_add(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Return the malloc'ed text of "b" ("" when empty), which is reset; NULL
 * when it ran out of memory. */
char *strbuf_take(struct strbuf *b);

/* The readable report's tables (table.c): rows of malloc'ed cells
 * printed with aligned columns; the last non-empty cell of a row is not
 * padded. A line is a row of one cell that spans the table: it is printed
 * as it is and takes no part in the widths of the columns. */
#define TABLE_COLS 6

struct table_row {
	char *cell[TABLE_COLS];
	int indent; /* spaces before the first cell */
	int line;   /* a line, not a row of cells */
};

struct table {
	struct table_row *row;
	size_t n, cap;
	int oom;
};

/* Return a malloc'ed copy of "s" (NULL for NULL). */
char *text_dup(const char *s);

/* Add to "t" a row of the cells "c0" .. "c3" (taken, malloc'ed; NULL is
 * an empty cell), indented by two spaces. */
void table_add(struct table *t, char *c0, char *c1, char *c2, char *c3);

/* Add to "t" a row of the "n" cells "c" (taken), indented by "indent"
 * spaces. */
void table_row(struct table *t, int indent, size_t n, char **c);

/* Add to "t" the line "text" (taken), indented by "indent" spaces. */
void table_line(struct table *t, int indent, char *text);

/* Print the rows of "t" to "out", or "  none" when it is empty; free the
 * cells. Return 0, or -1 when "t" ran out of memory. */
int table_print(struct table *t, FILE *out);

/* Fill in the counts of "r" from its graph's diagnostics. */
void report_count(struct report *r);

/* Return the severity of "d" once the options of "r" are applied. */
sym_severity report_severity(const struct report *r, const sym_diagnostic *d);

/* Return 1 when the value "v" is an output of "g". */
int report_is_output(const sym_graph *g, const sym_value *v);

/* Return the declared shape of "v" when it differs from its unified
 * shape, else NULL. */
const sym_shape *report_declared_if_different(const sym_value *v);

/* Return the malloc'ed text of "sym"'s declaration without its name
 * ("divisor=8 unique", "instance of b", "" when it has no option), or
 * NULL when out of memory. */
char *report_symbol_decl(const sym_symbol *sym);

/* Return the malloc'ed list of the first admissible values of "sym",
 * "8, 16, 24, ..." or "128, 256, 384, ..., 8192", or NULL when out of
 * memory. */
char *report_symbol_values(const sym_symbol *sym);

/* The cost and the search (cost.c): compute the cost of the
 * sharded graph of "r" (0, or -1 when out of memory), release it, and
 * write the "cost" and "search" sections of the readable report (0 or
 * -1). */
int report_cost_prepare(struct report *r);
void report_cost_release(struct report *r);
int report_text_cost(const struct report *r, FILE *out);

/* Sharding facts both report writers, the picture and the graph share
 * (shard.c). */

/* Fill in the binding of "r" to the least values of its symbols, its
 * text and the text of the topology; 0, or -1 when out of memory. */
int report_shard_prepare(struct report *r);

/* Release what report_shard_prepare set up in "r". */
void report_shard_release(struct report *r);

/* Return the malloc'ed "(d0, None) on (d0=8, d1=1)" of "l", NULL when
 * out of memory. */
char *report_layout_text(const sym_layout *l);

/* Return the malloc'ed MindSpore tensor map of "l", "(0, (1, 2))", or NULL
 * when out of memory. */
char *report_tensor_map_text(const sym_layout *l);

/* Return the malloc'ed local shape of "v" under "l" (NULL: the layout of
 * "v"), "f32[b floordiv 8, 784]", "?" when unknown; NULL when out of
 * memory. */
char *report_local_shape_text(const sym_value *v, const sym_layout *l);

/* Return the malloc'ed names of the outputs of "n", "h1" or "q, k". */
char *report_node_name(const sym_node *n);

/* Return the step of "plan" that stands for it: its first step that
 * communicates, else its first. */
size_t report_principal_step(const sym_redist *plan);

/* Return the malloc'ed axes of step "i" of "plan", "k" or "(d0, rep)". */
char *report_step_axes(const sym_redist *plan, size_t i);

/* Return the malloc'ed tensor dimensions step "i" of "plan" moves, "dim 0
 * -> dim 1", "from dim 0", "to dim 0" or "". */
char *report_step_dims(const sym_redist *plan, size_t i);

/* Return the malloc'ed rank groups of step "i" of "plan", "2 groups of 4:
 * {0,1,2,3} {4,5,6,7}", at most "max" groups listed ("..." after them),
 * with " across nodes" when one spans nodes of the topology of "r". */
char *report_step_groups(const struct report *r, const sym_redist *plan,
    size_t i, size_t max);

/* Return 1 when some group of step "i" of "plan", not a slice, spans two
 * nodes of the topology of "r". */
int report_step_across_nodes(const struct report *r, const sym_redist *plan,
    size_t i);

/* Return the estimated time of step "i" of "plan" in seconds with every
 * symbol at its least value, or -1 when it cannot be evaluated. */
double report_step_seconds(const struct report *r, const sym_redist *plan,
    size_t i);

/* Return "s" seconds as "5.57 us", "1.2 ms" or "?" in "buf" of "size"
 * bytes. */
const char *report_seconds_text(char *buf, size_t size, double s);
void report_optshard_comms(const struct report *r, size_t *rs, size_t *ag,
    double *seconds);

/* Print the sections "layouts", "strategies" and "communication" of
 * "r" to "out" (text_shard.c); 0, or -1 when out of memory. */
int report_text_sharding(const struct report *r, FILE *out);

/* The slice plan at the sizes --bind gives (slices.c). */

/* Compile the plan of the graph of "r" (when it has no error) and bind it
 * at "b" (kept by "r"). Return 0 when the slices are bound or a
 * diagnostic of the graph says why not; -1 for a usage error, -2 for an
 * internal one, with the message in "*why" (malloc'ed). */
int report_slices_prepare(struct report *r, sym_binding *b, char **why);

/* Release the plan and the slices of "r". */
void report_slices_release(struct report *r);

/* Print the section "slices" of "r" to "out" when --bind was given; 0,
 * or -1 when out of memory. */
int report_text_slices(const struct report *r, FILE *out);

/* Write the readable report of "r" to "out"; 0, or -1 when out of
 * memory. */
int report_text(const struct report *r, FILE *out);

/* Write the JSON report of "r" to "out"; 0, or -1 when out of memory. */
int report_json(const struct report *r, FILE *out);

/* Write to "out" the SVG picture of which rank holds which block of the
 * value "v" of "r" (svg.c); 0, or -1 when out of memory. */
int report_svg(const struct report *r, const sym_value *v, FILE *out);

/* Write to "out" the sharded graph of "r" in Graphviz's DOT language
 * (dot.c); 0, or -1 when out of memory. */
int report_dot(const struct report *r, FILE *out);

#endif
