/* SPDX-License-Identifier: MIT */
/*
 * bench_trainer: samples per second of the trainer (sym_trainer(3), the
 * loop shape-train runs) on Fashion-MNIST, and the share of its steps
 * spent outside kernels and communication.
 *
 * One run trains one graph at one global batch size: W warm-up steps
 * (not timed), then R windows of K timed steps each (default 3 windows
 * of as many steps as one epoch of the training split, the last shorter
 * batch included), the epochs shuffled with the seed; the time of a step
 * is all of sym_trainer_step: choosing the batch, binding its size, each
 * rank reading its rows from the dataset, the kernels, the
 * communication, the loss. A window's samples per second are its
 * samples over its wall time; the median window is reported.
 *
 *  - threads backend, 1 rank (default): the single-device plan of the
 *    graph (default examples/ffn_train.sg), OpenBLAS on one thread.
 *  - --backend mpi under mpirun: one rank per process, the graph's
 *    sharded plan (bench/ffn_train_dp.sg: data parallel on 2 devices);
 *    the time is the slowest process's.
 *
 * The kernels and the communication of each rank are timed by sym_exec's
 * progress callback (after every plan step); the first plan step of a
 * training step has no start mark, so it counts as outside (the line
 * names it). The rest of a step is outside: the batch, the binding,
 * preparing the buffers, reading the rows, the executor's loop, the
 * trainer's jobs and, on mpi, the agreements of the processes on
 * failures around each job (sym_comm_agree, collectives of their own).
 *
 * Prints one line {"bench": "trainer", ...} and one line {"bench":
 * "trainer_overhead", ...} on rank 0; bench/torch_trainer.py measures
 * PyTorch the same way and compares.
 *
 * Usage: bench_trainer [--dataset DIR] [--graph FILE] [--batch B]
 *                      [--steps K] [--warmup W] [--windows R] [--seed S]
 *                      [--backend threads|mpi]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#include "exec/exec_private.h"
#include "train/trainer_private.h"
#include "util.h"

#define DEFAULT_DATA "/usr/share/datasets/fashion-mnist"
#define MAX_WINDOWS 16

/* The options of a run. */
struct opts {
	const char *dataset, *graph;
	int64_t batch, steps, warmup;
	uint64_t seed;
	int mpi, windows;
};

/* The times of one rank, kept by its progress callback. */
struct clock {
	const sym_exec *x;
	double kern, comm, last;
	int on;
};

/* Exit with "msg" (and the error of "ctx" when not NULL). */
static void
die(const char *msg, sym_ctx *ctx)
{
	fprintf(stderr, "bench_trainer: %s%s%s\n", msg, ctx ? ": " : "",
	    ctx ? sym_ctx_last_message(ctx) : "");
	exit(2);
}

/* The progress callback of the clock "arg": add the time since the last
 * plan step to the kernels or the communication by the kind of step "i"
 * ("n" steps); step 0 only sets the mark. */
static void
tick(void *arg, size_t i, size_t n)
{
	struct clock *c = arg;
	double now = bench_now();

	(void)n;
	if (c->on && i > 0) {
		if (c->x->step[i].ps->kind == SYM_PLAN_KERNEL)
			c->kern += now - c->last;
		else
			c->comm += now - c->last;
	}
	c->last = now;
}

/* Read the command line "argv" of "argc" words into "o". */
static void
parse(int argc, char **argv, struct opts *o)
{
	const char *top = getenv("top_srcdir");
	static char path[4096];

	snprintf(path, sizeof(path), "%s%sexamples/ffn_train.sg",
	    top ? top : "", top ? "/" : "");
	*o = (struct opts){ DEFAULT_DATA, path, 64, 0, 10, 1, 0, 3 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			die("usage: bench_trainer [--dataset DIR] [--graph "
			    "FILE] [--batch B] [--steps K] [--warmup W] "
			    "[--windows R] [--seed S] [--backend threads|mpi]",
			    NULL);
		i++;
		if (!strcmp(a, "--dataset"))
			o->dataset = v;
		else if (!strcmp(a, "--graph"))
			o->graph = v;
		else if (!strcmp(a, "--batch"))
			o->batch = atoll(v);
		else if (!strcmp(a, "--steps"))
			o->steps = atoll(v);
		else if (!strcmp(a, "--warmup"))
			o->warmup = atoll(v);
		else if (!strcmp(a, "--seed"))
			o->seed = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--windows"))
			o->windows = atoi(v);
		else if (!strcmp(a, "--backend"))
			o->mpi = !strcmp(v, "mpi");
		else
			die("unknown option", NULL);
	}
	if (o->batch < 1 || o->warmup < 0 || o->steps < 0 || o->windows < 1 ||
	    o->windows > MAX_WINDOWS)
		die("--batch, --steps, --warmup and --windows expect counts",
		    NULL);
}

/* Run one step of "t" (another epoch when one ends); return its rows,
 * its loss in "*loss"; "ctx" holds the errors. */
static int64_t
step(sym_trainer *t, sym_ctx *ctx, double *loss)
{
	sym_train_step s;
	int rc;

	while ((rc = sym_trainer_step(t, &s)) == 0)
		if (sym_trainer_notice(t))
			fprintf(stderr, "# %s\n", sym_trainer_notice(t));
	if (rc < 0)
		die("step", ctx);
	*loss = s.loss;
	return s.rows;
}

/* The totals of the timed steps of this process: "windows" runs of
 * "steps" steps, each window's seconds; kernels and communication over
 * all of them. */
struct totals {
	double seconds[MAX_WINDOWS], kern, comm, loss_sum;
	int64_t samples[MAX_WINDOWS], steps;
	int windows;
	char first[64];
};

/* Train "t" for the warm-up and the timed windows of "o" into "r", with
 * the clock "c" on the rank this process watches; "ctx" holds the
 * errors. */
static void
train(sym_trainer *t, sym_ctx *ctx, const struct opts *o, struct clock *c,
    struct totals *r)
{
	double loss;

	for (int64_t i = 0; i < o->warmup; i++)
		step(t, ctx, &loss);
	c->kern = c->comm = 0;
	c->on = 1;
	for (int w = 0; w < o->windows; w++) {
		double t0 = bench_now();

		r->loss_sum = 0;
		for (int64_t i = 0; i < o->steps; i++) {
			r->samples[w] += step(t, ctx, &loss);
			if (i >= o->steps - o->steps / 10)
				r->loss_sum += loss;
		}
		r->seconds[w] = bench_now() - t0;
	}
	r->kern = c->kern;
	r->comm = c->comm;
	r->steps = o->steps;
	r->windows = o->windows;
}

/* Return the sum of the "n" seconds "v". */
static double
sum(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* Agree on the slowest process's seconds of every window and outside
 * share in "r" and "*share" (mpi: maxima over every process of "comm",
 * errors on "ctx"). */
static void
slowest(sym_communicator *comm, sym_ctx *ctx, struct totals *r, double *share)
{
	sym_comm_endpoint *ep = sym_comm_attach(comm, sym_comm_rank(comm), ctx);
	double mine[MAX_WINDOWS + 1], top[MAX_WINDOWS + 1];

	memcpy(mine, r->seconds, sizeof(r->seconds));
	mine[MAX_WINDOWS] = *share;
	if (!ep ||
	    sym_comm_all_reduce(ep, NULL, 0, mine, top, MAX_WINDOWS + 1,
	        SYM_DT_F64, SYM_REDUCE_MAX) < 0)
		die("all_reduce", ctx);
	sym_comm_detach(ep);
	memcpy(r->seconds, top, sizeof(r->seconds));
	*share = top[MAX_WINDOWS];
}

/* Print the lines of run "o" with the totals "r" on "ranks" ranks, the
 * share "share" of the steps outside kernels and communication. */
static void
report(const struct opts *o, struct totals *r, int ranks, double share)
{
	double all = sum(r->seconds, r->windows), steps, rate[MAX_WINDOWS];
	int64_t n_loss = o->steps / 10 ? o->steps / 10 : 1, samples = 0;
	struct bench_spread sp;
	const char *graph = strrchr(o->graph, '/');
	/* Open MPI's setting of how waiting ranks wait (mpirun --mca) */
	const char *yield = getenv("OMPI_MCA_mpi_yield_when_idle");

	printf("{\"bench\": \"trainer\", \"backend\": \"%s\", \"ranks\": %d, "
	       "\"graph\": \"%s\", \"b\": %lld, \"blas_threads\": 1, "
	       "\"warmup_steps\": %lld, \"steps\": %lld, \"windows\": %d, "
	       "\"samples_per_s_windows\": [",
	    o->mpi ? "mpi" : "threads", ranks, graph ? graph + 1 : o->graph,
	    (long long)o->batch, (long long)o->warmup, (long long)o->steps,
	    r->windows);
	for (int w = 0; w < r->windows; w++) {
		rate[w] = (double)r->samples[w] / r->seconds[w];
		samples += r->samples[w];
		printf("%s%.0f", w ? ", " : "", rate[w]);
	}
	sp = bench_spread_of(rate, (size_t)r->windows);
	printf("], \"samples\": %lld, \"seconds\": %.3f, "
	       "\"samples_per_s\": %.0f, \"loss_last_tenth\": %.4f",
	    (long long)samples, all, sp.median, r->loss_sum / (double)n_loss);
	if (o->mpi)
		printf(", \"ompi_yield_when_idle\": %s%s%s", yield ? "\"" : "",
		    yield ? yield : "null", yield ? "\"" : "");
	printf("}\n");
	steps = (double)(r->steps * r->windows);
	printf("{\"bench\": \"trainer_overhead\", \"backend\": \"%s\", "
	       "\"ranks\": %d, \"b\": %lld, \"ms_step\": %.3f, "
	       "\"ms_kernels\": %.3f, \"ms_comm\": %.3f, \"ms_outside\": "
	       "%.3f, \"outside_share\": %.4f, \"counted_outside\": "
	       "\"first plan step (%s), data, binding, agreement of the "
	       "ranks, executor loop\", "
	       "\"goal\": 0.05, \"goal_met\": %s}\n",
	    o->mpi ? "mpi" : "threads", ranks, (long long)o->batch,
	    1e3 * all / steps, 1e3 * r->kern / steps, 1e3 * r->comm / steps,
	    1e3 * all * share / steps, share, r->first,
	    share <= 0.05 ? "true" : "false");
	fflush(stdout);
}

/* Make the trainer of "plan" on "comm" over "data" for "o" in "ctx". */
static sym_trainer *
make_trainer(const sym_plan *plan, sym_communicator *comm, sym_dataset *data,
    const struct opts *o, sym_ctx *ctx)
{
	sym_train_options to = SYM_TRAIN_OPTIONS_INIT;
	sym_trainer *t;

	to.seed = o->seed;
	to.batch = &o->batch;
	to.n_batch = 1;
	t = sym_trainer_new(plan, comm, data, NULL, &to, ctx);
	if (!t)
		die("trainer", ctx);
	return t;
}

/* Benchmark the trainer as the command line "argv" of "argc" words
 * says; return the exit status. */
int
main(int argc, char **argv)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm = NULL;
	sym_graph *g;
	sym_plan *plan;
	sym_dataset *data;
	sym_trainer *t;
	struct opts o;
	struct clock c = { 0 };
	struct totals r = { 0 };
	const sym_node *first;
	double share;
	char spec[4200];
	int speak;

	if (!ctx)
		die("out of memory", NULL);
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--backend") &&
		    !strcmp(argv[i + 1], "mpi"))
			comm = sym_comm_mpi_new(ctx, &argc, &argv);
	parse(argc, argv, &o);
	if (o.mpi && !comm)
		die("--backend mpi: no MPI communicator", ctx);
	if (!comm && !(comm = sym_comm_threads_new(ctx, 1)))
		die("threads", ctx);
	speak = !o.mpi || sym_comm_rank(comm) == 0;
	if (speak)
		bench_header("bench_trainer");
	g = sym_graph_parse_file(ctx, o.graph);
	if (!g || sym_graph_n_errors(g) ||
	    (o.mpi && sym_graph_n_devices(g) != sym_comm_n_ranks(comm)) ||
	    sym_graph_shard(g, NULL))
		die("the graph does not shard on these ranks", ctx);
	plan = sym_plan_compile(g, o.mpi ? 0 : SYM_PLAN_SINGLE);
	snprintf(spec, sizeof(spec), "mnist:%s", o.dataset);
	data = plan ? sym_dataset_open(ctx, spec, SYM_SPLIT_TRAIN) : NULL;
	if (!data)
		die("cannot open the data", ctx);
	if (o.steps == 0)
		o.steps = (sym_dataset_n_rows(data) + o.batch - 1) / o.batch;
	t = make_trainer(plan, comm, data, &o, ctx);
	c.x = t->rank[0].x;
	if (!c.x)
		die("the trainer has no executor", NULL);
	sym__exec_set_progress(t->rank[0].x, tick, &c);
	first = sym_plan_get_step(plan, 0)->node;
	snprintf(r.first, sizeof(r.first), "%s",
	    first ? sym_node_op_name(first) : "communication");
	train(t, ctx, &o, &c, &r);
	share = 1 - (r.kern + r.comm) / sum(r.seconds, r.windows);
	sym_trainer_free(t);
	if (o.mpi)
		slowest(comm, ctx, &r, &share);
	if (speak)
		report(&o, &r, sym_comm_n_ranks(comm), share);
	sym_dataset_free(data);
	sym_plan_free(plan);
	sym_graph_free(g);
	sym_comm_free(comm);
	sym_ctx_free(ctx);
	return 0;
}
