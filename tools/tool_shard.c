/* SPDX-License-Identifier: MIT */
/*
 * Sharding for the tools that run a graph (shape-run, shape-train): as
 * its shard clauses say, or, with --auto, --memory or the graph's
 * 'parallel auto' statement, with the strategies sym_graph_search(3)
 * finds, taking the piece that covers the size the run starts with.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#include "tool_args.h"

/* Return 1 when piece "i" of "s" covers the sizes "at" gives the
 * symbols it ranges over (a symbol "at" leaves unbound: any size). */
static int
covers(const sym_search *s, size_t i, const sym_binding *at)
{
	for (size_t k = 0; k < sym_search_n_symbols(s); k++) {
		int64_t lo = 0, hi = -1, x;

		if (!at || sym_binding_get(at, sym_search_symbol(s, k), &x) < 0)
			continue;
		sym_search_piece_range(s, i, k, &lo, &hi);
		if (x < lo || (hi >= 0 && x > hi))
			return 0;
	}
	return 1;
}

/* Return the first piece of "s" that covers the sizes "at" gives (may
 * be NULL: the first piece that fits), sym_search_n_pieces(s) when none
 * does. */
size_t
tool_piece_at(const sym_search *s, const sym_binding *at)
{
	size_t i = 0, n = sym_search_n_pieces(s);

	if (!at) {
		while (i < n && sym_search_piece_fit(s, i) != SYM_SEARCH_FITS)
			i++;
		return i;
	}
	while (i < n && !covers(s, i, at))
		i++;
	return i;
}

/* Append to "buf" (of "size" bytes, holding a string) the sizes of the
 * symbols of "s" that "at" gives ("b = 4096"), or the range of piece "i"
 * ("b in [2056, 65536]", "b >= 8") when "at" is NULL. */
static void
sizes_text(const sym_search *s, size_t i, const sym_binding *at, char *buf,
    size_t size)
{
	for (size_t k = 0; k < sym_search_n_symbols(s); k++) {
		const char *y = sym_symbol_name(sym_search_symbol(s, k));
		size_t len = strlen(buf);
		int64_t lo = 0, hi = -1;

		sym_search_piece_range(s, i, k, &lo, &hi);
		if (at && sym_binding_get(at, sym_search_symbol(s, k), &lo) < 0)
			continue;
		if (at || lo == hi)
			snprintf(buf + len, size - len, "%s%s = %" PRId64,
			    len ? ", " : "", y, lo);
		else if (hi < 0)
			snprintf(buf + len, size - len, "%s%s >= %" PRId64,
			    len ? ", " : "", y, lo);
		else
			snprintf(buf + len, size - len,
			    "%s%s in [%" PRId64 ", %" PRId64 "]",
			    len ? ", " : "", y, lo, hi);
	}
}

/* Return, malloc'ed, why piece "i" of "s", which covers the sizes "at"
 * gives, cannot run: no plan fits the memory cap there, or its sizes
 * overflow 64 bits; NULL when it can run (or out of memory). */
char *
tool_piece_refusal(const sym_search *s, size_t i, const sym_binding *at)
{
	char where[256] = "", range[256] = "", *t;
	int fit = sym_search_piece_fit(s, i);
	size_t size = 1024;

	if (fit == SYM_SEARCH_FITS || fit < 0 || !(t = malloc(size)))
		return NULL;
	sizes_text(s, i, at, where, sizeof(where));
	sizes_text(s, i, NULL, range, sizeof(range));
	if (fit == SYM_SEARCH_OVERFLOW)
		snprintf(t, size,
		    "%s: no plan for %s: the search stops where the time or "
		    "memory of its plans overflows 64 bits",
		    where, range);
	else
		snprintf(t, size,
		    "%s: no plan fits the memory cap for %s; run a smaller "
		    "size or give more memory",
		    where, range);
	return t;
}

/* Shard "g" for a run: with the search when "autop" is set, "memory" (a
 * cap in bytes per device, 0: the graph's) is positive or the graph asks
 * for it, else as its clauses say; "at" (may be NULL) gives the sizes
 * the run starts with, and the first piece that covers them runs (the
 * first piece that fits when none does); a run whose sizes fall where no
 * plan fits the cap, or beyond 64 bits, is refused. Say which piece
 * runs through "v". Return 0, or "status" after the search's error. The
 * caller reports the graph's own errors. */
int
tool_shard(struct tool_voice *v, sym_graph *g, int autop, int64_t memory,
    const sym_binding *at, int status)
{
	return tool_shard_on(v, g, NULL, autop, memory, at, status);
}

/* tool_shard on the topology "topo" (NULL: the default one): the
 * communication is priced on its links. */
int
tool_shard_on(struct tool_voice *v, sym_graph *g, const sym_topology *topo,
    int autop, int64_t memory, const sym_binding *at, int status)
{
	return tool_shard_keep(v, g, topo, autop, memory, at, status, NULL,
	    NULL);
}

/* tool_shard_on that gives the caller the search in "*keep" (when not
 * NULL; NULL without a search) and the piece that runs in "*piece". */
int
tool_shard_keep(struct tool_voice *v, sym_graph *g, const sym_topology *topo,
    int autop, int64_t memory, const sym_binding *at, int status,
    sym_search **keep, size_t *piece)
{
	sym_search_options so = SYM_SEARCH_OPTIONS_INIT;
	sym_ctx *ctx = sym_graph_ctx(g);
	sym_search *s;
	size_t i, n, first;
	char *why;

	if (!autop && memory <= 0 && !sym_graph_auto_parallel(g, NULL)) {
		sym_graph_shard(g, topo);
		return 0;
	}
	so.memory = memory;
	so.topo = topo;
	s = sym_graph_search(g, &so);
	if (!s) {
		sym_loc where = sym_ctx_last_location(ctx);

		if (where.line > 0)
			return tool_note(v, 1, status, "%s:%d:%d: %s",
			    where.file ? where.file : sym_graph_filename(g),
			    where.line, where.col, sym_ctx_last_message(ctx));
		return tool_note(v, 1, status, "%s: %s", sym_graph_filename(g),
		    sym_ctx_last_message(ctx));
	}
	n = sym_search_n_pieces(s);
	first = tool_piece_at(s, NULL);
	/* the search leaves the graph as it was */
	if (sym_search_apply(s, first) < 0) {
		sym_search_free(s);
		return tool_note(v, 1, status, "%s: %s", sym_graph_filename(g),
		    sym_ctx_last_message(ctx));
	}
	i = tool_piece_at(s, at);
	if (i == n)
		i = first;
	why = tool_piece_refusal(s, i, at);
	if (why) {
		sym_search_free(s);
		status = tool_note(v, 1, status, "%s: %s",
		    sym_graph_filename(g), why);
		free(why);
		return status;
	}
	if (i != first && sym_search_apply(s, i) < 0) {
		sym_search_free(s);
		return tool_note(v, 1, status, "%s: %s", sym_graph_filename(g),
		    sym_ctx_last_message(ctx));
	}
	if (v->speak && sym_search_n_symbols(s)) {
		fprintf(stderr,
		    "%s: searched %zu operators: piece %zu of %zu, ", v->prog,
		    sym_search_n_nodes(s), i + 1, n);
		for (size_t k = 0; k < sym_search_n_symbols(s); k++) {
			const char *y =
			    sym_symbol_name(sym_search_symbol(s, k));
			int64_t lo = 0, hi = -1;

			sym_search_piece_range(s, i, k, &lo, &hi);
			if (hi == lo)
				fprintf(stderr, "%s%s = %" PRId64,
				    k ? ", " : "", y, lo);
			else if (hi < 0)
				fprintf(stderr, "%s%" PRId64 " <= %s",
				    k ? ", " : "", lo, y);
			else
				fprintf(stderr,
				    "%s%" PRId64 " <= %s <= %" PRId64,
				    k ? ", " : "", lo, y, hi);
		}
		if (sym_search_chooses_optimizer_shard(s) &&
		    sym_search_piece_optimizer_shard(s, i) > 0)
			fprintf(stderr,
			    ", optimizer_shard=%d (chosen under the memory "
			    "cap)",
			    sym_search_piece_optimizer_shard(s, i));
		fprintf(stderr, ", runs\n");
	}
	if (keep) {
		*keep = s;
		*piece = i;
		return 0;
	}
	sym_search_free(s);
	return 0;
}
