/* SPDX-License-Identifier: MIT */
/*
 * symshard: the communicator of the executor and its collectives on rank
 * groups (sym_comm(3)).
 */
#ifndef SYMSHARD_COMM_H
#define SYMSHARD_COMM_H

#include <symshard/common.h>
#include <symshard/shape.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_communicator sym_communicator;
typedef struct sym_comm_endpoint sym_comm_endpoint;

/* "No peer" for the destination or source of sym_comm_permute. */
#define SYM_COMM_NONE (-1)

/* Reductions of sym_comm_all_reduce and sym_comm_reduce_scatter. */
typedef enum sym_reduce_op {
	SYM_REDUCE_SUM,
	SYM_REDUCE_MAX
} sym_reduce_op;

/* Options, read and set with sym_comm_get_option / sym_comm_set_option. */
typedef enum sym_comm_option {
	/* threads: milliseconds to wait for the members of a group to arrive
	 * at a collective; 0 = forever; default 60000. */
	SYM_COMM_OPT_TIMEOUT_MS,
	/* 1 = check that all members pass matching arguments (default);
	 * 0 = trust them (mpi: saves one small all_gather per collective). */
	SYM_COMM_OPT_CHECK
} sym_comm_option;

SYM_EXPORT SYM_GIVE sym_communicator *
sym_comm_threads_new(SYM_KEEP sym_ctx *ctx, int n_ranks);
SYM_EXPORT SYM_GIVE sym_communicator *sym_comm_mpi_new(SYM_KEEP sym_ctx *ctx,
    int *argc, char ***argv);
SYM_EXPORT sym_answer sym_comm_mpi_available(void);
SYM_EXPORT void sym_comm_free(SYM_TAKE sym_communicator *comm);
SYM_EXPORT int sym_comm_n_ranks(SYM_KEEP const sym_communicator *comm);
SYM_EXPORT int sym_comm_rank(SYM_KEEP const sym_communicator *comm);
SYM_EXPORT SYM_KEEP const char *
sym_comm_backend(SYM_KEEP const sym_communicator *comm);
SYM_EXPORT int sym_comm_set_option(SYM_KEEP sym_communicator *comm,
    sym_comm_option opt, long value);
SYM_EXPORT long sym_comm_get_option(SYM_KEEP const sym_communicator *comm,
    sym_comm_option opt);

SYM_EXPORT SYM_KEEP sym_comm_endpoint *sym_comm_attach(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP sym_communicator *comm, int rank);
SYM_EXPORT void sym_comm_detach(SYM_KEEP sym_comm_endpoint *ep);
SYM_EXPORT int sym_comm_endpoint_rank(SYM_KEEP const sym_comm_endpoint *ep);

SYM_EXPORT int sym_comm_all_reduce(SYM_KEEP sym_comm_endpoint *ep,
    const int *group, int group_size, const void *send, void *recv,
    int64_t count, sym_dtype dtype, sym_reduce_op op);
SYM_EXPORT int sym_comm_all_gather(SYM_KEEP sym_comm_endpoint *ep,
    const int *group, int group_size, const void *send, void *recv,
    size_t bytes);
SYM_EXPORT int sym_comm_reduce_scatter(SYM_KEEP sym_comm_endpoint *ep,
    const int *group, int group_size, const void *send, void *recv,
    int64_t count, sym_dtype dtype, sym_reduce_op op);
SYM_EXPORT int sym_comm_all_to_all(SYM_KEEP sym_comm_endpoint *ep,
    const int *group, int group_size, const void *send, void *recv,
    size_t bytes);
SYM_EXPORT int sym_comm_permute(SYM_KEEP sym_comm_endpoint *ep,
    const int *group, int group_size, const void *send, void *recv,
    size_t bytes, int dest, int source);
SYM_EXPORT int sym_comm_broadcast(SYM_KEEP sym_comm_endpoint *ep,
    const int *group, int group_size, void *buf, size_t bytes, int root);
SYM_EXPORT int sym_comm_barrier(SYM_KEEP sym_comm_endpoint *ep,
    const int *group, int group_size);

/* Agree with every rank on whether one failed (SYM_OK: not this one). */
SYM_EXPORT int sym_comm_agree(SYM_KEEP sym_comm_endpoint *ep, sym_error code,
    const char *msg);

#ifdef __cplusplus
}
#endif

#endif
