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

/* Return the best seconds per sym_exec_run of "r" over runs of at
 * least "min_time" seconds. */
static double
time_exec(struct run *r, double min_time)
{
	double best = 1e30;

	for (int rep = 0; rep < 5; rep++) {
		long n = 0;
		double t0 = now(), t;

		do {
			if (sym_exec_run(r->x) < 0)
				die(sym_ctx_last_message(r->ctx));
			n++;
		} while ((t = now() - t0) < min_time);
		if (t / (double)n < best)
			best = t / (double)n;
	}
	return best;
}

/* Time the executor's matmul of [m, k] x [k, n] against cblas_sgemm;
 * print a line and return their ratio. */
static double
matmul_case(int64_t m, int64_t n, int64_t k, double min_time)
{
	char text[512], bind[64];
	struct run r;
	float *a, *b, *c;
	double t_exec, t_blas = 1e30,
	               flops = 2.0 * (double)m * (double)n * (double)k;

	snprintf(text, sizeof(text),
	    "symbol m min=1\ninput a : f32[m, %lld]\nparam w : f32[%lld, "
	    "%lld]\nc = matmul(a, w)\noutput c\n",
	    (long long)k, (long long)k, (long long)n);
	snprintf(bind, sizeof(bind), "m=%lld", (long long)m);
	run_init(&r, text, bind);
	t_exec = time_exec(&r, min_time);
	a = sym_exec_data(r.x,
	    sym_plan_value_tensor(r.p, sym_graph_find_value(r.g, "a")), NULL);
	b = sym_exec_data(r.x,
	    sym_plan_value_tensor(r.p, sym_graph_find_value(r.g, "w")), NULL);
	c = malloc((size_t)(m * n) * sizeof(float));
	if (!a || !b || !c)
		die("no data");
	for (int rep = 0; rep < 5; rep++) {
		long cnt = 0;
		double t0 = now(), t;

		do {
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
			    (int)m, (int)n, (int)k, 1.0f, a, (int)k, b, (int)n,
			    0.0f, c, (int)n);
			cnt++;
		} while ((t = now() - t0) < min_time);
		if (t / (double)cnt < t_blas)
			t_blas = t / (double)cnt;
	}
	printf("{\"bench\": \"exec_matmul\", \"m\": %lld, \"n\": %lld, "
	       "\"k\": %lld, \"exec_gflops\": %.2f, \"sgemm_gflops\": %.2f, "
	       "\"ratio\": %.3f}\n",
	    (long long)m, (long long)n, (long long)k, flops / t_exec * 1e-9,
	    flops / t_blas * 1e-9, t_blas / t_exec);
	free(c);
	run_clear(&r);
	return t_blas / t_exec;
}

/* Time a chain of "len" relu kernels on [b, "w"] run by the executor
 * against the same kernel called directly "len" times on the same
 * buffers (the executor's); print a line and return the nanoseconds per
 * step beyond the kernel. */
static double
overhead_case(int len, int64_t rows, int64_t w, double min_time)
{
	size_t cap = 128 + (size_t)len * 48;
	char *text = malloc(cap), bind[64], name[32];
	void **data = malloc(((size_t)len + 1) * sizeof(*data));
	struct sym__kernel_args args;
	struct sym__tensor in, out;
	sym__kernel_fn relu = sym__kernel_find("relu");
	struct run r;
	size_t pos;
	double t_exec, t_kern = 1e30, ns;

	if (!text || !data || !relu)
		die("out of memory");
	pos = (size_t)snprintf(text, cap,
	    "symbol b min=1\ninput r0 : f32[b, %lld]\n", (long long)w);
	for (int i = 1; i <= len; i++)
		pos += (size_t)snprintf(text + pos, cap - pos,
		    "r%d = relu(r%d)\n", i, i - 1);
	snprintf(text + pos, cap - pos, "output r%d\n", len);
	snprintf(bind, sizeof(bind), "b=%lld", (long long)rows);
	run_init(&r, text, bind);
	t_exec = time_exec(&r, min_time);
	for (int i = 0; i <= len; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		data[i] = sym_exec_data(r.x,
		    sym_plan_value_tensor(r.p, sym_graph_find_value(r.g, name)),
		    NULL);
		if (!data[i])
			die("no data");
	}
	memset(&args, 0, sizeof(args));
	memset(&in, 0, sizeof(in));
	in.dtype = SYM_DT_F32;
	in.rank = 2;
	in.dim[0] = rows;
	in.dim[1] = w;
	out = in;
	args.op = sym_op_find("relu");
	args.n_in = args.n_out = 1;
	args.in = &in;
	args.out = &out;
	for (int rep = 0; rep < 5; rep++) {
		long cnt = 0;
		double t0 = now(), t;

		do {
			for (int i = 0; i < len; i++) {
				in.data = data[i];
				out.data = data[i + 1];
				if (relu(&args) < 0)
					die("relu failed");
			}
			cnt++;
		} while ((t = now() - t0) < min_time);
		if (t / (double)cnt < t_kern)
			t_kern = t / (double)cnt;
	}
	ns = (t_exec - t_kern) / len * 1e9;
	printf("{\"bench\": \"exec_overhead\", \"steps\": %d, \"dims\": "
	       "[%lld, %lld], \"exec_ns_per_step\": %.0f, "
	       "\"kernel_ns\": %.0f, \"overhead_ns\": %.0f}\n",
	    len, (long long)rows, (long long)w, t_exec / len * 1e9,
	    t_kern / len * 1e9, ns);
	free(data);
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
	double min_time = quick ? 0.02 : 0.2, worst_ratio = 1e30, worst_ns, ns;

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
