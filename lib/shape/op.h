/* SPDX-License-Identifier: MIT */
/*
 * What every layer knows of an operator: its identity, its family, the
 * facts the executor needs (aliasing, index operands, normaliser), and
 * its attributes decoded once by the shape layer into a typed structure
 * that the sharding rules and the kernels read.
 *
 * Adding an operator: its line in lib/shape/ops.def (identity, name,
 * family, arity, decoder, shape rule, executor facts and flop count),
 * its decoder and shape rule in lib/shape/op_FAMILY.c, a sharding rule
 * in lib/rules/shard_FAMILY.c and a kernel in lib/kern/kern_FAMILY.c;
 * test_ops's registry test fails until every layer has it (HACKING.md
 * section 2 has the whole list).
 */
#ifndef SYM_SHAPE_OP_H
#define SYM_SHAPE_OP_H

#include <stddef.h>
#include <stdint.h>

#include <symshard/expr.h>
#include <symshard/shape.h>

/* Operator identities, in registry order (family by family): the first
 * column of lib/shape/ops.def. */
enum sym__opid {
#define SYM__OPDEF(ID, ...) SYM__OP_##ID,
#include "shape/ops.def"
	SYM__N_OPS
};

/* Operator families: one file per family in each layer. */
enum sym__family {
	SYM__FAM_MATMUL,
	SYM__FAM_ELEMENTWISE,
	SYM__FAM_LAYOUT,
	SYM__FAM_CONCAT,
	SYM__FAM_REDUCE,
	SYM__FAM_NORM,
	SYM__FAM_GATHER,
	SYM__FAM_LOSS,
	SYM__FAM_CONV,
	SYM__FAM_POOL,
	SYM__FAM_DROPOUT,
	SYM__FAM_INDEX,
	SYM__FAM_GENERATE,
	SYM__FAM_OPTIM,
	SYM__FAM_GRAD,
	SYM__N_FAMILIES
};

/* Flags of a registry entry. */
enum {
	SYM__OPF_NONE = 0,
	/* The output may share input 0's data (reshape and its kin): the
	 * kernel then only checks the shapes. */
	SYM__OPF_ALIAS = 1u << 0,
	/* Output k is input k updated in place (the optimizers' update
	 * operators): the executor gives both one buffer, the input's, so
	 * that a param and its optimizer state persist across steps. */
	SYM__OPF_INPLACE = 1u << 1
};

/* What an operator's flop count is measured on (the WORK column of
 * ops.def; flops.c). */
enum sym__work {
	SYM__WORK_NONE,   /* moves data only: 0 */
	SYM__WORK_OUT,    /* the elements of output 0 */
	SYM__WORK_IN,     /* the elements of input 0 */
	SYM__WORK_MATMUL, /* 2*M*N*K */
	SYM__WORK_CONV, /* 2 * elements of y (or dy) * weight elements / Cout */
	SYM__WORK_POOL  /* elements of y (or dy) * kernel height * width */
};

/* What the kernel divides by, evaluated on global sizes at run time. */
enum sym__norm {
	SYM__NORM_NONE = 0,
	SYM__NORM_REDUCED, /* the reduced dimensions (.reduce) */
	SYM__NORM_BATCH    /* dimension 0 */
};
/* The dimensions counted are those of input 0, or of the input the
 * registry entry's "norm_input" names (reduce_mean_grad: x). */

/* An operand that holds indices, and the global size that bounds them:
 * dimension "dim" of input "tensor" (or of output 0 when "tensor" is
 * -1); "dim" SYM__INDEX_AXIS means the decoded .gather.axis. "input" is
 * -1 when the operator has no index operand. */
#define SYM__INDEX_AXIS (-1)
struct sym__index_operand {
	int8_t input;
	int8_t tensor;
	int8_t dim;
};

/* Data formats of bias_add. */
enum {
	SYM__FORMAT_NCHW = 0,
	SYM__FORMAT_NHWC,
	SYM__FORMAT_NCDHW
};

/* Reductions of a loss. */
enum sym__reduction {
	SYM__RED_MEAN = 0,
	SYM__RED_SUM,
	SYM__RED_NONE
};

/*
 * The attributes of one operator call, decoded and checked by its shape
 * rule, per family. Axes are normalised to [0, rank). Arrays point into
 * "mem" (owned) and are as long as the rank they index: "mark" arrays
 * have one byte per dimension of input 0, 1 where the dimension is
 * named (of input 1, x, for the reduce gradients). A structure whose
 * operator has no attribute of a kind leaves it zero.
 */
struct sym__opattrs {
	union {
		struct {
			int transpose_a, transpose_b;
		} matmul;
		struct {
			sym_dtype dtype; /* cast: the target */
			size_t channel;  /* bias_add: the channel axis of x */
			int data_format; /* bias_add: SYM__FORMAT_* */
			double value;    /* fill_like */
			int approximate; /* gelu, gelu_grad: 1 for "tanh" */
			double lo, hi; /* clip, clip_grad: -inf, inf if unset */
			double beta, threshold; /* softplus, softplus_grad */
		} elementwise;
		struct {
			const int64_t *perm; /* transpose, permute */
			size_t axis;         /* expand_dims, of the output */
			/* squeeze: removed; expand: of the output, the
			 * dimensions broadcast (new, or 1 made larger) */
			const unsigned char *mark;
			/* tile: the repeats; pad: before and after by
			 * dimension (2 * rank, negative crops) */
			const int64_t *repeats, *pads;
			double value; /* pad */
		} layout;
		struct {
			size_t axis;                 /* concat, split */
			int64_t parts;               /* split: output_num */
			const int64_t *begin, *size; /* slice (-1: rest) */
			const int64_t *step;         /* slice (NULL: 1s) */
		} concat;
		struct {
			const unsigned char *mark;
			int keep_dims;
			/* sum_to: the leading dimensions of the input that
			 * the output drops (marked, never kept) */
			size_t drop;
			/* argmax, argmin: the one axis (marked) and the
			 * dtype of the indices */
			size_t axis;
			sym_dtype dtype;
		} reduce;
		struct {
			const unsigned char *mark; /* softmax, log_softmax */
			size_t begin_norm, begin_params; /* layer_norm */
			double epsilon;
			/* batch_norm and its kin: 0 when training=false (the
			 * running statistics always) */
			int training;
			double momentum; /* batch_norm */
		} norm;
		struct {
			/* gather: axis of the table; one_hot: axis of the
			 * output where the classes go */
			size_t axis;
			int64_t depth; /* one_hot: a constant, or -1 */
			/* one_hot: the depth, for its shape rule only (NULL
			 * once the rule ran) */
			const sym_expr *depth_expr;
			sym_dtype dtype; /* one_hot */
		} gather;
		struct {
			enum sym__reduction reduction;
			/* rows whose label equals it count for nothing
			 * (default -100, as PyTorch); "ignore_set": the
			 * attribute was written */
			int64_t ignore_index;
			int ignore_set;
		} loss;
		struct {
			int64_t diagonal;       /* tril, triu */
			size_t axis;            /* cumsum */
			int reverse, exclusive; /* cumsum */
		} index;
		struct {
			sym_dtype dtype; /* of the output */
			/* arange, range: element i is start + i * delta,
			 * in int64 ("integer", istart and idelta) or in
			 * double (start and delta); full, ones, zeros: every
			 * element is "value" */
			int integer;
			int64_t istart, idelta;
			double start, delta, value;
		} generate;
		struct {
			double lr, momentum, dampening, weight_decay;
			double beta1, beta2, eps;
			int nesterov;
		} optim;
		struct {
			int64_t stride[2], dilation[2];
			int64_t pad[4]; /* top, bottom, left, right */
			int64_t group;
		} conv;
		struct {
			int64_t kernel[2], stride[2], dilation[2];
			int64_t pad[4]; /* top, bottom, left, right */
			int ceil_mode, count_include_pad;
		} pool;
		struct {
			double p; /* the probability of a zero */
		} dropout;
	};
	void *mem[3];
};

/* The output extent of one spatial dimension of conv2d in "*out", as the
 * shape rule checks it and the kernel runs it; 0, or -1 when it
 * overflows 64 bits (see op_conv.c). */
int sym__conv_extent(int64_t size, int64_t k, int64_t pa, int64_t pb,
    int64_t dil, int64_t stride, int64_t *out);

/* The output extent of one spatial dimension of max_pool2d and
 * avg_pool2d in "*out", PyTorch's rule (see op_pool.c); 0, or -1 when it
 * overflows 64 bits. */
int sym__pool_extent(int64_t size, int64_t k, int64_t pa, int64_t pb,
    int64_t dil, int64_t stride, int ceil_mode, int64_t *out);

/* The floating-point operations of one call of operator "id" with the
 * decoded attributes "at" on the shapes "in" ("n_in") producing "out"
 * ("n_out"): a new reference (public) to an expression of their sizes,
 * NULL when out of memory (flops.c, from the registry entry's "work" and
 * "per"). */
sym_expr *sym__op_flops(enum sym__opid id, const struct sym__opattrs *at,
    sym_shape *const *in, size_t n_in, sym_shape *const *out, size_t n_out);

/* Release what "a" owns and zero it. */
void sym__opattrs_clear(struct sym__opattrs *a);

/* The registry entry of operator "id" (never NULL for an identity below
 * SYM__N_OPS). */
const sym_op *sym__op(enum sym__opid id);

#endif
