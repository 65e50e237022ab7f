/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by the tools: numbers, tolerances, options
 * that take a value, whether MPI must start before the arguments are
 * read, errors kept for the other processes, the clock.
 */
#ifndef SYM_TOOLS_TOOL_ARGS_H
#define SYM_TOOLS_TOOL_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* What a tool says: its name, whether this process prints (rank 0 of
 * mpi, or the only process) and the first error, kept for the other
 * processes of mpi. */
struct tool_voice {
	const char *prog;
	int speak;
	char why[512];
};

int tool_parse_number(const char *s, uint64_t least, uint64_t *n);
int tool_parse_bytes(const char *s, int64_t *n);
int tool_parse_tolerance(const char *s, double *x);
const char *tool_valued_option(const char *arg, const char *const *names,
    size_t n);
int tool_wants_mpi(int argc, char **argv);
int tool_note(struct tool_voice *v, int print, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int tool_usage_error(struct tool_voice *v, int status, const char *msg,
    const char *what);
double tool_now(void);
int tool_is_onnx(const char *file);

/* The tools' one 64-bit FNV-1a (they use only the public API, so they
 * do not share the library's lib/core/hash.h): "h" with the "n" bytes of
 * "data" folded in; start from TOOL_FNV_BASIS. */
#define TOOL_FNV_BASIS 0xcbf29ce484222325ULL
uint64_t tool_fnv1a(uint64_t h, const void *data, size_t n);

/* tool_shard.c */
struct sym_graph;
struct sym_binding;
struct sym_search;
struct sym_topology;
int tool_shard(struct tool_voice *v, struct sym_graph *g, int autop,
    int64_t memory, const struct sym_binding *at, int status);
int tool_shard_on(struct tool_voice *v, struct sym_graph *g,
    const struct sym_topology *topo, int autop, int64_t memory,
    const struct sym_binding *at, int status);
int tool_shard_keep(struct tool_voice *v, struct sym_graph *g,
    const struct sym_topology *topo, int autop, int64_t memory,
    const struct sym_binding *at, int status, struct sym_search **keep,
    size_t *piece);
size_t tool_piece_at(const struct sym_search *s, const struct sym_binding *at);
char *tool_piece_refusal(const struct sym_search *s, size_t i,
    const struct sym_binding *at);

#endif
