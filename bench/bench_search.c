/* SPDX-License-Identifier: MIT */
/*
 * The strategy search's benchmark (make bench): the time sym_graph_search
 * takes on stacked pre-norm transformer blocks in training (the block of
 * examples/megatron.sg without its shard clauses, a squared-error loss
 * after the last block, sgd), 1, 12 and 48 blocks on 8 and 64 devices,
 * with the probe passes of its cost graph, the plans it priced by a
 * whole pass and the pieces found. The goal (issue 13): 12
 * blocks on 8 devices in at most 1 s, growing linearly with the blocks.
 * Each case runs in a child process stopped after LIMIT seconds (said
 * so: "unfinished"), and a case is skipped, and said so, when the
 * smaller case on the same devices did not finish within BUDGET
 * seconds: the benchmark stays bounded. One JSON object a line.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <symshard.h>

#include "util.h"

#define BUDGET 30.0
#define LIMIT 120.0

/* A growing text. */
struct text {
	char *s;
	size_t len, cap;
};

/* Append the text formatted from "fmt" to "t"; exit when out of memory. */
static void __attribute__((format(printf, 2, 3)))
put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			exit(2);
		if ((size_t)n < t->cap - t->len)
			break;
		t->cap = 2 * t->cap + (size_t)n + 1;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			exit(2);
	}
	t->len += (size_t)n;
}

/* Append block "l" to "t", reading "x" (a value name) and writing y<l>. */
static void
block(struct text *t, const char *x, int l)
{
	static const char *const ps[] = { "ln1_g%d : f32[64] init=ones",
		"ln1_b%d : f32[64] init=zeros", "wq%d : f32[64, 64]",
		"wk%d : f32[64, 64]", "wv%d : f32[64, 64]",
		"scale%d : f32[1] init=constant(0.125)", "wo%d : f32[64, 64]",
		"ln2_g%d : f32[64] init=ones", "ln2_b%d : f32[64] init=zeros",
		"w1_%d : f32[64, 256]", "w2_%d : f32[256, 64]" };

	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		put(t, "param ");
		put(t, ps[i], l);
		put(t, "\n");
	}
	put(t,
	    "h_%d = layer_norm(%s, ln1_g%d, ln1_b%d, begin_norm_axis=2, "
	    "begin_params_axis=2)\n"
	    "h2_%d = reshape(h_%d, [-1, 64])\n"
	    "q_%d = matmul(h2_%d, wq%d)\nk_%d = matmul(h2_%d, wk%d)\n"
	    "v_%d = matmul(h2_%d, wv%d)\n",
	    l, x, l, l, l, l, l, l, l, l, l, l, l, l, l);
	put(t,
	    "q4_%d = reshape(q_%d, [s, b, 8, 8])\n"
	    "k4_%d = reshape(k_%d, [s, b, 8, 8])\n"
	    "v4_%d = reshape(v_%d, [s, b, 8, 8])\n"
	    "qh_%d = transpose(q4_%d, [1, 2, 0, 3])\n"
	    "kh_%d = transpose(k4_%d, [1, 2, 3, 0])\n"
	    "vh_%d = transpose(v4_%d, [1, 2, 0, 3])\n",
	    l, l, l, l, l, l, l, l, l, l, l, l);
	put(t,
	    "sc_%d = batch_matmul(qh_%d, kh_%d)\n"
	    "ss_%d = mul(sc_%d, scale%d)\n"
	    "pr_%d = softmax(ss_%d, axis=-1)\n"
	    "cx_%d = batch_matmul(pr_%d, vh_%d)\n"
	    "c2_%d = transpose(cx_%d, [2, 0, 1, 3])\n"
	    "c3_%d = reshape(c2_%d, [-1, 64])\n"
	    "at_%d = matmul(c3_%d, wo%d)\n"
	    "a3_%d = reshape(at_%d, [s, b, 64])\n"
	    "r1_%d = add(%s, a3_%d)\n",
	    l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, x,
	    l);
	put(t,
	    "h3_%d = layer_norm(r1_%d, ln2_g%d, ln2_b%d, begin_norm_axis=2, "
	    "begin_params_axis=2)\n"
	    "h4_%d = reshape(h3_%d, [-1, 64])\n"
	    "f1_%d = matmul(h4_%d, w1_%d)\ng1_%d = gelu(f1_%d)\n"
	    "f2_%d = matmul(g1_%d, w2_%d)\n"
	    "f3_%d = reshape(f2_%d, [s, b, 64])\n"
	    "y%d = add(r1_%d, f3_%d)\n",
	    l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l);
}

/* Return the text of "n" stacked blocks on "devices" devices. */
static char *
graph_text(int n, int devices)
{
	struct text t = { NULL, 0, 0 };
	char x[32] = "x";

	put(&t,
	    "devices %d\nsymbol b divisor=2 max=4096\n"
	    "symbol s min=8 max=64 divisor=8\ninput x : f32[s, b, 64]\n"
	    "input tgt : f32[s, b, 64]\n",
	    devices);
	for (int l = 0; l < n; l++) {
		block(&t, x, l);
		snprintf(x, sizeof(x), "y%d", l);
	}
	put(&t,
	    "e = sub(%s, tgt)\nsq = mul(e, e)\nloss = reduce_mean(sq)\n"
	    "output loss\nminimize loss with sgd(0.002)\n",
	    x);
	return t.s;
}

/* The ranks of a node (argv[3]; 0: all on one node). */
static int per_node;

/* Search "n" blocks on "devices" devices and print the result; return
 * the seconds the search took (-1 on error). */
static double
run(int n, int devices)
{
	sym_ctx *ctx = sym_ctx_new();
	char *text = graph_text(n, devices);
	sym_graph *g = ctx ? sym_graph_parse(ctx, text, "blocks.sg") : NULL;
	sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
	sym_topology *topo = NULL;
	sym_search *s;
	double t0, t;

	if (!g || sym_graph_n_errors(g)) {
		fprintf(stderr, "bench_search: the graph does not parse\n");
		exit(2);
	}
	if (per_node > 0) {
		topo = sym_topology_new(ctx, per_node, 0, 0, 0, 0);
		if (!topo)
			exit(2);
		o.topo = topo;
	}
	t0 = bench_now();
	s = sym_graph_search(g, &o);
	t = bench_now() - t0;
	if (!s) {
		printf(
		    "{\"bench\": \"search\", \"blocks\": %d, \"devices\": %d, "
		    "\"error\": \"%s\"}\n",
		    n, devices, sym_ctx_last_message(ctx));
		t = -1;
	} else {
		printf(
		    "{\"bench\": \"search\", \"blocks\": %d, \"devices\": "
		    "%d, \"operators\": %zu, \"searched\": %zu, \"seconds\": "
		    "%.3f, \"probe_passes\": %zu, \"plans_priced\": %zu, "
		    "\"pieces\": %zu, \"ranks_per_node\": %d, "
		    "\"layout_meshes\": %zu}\n",
		    n, devices, sym_graph_n_nodes(g), sym_search_n_nodes(s), t,
		    sym_search_n_probes(s), sym_search_n_evaluations(s),
		    sym_search_n_pieces(s), per_node, sym_search_n_meshes(s));
	}
	fflush(stdout);
	sym_search_free(s);
	sym_topology_free(topo);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	free(text);
	return t;
}

/* Run case "n" blocks on "devices" devices in a child process stopped
 * after LIMIT seconds; return the seconds its search took, or -1 when it
 * failed or did not finish (said so). */
static double
run_limited(int n, int devices)
{
	int fd[2], status = 0;
	double t0 = bench_now(), t = -1;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd) < 0 || (pid = fork()) < 0)
		return run(n, devices);
	if (pid == 0) {
		double r;

		close(fd[0]);
		r = run(n, devices);
		if (write(fd[1], &r, sizeof(r)) != sizeof(r))
			_exit(2);
		_exit(0);
	}
	close(fd[1]);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (bench_now() - t0 > LIMIT) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			printf(
			    "{\"bench\": \"search\", \"blocks\": %d, "
			    "\"devices\": %d, \"unfinished\": \"stopped after "
			    "%.0f s\"}\n",
			    n, devices, LIMIT);
			close(fd[0]);
			return -1;
		}
		usleep(100000);
	}
	if (read(fd[0], &t, sizeof(t)) != sizeof(t))
		t = -1;
	close(fd[0]);
	return t;
}

/* Print "t" seconds as a JSON number, null when negative (unknown). */
static void
print_seconds(double t)
{
	if (t < 0)
		fputs("null", stdout);
	else
		printf("%.3f", t);
}

/* Run the cases (argv[1]: the most blocks, default 48; argv[2]: only
 * this many devices, default both; argv[3]: the ranks of a node, default
 * all on one) and the goal. */
int
main(int argc, char **argv)
{
	static const int blocks[] = { 1, 12, 48 };
	static const int devices[] = { 8, 64 };
	int most = argc > 1 ? atoi(argv[1]) : 48;
	int only = argc > 2 ? atoi(argv[2]) : 0;

	per_node = argc > 3 ? atoi(argv[3]) : 0;
	double t12 = -1, t1 = -1, t48 = -1;

	bench_header("bench_search");
	for (int d = 0; d < 2; d++) {
		double last = 0;

		for (int k = 0; k < 3 && blocks[k] <= most; k++) {
			double t;

			if (only && devices[d] != only)
				break;

			if (last > BUDGET || last < 0) {
				printf(
				    "{\"bench\": \"search\", \"blocks\": %d, "
				    "\"devices\": %d, \"skipped\": \"the "
				    "case before took %.1f s, over the "
				    "budget of %.0f s\"}\n",
				    blocks[k], devices[d], last, BUDGET);
				continue;
			}
			t = run_limited(blocks[k], devices[d]);
			if (d == 0 && blocks[k] == 1)
				t1 = t;
			if (d == 0 && blocks[k] == 12)
				t12 = t;
			if (d == 0 && blocks[k] == 48)
				t48 = t;
			last = t;
		}
	}
	if (per_node > 0)
		return 0; /* the goal is for one node */
	printf("{\"bench\": \"search_goal\", \"goal\": \"12 blocks on 8 "
	       "devices in <= 1 s\", \"seconds_1_block\": ");
	print_seconds(t1);
	printf(", \"seconds_12_blocks\": ");
	print_seconds(t12);
	printf(", \"seconds_48_blocks\": ");
	print_seconds(t48);
	/* linear growth: the time a block adds, from 1 to 12 and 12 to 48 */
	printf(", \"seconds_per_block_1_to_12\": ");
	print_seconds(t1 >= 0 && t12 >= 0 ? (t12 - t1) / 11 : -1);
	printf(", \"seconds_per_block_12_to_48\": ");
	print_seconds(t12 >= 0 && t48 >= 0 ? (t48 - t12) / 36 : -1);
	printf(", \"goal_met\": %s}\n",
	    t12 >= 0 && t12 <= 1.0 ? "true" : "false");
	return 0;
}
