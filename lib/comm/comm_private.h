/* SPDX-License-Identifier: MIT */
/*
 * The communicator's body, shared by the front end (comm.c) and the
 * backends (comm_threads.c, comm_mpi.c).
 */
#ifndef SYM_COMM_COMM_PRIVATE_H
#define SYM_COMM_COMM_PRIVATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <symshard/comm.h>

#include "core/ctx_private.h"

/* The collectives, as the backends and the argument check see them. */
enum sym__coll {
	SYM__COLL_ALL_REDUCE = 1,
	SYM__COLL_ALL_GATHER,
	SYM__COLL_REDUCE_SCATTER,
	SYM__COLL_ALL_TO_ALL,
	SYM__COLL_PERMUTE,
	SYM__COLL_BROADCAST,
	SYM__COLL_BARRIER
};

/* The arguments of one member's call of a collective. "count" is the
 * number of elements (reductions), "bytes" the bytes of one block (a
 * reduction's block: count times the element size). "root" is the root of
 * a broadcast or the destination of a permute, "source" the source of a
 * permute, both group ranks. The members publish these to each other
 * (threads) or gather them (mpi) to check that they match. */
struct sym__comm_args {
	int32_t kind;
	int32_t dtype;
	int32_t op;
	int32_t root;
	int32_t source;
	int32_t pad;
	int64_t count;
	uint64_t bytes;
	const void *send;
	void *recv;
};

/* A call in progress: the endpoint, its group and its arguments. "me" is
 * the caller's group rank. */
struct sym__comm_call {
	sym_comm_endpoint *ep;
	const int *group;
	int n;
	int me;
	struct sym__comm_args args;
};

/* A backend: its name, its per-communicator state's destructor, and one
 * entry point running any collective. */
struct sym__comm_ops {
	const char *name;
	void (*destroy)(sym_communicator *comm);
	int (*run)(struct sym__comm_call *call);
};

/* A rank's handle. "attached" is 1 while a thread holds it; "ctx" takes
 * its errors. "cache" is the threads backend's per-rank group cache. */
struct sym_comm_endpoint {
	sym_communicator *comm;
	int rank;
	atomic_int attached;
	sym_ctx *ctx;
	void *cache[4];
	unsigned cache_next;
};

struct sym_communicator {
	sym_ctx *ctx;
	const struct sym__comm_ops *ops;
	int n_ranks;
	int rank;   /* mpi: this process's rank; threads: -1 */
	int *world; /* 0, 1, ..., n_ranks - 1 */
	atomic_long timeout_ms;
	atomic_int check;
	int n_ep; /* threads: n_ranks; mpi: 1 (this process's rank) */
	sym_comm_endpoint *ep;
	void *impl; /* the backend's state */
	struct sym__obj obj;
};

/* comm.c */
sym_communicator *sym__comm_new(sym_ctx *ctx, const struct sym__comm_ops *ops,
    int n_ranks, int rank, int n_ep);
int sym__comm_group_check(sym_ctx *ctx, int n_ranks, const int *group, int n);
int sym__comm_args_check(sym_ctx *ctx, const struct sym__comm_call *call,
    const struct sym__comm_args *all, size_t stride);
const char *sym__comm_coll_name(int kind);
char *sym__comm_group_str(const int *group, int n);
uint64_t sym__comm_group_hash(const int *group, int n);

/* comm_fold.c */
void sym__comm_combine(const struct sym__comm_args *a, void *out, const void *x,
    const void *y, size_t len);
size_t sym__comm_elem_size(const struct sym__comm_args *a);
size_t sym__comm_share(size_t count, int n, int c, size_t unit);
void sym__comm_fold(const struct sym__comm_args *a, void *out, const void *base,
    size_t stride, int n, size_t len);

/* comm_threads.c */
extern const struct sym__comm_ops sym__comm_threads_ops;
int sym__comm_threads_init(sym_communicator *comm);

/* comm_mpi.c, or the stub in comm.c without MPI */
sym_communicator *sym__comm_mpi_new(sym_ctx *ctx, int *argc, char ***argv);

#endif
