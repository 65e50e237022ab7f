/* SPDX-License-Identifier: MIT */
/*
 * The trainer on sequences of different lengths (DESIGN section 19,
 * sym_trainer(3)): inputs [b, s] fed from the ragged columns of a text
 * or token corpus, and length-bucketed batches. Every record goes to
 * the bucket of the least admissible value of the sequence symbol s
 * that holds it (with pad_to_max: the largest admissible value); the
 * records are taken in file order (after the epoch's seeded shuffle
 * unless no_shuffle), each bucket cuts its records into batches of the
 * largest admissible b with b * s <= tokens_per_batch (the first batch
 * size without it), a bucket's last, shorter batch is bound at the least
 * admissible b that holds it (the rows beyond its records are pad), and
 * the batches are ordered by a seeded shuffle (by their first record's
 * position with no_shuffle). Both b and s are bound per step on the one
 * plan.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/trainer_private.h"

/* The most values tried when looking for an admissible size. */
#define SEQ_SEARCH_MAX ((int64_t)1 << 20)

/* Return the least value of "sym" at least "n" that it admits, -1 when
 * none (beyond its max, or none found within SEQ_SEARCH_MAX values). */
int64_t
sym__seq_least_from(const sym_symbol *sym, int64_t n)
{
	int64_t v = n > sym_symbol_least(sym) ? n : sym_symbol_least(sym);
	int64_t hi = sym_symbol_greatest(sym);

	for (int64_t k = 0; k < SEQ_SEARCH_MAX && (!hi || v <= hi); k++, v++)
		if (sym_symbol_admits(sym, v))
			return v;
	return -1;
}

/* Return the greatest value of "sym" at most "n" that it admits, -1 when
 * none. */
static int64_t
greatest_to(const sym_symbol *sym, int64_t n)
{
	int64_t hi = sym_symbol_greatest(sym);
	int64_t v = hi && hi < n ? hi : n;

	for (int64_t k = 0; k < SEQ_SEARCH_MAX && v >= 1; k++, v--)
		if (sym_symbol_admits(sym, v))
			return v;
	return -1;
}

/* Check that input "v" (fed from column "c" of "d", ragged) is [b, s]
 * with s a symbol of its own, the same for every ragged feed; record it
 * as the sequence symbol of "t". 0, or -1 with an error naming both. */
int
sym__seq_feed(sym_trainer *t, const sym_value *v, const sym_dataset *d,
    size_t c)
{
	const sym_shape *sh = sym_value_shape(v);
	sym_symbol *s = NULL;
	const sym_expr *e;
	sym_loc loc = sym_value_location(v);

	e = sym_shape_ndim(sh) == 2 ? sym_shape_dim(sh, 1) : NULL;
	if (e && sym_expr_is_symbol(e))
		sym_expr_symbols(e, &s, 1);
	if (!s || s == t->batch_sym || (t->seq_sym && s != t->seq_sym)) {
		sym__error(t->ctx, SYM_EINVAL, loc.file ? &loc : NULL,
		    "input %s takes the sequences of column '%s' of %s: it "
		    "must be [BATCH, SEQ] with SEQ a symbol of its own%s",
		    sym_value_name(v), sym_dataset_column_name(d, c),
		    sym_dataset_name(d),
		    t->seq_sym ? ", the same for every sequence input" : "");
		return -1;
	}
	if (!t->batch_sym) {
		sym__error(t->ctx, SYM_EINVAL, loc.file ? &loc : NULL,
		    "input %s takes sequences: its first dimension must be a "
		    "batch symbol",
		    sym_value_name(v));
		return -1;
	}
	t->seq_sym = s;
	return 0;
}

/* Return the bucket (a size of the sequence symbol) of a record of
 * length "len" in "t" ("longest": the longest of its data), -1 when the
 * symbol admits none that holds it. */
static int64_t
bucket_of(const sym_trainer *t, int64_t len, int64_t longest)
{
	const sym_symbol *s = t->seq_sym;
	int64_t top;

	if (!t->o.pad_to_max)
		return sym__seq_least_from(s, len);
	top = sym_symbol_greatest(s) ? greatest_to(s, sym_symbol_greatest(s))
	                             : sym__seq_least_from(s, longest);
	return len <= top ? top : -1;
}

/* Store in "*b" the batch of the bucket "s" of "t": the largest
 * admissible b with b * s <= o.tokens_per_batch, or the first batch
 * size without it. 0, or -1 with an error. */
static int
bucket_batch(sym_trainer *t, int64_t s, int64_t *b)
{
	int64_t T = t->o.tokens_per_batch;

	*b = T ? greatest_to(t->batch_sym, T / s) : t->batch[0];
	if (*b >= 1)
		return 0;
	sym__error(t->ctx, SYM_EINVAL, NULL,
	    "--tokens-per-batch %lld holds no batch of the bucket %s=%lld: "
	    "the least admissible %s is %lld, which needs %lld tokens",
	    (long long)T, sym_symbol_name(t->seq_sym), (long long)s,
	    sym_symbol_name(t->batch_sym),
	    (long long)sym_symbol_least(t->batch_sym),
	    (long long)(sym_symbol_least(t->batch_sym) * s));
	return -1;
}

/* A record placed: its bucket and its position in the epoch's order. */
struct placed {
	int64_t s, pos, row;
};

/* Order placed records by bucket, then position (qsort). */
static int
by_bucket(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Order batches by their first record's position (qsort). */
static int
by_first(const void *a, const void *b)
{
	const struct sym__seqbatch *x = a, *y = b;

	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Append to "q" (of "t") the batches of the bucket of the placed records "p"
 * ("n" of them, one bucket); 0, or -1 with an error. */
static int
cut_bucket(sym_trainer *t, struct sym__seqsched *q, const struct placed *p,
    int64_t n)
{
	int64_t b, s = p[0].s;

	if (bucket_batch(t, s, &b) < 0)
		return -1;
	for (int64_t i = 0; i < n; i += b) {
		int64_t k = n - i < b ? n - i : b;
		int64_t bound =
		    k == b ? b : sym__seq_least_from(t->batch_sym, k);
		struct sym__seqbatch *sb;

		if (k < b && (t->o.drop_remainder || bound < 0 || bound > b)) {
			q->cut += k;
			continue;
		}
		if (SYM__RESERVE(t->ctx, q->sb, q->cap_sb, q->n_sb + 1) < 0)
			return -1;
		sb = &q->sb[q->n_sb++];
		*sb = (struct sym__seqbatch){ s, bound, (int64_t)q->n_srow, k,
			p[i].pos, 0 };
		for (int64_t j = 0; j < k; j++)
			q->srow[q->n_srow++] = p[i + j].row;
	}
	return 0;
}

/* Order the batches of "q" for its epoch: a seeded shuffle keyed by
 * "key" (Fisher-Yates), or by first record with "keep". */
static void
order_batches(struct sym__seqsched *q, uint64_t key, int keep)
{
	if (keep) {
		qsort(q->sb, q->n_sb, sizeof(*q->sb), by_first);
		return;
	}
	for (size_t i = q->n_sb; i > 1; i--) {
		size_t j = (size_t)(sym__splitmix64(&key) % i);
		struct sym__seqbatch tmp = q->sb[i - 1];

		q->sb[i - 1] = q->sb[j];
		q->sb[j] = tmp;
	}
}

/* Make in "q" the batches of an epoch of "t" over "d" (the rows at the
 * positions "row_of" gives), shuffled with "key" unless "keep". 0, or
 * -1 with an error. */
int
sym__seq_schedule(sym_trainer *t, struct sym__seqsched *q, const sym_dataset *d,
    int64_t (*row_of)(const sym_trainer *, int64_t), uint64_t key, int keep)
{
	int64_t n = sym_dataset_n_rows(d), m = 0;
	int64_t longest = sym_dataset_column_dim(d, 0, 0);
	struct placed *p;

	q->n_sb = 0;
	q->n_srow = 0;
	q->dropped = 0;
	q->cut = 0;
	if (SYM__RESERVE(t->ctx, q->srow, q->cap_srow, (size_t)n) < 0)
		return -1;
	p = sym__realloc_array(t->ctx, NULL, (size_t)(n ? n : 1), sizeof(*p));
	if (!p)
		return -1;
	for (int64_t i = 0; i < n; i++) {
		int64_t row = row_of ? row_of(t, i) : i;
		int64_t s =
		    bucket_of(t, sym_dataset_row_length(d, row), longest);

		if (s < 0)
			q->dropped++;
		else
			p[m++] = (struct placed){ s, i, row };
	}
	qsort(p, (size_t)m, sizeof(*p), by_bucket);
	for (int64_t i = 0, j; i < m; i = j) {
		for (j = i; j < m && p[j].s == p[i].s; j++)
			;
		if (cut_bucket(t, q, p + i, j - i) < 0) {
			free(p);
			return -1;
		}
	}
	free(p);
	order_batches(q, key, keep);
	q->next = 0;
	return sym__switch_schedule(t, q, q == &t->eval_q);
}

/* Write into t->notice what the schedule "q" of "t" over "d" left out,
 * when anything. */
void
sym__seq_notice(sym_trainer *t, const struct sym__seqsched *q,
    const sym_dataset *d)
{
	char *why;

	if (!q->dropped && !q->cut)
		return;
	why = sym_symbol_to_str(t->seq_sym);
	snprintf(t->notice, sizeof(t->notice),
	    "%s: %lld records longer than %s admits dropped (--max-len cuts "
	    "them instead); %lld records of buckets' last batches dropped%s",
	    sym_dataset_name(d), (long long)q->dropped, why ? why : "?",
	    (long long)q->cut,
	    t->o.drop_remainder ? " (--drop-remainder)" : "");
	free(why);
}

/* Set the current batch of "t" to the next batch of the schedule "q"
 * over "d" ("test": the test columns), with its rows (pads: -1), and
 * bind it on "s" of "p": 1, 0 when the schedule is done, -1 on an
 * error. */
int
sym__seq_next(sym_trainer *t, struct sym__seqsched *q, const sym_dataset *d,
    int test, sym_slices *s, const sym_plan *p)
{
	const struct sym__seqbatch *sb;
	int64_t *rows, real = 0;

	if (q->next >= q->n_sb)
		return 0;
	sb = &q->sb[q->next++];
	rows = sym__trainer_rows(t, sb->b);
	if (!rows)
		return -1;
	for (int64_t i = 0; i < sb->b; i++) {
		rows[i] = i < sb->n ? q->srow[sb->first + i] : -1;
		real += i < sb->n ? sym_dataset_row_length(d, rows[i]) : 0;
	}
	t->cur_seq = sb->s;
	t->cur = (struct sym__batch){ d, rows, sb->b, test };
	t->cur_tokens = real;
	t->cur_records = sb->n;
	if (t->o.search) {
		if (sym__switch_before(t, sb) < 0)
			return -1;
		s = t->s;
		p = t->p;
	}
	if (sym__trainer_bind(t, s, p, sb->b) < 0) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "the batch %s=%lld, %s=%lld of %s does not bind: %s",
		    sym_symbol_name(t->batch_sym), (long long)sb->b,
		    sym_symbol_name(t->seq_sym), (long long)sb->s,
		    sym_dataset_name(d), sym__trainer_bind_error(t, s));
		return -1;
	}
	return sym__switch_after(t) < 0 ? -1 : 1;
}

/* Bind "s" of "p" for the first step of "t" on sequences: the least
 * bucket (the only one with pad_to_max) and its batch. 0, or -1 with an
 * error (a --tokens-per-batch that holds no batch of it among them). */
int
sym__seq_first_bind(sym_trainer *t, sym_slices *s, const sym_plan *p)
{
	int64_t b;

	t->cur_seq = bucket_of(t, 1, sym_dataset_column_dim(t->train, 0, 0));
	if (t->cur_seq < 0) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "the sequence symbol %s admits no size",
		    sym_symbol_name(t->seq_sym));
		return -1;
	}
	if (bucket_batch(t, t->cur_seq, &b) < 0)
		return -1;
	if (sym__trainer_bind(t, s, p, b) == 0)
		return 0;
	sym__error(t->ctx, SYM_EINVAL, NULL, "the batch %s=%lld, %s=%lld: %s",
	    sym_symbol_name(t->batch_sym), (long long)b,
	    sym_symbol_name(t->seq_sym), (long long)t->cur_seq,
	    sym__trainer_bind_error(t, s));
	return -1;
}

/* Add to the "*n" buckets "*q" (of capacity "*cap") those of the
 * records of "d" in "t" not there yet; 0, or -1 out of memory. */
static int
add_buckets(sym_trainer *t, const sym_dataset *d, int64_t **q, size_t *n,
    size_t *cap)
{
	int64_t longest = sym_dataset_column_dim(d, 0, 0);

	for (int64_t i = 0; i < sym_dataset_n_rows(d); i++) {
		int64_t v = bucket_of(t, sym_dataset_row_length(d, i), longest);
		size_t k = 0;

		while (k < *n && (*q)[k] != v)
			k++;
		if (v < 1 || k < *n)
			continue;
		if (SYM__RESERVE(t->ctx, *q, *cap, *n + 1) < 0)
			return -1;
		(*q)[(*n)++] = v;
	}
	return 0;
}

/* Order bucket sizes from the largest down (qsort). */
static int
by_size_down(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

/* Prepare the executors of "t" for every bucket of its records (of
 * both splits), each bound through "s" of "p" at its full batch, the
 * largest bucket first, and leave "s" bound at the largest: the buffers
 * then hold those of every bucket (the attention's [b, heads, s, s],
 * the rows b * s, and what scales with b alone), and so do the kernels'
 * and the collectives' scratch areas, which the executor grows to the
 * most its steps take at each binding it prepares. A bucket's last,
 * shorter batch needs no more than its full one, since every size is a
 * product of the dims. The executors thus allocate once, when the
 * trainer starts, instead of growing step after step as new buckets
 * come (the caller prepares the bound largest bucket and binds the
 * first batch again, sym__seq_first_bind). 0 when bound; 1 when nothing
 * was done (no sequences, every bucket the same with pad_to_max, or no
 * batch of any bucket: the steps say so when they meet it); -1 when a
 * binding or a preparation failed ("s" must be bound again; the error
 * is on the trainer's context). */
int
sym__seq_prepare_buckets(sym_trainer *t, sym_slices *s, const sym_plan *p)
{
	int64_t *q = NULL, b, T = t->o.tokens_per_batch, top = -1, top_b = 0;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!t->seq_sym || !t->train || t->o.pad_to_max)
		return 1;
	if (add_buckets(t, t->train, &q, &n, &cap) < 0 ||
	    (t->test && add_buckets(t, t->test, &q, &n, &cap) < 0)) {
		free(q);
		return -1;
	}
	if (n > 1)
		qsort(q, n, sizeof(*q), by_size_down);
	for (size_t i = 0; i < n && rc == 0; i++) {
		b = T ? greatest_to(t->batch_sym, T / q[i]) : t->batch[0];
		if (b < 1)
			continue;
		t->cur_seq = q[i];
		rc = sym__trainer_bind(t, s, p, b);
		if (rc == 0 && top < 0) {
			top = q[i];
			top_b = b;
		} else if (rc == 0) {
			rc = sym__trainer_run(t, SYM__JOB_PREPARE);
		}
	}
	free(q);
	if (rc < 0)
		return -1;
	if (top < 0)
		return 1;
	t->cur_seq = top;
	return sym__trainer_bind(t, s, p, top_b) == 0 ? 0 : -1;
}

/* Free the batches of "q". */
void
sym__seq_free(struct sym__seqsched *q)
{
	free(q->sb);
	free(q->srow);
}

/* Find the scores of a language model "t" (the first floating output of
 * two or three dimensions, the last a constant C >= 2, other than the
 * loss: [b * s, C] or [b, s, C]) and the feed of its labels (column
 * "labels"). */
void
sym__seq_find_scores(sym_trainer *t)
{
	for (size_t i = 0; !t->scores && i < sym_graph_n_outputs(t->g); i++) {
		const sym_value *v = sym_graph_output(t->g, i);
		const sym_shape *sh = sym_value_shape(v);
		sym_dtype dt = sym_shape_dtype(sh);
		size_t nd = sym_shape_ndim(sh);
		int64_t c;

		if ((nd == 2 || nd == 3) &&
		    (dt == SYM_DT_F32 || dt == SYM_DT_F64) &&
		    sym_expr_get_const(sym_shape_dim(sh, nd - 1), &c) == 0 &&
		    c >= 2)
			t->scores = v;
	}
	for (size_t i = 0; i < t->n_feed; i++)
		if (!strcmp(sym_dataset_column_name(t->train, t->feed[i].col),
		        "labels"))
			t->label_feed = i;
}

/* Count into "r" the real tokens of the current batch of "t" (bucket s,
 * "c" classes, scores gathered in rank 0's buffer) whose scores peak at
 * their label; 0, or -1 with an error. */
static int
count_tokens(sym_trainer *t, int64_t c, sym_eval_result *r)
{
	int f64 = sym_shape_dtype(sym_value_shape(t->scores)) == SYM_DT_F64;
	const float *s32 = t->rank[0].whole;
	const double *s64 = t->rank[0].whole;
	size_t col = t->feed[t->label_feed].col_test;
	int32_t lab[256];

	for (int64_t i = 0; i < t->cur.n && t->cur.rows[i] >= 0; i++) {
		int64_t row = t->cur.rows[i];
		int64_t len = sym_dataset_row_length(t->test, row);

		for (int64_t e = 0; e < len; e += 256) {
			int64_t k = len - e < 256 ? len - e : 256;

			if (sym_dataset_read(t->test, col, row, e, k, lab) < 0)
				return -1;
			for (int64_t j = 0; j < k; j++) {
				int64_t at = (i * t->cur_seq + e + j) * c,
				        best = 0;

				for (int64_t m = 1; m < c; m++)
					if (f64 ? s64[at + m] > s64[at + best]
					        : s32[at + m] > s32[at + best])
						best = m;
				r->correct += best == lab[j];
			}
		}
	}
	return 0;
}

/* Evaluate the params of "t" on its test corpus into "r": the bucketed
 * batches in file order, forward only; the loss of a batch (the mean
 * over its real tokens) weighs as its real tokens. 0 or -1. */
int
sym__seq_evaluate(sym_trainer *t, sym_eval_result *r)
{
	double t0 = sym__seconds();
	int64_t c = 0, save = t->cur_seq;
	int rc;

	if (sym__seq_schedule(t, &t->eval_q, t->test, NULL, 0, 1) < 0)
		return -1;
	if (t->scores)
		sym_expr_get_const(
		    sym_shape_dim(sym_value_shape(t->scores),
		        sym_shape_ndim(sym_value_shape(t->scores)) - 1),
		    &c);
	while ((rc = sym__seq_next(t, &t->eval_q, t->test, 1, t->s, t->p)) >
	    0) {
		t->job_bytes = (size_t)(t->cur.n * t->cur_seq * c) *
		    sym_dtype_size(sym_shape_dtype(sym_value_shape(t->scores
		            ? t->scores
		            : sym_graph_loss(t->g))));
		if (sym__trainer_run(t, SYM__JOB_EVAL) < 0)
			return sym__trainer_explain(t, "evaluation");
		r->loss +=
		    sym__value_scalar(t->rank[0].x, sym_graph_loss(t->g)) *
		    (double)t->cur_tokens;
		r->tokens += t->cur_tokens;
		r->rows += t->cur_records;
		if (t->scores && t->label_feed != SIZE_MAX &&
		    count_tokens(t, c, r) < 0)
			return -1;
	}
	t->cur_seq = save;
	r->dropped = t->eval_q.dropped + t->eval_q.cut;
	if (rc < 0 || sym__seq_first_bind(t, t->s, t->p) < 0)
		return -1;
	if (r->tokens == 0) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "evaluation: no record of %s was evaluated (%lld dropped)",
		    sym_dataset_name(t->test), (long long)r->dropped);
		return -1;
	}
	r->epoch = t->epoch;
	r->loss /= (double)r->tokens;
	r->perplexity = exp(r->loss);
	r->accuracy = t->scores && t->label_feed != SIZE_MAX
	    ? (double)r->correct / (double)r->tokens
	    : NAN;
	r->seconds = sym__seconds() - t0;
	return 0;
}
