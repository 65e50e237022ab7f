/* SPDX-License-Identifier: MIT */
/*
 * bench_train: training steps of the tutorial network
 * (examples/ffn_train.sg: 784-512-512-10, relu, softmax cross-entropy,
 * momentum), forward, backward and update.
 *
 *  - "train_step": one step on one device at b = 64, 256 and 1024, its
 *    inputs written once (data loading is not timed), OpenBLAS on one
 *    thread: the median of interleaved-free repeated steps, with the 10th
 *    and 90th percentiles. bench/torch_train.py times the same step in
 *    PyTorch (one thread) in the same run and prints the ratio.
 *  - "train_overhead": one step on 8 ranks (threads) at b = 64: each rank
 *    times its kernels and its communication steps (sym_exec's progress
 *    callback, called after every step); what remains of the step --
 *    binding the sizes, sizing the buffers, the executor's own loop -- is
 *    the overhead, reported as a share of the step on the slowest rank.
 *    With fewer cores than ranks the ranks wait for one another, so the
 *    share of communication is inflated and the line says so.
 *  - "train_allocations": allocations in the steps after the first two of
 *    sizes seen before (the executor counts them): 0 is the goal.
 *
 * Usage: bench_train [--quick] [--graph FILE] [--steps N]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include <symshard.h>

#include "exec/exec_private.h"
#include "util.h"

/* Exit with "msg". */
static void
die(const char *msg)
{
	fprintf(stderr, "bench_train: %s\n", msg);
	exit(2);
}

/* The graph and its two plans. */
struct net {
	sym_ctx *ctx;
	sym_graph *g;
	sym_plan *p, *single;
};

/* Load "path" into "n": parse, shard (which differentiates), compile. */
static void
net_load(struct net *n, const char *path)
{
	n->ctx = sym_ctx_new();
	if (!n->ctx)
		die("no context");
	n->g = sym_graph_parse_file(n->ctx, path);
	if (!n->g || sym_graph_n_errors(n->g) || sym_graph_shard(n->g, NULL))
		die(sym_ctx_last_message(n->ctx));
	n->p = sym_plan_compile(n->g, 0);
	n->single = sym_plan_compile(n->g, SYM_PLAN_SINGLE);
	if (!n->p || !n->single)
		die(sym_ctx_last_message(n->ctx));
}

/* Release "n". */
static void
net_free(struct net *n)
{
	sym_plan_free(n->p);
	sym_plan_free(n->single);
	sym_graph_free(n->g);
	sym_ctx_free(n->ctx);
}

/* Bind "b" for "p" in "s" (in "ctx"); exit on failure. */
static void
bind_b(sym_ctx *ctx, const sym_plan *p, sym_slices *s, int64_t b)
{
	char text[32];
	sym_binding *bd = sym_binding_new(ctx);

	snprintf(text, sizeof(text), "b=%lld", (long long)b);
	if (!bd || sym_binding_parse(bd, text, NULL) < 0 ||
	    sym_plan_bind(p, bd, s) < 0)
		die("cannot bind b");
	sym_binding_free(bd);
}

/* Time "n" steps of the single-device plan of "net" at batch "b" and
 * print its line; each step binds the size, sizes the buffers and runs,
 * as a step of a dynamic-shape loop does. Return the median seconds per
 * step. */
static double
single_steps(struct net *net, int64_t b, int n)
{
	sym_slices *s = sym_slices_new(net->single);
	sym_exec *x = sym_exec_new(net->ctx, net->single, NULL);
	sym_binding *bd = sym_binding_new(net->ctx);
	double *t = calloc((size_t)n, sizeof(*t));
	struct bench_spread sp;
	char text[32];

	if (!s || !x || !t || !bd)
		die("out of memory");
	snprintf(text, sizeof(text), "b=%lld", (long long)b);
	if (sym_binding_parse(bd, text, NULL) < 0)
		die("cannot bind b");
	bind_b(net->ctx, net->single, s, b);
	if (sym_exec_prepare(x, s) < 0 || sym_exec_init_params(x, 1) < 0 ||
	    sym_exec_fill_inputs(x, 2) < 0)
		die(sym_ctx_last_message(net->ctx));
	for (int i = -2; i < n; i++) {
		double t0 = bench_now();

		if (sym_plan_bind(net->single, bd, s) < 0 ||
		    sym_exec_prepare(x, s) < 0 || sym_exec_run(x) < 0)
			die(sym_ctx_last_message(net->ctx));
		if (i >= 0)
			t[i] = bench_now() - t0;
	}
	sp = bench_spread_of(t, (size_t)n);
	printf("{\"bench\": \"train_step\", \"b\": %lld, \"steps\": %d, "
	       "\"ms_median\": %.3f, \"ms_p10\": %.3f, \"ms_p90\": %.3f, "
	       "\"samples_per_s\": %.0f}\n",
	    (long long)b, n, 1e3 * sp.median, 1e3 * sp.p10, 1e3 * sp.p90,
	    (double)b / sp.median);
	free(t);
	sym_binding_free(bd);
	sym_exec_free(x);
	sym_slices_free(s);
	return sp.median;
}

/* One rank of the sharded steps. */
struct rk {
	struct net *net;
	sym_communicator *comm;
	pthread_barrier_t *bar;
	sym_slices *s;
	int k, n;
	double step, kern, comm_t; /* seconds of the last step */
	double worst_share;        /* overhead share, largest over steps */
	size_t allocs[3];          /* after step 2, then the last */
	double last;               /* when the last executor step ended */
	sym_exec *x;
};

/* The progress callback: add the time since the last call to the
 * kernels or the communication of rank "arg", by the kind of step "i". */
static void
tick(void *arg, size_t i, size_t n)
{
	struct rk *r = arg;
	double now = bench_now();
	const sym_plan_step *ps = i < r->x->n_step ? r->x->step[i].ps : NULL;

	(void)n;
	if (ps && ps->kind == SYM_PLAN_KERNEL)
		r->kern += now - r->last;
	else
		r->comm_t += now - r->last;
	r->last = now;
}

/* The allocations of "x" so far: buffers, kernel and communication
 * scratch. */
static size_t
allocs(const sym_exec *x)
{
	return x->buffer_allocs + x->kscratch.grows + x->scratch.grows;
}

/* Run the steps of rank "arg" (a struct rk); return NULL. */
static void *
rank_main(void *arg)
{
	struct rk *r = arg;
	sym_ctx *ctx = sym_ctx_new();
	sym_comm_endpoint *ep =
	    ctx ? sym_comm_attach(ctx, r->comm, r->k) : NULL;

	r->x = ep ? sym_exec_new(ctx, r->net->p, ep) : NULL;
	if (!r->x)
		die("cannot make a rank's executor");
	sym__exec_set_progress(r->x, tick, r);
	for (int i = 0; i < r->n; i++) {
		double t0;

		pthread_barrier_wait(r->bar);
		t0 = bench_now();
		r->kern = r->comm_t = 0;
		if (sym_exec_prepare(r->x, r->s) < 0 ||
		    (i == 0 && sym_exec_init_params(r->x, 1) < 0) ||
		    (i == 0 && sym_exec_fill_inputs(r->x, 2) < 0))
			die(sym_ctx_last_message(ctx));
		r->last = bench_now();
		if (sym_exec_run(r->x) < 0)
			die(sym_ctx_last_message(ctx));
		r->step = bench_now() - t0;
		if (i >= 2) {
			double share =
			    (r->step - r->kern - r->comm_t) / r->step;

			if (share > r->worst_share)
				r->worst_share = share;
		}
		r->allocs[i >= 2 ? 1 : 0] = allocs(r->x);
		pthread_barrier_wait(r->bar);
	}
	sym_exec_free(r->x);
	sym_comm_detach(ep);
	sym_ctx_free(ctx);
	return NULL;
}

/* Run "n" steps of the sharded plan of "net" at batch "b" on 8 threads
 * and print the overhead and allocation lines. */
static void
sharded_steps(struct net *net, int64_t b, int n)
{
	enum {
		R = 8
	};
	struct rk r[R];
	pthread_t th[R];
	pthread_barrier_t bar;
	sym_communicator *comm = sym_comm_threads_new(net->ctx, R);
	sym_slices *s = sym_slices_new(net->p);
	double step = 0, kern = 0, comm_t = 0, share = 0;
	size_t extra = 0;
	int cores = bench_online_cores();

	if (!comm || !s || pthread_barrier_init(&bar, NULL, R) != 0)
		die("out of memory");
	bind_b(net->ctx, net->p, s, b);
	for (int k = 0; k < R; k++) {
		memset(&r[k], 0, sizeof(r[k]));
		r[k] = (struct rk){ .net = net,
			.comm = comm,
			.bar = &bar,
			.s = s,
			.k = k,
			.n = n };
		if (pthread_create(&th[k], NULL, rank_main, &r[k]) != 0)
			die("cannot start a rank");
	}
	for (int k = 0; k < R; k++)
		pthread_join(th[k], NULL);
	for (int k = 0; k < R; k++) {
		if (r[k].step > step) {
			step = r[k].step;
			kern = r[k].kern;
			comm_t = r[k].comm_t;
		}
		if (r[k].worst_share > share)
			share = r[k].worst_share;
		extra += r[k].allocs[1] - r[k].allocs[0];
	}
	printf("{\"bench\": \"train_overhead\", \"ranks\": %d, \"b\": %lld, "
	       "\"ms_step\": %.3f, \"ms_kernels\": %.3f, \"ms_comm\": %.3f, "
	       "\"overhead_share_max\": %.4f, \"goal\": 0.05, "
	       "\"goal_met\": %s, \"oversubscribed\": %s}\n",
	    R, (long long)b, 1e3 * step, 1e3 * kern, 1e3 * comm_t, share,
	    share <= 0.05 ? "true" : "false", cores < R ? "true" : "false");
	printf("{\"bench\": \"train_allocations\", \"ranks\": %d, \"b\": "
	       "%lld, \"steps_after_warmup\": %d, \"allocations\": %zu, "
	       "\"goal_met\": %s}\n",
	    R, (long long)b, n - 2, extra, extra == 0 ? "true" : "false");
	pthread_barrier_destroy(&bar);
	sym_slices_free(s);
	sym_comm_free(comm);
}

int
main(int argc, char **argv)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	const char *graph = NULL;
	int quick = 0, steps = 0;
	struct net net;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--graph") && i + 1 < argc)
			graph = argv[++i];
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = atoi(argv[++i]);
		else
			die("usage: bench_train [--quick] [--graph FILE] "
			    "[--steps N]");
	}
	snprintf(path, sizeof(path), "%s%sexamples/ffn_train.sg",
	    top ? top : "", top ? "/" : "");
	openblas_set_num_threads(1);
	bench_header("bench_train");
	memset(&net, 0, sizeof(net));
	net_load(&net, graph ? graph : path);
	if (steps <= 0)
		steps = quick ? 5 : 30;
	printf("# one training step of %s on one device, OpenBLAS on one "
	       "thread (data loading not timed)\n",
	    graph ? graph : "examples/ffn_train.sg");
	single_steps(&net, 64, steps);
	single_steps(&net, 256, steps);
	single_steps(&net, 1024, quick ? 3 : steps / 3 > 3 ? steps / 3 : 3);
	printf("# one training step on 8 ranks (threads) at b = 64: the time "
	       "outside kernels and communication\n");
	sharded_steps(&net, 64, steps + 2);
	net_free(&net);
	return 0;
}
