/* SPDX-License-Identifier: MIT */
/*
 * Test that training on the MPI backend gives bitwise the numbers of the
 * threads backend, run by tests/train_mpi_check.sh under mpirun (4
 * processes, within a time limit): a classifier whose gradients and loss
 * are summed over the 4 ranks trains a few steps with momentum and with
 * Adam, one rank per process; process 0 then trains the same plans on 4
 * threads, and every loss and every param must have the same bits on
 * both backends. Each process prints its failures; the exit status is 0
 * when every check of this process passed.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#define N_STEPS 12
#define N_RANKS 4

/* A classifier on 4 devices: the batch split in 4, so that w1's and w2's
 * gradients and the loss are sums over every rank; the three "%s" are
 * the batch symbol (symbols belong to the context: one a graph), the last
 * the optimizer. */
static const char graph_fmt[] =
    "devices 4\n"
    "symbol %s divisor=4\n"
    "input  x  : f32[%s, 24]\n"
    "input  y  : i32[%s]\n"
    "param  w1 : f32[24, 32]  init=he_uniform\n"
    "param  w2 : f32[32, 5]   init=xavier_uniform\n"
    "h      = matmul(x, w1)     shard ((4, 1), (1, 1))\n"
    "a      = relu(h)           shard ((4, 1),)\n"
    "logits = matmul(a, w2)     shard ((4, 1), (1, 1))\n"
    "loss   = softmax_cross_entropy(logits, y)\n"
    "output loss\n"
    "output logits\n"
    "minimize loss with %s\n";

/* The params and their sizes in bytes. */
static const char *const param_name[2] = { "w1", "w2" };
static const size_t param_bytes[2] = { 24 * 32 * 4, 32 * 5 * 4 };

/* This process's count of checks and of failures. */
struct run {
	int rank;
	int checks, failures;
};

/* What a training run gives: every loss and every param, whole. */
struct result {
	double loss[N_STEPS];
	unsigned char *param[2];
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
	fprintf(stderr, "train_mpi: rank %d: ", r->rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 0;
}

/* Train "p" on "comm" for N_STEPS steps of batches 16, 12 and 20 into
 * "res" (its params allocated here); return 0, or -1 with an error on
 * "ctx". */
static int
train(const sym_plan *p, sym_communicator *comm, sym_ctx *ctx,
    struct result *res)
{
	static const int64_t batch[3] = { 16, 12, 20 };
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_train_step st;
	sym_trainer *t;
	int rc = 0;

	o.seed = 7;
	o.batch = batch;
	o.n_batch = 3;
	t = sym_trainer_new(ctx, p, comm, NULL, NULL, &o);
	if (!t)
		return -1;
	for (int i = 0; i < N_STEPS && rc == 0; i++) {
		rc = sym_trainer_step(t, &st) == 1 ? 0 : -1;
		res->loss[i] = st.loss;
	}
	for (int k = 0; k < 2 && rc == 0; k++) {
		res->param[k] = malloc(param_bytes[k]);
		rc = res->param[k] ? sym_trainer_param(t, param_name[k],
		                         res->param[k], param_bytes[k])
		                   : -1;
	}
	sym_trainer_free(t);
	return rc;
}

/* Compare the run "mpi" with the run "thr" of the optimizer "opt" bit by
 * bit in "r". */
static void
compare(struct run *r, const char *opt, const struct result *mpi,
    const struct result *thr)
{
	for (int i = 0; i < N_STEPS; i++)
		check(r, !memcmp(&mpi->loss[i], &thr->loss[i], sizeof(double)),
		    "%s: step %d: loss %.17g on mpi, %.17g on threads", opt,
		    i + 1, mpi->loss[i], thr->loss[i]);
	for (int k = 0; k < 2; k++) {
		size_t n = param_bytes[k] / 4, diff = 0;

		for (size_t j = 0; j < n; j++)
			diff += memcmp(mpi->param[k] + 4 * j,
			            thr->param[k] + 4 * j, 4) != 0;
		check(r, diff == 0,
		    "%s: %zu of the %zu elements of %s differ between mpi "
		    "and threads",
		    opt, diff, n, param_name[k]);
	}
}

/* Free the params of "res". */
static void
result_free(struct result *res)
{
	free(res->param[0]);
	free(res->param[1]);
}

/* Train with the optimizer "opt" on "comm" (mpi) and, on process 0, on
 * threads, the batch symbol called "b"; compare in "r". */
static void
run_optimizer(struct run *r, sym_communicator *comm, sym_ctx *ctx,
    const char *b, const char *opt)
{
	struct result mpi = { { 0 }, { NULL, NULL } };
	struct result thr = { { 0 }, { NULL, NULL } };
	char text[2048];
	sym_graph *g;
	sym_plan *p = NULL;
	sym_communicator *threads;

	snprintf(text, sizeof(text), graph_fmt, b, b, b, opt);
	g = sym_graph_parse(ctx, text, "clf.sg");
	if (g && sym_graph_n_errors(g) == 0 && sym_graph_shard(g, NULL) == 0)
		p = sym_plan_compile(g, 0);
	if (!check(r, p != NULL, "%s: compiling: %s", opt,
	        sym_ctx_last_message(ctx)))
		goto out;
	if (!check(r, train(p, comm, ctx, &mpi) == 0, "%s: mpi: %s", opt,
	        sym_ctx_last_message(ctx)) ||
	    r->rank != 0)
		goto out;
	threads = sym_comm_threads_new(ctx, N_RANKS);
	check(r, threads && train(p, threads, ctx, &thr) == 0,
	    "%s: threads: %s", opt, sym_ctx_last_message(ctx));
	sym_comm_free(threads);
	if (thr.param[1])
		compare(r, opt, &mpi, &thr);
	printf("train_mpi: %s: step %d: loss %.9g on mpi\n", opt, N_STEPS,
	    mpi.loss[N_STEPS - 1]);
out:
	result_free(&mpi);
	result_free(&thr);
	sym_plan_free(p);
	sym_graph_free(g);
}

/* Run the test on this process; return 0 when its checks pass. */
int
main(int argc, char **argv)
{
	struct run r = { 0, 0, 0 };
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm;

	if (!ctx)
		return 1;
	comm = sym_comm_mpi_new(ctx, &argc, &argv);
	if (!comm) {
		fprintf(stderr, "train_mpi: %s\n", sym_ctx_last_message(ctx));
		sym_ctx_free(ctx);
		return 1;
	}
	r.rank = sym_comm_rank(comm);
	check(&r, sym_comm_n_ranks(comm) == N_RANKS,
	    "%d processes, expected %d", sym_comm_n_ranks(comm), N_RANKS);
	if (sym_comm_n_ranks(comm) == N_RANKS) {
		run_optimizer(&r, comm, ctx, "b",
		    "momentum(lr=0.05, momentum=0.9)");
		run_optimizer(&r, comm, ctx, "c", "adam(lr=0.01)");
	}
	printf("train_mpi: rank %d: %d checks, %d failures\n", r.rank, r.checks,
	    r.failures);
	sym_comm_free(comm);
	sym_ctx_free(ctx);
	return r.failures != 0;
}
