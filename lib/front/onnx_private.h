/* SPDX-License-Identifier: MIT */
/*
 * The ONNX reader (DESIGN section 18, sym_onnx(3)): what its files share.
 * onnx_read.c reads and checks the file and drives the import;
 * onnx_wire.c bounds the protobuf before protobuf-c unpacks it;
 * onnx_tensor.c decodes TensorProtos; onnx_graph.c keeps the table of
 * ONNX values; onnx_shapeval.c folds the symbolic shape values;
 * onnx_ops.c maps the nodes onto the registry.
 */
#ifndef SYM_FRONT_ONNX_PRIVATE_H
#define SYM_FRONT_ONNX_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include <symshard.h>

#include "core/ctx_private.h"
#include "core/strmap.h"
#include "front/front.h"
#include "graph/graph_private.h"
#include "onnx.pb-c.h"

/* The largest model file read: 1 GiB (protobuf's own limit is 2 GiB). */
#define SYM__ONNX_FILE_LIMIT ((size_t)1 << 30)
/* The deepest nesting of messages (graphs in attributes in nodes...). */
#define SYM__ONNX_MAX_DEPTH 32
/* The most elements of all repeated fields of a model together. */
#define SYM__ONNX_MAX_ITEMS ((size_t)1 << 24)
/* The most elements of a symbolic shape value. */
#define SYM__ONNX_MAX_SV 64
/* The most dimensions of a tensor. */
#define SYM__ONNX_MAX_RANK 16
/* The opsets of the default domain read. */
#define SYM__ONNX_MIN_OPSET 11
#define SYM__ONNX_MAX_OPSET 18

/* One ONNX value: its graph value, and its elements when it is a small
 * integer tensor whose elements are known as expressions (a symbolic
 * shape value). */
struct sym__oval {
	char *name;
	sym_value *v;    /* the graph value, or NULL when not made yet */
	sym_dtype dtype; /* SYM_DT_INVALID: unknown */
	int failed;      /* its producer failed: uses stay quiet */
	int has_sv;      /* "sv" holds every element */
	size_t sv_rank;  /* 0 or 1 */
	size_t sv_n;     /* number of elements */
	sym_expr **sv;   /* owned references */
	const Onnx__TensorProto *init; /* a constant's tensor, or NULL */
	const char *init_dir;          /* where its external data is */
	int weight;                    /* an initializer: a trained param */
};

/* The state of one import. */
struct sym__onnx {
	sym_ctx *ctx;
	sym_graph *g;
	const char *file; /* the model's name in messages */
	char *dir;        /* its folder (external data), or NULL */
	int64_t opset;
	Onnx__ModelProto *model;
	struct sym__oval *vals;
	size_t n_vals, cap_vals;
	struct sym__strmap names;
	/* The node being mapped (messages), its index. */
	const Onnx__NodeProto *node;
	size_t node_index;
	size_t n_fresh;  /* dimensions that became fresh symbols */
	size_t n_folded; /* nodes folded as shape values */
	size_t n_consts; /* names of made constants */
	/* The registry node a shard clause naming the node being mapped
	 * applies to, when its mapping says (Gemm: the matmul); NULL: the
	 * node that makes its output 0 (onnx_read.c, name_nodes). */
	sym_node *primary;
	/* Import into a graph file: dimension parameters named "alias_from"
	 * are the symbols "alias_to" ("n_alias" of them). */
	const char *const *alias_from;
	sym_symbol *const *alias_to;
	size_t n_alias;
	/* BatchNormalization nodes normalise with the batch's statistics
	 * and update their running statistics (import ... training). */
	int training;
};

/* onnx_wire.c */
int sym__onnx_wire_check(sym_ctx *ctx, const uint8_t *data, size_t size,
    const char *file);

/* onnx_tensor.c */
sym_dtype sym__onnx_dtype(int32_t onnx_type);
int sym__onnx_tensor_numel(struct sym__onnx *im, const Onnx__TensorProto *t,
    int64_t *numel);
void *sym__onnx_tensor_data(struct sym__onnx *im, const Onnx__TensorProto *t,
    const char *dir, size_t *bytes);
int sym__onnx_tensor_ints(struct sym__onnx *im, const Onnx__TensorProto *t,
    const char *dir, int64_t *out, size_t max, size_t *n);

/* onnx_graph.c */
struct sym__oval *sym__onnx_find(struct sym__onnx *im, const char *name);
struct sym__oval *sym__onnx_define(struct sym__onnx *im, const char *name);
sym_value *sym__onnx_value(struct sym__onnx *im, struct sym__oval *o);
int sym__onnx_errorf(struct sym__onnx *im, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sym__onnx_warnf(struct sym__onnx *im, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int sym__onnx_set_sv(struct sym__onnx *im, struct sym__oval *o, sym_dtype dt,
    size_t rank, size_t n, sym_expr **items);
void sym__onnx_vals_free(struct sym__onnx *im);
sym_expr *sym__onnx_fresh_dim(struct sym__onnx *im, const char *why);

/* onnx_shapeval.c: 1 when the node was folded as shape values, 0 when
 * it is not a shape computation, -1 after an error. */
int sym__onnx_fold(struct sym__onnx *im, const Onnx__NodeProto *n);

/* onnx_ops.c: the table of mappings. */
int sym__onnx_map_node(struct sym__onnx *im, const Onnx__NodeProto *n);

/* onnx_emit.c: the mappings' toolbox. The float attribute "name" of "n"
 * ("dflt" when absent); the "k" integers "v" set as the list attribute
 * "name" of "a" (0 or -1). */
double sym__onnx_attr_float(const Onnx__NodeProto *n, const char *name,
    double dflt);
int sym__onnx_set_ints(sym_ctx *ctx, sym_attrs *a, const char *name,
    const int64_t *v, size_t k);
/* The graph value of input "i" of "n", or NULL after an error. */
sym_value *sym__onnx_in(struct sym__onnx *im, const Onnx__NodeProto *n,
    size_t i);
/* Add the registry operator "op" on the "k" inputs "in" with "attrs"
 * (taken), its result named "out": _attrs with attributes that may be
 * NULL (none), _emit with attributes from sym_attrs_new (NULL: out of
 * memory, an error), _emit0 without attributes. The result, or NULL
 * after an error. */
sym_value *sym__onnx_emit_attrs(struct sym__onnx *im, const char *op,
    const char *out, size_t k, sym_value *const *in, sym_attrs *attrs);
sym_value *sym__onnx_emit(struct sym__onnx *im, const char *op, const char *out,
    size_t k, sym_value *const *in, sym_attrs *attrs);
sym_value *sym__onnx_emit0(struct sym__onnx *im, const char *op,
    const char *out, size_t k, sym_value *const *in);
/* Define output "i" of "n" as "v"; 0, or -1 when "v" is NULL. */
int sym__onnx_def(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i,
    sym_value *v);
/* The name "OUT/what" of an intermediate value of "n", owned by the
 * context's allocator (NULL out of memory). */
char *sym__onnx_tmp_name(struct sym__onnx *im, const Onnx__NodeProto *n,
    const char *what);
/* The constant integers of input "i" (or of the ints attribute "attr")
 * into "v", their number into "*k": 1 given, 0 absent, -1 not
 * constant. */
int sym__onnx_ints(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i,
    const char *attr, int64_t *v, size_t *k);
/* The symbolic shape value of input "i" as "*e" (kept by the table) and
 * its length; 0, or -1 after an error. */
int sym__onnx_sizes(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i,
    sym_expr ***e, size_t *k);

/* onnx_slice.c: Slice (sym__onnx_map_slice), and Slice with starts or
 * ends of any symbolic form. */
int sym__onnx_map_slice(struct sym__onnx *im, const Onnx__NodeProto *n);
int sym__onnx_slice_general(struct sym__onnx *im, const Onnx__NodeProto *n,
    sym_value *x, size_t k, sym_expr *const *st, sym_expr *const *en,
    const int64_t *ax, const int64_t *sp);
const Onnx__AttributeProto *sym__onnx_attr(const Onnx__NodeProto *n,
    const char *name);
int64_t sym__onnx_attr_int(const Onnx__NodeProto *n, const char *name,
    int64_t dflt);
size_t sym__onnx_supported(const char *const **names);

#endif
