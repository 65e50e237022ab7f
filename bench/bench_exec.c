/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the executor (sym_exec(3)) on one rank. Prints one JSON
 * line per measurement, after the machine line:
 *
 *  - "exec_matmul": a plan of one matmul [m, k] x [k, n] run by
 *    sym_exec_run against a direct cblas_sgemm of the same sizes on the
 *    same buffers, timed in interleaved pairs with OpenBLAS's threads
 *    pinned ("blas_threads"). The executor's kernel is that very
 *    cblas_sgemm call, so the ratio (sgemm time over executor time, the
 *    median of the pairs with their 10th and 90th percentiles) measures
 *    the executor's cost around the BLAS call, not the speed of the
 *    product; "exec_minus_sgemm_us" is that cost itself (goal: ratio >=
 *    0.9);
 *  - "exec_overhead": a plan of many relu steps on f32[1, 1], whose
 *    kernels do nothing measurable, run by sym_exec_run against the same
 *    kernel called directly on the same buffers as many times, the two
 *    interleaved: the executor's time per step beyond the kernel call,
 *    the median of the pairs with its spread (goal: <= 2 us).
 *
 * Usage: bench_exec [--quick] [--blas-threads N]   (--quick: shorter
 * runs, fewer sizes; N: OpenBLAS's threads, default 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include <symshard.h>

#include "kern/kernel.h"
#include "shape/shape_private.h"

#include "util.h"

/* Print "msg" and exit with status 1. */
static void
die(const char *msg)
{
	fprintf(stderr, "bench_exec: %s\n", msg);
	exit(1);
}

/* A compiled single-rank plan of a graph with its executor, prepared
 * for a binding. */
struct run {
	sym_ctx *ctx;
	sym_graph *g;
	sym_plan *p;
	sym_slices *s;
	sym_exec *x;
};

/* Parse "text", compile it for one rank, bind "bind" and prepare an
 * executor filled with seed 1 in "r"; exit on any error. */
static void
run_init(struct run *r, const char *text, const char *bind)
{
	sym_binding *b;

	memset(r, 0, sizeof(*r));
	r->ctx = sym_ctx_new();
	if (!r->ctx)
		die("out of memory");
	r->g = sym_graph_parse(r->ctx, text, "bench.sg");
	if (!r->g || sym_graph_n_errors(r->g) != 0)
		die("the graph does not check");
	r->p = sym_plan_compile(r->g, SYM_PLAN_SINGLE);
	r->s = r->p ? sym_slices_new(r->p) : NULL;
	b = sym_binding_new(r->ctx);
	if (!r->s || !b || sym_binding_parse(b, bind, NULL) < 0 ||
	    sym_plan_bind(r->p, b, r->s) < 0)
		die(sym_ctx_last_message(r->ctx));
	sym_binding_free(b);
	r->x = sym_exec_new(r->ctx, r->p, NULL);
	if (!r->x || sym_exec_prepare(r->x, r->s) < 0 ||
	    sym_exec_fill(r->x, 1) < 0 || sym_exec_run(r->x) < 0)
		die(sym_ctx_last_message(r->ctx));
}

/* Release what "r" holds. */
static void
run_clear(struct run *r)
{
	sym_exec_free(r->x);
	sym_slices_free(r->s);
	sym_plan_free(r->p);
	sym_graph_free(r->g);
	sym_ctx_free(r->ctx);
}

/* Run the executor of "arg" (a struct run) once. */
static void
exec_once(void *arg)
{
	struct run *r = arg;

	if (sym_exec_run(r->x) < 0)
		die(sym_ctx_last_message(r->ctx));
}

/* A direct cblas_sgemm c = a b of [m, k] x [k, n]. */
struct gemm {
	int m, n, k;
	const float *a, *b;
	float *c;
};

/* Call the cblas_sgemm of "arg" (a struct gemm) once. */
static void
gemm_once(void *arg)
{
	struct gemm *g = arg;

	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k,
	    1.0f, g->a, g->k, g->b, g->n, 0.0f, g->c, g->n);
}

/* The most pairs a case times. */
#define MAX_PAIRS 100000

/* Samples of a case, MAX_PAIRS of each side and of their comparison. */
struct samples {
	double a[MAX_PAIRS], b[MAX_PAIRS], c[MAX_PAIRS];
};

/* Time the executor's matmul of [m, k] x [k, n] against cblas_sgemm in
 * interleaved pairs for "min_time" seconds with "blas_threads" BLAS
 * threads, using "sm"; print a line and return the median ratio. */
static double
matmul_case(int64_t m, int64_t n, int64_t k, double min_time, int blas_threads,
    struct samples *sm)
{
	char text[512], bind[64];
	struct run r;
	struct gemm g = { (int)m, (int)n, (int)k, NULL, NULL, NULL };
	double flops = 2.0 * (double)m * (double)n * (double)k;
	struct bench_spread se, sg, ratio, diff;
	size_t np;

	snprintf(text, sizeof(text),
	    "symbol m min=1\ninput a : f32[m, %lld]\nparam w : f32[%lld, "
	    "%lld]\nc = matmul(a, w)\noutput c\n",
	    (long long)k, (long long)k, (long long)n);
	snprintf(bind, sizeof(bind), "m=%lld", (long long)m);
	run_init(&r, text, bind);
	g.a = sym_exec_data(r.x,
	    sym_plan_value_tensor(r.p, sym_graph_find_value(r.g, "a")), NULL);
	g.b = sym_exec_data(r.x,
	    sym_plan_value_tensor(r.p, sym_graph_find_value(r.g, "w")), NULL);
	g.c = sym_exec_data(r.x,
	    sym_plan_value_tensor(r.p, sym_graph_find_value(r.g, "c")), NULL);
	if (!g.a || !g.b || !g.c)
		die("no data");
	np = bench_pairs(exec_once, &r, gemm_once, &g, min_time, 11, MAX_PAIRS,
	    sm->a, sm->b);
	for (size_t i = 0; i < np; i++)
		sm->c[i] = sm->b[i] / sm->a[i];
	ratio = bench_spread_of(sm->c, np);
	for (size_t i = 0; i < np; i++)
		sm->c[i] = sm->a[i] - sm->b[i];
	diff = bench_spread_of(sm->c, np);
	se = bench_spread_of(sm->a, np);
	sg = bench_spread_of(sm->b, np);
	printf("{\"bench\": \"exec_matmul\", \"m\": %lld, \"n\": %lld, "
	       "\"k\": %lld, \"blas_threads\": %d, \"pairs\": %zu, "
	       "\"exec_gflops\": %.2f, \"sgemm_gflops\": %.2f",
	    (long long)m, (long long)n, (long long)k, blas_threads, np,
	    flops / se.median * 1e-9, flops / sg.median * 1e-9);
	bench_spread_print("ratio", &ratio, 1, 3);
	bench_spread_print("exec_minus_sgemm_us", &diff, 1e6, 2);
	printf("}\n");
	fflush(stdout);
	run_clear(&r);
	return ratio.median;
}

/* The relu kernel called directly along a chain of buffers. */
struct chain {
	int len;
	void **data;
	sym__kernel_fn relu;
	struct sym__kernel_args args;
	struct sym__tensor in, out;
};

/* Run the chain of "arg" (a struct chain) once. */
static void
chain_once(void *arg)
{
	struct chain *ch = arg;

	for (int i = 0; i < ch->len; i++) {
		ch->in.data = ch->data[i];
		ch->out.data = ch->data[i + 1];
		if (ch->relu(&ch->args) < 0)
			die("relu failed");
	}
}

/* Time a plan of "len" relu steps on f32["rows", "w"] run by the
 * executor against the same kernel called directly "len" times on the
 * same buffers (the executor's), in interleaved pairs for "min_time"
 * seconds, using "sm"; print a line and return the median nanoseconds per
 * step beyond the kernel call. */
static double
overhead_case(int len, int64_t rows, int64_t w, double min_time,
    struct samples *sm)
{
	size_t cap = 128 + (size_t)len * 48, pos, np;
	char *text = malloc(cap), bind[64], name[32];
	struct chain ch;
	struct run r;
	struct bench_spread se, sk, over;

	memset(&ch, 0, sizeof(ch));
	ch.len = len;
	ch.data = malloc(((size_t)len + 1) * sizeof(*ch.data));
	ch.relu = sym__kernel(sym_op_find("relu"));
	if (!text || !ch.data || !ch.relu)
		die("out of memory");
	pos = (size_t)snprintf(text, cap,
	    "symbol b min=1\ninput r0 : f32[b, %lld]\n", (long long)w);
	for (int i = 1; i <= len; i++)
		pos += (size_t)snprintf(text + pos, cap - pos,
		    "r%d = relu(r%d)\n", i, i - 1);
	snprintf(text + pos, cap - pos, "output r%d\n", len);
	snprintf(bind, sizeof(bind), "b=%lld", (long long)rows);
	run_init(&r, text, bind);
	for (int i = 0; i <= len; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		ch.data[i] = sym_exec_data(r.x,
		    sym_plan_value_tensor(r.p, sym_graph_find_value(r.g, name)),
		    NULL);
		if (!ch.data[i])
			die("no data");
	}
	ch.in.dtype = SYM_DT_F32;
	ch.in.rank = 2;
	ch.in.dim[0] = rows;
	ch.in.dim[1] = w;
	ch.out = ch.in;
	ch.args.op = sym_op_find("relu");
	ch.args.n_in = ch.args.n_out = 1;
	ch.args.in = &ch.in;
	ch.args.out = &ch.out;
	np = bench_pairs(exec_once, &r, chain_once, &ch, min_time, 101,
	    MAX_PAIRS, sm->a, sm->b);
	for (size_t i = 0; i < np; i++)
		sm->c[i] = (sm->a[i] - sm->b[i]) / len;
	over = bench_spread_of(sm->c, np);
	se = bench_spread_of(sm->a, np);
	sk = bench_spread_of(sm->b, np);
	printf("{\"bench\": \"exec_overhead\", \"steps\": %d, \"dims\": "
	       "[%lld, %lld], \"pairs\": %zu, \"exec_ns_per_step\": %.1f, "
	       "\"kernel_ns\": %.1f",
	    len, (long long)rows, (long long)w, np, se.median / len * 1e9,
	    sk.median / len * 1e9);
	bench_spread_print("overhead_ns", &over, 1e9, 1);
	printf("}\n");
	fflush(stdout);
	free(ch.data);
	free(text);
	run_clear(&r);
	return over.median * 1e9;
}

/* Pin OpenBLAS to "n" threads; return "n", or 0 when this OpenBLAS
 * cannot be told (its threads are then as the environment says). */
static int
pin_blas(int n)
{
#ifdef SYM_HAVE_OPENBLAS_SET_NUM_THREADS
	openblas_set_num_threads(n);
	return openblas_get_num_threads();
#else
	(void)n;
	return 0;
#endif
}

/* Run the benchmark; "argv" may hold --quick and --blas-threads N. */
int
main(int argc, char **argv)
{
	static const int64_t sizes[][3] = { { 64, 64, 64 }, { 256, 256, 256 },
		{ 512, 512, 512 }, { 1024, 1024, 1024 }, { 40, 512, 784 },
		{ 2048, 3072, 768 } };
	int quick = 0, threads = 1;
	size_t n_sizes;
	double min_time, worst_ratio = 1e30, worst_ns = 0, ns;
	struct samples *sm = malloc(sizeof(*sm));

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--blas-threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else
			die("usage: bench_exec [--quick] [--blas-threads N]");
	}
	if (!sm || threads < 1)
		die(sm ? "--blas-threads: at least 1" : "out of memory");
	n_sizes = quick ? 3 : sizeof(sizes) / sizeof(sizes[0]);
	min_time = quick ? 0.05 : 0.5;
	bench_header("bench_exec");
	threads = pin_blas(threads);
	printf("# executor matmul step vs direct cblas_sgemm on the same "
	       "buffers, interleaved, OpenBLAS on %d thread(s) (0: not "
	       "pinned); the executor's kernel is that cblas_sgemm call, so "
	       "the ratio measures the executor's cost around it, which the "
	       "spread of the larger products hides (goal: ratio >= 0.9)\n",
	    threads);
	for (size_t i = 0; i < n_sizes; i++) {
		double r = matmul_case(sizes[i][0], sizes[i][1], sizes[i][2],
		    min_time, threads, sm);

		worst_ratio = r < worst_ratio ? r : worst_ratio;
	}
	printf("# executor overhead per step: 1000 relu steps on f32[1, 1] "
	       "run by the executor vs the same kernel calls made directly, "
	       "interleaved (goal: <= 2000 ns)\n");
	ns = overhead_case(1000, 1, 1, min_time, sm);
	worst_ns = ns > worst_ns ? ns : worst_ns;
	printf("{\"bench\": \"exec_summary\", \"worst_matmul_ratio\": %.3f, "
	       "\"worst_overhead_ns\": %.1f, \"goals_met\": %s}\n",
	    worst_ratio, worst_ns,
	    worst_ratio >= 0.9 && worst_ns <= 2000 ? "true" : "false");
	free(sm);
	return 0;
}
