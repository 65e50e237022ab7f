/* SPDX-License-Identifier: MIT */
/*
 * The communicator's front end: creation, options, rank handles, and the
 * collectives' argument checks before they are handed to a backend
 * (comm_threads.c or comm_mpi.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "comm/comm_private.h"

#define DEFAULT_TIMEOUT_MS 60000L
#define GROUP_STR_MAX 16

/* Free the communicator whose link is "link" (at sym_ctx_free too). */
static void
comm_destroy(struct sym__obj *obj)
{
	sym_communicator *comm = SYM__OBJ_OF(obj, sym_communicator, obj);

	if (comm->ops && comm->ops->destroy)
		comm->ops->destroy(comm);
	free(comm->world);
	free(comm->ep);
	free(comm);
}

/* Return a new communicator of "ctx" over "n_ranks" ranks using backend
 * "ops", "rank" being this process's rank (-1: none) and "n_ep" the number
 * of rank handles (for ranks 0 .. n_ep - 1, or "rank" alone when n_ep is
 * 1 and "rank" is not -1); NULL with an error on "ctx". The backend's state
 * is left NULL. */
sym_communicator *
sym__comm_new(sym_ctx *ctx, const struct sym__comm_ops *ops, int n_ranks,
    int rank, int n_ep)
{
	sym_communicator *comm = sym__alloc(ctx, sizeof(*comm));

	if (!comm)
		return NULL;
	comm->ctx = ctx;
	comm->n_ranks = n_ranks;
	comm->rank = rank;
	comm->n_ep = n_ep;
	atomic_init(&comm->timeout_ms, DEFAULT_TIMEOUT_MS);
	atomic_init(&comm->check, 1);
	comm->world =
	    sym__realloc_array(ctx, NULL, (size_t)n_ranks, sizeof(int));
	comm->ep = sym__realloc_array(ctx, NULL, (size_t)n_ep,
	    sizeof(sym_comm_endpoint));
	if (!comm->world || !comm->ep) {
		free(comm->world);
		free(comm->ep);
		free(comm);
		return NULL;
	}
	for (int i = 0; i < n_ranks; i++)
		comm->world[i] = i;
	memset(comm->ep, 0, (size_t)n_ep * sizeof(sym_comm_endpoint));
	for (int i = 0; i < n_ep; i++) {
		comm->ep[i].comm = comm;
		comm->ep[i].rank = rank >= 0 && n_ep == 1 ? rank : i;
		atomic_init(&comm->ep[i].attached, 0);
	}
	sym__obj_init(&comm->obj, SYM__OBJ_COMM, comm_destroy);
	sym__obj_give(ctx, &comm->obj);
	comm->ops = ops;
	return comm;
}

/* Return a threads communicator of "ctx" over "n_ranks" ranks (1 to
 * 65536), or NULL with an error on "ctx". */
sym_communicator *
sym_comm_threads_new(sym_ctx *ctx, int n_ranks)
{
	sym_communicator *comm;

	if (!ctx)
		return NULL;
	if (n_ranks < 1 || n_ranks > 65536) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "threads communicator: %d ranks (must be 1 to 65536)",
		    n_ranks);
		return NULL;
	}
	comm = sym__comm_new(ctx, &sym__comm_threads_ops, n_ranks, -1, n_ranks);
	if (!comm)
		return NULL;
	if (sym__comm_threads_init(comm) < 0) {
		sym_comm_free(comm);
		return NULL;
	}
	return comm;
}

/* Return an MPI communicator of "ctx" over MPI_COMM_WORLD, initialising MPI
 * with "argc" and "argv" (both may be NULL) unless it is initialised; NULL
 * with an error on "ctx", SYM_EINVAL when the library has no MPI. */
sym_communicator *
sym_comm_mpi_new(sym_ctx *ctx, int *argc, char ***argv)
{
	if (!ctx)
		return NULL;
	return sym__comm_mpi_new(ctx, argc, argv);
}

#ifndef SYM_HAVE_MPI
/* Record on "ctx" that the library was built without MPI ("argc" and
 * "argv" are unused); return NULL. */
sym_communicator *
sym__comm_mpi_new(sym_ctx *ctx, int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sym__error(ctx, SYM_EINVAL, NULL,
	    "mpi communicator: this libsymshard was built without MPI "
	    "(configure --with-mpi needs mpicc)");
	return NULL;
}
#endif

/* Return SYM_TRUE when the library was built with the MPI backend, else
 * SYM_FALSE. */
sym_answer
sym_comm_mpi_available(void)
{
#ifdef SYM_HAVE_MPI
	return SYM_TRUE;
#else
	return SYM_FALSE;
#endif
}

/* Free "comm" and its rank handles (NULL is ignored). */
void
sym_comm_free(sym_communicator *comm)
{
	if (!comm)
		return;
	sym__obj_drop(comm->ctx, &comm->obj);
}

/* Return the number of ranks of "comm", or 0 when it is NULL. */
int
sym_comm_n_ranks(const sym_communicator *comm)
{
	return comm ? comm->n_ranks : 0;
}

/* Return the rank of the calling process in "comm" (mpi), or -1 (threads,
 * NULL). */
int
sym_comm_rank(const sym_communicator *comm)
{
	return comm ? comm->rank : -1;
}

/* Return the name of the backend of "comm" ("threads", "mpi"), or NULL. */
const char *
sym_comm_backend(const sym_communicator *comm)
{
	return comm ? comm->ops->name : NULL;
}

/* Set option "opt" of "comm" to "value"; return 0, or -1 with SYM_EINVAL on
 * the communicator's context for a bad option or value. */
int
sym_comm_set_option(sym_communicator *comm, sym_comm_option opt, long value)
{
	if (!comm)
		return -1;
	switch (opt) {
	case SYM_COMM_OPT_TIMEOUT_MS:
		if (value < 0)
			break;
		atomic_store(&comm->timeout_ms, value);
		return 0;
	case SYM_COMM_OPT_CHECK:
		if (value != 0 && value != 1)
			break;
		atomic_store(&comm->check, (int)value);
		return 0;
	}
	sym__error(comm->ctx, SYM_EINVAL, NULL,
	    "communicator option %d: invalid option or value %ld", (int)opt,
	    value);
	return -1;
}

/* Return the value of option "opt" of "comm", or -1 for a bad option or a
 * NULL "comm". */
long
sym_comm_get_option(const sym_communicator *comm, sym_comm_option opt)
{
	if (!comm)
		return -1;
	switch (opt) {
	case SYM_COMM_OPT_TIMEOUT_MS:
		return atomic_load(&comm->timeout_ms);
	case SYM_COMM_OPT_CHECK:
		return atomic_load(&comm->check);
	}
	return -1;
}

/* Return the handle of rank "rank" of "comm" for the calling thread, whose
 * errors go to "ctx"; NULL with an error on "ctx" when the rank is out of
 * range, not this process's (mpi) or already attached. */
sym_comm_endpoint *
sym_comm_attach(sym_ctx *ctx, sym_communicator *comm, int rank)
{
	sym_comm_endpoint *ep;
	int expected = 0;

	if (!ctx)
		return NULL;
	if (!comm) {
		sym__error(ctx, SYM_EINVAL, NULL, "attach: no communicator");
		return NULL;
	}
	if (rank < 0 || rank >= comm->n_ranks) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "attach: rank %d out of range (the communicator has %d "
		    "ranks)",
		    rank, comm->n_ranks);
		return NULL;
	}
	if (comm->rank >= 0 && rank != comm->rank) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "attach: rank %d belongs to another process (this "
		    "process is rank %d)",
		    rank, comm->rank);
		return NULL;
	}
	ep = comm->n_ep == 1 ? &comm->ep[0] : &comm->ep[rank];
	if (!atomic_compare_exchange_strong(&ep->attached, &expected, 1)) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "attach: rank %d is already attached", rank);
		return NULL;
	}
	ep->ctx = ctx;
	return ep;
}

/* Release the rank handle "ep" so that another thread may attach its rank
 * (NULL is ignored). */
void
sym_comm_detach(sym_comm_endpoint *ep)
{
	if (!ep)
		return;
	ep->ctx = NULL;
	atomic_store(&ep->attached, 0);
}

/* Return the rank of handle "ep", or -1 when it is NULL. */
int
sym_comm_endpoint_rank(const sym_comm_endpoint *ep)
{
	return ep ? ep->rank : -1;
}

/* Return the name of collective "kind". */
const char *
sym__comm_coll_name(int kind)
{
	switch (kind) {
	case SYM__COLL_ALL_REDUCE:
		return "all_reduce";
	case SYM__COLL_ALL_GATHER:
		return "all_gather";
	case SYM__COLL_REDUCE_SCATTER:
		return "reduce_scatter";
	case SYM__COLL_ALL_TO_ALL:
		return "all_to_all";
	case SYM__COLL_PERMUTE:
		return "permute";
	case SYM__COLL_BROADCAST:
		return "broadcast";
	case SYM__COLL_BARRIER:
		return "barrier";
	}
	return "collective";
}

/* Return "{r0, r1, ...}" for the "n" ranks of "group" (at most 16, then
 * "..."), malloc'ed, or NULL. */
char *
sym__comm_group_str(const int *group, int n)
{
	size_t cap =
	    2 + (size_t)(n < GROUP_STR_MAX ? n : GROUP_STR_MAX) * 13 + 8;
	char *s = malloc(cap);
	size_t len = 0;

	if (!s)
		return NULL;
	s[len++] = '{';
	for (int i = 0; i < n && i < GROUP_STR_MAX; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%d",
		    i ? ", " : "", group[i]);
	snprintf(s + len, cap - len, "%s}", n > GROUP_STR_MAX ? ", ..." : "");
	return s;
}

/* Return a hash of the "n" ranks of "group" (FNV-1a). */
uint64_t
sym__comm_group_hash(const int *group, int n)
{
	uint64_t h = SYM__FNV_BASIS;

	for (int i = 0; i < n; i++)
		h = sym__fnv1a_word(h, (uint32_t)group[i]);
	return h;
}

/* Return 0 when the "n" ranks of "group" are distinct ranks of a
 * communicator of "n_ranks" ranks (so that there are at most "n_ranks"),
 * else -1 with SYM_EINVAL on "ctx". */
int
sym__comm_group_check(sym_ctx *ctx, int n_ranks, const int *group, int n)
{
	unsigned char *seen;
	char *g;
	int bad = -1, dup = 0;

	if (n < 1) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "group of %d ranks (must be 1 to %d)", n, n_ranks);
		return -1;
	}
	seen = sym__alloc(ctx, (size_t)n_ranks);
	if (!seen)
		return -1;
	for (int i = 0; i < n && bad < 0; i++) {
		if (group[i] < 0 || group[i] >= n_ranks || seen[group[i]]) {
			bad = i;
			dup = group[i] >= 0 && group[i] < n_ranks;
		} else {
			seen[group[i]] = 1;
		}
	}
	free(seen);
	if (bad < 0)
		return 0;
	g = sym__comm_group_str(group, n);
	if (dup)
		sym__error(ctx, SYM_EINVAL, NULL,
		    "group %s: rank %d appears twice", g ? g : "", group[bad]);
	else
		sym__error(ctx, SYM_EINVAL, NULL,
		    "group %s: rank %d out of range (the communicator has %d "
		    "ranks)",
		    g ? g : "", group[bad], n_ranks);
	free(g);
	return -1;
}

/* Return the arguments of member "i" in "all", whose entries are "stride"
 * bytes apart. */
static const struct sym__comm_args *
member(const struct sym__comm_args *all, size_t stride, int i)
{
	return (const struct sym__comm_args *)((const char *)all +
	    (size_t)i * stride);
}

/* Record on "ctx" that ranks "ra" and "rb" of the call "call" passed the
 * different values "va" and "vb" of "what"; return -1. */
static int
mismatch(sym_ctx *ctx, const struct sym__comm_call *call, const char *what,
    int ra, const char *va, int rb, const char *vb)
{
	char *g = sym__comm_group_str(call->group, call->n);

	sym__error(ctx, SYM_EINVAL, NULL,
	    "%s on group %s: rank %d passed %s %s, rank %d passed %s",
	    sym__comm_coll_name(call->args.kind), g ? g : "", ra, what, va, rb,
	    vb);
	free(g);
	return -1;
}

/* As mismatch, for the integer values "va" and "vb". */
static int
mismatch_int(sym_ctx *ctx, const struct sym__comm_call *call, const char *what,
    int ra, long long va, int rb, long long vb)
{
	char sa[24], sb[24];

	snprintf(sa, sizeof(sa), "%lld", va);
	snprintf(sb, sizeof(sb), "%lld", vb);
	return mismatch(ctx, call, what, ra, sa, rb, sb);
}

/* Return the name of reduction "op". */
static const char *
op_name(int op)
{
	return op == SYM_REDUCE_SUM ? "sum"
	    : op == SYM_REDUCE_MAX  ? "max"
	                            : "?";
}

/* Record on "ctx" that in the permute "call" group rank "i" names group
 * rank "peer" as its destination ("sends" 1) or source (0), and "peer"
 * does not name it back; return -1. */
static int
unpaired(sym_ctx *ctx, const struct sym__comm_call *call, int i, int peer,
    int sends)
{
	char *s = sym__comm_group_str(call->group, call->n);

	sym__error(ctx, SYM_EINVAL, NULL,
	    "permute on group %s: rank %d %s rank %d, which does not %s it",
	    s ? s : "", call->group[i], sends ? "sends to" : "receives from",
	    call->group[peer], sends ? "receive from" : "send to");
	free(s);
	return -1;
}

/* Return 0 when the permute arguments of the members in "all" (entries
 * "stride" bytes apart) pair up, else -1 with SYM_EINVAL on "ctx". */
static int
permute_check(sym_ctx *ctx, const struct sym__comm_call *call,
    const struct sym__comm_args *all, size_t stride)
{
	for (int i = 0; i < call->n; i++) {
		const struct sym__comm_args *a = member(all, stride, i);

		if (a->root != SYM_COMM_NONE &&
		    member(all, stride, a->root)->source != i)
			return unpaired(ctx, call, i, a->root, 1);
		if (a->source != SYM_COMM_NONE &&
		    member(all, stride, a->source)->root != i)
			return unpaired(ctx, call, i, a->source, 0);
	}
	return 0;
}

/* Return 0 when the arguments "all" of every member of the call "call"
 * (entries "stride" bytes apart, in group order) match, else -1 with
 * SYM_EINVAL on "ctx" naming two members that disagree. */
int
sym__comm_args_check(sym_ctx *ctx, const struct sym__comm_call *call,
    const struct sym__comm_args *all, size_t stride)
{
	const struct sym__comm_args *a0 = member(all, stride, 0);
	const int *g = call->group;

	for (int i = 1; i < call->n; i++) {
		const struct sym__comm_args *a = member(all, stride, i);

		if (a->kind != a0->kind)
			return mismatch(ctx, call, "collective", g[i],
			    sym__comm_coll_name(a->kind), g[0],
			    sym__comm_coll_name(a0->kind));
		if (a->dtype != a0->dtype)
			return mismatch(ctx, call, "dtype", g[i],
			    sym_dtype_name(a->dtype), g[0],
			    sym_dtype_name(a0->dtype));
		if (a->op != a0->op)
			return mismatch(ctx, call, "reduction", g[i],
			    op_name(a->op), g[0], op_name(a0->op));
		if (a->count != a0->count)
			return mismatch_int(ctx, call, "count", g[i], a->count,
			    g[0], a0->count);
		if (a->bytes != a0->bytes)
			return mismatch_int(ctx, call, "bytes", g[i],
			    (long long)a->bytes, g[0], (long long)a0->bytes);
		if (a0->kind == SYM__COLL_BROADCAST && a->root != a0->root)
			return mismatch_int(ctx, call, "root", g[i], a->root,
			    g[0], a0->root);
	}
	if (a0->kind == SYM__COLL_PERMUTE)
		return permute_check(ctx, call, all, stride);
	return 0;
}

/* Return 1 when the "na" bytes at "a" and the "nb" bytes at "b" overlap. */
static int
overlap(const void *a, size_t na, const void *b, size_t nb)
{
	uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;

	if (!na || !nb)
		return 0;
	return pa < pb + nb && pb < pa + na;
}

/* Record SYM_EINVAL on the context of "call" about its collective, with a
 * message from "fmt"; return -1. */
static int __attribute__((format(printf, 2, 3)))
fail(struct sym__comm_call *call, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sym__error(call->ep->ctx, SYM_EINVAL, NULL, "%s on rank %d: %s",
	    sym__comm_coll_name(call->args.kind), call->ep->rank, msg);
	return -1;
}

/* Fill "call" for collective "kind" by handle "ep" on the "n" ranks of
 * "group" (NULL and 0: all ranks); return 0, or -1 with an error when the
 * handle is detached or the caller is not a member of a valid group. */
static int
call_init(struct sym__comm_call *call, int kind, sym_comm_endpoint *ep,
    const int *group, int n)
{
	sym_communicator *comm = ep->comm;

	memset(call, 0, sizeof(*call));
	call->ep = ep;
	call->args.kind = kind;
	call->args.root = SYM_COMM_NONE;
	call->args.source = SYM_COMM_NONE;
	if (!atomic_load(&ep->attached) || !ep->ctx)
		return -1;
	if (!group) {
		if (n != 0 && n != comm->n_ranks)
			return fail(call,
			    "a NULL group means all %d ranks, "
			    "but the group size is %d",
			    comm->n_ranks, n);
		group = comm->world;
		n = comm->n_ranks;
	}
	call->group = group;
	call->n = n;
	call->me = -1;
	for (int i = 0; i < n && call->me < 0; i++)
		if (group[i] == ep->rank)
			call->me = i;
	if (call->me < 0) {
		char *s;

		if (sym__comm_group_check(ep->ctx, comm->n_ranks, group, n) < 0)
			return -1;
		s = sym__comm_group_str(group, n);
		fail(call, "not a member of group %s", s ? s : "");
		free(s);
		return -1;
	}
	return 0;
}

/* Return the size of an element of the reduction "dtype" with operation
 * "op", or 0 with an error on "call" when either is not supported. */
static size_t
reduce_elem_size(struct sym__comm_call *call, sym_dtype dtype, sym_reduce_op op)
{
	if (op != SYM_REDUCE_SUM && op != SYM_REDUCE_MAX) {
		fail(call, "reduction %d is not sum or max", (int)op);
		return 0;
	}
	switch (dtype) {
	case SYM_DT_F32:
	case SYM_DT_I32:
		return 4;
	case SYM_DT_F64:
		return 8;
	default:
		break;
	}
	fail(call, "dtype %s cannot be reduced (f32, f64 and i32 can)",
	    sym_dtype_name(dtype));
	return 0;
}

/* Store in "*bytes" the "count" elements of "esize" bytes times "blocks";
 * return 0, or -1 with an error on "call" when "count" is negative or the
 * product does not fit a size_t. */
static int
block_bytes(struct sym__comm_call *call, int64_t count, size_t esize,
    size_t blocks, size_t *bytes)
{
	if (count < 0)
		return fail(call, "negative count %lld", (long long)count);
	if ((uint64_t)count > SIZE_MAX / esize / blocks)
		return fail(call,
		    "%lld elements of %zu bytes times %zu "
		    "blocks overflow",
		    (long long)count, esize, blocks);
	*bytes = (size_t)count * esize;
	return 0;
}

/* Return 0 when the "n" blocks of "bytes" fit a size_t, else -1 with an
 * error on "call". */
static int
blocks_fit(struct sym__comm_call *call, size_t bytes, int n)
{
	if (bytes && (size_t)n > SIZE_MAX / bytes)
		return fail(call, "%d blocks of %zu bytes overflow", n, bytes);
	return 0;
}

/* Return 0 when "send" ("ns" bytes) and "recv" ("nr" bytes) are given when
 * not empty, else -1 with an error on "call". */
static int
buffers_given(struct sym__comm_call *call, const void *send, size_t ns,
    const void *recv, size_t nr)
{
	if ((ns && !send) || (nr && !recv))
		return fail(call, "NULL %s buffer",
		    ns && !send ? "send" : "receive");
	return 0;
}

/* Run "call" on its communicator's backend with the buffers "send" and
 * "recv" of "bytes" each (per block for the block collectives); return
 * its result. */
static int
run(struct sym__comm_call *call, const void *send, void *recv, size_t bytes)
{
	call->args.bytes = bytes;
	call->args.send = send;
	call->args.recv = recv;
	return call->ep->comm->ops->run(call);
}

/* Run a reduction of collective "kind" over "group" ("group_size" ranks)
 * by handle "ep": "count" elements of "dtype" with "op" in each block of
 * "send" (one block, or one per member for reduce_scatter) into the one
 * block of "recv"; "send" may equal "recv" for all_reduce. Return 0, or -1
 * with an error on the handle's context. */
static int
reduce_run(enum sym__coll kind, sym_comm_endpoint *ep, const int *group,
    int group_size, const void *send, void *recv, int64_t count,
    sym_dtype dtype, sym_reduce_op op)
{
	struct sym__comm_call call;
	size_t esize, n, bytes = 0;

	if (!ep || call_init(&call, kind, ep, group, group_size) < 0)
		return -1;
	n = kind == SYM__COLL_REDUCE_SCATTER ? (size_t)call.n : 1;
	if (!(esize = reduce_elem_size(&call, dtype, op)) ||
	    block_bytes(&call, count, esize, n, &bytes) < 0 ||
	    buffers_given(&call, send, bytes * n, recv, bytes) < 0)
		return -1;
	if (overlap(send, bytes * n, recv, bytes) &&
	    (kind == SYM__COLL_REDUCE_SCATTER || send != recv))
		return fail(&call, "the send and receive buffers overlap");
	call.args.dtype = dtype;
	call.args.op = op;
	call.args.count = count;
	return run(&call, send, recv, bytes);
}

/* Run a block collective of "kind" (all_gather or all_to_all) over
 * "group" ("group_size" ranks) by handle "ep": blocks of "bytes", one per
 * member, from "send" (one block for all_gather, else one per member)
 * into "recv" (one per member). For all_gather "send" may be the caller's
 * own block of "recv"; no other overlap is allowed. Return 0, or -1 with an
 * error on the handle's context. */
static int
blocks_run(enum sym__coll kind, sym_comm_endpoint *ep, const int *group,
    int group_size, const void *send, void *recv, size_t bytes)
{
	struct sym__comm_call call;
	int gather = kind == SYM__COLL_ALL_GATHER;
	size_t total, ns;

	if (!ep || call_init(&call, kind, ep, group, group_size) < 0 ||
	    blocks_fit(&call, bytes, call.n) < 0)
		return -1;
	total = bytes * (size_t)call.n;
	ns = gather ? bytes : total;
	if (buffers_given(&call, send, ns, recv, total) < 0)
		return -1;
	if (gather && bytes && send == (char *)recv + (size_t)call.me * bytes)
		return run(&call, send, recv, bytes);
	if (overlap(send, ns, recv, total))
		return fail(&call, "%s",
		    gather ? "the send buffer overlaps the receive buffer but "
		             "is not the caller's block"
		           : "the send and receive buffers overlap");
	return run(&call, send, recv, bytes);
}

/* Reduce "count" elements of "dtype" with "op" from "send" of every member
 * of "group" ("group_size" ranks; NULL: all) into "recv" of every member,
 * by handle "ep"; "send" may equal "recv". Return 0, or -1 with an error on
 * the handle's context. */
int
sym_comm_all_reduce(sym_comm_endpoint *ep, const int *group, int group_size,
    const void *send, void *recv, int64_t count, sym_dtype dtype,
    sym_reduce_op op)
{
	return reduce_run(SYM__COLL_ALL_REDUCE, ep, group, group_size, send,
	    recv, count, dtype, op);
}

/* Concatenate, in group order, the "bytes" at "send" of every member of
 * "group" ("group_size" ranks; NULL: all) into "recv" of every member, by
 * handle "ep"; "send" may be the caller's own block of "recv". Return 0, or
 * -1 with an error on the handle's context. */
int
sym_comm_all_gather(sym_comm_endpoint *ep, const int *group, int group_size,
    const void *send, void *recv, size_t bytes)
{
	return blocks_run(SYM__COLL_ALL_GATHER, ep, group, group_size, send,
	    recv, bytes);
}

/* Reduce with "op", for every member i of "group" ("group_size" ranks;
 * NULL: all), the blocks i of "count" elements of "dtype" of every
 * member's "send" into member i's "recv", by handle "ep". Return 0, or -1
 * with an error on the handle's context. */
int
sym_comm_reduce_scatter(sym_comm_endpoint *ep, const int *group, int group_size,
    const void *send, void *recv, int64_t count, sym_dtype dtype,
    sym_reduce_op op)
{
	return reduce_run(SYM__COLL_REDUCE_SCATTER, ep, group, group_size, send,
	    recv, count, dtype, op);
}

/* Send block i of "bytes" of "send" to member i of "group" ("group_size"
 * ranks; NULL: all), which stores it as its block j of "recv", j being the
 * caller's group rank, by handle "ep". Return 0, or -1 with an error on
 * the handle's context. */
int
sym_comm_all_to_all(sym_comm_endpoint *ep, const int *group, int group_size,
    const void *send, void *recv, size_t bytes)
{
	return blocks_run(SYM__COLL_ALL_TO_ALL, ep, group, group_size, send,
	    recv, bytes);
}

/* Send the "bytes" of "send" to group rank "dest" and receive as many into
 * "recv" from group rank "source" of "group" ("group_size" ranks; NULL:
 * all), by handle "ep"; either may be SYM_COMM_NONE. Return 0, or -1 with
 * an error on the handle's context. */
int
sym_comm_permute(sym_comm_endpoint *ep, const int *group, int group_size,
    const void *send, void *recv, size_t bytes, int dest, int source)
{
	struct sym__comm_call call;
	size_t ns, nr;

	if (!ep ||
	    call_init(&call, SYM__COLL_PERMUTE, ep, group, group_size) < 0)
		return -1;
	if (dest < SYM_COMM_NONE || dest >= call.n || source < SYM_COMM_NONE ||
	    source >= call.n)
		return fail(&call,
		    "destination %d or source %d is not a "
		    "group rank (0 to %d) or SYM_COMM_NONE",
		    dest, source, call.n - 1);
	ns = dest != SYM_COMM_NONE ? bytes : 0;
	nr = source != SYM_COMM_NONE ? bytes : 0;
	if (buffers_given(&call, send, ns, recv, nr) < 0)
		return -1;
	if (overlap(send, ns, recv, nr))
		return fail(&call, "the send and receive buffers overlap");
	call.args.root = dest;
	call.args.source = source;
	return run(&call, send, recv, bytes);
}

/* Copy the "bytes" of "buf" of group rank "root" of "group" ("group_size"
 * ranks; NULL: all) into "buf" of every member, by handle "ep". Return 0,
 * or -1 with an error on the handle's context. */
int
sym_comm_broadcast(sym_comm_endpoint *ep, const int *group, int group_size,
    void *buf, size_t bytes, int root)
{
	struct sym__comm_call call;

	if (!ep ||
	    call_init(&call, SYM__COLL_BROADCAST, ep, group, group_size) < 0)
		return -1;
	if (root < 0 || root >= call.n)
		return fail(&call, "root %d is not a group rank (0 to %d)",
		    root, call.n - 1);
	if (buffers_given(&call, buf, bytes, buf, bytes) < 0)
		return -1;
	call.args.root = root;
	return run(&call, buf, buf, bytes);
}

/* Wait until every member of "group" ("group_size" ranks; NULL: all) has
 * called the barrier, by handle "ep". Return 0, or -1 with an error on the
 * handle's context. */
int
sym_comm_barrier(sym_comm_endpoint *ep, const int *group, int group_size)
{
	struct sym__comm_call call;

	if (!ep ||
	    call_init(&call, SYM__COLL_BARRIER, ep, group, group_size) < 0)
		return -1;
	return run(&call, NULL, NULL, 0);
}
