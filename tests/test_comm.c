/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the comm family on the threads backend: every collective on
 * the whole world and on subgroups (in and out of rank order, disjoint
 * groups running concurrently, overlapping groups one after another) for
 * 1, 2, 3, 4 and 8 ranks, with random data checked bitwise against a
 * serial reference; long back-to-back sequences; argument errors; members
 * that disagree; a timeout.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <symshard.h>

#include "testlib.h"

#define MAX_RANKS 8
#define MAX_GROUPS 8

/* A partition of some of the ranks into groups, run concurrently. */
struct phase {
	int n_groups;
	int size[MAX_GROUPS];
	int rank[MAX_GROUPS][MAX_RANKS];
};

/* Run "fn" with "arg" on "n" ranks of a new threads communicator whose
 * timeout is "timeout_ms" (0: the default), and fail the test on any
 * rank's failure or on an object a rank's context kept. */
static void
run_team(int n, long timeout_ms, int (*fn)(struct tl_member *, void *),
    void *arg)
{
	struct tl_team t;

	tl_team_init(&t, n, timeout_ms);
	tl_team_run(&t, n, fn, arg);
	tl_team_clear(&t);
}

/* Return the splitmix64 hash of "x". */
static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Fill the "count" elements of "dt" at "buf" with the values of case
 * "seed" for rank "rank": floats of mixed magnitudes and signs (so that the
 * order of a sum shows in its last bits), any int32. */
static void
fill(void *buf, sym_dtype dt, int64_t count, uint64_t seed, int rank)
{
	for (int64_t i = 0; i < count; i++) {
		uint64_t h = mix(seed * 1000003u + (uint64_t)rank * 7919u +
		    (uint64_t)i * 0x100000001b3ULL);
		double v = (double)((int64_t)(h % 2000001) - 1000000) /
		    (double)(1u << ((h >> 40) % 24));

		if (dt == SYM_DT_F32)
			((float *)buf)[i] = (float)v;
		else if (dt == SYM_DT_F64)
			((double *)buf)[i] = v / 3.0;
		else if (dt == SYM_DT_U8)
			((uint8_t *)buf)[i] = (uint8_t)(h >> 24);
		else
			((int32_t *)buf)[i] = (int32_t)(h >> 16);
	}
}

/* Combine "x" into "acc" (element "i" of "dt") with "op", in the order the
 * library promises: acc = acc + x, acc = max(acc, x). */
static void
combine(void *acc, const void *x, int64_t i, sym_dtype dt, sym_reduce_op op)
{
	int sum = op == SYM_REDUCE_SUM;

	if (dt == SYM_DT_F32) {
		float a = ((float *)acc)[i], b = ((const float *)x)[i];

		((float *)acc)[i] = sum ? a + b : b > a ? b : a;
	} else if (dt == SYM_DT_F64) {
		double a = ((double *)acc)[i], b = ((const double *)x)[i];

		((double *)acc)[i] = sum ? a + b : b > a ? b : a;
	} else {
		int32_t a = ((int32_t *)acc)[i], b = ((const int32_t *)x)[i];

		((int32_t *)acc)[i] = sum ? (int32_t)((uint32_t)a + (uint32_t)b)
		    : b > a               ? b
		                          : a;
	}
}

/* Return "n" bytes from malloc, failing the test (of the calling rank: it
 * aborts) when there are none. */
static void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

/* Store in "out" the reduction in group order of elements "off" to
 * "off" + "count" of case "seed" over the "m" ranks of "group". */
static void
reference(void *out, const int *group, int m, sym_dtype dt, sym_reduce_op op,
    int64_t off, int64_t count, uint64_t seed)
{
	size_t es = sym_dtype_size(dt);
	char *in = xmalloc((size_t)(off + count) * es);

	for (int j = 0; j < m; j++) {
		fill(in, dt, off + count, seed, group[j]);
		if (j == 0)
			memcpy(out, in + off * (int64_t)es, (size_t)count * es);
		else
			for (int64_t i = 0; i < count; i++)
				combine(out, in + off * (int64_t)es, i, dt, op);
	}
	free(in);
}

/* Return the index of "x" in the "m" ranks of "group", or -1. */
static int
index_of(const int *group, int m, int x)
{
	for (int i = 0; i < m; i++)
		if (group[i] == x)
			return i;
	return -1;
}

/* Return the first index at which the "n" bytes of "a" and "b" differ, or
 * -1. */
static long
differ(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

static const sym_dtype dtypes[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32 };
static const int64_t counts[] = { 0, 1, 13, 1000, 5003 };
static const size_t block_bytes[] = { 0, 1, 7, 4096, 20011 };

/* Check all_reduce and reduce_scatter of every dtype and reduction on the
 * group "g" of "m" ranks for rank "mb", whose group rank is "me"; "seed"
 * numbers the cases. Return 0 or -1 (failure recorded). */
static int
check_reductions(struct tl_member *mb, const int *g, int m, int me,
    uint64_t seed)
{
	for (size_t d = 0; d < 3; d++)
		for (int op = 0; op < 2; op++)
			for (size_t c = 0; c < 5; c++, seed++) {
				sym_dtype dt = dtypes[d];
				int64_t n =
				    counts[c] + (c == 4 ? 2000 * op : 0);
				size_t es = sym_dtype_size(dt),
				       sz = (size_t)n * es;
				char *send = xmalloc(sz * (size_t)m);
				char *recv = xmalloc(sz * (size_t)m);
				char *want = xmalloc(sz * (size_t)m);
				int in_place = (int)(seed % 2);
				long at;

				fill(send, dt, n, seed, mb->rank);
				if (in_place)
					memcpy(recv, send, sz);
				if (sym_comm_all_reduce(mb->ep, g, m,
				        in_place ? recv : send, recv, n, dt,
				        (sym_reduce_op)op) < 0)
					return tl_failed(mb, "all_reduce: %s",
					    sym_ctx_last_message(mb->ctx));
				reference(want, g, m, dt, op, 0, n, seed);
				if ((at = differ(recv, want, sz)) >= 0)
					return tl_failed(mb,
					    "rank %d: all_reduce %s op %d count "
					    "%lld in place %d on %d ranks: "
					    "byte %ld differs",
					    mb->rank, sym_dtype_name(dt), op,
					    (long long)n, in_place, m, at);
				fill(send, dt, n * m, seed + 77, mb->rank);
				if (sym_comm_reduce_scatter(mb->ep, g, m, send,
				        recv, n, dt, (sym_reduce_op)op) < 0)
					return tl_failed(mb,
					    "reduce_scatter: %s",
					    sym_ctx_last_message(mb->ctx));
				reference(want, g, m, dt, op, n * me, n,
				    seed + 77);
				if ((at = differ(recv, want, sz)) >= 0)
					return tl_failed(mb,
					    "rank %d: reduce_scatter %s op %d "
					    "count %lld on %d ranks: byte %ld "
					    "differs",
					    mb->rank, sym_dtype_name(dt), op,
					    (long long)n, m, at);
				free(send);
				free(recv);
				free(want);
			}
	return 0;
}

/* Check all_gather, all_to_all, broadcast and permute with blocks of every
 * size of "block_bytes" on group "g" of "m" ranks for rank "mb" (group rank
 * "me"); "seed" numbers the cases. Return 0 or -1. */
static int
check_moves(struct tl_member *mb, const int *g, int m, int me, uint64_t seed)
{
	for (size_t c = 0; c < 5; c++, seed += 16) {
		size_t b = block_bytes[c], total = b * (size_t)m;
		char *send = xmalloc(total), *recv = xmalloc(total);
		char *want = xmalloc(total), *peer = xmalloc(total);
		int shift = (int)(seed % 3) == 0 ? 0 : (int)(seed % (size_t)m);
		int dest = (me + shift) % m, src = (me - shift + m) % m;
		int root = (int)(seed / 16 % (size_t)m);

		/* all_gather, in place for odd seeds */
		fill(send, SYM_DT_U8, (int64_t)b, seed, mb->rank);
		for (int j = 0; j < m; j++)
			fill(want + (size_t)j * b, SYM_DT_U8, (int64_t)b, seed,
			    g[j]);
		memcpy(recv + (size_t)me * b, send, b);
		if (sym_comm_all_gather(mb->ep, g, m,
		        seed % 2 ? recv + (size_t)me * b : send, recv, b) < 0 ||
		    differ(recv, want, total) >= 0)
			return tl_failed(mb,
			    "rank %d: all_gather of %zu bytes on "
			    "%d ranks: %s",
			    mb->rank, b, m, sym_ctx_last_message(mb->ctx));

		/* all_to_all: block i of member j is fill(seed + 1, g[j]) */
		fill(send, SYM_DT_U8, (int64_t)total, seed + 1, mb->rank);
		for (int j = 0; j < m; j++) {
			fill(peer, SYM_DT_U8, (int64_t)total, seed + 1, g[j]);
			memcpy(want + (size_t)j * b, peer + (size_t)me * b, b);
		}
		if (sym_comm_all_to_all(mb->ep, g, m, send, recv, b) < 0 ||
		    differ(recv, want, total) >= 0)
			return tl_failed(mb,
			    "rank %d: all_to_all of %zu bytes on "
			    "%d ranks: %s",
			    mb->rank, b, m, sym_ctx_last_message(mb->ctx));

		/* broadcast from "root" */
		fill(recv, SYM_DT_U8, (int64_t)b, seed + 2, mb->rank);
		fill(want, SYM_DT_U8, (int64_t)b, seed + 2, g[root]);
		if (sym_comm_broadcast(mb->ep, g, m, recv, b, root) < 0 ||
		    differ(recv, want, b) >= 0)
			return tl_failed(mb,
			    "rank %d: broadcast of %zu bytes from "
			    "%d on %d ranks: %s",
			    mb->rank, b, root, m,
			    sym_ctx_last_message(mb->ctx));

		/* permute by "shift" */
		fill(send, SYM_DT_U8, (int64_t)b, seed + 3, mb->rank);
		fill(want, SYM_DT_U8, (int64_t)b, seed + 3, g[src]);
		if (sym_comm_permute(mb->ep, g, m, send, recv, b, dest, src) <
		        0 ||
		    differ(recv, want, b) >= 0)
			return tl_failed(mb,
			    "rank %d: permute of %zu bytes by %d "
			    "on %d ranks: %s",
			    mb->rank, b, shift, m,
			    sym_ctx_last_message(mb->ctx));

		/* partial permute: group rank 0 to the last one only */
		memset(recv, 0xa5, b);
		memcpy(want, recv, b);
		if (me == m - 1)
			fill(want, SYM_DT_U8, (int64_t)b, seed + 3, g[0]);
		if (sym_comm_permute(mb->ep, g, m, send, recv, b,
		        me == 0 ? m - 1 : SYM_COMM_NONE,
		        me == m - 1 ? 0 : SYM_COMM_NONE) < 0 ||
		    differ(recv, want, b) >= 0)
			return tl_failed(mb,
			    "rank %d: partial permute of %zu bytes "
			    "on %d ranks: %s",
			    mb->rank, b, m, sym_ctx_last_message(mb->ctx));
		free(send);
		free(recv);
		free(want);
		free(peer);
	}
	return 0;
}

/* The phases run for "n" ranks: the world in order and reversed, one rank
 * per group, even and odd ranks, a rotation, rows and columns of a 2-row
 * mesh, and a pair leaving the others idle. Return their number. */
static int
make_phases(int n, struct phase *ph)
{
	int k = 0, half = n / 2;

	memset(ph, 0, 8 * sizeof(*ph));
	ph[k].n_groups = 1;
	ph[k].size[0] = n;
	for (int r = 0; r < n; r++)
		ph[k].rank[0][r] = r;
	k++;
	ph[k].n_groups = 1;
	ph[k].size[0] = n;
	for (int r = 0; r < n; r++)
		ph[k].rank[0][r] = n - 1 - r;
	k++;
	ph[k].n_groups = n;
	for (int r = 0; r < n; r++) {
		ph[k].size[r] = 1;
		ph[k].rank[r][0] = r;
	}
	k++;
	if (n < 2)
		return k;
	ph[k].n_groups = 2;
	for (int r = 0; r < n; r++)
		ph[k].rank[r % 2][ph[k].size[r % 2]++] = r;
	k++;
	ph[k].n_groups = 1;
	ph[k].size[0] = n;
	for (int r = 0; r < n; r++)
		ph[k].rank[0][r] = (r + 1) % n;
	k++;
	if (n % 2 == 0 && n >= 4) {
		ph[k].n_groups = 2;
		ph[k + 1].n_groups = half;
		for (int r = 0; r < n; r++) {
			ph[k].rank[r / half][ph[k].size[r / half]++] = r;
			ph[k + 1].rank[r % half][ph[k + 1].size[r % half]++] =
			    r;
		}
		k += 2;
	}
	if (n >= 4) {
		ph[k].n_groups = 1;
		ph[k].size[0] = 2;
		ph[k].rank[0][0] = 3;
		ph[k].rank[0][1] = 1;
		k++;
	}
	return k;
}

/* Run every collective in every phase for rank "m" ("arg" unused); return
 * 0 or -1. */
static int
all_collectives(struct tl_member *m, void *arg)
{
	struct phase ph[8];
	int np = make_phases(m->team->n, ph);

	(void)arg;
	for (int p = 0; p < np; p++)
		for (int gi = 0; gi < ph[p].n_groups; gi++) {
			const int *g = ph[p].rank[gi];
			int size = ph[p].size[gi];
			int me = index_of(g, size, m->rank);
			uint64_t seed = (uint64_t)(p * 100 + gi) * 1000;

			if (me < 0)
				continue;
			if (check_reductions(m, g, size, me, seed) < 0 ||
			    check_moves(m, g, size, me, seed + 500) < 0 ||
			    sym_comm_barrier(m->ep, g, size) < 0)
				return tl_failed(m, "rank %d, phase %d: %s",
				    m->rank, p, m->err);
		}
	return 0;
}

/* Every collective on the world and subgroups of 1 to 8 ranks; "state" is
 * unused. */
static void
test_collectives(void **state)
{
	static const int sizes[] = { 1, 2, 3, 4, 8 };

	(void)state;
	for (size_t i = 0; i < 5; i++)
		run_team(sizes[i], 0, all_collectives, NULL);
}

/* 2000 back-to-back small collectives on the world and on the pair of
 * rank "m" (rank ^ 1), alternating, each checked; "arg" unused. Return 0
 * or -1. */
static int
back_to_back(struct tl_member *m, void *arg)
{
	int pair[2] = { m->rank & ~1, m->rank | 1 };
	int n = m->team->n;
	int32_t v[4], sum[4], all[MAX_RANKS];

	(void)arg;
	for (int it = 0; it < 2000; it++) {
		for (int k = 0; k < 4; k++)
			v[k] = it * 31 + k + m->rank;
		if (sym_comm_all_reduce(m->ep, pair, 2, v, sum, 4, SYM_DT_I32,
		        SYM_REDUCE_SUM) < 0)
			return tl_failed(m, "pair all_reduce %d: %s", it,
			    sym_ctx_last_message(m->ctx));
		for (int k = 0; k < 4; k++)
			if (sum[k] != 2 * (it * 31 + k) + pair[0] + pair[1])
				return tl_failed(m,
				    "rank %d: pair sum %d of "
				    "iteration %d is %d",
				    m->rank, k, it, sum[k]);
		if (sym_comm_all_gather(m->ep, NULL, 0, &v[0], all,
		        sizeof(int32_t)) < 0)
			return tl_failed(m, "all_gather %d: %s", it,
			    sym_ctx_last_message(m->ctx));
		for (int r = 0; r < n; r++)
			if (all[r] != it * 31 + r)
				return tl_failed(m,
				    "rank %d: all_gather %d: "
				    "block %d is %d",
				    m->rank, it, r, all[r]);
	}
	return 0;
}

/* Back-to-back collectives on 8 ranks, four pairs running concurrently
 * between world collectives; "state" is unused. */
static void
test_back_to_back(void **state)
{
	(void)state;
	run_team(8, 0, back_to_back, NULL);
}

/* Check that the last error of "m" is "code" with a message containing
 * "text"; return 0 or -1. */
static int
expect_error(struct tl_member *m, int rc, sym_error code, const char *text)
{
	if (rc != -1)
		return tl_failed(m, "rank %d: expected -1 (%s), got %d",
		    m->rank, text, rc);
	if (sym_ctx_last_error(m->ctx) != code ||
	    !strstr(sym_ctx_last_message(m->ctx), text))
		return tl_failed(m,
		    "rank %d: expected error %d with '%s', got "
		    "%d: %s",
		    m->rank, (int)code, text, (int)sym_ctx_last_error(m->ctx),
		    sym_ctx_last_message(m->ctx));
	sym_ctx_clear_error(m->ctx);
	return 0;
}

/* Argument errors a rank detects alone, on 4 ranks (only rank 0 calls);
 * "arg" unused. Return 0 or -1. */
static int
local_errors(struct tl_member *m, void *arg)
{
	static const int dup[] = { 0, 1, 0 }, out[] = { 0, 4 },
	                 other[] = { 1, 2 }, neg[] = { -1, 0 };
	float x[8] = { 0 }, y[8] = { 0 };
	sym_comm_endpoint *ep = m->ep;

	(void)arg;
	if (m->rank != 0)
		return 0;
	if (expect_error(m, sym_comm_barrier(ep, dup, 3), SYM_EINVAL,
	        "rank 0 appears twice") ||
	    expect_error(m, sym_comm_barrier(ep, out, 2), SYM_EINVAL,
	        "rank 4 out of range") ||
	    expect_error(m, sym_comm_barrier(ep, neg, 2), SYM_EINVAL,
	        "rank -1 out of range") ||
	    expect_error(m, sym_comm_barrier(ep, other, 2), SYM_EINVAL,
	        "not a member of group {1, 2}") ||
	    expect_error(m, sym_comm_barrier(ep, other, 0), SYM_EINVAL,
	        "group of 0 ranks") ||
	    expect_error(m, sym_comm_barrier(ep, NULL, 3), SYM_EINVAL,
	        "a NULL group means all 4 ranks") ||
	    expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, x, y, 8, SYM_DT_I64,
	            SYM_REDUCE_SUM),
	        SYM_EINVAL, "dtype i64 cannot be reduced") ||
	    expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, x, y, 8, SYM_DT_F32,
	            (sym_reduce_op)7),
	        SYM_EINVAL, "reduction 7") ||
	    expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, x, y, -1, SYM_DT_F32,
	            SYM_REDUCE_SUM),
	        SYM_EINVAL, "negative count -1") ||
	    expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, x, y, INT64_MAX, SYM_DT_F64,
	            SYM_REDUCE_SUM),
	        SYM_EINVAL, "overflow") ||
	    expect_error(m,
	        sym_comm_reduce_scatter(ep, NULL, 0, x, y, INT64_MAX / 4,
	            SYM_DT_F32, SYM_REDUCE_SUM),
	        SYM_EINVAL, "overflow") ||
	    expect_error(m,
	        sym_comm_all_gather(ep, NULL, 0, x, y, SIZE_MAX / 2),
	        SYM_EINVAL, "overflow") ||
	    expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, NULL, y, 8, SYM_DT_F32,
	            SYM_REDUCE_SUM),
	        SYM_EINVAL, "NULL send buffer") ||
	    expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, x, x + 1, 4, SYM_DT_F32,
	            SYM_REDUCE_SUM),
	        SYM_EINVAL, "overlap") ||
	    expect_error(m, sym_comm_all_gather(ep, NULL, 0, x + 1, x, 4),
	        SYM_EINVAL, "not the caller's block") ||
	    expect_error(m, sym_comm_all_to_all(ep, NULL, 0, x, x + 2, 4),
	        SYM_EINVAL, "overlap") ||
	    expect_error(m, sym_comm_broadcast(ep, NULL, 0, x, 4, 4),
	        SYM_EINVAL, "root 4 is not a group rank") ||
	    expect_error(m, sym_comm_permute(ep, NULL, 0, x, y, 4, 4, 0),
	        SYM_EINVAL, "destination 4 or source 0") ||
	    expect_error(m, sym_comm_permute(ep, NULL, 0, x, y, 4, 0, -2),
	        SYM_EINVAL, "source -2"))
		return -1;
	return 0;
}

/* Argument errors detected before any rendezvous; "state" is unused. */
static void
test_local_errors(void **state)
{
	(void)state;
	run_team(4, 2000, local_errors, NULL);
}

/* Members of 2 ranks that disagree, each time followed by a correct call
 * that must still work; "arg" unused. Return 0 or -1. */
static int
mismatches(struct tl_member *m, void *arg)
{
	float x[16] = { 1, 2, 3 }, y[16];
	int r = m->rank;
	sym_comm_endpoint *ep = m->ep;

	(void)arg;
	if (expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, x, y, 10 + r, SYM_DT_F32,
	            SYM_REDUCE_SUM),
	        SYM_EINVAL, "rank 1 passed count 11, rank 0 passed 10") ||
	    expect_error(m,
	        r ? sym_comm_all_gather(ep, NULL, 0, x, y, 4)
	          : sym_comm_all_reduce(ep, NULL, 0, x, y, 1, SYM_DT_F32,
	                SYM_REDUCE_SUM),
	        SYM_EINVAL, "rank 1 passed collective all_gather") ||
	    expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, x, y, 2,
	            r ? SYM_DT_I32 : SYM_DT_F32, SYM_REDUCE_SUM),
	        SYM_EINVAL, "dtype i32, rank 0 passed f32") ||
	    expect_error(m,
	        sym_comm_all_reduce(ep, NULL, 0, x, y, 2, SYM_DT_F32,
	            r ? SYM_REDUCE_MAX : SYM_REDUCE_SUM),
	        SYM_EINVAL, "reduction max, rank 0 passed sum") ||
	    expect_error(m, sym_comm_broadcast(ep, NULL, 0, x, 8, r),
	        SYM_EINVAL, "rank 1 passed root 1, rank 0 passed 0") ||
	    expect_error(m, sym_comm_all_to_all(ep, NULL, 0, x, y, 8 + 4 * r),
	        SYM_EINVAL, "bytes 12, rank 0 passed 8") ||
	    expect_error(m,
	        sym_comm_permute(ep, NULL, 0, x, y, 4, r ? SYM_COMM_NONE : 1,
	            r ? 0 : 1),
	        SYM_EINVAL, "rank 0 receives from rank 1, which does not"))
		return -1;
	if (sym_comm_all_reduce(ep, NULL, 0, x, y, 3, SYM_DT_F32,
	        SYM_REDUCE_SUM) < 0 ||
	    y[0] != 2 || y[1] != 4 || y[2] != 6)
		return tl_failed(m,
		    "rank %d: all_reduce after the mismatches: %s", r,
		    sym_ctx_last_message(m->ctx));
	return 0;
}

/* Members that pass different arguments all fail, and the group still
 * works; "state" is unused. */
static void
test_mismatches(void **state)
{
	(void)state;
	run_team(2, 5000, mismatches, NULL);
}

/* Rank 2 of 3 skips a barrier and calls another group instead: every
 * caller times out naming the missing ranks; then (the threads meeting at
 * "arg", a pthread barrier) rank 2's late call on the world finds it
 * abandoned, and another group still works. Return 0 or -1. */
static int
timeouts(struct tl_member *m, void *arg)
{
	static const int pair[] = { 0, 1 }, rev[] = { 2, 1, 0 };
	struct timespec t0, t1;
	double ms;
	int x = m->rank, y[2];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (m->rank < 2
	        ? expect_error(m, sym_comm_barrier(m->ep, NULL, 0), SYM_EIO,
	              "timed out after 150 ms waiting for rank 2 ")
	        : expect_error(m, sym_comm_barrier(m->ep, rev, 3), SYM_EIO,
	              "waiting for ranks 1, 0 ")) {
		pthread_barrier_wait(arg);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_barrier_wait(arg);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
	if (ms < 140 || ms > 5000)
		return tl_failed(m, "rank %d: timed out after %.0f ms", m->rank,
		    ms);
	if (m->rank == 2)
		return expect_error(m, sym_comm_barrier(m->ep, NULL, 0),
		    SYM_EIO, "abandoned after a timeout");
	if (sym_comm_all_gather(m->ep, pair, 2, &x, y, sizeof(int)) < 0 ||
	    y[0] != 0 || y[1] != 1)
		return tl_failed(m, "rank %d: all_gather on {0, 1}: %s",
		    m->rank, sym_ctx_last_message(m->ctx));
	return 0;
}

/* The rendezvous times out, reporting the ranks that never came; "state"
 * is unused. */
static void
test_timeout(void **state)
{
	pthread_barrier_t meet;

	(void)state;
	assert_int_equal(pthread_barrier_init(&meet, NULL, 3), 0);
	run_team(3, 150, timeouts, &meet);
	pthread_barrier_destroy(&meet);
}

/* Agreeing on failures on 5 ranks; "arg" unused. Nobody fails: 0
 * everywhere. Ranks 3 and 4 fail: every rank gets rank 3's error (its
 * code, its message after "rank 3: "), rank 3 too. Every rank fails
 * with its context's error: rank 0's, with its location. A message that
 * names its rank already is not named twice. Return 0 or -1. */
static int
agreement(struct tl_member *m, void *arg)
{
	sym_loc at = { "net.sg", 4, 2 }, loc;
	char mine[64];
	int rc;

	(void)arg;
	if (sym_comm_agree(m->ep, SYM_OK, "ignored") != 0)
		return tl_failed(m, "rank %d: agree with no failure: %s",
		    m->rank, sym_ctx_last_message(m->ctx));
	if (sym_ctx_last_error(m->ctx) != SYM_OK)
		return tl_failed(m, "rank %d: an error without failure",
		    m->rank);
	snprintf(mine, sizeof(mine), "disk %d is full", m->rank);
	rc = sym_comm_agree(m->ep, m->rank >= 3 ? SYM_EIO : SYM_OK,
	    m->rank >= 3 ? mine : NULL);
	if (expect_error(m, rc, SYM_EIO, "rank 3: disk 3 is full") < 0)
		return -1;
	if (sym_expr_parse(m->ctx, NULL, &at) != NULL)
		return tl_failed(m, "rank %d: parsed no text", m->rank);
	rc = sym_comm_agree(m->ep, sym_ctx_last_error(m->ctx), NULL);
	loc = sym_ctx_last_location(m->ctx);
	if (!loc.file || strcmp(loc.file, "net.sg") || loc.line != 4 ||
	    loc.col != 2)
		return tl_failed(m, "rank %d: location %s:%d:%d", m->rank,
		    loc.file ? loc.file : "(none)", loc.line, loc.col);
	if (expect_error(m, rc, SYM_EINVAL, "rank 0: no text to parse") < 0)
		return -1;
	rc = sym_comm_agree(m->ep, m->rank == 2 ? SYM_ENOMEM : SYM_OK,
	    "rank 2: out of memory");
	if (rc != -1 ||
	    strcmp(sym_ctx_last_message(m->ctx), "rank 2: out of memory"))
		return tl_failed(m, "rank %d: '%s'", m->rank,
		    sym_ctx_last_message(m->ctx));
	rc = sym_comm_agree(m->ep, m->rank == 1 ? SYM_EDOMAIN : SYM_OK, NULL);
	return expect_error(m, rc, SYM_EDOMAIN,
	    "rank 1: rank 2: out of memory");
}

/* sym_comm_agree: every rank returns the lowest failing rank's error;
 * "state" is unused. */
static void
test_agree(void **state)
{
	(void)state;
	run_team(5, 0, agreement, NULL);
}

/* Creation, options, attaching and the backend without threads; "state"
 * is unused. */
static void
test_communicator(void **state)
{
	sym_ctx *ctx = sym_ctx_new(), *other = sym_ctx_new();
	sym_communicator *comm;
	sym_comm_endpoint *ep, *ep2;
	int v = 5, w = 0;

	(void)state;
	assert_non_null(ctx);
	assert_non_null(other);
	assert_null(sym_comm_threads_new(ctx, 0));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_null(sym_comm_threads_new(ctx, -3));
	assert_null(sym_comm_threads_new(NULL, 2));
	comm = sym_comm_threads_new(ctx, 3);
	assert_non_null(comm);
	assert_int_equal(sym_ctx_live_objects(ctx), 1);
	assert_int_equal(sym_comm_n_ranks(comm), 3);
	assert_int_equal(sym_comm_rank(comm), -1);
	assert_string_equal(sym_comm_backend(comm), "threads");
	assert_int_equal(sym_comm_get_option(comm, SYM_COMM_OPT_TIMEOUT_MS),
	    60000);
	assert_int_equal(sym_comm_get_option(comm, SYM_COMM_OPT_CHECK), 1);
	assert_int_equal(sym_comm_set_option(comm, SYM_COMM_OPT_TIMEOUT_MS, 0),
	    0);
	assert_int_equal(sym_comm_get_option(comm, SYM_COMM_OPT_TIMEOUT_MS), 0);
	assert_int_equal(sym_comm_set_option(comm, SYM_COMM_OPT_TIMEOUT_MS, -1),
	    -1);
	assert_int_equal(sym_comm_set_option(comm, SYM_COMM_OPT_CHECK, 2), -1);
	assert_int_equal(sym_comm_set_option(comm, (sym_comm_option)9, 1), -1);
	assert_int_equal(sym_comm_get_option(comm, (sym_comm_option)9), -1);

	assert_null(sym_comm_attach(ctx, comm, 3));
	assert_string_equal(sym_ctx_last_message(ctx),
	    "attach: rank 3 out of range (the communicator has 3 ranks)");
	ep = sym_comm_attach(ctx, comm, 1);
	assert_non_null(ep);
	assert_int_equal(sym_comm_endpoint_rank(ep), 1);
	assert_null(sym_comm_attach(other, comm, 1));
	assert_string_equal(sym_ctx_last_message(other),
	    "attach: rank 1 is already attached");
	/* a group of one needs no peer */
	assert_int_equal(sym_comm_all_gather(ep, (const int[]){ 1 }, 1, &v, &w,
	                     sizeof(v)),
	    0);
	assert_int_equal(w, 5);
	sym_comm_detach(ep);
	assert_int_equal(sym_comm_barrier(ep, (const int[]){ 1 }, 1), -1);
	ep2 = sym_comm_attach(other, comm, 1);
	assert_ptr_equal(ep2, ep);
	sym_comm_detach(ep2);

	if (!sym_comm_mpi_available()) {
		assert_null(sym_comm_mpi_new(ctx, NULL, NULL));
		assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
		assert_non_null(strstr(sym_ctx_last_message(ctx),
		    "built without MPI"));
	}
	sym_comm_free(comm);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	/* a communicator left alive is freed with its context */
	assert_non_null(sym_comm_threads_new(ctx, 2));
	assert_int_equal(sym_ctx_live_objects(ctx), 1);
	sym_ctx_free(ctx);
	sym_ctx_free(other);
}

/* Run the comm tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_communicator),
		cmocka_unit_test(test_collectives),
		cmocka_unit_test(test_back_to_back),
		cmocka_unit_test(test_local_errors),
		cmocka_unit_test(test_mismatches),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_agree),
	};

	return cmocka_run_group_tests_name("comm", tests, NULL, NULL);
}
