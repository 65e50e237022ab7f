/* SPDX-License-Identifier: MIT */
/*
 * Per-operator sharding rules: the interface between the operator
 * families (lib/rules/shard_*.c) and the sharding pass (lib/shard/).
 *
 * A rule works in two steps, as MindSpore's operator infos do:
 *
 *  1. "tuple" turns a tuple strategy (split counts per input dimension,
 *     MindSpore's shard(((2, 4), (4, 1)))) into a device matrix (a mesh
 *     with readable axis names) and input layouts. A strategy that uses P
 *     of the N devices gets a repeat axis "rep" of size N / P appended as
 *     the last (fastest) axis, over which every tensor is replicated.
 *  2. "infer" takes input layouts over one mesh, from step 1, from a
 *     layout strategy or propagated from producers, completes those that
 *     are missing (NULL), checks them and computes the output layouts
 *     with their partial sums.
 *
 * Layout comparisons inside the rules use standard forms: axes of size 1
 * split nothing.
 */
#ifndef SYM_RULES_RULE_PRIVATE_H
#define SYM_RULES_RULE_PRIVATE_H

#include "layout/layout_private.h"

/* One run of a sharding rule. The caller zero-initialises it, fills the
 * first block, calls sym__shard_begin, then either sym__shard_tuple or
 * sets "mesh" and (some of) "in" itself, then sym__shard_infer, and
 * finally sym__shard_clear. */
struct sym__shard {
	/* Filled by the caller (borrowed). */
	sym_ctx *ctx;
	const sym_op *op;
	const struct sym__opattrs *at; /* decoded by the shape rule */
	size_t n_in, n_out;
	sym_shape *const *in_shape;  /* global shapes */
	sym_shape *const *out_shape; /* global shapes */
	const char *const *in_name;  /* for messages */
	int64_t devices;

	/* The state: internal references. */
	sym_mesh *mesh;
	sym_layout **in;  /* by input; NULL: to be completed by "infer" */
	sym_layout **out; /* by output, partial sums included */
	/* By output: the axes of its partial sums in the order the reduced
	 * dimension lists them (a ReduceScatter appends them in this order
	 * to dimension 0). */
	uint8_t *n_red;
	int8_t (*red)[SYM_MESH_MAX_AXES];

	/* A structural error (malloc'ed), about the strategy of input
	 * "error_input" (-1: the whole strategy) and its dimension
	 * "error_dim" (-1: none in particular). */
	char *error;
	int error_input, error_dim;
	/* Notes for the user ("the split of dimension 1 of x cannot be
	 * carried through the reshape: it is gathered first"). */
	char **note;
	size_t n_note, cap_note;

	/* Scratch memory of the run: blocks handed out piece by piece, the
	 * one being used first. */
	struct sym__scratch *scratch;
};

/* A rule: the input whose leading dimension the default
 * (semi-automatic) strategy splits, and the two steps. "tuple" gets one
 * array of split counts per input ("split"[i] NULL: that input has none,
 * it is completed by "infer"), each as long as the input's rank, every
 * count at least 1. */
struct sym__shard_rule {
	int default_input;
	int (*tuple)(struct sym__shard *s, const int64_t *const *split);
	int (*infer)(struct sym__shard *s);
};

/* Every operator's two steps, as lib/shape/ops.def names them (its
 * SYM__OPIMPL columns TUPLE and INFER); rules.c makes the table of
 * rules. */
#define SYM__OPIMPL(ID, KERNEL, SHARD_INPUT, TUPLE, INFER, ...)       \
	int TUPLE(struct sym__shard *s, const int64_t *const *split); \
	int INFER(struct sym__shard *s);
#include "shape/ops.def"

/* "s" to make "way" plural after the count "n". */
#define SYM__WAYS(n) ((n) == 1 ? "" : "s")

/* The driver (lib/rules/rules.c; the release of a run and the outputs
 * resolved or scattered are in rules_util.c). */
const struct sym__shard_rule *sym__shard_rule_find(const sym_op *op);
int sym__shard_begin(struct sym__shard *s);
int sym__shard_tuple(struct sym__shard *s, const int64_t *const *split);
int sym__shard_infer(struct sym__shard *s);
void sym__shard_clear(struct sym__shard *s);
/* Output "k" of "s" with its partial sums resolved in place
 * (AllReduce), or with its partial axes appended to dimension 0
 * (ReduceScatter; NULL when the output has rank 0): internal
 * references. */
sym_layout *sym__shard_resolved(struct sym__shard *s, size_t k);
sym_layout *sym__shard_scattered(struct sym__shard *s, size_t k);

/* Helpers of the rules (lib/rules/rules_util.c). */
int sym__shard_fail(struct sym__shard *s, int input, int dim, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));
int sym__shard_nomem(struct sym__shard *s);
int sym__shard_note(struct sym__shard *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void *sym__shard_scratch(struct sym__shard *s, size_t n, size_t size);
const char *sym__shard_in_name(const struct sym__shard *s, size_t i);
size_t sym__shard_in_rank(const struct sym__shard *s, size_t i);
const char *sym__shard_axes_txt(struct sym__shard *s, const sym_layout *l,
    size_t d);

/* The device matrix of "n" axes of "sizes" named "names" ("rep" added
 * when it uses fewer than all devices); 0 or -1 with an error. */
int sym__shard_loss_mesh(struct sym__shard *s, const int64_t *const *split,
    int extra);
int sym__shard_set_mesh(struct sym__shard *s, size_t n, const int64_t *sizes,
    const char *const *names);
/* Names "prefix0", "prefix1", ... for "n" axes, in scratch memory. */
const char **sym__shard_axis_names(struct sym__shard *s, const char *prefix,
    size_t n);
/* The axis names "p0".. and "i0".. of a gather-like operator whose table
 * has "rp" and indices "ri" dimensions; 0, or -1 with an error when they do
 * not fit a device matrix (sym__shard_gather_axes). */
int sym__shard_gather_axes(struct sym__shard *s, size_t rp, size_t ri,
    const char ***pn, const char ***in);
/* Store the "n" axes "nm" of a tensor split "split" (NULL: unsplit) at
 * "base" of "sizes" and "names". */
void sym__shard_axes_put(int64_t *sizes, const char **names, size_t base,
    size_t n, const int64_t *split, const char *const *nm);
/* Input "i" of the tuple step: dimension d on mesh axis "axis_of"[d]
 * (-1: unsplit); the split counts "split" (may be NULL) must match the
 * axis sizes (1 for unsplit dimensions). 0 or -1 with an error. */
int sym__shard_map(struct sym__shard *s, size_t i, const int64_t *split,
    const int *axis_of);
/* Input "i" of the tuple step when "split" is not NULL: dimension d on
 * mesh axis "base" + d, as sym__shard_map; 0 or -1 with an error. */
int sym__shard_map_from(struct sym__shard *s, size_t i, const int64_t *split,
    size_t base);

/* The common tuple step: the device matrix is the split counts "split"
 * of input "i" (all 1 when NULL), its axes named "prefix0", "prefix1",
 * ..., and dimension d of input "i" is on axis d; 0 or -1. */
int sym__shard_tuple_input(struct sym__shard *s, const int64_t *split, size_t i,
    const char *prefix);

/* A layout being built over the mesh of a run. */
struct sym__lb {
	size_t rank;
	uint8_t *n;
	int8_t (*axes)[SYM_MESH_MAX_AXES];
	uint32_t partial;
	uint8_t n_red;
	int8_t red[SYM_MESH_MAX_AXES];
};

int sym__lb_init(struct sym__shard *s, struct sym__lb *b, size_t rank);
void sym__lb_copy(struct sym__lb *b, size_t d, const sym_layout *l, size_t ld);
void sym__lb_partial_dim(struct sym__lb *b, const sym_layout *l, size_t ld);
/* Input "i" (or output "k") of "s" set to the layout of "b"; 0 or -1
 * with an error naming the tensor. */
int sym__shard_set_in(struct sym__shard *s, size_t i, struct sym__lb *b);
int sym__shard_set_out(struct sym__shard *s, size_t k, struct sym__lb *b);
/* Output "k" of "s" set to the layout of input "i", without partial
 * sums. */
int sym__shard_out_same(struct sym__shard *s, size_t k, size_t i);
/* Output 0 of "s" set to the layout of input 0 with an unsplit dimension
 * inserted at "axis" of the output (expand_dims, one_hot). */
int sym__shard_out_inserted(struct sym__shard *s, size_t axis);
/* 1 when dimension "d" of input "i" of "s" is the constant 1 broadcast
 * against a larger dimension "j" of output 0. */
int sym__shard_broadcast(const struct sym__shard *s, size_t i, size_t d,
    size_t j);
/* Lay out dimension "j" of an output of "s" from the inputs' dimensions
 * "d" (d[i] of input i, -1 where input i has none; "n" inputs): a
 * broadcast one (size 1) must be unsplit, the others split alike (the
 * error calls them "what", "dimension" or "batch dimension"), and the
 * first of those is copied to dimension "j" of "b". Return 0 or -1. */
int sym__shard_align(struct sym__shard *s, const int *d, size_t n, size_t j,
    const char *what, struct sym__lb *b);
/* The tuple step of operators whose first "n_in" inputs broadcast
 * against the shape "ref" (aligned from the right): the device matrix
 * "d0".. has ref's rank; on each dimension, the inputs that are not
 * broadcast there must be split alike, and set its size; 0 or -1. */
int sym__shard_tuple_broadcast(struct sym__shard *s,
    const int64_t *const *split, size_t n_in, const sym_shape *ref);
/* The tuple step of the operators sharded by their first input alone
 * (rules_util.c). */
int sym__shard_tuple_first(struct sym__shard *s, const int64_t *const *split);
/* The tuple step of operators whose operands are all laid out alike:
 * the device matrix is the strategy of the first operand that has one,
 * dimension d on axis d ("d0", "d1", ...), every other operand with a
 * strategy the same; 0 or -1. */
int sym__shard_tuple_alike(struct sym__shard *s, const int64_t *const *split);
/* Complete the operands of "s" without a layout with that of the first
 * that has one (replicated when none has) and check that all are split
 * alike; the index of that operand, or -1. */
int sym__shard_complete_alike(struct sym__shard *s);
/* Input "i" of "s" set to a replicated layout when it is NULL. */
int sym__shard_default_replicated(struct sym__shard *s, size_t i);
/* Input "i" of "s", when it has none, set to a layout of rank "rank"
 * whose dimension 0 (if any) is split like dimension "d" of input "from";
 * 0 or -1. */
int sym__shard_complete_from(struct sym__shard *s, size_t i, size_t from,
    size_t d, size_t rank);

/* Standard-form queries: 1 when dimension "d" of "l" is split by some
 * axis of size > 1; 1 when dimensions "da" of "a" and "db" of "b" are
 * split by the same axes of size > 1, in the same order. */
int sym__shard_is_split(const sym_layout *l, size_t d);
int sym__shard_same_dim(const sym_layout *a, size_t da, const sym_layout *b,
    size_t db);
/* Require dimension "d" of input "i" to be unsplit because of "why" ("it
 * is the softmax axis"); 0 or -1 with an error. */
int sym__shard_unsplit(struct sym__shard *s, size_t i, size_t d,
    const char *why);
/* Require dimension "k" of dy (input 0 of a gradient) to be split like
 * dimension "d" of input "j"; 0 or -1 with an error. */
int sym__shard_dy_like(struct sym__shard *s, size_t k, size_t j, size_t d);
/* Input "i" of "s", an [N] input along the batch of a
 * softmax_cross_entropy (a statistic of a class-split one, the labels, a
 * dloss [N]), laid out like the batch dimension of the logits (input 0);
 * 0 or -1 with an error (shard_loss.c). */
int sym__shard_sce_stat(struct sym__shard *s, size_t i);

#endif
