/* SPDX-License-Identifier: MIT */
/*
 * The body of a trainer, shared by its files: trainer.c (creation, the
 * rank threads, jobs), trainer_data.c (columns bound to inputs, epochs,
 * each rank's rows), trainer_step.c (steps and the single-device check)
 * and trainer_eval.c (evaluation, checkpoints).
 */
#ifndef SYM_TRAIN_TRAINER_PRIVATE_H
#define SYM_TRAIN_TRAINER_PRIVATE_H

#include <pthread.h>

#include <symshard/expr.h>
#include <symshard/grad.h>
#include <symshard/symbol.h>
#include <symshard/checkpoint.h>
#include <symshard/trainer.h>

#include "core/ctx_private.h"
#include "train/dataset_private.h"

struct sym__xmove;

/* An input of the graph fed from a column of the datasets: its plan
 * tensors (sharded, single-device) and its columns (train, test). */
struct sym__feed {
	const sym_value *v;
	size_t col, col_test;
	size_t t, t1;
};

/* A batch of sequences (trainer_seq.c): its bucket "s", its bound
 * batch "b", its "n" records (rows srow[first ...]) and the position of
 * the first in the epoch's order. */
struct sym__seqbatch {
	int64_t s, b, first, n, pos;
	size_t plan; /* plan switching: the plan it runs on */
};

/* The batches of an epoch of sequences (the next one "next") over the
 * rows "srow", and what it left out: records longer than the sequence
 * symbol admits ("dropped"), records of a last batch ("cut"). */
struct sym__seqsched {
	struct sym__seqbatch *sb;
	size_t n_sb, cap_sb, next;
	int64_t *srow;
	size_t n_srow, cap_srow;
	int64_t dropped, cut;
};

/* What the ranks are told to do (a job), see trainer.c. */
enum sym__job {
	SYM__JOB_INIT,    /* prepare, initialize the params */
	SYM__JOB_PREPARE, /* prepare only (sizing the buffers) */
	SYM__JOB_STEP,    /* prepare, read the batch, run */
	SYM__JOB_EVAL,    /* prepare, read the batch, run forward, gather */
	SYM__JOB_GATHER,  /* gather the value "job_name" whole */
	SYM__JOB_SET,     /* set the value "job_name" from "job_whole" */
	SYM__JOB_SWITCH,  /* move the params to the plan "cur_plan" */
	SYM__JOB_QUIT
};

/* A rank of the trainer: in its own thread (threads backend, its own
 * context), in the caller's thread (threads backend with one rank, its
 * own context too) or the process's one (mpi, the trainer's context). */
struct sym__trank {
	struct sym_trainer *t;
	int k;
	sym_ctx *ctx;
	sym_comm_endpoint *ep;
	sym_exec *x;
	int failed;
	void *whole; /* SYM__JOB_GATHER / EVAL: the gathered value */
	size_t whole_cap;
	/* Plan switching: the executor of each plan (NULL until it runs;
	 * "x" is the current one's), the buffers of moving params. */
	sym_exec **xs;
	struct sym__xmove *mv;
};

/* A plan of a search's pieces the trainer switches to (trainer_switch.c):
 * its sharding, its plan and slices when compiled ("own": not the
 * caller's), its modelled time and memory per step (the search's
 * expressions). */
struct sym__tplan {
	size_t entry;
	sym_sharding *sh;
	sym_plan *p;
	sym_slices *s;
	int own;
	const sym_expr *fs, *mem;
	double run_seconds; /* modelled: the steps run, had they run here */
};

/* The switches between two plans: the redistribution of every param
 * (t->pv) and its modelled seconds; NULL until first needed. */
struct sym__tmove {
	sym_redist **r;
	double seconds;
};

/* The batch the ranks read: rows "rows" (dataset row numbers, "n") of
 * "data" through the feeds' columns ("test": col_test). */
struct sym__batch {
	const sym_dataset *data;
	const int64_t *rows;
	int64_t n;
	int test;
};

struct sym_trainer {
	sym_ctx *ctx;
	const sym_plan *p;
	sym_graph *g;
	sym_communicator *comm;
	int n_ranks, mpi;
	sym_train_options o;
	int64_t *batch; /* o.batch, copied */
	sym_dataset *train, *test;

	/* The ranks (n_ranks on threads, one on mpi) and their threads;
	 * "inline_rank": one rank on threads, run in the caller's thread
	 * (no threads, no barriers). */
	struct sym__trank *rank;
	int n_local, inline_rank;
	pthread_t *th;
	int n_started;
	pthread_barrier_t bar;  /* the ranks and the caller: jobs */
	pthread_barrier_t rbar; /* the ranks: agreeing on failures */
	int have_bar;
	pthread_mutex_t mu; /* the start: "go" 1 run, -1 give up */
	pthread_cond_t cv;
	int go;
	enum sym__job job;
	const char *job_name;
	const void *job_whole;
	size_t job_bytes;
	int blas_threads;

	/* Inputs fed from the data; the batch symbol, the binding. */
	struct sym__feed *feed;
	size_t n_feed, n_inputs; /* fed, and inputs of the graph */
	sym_symbol *batch_sym;
	int64_t fixed_batch; /* no batch symbol: the graph's own batch */
	const sym_value *fixed_from; /* the input that says so, or NULL */
	sym_binding *binding;
	sym_slices *s;
	struct sym__batch cur;

	/* The epoch: the sample order (stored for data of at most 2^24
	 * rows, else computed), the next position in it; the row numbers of
	 * the current batch (training or evaluation). */
	uint32_t *order;
	int64_t pos, epoch, step;
	int64_t *rows;
	size_t cap_rows;
	int64_t epoch_steps; /* the steps the open epoch ran */
	int epoch_open;

	/* Evaluation: the class scores and the label feed (SIZE_MAX). */
	const sym_value *scores;
	size_t label_feed;

	/* The single-device side (o.single). */
	sym_slices *s1;
	sym_exec *x1;
	void *cmp; /* scratch of the comparisons */
	size_t cmp_cap;

	/* Sequences (trainer_seq.c): the sequence symbol, the batches of
	 * the epoch (the next one "sb_next") over the rows "srow", what
	 * the schedule left out; the current batch's bucket, real tokens
	 * and records. */
	sym_symbol *seq_sym;
	struct sym__seqsched train_q, eval_q;
	int64_t cur_seq, cur_tokens, cur_records;

	/* Plan switching (trainer_switch.c, o.search): the distinct plans of
	 * the search's pieces, each piece's plan, the current plan, the
	 * params moved, the moves by pair of plans; "fresh" while no step
	 * ran and nothing was loaded (a switch then initializes the params
	 * on the new plan instead of moving them); the model's binding and
	 * cap; the switches made and their times; the plan it switched from
	 * for the pending job (SIZE_MAX: none). */
	struct sym__tplan *plans;
	size_t n_plans, cur_plan, from_plan, *piece_plan;
	const sym_value **pv;
	size_t n_pv;
	struct sym__tmove *moves;
	int fresh;
	sym_binding *mb;
	int64_t cap;
	int64_t switches;
	double switch_seconds, switch_modelled, model_run;
	double last_switch, last_modelled;
	int switched;

	char bindings[256];
	char bind_why[256]; /* why a size did not bind, no batch symbol */
	char mismatch[512];
	char notice[512];
};

/* trainer.c */
int sym__trainer_run(sym_trainer *t, enum sym__job job);
int sym__trainer_bind(sym_trainer *t, sym_slices *s, const sym_plan *p,
    int64_t rows);
const char *sym__trainer_bind_error(const sym_trainer *t, const sym_slices *s);
int sym__trank_agree(struct sym__trank *r, int bad);
uint64_t sym__graph_fingerprint(const sym_graph *g);
int sym__trainer_agree_hash(sym_trainer *t, uint64_t mine, const char *what);

/* trainer_data.c */
int sym__trainer_feeds(sym_trainer *t);
int sym__trainer_read(sym_trainer *t, sym_exec *x, const sym_plan *p,
    const sym_slices *s, int64_t rank, int single);
void sym__trainer_shuffle(sym_trainer *t);
int64_t sym__trainer_keyed_perm(uint64_t key, int64_t n, int64_t i);
int64_t *sym__trainer_rows(sym_trainer *t, int64_t n);
int64_t *sym__trainer_batch_rows(sym_trainer *t, int64_t n);
int sym__trainer_explain(sym_trainer *t, const char *what);

uint64_t sym__trainer_epoch_key(const sym_trainer *t);
int64_t sym__trainer_row_at(const sym_trainer *t, int64_t pos);

/* trainer_seq.c */
int64_t sym__seq_least_from(const sym_symbol *sym, int64_t n);
int sym__seq_feed(sym_trainer *t, const sym_value *v, const sym_dataset *d,
    size_t c);
int sym__seq_schedule(sym_trainer *t, struct sym__seqsched *q,
    const sym_dataset *d, int64_t (*row_of)(const sym_trainer *, int64_t),
    uint64_t key, int keep);
int sym__seq_first_bind(sym_trainer *t, sym_slices *s, const sym_plan *p);
int sym__seq_prepare_buckets(sym_trainer *t, sym_slices *s, const sym_plan *p);
void sym__seq_notice(sym_trainer *t, const struct sym__seqsched *q,
    const sym_dataset *d);
int sym__seq_next(sym_trainer *t, struct sym__seqsched *q, const sym_dataset *d,
    int test, sym_slices *s, const sym_plan *p);
void sym__seq_free(struct sym__seqsched *q);
void sym__seq_find_scores(sym_trainer *t);
int sym__seq_evaluate(sym_trainer *t, sym_eval_result *r);

/* trainer_switch.c */
int sym__switch_setup(sym_trainer *t);
void sym__switch_free(sym_trainer *t);
void sym__switch_rank_free(struct sym__trank *r);
int sym__switch_schedule(sym_trainer *t, struct sym__seqsched *q, int eval);
int sym__switch_before(sym_trainer *t, const struct sym__seqbatch *sb);
int sym__switch_after(sym_trainer *t);
int sym__switch_job(struct sym__trank *r);
void sym__switch_account(sym_trainer *t, sym_train_step *r);

/* trainer_eval.c */
double sym__value_scalar(sym_exec *x, const sym_value *v);
size_t sym__trainer_whole_size(const sym_trainer *t, const sym_value *v,
    int64_t *dims, size_t *nd);
int sym__trainer_gather(sym_trainer *t, const sym_value *v, size_t bytes);
int sym__trainer_sync(sym_trainer *t, sym_exec_report *r);

#endif
