/*
 * Benchmark of the executor (sym_exec(3)) on one rank. Prints one JSON
 * line per measurement:
 *
 *  - "exec_matmul": a plan of one matmul [m, k] x [k, n] run by
 *    sym_exec_run against a direct cblas_sgemm of the same sizes, in
 *    GFLOP/s, and their ratio (goal: >= 0.9);
 *  - "exec_overhead": a chain of tiny relu kernels run by sym_exec_run
 *    against calling the same kernel directly on the same tensors: the
 *    time per step beyond the kernel itself (goal: <= 2 us).
 *
 * Usage: bench_exec [--quick]   (--quick: shorter runs, fewer sizes)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include <symshard.h>

#include "exec/kernel.h"

#include "util.h"

/* Print "msg" and exit with status 1. */
static void
die(const char *msg)
{
	fprintf(stderr, "bench_exec: %s\n", msg);
	exit(1);
}

/* Return the time of the monotonic clock in seconds. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
	r->x = sym_exec_new(r->p, NULL, r->ctx);
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

/* Return the seconds per call of "fn" with "arg" over calls of at least
 * "min_time" seconds in all. */
static double
time_once(void (*fn)(void *), void *arg, double min_time)
{
	long n = 0;
	double t0 = now(), t;

	do {
		fn(arg);
		n++;
	} while ((t = now() - t0) < min_time);
	return t / (double)n;
}

/* Run the executor of "arg" (a struct run) once. */
static void
exec_once(void *arg)
{
	struct run *r = arg;

	if (sym_exec_run(r->x) < 0)
		die(sym_ctx_last_message(r->ctx));
}

/* Store in "*ta" and "*tb" the best seconds per call of "fa" with "a"
 * and of "fb" with "b", timed alternately (so that a busy machine weighs
 * on both alike), each block at least "min_time" seconds. */
static void
time_pair(void (*fa)(void *), void *a, void (*fb)(void *), void *b,
    double min_time, double *ta, double *tb)
{
	*ta = *tb = 1e30;
	for (int rep = 0; rep < 7; rep++) {
		double x = time_once(fa, a, min_time);
		double y = time_once(fb, b, min_time);

		*ta = x < *ta ? x : *ta;
		*tb = y < *tb ? y : *tb;
	}
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

/* Time the executor's matmul of [m, k] x [k, n] against cblas_sgemm;
 * print a line and return their ratio. */
static double
matmul_case(int64_t m, int64_t n, int64_t k, double min_time)
{
	char text[512], bind[64];
	struct run r;
	struct gemm g = { (int)m, (int)n, (int)k, NULL, NULL, NULL };
	double t_exec, t_blas, flops = 2.0 * (double)m * (double)n * (double)k;

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
	g.c = malloc((size_t)(m * n) * sizeof(float));
	if (!g.a || !g.b || !g.c)
		die("no data");
	time_pair(exec_once, &r, gemm_once, &g, min_time, &t_exec, &t_blas);
	printf("{\"bench\": \"exec_matmul\", \"m\": %lld, \"n\": %lld, "
	       "\"k\": %lld, \"exec_gflops\": %.2f, \"sgemm_gflops\": %.2f, "
	       "\"ratio\": %.3f}\n",
	    (long long)m, (long long)n, (long long)k, flops / t_exec * 1e-9,
	    flops / t_blas * 1e-9, t_blas / t_exec);
	free(g.c);
	run_clear(&r);
	return t_blas / t_exec;
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

/* Time a chain of "len" relu kernels on [b, "w"] run by the executor
 * against the same kernel called directly "len" times on the same
 * buffers (the executor's); print a line and return the nanoseconds per
 * step beyond the kernel. */
static double
overhead_case(int len, int64_t rows, int64_t w, double min_time)
{
	size_t cap = 128 + (size_t)len * 48, pos;
	char *text = malloc(cap), bind[64], name[32];
	struct chain ch;
	struct run r;
	double t_exec, t_kern, ns;

	memset(&ch, 0, sizeof(ch));
	ch.len = len;
	ch.data = malloc(((size_t)len + 1) * sizeof(*ch.data));
	ch.relu = sym__kernel_find("relu");
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
	time_pair(exec_once, &r, chain_once, &ch, min_time, &t_exec, &t_kern);
	ns = (t_exec - t_kern) / len * 1e9;
	printf("{\"bench\": \"exec_overhead\", \"steps\": %d, \"dims\": "
	       "[%lld, %lld], \"exec_ns_per_step\": %.0f, "
	       "\"kernel_ns\": %.0f, \"overhead_ns\": %.0f}\n",
	    len, (long long)rows, (long long)w, t_exec / len * 1e9,
	    t_kern / len * 1e9, ns);
	free(ch.data);
	free(text);
	run_clear(&r);
	return ns;
}

int
main(int argc, char **argv)
{
	static const int64_t sizes[][3] = { { 64, 64, 64 }, { 256, 256, 256 },
		{ 512, 512, 512 }, { 1024, 1024, 1024 }, { 40, 512, 784 },
		{ 2048, 3072, 768 } };
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	size_t n_sizes = quick ? 3 : sizeof(sizes) / sizeof(sizes[0]);
	double min_time = quick ? 0.01 : 0.1, worst_ratio = 1e30, worst_ns, ns;

	bench_header("bench_exec");
	printf("# executor matmul step vs direct cblas_sgemm "
	       "(goal: ratio >= 0.9)\n");
	for (size_t i = 0; i < n_sizes; i++) {
		double r = matmul_case(sizes[i][0], sizes[i][1], sizes[i][2],
		    min_time);

		worst_ratio = r < worst_ratio ? r : worst_ratio;
	}
	printf("# executor overhead per kernel step beyond the kernel "
	       "(goal: <= 2000 ns)\n");
	worst_ns = overhead_case(1000, 4, 8, min_time);
	ns = overhead_case(200, 64, 64, min_time);
	worst_ns = ns > worst_ns ? ns : worst_ns;
	printf("{\"bench\": \"exec_summary\", \"worst_matmul_ratio\": %.3f, "
	       "\"worst_overhead_ns\": %.0f}\n",
	    worst_ratio, worst_ns);
	return 0;
}
