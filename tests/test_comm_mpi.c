/* SPDX-License-Identifier: MIT */
/*
 * Test of the comm family on the MPI backend, run by tests/comm_mpi_check.sh
 * under mpirun (4 processes): every collective on the world and on
 * subgroups with random data checked bit for bit against a serial
 * reference (reductions in group order, as on the threads backend, float
 * sums included, over vectors of one to several segments of the
 * backend's buffer), argument errors, members
 * that disagree. Each process prints its failures; the exit status is 0
 * when every check of this process passed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#define MAX_RANKS 64

/* The state of this process's run: its handle, its context, its count of
 * checks and of failures. */
struct run {
	sym_ctx *ctx;
	sym_communicator *comm;
	sym_comm_endpoint *ep;
	int rank, n;
	int checks, failures;
};

/* Count a check of "r" that passed when "ok", else print the failure from
 * "fmt"; return "ok". */
static int __attribute__((format(printf, 3, 4)))
check(struct run *r, int ok, const char *fmt, ...)
{
	va_list ap;

	r->checks++;
	if (ok)
		return 1;
	r->failures++;
	fprintf(stderr, "test_comm_mpi: rank %d: ", r->rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%s)\n", sym_ctx_last_message(r->ctx));
	return 0;
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
 * "seed" for rank "rank". */
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

/* Return 1 when "got" (elements "off" to "off" + "count" of the reduction
 * with "op" over the "m" ranks of "group" of case "seed") is bit for bit
 * the serial reduction in group order, ((x0 + x1) + x2) + ..., in the
 * dtype's own arithmetic (int32 sums wrapping). */
static int
reduction_ok(const void *got, const int *group, int m, sym_dtype dt,
    sym_reduce_op op, int64_t off, int64_t count, uint64_t seed)
{
	size_t es = sym_dtype_size(dt);
	char *in = malloc((size_t)(off + count) * es + 1);
	char *want = calloc((size_t)count + 1, es);
	int ok = in && want, sum = op == SYM_REDUCE_SUM;

	for (int j = 0; j < m && ok; j++) {
		fill(in, dt, off + count, seed, group[j]);
		for (int64_t i = 0; i < count; i++) {
			if (dt == SYM_DT_F32) {
				float x = ((const float *)in)[off + i];
				float *w = (float *)want + i;

				*w = j == 0  ? x
				    : sum    ? *w + x
				    : x > *w ? x
				             : *w;
			} else if (dt == SYM_DT_F64) {
				double x = ((const double *)in)[off + i];
				double *w = (double *)want + i;

				*w = j == 0  ? x
				    : sum    ? *w + x
				    : x > *w ? x
				             : *w;
			} else {
				int32_t x = ((const int32_t *)in)[off + i];
				int32_t *w = (int32_t *)want + i;

				*w = j == 0 ? x
				    : sum
				    ? (int32_t)((uint32_t)*w + (uint32_t)x)
				    : x > *w ? x
				             : *w;
			}
		}
	}
	ok = ok && !memcmp(got, want, (size_t)count * es);
	free(in);
	free(want);
	return ok;
}

static const sym_dtype dtypes[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32 };
static const int64_t counts[] = { 0, 1, 13, 1000, 5003, 300007 };
static const size_t block_bytes[] = { 0, 1, 7, 4096, 20011 };

/* Check all_reduce and reduce_scatter on the group "g" of "m" ranks, in
 * which this process is group rank "me"; "seed" numbers the cases. */
static void
check_reductions(struct run *r, const int *g, int m, int me, uint64_t seed)
{
	for (size_t d = 0; d < 3; d++)
		for (int op = 0; op < 2; op++)
			for (size_t c = 0; c < 6; c++, seed++) {
				sym_dtype dt = dtypes[d];
				int64_t n = counts[c];
				size_t sz = (size_t)n * sym_dtype_size(dt);
				char *send = malloc(sz * (size_t)m + 1);
				char *recv = malloc(sz * (size_t)m + 1);
				int in_place = (int)(seed % 2);

				fill(send, dt, n, seed, r->rank);
				if (in_place)
					memcpy(recv, send, sz);
				check(r,
				    sym_comm_all_reduce(r->ep, g, m,
				        in_place ? recv : send, recv, n, dt,
				        (sym_reduce_op)op) == 0 &&
				        reduction_ok(recv, g, m, dt, op, 0, n,
				            seed),
				    "all_reduce %s op %d count %lld on %d "
				    "ranks",
				    sym_dtype_name(dt), op, (long long)n, m);
				fill(send, dt, n * m, seed + 77, r->rank);
				check(r,
				    sym_comm_reduce_scatter(r->ep, g, m, send,
				        recv, n, dt, (sym_reduce_op)op) == 0 &&
				        reduction_ok(recv, g, m, dt, op, n * me,
				            n, seed + 77),
				    "reduce_scatter %s op %d count %lld on %d "
				    "ranks",
				    sym_dtype_name(dt), op, (long long)n, m);
				free(send);
				free(recv);
			}
}

/* Check all_gather, all_to_all, broadcast and permute on the group "g" of
 * "m" ranks (this process: group rank "me"); "seed" numbers the cases. */
static void
check_moves(struct run *r, const int *g, int m, int me, uint64_t seed)
{
	for (size_t c = 0; c < 5; c++, seed += 16) {
		size_t b = block_bytes[c], total = b * (size_t)m;
		char *send = malloc(total + 1), *recv = malloc(total + 1);
		char *want = malloc(total + 1), *peer = malloc(total + 1);
		int shift = (int)(seed % (size_t)m);
		int dest = (me + shift) % m, src = (me - shift + m) % m;
		int root = (int)(seed / 16 % (size_t)m);

		fill(send, SYM_DT_U8, (int64_t)b, seed, r->rank);
		for (int j = 0; j < m; j++)
			fill(want + (size_t)j * b, SYM_DT_U8, (int64_t)b, seed,
			    g[j]);
		memcpy(recv + (size_t)me * b, send, b);
		check(r,
		    sym_comm_all_gather(r->ep, g, m,
		        seed % 2 ? recv + (size_t)me * b : send, recv,
		        b) == 0 &&
		        !memcmp(recv, want, total),
		    "all_gather of %zu bytes on %d ranks", b, m);

		fill(send, SYM_DT_U8, (int64_t)total, seed + 1, r->rank);
		for (int j = 0; j < m; j++) {
			fill(peer, SYM_DT_U8, (int64_t)total, seed + 1, g[j]);
			memcpy(want + (size_t)j * b, peer + (size_t)me * b, b);
		}
		check(r,
		    sym_comm_all_to_all(r->ep, g, m, send, recv, b) == 0 &&
		        !memcmp(recv, want, total),
		    "all_to_all of %zu bytes on %d ranks", b, m);

		fill(recv, SYM_DT_U8, (int64_t)b, seed + 2, r->rank);
		fill(want, SYM_DT_U8, (int64_t)b, seed + 2, g[root]);
		check(r,
		    sym_comm_broadcast(r->ep, g, m, recv, b, root) == 0 &&
		        !memcmp(recv, want, b),
		    "broadcast of %zu bytes from %d on %d ranks", b, root, m);

		fill(send, SYM_DT_U8, (int64_t)b, seed + 3, r->rank);
		fill(want, SYM_DT_U8, (int64_t)b, seed + 3, g[src]);
		check(r,
		    sym_comm_permute(r->ep, g, m, send, recv, b, dest, src) ==
		            0 &&
		        !memcmp(recv, want, b),
		    "permute of %zu bytes by %d on %d ranks", b, shift, m);

		memset(recv, 0xa5, b);
		memcpy(want, recv, b);
		if (me == m - 1)
			fill(want, SYM_DT_U8, (int64_t)b, seed + 3, g[0]);
		check(r,
		    sym_comm_permute(r->ep, g, m, send, recv, b,
		        me == 0 ? m - 1 : SYM_COMM_NONE,
		        me == m - 1 ? 0 : SYM_COMM_NONE) == 0 &&
		        !memcmp(recv, want, b),
		    "partial permute of %zu bytes on %d ranks", b, m);
		check(r, sym_comm_barrier(r->ep, g, m) == 0, "barrier");
		free(send);
		free(recv);
		free(want);
		free(peer);
	}
}

/* Run every collective on group "g" of "m" ranks (the caller is a member)
 * with cases numbered from "seed". */
static void
check_group(struct run *r, const int *g, int m, uint64_t seed)
{
	int me = -1;

	for (int i = 0; i < m; i++)
		if (g[i] == r->rank)
			me = i;
	check_reductions(r, g, m, me, seed);
	check_moves(r, g, m, me, seed + 500);
}

/* Return 1 when the last call returned -1 with error "code" and a message
 * containing "text", then clear the error. */
static int
failed_with(struct run *r, int rc, sym_error code, const char *text)
{
	int ok = rc == -1 && sym_ctx_last_error(r->ctx) == code &&
	    strstr(sym_ctx_last_message(r->ctx), text);

	if (ok)
		sym_ctx_clear_error(r->ctx);
	return ok;
}

/* Check the errors: bad groups, counts beyond MPI's int, members that
 * disagree (every member fails, then the group still works). */
static void
check_errors(struct run *r)
{
	int dup[2] = { r->rank, r->rank }, alone[1] = { r->rank };
	int other[1] = { (r->rank + 1) % r->n };
	float x[16] = { 1, 2, 3 }, y[16];
	char big;

	check(r,
	    failed_with(r, sym_comm_barrier(r->ep, dup, 2), SYM_EINVAL,
	        "appears twice"),
	    "duplicate rank");
	if (r->n > 1)
		check(r,
		    failed_with(r, sym_comm_barrier(r->ep, other, 1),
		        SYM_EINVAL, "not a member"),
		    "not a member");
	check(r,
	    failed_with(r,
	        sym_comm_all_reduce(r->ep, alone, 1, &big, &big, 3000000000LL,
	            SYM_DT_F32, SYM_REDUCE_SUM),
	        SYM_EOVERFLOW, "exceed MPI's int counts"),
	    "count beyond INT_MAX");
	check(r,
	    failed_with(r,
	        sym_comm_all_reduce(r->ep, NULL, 0, x, y, r->rank ? 11 : 10,
	            SYM_DT_F32, SYM_REDUCE_SUM),
	        SYM_EINVAL, "passed count 1") ||
	        r->n == 1,
	    "count mismatch");
	check(r,
	    sym_comm_all_reduce(r->ep, NULL, 0, x, y, 3, SYM_DT_F32,
	        SYM_REDUCE_SUM) == 0 &&
	        y[0] == r->n && y[2] == 3 * r->n,
	    "all_reduce after a mismatch");
	check(r, sym_comm_set_option(r->comm, SYM_COMM_OPT_CHECK, 0) == 0,
	    "option");
	check(r,
	    sym_comm_all_reduce(r->ep, NULL, 0, x, y, 3, SYM_DT_F32,
	        SYM_REDUCE_MAX) == 0 &&
	        y[1] == 2,
	    "all_reduce without the argument check");
	check(r, sym_comm_set_option(r->comm, SYM_COMM_OPT_CHECK, 1) == 0,
	    "option");
}

/* Run the test on the processes of MPI_COMM_WORLD. */
int
main(int argc, char **argv)
{
	struct run r;
	int g[MAX_RANKS], n;
	sym_ctx *other = sym_ctx_new();

	memset(&r, 0, sizeof(r));
	r.ctx = sym_ctx_new();
	if (!r.ctx || !other ||
	    !(r.comm = sym_comm_mpi_new(r.ctx, &argc, &argv))) {
		fprintf(stderr, "test_comm_mpi: %s\n",
		    r.ctx ? sym_ctx_last_message(r.ctx) : "no context");
		return 1;
	}
	r.rank = sym_comm_rank(r.comm);
	r.n = n = sym_comm_n_ranks(r.comm);
	check(&r, n >= 1 && n <= MAX_RANKS && r.rank >= 0 && r.rank < n,
	    "rank %d of %d", r.rank, n);
	check(&r, !strcmp(sym_comm_backend(r.comm), "mpi"), "backend");
	check(&r, sym_comm_mpi_available() == 1, "mpi available");
	if (n > 1)
		check(&r,
		    !sym_comm_attach(other, r.comm, (r.rank + 1) % n) &&
		        strstr(sym_ctx_last_message(other),
		            "belongs to another process"),
		    "attach another process's rank");
	r.ep = sym_comm_attach(r.ctx, r.comm, r.rank);
	if (!r.ep || n > MAX_RANKS) {
		fprintf(stderr, "test_comm_mpi: attach: %s\n",
		    sym_ctx_last_message(r.ctx));
		return 1;
	}

	for (int i = 0; i < n; i++)
		g[i] = i;
	check_group(&r, g, n, 1000);
	for (int i = 0; i < n; i++)
		g[i] = n - 1 - i;
	check_group(&r, g, n, 2000);
	check_group(&r, &r.rank, 1, 3000);
	for (int i = 0, k = 0; i < n; i++)
		if (i % 2 == r.rank % 2)
			g[k++] = i;
	check_group(&r, g, (n - r.rank % 2 + 1) / 2, 4000);
	if (n >= 4) {
		int pair[2] = { 3, 1 };

		if (r.rank == 1 || r.rank == 3)
			check_group(&r, pair, 2, 5000);
	}
	check_errors(&r);

	sym_comm_detach(r.ep);
	sym_comm_free(r.comm);
	if (sym_ctx_live_objects(r.ctx) != 0)
		r.failures++;
	sym_ctx_free(r.ctx);
	sym_ctx_free(other);
	printf("test_comm_mpi: rank %d of %d: %d checks, %d failures\n", r.rank,
	    n, r.checks, r.failures);
	return r.failures ? 1 : 0;
}
