/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the executor's CPU kernels (lib/kern/kern_*.c, compiled
 * into this program). Prints one JSON line per measurement:
 *
 *  - "kernel_matmul": the matmul kernel against a direct cblas_sgemm on
 *    the same tensors, timed in interleaved pairs with OpenBLAS's threads
 *    pinned ("blas_threads"), in GFLOP/s. The kernel is that very
 *    cblas_sgemm call, so their ratio (the median of the pairs with its
 *    10th and 90th percentiles) measures the kernel's cost around the
 *    BLAS call, "kernel_minus_cblas_us" (goal: ratio >= 0.9);
 *  - "kernel_overhead": the time of one call of every operator's kernel
 *    on tiny tensors (goal: <= 2 us), the best of several runs;
 *  - "kernel_scratch": for the kernels that need temporary memory, the
 *    time of one call on tiny tensors allocating it in the call (as a
 *    kernel called on its own does) and taking it from a scratch area
 *    kept across calls (as the executor does), and their ratio.
 *
 * Usage: bench_kernels [--quick] [--blas-threads N]   (--quick: shorter
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

/* A tensor of a tiny case: dtype, rank, dims. */
struct tspec {
	sym_dtype dt;
	int rank;
	int64_t dim[4];
};

/* A tiny call of one operator: inputs, outputs and attributes written
 * "name=value" separated by ';' (value: an integer, [a,b] a list,
 * "s:text" a string, "f:1.5" a float, "b:1" a boolean). */
struct tiny {
	const char *op;
	int n_in, n_out;
	struct tspec in[3], out[3];
	const char *attrs;
};

#define F32 SYM_DT_F32
#define I32 SYM_DT_I32
#define T2(a, b)             \
	{                    \
		F32, 2,      \
		{            \
			a, b \
		}            \
	}
#define U(op)                                            \
	{                                                \
		op, 1, 1, { T2(4, 8) }, { T2(4, 8) }, "" \
	}
#define B(op)                                                               \
	{                                                                   \
		op, 2, 1, { T2(4, 8), { F32, 1, { 8 } } }, { T2(4, 8) }, "" \
	}
#define R(op)                                                           \
	{                                                               \
		op, 1, 1, { T2(4, 8) }, { { F32, 1, { 4 } } }, "axis=1" \
	}

static const struct tiny tinies[] = {
	{ "matmul", 2, 1, { T2(4, 4), T2(4, 4) }, { T2(4, 4) }, "" },
	{ "batch_matmul", 2, 1, { { F32, 3, { 2, 4, 4 } }, T2(4, 4) },
	    { { F32, 3, { 2, 4, 4 } } }, "transpose_b=b:1" },
	U("relu"),
	U("gelu"),
	U("exp"),
	U("log"),
	U("neg"),
	U("sqrt"),
	U("tanh"),
	U("sigmoid"),
	U("identity"),
	{ "cast", 1, 1, { T2(4, 8) }, { { I32, 2, { 4, 8 } } }, "dtype=s:i32" },
	B("add"),
	B("sub"),
	B("mul"),
	B("div"),
	B("maximum"),
	B("minimum"),
	{ "bias_add", 2, 1, { { F32, 4, { 2, 3, 2, 2 } }, { F32, 1, { 3 } } },
	    { { F32, 4, { 2, 3, 2, 2 } } }, "" },
	{ "reshape", 1, 1, { T2(4, 8) }, { T2(8, 4) }, "shape=[8,4]" },
	{ "flatten", 1, 1, { { F32, 3, { 2, 4, 4 } } }, { T2(2, 16) }, "" },
	{ "transpose", 1, 1, { T2(4, 8) }, { T2(8, 4) }, "perm=[1,0]" },
	{ "permute", 1, 1, { T2(4, 8) }, { T2(8, 4) }, "perm=[1,0]" },
	{ "expand_dims", 1, 1, { T2(4, 8) }, { { F32, 3, { 4, 1, 8 } } },
	    "axis=1" },
	{ "squeeze", 1, 1, { { F32, 3, { 4, 1, 8 } } }, { T2(4, 8) },
	    "axis=1" },
	{ "concat", 2, 1, { T2(4, 8), T2(4, 8) }, { T2(8, 8) }, "axis=0" },
	{ "split", 1, 2, { T2(8, 8) }, { T2(4, 8), T2(4, 8) }, "axis=0" },
	{ "slice", 1, 1, { T2(4, 8) }, { T2(2, 4) }, "begin=[1,2];size=[2,4]" },
	R("reduce_sum"),
	R("reduce_mean"),
	R("reduce_max"),
	U("softmax"),
	U("log_softmax"),
	{ "layer_norm", 3, 1,
	    { T2(4, 8), { F32, 1, { 8 } }, { F32, 1, { 8 } } }, { T2(4, 8) },
	    "epsilon=f:1e-5" },
	{ "gather", 2, 1, { T2(8, 4), { I32, 1, { 3 } } }, { T2(3, 4) },
	    "axis=0" },
	{ "embedding", 2, 1, { { I32, 1, { 3 } }, T2(8, 4) }, { T2(3, 4) },
	    "" },
	{ "one_hot", 1, 1, { { I32, 1, { 4 } } }, { T2(4, 8) }, "depth=8" },
	{ "softmax_cross_entropy", 2, 1, { T2(4, 8), { I32, 1, { 4 } } },
	    { { F32, 0, { 0 } } }, "" },
	{ "conv2d", 2, 1,
	    { { F32, 4, { 1, 2, 4, 4 } }, { F32, 4, { 2, 2, 3, 3 } } },
	    { { F32, 4, { 1, 2, 2, 2 } } }, "pad=0" },
};

/* Tiny calls of the kernels that need temporary memory: im2col, the
 * loss's rows, softmax along columns (axis 0) and along axes apart (the
 * input moved), the accumulators of sums and means. */
static const struct tiny scratchies[] = {
	{ "conv2d", 2, 1,
	    { { F32, 4, { 1, 2, 4, 4 } }, { F32, 4, { 2, 2, 3, 3 } } },
	    { { F32, 4, { 1, 2, 2, 2 } } }, "pad=0" },
	{ "softmax_cross_entropy", 2, 1, { T2(4, 8), { I32, 1, { 4 } } },
	    { { F32, 0, { 0 } } }, "" },
	{ "softmax", 1, 1, { T2(4, 8) }, { T2(4, 8) }, "axis=0" },
	{ "log_softmax", 1, 1, { { F32, 3, { 2, 4, 4 } } },
	    { { F32, 3, { 2, 4, 4 } } }, "axis=[0,2]" },
	R("reduce_sum"),
	R("reduce_mean"),
};

/* Return the monotonic time in seconds. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Print "what" and exit with status 2. */
static void
die(const char *what)
{
	fprintf(stderr, "bench_kernels: %s\n", what);
	exit(2);
}

/* Set the attribute "item" ("name=value", see struct tiny) on "a" of
 * "ctx"; exit on a malformed item. */
static void
set_attr(sym_ctx *ctx, sym_attrs *a, char *item)
{
	char *eq = strchr(item, '='), *v;

	if (!eq)
		die("malformed attribute");
	*eq = '\0';
	v = eq + 1;
	if (v[0] == '[') {
		sym_expr *e[8];
		size_t n = 0;

		for (char *p = v + 1; *p && *p != ']' && n < 8; n++) {
			e[n] = sym_expr_const(ctx, strtoll(p, &p, 10));
			p += *p == ',';
		}
		sym_attrs_set_list(a, item, n, e);
		for (size_t i = 0; i < n; i++)
			sym_expr_free(e[i]);
	} else if (!strncmp(v, "s:", 2)) {
		sym_attrs_set_string(a, item, v + 2);
	} else if (!strncmp(v, "f:", 2)) {
		sym_attrs_set_float(a, item, strtod(v + 2, NULL));
	} else if (!strncmp(v, "b:", 2)) {
		sym_attrs_set_bool(a, item, atoi(v + 2));
	} else {
		sym_attrs_set_int(a, item, strtoll(v, NULL, 10));
	}
}

/* Return the attributes "text" of a tiny case, made in "ctx". */
static sym_attrs *
parse_attrs(sym_ctx *ctx, const char *text)
{
	sym_attrs *a = sym_attrs_new(ctx);
	char buf[256], *save = NULL;

	if (!a)
		die("out of memory");
	snprintf(buf, sizeof(buf), "%s", text);
	for (char *t = strtok_r(buf, ";", &save); t;
	     t = strtok_r(NULL, ";", &save))
		set_attr(ctx, a, t);
	return a;
}

/* Return an allocated tensor of spec "s", its floats set to 0.5. */
static struct sym__tensor
make(const struct tspec *s)
{
	struct sym__tensor t;

	memset(&t, 0, sizeof(t));
	t.dtype = s->dt;
	t.rank = s->rank;
	memcpy(t.dim, s->dim, sizeof(s->dim));
	if (sym__tensor_alloc(&t) < 0)
		die("out of memory");
	for (int64_t i = 0; s->dt == F32 && i < sym__tensor_numel(&t); i++)
		((float *)t.data)[i] = 0.5f;
	return t;
}

/* Return the attributes written "text" of "op" decoded for the "n_in"
 * inputs "in" and "n_out" outputs, as the shape rule of a graph node
 * decodes them (a new structure); exit on failure. */
static struct sym__opattrs *
decode(sym_ctx *ctx, const sym_op *op, const char *text,
    const struct sym__tensor *in, int n_in, int n_out)
{
	struct sym__opattrs *at = malloc(sizeof(*at));
	sym_attrs *attrs = parse_attrs(ctx, text);
	sym_shape *sh[3] = { NULL, NULL, NULL };
	char *error = NULL;
	int r;

	if (!at || n_in > 3)
		die("out of memory");
	for (int i = 0; i < n_in; i++) {
		sym_expr *e[SYM__MAX_RANK];

		for (int d = 0; d < in[i].rank; d++)
			e[d] = sym__const(ctx, in[i].dim[d]);
		sh[i] = sym__shape_new(ctx, in[i].dtype, (size_t)in[i].rank, e);
		for (int d = 0; d < in[i].rank; d++)
			sym__expr_unref(e[d]);
	}
	r = sym__opattrs_decode(ctx, op, attrs, (size_t)n_in, sh, (size_t)n_out,
	    at, &error);
	for (int i = 0; i < n_in; i++)
		sym__shape_unref(sh[i]);
	sym_attrs_free(attrs);
	if (r < 0)
		die(error ? error : "cannot decode the attributes");
	return at;
}

/* Set up in "a" a call of the tiny case "c" in "ctx" on the tensors
 * "in" and "out" (made here; at least 3 each). */
static void
call_new(sym_ctx *ctx, const struct tiny *c, struct sym__tensor *in,
    struct sym__tensor *out, struct sym__kernel_args *a)
{
	for (int i = 0; i < c->n_in; i++)
		in[i] = make(&c->in[i]);
	for (int i = 0; i < c->n_out; i++)
		out[i] = make(&c->out[i]);
	memset(a, 0, sizeof(*a));
	a->op = sym_op_find(c->op);
	a->at = decode(ctx, a->op, c->attrs, in, c->n_in, c->n_out);
	a->in = in;
	a->n_in = c->n_in;
	a->out = out;
	a->n_out = c->n_out;
}

/* Free what call_new made for "a" on "in" and "out". */
static void
call_free(struct sym__kernel_args *a, struct sym__tensor *in,
    struct sym__tensor *out)
{
	sym__opattrs_clear((struct sym__opattrs *)a->at);
	free((void *)a->at);
	for (int i = 0; i < a->n_in; i++)
		sym__tensor_free(&in[i]);
	for (int i = 0; i < a->n_out; i++)
		sym__tensor_free(&out[i]);
}

/* Measure the call overhead of the tiny case "c" in "ctx": the best of
 * "reps" runs of calls lasting "min_time" seconds; print its line and
 * return the nanoseconds per call. */
static double
overhead(sym_ctx *ctx, const struct tiny *c, int reps, double min_time)
{
	struct sym__tensor in[3], out[3];
	struct sym__kernel_args a;
	sym__kernel_fn f = sym__kernel(sym_op_find(c->op));
	double best = 1e30;

	if (!f)
		die("an operator has no kernel");
	call_new(ctx, c, in, out, &a);
	for (int r = 0; r < reps; r++) {
		double t0 = now(), t;
		long calls = 0;

		do {
			for (int k = 0; k < 100; k++)
				if (f(&a) < 0)
					die(a.error ? a.error : c->op);
			calls += 100;
			t = now() - t0;
		} while (t < min_time);
		if (t / (double)calls < best)
			best = t / (double)calls;
	}
	printf("{\"bench\": \"kernel_overhead\", \"op\": \"%s\", "
	       "\"ns_per_call\": %.0f}\n",
	    c->op, best * 1e9);
	call_free(&a, in, out);
	return best * 1e9;
}

/* Return the seconds per call of 100 calls of "f" on "a" with the
 * scratch area "sc" (NULL: each call allocates its own). */
static double
time_calls(sym__kernel_fn f, struct sym__kernel_args *a,
    struct sym__kscratch *sc)
{
	double t0 = now();

	a->scratch = sc;
	for (int k = 0; k < 100; k++)
		if (f(a) < 0)
			die(a->error ? a->error : "a kernel failed");
	return (now() - t0) / 100;
}

/* Time the tiny case "c" in "ctx" allocating in each call and with a
 * scratch area kept across calls, alternating the two for at least
 * "min_time" seconds and 20 rounds, the best of each; print its line
 * and return their ratio (above 1: the scratch area is faster). */
static double
scratch_case(sym_ctx *ctx, const struct tiny *c, double min_time)
{
	struct sym__tensor in[3], out[3];
	struct sym__kernel_args a;
	struct sym__kscratch sc = { 0 };
	sym__kernel_fn f = sym__kernel(sym_op_find(c->op));
	double own = 1e30, kept = 1e30, t0;

	if (!f)
		die("an operator has no kernel");
	call_new(ctx, c, in, out, &a);
	t0 = now();
	for (int r = 0; r < 20 || now() - t0 < min_time; r++) {
		double x, y;

		if (r % 2) {
			y = time_calls(f, &a, &sc);
			x = time_calls(f, &a, NULL);
		} else {
			x = time_calls(f, &a, NULL);
			y = time_calls(f, &a, &sc);
		}
		own = x < own ? x : own;
		kept = y < kept ? y : kept;
	}
	if (sc.grows != 1)
		die("the scratch area grew more than once");
	printf("{\"bench\": \"kernel_scratch\", \"op\": \"%s\", "
	       "\"ns_per_call_malloc\": %.0f, \"ns_per_call_scratch\": %.0f, "
	       "\"ratio\": %.3f}\n",
	    c->op, own * 1e9, kept * 1e9, own / kept);
	sym__kscratch_free(&sc);
	call_free(&a, in, out);
	return own / kept;
}

/* Call the matmul kernel on "arg" (a struct sym__kernel_args). */
static void
kernel_once(void *arg)
{
	struct sym__kernel_args *a = arg;

	if (sym__kernel(sym_op_find("matmul"))(a) < 0)
		die(a->error ? a->error : "matmul failed");
}

/* Call cblas_sgemm directly on the tensors of "arg" (a struct
 * sym__kernel_args of inputs [m, k] and [k, n]). */
static void
cblas_once(void *arg)
{
	struct sym__kernel_args *a = arg;
	int m = (int)a->in[0].dim[0], k = (int)a->in[0].dim[1];
	int n = (int)a->in[1].dim[1];

	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
	    a->in[0].data, k, a->in[1].data, n, 0.0f, a->out[0].data, n);
}

/* The most pairs a matmul case times. */
#define MAX_PAIRS 100000

/* Compare the matmul kernel with cblas_sgemm on [m, k] x [k, n] on the
 * same tensors, in interleaved pairs for "min_time" seconds with
 * "blas_threads" BLAS threads; print its line and return the median ratio
 * of their speeds (above 1: the kernel is faster). */
static double
matmul_case(int64_t m, int64_t n, int64_t k, double min_time, int blas_threads)
{
	struct tspec sa = { F32, 2, { m, k } }, sb = { F32, 2, { k, n } };
	struct tspec sc = { F32, 2, { m, n } };
	struct sym__tensor in[2] = { make(&sa), make(&sb) }, out = make(&sc);
	struct sym__kernel_args a;
	struct sym__opattrs at;
	double flop = 2.0 * (double)(m * n * k);
	double *tk = malloc(3 * MAX_PAIRS * sizeof(double));
	double *tc = tk + MAX_PAIRS, *x = tc + MAX_PAIRS;
	struct bench_spread ratio, diff, sk, scb;
	size_t np;

	if (!tk)
		die("out of memory");
	memset(&a, 0, sizeof(a));
	memset(&at, 0, sizeof(at));
	a.at = &at;
	a.in = in;
	a.n_in = 2;
	a.out = &out;
	a.n_out = 1;
	np = bench_pairs(kernel_once, &a, cblas_once, &a, min_time, 11,
	    MAX_PAIRS, tk, tc);
	for (size_t i = 0; i < np; i++)
		x[i] = tc[i] / tk[i];
	ratio = bench_spread_of(x, np);
	for (size_t i = 0; i < np; i++)
		x[i] = tk[i] - tc[i];
	diff = bench_spread_of(x, np);
	sk = bench_spread_of(tk, np);
	scb = bench_spread_of(tc, np);
	printf("{\"bench\": \"kernel_matmul\", \"m\": %lld, \"n\": %lld, "
	       "\"k\": %lld, \"blas_threads\": %d, \"pairs\": %zu, "
	       "\"kernel_gflops\": %.2f, \"cblas_gflops\": %.2f",
	    (long long)m, (long long)n, (long long)k, blas_threads, np,
	    flop / sk.median * 1e-9, flop / scb.median * 1e-9);
	bench_spread_print("ratio", &ratio, 1, 3);
	bench_spread_print("kernel_minus_cblas_us", &diff, 1e6, 2);
	printf("}\n");
	fflush(stdout);
	free(tk);
	sym__tensor_free(&in[0]);
	sym__tensor_free(&in[1]);
	sym__tensor_free(&out);
	return ratio.median;
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
		{ 512, 512, 512 }, { 1024, 1024, 1024 }, { 2048, 3072, 768 },
		{ 40, 512, 784 } };
	int quick = 0, threads = 1;
	size_t n_sizes;
	double min_time, worst_ratio = 1e30, worst_ns = 0;
	double worst_scratch = 1e30;
	sym_ctx *ctx = sym_ctx_new();

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--blas-threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else
			die("usage: bench_kernels [--quick] [--blas-threads N]");
	}
	if (!ctx || threads < 1)
		die(ctx ? "--blas-threads: at least 1" : "out of memory");
	n_sizes = quick ? 3 : sizeof(sizes) / sizeof(sizes[0]);
	min_time = quick ? 0.02 : 0.2;
	bench_header("bench_kernels");
	threads = pin_blas(threads);
	printf("# matmul kernel vs direct cblas_sgemm on the same tensors, "
	       "interleaved, OpenBLAS on %d thread(s) (0: not pinned); the "
	       "kernel is that cblas_sgemm call, so the ratio measures the "
	       "kernel's cost around it, which the spread of the larger "
	       "products hides (goal: ratio >= 0.9)\n",
	    threads);
	for (size_t i = 0; i < n_sizes; i++) {
		double r = matmul_case(sizes[i][0], sizes[i][1], sizes[i][2],
		    3 * min_time, threads);

		worst_ratio = r < worst_ratio ? r : worst_ratio;
	}
	printf("# kernel call overhead on tiny tensors (goal: <= 2000 ns)\n");
	for (size_t i = 0; i < sizeof(tinies) / sizeof(tinies[0]); i++) {
		double ns = overhead(ctx, &tinies[i], 5, min_time / 4);

		worst_ns = ns > worst_ns ? ns : worst_ns;
	}
	printf("# tiny kernels allocating per call vs a kept scratch area "
	       "(ratio above 1: the scratch area is faster)\n");
	for (size_t i = 0; i < sizeof(scratchies) / sizeof(scratchies[0]);
	     i++) {
		double r = scratch_case(ctx, &scratchies[i], min_time / 4);

		worst_scratch = r < worst_scratch ? r : worst_scratch;
	}
	printf("{\"bench\": \"kernel_summary\", \"worst_matmul_ratio\": %.3f, "
	       "\"worst_overhead_ns\": %.0f, \"ops\": %zu, "
	       "\"worst_scratch_ratio\": %.3f, \"goals_met\": %s}\n",
	    worst_ratio, worst_ns, sizeof(tinies) / sizeof(tinies[0]),
	    worst_scratch,
	    worst_ratio >= 0.9 && worst_ns <= 2000 ? "true" : "false");
	sym_ctx_free(ctx);
	return 0;
}
