/*
 * symshard: training on data: datasets (sym_dataset(3)), checkpoints in
 * the safetensors format (sym_checkpoint(3), symshard-checkpoint(5)) and
 * the training loop of a sharded plan (sym_trainer(3)).
 */
#ifndef SYMSHARD_TRAIN_H
#define SYMSHARD_TRAIN_H

#include <symshard/comm.h>
#include <symshard/common.h>
#include <symshard/ctx.h>
#include <symshard/exec.h>
#include <symshard/plan.h>
#include <symshard/shape.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- Datasets -------------------------------------------------------- */

typedef struct sym_dataset sym_dataset;

typedef enum sym_dataset_split {
	SYM_SPLIT_TRAIN,
	SYM_SPLIT_TEST
} sym_dataset_split;

/* A column given to sym_dataset_from_memory: "n_rows" rows of "dim"
 * ("ndim" sizes: one row's shape), row-major, dtype "dtype". */
typedef struct sym_dataset_column {
	const char *name;
	sym_dtype dtype;
	size_t ndim;
	const int64_t *dim;
	const void *data;
} sym_dataset_column;

SYM_EXPORT SYM_GIVE sym_dataset *sym_dataset_open(SYM_KEEP sym_ctx *ctx,
    const char *spec, sym_dataset_split split);
SYM_EXPORT SYM_GIVE sym_dataset *sym_dataset_mnist_open(SYM_KEEP sym_ctx *ctx,
    const char *dir, sym_dataset_split split);
SYM_EXPORT SYM_GIVE sym_dataset *sym_dataset_from_memory(SYM_KEEP sym_ctx *ctx,
    int64_t n_rows, SYM_KEEP const sym_dataset_column *col, size_t n_col);
SYM_EXPORT void sym_dataset_free(SYM_TAKE sym_dataset *d);

SYM_EXPORT SYM_KEEP const char *sym_dataset_name(SYM_KEEP const sym_dataset *d);
SYM_EXPORT int64_t sym_dataset_n_rows(SYM_KEEP const sym_dataset *d);
SYM_EXPORT size_t sym_dataset_n_columns(SYM_KEEP const sym_dataset *d);
SYM_EXPORT size_t sym_dataset_find_column(SYM_KEEP const sym_dataset *d,
    const char *name);
SYM_EXPORT SYM_KEEP const char *
sym_dataset_column_name(SYM_KEEP const sym_dataset *d, size_t c);
SYM_EXPORT sym_dtype sym_dataset_column_dtype(SYM_KEEP const sym_dataset *d,
    size_t c);
SYM_EXPORT size_t sym_dataset_column_ndim(SYM_KEEP const sym_dataset *d,
    size_t c);
SYM_EXPORT int64_t sym_dataset_column_dim(SYM_KEEP const sym_dataset *d,
    size_t c, size_t i);
SYM_EXPORT int sym_dataset_read(SYM_KEEP const sym_dataset *d, size_t c,
    int64_t row, int64_t start, int64_t count, void *dst);
SYM_EXPORT uint64_t sym_dataset_fingerprint(SYM_KEEP const sym_dataset *d);

/* --- Checkpoints (safetensors) -------------------------------------- */

typedef struct sym_checkpoint sym_checkpoint;

SYM_EXPORT SYM_GIVE sym_checkpoint *sym_checkpoint_new(SYM_KEEP sym_ctx *ctx);
SYM_EXPORT SYM_GIVE sym_checkpoint *sym_checkpoint_read(SYM_KEEP sym_ctx *ctx,
    const char *path);
SYM_EXPORT void sym_checkpoint_free(SYM_TAKE sym_checkpoint *ck);
SYM_EXPORT int sym_checkpoint_add(SYM_KEEP sym_checkpoint *ck, const char *name,
    sym_dtype dtype, size_t ndim, const int64_t *dim, const void *data);
SYM_EXPORT int sym_checkpoint_set_metadata(SYM_KEEP sym_checkpoint *ck,
    const char *key, const char *value);
SYM_EXPORT SYM_KEEP const char *
sym_checkpoint_metadata(SYM_KEEP const sym_checkpoint *ck, const char *key);
SYM_EXPORT int sym_checkpoint_write(SYM_KEEP const sym_checkpoint *ck,
    const char *path);
SYM_EXPORT size_t sym_checkpoint_n_tensors(SYM_KEEP const sym_checkpoint *ck);
SYM_EXPORT size_t sym_checkpoint_find(SYM_KEEP const sym_checkpoint *ck,
    const char *name);
SYM_EXPORT SYM_KEEP const char *
sym_checkpoint_tensor_name(SYM_KEEP const sym_checkpoint *ck, size_t i);
SYM_EXPORT sym_dtype
sym_checkpoint_tensor_dtype(SYM_KEEP const sym_checkpoint *ck, size_t i);
SYM_EXPORT size_t sym_checkpoint_tensor_ndim(SYM_KEEP const sym_checkpoint *ck,
    size_t i);
SYM_EXPORT int64_t sym_checkpoint_tensor_dim(SYM_KEEP const sym_checkpoint *ck,
    size_t i, size_t d);
SYM_EXPORT SYM_KEEP const void *
sym_checkpoint_tensor_data(SYM_KEEP const sym_checkpoint *ck, size_t i,
    size_t *bytes);

/* --- The training loop ---------------------------------------------- */

typedef struct sym_trainer sym_trainer;

/* Options of sym_trainer_new; SYM_TRAIN_OPTIONS_INIT gives the defaults
 * and the size of the structure this header declares. */
typedef struct sym_train_options {
	size_t size;
	uint64_t seed;
	const int64_t *batch; /* global batch sizes, cycled step by step */
	size_t n_batch;
	int no_shuffle;
	int drop_remainder;
	const char *map;        /* "x=image,y=label"; NULL: declaration order */
	const sym_plan *single; /* train alongside and compare: NULL: no */
	size_t check_every;     /* params compared every K steps; 0: end */
	double rtol, atol;      /* sym_exec(3)'s tolerances; 0: default */
	uint64_t agree;         /* what else every process must agree on */
} sym_train_options;

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
} sym_train_step;

typedef struct sym_eval_result {
	int64_t epoch;
	double loss;     /* mean over the samples evaluated */
	double accuracy; /* top-1; NaN when the graph has no class scores */
	int64_t rows, correct, dropped;
	double seconds;
} sym_eval_result;

SYM_EXPORT SYM_GIVE sym_trainer *sym_trainer_new(SYM_KEEP const sym_plan *p,
    SYM_KEEP sym_communicator *comm, SYM_KEEP sym_dataset *train,
    SYM_KEEP sym_dataset *test, SYM_KEEP const sym_train_options *o,
    SYM_KEEP sym_ctx *ctx);
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
SYM_EXPORT int sym_trainer_get_param(SYM_KEEP sym_trainer *t, const char *name,
    void *whole, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
