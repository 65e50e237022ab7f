/* SPDX-License-Identifier: MIT */
/*
 * How well the strategy search's cost graph does under a memory cap
 * (make bench): a two-layer MLP in training (1024 -> 4096 -> 64 classes,
 * sgd or adam), b in [8, 65536], on 4 and 8 devices under caps from
 * 30 MB to 240 MB, searched twice: once on the cost graph (the search's
 * own choice for a graph with more plans than max_evaluations = 1), once
 * by enumerating and pricing every plan at each sample (the baseline,
 * exact at the samples). At about 2700 sizes of b each, the two answers
 * are compared as the search ranks plans: a fitting plan beats none, a
 * lower level of optimizer sharding beats a higher one, then the faster
 * plan (where neither fits, the two are alike). Printed by case: the sizes where the cost graph's answer is worse
 * than enumeration's, where it is better (possible only between
 * samples), and the largest ratio of times where both fit at one level.
 * A summary line adds up the cases. One JSON object a line.
 *
 * bench_search_cap DEVICES CAP sgd|adam runs one case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#include "util.h"

/* The sizes of b compared, evenly spaced over the symbol's range. */
#define N_SIZES 4000

/* One case's counts. */
struct tally {
	size_t sizes, worse, better;
	double worst_ratio; /* cost graph's time over enumeration's */
};

/* One search's answer at a size. */
struct answer {
	int fits, level;
	int64_t fs, mem;
};

/* Return the graph text of the MLP on "devices" trained with "opt". */
static char *
graph_text(int devices, const char *opt)
{
	static const char fmt[] = "devices %d\n"
	                          "symbol b divisor=8 min=8 max=65536\n"
	                          "input  x : f32[b, 1024]\n"
	                          "input  y : i32[b]\n"
	                          "param  w1 : f32[1024, 4096]\n"
	                          "param  w2 : f32[4096, 64]\n"
	                          "h = matmul(x, w1)\n"
	                          "a = relu(h)\n"
	                          "o = matmul(a, w2)\n"
	                          "loss = softmax_cross_entropy(o, y)\n"
	                          "output loss\n"
	                          "minimize loss with %s\n"
	                          "parallel auto\n";
	int n = snprintf(NULL, 0, fmt, devices, opt);
	char *t = n > 0 ? malloc((size_t)n + 1) : NULL;

	if (!t) {
		fprintf(stderr, "bench_search_cap: out of memory\n");
		exit(2);
	}
	snprintf(t, (size_t)n + 1, fmt, devices, opt);
	return t;
}

/* Search "text" under "cap" bytes, enumerating every plan when "enumerate"
 * is set, into "*s" in a new context "*ctx", which frees the graph with
 * the search; exit on failure. */
static void
search(const char *text, int64_t cap, int enumerate, sym_ctx **ctx,
    sym_search **s)
{
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	sym_graph *g;

	*ctx = sym_ctx_new();
	g = *ctx ? sym_graph_parse(*ctx, text, "bench_search_cap.sg") : NULL;
	if (!g || sym_graph_n_errors(g) > 0) {
		fprintf(stderr, "bench_search_cap: the graph does not parse\n");
		exit(2);
	}
	o.memory = cap;
	o.max_evaluations = enumerate ? 100000000 : 1;
	*s = sym_graph_search(g, &o);
	if (!*s) {
		fprintf(stderr, "bench_search_cap: %s\n",
		    sym_ctx_last_message(*ctx));
		exit(2);
	}
}

/* Return the value of "e" at b = "b" for the search "s" in "ctx"; exit
 * when it cannot be evaluated. */
static int64_t
at(sym_ctx *ctx, const sym_search *s, const sym_expr *e, int64_t b)
{
	sym_binding *bd = sym_binding_new(ctx);
	int64_t v;

	if (!bd || sym_binding_set(bd, sym_search_symbol(s, 0), b) < 0 ||
	    sym_expr_eval(e, bd, &v) < 0) {
		fprintf(stderr, "bench_search_cap: %s\n",
		    sym_ctx_last_message(ctx));
		exit(2);
	}
	sym_binding_free(bd);
	return v;
}

/* Return the answer of "s" (in "ctx") at b = "b". */
static struct answer
answer_at(sym_ctx *ctx, const sym_search *s, int64_t b)
{
	struct answer a = { 0, 0, 0, 0 };

	for (size_t i = 0; i < sym_search_n_pieces(s); i++) {
		int64_t lo, hi;

		if (sym_search_piece_range(s, i, 0, &lo, &hi) < 0 || b < lo ||
		    b > hi)
			continue;
		a.fits = sym_search_piece_fit(s, i) == SYM_SEARCH_FITS;
		a.level = sym_search_piece_optimizer_shard(s, i);
		a.fs = at(ctx, s, sym_search_piece_femtoseconds(s, i), b);
		a.mem = at(ctx, s, sym_search_piece_memory(s, i), b);
		return a;
	}
	fprintf(stderr, "bench_search_cap: no piece holds b = %lld\n",
	    (long long)b);
	exit(2);
}

/* Return 1 when "x" is better than "y" as the search ranks plans; two
 * answers that do not fit are alike (no plan). */
static int
better(struct answer x, struct answer y)
{
	if (x.fits != y.fits)
		return x.fits;
	if (!x.fits)
		return 0;
	if (x.level != y.level)
		return x.level < y.level;
	return x.fs < y.fs;
}

/* Run the case of "devices", "cap" bytes and the optimizer "opt" ("sgd"
 * or "adam"), print its line and add its counts to "sum". */
static void
run_case(int devices, int64_t cap, const char *opt, struct tally *sum)
{
	char *text = graph_text(devices,
	    strcmp(opt, "adam") ? "sgd(0.1)" : "adam(0.001)");
	sym_ctx *ctx[2];
	sym_search *s[2];
	struct tally t = { 0, 0, 0, 1.0 };
	double t0 = bench_now(), t1;
	int64_t step = 8 * ((65536 - 8) / 8 / N_SIZES + 1);

	search(text, cap, 0, &ctx[0], &s[0]);
	t1 = bench_now();
	search(text, cap, 1, &ctx[1], &s[1]);
	for (int64_t b = 8; b <= 65536; b += step) {
		struct answer g = answer_at(ctx[0], s[0], b),
		              e = answer_at(ctx[1], s[1], b);

		t.sizes++;
		t.worse += (size_t)better(e, g);
		t.better += (size_t)better(g, e);
		if (g.fits && e.fits && g.level == e.level && e.fs > 0 &&
		    (double)g.fs / (double)e.fs > t.worst_ratio)
			t.worst_ratio = (double)g.fs / (double)e.fs;
	}
	printf("{\"bench\": \"search_cap\", \"devices\": %d, \"cap_bytes\": "
	       "%lld, \"optimizer\": \"%s\", \"sizes\": %zu, "
	       "\"cost_graph_worse\": %zu, \"cost_graph_better\": %zu, "
	       "\"worst_time_ratio\": %.3f, \"cost_graph\": {\"plans_priced\": "
	       "%zu, \"probe_passes\": %zu, \"seconds\": %.3f}, "
	       "\"enumeration\": {\"plans_priced\": %zu, \"seconds\": %.3f}}\n",
	    devices, (long long)cap, opt, t.sizes, t.worse, t.better,
	    t.worst_ratio, sym_search_n_evaluations(s[0]),
	    sym_search_n_probes(s[0]), t1 - t0, sym_search_n_evaluations(s[1]),
	    bench_now() - t1);
	fflush(stdout);
	sum->sizes += t.sizes;
	sum->worse += t.worse;
	sum->better += t.better;
	if (t.worst_ratio > sum->worst_ratio)
		sum->worst_ratio = t.worst_ratio;
	for (int k = 0; k < 2; k++) {
		sym_search_free(s[k]);
		sym_ctx_free(ctx[k]);
	}
	free(text);
}

int
main(int argc, char **argv)
{
	static const int devices[] = { 4, 8 };
	static const int64_t caps[] = { 30000000, 60000000, 120000000,
		240000000 };
	static const char *const opts[] = { "sgd", "adam" };
	struct tally sum = { 0, 0, 0, 1.0 };

	if (argc == 4 && strcmp(argv[3], "sgd") && strcmp(argv[3], "adam")) {
		fprintf(stderr,
		    "bench_search_cap: the optimizer is sgd or "
		    "adam, not '%s'\n",
		    argv[3]);
		return 2;
	}
	if (argc == 4) {
		bench_header("bench_search_cap");
		run_case(atoi(argv[1]), atoll(argv[2]), argv[3], &sum);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr,
		    "usage: bench_search_cap [DEVICES CAP sgd|adam]\n");
		return 2;
	}
	bench_header("bench_search_cap");
	for (size_t d = 0; d < 2; d++)
		for (size_t c = 0; c < 4; c++)
			for (size_t o = 0; o < 2; o++)
				run_case(devices[d], caps[c], opts[o], &sum);
	printf("{\"bench\": \"search_cap_total\", \"cases\": 16, \"sizes\": "
	       "%zu, \"cost_graph_worse\": %zu, \"cost_graph_better\": %zu, "
	       "\"worst_time_ratio\": %.3f}\n",
	    sum.sizes, sum.worse, sum.better, sum.worst_ratio);
	return 0;
}
