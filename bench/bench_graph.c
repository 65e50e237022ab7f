/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of shape inference: transformer blocks with a dynamic batch b
 * and sequence length s, stacked until the graph has about 1k, 10k and
 * 100k operators. Cases: built through the C API, shapes only ("infer")
 * and sharded on 8 devices ("check"); the same graphs parsed from their
 * text ("parse_infer", "parse_check"); and shape-check run on the sharded
 * graph's file, its report to /dev/null, readable ("cli_text") and as
 * JSON ("cli_json"). Every size of a case runs the same number of times,
 * each in a new context (made and freed untimed), and the line of each
 * size gives the median wall time per operator with its least and most,
 * the CPU time per operator (of the thread, or of shape-check with all
 * its threads) and, where perf_event_open counts them, the user-space
 * instructions and cycles per operator ("unavailable" where it does
 * not). The summary gives the growth of each from the first size to the
 * last, and the goals (per operator and growth at most 2) on the wall
 * time ("goals_met") and on the CPU time ("goals_met_cpu"), which a busy
 * machine disturbs less.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <symshard.h>

#include "util.h"

/* Return the monotonic time in seconds. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Return the CPU time of the calling thread in seconds. */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Abort with "what" and the context's message. */
static void
die(sym_ctx *ctx, const char *what)
{
	fprintf(stderr, "bench_graph: %s: %s\n", what,
	    ctx ? sym_ctx_last_message(ctx) : "");
	exit(1);
}

struct builder {
	sym_ctx *ctx;
	sym_graph *g;
	sym_expr *b, *s;
	long ops;
	int tp; /* give the matmuls tensor-parallel strategies */
	char name[64];
};

/* Give the producer of "v" the strategy "text" when "B" builds a
 * tensor-parallel graph; return "v". */
static sym_value *
shard(struct builder *B, sym_value *v, const char *text)
{
	if (B->tp &&
	    sym_node_set_strategy(B->g, sym_value_producer(v), text, NULL) < 0)
		die(B->ctx, "strategy");
	return v;
}

/* Write "prefix"_"layer" into the name buffer of "B" (the harness's own
 * work, kept cheaper than snprintf so that it does not weigh on the
 * library's time). */
static void
set_name(struct builder *B, const char *prefix, int layer)
{
	char digits[16];
	size_t n = strlen(prefix), k = 0;

	if (n > sizeof(B->name) - 18)
		n = sizeof(B->name) - 18;
	memcpy(B->name, prefix, n);
	B->name[n++] = '_';
	do {
		digits[k++] = (char)('0' + layer % 10);
		layer /= 10;
	} while (layer > 0);
	while (k > 0)
		B->name[n++] = digits[--k];
	B->name[n] = '\0';
}

/* Return the parameter "prefix"_"layer" of dtype f32 and dimensions
 * "d0" (and "d1" when not 0). */
static sym_value *
param(struct builder *B, const char *prefix, int layer, int64_t d0, int64_t d1)
{
	sym_expr *d[2];
	sym_shape *sh;
	sym_value *v;

	d[0] = sym_expr_const(B->ctx, d0);
	d[1] = sym_expr_const(B->ctx, d1);
	sh = sym_shape_new(B->ctx, SYM_DT_F32, d1 ? 2 : 1, d);
	set_name(B, prefix, layer);
	v = sym_graph_add_input(B->g, B->name, SYM_VALUE_PARAM, sh, NULL);
	sym_shape_free(sh);
	sym_expr_free(d[0]);
	sym_expr_free(d[1]);
	if (!v)
		die(B->ctx, "param");
	return v;
}

/* Apply "op" to the "n" values "in" with "attrs" (may be NULL), naming
 * the result after "prefix" and "layer". */
static sym_value *
op(struct builder *B, const char *opname, const char *prefix, int layer,
    size_t n, sym_value **in, sym_attrs *attrs)
{
	const char *names[1];
	sym_node *node;

	set_name(B, prefix, layer);
	names[0] = B->name;
	node = sym_graph_add_op(B->g, opname, 1, names, n, in, attrs, NULL);
	if (!node || sym_graph_n_errors(B->g) > 0)
		die(B->ctx, opname);
	B->ops++;
	return sym_node_output(node, 0);
}

/* Return attributes holding the list "name" of the "n" expressions "e"
 * (consumed). */
static sym_attrs *
list_attr(sym_ctx *ctx, const char *name, size_t n, sym_expr **e)
{
	sym_attrs *a = sym_attrs_new(ctx);

	sym_attrs_set_list(a, name, n, e);
	for (size_t i = 0; i < n; i++)
		sym_expr_free(e[i]);
	return a;
}

/* Return a reshape of "x" to the "n" dimensions "d" (consumed). */
static sym_value *
reshape(struct builder *B, sym_value *x, const char *prefix, int layer,
    size_t n, sym_expr **d)
{
	sym_attrs *a = list_attr(B->ctx, "shape", n, d);
	sym_value *r = op(B, "reshape", prefix, layer, 1, &x, a);

	sym_attrs_free(a);
	return r;
}

/* Return a transpose of "x" by the permutation "p" of 4 axes. */
static sym_value *
transpose(struct builder *B, sym_value *x, const char *prefix, int layer,
    const int *p)
{
	sym_expr *d[4];
	sym_attrs *a;
	sym_value *r;

	for (int i = 0; i < 4; i++)
		d[i] = sym_expr_const(B->ctx, p[i]);
	a = list_attr(B->ctx, "perm", 4, d);
	r = op(B, "transpose", prefix, layer, 1, &x, a);
	sym_attrs_free(a);
	return r;
}

/* Add one transformer block applied to "x" [b, s, 768]; return its
 * output. */
static sym_value *
block(struct builder *B, sym_value *x, int l)
{
	static const int p0213[] = { 0, 2, 1, 3 }, p0231[] = { 0, 2, 3, 1 };
	static const char *col = "((1, 1), (1, 8))", *row = "((1, 8), (8, 1))";
	sym_value *in[3], *h, *h2, *q, *k, *v, *t, *sc, *pr, *c, *r1, *f;
	sym_attrs *ln = sym_attrs_new(B->ctx), *sm = sym_attrs_new(B->ctx);
	sym_expr *d[4];

	sym_attrs_set_int(ln, "begin_norm_axis", 2);
	sym_attrs_set_int(ln, "begin_params_axis", 2);
	sym_attrs_set_int(sm, "axis", -1);
	in[0] = x;
	in[1] = param(B, "ln1g", l, 768, 0);
	in[2] = param(B, "ln1b", l, 768, 0);
	h = op(B, "layer_norm", "h", l, 3, in, ln);
	d[0] = sym_expr_const(B->ctx, -1);
	d[1] = sym_expr_const(B->ctx, 768);
	h2 = reshape(B, h, "h2", l, 2, d);
	in[0] = h2;
	in[1] = param(B, "wq", l, 768, 768);
	q = shard(B, op(B, "matmul", "q", l, 2, in, NULL), col);
	in[1] = param(B, "wk", l, 768, 768);
	k = shard(B, op(B, "matmul", "k", l, 2, in, NULL), col);
	in[1] = param(B, "wv", l, 768, 768);
	v = shard(B, op(B, "matmul", "v", l, 2, in, NULL), col);
	d[0] = sym_expr_copy(B->b);
	d[1] = sym_expr_copy(B->s);
	d[2] = sym_expr_const(B->ctx, 12);
	d[3] = sym_expr_const(B->ctx, 64);
	q = transpose(B, reshape(B, q, "q4", l, 4, d), "qh", l, p0213);
	d[0] = sym_expr_copy(B->b);
	d[1] = sym_expr_copy(B->s);
	d[2] = sym_expr_const(B->ctx, 12);
	d[3] = sym_expr_const(B->ctx, 64);
	k = transpose(B, reshape(B, k, "k4", l, 4, d), "kh", l, p0231);
	d[0] = sym_expr_copy(B->b);
	d[1] = sym_expr_copy(B->s);
	d[2] = sym_expr_const(B->ctx, 12);
	d[3] = sym_expr_const(B->ctx, 64);
	v = transpose(B, reshape(B, v, "v4", l, 4, d), "vh", l, p0213);
	in[0] = q;
	in[1] = k;
	sc = op(B, "batch_matmul", "scores", l, 2, in, NULL);
	in[0] = sc;
	in[1] = param(B, "scale", l, 1, 0);
	sc = op(B, "mul", "scaled", l, 2, in, NULL);
	pr = op(B, "softmax", "probs", l, 1, &sc, sm);
	in[0] = pr;
	in[1] = v;
	c = op(B, "batch_matmul", "ctx", l, 2, in, NULL);
	t = transpose(B, c, "ctx2", l, p0213);
	d[0] = sym_expr_const(B->ctx, -1);
	d[1] = sym_expr_const(B->ctx, 768);
	t = reshape(B, t, "ctx3", l, 2, d);
	in[0] = t;
	in[1] = param(B, "wo", l, 768, 768);
	t = shard(B, op(B, "matmul", "attn", l, 2, in, NULL), row);
	d[0] = sym_expr_copy(B->b);
	d[1] = sym_expr_copy(B->s);
	d[2] = sym_expr_const(B->ctx, 768);
	t = reshape(B, t, "attn3", l, 3, d);
	in[0] = x;
	in[1] = t;
	r1 = op(B, "add", "r1", l, 2, in, NULL);
	in[0] = r1;
	in[1] = param(B, "ln2g", l, 768, 0);
	in[2] = param(B, "ln2b", l, 768, 0);
	h = op(B, "layer_norm", "h3", l, 3, in, ln);
	d[0] = sym_expr_const(B->ctx, -1);
	d[1] = sym_expr_const(B->ctx, 768);
	h = reshape(B, h, "h4", l, 2, d);
	in[0] = h;
	in[1] = param(B, "w1", l, 768, 3072);
	f = shard(B, op(B, "matmul", "f1", l, 2, in, NULL), col);
	f = op(B, "gelu", "g1", l, 1, &f, NULL);
	in[0] = f;
	in[1] = param(B, "w2", l, 3072, 768);
	f = shard(B, op(B, "matmul", "f2", l, 2, in, NULL), row);
	d[0] = sym_expr_copy(B->b);
	d[1] = sym_expr_copy(B->s);
	d[2] = sym_expr_const(B->ctx, 768);
	f = reshape(B, f, "f3", l, 3, d);
	in[0] = r1;
	in[1] = f;
	x = op(B, "add", "y", l, 2, in, NULL);
	sym_attrs_free(ln);
	sym_attrs_free(sm);
	return x;
}

/* Build and check a graph of at least "target" operators, and with "tp"
 * also shard it on 8 devices with tensor-parallel matmuls, counting with
 * "c"; return the seconds spent, the operator count in "*ops" and the CPU
 * seconds in "*cpu". */
static double
run(long target, int tp, long *ops, struct bench_counters *c, double *cpu)
{
	struct builder B;
	sym_symbol_info bi = SYM_SYMBOL_INFO_INIT, si = SYM_SYMBOL_INFO_INIT;
	sym_expr *d[3];
	sym_shape *sh;
	sym_value *x;
	double t0, t1;

	memset(&B, 0, sizeof(B));
	B.tp = tp;
	B.ctx = sym_ctx_new();
	bi.divisor = 8;
	si.min = 128;
	si.max = 8192;
	si.divisor = 128;
	bench_counters_start(c);
	*cpu = cpu_now();
	t0 = now();
	B.g = sym_graph_new(B.ctx);
	if (tp)
		sym_graph_set_devices(B.g, 8, NULL);
	B.b = sym_expr_symbol(sym_symbol_new(B.ctx, "b", &bi, NULL));
	B.s = sym_expr_symbol(sym_symbol_new(B.ctx, "s", &si, NULL));
	d[0] = sym_expr_copy(B.b);
	d[1] = sym_expr_copy(B.s);
	d[2] = sym_expr_const(B.ctx, 768);
	sh = sym_shape_new(B.ctx, SYM_DT_F32, 3, d);
	x = sym_graph_add_input(B.g, "x", SYM_VALUE_INPUT, sh, NULL);
	sym_shape_free(sh);
	for (int i = 0; i < 3; i++)
		sym_expr_free(d[i]);
	for (int l = 0; B.ops < target; l++)
		x = block(&B, x, l);
	sym_graph_mark_output(B.g, x, NULL);
	if (tp && sym_graph_shard(B.g, NULL) < 0)
		die(B.ctx, "sharding");
	t1 = now();
	*cpu = cpu_now() - *cpu;
	bench_counters_stop(c);
	if (sym_graph_n_errors(B.g) != 0)
		die(B.ctx, "unexpected errors");
	sym_expr_free(B.b);
	sym_expr_free(B.s);
	sym_graph_free(B.g);
	if (sym_ctx_live_objects(B.ctx) != 0)
		die(B.ctx, "leaked objects");
	sym_ctx_free(B.ctx);
	*ops = B.ops;
	return t1 - t0;
}

/* A growing text. */
struct text {
	char *buf;
	size_t len, cap;
};

/* Append the formatted "fmt" to "t"; exit when out of memory. */
static void
put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + (size_t)n + 4096;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf || n < 0) {
			fprintf(stderr, "bench_graph: out of memory\n");
			exit(1);
		}
	}
	t->len += (size_t)n;
}

/* Append to "t" block "l" of the graph that run() builds, in the syntax of
 * symshard-graph(5), applied to "x"; "tp": with the strategies. Return
 * the operators added. */
static long
text_block(struct text *t, const char *x, int l, int tp)
{
	static const char *const pr[] = { "ln1g", "768", "ln1b", "768", "wq",
		"768, 768", "wk", "768, 768", "wv", "768, 768", "scale", "1",
		"wo", "768, 768", "ln2g", "768", "ln2b", "768", "w1",
		"768, 3072", "w2", "3072, 768" };
	const char *col = tp ? " shard ((1, 1), (1, 8))" : "";
	const char *row = tp ? " shard ((1, 8), (8, 1))" : "";
	const char *ln = "begin_norm_axis=2, begin_params_axis=2";

	for (size_t i = 0; i < sizeof(pr) / sizeof(*pr); i += 2)
		put(t, "param %s_%d : f32[%s]\n", pr[i], l, pr[i + 1]);
	put(t, "h_%d = layer_norm(%s, ln1g_%d, ln1b_%d, %s)\n", l, x, l, l, ln);
	put(t, "h2_%d = reshape(h_%d, [-1, 768])\n", l, l);
	put(t, "q_%d = matmul(h2_%d, wq_%d)%s\n", l, l, l, col);
	put(t, "k_%d = matmul(h2_%d, wk_%d)%s\n", l, l, l, col);
	put(t, "v_%d = matmul(h2_%d, wv_%d)%s\n", l, l, l, col);
	put(t, "q4_%d = reshape(q_%d, [b, s, 12, 64])\n", l, l);
	put(t, "qh_%d = transpose(q4_%d, [0, 2, 1, 3])\n", l, l);
	put(t, "k4_%d = reshape(k_%d, [b, s, 12, 64])\n", l, l);
	put(t, "kh_%d = transpose(k4_%d, [0, 2, 3, 1])\n", l, l);
	put(t, "v4_%d = reshape(v_%d, [b, s, 12, 64])\n", l, l);
	put(t, "vh_%d = transpose(v4_%d, [0, 2, 1, 3])\n", l, l);
	put(t, "scores_%d = batch_matmul(qh_%d, kh_%d)\n", l, l, l);
	put(t, "scaled_%d = mul(scores_%d, scale_%d)\n", l, l, l);
	put(t, "probs_%d = softmax(scaled_%d, axis=-1)\n", l, l);
	put(t, "ctx_%d = batch_matmul(probs_%d, vh_%d)\n", l, l, l);
	put(t, "ctx2_%d = transpose(ctx_%d, [0, 2, 1, 3])\n", l, l);
	put(t, "ctx3_%d = reshape(ctx2_%d, [-1, 768])\n", l, l);
	put(t, "attn_%d = matmul(ctx3_%d, wo_%d)%s\n", l, l, l, row);
	put(t, "attn3_%d = reshape(attn_%d, [b, s, 768])\n", l, l);
	put(t, "r1_%d = add(%s, attn3_%d)\n", l, x, l);
	put(t, "h3_%d = layer_norm(r1_%d, ln2g_%d, ln2b_%d, %s)\n", l, l, l, l,
	    ln);
	put(t, "h4_%d = reshape(h3_%d, [-1, 768])\n", l, l);
	put(t, "f1_%d = matmul(h4_%d, w1_%d)%s\n", l, l, l, col);
	put(t, "g1_%d = gelu(f1_%d)\n", l, l);
	put(t, "f2_%d = matmul(g1_%d, w2_%d)%s\n", l, l, l, row);
	put(t, "f3_%d = reshape(f2_%d, [b, s, 768])\n", l, l);
	put(t, "y_%d = add(r1_%d, f3_%d)\n", l, l, l);
	return 27;
}

/* Return the text (symshard-graph(5)) of the graph run() builds for
 * "target" and "tp", its operator count in "*ops"; the caller frees it. */
static char *
graph_text(long target, int tp, long *ops)
{
	struct text t = { NULL, 0, 0 };
	char x[32] = "x";
	int l = 0;

	*ops = 0;
	if (tp)
		put(&t, "devices 8\n");
	put(&t,
	    "symbol b divisor=8\nsymbol s min=128 max=8192 "
	    "divisor=128\ninput x : f32[b, s, 768]\n");
	for (; *ops < target; l++) {
		*ops += text_block(&t, x, l, tp);
		snprintf(x, sizeof(x), "y_%d", l);
	}
	put(&t, "output %s\n", x);
	return t.buf;
}

/* Parse and check the text "text" (with devices: shard it too) in a new
 * context made and freed untimed; return the seconds, counting with "c",
 * and the CPU seconds in "*cpu". */
static double
run_parse(const char *text, int tp, struct bench_counters *c, double *cpu)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g;
	double t0, t1;

	if (!ctx)
		die(NULL, "out of memory");
	bench_counters_start(c);
	*cpu = cpu_now();
	t0 = now();
	g = sym_graph_parse(ctx, text, "bench.sg");
	if (g && tp)
		sym_graph_shard(g, NULL);
	t1 = now();
	*cpu = cpu_now() - *cpu;
	bench_counters_stop(c);
	if (!g || sym_graph_n_errors(g) != 0)
		die(ctx, "the generated text does not check");
	sym_graph_free(g);
	sym_ctx_free(ctx);
	return t1 - t0;
}

/* Run the command line "cli" on the file "path" (with "json": --json),
 * its output to /dev/null; return the seconds, counting with "c" (the
 * counters follow the child), and the child's CPU seconds (user and
 * system, all its threads) in "*cpu". Exit when it fails. */
static double
run_cli(const char *cli, const char *path, int json, struct bench_counters *c,
    double *cpu)
{
	struct rusage ru;
	double t0, t1;
	int status;
	pid_t pid;

	fflush(stdout);
	bench_counters_start(c);
	t0 = now();
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(127);
		if (json)
			execl(cli, cli, path, "--json", (char *)NULL);
		else
			execl(cli, cli, path, (char *)NULL);
		_exit(127);
	}
	memset(&ru, 0, sizeof(ru));
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		status = -1;
	t1 = now();
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	bench_counters_stop(c);
	if (status != 0) {
		fprintf(stderr, "bench_graph: %s %s%s failed (status %d)\n",
		    cli, path, json ? " --json" : "", status);
		exit(1);
	}
	return t1 - t0;
}

/* Write "1k", "10k", "100k" or the count "ops" itself into "buf" (of
 * "len" bytes) for the names of the summary's fields; return "buf". */
static char *
size_words(long ops, char *buf, size_t len)
{
	if (ops >= 1000 && ops % 1000 == 0)
		snprintf(buf, len, "%ldk", ops / 1000);
	else
		snprintf(buf, len, "%ld", ops);
	return buf;
}

/* How a case reaches the graph. */
enum how {
	API,      /* built through the C API */
	PARSE,    /* its text parsed (sym_graph_parse) */
	CLI_TEXT, /* its file checked by shape-check */
	CLI_JSON  /* ... by shape-check --json */
};

/* A case: its name, its graph (with "tp": sharded on 8 devices), how it
 * is reached, and its goal per operator (0: none). */
struct gcase {
	const char *name;
	int tp;
	enum how how;
	double goal_ns;
};

/* What one size of a case measured: the medians per operator. */
struct per_op {
	double ns, ins, cyc, cpu;
};

/* Write the text "text" to a new temporary file; return its name (to
 * free and unlink). */
static char *
temp_file(const char *text)
{
	const char *dir = getenv("TMPDIR");
	size_t len = strlen(text);
	char *path = malloc(strlen(dir ? dir : "/tmp") + 32);
	int fd;

	if (!path)
		die(NULL, "out of memory");
	sprintf(path, "%s/bench_graph.XXXXXX", dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) < 0)
		die(NULL, "cannot write a temporary file");
	return path;
}

/* Run case "k" once at "target" operators ("text" and "path": its text
 * and file, when it needs them), counting with "c"; return the seconds,
 * the operators in "*ops" and the CPU seconds in "*cpu". */
static double
run_case(const struct gcase *k, long target, const char *text, const char *path,
    const char *cli, long *ops, struct bench_counters *c, double *cpu)
{
	switch (k->how) {
	case API:
		return run(target, k->tp, ops, c, cpu);
	case PARSE:
		return run_parse(text, k->tp, c, cpu);
	case CLI_TEXT:
	case CLI_JSON:
		break;
	}
	return run_cli(cli, path, k->how == CLI_JSON, c, cpu);
}

/* Print "name": the count "v" with "digits" decimals, or "unavailable"
 * when "ok" is 0. */
static void
print_count(const char *name, double v, int ok, int digits)
{
	if (ok)
		printf(",\"%s\":%.*f", name, digits, v);
	else
		printf(",\"%s\":\"unavailable\"", name);
}

/* Measure case "k" at operator target "target", "reps" runs, the CLI
 * "cli"; print its line and return its medians per operator. */
static struct per_op
bench_size(const struct gcase *k, long target, long reps, const char *cli,
    struct bench_counters *c)
{
	double *t = malloc(4 * (size_t)reps * sizeof(double));
	double *ins = t + reps, *cyc = ins + reps, *cpu = cyc + reps;
	long ops = 0;
	char *text = NULL, *path = NULL;
	struct bench_spread st;
	struct per_op r;
	int ok = bench_counters_ok(c);

	if (!t)
		die(NULL, "out of memory");
	if (k->how != API)
		text = graph_text(target, k->tp, &ops);
	if (k->how == CLI_TEXT || k->how == CLI_JSON)
		path = temp_file(text);
	for (long i = 0; i < reps; i++) {
		t[i] = run_case(k, target, text, path, cli, &ops, c, &cpu[i]);
		cpu[i] /= (double)ops;
		ins[i] = (double)c->v[0] / (double)ops;
		cyc[i] = (double)c->v[1] / (double)ops;
	}
	st = bench_spread_of(t, (size_t)reps);
	r.ns = st.median / (double)ops * 1e9;
	r.ins = bench_spread_of(ins, (size_t)reps).median;
	r.cyc = bench_spread_of(cyc, (size_t)reps).median;
	r.cpu = bench_spread_of(cpu, (size_t)reps).median * 1e9;
	printf("{\"bench\":\"graph\",\"case\":\"%s\",\"target_ops\":%ld,"
	       "\"ops\":%ld,\"reps\":%ld,\"seconds\":%.4f,\"ns_per_op\":%.1f,"
	       "\"ns_per_op_min\":%.1f,\"ns_per_op_max\":%.1f,"
	       "\"cpu_ns_per_op\":%.1f",
	    k->name, target, ops, reps, st.median, r.ns,
	    st.min / (double)ops * 1e9, st.max / (double)ops * 1e9, r.cpu);
	print_count("instructions_per_op", r.ins, ok, 1);
	print_count("cycles_per_op", r.cyc, ok, 1);
	printf("}\n");
	fflush(stdout);
	if (path)
		unlink(path);
	free(path);
	free(text);
	free(t);
	return r;
}

/* Measure case "k" at the "n" operator targets "sizes", "reps" runs at
 * every size, then print its summary: the growth of the time and of the
 * instructions and cycles per operator from the first size to the last,
 * and the goals. */
static void
bench(const struct gcase *k, size_t n, const long *sizes, long reps,
    const char *cli, struct bench_counters *c)
{
	struct per_op first = { 0, 0, 0, 0 }, last = { 0, 0, 0, 0 };
	char w0[24], wn[24];
	int ok = bench_counters_ok(c), met, met_cpu;

	for (size_t i = 0; i < n; i++) {
		last = bench_size(k, sizes[i], reps, cli, c);
		if (i == 0)
			first = last;
	}
	if (n < 2)
		return;
	size_words(sizes[0], w0, sizeof(w0));
	size_words(sizes[n - 1], wn, sizeof(wn));
	met = last.ns <= k->goal_ns && last.ns / first.ns <= 2.0;
	met_cpu = last.cpu <= k->goal_ns && last.cpu / first.cpu <= 2.0;
	printf("{\"bench\":\"graph\",\"case\":\"%s_summary\","
	       "\"ns_per_op_%s\":%.1f,\"ns_per_op_%s\":%.1f,"
	       "\"growth_%s_over_%s\":%.3f,\"cpu_growth\":%.3f",
	    k->name, w0, first.ns, wn, last.ns, wn, w0, last.ns / first.ns,
	    last.cpu / first.cpu);
	print_count("instructions_growth", last.ins / first.ins, ok, 3);
	print_count("cycles_growth", last.cyc / first.cyc, ok, 3);
	if (k->goal_ns > 0)
		printf(",\"goal_ns_per_op\":%.0f,\"goal_growth\":2.0,"
		       "\"goals_met\":%s,\"goals_met_cpu\":%s}\n",
		    k->goal_ns, met ? "true" : "false",
		    met_cpu ? "true" : "false");
	else
		printf(",\"goal_ns_per_op\":null,\"goal_growth\":null,"
		       "\"goals_met\":null,\"goals_met_cpu\":null}\n");
}

/* The cases, in the order they run. */
static const struct gcase cases[] = {
	{ "infer", 0, API, 2000 },
	{ "check", 1, API, 20000 },
	{ "parse_infer", 0, PARSE, 0 },
	{ "parse_check", 1, PARSE, 0 },
	{ "cli_text", 1, CLI_TEXT, 0 },
	{ "cli_json", 1, CLI_JSON, 0 },
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* Print the usage of the benchmark to "f". */
static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: bench_graph [-r REPS] [--cli SHAPE-CHECK] [CASE] [OPS...]\n"
	    "Without a case, times every case at 1k, 10k and 100k "
	    "operators.\n"
	    "  infer        shape inference of stacked transformer blocks "
	    "(C API)\n"
	    "  check        the full check: shapes and tensor-parallel "
	    "sharding on 8\n"
	    "               devices (C API)\n"
	    "  parse_infer  the same graph parsed from its text, shapes "
	    "only\n"
	    "  parse_check  ... parsed and sharded on 8 devices\n"
	    "  cli_text     shape-check FILE on the sharded graph's file "
	    "(needs --cli)\n"
	    "  cli_json     shape-check FILE --json (needs --cli)\n"
	    "  OPS          operator counts to time (default 1000 10000 "
	    "100000)\n"
	    "  -r REPS      runs per size, the same at every size (default "
	    "5; 3 for the\n"
	    "               CLI), the median reported\n"
	    "  --cli PATH   the shape-check program to time\n"
	    "  --emit       print the text of the case's graph (sharded "
	    "unless the case\n"
	    "               is infer or parse_infer) at the first of OPS, and "
	    "exit\n");
}

/* Run the benchmark with the command line "argv" (see usage). */
int
main(int argc, char **argv)
{
	static const long dflt[] = { 1000, 10000, 100000 };
	long sizes[16], reps = 0;
	size_t n = 0, which = N_CASES; /* N_CASES: all */
	const char *cli = NULL;
	struct bench_counters c;
	int a = 1, bad = 0, emit = 0;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
			reps = strtol(argv[++a], NULL, 10);
			bad |= reps < 1;
		} else if (!strcmp(argv[a], "--cli") && a + 1 < argc) {
			cli = argv[++a];
		} else if (!strcmp(argv[a], "--emit")) {
			emit = 1;
		} else {
			bad = 1;
		}
	}
	if (a < argc && (argv[a][0] < '0' || argv[a][0] > '9')) {
		for (which = 0; which < N_CASES; which++)
			if (!strcmp(argv[a], cases[which].name))
				break;
		bad |= which == N_CASES;
		a++;
	}
	for (; !bad && a < argc && n < 16; a++) {
		sizes[n] = strtol(argv[a], NULL, 10);
		bad |= sizes[n++] < 1;
	}
	if (bad || a < argc) {
		usage(stderr);
		return 2;
	}
	if (n == 0) {
		memcpy(sizes, dflt, sizeof(dflt));
		n = 3;
	}
	if (emit) {
		long ops;
		char *text = graph_text(sizes[0],
		    which == N_CASES || cases[which].tp, &ops);

		fputs(text, stdout);
		free(text);
		return 0;
	}
	bench_counters_open(&c);
	bench_header("bench_graph");
	printf("# shape inference (infer) and the full check with "
	       "tensor-parallel sharding on 8 devices (check) of stacked "
	       "transformer blocks through the C API, the same from their "
	       "text (parse_*) and through shape-check (cli_*); the median of "
	       "the same number of runs at every size; instructions and "
	       "cycles per operator in user space (perf_event_open): %s "
	       "(bench/bench_graph)\n",
	    bench_counters_ok(&c) ? "available" : "unavailable");
	for (size_t i = 0; i < N_CASES; i++) {
		const struct gcase *k = &cases[i];
		int is_cli = k->how == CLI_TEXT || k->how == CLI_JSON;

		if (which != N_CASES && which != i)
			continue;
		if (is_cli && !cli) {
			printf("# %s: no shape-check given (--cli PATH): not "
			       "timed\n",
			    k->name);
			continue;
		}
		bench(k, n, sizes, reps ? reps : is_cli ? 3 : 5, cli, &c);
	}
	bench_counters_close(&c);
	return 0;
}
