/* SPDX-License-Identifier: MIT */
/*
 * bench_conv: how fast the convolution kernels are, and what that gives
 * when training a convolutional network.
 *
 *  1. The kernels: conv2d, conv2d_input_grad and conv2d_weight_grad on
 *     the shapes of the LeNet-style network (bench/lenet_train.sg) at a
 *     batch of 64 and on one wider layer, each against the cblas_sgemm
 *     of the same operation count as its main product (M = output
 *     channels, N = batch x output pixels, K = input channels x kernel
 *     pixels), interleaved, OpenBLAS on one thread: GFLOP/s of each and
 *     their ratio, medians of the pairs.
 *  2. Training: bench/lenet_train.sg on Fashion-MNIST on one rank, one
 *     thread (the trainer, as bench_trainer runs it: W warm-up steps,
 *     then R windows of K steps, the median window's samples per
 *     second), with the share of the steps spent in the conv kernels,
 *     in pooling (max, average, global average, their gradients) and in
 *     batch norm (its statistics, update and gradients), timed by
 *     sym_exec's progress callback; --graph examples/resnet.sg has all
 *     three. bench/torch_lenet.py
 *     trains the same network in PyTorch on one thread and compares.
 *
 * Prints {"bench": "conv_kernel", ...} lines and one {"bench":
 * "conv_trainer", ...} line.
 *
 * Usage: bench_conv [--dataset DIR] [--graph FILE] [--batch B]
 *                   [--steps K] [--warmup W] [--windows R] [--seed S]
 *                   [--kernels-only | --train-only]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include <symshard.h>

#include "exec/exec_private.h"
#include "shape/shape_private.h"
#include "sym/expr_private.h"
#include "train/trainer_private.h"
#include "util.h"

#define DEFAULT_DATA "/usr/share/datasets/fashion-mnist"
#define MAX_WINDOWS 16
#define MAX_PAIRS 1000

/* A convolution layer: x [n, c, h, w], weight [o, c, k, k], stride. */
struct layer {
	const char *name;
	int64_t n, c, h, w, o, k, stride, pad;
};

static const struct layer layers[] = {
	{ "lenet_conv1", 64, 1, 28, 28, 6, 5, 1, 0 },
	{ "lenet_conv2", 64, 6, 24, 24, 16, 5, 2, 0 },
	{ "wide_3x3", 32, 32, 28, 28, 64, 3, 1, 1 },
};

/* The options of a run. */
struct opts {
	const char *dataset, *graph;
	int64_t batch, steps, warmup;
	uint64_t seed;
	int windows, kernels_only, train_only;
};

/* The times of the trainer's rank, kept by its progress callback. */
struct clock {
	const sym_exec *x;
	double kern, conv, pool, norm, comm, last;
	int on;
};

/* Exit with "msg" (and the error of "ctx" when not NULL). */
static void
die(const char *msg, sym_ctx *ctx)
{
	fprintf(stderr, "bench_conv: %s%s%s\n", msg, ctx ? ": " : "",
	    ctx ? sym_ctx_last_message(ctx) : "");
	exit(2);
}

/* Return an allocated f32 tensor of rank 4 and dims "d", every element
 * set from a small congruence. */
static struct sym__tensor
tensor4(const int64_t *d)
{
	struct sym__tensor t;

	memset(&t, 0, sizeof(t));
	t.dtype = SYM_DT_F32;
	t.rank = 4;
	memcpy(t.dim, d, 4 * sizeof(*d));
	if (sym__tensor_alloc(&t) < 0)
		die("out of memory", NULL);
	for (int64_t i = 0; i < sym__tensor_numel(&t); i++)
		((float *)t.data)[i] = (float)(i * 7 % 13) / 13.0f - 0.5f;
	return t;
}

/* Return the attributes of a conv2d of "l" decoded for "x" and "w" in
 * "ctx" (a new structure). */
static struct sym__opattrs *
decode(sym_ctx *ctx, const struct layer *l, const struct sym__tensor *t)
{
	struct sym__opattrs *at = malloc(sizeof(*at));
	sym_attrs *attrs = sym_attrs_new(ctx);
	sym_shape *sh[2];
	sym_expr *s[2], *p[4];
	char *error = NULL;
	int r;

	if (!at || !attrs)
		die("out of memory", NULL);
	for (int i = 0; i < 2; i++)
		s[i] = sym_expr_const(ctx, l->stride);
	for (int i = 0; i < 4; i++)
		p[i] = sym_expr_const(ctx, l->pad);
	sym_attrs_set_list(attrs, "stride", 2, s);
	sym_attrs_set_list(attrs, "pad", 4, p);
	for (int i = 0; i < 2; i++) {
		sym_expr *e[4];

		for (int d = 0; d < 4; d++)
			e[d] = sym__const(ctx, t[i].dim[d]);
		sh[i] = sym__shape_new(ctx, SYM_DT_F32, 4, e);
		for (int d = 0; d < 4; d++)
			sym__expr_unref(e[d]);
	}
	r = sym__opattrs_decode(ctx, sym_op_find("conv2d"), attrs, 2, sh, 1, at,
	    &error);
	for (int i = 0; i < 2; i++)
		sym_expr_free(s[i]);
	for (int i = 0; i < 4; i++)
		sym_expr_free(p[i]);
	sym__shape_unref(sh[0]);
	sym__shape_unref(sh[1]);
	sym_attrs_free(attrs);
	if (r < 0)
		die(error ? error : "cannot decode", NULL);
	return at;
}

/* A kernel call and the product it is compared with. */
struct pair {
	struct sym__kernel_args a;
	int64_t m, n, k;
	float *pa, *pb, *pc;
};

/* Run the kernel of "arg" (a struct pair) once. */
static void
run_kernel(void *arg)
{
	struct pair *p = arg;

	if (sym__kernel(p->a.op)(&p->a) < 0)
		die(p->a.error ? p->a.error : "kernel failed", NULL);
}

/* Run the sgemm of "arg" (a struct pair) once. */
static void
run_gemm(void *arg)
{
	struct pair *p = arg;

	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p->m,
	    (int)p->n, (int)p->k, 1.0f, p->pa, (int)p->k, p->pb, (int)p->n,
	    0.0f, p->pc, (int)p->n);
}

/* Time operator "op" (conv2d or one of its gradients) on layer "l" in
 * "ctx" against the sgemm of its size; print its line. */
static void
kernel_line(sym_ctx *ctx, const struct layer *l, const char *op)
{
	int64_t ho = (l->h + 2 * l->pad - l->k) / l->stride + 1;
	int64_t wo = (l->w + 2 * l->pad - l->k) / l->stride + 1;
	int64_t dx[4] = { l->n, l->c, l->h, l->w };
	int64_t dw[4] = { l->o, l->c, l->k, l->k };
	int64_t dy[4] = { l->n, l->o, ho, wo };
	struct sym__tensor t[4] = { tensor4(dx), tensor4(dw), tensor4(dy) };
	struct sym__kscratch scratch = { 0 };
	struct sym__tensor in[3];
	struct pair p;
	static double va[MAX_PAIRS], vb[MAX_PAIRS];
	double ta, tb, flop;
	size_t pairs;

	memset(&p, 0, sizeof(p));
	p.a.op = sym_op_find(op);
	p.a.at = decode(ctx, l, t);
	p.a.scratch = &scratch;
	if (!strcmp(op, "conv2d")) {
		t[3] = tensor4(dy);
		in[0] = t[0];
		in[1] = t[1];
	} else if (!strcmp(op, "conv2d_input_grad")) {
		t[3] = tensor4(dx);
		in[0] = t[2];
		in[1] = t[1];
		in[2] = t[0];
	} else {
		t[3] = tensor4(dw);
		in[0] = t[2];
		in[1] = t[0];
		in[2] = t[1];
	}
	p.a.in = in;
	p.a.n_in = strcmp(op, "conv2d") ? 3 : 2;
	p.a.out = &t[3];
	p.a.n_out = 1;
	p.m = l->o;
	p.n = l->n * ho * wo;
	p.k = l->c * l->k * l->k;
	p.pa = calloc((size_t)(p.m * p.k), sizeof(float));
	p.pb = calloc((size_t)(p.k * p.n), sizeof(float));
	p.pc = calloc((size_t)(p.m * p.n), sizeof(float));
	if (!p.pa || !p.pb || !p.pc)
		die("out of memory", NULL);
	pairs = bench_pairs(run_kernel, &p, run_gemm, &p, 1.0, 5, MAX_PAIRS, va,
	    vb);
	ta = bench_spread_of(va, pairs).median;
	tb = bench_spread_of(vb, pairs).median;
	flop = 2.0 * (double)p.m * (double)p.n * (double)p.k;
	printf("{\"bench\": \"conv_kernel\", \"layer\": \"%s\", \"op\": "
	       "\"%s\", \"x\": [%lld, %lld, %lld, %lld], \"weight\": [%lld, "
	       "%lld, %lld, %lld], \"stride\": %lld, \"pad\": %lld, "
	       "\"pairs\": %zu, \"ms_kernel\": %.4f, \"ms_sgemm\": %.4f, "
	       "\"gflops_kernel\": %.2f, \"gflops_sgemm\": %.2f, "
	       "\"ratio\": %.3f}\n",
	    l->name, op, (long long)l->n, (long long)l->c, (long long)l->h,
	    (long long)l->w, (long long)l->o, (long long)l->c, (long long)l->k,
	    (long long)l->k, (long long)l->stride, (long long)l->pad, pairs,
	    1e3 * ta, 1e3 * tb, flop / ta * 1e-9, flop / tb * 1e-9, tb / ta);
	fflush(stdout);
	free(p.pa);
	free(p.pb);
	free(p.pc);
	sym__kscratch_free(&scratch);
	sym__opattrs_clear((struct sym__opattrs *)p.a.at);
	free((void *)p.a.at);
	for (int i = 0; i < 4; i++)
		sym__tensor_free(&t[i]);
}

/* The progress callback of the clock "arg": add the time since the last
 * plan step to the kernels (and the conv kernels) or the communication
 * by the kind of step "i" ("n" steps); step 0 only sets the mark. */
static void
tick(void *arg, size_t i, size_t n)
{
	struct clock *c = arg;
	double now = bench_now(), dt = now - c->last;
	const sym_plan_step *ps = c->x->step[i].ps;

	(void)n;
	if (c->on && i > 0) {
		if (ps->kind == SYM_PLAN_KERNEL) {
			c->kern += dt;
			const char *op = sym_node_op_name(ps->node);
			if (!strncmp(op, "conv2d", 6))
				c->conv += dt;
			else if (strstr(op, "pool"))
				c->pool += dt;
			else if (!strncmp(op, "batch_norm", 10))
				c->norm += dt;
		} else {
			c->comm += dt;
		}
	}
	c->last = now;
}

/* Read the command line "argv" of "argc" words into "o". */
static void
parse(int argc, char **argv, struct opts *o)
{
	const char *top = getenv("top_srcdir");
	static char path[4096];

	snprintf(path, sizeof(path), "%s%sbench/lenet_train.sg", top ? top : "",
	    top ? "/" : "");
	*o = (struct opts){ DEFAULT_DATA, path, 64, 0, 10, 1, 3, 0, 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--kernels-only")) {
			o->kernels_only = 1;
			continue;
		}
		if (!strcmp(a, "--train-only")) {
			o->train_only = 1;
			continue;
		}
		if (!v)
			die("usage: bench_conv [--dataset DIR] [--graph FILE] "
			    "[--batch B] [--steps K] [--warmup W] [--windows "
			    "R] [--seed S] [--kernels-only | --train-only]",
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
		else
			die("unknown option", NULL);
	}
	if (o->batch < 1 || o->warmup < 0 || o->steps < 0 || o->windows < 1 ||
	    o->windows > MAX_WINDOWS)
		die("--batch, --steps, --warmup and --windows expect counts",
		    NULL);
}

/* Run one step of "t"; return its rows ("ctx" holds the errors). */
static int64_t
step(sym_trainer *t, sym_ctx *ctx)
{
	sym_train_step s;
	int rc;

	while ((rc = sym_trainer_step(t, &s)) == 0)
		;
	if (rc < 0)
		die("step", ctx);
	return s.rows;
}

/* Train the graph of "o" on Fashion-MNIST on one rank in "ctx" and print
 * its line. */
static void
train(const struct opts *o, sym_ctx *ctx)
{
	sym_train_options to = SYM_TRAIN_OPTIONS_INIT;
	struct opts run = *o;
	sym_communicator *comm = sym_comm_threads_new(ctx, 1);
	sym_graph *g = sym_graph_parse_file(ctx, o->graph);
	sym_plan *plan;
	sym_dataset *data;
	sym_trainer *t;
	struct clock c = { 0 };
	double sec[MAX_WINDOWS], rate[MAX_WINDOWS], all = 0;
	int64_t samples[MAX_WINDOWS] = { 0 };
	struct bench_spread sp;
	char spec[4200];

	if (!comm || !g || sym_graph_n_errors(g) || sym_graph_shard(g, NULL))
		die("the graph does not shard", ctx);
	plan = sym_plan_compile(g, SYM_PLAN_SINGLE);
	snprintf(spec, sizeof(spec), "mnist:%s", o->dataset);
	data = plan ? sym_dataset_open(ctx, spec, SYM_SPLIT_TRAIN) : NULL;
	if (!data)
		die("cannot open the data", ctx);
	if (run.steps == 0)
		run.steps =
		    (sym_dataset_n_rows(data) + run.batch - 1) / run.batch;
	to.seed = run.seed;
	to.batch = &run.batch;
	to.n_batch = 1;
	t = sym_trainer_new(ctx, plan, comm, data, NULL, &to);
	if (!t || !(c.x = t->rank[0].x))
		die("trainer", ctx);
	sym__exec_set_progress(t->rank[0].x, tick, &c);
	for (int64_t i = 0; i < run.warmup; i++)
		step(t, ctx);
	c.on = 1;
	for (int w = 0; w < run.windows; w++) {
		double t0 = bench_now();

		for (int64_t i = 0; i < run.steps; i++)
			samples[w] += step(t, ctx);
		sec[w] = bench_now() - t0;
		rate[w] = (double)samples[w] / sec[w];
		all += sec[w];
	}
	sp = bench_spread_of(rate, (size_t)run.windows);
	const char *base = strrchr(o->graph, '/');
	printf("{\"bench\": \"conv_trainer\", \"graph\": \"%s\", "
	       "\"ranks\": 1, \"b\": %lld, \"blas_threads\": 1, "
	       "\"warmup_steps\": %lld, \"steps\": %lld, \"windows\": %d, "
	       "\"samples_per_s_windows\": [",
	    base ? base + 1 : o->graph, (long long)run.batch,
	    (long long)run.warmup, (long long)run.steps, run.windows);
	for (int w = 0; w < run.windows; w++)
		printf("%s%.0f", w ? ", " : "", rate[w]);
	printf("], \"samples_per_s\": %.0f, \"ms_step\": %.3f, "
	       "\"conv_share\": %.3f, \"pool_share\": %.3f, "
	       "\"batch_norm_share\": %.3f, \"kernel_share\": %.3f}\n",
	    sp.median, 1e3 * all / (double)(run.steps * run.windows),
	    c.conv / all, c.pool / all, c.norm / all, c.kern / all);
	fflush(stdout);
	sym_trainer_free(t);
	sym_dataset_free(data);
	sym_plan_free(plan);
	sym_graph_free(g);
	sym_comm_free(comm);
}

/* Benchmark the convolution kernels and the training of a LeNet as the
 * command line "argv" of "argc" words says; return the exit status. */
int
main(int argc, char **argv)
{
	sym_ctx *ctx = sym_ctx_new();
	struct opts o;

	if (!ctx)
		die("out of memory", NULL);
	parse(argc, argv, &o);
	bench_header("bench_conv");
	openblas_set_num_threads(1);
	for (size_t i = 0;
	     !o.train_only && i < sizeof(layers) / sizeof(layers[0]); i++) {
		kernel_line(ctx, &layers[i], "conv2d");
		kernel_line(ctx, &layers[i], "conv2d_input_grad");
		kernel_line(ctx, &layers[i], "conv2d_weight_grad");
	}
	if (!o.kernels_only)
		train(&o, ctx);
	sym_ctx_free(ctx);
	return 0;
}
