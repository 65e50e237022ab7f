/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the ONNX importer (issue 26): for each model named on the
 * command line, reads it with sym_onnx_read (a new context each time,
 * freed outside the timing) at least 5 times and for at least 0.5 s, and
 * prints one JSON line: the median time of an import, the time per ONNX
 * node, and what the import found (nodes, values with a graph value,
 * symbolic dimensions, dimensions lost to fresh symbols). bench/run.sh
 * compares it in the same run with ONNX's own shape inference
 * (bench/onnx_infer.py).
 *
 * Usage: bench/bench_onnx MODEL.onnx...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#include "util.h"

#define MAX_RUNS 1000

/* Import "path" once on a new context; its time in "*t", its statistics
 * in "*st"; 0, or -1 when the model cannot be imported without error. */
static int
import_once(const char *path, double *t, sym_onnx_stats *st)
{
	sym_ctx *ctx = sym_ctx_new();
	double t0;
	sym_graph *g;
	int rc;

	if (!ctx)
		return -1;
	t0 = bench_now();
	g = sym_onnx_read(ctx, path, st);
	*t = bench_now() - t0;
	rc = g && sym_graph_n_errors(g) == 0 ? 0 : -1;
	if (rc < 0)
		fprintf(stderr, "bench_onnx: %s: %s\n", path,
		    g && sym_graph_n_diagnostics(g)
		        ? sym_graph_diagnostic(g, 0)->message
		        : sym_ctx_last_message(ctx));
	sym_graph_free(g);
	sym_ctx_free(ctx);
	return rc;
}

/* Time the import of "path" and print its line; 0 or -1. */
static int
bench_model(const char *path)
{
	static double t[MAX_RUNS];
	sym_onnx_stats st = SYM_ONNX_STATS_INIT;
	double start = bench_now();
	size_t n = 0;

	while (n < MAX_RUNS && (n < 5 || bench_now() - start < 0.5))
		if (import_once(path, &t[n++], &st) < 0)
			return -1;
	struct bench_spread s = bench_spread_of(t, n);
	const char *base = strrchr(path, '/');
	printf("{\"bench\": \"onnx_import\", \"model\": \"%s\", \"runs\": %zu, "
	       "\"nodes\": %zu, \"folded\": %zu, \"values\": %zu, "
	       "\"symbolic_dims\": %zu, \"lost_dims\": %zu, "
	       "\"seconds\": %.6g, \"p10\": %.6g, \"p90\": %.6g, "
	       "\"us_per_node\": %.4g}\n",
	    base ? base + 1 : path, n, st.nodes, st.folded, st.values,
	    st.symbolic_dims, st.lost_dims, s.median, s.p10, s.p90,
	    st.nodes ? s.median * 1e6 / (double)st.nodes : 0.0);
	return 0;
}

/* Benchmark every model of "argv". */
int
main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_onnx MODEL.onnx...\n");
		return 2;
	}
	bench_header("bench_onnx");
	for (int i = 1; i < argc; i++)
		if (bench_model(argv[i]) < 0)
			rc = 1;
	return rc;
}
