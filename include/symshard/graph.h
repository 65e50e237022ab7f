/* SPDX-License-Identifier: MIT */
/*
 * symshard: graphs of operators over symbolic shapes (sym_graph(3)).
 */
#ifndef SYMSHARD_GRAPH_H
#define SYMSHARD_GRAPH_H

#include <stdio.h>

#include <symshard/common.h>
#include <symshard/ctx.h>
#include <symshard/shape.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_graph sym_graph;
typedef struct sym_value sym_value;
typedef struct sym_node sym_node;

typedef enum sym_value_kind {
	SYM_VALUE_INPUT,
	SYM_VALUE_PARAM,
	SYM_VALUE_RESULT
} sym_value_kind;

typedef enum sym_severity {
	SYM_SEV_ERROR,
	SYM_SEV_WARNING,
	SYM_SEV_NOTE
} sym_severity;

/* A diagnostic of a graph: located, with a witness when a claim was
 * refuted. The strings belong to the graph. */
typedef struct sym_diagnostic {
	sym_severity severity;
	sym_loc loc;
	const char *message;
	const char *witness; /* "b = 12", or NULL */
	const char *hint;    /* "declare b with divisor=8", or NULL */
	const sym_binding *witness_binding; /* the witness's values, or NULL */
} sym_diagnostic;

/* A relation derived between dynamic dimensions by unification. */
typedef struct sym_relation {
	sym_symbol *var; /* the variable eliminated */
	sym_expr *value; /* what it equals (owned by the graph) */
	sym_loc loc;     /* the operator that required it */
	const char *reason;
} sym_relation;

/* A requirement the prover could not decide: checked when sizes are
 * bound at run time. */
typedef struct sym_guard {
	const char *text; /* "b mod 3 == 0" */
	sym_loc loc;
	const char *reason;
} sym_guard;

/* An assert statement and its answer. */
typedef struct sym_assertion {
	const char *text; /* as written ("s mod 8 == 0") */
	sym_loc loc;
	sym_answer result;
	const char *witness;                /* for SYM_FALSE */
	const char *normal;                 /* in normal form ("4 == 0") */
	const sym_binding *witness_binding; /* the witness's values, or NULL */
} sym_assertion;

SYM_EXPORT SYM_GIVE sym_graph *sym_graph_new(SYM_KEEP sym_ctx *ctx);
SYM_EXPORT void sym_graph_free(SYM_TAKE sym_graph *g);
SYM_EXPORT SYM_KEEP sym_ctx *sym_graph_ctx(SYM_KEEP const sym_graph *g);

SYM_EXPORT SYM_GIVE sym_graph *sym_graph_parse(SYM_KEEP sym_ctx *ctx,
    const char *text, const char *filename);
SYM_EXPORT SYM_GIVE sym_graph *sym_graph_parse_file(SYM_KEEP sym_ctx *ctx,
    const char *path);
SYM_EXPORT SYM_GIVE sym_graph *sym_graph_parse_stream(SYM_KEEP sym_ctx *ctx,
    FILE *f, const char *filename);
SYM_EXPORT SYM_KEEP const char *sym_graph_source(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP const char *sym_graph_filename(SYM_KEEP const sym_graph *g);

SYM_EXPORT int sym_graph_set_devices(SYM_KEEP sym_graph *g, int64_t n,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int64_t sym_graph_n_devices(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP sym_value *sym_graph_add_input(SYM_KEEP sym_graph *g,
    const char *name, sym_value_kind kind, SYM_KEEP const sym_shape *shape,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT SYM_KEEP sym_node *sym_graph_add_op(SYM_KEEP sym_graph *g,
    const char *op, size_t n_out, const char *const *out_names, size_t n_in,
    SYM_KEEP sym_value *const *in, SYM_KEEP const sym_attrs *attrs,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_graph_mark_output(SYM_KEEP sym_graph *g,
    SYM_KEEP sym_value *v, SYM_KEEP const sym_loc *where);
SYM_EXPORT sym_answer sym_graph_assert(SYM_KEEP sym_graph *g,
    SYM_KEEP const sym_expr *lhs, sym_cmp op, SYM_KEEP const sym_expr *rhs,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_graph_add_relation(SYM_KEEP sym_graph *g,
    SYM_KEEP const sym_expr *lhs, sym_cmp op, SYM_KEEP const sym_expr *rhs,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_graph_error(SYM_KEEP sym_graph *g,
    SYM_KEEP const sym_loc *where, const char *message);

SYM_EXPORT SYM_KEEP sym_value *sym_graph_find_value(SYM_KEEP const sym_graph *g,
    const char *name);
SYM_EXPORT size_t sym_graph_n_values(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP sym_value *sym_graph_value(SYM_KEEP const sym_graph *g,
    size_t i);
SYM_EXPORT size_t sym_graph_n_nodes(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP sym_node *sym_graph_node(SYM_KEEP const sym_graph *g,
    size_t i);
SYM_EXPORT size_t sym_graph_n_outputs(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP sym_value *sym_graph_output(SYM_KEEP const sym_graph *g,
    size_t i);

SYM_EXPORT SYM_KEEP const char *sym_value_name(SYM_KEEP const sym_value *v);
SYM_EXPORT sym_value_kind sym_value_get_kind(SYM_KEEP const sym_value *v);
SYM_EXPORT SYM_KEEP const char *sym_value_kind_name(sym_value_kind kind);
SYM_EXPORT SYM_KEEP const sym_shape *
sym_value_shape(SYM_KEEP const sym_value *v);
SYM_EXPORT SYM_KEEP const sym_shape *
sym_value_declared_shape(SYM_KEEP const sym_value *v);
SYM_EXPORT SYM_KEEP sym_node *sym_value_producer(SYM_KEEP const sym_value *v);
SYM_EXPORT sym_loc sym_value_location(SYM_KEEP const sym_value *v);
SYM_EXPORT int sym_value_set_data(SYM_KEEP sym_value *v, const void *data,
    size_t bytes);
SYM_EXPORT SYM_KEEP const void *sym_value_data(SYM_KEEP const sym_value *v,
    size_t *bytes);

SYM_EXPORT SYM_KEEP const char *sym_node_op_name(SYM_KEEP const sym_node *n);
SYM_EXPORT SYM_KEEP const sym_op *sym_node_op(SYM_KEEP const sym_node *n);
SYM_EXPORT size_t sym_node_n_inputs(SYM_KEEP const sym_node *n);
SYM_EXPORT SYM_KEEP sym_value *sym_node_input(SYM_KEEP const sym_node *n,
    size_t i);
SYM_EXPORT size_t sym_node_n_outputs(SYM_KEEP const sym_node *n);
SYM_EXPORT SYM_KEEP sym_value *sym_node_output(SYM_KEEP const sym_node *n,
    size_t i);
SYM_EXPORT SYM_KEEP const sym_attrs *sym_node_attrs(SYM_KEEP const sym_node *n);
SYM_EXPORT sym_loc sym_node_location(SYM_KEEP const sym_node *n);

SYM_EXPORT size_t sym_graph_n_diagnostics(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP const sym_diagnostic *
sym_graph_diagnostic(SYM_KEEP const sym_graph *g, size_t i);
SYM_EXPORT size_t sym_graph_n_errors(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP const char *sym_severity_name(sym_severity severity);
SYM_EXPORT SYM_GIVE char *sym_diagnostic_format(SYM_KEEP const sym_graph *g,
    SYM_KEEP const sym_diagnostic *d);
SYM_EXPORT size_t sym_graph_n_relations(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP const sym_relation *
sym_graph_relation(SYM_KEEP const sym_graph *g, size_t i);
SYM_EXPORT size_t sym_graph_n_guards(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP const sym_guard *
sym_graph_guard(SYM_KEEP const sym_graph *g, size_t i);
SYM_EXPORT size_t sym_graph_n_assertions(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP const sym_assertion *
sym_graph_assertion(SYM_KEEP const sym_graph *g, size_t i);

#ifdef __cplusplus
}
#endif

#endif
