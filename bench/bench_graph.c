/*
 * Benchmark of shape inference: transformer blocks with a dynamic batch b
 * and sequence length s, stacked until the graph has about 1k, 10k and
 * 100k operators, built through the C API. Prints one JSON line per size
 * with the time per operator, and a summary with the growth ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Abort with "what" and the context's message. */
static void
die(sym_ctx *ctx, const char *what)
{
	fprintf(stderr, "bench_graph: %s: %s\n", what,
	    sym_ctx_last_message(ctx));
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
 * also shard it on 8 devices with tensor-parallel matmuls; return the
 * seconds spent and the operator count in "*ops". */
static double
run(long target, int tp, long *ops)
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

/* Measure the "n" sizes "sizes" (operator targets) for the case "name"
 * ("infer": shapes only; "check": shapes and sharding), with the goal
 * "goal_ns" per operator, keeping the best of "reps" runs per size (0:
 * 20 up to 1k operators, 3 up to 10k, else 1). */
static void
bench(const char *name, int tp, double goal_ns, size_t n, const long *sizes,
    long reps)
{
	double per0 = 0, perN = 0;
	char w0[24], wn[24];

	for (size_t i = 0; i < n; i++) {
		long ops = 0,
		     rr = reps > 0      ? reps
		    : sizes[i] <= 1000  ? 20
		    : sizes[i] <= 10000 ? 3
		                        : 1;
		double best = 1e30;

		for (long r = 0; r < rr; r++) {
			double t = run(sizes[i], tp, &ops);

			best = t < best ? t : best;
		}
		perN = best / (double)ops * 1e9;
		if (i == 0)
			per0 = perN;
		printf("{\"bench\":\"graph\",\"case\":\"%s\","
		       "\"target_ops\":%ld,\"ops\":%ld,\"seconds\":%.4f,"
		       "\"ns_per_op\":%.1f}\n",
		    name, sizes[i], ops, best, perN);
		fflush(stdout);
	}
	if (n < 2)
		return;
	size_words(sizes[0], w0, sizeof(w0));
	size_words(sizes[n - 1], wn, sizeof(wn));
	printf("{\"bench\":\"graph\",\"case\":\"%s_summary\","
	       "\"ns_per_op_%s\":%.1f,\"ns_per_op_%s\":%.1f,"
	       "\"growth_%s_over_%s\":%.3f,\"goal_ns_per_op\":%.0f,"
	       "\"goal_growth\":2.0,\"goals_met\":%s}\n",
	    name, w0, per0, wn, perN, wn, w0, perN / per0, goal_ns,
	    perN <= goal_ns && perN / per0 <= 2.0 ? "true" : "false");
}

/* Print the usage of the benchmark to "f". */
static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: bench_graph [-r REPS] [infer|check [OPS...]]\n"
	    "Without arguments, times both cases at 1k, 10k and 100k "
	    "operators.\n"
	    "  infer       shape inference of stacked transformer blocks\n"
	    "  check       the full check: shapes and tensor-parallel "
	    "sharding on 8 devices\n"
	    "  OPS         operator counts to time (default 1000 10000 "
	    "100000)\n"
	    "  -r REPS     keep the best of REPS runs per size (default 20 "
	    "up to 1k\n"
	    "              operators, 3 up to 10k, else 1)\n");
}

int
main(int argc, char **argv)
{
	static const long dflt[] = { 1000, 10000, 100000 };
	long sizes[16], reps = 0;
	size_t n = 0;
	int a = 1, which = 3; /* 1: infer, 2: check */

	if (a < argc &&
	    (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (a + 1 < argc && !strcmp(argv[a], "-r")) {
		reps = strtol(argv[a + 1], NULL, 10);
		a += 2;
	}
	if (a < argc) {
		which = !strcmp(argv[a], "infer") ? 1
		    : !strcmp(argv[a], "check")   ? 2
		                                  : 0;
		a++;
	}
	for (; which && a < argc && n < 16; a++) {
		sizes[n] = strtol(argv[a], NULL, 10);
		if (sizes[n++] < 1)
			which = 0;
	}
	if (!which || reps < 0 || a < argc) {
		usage(stderr);
		return 2;
	}
	if (n == 0) {
		memcpy(sizes, dflt, sizeof(dflt));
		n = 3;
	}
	bench_header("bench_graph");
	printf("# shape inference (infer) and the full check with "
	       "tensor-parallel sharding on 8 devices (check) of stacked "
	       "transformer blocks (bench/bench_graph)\n");
	if (which & 1)
		bench("infer", 0, 2000, n, sizes, reps);
	if (which & 2)
		bench("check", 1, 20000, n, sizes, reps);
	return 0;
}
