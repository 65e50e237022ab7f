/* SPDX-License-Identifier: MIT */
/*
 * The trainer's steps: the next global batch of the epoch (the last,
 * shorter one bound on the same plan when the batch symbol admits its
 * size, dropped with a notice otherwise), one step on every rank, and
 * with a single-device plan the same step on one device compared.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "train/trainer_private.h"

/* Write the values of the symbols of the plan of "t" bound in "s" to
 * t->bindings ("b=64,s=12"). */
static void
format_bindings(sym_trainer *t, const sym_slices *s)
{
	size_t n = 0;

	t->bindings[0] = '\0';
	for (size_t i = 0; i < sym_plan_n_symbols(t->p); i++) {
		sym_symbol *sym = sym_plan_symbol(t->p, i);
		int k = snprintf(t->bindings + n, sizeof(t->bindings) - n,
		    "%s%s=%lld", n ? "," : "", sym_symbol_name(sym),
		    (long long)sym_slices_symbol(s, sym));

		if (k < 0 || (size_t)k >= sizeof(t->bindings) - n)
			break;
		n += (size_t)k;
	}
}

/* Start the next epoch of "t" when none is open (on sequences, make its
 * batches: trainer_seq.c); 0, or -1 with an error. */
static int
open_epoch(sym_trainer *t)
{
	if (t->epoch_open)
		return 0;
	t->epoch++;
	t->pos = 0;
	t->epoch_steps = 0;
	t->epoch_open = 1;
	sym__trainer_shuffle(t);
	if (!t->seq_sym)
		return 0;
	if (sym__seq_schedule(t, &t->train_q, t->train, sym__trainer_row_at,
	        sym__trainer_epoch_key(t) ^ 0x5e9b1d0c3a7f2461ULL,
	        t->o.no_shuffle) < 0)
		return -1;
	if (t->train_q.n_sb)
		return 0;
	sym__error(t->ctx, SYM_EINVAL, NULL,
	    "epoch %lld runs no step: of the %lld records of %s, %lld are "
	    "longer than %s admits and %lld fill no batch",
	    (long long)t->epoch, (long long)sym_dataset_n_rows(t->train),
	    sym_dataset_name(t->train), (long long)t->train_q.dropped,
	    sym_symbol_name(t->seq_sym), (long long)t->train_q.cut);
	return -1;
}

/* Choose the next batch of sequences of "t" and bind it: 1, 0 at the end
 * of the epoch, -1 on an error. */
static int
next_seq_batch(sym_trainer *t)
{
	int rc;

	if (open_epoch(t) < 0)
		return -1;
	rc = sym__seq_next(t, &t->train_q, t->train, 0, t->s, t->p);
	if (rc == 0) {
		t->epoch_open = 0;
		sym__seq_notice(t, &t->train_q, t->train);
	}
	return rc;
}

/* Record on the context of "t" that its epoch ended without a step
 * (then every epoch would: a loop over epochs would never end); return
 * -1. */
static int
no_step(sym_trainer *t)
{
	int64_t n = sym_dataset_n_rows(t->train);

	sym__error(t->ctx, SYM_EINVAL, NULL,
	    "epoch %lld runs no step: %s has %lld sample%s, %s",
	    (long long)t->epoch, sym_dataset_name(t->train), (long long)n,
	    n == 1 ? "" : "s",
	    t->o.drop_remainder
	        ? "fewer than one batch, and the remainder is dropped "
	          "(--drop-remainder)"
	        : "and the batch symbol admits no batch of them");
	return -1;
}

/* Choose the next batch of "t" and bind it: 1 when there is one, 0 at
 * the end of the epoch (the last batch dropped, with its notice), -1 on
 * an error. */
static int
next_batch(sym_trainer *t)
{
	int64_t want = t->batch[(size_t)t->step % t->o.n_batch], left, rows;

	if (!t->train) {
		t->epoch = 1; /* without data, one endless epoch */
		t->cur = (struct sym__batch){ NULL, NULL, want, 0 };
		return sym__trainer_bind(t, t->s, t->p, want) < 0 ? -1 : 1;
	}
	if (t->seq_sym)
		return next_seq_batch(t);
	open_epoch(t);
	left = sym_dataset_n_rows(t->train) - t->pos;
	rows = left < want ? left : want;
	if (rows > 0 && rows < want && t->o.drop_remainder) {
		snprintf(t->notice, sizeof(t->notice),
		    "epoch %lld: the last %lld samples dropped "
		    "(--drop-remainder)",
		    (long long)t->epoch, (long long)rows);
	} else if (rows > 0 && sym__trainer_bind(t, t->s, t->p, rows) < 0) {
		snprintf(t->notice, sizeof(t->notice),
		    "epoch %lld: the last batch of %lld samples dropped: %s",
		    (long long)t->epoch, (long long)rows,
		    sym__trainer_bind_error(t, t->s));
		/* Keep the slices bound, for the params' sizes. */
		if (sym__trainer_bind(t, t->s, t->p, t->batch[0]) < 0)
			return -1;
	} else if (rows > 0) {
		const int64_t *r = sym__trainer_batch_rows(t, rows);

		if (!r)
			return -1;
		t->cur = (struct sym__batch){ t->train, r, rows, 0 };
		return 1;
	}
	t->epoch_open = 0;
	return t->epoch_steps ? 0 : no_step(t);
}

/* Return the name of the non-finite number "x": "NaN", "inf" or
 * "-inf". */
static const char *
nonfinite_name(double x)
{
	return isnan(x) ? "NaN" : x > 0 ? "inf" : "-inf";
}

/* Compare the loss "loss" of "t" with the single-device side's "want"
 * when either is not finite: the same NaN or infinity on both sides
 * (with allow_nonfinite) agrees; a reference that diverged alone is an
 * error, not a difference of the sharding. 0, or -1 with an error. */
static int
nonfinite_check(sym_trainer *t, double loss, double want)
{
	if ((isnan(loss) && isnan(want)) || loss == want)
		return 0;
	if (isfinite(want)) {
		if (!t->mismatch[0])
			snprintf(t->mismatch, sizeof(t->mismatch),
			    "step %lld: loss %.9g, one device %.9g",
			    (long long)t->step + 1, loss, want);
		return 0;
	}
	sym__error(t->ctx, SYM_EINVAL, NULL,
	    "step %lld: the one-device reference diverged (its loss is %s, "
	    "the sharded one %.9g): nothing to compare the sharding with",
	    (long long)t->step + 1, nonfinite_name(want), loss);
	return -1;
}

/* Run the current batch of "t" on the single-device side and compare
 * its loss with the sharded one "loss" into t->mismatch; 0 or -1. */
static int
single_step(sym_trainer *t, double loss)
{
	const sym_value *lv = sym_graph_loss(t->g);
	double want, tol = t->o.atol > 0 ? t->o.atol : 0;

	if (!t->x1)
		return 0;
	if (sym__trainer_bind(t, t->s1, t->o.single, t->cur.n) < 0 ||
	    sym_exec_prepare(t->x1, t->s1) < 0 ||
	    sym__trainer_read(t, t->x1, t->o.single, t->s1, 0, 1) < 0 ||
	    sym_exec_run(t->x1) < 0)
		return -1;
	want = sym__value_scalar(t->x1, lv);
	if (!isfinite(want) || !isfinite(loss))
		return nonfinite_check(t, loss, want);
	if (tol == 0)
		tol = (t->o.rtol > 0 ? t->o.rtol : 1e-4) * fabs(want) + 1e-6;
	if (!(fabs(loss - want) <= tol) && !t->mismatch[0])
		snprintf(t->mismatch, sizeof(t->mismatch),
		    "step %lld: loss %.9g, one device %.9g (difference %.3g, "
		    "tolerance %.3g)",
		    (long long)t->step + 1, loss, want, fabs(loss - want), tol);
	return 0;
}

/* Share the verdict of process 0 (t->mismatch) with every process of an
 * mpi trainer; 0 or -1. */
static int
share_verdict(sym_trainer *t)
{
	if (!t->mpi || !t->o.single)
		return 0;
	return sym_comm_broadcast(t->rank[0].ep, NULL, 0, t->mismatch,
	    sizeof(t->mismatch), 0);
}

/* With a single-device side, restart it from the params of "t" after
 * every step, so that each step is checked from the same numbers on
 * both sides (float rounding never accumulates), and compare the params
 * first every o.check_every steps (0: never here); "r" says when. 0 or
 * -1. */
static int
check_params(sym_trainer *t, sym_train_step *r)
{
	sym_exec_report rep;
	size_t every = t->o.check_every;

	if (!t->o.single)
		return 0;
	r->params_checked = every && (size_t)t->step % every == 0;
	return sym__trainer_sync(t, r->params_checked ? &rep : NULL);
}

/* Run the next step of "t" into "r": 1, or 0 at the end of an epoch (no
 * step run; sym_trainer_notice says why a last batch was dropped; the
 * next call starts the next epoch), -1 on an error (on every rank). */
int
sym_trainer_step(sym_trainer *t, sym_train_step *r)
{
	double t0 = sym__seconds(), loss;
	int rc;

	if (!t || !r)
		return -1;
	memset(r, 0, sizeof(*r));
	t->notice[0] = '\0';
	rc = next_batch(t);
	if (rc <= 0)
		return rc;
	if (sym__trainer_run(t, SYM__JOB_STEP) < 0) {
		char what[64];

		snprintf(what, sizeof(what), "step %lld (epoch %lld)",
		    (long long)t->step + 1, (long long)t->epoch);
		return sym__trainer_explain(t, what);
	}
	loss = sym__value_scalar(t->rank[0].x, sym_graph_loss(t->g));
	if (!isfinite(loss) && !t->o.allow_nonfinite) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "step %lld (epoch %lld): the loss is %s: training diverged "
		    "(a smaller learning rate may help)",
		    (long long)t->step + 1, (long long)t->epoch,
		    nonfinite_name(loss));
		return -1;
	}
	rc = single_step(t, loss);
	/* Only the single-device side can fail here, on some process. */
	if (t->mpi && t->o.single && sym__trank_agree(&t->rank[0], rc < 0) < 0)
		return -1;
	if (rc < 0 || share_verdict(t) < 0)
		return -1;
	t->pos += t->seq_sym ? 1 : t->cur.n;
	t->step++;
	t->epoch_steps++;
	format_bindings(t, t->s);
	if (check_params(t, r) < 0)
		return -1;
	r->epoch = t->epoch;
	r->step = t->step;
	r->loss = loss;
	r->rows = t->cur.n;
	if (t->seq_sym) {
		r->records = t->cur_records;
		r->tokens = t->cur_tokens;
		r->padded_tokens = t->cur.n * t->cur_seq;
	}
	r->bindings = t->bindings;
	r->seconds = sym__seconds() - t0;
	r->mismatch = t->mismatch[0] ? t->mismatch : NULL;
	sym__switch_account(t, r);
	return 1;
}

/* Return the notice of the last call of sym_trainer_step of "t" (a last
 * batch dropped), NULL when none. */
const char *
sym_trainer_notice(const sym_trainer *t)
{
	return t && t->notice[0] ? t->notice : NULL;
}

/* Return the first difference from the single-device side that "t"
 * found (a step's loss or a param), NULL when none. */
const char *
sym_trainer_mismatch(const sym_trainer *t)
{
	return t && t->mismatch[0] ? t->mismatch : NULL;
}

/* Return the current (or last) epoch of "t", from 1; 0 before the first
 * step. */
int64_t
sym_trainer_epoch(const sym_trainer *t)
{
	return t ? t->epoch : 0;
}
