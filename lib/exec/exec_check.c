/* SPDX-License-Identifier: MIT */
/*
 * sym_exec_check: run a sharded plan on every rank of a communicator,
 * gather its outputs, run the single-device plan of the same graph with
 * the same inputs and compare.
 *
 * On the threads backend each rank is a thread with its own context and
 * executor; they all prepare and fill, then meet at a gate: if any failed
 * so far none runs, and a rank whose step fails keeps running the
 * communication steps (sym_exec_run) so that the others finish. On the
 * mpi backend this process runs its rank; wherever one rank can fail on
 * its own the ranks agree (sym_comm_agree) before the next collective,
 * so that a failing rank never leaves the others waiting, and every
 * process gathers the outputs with all_gather, runs the single plan and
 * computes the same report.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/exec_private.h"
#include "kern/kern_private.h"
#include "ckpt/checkpoint_private.h"

#define DEFAULT_RTOL 1e-4
#define DEFAULT_ATOL 1e-5

/* Where the threads meet after preparing: "n" of them, "bad" of which
 * failed. */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int n, arrived, bad;
};

/* Arrive at "g", failed unless "ok"; wait for everyone; return 1 when
 * nobody failed. */
static int
gate_pass(struct gate *g, int ok)
{
	int all;

	pthread_mutex_lock(&g->mu);
	g->bad += !ok;
	if (++g->arrived == g->n)
		pthread_cond_broadcast(&g->cv);
	while (g->arrived < g->n)
		pthread_cond_wait(&g->cv, &g->mu);
	all = g->bad == 0;
	pthread_mutex_unlock(&g->mu);
	return all;
}

/* A rank of the check on the threads backend. */
struct job {
	const sym_plan *p;
	const sym_slices *s;
	sym_communicator *comm;
	const sym_exec_options *o;
	struct gate *gate;
	int rank;
	sym_ctx *ctx;
	sym_exec *x;
	int failed; /* 0, 1: before running, 2: while running */
	double seconds;
};

/* Return 0 when "x" is made, prepared for "s" and filled with "seed",
 * with the progress of "o" when "rank0"; else -1 with the error on its
 * context. */
static int
setup(sym_exec *x, const sym_slices *s, const sym_exec_options *o, int rank0)
{
	if (!x || sym_exec_prepare(x, s) < 0 || sym_exec_fill(x, o->seed) < 0 ||
	    sym__exec_set_inputs(x, o->inputs) < 0)
		return -1;
	if (rank0 && o->progress)
		sym__exec_set_progress(x, o->progress, o->progress_arg);
	return 0;
}

/* Run the rank "arg" (a struct job); return NULL. */
static void *
job_main(void *arg)
{
	struct job *j = arg;
	sym_comm_endpoint *ep = NULL;
	int ok = 0;

	j->ctx = sym_ctx_new();
	if (j->ctx && (ep = sym_comm_attach(j->ctx, j->comm, j->rank))) {
		j->x = sym_exec_new(j->ctx, j->p, ep);
		ok = setup(j->x, j->s, j->o, j->rank == 0) == 0;
	}
	j->failed = !ok;
	if (gate_pass(j->gate, ok)) {
		double t0 = sym__seconds();

		if (sym_exec_run(j->x) < 0)
			j->failed = 2;
		j->seconds = sym__seconds() - t0;
	}
	sym_comm_detach(ep);
	return NULL;
}

/* Copy onto "ctx" the error of rank "rank" from its context "from"
 * (NULL: it had none); return -1. */
static int
rank_error(sym_ctx *ctx, int rank, const sym_ctx *from)
{
	sym_loc loc = from ? sym_ctx_last_location(from) : (sym_loc){ 0 };

	sym__error(ctx, from ? sym_ctx_last_error(from) : SYM_ENOMEM,
	    loc.file ? &loc : NULL, "rank %d: %s", rank,
	    from ? sym_ctx_last_message(from) : "no context");
	return -1;
}

/* Free what "out" holds. */
void
sym__outputs_clear(struct sym__outputs *out)
{
	for (size_t i = 0; out->got && i < out->n; i++)
		free(out->got[i]);
	free(out->got);
	free(out->v);
	free(out->dt);
	free(out->numel);
	memset(out, 0, sizeof(*out));
}

/* Record SYM_EOVERFLOW on "ctx" for the tensor "dim" ("rank" sizes,
 * dtype "dt") of the value "v" (may be NULL), found by "who"; return -1. */
int
sym__exec_too_big(sym_ctx *ctx, const char *who, const sym_value *v,
    sym_dtype dt, const int64_t *dim, size_t rank)
{
	char dims[SYM__MAX_RANK * 22 + 1];
	size_t n = 0;
	sym_loc at = v ? sym_value_location(v) : (sym_loc){ NULL, 0, 0 };

	dims[0] = '\0';
	for (size_t d = 0; d < rank && d < SYM__MAX_RANK; d++)
		n += (size_t)snprintf(dims + n, sizeof(dims) - n, "%s%lld",
		    d ? ", " : "", (long long)dim[d]);
	sym__error(ctx, SYM_EOVERFLOW, at.file ? &at : NULL,
	    "%s %s is %s[%s] at these sizes: more elements or bytes than 64 "
	    "bits count",
	    who, v ? sym_value_name(v) : "a tensor", sym_dtype_name(dt), dims);
	return -1;
}

/* Allocate in "out" the global tensors of the "n" values "vals" of "p"
 * (NULL: the graph's outputs) for the bound "s"; return 0, or -1 with
 * an error on "ctx". */
int
sym__outputs_init(struct sym__outputs *out, const sym_plan *p,
    const sym_slices *s, const sym_value *const *vals, size_t n, sym_ctx *ctx)
{
	sym_graph *g = sym_plan_graph(p);

	memset(out, 0, sizeof(*out));
	out->n = vals ? n : g ? sym_graph_n_outputs(g) : 0;
	out->v = calloc(out->n + 1, sizeof(*out->v));
	out->got = calloc(out->n + 1, sizeof(*out->got));
	out->dt = calloc(out->n + 1, sizeof(*out->dt));
	out->numel = calloc(out->n + 1, sizeof(*out->numel));
	if (!out->v || !out->got || !out->dt || !out->numel) {
		sym__outputs_clear(out);
		sym__oom_bytes(ctx, out->n + 1,
		    sizeof(*out->v) + sizeof(*out->got) + sizeof(*out->dt) +
		        sizeof(*out->numel),
		    "check: the table of outputs");
		return -1;
	}
	for (size_t i = 0; i < out->n; i++) {
		int64_t size[SYM__MAX_RANK], numel = 1;
		size_t t;

		out->v[i] = vals ? vals[i] : sym_graph_output(g, i);
		t = sym_plan_value_tensor(p, out->v[i]);
		if (t >= sym_plan_n_tensors(p) ||
		    sym_plan_tensor_ndim(p, t) > SYM__MAX_RANK ||
		    sym_slices_global(s, t, size) < 0) {
			sym__error(ctx, SYM_EINVAL, NULL,
			    "check: output %s has no tensor in the plan",
			    sym_value_name(out->v[i]));
			sym__outputs_clear(out);
			return -1;
		}
		out->dt[i] = sym_shape_dtype(sym_value_shape(out->v[i]));
		numel = sym__dims_numel(size, sym_plan_tensor_ndim(p, t),
		    sym__tensor_elem_size(out->dt[i]));
		if (numel < 0) {
			sym__exec_too_big(ctx, "check: output", out->v[i],
			    out->dt[i], size, sym_plan_tensor_ndim(p, t));
			sym__outputs_clear(out);
			return -1;
		}
		out->numel[i] = numel;
		out->got[i] = calloc(numel ? (size_t)numel : 1,
		    sym__tensor_elem_size(out->dt[i]));
		if (!out->got[i]) {
			char *what = sym__asprintf("check: output %s",
			    sym_value_name(out->v[i]));

			sym__oom_bytes(ctx, numel ? (size_t)numel : 1,
			    sym__tensor_elem_size(out->dt[i]),
			    what ? what : "check: an output");
			free(what);
			sym__outputs_clear(out);
			return -1;
		}
	}
	return 0;
}

/* Return 1 when no rank below "rank" holds the block of tensor "t" that
 * "rank" holds under "s" (its "rk" offsets are the same), else 0. */
static int
first_holder(const sym_slices *s, size_t t, int rk, int64_t rank)
{
	const int64_t *off = sym_slices_offsets(s, t);

	if (!off)
		return 1;
	for (int64_t k = 0; k < rank; k++)
		if (memcmp(off + k * rk, off + rank * rk,
		        (size_t)rk * sizeof(*off)) == 0)
			return 0;
	return 1;
}

/* Copy the block "data" of output "i" of "out" that rank "rank" holds
 * under "p" bound by "s" into its place in the global output. Only the
 * lowest rank that holds a block copies it, so that ranks running as
 * threads never write the same bytes at once. */
void
sym__place_block(struct sym__outputs *out, size_t i, const sym_plan *p,
    const sym_slices *s, int64_t rank, const void *data)
{
	size_t t = sym_plan_value_tensor(p, out->v[i]);
	int rk = (int)sym_plan_tensor_ndim(p, t);
	struct sym__box whole, block;

	if (out->numel[i] == 0 || !first_holder(s, t, rk, rank))
		return;
	memset(&whole, 0, sizeof(whole));
	sym_slices_global(s, t, whole.ext);
	sym_slices_local(s, t, block.ext);
	sym_slices_offset(s, t, rank, block.off);
	sym__box_copy(out->got[i], &whole, data, &block, &block, rk,
	    sym__tensor_elem_size(out->dt[i]));
}

/* Return element "i" of "data" (dtype "dt", as stored) as a double. */
static double
element(const void *data, sym_dtype dt, int64_t i)
{
	switch (sym__kst(dt)) {
	case SYM__KST_F32:
		return ((const float *)data)[i];
	case SYM__KST_F64:
		return ((const double *)data)[i];
	case SYM__KST_I32:
		return ((const int32_t *)data)[i];
	default:
		return ((const uint8_t *)data)[i];
	}
}

/* Return the tolerance of output "i" of "out" against the reference
 * "want": "atol" when positive, else the larger of DEFAULT_ATOL and
 * "rtol" times the largest magnitude of the reference (float sums in
 * another order -- other blocks, another matrix size given to BLAS --
 * differ in proportion to the magnitudes summed, not to each result). */
static double
tolerance(const struct sym__outputs *out, size_t i, const void *want,
    double rtol, double atol)
{
	double big = 0.0;

	if (atol > 0)
		return atol;
	for (int64_t k = 0; k < out->numel[i]; k++) {
		double b = fabs(element(want, out->dt[i], k));

		if (b > big && !isinf(b))
			big = b;
	}
	return rtol * big > DEFAULT_ATOL ? rtol * big : DEFAULT_ATOL;
}

/* Compare output "i" of "out" with "want" (the reference) into "r" with
 * the tolerances "rtol" and "atol" (floating dtypes, atol 0: see
 * tolerance; others must be equal). Equal elements agree, infinities of
 * one sign included (their difference is NaN), and so do two NaNs. */
void
sym__compare(const struct sym__outputs *out, size_t i, const void *want,
    double rtol, double atol, sym_exec_report *r)
{
	int fl = sym_dtype_is_float(out->dt[i]);

	if (fl)
		atol = tolerance(out, i, want, rtol, atol);
	for (int64_t k = 0; k < out->numel[i]; k++) {
		double a = element(out->got[i], out->dt[i], k);
		double b = element(want, out->dt[i], k), diff = fabs(a - b);
		int bad;

		if (isnan(a) || isnan(b)) {
			diff = isnan(a) && isnan(b) ? 0.0 : INFINITY;
			bad = diff != 0.0;
		} else if (a == b) {
			diff = 0.0;
			bad = 0;
		} else {
			bad = fl ? !(diff <= atol + rtol * fabs(b)) : diff != 0;
		}
		if (b != 0.0 && !isnan(b) && diff / fabs(b) > r->max_rel)
			r->max_rel = diff / fabs(b);
		if (diff > r->max_abs || (bad && !r->worst)) {
			r->max_abs = diff > r->max_abs ? diff : r->max_abs;
			r->worst = out->v[i];
			r->worst_index = k;
		}
		r->n_mismatch += bad;
	}
}

/* Run "single" bound by "s1" with the options "o" on "ctx" and compare
 * its outputs with "out" into "r"; return 0 or -1 with an error. */
static int
run_single(const sym_plan *single, const sym_slices *s1,
    const sym_exec_options *o, struct sym__outputs *out, sym_exec_report *r,
    sym_ctx *ctx)
{
	sym_exec *x = sym_exec_new(ctx, single, NULL);
	double rtol = o->rtol > 0 ? o->rtol : DEFAULT_RTOL;
	double atol = o->atol > 0 ? o->atol : 0.0;
	double t0;
	int ok;

	if (!x || sym_exec_prepare(x, s1) < 0 ||
	    sym_exec_fill(x, o->seed) < 0 ||
	    sym__exec_set_inputs(x, o->inputs) < 0) {
		sym_exec_free(x);
		return -1;
	}
	t0 = sym__seconds();
	ok = sym_exec_run(x) == 0;
	r->single_seconds = sym__seconds() - t0;
	for (size_t i = 0; ok && i < out->n; i++) {
		size_t t = sym_plan_value_tensor(single, out->v[i]);
		size_t bytes = 0;
		void *want = sym_exec_data(x, t, &bytes);

		if (!want ||
		    bytes !=
		        (size_t)out->numel[i] *
		            sym__tensor_elem_size(out->dt[i])) {
			sym__error(ctx, SYM_EINVAL, NULL,
			    "check: the single-device plan gives output %s "
			    "another size",
			    sym_value_name(out->v[i]));
			ok = 0;
			break;
		}
		sym__compare(out, i, want, rtol, atol, r);
	}
	sym_exec_free(x);
	return ok ? 0 : -1;
}

/* Add the outputs "out" of "p" bound by "s" to "ck" (may be NULL:
 * nothing), whole, in their dtypes; 0, or -1 with an error on "ctx" (or
 * on the context of "ck", which the caller gives). */
static int
keep_outputs(const struct sym__outputs *out, const sym_plan *p,
    const sym_slices *s, sym_checkpoint *ck, sym_ctx *ctx)
{
	for (size_t i = 0; ck && i < out->n; i++) {
		size_t t = sym_plan_value_tensor(p, out->v[i]);
		size_t nd = sym_plan_tensor_ndim(p, t);
		int64_t ext[SYM__MAX_RANK];
		size_t n = (size_t)out->numel[i];
		void *buf =
		    sym__calloc(ctx, n ? n : 1, sym_dtype_size(out->dt[i]));
		int bad;

		if (!buf)
			return -1;
		sym_slices_global(s, t, ext);
		sym__ckpt_from_storage(out->dt[i], out->got[i], buf, n);
		bad = sym_checkpoint_add(ck, sym_value_name(out->v[i]),
		    out->dt[i], nd, ext, buf);
		free(buf);
		if (bad < 0)
			return -1;
	}
	return 0;
}

/* Record on "ctx" that "who" could not start the thread of rank "k" of
 * "n" (pthread_create returned "rc"), naming the limit it met. */
void
sym__thread_start_error(sym_ctx *ctx, const char *who, int k, int n, int rc)
{
	sym__error(ctx, SYM_ENOMEM, NULL,
	    "%s: cannot start the thread of rank %d of %d: %s (the system's "
	    "limit of threads or of memory for their stacks; run fewer "
	    "ranks, or one process a rank under mpirun)",
	    who, k, n, strerror(rc));
}

/* Run "p" bound by "s" on every rank of the threads communicator "comm"
 * and gather its outputs in "out"; return 0 or -1 with an error on
 * "ctx". */
static int
run_threads(const sym_plan *p, const sym_slices *s, sym_communicator *comm,
    const sym_exec_options *o, struct sym__outputs *out, sym_exec_report *r,
    sym_ctx *ctx)
{
	int n = sym_comm_n_ranks(comm), ret = 0, started = 0;
	int blas_threads;
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	struct gate gate;

	if (!jobs || !th) {
		free(jobs);
		free(th);
		sym__oom_bytes(ctx, (size_t)n, sizeof(*jobs) + sizeof(*th),
		    "check: the threads of the ranks");
		return -1;
	}
	/* The ranks are the threads: one BLAS thread each, until they are
	 * done. */
	blas_threads = sym__blas_one_thread();
	pthread_mutex_init(&gate.mu, NULL);
	pthread_cond_init(&gate.cv, NULL);
	gate.n = n;
	gate.arrived = gate.bad = 0;
	for (int k = 0; k < n; k++) {
		int rc;

		jobs[k] = (struct job){ .p = p,
			.s = s,
			.comm = comm,
			.o = o,
			.gate = &gate,
			.rank = k };
		rc = pthread_create(&th[k], NULL, job_main, &jobs[k]);
		if (rc != 0) {
			/* The ranks not started count as failed at the
			 * gate. */
			pthread_mutex_lock(&gate.mu);
			gate.n = k;
			gate.bad++;
			if (gate.arrived == gate.n)
				pthread_cond_broadcast(&gate.cv);
			pthread_mutex_unlock(&gate.mu);
			sym__thread_start_error(ctx, "check", k, n, rc);
			ret = -1;
			break;
		}
		started++;
	}
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	sym__blas_restore(blas_threads);
	for (int pass = 2; ret == 0 && pass >= 1; pass--)
		for (int k = 0; ret == 0 && k < n; k++)
			if (jobs[k].failed == pass)
				ret = rank_error(ctx, k, jobs[k].ctx);
	for (int k = 0; ret == 0 && k < n; k++) {
		if (jobs[k].seconds > r->sharded_seconds)
			r->sharded_seconds = jobs[k].seconds;
		for (size_t i = 0; i < out->n; i++)
			sym__place_block(out, i, p, s, k,
			    sym_exec_data(jobs[k].x,
			        sym_plan_value_tensor(p, out->v[i]), NULL));
	}
	for (int k = 0; k < started; k++) {
		sym_exec_free(jobs[k].x);
		sym_ctx_free(jobs[k].ctx);
	}
	pthread_mutex_destroy(&gate.mu);
	pthread_cond_destroy(&gate.cv);
	free(jobs);
	free(th);
	return ret;
}

/* Agree with every rank of "ep" on whether one failed, this one when
 * "bad" (its error on "ctx", the handle's context); return 0 when none
 * did, else -1 with the lowest failing rank's error on "ctx". */
int
sym__check_agree(sym_comm_endpoint *ep, sym_ctx *ctx, int bad)
{
	sym_error code = SYM_OK;

	if (bad) {
		code = sym_ctx_last_error(ctx);
		if (code == SYM_OK)
			code = SYM_EINTERNAL;
	}
	return sym_comm_agree(ep, code, NULL);
}

/* Store in "*buf" room for the blocks of the outputs of "out" that "x"
 * (of "p") holds, from each of "n" ranks; return 0, or -1 with an error
 * on "ctx". */
int
sym__gather_alloc(sym_exec *x, int n, const sym_plan *p,
    const struct sym__outputs *out, char **buf, sym_ctx *ctx)
{
	size_t most = 0;

	for (size_t i = 0; i < out->n; i++) {
		size_t bytes = 0;

		sym_exec_data(x, sym_plan_value_tensor(p, out->v[i]), &bytes);
		most = bytes > most ? bytes : most;
	}
	*buf = sym__realloc_array(ctx, NULL, (size_t)n, most ? most : 1);
	if (!*buf)
		sym__oom_bytes(ctx, (size_t)n, most ? most : 1,
		    "check: gathering the outputs");
	return *buf ? 0 : -1;
}

/* Gather on every rank of "ep" ("n" ranks) the outputs "out" of "x" (of
 * "p" bound by "s") through "all" (from gather_alloc); return 0, or -1
 * with an error on the endpoint's context. */
int
sym__gather_outputs(sym_exec *x, sym_comm_endpoint *ep, int n,
    const sym_plan *p, const sym_slices *s, struct sym__outputs *out, char *all)
{
	for (size_t i = 0; i < out->n; i++) {
		size_t t = sym_plan_value_tensor(p, out->v[i]), bytes = 0;
		void *mine = sym_exec_data(x, t, &bytes);

		if (sym_comm_all_gather(ep, NULL, 0, mine, all, bytes) < 0)
			return -1;
		for (int k = 0; k < n; k++)
			sym__place_block(out, i, p, s, k,
			    all + (size_t)k * bytes);
	}
	return 0;
}

/* The bound slices of the plans of a check and the outputs it compares
 * ("out" valid when "has_out"). */
struct check {
	sym_slices *s, *s1;
	struct sym__outputs out;
	int has_out;
};

/* Check the arguments of sym_exec_check ("comm" given), bind "b" to "p"
 * and "single" into "c" and allocate its outputs; return 0, or -1 with
 * an error on "ctx" (check_clear frees what "c" holds either way). */
static int
check_begin(struct check *c, const sym_plan *p, const sym_plan *single,
    const sym_communicator *comm, const sym_binding *b, sym_exec_report *r,
    sym_ctx *ctx)
{
	memset(c, 0, sizeof(*c));
	if (!p || !single || !r) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "check: missing plan, communicator or report");
		return -1;
	}
	if (sym_plan_n_ranks(p) != sym_comm_n_ranks(comm) ||
	    sym_plan_n_ranks(single) != 1 ||
	    sym_plan_graph(p) != sym_plan_graph(single)) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "check: a plan of %lld ranks on a communicator of %d, "
		    "against a plan of %lld ranks%s",
		    (long long)sym_plan_n_ranks(p), sym_comm_n_ranks(comm),
		    (long long)sym_plan_n_ranks(single),
		    sym_plan_graph(p) != sym_plan_graph(single)
		        ? " of another graph"
		        : "");
		return -1;
	}
	c->s = sym_slices_new(p);
	c->s1 = sym_slices_new(single);
	if (!c->s || !c->s1) {
		sym__error(ctx, SYM_ENOMEM, NULL, "check: no slices");
		return -1;
	}
	if (sym_plan_bind(p, b, c->s) < 0 ||
	    sym_plan_bind(single, b, c->s1) < 0) {
		const char *m =
		    sym_slices_error(sym_slices_is_bound(c->s) == SYM_TRUE
		            ? c->s1
		            : c->s);
		sym_error code =
		    sym_ctx_last_error(sym_graph_ctx(sym_plan_graph(p)));

		sym__error(ctx, code != SYM_OK ? code : SYM_EDOMAIN, NULL, "%s",
		    m && *m ? m : "the binding is rejected");
		return -1;
	}
	if (sym__outputs_init(&c->out, p, c->s, NULL, 0, ctx) < 0)
		return -1;
	c->has_out = 1;
	return 0;
}

/* Free what "c" holds. */
static void
check_clear(struct check *c)
{
	if (c->has_out)
		sym__outputs_clear(&c->out);
	sym_slices_free(c->s);
	sym_slices_free(c->s1);
}

/*
 * sym_exec_check on the mpi communicator "comm": this process runs its
 * rank. Wherever a rank can fail on its own -- the arguments, the
 * binding, the buffers and inputs, the run, the gathered outputs and the
 * single-device run -- the ranks agree before the next collective, so
 * that every rank returns the lowest failing rank's error instead of
 * waiting for it. Return as sym_exec_check, the same on every rank.
 */
static int
check_mpi(const sym_plan *p, const sym_plan *single, sym_communicator *comm,
    const sym_binding *b, const sym_exec_options *o, sym_exec_report *r,
    sym_ctx *ctx)
{
	int rank = sym_comm_rank(comm), n = sym_comm_n_ranks(comm), bad;
	int blas_threads;
	sym_comm_endpoint *ep = sym_comm_attach(ctx, comm, rank);
	struct check c;
	sym_exec *x = NULL;
	char *all = NULL;
	double t0;
	int ret = -1;

	if (!ep)
		return -1;
	bad = check_begin(&c, p, single, comm, b, r, ctx) < 0;
	if (!bad) {
		x = sym_exec_new(ctx, p, ep);
		bad = setup(x, c.s, o, rank == 0) < 0 ||
		    sym__gather_alloc(x, n, p, &c.out, &all, ctx) < 0;
	}
	if (sym__check_agree(ep, ctx, bad) < 0)
		goto out;
	/* One BLAS thread for the rank, as run_threads gives each. */
	blas_threads = sym__blas_one_thread();
	t0 = sym__seconds();
	bad = sym_exec_run(x) < 0;
	r->sharded_seconds = sym__seconds() - t0;
	sym__blas_restore(blas_threads);
	if (sym__check_agree(ep, ctx, bad) < 0)
		goto out;
	bad = sym__gather_outputs(x, ep, n, p, c.s, &c.out, all) < 0 ||
	    keep_outputs(&c.out, p, c.s, o->outputs, ctx) < 0 ||
	    run_single(single, c.s1, o, &c.out, r, ctx) < 0;
	if (sym__check_agree(ep, ctx, bad) == 0)
		ret = 0;
out:
	free(all);
	sym_exec_free(x);
	check_clear(&c);
	sym_comm_detach(ep);
	return ret;
}

/* Copy the options "o" of the check "who" into "copy" (NULL: the
 * defaults); return 0, or -1 with SYM_EINVAL on "ctx" for an unknown
 * o->size. */
int
sym__exec_options(sym_ctx *ctx, const char *who, const sym_exec_options *o,
    sym_exec_options *copy)
{
	memset(copy, 0, sizeof(*copy));
	copy->size = sizeof(*copy);
	if (!o)
		return 0;
	if (sym__options_size(ctx, o->size, sizeof(*o), who, "options",
	        "SYM_EXEC_OPTIONS_INIT") < 0)
		return -1;
	memcpy(copy, o, o->size);
	copy->size = sizeof(*copy);
	return 0;
}

/* Bind "b" to "p" and "single" (borrowed), run "p" on every rank of
 * "comm" and "single" here with the options "o" (NULL: defaults),
 * compare their outputs into "r"; return 0 when both ran, -1 with the
 * error on "ctx" otherwise (nothing runs when "b" violates a
 * constraint). */
int
sym_exec_check(sym_ctx *ctx, const sym_plan *p, const sym_plan *single,
    sym_communicator *comm, const sym_binding *b, const sym_exec_options *o,
    sym_exec_report *r)
{
	sym_exec_options opt;
	struct check c;
	int ret = -1;

	if (!ctx)
		return -1;
	if (!comm) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "check: missing plan, communicator or report");
		return -1;
	}
	if (sym__exec_options(ctx, "check", o, &opt) < 0)
		return -1;
	o = &opt;
	if (r) {
		memset(r, 0, sizeof(*r));
		r->worst_index = -1;
	}
	if (!strcmp(sym_comm_backend(comm), "mpi"))
		return check_mpi(p, single, comm, b, o, r, ctx);
	if (check_begin(&c, p, single, comm, b, r, ctx) == 0) {
		ret = run_threads(p, c.s, comm, o, &c.out, r, ctx);
		if (ret == 0)
			ret = keep_outputs(&c.out, p, c.s, o->outputs, ctx);
		if (ret == 0)
			ret = run_single(single, c.s1, o, &c.out, r, ctx);
	}
	check_clear(&c);
	return ret;
}
