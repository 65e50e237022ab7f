/* SPDX-License-Identifier: MIT */
/*
 * dynamic_batch: the dynamic-shape story of training. The network of
 * examples/ffn_train.sg, compiled once for a batch Symbol(divisor=8),
 * trains on 8 ranks (threads) over 1000 samples with the batch sizes 64,
 * 256 and 32 in turn: every step binds its size on the same plan (the
 * bindings are printed), and the epoch's last batch, 232 samples, is
 * just one more binding. Then the same steps padded, as a system with
 * static shapes runs them: every batch padded to the largest size (256)
 * and run at that size; the example prints the time of both and what
 * padding costs. The path of ffn_train.sg is the first argument
 * (default: $top_srcdir/examples/ffn_train.sg, else
 * examples/ffn_train.sg). make check runs this as a test: exit status 1
 * on any surprise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#define N_ROWS 1000
#define PIXELS 784

/* Return a dataset of "ctx" of "n" images [1, 28, 28] and labels:
 * deterministic numbers in [0, 1), the label the brightest of ten bands
 * of the image. */
static sym_dataset *
make_data(sym_ctx *ctx, int64_t n)
{
	static const int64_t dim[3] = { 1, 28, 28 };
	float *x = malloc(sizeof(float) * (size_t)n * PIXELS);
	int32_t *y = malloc(sizeof(int32_t) * (size_t)n);
	sym_dataset *d = NULL;

	if (x && y) {
		uint64_t s = 42;

		for (int64_t i = 0; i < n; i++) {
			y[i] = (int32_t)(i % 10);
			for (int j = 0; j < PIXELS; j++) {
				s = s * 6364136223846793005ULL + 1;
				x[i * PIXELS + j] = (float)(s >> 40) /
				    16777216.0f *
				    (j / 79 == y[i] ? 1.0f : 0.5f);
			}
		}
		sym_dataset_column col[2] = {
			{ "image", SYM_DT_F32, 3, dim, x },
			{ "label", SYM_DT_I32, 0, NULL, y },
		};
		d = sym_dataset_from_memory(ctx, n, col, 2);
	}
	free(x);
	free(y);
	return d;
}

/* Train "p" on "comm" over "data" for two epochs with the batch sizes
 * "batch" ("nb") cycled, printing every step of the first when "print"
 * (it allocates the buffers of each size it sees; the second, whose
 * sizes come in another order, allocates none); store the seconds of
 * each epoch (the steps' own) in "sec", the steps and samples of the
 * first in "*steps" and "*samples". Return 0 or -1. */
static int
train(const sym_plan *p, sym_communicator *comm, sym_dataset *data,
    const int64_t *batch, size_t nb, int print, double sec[2], int *steps,
    int64_t *samples, sym_ctx *ctx)
{
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_trainer *t;
	sym_train_step s;
	int rc = 0;

	o.seed = 1;
	o.batch = batch;
	o.n_batch = nb;
	t = sym_trainer_new(ctx, p, comm, data, NULL, &o);
	if (!t)
		return -1;
	*steps = 0;
	*samples = 0;
	for (int e = 0; e < 2 && rc == 0; e++) {
		sec[e] = 0;
		while ((rc = sym_trainer_step(t, &s)) == 1) {
			sec[e] += s.seconds;
			if (e)
				continue;
			(*steps)++;
			*samples += s.rows;
			if (print)
				printf("step %d: %-6s loss %.4f  %6.2f ms\n",
				    *steps, s.bindings, s.loss,
				    1e3 * s.seconds);
		}
	}
	sym_trainer_free(t);
	return rc < 0 ? -1 : 0;
}

/* Run the story on "p" (8 ranks); return 0, 1 on a surprise, -1 on an
 * error. */
static int
story(const sym_plan *p, sym_ctx *ctx)
{
	static const int64_t schedule[] = { 64, 256, 32 }, padded[] = { 256 };
	sym_communicator *comm = sym_comm_threads_new(ctx, 8);
	sym_dataset *data = make_data(ctx, N_ROWS),
	            *pdata = make_data(ctx, 8 * 256);
	int steps = 0, psteps = 0, rc = -1;
	int64_t samples = 0, psamples = 0;
	double dyn[2], pad[2];

	if (!comm || !data || !pdata)
		goto done;
	printf("one plan, batch sizes 64, 256, 32 in turn over %d samples:\n",
	    N_ROWS);
	if (train(p, comm, data, schedule, 3, 1, dyn, &steps, &samples, ctx) <
	    0)
		goto done;
	/* Padded: the same 8 steps, each of 256 rows. */
	if (train(p, comm, pdata, padded, 1, 0, pad, &psteps, &psamples, ctx) <
	    0)
		goto done;
	printf("dynamic: %d steps, %lld samples computed, epoch 1 %.1f ms, "
	       "epoch 2 %.1f ms\n",
	    steps, (long long)samples, 1e3 * dyn[0], 1e3 * dyn[1]);
	printf("padded to 256: %d steps, %lld samples computed (%.2fx), "
	       "epoch 1 %.1f ms, epoch 2 %.1f ms (%.2fx)\n",
	    psteps, (long long)psamples, (double)psamples / (double)samples,
	    1e3 * pad[0], 1e3 * pad[1], pad[1] / dyn[1]);
	/* 64 + 256 + 32 twice is 704, then 64 and the last 232. */
	rc = steps != 8 || samples != N_ROWS || psteps != steps;
done:
	if (rc < 0)
		printf("%s\n", sym_ctx_last_message(ctx));
	sym_dataset_free(data);
	sym_dataset_free(pdata);
	sym_comm_free(comm);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g = NULL;
	sym_plan *p = NULL;
	int bad = 1;

	snprintf(path, sizeof(path), "%s%sexamples/ffn_train.sg",
	    top ? top : "", top ? "/" : "");
	if (ctx)
		g = sym_graph_parse_file(ctx, argc > 1 ? argv[1] : path);
	if (g && sym_graph_n_errors(g) == 0 && sym_graph_shard(g, NULL) == 0)
		p = sym_plan_compile(g, 0);
	if (p)
		bad = story(p, ctx) != 0;
	else
		printf("%s\n", ctx ? sym_ctx_last_message(ctx) : "no context");
	sym_plan_free(p);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	return bad;
}
