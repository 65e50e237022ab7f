/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the trainer on sequences (sym_trainer(3), DESIGN
 * section 19): a small corpus written by the test, its length buckets
 * and batches worked out by hand (the rows and pads every step feeds, b
 * and s bound per step on one plan), the pads ignored by the loss (a
 * model whose loss per token is known in closed form), evaluation per
 * token, sharded training on 2 and 8 ranks equal to one device step by
 * step across buckets, no allocation once every size was seen, and the
 * bad inputs of the issue refused with a message naming them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <symshard.h>

#include "exec/exec_private.h"
#include "train/trainer_private.h"

/* A tiny language model: logits = one_hot(ids) + ids' embedding times w.
 * With w zero (init=zeros), a token's loss is log(e + 255) - [label ==
 * id] and its prediction is its own id. "%d" devices, "%s" a shard
 * clause of the output projection, the optimizer "%s". */
static const char lm[] =
    "devices %d\n"
    "symbol b divisor=2 unique\n"
    "symbol s divisor=4 max=16 unique\n"
    "input  ids    : i32[b, s]\n"
    "input  labels : i32[b, s]\n"
    "param  emb    : f32[256, 8]  init=normal(sigma=0.5)\n"
    "param  w      : f32[8, 256]  init=%s\n"
    "e      = embedding(ids, emb)\n"
    "e2     = reshape(e, [-1, 8])\n"
    "m      = matmul(e2, w) %s\n"
    "idf    = reshape(ids, [-1])\n"
    "oh     = one_hot(idf, depth=256)\n"
    "ohf    = cast(oh, dtype=f32)\n"
    "logits = add(m, ohf)\n"
    "lab    = reshape(labels, [-1])\n"
    "loss   = softmax_cross_entropy(logits, lab, ignore_index=-100)\n"
    "sq     = full([s, s], value=0, dtype=f32)\n"
    "output loss\n"
    "output logits\n"
    "output sq\n"
    "minimize loss with sgd(lr=%s)\n";

/* The corpus: records of s + 1 bytes, record i made of the letter 'A' +
 * i, of lengths s = 3, 9, 5, 2, 12, 7, 4, 20 (the last longer than s
 * admits); one record "xyxy" whose labels never equal its ids. */
static const int64_t rec_s[] = { 3, 9, 5, 2, 12, 7, 4, 20 };
#define N_REC 8

/* A test's context and the corpus file. */
struct fx {
	sym_ctx *ctx;
	char path[512], spec[600];
};

/* Write the corpus of the tests (followed by "extra" records) into a
 * fresh file of "fx" and its specification with "opts". */
static void
write_corpus(struct fx *fx, const char *extra, const char *opts)
{
	const char *tmp = getenv("TMPDIR");
	int fd;
	FILE *f;

	snprintf(fx->path, sizeof(fx->path), "%s/symshard-seq-XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	for (int i = 0; i < N_REC; i++) {
		for (int64_t k = 0; k < rec_s[i]; k++)
			fputc('A' + i, f);
		fputs("\n%\n", f);
	}
	fputs(extra, f);
	assert_int_equal(fclose(f), 0);
	snprintf(fx->spec, sizeof(fx->spec), "text:%s%s", fx->path, opts);
}

/* Create the context of a test; 0. */
static int
setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->ctx = sym_ctx_new();
	assert_non_null(fx->ctx);
	*state = fx;
	return 0;
}

/* Remove the corpus, assert that nothing is left and free the context;
 * 0. */
static int
teardown(void **state)
{
	struct fx *fx = *state;

	if (fx->path[0])
		unlink(fx->path);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
	sym_ctx_free(fx->ctx);
	free(fx);
	return 0;
}

/* A compiled model and its trainer. */
struct run {
	sym_graph *g;
	sym_plan *p, *single;
	sym_communicator *comm;
	sym_dataset *train, *test;
	sym_trainer *t;
};

/* Compile the model on "devices" ("shard": the clause of m, "init" of
 * w, "lr") into "r" and open the corpus of "fx". */
static void
compile(struct fx *fx, struct run *r, int devices, const char *shard,
    const char *init, const char *lr, int test)
{
	char text[2048];

	memset(r, 0, sizeof(*r));
	snprintf(text, sizeof(text), lm, devices, init, shard, lr);
	r->g = sym_graph_parse(fx->ctx, text, "lm.sg");
	assert_non_null(r->g);
	if (sym_graph_n_errors(r->g))
		fail_msg("lm.sg: %s", sym_ctx_last_message(fx->ctx));
	assert_int_equal(sym_graph_shard(r->g, NULL), 0);
	r->p = sym_plan_compile(r->g, 0);
	r->single = sym_plan_compile(r->g, SYM_PLAN_SINGLE);
	assert_non_null(r->p);
	assert_non_null(r->single);
	r->train = sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN);
	assert_non_null(r->train);
	if (test) {
		r->test = sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TEST);
		assert_non_null(r->test);
	}
}

/* Start the trainer of "r" on "ranks" threads with "o"; NULL with the
 * error on the context. */
static sym_trainer *
start(struct fx *fx, struct run *r, int ranks, sym_train_options *o)
{
	r->comm = sym_comm_threads_new(fx->ctx, ranks);
	assert_non_null(r->comm);
	r->t = sym_trainer_new(fx->ctx, r->p, r->comm, r->train, r->test, o);
	return r->t;
}

/* Stop the trainer of "r". */
static void
stop(struct run *r)
{
	sym_trainer_free(r->t);
	sym_comm_free(r->comm);
	r->t = NULL;
	r->comm = NULL;
}

/* Free "r". */
static void
release(struct run *r)
{
	stop(r);
	sym_dataset_free(r->train);
	sym_dataset_free(r->test);
	sym_plan_free(r->single);
	sym_plan_free(r->p);
	sym_graph_free(r->g);
}

/* Assert that the batch fed at the last step of "t" ("b" x "s") holds,
 * row j, record rec[j] (-1: a pad row): ids the record's letter for its
 * length, 0 after; labels the letter, the record's newline last, -100
 * after. */
static void
assert_fed(sym_trainer *t, int64_t b, int64_t s, const int *rec)
{
	int32_t ids[16 * 16], lab[16 * 16];
	size_t bytes = (size_t)(b * s) * sizeof(int32_t);

	assert_true(b * s <= 16 * 16);
	assert_int_equal(sym_trainer_param(t, "ids", ids, bytes), 0);
	assert_int_equal(sym_trainer_param(t, "labels", lab, bytes), 0);
	for (int64_t j = 0; j < b; j++)
		for (int64_t k = 0; k < s; k++) {
			int real = rec[j] >= 0 && k < rec_s[rec[j]];
			int last = real && k == rec_s[rec[j]] - 1;
			int32_t want_id = real ? 'A' + rec[j] : 0;
			int32_t want_lab = last ? '\n'
			    : real              ? 'A' + rec[j]
			                        : -100;

			if (ids[j * s + k] != want_id ||
			    lab[j * s + k] != want_lab)
				fail_msg("row %lld position %lld: id %d label "
				         "%d, expected %d and %d",
				    (long long)j, (long long)k, ids[j * s + k],
				    lab[j * s + k], want_id, want_lab);
		}
}

/* The loss of a step of the model with w zero over "tokens" real tokens
 * of "records" records of one letter: a token's loss is log(e + 255),
 * less 1 when its label is its id, as for all but the last (the
 * newline) of each record; pads ignored. */
static double
letter_loss(int64_t tokens, int64_t records)
{
	return log(exp(1.0) + 255.0) -
	    (double)(tokens - records) / (double)tokens;
}

/* Buckets of multiples of 4 up to 16 and --tokens-per-batch 24, in file
 * order (--no-shuffle): records 0, 3, 6 (s 3, 2, 4) in bucket 4, batch
 * 6 admissible but 3 records: bound at b = 4 with a pad row; records 1,
 * 4 (9, 12) in bucket 12, b = 2; records 2, 5 (5, 7) in bucket 8, b =
 * 24 / 8 = 3 -> 2 (divisor 2); record 7 (20) dropped with a notice.
 * The batches in the order of their first records: 0, 1, 2. */
static void
test_buckets(void **state)
{
	struct fx *fx = *state;
	struct run r;
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_train_step st;
	static const int b1[] = { 0, 3, 6, -1 }, b2[] = { 1, 4 },
	                 b3[] = { 2, 5 };

	write_corpus(fx, "", "");
	compile(fx, &r, 1, "", "zeros", "0", 0);
	o.no_shuffle = 1;
	o.tokens_per_batch = 24;
	assert_non_null(start(fx, &r, 1, &o));
	assert_int_equal(sym_trainer_step(r.t, &st), 1);
	assert_string_equal(st.bindings, "b=4,s=4");
	assert_int_equal(st.records, 3);
	assert_int_equal(st.tokens, 3 + 2 + 4);
	assert_int_equal(st.padded_tokens, 16);
	assert_true(fabs(st.loss - letter_loss(9, 3)) < 1e-5);
	assert_fed(r.t, 4, 4, b1);
	assert_null(sym_trainer_notice(r.t));
	assert_int_equal(sym_trainer_step(r.t, &st), 1);
	assert_string_equal(st.bindings, "b=2,s=12");
	assert_int_equal(st.tokens, 9 + 12);
	assert_int_equal(st.padded_tokens, 24);
	assert_fed(r.t, 2, 12, b2);
	assert_int_equal(sym_trainer_step(r.t, &st), 1);
	assert_string_equal(st.bindings, "b=2,s=8");
	assert_int_equal(st.tokens, 5 + 7);
	assert_fed(r.t, 2, 8, b3);
	assert_true(fabs(st.loss - letter_loss(12, 2)) < 1e-5);
	assert_int_equal(sym_trainer_step(r.t, &st), 0);
	assert_int_equal(sym_trainer_epoch(r.t), 1);
	assert_non_null(sym_trainer_notice(r.t));
	if (!strstr(sym_trainer_notice(r.t),
	        ": 1 records longer than s max=16 divisor=4 unique admits "
	        "dropped (--max-len cuts them instead); 0 records of "
	        "buckets' last batches dropped"))
		fail_msg("notice: %s", sym_trainer_notice(r.t));
	assert_int_equal(sym_trainer_step(r.t, &st), 1);
	assert_int_equal(st.epoch, 2);
	assert_string_equal(st.bindings, "b=4,s=4");
	release(&r);
}

/* --pad-to-max: every record in the bucket of the largest admissible s
 * (16), b = 24 / 16 = 1 -> none admissible with divisor 2: an error
 * naming the option; with 32 tokens, b = 2: records 0 1 | 2 3 | 4 5 | 6
 * and a pad row, in file order. */
static void
test_pad_to_max(void **state)
{
	struct fx *fx = *state;
	struct run r;
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_train_step st;
	static const int b4[] = { 6, -1 };

	write_corpus(fx, "", "");
	compile(fx, &r, 1, "", "zeros", "0", 0);
	o.no_shuffle = 1;
	o.pad_to_max = 1;
	o.tokens_per_batch = 24;
	assert_null(start(fx, &r, 1, &o));
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx),
	    "--tokens-per-batch 24 holds no batch of the bucket s=16"));
	stop(&r);
	o.tokens_per_batch = 32;
	assert_non_null(start(fx, &r, 1, &o));
	for (int k = 0; k < 4; k++) {
		assert_int_equal(sym_trainer_step(r.t, &st), 1);
		assert_string_equal(st.bindings, "b=2,s=16");
		assert_int_equal(st.padded_tokens, 32);
	}
	assert_int_equal(st.tokens, 4);
	assert_fed(r.t, 2, 16, b4);
	assert_int_equal(sym_trainer_step(r.t, &st), 0);
	release(&r);
}

/* --tokens-per-batch smaller than the shortest bucket needs: the least
 * admissible b (2) times the least s (4) is 8 tokens. */
static void
test_tokens_too_small(void **state)
{
	struct fx *fx = *state;
	struct run r;
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;

	write_corpus(fx, "", "");
	compile(fx, &r, 1, "", "zeros", "0", 0);
	o.tokens_per_batch = 7;
	assert_null(start(fx, &r, 1, &o));
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx),
	    "--tokens-per-batch 7 holds no batch of the bucket s=4: the "
	    "least admissible b is 2, which needs 8 tokens"));
	release(&r);
}

/* Evaluation on the held-out records: of 9 records, eval=0.34 holds out
 * the last floor(3.06) = 3: record 6 ("GGGG\n", s 4: three labels equal
 * their ids, the newline does not), record 7 (s 20 > 16: dropped) and
 * "xyxy\n" (s 4, no label equal to its id). With w zero a token's loss
 * is log(e + 255), less 1 when correct: 8 tokens, 3 correct. */
static void
test_evaluate(void **state)
{
	struct fx *fx = *state;
	struct run r;
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_eval_result e;
	double want = log(exp(1.0) + 255.0) - 3.0 / 8.0;

	write_corpus(fx, "xyxy\n%\n", ",eval=0.34");
	compile(fx, &r, 1, "", "zeros", "0", 1);
	o.tokens_per_batch = 64;
	assert_int_equal(sym_dataset_n_rows(r.test), 3);
	assert_non_null(start(fx, &r, 1, &o));
	assert_int_equal(sym_trainer_evaluate(r.t, &e), 0);
	assert_int_equal(e.tokens, 8);
	assert_int_equal(e.rows, 2);
	assert_int_equal(e.dropped, 1);
	assert_int_equal(e.correct, 3);
	assert_true(fabs(e.loss - want) < 1e-5);
	assert_true(fabs(e.perplexity - exp(want)) < 1e-3);
	assert_true(fabs(e.accuracy - 3.0 / 8.0) < 1e-12);
	release(&r);
}

/* Return the allocations of the executors of the ranks of "t". */
static size_t
allocations(const sym_trainer *t)
{
	size_t n = 0;

	for (int k = 0; k < t->n_local; k++) {
		const sym_exec *x = t->rank[k].x;

		n += x->buffer_allocs + x->kscratch.grows + x->scratch.grows;
	}
	return n;
}

/* Return the buffers the executors of the ranks of "t" allocated (their
 * kernels' and collectives' scratch areas left out). */
static size_t
buffer_allocations(const sym_trainer *t)
{
	size_t n = 0;

	for (int k = 0; k < t->n_local; k++)
		n += t->rank[k].x->buffer_allocs;
	return n;
}

/* Sharded training on "ranks" of the model on "devices" ("shard") equals
 * one device at every step, across buckets, over three epochs in file
 * order (the params compared every step); after the first epoch, in
 * which every size was seen, no executor allocates, and after the first
 * step no executor grows a buffer: the trainer sized them for the
 * largest bucket when it started (those of [b, s, s]), and the first
 * batch, the least bucket's, has the most rows and, here, the most
 * tokens. */
static void
sharded_equals_single(struct fx *fx, int devices, const char *shard)
{
	struct run r;
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_train_step st;
	size_t after_first = 0, after_step1 = 0, all_after_step1 = 0;
	int steps = 0, rc;
	char seen[256] = "";

	write_corpus(fx, "", "");
	compile(fx, &r, devices, shard, "xavier_uniform", "0.5", 0);
	o.tokens_per_batch = 32;
	o.seed = 5;
	o.no_shuffle = 1;
	o.single = r.single;
	o.check_every = 1;
	assert_non_null(start(fx, &r, devices, &o));
	while (sym_trainer_epoch(r.t) <= 3) {
		rc = sym_trainer_step(r.t, &st);
		assert_true(rc >= 0);
		if (rc == 0 && sym_trainer_epoch(r.t) == 1)
			after_first = allocations(r.t);
		if (rc == 0 && sym_trainer_epoch(r.t) == 3)
			break;
		if (rc == 0)
			continue;
		if (++steps == 1) {
			after_step1 = buffer_allocations(r.t);
			all_after_step1 = allocations(r.t);
		}
		if (st.mismatch)
			fail_msg("%d ranks: %s", devices, st.mismatch);
		assert_true(st.params_checked);
		assert_true(isfinite(st.loss));
		if (st.epoch == 1 && strlen(seen) + strlen(st.bindings) < 200) {
			strcat(seen, st.bindings);
			strcat(seen, ";");
		}
	}
	/* file order, 32 tokens: bucket 4 (records 0 3 6, b 8 -> 4 with a
	 * pad), 12 (1 4, b 2), 8 (2 5, b 4 -> 2) */
	assert_string_equal(seen, "b=4,s=4;b=2,s=12;b=2,s=8;");
	assert_int_equal(steps, 9);
	assert_int_equal(allocations(r.t), after_first);
	assert_int_equal(buffer_allocations(r.t), after_step1);
	assert_int_equal(allocations(r.t), all_after_step1);
	release(&r);
}

/* Data parallel on 2 ranks. */
static void
test_two_ranks(void **state)
{
	sharded_equals_single(*state, 2, "");
}

/* 8 ranks: the rows of the product split 2 ways (the batch), the
 * vocabulary 4 ways. */
static void
test_eight_ranks(void **state)
{
	sharded_equals_single(*state, 8, "shard ((2, 1), (1, 4))");
}

/* The shuffles are seeded: the same seed gives the same steps (the
 * buckets and the records fed), some other seed another order; every
 * real token of the epoch is fed once. */
static void
test_shuffle(void **state)
{
	struct fx *fx = *state;
	static const uint64_t seeds[] = { 3, 3, 4, 5, 6, 7 };
	char order[6][256];
	int differs = 0;

	struct run r;

	write_corpus(fx, "", "");
	compile(fx, &r, 1, "", "zeros", "0", 0);
	for (int run = 0; run < 6; run++) {
		sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
		sym_train_step st;
		int64_t tokens = 0;
		int32_t ids[256];

		o.tokens_per_batch = 24;
		o.seed = seeds[run];
		assert_non_null(start(fx, &r, 1, &o));
		order[run][0] = '\0';
		while (sym_trainer_step(r.t, &st) == 1) {
			assert_int_equal(sym_trainer_param(r.t, "ids", ids,
			                     (size_t)st.padded_tokens * 4),
			    0);
			snprintf(order[run] + strlen(order[run]),
			    sizeof(order[run]) - strlen(order[run]), "%s:%c;",
			    st.bindings, (char)ids[0]);
			tokens += st.tokens;
		}
		assert_int_equal(tokens, 3 + 9 + 5 + 2 + 12 + 7 + 4);
		differs |= run > 1 && strcmp(order[0], order[run]) != 0;
		stop(&r);
	}
	release(&r);
	assert_string_equal(order[0], order[1]);
	assert_true(differs);
}

/* Bad combinations: a sequence input of a constant length, a corpus
 * that no size of s holds, tokens per batch on data of fixed rows. */
static void
test_bad_inputs(void **state)
{
	struct fx *fx = *state;
	struct run r;
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_train_step st;
	sym_graph *g;
	sym_plan *p;
	sym_communicator *comm;
	sym_dataset *d;
	static const char fixed[] = "symbol n\n"
	                            "input ids : i32[n, 16]\n"
	                            "param w : f32[1]\n"
	                            "f = cast(ids, dtype=f32)\n"
	                            "y = mul(f, w)\n"
	                            "loss = reduce_sum(y)\n"
	                            "output loss\n"
	                            "minimize loss with sgd(lr=0.1)\n";

	/* every record longer than s admits */
	{
		const char *tmp = getenv("TMPDIR");
		FILE *f;
		int fd;

		snprintf(fx->path, sizeof(fx->path), "%s/symshard-seq-XXXXXX",
		    tmp && *tmp ? tmp : "/tmp");
		fd = mkstemp(fx->path);
		assert_true(fd >= 0);
		f = fdopen(fd, "w");
		fputs("this record is longer than sixteen bytes\n%\n", f);
		fclose(f);
		snprintf(fx->spec, sizeof(fx->spec), "text:%s", fx->path);
	}
	compile(fx, &r, 1, "", "zeros", "0", 0);
	o.tokens_per_batch = 64;
	assert_non_null(start(fx, &r, 1, &o));
	assert_int_equal(sym_trainer_step(r.t, &st), -1);
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx),
	    "epoch 1 runs no step: of the 1 records"));
	release(&r);
	/* an input of a constant length */
	g = sym_graph_parse(fx->ctx, fixed, "fixed.sg");
	assert_non_null(g);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	p = sym_plan_compile(g, 0);
	d = sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN);
	comm = sym_comm_threads_new(fx->ctx, 1);
	assert_null(sym_trainer_new(fx->ctx, p, comm, d, NULL, &o));
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx),
	    "it must be [BATCH, SEQ] with SEQ a symbol of its own"));
	sym_comm_free(comm);
	sym_dataset_free(d);
	sym_plan_free(p);
	sym_graph_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_buckets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pad_to_max, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tokens_too_small, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_evaluate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shuffle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_ranks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_eight_ranks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bad_inputs, setup,
		    teardown),
	};

	return cmocka_run_group_tests_name("trainer_seq", tests, NULL, NULL);
}
