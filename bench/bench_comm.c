/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the communicator's collectives. Prints one JSON line per
 * measurement:
 *
 * - memcpy of the reference size (16 MiB by default) on one thread, the
 *   yardstick;
 * - on the threads backend with 2, 4 and 8 ranks: all_reduce (f32 sum),
 *   all_gather, reduce_scatter, all_to_all and broadcast of that many
 *   bytes per rank (nccl-tests convention: "bytes" is the size of the
 *   whole logical buffer, algbw = bytes / time, busbw = algbw times
 *   2(n-1)/n for all_reduce and (n-1)/n for the others), and the latency
 *   of a barrier and of an 8-byte all_reduce;
 * - the all_reduce bandwidth relative to memcpy ("ratio_memcpy", the goal
 *   being at least 0.5), unless there are more ranks than cores: the
 *   ranks then share cores and the line says so ("oversubscribed")
 *   instead of giving a ratio that cannot be met.
 *
 * Every rank times each call, from the barrier before it to its own
 * return, and a barrier (untimed) follows every call, the barrier's own
 * case included; a call's time is that of its slowest rank.
 *
 * With --mpi (run it under mpirun), the same collectives on the MPI
 * backend, printed by rank 0 with "backend": "mpi".
 *
 * Options: --mpi, --bytes N (reference size), --reps N, --ranks N (threads:
 * only that many ranks).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symshard.h>

#include "util.h"

/* The settings of a run. */
struct opts {
	size_t bytes;
	int reps;
	int mpi;
	int ranks;
};

/* A collective to time. */
enum kind {
	K_ALL_REDUCE,
	K_ALL_GATHER,
	K_REDUCE_SCATTER,
	K_ALL_TO_ALL,
	K_BROADCAST,
	K_BARRIER,
	K_SMALL_ALL_REDUCE,
	N_KIND
};

static const char *const kind_name[N_KIND] = { "all_reduce", "all_gather",
	"reduce_scatter", "all_to_all", "broadcast", "barrier",
	"all_reduce_8B" };

/* The best and median seconds per call of each collective. */
struct times {
	double best[N_KIND];
	double median[N_KIND];
};

/* One rank's share of a threads run: its thread, its times of every
 * call (see time_all). */
struct rank_run {
	pthread_t th;
	sym_communicator *comm;
	const struct opts *o;
	int rank;
	double *t;
};

/* Return the calls of collective "k" that "o" times. */
static int
n_reps(const struct opts *o, int k)
{
	return k >= K_BARRIER ? o->reps * 100 : o->reps;
}

/* Return the monotonic time in seconds. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Abort with "what" and the message of "ctx". */
static void
die(sym_ctx *ctx, const char *what)
{
	fprintf(stderr, "bench_comm: %s: %s\n", what,
	    ctx ? sym_ctx_last_message(ctx) : "out of memory");
	exit(1);
}

/* Return "n" bytes filled with a pattern, or exit. */
static void *
buffer(size_t n)
{
	float *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "bench_comm: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n / sizeof(float); i++)
		p[i] = (float)(i % 1000) * 0.5f;
	return p;
}

/* Run collective "k" once on all ranks through "ep" ("n" ranks) with the
 * buffers "a" and "b", "bytes" being the logical size; return 0 or -1. */
static int
run_once(sym_comm_endpoint *ep, int n, enum kind k, void *a, void *b,
    size_t bytes)
{
	size_t block = bytes / (size_t)n;
	float small[2] = { 1, 2 }, out[2];

	switch (k) {
	case K_ALL_REDUCE:
		return sym_comm_all_reduce(ep, NULL, 0, a, b,
		    (int64_t)(bytes / sizeof(float)), SYM_DT_F32,
		    SYM_REDUCE_SUM);
	case K_ALL_GATHER:
		return sym_comm_all_gather(ep, NULL, 0, a, b, block);
	case K_REDUCE_SCATTER:
		return sym_comm_reduce_scatter(ep, NULL, 0, a, b,
		    (int64_t)(block / sizeof(float)), SYM_DT_F32,
		    SYM_REDUCE_SUM);
	case K_ALL_TO_ALL:
		return sym_comm_all_to_all(ep, NULL, 0, a, b, block);
	case K_BROADCAST:
		return sym_comm_broadcast(ep, NULL, 0, a, bytes, 0);
	case K_BARRIER:
		return sym_comm_barrier(ep, NULL, 0);
	case K_SMALL_ALL_REDUCE:
		return sym_comm_all_reduce(ep, NULL, 0, small, out, 2,
		    SYM_DT_F32, SYM_REDUCE_SUM);
	case N_KIND:
		break;
	}
	return -1;
}

/* Compare the doubles at "a" and "b" for qsort. */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Time every collective on handle "ep" of a communicator of "n" ranks:
 * each call after a barrier, until this rank returns, then an untimed
 * barrier; store the seconds of call r of collective k in "t"[k * o->reps
 * * 100 + r]. Return 0 or -1 (error on the handle's context). */
static int
time_all(sym_comm_endpoint *ep, int n, const struct opts *o, double *t)
{
	void *a = buffer(o->bytes), *b = buffer(o->bytes);
	int rc = 0;

	for (int k = 0; k < N_KIND && rc == 0; k++) {
		double *tk = t + (size_t)k * (size_t)o->reps * 100;

		rc = run_once(ep, n, (enum kind)k, a, b, o->bytes);
		rc |= sym_comm_barrier(ep, NULL, 0);
		for (int r = 0; r < n_reps(o, k) && rc == 0; r++) {
			double t0;

			rc = sym_comm_barrier(ep, NULL, 0);
			t0 = now();
			rc |= run_once(ep, n, (enum kind)k, a, b, o->bytes);
			tk[r] = now() - t0;
			rc |= sym_comm_barrier(ep, NULL, 0);
		}
	}
	free(a);
	free(b);
	return rc;
}

/* Return an array for the times of time_all with "o", or exit. */
static double *
times_new(const struct opts *o)
{
	double *t =
	    calloc((size_t)N_KIND * (size_t)o->reps * 100, sizeof(double));

	if (!t)
		die(NULL, "times");
	return t;
}

/* Store in "m" the best and median seconds per call of each collective,
 * a call taking the time of the slowest of the "n" ranks whose times (of
 * time_all) are "t"[0] to "t"[n - 1]. */
static void
slowest(double *const *t, int n, const struct opts *o, struct times *m)
{
	double *w = malloc((size_t)o->reps * 100 * sizeof(double));

	if (!w)
		die(NULL, "times");
	for (int k = 0; k < N_KIND; k++) {
		size_t base = (size_t)k * (size_t)o->reps * 100;
		int reps = n_reps(o, k);

		for (int r = 0; r < reps; r++) {
			w[r] = t[0][base + (size_t)r];
			for (int i = 1; i < n; i++)
				if (t[i][base + (size_t)r] > w[r])
					w[r] = t[i][base + (size_t)r];
		}
		qsort(w, (size_t)reps, sizeof(double), cmp_double);
		m->best[k] = w[0];
		m->median[k] = w[reps / 2];
	}
	free(w);
}

/* Run the rank "p" (a struct rank_run) of a threads benchmark; return
 * NULL. */
static void *
rank_main(void *p)
{
	struct rank_run *r = p;
	sym_ctx *ctx = sym_ctx_new();
	sym_comm_endpoint *ep;

	if (!ctx)
		die(NULL, "context");
	ep = sym_comm_attach(ctx, r->comm, r->rank);
	if (!ep)
		die(ctx, "attach");
	if (time_all(ep, sym_comm_n_ranks(r->comm), r->o, r->t) < 0)
		die(ctx, "collective");
	sym_comm_detach(ep);
	sym_ctx_free(ctx);
	return NULL;
}

/* Return the bus bandwidth factor of collective "k" on "n" ranks. */
static double
bus_factor(enum kind k, int n)
{
	if (k == K_ALL_REDUCE)
		return 2.0 * (n - 1) / n;
	return (double)(n - 1) / n;
}

/* Print the measurements "m" of backend "backend" on "n" ranks, the
 * all_reduce also against memcpy's "mc" unless the ranks are more than
 * the cores. */
static void
report(const char *backend, int n, const struct opts *o, const struct times *m,
    const struct times *mc)
{
	int cores = bench_online_cores();

	if (n > cores)
		printf("# %d ranks on %d cores: the ranks share cores, so no "
		       "ratio against memcpy (goal 0.5) is given\n",
		    n, cores);
	for (int k = 0; k < N_KIND; k++) {
		double algbw = (double)o->bytes / m->median[k] / 1e9;

		printf("{\"bench\": \"comm\", \"backend\": \"%s\", "
		       "\"ranks\": %d, \"collective\": \"%s\", ",
		    backend, n, kind_name[k]);
		if (k >= K_BARRIER) {
			printf("\"latency_us\": %.2f, \"best_us\": %.2f}\n",
			    m->median[k] * 1e6, m->best[k] * 1e6);
			continue;
		}
		printf("\"bytes\": %zu, \"time_ms\": %.3f, \"best_ms\": "
		       "%.3f, \"algbw_gbs\": %.2f, \"busbw_gbs\": %.2f",
		    o->bytes, m->median[k] * 1e3, m->best[k] * 1e3, algbw,
		    algbw * bus_factor((enum kind)k, n));
		if (k == K_ALL_REDUCE && n > cores)
			printf(", \"oversubscribed\": true, \"cores\": %d, "
			       "\"ratio_memcpy\": null",
			    cores);
		else if (k == K_ALL_REDUCE)
			printf(", \"oversubscribed\": false, \"ratio_memcpy\": "
			       "%.2f, \"ratio_memcpy_best\": %.2f, "
			       "\"goal_ratio_memcpy\": 0.5, \"goal_met\": %s",
			    mc->median[0] / m->median[k],
			    mc->best[0] / m->best[k],
			    mc->median[0] / m->median[k] >= 0.5 ? "true"
			                                        : "false");
		printf("}\n");
	}
	fflush(stdout);
}

/* Time memcpy of the reference size on one thread into "mc" (entry 0) and
 * print it. */
static void
bench_memcpy(const struct opts *o, struct times *mc)
{
	char *a = buffer(o->bytes), *b = buffer(o->bytes);
	double *t = malloc((size_t)o->reps * sizeof(double));

	if (!t)
		die(NULL, "memcpy");
	memcpy(b, a, o->bytes);
	for (int r = 0; r < o->reps; r++) {
		double t0 = now();

		memcpy(b, a, o->bytes);
		t[r] = now() - t0;
		a[r % o->bytes] = b[(r * 7) % o->bytes];
	}
	qsort(t, (size_t)o->reps, sizeof(double), cmp_double);
	mc->best[0] = t[0];
	mc->median[0] = t[o->reps / 2];
	free(t);
	free(a);
	free(b);
	printf("{\"bench\": \"comm\", \"backend\": \"memcpy\", \"bytes\": "
	       "%zu, \"time_ms\": %.3f, \"best_ms\": %.3f, \"bw_gbs\": %.2f}\n",
	    o->bytes, mc->median[0] * 1e3, mc->best[0] * 1e3,
	    (double)o->bytes / mc->median[0] / 1e9);
}

/* Run the threads benchmark on "n" ranks against memcpy's "mc". */
static void
bench_threads(int n, const struct opts *o, const struct times *mc)
{
	struct rank_run r[8];
	double *t[8] = { NULL };
	struct times m;
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm = ctx ? sym_comm_threads_new(ctx, n) : NULL;

	if (!comm)
		die(ctx, "threads communicator");
	for (int i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].comm = comm;
		r[i].o = o;
		r[i].rank = i;
		r[i].t = t[i] = times_new(o);
		if (pthread_create(&r[i].th, NULL, rank_main, &r[i]) != 0)
			die(ctx, "pthread_create");
	}
	for (int i = 0; i < n; i++)
		pthread_join(r[i].th, NULL);
	slowest(t, n, o, &m);
	report("threads", n, o, &m, mc);
	for (int i = 0; i < n; i++)
		free(t[i]);
	sym_comm_free(comm);
	sym_ctx_free(ctx);
}

/* Run the MPI benchmark ("argc", "argv" for MPI's initialisation); rank 0
 * prints. Return the exit status. */
static int
bench_mpi(const struct opts *o, int *argc, char ***argv)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm = ctx ? sym_comm_mpi_new(ctx, argc, argv) : NULL;
	sym_comm_endpoint *ep;
	struct times m, mc;
	double *t = times_new(o);
	int n;

	if (!comm)
		die(ctx, "mpi communicator");
	ep = sym_comm_attach(ctx, comm, sym_comm_rank(comm));
	if (!ep)
		die(ctx, "attach");
	n = sym_comm_n_ranks(comm);
	/* every rank's times, then the slowest of each call */
	if (time_all(ep, n, o, t) < 0 ||
	    sym_comm_all_reduce(ep, NULL, 0, t, t,
	        (int64_t)N_KIND * o->reps * 100, SYM_DT_F64,
	        SYM_REDUCE_MAX) < 0)
		die(ctx, "collective");
	slowest(&t, 1, o, &m);
	if (sym_comm_rank(comm) == 0) {
		bench_header("bench_comm --mpi");
		bench_memcpy(o, &mc);
		report("mpi", n, o, &m, &mc);
	}
	free(t);
	sym_comm_detach(ep);
	sym_comm_free(comm);
	sym_ctx_free(ctx);
	return 0;
}

/* Parse the options and run the benchmark. */
int
main(int argc, char **argv)
{
	static const int ranks[] = { 2, 4, 8 };
	struct opts o = { (size_t)16 << 20, 20, 0, 0 };
	struct times mc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mpi"))
			o.mpi = 1;
		else if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
			o.bytes = (size_t)strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			o.reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ranks") && i + 1 < argc)
			o.ranks = atoi(argv[++i]);
		else {
			fprintf(stderr,
			    "usage: bench_comm [--mpi] [--bytes N] "
			    "[--reps N] [--ranks N]\n");
			return 2;
		}
	}
	if (o.bytes < 64 * sizeof(float) || o.reps < 1 || o.ranks < 0 ||
	    o.ranks > 8) {
		fprintf(stderr,
		    "bench_comm: --bytes at least 256, --reps at "
		    "least 1, --ranks 1 to 8\n");
		return 2;
	}
	o.bytes = o.bytes / (8 * 64) * (8 * 64);
	if (o.mpi)
		return bench_mpi(&o, &argc, &argv);
	bench_header("bench_comm");
	bench_memcpy(&o, &mc);
	if (o.ranks)
		bench_threads(o.ranks, &o, &mc);
	else
		for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++)
			bench_threads(ranks[i], &o, &mc);
	return 0;
}
