/* SPDX-License-Identifier: MIT */
/*
 * Shapes, attributes and operator shape rules: the interface between the
 * operator families (lib/shape/op_*.c) and the graph.
 */
#ifndef SYM_SHAPE_SHAPE_PRIVATE_H
#define SYM_SHAPE_SHAPE_PRIVATE_H

#include <symshard/shape.h>

#include "shape/op.h"
#include "sym/expr_private.h"

/* Shapes are immutable and reference counted by their header (struct
 * sym__obj: a shape the caller forgets is released by sym_ctx_free). */
struct sym_shape {
	struct sym__obj obj;
	sym_ctx *ctx;
	sym_dtype dtype;
	size_t rank;
	sym_expr **dim; /* internal references */
};

struct sym__attr {
	char *name;
	sym_attr_kind kind;
	int64_t i;        /* INT, BOOL */
	double f;         /* FLOAT */
	char *s;          /* STRING */
	size_t n;         /* LIST */
	sym_expr **items; /* internal references */
	sym_loc loc;      /* where it was written (file not owned) */
	int has_loc;
};

/* Attribute sets made by sym_attrs_new are held by their caller (their
 * header counts them as live until sym_attrs_free, and sym_ctx_free
 * frees a forgotten one). Those made by sym__attrs_copy (kept by the
 * library, e.g. by graph nodes) are not; sym_attrs_free and
 * sym__attrs_free both free either kind. */
struct sym_attrs {
	struct sym__obj obj;
	sym_ctx *ctx;
	struct sym__attr *a;
	size_t n, cap;
	struct sym__strmap names; /* name -> index, once n > SYM__ATTRS_MAP */
	int failed; /* a setter failed: the set lacks what its caller meant */
};

/* Sets of more attributes than this find them by a map of their names. */
#define SYM__ATTRS_MAP 8

/* Internal shape constructor taking internal references of "dims"
 * (borrowed); returns an internal reference (not counted as live). */
sym_shape *sym__shape_new(sym_ctx *ctx, sym_dtype dt, size_t rank,
    sym_expr *const *dims);
sym_shape *sym__shape_ref(sym_shape *s);
void sym__shape_unref(sym_shape *s);
sym_shape *sym__shape_give(sym_shape *s);
/* Write "prefix" then the "n" texts "item" as a list, "[a, b]", to "out",
 * which has room for the texts, 2 bytes a text and 3 more (shape.c). */
void sym__list_write(char *out, const char *prefix, const char *const *item,
    size_t n);
const struct sym__attr *sym__attrs_find(const sym_attrs *a, const char *name);
/* The name of attribute kind "kind" with its article ("an integer"). */
const char *sym__attr_kind_name(sym_attr_kind kind);
/* An internal copy of "a" (not counted live); NULL "a" gives an empty
 * set. Free it with sym__attrs_free. */
sym_attrs *sym__attrs_copy(sym_ctx *ctx, const sym_attrs *a);
void sym__attrs_free(sym_attrs *a);
int sym__attrs_failed(const sym_attrs *a);

/* Kinds of requirements a shape rule states. */
enum sym__req_kind {
	SYM__REQ_EQUAL,    /* a == b: proved, unified or guarded */
	SYM__REQ_GE,       /* a >= b */
	SYM__REQ_DIVISIBLE /* k divides a */
};

struct sym__req {
	enum sym__req_kind kind;
	sym_expr *a, *b; /* internal references; b NULL if unused */
	int64_t k;
	char *what; /* "dimension 1 of x must equal ..." */
};

/* Scratch that a run of a shape rule keeps until its end: an expression
 * (an internal reference) or malloc'ed memory. */
struct sym__kept {
	void *p;
	int expr; /* "p" is an expression */
};

/*
 * What a shape rule sees and produces. Inputs are the current (unified)
 * shapes of the operands; "in_name" gives their value names for messages.
 * The rule appends output shapes with sym__out_shape and requirements
 * with sym__require_*; on a structural error (wrong rank, bad attribute,
 * static dimensions that differ) it calls sym__infer_fail* and returns -1.
 */
struct sym__infer {
	sym_ctx *ctx;
	const sym_op *op;
	size_t n_in;
	sym_shape *const *in;
	const char *const *in_name;
	const sym_attrs *attrs;
	size_t n_out_wanted; /* outputs named by the caller */
	/* The attributes decoded by the operator's decoder, which the rule
	 * reads; the caller takes them (sym__infer_take_attrs) or
	 * sym__infer_clear releases them. */
	struct sym__opattrs at;
	sym_shape **out;
	size_t n_out, cap_out;
	struct sym__req *req;
	size_t n_req, cap_req;
	char *error;            /* set by sym__infer_fail* */
	int error_input;        /* operand the error is about, or -1 */
	const char *error_attr; /* attribute it is about, or NULL */
	/* Scratch of one run, released when sym__infer_run returns:
	 * expressions (internal references) and memory (texts, arrays). */
	struct sym__kept *kept;
	size_t n_kept, cap_kept;
};

typedef int (*sym__shape_rule)(struct sym__infer *inf);

/* A registry entry. "decode" checks the attributes against the inputs'
 * ranks and fills "at" (NULL: the operator takes no attribute); "rule"
 * then infers the outputs and states the requirements. */
struct sym_op {
	enum sym__opid id;
	const char *name;
	enum sym__family family;
	int min_in, max_in;            /* max_in -1: any number */
	const char *const *positional; /* names of list arguments */
	sym__shape_rule decode;
	sym__shape_rule rule;
	unsigned flags; /* SYM__OPF_* */
	enum sym__norm norm;
	struct sym__index_operand index;
	int8_t norm_input; /* the input whose dimensions "norm" counts */
	/* The flop count (flops.c): "per" operations per element of
	 * what "work" (enum sym__work) measures. */
	unsigned char work, per;
};

/*
 * The caller (the graph) zero-initialises the structure, fills ctx, op,
 * n_in, in, in_name (may be NULL), attrs (may be NULL) and n_out_wanted
 * (0: whatever the operator produces by default), then calls
 * sym__infer_run. On success (0) "out" holds n_out internal references
 * and "req" the requirements; on failure (-1) "error" says why, with
 * error_input / error_attr pointing at the culprit. sym__infer_clear
 * releases everything; the graph takes its own references first.
 */
int sym__infer_run(struct sym__infer *inf);
void sym__infer_clear(struct sym__infer *inf);
/* Move the decoded attributes of "inf" to "*to" (cleared first). */
void sym__infer_take_attrs(struct sym__infer *inf, struct sym__opattrs *to);

/*
 * Decode the attributes "attrs" of operator "op" for the inputs "in"
 * ("n_in" shapes; only their ranks, and for squeeze their constant
 * dimensions, matter) and "n_out" named outputs, into "*at" (zeroed
 * first; release it with sym__opattrs_clear). Return 0, or -1 with the
 * malloc'ed message in "*error". For callers that run kernels without a
 * graph (the kernel tests and benchmarks).
 */
int sym__opattrs_decode(sym_ctx *ctx, const sym_op *op, const sym_attrs *attrs,
    size_t n_in, sym_shape *const *in, size_t n_out, struct sym__opattrs *at,
    char **error);

/* Zeroed memory of "n" elements of "size" bytes owned by the decoded
 * attributes of "inf" (at most two such blocks); NULL when out of
 * memory, with an error on "inf". */
void *sym__at_alloc(struct sym__infer *inf, size_t n, size_t size);

int sym__infer_fail(struct sym__infer *inf, int input, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sym__infer_fail_attr(struct sym__infer *inf, const char *attr,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The requirements borrow their expressions; those whose sides differ
 * by a constant are decided at once (dropped, or a structural error with
 * their message). */
int sym__require_fn(struct sym__infer *inf, enum sym__req_kind kind,
    sym_expr *a, sym_expr *b, int64_t k, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
int sym__trivially_ge(sym_expr *a, sym_expr *b);
int sym__trivially_divisible(sym_expr *a, int64_t k);

/*
 * The requirement macros check the cases tier 0 settles at once before
 * evaluating their message arguments, which may print expressions: rules
 * state thousands of requirements that hold trivially.
 */
#define sym__require_equal(inf, a, b, ...)                                   \
	__extension__({                                                      \
		sym_expr *a_ = (a), *b_ = (b);                               \
		a_ &&a_ == b_ ? 0                                            \
		              : sym__require_fn(inf, SYM__REQ_EQUAL, a_, b_, \
		                    0, __VA_ARGS__);                         \
	})
#define sym__require_ge(inf, a, b, ...)                                       \
	__extension__({                                                       \
		sym_expr *a_ = (a), *b_ = (b);                                \
		sym__trivially_ge(a_, b_) ? 0                                 \
		                          : sym__require_fn(inf, SYM__REQ_GE, \
		                                a_, b_, 0, __VA_ARGS__);      \
	})
#define sym__require_divisible(inf, a, k, ...)                               \
	__extension__({                                                      \
		sym_expr *a_ = (a);                                          \
		int64_t k_ = (k);                                            \
		sym__trivially_divisible(a_, k_)                             \
		    ? 0                                                      \
		    : sym__require_fn(inf, SYM__REQ_DIVISIBLE, a_, NULL, k_, \
		          __VA_ARGS__);                                      \
	})

/* Helpers of the rules (lib/shape/infer.c and rule_util.c). Expressions
 * given to sym__tmp and texts returned by sym__txt_* live until the end of
 * the run. */
sym_expr *sym__tmp(struct sym__infer *inf, sym_expr *e);
void *sym__scratch(struct sym__infer *inf, size_t n, size_t size);
const char *sym__txt_expr(struct sym__infer *inf, const sym_expr *e);
const char *sym__txt_dims(struct sym__infer *inf, const sym_shape *s);
const char *sym__txt_dim_list(struct sym__infer *inf, size_t rank,
    sym_expr *const *dims);
const char *sym__txt_printf(struct sym__infer *inf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *sym__in_name(const struct sym__infer *inf, size_t i);
int sym__infer_nomem(struct sym__infer *inf);
int sym__const_sign(const sym_expr *e);
int sym__is_one(const sym_expr *e);
int sym__out_shape(struct sym__infer *inf, sym_dtype dt, size_t rank,
    sym_expr *const *dims);
int sym__out_same(struct sym__infer *inf, size_t i);
int sym__require_dims_equal(struct sym__infer *inf, size_t ia, size_t da,
    size_t ib, size_t db);
int sym__require_dims_like(struct sym__infer *inf, size_t i, const char *role,
    size_t rank, sym_expr *const *dims, const char *what);

int sym__check_attrs(struct sym__infer *inf, const char *const *known);
int sym__attr_bool(struct sym__infer *inf, const char *name, int def, int *v);
int sym__attr_int(struct sym__infer *inf, const char *name, int required,
    int64_t def, int64_t *v);
int sym__attr_number(struct sym__infer *inf, const char *name, double def,
    double *v);
int sym__attr_string(struct sym__infer *inf, const char *name, const char *def,
    const char **v);
int sym__attr_dtype(struct sym__infer *inf, const char *name, int required,
    sym_dtype def, sym_dtype *v);
int sym__attr_ints(struct sym__infer *inf, const char *name, int scalar_ok,
    int64_t **v, size_t *n);
int sym__axis(struct sym__infer *inf, const char *attr, int64_t axis,
    size_t rank, size_t i, size_t *out);
/* The attribute axis read by sym__attr_int, then normalised by sym__axis
 * (rule_util.c). */
int sym__attr_axis(struct sym__infer *inf, int required, int64_t def, size_t n,
    size_t i, size_t *out);
int sym__decode_reduce_axes(struct sym__infer *inf, size_t i);
/* The dimensions of input "i" reduced as decoded (op_reduce.c). */
sym_expr **sym__reduced_dims(struct sym__infer *inf, size_t i, size_t *rank);
int sym__axes(struct sym__infer *inf, const char *attr, const int64_t *axes,
    size_t n, size_t rank, size_t i, unsigned char *mark);
int sym__rank_at_least(struct sym__infer *inf, size_t i, size_t rank);
int sym__rank_is(struct sym__infer *inf, size_t i, size_t rank);
int sym__same_dtype(struct sym__infer *inf, size_t i, size_t j);
int sym__dtype_integer(struct sym__infer *inf, size_t i, const char *role);
int sym__dtype_float(struct sym__infer *inf, size_t i);
int sym__dtype_numeric(struct sym__infer *inf, size_t i);
int sym__dtype_not_i64(struct sym__infer *inf, size_t i);
sym_expr *sym__prod(struct sym__infer *inf, const sym_shape *s, size_t from,
    size_t to);
int sym__broadcast(struct sym__infer *inf, size_t ia, size_t na, size_t ib,
    size_t nb, sym_expr **out);

/* The decoders and rules of the families (lib/shape/op_*.c), which the
 * registry (registry.c) lists by operator. */
int sym__decode_none(struct sym__infer *inf);
int sym__decode_matmul(struct sym__infer *inf);
int sym__rule_matmul(struct sym__infer *inf);
int sym__rule_batch_matmul(struct sym__infer *inf);
int sym__rule_numeric(struct sym__infer *inf);
int sym__rule_float(struct sym__infer *inf);
int sym__rule_identity(struct sym__infer *inf);
int sym__decode_cast(struct sym__infer *inf);
int sym__rule_cast(struct sym__infer *inf);
int sym__rule_binary(struct sym__infer *inf);
int sym__decode_fill_like(struct sym__infer *inf);
int sym__rule_same_shapes(struct sym__infer *inf);
int sym__rule_compare(struct sym__infer *inf);
int sym__rule_logical(struct sym__infer *inf);
int sym__rule_where(struct sym__infer *inf);
int sym__rule_pow(struct sym__infer *inf);
int sym__rule_signed(struct sym__infer *inf);
int sym__decode_gelu(struct sym__infer *inf);
int sym__decode_clip(struct sym__infer *inf);
int sym__rule_clip(struct sym__infer *inf);
int sym__decode_softplus(struct sym__infer *inf);
int sym__decode_bias_add(struct sym__infer *inf);
int sym__rule_bias_add(struct sym__infer *inf);
int sym__rule_reshape(struct sym__infer *inf);
int sym__rule_flatten(struct sym__infer *inf);
int sym__decode_transpose(struct sym__infer *inf);
int sym__rule_transpose(struct sym__infer *inf);
int sym__decode_expand_dims(struct sym__infer *inf);
int sym__rule_expand_dims(struct sym__infer *inf);
int sym__decode_squeeze(struct sym__infer *inf);
int sym__rule_squeeze(struct sym__infer *inf);
int sym__decode_concat(struct sym__infer *inf);
int sym__rule_concat(struct sym__infer *inf);
int sym__decode_split(struct sym__infer *inf);
int sym__rule_split(struct sym__infer *inf);
int sym__decode_slice(struct sym__infer *inf);
int sym__rule_slice(struct sym__infer *inf);
int sym__decode_slice_grad(struct sym__infer *inf);
int sym__rule_slice_grad(struct sym__infer *inf);
int sym__decode_reduce(struct sym__infer *inf);
int sym__rule_reduce(struct sym__infer *inf);
int sym__decode_sum_to(struct sym__infer *inf);
int sym__rule_sum_to(struct sym__infer *inf);
int sym__decode_arg(struct sym__infer *inf);
int sym__rule_arg(struct sym__infer *inf);
int sym__decode_expand(struct sym__infer *inf);
int sym__rule_expand(struct sym__infer *inf);
int sym__decode_tile(struct sym__infer *inf);
int sym__rule_tile(struct sym__infer *inf);
int sym__decode_pad(struct sym__infer *inf);
int sym__rule_pad(struct sym__infer *inf);
int sym__decode_arange(struct sym__infer *inf);
int sym__rule_arange(struct sym__infer *inf);
int sym__decode_full(struct sym__infer *inf);
int sym__rule_full(struct sym__infer *inf);
int sym__decode_tri(struct sym__infer *inf);
int sym__rule_tri(struct sym__infer *inf);
int sym__decode_cumsum(struct sym__infer *inf);
int sym__rule_cumsum(struct sym__infer *inf);
int sym__decode_softmax(struct sym__infer *inf);
int sym__decode_layer_norm(struct sym__infer *inf);
/* The attributes layer_norm and layer_norm_grad share, for the rank of
 * input "x" (op_norm.c). */
int sym__decode_layer_norm_attrs(struct sym__infer *inf, size_t x);
/* The check of gamma or beta, input "p", against x, input "ix"
 * (op_norm.c). */
int sym__check_norm_param(struct sym__infer *inf, size_t ix, size_t p,
    const char *role, size_t from);
int sym__rule_layer_norm(struct sym__infer *inf);
int sym__decode_batch_norm(struct sym__infer *inf);
int sym__rule_batch_norm(struct sym__infer *inf);
int sym__rule_batch_norm_stats(struct sym__infer *inf);
int sym__rule_sce_count(struct sym__infer *inf);
int sym__sce_check_count(struct sym__infer *inf, size_t i);
int sym__rule_sce_target(struct sym__infer *inf);
int sym__rule_sce_sumexp(struct sym__infer *inf);
int sym__sce_check_stats(struct sym__infer *inf, size_t i);
int sym__rule_batch_norm_update(struct sym__infer *inf);
int sym__rule_batch_norm_grad_params(struct sym__infer *inf);
int sym__rule_batch_norm_grad(struct sym__infer *inf);
int sym__decode_gather(struct sym__infer *inf);
/* The checked output dimensions of the gather of input "ip" by input
 * "ii" along the decoded axis, and of the embedding of input "ii" in
 * input "it" (op_gather.c). */
sym_expr **sym__gather_dims(struct sym__infer *inf, size_t ip, size_t ii,
    size_t *rank);
sym_expr **sym__embedding_dims(struct sym__infer *inf, size_t ii, size_t it,
    size_t *rank);
/* The axis attribute of gather and gather_grad, an axis of input
 * "table" (op_gather.c). */
int sym__decode_gather_axis(struct sym__infer *inf, size_t table);
int sym__rule_gather(struct sym__infer *inf);
int sym__rule_embedding(struct sym__infer *inf);
int sym__decode_one_hot(struct sym__infer *inf);
int sym__rule_one_hot(struct sym__infer *inf);
int sym__decode_sce(struct sym__infer *inf);
int sym__rule_sce(struct sym__infer *inf);
int sym__decode_conv2d(struct sym__infer *inf);
int sym__decode_optim(struct sym__infer *inf);
int sym__rule_optim(struct sym__infer *inf);
int sym__rule_increment(struct sym__infer *inf);
int sym__rule_conv2d(struct sym__infer *inf);
int sym__rule_conv2d_input_grad(struct sym__infer *inf);
int sym__rule_conv2d_weight_grad(struct sym__infer *inf);
int sym__attr_hw(struct sym__infer *inf, const char *name, int64_t def,
    int64_t *hw);
int sym__attr_pads(struct sym__infer *inf, int64_t *p);
int sym__check_attrs_nchw(struct sym__infer *inf, const char *const *known);
int sym__decode_pool(struct sym__infer *inf);
int sym__rule_pool2d(struct sym__infer *inf);
int sym__rule_pool2d_grad(struct sym__infer *inf);
int sym__rule_global_avg_pool(struct sym__infer *inf);
int sym__rule_global_avg_pool_grad(struct sym__infer *inf);
int sym__decode_dropout(struct sym__infer *inf);
int sym__rule_dropout_grad(struct sym__infer *inf);
int sym__rule_grad_unary(struct sym__infer *inf);
int sym__decode_sce_grad(struct sym__infer *inf);
int sym__rule_sce_grad(struct sym__infer *inf);
int sym__decode_reduce_grad(struct sym__infer *inf);
int sym__rule_reduce_grad(struct sym__infer *inf);
int sym__rule_softmax_grad(struct sym__infer *inf);
int sym__decode_layer_norm_grad(struct sym__infer *inf);
int sym__rule_layer_norm_grad(struct sym__infer *inf);
int sym__rule_extremum_grad(struct sym__infer *inf);
int sym__decode_gather_grad(struct sym__infer *inf);
int sym__rule_gather_grad(struct sym__infer *inf);
int sym__rule_embedding_grad(struct sym__infer *inf);

#endif
