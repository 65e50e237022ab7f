/* SPDX-License-Identifier: MIT */
/*
 * The trainer's evaluation (the test data in file order, forward only:
 * mean loss and top-1 accuracy of the class scores against the labels),
 * its comparison of the params with the single-device side, and its
 * checkpoints: every param and optimizer state gathered whole and
 * written in the safetensors format by one process; read back by every
 * process, checked whole before anything changes, each rank taking its
 * block.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/exec_private.h"
#include "train/trainer_private.h"

/* Return the first element of value "v" of "x" as a double (NaN when "x"
 * does not hold it). */
double
sym__value_scalar(sym_exec *x, const sym_value *v)
{
	size_t bytes = 0;
	const void *d = sym_exec_value_data(x, sym_value_name(v), &bytes);

	if (!d || bytes == 0)
		return NAN;
	switch (sym_shape_dtype(sym_value_shape(v))) {
	case SYM_DT_F32:
		return ((const float *)d)[0];
	case SYM_DT_F64:
		return ((const double *)d)[0];
	default:
		return NAN;
	}
}

/* Store in "dims" the global sizes of value "v" of "t" (bound), in
 * "*nd" their number, and return its whole size in bytes as the
 * executor stores it (f16 as f32, i8 as int32: sym_exec(3)). */
size_t
sym__trainer_whole_size(const sym_trainer *t, const sym_value *v, int64_t *dims,
    size_t *nd)
{
	size_t tt = sym_plan_value_tensor(t->p, v);
	size_t n = sym__tensor_elem_size(sym_shape_dtype(sym_value_shape(v)));

	*nd = sym_plan_tensor_ndim(t->p, tt);
	sym_slices_global(t->s, tt, dims);
	for (size_t d = 0; d < *nd; d++)
		n *= (size_t)dims[d];
	return n;
}

/* Gather value "v" of "t" whole ("bytes" bytes) into the buffer of
 * every local rank (rank 0's is the caller's); 0 or -1. */
int
sym__trainer_gather(sym_trainer *t, const sym_value *v, size_t bytes)
{
	t->job_name = sym_value_name(v);
	t->job_bytes = bytes;
	return sym__trainer_run(t, SYM__JOB_GATHER);
}

/* Compare "got" (value "v" of "t", whole) with the single-device side
 * into "r" (sym_exec(3)'s tolerances); name the first mismatch in
 * t->mismatch. 0 or -1. */
static int
trainer_compare(sym_trainer *t, const sym_value *v, const void *got,
    sym_exec_report *r)
{
	int64_t dims[SYM__MAX_RANK];
	size_t nd, bytes = sym__trainer_whole_size(t, v, dims, &nd);
	const sym_value *vals[1] = { v };
	void *got_slot[1] = { (void *)got };
	sym_dtype dt = sym_shape_dtype(sym_value_shape(v));
	size_t es = sym__tensor_elem_size(dt);
	int64_t numel = (int64_t)(bytes / (es ? es : 1));
	struct sym__outputs out = { 1, vals, got_slot, &dt, &numel };
	int64_t before = r->n_mismatch;

	if (bytes > t->cmp_cap) {
		void *p = realloc(t->cmp, bytes);

		if (!p) {
			sym__oom_bytes(t->ctx, 1, bytes, "trainer: comparing");
			return -1;
		}
		t->cmp = p;
		t->cmp_cap = bytes;
	}
	if (sym_exec_get_whole(t->x1, sym_value_name(v), t->cmp, bytes) < 0)
		return -1;
	sym__compare(&out, 0, t->cmp, t->o.rtol > 0 ? t->o.rtol : 1e-4,
	    t->o.atol, r);
	if (r->n_mismatch > before && !t->mismatch[0])
		snprintf(t->mismatch, sizeof(t->mismatch),
		    "after step %lld: %s differs from one device in %lld "
		    "elements (largest difference %.3g)",
		    (long long)t->step, sym_value_name(v),
		    (long long)(r->n_mismatch - before), r->max_abs);
	return 0;
}

/* On mpi, agree on whether the comparison of process 0 failed ("bad")
 * and give every process its verdict (t->mismatch, the counts of "r");
 * 0 or -1. */
static int
share(sym_trainer *t, int bad, sym_exec_report *r)
{
	double v[3] = { (double)r->n_mismatch, r->max_abs, r->max_rel };

	if (!t->mpi)
		return bad ? -1 : 0;
	if (sym__trank_agree(&t->rank[0], bad) < 0 ||
	    sym_comm_broadcast(t->rank[0].ep, NULL, 0, t->mismatch,
	        sizeof(t->mismatch), 0) < 0 ||
	    sym_comm_broadcast(t->rank[0].ep, NULL, 0, v, sizeof(v), 0) < 0)
		return -1;
	r->n_mismatch = (int64_t)v[0];
	r->max_abs = v[1];
	r->max_rel = v[2];
	return 0;
}

/* Compare value "v" of "t" (gathered whole in rank 0's buffer) with the
 * single-device side into "r" (unless NULL), then give the single-device side the
 * sharded value, so that the next steps start from the same numbers on
 * both sides: float rounding then never accumulates over many steps,
 * and each comparison checks the steps since the last one. 0 or -1. */
static int
resync(sym_trainer *t, const sym_value *v, sym_exec_report *r)
{
	int64_t dims[SYM__MAX_RANK];
	size_t nd, bytes = sym__trainer_whole_size(t, v, dims, &nd);

	if (r && trainer_compare(t, v, t->rank[0].whole, r) < 0)
		return -1;
	return sym_exec_set_whole(t->x1, sym_value_name(v), t->rank[0].whole,
	    bytes);
}

/* Restart the single-device side of "t" from every param and optimizer
 * state of the sharded side, comparing them first into "r" unless it is
 * NULL (see resync); 0 (the report and t->mismatch say whether they
 * agree) or -1. A collective. */
int
sym__trainer_sync(sym_trainer *t, sym_exec_report *r)
{
	size_t nv = sym_graph_n_values(t->g);
	sym_exec_report none;

	if (r)
		memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < nv; i++) {
		const sym_value *v = sym_graph_value(t->g, i);
		int64_t dims[SYM__MAX_RANK];
		size_t nd, bytes;

		if (sym_value_get_kind(v) != SYM_VALUE_PARAM)
			continue;
		bytes = sym__trainer_whole_size(t, v, dims, &nd);
		if (sym__trainer_gather(t, v, bytes) < 0)
			return -1;
		memset(&none, 0, sizeof(none));
		if (share(t, t->x1 && resync(t, v, r) < 0, r ? r : &none) < 0)
			return -1;
	}
	return 0;
}

/* Compare every param and optimizer state of "t" with the single-device
 * side into "r" (and restart that side from them); 0 (the report and
 * t->mismatch say whether they agree) or -1. A collective. */
int
sym_trainer_compare_params(sym_trainer *t, sym_exec_report *r)
{
	if (!t || !r)
		return -1;
	if (!t->o.single) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: no single-device plan to compare with");
		return -1;
	}
	return sym__trainer_sync(t, r);
}

/* Return label "row" of the test data of "t" (the label feed's column);
 * -1 when it cannot be read. */
static int64_t
label(const sym_trainer *t, int64_t row)
{
	const struct sym__feed *f = &t->feed[t->label_feed];
	int64_t v64 = -1;
	int32_t v32 = -1;

	if (sym_dataset_column_dtype(t->test, f->col_test) == SYM_DT_I64)
		return sym_dataset_read(t->test, f->col_test, row, 0, 1, &v64) <
		        0
		    ? -1
		    : v64;
	return sym_dataset_read(t->test, f->col_test, row, 0, 1, &v32) < 0
	    ? -1
	    : v32;
}

/* Count into "r" the rows of the current batch of "t" whose class
 * scores ("rows" x "c" in rank 0's buffer) peak at their label. */
static void
count_correct(const sym_trainer *t, int64_t c, sym_eval_result *r)
{
	int f64 = sym_shape_dtype(sym_value_shape(t->scores)) == SYM_DT_F64;
	const float *s32 = t->rank[0].whole;
	const double *s64 = t->rank[0].whole;

	for (int64_t i = 0; i < t->cur.n; i++) {
		int64_t best = 0;

		for (int64_t j = 1; j < c; j++)
			if (f64 ? s64[i * c + j] > s64[i * c + best]
			        : s32[i * c + j] > s32[i * c + best])
				best = j;
		r->correct += best == label(t, t->cur.rows[i]);
	}
}

/* Evaluate batch "rows" rows at "pos" of the test data of "t" into "r";
 * 1 when it ran, 0 when its size does not bind (dropped), -1 on an
 * error. */
static int
eval_batch(sym_trainer *t, int64_t pos, int64_t rows, sym_eval_result *r)
{
	int64_t c = 0, *in = NULL;
	double loss;

	if (sym__trainer_bind(t, t->s, t->p, rows) < 0)
		return 0;
	if (!(in = sym__trainer_rows(t, rows)))
		return -1;
	for (int64_t i = 0; i < rows; i++)
		in[i] = pos + i;
	t->cur = (struct sym__batch){ t->test, in, rows, 1 };
	if (t->scores) {
		sym_expr_get_const(sym_shape_dim(sym_value_shape(t->scores), 1),
		    &c);
		t->job_bytes = (size_t)rows * (size_t)c *
		    sym_dtype_size(sym_shape_dtype(sym_value_shape(t->scores)));
	}
	if (sym__trainer_run(t, SYM__JOB_EVAL) < 0)
		return sym__trainer_explain(t, "evaluation");
	loss = sym__value_scalar(t->rank[0].x, sym_graph_loss(t->g));
	r->loss += loss * (double)rows;
	r->rows += rows;
	if (t->scores && t->label_feed != SIZE_MAX)
		count_correct(t, c, r);
	return 1;
}

/* Record on the context of "t" that none of the "n" samples of its test
 * data could be evaluated in batches of "b"; return -1. */
static int
nothing_evaluated(sym_trainer *t, int64_t n, int64_t b)
{
	if (n == 0)
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "evaluation: the test data %s has no samples",
		    sym_dataset_name(t->test));
	else
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "evaluation: none of the %lld samples of %s was "
		    "evaluated: the batch symbol admits no batch of %lld",
		    (long long)n, sym_dataset_name(t->test),
		    (long long)(n < b ? n : b));
	return -1;
}

/* Evaluate the params of "t" on its test data into "r": batches of the
 * first batch size in file order, forward only; a last batch whose size
 * the batch symbol does not admit is not evaluated ("dropped"). 0 or
 * -1 (on every rank). */
int
sym_trainer_evaluate(sym_trainer *t, sym_eval_result *r)
{
	int64_t n, b, pos;
	double t0 = sym__seconds();

	if (!t || !r)
		return -1;
	memset(r, 0, sizeof(*r));
	if (!t->test) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: no test data to evaluate on");
		return -1;
	}
	if (t->seq_sym)
		return sym__seq_evaluate(t, r);
	n = sym_dataset_n_rows(t->test);
	b = t->batch[0];
	for (pos = 0; pos < n; pos += b) {
		int rc = eval_batch(t, pos, n - pos < b ? n - pos : b, r);

		if (rc < 0)
			return -1;
		if (rc == 0) {
			r->dropped = n - pos;
			break;
		}
	}
	if (sym__trainer_bind(t, t->s, t->p, t->batch[0]) < 0)
		return -1;
	if (r->rows == 0)
		return nothing_evaluated(t, n, b);
	r->epoch = t->epoch;
	r->loss = r->rows ? r->loss / (double)r->rows : NAN;
	r->accuracy = t->scores && t->label_feed != SIZE_MAX && r->rows
	    ? (double)r->correct / (double)r->rows
	    : NAN;
	r->seconds = sym__seconds() - t0;
	return 0;
}

/* Gather value "name" of "t" (a param, state or input, or an output
 * after a step) whole into "whole" ("bytes" bytes); a collective. 0 or
 * -1. */
int
sym_trainer_param(sym_trainer *t, const char *name, void *whole, size_t bytes)
{
	const sym_value *v;

	if (!t)
		return -1;
	v = name ? sym_graph_find_value(t->g, name) : NULL;
	if (!v) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: the graph has no value '%s'",
		    name ? name : "(null)");
		return -1;
	}
	if (bytes && !whole) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: no buffer for '%s'", name);
		return -1;
	}
	if (sym__trainer_gather(t, v, bytes) < 0)
		return -1;
	if (bytes)
		memcpy(whole, t->rank[0].whole, bytes);
	return 0;
}
