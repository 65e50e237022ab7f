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
 *   being at least 0.5).
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

/* One rank's share of a threads run: its thread, the measurements. */
struct rank_run {
	pthread_t th;
	sym_communicator *comm;
	const struct opts *o;
	int rank;
	struct times m;
};

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

/* Time every collective on handle "ep" of a communicator of "n" ranks,
 * each call between two barriers, storing the best and the median seconds
 * per call in "best" and "median"; return 0 or -1 (error on the handle's
 * context). */
static int
time_all(sym_comm_endpoint *ep, int n, const struct opts *o, double *best,
    double *median)
{
	void *a = buffer(o->bytes), *b = buffer(o->bytes);
	double *t = malloc((size_t)o->reps * 100 * sizeof(double));
	int rc = t ? 0 : -1;

	for (int k = 0; k < N_KIND && rc == 0; k++) {
		int reps = k >= K_BARRIER ? o->reps * 100 : o->reps;

		rc = run_once(ep, n, (enum kind)k, a, b, o->bytes);
		for (int r = 0; r < reps && rc == 0; r++) {
			double t0;

			rc = sym_comm_barrier(ep, NULL, 0);
			t0 = now();
			rc |= run_once(ep, n, (enum kind)k, a, b, o->bytes);
			if (k != K_BARRIER)
				rc |= sym_comm_barrier(ep, NULL, 0);
			t[r] = now() - t0;
		}
		qsort(t, (size_t)reps, sizeof(double), cmp_double);
		best[k] = t[0];
		median[k] = t[reps / 2];
	}
	free(t);
	free(a);
	free(b);
	return rc;
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
	ep = sym_comm_attach(r->comm, r->rank, ctx);
	if (!ep)
		die(ctx, "attach");
	if (time_all(ep, sym_comm_n_ranks(r->comm), r->o, r->m.best,
	        r->m.median) < 0)
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
 * all_reduce also against memcpy's "mc". */
static void
report(const char *backend, int n, const struct opts *o, const struct times *m,
    const struct times *mc)
{
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
		if (k == K_ALL_REDUCE)
			printf(", \"ratio_memcpy\": %.2f, "
			       "\"ratio_memcpy_best\": %.2f",
			    mc->median[0] / m->median[k],
			    mc->best[0] / m->best[k]);
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
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm = ctx ? sym_comm_threads_new(ctx, n) : NULL;

	if (!comm)
		die(ctx, "threads communicator");
	for (int i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].comm = comm;
		r[i].o = o;
		r[i].rank = i;
		if (pthread_create(&r[i].th, NULL, rank_main, &r[i]) != 0)
			die(ctx, "pthread_create");
	}
	for (int i = 0; i < n; i++)
		pthread_join(r[i].th, NULL);
	report("threads", n, o, &r[0].m, mc);
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
	int n;

	if (!comm)
		die(ctx, "mpi communicator");
	ep = sym_comm_attach(comm, sym_comm_rank(comm), ctx);
	if (!ep)
		die(ctx, "attach");
	n = sym_comm_n_ranks(comm);
	if (time_all(ep, n, o, m.best, m.median) < 0)
		die(ctx, "collective");
	if (sym_comm_rank(comm) == 0) {
		bench_header("bench_comm --mpi");
		bench_memcpy(o, &mc);
		report("mpi", n, o, &m, &mc);
	}
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
