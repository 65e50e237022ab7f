/* SPDX-License-Identifier: MIT */
/*
 * The executor's internals: one step of a redistribution as one rank runs
 * it on its local blocks (exec_redist.c), boxes of global tensors, and
 * the body of an executor (exec.c, exec_fill.c, exec_check.c).
 *
 * exec_redist.c uses only the public API of layouts, redistributions and
 * the communicator, and reports its own errors as text (the executor
 * adds the step and operator), so that its test can compile it.
 */
#ifndef SYM_EXEC_EXEC_PRIVATE_H
#define SYM_EXEC_EXEC_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include <symshard/comm.h>
#include <symshard/exec.h>
#include <symshard/redist.h>

#include "core/ctx_private.h"
#include "core/hash.h"
#include "kern/kernel.h"

/* A box of a global tensor: per dimension its first global index and
 * its extent. A rank's block under a layout is a box. */
struct sym__box {
	int64_t off[SYM__MAX_RANK];
	int64_t ext[SYM__MAX_RANK];
};

/*
 * One step of a redistribution as rank "rank" runs it, independent of
 * the sizes: its kind, its group of "n" communicator ranks and the
 * caller's position "me" in it, the layouts before and after the step
 * (borrowed from the plan or redistribution that made the step; NULL:
 * whole) and the number of blocks of every dimension under each. A
 * permute knows its destination and source (group ranks, SYM_COMM_NONE
 * when the rank keeps its block), a broadcast its root (group rank 0).
 *
 * The members' ranks and blocks are worked out when a run needs them:
 * a step keeps no table of its group, so that n ranks run as threads of
 * one process hold memory linear in n, not n^2. The group is group "k"
 * of step "step" of "r", or, for a step made by sym__xstep_init, the
 * copy "own" of the caller's list.
 */
struct sym__xstep {
	sym_redist_kind kind;
	int ndim;
	int n, me;
	int64_t rank;
	const sym_redist *r;
	size_t step, k;
	int *own;
	const sym_layout *before, *after;
	int64_t bsplit[SYM__MAX_RANK], asplit[SYM__MAX_RANK];
	int dest, source;
	int root;
};

/* Buffers for packing and unpacking and the list of a group's members,
 * grown as needed and kept; "grows" counts their allocations. */
struct sym__xscratch {
	void *send, *recv;
	size_t send_cap, recv_cap;
	void *members; /* int[] */
	size_t members_cap;
	size_t grows;
};

/* What sym__xstep_run returns on failure: its own error (the message in
 * "err"), or the communicator's (on the endpoint's context). */
#define SYM__XSTEP_ERR (-1)
#define SYM__XSTEP_COMM_ERR (-2)

void sym__thread_start_error(sym_ctx *ctx, const char *who, int k, int n,
    int rc);
int sym__xstep_init(struct sym__xstep *x, sym_redist_kind kind,
    const sym_layout *before, const sym_layout *after, size_t ndim,
    const int64_t *group, int n, int64_t rank, char *err, size_t err_size);
int sym__xstep_from_redist(struct sym__xstep *x, const sym_redist *r, size_t i,
    const sym_layout *before, size_t ndim, int64_t rank, char *err,
    size_t err_size);
void sym__xstep_clear(struct sym__xstep *x);
int sym__xstep_run(const struct sym__xstep *x, sym_comm_endpoint *ep,
    const int64_t *global, sym_dtype dt, const void *in, void *out,
    struct sym__xscratch *s, char *err, size_t err_size);
void sym__xscratch_clear(struct sym__xscratch *s);
void sym__xstep_scratch(const struct sym__xstep *x, const int64_t *global,
    sym_dtype dt, size_t *send, size_t *recv, size_t *members);
int64_t sym__xstep_scatter_pack(const struct sym__xstep *x,
    const int64_t *global, size_t es, const void *in, char *buf, size_t stride);
const int *sym__xstep_group(const struct sym__xstep *x,
    struct sym__xscratch *s);
int sym__xstep_same_group(const struct sym__xstep *a,
    const struct sym__xstep *b);

void sym__box_copy(void *dst, const struct sym__box *dbox, const void *src,
    const struct sym__box *sbox, const struct sym__box *box, int ndim,
    size_t es);

/* A plan tensor on this rank: dtype, element size, rank; the buffer it
 * owns ("cap" bytes, grown, never shrunk) or, when "alias" is not
 * SIZE_MAX and the sizes agree, the data of tensor "alias"; its sizes
 * for the bound slices. */
struct sym__etensor {
	sym_dtype dtype;
	size_t es;
	size_t rank;
	size_t alias;
	size_t pool;   /* optimizer_shard=2: the tensor whose buffer it shares
	              * (the first of its pool), or SIZE_MAX */
	size_t gather; /* optimizer_shard=3: the tensor whose buffer this
	                * whole copy of a param shares, or SIZE_MAX */
	size_t view;   /* a gradient laid out in the buffer of its fused
	                * all_reduce bucket: the bucket, or SIZE_MAX */
	void *buf;
	size_t cap;
	void *data;
	size_t bytes;
	int64_t numel;
	int64_t global[SYM__MAX_RANK];
	int64_t local[SYM__MAX_RANK];
	int64_t offset[SYM__MAX_RANK];
};

/* Integer input "value" holds indices below the global size of dimension
 * "dim" of plan tensor "tensor". */
struct sym__bound {
	const sym_value *value;
	size_t tensor;
	int dim;
};

/* A step of the executor: the plan's step, and for a kernel its
 * function and arguments (tensors, offsets, global dims and output
 * offsets in one block at "tin"), for a communication the step of its
 * redistribution on this rank. */
struct sym__estep {
	size_t index;
	const sym_plan_step *ps;
	sym__kernel_fn fn;
	struct sym__kernel_args args;
	struct sym__tensor *tin, *tout;
	int64_t (*off)[SYM__MAX_RANK];
	int64_t (*glob)[SYM__MAX_RANK];
	int64_t (*ooff)[SYM__MAX_RANK];
	/* The normalizer, when "norm": the product of the global sizes of
	 * input 0 along the axes in "norm_axes". */
	int norm;
	unsigned norm_axes;
	struct sym__bound *bounds;
	size_t n_bounds;
	struct sym__xstep comm;
	/* dropout and dropout_grad: the hash of the dropout's output name,
	 * mixed with the step's seed into args.rng at every run. */
	uint64_t rng_key;
	size_t bucket; /* its fused bucket (exec_fuse.c), or SIZE_MAX */
};

/* An input or parameter sym_exec_fill writes: its home tensor, its name
 * hashed with nothing (the seed is mixed in at fill time). */
struct sym__fillv {
	const sym_value *value;
	size_t tensor;
	uint64_t name_hash;
};

struct sym_exec {
	struct sym__obj obj;
	sym_ctx *ctx;
	const sym_plan *plan;
	sym_comm_endpoint *ep;
	int64_t rank, n_ranks;
	struct sym__etensor *tensor;
	size_t n_tensor;
	struct sym__estep *step;
	size_t n_step;
	struct sym__fillv *fill;
	size_t n_fill;
	const sym_slices *slices;      /* NULL until prepared */
	struct sym__xscratch scratch;  /* communication steps' */
	struct sym__kscratch kscratch; /* kernels' */
	size_t buffer_allocs;          /* tensor buffers allocated */
	void *fuse_buf;                /* fused buckets: packed, sent and
	                                  received (exec_fuse.c) */
	size_t fuse_cap;
	void (*progress)(void *arg, size_t step, size_t n_steps);
	void *progress_arg;
	/* The seed of the current step (of the inputs last filled, or set by
	 * the trainer), which keys dropout's masks. */
	uint64_t rng_seed;
};

void sym__exec_set_progress(sym_exec *x, void (*fn)(void *, size_t, size_t),
    void *arg);
void sym__exec_set_rng(sym_exec *x, uint64_t seed);

/* Return the seed of step "step" (from 0) of a run seeded "seed": what
 * fills the inputs without data and keys dropout's masks. The trainer
 * and the training check (sym_exec_train_check) must agree on it, so
 * both call this. */
static inline uint64_t
sym__step_seed(uint64_t seed, size_t step)
{
	return seed + SYM__GOLDEN * (uint64_t)(step + 1);
}
uint64_t sym__exec_name_key(const char *name);

/* A step of a redistribution made for a rank, kept by moves. */
struct sym__xmstep {
	const sym_redist *r;
	size_t i;
	struct sym__xstep x;
};

/* The buffers of moving params between executors (exec_move.c): the
 * blocks between two steps of a redistribution, the steps' scratch, and
 * the steps made for this rank (by redistribution and step, which must
 * outlive "m"), grown as needed and kept; "grows" counts their
 * allocations. */
struct sym__xmove {
	void *buf[2];
	size_t cap[2];
	size_t grows;
	struct sym__xscratch scratch;
	struct sym__xmstep *steps;
	size_t n_steps, cap_steps;
};

int sym__exec_move(sym_exec *from, sym_exec *to, const sym_value *v,
    const sym_redist *r, const sym_layout *la, struct sym__xmove *m);
void sym__xmove_clear(struct sym__xmove *m);

/* The outputs of a check (exec_check.c): for each value, the sharded
 * result gathered whole ("got"), global row-major, to compare with a
 * reference. */
struct sym__outputs {
	size_t n;
	const sym_value **v;
	void **got;
	sym_dtype *dt;
	int64_t *numel;
};

int sym__outputs_init(struct sym__outputs *out, const sym_plan *p,
    const sym_slices *s, const sym_value *const *vals, size_t n, sym_ctx *ctx);
void sym__outputs_clear(struct sym__outputs *out);
/* Copy the block "data" of value "i" of "out" that rank "rank" holds
 * under "p" bound by "s" into its place in the whole. */
void sym__place_block(struct sym__outputs *out, size_t i, const sym_plan *p,
    const sym_slices *s, int64_t rank, const void *data);
/* Compare value "i" of "out" with the reference "want" into "r" (see
 * sym_exec_check for the tolerances). */
void sym__compare(const struct sym__outputs *out, size_t i, const void *want,
    double rtol, double atol, sym_exec_report *r);

/* The mpi side of a check (exec_check.c): agree with every rank of "ep"
 * on whether one failed (this one when "bad"); room for every rank's
 * blocks of the values of "out"; their gathering through it. */
int sym__check_agree(sym_comm_endpoint *ep, sym_ctx *ctx, int bad);
int sym__gather_alloc(sym_exec *x, int n, const sym_plan *p,
    const struct sym__outputs *out, char **buf, sym_ctx *ctx);
int sym__gather_outputs(sym_exec *x, sym_comm_endpoint *ep, int n,
    const sym_plan *p, const sym_slices *s, struct sym__outputs *out,
    char *all);

/* The options "o" of the check named "who" (NULL: the defaults) copied
 * into "copy", the members a shorter structure lacks left at their
 * defaults; 0, or -1 with SYM_EINVAL on "ctx" when o->size is not a
 * size any version of the structure had. */
int sym__exec_options(sym_ctx *ctx, const char *who, const sym_exec_options *o,
    sym_exec_options *copy);

/* exec_fuse.c */
int sym__exec_fuse_init(sym_exec *x);
int sym__exec_fuse_prepare(sym_exec *x);
/* Lay out the gradients of fused all_reduce buckets in one buffer per
 * bucket where nothing else reads or shares them (at exec_new: mark;
 * at prepare: place); 0, or -1 with SYM_ENOMEM on the context. */
int sym__exec_fuse_views(sym_exec *x);
int sym__exec_fuse_place_views(sym_exec *x);
int sym__exec_run_bucket(sym_exec *x, const struct sym__estep *e, char *err,
    size_t size);

/* exec_fill.c */
int sym__exec_fill_init(sym_exec *x);
int sym__exec_set_inputs(sym_exec *x, const sym_checkpoint *ck);
/* Record SYM_EOVERFLOW on "ctx", located at the declaration of "v": the
 * tensor of "v" (dtype "dt", sizes "dim") has more elements or bytes than
 * 64 bits count; "who" says who found it. Return -1. */
int sym__exec_too_big(sym_ctx *ctx, const char *who, const sym_value *v,
    sym_dtype dt, const int64_t *dim, size_t rank);
/* Return the smallest global size a kernel of "x" (prepared) indexes
 * with the value "v", -1 when none; its node in "*by" (exec_fill.c). */
int64_t sym__exec_index_bound(const sym_exec *x, const sym_value *v,
    const sym_node **by);

/* exec.c: the ranks of the threads backend are threads, so each runs
 * BLAS on one thread, and an MPI rank does too, since the thread count
 * changes OpenBLAS's rounding and both backends must compute the same
 * numbers. sym__blas_one_thread sets one BLAS thread and returns the
 * count to give back to sym__blas_restore (0 where the count cannot be
 * set, and then restoring does nothing). */
int sym__blas_one_thread(void);
void sym__blas_restore(int threads);

/* exec_redist.c: the dtype the communicator reduces elements stored as
 * "dt" in (f32, f64 or int32), SYM_DT_INVALID for bool. */
sym_dtype sym__exec_reduce_dtype(sym_dtype dt);

#endif
