/* SPDX-License-Identifier: MIT */
/*
 * The MPI backend: one rank per process, over a duplicate of
 * MPI_COMM_WORLD; each distinct group gets an MPI communicator, created
 * (collectively over the group's members only) at its first use and kept
 * until the end. The collectives map to MPI's, but for the reductions:
 * MPI does not say in which order MPI_Allreduce adds, so all_reduce and
 * reduce_scatter move the members' values with point-to-point and
 * gathering calls and fold them here in group order (comm_fold.c), as the
 * threads backend does, so that both give bitwise the same results. The
 * room this takes (at most 8 MiB, a few hundred bytes a rank beyond 32768
 * ranks) is allocated with the communicator. With SYM_COMM_OPT_CHECK on,
 * every call first gathers the members' arguments so that a mismatch fails
 * on every member with the same message as on the threads backend.
 *
 * MPI has no timeout: a member that fails alone once its peers may be
 * inside the collective would leave them waiting forever. So nothing a
 * member decides alone comes between the first MPI call of a collective
 * and the last: the buffer of the argument check is allocated with the
 * communicator, the limits of MPI's int counts are checked on arguments
 * every member has (after the check), and running out of memory while
 * creating a group's communicator, which its peers are already creating,
 * ends the job with MPI_Abort.
 *
 * Compiled only when configure found MPI (SYM_HAVE_MPI); otherwise comm.c
 * has the stub of sym__comm_mpi_new.
 */
#ifdef SYM_HAVE_MPI

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "comm/comm_private.h"

#define PERMUTE_TAG 7301

/* The communicator of one group. */
struct mgroup {
	struct mgroup *next;
	int n;
	int *ranks;
	MPI_Comm comm;
};

/* The backend's state: the world's duplicate, whether MPI was initialised
 * here (and is then finalised by sym_comm_free), the groups' communicators,
 * room for the arguments of every rank (the argument check's), and the
 * room of the reductions: "scratch", requests, counts and displacements
 * for every rank. */
struct mpi {
	MPI_Comm world;
	int init_here;
	struct mgroup *groups;
	struct sym__comm_args *all;
	void *scratch;
	size_t scratch_bytes;
	MPI_Request *req;
	int *counts;
	size_t *disp;
};

/* The room of the deterministic reductions: SHARE_BYTES for each member's
 * share of a segment, at most SCRATCH_MAX in all but never less than
 * SCRATCH_MIN a member; reductions of at most SMALL_BYTES gather every
 * member's vector whole when they fit the room. */
#define SHARE_BYTES ((size_t)128 * 1024)
#define SCRATCH_MAX ((size_t)8 * 1024 * 1024)
#define SCRATCH_MIN ((size_t)256)
#define SMALL_BYTES ((size_t)16 * 1024)
#define REDUCE_TAG 7302

/* Return the bytes of the reductions' room for "n" members. */
static size_t
scratch_bytes(int n)
{
	size_t per = SCRATCH_MAX / (size_t)n;

	if (per > SHARE_BYTES)
		per = SHARE_BYTES;
	if (per < SCRATCH_MIN)
		per = SCRATCH_MIN;
	return per / 64 * 64 * (size_t)n;
}

/* Allocate in "m" the room of the reductions for "n" ranks on "ctx";
 * 0, or -1 out of memory (recorded). */
static int
room_alloc(sym_ctx *ctx, struct mpi *m, int n)
{
	size_t un = (size_t)n;

	m->scratch_bytes = scratch_bytes(n);
	m->scratch = sym__alloc(ctx, m->scratch_bytes);
	m->req = sym__realloc_array(ctx, NULL, 2 * un, sizeof(*m->req));
	m->counts = sym__realloc_array(ctx, NULL, 2 * un, sizeof(int));
	m->disp = sym__realloc_array(ctx, NULL, un, sizeof(size_t));
	return m->scratch && m->req && m->counts && m->disp ? 0 : -1;
}

/* Free the room of the reductions of "m". */
static void
room_free(struct mpi *m)
{
	free(m->scratch);
	free(m->req);
	free(m->counts);
	free(m->disp);
}

/* The exit code of MPI_Abort when a member runs out of memory where its
 * peers cannot be told (EX_OSERR of sysexits.h). */
#define ABORT_CODE 71

/* Return 1 when MPI is initialised and not yet finalised. */
static int
mpi_alive(void)
{
	int init = 0, fin = 1;

	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	return init && !fin;
}

/* Free the backend state of "comm": the communicators, then MPI itself
 * when it was initialised here. */
static void
mpi_destroy(sym_communicator *comm)
{
	struct mpi *m = comm->impl;
	int alive = mpi_alive();

	if (!m)
		return;
	while (m->groups) {
		struct mgroup *g = m->groups;

		m->groups = g->next;
		if (alive && g->comm != MPI_COMM_NULL)
			MPI_Comm_free(&g->comm);
		free(g->ranks);
		free(g);
	}
	if (alive && m->world != MPI_COMM_NULL)
		MPI_Comm_free(&m->world);
	if (alive && m->init_here)
		MPI_Finalize();
	free(m->all);
	room_free(m);
	free(m);
	comm->impl = NULL;
}

/* Record SYM_EIO on "ctx" for the MPI error "rc" of "what"; return -1. */
static int
mpi_error(sym_ctx *ctx, const char *what, int rc)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
		snprintf(text, sizeof(text), "error %d", rc);
	sym__error(ctx, SYM_EIO, NULL, "%s: MPI: %s", what, text);
	return -1;
}

/* End the job: this member of the group of "call" ran out of memory
 * while its peers may already be in the collective, where they would
 * wait for it forever. */
static void
abort_oom(struct sym__comm_call *call, struct mpi *m)
{
	sym_ctx *ctx = call->ep->ctx;

	sym__oom(ctx);
	MPI_Abort(m->world, ABORT_CODE);
}

/* Return the communicator of the group of "call" in the state "m",
 * created at its first use; MPI_COMM_NULL with an error on the caller's
 * context (a group that is not valid, which every member passing the
 * same group sees alike, or MPI's error). Out of memory, the job
 * ends (abort_oom). */
static MPI_Comm
group_comm(struct sym__comm_call *call, struct mpi *m)
{
	sym_ctx *ctx = call->ep->ctx;
	struct mgroup *g;
	MPI_Group wg, gg;
	int rc, identity = call->n == call->ep->comm->n_ranks;
	size_t sz = (size_t)call->n * sizeof(int);

	for (int i = 0; i < call->n && identity; i++)
		identity = call->group[i] == i;
	if (identity)
		return m->world;
	for (g = m->groups; g; g = g->next)
		if (g->n == call->n && !memcmp(g->ranks, call->group, sz))
			return g->comm;
	if (sym__comm_group_check(ctx, call->ep->comm->n_ranks, call->group,
	        call->n) < 0) {
		if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
			abort_oom(call, m);
		return MPI_COMM_NULL;
	}
	g = sym__alloc(ctx, sizeof(*g));
	if (!g || !(g->ranks = sym__alloc(ctx, sz))) {
		free(g);
		abort_oom(call, m);
		return MPI_COMM_NULL;
	}
	memcpy(g->ranks, call->group, sz);
	g->n = call->n;
	MPI_Comm_group(m->world, &wg);
	MPI_Group_incl(wg, call->n, call->group, &gg);
	rc = MPI_Comm_create_group(m->world, gg,
	    (int)(sym__comm_group_hash(call->group, call->n) & 0x7fff),
	    &g->comm);
	MPI_Group_free(&gg);
	MPI_Group_free(&wg);
	if (rc != MPI_SUCCESS) {
		free(g->ranks);
		free(g);
		mpi_error(ctx, "creating a group communicator", rc);
		return MPI_COMM_NULL;
	}
	MPI_Comm_set_errhandler(g->comm, MPI_ERRORS_RETURN);
	g->next = m->groups;
	m->groups = g;
	return g->comm;
}

/* Return 0 when every member of the group of "call" passed matching
 * arguments (gathered over "gc" into the room "all" of "m"), else -1
 * with an error. */
static int
check_args(struct sym__comm_call *call, MPI_Comm gc, struct mpi *m)
{
	int rc;

	rc = MPI_Allgather(&call->args, (int)sizeof(call->args), MPI_BYTE,
	    m->all, (int)sizeof(call->args), MPI_BYTE, gc);
	if (rc != MPI_SUCCESS)
		return mpi_error(call->ep->ctx, "checking the arguments", rc);
	return sym__comm_args_check(call->ep->ctx, call, m->all,
	    sizeof(*m->all));
}

/* Return the MPI datatype of the reduction of "a". */
static MPI_Datatype
mpi_type(const struct sym__comm_args *a)
{
	switch (a->dtype) {
	case SYM_DT_F32:
		return MPI_FLOAT;
	case SYM_DT_F64:
		return MPI_DOUBLE;
	default:
		return MPI_INT32_T;
	}
}

/* Exchange the pieces of one segment of the reduction "call" over "gc":
 * every member "j" sends "cnt"[j] elements from "src"(j) and this member
 * receives "mine" elements from each into slot j of the room of "m"
 * ("slot" elements apart). "src" is the start of the caller's send data
 * of the segment and "disp"[j] the element where member j's piece
 * begins. Return MPI's result. */
static int
exchange(struct sym__comm_call *call, MPI_Comm gc, struct mpi *m,
    const char *src, const size_t *disp, const int *cnt, int mine, size_t slot)
{
	const struct sym__comm_args *a = &call->args;
	size_t es = sym__comm_elem_size(a);
	MPI_Datatype t = mpi_type(a);
	char *room = m->scratch;
	int nr = 0, rc = MPI_SUCCESS;

	for (int j = 0; j < call->n && rc == MPI_SUCCESS; j++) {
		if (j == call->me)
			continue;
		rc = MPI_Irecv(room + (size_t)j * slot * es, mine, t, j,
		    REDUCE_TAG, gc, &m->req[nr++]);
		if (rc == MPI_SUCCESS)
			rc = MPI_Isend(src + disp[j] * es, cnt[j], t, j,
			    REDUCE_TAG, gc, &m->req[nr++]);
	}
	if ((size_t)mine > 0)
		memcpy(room + (size_t)call->me * slot * es,
		    src + disp[call->me] * es, (size_t)mine * es);
	if (rc == MPI_SUCCESS)
		rc = MPI_Waitall(nr, m->req, MPI_STATUSES_IGNORE);
	return rc;
}

/* Run the all_reduce "call" on "gc" with the order of the threads
 * backend: small vectors are gathered whole by every member and folded;
 * larger ones are cut into segments, each member folding its share of a
 * segment from the pieces the others send it, then gathering the
 * others' shares. Return MPI's result. */
static int
all_reduce(struct sym__comm_call *call, MPI_Comm gc, struct mpi *m)
{
	const struct sym__comm_args *a = &call->args;
	size_t es = sym__comm_elem_size(a), unit = 64 / es;
	size_t count = (size_t)a->count, n = (size_t)call->n;
	size_t slot = m->scratch_bytes / n / es, seg = n * (slot - unit);
	int *cnt = m->counts, *dsp = m->counts + n, rc = MPI_SUCCESS;
	size_t *dp = m->disp;

	if (a->bytes <= SMALL_BYTES && a->bytes * n <= m->scratch_bytes) {
		rc = MPI_Allgather(a->send, (int)a->bytes, MPI_BYTE, m->scratch,
		    (int)a->bytes, MPI_BYTE, gc);
		if (rc == MPI_SUCCESS)
			sym__comm_fold(a, a->recv, m->scratch, a->bytes,
			    call->n, count);
		return rc;
	}
	for (size_t off = 0; off < count && rc == MPI_SUCCESS; off += seg) {
		size_t len = count - off < seg ? count - off : seg;
		size_t lo = sym__comm_share(len, call->n, call->me, unit);

		for (int j = 0; j < call->n; j++) {
			dp[j] = sym__comm_share(len, call->n, j, unit);
			cnt[j] =
			    (int)(sym__comm_share(len, call->n, j + 1, unit) -
			        dp[j]);
			dsp[j] = (int)dp[j];
		}
		rc = exchange(call, gc, m, (const char *)a->send + off * es, dp,
		    cnt, cnt[call->me], slot);
		if (rc != MPI_SUCCESS)
			break;
		sym__comm_fold(a, (char *)a->recv + (off + lo) * es, m->scratch,
		    slot * es, call->n, (size_t)cnt[call->me]);
		rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
		    (char *)a->recv + off * es, cnt, dsp, mpi_type(a), gc);
	}
	return rc;
}

/* Run the reduce_scatter "call" on "gc" with the order of the threads
 * backend: segment by segment of this member's block, every member sends
 * it its piece and it folds them. Return MPI's result. */
static int
reduce_scatter(struct sym__comm_call *call, MPI_Comm gc, struct mpi *m)
{
	const struct sym__comm_args *a = &call->args;
	size_t es = sym__comm_elem_size(a), count = (size_t)a->count;
	size_t slot = m->scratch_bytes / (size_t)call->n / es;
	int *cnt = m->counts, rc = MPI_SUCCESS;

	for (size_t off = 0; off < count && rc == MPI_SUCCESS; off += slot) {
		size_t len = count - off < slot ? count - off : slot;

		for (int j = 0; j < call->n; j++) {
			m->disp[j] = (size_t)j * count + off;
			cnt[j] = (int)len;
		}
		rc = exchange(call, gc, m, a->send, m->disp, cnt, (int)len,
		    slot);
		if (rc == MPI_SUCCESS)
			sym__comm_fold(a, (char *)a->recv + off * es,
			    m->scratch, slot * es, call->n, len);
	}
	return rc;
}

/* Return 0 when "count" of the call "call" fits MPI's int counts, else -1
 * with SYM_EOVERFLOW. */
static int
fits_int(struct sym__comm_call *call, uint64_t count, const char *what)
{
	if (count <= INT_MAX)
		return 0;
	sym__error(call->ep->ctx, SYM_EOVERFLOW, NULL,
	    "%s on rank %d: %llu %s exceed MPI's int counts",
	    sym__comm_coll_name(call->args.kind), call->ep->rank,
	    (unsigned long long)count, what);
	return -1;
}

/* Run the MPI calls of "call" on the group communicator "gc" with the
 * state "m"; return MPI's result. */
static int
mpi_call(struct sym__comm_call *call, MPI_Comm gc, struct mpi *m)
{
	const struct sym__comm_args *a = &call->args;
	int b = (int)a->bytes;
	const void *own = (const char *)a->recv + (size_t)call->me * a->bytes;

	switch (a->kind) {
	case SYM__COLL_ALL_REDUCE:
		return all_reduce(call, gc, m);
	case SYM__COLL_ALL_GATHER:
		return MPI_Allgather(a->bytes && a->send == own ? MPI_IN_PLACE
		                                                : a->send,
		    b, MPI_BYTE, a->recv, b, MPI_BYTE, gc);
	case SYM__COLL_REDUCE_SCATTER:
		return reduce_scatter(call, gc, m);
	case SYM__COLL_ALL_TO_ALL:
		return MPI_Alltoall(a->send, b, MPI_BYTE, a->recv, b, MPI_BYTE,
		    gc);
	case SYM__COLL_PERMUTE:
		return MPI_Sendrecv(a->send, a->root >= 0 ? b : 0, MPI_BYTE,
		    a->root >= 0 ? a->root : MPI_PROC_NULL, PERMUTE_TAG,
		    a->recv, a->source >= 0 ? b : 0, MPI_BYTE,
		    a->source >= 0 ? a->source : MPI_PROC_NULL, PERMUTE_TAG, gc,
		    MPI_STATUS_IGNORE);
	case SYM__COLL_BROADCAST:
		return MPI_Bcast(a->recv, b, MPI_BYTE, a->root, gc);
	default:
		return MPI_Barrier(gc);
	}
}

/* Run the collective "call" on the MPI backend; return 0, or -1 with an
 * error on the caller's context. */
static int
mpi_run(struct sym__comm_call *call)
{
	sym_communicator *comm = call->ep->comm;
	MPI_Comm gc;
	int rc;

	if (!mpi_alive()) {
		sym__error(call->ep->ctx, SYM_EIO, NULL,
		    "%s on rank %d: MPI is finalised",
		    sym__comm_coll_name(call->args.kind), call->ep->rank);
		return -1;
	}
	gc = group_comm(call, comm->impl);
	if (gc == MPI_COMM_NULL)
		return -1;
	if (atomic_load(&comm->check) && check_args(call, gc, comm->impl) < 0)
		return -1;
	if (fits_int(call, call->args.bytes, "bytes") < 0 ||
	    fits_int(call, (uint64_t)call->args.count, "elements") < 0)
		return -1;
	rc = mpi_call(call, gc, comm->impl);
	if (rc != MPI_SUCCESS)
		return mpi_error(call->ep->ctx,
		    sym__comm_coll_name(call->args.kind), rc);
	return 0;
}

static const struct sym__comm_ops mpi_ops = {
	.name = "mpi",
	.destroy = mpi_destroy,
	.run = mpi_run,
};

/* Free the parts "m" and "world" of a communicator that was not made,
 * finalising MPI when "init_here". */
static void
unmade(struct mpi *m, MPI_Comm *world, int init_here)
{
	if (*world != MPI_COMM_NULL)
		MPI_Comm_free(world);
	if (m) {
		free(m->all);
		room_free(m);
	}
	free(m);
	if (init_here)
		MPI_Finalize();
}

/* Return an MPI communicator of "ctx" over MPI_COMM_WORLD, initialising MPI
 * (MPI_THREAD_SERIALIZED) with "argc" and "argv" unless it is; NULL with
 * SYM_EIO on "ctx" when MPI is finalised or fails, SYM_ENOMEM out of
 * memory. The processes agree at the end: when one fails, all do. */
sym_communicator *
sym__comm_mpi_new(sym_ctx *ctx, int *argc, char ***argv)
{
	sym_communicator *comm = NULL;
	MPI_Comm world = MPI_COMM_NULL;
	struct mpi *m;
	int init = 0, fin = 0, provided, rank = 0, size = 1, rc, bad, first = 0;

	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (fin) {
		sym__error(ctx, SYM_EIO, NULL,
		    "mpi communicator: MPI is already finalised");
		return NULL;
	}
	if (!init) {
		rc = MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED,
		    &provided);
		if (rc != MPI_SUCCESS) {
			sym__error(ctx, SYM_EIO, NULL,
			    "mpi communicator: MPI_Init_thread failed");
			return NULL;
		}
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	m = sym__alloc(ctx, sizeof(*m));
	if (m) {
		m->init_here = !init;
		m->world = MPI_COMM_NULL;
		m->all = sym__realloc_array(ctx, NULL, (size_t)size,
		    sizeof(*m->all));
	}
	rc = MPI_Comm_dup(MPI_COMM_WORLD, &world);
	if (rc != MPI_SUCCESS)
		mpi_error(ctx, "mpi communicator", rc);
	else if (m && m->all && room_alloc(ctx, m, size) == 0)
		comm = sym__comm_new(ctx, &mpi_ops, size, rank, 1);
	bad = comm ? 0 : size - rank;
	rc = MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS || first != 0 || !comm) {
		if (comm && rc != MPI_SUCCESS)
			mpi_error(ctx, "mpi communicator", rc);
		else if (comm)
			sym__error(ctx, SYM_EIO, NULL,
			    "mpi communicator: rank %d could not make its "
			    "communicator",
			    size - first);
		sym_comm_free(comm);
		unmade(m, &world, !init);
		return NULL;
	}
	MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
	m->world = world;
	comm->impl = m;
	return comm;
}

#else

/* Without MPI this file declares nothing else (see comm.c). */
typedef int sym__comm_mpi_unused;

#endif
