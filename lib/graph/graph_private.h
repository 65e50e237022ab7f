/* SPDX-License-Identifier: MIT */
/*
 * The body of graphs, values and nodes.
 */
#ifndef SYM_GRAPH_GRAPH_PRIVATE_H
#define SYM_GRAPH_GRAPH_PRIVATE_H

#include <symshard/grad.h>
#include <symshard/graph.h>
#include <symshard/shard.h>

#include "layout/strategy.h"
#include "layout/layout_private.h"
#include "shape/shape_private.h"
#include "sym/prove_private.h"

struct sym_value {
	char *name;
	sym_value_kind kind;
	sym_shape *declared; /* as written (internal reference) */
	sym_shape *shape;    /* with the substitutions applied */
	size_t subst_gen;    /* substitutions applied to "shape" */
	sym_node *producer;  /* NULL for inputs and parameters */
	size_t index;        /* position in the graph's values */
	sym_loc loc;
	int failed; /* its shape could not be inferred */
	sym_graph *graph;
	/* Training (lib/graph/train.c, lib/grad/). */
	sym_init init; /* SYM_INIT_DEFAULT: the seeded fill */
	sym_loc init_loc;
	int frozen; /* a param excluded from training */
	int state;  /* 1: optimizer state the update part added; 2: declared */
	sym_value *grad; /* "NAME.grad" once differentiated, or NULL */
	/* The data of a param (an ONNX initializer or constant), row-major
	 * in its dtype, or NULL (sym_value_set_data). */
	void *data;
	size_t data_bytes;
};

struct sym_node {
	const sym_op *op;
	size_t n_in, n_out;
	sym_value **in;
	sym_value **out;
	sym_attrs *attrs; /* a copy owned by the node */
	/* Its attributes decoded by the shape rule (zero when it failed):
	 * what the sharding rules and the kernels read. */
	struct sym__opattrs at;
	sym_loc loc;
	size_t index;
	int failed;
	struct sym__strategy *strategy; /* NULL when none was given */
	sym_graph *graph;
	/* A node of the backward or update part: the forward node it was
	 * derived from, and which of that node's gradient operators it is
	 * (the rule's own numbering), so that the sharding pass derives
	 * its strategy from the forward node's. NULL / 0 otherwise. */
	sym_node *fwd;
	int grad_role;
	/* By input: the forward tensor whose layout this input mirrors in
	 * the derived strategy: SYM__MIRROR_IN(j), SYM__MIRROR_OUT(k), or
	 * SYM__MIRROR_NONE (completed by the rule). NULL: none. */
	int *mirror;
	/* An imported node: the name of the ONNX node it comes from (owned;
	 * NULL otherwise), and whether a shard clause naming that ONNX node
	 * applies to it (sym_onnx(3): one registry node per ONNX node). */
	char *onnx_name;
	int onnx_primary;
};

#define SYM__MIRROR_NONE (-1)
#define SYM__MIRROR_IN(j) (j)
#define SYM__MIRROR_OUT(k) (-2 - (k))

/* A derived relation: "var" was unified with "value". */
struct sym__relation {
	sym_relation pub;
	char *reason;
	sym_expr *value; /* internal reference, also in pub.value */
};

/* A run-time guard: a requirement the prover left undecided. */
struct sym__guard {
	sym_guard pub;
	char *text, *reason;
	enum sym__rel rel;
	sym_expr *e; /* internal reference: e rel 0 / k | e */
	int64_t k;
};

struct sym__assertion {
	sym_assertion pub;
	char *text, *witness, *normal;
	sym_binding *w;
};

struct sym__diag {
	sym_diagnostic pub;
	char *message, *witness, *hint;
	sym_binding *w;
};

/* The number of errors after which the parser of a graph records one "too
 * many errors" error and stops, the graph recording no diagnostic more
 * (documented in sym_graph(3) and symshard-graph(5)). */
#define SYM__MAX_ERRORS 50

struct sym_graph {
	struct sym__obj obj;
	sym_ctx *ctx;
	char *source; /* the text it was parsed from, or NULL */
	char *filename;
	int64_t devices;
	sym_loc devices_loc;
	/* "parallel auto [memory=BYTES]": search the strategies (0: no),
	 * under a cap of bytes per device (0: none). */
	int auto_parallel;
	int64_t auto_memory;
	sym_loc auto_loc;
	/* "parallel fusion_bytes=BYTES": gradient all_reduces fused into
	 * buckets of about that many bytes (0: none). */
	int64_t fusion_bytes;
	/* "parallel optimizer_shard[=LEVEL]" (0: none) and
	 * "optimizer_shard_min_bytes=BYTES" (when min_set; else 64 KiB). */
	int optimizer_shard, optimizer_shard_min_set;
	int64_t optimizer_shard_min_bytes;

	sym_value **value;
	size_t n_value, cap_value;
	sym_node **node;
	size_t n_node, cap_node;
	sym_value **output;
	size_t n_output, cap_output;
	struct sym__strmap names; /* value name -> index in "value" */

	struct sym__diag *diag;
	size_t n_diag, cap_diag, n_errors;
	size_t error_limit; /* while parsing: SYM__MAX_ERRORS, else 0 */
	int too_many;       /* the limit was reached: diagnostics are dropped */
	int oom; /* memory ran out: a diagnostic reports it or was lost */
	struct sym__relation *rel;
	size_t n_rel, cap_rel;
	struct sym__guard *guard;
	size_t n_guard, cap_guard;
	struct sym__assertion *assertion;
	size_t n_assertion, cap_assertion;

	/* Substitutions from unification, applied in order. */
	sym_symbol **subst_var;
	sym_expr **subst_value; /* internal references */
	size_t n_subst, cap_subst;

	struct sym__mesh_decl *mesh;
	size_t n_mesh, cap_mesh;
	struct sym__strmap mesh_names; /* name -> index in "mesh" */

	/* Sharding (lib/shard/): the options, and the current sharding
	 * (sym_graph_shard's, a reference; shardings are values of their
	 * own, sym_sharding(3), and this one is what the graph's accessors
	 * of layouts read). */
	int opt_power_of_two, opt_propagate;
	sym_sharding *sharding;
	/* Set by the shard layer when it attaches state: releases it. */
	void (*shard_clear)(sym_graph *g);
	/* what the last sharding added: [diag0, diag1), [guard0, guard1) */
	size_t shard_diag0, shard_diag1, shard_guard0, shard_guard1;

	/* Training: the loss and its optimizer (sym_graph_minimize), and
	 * after sym_graph_differentiate the params it trains. */
	sym_value *loss;
	sym_optimizer opt;
	sym_loc minimize_loc;
	int differentiated;
	size_t
	    n_forward; /* nodes before the backward part, once differentiated */
	sym_value **trained;
	size_t n_trained, cap_trained;

	char **files; /* file names locations point to */
	size_t n_files;

	uint8_t *used; /* by symbol number: used by an input */
	size_t n_used;
	size_t auto_names; /* counter for unnamed results */
};

/* Record a diagnostic on "g"; "witness" and "hint" may be NULL. Returns
 * -1 for errors (so callers can "return sym__graph_diag(...)"), else 0. */
int sym__graph_diag(sym_graph *g, sym_severity sev, const sym_loc *where,
    const char *witness, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* As sym__graph_diag, with the witness "w" (copied, may be NULL) and its
 * text. */
int sym__graph_diag_w(sym_graph *g, sym_severity sev, const sym_loc *where,
    const sym_binding *w, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Check "lhs" "op" "rhs" as sym_graph_assert does, the assertion written
 * "text" (NULL: the normal form) naming the "n_syms" symbols "syms"
 * (which a witness binds when the assertion is false for every admissible
 * value). */
sym_answer sym__graph_assert(sym_graph *g, sym_expr *lhs, sym_cmp op,
    sym_expr *rhs, const char *text, sym_symbol *const *syms, size_t n_syms,
    const sym_loc *where);

/* Record the context's last error as an error diagnostic (at its own
 * location, else "where") and clear it; returns -1. */
int sym__graph_ctx_error(sym_graph *g, const sym_loc *where);

/* A new value "name" of "kind" in "g", or NULL with a diagnostic when
 * the name is taken. */
sym_value *sym__graph_value_new(sym_graph *g, const char *name,
    sym_value_kind kind, const sym_loc *where);

/* Keep a copy of "file" in "g" and return it, so locations stay valid as
 * long as the graph. */
const char *sym__graph_intern_file(sym_graph *g, const char *file);

/* Add a mesh declaration (taken) / set the strategy of a node (taken). */
int sym__graph_add_mesh(sym_graph *g, struct sym__mesh_decl *m);
const struct sym__mesh_decl *sym__graph_find_mesh(const sym_graph *g,
    const char *name);
void sym__node_set_strategy(sym_node *n, struct sym__strategy *s);

/* Record on "g" a run-time guard "e rel 0" (or "k | e") with the text
 * "text" (taken), required by "reason" at "where"; 0 or -1
 * (lib/graph/check.c). */
int sym__graph_add_guard(sym_graph *g, enum sym__rel rel, sym_expr *e,
    int64_t k, char *text, const sym_loc *where, const char *reason);

/* A malloc'ed hint for making "k" divide "e" when "e" is a constant times
 * one symbol ("declare b with divisor=8"), or NULL. */
char *sym__divisor_hint(sym_expr *e, int64_t k);

/* The malloc'ed text of the binding "w", or NULL when it is empty. */
char *sym__witness_text(sym_binding *w);

/* The decoded attributes of "n" (see struct sym__opattrs), or NULL. */
const struct sym__opattrs *sym__node_opattrs(const sym_node *n);

/* The shape of "v" with every substitution applied (internal, kept by
 * the value; NULL when it failed). */
sym_shape *sym__value_shape(sym_value *v);

#endif
