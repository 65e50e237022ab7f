/*
 * The executor's internals: one step of a redistribution as one rank runs
 * it on its local blocks (exec_redist.c), and boxes of global tensors.
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
#include <symshard/layout.h>

#include "exec/kernel.h"

/* A box of a global tensor: per dimension its first global index and
 * its extent. A rank's block under a layout is a box. */
struct sym__box {
	int64_t off[SYM__MAX_RANK];
	int64_t ext[SYM__MAX_RANK];
};

/*
 * One step of a redistribution as rank "rank" runs it, independent of
 * the sizes: its kind, its group (the communicator's ranks, in group
 * order) and the caller's position "me" in it, the number of blocks of
 * every dimension before and after the step and each member's block
 * indices ("bblk" and "ablk", "n" rows of "ndim"). A permute knows its
 * destination and source (group ranks, SYM_COMM_NONE when the rank keeps
 * its block), a broadcast its root (group rank 0).
 */
struct sym__xstep {
	sym_comm_kind kind;
	int ndim;
	int n, me;
	int64_t rank;
	int *group;
	int64_t bsplit[SYM__MAX_RANK], asplit[SYM__MAX_RANK];
	int64_t *bblk, *ablk;
	int dest, source;
	int root;
};

/* Buffers for packing and unpacking, grown as needed and kept. */
struct sym__xscratch {
	void *send, *recv;
	size_t send_cap, recv_cap;
};

/* What sym__xstep_run returns on failure: its own error (the message in
 * "err"), or the communicator's (on the endpoint's context). */
#define SYM__XSTEP_ERR (-1)
#define SYM__XSTEP_COMM_ERR (-2)

int sym__xstep_init(struct sym__xstep *x, sym_comm_kind kind,
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

void sym__box_copy(void *dst, const struct sym__box *dbox, const void *src,
    const struct sym__box *sbox, const struct sym__box *box, int ndim,
    size_t es);

#endif
