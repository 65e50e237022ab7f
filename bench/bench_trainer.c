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
 * Without --fusion-bytes the gradients are fused as the graph says
 * ("parallel fusion_bytes", none when it says nothing).
 * With --fusion-bytes N the graph is trained twice, unfused and with
 * its gradient all_reduces fused into buckets of about N bytes
 * (sym_graph_set_fusion_bytes, "parallel fusion_bytes=N"), window by
 * window in turn (unfused, fused, unfused, ...: a new trainer for each
 * window, warmed up, since one rank takes one endpoint at a time), so
 * that both see the same machine. It prints both runs' lines, each with
 * its collectives per step (the plan's communication steps, a bucket
 * counted once), and {"bench": "fusion", ...}: the ratio of fused over
 * unfused samples per second of each window pair, their median (goal:
 * fused not slower, >= 1.0), and whether the two runs' losses are the
 * same, as fusion promises (bitwise).
 *
 * Sequences: with --dataset text:FILE (or tokens:FILE) and
 * --tokens-per-batch T the trainer makes length-bucketed batches of
 * b * s <= T tokens (sym_trainer(3)), b and s bound per step, and the
 * unit counted is the real token (the pads excluded): the line says
 * "unit": "real_tokens" and its rates are real tokens per second.
 * --pad-to-max pads every record to the largest admissible s instead
 * (the static comparison: b * s <= T rows of that length).
 * --steps-out FILE writes each step run (warm-up and timed) as a JSON
 * line {"window": W (-1: warm-up), "b": .., "s": .., "tokens": ..}, so
 * that bench/gpt_torch.py trains the same batch shapes in the same
 * windows.
 *
 * Usage: bench_trainer [--dataset DIR|text:FILE|tokens:FILE] [--graph FILE]
 *                      [--batch B] [--tokens-per-batch T] [--max-len N]
 *                      [--steps K] [--warmup W] [--windows R] [--seed S]
 *                      [--backend threads|mpi] [--fusion-bytes N]
 *                      [--pad-to-max] [--steps-out FILE]
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
	int64_t fusion;        /* --fusion-bytes; 0: not compared */
	int64_t tokens;        /* --tokens-per-batch; 0: batches of rows */
	int64_t max_len;       /* --max-len; 0: the corpus's */
	const char *steps_out; /* --steps-out FILE; NULL: none */
	int pad_to_max;        /* --pad-to-max: every batch at s's max */
};

/* The file of --steps-out (NULL: none) and the window running (-1: the
 * warm-up). */
static FILE *steps_file;
static int steps_window = -1;

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
	*o = (struct opts){ DEFAULT_DATA, path, 64, 0, 10, 1, 0, 3, 0, 0, 0,
		NULL, 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--pad-to-max")) {
			o->pad_to_max = 1;
			continue;
		}
		if (!v)
			die("usage: bench_trainer [--dataset DIR] [--graph "
			    "FILE] [--batch B] [--steps K] [--warmup W] "
			    "[--windows R] [--seed S] [--backend threads|mpi] "
			    "[--fusion-bytes N] [--tokens-per-batch T] "
			    "[--max-len N] [--pad-to-max] [--steps-out FILE]",
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
		else if (!strcmp(a, "--fusion-bytes"))
			o->fusion = atoll(v);
		else if (!strcmp(a, "--tokens-per-batch"))
			o->tokens = atoll(v);
		else if (!strcmp(a, "--max-len"))
			o->max_len = atoll(v);
		else if (!strcmp(a, "--steps-out"))
			o->steps_out = v;
		else
			die("unknown option", NULL);
	}
	if (o->batch < 1 || o->warmup < 0 || o->steps < 0 || o->windows < 1 ||
	    o->windows > MAX_WINDOWS || o->fusion < 0 || o->tokens < 0 ||
	    o->max_len < 0)
		die("--batch, --steps, --warmup and --windows expect counts",
		    NULL);
}

/* The value of symbol "name" in "bindings" ("b=8,s=480"), 0 when it is
 * not there. */
static int64_t
bound(const char *bindings, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = bindings; p && *p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, name, n) && p[n] == '=')
			return atoll(p + n + 1);
	}
	return 0;
}

/* Run one step of "t" (another epoch when one ends); return its rows
 * (its real tokens for sequences), its loss in "*loss"; "ctx" holds the
 * errors. The step goes to --steps-out's file when there is one. */
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
	if (steps_file)
		fprintf(steps_file,
		    "{\"window\": %d, \"b\": %lld, \"s\": %lld, "
		    "\"tokens\": %lld}\n",
		    steps_window, (long long)bound(s.bindings, "b"),
		    (long long)bound(s.bindings, "s"), (long long)s.tokens);
	return s.padded_tokens ? s.tokens : s.rows;
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

/* Run window "w" of "o" on "t" into "r" ("ctx" holds the errors). */
static void
window(sym_trainer *t, sym_ctx *ctx, const struct opts *o, struct totals *r,
    int w)
{
	double loss, t0 = bench_now();

	steps_window = w;
	r->loss_sum = 0;
	for (int64_t i = 0; i < o->steps; i++) {
		r->samples[w] += step(t, ctx, &loss);
		if (i >= o->steps - o->steps / 10)
			r->loss_sum += loss;
	}
	r->seconds[w] = bench_now() - t0;
}

/* Train "t" for the warm-up and the timed windows of "o" into "r", with
 * the clock "c" on the rank this process watches; "ctx" holds the
 * errors. */
static void
train(sym_trainer *t, sym_ctx *ctx, const struct opts *o, struct clock *c,
    struct totals *r)
{
	double loss;

	steps_window = -1;
	for (int64_t i = 0; i < o->warmup; i++)
		step(t, ctx, &loss);
	c->kern = c->comm = 0;
	c->on = 1;
	for (int w = 0; w < o->windows; w++)
		window(t, ctx, o, r, w);
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
	sym_comm_endpoint *ep = sym_comm_attach(ctx, comm, sym_comm_rank(comm));
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

/* Return the collectives a step of "p" runs: its communication steps,
 * the members of a bucket of fused all_reduces counted once. */
static size_t
collectives(const sym_plan *p)
{
	const sym_sharding *sh = sym_plan_sharding(p);
	size_t n = 0;

	for (size_t i = 0; i < sym_plan_n_steps(p); i++)
		n += sym_plan_get_step(p, i)->kind == SYM_PLAN_COMM;
	for (size_t b = 0; sh && b < sym_sharding_n_buckets(sh); b++)
		n -= sym_sharding_bucket_size(sh, b) - 1;
	return n;
}

/* Print the lines of run "o" of the plan "p" (its gradients fused into
 * buckets of "fusion" bytes; 0: not fused) with the totals "r" on
 * "ranks" ranks, the share "share" of the steps outside kernels and
 * communication. */
static void
report(const struct opts *o, const sym_plan *p, int64_t fusion,
    struct totals *r, int ranks, double share)
{
	double all = sum(r->seconds, r->windows), steps, rate[MAX_WINDOWS];
	int64_t n_loss = o->steps / 10 ? o->steps / 10 : 1, samples = 0;
	struct bench_spread sp;
	const char *graph = strrchr(o->graph, '/');
	/* Open MPI's setting of how waiting ranks wait (mpirun --mca) */
	const char *yield = getenv("OMPI_MCA_mpi_yield_when_idle");

	const char *unit = o->tokens ? "tokens" : "samples";

	printf("{\"bench\": \"trainer\", \"backend\": \"%s\", \"ranks\": %d, "
	       "\"graph\": \"%s\", \"b\": %lld, \"blas_threads\": 1, ",
	    o->mpi ? "mpi" : "threads", ranks, graph ? graph + 1 : o->graph,
	    (long long)(o->tokens ? 0 : o->batch));
	if (o->tokens)
		printf("\"unit\": \"real_tokens\", \"tokens_per_batch\": "
		       "%lld, \"pad_to_max\": %s, ",
		    (long long)o->tokens, o->pad_to_max ? "true" : "false");
	printf("\"warmup_steps\": %lld, \"steps\": %lld, \"windows\": %d, "
	       "\"%s_per_s_windows\": [",
	    (long long)o->warmup, (long long)o->steps, r->windows, unit);
	for (int w = 0; w < r->windows; w++) {
		rate[w] = (double)r->samples[w] / r->seconds[w];
		samples += r->samples[w];
		printf("%s%.0f", w ? ", " : "", rate[w]);
	}
	sp = bench_spread_of(rate, (size_t)r->windows);
	printf("], \"%s\": %lld, \"seconds\": %.3f, "
	       "\"%s_per_s\": %.0f, \"loss_last_tenth\": %.4f, "
	       "\"fusion_bytes\": %lld, \"collectives_per_step\": %zu",
	    unit, (long long)samples, all, unit, sp.median,
	    r->loss_sum / (double)n_loss, (long long)fusion, collectives(p));
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
	    o->mpi ? "mpi" : "threads", ranks,
	    (long long)(o->tokens ? 0 : o->batch), 1e3 * all / steps,
	    1e3 * r->kern / steps, 1e3 * r->comm / steps,
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
	to.tokens_per_batch = o->tokens;
	to.pad_to_max = o->pad_to_max;
	t = sym_trainer_new(ctx, plan, comm, data, NULL, &to);
	if (!t)
		die("trainer", ctx);
	return t;
}

/* Compile "g" for "o" (sharded unless one rank runs it single) with its
 * gradients fused into buckets of "fusion" bytes (0: not fused; -1: as
 * the graph writes, "parallel fusion_bytes"), on "comm"; a plan keeps
 * its own sharding, so that "g" may be sharded again for another plan.
 * "ctx" holds the errors. */
static sym_plan *
load_plan(const struct opts *o, sym_communicator *comm, int64_t fusion,
    sym_graph *g, sym_ctx *ctx)
{
	sym_plan *p;

	if (sym_graph_n_errors(g) ||
	    (o->mpi && sym_graph_n_devices(g) != sym_comm_n_ranks(comm)) ||
	    (fusion >= 0 && sym_graph_set_fusion_bytes(g, fusion, NULL) < 0) ||
	    sym_graph_shard(g, NULL))
		die("the graph does not shard on these ranks", ctx);
	p = sym_plan_compile(g, o->mpi ? 0 : SYM_PLAN_SINGLE);
	if (!p)
		die("the plan", ctx);
	return p;
}

/* Train the plans "p[0]" (unfused) and "p[1]" (fused) of "o" window by
 * window in turn, each window on a new trainer over "data" and "comm"
 * warmed up first, into "r[0]" and "r[1]"; print the comparison on the
 * process that "speak"s. */
static void
compare_fusion(const struct opts *o, sym_plan *const *p, sym_communicator *comm,
    sym_dataset *data, struct totals *r, int speak, sym_ctx *ctx)
{
	double ratio[MAX_WINDOWS], sorted[MAX_WINDOWS], share[2];
	struct bench_spread sp;
	struct opts one = *o;
	int same;

	one.windows = 1;
	for (int w = 0; w < o->windows; w++)
		for (int v = 0; v < 2; v++) {
			sym_trainer *t = make_trainer(p[v], comm, data, o, ctx);
			struct clock c = { .x = t->rank[0].x };
			struct totals one_r = { 0 };
			double loss;

			sym__exec_set_progress(t->rank[0].x, tick, &c);
			for (int64_t i = 0; i < o->warmup; i++)
				step(t, ctx, &loss);
			c.kern = c.comm = 0;
			c.on = 1;
			window(t, ctx, &one, &one_r, 0);
			r[v].seconds[w] = one_r.seconds[0];
			r[v].samples[w] = one_r.samples[0];
			r[v].loss_sum = one_r.loss_sum;
			r[v].kern += c.kern;
			r[v].comm += c.comm;
			sym_trainer_free(t);
		}
	for (int v = 0; v < 2; v++) {
		r[v].steps = o->steps;
		r[v].windows = o->windows;
		snprintf(r[v].first, sizeof(r[v].first), "%s", "see the run");
		share[v] = 1 -
		    (r[v].kern + r[v].comm) / sum(r[v].seconds, r[v].windows);
		if (o->mpi)
			slowest(comm, ctx, &r[v], &share[v]);
	}
	if (!speak)
		return;
	report(o, p[0], 0, &r[0], sym_comm_n_ranks(comm), share[0]);
	report(o, p[1], o->fusion, &r[1], sym_comm_n_ranks(comm), share[1]);
	for (int w = 0; w < o->windows; w++)
		ratio[w] = ((double)r[1].samples[w] / r[1].seconds[w]) /
		    ((double)r[0].samples[w] / r[0].seconds[w]);
	memcpy(sorted, ratio, sizeof(ratio));
	sp = bench_spread_of(sorted, (size_t)o->windows);
	same = r[0].loss_sum == r[1].loss_sum;
	printf("{\"bench\": \"fusion\", \"backend\": \"%s\", "
	       "\"ranks\": %d, \"b\": %lld, \"fusion_bytes\": %lld, "
	       "\"collectives_per_step_unfused\": %zu, "
	       "\"collectives_per_step_fused\": %zu, "
	       "\"fused_over_unfused_windows\": [",
	    o->mpi ? "mpi" : "threads", sym_comm_n_ranks(comm),
	    (long long)o->batch, (long long)o->fusion, collectives(p[0]),
	    collectives(p[1]));
	for (int w = 0; w < o->windows; w++)
		printf("%s%.3f", w ? ", " : "", ratio[w]);
	printf("], \"fused_over_unfused\": %.3f, \"same_losses\": %s, "
	       "\"goal\": 1.0, \"goal_met\": %s}\n",
	    sp.median, same ? "true" : "false",
	    sp.median >= 1.0 ? "true" : "false");
	fflush(stdout);
}

/* Benchmark the trainer as the command line "argv" of "argc" words
 * says; return the exit status. */
int
main(int argc, char **argv)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm = NULL;
	sym_graph *g;
	sym_plan *plan[2] = { NULL, NULL };
	sym_dataset *data;
	sym_trainer *t;
	struct opts o;
	struct clock c = { 0 };
	struct totals r[2];
	const sym_node *first;
	double share;
	char spec[4200];
	int speak;

	memset(r, 0, sizeof(r));
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
	if (!g)
		die("the graph", ctx);
	plan[0] = load_plan(&o, comm, o.fusion ? 0 : -1, g, ctx);
	if (o.fusion)
		plan[1] = load_plan(&o, comm, o.fusion, g, ctx);
	if (strchr(o.dataset, ':'))
		snprintf(spec, sizeof(spec), "%s", o.dataset);
	else
		snprintf(spec, sizeof(spec), "mnist:%s", o.dataset);
	if (o.max_len)
		snprintf(spec + strlen(spec), sizeof(spec) - strlen(spec),
		    ",max_len=%lld", (long long)o.max_len);
	if (o.steps_out && speak && !(steps_file = fopen(o.steps_out, "w")))
		die("cannot write the --steps-out file", NULL);
	data = sym_dataset_open(ctx, spec, SYM_SPLIT_TRAIN);
	if (!data)
		die("cannot open the data", ctx);
	if (o.steps == 0 && o.tokens)
		die("--tokens-per-batch needs --steps", NULL);
	if (o.steps == 0)
		o.steps = (sym_dataset_n_rows(data) + o.batch - 1) / o.batch;
	if (o.fusion) {
		compare_fusion(&o, plan, comm, data, r, speak, ctx);
	} else {
		t = make_trainer(plan[0], comm, data, &o, ctx);
		c.x = t->rank[0].x;
		if (!c.x)
			die("the trainer has no executor", NULL);
		sym__exec_set_progress(t->rank[0].x, tick, &c);
		first = sym_plan_get_step(plan[0], 0)->node;
		snprintf(r[0].first, sizeof(r[0].first), "%s",
		    first ? sym_node_op_name(first) : "communication");
		train(t, ctx, &o, &c, &r[0]);
		share = 1 -
		    (r[0].kern + r[0].comm) / sum(r[0].seconds, r[0].windows);
		sym_trainer_free(t);
		if (o.mpi)
			slowest(comm, ctx, &r[0], &share);
		if (speak)
			report(&o, plan[0], sym_graph_fusion_bytes(g), &r[0],
			    sym_comm_n_ranks(comm), share);
	}
	if (steps_file && fclose(steps_file) != 0)
		die("cannot write the --steps-out file", NULL);
	sym_dataset_free(data);
	sym_plan_free(plan[0]);
	sym_plan_free(plan[1]);
	sym_graph_free(g);
	sym_comm_free(comm);
	sym_ctx_free(ctx);
	return 0;
}
