/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the trainer (sym_trainer(3)) on data in memory: the
 * rows each rank reads make up the global batch (that of one rank with
 * the same seed, shuffled or not); sharded training on 8 ranks equals
 * training on one device step by step, with a batch size
 * that changes every step and an epoch's last, shorter batch bound on the
 * same plan or dropped with a notice naming the declaration; evaluation
 * gives the loss and accuracy computed by hand; checkpoints written on 8
 * ranks are read by 4 ranks with other strategies and by 1 rank, which
 * predict the same and train on the same; every bad input is refused
 * with a message naming it, and nothing changes.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>

#include <symshard.h>

#include "train/dataset_private.h"
#include "train/trainer_private.h"

#define N_FEAT 6
#define N_CLASS 3

/* A classifier on 8 devices whose input is split along both of its
 * dimensions; "%s" is the divisor of the batch, "%s" the dtype of w1. */
static const char clf8[] =
    "devices 8\n"
    "symbol b divisor=%s\n"
    "input  x  : f64[b, 6]\n"
    "input  y  : i32[b]\n"
    "param  w1 : %s[6, 16]  init=he_normal\n"
    "param  w2 : f64[16, 3]  init=xavier_uniform\n"
    "h      = matmul(x, w1)     shard ((2, 2), (2, 2))\n"
    "a      = relu(h)           shard ((4, 2),)\n"
    "logits = matmul(a, w2)     shard ((4, 2), (2, 1))\n"
    "loss   = softmax_cross_entropy(logits, y)\n"
    "output loss\n"
    "output logits\n"
    "minimize loss with momentum(lr=0.1, momentum=0.9)\n";

/* The same network on 4 devices with other strategies. */
static const char clf4[] =
    "devices 4\n"
    "symbol b divisor=4\n"
    "input  x  : f64[b, 6]\n"
    "input  y  : i32[b]\n"
    "param  w1 : f64[6, 16]  init=zeros\n"
    "param  w2 : f64[16, 3]  init=zeros\n"
    "h      = matmul(x, w1)     shard ((1, 1), (1, 4))\n"
    "a      = relu(h)           shard ((1, 4),)\n"
    "logits = matmul(a, w2)     shard ((1, 4), (4, 1))\n"
    "loss   = softmax_cross_entropy(logits, y)\n"
    "output loss\n"
    "output logits\n"
    "minimize loss with momentum(lr=0.1, momentum=0.9)\n";

/* Scores that are the input itself (w is zero): the accuracy and the
 * loss of an evaluation before training are those of x. */
static const char ident[] = "devices 4\n"
                            "symbol b divisor=4\n"
                            "input  x  : f64[b, 3]\n"
                            "input  y  : i32[b]\n"
                            "param  w  : f64[3, 3]  init=zeros\n"
                            "m      = matmul(x, w)\n"
                            "logits = add(x, m)\n"
                            "loss   = softmax_cross_entropy(logits, y)\n"
                            "output loss\n"
                            "output logits\n"
                            "minimize loss with sgd(lr=0.1)\n";

/* The same scores through a dropout, which an evaluation switches to the
 * identity. */
static const char ident_dropout[] =
    "devices 4\n"
    "symbol b divisor=4\n"
    "input  x  : f64[b, 3]\n"
    "input  y  : i32[b]\n"
    "param  w  : f64[3, 3]  init=zeros\n"
    "m      = matmul(x, w)\n"
    "s      = add(x, m)\n"
    "logits = dropout(s, p=0.5)\n"
    "loss   = softmax_cross_entropy(logits, y)\n"
    "output loss\n"
    "output logits\n"
    "minimize loss with sgd(lr=0.1)\n";

/* A compiled graph: its plans (sharded and single-device). */
struct compiled {
	sym_graph *g;
	sym_plan *p, *single;
};

/* The data: "n" rows of x [6] and labels in 0..2. */
struct data {
	double *x;
	int32_t *y;
	int64_t n;
};

/* Fill "d" with "n" rows of deterministic values. */
static void
make_data(struct data *d, int64_t n, int ncol)
{
	d->n = n;
	d->x = calloc((size_t)(n * ncol), sizeof(double));
	d->y = calloc((size_t)n, sizeof(int32_t));
	assert_non_null(d->x);
	assert_non_null(d->y);
	for (int64_t i = 0; i < n; i++) {
		for (int j = 0; j < ncol; j++)
			d->x[i * ncol + j] = sin((double)(i * 7 + j * 3 + 1));
		d->y[i] = (int32_t)((i * 5 + i / 3) % N_CLASS);
	}
}

/* Free "d". */
static void
free_data(struct data *d)
{
	free(d->x);
	free(d->y);
}

/* Return a dataset of "ctx" holding "d" ("ncol" features): columns
 * "feat" and "label". */
static sym_dataset *
dataset(sym_ctx *ctx, const struct data *d, int ncol)
{
	int64_t dim[1] = { ncol };
	sym_dataset_column col[2] = {
		{ "feat", SYM_DT_F64, 1, dim, d->x },
		{ "label", SYM_DT_I32, 0, NULL, d->y },
	};
	sym_dataset *ds = sym_dataset_from_memory(ctx, d->n, col, 2);

	assert_non_null(ds);
	return ds;
}

/* Parse, shard and compile "text" into "c". */
static void
compile(sym_ctx *ctx, const char *text, struct compiled *c)
{
	c->g = sym_graph_parse(ctx, text, "clf.sg");
	assert_non_null(c->g);
	assert_int_equal(sym_graph_n_errors(c->g), 0);
	assert_int_equal(sym_graph_shard(c->g, NULL), 0);
	c->p = sym_plan_compile(c->g, 0);
	c->single = sym_plan_compile(c->g, SYM_PLAN_SINGLE);
	assert_non_null(c->p);
	assert_non_null(c->single);
}

/* Compile the 8-device classifier with a batch divisor "div" and w1 of
 * dtype "w1" into "c". */
static void
compile_clf8(sym_ctx *ctx, const char *div, const char *w1, struct compiled *c)
{
	char text[2048];

	snprintf(text, sizeof(text), clf8, div, w1);
	compile(ctx, text, c);
}

/* Free "c". */
static void
release(struct compiled *c)
{
	sym_plan_free(c->p);
	sym_plan_free(c->single);
	sym_graph_free(c->g);
}

/* Return a trainer of plan "p" on "n" threads over "train" and "test"
 * with the batch sizes "batch" ("nb") and "o"'s other options. */
static sym_trainer *
trainer(sym_ctx *ctx, const sym_plan *p, int n, sym_dataset *train,
    sym_dataset *test, const int64_t *batch, size_t nb, sym_train_options *o,
    sym_communicator **comm)
{
	sym_trainer *t;

	*comm = sym_comm_threads_new(ctx, n);
	assert_non_null(*comm);
	o->batch = batch;
	o->n_batch = nb;
	t = sym_trainer_new(ctx, p, *comm, train, test, o);
	if (!t)
		print_message("trainer: %s\n", sym_ctx_last_message(ctx));
	return t;
}

/* The rows of one step gathered whole on 8 ranks are rows of the data
 * (x and y of the same row), all different; in file order without
 * shuffling; the same rows for the same seed, others for another. */
static void
test_batches_are_global(void **state)
{
	static const int64_t batch[] = { 16 };
	sym_ctx *ctx = sym_ctx_new();
	struct compiled c;
	struct data d;
	double x[16 * N_FEAT], first[16 * N_FEAT];
	int32_t y[16];

	(void)state;
	make_data(&d, 40, N_FEAT);
	compile_clf8(ctx, "8", "f64", &c);
	for (int run = 0; run < 3; run++) {
		sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
		sym_dataset *ds = dataset(ctx, &d, N_FEAT);
		sym_communicator *comm;
		sym_trainer *t;
		sym_train_step s;
		int seen[40] = { 0 };

		o.seed = run == 2 ? 99 : 7;
		o.no_shuffle = run == 0;
		t = trainer(ctx, c.p, 8, ds, NULL, batch, 1, &o, &comm);
		assert_non_null(t);
		assert_int_equal(sym_trainer_step(t, &s), 1);
		assert_int_equal(s.rows, 16);
		assert_string_equal(s.bindings, "b=16");
		assert_int_equal(sym_trainer_param(t, "x", x, sizeof(x)), 0);
		assert_int_equal(sym_trainer_param(t, "y", y, sizeof(y)), 0);
		for (int i = 0; i < 16; i++) {
			int64_t r = 0;

			while (r < d.n &&
			    memcmp(&d.x[r * N_FEAT], &x[i * N_FEAT],
			        sizeof(double) * N_FEAT))
				r++;
			assert_true(r < d.n);
			assert_int_equal(y[i], d.y[r]);
			assert_int_equal(seen[r], 0);
			seen[r] = 1;
			if (run == 0)
				assert_int_equal(r, i);
		}
		if (run == 1)
			memcpy(first, x, sizeof(x));
		if (run == 2)
			assert_memory_not_equal(first, x, sizeof(x));
		sym_trainer_free(t);
		sym_comm_free(comm);
		sym_dataset_free(ds);
	}
	/* The same seed again gives run 1's rows. */
	{
		sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
		sym_dataset *ds = dataset(ctx, &d, N_FEAT);
		sym_communicator *comm;
		sym_trainer *t;
		sym_train_step s;

		o.seed = 7;
		t = trainer(ctx, c.p, 8, ds, NULL, batch, 1, &o, &comm);
		assert_non_null(t);
		assert_int_equal(sym_trainer_step(t, &s), 1);
		assert_int_equal(sym_trainer_param(t, "x", x, sizeof(x)), 0);
		assert_memory_equal(first, x, sizeof(x));
		sym_trainer_free(t);
		sym_comm_free(comm);
		sym_dataset_free(ds);
	}
	release(&c);
	free_data(&d);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* Two shuffled epochs of 48 rows in batches of 16, 8 and 24: at every
 * step the batch the 8 ranks hold (x split along both dimensions,
 * gathered whole from each rank's block) is the batch one rank with the
 * same seed holds, row for row; each epoch visits every row once, the
 * second in another order. */
static void
test_batches_match_one_rank(void **state)
{
	static const int64_t batch[] = { 16, 8, 24 };
	sym_ctx *ctx = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT,
	                  o1 = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm, *comm1;
	sym_trainer *t, *t1;
	struct compiled c;
	struct data d;
	sym_dataset *ds;
	double x[24 * N_FEAT], x1[24 * N_FEAT];
	int32_t y[24], y1[24];
	int64_t order[2][48];
	int seen[2][48] = { { 0 } }, steps = 0;

	(void)state;
	make_data(&d, 48, N_FEAT);
	ds = dataset(ctx, &d, N_FEAT);
	compile_clf8(ctx, "8", "f64", &c);
	o.seed = o1.seed = 11;
	t = trainer(ctx, c.p, 8, ds, NULL, batch, 3, &o, &comm);
	t1 = trainer(ctx, c.single, 1, ds, NULL, batch, 3, &o1, &comm1);
	assert_non_null(t);
	assert_non_null(t1);
	for (int epoch = 0; epoch < 2; epoch++) {
		int64_t pos = 0;
		sym_train_step s, s1;

		while (sym_trainer_step(t, &s) == 1) {
			size_t rows = (size_t)s.rows;

			assert_int_equal(sym_trainer_step(t1, &s1), 1);
			assert_int_equal(s.rows, batch[steps % 3]);
			assert_int_equal(s1.rows, s.rows);
			assert_int_equal(sym_trainer_param(t, "x", x,
			                     rows * N_FEAT * sizeof(double)),
			    0);
			assert_int_equal(sym_trainer_param(t1, "x", x1,
			                     rows * N_FEAT * sizeof(double)),
			    0);
			assert_int_equal(sym_trainer_param(t, "y", y,
			                     rows * sizeof(int32_t)),
			    0);
			assert_int_equal(sym_trainer_param(t1, "y", y1,
			                     rows * sizeof(int32_t)),
			    0);
			assert_memory_equal(x, x1,
			    rows * N_FEAT * sizeof(double));
			assert_memory_equal(y, y1, rows * sizeof(int32_t));
			for (size_t i = 0; i < rows; i++) {
				int64_t r = 0;

				while (r < d.n &&
				    memcmp(&d.x[r * N_FEAT], &x[i * N_FEAT],
				        sizeof(double) * N_FEAT))
					r++;
				assert_true(r < d.n);
				assert_int_equal(y[i], d.y[r]);
				assert_int_equal(seen[epoch][r], 0);
				seen[epoch][r] = 1;
				order[epoch][pos++] = r;
			}
			steps++;
		}
		assert_int_equal(sym_trainer_step(t1, &s1), 0);
		assert_int_equal(pos, 48);
		assert_null(sym_trainer_notice(t));
	}
	assert_int_equal(steps, 6);
	assert_memory_not_equal(order[0], order[1], sizeof(order[0]));
	sym_trainer_free(t);
	sym_trainer_free(t1);
	sym_comm_free(comm);
	sym_comm_free(comm1);
	sym_dataset_free(ds);
	release(&c);
	free_data(&d);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* Two epochs of 60 rows on 8 ranks with the batch sizes 16, 8, 24 in
 * turn: the epoch's last 12 rows do not bind (divisor=8) and are dropped
 * with a notice; every step equals one device (the trainer's check, and
 * a trainer on one rank alongside to 1e-9); the params too at the end. */
static void
test_sharded_equals_single(void **state)
{
	static const int64_t batch[] = { 16, 8, 24 };
	sym_ctx *ctx = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT,
	                  o1 = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm, *comm1;
	sym_trainer *t, *t1;
	sym_exec_report rep;
	struct compiled c;
	struct data d;
	sym_dataset *ds;
	int steps = 0, ends = 0;
	double first = 0, last = 0;

	(void)state;
	make_data(&d, 60, N_FEAT);
	ds = dataset(ctx, &d, N_FEAT);
	compile_clf8(ctx, "8", "f64", &c);
	o.seed = o1.seed = 3;
	o.single = c.single;
	o.rtol = 1e-9;
	o.check_every = 2;
	t = trainer(ctx, c.p, 8, ds, NULL, batch, 3, &o, &comm);
	t1 = trainer(ctx, c.single, 1, ds, NULL, batch, 3, &o1, &comm1);
	assert_non_null(t);
	assert_non_null(t1);
	while (ends < 2) {
		sym_train_step s, s1;
		int rc = sym_trainer_step(t, &s);

		assert_int_equal(sym_trainer_step(t1, &s1), rc);
		assert_true(rc >= 0);
		if (rc == 0) {
			ends++;
			assert_non_null(sym_trainer_notice(t));
			assert_non_null(strstr(sym_trainer_notice(t),
			    "the last batch of 12 samples dropped"));
			assert_non_null(strstr(sym_trainer_notice(t),
			    "divisor=8"));
			continue;
		}
		steps++;
		assert_null(s.mismatch);
		assert_int_equal(s.epoch, ends + 1);
		assert_int_equal(s.step, steps);
		assert_int_equal(s.rows, batch[(steps - 1) % 3]);
		assert_true(fabs(s.loss - s1.loss) <= 1e-9 * fabs(s1.loss));
		assert_int_equal(s.params_checked, steps % 2 == 0);
		if (steps == 1)
			first = s.loss;
		last = s.loss;
	}
	assert_int_equal(steps, 6);
	assert_true(isfinite(first) && isfinite(last));
	assert_int_equal(sym_trainer_compare_params(t, &rep), 0);
	assert_int_equal(rep.n_mismatch, 0);
	assert_null(sym_trainer_mismatch(t));
	sym_trainer_free(t);
	sym_trainer_free(t1);
	sym_comm_free(comm);
	sym_comm_free(comm1);
	sym_dataset_free(ds);
	release(&c);
	free_data(&d);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* Run one epoch of "n" rows in batches of 16 (divisor 8), with
 * "drop" (--drop-remainder); return the rows of its last step and the
 * number of steps in "*steps"; the notice in "notice". */
static int64_t
one_epoch(int64_t n, int drop, int *steps, char *notice, size_t size)
{
	static const int64_t batch[] = { 16 };
	sym_ctx *ctx = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm;
	struct compiled c;
	struct data d;
	sym_dataset *ds;
	sym_trainer *t;
	sym_train_step s;
	int64_t rows = 0;
	int rc;

	make_data(&d, n, N_FEAT);
	ds = dataset(ctx, &d, N_FEAT);
	compile_clf8(ctx, "8", "f64", &c);
	o.drop_remainder = drop;
	t = trainer(ctx, c.p, 8, ds, NULL, batch, 1, &o, &comm);
	assert_non_null(t);
	*steps = 0;
	while ((rc = sym_trainer_step(t, &s)) == 1) {
		(*steps)++;
		rows = s.rows;
		if (s.rows == 8)
			assert_string_equal(s.bindings, "b=8");
	}
	assert_int_equal(rc, 0);
	snprintf(notice, size, "%s",
	    sym_trainer_notice(t) ? sym_trainer_notice(t) : "");
	sym_trainer_free(t);
	sym_comm_free(comm);
	sym_dataset_free(ds);
	release(&c);
	free_data(&d);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
	return rows;
}

/* The last batch: 56 rows give 16, 16, 16 and 8, bound on the same plan;
 * --drop-remainder drops the 8; 60 rows drop the last 12 (12 is no
 * multiple of 8), the notice naming the declaration. */
static void
test_last_batch(void **state)
{
	char notice[512];
	int steps;

	(void)state;
	assert_int_equal(one_epoch(56, 0, &steps, notice, sizeof(notice)), 8);
	assert_int_equal(steps, 4);
	assert_string_equal(notice, "");
	assert_int_equal(one_epoch(56, 1, &steps, notice, sizeof(notice)), 16);
	assert_int_equal(steps, 3);
	assert_non_null(strstr(notice, "the last 8 samples dropped"));
	assert_non_null(strstr(notice, "--drop-remainder"));
	assert_int_equal(one_epoch(60, 0, &steps, notice, sizeof(notice)), 16);
	assert_int_equal(steps, 3);
	assert_non_null(strstr(notice, "12 samples dropped"));
	assert_non_null(strstr(notice, "divisor=8"));
	assert_non_null(strstr(notice, "clf.sg:2"));
}

/* Evaluate before training the graph "text" whose scores are its input
 * x (through an evaluation's identities) and check the accuracy and the
 * mean loss computed here. */
static void
evaluate_ident(const char *text)
{
	static const int64_t batch[] = { 8 };
	sym_ctx *ctx = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm;
	struct compiled c;
	struct data d;
	sym_dataset *ds;
	sym_trainer *t;
	sym_eval_result e;
	double loss = 0;
	int correct = 0;

	make_data(&d, 20, 3);
	for (int64_t i = 0; i < d.n; i++) {
		const double *x = &d.x[i * 3];
		double m = fmax(x[0], fmax(x[1], x[2]));
		int best = x[1] > x[0] ? 1 : 0;

		best = x[2] > x[best] ? 2 : best;
		correct += best == d.y[i];
		loss += m + log(exp(x[0] - m) + exp(x[1] - m) + exp(x[2] - m)) -
		    x[d.y[i]];
	}
	ds = dataset(ctx, &d, 3);
	compile(ctx, text, &c);
	t = trainer(ctx, c.p, 4, ds, ds, batch, 1, &o, &comm);
	assert_non_null(t);
	assert_int_equal(sym_trainer_evaluate(t, &e), 0);
	assert_int_equal(e.rows, 20);
	assert_int_equal(e.dropped, 0);
	assert_int_equal(e.correct, correct);
	assert_true(fabs(e.accuracy - correct / 20.0) < 1e-12);
	assert_true(fabs(e.loss - loss / 20) < 1e-12);
	sym_trainer_free(t);
	sym_comm_free(comm);
	sym_dataset_free(ds);
	release(&c);
	free_data(&d);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* The evaluation before training of scores equal to the input: the
 * accuracy and the mean loss computed here, over 20 rows in batches of
 * 8, 8 and 4 on 4 ranks; through a dropout too, the identity in an
 * evaluation. */
static void
test_evaluate(void **state)
{
	(void)state;
	evaluate_ident(ident);
	evaluate_ident(ident_dropout);
}

/* Return the path of a temporary file named "name" in "buf". */
static const char *
tmp_path(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("TMPDIR");

	snprintf(buf, size, "%s/symshard-test-trainer-%ld-%s",
	    dir && *dir ? dir : "/tmp", (long)getpid(), name);
	return buf;
}

/* Train plan "p" (on "n" ranks) from the checkpoint "path" for one step on
 * the first 8 rows and evaluate; the step's loss in "*loss", the
 * evaluation's in "*eval". */
static void
resume(sym_ctx *ctx, const sym_plan *p, int n, sym_dataset *ds,
    const char *path, double *loss, double *eval)
{
	static const int64_t batch[] = { 8 };
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm;
	sym_trainer *t;
	sym_train_step s;
	sym_eval_result e;

	o.no_shuffle = 1;
	t = trainer(ctx, p, n, ds, ds, batch, 1, &o, &comm);
	assert_non_null(t);
	assert_int_equal(sym_trainer_load(t, path), 0);
	assert_int_equal(sym_trainer_evaluate(t, &e), 0);
	*eval = e.loss;
	assert_int_equal(sym_trainer_step(t, &s), 1);
	*loss = s.loss;
	sym_trainer_free(t);
	sym_comm_free(comm);
}

/* A checkpoint saved after 3 steps on 8 ranks, read by 4 ranks with
 * other strategies and by one rank: the same evaluation and the same
 * next step (params and momentum restored) as the 8 ranks. */
static void
test_checkpoint_round_trip(void **state)
{
	static const int64_t batch[] = { 8 };
	sym_ctx *ctx = sym_ctx_new(), *ctx4 = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm;
	struct compiled c8, c4;
	struct data d;
	sym_dataset *ds, *ds4;
	sym_trainer *t;
	sym_train_step s;
	char path[512];
	double loss[3], eval[3];

	(void)state;
	tmp_path(path, sizeof(path), "ck.safetensors");
	make_data(&d, 32, N_FEAT);
	ds = dataset(ctx, &d, N_FEAT);
	ds4 = dataset(ctx4, &d, N_FEAT);
	compile_clf8(ctx, "8", "f64", &c8);
	compile(ctx4, clf4, &c4);
	o.no_shuffle = 1;
	o.seed = 5;
	t = trainer(ctx, c8.p, 8, ds, ds, batch, 1, &o, &comm);
	assert_non_null(t);
	for (int i = 0; i < 3; i++)
		assert_int_equal(sym_trainer_step(t, &s), 1);
	assert_int_equal(sym_trainer_save(t, path), 0);
	sym_trainer_free(t);
	sym_comm_free(comm);
	resume(ctx, c8.p, 8, ds, path, &loss[0], &eval[0]);
	resume(ctx4, c4.p, 4, ds4, path, &loss[1], &eval[1]);
	resume(ctx, c8.single, 1, ds, path, &loss[2], &eval[2]);
	for (int i = 1; i < 3; i++) {
		assert_true(fabs(eval[i] - eval[0]) <= 1e-12 * fabs(eval[0]));
		assert_true(fabs(loss[i] - loss[0]) <= 1e-12 * fabs(loss[0]));
	}
	unlink(path);
	sym_dataset_free(ds);
	sym_dataset_free(ds4);
	release(&c8);
	release(&c4);
	free_data(&d);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	assert_int_equal(sym_ctx_live_objects(ctx4), 0);
	sym_ctx_free(ctx);
	sym_ctx_free(ctx4);
}

/* Return the message of a trainer of "text" (on "n" threads) over "d"
 * with the map "map" and the batch size "b" that could not be made, in
 * "buf"; fail when it was made. */
static const char *
refused(const char *text, int n, const struct data *d, int ncol,
    const char *map, int64_t b, char *buf, size_t size)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm;
	struct compiled c;
	sym_dataset *ds = dataset(ctx, d, ncol);
	sym_trainer *t;

	compile(ctx, text, &c);
	o.map = map;
	t = trainer(ctx, c.p, n, ds, NULL, &b, 1, &o, &comm);
	assert_null(t);
	{
		sym_loc loc = sym_ctx_last_location(ctx);

		snprintf(buf, size, "%s:%d: %s", loc.file ? loc.file : "",
		    loc.line, sym_ctx_last_message(ctx));
	}
	sym_comm_free(comm);
	sym_dataset_free(ds);
	release(&c);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
	return buf;
}

/* Inputs that do not fit their columns, maps that name nothing, batch
 * sizes the batch symbol does not admit, a loss that is not an output:
 * refused, each with a message naming both sides. */
static void
test_bad_bindings(void **state)
{
	char text[2048], msg[1024];
	struct data d;

	(void)state;
	make_data(&d, 32, N_FEAT);
	snprintf(text, sizeof(text), clf8, "8", "f64");
	refused(text, 8, &d, N_FEAT, "x=nosuch,y=label", 16, msg, sizeof(msg));
	assert_non_null(strstr(msg, "has no column 'nosuch'"));
	refused(text, 8, &d, N_FEAT, "z=feat", 16, msg, sizeof(msg));
	assert_non_null(strstr(msg, "the graph has no input 'z'"));
	refused(text, 8, &d, N_FEAT, "x=feat", 16, msg, sizeof(msg));
	assert_non_null(strstr(msg, "input y takes no column"));
	refused(text, 8, &d, N_FEAT, "x=label,y=feat", 16, msg, sizeof(msg));
	assert_non_null(strstr(msg, "input x : f64[b, 6]"));
	assert_non_null(strstr(msg, "column 'label' of memory"));
	assert_non_null(strstr(msg,
	    "the column holds integers, which feed "
	    "an i32 or i64 input, not f64"));
	refused(text, 8, &d, N_FEAT, "x=feat,y=feat", 16, msg, sizeof(msg));
	assert_non_null(strstr(msg, "input y : i32[b]"));
	assert_non_null(strstr(msg, "the dtypes differ"));
	refused(text, 8, &d, N_FEAT, NULL, 12, msg, sizeof(msg));
	assert_non_null(strstr(msg,
	    "batch size 12: b = 12 violates divisor=8"));
	refused(text, 8, &d, 5, NULL, 16, msg, sizeof(msg));
	assert_non_null(strstr(msg, "the sizes of a row differ"));
	assert_non_null(strstr(msg, "clf.sg:3"));
	snprintf(text, sizeof(text), "%s", clf8);
	snprintf(text, sizeof(text),
	    "devices 2\nsymbol b divisor=2\ninput x : f64[b, 6]\n"
	    "input y : i32[b]\nparam w : f64[6, 3] init=zeros\n"
	    "l = matmul(x, w)\nloss = softmax_cross_entropy(l, y)\n"
	    "output l\nminimize loss with sgd(lr=0.1)\n");
	refused(text, 2, &d, N_FEAT, NULL, 16, msg, sizeof(msg));
	assert_non_null(strstr(msg, "the loss 'loss' is not an output"));
	free_data(&d);
}

/* Train the 8-device classifier with its labels y declared "ydt"
 * ("i32" or "i64") and fed from a column of "cdt" holding the labels of
 * make_data (label "big" in row 5 when not 0) for 4 steps of 16 rows
 * against one device; store the losses in "loss". Return 0, or -1 with
 * the message of the failed step in "msg". */
static int
int_feed(const char *ydt, sym_dtype cdt, int64_t big, double *loss, char *msg,
    size_t size)
{
	static const int64_t batch[] = { 16 };
	sym_ctx *ctx = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm;
	sym_trainer *t;
	struct compiled c;
	struct data d;
	char text[2048], *at;
	int64_t dim[1] = { N_FEAT }, y64[32];
	sym_dataset *ds;
	int rc = 0;

	make_data(&d, 32, N_FEAT);
	for (int i = 0; i < 32; i++)
		y64[i] = d.y[i];
	if (big)
		y64[5] = big;
	{
		sym_dataset_column col[2] = {
			{ "feat", SYM_DT_F64, 1, dim, d.x },
			{ "label", cdt, 0, NULL,
			    cdt == SYM_DT_I64 ? (void *)y64 : (void *)d.y },
		};

		ds = sym_dataset_from_memory(ctx, 32, col, 2);
	}
	assert_non_null(ds);
	snprintf(text, sizeof(text), clf8, "8", "f64");
	at = strstr(text, "i32[b]");
	assert_non_null(at);
	memcpy(at, ydt, 3);
	compile(ctx, text, &c);
	o.single = c.single;
	o.rtol = 1e-12;
	o.no_shuffle = 1;
	t = trainer(ctx, c.p, 8, ds, NULL, batch, 1, &o, &comm);
	assert_non_null(t);
	for (int i = 0; i < 4 && rc == 0; i++) {
		sym_train_step st;
		int r = sym_trainer_step(t, &st);

		if (r == 0)
			r = sym_trainer_step(t, &st);
		if (r < 0) {
			snprintf(msg, size, "%s", sym_ctx_last_message(ctx));
			rc = -1;
			break;
		}
		assert_null(st.mismatch);
		loss[i] = st.loss;
	}
	sym_trainer_free(t);
	sym_comm_free(comm);
	sym_dataset_free(ds);
	release(&c);
	free_data(&d);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
	return rc;
}

/* Integer inputs take integer columns in the dtype the graph declares:
 * labels y i64 fed from an i32 column (as an exported model's i64 ids
 * from a token corpus), i64 from i64 and i32 from i64 train to exactly
 * the losses of i32 from i32, on 8 ranks equal to one device; an i64
 * label beyond the 32 bits the executor stores integers in stops the
 * step naming the sample. */
static void
test_integer_feeds(void **state)
{
	double want[4], got[4];
	char msg[1024] = "";

	(void)state;
	assert_int_equal(int_feed("i32", SYM_DT_I32, 0, want, msg, sizeof(msg)),
	    0);
	assert_true(want[3] < want[0]);
	assert_int_equal(int_feed("i64", SYM_DT_I32, 0, got, msg, sizeof(msg)),
	    0);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(int_feed("i64", SYM_DT_I64, 0, got, msg, sizeof(msg)),
	    0);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(int_feed("i32", SYM_DT_I64, 0, got, msg, sizeof(msg)),
	    0);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(int_feed("i64", SYM_DT_I64, (int64_t)1 << 33, got, msg,
	                     sizeof(msg)),
	    -1);
	assert_non_null(strstr(msg, "step 1 (epoch 1): sample 5 of memory"));
	assert_non_null(strstr(msg, "8589934592"));
}

/* Write to "to" the checkpoint "from" with its tensor "name" in f32. */
static void
retype(const char *from, const char *to, const char *name)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_checkpoint *in = sym_checkpoint_read(ctx, from),
	               *out = sym_checkpoint_new(ctx);

	assert_non_null(in);
	assert_non_null(out);
	for (size_t i = 0; i < sym_checkpoint_n_tensors(in); i++) {
		int64_t dim[8];
		size_t nd = sym_checkpoint_tensor_ndim(in, i), bytes;
		const void *data = sym_checkpoint_tensor_data(in, i, &bytes);
		float f[6 * 16];
		int same = strcmp(sym_checkpoint_tensor_name(in, i), name);

		for (size_t k = 0; k < nd; k++)
			dim[k] = sym_checkpoint_tensor_dim(in, i, k);
		for (size_t k = 0; !same && k < bytes / sizeof(double); k++)
			f[k] = (float)((const double *)data)[k];
		assert_int_equal(sym_checkpoint_add(out,
		                     sym_checkpoint_tensor_name(in, i),
		                     same ? sym_checkpoint_tensor_dtype(in, i)
		                          : SYM_DT_F32,
		                     nd, dim, same ? data : (const void *)f),
		    0);
	}
	assert_int_equal(sym_checkpoint_write(out, to), 0);
	sym_checkpoint_free(in);
	sym_checkpoint_free(out);
	sym_ctx_free(ctx);
}

/* Train 2 steps of the 8-device classifier and save them to "path". */
static void
save_clf(const char *path)
{
	static const int64_t batch[] = { 8 };
	sym_ctx *ctx = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm;
	struct compiled c;
	struct data d;
	sym_dataset *ds;
	sym_trainer *t;
	sym_train_step s;

	make_data(&d, 32, N_FEAT);
	ds = dataset(ctx, &d, N_FEAT);
	compile_clf8(ctx, "8", "f64", &c);
	t = trainer(ctx, c.p, 8, ds, NULL, batch, 1, &o, &comm);
	assert_non_null(t);
	assert_int_equal(sym_trainer_step(t, &s), 1);
	assert_int_equal(sym_trainer_step(t, &s), 1);
	assert_int_equal(sym_trainer_save(t, path), 0);
	sym_trainer_free(t);
	sym_comm_free(comm);
	sym_dataset_free(ds);
	release(&c);
	free_data(&d);
	sym_ctx_free(ctx);
}

/* Checkpoints that do not fit the graph (a param of another dtype, of
 * another shape, missing; a truncated file) are refused with a message
 * naming the file and the tensor, and the params do not change. */
static void
test_bad_checkpoints(void **state)
{
	static const int64_t batch[] = { 8 };
	sym_ctx *ctx = sym_ctx_new();
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_communicator *comm;
	struct compiled c;
	struct data d;
	sym_dataset *ds;
	sym_trainer *t;
	char good[512], f32[512], cut[512], cmd[2048];
	double w1[6 * 16], after[6 * 16];
	FILE *f;
	long size;

	(void)state;
	tmp_path(good, sizeof(good), "good.safetensors");
	tmp_path(f32, sizeof(f32), "f32.safetensors");
	tmp_path(cut, sizeof(cut), "cut.safetensors");
	save_clf(good);
	retype(good, f32, "w1");
	f = fopen(good, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "head -c %ld '%s' > '%s'", size - 100, good,
	    cut);
	assert_int_equal(system(cmd), 0);
	make_data(&d, 32, N_FEAT);
	ds = dataset(ctx, &d, N_FEAT);
	compile(ctx, clf4, &c);
	t = trainer(ctx, c.p, 4, ds, NULL, batch, 1, &o, &comm);
	assert_non_null(t);
	assert_int_equal(sym_trainer_param(t, "w1", w1, sizeof(w1)), 0);
	assert_int_equal(sym_trainer_load(t, f32), -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "tensor 'w1' is f32"));
	assert_non_null(strstr(sym_ctx_last_message(ctx), f32));
	assert_int_equal(sym_trainer_load(t, cut), -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx), cut));
	assert_int_equal(sym_trainer_param(t, "w1", after, sizeof(after)), 0);
	assert_memory_equal(w1, after, sizeof(w1));
	assert_int_equal(sym_trainer_load(t, good), 0);
	assert_int_equal(sym_trainer_param(t, "w1", after, sizeof(after)), 0);
	assert_memory_not_equal(w1, after, sizeof(w1));
	sym_trainer_free(t);
	sym_comm_free(comm);
	release(&c);
	/* A graph with a param the file does not have, and one of another
	 * shape. */
	{
		sym_ctx *c2 = sym_ctx_new();
		struct compiled g2;
		sym_dataset *ds2 = dataset(c2, &d, N_FEAT);
		char text[2048];
		const char *from = "h      = matmul", *at = strstr(clf4, from);

		snprintf(text, sizeof(text),
		    "%.*sparam  w9 : f64[3] init=zeros\n%s", (int)(at - clf4),
		    clf4, at);
		compile(c2, text, &g2);
		t = trainer(c2, g2.p, 4, ds2, NULL, batch, 1, &o, &comm);
		assert_non_null(t);
		assert_int_equal(sym_trainer_load(t, good), -1);
		assert_non_null(strstr(sym_ctx_last_message(c2),
		    "no tensor 'w9'"));
		sym_trainer_free(t);
		sym_comm_free(comm);
		sym_dataset_free(ds2);
		release(&g2);
		sym_ctx_free(c2);
	}
	unlink(good);
	unlink(f32);
	unlink(cut);
	sym_dataset_free(ds);
	free_data(&d);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* The keyed permutation of large data: every position of [0, n) gives
 * a row of [0, n), all different; another key gives another order, and
 * the order is not the file's. */
static void
test_keyed_permutation(void **state)
{
	static const int64_t sizes[] = { 1, 2, 3, 5, 16, 17, 1000, 4097,
		65537 };
	unsigned char *seen = calloc(65537, 1);
	int64_t moved = 0, other = 0;

	(void)state;
	assert_non_null(seen);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int64_t n = sizes[k];

		memset(seen, 0, (size_t)n);
		for (int64_t i = 0; i < n; i++) {
			int64_t r = sym__trainer_keyed_perm(42, n, i);

			assert_true(r >= 0 && r < n);
			assert_int_equal(seen[r], 0);
			seen[r] = 1;
		}
	}
	for (int64_t i = 0; i < 1000; i++) {
		moved += sym__trainer_keyed_perm(42, 1000, i) != i;
		other += sym__trainer_keyed_perm(42, 1000, i) !=
		    sym__trainer_keyed_perm(43, 1000, i);
	}
	assert_true(moved > 900);
	assert_true(other > 900);
	free(seen);
}

/* Data of HUGE_ROWS rows that stores nothing: row r has the features
 * sin(r + j) and the label r mod 3; the rows whose labels were read are
 * recorded. */
#define HUGE_ROWS ((int64_t)1 << 31)

struct huge {
	pthread_mutex_t mu;
	int64_t rows[1024];
	size_t n;
};

/* Read elements of row "row" of column "c" of the huge data "d" (see
 * struct sym__dataset_ops), recording the rows of the labels. */
static void
huge_read(const sym_dataset *d, size_t c, int64_t row, int64_t start,
    int64_t count, void *dst)
{
	struct huge *h = d->state;

	if (c == 1) {
		*(int32_t *)dst = (int32_t)(row % N_CLASS);
		pthread_mutex_lock(&h->mu);
		if (h->n < 1024)
			h->rows[h->n++] = row;
		pthread_mutex_unlock(&h->mu);
		return;
	}
	for (int64_t i = 0; i < count; i++)
		((double *)dst)[i] = sin((double)(row + start + i));
}

/* Free nothing: the state of huge data is the test's. */
static void
huge_destroy(sym_dataset *d)
{
	(void)d;
}

static const struct sym__dataset_ops huge_ops = { huge_read, huge_destroy,
	NULL };

/* Return 1 when "row" is among the first "n" of "rows". */
static int
has_row(const int64_t *rows, size_t n, int64_t row)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i] == row)
			return 1;
	return 0;
}

/* 2^31 rows are shuffled without a stored order (it took 16 GB): an
 * epoch's batches are rows of the data, all different, not the first
 * rows, and the same for the same seed. */
static void
test_huge_data_shuffled(void **state)
{
	static const int64_t batch[] = { 16 };
	sym_ctx *ctx = sym_ctx_new();
	struct huge h = { PTHREAD_MUTEX_INITIALIZER, { 0 }, 0 };
	int64_t dim[1] = { N_FEAT }, distinct[64], first[64];
	size_t nd = 0, nf = 0;
	struct compiled c;

	(void)state;
	compile_clf8(ctx, "8", "f64", &c);
	for (int run = 0; run < 2; run++) {
		sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
		sym_communicator *comm;
		sym_dataset *d =
		    sym__dataset_new(ctx, "huge", &huge_ops, &h, 2);
		sym_trainer *t;
		sym_train_step st;

		assert_non_null(d);
		d->n_rows = HUGE_ROWS;
		assert_int_equal(sym__dataset_set_column(d, 0, "feat",
		                     SYM_DT_F64, 1, dim),
		    0);
		assert_int_equal(sym__dataset_set_column(d, 1, "label",
		                     SYM_DT_I32, 0, NULL),
		    0);
		o.seed = 5;
		t = trainer(ctx, c.p, 8, d, NULL, batch, 1, &o, &comm);
		assert_non_null(t);
		h.n = 0;
		for (int i = 0; i < 3; i++) {
			assert_int_equal(sym_trainer_step(t, &st), 1);
			assert_int_equal(st.rows, 16);
		}
		nd = 0;
		for (size_t i = 0; i < h.n; i++) {
			assert_true(h.rows[i] >= 0 && h.rows[i] < HUGE_ROWS);
			if (!has_row(distinct, nd, h.rows[i]))
				distinct[nd++] = h.rows[i];
		}
		assert_int_equal(nd, 48);
		if (run == 0) {
			memcpy(first, distinct, sizeof(distinct));
			nf = nd;
		}
		for (size_t i = 0; run == 1 && i < nd; i++)
			assert_true(has_row(first, nf, distinct[i]));
		sym_trainer_free(t);
		sym_comm_free(comm);
		sym_dataset_free(d);
	}
	for (size_t i = 0; i < nd; i++)
		assert_true(distinct[i] >= 48);
	release(&c);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* A batch size far beyond the data (2^40 on 64 rows) prepares the steps
 * for the 64 rows a batch delivers, not for the nominal size, which
 * cannot be allocated; the step trains on 64 rows. */
static void
test_batch_beyond_data(void **state)
{
	static const int64_t batch[] = { (int64_t)1 << 40 };
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm;
	struct compiled c;
	struct data d;
	sym_dataset *ds;
	sym_trainer *t;
	sym_train_step st;

	(void)state;
	make_data(&d, 64, N_FEAT);
	compile_clf8(ctx, "8", "f64", &c);
	ds = dataset(ctx, &d, N_FEAT);
	t = trainer(ctx, c.p, 8, ds, NULL, batch, 1, &o, &comm);
	assert_non_null(t);
	assert_int_equal(sym_trainer_step(t, &st), 1);
	assert_int_equal(st.rows, 64);
	assert_string_equal(st.bindings, "b=64");
	assert_int_equal(sym_trainer_step(t, &st), 0);
	sym_trainer_free(t);
	sym_comm_free(comm);
	sym_dataset_free(ds);
	free_data(&d);
	release(&c);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_are_global),
		cmocka_unit_test(test_batches_match_one_rank),
		cmocka_unit_test(test_sharded_equals_single),
		cmocka_unit_test(test_last_batch),
		cmocka_unit_test(test_evaluate),
		cmocka_unit_test(test_checkpoint_round_trip),
		cmocka_unit_test(test_bad_bindings),
		cmocka_unit_test(test_integer_feeds),
		cmocka_unit_test(test_bad_checkpoints),
		cmocka_unit_test(test_keyed_permutation),
		cmocka_unit_test(test_huge_data_shuffled),
		cmocka_unit_test(test_batch_beyond_data),
	};

	return cmocka_run_group_tests_name("trainer", tests, NULL, NULL);
}
