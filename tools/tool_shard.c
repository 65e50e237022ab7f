/*
 * Sharding for the tools that run a graph (shape-run, shape-train): as
 * its shard clauses say, or, with --auto, --memory or the graph's
 * 'parallel auto' statement, with the strategies sym_graph_search(3)
 * finds, taking the piece that covers the size the run starts with.
 */
#include <inttypes.h>
#include <stdio.h>

#include <symshard.h>

#include "tool_args.h"

/* Shard "g" for a run: with the search when "autop" is set, "memory" (a
 * cap in bytes per device, 0: the graph's) is positive or the graph asks
 * for it, else as its clauses say; "size" is the value the run starts
 * with of the symbol the search ranges over (-1: unknown, the first
 * piece). Say which piece runs through "v". Return 0, or "status" after
 * the search's error. The caller reports the graph's own errors. */
int
tool_shard(struct tool_voice *v, sym_graph *g, int autop, int64_t memory,
    int64_t size, int status)
{
	sym_search_options so = SYM_SEARCH_OPTIONS_INIT;
	sym_ctx *ctx = sym_graph_get_ctx(g);
	const sym_symbol *y;
	sym_search *s;
	size_t i = 0, n;
	int64_t lo = 0, hi = -1;

	if (!autop && memory <= 0 && !sym_graph_auto_parallel(g, NULL)) {
		sym_graph_shard(g, NULL);
		return 0;
	}
	so.memory = memory;
	s = sym_graph_search(g, &so);
	if (!s) {
		sym_loc at = sym_ctx_last_location(ctx);

		if (at.line > 0)
			return tool_note(v, 1, status, "%s:%d:%d: %s",
			    at.file ? at.file : sym_graph_filename(g), at.line,
			    at.col, sym_ctx_last_message(ctx));
		return tool_note(v, 1, status, "%s: %s", sym_graph_filename(g),
		    sym_ctx_last_message(ctx));
	}
	n = sym_search_n_pieces(s);
	y = sym_search_symbol(s);
	for (size_t k = 0; y && size >= 0 && k < n; k++) {
		sym_search_piece_range(s, k, &lo, &hi);
		if (size >= lo && (hi < 0 || size <= hi))
			i = k;
	}
	sym_search_piece_range(s, i, &lo, &hi);
	if (i && sym_search_apply(s, i) < 0) {
		sym_search_free(s);
		return tool_note(v, 1, status, "%s: %s", sym_graph_filename(g),
		    sym_ctx_last_message(ctx));
	}
	if (v->speak && y) {
		char upto[32] = "";

		if (hi >= 0)
			snprintf(upto, sizeof(upto), " <= %" PRId64, hi);
		fprintf(stderr,
		    "%s: searched %zu operators: piece %zu of %zu, %" PRId64
		    " <= %s%s, runs\n",
		    v->prog, sym_search_n_nodes(s), i + 1, n, lo,
		    sym_symbol_name(y), upto);
	}
	sym_search_free(s);
	return 0;
}
