/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the strategy search (sym_search(3)): against brute-force
 * enumeration of every strategy combination of small graphs at sampled
 * sizes (the search is never worse, by the same cost model); the pieces
 * of a two-layer MLP in training, weight-sharded at small batches and
 * data parallel at large ones, with the breakpoint the cost model
 * implies; a memory cap that forces weight sharding at every size; the
 * level of optimizer sharding chosen under a cap; shard clauses kept;
 * and the errors: no plan fits, a cap below the parameters alone.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

/* Return 1 when the tests should be light (make check-valgrind sets
 * SYMSHARD_EXEC_LIGHT): fewer brute-force combinations and a shorter
 * range for the transformer, the same assertions. */
static int
light(void)
{
	const char *v = getenv("SYMSHARD_EXEC_LIGHT");

	return v && *v && strcmp(v, "0");
}

/* Parse "text" in a new context into "*g" (no errors) and return the
 * context. */
static sym_ctx *
parse(const char *text, sym_graph **g)
{
	sym_ctx *ctx = sym_ctx_new();

	assert_non_null(ctx);
	*g = sym_graph_parse(ctx, text, "search.sg");
	assert_non_null(*g);
	assert_int_equal(sym_graph_n_errors(*g), 0);
	return ctx;
}

/* Shard "g" and price it: its time (femtoseconds) at each of the "n"
 * bindings "b" in "fs"; 0, or -1 when the plan is rejected. */
static int
price(sym_graph *g, sym_binding *const *b, size_t n, int64_t *fs)
{
	sym_cost c;

	memset(&c, 0, sizeof(c));
	if (sym_graph_shard(g, NULL) < 0)
		return -1;
	assert_int_equal(sym_graph_cost(g, NULL, &c), 0);
	for (size_t k = 0; k < n; k++)
		assert_int_equal(sym_expr_eval(c.time_fs, b[k], &fs[k]), 0);
	sym_cost_clear(&c);
	return 0;
}

/* Return the binding of every symbol of "ctx" named "name" (instances
 * included) to "v", the others at their least. */
static sym_binding *
binding(sym_ctx *ctx, const char *name, int64_t v)
{
	sym_binding *b = sym_binding_new(ctx);

	for (size_t i = 0; i < sym_ctx_n_symbols(ctx); i++) {
		sym_symbol *y = sym_ctx_symbol(ctx, i);

		sym_binding_set(b, y,
		    strcmp(sym_symbol_name(sym_symbol_origin(y)), name)
		        ? sym_symbol_least(y)
		        : v);
	}
	return b;
}

/* The split pairs (a, b) with a * b dividing 8. */
static const int pairs[][2] = { { 1, 1 }, { 1, 2 }, { 1, 4 }, { 1, 8 },
	{ 2, 1 }, { 2, 2 }, { 2, 4 }, { 4, 1 }, { 4, 2 }, { 8, 1 } };
#define N_PAIRS (sizeof(pairs) / sizeof(pairs[0]))

/* A matmul, a relu and a matmul on 8 devices, in training: the loss
 * keeps its shard clause (the search never changes it), the backward
 * and update operators follow the forward ones. */
static const char chain[] =
    "devices 8\n"
    "symbol b divisor=8 max=4096\n"
    "input  x : f32[b, 64]\n"
    "input  y : i32[b]\n"
    "param  w1 : f32[64, 256]\n"
    "param  w2 : f32[256, 32]\n"
    "h = matmul(x, w1)\n"
    "a = relu(h)\n"
    "o = matmul(a, w2)\n"
    "loss = softmax_cross_entropy(o, y) shard ((8, 1), (8,))\n"
    "output loss\n"
    "minimize loss with momentum(lr=0.1, momentum=0.9)\n";

/* Write the strategy of a matmul whose first input splits "p" and whose
 * second splits (p[1], "c") into "buf", with the output strategy of a
 * ReduceScatter of its partial sums along dimension 0 when "rs" is set. */
static const char *
mm(char *buf, size_t size, const int *p, int c, int rs)
{
	if (rs)
		snprintf(buf, size, "((%d, %d), (%d, %d)) -> ((%d, %d),)", p[0],
		    p[1], p[1], c, p[0] * p[1], c);
	else
		snprintf(buf, size, "((%d, %d), (%d, %d))", p[0], p[1], p[1],
		    c);
	return buf;
}

/* The strategies of a matmul: the pair of splits of its first input,
 * the split of the second's columns, and whether its partial sums are
 * reduce-scattered; "i" counts through them; 0 past the last. */
static int
mm_option(int i, const int **pair, int *c, int *rs)
{
	for (size_t k = 0; k < N_PAIRS; k++)
		for (int cc = 1; cc <= 8; cc *= 2)
			for (int r = 0; r < 2; r++) {
				if (8 % (pairs[k][0] * pairs[k][1] * cc) ||
				    (r && pairs[k][1] == 1))
					continue;
				if (i-- == 0) {
					*pair = pairs[k];
					*c = cc;
					*rs = r;
					return 1;
				}
			}
	return 0;
}

/* Return the value of "e" at b = "v" in the context of "ctx". */
static int64_t
at_b(sym_ctx *ctx, const sym_expr *e, int64_t v)
{
	sym_binding *b = binding(ctx, "b", v);
	int64_t x = -1;

	assert_int_equal(sym_expr_eval(e, b, &x), 0);
	sym_binding_free(b);
	return x;
}

/* Return the time of the piece of "s" covering b = "b", its second
 * symbol (if any) at its least (context "ctx"); fails the test when no
 * piece covers it. */
static int64_t
time_at(sym_ctx *ctx, const sym_search *s, int64_t b)
{
	const sym_symbol *y2 = sym_search_symbol(s, 1);
	int64_t least2 = y2 ? sym_symbol_least(y2) : 0;
	size_t i;
	int64_t lo, hi, lo2 = 0, hi2 = -1;

	for (i = 0; i < sym_search_n_pieces(s); i++) {
		assert_int_equal(sym_search_piece_range(s, i, 0, &lo, &hi), 0);
		if (y2)
			assert_int_equal(sym_search_piece_range(s, i, 1, &lo2,
			                     &hi2),
			    0);
		if (b >= lo && (hi < 0 || b <= hi) && least2 >= lo2 &&
		    (hi2 < 0 || least2 <= hi2))
			break;
	}
	assert_true(i < sym_search_n_pieces(s));
	return at_b(ctx, sym_search_piece_femtoseconds(s, i), b);
}

/* Brute force on "chain": every combination of matmul strategies
 * ((a, k), (k, c)) with a*k*c dividing 8, each with its partial sums
 * all-reduced or, when k > 1, reduce-scattered, and of relu strategies
 * (r0, r1), each priced by the cost model at sampled sizes; the search
 * (enumerating, as its limit allows) is never worse than the best of
 * them at any sampled size, and finds as many valid plans. */
static void
test_brute_force(void **state)
{
	static const int64_t sizes[] = { 8, 64, 512, 4096 };
	sym_graph *g;
	sym_ctx *ctx = parse(chain, &g);
	sym_node *n1 = sym_graph_node(g, 0), *n2 = sym_graph_node(g, 1),
	         *n3 = sym_graph_node(g, 2);
	sym_binding *b[4];
	int64_t best[4], fs[4];
	long combos = 0, valid = 0;
	char t1[64], t2[64], t3[64];
	const int *p1, *p3;
	int c1, c3, rs1, rs3;

	(void)state;
	for (int k = 0; k < 4; k++) {
		best[k] = INT64_MAX;
		b[k] = binding(ctx, "b", sizes[k]);
	}
	for (int i = 0; mm_option(i, &p1, &c1, &rs1); i++)
		for (size_t r = 0; r < N_PAIRS; r++)
			for (int j = 0; mm_option(j, &p3, &c3, &rs3); j++) {
				if (combos++ % (light() ? 7 : 1))
					continue;
				snprintf(t2, sizeof(t2), "((%d, %d),)",
				    pairs[r][0], pairs[r][1]);
				assert_int_equal(sym_node_set_strategy(g, n1,
				                     mm(t1, sizeof(t1), p1, c1,
				                         rs1),
				                     NULL),
				    0);
				assert_int_equal(sym_node_set_strategy(g, n2,
				                     t2, NULL),
				    0);
				assert_int_equal(sym_node_set_strategy(g, n3,
				                     mm(t3, sizeof(t3), p3, c3,
				                         rs3),
				                     NULL),
				    0);
				if (price(g, b, 4, fs) < 0)
					continue;
				valid++;
				for (int k = 0; k < 4; k++)
					if (fs[k] < best[k])
						best[k] = fs[k];
			}
	for (int k = 0; k < 4; k++)
		sym_binding_free(b[k]);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	print_message("brute force: %ld combinations, %ld priced\n", combos,
	    valid);
	assert_true(valid > (light() ? 500 : 5000));
	for (int pass = 0; pass < 2; pass++) {
		sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
		sym_search *s;

		/* The search enumerating every combination, then the cost
		 * graph (an enumeration limit of one plan). The cost graph's
		 * terms are exact but where the pass cannot derive a weight
		 * gradient from its matmul (a ReduceScatter output splits the
		 * batch its gradient contracts): then the gradient's
		 * strategy is propagated from a neighbour's layout, and
		 * its term depends on two operators. Its plans are priced
		 * exactly all the same; measured: within 1.8 % of the best
		 * (b = 512), equal at b = 4096. */
		o.max_evaluations = pass ? 1 : 1000000;
		ctx = parse(chain, &g);
		s = sym_graph_search(g, &o);
		assert_non_null(s);
		assert_int_equal(sym_search_n_nodes(s), 3);
		print_message("%s: %zu plans priced\n",
		    pass ? "cost graph" : "search",
		    sym_search_n_evaluations(s));
		if (pass == 0)
			assert_int_equal(sym_search_n_evaluations(s), combos);
		for (int k = 0; k < 4; k++) {
			int64_t got = time_at(ctx, s, sizes[k]);

			print_message("%s, b = %lld: %lld fs, brute force %lld "
			              "fs (%.3fx)\n",
			    pass ? "cost graph" : "search", (long long)sizes[k],
			    (long long)got, (long long)best[k],
			    (double)got / (double)best[k]);
			if (pass == 0)
				assert_true(got <= best[k]);
			else
				assert_true(got <= best[k] + best[k] / 50);
		}
		sym_search_free(s);
		sym_graph_free(g);
		assert_int_equal(sym_ctx_live_objects(ctx), 0);
		sym_ctx_free(ctx);
	}
}

/* The two-layer MLP of the crossover, in training: hidden size 8192,
 * eight times its input; "%s" is the batch declaration's range. */
static const char mlp_fmt[] = "devices 8\n"
                              "symbol b divisor=8 %s\n"
                              "input  x : f32[b, 1024]\n"
                              "input  y : i32[b]\n"
                              "param  w1 : f32[1024, 8192]\n"
                              "param  w2 : f32[8192, 1024]\n"
                              "h = matmul(x, w1)\n"
                              "a = relu(h)\n"
                              "o = matmul(a, w2)\n"
                              "loss = softmax_cross_entropy(o, y)\n"
                              "output loss\n"
                              "minimize loss with sgd(lr=0.1)\n"
                              "%s";

/* Parse the MLP with the range "range" and the extra text "extra". */
static sym_ctx *
parse_mlp(const char *range, const char *extra, sym_graph **g)
{
	char text[1024];

	snprintf(text, sizeof(text), mlp_fmt, range, extra);
	return parse(text, g);
}

/* Return the strategy of the searched operator whose output is "name" in
 * piece "i" of "s". */
static const char *
strategy_of(const sym_search *s, size_t i, const char *name)
{
	for (size_t j = 0; j < sym_search_n_nodes(s); j++)
		if (!strcmp(sym_value_name(sym_node_output(sym_search_node(s,
		                                               j),
		                0)),
		        name))
			return sym_search_strategy(s, i, j);
	fail_msg("%s was not searched", name);
	return NULL;
}

/*
 * The MLP crossover on the default topology (100 TFLOP/s: 10 fs per
 * operation; links of 100 GB/s, 10^4 fs per byte, and 5 us). Data
 * parallel, ((8, 1), (1, 1)) on both matmuls, costs per device:
 *   compute: five matmuls of 2*(b/8)*1024*8192 = 2097152*b operations
 *     (h, o, and the gradients of a, w2 and w1; x needs none), relu and
 *     its gradient 1024*b, the loss and its gradient 6*1024*b/8 = 768*b
 *     each, the sgd updates 4*(2*8388608) = 67108864 and the step
 *     counter 1: 10489344*b + 67108865 operations, 104893440*b +
 *     671088650 fs;
 *   communication: the mirror all-reduces of w1's and w2's gradients
 *     (33554432 bytes each) and of the loss (4 bytes) over 8 ranks,
 *     each 2*7 latencies of 5 us plus 2*7/8*S*10^4 fs:
 *     2*(70e9 + 587202560000) + (70e9 + 70000) = 1384405190000 fs;
 *   total 104893440*b + 1385076278650 fs.
 * Weight-sharded plans pay little per step and more per sample: the
 * partial sums of o (4096 bytes a sample) are all-reduced instead of
 * the 64 MiB of gradients. The search's pieces go from weight sharding
 * over 4 devices at b = 128 through mixed plans to data parallel, each
 * breakpoint the least admissible b (a multiple of 8) at which the next
 * piece's time is below the previous piece's: for the last one,
 * ceil((1385076278650 - c) / (m - 104893440)) rounded up to a multiple
 * of 8, (m, c) the previous piece's time m*b + c.
 */
static void
test_mlp_crossover(void **state)
{
	sym_graph *g;
	sym_ctx *ctx = parse_mlp("min=128 max=1048576", "", &g);
	sym_search *s = sym_graph_search(g, NULL);
	size_t n;
	int64_t lo, hi, plo, phi;

	(void)state;
	assert_non_null(s);
	n = sym_search_n_pieces(s);
	print_message("%zu pieces, %zu plans priced in %.3f s\n", n,
	    sym_search_n_evaluations(s), sym_search_seconds(s));
	assert_true(n >= 3);
	/* Weight sharding first: x whole, w1 cut by columns. */
	assert_string_equal(strategy_of(s, 0, "h"), "((1, 1), (1, 4))");
	assert_string_equal(strategy_of(s, 0, "o"), "((1, 4), (4, 1))");
	/* Data parallel last, with the time derived above. */
	assert_string_equal(strategy_of(s, n - 1, "h"), "((8, 1), (1, 1))");
	assert_string_equal(strategy_of(s, n - 1, "o"), "((8, 1), (1, 1))");
	assert_int_equal(at_b(ctx, sym_search_piece_femtoseconds(s, n - 1), 0),
	    1385076278650LL);
	assert_int_equal(at_b(ctx, sym_search_piece_femtoseconds(s, n - 1), 1) -
	        1385076278650LL,
	    104893440LL);
	/* The pieces cover [128, 1048576] contiguously, and every
	 * breakpoint is where the two pieces' times cross. */
	assert_int_equal(sym_search_piece_range(s, 0, 0, &lo, &hi), 0);
	assert_int_equal(lo, 128);
	for (size_t i = 1; i < n; i++) {
		const sym_expr *a = sym_search_piece_femtoseconds(s, i - 1);
		const sym_expr *b = sym_search_piece_femtoseconds(s, i);
		int64_t ma = at_b(ctx, a, 1) - at_b(ctx, a, 0);
		int64_t mb = at_b(ctx, b, 1) - at_b(ctx, b, 0);
		int64_t ca = at_b(ctx, a, 0), cb = at_b(ctx, b, 0), cross;

		assert_int_equal(sym_search_piece_range(s, i - 1, 0, &plo,
		                     &phi),
		    0);
		assert_int_equal(sym_search_piece_range(s, i, 0, &lo, &hi), 0);
		assert_int_equal(lo, phi + 8);
		assert_true(ma > mb && cb > ca);
		/* the least multiple of 8 with mb*b + cb < ma*b + ca */
		cross = (cb - ca) / (ma - mb) + 1;
		cross = (cross + 7) / 8 * 8;
		print_message("piece %zu from b = %lld: %lld*b + %lld fs "
		              "(crossing at %lld)\n",
		    i + 1, (long long)lo, (long long)mb, (long long)cb,
		    (long long)cross);
		assert_int_equal(lo, cross);
	}
	assert_int_equal(hi, 1048576);
	sym_search_free(s);
	sym_graph_free(g);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* The forward chain of the brute force (no training: every term of the
 * cost model belongs to one operator or to one edge between two), its
 * result wanted split by columns, on the cost graph (an enumeration
 * limit of one plan) and by enumerating every plan: the dynamic
 * programming over the cost graph finds the cheapest plan, so at every
 * sampled size the two take equal time. */
static void
test_cost_graph(void **state)
{
	static const char fwd[] = "devices 8\n"
	                          "symbol b divisor=8 max=4096\n"
	                          "input  x : f32[b, 64]\n"
	                          "param  w1 : f32[64, 256]\n"
	                          "param  w2 : f32[256, 32]\n"
	                          "h = matmul(x, w1)\n"
	                          "%s"
	                          "o = matmul(%s, w2)\n"
	                          "p = relu(o) shard ((1, 8),)\n"
	                          "output p\n";
	static const int64_t sizes[] = { 8, 64, 512, 4096 };
	char text[512];
	sym_graph *g1, *g2;
	sym_ctx *c1, *c2;
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	sym_search *e, *s;

	(void)state;
	/* light (valgrind): without the relu, 900 plans */
	snprintf(text, sizeof(text), fwd, light() ? "" : "a = relu(h)\n",
	    light() ? "h" : "a");
	c1 = parse(text, &g1);
	c2 = parse(text, &g2);
	o.max_evaluations = 1000000;
	e = sym_graph_search(g1, &o);
	o.max_evaluations = 1;
	s = sym_graph_search(g2, &o);
	assert_non_null(e);
	assert_non_null(s);
	assert_int_equal(sym_search_n_probes(e), 0);
	assert_true(sym_search_n_probes(s) > 0);
	print_message("cost graph: %zu probe passes, %zu plans priced in "
	              "%.3f s; enumeration: %zu plans in %.3f s\n",
	    sym_search_n_probes(s), sym_search_n_evaluations(s),
	    sym_search_seconds(s), sym_search_n_evaluations(e),
	    sym_search_seconds(e));
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int64_t t[2] = { time_at(c1, e, sizes[k]),
			time_at(c2, s, sizes[k]) };

		print_message("b = %lld: cost graph %lld fs, enumeration %lld "
		              "fs\n",
		    (long long)sizes[k], (long long)t[1], (long long)t[0]);
		assert_int_equal(t[1], t[0]);
	}
	sym_search_free(s);
	sym_search_free(e);
	sym_graph_free(g1);
	sym_graph_free(g2);
	assert_int_equal(sym_ctx_live_objects(c1), 0);
	assert_int_equal(sym_ctx_live_objects(c2), 0);
	sym_ctx_free(c1);
	sym_ctx_free(c2);
}

/* Search the graph "text" twice on nodes of "per_node" ranks (links
 * between nodes four times slower): with layout strategies, whose first
 * piece "check" (may be NULL) checks, and over tuple strategies only;
 * at each of the "n" sizes "sizes" of b the first is never slower, and
 * faster at the first size when "faster". */
static void
layouts_vs_tuples(const char *text, int64_t per_node, const int64_t *sizes,
    size_t n, int faster, void (*check)(const sym_search *))
{
	sym_graph *g1, *g2;
	sym_ctx *c1 = parse(text, &g1), *c2 = parse(text, &g2);
	sym_topology *t1 = sym_topology_new(c1, per_node, 100, 5, 25, 10);
	sym_topology *t2 = sym_topology_new(c2, per_node, 100, 5, 25, 10);
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	sym_search *l, *t;

	assert_non_null(t1);
	assert_non_null(t2);
	o.topo = t1;
	l = sym_graph_search(g1, &o);
	o.topo = t2;
	o.tuples_only = 1;
	t = sym_graph_search(g2, &o);
	assert_non_null(l);
	assert_non_null(t);
	assert_int_equal(sym_search_n_meshes(t), 0);
	assert_true(sym_search_n_meshes(l) > 0);
	if (check)
		check(l);
	for (size_t k = 0; k < n; k++) {
		int64_t tl = time_at(c1, l, sizes[k]);
		int64_t tt = time_at(c2, t, sizes[k]);

		print_message("b = %lld: layouts %lld fs, tuples only %lld fs "
		              "(%.3fx)\n",
		    (long long)sizes[k], (long long)tl, (long long)tt,
		    (double)tt / (double)tl);
		assert_true(tl <= tt);
		if (k == 0 && faster)
			assert_true(tl < tt);
	}
	sym_search_free(l);
	sym_search_free(t);
	sym_topology_free(t1);
	sym_topology_free(t2);
	sym_graph_free(g1);
	sym_graph_free(g2);
	assert_int_equal(sym_ctx_live_objects(c1), 0);
	assert_int_equal(sym_ctx_live_objects(c2), 0);
	sym_ctx_free(c1);
	sym_ctx_free(c2);
}

/* The first piece on two nodes: weight sharding over 4 devices, the
 * fastest axis of (rep=2, n=4), within a node. */
static void
two_nodes_piece(const sym_search *l)
{
	const char *h = strategy_of(l, 0, "h");

	print_message("piece 1: h %s\n", h);
	assert_string_equal(h,
	    "(auto_rep2_n4(None, None), auto_rep2_n4(None, n))");
	assert_string_equal(sym_search_mesh(l, 0),
	    "auto_rep2_n4 = (rep=2, n=4)");
}

/* On two nodes of four ranks (links between them four times slower),
 * the MLP's layout strategies put the collectives of the split
 * dimension inside a node where the tuple strategies' device matrix
 * puts the repeats there: the search declares the meshes of other
 * orders of the device matrix and takes them. At small batches weight
 * sharding over 4 devices all-reduces the output's partial sums over
 * the fastest axis of (rep=2, n=4), within a node, not over ranks 0, 2,
 * 4, 6 as ((1, 1), (1, 4)) does; the search is never slower than the
 * search over tuple strategies only, and faster at b = 128. */
static void
test_layouts(void **state)
{
	static const int64_t sizes[] = { 128, 1024, 8192, 65536, 1048576 };
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), mlp_fmt, "min=128 max=1048576", "");
	layouts_vs_tuples(text, 4, sizes, sizeof(sizes) / sizeof(sizes[0]), 1,
	    two_nodes_piece);
}

/* Layout strategies when the device matrix has more prime factors than
 * every set of them is tried for (32 devices, 2^5, on four nodes of 8):
 * the sets that take the least significant factors of each axis are
 * candidates, and the plan is never slower than over tuple strategies
 * only. */
static void
test_layouts_many_factors(void **state)
{
	static const int64_t sizes[] = { 128, 512, 4096, 65536 };
	char mlp[1024], text[1100];

	(void)state;
	snprintf(mlp, sizeof(mlp), mlp_fmt, "min=128 max=1048576", "");
	assert_int_equal(strncmp(mlp, "devices 8\n", 10), 0);
	snprintf(text, sizeof(text), "devices 32\n%s", mlp + 10);
	layouts_vs_tuples(text, 8, sizes, sizeof(sizes) / sizeof(sizes[0]), 0,
	    NULL);
}

/* The MLP of the crossover over tokens: x is [b, t, 1024], reshaped to
 * [b*t, 1024], so that the work grows with b*t while the weights and
 * their gradients do not; "%s" is t's declaration. */
static const char tokens_fmt[] = "devices 8\n"
                                 "symbol b divisor=8 min=8 max=65536\n"
                                 "symbol t %s\n"
                                 "input  x : f32[b, t, 1024]\n"
                                 "input  y : i32[b]\n"
                                 "param  w1 : f32[1024, 8192]\n"
                                 "param  w2 : f32[8192, 8]\n"
                                 "x2 = reshape(x, [-1, 1024])\n"
                                 "h = matmul(x2, w1)\n"
                                 "a = relu(h)\n"
                                 "o = matmul(a, w2)\n"
                                 "o3 = reshape(o, [b, -1])\n"
                                 "loss = softmax_cross_entropy(o3, y)\n"
                                 "output loss\n"
                                 "minimize loss with sgd(lr=0.1)\n";

/* Return the time at b = "b", and "t" for the second symbol of "s", of
 * the plan of piece "i" of "s" (context "ctx"). */
static int64_t
piece_time(sym_ctx *ctx, const sym_search *s, size_t i, int64_t b, int64_t t)
{
	sym_binding *at = binding(ctx, "b", b);
	int64_t x = -1;

	for (size_t k = 0; k < sym_ctx_n_symbols(ctx); k++) {
		sym_symbol *y = sym_ctx_symbol(ctx, k);

		if (sym_symbol_origin(y) == sym_search_symbol(s, 1))
			sym_binding_set(at, y, t);
	}
	assert_int_equal(sym_expr_eval(sym_search_piece_femtoseconds(s, i), at,
	                     &x),
	    0);
	sym_binding_free(at);
	return x;
}

/* Return the piece of "s" covering b = "b", t = "t"; fails the test
 * unless exactly one does. */
static size_t
piece_at(const sym_search *s, int64_t b, int64_t t)
{
	size_t found = SIZE_MAX;

	for (size_t i = 0; i < sym_search_n_pieces(s); i++) {
		int64_t lo, hi, lo2, hi2;

		assert_int_equal(sym_search_piece_range(s, i, 0, &lo, &hi), 0);
		assert_int_equal(sym_search_piece_range(s, i, 1, &lo2, &hi2),
		    0);
		if (b < lo || (hi >= 0 && b > hi) || t < lo2 ||
		    (hi2 >= 0 && t > hi2))
			continue;
		if (found != SIZE_MAX)
			fail_msg("b = %lld, t = %lld: in pieces %zu and %zu",
			    (long long)b, (long long)t, found + 1, i + 1);
		found = i;
	}
	if (found == SIZE_MAX)
		fail_msg("b = %lld, t = %lld: in no piece", (long long)b,
		    (long long)t);
	return found;
}

/*
 * Two symbols: the pieces range over b and t. The plans trade the
 * weights' gradient all-reduce (fixed) against the work on b*t tokens,
 * so a breakpoint sits at a number of tokens: weight sharding over 1
 * and 2 devices cross where 339641280*n + 338165770 = 170141120*n +
 * 10169082890, n = b*t = 58.0 tokens, so b <= 56 at t = 1, 24 at t = 2,
 * 16 at t = 3, 8 from t = 4 to 7; at t = 8 no multiple of 8 is below
 * 58/8, and the first piece is sharding over 2 devices up to where
 * sharding over 4 catches up, 84750080*n = 19915458560, n = 235.0
 * tokens, b <= 24. Every (b, t) of a grid lies in exactly one
 * piece, whose plan is the fastest of the pieces' plans there; every
 * breakpoint holds at every t its piece covers; and at t fixed (a
 * symbol of one size) the one-symbol search finds nothing faster.
 */
static void
test_two_symbols(void **state)
{
	static const int64_t bs[] = { 8, 16, 24, 56, 64, 232, 240, 944, 4096,
		46544, 65536 };
	static const int64_t ts[] = { 1, 3, 8 };
	static const int64_t first_hi[] = { 56, 24, 16, 8, 8, 8, 8, 24 };
	char text[1024];
	sym_graph *g;
	sym_ctx *ctx;
	sym_search *s;
	size_t n;

	(void)state;
	snprintf(text, sizeof(text), tokens_fmt, "min=1 max=8");
	ctx = parse(text, &g);
	s = sym_graph_search(g, NULL);
	assert_non_null(s);
	assert_int_equal(sym_search_n_symbols(s), 2);
	assert_string_equal(sym_symbol_name(sym_search_symbol(s, 1)), "t");
	assert_null(sym_search_symbol(s, 2));
	n = sym_search_n_pieces(s);
	print_message("%zu pieces over b and t in %.3f s\n", n,
	    sym_search_seconds(s));
	for (int64_t t = 1; t <= 8; t++) {
		size_t first = piece_at(s, 8, t);
		int64_t lo, hi;

		assert_int_equal(sym_search_piece_range(s, first, 0, &lo, &hi),
		    0);
		assert_int_equal(hi, first_hi[t - 1]);
		for (size_t k = 0; k < sizeof(bs) / sizeof(bs[0]); k++) {
			size_t i = piece_at(s, bs[k], t);
			int64_t mine = piece_time(ctx, s, i, bs[k], t);

			for (size_t j = 0; j < n; j++)
				assert_true(mine <=
				    piece_time(ctx, s, j, bs[k], t));
		}
	}
	/* each breakpoint, at every t of its piece: the left plan is no
	 * slower at the last b, the right one faster at the next */
	for (size_t i = 0; i + 1 < n; i++) {
		int64_t lo, hi, lo2, hi2, nlo, nlo2;

		sym_search_piece_range(s, i, 0, &lo, &hi);
		sym_search_piece_range(s, i, 1, &lo2, &hi2);
		sym_search_piece_range(s, i + 1, 0, &nlo, NULL);
		sym_search_piece_range(s, i + 1, 1, &nlo2, NULL);
		if (nlo2 != lo2)
			continue; /* the next cell */
		assert_int_equal(nlo, hi + 8);
		for (int64_t t = lo2; t <= hi2; t++) {
			assert_true(piece_time(ctx, s, i, hi, t) <=
			    piece_time(ctx, s, i + 1, hi, t));
			assert_true(piece_time(ctx, s, i + 1, nlo, t) <
			    piece_time(ctx, s, i, nlo, t));
		}
	}
	for (size_t k = 0; k < sizeof(ts) / sizeof(ts[0]); k++) {
		char decl[48];
		sym_graph *g1;
		sym_ctx *c1;
		sym_search *one;

		snprintf(decl, sizeof(decl), "min=%lld max=%lld",
		    (long long)ts[k], (long long)ts[k]);
		snprintf(text, sizeof(text), tokens_fmt, decl);
		c1 = parse(text, &g1);
		one = sym_graph_search(g1, NULL);
		assert_non_null(one);
		assert_int_equal(sym_search_n_symbols(one), 1);
		for (size_t m = 0; m < sizeof(bs) / sizeof(bs[0]); m++) {
			int64_t two = piece_time(ctx, s,
			    piece_at(s, bs[m], ts[k]), bs[m], ts[k]);
			int64_t fixed = time_at(c1, one, bs[m]);

			if (two > fixed)
				fail_msg("b = %lld, t = %lld: %lld fs over "
				         "b and t, %lld fs at t fixed",
				    (long long)bs[m], (long long)ts[k],
				    (long long)two, (long long)fixed);
		}
		sym_search_free(one);
		sym_graph_free(g1);
		sym_ctx_free(c1);
	}
	sym_search_free(s);
	sym_graph_free(g);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* A cap of 480 MB at b in [16384, 17104]: data parallel (17920*b + ... =
 * 495 MB at 16384, its gradients whole twice, partial sums and sum) does
 * not fit; the search takes a plan that cuts the weights and fits at
 * every size (2 by 4, 24578*b + 50331660 bytes, 471 MB at 17104: its
 * forward partial sums kept beside their all_reduced sum, as the
 * executor keeps them). */
static void
test_memory_cap(void **state)
{
	sym_graph *g;
	sym_ctx *ctx = parse_mlp("min=16384 max=17104", "", &g);
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	sym_search *s;
	int64_t lo, hi;

	(void)state;
	o.memory = 480000000;
	s = sym_graph_search(g, &o);
	assert_non_null(s);
	for (size_t i = 0; i < sym_search_n_pieces(s); i++) {
		const sym_expr *m = sym_search_piece_memory(s, i);

		assert_int_equal(sym_search_piece_range(s, i, 0, &lo, &hi), 0);
		for (int64_t b = lo; b <= hi; b += 8)
			assert_true(at_b(ctx, m, b) <= o.memory);
		assert_string_not_equal(strategy_of(s, i, "h"),
		    "((8, 1), (1, 1))");
		/* w1 is cut: the second operand has a split. */
		assert_null(strstr(strategy_of(s, i, "h"), "(1, 1))"));
		/* a plan fits without sharding the optimizer */
		assert_int_equal(sym_search_piece_optimizer_shard(s, i), 0);
	}
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* Shard clauses are kept: the loss's clause stays in every piece, and
 * the search does not count it among its operators. */
static void
test_kept_clauses(void **state)
{
	sym_graph *g;
	sym_ctx *ctx;
	sym_search *s;
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), mlp_fmt, "max=4096", "");
	*strstr(text, "loss = softmax_cross_entropy(o, y)\n") = 0;
	strcat(text,
	    "loss = softmax_cross_entropy(o, y) shard ((2, 1), "
	    "(2,))\noutput loss\nminimize loss with "
	    "sgd(lr=0.1)\nparallel auto memory=1GiB\n");
	ctx = parse(text, &g);
	s = sym_graph_search(g, NULL);
	assert_non_null(s);
	/* h, a and o: the plans are more than the enumeration's limit,
	 * so the cost graph searches all three. */
	assert_int_equal(sym_search_n_nodes(s), 3);
	assert_true(sym_search_n_probes(s) > 0);
	for (size_t i = 0; i < sym_search_n_pieces(s); i++) {
		sym_search_apply(s, i);
		for (size_t k = 0; k < sym_graph_n_nodes(g); k++) {
			sym_node *n = sym_graph_node(g, k);
			char *t;

			if (strcmp(sym_value_name(sym_node_output(n, 0)),
			        "loss"))
				continue;
			t = sym_node_strategy_to_str(n);
			assert_string_equal(t, "((2, 1), (2,))");
			free(t);
		}
	}
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* The statistics of a class-split loss (sce_target, sce_sumexp) are not
 * searched: each piece's sharding gives them the strategy of their loss,
 * so their logits and labels are laid out as the loss's are (a search
 * that gave them their own would all-gather the logits for them). */
static void
test_class_split_stats(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8 min=64\n"
	    "input x : f32[b, 64]\n"
	    "input y : i32[b]\n"
	    "param w : f32[64, 4096]\n"
	    "logits = matmul(x, w)\n"
	    "loss = softmax_cross_entropy(logits, y, ignore_index=-1, "
	    "vocab_parallel=1)\n"
	    "output loss\n"
	    "minimize loss with sgd(lr=0.1)\n";
	sym_graph *g;
	sym_ctx *ctx;
	sym_search *s;
	size_t n_class_split = 0;

	(void)state;
	ctx = parse(text, &g);
	s = sym_graph_search(g, NULL);
	assert_non_null(s);
	/* logits, loss.count and loss */
	assert_int_equal(sym_search_n_nodes(s), 3);
	for (size_t j = 0; j < sym_search_n_nodes(s); j++) {
		const char *op = sym_node_op_name(sym_search_node(s, j));

		assert_string_not_equal(op, "sce_target");
		assert_string_not_equal(op, "sce_sumexp");
	}
	for (size_t i = 0; i < sym_search_n_pieces(s); i++) {
		sym_sharding *sh;
		const sym_node *loss = NULL;

		if (sym_search_piece_fit(s, i) != SYM_SEARCH_FITS)
			continue;
		sh = sym_search_sharding(s, i);
		assert_non_null(sh);
		assert_int_equal(sym_sharding_n_errors(sh), 0);
		for (size_t k = 0; k < sym_graph_n_nodes(g); k++)
			if (!strcmp(sym_node_op_name(sym_graph_node(g, k)),
			        "softmax_cross_entropy"))
				loss = sym_graph_node(g, k);
		assert_non_null(loss);
		for (size_t k = 0; k < sym_graph_n_nodes(g); k++) {
			sym_node *n = sym_graph_node(g, k);
			const char *op = sym_node_op_name(n);

			if (strcmp(op, "sce_target") &&
			    strcmp(op, "sce_sumexp"))
				continue;
			assert_string_equal(sym_sharding_strategy_source(sh, n),
			    "the strategy of its softmax_cross_entropy (the "
			    "logits' and labels' parts)");
			for (size_t in = 0; in < 2; in++) {
				char *a = sym_layout_to_str(
				    sym_sharding_input_layout(sh, n, in));
				char *b = sym_layout_to_str(
				    sym_sharding_input_layout(sh, loss, in));

				assert_non_null(a);
				assert_string_equal(a, b);
				free(a);
				free(b);
			}
			if (strstr(sym_sharding_strategy(sh, n), ", 2)") ||
			    strstr(sym_sharding_strategy(sh, n), ", 4)"))
				n_class_split++;
		}
		sym_sharding_free(sh);
	}
	/* some piece splits the 4096 classes, and then both statistics */
	assert_true(n_class_split >= 2);
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* Errors: a cap below the parameters alone, and one no plan meets at
 * any size, naming the range and the least memory of the plans it
 * priced, located at the statement; the graph keeps no strategy of the
 * search (a cap met at some sizes: test_partial_cap). */
static void
test_errors(void **state)
{
	static const struct {
		const char *range, *extra, *msg;
	} c[] = {
		{ "max=4096", "parallel auto memory=1MiB\n",
		    "search.sg:13:10: search: memory=1048576 bytes is below "
		    "what the parameters alone need: 8388608 bytes per device "
		    "with every parameter split over all 8 devices" },
		{ "min=1024 max=4096", "parallel auto memory=40MiB\n",
		    "search.sg:13:10: search: no plan fits memory=41943040 "
		    "bytes at any level of optimizer_shard (0, 1, 2, 3) for b "
		    "in [1024, 4096]: the least memory of the plans it priced "
		    "at b = 1024 is 50335752 bytes" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		sym_graph *g;
		sym_ctx *ctx = parse_mlp(c[k].range, c[k].extra, &g);
		char where[1200];
		sym_loc at;

		assert_null(sym_graph_search(g, NULL));
		at = sym_ctx_last_location(ctx);
		snprintf(where, sizeof(where), "%s:%d:%d: %s", at.file, at.line,
		    at.col, sym_ctx_last_message(ctx));
		print_message("%s\n", where);
		assert_memory_equal(where, c[k].msg, strlen(c[k].msg));
		assert_int_equal(sym_ctx_live_objects(ctx) > 0, 1);
		sym_graph_free(g);
		assert_int_equal(sym_ctx_live_objects(ctx), 0);
		sym_ctx_free(ctx);
	}
}

/* A symbol without max: the time of every plan overflows 64 bits past
 * some size; the pieces end there with one that has no plan
 * (SYM_SEARCH_OVERFLOW, no cap reported), and the piece before it is
 * priced up to its last size (before: no plan fits memory=0 bytes). */
static void
test_overflow(void **state)
{
	sym_graph *g;
	sym_ctx *ctx = parse_mlp("", "parallel auto\n", &g);
	sym_search *s = sym_graph_search(g, NULL);
	size_t n;
	int64_t lo, hi, plo, phi, v;

	(void)state;
	if (!s)
		fail_msg("%s", sym_ctx_last_message(ctx));
	n = sym_search_n_pieces(s);
	assert_true(n >= 2);
	assert_int_equal(sym_search_piece_fit(s, n - 1), SYM_SEARCH_OVERFLOW);
	assert_int_equal(sym_search_piece_fit(s, n), -1);
	assert_null(sym_search_piece_femtoseconds(s, n - 1));
	assert_null(sym_search_strategy(s, n - 1, 0));
	assert_int_equal(sym_search_apply(s, n - 1), -1);
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_search_piece_range(s, n - 1, 0, &lo, &hi), 0);
	assert_int_equal(hi, -1);
	assert_int_equal(sym_search_piece_range(s, n - 2, 0, &plo, &phi), 0);
	assert_int_equal(phi + 8, lo);
	for (size_t i = 0; i + 1 < n; i++)
		assert_int_equal(sym_search_piece_fit(s, i), SYM_SEARCH_FITS);
	/* the last size priced is, the next is not */
	{
		sym_binding *at = binding(ctx, "b", phi);
		const sym_expr *fs = sym_search_piece_femtoseconds(s, n - 2);

		assert_int_equal(sym_expr_eval(fs, at, &v), 0);
		assert_true(v > 0);
		sym_binding_free(at);
		at = binding(ctx, "b", lo);
		assert_int_equal(sym_expr_eval(fs, at, &v), -1);
		sym_ctx_clear_error(ctx);
		sym_binding_free(at);
	}
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* A cap that only the small sizes meet: the pieces that fit are
 * returned, those beyond are SYM_SEARCH_OVER_MEMORY with the plan that
 * needs the least memory, which exceeds the cap at their least size; the
 * graph is left sharded with the first piece that fits (before: the
 * search failed for the whole range). */
static void
test_partial_cap(void **state)
{
	sym_graph *g;
	sym_ctx *ctx =
	    parse_mlp("max=4096", "parallel auto memory=40MiB\n", &g);
	sym_search *s = sym_graph_search(g, NULL);
	size_t n, fits = 0, over = 0;
	int64_t lo, hi;

	(void)state;
	if (!s)
		fail_msg("%s", sym_ctx_last_message(ctx));
	n = sym_search_n_pieces(s);
	for (size_t i = 0; i < n; i++) {
		const sym_expr *m = sym_search_piece_memory(s, i);

		assert_int_equal(sym_search_piece_range(s, i, 0, &lo, &hi), 0);
		assert_true(hi >= lo);
		if (sym_search_piece_fit(s, i) == SYM_SEARCH_FITS) {
			assert_int_equal(over, 0); /* the small sizes fit */
			assert_true(at_b(ctx, m, lo) <= 41943040);
			assert_true(at_b(ctx, m, hi) <= 41943040);
			fits++;
		} else {
			assert_int_equal(sym_search_piece_fit(s, i),
			    SYM_SEARCH_OVER_MEMORY);
			assert_true(at_b(ctx, m, lo) > 41943040);
			over++;
		}
	}
	assert_true(fits > 0);
	assert_int_equal(over, 1);
	assert_int_equal(hi, 4096);
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* A data-parallel MLP trained with adam (every operator's strategy
 * written: the search chooses the level of optimizer sharding alone),
 * "extra" appended; its context. */
static sym_ctx *
parse_dp_adam(const char *extra, sym_graph **g)
{
	char text[1024];

	snprintf(text, sizeof(text),
	    "devices 8\n"
	    "symbol b divisor=8 min=64 max=128\n"
	    "input x : f32[b, 256]\n"
	    "input y : i32[b]\n"
	    "param w1 : f32[256, 1024]\n"
	    "param w2 : f32[1024, 256]\n"
	    "h = matmul(x, w1) shard ((8, 1), (1, 1))\n"
	    "a = relu(h) shard ((8, 1),)\n"
	    "o = matmul(a, w2) shard ((8, 1), (1, 1))\n"
	    "loss = softmax_cross_entropy(o, y) shard ((8, 1), (8,))\n"
	    "output loss\n"
	    "minimize loss with adam(lr=0.001)\n%s",
	    extra);
	return parse(text, g);
}

/* Search the data-parallel adam MLP with "extra" appended under the cap
 * "memory" (0: none); check that it has one piece at the level "level"
 * of optimizer sharding, chosen by the search when "chosen", needing
 * "mem" bytes per device at b = 64 and within the cap at 64 and 128;
 * that the graph applied with it and the piece's sharding are made at
 * that level, the graph's own level left as written ("own"). */
static void
check_dp_adam(const char *extra, int64_t memory, int level, int chosen,
    int64_t mem, int own)
{
	sym_graph *g;
	sym_ctx *ctx = parse_dp_adam(extra, &g);
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	sym_search *s;
	sym_sharding *sh;
	sym_cost c;

	o.memory = memory;
	s = sym_graph_search(g, &o);
	if (!s)
		fail_msg("%s", sym_ctx_last_message(ctx));
	assert_int_equal(sym_search_n_nodes(s), 0);
	assert_int_equal(sym_search_n_pieces(s), 1);
	assert_int_equal(sym_search_piece_fit(s, 0), SYM_SEARCH_FITS);
	assert_int_equal(sym_search_chooses_optimizer_shard(s), chosen);
	assert_int_equal(sym_search_piece_optimizer_shard(s, 0), level);
	assert_int_equal(sym_search_piece_optimizer_shard(s, 1), -1);
	assert_int_equal(at_b(ctx, sym_search_piece_memory(s, 0), 64), mem);
	if (memory > 0)
		assert_true(at_b(ctx, sym_search_piece_memory(s, 0), 128) <=
		    memory);
	assert_int_equal(sym_search_apply(s, 0), 0);
	assert_int_equal(sym_sharding_optimizer_shard(sym_graph_sharding(g)),
	    level);
	assert_int_equal(sym_graph_optimizer_shard(g), own);
	assert_int_equal(sym_graph_cost(g, NULL, &c), 0);
	assert_int_equal(at_b(ctx, c.memory_bytes, 64), mem);
	sym_cost_clear(&c);
	sh = sym_search_sharding(s, 0);
	assert_non_null(sh);
	assert_int_equal(sym_sharding_optimizer_shard(sh), level);
	sym_sharding_free(sh);
	sym_search_free(s);
	sym_graph_free(g);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/*
 * The level of optimizer sharding under a memory cap. Data parallel
 * with adam needs 2432*b + 4*(b floordiv 8) + 10485776 bytes per device
 * at level 0 (params, gradients and both moments whole: 10641456 at
 * b = 64), + 5242896 at level 1 (the moments split 8 ways, the updated
 * shards beside the params; 5398576) and + 4194320 at level 2 (the whole
 * partial gradients in one buffer; 4350000) and + 3145744 at level 3
 * (the params kept as their shards, 1/8 of 2 MiB, and their whole
 * copies, gathered for each use, in one buffer of 1 MiB; 3301424), the
 * executor's bytes at every level. Without a cap, or under a loose one, the
 * level stays 0; under 8 MiB, which data parallel misses, the search
 * takes level 1; under 5 MiB level 2; under 4 MiB, which level 2
 * misses, level 3; a level the graph writes is kept, and no plan fits
 * 5 MiB at level 1 nor 3 MiB at any level.
 */
static void
test_optimizer_shard_cap(void **state)
{
	sym_graph *g;
	sym_ctx *ctx;
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;

	(void)state;
	check_dp_adam("", 0, 0, 0, 10641456, 0);
	check_dp_adam("", 64 << 20, 0, 1, 10641456, 0);
	check_dp_adam("", 8 << 20, 1, 1, 5398576, 0);
	check_dp_adam("", 5 << 20, 2, 1, 4350000, 0);
	check_dp_adam("", 4 << 20, 3, 1, 3301424, 0);
	check_dp_adam("parallel optimizer_shard=1\n", 8 << 20, 1, 0, 5398576,
	    1);
	check_dp_adam("parallel optimizer_shard=2\n", 64 << 20, 2, 0, 4350000,
	    2);
	check_dp_adam("parallel optimizer_shard=3\n", 0, 3, 0, 3301424, 3);
	ctx = parse_dp_adam("parallel optimizer_shard=1\n", &g);
	o.memory = 5 << 20;
	assert_null(sym_graph_search(g, &o));
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "no plan fits memory=5242880 bytes for b in [64, 128]"));
	sym_graph_free(g);
	sym_ctx_free(ctx);
	ctx = parse_dp_adam("", &g);
	assert_null(sym_graph_search(g,
	    &(sym_search_options){ .size = sizeof(o), .memory = 3 << 20 }));
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "no plan fits memory=3145728 bytes at any level of "
	    "optimizer_shard (0, 1, 2, 3)"));
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* Check that piece "i" of "s" (searched in "ctx" under the memory cap
 * "cap") spans b in ["lo", "hi"], fits at optimizer_shard "level" and
 * needs at most "cap" bytes at both ends. */
static void
check_fitting_piece(sym_ctx *ctx, const sym_search *s, size_t i, int64_t lo,
    int64_t hi, int level, int64_t cap)
{
	const sym_expr *mem = sym_search_piece_memory(s, i);
	int64_t l, h;

	assert_int_equal(sym_search_piece_range(s, i, 0, &l, &h), 0);
	assert_int_equal(l, lo);
	assert_int_equal(h, hi);
	assert_int_equal(sym_search_piece_fit(s, i), SYM_SEARCH_FITS);
	assert_int_equal(sym_search_piece_optimizer_shard(s, i), level);
	assert_true(at_b(ctx, mem, l) <= cap);
	assert_true(at_b(ctx, mem, h) <= cap);
}

/*
 * A lower level that fits only below a sample. The MLP at b in [16384,
 * 17104] under 415 MB: no plan fits at levels 0 and 1; at level 2 the
 * 4 by 2 plan needs 20481*b + 67108876 bytes, within the cap up to
 * b = 16984 and over it at the last sample, 17104, where the search
 * takes level 3 (20481*b + 50331660). The pieces are cut over every
 * level's best plan, so level 2 holds up to 16984 and level 3 only from
 * 16992, each within the cap at its ends.
 */
static void
test_cap_level_between_samples(void **state)
{
	static const int64_t lo[] = { 16384, 16992 }, hi[] = { 16984, 17104 };
	static const int level[] = { 2, 3 };
	const int64_t cap = 415000000;
	sym_graph *g;
	sym_ctx *ctx = parse_mlp("min=16384 max=17104", "", &g);
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	sym_search *s;

	(void)state;
	o.memory = cap;
	s = sym_graph_search(g, &o);
	if (!s)
		fail_msg("%s", sym_ctx_last_message(ctx));
	assert_int_equal(sym_search_n_pieces(s), 2);
	for (size_t i = 0; i < 2; i++) {
		check_fitting_piece(ctx, s, i, lo[i], hi[i], level[i], cap);
		assert_string_equal(strategy_of(s, i, "h"), "((4, 1), (1, 2))");
	}
	/* level 2's plan is over the cap at the first size of piece 2 */
	assert_int_equal(at_b(ctx, sym_search_piece_memory(s, 0), 16992),
	    20481 * (int64_t)16992 + 67108876);
	assert_true(20481 * (int64_t)16992 + 67108876 > cap);
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/*
 * The cost graph's model counts the block a producer keeps beside its
 * value's until an all_reduce or reduce_scatter resolves it, as
 * sym_graph_cost does. A 2-layer MLP with 8 classes under 400 MiB at b
 * in [21232, 21648]: without that block the model took a 2 by 4 plan
 * for fitting, which priced exactly is over the cap (419694396 bytes at
 * b = 21336), and fell back to data parallelism, further over: the
 * search said no plan fits from b = 21336. The 4 by 2 plan fits at
 * levels 1, 2 and 3 up to 21648, each piece within the cap at both
 * ends.
 */
static void
test_cap_model_resolutions(void **state)
{
	static const int64_t lo[] = { 21232, 21328, 21640, 21648 },
	                     hi[] = { 21320, 21632, 21640, 21648 };
	const int64_t cap = 400 << 20;
	sym_graph *g;
	sym_ctx *ctx = parse("devices 8\n"
	                     "symbol b divisor=8 min=21232 max=21648\n"
	                     "input  x : f32[b, 1024]\n"
	                     "input  y : i32[b]\n"
	                     "param  w1 : f32[1024, 8192]\n"
	                     "param  w2 : f32[8192, 8]\n"
	                     "h = matmul(x, w1)\n"
	                     "a = relu(h)\n"
	                     "o = matmul(a, w2)\n"
	                     "loss = softmax_cross_entropy(o, y)\n"
	                     "output loss\n"
	                     "minimize loss with sgd(0.1)\n"
	                     "parallel auto\n",
	    &g);
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	sym_search *s;

	(void)state;
	o.memory = cap;
	o.max_evaluations = 1;
	s = sym_graph_search(g, &o);
	if (!s)
		fail_msg("%s", sym_ctx_last_message(ctx));
	assert_true(sym_search_n_probes(s) > 0);
	assert_int_equal(sym_search_n_pieces(s), 4);
	for (size_t i = 0; i < 4; i++) {
		check_fitting_piece(ctx, s, i, lo[i], hi[i], (int)i, cap);
		if (i > 0)
			assert_string_equal(strategy_of(s, i, "h"),
			    "((4, 1), (1, 2))");
	}
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* Search the graph "text" (parsed into "*g" in the new context "*ctx")
 * with the default options; fail the test when it cannot. */
static sym_search *
searched(const char *text, sym_graph **g, sym_ctx **ctx)
{
	sym_search *s;

	*ctx = parse(text, g);
	s = sym_graph_search(*g, NULL);
	if (!s)
		fail_msg("%s", sym_ctx_last_message(*ctx));
	return s;
}

/* A search holds its graph: the caller may free the graph first and
 * still read the pieces, whose nodes are the graph's; the last of the
 * two frees it. */
static void
test_search_holds_graph(void **state)
{
	sym_graph *g;
	sym_ctx *ctx;
	sym_search *s = searched("devices 8\n"
	                         "symbol b divisor=8 max=4096\n"
	                         "input x : f32[b, 64]\n"
	                         "param w : f32[64, 256]\n"
	                         "h = matmul(x, w)\n"
	                         "output h\n",
	    &g, &ctx);

	const sym_node *n;

	(void)state;
	sym_graph_free(g);
	assert_true(sym_search_n_pieces(s) >= 1);
	n = sym_search_node(s, 0);
	assert_string_equal(sym_value_name(sym_node_output(n, 0)), "h");
	assert_non_null(sym_search_strategy(s, 0, 0));
	assert_int_equal(sym_search_apply(s, 0), 0);
	sym_search_free(s);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* 65536 devices: the split vectors of a 4-dimensional input multiply
 * divisors past 64 bits (a product that wrapped to 0 divided the device
 * count: SIGFPE); the search finds the plan over every device. */
static void
test_many_devices(void **state)
{
	sym_graph *g;
	sym_ctx *ctx;
	sym_search *s = searched("devices 65536\n"
	                         "symbol b divisor=8 max=64\n"
	                         "input x : f32[b, 4, 4, 4]\n"
	                         "y = relu(x)\n"
	                         "output y\n",
	    &g, &ctx);

	(void)state;
	assert_int_equal(sym_search_n_pieces(s), 1);
	assert_string_equal(sym_search_strategy(s, 0, 0), "((8, 4, 4, 4),)");
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
}

/* Return the text of examples/NAME.sg with "tail" appended and, when
 * "strip" is set, every shard clause removed; "edit" (may be NULL) edits
 * each line in place. Fails the test when it cannot be read. */
static char *
example_text(const char *name, const char *tail, int strip,
    void (*edit)(char *line))
{
	const char *top = getenv("top_srcdir");
	char path[4096], line[512];
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);
	FILE *f;

	snprintf(path, sizeof(path), "%s/examples/%s.sg", top ? top : ".",
	    name);
	f = fopen(path, "r");
	if (!f || !text)
		fail_msg("cannot open %s (set top_srcdir)", path);
	while (fgets(line, sizeof(line), f)) {
		char *c = strip ? strstr(line, " shard (") : NULL;

		if (c)
			strcpy(c, "\n");
		if (edit)
			edit(line);
		assert_true(len + strlen(line) + strlen(tail) + 1 < cap);
		memcpy(text + len, line, strlen(line));
		len += strlen(line);
	}
	fclose(f);
	memcpy(text + len, tail, strlen(tail) + 1);
	return text;
}

/* Give the weighted matmuls of the transformer example the data-parallel
 * strategy ((8, 1), (1, 1)) in "line" (the rest propagates). */
static void
data_parallel(char *line)
{
	static const char *const mm[] = { "q ", "k ", "v ", "attn ", "f1 ",
		"f2 " };

	for (size_t i = 0; i < sizeof(mm) / sizeof(mm[0]); i++)
		if (!strncmp(line, mm[i], strlen(mm[i])) &&
		    strstr(line, "= matmul(")) {
			char *nl = strchr(line, '\n');

			if (nl)
				strcpy(nl, " shard ((8, 1), (1, 1))\n");
		}
}

/* Bound the batch of the transformer example to 16 in "line" (light
 * tests). */
static void
short_batch(char *line)
{
	if (!strcmp(line, "symbol b divisor=2\n"))
		strcpy(line, "symbol b divisor=2 max=16\n");
}

/* Return the time of a step of the graph "text" (sharded as written) at
 * b = "b", s = "s", in femtoseconds. */
static int64_t
plan_time(const char *text, int64_t b, int64_t s)
{
	sym_graph *g;
	sym_ctx *ctx = parse(text, &g);
	sym_binding *bb = binding(ctx, "b", b);
	sym_cost c;
	int64_t fs;

	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_int_equal(sym_graph_cost(g, NULL, &c), 0);
	for (size_t i = 0; i < sym_ctx_n_symbols(ctx); i++) {
		sym_symbol *y = sym_ctx_symbol(ctx, i);

		if (!strcmp(sym_symbol_name(sym_symbol_origin(y)), "s"))
			sym_binding_set(bb, y, s);
	}
	assert_int_equal(sym_expr_eval(c.time_fs, bb, &fs), 0);
	sym_cost_clear(&c);
	sym_binding_free(bb);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	return fs;
}

/* The transformer block of examples/megatron.sg in training (a squared
 * error after it), searched without its shard clauses: at sampled batch
 * sizes and sequence lengths 8 and 64 (the least and the greatest; the
 * pieces range over both) its plan is never slower, by the same cost
 * model, than Megatron's hand strategy (the example's clauses) or than
 * data parallel (every weighted matmul ((8, 1), (1, 1))). */
static void
test_transformer(void **state)
{
	static const char tail[] = "input tgt : f32[s, b, 64]\n"
	                           "e = sub(y, tgt)\nsq = mul(e, e)\n"
	                           "loss = reduce_mean(sq)\noutput loss\n"
	                           "minimize loss with sgd(0.002)\n";
	static const int64_t sizes[] = { 2, 16, 128, 1024, 8192, 65536 };
	char *hand = example_text("megatron", tail, 0, NULL);
	char *dp = example_text("megatron", tail, 1, data_parallel);
	char *bare =
	    example_text("megatron", tail, 1, light() ? short_batch : NULL);
	size_t n_sizes = light() ? 2 : sizeof(sizes) / sizeof(sizes[0]);
	sym_graph *g;
	sym_ctx *ctx = parse(bare, &g);
	sym_search *s = sym_graph_search(g, NULL);

	(void)state;
	assert_non_null(s);
	print_message("%zu operators searched, %zu plans priced in %.2f s, "
	              "%zu pieces\n",
	    sym_search_n_nodes(s), sym_search_n_evaluations(s),
	    sym_search_seconds(s), sym_search_n_pieces(s));
	for (size_t k = 0; k < n_sizes; k++) {
		int64_t th = plan_time(hand, sizes[k], 8);
		int64_t td = plan_time(dp, sizes[k], 8);
		int64_t ts = time_at(ctx, s, sizes[k]);
		print_message("b = %lld, s = 8: search %lld fs, Megatron "
		              "%lld fs (%.2fx), data parallel %lld fs "
		              "(%.2fx)\n",
		    (long long)sizes[k], (long long)ts, (long long)th,
		    (double)th / (double)ts, (long long)td,
		    (double)td / (double)ts);
		assert_true(ts > 0);
		assert_true(ts <= th);
		assert_true(ts <= td);
	}
	/* the pieces range over s too: at its greatest, 64, the same */
	for (size_t k = 0; k < n_sizes; k++) {
		int64_t th = plan_time(hand, sizes[k], 64);
		int64_t td = plan_time(dp, sizes[k], 64);
		int64_t ts =
		    piece_time(ctx, s, piece_at(s, sizes[k], 64), sizes[k], 64);

		print_message("b = %lld, s = 64: search %lld fs, Megatron "
		              "%.2fx, data parallel %.2fx\n",
		    (long long)sizes[k], (long long)ts, (double)th / (double)ts,
		    (double)td / (double)ts);
		assert_true(ts > 0);
		assert_true(ts <= th);
		assert_true(ts <= td);
	}
	sym_search_free(s);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	free(hand);
	free(dp);
	free(bare);
}

/* Return the value at b = "v" of the expression "e" of "ctx" as text
 * for messages, and check it equals "want". */
static void
check_at(sym_ctx *ctx, const sym_expr *e, int64_t v, int64_t want,
    const char *what)
{
	int64_t got = at_b(ctx, e, v);

	if (got != want)
		fail_msg("%s at b = %lld: %lld, not %lld", what, (long long)v,
		    (long long)got, (long long)want);
}

/*
 * The cost model on one matmul x[b, 64] @ w[64, 32] on 2 devices, its
 * contracted dimension split: each device multiplies [b, 32] by [32, 32],
 * 2*b*32*32 = 2048*b operations (10 fs each at 100 TFLOP/s), and the
 * partial sums of o (4*32*b = 128*b bytes) are all-reduced over 2 ranks:
 * 2 latencies of 5 us and 2*1/2*128*b bytes at 10^4 fs a byte. A device
 * holds half of w (4096 bytes), half of x (128*b), its partial sums of o
 * (128*b) and beside them the whole o they are all-reduced into (128*b),
 * as the executor does; no gradient, no state (forward only).
 */
static void
test_cost_model(void **state)
{
	sym_graph *g;
	sym_ctx *ctx = parse("devices 2\nsymbol b\ninput x : f32[b, 64]\n"
	                     "param w : f32[64, 32]\n"
	                     "o = matmul(x, w) shard ((1, 2), (2, 1))\n"
	                     "output o\n",
	    &g);
	sym_cost c;

	(void)state;
	assert_int_equal(sym_graph_cost(g, NULL, &c), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_null(c.time_fs);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	assert_int_equal(sym_graph_cost(g, NULL, &c), 0);
	for (int64_t b = 1; b <= 1000; b *= 10) {
		check_at(ctx, c.flops, b, 2048 * b, "flops");
		check_at(ctx, c.compute_fs, b, 20480 * b, "compute");
		check_at(ctx, c.comm_fs, b, 10000000000 + 1280000 * b,
		    "communication");
		check_at(ctx, c.time_fs, b, 10000000000 + 1300480 * b, "time");
		check_at(ctx, c.param_bytes, b, 4096, "parameters");
		check_at(ctx, c.grad_bytes, b, 0, "gradients");
		check_at(ctx, c.state_bytes, b, 0, "state");
		check_at(ctx, c.activation_bytes, b, 384 * b, "activations");
		check_at(ctx, c.memory_bytes, b, 4096 + 384 * b, "memory");
	}
	sym_cost_clear(&c);
	sym_cost_clear(&c);
	sym_cost_clear(NULL);
	/* A slower device: 1 TFLOP/s is 1000 fs an operation. */
	{
		sym_topology *t = sym_topology_new(ctx, 0, 0, 0, 0, 0);

		assert_int_equal(sym_topology_set_flops(t, 1e12), 0);
		assert_int_equal(sym_graph_cost(g, t, &c), 0);
		check_at(ctx, c.compute_fs, 3, 3 * 2048000, "compute at 1 TF");
		sym_cost_clear(&c);
		sym_topology_free(t);
	}
	sym_graph_free(g);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_model),
		cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_mlp_crossover),
		cmocka_unit_test(test_cost_graph),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_layouts_many_factors),
		cmocka_unit_test(test_memory_cap),
		cmocka_unit_test(test_kept_clauses),
		cmocka_unit_test(test_class_split_stats),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_partial_cap),
		cmocka_unit_test(test_optimizer_shard_cap),
		cmocka_unit_test(test_cap_level_between_samples),
		cmocka_unit_test(test_cap_model_resolutions),
		cmocka_unit_test(test_search_holds_graph),
		cmocka_unit_test(test_many_devices),
		cmocka_unit_test(test_transformer),
		cmocka_unit_test(test_two_symbols),
	};

	return cmocka_run_group_tests_name("search", tests, NULL, NULL);
}
