/*
 * Benchmark of slice plans: stacked transformer blocks with a dynamic
 * batch b and sequence length s, tensor-parallel on 8 devices, compiled
 * once into a slice plan. For each of a series of sizes (b, s) it times
 * binding the plan and evaluating every slice (the local size and the
 * offset of every dimension of every plan tensor on every rank), and, in
 * the same run, the baseline: building the same graph again with those
 * sizes as constants through the C API, which infers the shape of every
 * operator. Prints one JSON line per graph size with the time per slice
 * dimension, the ratio of the two and whether the goals (>= 100x faster,
 * <= 10 ns per slice dimension) are met. Also printed: the binding alone
 * (the program, the checks and every rank's offsets), the same reading
 * rank by rank (sym_slices_offset), and the ratio to a baseline that
 * shards the constant graph too, which is what it takes to know the
 * local sizes without a plan.
 *
 * "goals_met" is for what one rank does at each step (DESIGN 8): bind,
 * then read its own local sizes and offsets of every tensor
 * ("one_rank_us"); "goals_met_all_ranks" for reading every rank's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symshard.h>

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

/* Return a reshape of "x" to [b, s, 12, 64], transposed by "p". */
static sym_value *
heads(struct builder *B, sym_value *x, const char *name, const char *tname,
    int l, const int *p)
{
	sym_expr *d[4] = { dim_b(B), dim_s(B), sym_expr_const(B->ctx, 12),
		sym_expr_const(B->ctx, 64) };

	return transpose(B, reshape(B, x, name, l, 4, d), tname, l, p);
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

/* Add one transformer block applied to "x" [b, s, 768] to "B"; return
 * its output. Column-parallel projections, row-parallel outputs. */
static sym_value *
block(struct builder *B, sym_value *x, int l, sym_attrs *ln, sym_attrs *sm)
{
	static const int p0213[] = { 0, 2, 1, 3 }, p0231[] = { 0, 2, 3, 1 };
	static const char *col = "((1, 1), (1, 8))", *row = "((1, 8), (8, 1))";
	sym_value *in[3], *h, *q, *k, *v, *t, *r1, *f;

	in[0] = x;
	in[1] = param(B, "ln1g", l, 768, 0);
	in[2] = param(B, "ln1b", l, 768, 0);
	h = rows(B, op(B, "layer_norm", "h", l, 3, in, ln, NULL), "h2", l, 1);
	in[0] = h;
	in[1] = param(B, "wq", l, 768, 768);
	q = op(B, "matmul", "q", l, 2, in, NULL, col);
	in[1] = param(B, "wk", l, 768, 768);
	k = op(B, "matmul", "k", l, 2, in, NULL, col);
	in[1] = param(B, "wv", l, 768, 768);
	v = op(B, "matmul", "v", l, 2, in, NULL, col);
	in[0] = heads(B, q, "q4", "qh", l, p0213);
	in[1] = heads(B, k, "k4", "kh", l, p0231);
	t = op(B, "batch_matmul", "scores", l, 2, in, NULL, NULL);
	in[0] = t;
	in[1] = param(B, "scale", l, 1, 0);
	t = op(B, "mul", "scaled", l, 2, in, NULL, NULL);
	in[0] = op(B, "softmax", "probs", l, 1, &t, sm, NULL);
	in[1] = heads(B, v, "v4", "vh", l, p0213);
	t = op(B, "batch_matmul", "ctx", l, 2, in, NULL, NULL);
	t = rows(B, transpose(B, t, "ctx2", l, p0213), "ctx3", l, 1);
	in[0] = t;
	in[1] = param(B, "wo", l, 768, 768);
	t = rows(B, op(B, "matmul", "attn", l, 2, in, NULL, row), "attn3", l,
	    0);
	in[0] = x;
	in[1] = t;
	r1 = op(B, "add", "r1", l, 2, in, NULL, NULL);
	in[0] = r1;
	in[1] = param(B, "ln2g", l, 768, 0);
	in[2] = param(B, "ln2b", l, 768, 0);
	h = rows(B, op(B, "layer_norm", "h3", l, 3, in, ln, NULL), "h4", l, 1);
	in[0] = h;
	in[1] = param(B, "w1", l, 768, 3072);
	f = op(B, "matmul", "f1", l, 2, in, NULL, col);
	f = op(B, "gelu", "g1", l, 1, &f, NULL, NULL);
	in[0] = f;
	in[1] = param(B, "w2", l, 3072, 768);
	f = rows(B, op(B, "matmul", "f2", l, 2, in, NULL, row), "f3", l, 0);
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
 * "layers" blocks with the constant sizes "b" and "s" (the baseline),
 * context included; with "shard", sharding it too. */
static double
baseline(int layers, int64_t b, int64_t s, int shard)
{
	struct builder B;
	double t0, t1;

	memset(&B, 0, sizeof(B));
	t0 = now();
	B.ctx = sym_ctx_new();
	B.b = b;
	B.s = s;
	B.sharded = shard;
	build(&B, layers);
	sym_graph_free(B.g);
	sym_ctx_free(B.ctx);
	t1 = now();
	return t1 - t0;
}

/* Bind "values" to "s" of "p" and read every slice: the local size of
 * every dimension of every tensor and its offset on every rank, all
 * ranks at once ("each" 1: rank by rank, sym_slices_offset; 2: only the
 * slices of one rank, as its executor reads them); return the
 * sum of what was read, so that nothing is optimized away. */
static int64_t
bind_all(const sym_plan *p, sym_slices *s, const int64_t *values, int each)
{
	size_t nt = sym_plan_n_tensors(p);
	int64_t nr = sym_plan_n_ranks(p), v[16], sum = 0;

	if (sym_plan_bind_values(p, values, s) < 0)
		die(sym_graph_get_ctx(sym_plan_graph(p)), "binding");
	for (size_t t = 0; t < nt; t++) {
		size_t k = sym_plan_tensor_rank(p, t), n = (size_t)nr * k;
		if (each == 2) {
			const int64_t *o = sym_slices_offsets(s, t);
			const int64_t *l = sym_slices_local_sizes(s, t);

			o += (size_t)(nr / 2) * k;
			for (size_t d = 0; d < k; d++)
				sum += l[d] + o[d];
			continue;
		}
		if (!each) {
			const int64_t *o = sym_slices_offsets(s, t);
			const int64_t *l = sym_slices_local_sizes(s, t);

			for (size_t d = 0; d < k; d++)
				sum += l[d];
			for (size_t i = 0; i < n; i++)
				sum += o[i];
			continue;
		}
		sym_slices_local(s, t, v);
		for (size_t d = 0; d < k; d++)
			sum += v[d];
		for (int64_t r = 0; r < nr; r++) {
			sym_slices_offset(s, t, r, v);
			for (size_t d = 0; d < k; d++)
				sum += v[d];
		}
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

/* The best of "reps" runs of bind_all (with "each"; when "each" is -1,
 * the binding alone) at size "i". */
static double
best_bind(const sym_plan *p, sym_slices *s, size_t i, int reps, int each,
    int64_t *check)
{
	double best = 1e30;

	for (int r = 0; r < reps; r++) {
		double t0 = now(), t;

		if (each >= 0)
			*check += bind_all(p, s, sizes[i], each);
		else if (sym_plan_bind_values(p, sizes[i], s) < 0)
			die(NULL, "binding");
		t = now() - t0;
		best = t < best ? t : best;
	}
	return best;
}

/* Measure the graph of "layers" blocks: compile it, then per size the
 * best of "reps" bindings with every slice against the best of three
 * baseline builds (inference; inference and sharding); print one JSON
 * line. Return 1 when the goals are met. */
static int
bench(int layers, int reps)
{
	struct builder B;
	sym_plan *p;
	sym_slices *s;
	size_t dims = 0, nt;
	double t0, compile, all = 0, each = 0, base = 0, base_shard = 0;
	double bind = 0, one = 0;
	double worst_ns = 0, ratio, ns;
	int64_t check = 0;
	int met, met_all;

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
	for (size_t t = 0; t < nt; t++)
		dims += sym_plan_tensor_rank(p, t);
	dims *= (size_t)sym_plan_n_ranks(p);
	for (size_t i = 0; i < N_SIZES; i++) {
		double a = best_bind(p, s, i, reps, 0, &check), b = 1e30,
		       c = 1e30;

		each += best_bind(p, s, i, reps, 1, &check);
		one += best_bind(p, s, i, reps, 2, &check);
		bind += best_bind(p, s, i, reps, -1, &check);
		for (int r = 0; r < 3; r++) {
			double t =
			    baseline(layers, sizes[i][0], sizes[i][1], 0);

			b = t < b ? t : b;
			t = baseline(layers, sizes[i][0], sizes[i][1], 1);
			c = t < c ? t : c;
		}
		all += a;
		base += b;
		base_shard += c;
		ns = a / (double)dims * 1e9;
		worst_ns = ns > worst_ns ? ns : worst_ns;
	}
	ratio = base / all;
	met_all = ratio >= 100 && worst_ns <= 10;
	met = base / one >= 100 &&
	    one / N_SIZES / (double)(dims / (size_t)sym_plan_n_ranks(p)) *
	            1e9 <=
	        10;
	printf(
	    "{\"bench\":\"plan\",\"layers\":%d,\"ops\":%ld,"
	    "\"ranks\":%lld,\"tensors\":%zu,\"steps\":%zu,"
	    "\"instructions\":%zu,\"checks\":%zu,\"groups\":%zu,"
	    "\"slice_dims\":%zu,\"sizes\":%zu,\"compile_ms\":%.3f,"
	    "\"bind_us\":%.3f,\"bind_and_slices_us\":%.3f,\"ns_per_slice_dim\":%.3f,"
	    "\"worst_ns_per_slice_dim\":%.3f,"
	    "\"rank_by_rank_us\":%.3f,\"ns_per_slice_dim_rank_by_rank\":"
	    "%.3f,\"baseline_infer_us\":%.1f,"
	    "\"baseline_infer_shard_us\":%.1f,\"ratio\":%.1f,"
	    "\"ratio_rank_by_rank\":%.1f,\"ratio_vs_infer_shard\":%.1f,"
	    "\"one_rank_us\":%.3f,\"ns_per_slice_dim_one_rank\":%.3f,"
	    "\"ratio_one_rank\":%.1f,"
	    "\"goal_ratio\":100,\"goal_ns\":10,\"goals_met\":%s,"
	    "\"goals_met_all_ranks\":%s,\"checksum\":%lld}\n",
	    layers, B.ops, (long long)sym_plan_n_ranks(p), nt,
	    sym_plan_n_steps(p), sym_plan_n_instructions(p),
	    sym_plan_n_checks(p), plan_groups(p, s), dims, N_SIZES,
	    compile * 1e3, bind / N_SIZES * 1e6, all / N_SIZES * 1e6,
	    all / N_SIZES / (double)dims * 1e9, worst_ns, each / N_SIZES * 1e6,
	    each / N_SIZES / (double)dims * 1e9, base / N_SIZES * 1e6,
	    base_shard / N_SIZES * 1e6, ratio, base / each, base_shard / all,
	    one / N_SIZES * 1e6,
	    one / N_SIZES / (double)(dims / (size_t)sym_plan_n_ranks(p)) * 1e9,
	    base / one, met ? "true" : "false", met_all ? "true" : "false",
	    (long long)check);
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(B.g);
	if (sym_ctx_live_objects(B.ctx) != 0)
		die(B.ctx, "leaked objects");
	sym_ctx_free(B.ctx);
	return met;
}

int
main(void)
{
	printf("# slice plans: bind + every slice on 8 ranks vs shape "
	       "inference of the same graph with constant sizes "
	       "(bench/bench_plan)\n");
	bench(1, 200);
	bench(8, 50);
	bench(32, 20);
	return 0;
}
