/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of slice plans: stacked transformer blocks with a dynamic
 * batch b and sequence length s on 8 devices, compiled once into a slice
 * plan. The layers differ (layer_of): each has its own number of heads,
 * folded into the batch of its attention ([b * heads, s, 64]), its own
 * feed-forward width and one of four strategies (tensor-parallel,
 * data-parallel, 2 x 4, 4 x 2), so that the plan grows with the graph.
 * For each of a series of sizes (b, s) it times binding the plan and
 * evaluating every slice (the local size and the offset of every
 * dimension of every plan tensor), and, in the same run, the baseline:
 * building the same graph again with those sizes as constants through the
 * C API, which infers the shape of every operator. Both sides are timed
 * alike: the median of the same number of repetitions, setup and
 * teardown (the plan's compilation and first binding; the baseline's
 * context, and freeing its graph) left out of both. Prints one JSON line
 * per graph size with the time per slice dimension, the ratios and
 * whether the goals (>= 100x faster, <= 10 ns per slice dimension) are
 * met.
 *
 * The slices are read the way an executor reads them: it fetches the
 * arrays of the tensors it uses once (sym_slices_local_sizes and
 * sym_slices_offsets give the same pointers after every binding), then,
 * at each step, binds and reads the new numbers through them. There are
 * two readings, each with its own goal flag: what one rank does at each
 * step (HACKING.md section 3), bind then read the local sizes and offsets of every
 * tensor on that rank ("one_rank_us", "goals_met_one_rank"), and bind
 * then read those of all 8 ranks ("all_ranks_us", "goals_met_all_ranks");
 * "goals_met" is both.
 *
 * Also printed: the binding alone (the checks, the program and every
 * rank's offsets); the same readings with the accessor calls made again
 * at every step ("..._calls"), and rank by rank with copies
 * (sym_slices_offset); and the ratio to a baseline that shards the
 * constant graph too, which is what it takes to know the local sizes
 * without a plan.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symshard.h>

#include "util.h"

/* The sizes bound at each step of the simulated dynamic-shape run. */
static const int64_t sizes[][2] = { { 8, 128 }, { 16, 256 }, { 40, 384 },
	{ 64, 512 }, { 8, 1024 }, { 32, 2048 }, { 24, 640 }, { 128, 128 } };
#define N_SIZES (sizeof(sizes) / sizeof(*sizes))

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
	fprintf(stderr, "bench_plan: %s: %s\n", what,
	    ctx ? sym_ctx_last_message(ctx) : "");
	exit(1);
}

/* A graph being built: symbolic (b and s are symbols) or constant (b
 * and s are numbers); sharded (8 devices, tensor-parallel strategies) or
 * not (what shape inference alone sees). */
struct builder {
	sym_ctx *ctx;
	sym_graph *g;
	int symbolic, sharded;
	int64_t b, s;        /* the constant sizes */
	sym_symbol *bs, *ss; /* the symbols */
	long ops;
	char name[64];
};

/* Return a caller reference to the batch size of "B". */
static sym_expr *
dim_b(struct builder *B)
{
	return B->symbolic ? sym_expr_symbol(B->bs)
	                   : sym_expr_const(B->ctx, B->b);
}

/* Return a caller reference to the sequence length of "B". */
static sym_expr *
dim_s(struct builder *B)
{
	return B->symbolic ? sym_expr_symbol(B->ss)
	                   : sym_expr_const(B->ctx, B->s);
}

/* Write "prefix"_"layer" into the name buffer of "B" (cheaply, so that
 * the harness does not weigh on the baseline). */
static void
set_name(struct builder *B, const char *prefix, int layer)
{
	char digits[16];
	size_t n = strlen(prefix), k = 0;

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

/* Return the parameter "prefix"_"layer" of "B", f32[d0] or f32[d0, d1]
 * (d1 not 0). */
static sym_value *
param(struct builder *B, const char *prefix, int layer, int64_t d0, int64_t d1)
{
	sym_expr *d[2] = { sym_expr_const(B->ctx, d0),
		sym_expr_const(B->ctx, d1) };
	sym_shape *sh = sym_shape_new(B->ctx, SYM_DT_F32, d1 ? 2 : 1, d);
	sym_value *v;

	set_name(B, prefix, layer);
	v = sym_graph_add_input(B->g, B->name, SYM_VALUE_PARAM, sh, NULL);
	sym_shape_free(sh);
	sym_expr_free(d[0]);
	sym_expr_free(d[1]);
	if (!v)
		die(B->ctx, "param");
	return v;
}

/* Apply "opname" to the "n" values "in" with "attrs" in "B"; with
 * "strategy" (not NULL) in a symbolic graph, give the node that shard
 * clause. Return the result. */
static sym_value *
op(struct builder *B, const char *opname, const char *prefix, int layer,
    size_t n, sym_value **in, const sym_attrs *attrs, const char *strategy)
{
	const char *names[1];
	sym_node *node;

	set_name(B, prefix, layer);
	names[0] = B->name;
	node = sym_graph_add_op(B->g, opname, 1, names, n, in, attrs, NULL);
	if (!node || sym_graph_n_errors(B->g) > 0)
		die(B->ctx, opname);
	if (strategy && B->sharded &&
	    sym_node_set_strategy(B->g, node, strategy, NULL) < 0)
		die(B->ctx, "strategy");
	B->ops++;
	return sym_node_output(node, 0);
}

/* Return a reshape of "x" to the "n" dimensions "d" (consumed). */
static sym_value *
reshape(struct builder *B, sym_value *x, const char *prefix, int layer,
    size_t n, sym_expr **d)
{
	sym_attrs *a = sym_attrs_new(B->ctx);
	sym_value *r;

	sym_attrs_set_list(a, "shape", n, d);
	for (size_t i = 0; i < n; i++)
		sym_expr_free(d[i]);
	r = op(B, "reshape", prefix, layer, 1, &x, a, NULL);
	sym_attrs_free(a);
	return r;
}

/* Return a transpose of "x" by the permutation "p" of 4 axes. */
static sym_value *
transpose(struct builder *B, sym_value *x, const char *prefix, int layer,
    const int *p)
{
	sym_attrs *a = sym_attrs_new(B->ctx);
	sym_expr *d[4];
	sym_value *r;

	for (int i = 0; i < 4; i++)
		d[i] = sym_expr_const(B->ctx, p[i]);
	sym_attrs_set_list(a, "perm", 4, d);
	for (int i = 0; i < 4; i++)
		sym_expr_free(d[i]);
	r = op(B, "transpose", prefix, layer, 1, &x, a, NULL);
	sym_attrs_free(a);
	return r;
}

/* The shape of layer "l": its heads of 64 (4 to 32, a different count in
 * each of 29 layers running), its feed-forward width, and its strategy
 * (tensor-parallel on 8, data-parallel on 8, 2 x 4 or 4 x 2), so that
 * the layers differ and the plan grows with the graph. */
struct layer {
	int64_t heads, ffn;
	const char *col, *row, *bmm;
};

/* Return the shape of layer "l". */
static struct layer
layer_of(int l)
{
	static const char *const st[4][3] = {
		{ "((1, 1), (1, 8))", "((1, 8), (8, 1))",
		    "((8, 1, 1), (8, 1, 1))" },
		{ "((8, 1), (1, 1))", "((8, 1), (1, 1))",
		    "((8, 1, 1), (8, 1, 1))" },
		{ "((2, 1), (1, 4))", "((2, 4), (4, 1))",
		    "((4, 1, 1), (4, 1, 1))" },
		{ "((4, 1), (1, 2))", "((4, 2), (2, 1))",
		    "((2, 1, 1), (2, 1, 1))" },
	};
	struct layer y;

	y.heads = 4 + (l * 7) % 29;
	y.ffn = 256 * (4 + (l * 5) % 13);
	y.col = st[l % 4][0];
	y.row = st[l % 4][1];
	y.bmm = st[l % 4][2];
	return y;
}

/* Return "x" [b * s, 64 h] as [b * h, s, 64] (heads folded into the
 * batch), its last two axes swapped when "kt". */
static sym_value *
heads(struct builder *B, sym_value *x, const char *name, int l, int64_t h,
    int kt)
{
	static const int p0213[] = { 0, 2, 1, 3 }, p0231[] = { 0, 2, 3, 1 };
	char n1[16], n2[16];
	sym_expr *d[4] = { dim_b(B), dim_s(B), sym_expr_const(B->ctx, h),
		sym_expr_const(B->ctx, 64) };
	sym_expr *hb = sym_expr_const(B->ctx, h);

	snprintf(n1, sizeof(n1), "%s4", name);
	snprintf(n2, sizeof(n2), "%sh", name);
	x = transpose(B, reshape(B, x, n1, l, 4, d), n2, l, kt ? p0231 : p0213);
	d[0] = sym_expr_mul(dim_b(B), hb);
	d[1] = kt ? sym_expr_const(B->ctx, 64) : dim_s(B);
	d[2] = kt ? dim_s(B) : sym_expr_const(B->ctx, 64);
	return reshape(B, x, name, l, 3, d);
}

/* Return "x" [b * h, s, 64] back as [b * s, 64 h]. */
static sym_value *
unheads(struct builder *B, sym_value *x, int l, int64_t h)
{
	static const int p0213[] = { 0, 2, 1, 3 };
	sym_expr *d[4] = { dim_b(B), sym_expr_const(B->ctx, h), dim_s(B),
		sym_expr_const(B->ctx, 64) };

	x = transpose(B, reshape(B, x, "ctx4", l, 4, d), "ctx2", l, p0213);
	d[0] = sym_expr_const(B->ctx, -1);
	d[1] = sym_expr_const(B->ctx, 64 * h);
	return reshape(B, x, "ctx3", l, 2, d);
}

/* Return a reshape of "x" to [-1, 768] ("flat") or [b, s, 768]. */
static sym_value *
rows(struct builder *B, sym_value *x, const char *name, int l, int flat)
{
	sym_expr *d[3];

	if (flat) {
		d[0] = sym_expr_const(B->ctx, -1);
		d[1] = sym_expr_const(B->ctx, 768);
		return reshape(B, x, name, l, 2, d);
	}
	d[0] = dim_b(B);
	d[1] = dim_s(B);
	d[2] = sym_expr_const(B->ctx, 768);
	return reshape(B, x, name, l, 3, d);
}

/* Add the transformer block of layer "l" (layer_of) applied to "x" [b,
 * s, 768] to "B"; return its output. */
static sym_value *
block(struct builder *B, sym_value *x, int l, sym_attrs *ln, sym_attrs *sm)
{
	struct layer y = layer_of(l);
	int64_t w = 64 * y.heads;
	sym_value *in[3], *h, *q, *k, *v, *t, *r1, *f;

	in[0] = x;
	in[1] = param(B, "ln1g", l, 768, 0);
	in[2] = param(B, "ln1b", l, 768, 0);
	h = rows(B, op(B, "layer_norm", "h", l, 3, in, ln, NULL), "h2", l, 1);
	in[0] = h;
	in[1] = param(B, "wq", l, 768, w);
	q = op(B, "matmul", "q", l, 2, in, NULL, y.col);
	in[1] = param(B, "wk", l, 768, w);
	k = op(B, "matmul", "k", l, 2, in, NULL, y.col);
	in[1] = param(B, "wv", l, 768, w);
	v = op(B, "matmul", "v", l, 2, in, NULL, y.col);
	in[0] = heads(B, q, "q3", l, y.heads, 0);
	in[1] = heads(B, k, "k3", l, y.heads, 1);
	t = op(B, "batch_matmul", "scores", l, 2, in, NULL, y.bmm);
	in[0] = t;
	in[1] = param(B, "scale", l, 1, 0);
	t = op(B, "mul", "scaled", l, 2, in, NULL, NULL);
	in[0] = op(B, "softmax", "probs", l, 1, &t, sm, NULL);
	in[1] = heads(B, v, "v3", l, y.heads, 0);
	t = op(B, "batch_matmul", "ctx", l, 2, in, NULL, y.bmm);
	in[0] = unheads(B, t, l, y.heads);
	in[1] = param(B, "wo", l, w, 768);
	t = rows(B, op(B, "matmul", "attn", l, 2, in, NULL, y.row), "attn3", l,
	    0);
	in[0] = x;
	in[1] = t;
	r1 = op(B, "add", "r1", l, 2, in, NULL, NULL);
	in[0] = r1;
	in[1] = param(B, "ln2g", l, 768, 0);
	in[2] = param(B, "ln2b", l, 768, 0);
	h = rows(B, op(B, "layer_norm", "h3", l, 3, in, ln, NULL), "h4", l, 1);
	in[0] = h;
	in[1] = param(B, "w1", l, 768, y.ffn);
	f = op(B, "matmul", "f1", l, 2, in, NULL, y.col);
	f = op(B, "gelu", "g1", l, 1, &f, NULL, NULL);
	in[0] = f;
	in[1] = param(B, "w2", l, y.ffn, 768);
	f = rows(B, op(B, "matmul", "f2", l, 2, in, NULL, y.row), "f3", l, 0);
	in[0] = r1;
	in[1] = f;
	return op(B, "add", "y", l, 2, in, NULL, NULL);
}

/* Build in "B" (its context and modes set) a graph of "layers" blocks,
 * sharded on 8 devices when "B" says so. */
static void
build(struct builder *B, int layers)
{
	sym_attrs *ln = sym_attrs_new(B->ctx), *sm = sym_attrs_new(B->ctx);
	sym_expr *d[3];
	sym_shape *sh;
	sym_value *x;

	sym_attrs_set_int(ln, "begin_norm_axis", 2);
	sym_attrs_set_int(ln, "begin_params_axis", 2);
	sym_attrs_set_int(sm, "axis", -1);
	B->g = sym_graph_new(B->ctx);
	if (B->sharded)
		sym_graph_set_devices(B->g, 8, NULL);
	d[0] = dim_b(B);
	d[1] = dim_s(B);
	d[2] = sym_expr_const(B->ctx, 768);
	sh = sym_shape_new(B->ctx, SYM_DT_F32, 3, d);
	x = sym_graph_add_input(B->g, "x", SYM_VALUE_INPUT, sh, NULL);
	sym_shape_free(sh);
	for (int i = 0; i < 3; i++)
		sym_expr_free(d[i]);
	for (int l = 0; l < layers; l++)
		x = block(B, x, l, ln, sm);
	sym_graph_mark_output(B->g, x, NULL);
	sym_attrs_free(ln);
	sym_attrs_free(sm);
	if (B->sharded && sym_graph_shard(B->g, NULL) < 0)
		die(B->ctx, "sharding");
	if (sym_graph_n_errors(B->g) != 0)
		die(B->ctx, "unexpected errors");
}

/* Return the seconds shape inference takes to build the graph of
 * "layers" blocks with the constant sizes "b" and "s" (the baseline), in a
 * new context made and freed untimed; with "shard", sharding it too. */
static double
baseline(int layers, int64_t b, int64_t s, int shard)
{
	struct builder B;
	double t0, t1;

	memset(&B, 0, sizeof(B));
	B.ctx = sym_ctx_new();
	if (!B.ctx)
		die(NULL, "out of memory");
	B.b = b;
	B.s = s;
	B.sharded = shard;
	t0 = now();
	build(&B, layers);
	t1 = now();
	sym_graph_free(B.g);
	sym_ctx_free(B.ctx);
	return t1 - t0;
}

/* What a step reads: every rank's slices or one rank's, through the
 * arrays fetched once or through accessor calls made at each step, or
 * rank by rank with copies; or nothing (the binding alone). */
enum mode {
	ALL_FETCHED,
	ONE_FETCHED,
	ALL_CALLS,
	ONE_CALLS,
	RANK_BY_RANK,
	BIND_ONLY,
	N_MODES
};

/* The arrays of one tensor, fetched once after the first binding. */
struct view {
	const int64_t *local, *offsets;
	size_t k;
};

/* Fetch into "v" the arrays of every tensor of "p" bound in "s". */
static void
fetch(const sym_plan *p, const sym_slices *s, struct view *v)
{
	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		v[t].local = sym_slices_local_sizes(s, t);
		v[t].offsets = sym_slices_offsets(s, t);
		v[t].k = sym_plan_tensor_ndim(p, t);
		if (!v[t].local || !v[t].offsets)
			die(NULL, "unbound slices");
	}
}

/* Bind "values" to "s" of "p" and read the slices as "m" says (one rank:
 * the middle one); return the sum of what was read, so that nothing is
 * optimized away. */
static int64_t
bind_read(const sym_plan *p, sym_slices *s, const struct view *view,
    const int64_t *values, enum mode m)
{
	size_t nt = sym_plan_n_tensors(p), nr = (size_t)sym_plan_n_ranks(p);
	int64_t v[16], sum = 0;

	if (sym_plan_bind_values(p, values, s) < 0)
		die(sym_graph_ctx(sym_plan_graph(p)), "binding");
	switch (m) {
	case ALL_FETCHED:
	case ONE_FETCHED:
		for (size_t t = 0; t < nt; t++) {
			size_t k = view[t].k, n = m == ALL_FETCHED ? nr * k : k;
			const int64_t *o = view[t].offsets;

			if (m == ONE_FETCHED)
				o += nr / 2 * k;
			for (size_t d = 0; d < k; d++)
				sum += view[t].local[d];
			for (size_t i = 0; i < n; i++)
				sum += o[i];
		}
		break;
	case ALL_CALLS:
	case ONE_CALLS:
		for (size_t t = 0; t < nt; t++) {
			size_t k = sym_plan_tensor_ndim(p, t);
			size_t n = m == ALL_CALLS ? nr * k : k;
			const int64_t *o = sym_slices_offsets(s, t);
			const int64_t *l = sym_slices_local_sizes(s, t);

			if (m == ONE_CALLS)
				o += nr / 2 * k;
			for (size_t d = 0; d < k; d++)
				sum += l[d];
			for (size_t i = 0; i < n; i++)
				sum += o[i];
		}
		break;
	case RANK_BY_RANK:
		for (size_t t = 0; t < nt; t++) {
			size_t k = sym_plan_tensor_ndim(p, t);

			sym_slices_local(s, t, v);
			for (size_t d = 0; d < k; d++)
				sum += v[d];
			for (size_t r = 0; r < nr; r++) {
				sym_slices_offset(s, t, (int64_t)r, v);
				for (size_t d = 0; d < k; d++)
					sum += v[d];
			}
		}
		break;
	default:
		break;
	}
	return sum;
}

/* Return the order of the pointers "a" and "b" (for qsort). */
static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const int64_t *const *)a;
	uintptr_t y = (uintptr_t) * (const int64_t *const *)b;

	return x < y ? -1 : x > y;
}

/* Return the number of distinct offset tables of the bound slices "s"
 * of "p": the placement groups a binding computes. */
static size_t
plan_groups(const sym_plan *p, const sym_slices *s)
{
	size_t nt = sym_plan_n_tensors(p), n = 0;
	const int64_t **o = malloc((nt + 1) * sizeof(*o));

	if (!o)
		die(NULL, "out of memory");
	for (size_t t = 0; t < nt; t++)
		o[t] = sym_slices_offsets(s, t);
	qsort(o, nt, sizeof(*o), ptr_cmp);
	for (size_t t = 0; t < nt; t++)
		n += t == 0 || o[t] != o[t - 1];
	free(o);
	return n;
}

/* Return the median of the "n" seconds "t" (which it sorts). */
static double
median(double *t, int n)
{
	return bench_spread_of(t, (size_t)n).median;
}

/* The median time of "reps" runs of bind_read in mode "m" at size "i",
 * using "t" (room for "reps"); what was read is added to "check". */
static double
median_bind(const sym_plan *p, sym_slices *s, const struct view *view, size_t i,
    int reps, enum mode m, int64_t *check, double *t)
{
	for (int r = 0; r < reps; r++) {
		double t0 = now();

		*check += bind_read(p, s, view, sizes[i], m);
		t[r] = now() - t0;
	}
	return median(t, reps);
}

/* The median time of "reps" baseline builds of "layers" blocks at size
 * "i" (with "shard", sharded too), using "t" (room for "reps"). */
static double
median_baseline(int layers, size_t i, int shard, int reps, double *t)
{
	for (int r = 0; r < reps; r++)
		t[r] = baseline(layers, sizes[i][0], sizes[i][1], shard);
	return median(t, reps);
}

/* Measure the graph of "layers" blocks: compile it, then per size the
 * median of "reps" bindings in every mode against the median of as many
 * baseline builds (inference; inference and sharding); print one JSON
 * line. Return 1 when the goals of both readings are met. */
static int
bench(int layers, int reps)
{
	struct builder B;
	sym_plan *p;
	sym_slices *s;
	struct view *view;
	size_t dims = 0, nt, nr;
	double t0, compile, t[N_MODES] = { 0 }, base = 0, base_shard = 0;
	double worst_ns = 0, worst_one_ns = 0;
	int64_t check = 0;
	int met, met_all;
	double *rt = malloc((size_t)reps * sizeof(double));

	memset(&B, 0, sizeof(B));
	B.ctx = sym_ctx_new();
	B.symbolic = B.sharded = 1;
	{
		sym_symbol_info bi = SYM_SYMBOL_INFO_INIT;
		sym_symbol_info si = SYM_SYMBOL_INFO_INIT;

		bi.divisor = 8;
		si.min = 128;
		si.max = 8192;
		si.divisor = 128;
		B.bs = sym_symbol_new(B.ctx, "b", &bi, NULL);
		B.ss = sym_symbol_new(B.ctx, "s", &si, NULL);
	}
	build(&B, layers);
	t0 = now();
	p = sym_plan_compile(B.g, 0);
	compile = now() - t0;
	if (!p)
		die(B.ctx, "sym_plan_compile");
	if (sym_plan_n_symbols(p) != 2 || sym_plan_symbol(p, 0) != B.bs ||
	    sym_plan_symbol(p, 1) != B.ss)
		die(NULL, "the plan's symbols are not b, s");
	s = sym_slices_new(p);
	nt = sym_plan_n_tensors(p);
	nr = (size_t)sym_plan_n_ranks(p);
	view = malloc(nt * sizeof(*view));
	if (!s || !view || !rt)
		die(B.ctx, "out of memory");
	for (size_t i = 0; i < nt; i++)
		dims += sym_plan_tensor_ndim(p, i);
	dims *= nr;
	/* the executor's setup: a first binding, then the arrays */
	if (sym_plan_bind_values(p, sizes[0], s) < 0)
		die(B.ctx, "binding");
	fetch(p, s, view);
	for (size_t i = 0; i < N_SIZES; i++) {
		double ns;

		for (int m = 0; m < N_MODES; m++) {
			double best = median_bind(p, s, view, i, reps,
			    (enum mode)m, &check, rt);

			t[m] += best;
			ns = best / (double)dims * 1e9;
			if (m == ALL_FETCHED && ns > worst_ns)
				worst_ns = ns;
			ns *= (double)nr;
			if (m == ONE_FETCHED && ns > worst_one_ns)
				worst_one_ns = ns;
		}
		base += median_baseline(layers, i, 0, reps, rt);
		base_shard += median_baseline(layers, i, 1, reps, rt);
	}
	/* the same pointers after every binding, as documented */
	for (size_t i = 0; i < nt; i++)
		if (sym_slices_local_sizes(s, i) != view[i].local ||
		    sym_slices_offsets(s, i) != view[i].offsets)
			die(NULL, "the slices moved");
	met_all = base / t[ALL_FETCHED] >= 100 && worst_ns <= 10;
	met = base / t[ONE_FETCHED] >= 100 && worst_one_ns <= 10;
	printf("{\"bench\":\"plan\",\"layers\":%d,\"ops\":%ld,"
	       "\"ranks\":%zu,\"tensors\":%zu,\"steps\":%zu,"
	       "\"instructions\":%zu,\"checks\":%zu,\"groups\":%zu,"
	       "\"slice_dims\":%zu,\"sizes\":%zu,\"compile_ms\":%.3f,"
	       "\"bind_us\":%.3f,"
	       "\"one_rank_us\":%.3f,\"ns_per_slice_dim_one_rank\":%.3f,"
	       "\"ratio_one_rank\":%.1f,"
	       "\"all_ranks_us\":%.3f,\"ns_per_slice_dim\":%.3f,"
	       "\"ratio\":%.1f,"
	       "\"one_rank_calls_us\":%.3f,\"ratio_one_rank_calls\":%.1f,"
	       "\"all_ranks_calls_us\":%.3f,\"ratio_calls\":%.1f,"
	       "\"rank_by_rank_us\":%.3f,\"ratio_rank_by_rank\":%.1f,"
	       "\"baseline_infer_us\":%.1f,\"baseline_infer_shard_us\":%.1f,"
	       "\"ratio_vs_infer_shard\":%.1f,"
	       "\"goal_ratio\":100,\"goal_ns\":10,"
	       "\"goals_met_one_rank\":%s,\"goals_met_all_ranks\":%s,"
	       "\"goals_met\":%s,\"reps\":%d,\"checksum\":%lld}\n",
	    layers, B.ops, nr, nt, sym_plan_n_steps(p),
	    sym_plan_n_instructions(p), sym_plan_n_checks(p), plan_groups(p, s),
	    dims, N_SIZES, compile * 1e3, t[BIND_ONLY] / N_SIZES * 1e6,
	    t[ONE_FETCHED] / N_SIZES * 1e6,
	    t[ONE_FETCHED] / N_SIZES / (double)(dims / nr) * 1e9,
	    base / t[ONE_FETCHED], t[ALL_FETCHED] / N_SIZES * 1e6,
	    t[ALL_FETCHED] / N_SIZES / (double)dims * 1e9,
	    base / t[ALL_FETCHED], t[ONE_CALLS] / N_SIZES * 1e6,
	    base / t[ONE_CALLS], t[ALL_CALLS] / N_SIZES * 1e6,
	    base / t[ALL_CALLS], t[RANK_BY_RANK] / N_SIZES * 1e6,
	    base / t[RANK_BY_RANK], base / N_SIZES * 1e6,
	    base_shard / N_SIZES * 1e6, base_shard / t[ALL_FETCHED],
	    met ? "true" : "false", met_all ? "true" : "false",
	    met && met_all ? "true" : "false", reps, (long long)check);
	free(view);
	free(rt);
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(B.g);
	if (sym_ctx_live_objects(B.ctx) != 0)
		die(B.ctx, "leaked objects");
	sym_ctx_free(B.ctx);
	return met && met_all;
}

int
main(void)
{
	bench_header("bench_plan");
	printf("# slice plans of layers that differ: bind + the slices of one "
	       "rank and of all 8 ranks vs shape inference of the same graph "
	       "with constant sizes, medians of as many repetitions "
	       "(bench/bench_plan)\n");
	bench(1, 100);
	bench(8, 30);
	bench(32, 15);
	return 0;
}
