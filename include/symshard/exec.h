/* SPDX-License-Identifier: MIT */
/*
 * symshard: the kernel-by-kernel executor of slice plans (sym_exec(3)).
 *
 * An executor runs the steps of one rank of a plan: one CPU kernel call
 * per operator, the communication steps through a communicator endpoint
 * (sym_comm(3)), every tensor sized by the bound slices of the step, so a
 * new batch size needs no recompilation. sym_exec_check runs a whole
 * plan on every rank of a communicator and compares it with the same
 * graph run on one device.
 */
#ifndef SYMSHARD_EXEC_H
#define SYMSHARD_EXEC_H

#include <symshard/checkpoint.h>
#include <symshard/comm.h>
#include <symshard/common.h>
#include <symshard/plan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_exec sym_exec;

/* One rank of "p": the endpoint's rank ("ep" may be NULL for a plan of
 * one rank). Errors are left on "ctx", which the executor's thread owns. */
SYM_EXPORT SYM_GIVE sym_exec *sym_exec_new(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP const sym_plan *p, SYM_KEEP sym_comm_endpoint *ep);
SYM_EXPORT void sym_exec_free(SYM_TAKE sym_exec *x);
SYM_EXPORT int64_t sym_exec_rank(SYM_KEEP const sym_exec *x);

/* Size every local buffer for the bound slices "s" (kept until the next
 * call; buffers are reused when they are large enough); 0 or -1. */
SYM_EXPORT int sym_exec_prepare(SYM_KEEP sym_exec *x,
    SYM_KEEP const sym_slices *s);
/* The local block of plan tensor "t" on this rank (after prepare), its
 * size in bytes in "*bytes" (may be NULL); NULL for a tensor the
 * executor does not keep. */
SYM_EXPORT SYM_KEEP void *sym_exec_data(SYM_KEEP sym_exec *x, size_t t,
    size_t *bytes);
/* The same for the value named "name" of the plan's graph. */
SYM_EXPORT SYM_KEEP void *sym_exec_value_data(SYM_KEEP sym_exec *x,
    const char *name, size_t *bytes);
/* Exchange this rank's block of the param, optimizer state or input
 * "name" with the whole tensor ("bytes" bytes, global row-major): place
 * the block into "whole", or set the block from it. 0 or -1. */
SYM_EXPORT int sym_exec_get_whole(SYM_KEEP sym_exec *x, const char *name,
    void *whole, size_t bytes);
SYM_EXPORT int sym_exec_set_whole(SYM_KEEP sym_exec *x, const char *name,
    const void *whole, size_t bytes);
/* Fill the local blocks of every input and parameter with values that
 * depend only on "seed", the value's name and the global index of each
 * element (the same numbers on any number of ranks); integer inputs stay
 * within what their consumers index (classes, table rows). 0 or -1. */
SYM_EXPORT int sym_exec_fill(SYM_KEEP sym_exec *x, uint64_t seed);
/* The same for the inputs only, and for the params only (optimizer state
 * included): a training loop initializes its params once and fills its
 * inputs at every step. */
SYM_EXPORT int sym_exec_fill_inputs(SYM_KEEP sym_exec *x, uint64_t seed);
SYM_EXPORT int sym_exec_init_params(SYM_KEEP sym_exec *x, uint64_t seed);
/* Run every step of the plan on this rank; 0 or -1. */
SYM_EXPORT int sym_exec_run(SYM_KEEP sym_exec *x);
/* Run only the forward part of a training graph (no gradient, no
 * update): evaluation; 0 or -1. */
SYM_EXPORT int sym_exec_run_forward(SYM_KEEP sym_exec *x);
/* Collective over every rank of the endpoint: gather value "name"
 * (an output, param, state or input) whole into "whole" ("bytes"
 * bytes) on every rank; 0 or -1 (the same on every rank). */
SYM_EXPORT int sym_exec_gather_whole(SYM_KEEP sym_exec *x, const char *name,
    void *whole, size_t bytes);

/* Options of sym_exec_check and sym_exec_train_check;
 * SYM_EXEC_OPTIONS_INIT gives the defaults and the size of the structure
 * this header declares. */
typedef struct sym_exec_options {
	size_t size;
	uint64_t seed;
	double rtol,
	    atol; /* tolerance |a - b| <= atol + rtol*|b|; 0: default */
	/* Called by rank 0 after each step when not NULL. */
	void (*progress)(void *arg, size_t step, size_t n_steps);
	void *progress_arg;
	/* sym_exec_check: when not NULL, the inputs and params it names,
	 * whole, replace the seeded fill (their dtypes and sizes must be
	 * the values'); the sharded run's outputs, whole, are added to
	 * "outputs" under their names. */
	const sym_checkpoint *inputs;
	sym_checkpoint *outputs;
} sym_exec_options;

#define SYM_EXEC_OPTIONS_INIT                    \
	{                                        \
		.size = sizeof(sym_exec_options) \
	}

/* The report of sym_exec_check. */

typedef struct sym_exec_report {
	double max_abs, max_rel; /* over every element of every output */
	int64_t n_mismatch;      /* elements beyond tolerance */
	const sym_value *worst;  /* the output with the largest difference */
	int64_t worst_index;     /* its global (row-major) element index */
	double sharded_seconds, single_seconds;
} sym_exec_report;

/* Bind "b" to the sharded plan "p" and to "single" (compiled from the
 * same graph with SYM_PLAN_SINGLE), run "p" on every rank of "comm" (the
 * threads backend: one thread per rank; mpi: this process's rank), gather
 * the outputs, run "single" and compare. Every process gets the report.
 * 0 when both ran (the report says whether they agree); -1 with the
 * error on "ctx" otherwise (nothing runs when "b" violates a
 * constraint). */
SYM_EXPORT int sym_exec_check(SYM_KEEP sym_ctx *ctx, SYM_KEEP const sym_plan *p,
    SYM_KEEP const sym_plan *single, SYM_KEEP sym_communicator *comm,
    SYM_KEEP const sym_binding *b, SYM_KEEP const sym_exec_options *o,
    sym_exec_report *r);

/* The report of sym_exec_train_check: "outputs" over the outputs of
 * every step (the loss, ...), "params" over every param and optimizer
 * state after the last step; the steps run and the first (from 0) whose
 * outputs differed, SIZE_MAX when none did. */
typedef struct sym_train_report {
	sym_exec_report outputs;
	sym_exec_report params;
	size_t n_steps;
	size_t first_mismatch;
} sym_train_report;

/* Train "p" on every rank of the communicator "comm" (threads or mpi) and
 * "single" alongside, one step per binding of "steps" ("n_steps"), the
 * params initialized with o->seed and the inputs of step i filled from
 * a seed derived from it, and compare their outputs after every step and
 * their params and optimizer state after the last; the sharded first
 * output of each step goes to "loss" when it is not NULL. 0 when every
 * step ran (the report says whether they agree); -1 with the error on
 * "ctx" otherwise. */
SYM_EXPORT int sym_exec_train_check(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP const sym_plan *p, SYM_KEEP const sym_plan *single,
    SYM_KEEP sym_communicator *comm, SYM_KEEP const sym_binding *const *steps,
    size_t n_steps, SYM_KEEP const sym_exec_options *o, double *loss,
    sym_train_report *r);

#ifdef __cplusplus
}
#endif

#endif
