/* SPDX-License-Identifier: MIT */
/*
 * symshard: slice plans, the run-time half of a checked graph
 * (sym_plan(3)).
 *
 * A plan is compiled once from a checked (and, on several devices,
 * sharded) graph: the ordered steps every rank runs -- one kernel per
 * operator and the communication steps of every redistribution -- over
 * "plan tensors" (a value in one layout), with every global size, local
 * size and byte count compiled into a straight-line program over 64-bit
 * integers. Binding the sizes of one step (sym_plan_bind) runs that
 * program and checks every constraint -- symbol ranges and classes,
 * declared and derived relations, run-time guards -- without the prover;
 * the result (sym_slices) answers every local size and per-rank offset
 * in constant time.
 */
#ifndef SYMSHARD_PLAN_H
#define SYMSHARD_PLAN_H

#include <symshard/common.h>
#include <symshard/graph.h>
#include <symshard/shard.h>
#include <symshard/redist.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_plan sym_plan;
typedef struct sym_slices sym_slices;

/* Flags of sym_plan_compile. */
#define SYM_PLAN_SINGLE 0x1u /* ignore sharding: one rank, whole tensors */

/* What a step of a plan does. */
typedef enum sym_plan_step_kind {
	SYM_PLAN_KERNEL, /* run the kernel of "node" */
	SYM_PLAN_COMM    /* one step of a redistribution */
} sym_plan_step_kind;

/*
 * One step of a plan; every rank runs the same steps in the same order.
 * Tensors are plan tensor numbers (sym_plan_tensor_*). A kernel step reads
 * "in" and writes "out" (as many as the node has inputs and outputs). A
 * communication step reads in[0] and writes out[0]: step "redist_step" of
 * "redist", which moves "value" towards input "input" of "node" or, when
 * "input" is SYM_PLAN_NO_INPUT, resolves the partial sums "node" produced.
 * "derived" is 1 for the steps of the backward and update parts of a
 * training graph (sym_exec_run_forward skips them).
 */
#define SYM_PLAN_NO_INPUT ((size_t)-1)
typedef struct sym_plan_step {
	sym_plan_step_kind kind;
	const sym_node *node;
	const sym_value *value; /* communication: the value moved */
	size_t input;           /* communication: see above */
	sym_redist_kind comm;   /* communication: the kind of step */
	const sym_redist *redist;
	size_t redist_step;
	size_t n_in, n_out;
	const size_t *in, *out;
	int derived;
} sym_plan_step;

SYM_EXPORT SYM_GIVE sym_plan *sym_plan_compile(SYM_KEEP sym_graph *g,
    unsigned flags);
SYM_EXPORT SYM_GIVE sym_plan *
sym_plan_compile_sharding(SYM_KEEP sym_sharding *sh, unsigned flags);
SYM_EXPORT SYM_KEEP sym_sharding *sym_plan_sharding(SYM_KEEP const sym_plan *p);
SYM_EXPORT void sym_plan_free(SYM_TAKE sym_plan *p);
SYM_EXPORT SYM_KEEP sym_graph *sym_plan_graph(SYM_KEEP const sym_plan *p);
SYM_EXPORT int64_t sym_plan_n_ranks(SYM_KEEP const sym_plan *p);

/* The symbols a binding must give a value (those the inputs' shapes
 * name after unification), in a fixed order. */
SYM_EXPORT size_t sym_plan_n_symbols(SYM_KEEP const sym_plan *p);
SYM_EXPORT SYM_KEEP sym_symbol *sym_plan_symbol(SYM_KEEP const sym_plan *p,
    size_t i);

SYM_EXPORT size_t sym_plan_n_steps(SYM_KEEP const sym_plan *p);
SYM_EXPORT SYM_KEEP const sym_plan_step *
sym_plan_get_step(SYM_KEEP const sym_plan *p, size_t i);

/* Plan tensors: a value in one layout (NULL layout: whole on every rank).
 * Each value of the graph has a home tensor: where its producer's result
 * lives once its partial sums are resolved (for inputs and parameters,
 * where they are placed before the first step). */
SYM_EXPORT size_t sym_plan_n_tensors(SYM_KEEP const sym_plan *p);
SYM_EXPORT SYM_KEEP const sym_value *
sym_plan_tensor_value(SYM_KEEP const sym_plan *p, size_t t);
SYM_EXPORT SYM_KEEP const sym_layout *
sym_plan_tensor_layout(SYM_KEEP const sym_plan *p, size_t t);
SYM_EXPORT size_t sym_plan_tensor_ndim(SYM_KEEP const sym_plan *p, size_t t);
SYM_EXPORT size_t sym_plan_value_tensor(SYM_KEEP const sym_plan *p,
    SYM_KEEP const sym_value *v);

/* Size of the compiled integer program and number of checks. */
SYM_EXPORT size_t sym_plan_n_instructions(SYM_KEEP const sym_plan *p);
SYM_EXPORT size_t sym_plan_n_checks(SYM_KEEP const sym_plan *p);
SYM_EXPORT uint64_t sym_plan_fingerprint(SYM_KEEP const sym_plan *p);
SYM_EXPORT SYM_GIVE char *sym_plan_to_str(SYM_KEEP const sym_plan *p);

/* Bound sizes: one per step of a dynamic-shape run, reusable. */
SYM_EXPORT SYM_GIVE sym_slices *sym_slices_new(SYM_KEEP const sym_plan *p);
SYM_EXPORT void sym_slices_free(SYM_TAKE sym_slices *s);
/* Bind: 0, or -1 with the message on the plan's context and in
 * sym_slices_error ("b = 12 violates divisor=8 declared at ffn.sg:3:8");
 * "values" gives sym_plan_symbol(i) its value in order. */
SYM_EXPORT int sym_plan_bind(SYM_KEEP const sym_plan *p,
    SYM_KEEP const sym_binding *b, SYM_KEEP sym_slices *s);
SYM_EXPORT int sym_plan_bind_values(SYM_KEEP const sym_plan *p,
    const int64_t *values, SYM_KEEP sym_slices *s);
SYM_EXPORT sym_answer sym_slices_is_bound(SYM_KEEP const sym_slices *s);
SYM_EXPORT SYM_KEEP const char *sym_slices_error(SYM_KEEP const sym_slices *s);
SYM_EXPORT int64_t sym_slices_symbol(SYM_KEEP const sym_slices *s,
    SYM_KEEP const sym_symbol *sym);

/* The global sizes of tensor "t"; its local sizes (the same on every
 * rank: splits always divide); the global offsets of the block "rank"
 * holds. Each writes sym_plan_tensor_ndim(t) integers; 0 or -1. */
SYM_EXPORT int sym_slices_global(SYM_KEEP const sym_slices *s, size_t t,
    int64_t *size);
SYM_EXPORT int sym_slices_local(SYM_KEEP const sym_slices *s, size_t t,
    int64_t *size);
SYM_EXPORT int sym_slices_offset(SYM_KEEP const sym_slices *s, size_t t,
    int64_t rank, int64_t *offset);
/* The offsets of tensor "t" on every rank at once, rank after rank
 * (n_ranks x sym_plan_tensor_ndim(t) integers owned by "s"); NULL when
 * unbound or out of range. The pointer is the same after every binding
 * of "s", which rewrites the integers in place: an executor may fetch it
 * once and read it after each binding that succeeded. */
SYM_EXPORT SYM_KEEP const int64_t *
sym_slices_offsets(SYM_KEEP const sym_slices *s, size_t t);
/* Its local sizes, likewise borrowed (sym_plan_tensor_ndim(t)
 * integers). */
SYM_EXPORT SYM_KEEP const int64_t *
sym_slices_local_sizes(SYM_KEEP const sym_slices *s, size_t t);
/* Bytes communicated by step "i" (nccl-tests S; 0 for kernels). */
SYM_EXPORT int64_t sym_slices_step_bytes(SYM_KEEP const sym_slices *s,
    size_t i);
SYM_EXPORT SYM_GIVE char *sym_slices_to_str(SYM_KEEP const sym_slices *s,
    int64_t rank);

#ifdef __cplusplus
}
#endif

#endif
