/* SPDX-License-Identifier: MIT */
/*
 * The threads backend: the ranks are threads of one process, and every
 * collective is a rendezvous of its group's members in shared memory.
 *
 * Each distinct group (its rank list, in order) gets a record with one slot
 * per member. A member entering its k-th collective on the group publishes
 * its arguments in its slot (two sets, by the parity of k, so that a fast
 * member's next call never overwrites what a slow one still reads) and
 * arrives at the group's barrier; past it, every member checks everyone's
 * arguments the same way, reads the peers' buffers in place (no staging
 * copies) and leaves through a last barrier, so that no buffer is released
 * while a peer reads it. The barrier spins briefly, then sleeps on a
 * condition variable; only the arrival waits with a timeout, after which the
 * group is marked broken and later arrivals fail at once instead of reading
 * buffers that are gone.
 *
 * Reductions combine the members' values in group order (comm_fold.c, which
 * the MPI backend shares), so results are bitwise identical on every
 * member, from run to run, and to the MPI backend's.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm/comm_private.h"
#include "core/hash.h"
#include "core/htab.h"

#define LINE 64
#define SPIN_PAUSES 200
#define SPIN_YIELDS 20
#define TILE_BYTES 4096
#define SMALL_BYTES 16384
#define SEG_BYTES (512 * 1024)

/* The barrier's state word: arrivals (low 32 bits), generation (31 bits),
 * and the broken flag. */
#define ST_COUNT 0xffffffffULL
#define ST_GEN_MASK 0x7fffffffULL
#define ST_BROKEN (1ULL << 63)

/* Outcomes of a barrier: passed; found broken on arrival; broken by a
 * timeout while waiting (this member's or another's). */
enum {
	WAIT_OK = 0,
	WAIT_ABANDONED = -1,
	WAIT_TIMEOUT = -2
};

/* A member's slot: its arguments for the calls of odd and even number, and
 * the number of collectives it entered on the group. */
struct slot {
	_Alignas(LINE) struct sym__comm_args args[2];
	atomic_uint_least64_t entered;
};

/* A group's record, created at its first use and kept until the end. */
struct tgroup {
	_Alignas(LINE) atomic_uint_least64_t state;
	atomic_int sleepers;
	int n;
	int *ranks;
	struct slot *slot;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* The backend's state: the table of group records (items: struct
 * tgroup pointers), guarded by "mu". */
struct threads {
	pthread_mutex_t mu;
	struct sym__htab groups;
};

/* Return "size" bytes aligned to a cache line, zeroed, or NULL. */
static void *
line_alloc(size_t size)
{
	size_t rounded = (size + LINE - 1) / LINE * LINE;
	void *p = aligned_alloc(LINE, rounded ? rounded : LINE);

	if (p)
		memset(p, 0, rounded ? rounded : LINE);
	return p;
}

/* Free the group record "g". */
static void
group_free(struct tgroup *g)
{
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free(g->ranks);
	free(g->slot);
	free(g);
}

/* Return a new record for the "n" ranks of "group", or NULL. */
static struct tgroup *
group_new(const int *group, int n)
{
	struct tgroup *g = line_alloc(sizeof(*g));
	pthread_condattr_t attr;

	if (!g)
		return NULL;
	g->ranks = malloc((size_t)n * sizeof(int));
	g->slot = line_alloc((size_t)n * sizeof(struct slot));
	if (!g->ranks || !g->slot || pthread_condattr_init(&attr) != 0) {
		free(g->ranks);
		free(g->slot);
		free(g);
		return NULL;
	}
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, &attr);
	pthread_condattr_destroy(&attr);
	memcpy(g->ranks, group, (size_t)n * sizeof(int));
	g->n = n;
	atomic_init(&g->state, 0);
	atomic_init(&g->sleepers, 0);
	for (int i = 0; i < n; i++)
		atomic_init(&g->slot[i].entered, 0);
	return g;
}

/* Free the backend state of "comm". */
static void
threads_destroy(sym_communicator *comm)
{
	struct threads *t = comm->impl;

	if (!t)
		return;
	for (size_t i = 0; i < t->groups.cap; i++)
		if (t->groups.slot[i].item != SYM__HTAB_EMPTY)
			group_free((struct tgroup *)t->groups.slot[i].item);
	pthread_mutex_destroy(&t->mu);
	sym__htab_clear(&t->groups);
	free(t);
	comm->impl = NULL;
}

/* Set up the backend state of "comm"; return 0, or -1 with an error on its
 * context. */
int
sym__comm_threads_init(sym_communicator *comm)
{
	struct threads *t = sym__alloc(comm->ctx, sizeof(*t));

	if (!t)
		return -1;
	pthread_mutex_init(&t->mu, NULL);
	comm->impl = t;
	return 0;
}

/* Return 1 when record "g" is for the "n" ranks of "group". */
static int
group_is(const struct tgroup *g, const int *group, int n)
{
	return g->n == n && !memcmp(g->ranks, group, (size_t)n * sizeof(int));
}

/* Return the record of the group of "call", created (after checking the
 * group) at its first use; NULL with an error on the caller's context. */
static struct tgroup *
table_get(struct sym__comm_call *call)
{
	sym_communicator *comm = call->ep->comm;
	struct threads *t = comm->impl;
	uint64_t h = sym__mix64(sym__comm_group_hash(call->group, call->n));
	struct tgroup *g;

	pthread_mutex_lock(&t->mu);
	g = NULL;
	for (size_t i = sym__htab_first(&t->groups, h); i != SYM__HTAB_END;
	     i = sym__htab_next(&t->groups, h, i)) {
		struct tgroup *c = (struct tgroup *)t->groups.slot[i].item;

		if (group_is(c, call->group, call->n)) {
			g = c;
			break;
		}
	}
	if (!g &&
	    sym__comm_group_check(call->ep->ctx, comm->n_ranks, call->group,
	        call->n) == 0) {
		g = group_new(call->group, call->n);
		/* no context of the table's: the error goes on the caller's */
		if (g && sym__htab_add(NULL, &t->groups, h, (uintptr_t)g) < 0) {
			group_free(g);
			g = NULL;
		}
		if (!g)
			sym__oom_bytes(call->ep->ctx, (size_t)call->n,
			    sizeof(int) + sizeof(struct slot),
			    "the record of a group of ranks");
	}
	pthread_mutex_unlock(&t->mu);
	return g;
}

/* Return the record of the group of "call", from the caller's cache of
 * recent groups or the table; NULL with an error on the caller's context. */
static struct tgroup *
group_get(struct sym__comm_call *call)
{
	sym_comm_endpoint *ep = call->ep;
	struct tgroup *g;
	size_t nc = sizeof(ep->cache) / sizeof(ep->cache[0]);

	for (size_t i = 0; i < nc; i++) {
		g = ep->cache[i];
		if (g && group_is(g, call->group, call->n))
			return g;
	}
	g = table_get(call);
	if (g)
		ep->cache[ep->cache_next++ % nc] = g;
	return g;
}

/* Let the processor breathe inside a spin loop. */
static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Return the generation in the state word "s". */
static uint64_t
gen_of(uint64_t s)
{
	return (s >> 32) & ST_GEN_MASK;
}

/* Wake the members of "g" sleeping in its barrier. */
static void
wake(struct tgroup *g)
{
	if (atomic_load(&g->sleepers) > 0) {
		pthread_mutex_lock(&g->mu);
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
}

/* Store in "*ts" the monotonic time "ms" milliseconds from now. */
static void
deadline_in(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Sleep on "g" until its barrier leaves generation "gen" (WAIT_OK), is
 * broken by another member's timeout or, when "timeout_ms" is positive,
 * that many milliseconds pass, and this member breaks it (WAIT_TIMEOUT
 * both). */
static int
sleep_until(struct tgroup *g, uint64_t gen, long timeout_ms)
{
	struct timespec deadline;
	uint64_t s;
	int rc;

	if (timeout_ms > 0)
		deadline_in(&deadline, timeout_ms);
	pthread_mutex_lock(&g->mu);
	atomic_fetch_add(&g->sleepers, 1);
	for (;;) {
		s = atomic_load(&g->state);
		if (gen_of(s) != gen) {
			rc = WAIT_OK;
			break;
		}
		if (s & ST_BROKEN) {
			rc = WAIT_TIMEOUT;
			break;
		}
		if (timeout_ms <= 0) {
			pthread_cond_wait(&g->cv, &g->mu);
			continue;
		}
		if (pthread_cond_timedwait(&g->cv, &g->mu, &deadline) !=
		        ETIMEDOUT ||
		    !atomic_compare_exchange_strong(&g->state, &s,
		        s | ST_BROKEN))
			continue;
		pthread_cond_broadcast(&g->cv);
		rc = WAIT_TIMEOUT;
		break;
	}
	atomic_fetch_sub(&g->sleepers, 1);
	pthread_mutex_unlock(&g->mu);
	return rc;
}

/* Arrive at the barrier of "g" and wait for its other members; give up
 * after "timeout_ms" milliseconds when it is positive. Return WAIT_OK,
 * WAIT_ABANDONED (broken before the arrival) or WAIT_TIMEOUT. */
static int
barrier(struct tgroup *g, long timeout_ms)
{
	uint64_t s = atomic_load(&g->state), ns, gen;
	int last;

	do {
		if (s & ST_BROKEN)
			return WAIT_ABANDONED;
		last = (s & ST_COUNT) + 1 == (uint64_t)g->n;
		ns = last ? ((gen_of(s) + 1) & ST_GEN_MASK) << 32 : s + 1;
	} while (!atomic_compare_exchange_weak(&g->state, &s, ns));
	if (last) {
		wake(g);
		return WAIT_OK;
	}
	gen = gen_of(s);
	for (int i = 0; i < SPIN_PAUSES + SPIN_YIELDS; i++) {
		s = atomic_load(&g->state);
		if (gen_of(s) != gen)
			return WAIT_OK;
		if (s & ST_BROKEN)
			return WAIT_TIMEOUT;
		if (i < SPIN_PAUSES)
			cpu_relax();
		else
			sched_yield();
	}
	return sleep_until(g, gen, timeout_ms);
}

/* Record on the caller's context why the arrival of "call", its "k"-th
 * collective on "g", failed with "rc" (WAIT_ABANDONED or WAIT_TIMEOUT after
 * "timeout_ms"); return -1. */
static int
arrival_error(struct sym__comm_call *call, struct tgroup *g, uint64_t k, int rc,
    long timeout_ms)
{
	char *s = sym__comm_group_str(g->ranks, g->n);
	char missing[256] = "";
	size_t len = 0;

	for (int i = 0; i < g->n && len + 16 < sizeof(missing); i++)
		if (atomic_load(&g->slot[i].entered) < k)
			len += (size_t)snprintf(missing + len,
			    sizeof(missing) - len, "%s%d", len ? ", " : "",
			    g->ranks[i]);
	if (rc == WAIT_TIMEOUT)
		sym__error(call->ep->ctx, SYM_EIO, NULL,
		    "%s on group %s: rank %d timed out after %ld ms waiting "
		    "for rank%s %s (collective %llu on this group); the group "
		    "is now unusable",
		    sym__comm_coll_name(call->args.kind), s ? s : "",
		    call->ep->rank, timeout_ms, strchr(missing, ',') ? "s" : "",
		    len ? missing : "(none left)", (unsigned long long)k);
	else
		sym__error(call->ep->ctx, SYM_EIO, NULL,
		    "%s on group %s: rank %d: the group was abandoned after a "
		    "timeout",
		    sym__comm_coll_name(call->args.kind), s ? s : "",
		    call->ep->rank);
	free(s);
	return -1;
}

/* Copy "n" bytes from "src" to "dst" (nothing when "n" is 0, whatever the
 * pointers, or when they are equal). */
static void
copy(void *dst, const void *src, size_t n)
{
	if (n && dst != src)
		memcpy(dst, src, n);
}

/* Return the arguments of member "j" of "g" for the call of parity "p". */
static const struct sym__comm_args *
arg(const struct tgroup *g, int j, int p)
{
	return &g->slot[j].args[p];
}

/* Return element "off" of the send buffer of member "j" of "g" for the
 * call of parity "p", "es" bytes an element. */
static const void *
src_at(const struct tgroup *g, int j, int p, size_t off, size_t es)
{
	return (const char *)arg(g, j, p)->send + off * es;
}

/* Store at "dst" the reduction, in group order, of the "len" elements at
 * element "off" of the send buffers of the members of "g" (call of parity
 * "p", element size "es"), tile by tile: every input is read once, the
 * partial result stays in cache, "dst" is written once (it may be the
 * caller's own send buffer). */
static void
reduce_into(const struct tgroup *g, int p, size_t es, size_t off, size_t len,
    void *dst)
{
	_Alignas(LINE) unsigned char acc[TILE_BYTES];
	const struct sym__comm_args *a0 = arg(g, 0, p);
	size_t per = TILE_BYTES / es;
	int n = g->n;

	for (size_t k = 0; k < len; k += per) {
		size_t m = len - k < per ? len - k : per, o = off + k;
		char *out = (char *)dst + k * es;

		if (n == 1) {
			copy(out, src_at(g, 0, p, o, es), m * es);
			continue;
		}
		sym__comm_combine(a0, n == 2 ? out : (void *)acc,
		    src_at(g, 0, p, o, es), src_at(g, 1, p, o, es), m);
		for (int j = 2; j < n; j++)
			sym__comm_combine(a0, j == n - 1 ? out : (void *)acc,
			    acc, src_at(g, j, p, o, es), m);
	}
}

/* Copy to the receive buffer of "call" (parity "p") on "g" the shares of
 * the other members in the segment of "len" elements at element "off". */
static void
copy_shares(struct sym__comm_call *call, struct tgroup *g, int p, size_t off,
    size_t len)
{
	size_t es = sym__comm_elem_size(&call->args), unit = LINE / es;
	char *recv = call->args.recv;

	for (int i = 1; i < g->n; i++) {
		int c = (call->me + i) % g->n;
		size_t lo = off + sym__comm_share(len, g->n, c, unit);
		size_t hi = off + sym__comm_share(len, g->n, c + 1, unit);

		copy(recv + lo * es, (const char *)arg(g, c, p)->recv + lo * es,
		    (hi - lo) * es);
	}
}

/* Run the all_reduce of "call" (parity "p") on "g". Small vectors are
 * reduced whole by every member into a staging copy. Large ones are cut
 * into segments of SEG_BYTES per member, pipelined: each member reduces its
 * share of a segment into its receive buffer while copying the others'
 * shares of the previous segment from theirs, still in cache. Return 0. */
static int
all_reduce(struct sym__comm_call *call, struct tgroup *g, int p)
{
	const struct sym__comm_args *a = &call->args;
	size_t es = sym__comm_elem_size(a), unit = LINE / es;
	size_t count = (size_t)a->count, seg = (size_t)g->n * (SEG_BYTES / es);
	size_t n_seg = (count + seg - 1) / seg;
	int n = g->n, me = call->me;

	if (a->bytes <= SMALL_BYTES) {
		_Alignas(LINE) unsigned char tmp[SMALL_BYTES];

		reduce_into(g, p, es, 0, count, tmp);
		barrier(g, 0);
		copy(a->recv, tmp, a->bytes);
		return 0;
	}
	for (size_t s = 0; s <= n_seg; s++) {
		if (s < n_seg) {
			size_t off = s * seg;
			size_t len = count - off < seg ? count - off : seg;
			size_t lo = sym__comm_share(len, n, me, unit);
			size_t hi = sym__comm_share(len, n, me + 1, unit);

			reduce_into(g, p, es, off + lo, hi - lo,
			    (char *)a->recv + (off + lo) * es);
		}
		if (s > 0)
			copy_shares(call, g, p, (s - 1) * seg,
			    count - (s - 1) * seg < seg ? count - (s - 1) * seg
			                                : seg);
		barrier(g, 0);
	}
	return 0;
}

/* Move the data of "call" (parity "p") on "g" for the collectives other
 * than all_reduce. */
static void
move_data(struct sym__comm_call *call, struct tgroup *g, int p)
{
	const struct sym__comm_args *a = &call->args;
	size_t b = a->bytes;
	int n = g->n, me = call->me;
	char *recv = a->recv;

	switch (a->kind) {
	case SYM__COLL_ALL_GATHER:
		for (int i = 0; i < n; i++) {
			const void *src = arg(g, (me + i) % n, p)->send;
			char *dst = recv + (size_t)((me + i) % n) * b;

			if (src != dst)
				copy(dst, src, b);
		}
		break;
	case SYM__COLL_REDUCE_SCATTER:
		reduce_into(g, p, sym__comm_elem_size(a),
		    (size_t)a->count * (size_t)me, (size_t)a->count, recv);
		break;
	case SYM__COLL_ALL_TO_ALL:
		for (int i = 0; i < n; i++) {
			int j = (me + i) % n;

			copy(recv + (size_t)j * b,
			    (const char *)arg(g, j, p)->send + (size_t)me * b,
			    b);
		}
		break;
	case SYM__COLL_PERMUTE:
		if (a->source != SYM_COMM_NONE)
			copy(recv, arg(g, a->source, p)->send, b);
		break;
	case SYM__COLL_BROADCAST:
		if (me != a->root)
			copy(recv, arg(g, a->root, p)->send, b);
		break;
	default:
		break;
	}
}

/* Run "call" (parity "p") on "g" for the collectives other than
 * all_reduce: move the data, then leave through the last barrier (a
 * barrier has nothing to move or wait for); return 0. */
static int
move(struct sym__comm_call *call, struct tgroup *g, int p)
{
	if (call->args.kind == SYM__COLL_BARRIER)
		return 0;
	if (call->args.bytes)
		move_data(call, g, p);
	barrier(g, 0);
	return 0;
}

/* Run the collective "call" on the threads backend: rendezvous with the
 * group's other members, check that the arguments match, move the data.
 * Return 0, or -1 with an error on the caller's context. */
static int
threads_run(struct sym__comm_call *call)
{
	long timeout_ms = atomic_load(&call->ep->comm->timeout_ms);
	struct tgroup *g = group_get(call);
	struct slot *mine;
	uint64_t k;
	int p, rc;

	if (!g)
		return -1;
	mine = &g->slot[call->me];
	k = atomic_load_explicit(&mine->entered, memory_order_relaxed) + 1;
	p = (int)(k & 1);
	mine->args[p] = call->args;
	atomic_store(&mine->entered, k);
	rc = barrier(g, timeout_ms);
	if (rc != WAIT_OK)
		return arrival_error(call, g, k, rc, timeout_ms);
	if (sym__comm_args_check(call->ep->ctx, call, &g->slot[0].args[p],
	        sizeof(struct slot)) < 0)
		return -1;
	if (call->args.kind == SYM__COLL_ALL_REDUCE)
		return all_reduce(call, g, p);
	return move(call, g, p);
}

const struct sym__comm_ops sym__comm_threads_ops = {
	.name = "threads",
	.destroy = threads_destroy,
	.run = threads_run,
};
