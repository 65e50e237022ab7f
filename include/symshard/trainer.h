/* SPDX-License-Identifier: MIT */
/*
 * symshard: the training loop of a sharded plan on data (sym_trainer(3)).
 */
#ifndef SYMSHARD_TRAINER_H
#define SYMSHARD_TRAINER_H

#include <symshard/comm.h>
#include <symshard/common.h>
#include <symshard/dataset.h>
#include <symshard/exec.h>
#include <symshard/plan.h>
#include <symshard/search.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_trainer sym_trainer;

/* Options of sym_trainer_new; SYM_TRAIN_OPTIONS_INIT gives the defaults
 * and the size of the structure this header declares. */
typedef struct sym_train_options {
	size_t size;
	uint64_t seed;
	const int64_t *batch; /* global batch sizes, cycled; NULL: default */
	size_t n_batch;
	int no_shuffle;
	int drop_remainder;
	const char *map;        /* "x=image,y=label"; NULL: declaration order */
	const sym_plan *single; /* train alongside and compare: NULL: no */
	size_t check_every;     /* params compared every K steps; 0: end */
	double rtol, atol;      /* sym_exec(3)'s tolerances; 0: default */
	uint64_t agree;         /* what else every process must agree on */
	int allow_nonfinite;    /* go on after a NaN or infinite loss */
	/* Sequences (a text: or tokens: corpus): the tokens of a batch,
	 * b * s <= tokens_per_batch (0: the first batch size is b); pad
	 * every record to the largest admissible s instead of buckets. */
	int64_t tokens_per_batch;
	int pad_to_max;
	/* Plan switching (sequences): the search whose pieces' plans the
	 * trainer compiles when first needed and switches between, "p"
	 * being the plan of its piece "search_piece"; NULL: none.
	 * "no_switch": stay on "p" unless a batch does not fit it. */
	sym_search *search;
	size_t search_piece;
	int no_switch;
} sym_train_options;

/* The batch size of a graph with a batch symbol whose options give
 * none (a graph without one runs at its own). */
#define SYM_TRAIN_BATCH 64

#define SYM_TRAIN_OPTIONS_INIT                    \
	{                                         \
		.size = sizeof(sym_train_options) \
	}

/* The result of one step. */
typedef struct sym_train_step {
	int64_t epoch, step; /* from 1; step counts across epochs */
	double loss;
	int64_t rows;         /* samples in the global batch */
	const char *bindings; /* "b=64": every symbol of the plan */
	double seconds;
	/* With options.single: the step's loss, and the params when they
	 * were compared ("params_checked"); "mismatch" names the first
	 * difference beyond tolerance, NULL when none. */
	int params_checked;
	const char *mismatch;
	/* Sequences: the records of the batch, their tokens (the real
	 * ones) and the tokens computed, b * s with the pads; 0 else. */
	int64_t records, tokens, padded_tokens;
	/* Plan switching: the plan the step ran on (a number among the
	 * search's distinct plans), whether it switched to it first, and
	 * the switch's measured and modelled seconds. */
	size_t plan;
	int switched;
	double switch_seconds, switch_modelled;
} sym_train_step;

/* Plan switching so far (sym_trainer_switching): the distinct plans of
 * the search and those compiled, the switches and their measured and
 * modelled seconds; the modelled seconds of the steps run (switches
 * included) and of the same steps on the single plan that the model
 * finds best for them ("best_plan"). */
typedef struct sym_train_switching {
	size_t n_plans, n_compiled;
	int64_t switches;
	double seconds, modelled;
	double model_run, model_best;
	size_t best_plan;
} sym_train_switching;

typedef struct sym_eval_result {
	int64_t epoch;
	double loss;     /* mean over the samples evaluated */
	double accuracy; /* top-1; NaN when the graph has no class scores */
	int64_t rows, correct, dropped;
	double seconds;
	/* Sequences: the loss, accuracy and "correct" are per token over
	 * the "tokens" real tokens; the perplexity is exp(loss). */
	int64_t tokens;
	double perplexity;
} sym_eval_result;

SYM_EXPORT SYM_GIVE sym_trainer *sym_trainer_new(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP const sym_plan *p, SYM_KEEP sym_communicator *comm,
    SYM_KEEP sym_dataset *train, SYM_KEEP sym_dataset *test,
    SYM_KEEP const sym_train_options *o);
SYM_EXPORT void sym_trainer_free(SYM_TAKE sym_trainer *t);
SYM_EXPORT int sym_trainer_step(SYM_KEEP sym_trainer *t, sym_train_step *r);
SYM_EXPORT SYM_KEEP const char *
sym_trainer_notice(SYM_KEEP const sym_trainer *t);
SYM_EXPORT SYM_KEEP const char *
sym_trainer_mismatch(SYM_KEEP const sym_trainer *t);
SYM_EXPORT int64_t sym_trainer_epoch(SYM_KEEP const sym_trainer *t);
SYM_EXPORT int sym_trainer_evaluate(SYM_KEEP sym_trainer *t,
    sym_eval_result *r);
SYM_EXPORT int sym_trainer_compare_params(SYM_KEEP sym_trainer *t,
    sym_exec_report *r);
SYM_EXPORT int sym_trainer_save(SYM_KEEP sym_trainer *t, const char *path);
SYM_EXPORT int sym_trainer_load(SYM_KEEP sym_trainer *t, const char *path);
SYM_EXPORT int sym_trainer_switching(SYM_KEEP const sym_trainer *t,
    sym_train_switching *r);
SYM_EXPORT size_t sym_trainer_plan_piece(SYM_KEEP const sym_trainer *t,
    size_t plan);
SYM_EXPORT int sym_trainer_param(SYM_KEEP sym_trainer *t, const char *name,
    void *whole, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
