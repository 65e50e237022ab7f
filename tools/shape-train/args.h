/* SPDX-License-Identifier: MIT */
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

/* The most channels a --normalize names. */
#define TRAIN_MAX_CHANNELS 64

/* A transform of the data (--rescale, --normalize), as written. */
struct train_transform {
	int normalize;
	const char *spec;
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
	const char *rank_table;       /* --rank-table FILE */
	const char *topology;         /* --topology FILE */
	int allow_nonfinite;          /* --allow-nonfinite */
	struct train_transform *maps; /* --rescale, --normalize, in order */
	size_t n_maps;
	/* Sequences: --tokens-per-batch, --pad-to-max, --max-len,
	 * --eval-split (0: none), --sample N bytes (0: none) and its
	 * --prompt; the --dataset with the corpus options added. */
	int64_t tokens_per_batch, max_len, sample;
	int pad_to_max;
	double eval_split;
	const char *prompt;
	char *dataset_spec;
	struct tool_voice voice; /* speaks: not on the ranks of mpi but 0 */
};

void train_options_init(struct train_options *o);
void train_options_clear(struct train_options *o);
int train_parse_args(int argc, char **argv, struct train_options *o);
uint64_t train_options_hash(const struct train_options *o);

/* transform.c */
struct sym_dataset;
int train_transform_parse(const char *spec, int normalize, char *column,
    size_t cap, double *a, double *b, size_t *n);
int train_transforms_apply(const struct train_options *o,
    struct sym_dataset *d);
/* sample.c */
struct sym_ctx;
struct sym_graph;
struct sym_trainer;
int train_sample(struct sym_ctx *ctx, struct sym_graph *g,
    struct sym_trainer *t, const struct train_options *o);

int train_note(struct train_options *o, int print, int status, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

#endif
