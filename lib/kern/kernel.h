/* SPDX-License-Identifier: MIT */
/*
 * CPU kernels of the executor: one call per operator per step, on local
 * (per-rank) tensors whose sizes the bound plan gives.
 */
#ifndef SYM_KERN_KERNEL_H
#define SYM_KERN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include <symshard/shape.h>

#include "shape/op.h"

#define SYM__MAX_RANK 8

/* A dense row-major tensor: f32 for floating dtypes (f64 kept as f64),
 * int32 for integer dtypes, uint8 for bool. */
struct sym__tensor {
	void *data;
	sym_dtype dtype;
	int rank;
	int64_t dim[SYM__MAX_RANK];
};

/* Temporary memory kernels reuse across calls: "cap" bytes at "data"
 * (64-byte aligned; contents undefined between calls), grown and never
 * shrunk; "grows" counts its allocations. Zero-initialise it. */
struct sym__kscratch {
	void *data;
	size_t cap;
	size_t grows;
};

/*
 * The arguments of one kernel call. "at" holds the node's attributes as
 * its shape rule decoded them (axes normalised, defaults applied); the
 * kernels read nothing else of them and fail when it is NULL for an
 * operator that has attributes. Everything that depends on sizes is in
 * the tensors, whose
 * dims are LOCAL. "offset[i][d]" is the global offset of input i's block
 * along d (kernels that need global indices, e.g. gather / embedding with
 * a split table, use it); "global_dim" the global sizes of input i;
 * "out_offset[o][d]" the global offset of output o's block along d
 * (one_hot with a split class dim). Each of the three may be NULL: no
 * offsets, global sizes equal to the local ones. The caller
 * zero-initialises the structure; a kernel only
 * reads it, writes the outputs' data (allocated by the caller with the
 * dims the plan gives, which the kernel checks) and, on failure, "error".
 * The executor may alias the output of the operators flagged
 * SYM__OPF_ALIAS to their input (same "data"): then the kernel only
 * checks the shapes. Kernels that need temporary memory (conv2d,
 * softmax_cross_entropy, softmax and log_softmax, reduce_sum and
 * reduce_mean) take it from "scratch" when it is not NULL, growing it
 * when it is too small, so that calls with sizes seen before allocate
 * nothing; without one they allocate and free it in each call. Kernels
 * are reentrant: calls on different arguments may run in parallel
 * threads, attributes shared, each thread with its own scratch area.
 */
struct sym__kernel_args {
	const sym_op *op;
	const struct sym__opattrs *at;
	int n_in, n_out;
	const struct sym__tensor *in;
	struct sym__tensor *out;
	const int64_t (*offset)[SYM__MAX_RANK];
	const int64_t (*global_dim)[SYM__MAX_RANK];
	const int64_t (*out_offset)[SYM__MAX_RANK];
	int64_t normalizer; /* reduce_mean / loss mean: global count */
	struct sym__kscratch *scratch; /* NULL: allocate per call */
	char *error;                   /* set (malloc'ed) on failure */
	/* dropout and dropout_grad: the key of their mask (the step's seed
	 * mixed with the name of the dropout's output), and "eval" set in
	 * an evaluation (sym_exec_run_forward), where dropout is the
	 * identity. */
	uint64_t rng;
	int eval;
};

/* A kernel: 0 on success; -1 with a->error set (replacing any previous
 * message) when the tensors do not fit the operator. */
typedef int (*sym__kernel_fn)(struct sym__kernel_args *a);

/* The kernel of operator "op", or NULL. */
sym__kernel_fn sym__kernel(const sym_op *op);

/* Allocate / free the data of "t" for its dtype and dims; 0 or -1. */
int sym__tensor_alloc(struct sym__tensor *t);
void sym__tensor_free(struct sym__tensor *t);
int64_t sym__tensor_numel(const struct sym__tensor *t);
/* The element count of the sizes "dim", -1 when it (or its bytes, at "es"
 * bytes an element) overflows 64 bits. */
int64_t sym__dims_numel(const int64_t *dim, size_t rank, size_t es);
size_t sym__tensor_elem_size(sym_dtype dt);

/* The bytes the call "a" (its tensors' dims and attributes filled; no
 * data read) takes from its scratch area, 0 when it takes none: what
 * the kernel passes to sym__kscratch_get for these dims, so that an area
 * grown to the largest of a plan's calls before they run is never grown
 * by them (the executor does so when it prepares a binding). Every
 * kernel that takes scratch has its size here (kernel.c). */
size_t sym__kernel_scratch(const struct sym__kernel_args *a);

/* Temporary memory of a call (scratch.c): one area per call. */
int sym__kbuf_grow(void **data, size_t *cap, size_t *grows, size_t bytes);
void *sym__kscratch_get(struct sym__kernel_args *a, size_t bytes);
void sym__kscratch_done(struct sym__kernel_args *a, void *p);
void sym__kscratch_free(struct sym__kscratch *s);

#endif
