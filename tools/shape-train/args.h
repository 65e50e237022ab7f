/*
 * The command line of shape-train (shape-train(1)).
 */
#ifndef SYM_TOOLS_TRAIN_ARGS_H
#define SYM_TOOLS_TRAIN_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "tool_args.h"

enum {
	TRAIN_EXIT_OK = 0,
	TRAIN_EXIT_FAIL = 1,
	TRAIN_EXIT_USAGE = 2
};

struct train_options {
	const char *file;
	const char *dataset; /* --dataset, NULL: seeded inputs */
	char *map;           /* the --map entries joined by commas */
	int64_t *batch;      /* --batch B[,B...] */
	size_t n_batch;
	int64_t epochs, steps; /* steps -1: --epochs */
	int64_t ranks;         /* 0: the graph's devices */
	const char *backend;
	int mpi;
	uint64_t seed;
	int no_shuffle, drop_remainder, check, eval, json, quiet;
	int autop;      /* --auto: search the strategies */
	int64_t memory; /* --memory BYTES, 0: none */
	int64_t check_every, log_every;
	double rtol, atol;
	const char *save, *load;
	struct tool_voice voice; /* speaks: not on the ranks of mpi but 0 */
};

void train_options_init(struct train_options *o);
void train_options_clear(struct train_options *o);
int train_parse_args(int argc, char **argv, struct train_options *o);
uint64_t train_options_hash(const struct train_options *o);
int train_note(struct train_options *o, int print, int status, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

#endif
