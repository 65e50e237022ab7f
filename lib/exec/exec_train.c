/* SPDX-License-Identifier: MIT */
/*
 * sym_exec_train_check: train a sharded plan for several steps on every
 * rank of a communicator and the single-device plan of the same
 * graph alongside, and compare them: the outputs (the loss, ...) after
 * every step, and every param and optimizer state after the last.
 *
 * Unlike sym_exec_check, the executors live through every step: each
 * initializes its params once, then fills its inputs and runs one step
 * per binding, its params and optimizer state updated in place. The rank
 * threads and the caller's thread meet at a barrier between phases: the
 * caller binds the next step's sizes; the ranks prepare and fill, agree
 * that none failed, run and place their blocks of the outputs in the
 * gathered tensors; the caller runs the single-device step and compares.
 * On the mpi backend each process runs its rank and the single-device
 * side, gathers the outputs with all_gather and compares, the ranks
 * agreeing wherever one can fail on its own (sym_exec_check's way).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symshard/grad.h>

#include "exec/exec_private.h"

#define DEFAULT_RTOL 1e-4

/* What the caller asks the ranks to do next. */
enum order {
	STEP,   /* prepare, fill, run, place the outputs */
	PARAMS, /* place the params */
	QUIT
};

/* The state the ranks and the caller share. */
struct shared {
	const sym_plan *p;
	sym_communicator *comm;
	uint64_t seed;
	int n;
	pthread_barrier_t bar;
	/* Set by the caller before the ranks go. */
	enum order order;
	const sym_slices *s;
	size_t step;
	/* The outputs the ranks place their blocks in. */
	struct sym__outputs out;
	/* By rank: 0, or where it failed (1 preparing, 2 running). */
	int *failed;
	/* The start: the ranks wait until "go" is 1 (run) or -1 (give up:
	 * not every thread could start). */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go;
};

/* A rank. */
struct rank {
	struct shared *sh;
	int k;
	sym_ctx *ctx;
	sym_exec *x;
};

/* Run one step on rank "r": prepare, fill (and initialize the params at
 * the first step), agree with the others, run, place the outputs. */
static void
rank_step(struct rank *r)
{
	struct shared *sh = r->sh;
	int ok = r->x && sym_exec_prepare(r->x, sh->s) == 0 &&
	    (sh->step > 0 || sym_exec_init_params(r->x, sh->seed) == 0) &&
	    sym_exec_fill_inputs(r->x, sym__step_seed(sh->seed, sh->step)) == 0;

	sh->failed[r->k] = ok ? 0 : 1;
	pthread_barrier_wait(&sh->bar);
	for (int k = 0; k < sh->n; k++)
		if (sh->failed[k])
			return;
	if (sym_exec_run(r->x) < 0) {
		sh->failed[r->k] = 2;
		return;
	}
	for (size_t i = 0; i < sh->out.n; i++)
		sym__place_block(&sh->out, i, sh->p, sh->s, r->k,
		    sym_exec_data(r->x,
		        sym_plan_value_tensor(sh->p, sh->out.v[i]), NULL));
}

/* The thread of rank "arg" (a struct rank); return NULL. */
static void *
rank_main(void *arg)
{
	struct rank *r = arg;
	struct shared *sh = r->sh;
	sym_comm_endpoint *ep = NULL;

	pthread_mutex_lock(&sh->mu);
	while (sh->go == 0)
		pthread_cond_wait(&sh->cv, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
	if (sh->go < 0)
		return NULL;
	r->ctx = sym_ctx_new();
	if (r->ctx && (ep = sym_comm_attach(r->ctx, sh->comm, r->k)))
		r->x = sym_exec_new(r->ctx, sh->p, ep);
	for (;;) {
		pthread_barrier_wait(&sh->bar);
		if (sh->order == QUIT)
			break;
		if (sh->order == STEP)
			rank_step(r);
		else
			for (size_t i = 0; r->x && i < sh->out.n; i++)
				sym__place_block(&sh->out, i, sh->p, sh->s,
				    r->k,
				    sym_exec_data(r->x,
				        sym_plan_value_tensor(sh->p,
				            sh->out.v[i]),
				        NULL));
		pthread_barrier_wait(&sh->bar);
	}
	sym_comm_detach(ep);
	return NULL;
}

/* Give the ranks of "sh" the order "o" and wait until they are done. */
static void
order(struct shared *sh, enum order o)
{
	sh->order = o;
	pthread_barrier_wait(&sh->bar);
	if (o == STEP)
		pthread_barrier_wait(&sh->bar); /* agreement after filling */
	if (o != QUIT)
		pthread_barrier_wait(&sh->bar);
}

/* Copy onto "ctx" the error of the first failing rank of "sh" among
 * "ranks"; return -1. */
static int
rank_failure(const struct shared *sh, const struct rank *ranks, sym_ctx *ctx)
{
	for (int pass = 2; pass >= 1; pass--)
		for (int k = 0; k < sh->n; k++)
			if (sh->failed[k] == pass) {
				const sym_ctx *from = ranks[k].ctx;

				sym__error(ctx,
				    from ? sym_ctx_last_error(from)
				         : SYM_ENOMEM,
				    NULL, "rank %d: %s", k,
				    from ? sym_ctx_last_message(from)
				         : "no context");
				return -1;
			}
	return -1;
}

/* Return the params of the graph of "p" (optimizer state included) in a
 * new array, their number in "*n"; NULL when out of memory. */
static const sym_value **
params_of(const sym_plan *p, size_t *n)
{
	sym_graph *g = sym_plan_graph(p);
	size_t nv = sym_graph_n_values(g);
	const sym_value **v = calloc(nv + 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < nv; i++)
		if (sym_value_get_kind(sym_graph_value(g, i)) ==
		    SYM_VALUE_PARAM)
			v[(*n)++] = sym_graph_value(g, i);
	return v;
}

/* The caller's side of a training check: the single-device executor "x1"
 * of "single" and its slices "s1". */
struct single {
	const sym_plan *plan;
	sym_slices *s1;
	sym_exec *x1;
};

/* Run step "i" of the single-device side "sg" bound by "b" with seed
 * "seed"; return 0 or -1 with an error on "ctx". */
static int
single_step(struct single *sg, const sym_binding *b, size_t i, uint64_t seed,
    sym_ctx *ctx)
{
	if (sym_plan_bind(sg->plan, b, sg->s1) < 0) {
		sym__error(ctx, SYM_EINVAL, NULL, "%s",
		    sym_slices_error(sg->s1));
		return -1;
	}
	if (sym_exec_prepare(sg->x1, sg->s1) < 0 ||
	    (i == 0 && sym_exec_init_params(sg->x1, seed) < 0) ||
	    sym_exec_fill_inputs(sg->x1, sym__step_seed(seed, i)) < 0 ||
	    sym_exec_run(sg->x1) < 0)
		return -1;
	return 0;
}

/* Compare the values of "out" (gathered from the ranks) with the
 * single-device side "sg" into "r" with the tolerances of "o". */
static void
compare_all(const struct sym__outputs *out, struct single *sg,
    const sym_exec_options *o, sym_exec_report *r)
{
	double rtol = o->rtol > 0 ? o->rtol : DEFAULT_RTOL;

	for (size_t i = 0; i < out->n; i++)
		sym__compare(out, i,
		    sym_exec_data(sg->x1,
		        sym_plan_value_tensor(sg->plan, out->v[i]), NULL),
		    rtol, o->atol, r);
}

/* Record in "tr" the comparison "r" of the outputs of step "i" of "p"
 * and in "loss"[i] (when not NULL) the first element of the graph's loss
 * when it is an output, else of the first output of "out". */
static void
record_step(sym_train_report *tr, const sym_exec_report *r,
    const struct sym__outputs *out, const sym_plan *p, size_t i, double *loss)
{
	const sym_value *lv = sym_graph_loss(sym_plan_graph(p));
	size_t k = 0;

	for (size_t j = 0; lv && j < out->n; j++)
		if (out->v[j] == lv)
			k = j;
	if (loss && out->n > 0 && out->numel[k] > 0)
		loss[i] = out->dt[k] == SYM_DT_F64 ? ((double *)out->got[k])[0]
		    : out->dt[k] == SYM_DT_F32     ? ((float *)out->got[k])[0]
		                                   : 0;
	if (r->n_mismatch && tr->first_mismatch == SIZE_MAX)
		tr->first_mismatch = i;
	tr->outputs.n_mismatch += r->n_mismatch;
	if (r->max_abs >= tr->outputs.max_abs) {
		tr->outputs.max_abs = r->max_abs;
		tr->outputs.worst = r->worst;
		tr->outputs.worst_index = r->worst_index;
	}
	if (r->max_rel > tr->outputs.max_rel)
		tr->outputs.max_rel = r->max_rel;
	tr->n_steps = i + 1;
}

/* Start the "n" rank threads "th" of "ranks" on "sh" and let them go
 * when all started; return how many started (all, or fewer with an error
 * on "ctx": then those are told to give up). */
static int
start(struct shared *sh, struct rank *ranks, pthread_t *th, int n, sym_ctx *ctx)
{
	int started = n;

	for (int k = 0; k < n; k++) {
		int rc;

		ranks[k] = (struct rank){ .sh = sh, .k = k };
		rc = pthread_create(&th[k], NULL, rank_main, &ranks[k]);
		if (rc != 0) {
			sym__thread_start_error(ctx, "train check", k, n, rc);
			started = k;
			break;
		}
	}
	pthread_mutex_lock(&sh->mu);
	sh->go = started == n ? 1 : -1;
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
	return started;
}

/* Run the "n_steps" steps "steps" on the started ranks of "sh" and the
 * single-device side "sg", comparing into "r" (and the sharded first
 * output in "loss", when not NULL); then compare the params into "rp".
 * Return 0 or -1 with an error on "ctx". */
static int
train_steps(struct shared *sh, struct rank *ranks, struct single *sg,
    sym_slices *s, const sym_binding *const *steps, size_t n_steps,
    const sym_exec_options *o, double *loss, sym_train_report *tr, sym_ctx *ctx)
{
	const sym_value **pv;
	size_t np;
	int ret = 0;

	for (size_t i = 0; i < n_steps && ret == 0; i++) {
		if (sym_plan_bind(sh->p, steps[i], s) < 0) {
			sym__error(ctx, SYM_EINVAL, NULL, "step %zu: %s", i + 1,
			    sym_slices_error(s));
			return -1;
		}
		if (sym__outputs_init(&sh->out, sh->p, s, NULL, 0, ctx) < 0)
			return -1;
		sh->s = s;
		sh->step = i;
		order(sh, STEP);
		for (int k = 0; k < sh->n && ret == 0; k++)
			if (sh->failed[k])
				ret = rank_failure(sh, ranks, ctx);
		if (ret == 0)
			ret = single_step(sg, steps[i], i, sh->seed, ctx);
		if (ret == 0) {
			sym_exec_report r;

			memset(&r, 0, sizeof(r));
			compare_all(&sh->out, sg, o, &r);
			record_step(tr, &r, &sh->out, sh->p, i, loss);
		}
		sym__outputs_clear(&sh->out);
	}
	if (ret < 0 || n_steps == 0)
		return ret;
	pv = params_of(sh->p, &np);
	if (!pv || sym__outputs_init(&sh->out, sh->p, s, pv, np, ctx) < 0) {
		if (!pv)
			sym__oom(ctx);
		free(pv);
		return -1;
	}
	order(sh, PARAMS);
	compare_all(&sh->out, sg, o, &tr->params);
	sym__outputs_clear(&sh->out);
	free(pv);
	return 0;
}

/* Gather through "ep" ("n" ranks) the values "out" of "x" (of "p" bound
 * by "s") and compare them with the single-device side "sg" into "r";
 * return 0, or -1 with an error on "ctx" (agreed by every rank). */
static int
gather_compare(sym_exec *x, sym_comm_endpoint *ep, int n, const sym_plan *p,
    const sym_slices *s, struct sym__outputs *out, struct single *sg,
    const sym_exec_options *o, sym_exec_report *r, sym_ctx *ctx)
{
	char *all = NULL;
	int bad = sym__gather_alloc(x, n, p, out, &all, ctx) < 0;

	if (sym__check_agree(ep, ctx, bad) < 0) {
		free(all);
		return -1;
	}
	bad = sym__gather_outputs(x, ep, n, p, s, out, all) < 0;
	free(all);
	if (sym__check_agree(ep, ctx, bad) < 0)
		return -1;
	compare_all(out, sg, o, r);
	return 0;
}

/* Run step "i" ("b") of the mpi side: this process's rank "x" of "p"
 * bound in "s" through "ep" ("n" ranks) and the single-device side
 * "sg", compared into "tr"; return 0 or -1 (agreed by every rank). */
static int
mpi_step(sym_exec *x, sym_comm_endpoint *ep, int n, const sym_plan *p,
    sym_slices *s, struct single *sg, const sym_binding *b, size_t i,
    const sym_exec_options *o, double *loss, sym_train_report *tr, sym_ctx *ctx)
{
	struct sym__outputs out;
	sym_exec_report r;
	int bad, ret = -1;

	memset(&out, 0, sizeof(out));
	memset(&r, 0, sizeof(r));
	bad = sym_plan_bind(p, b, s) < 0;
	if (bad)
		sym__error(ctx, SYM_EINVAL, NULL, "step %zu: %s", i + 1,
		    sym_slices_error(s));
	bad = bad || sym__outputs_init(&out, p, s, NULL, 0, ctx) < 0 ||
	    sym_exec_prepare(x, s) < 0 ||
	    (i == 0 && sym_exec_init_params(x, o->seed) < 0) ||
	    sym_exec_fill_inputs(x, sym__step_seed(o->seed, i)) < 0;
	if (sym__check_agree(ep, ctx, bad) < 0)
		goto done;
	bad = sym_exec_run(x) < 0 || single_step(sg, b, i, o->seed, ctx) < 0;
	if (sym__check_agree(ep, ctx, bad) < 0 ||
	    gather_compare(x, ep, n, p, s, &out, sg, o, &r, ctx) < 0)
		goto done;
	record_step(tr, &r, &out, p, i, loss);
	ret = 0;
done:
	sym__outputs_clear(&out);
	return ret;
}

/* sym_exec_train_check on the mpi communicator "comm": this process runs
 * its rank and the single-device side; the ranks agree wherever one can
 * fail on its own, as sym_exec_check does. Return as
 * sym_exec_train_check, the same on every rank. */
static int
train_mpi(const sym_plan *p, const sym_plan *single, sym_communicator *comm,
    const sym_binding *const *steps, size_t n_steps, const sym_exec_options *o,
    double *loss, sym_train_report *tr, sym_ctx *ctx)
{
	int n = sym_comm_n_ranks(comm), bad, ret = -1;
	sym_comm_endpoint *ep = sym_comm_attach(ctx, comm, sym_comm_rank(comm));
	struct sym__outputs out;
	struct single sg;
	sym_slices *s = sym_slices_new(p);
	const sym_value **pv = NULL;
	sym_exec *x = NULL;
	size_t np = 0;

	memset(&sg, 0, sizeof(sg));
	memset(&out, 0, sizeof(out));
	if (!ep)
		goto done;
	sg.plan = single;
	sg.s1 = sym_slices_new(single);
	sg.x1 = sym_exec_new(ctx, single, NULL);
	x = sym_exec_new(ctx, p, ep);
	bad = !s || !sg.s1 || !sg.x1 || !x;
	if (sym__check_agree(ep, ctx, bad) < 0)
		goto done;
	for (size_t i = 0; i < n_steps; i++)
		if (mpi_step(x, ep, n, p, s, &sg, steps[i], i, o, loss, tr,
		        ctx) < 0)
			goto done;
	if (n_steps) {
		pv = params_of(p, &np);
		bad = !pv || sym__outputs_init(&out, p, s, pv, np, ctx) < 0;
		if (!pv)
			sym__oom(ctx);
		if (sym__check_agree(ep, ctx, bad) < 0 ||
		    gather_compare(x, ep, n, p, s, &out, &sg, o, &tr->params,
		        ctx) < 0)
			goto done;
	}
	ret = 0;
done:
	sym__outputs_clear(&out);
	free(pv);
	sym_exec_free(x);
	sym_exec_free(sg.x1);
	sym_slices_free(sg.s1);
	sym_slices_free(s);
	sym_comm_detach(ep);
	return ret;
}

/*
 * Train "p" on every rank of the communicator "comm" (threads or mpi) and
 * "single" alongside for the "n_steps" bindings "steps", one step each,
 * from the params initialized with o->seed (options "o", NULL: the
 * defaults), and compare (see the top of the file) into "tr"; store the
 * sharded first output of every step in "loss" when it is not NULL.
 * Return 0 when every step ran (the report says whether they agree), -1
 * with the error on "ctx" otherwise.
 */
int
sym_exec_train_check(sym_ctx *ctx, const sym_plan *p, const sym_plan *single,
    sym_communicator *comm, const sym_binding *const *steps, size_t n_steps,
    const sym_exec_options *o, double *loss, sym_train_report *tr)
{
	struct shared sh;
	struct single sg;
	struct rank *ranks;
	pthread_t *th;
	sym_slices *s;
	sym_exec_options opt;
	int n, started, ret = -1;
	int blas_threads = 0;

	if (!p || !single || !comm || !tr || !ctx || (n_steps && !steps))
		return -1;
	if (sym__exec_options(ctx, "train check", o, &opt) < 0)
		return -1;
	o = &opt;
	memset(tr, 0, sizeof(*tr));
	tr->first_mismatch = SIZE_MAX;
	n = sym_comm_n_ranks(comm);
	if (n != sym_plan_n_ranks(p) || sym_plan_n_ranks(single) != 1) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "train check: the plan is for %lld ranks, the "
		    "communicator has %d",
		    (long long)sym_plan_n_ranks(p), n);
		return -1;
	}
	if (!strcmp(sym_comm_backend(comm), "mpi"))
		return train_mpi(p, single, comm, steps, n_steps, o, loss, tr,
		    ctx);
	memset(&sh, 0, sizeof(sh));
	memset(&sg, 0, sizeof(sg));
	sh.p = p;
	sh.comm = comm;
	sh.seed = o->seed;
	sh.n = n;
	sg.plan = single;
	ranks = sym__calloc(ctx, (size_t)n, sizeof(*ranks));
	th = sym__calloc(ctx, (size_t)n, sizeof(*th));
	sh.failed = sym__calloc(ctx, (size_t)n, sizeof(*sh.failed));
	s = sym_slices_new(p);
	sg.s1 = sym_slices_new(single);
	sg.x1 = sym_exec_new(ctx, single, NULL);
	if (!ranks || !th || !sh.failed || !s || !sg.s1 || !sg.x1 ||
	    pthread_barrier_init(&sh.bar, NULL, (unsigned)n + 1) != 0) {
		if (!sym_ctx_last_error(ctx))
			sym__oom(ctx);
		goto done;
	}
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	blas_threads = sym__blas_one_thread();
	started = start(&sh, ranks, th, n, ctx);
	if (started == n) {
		ret = train_steps(&sh, ranks, &sg, s, steps, n_steps, o, loss,
		    tr, ctx);
		order(&sh, QUIT);
	}
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	sym__blas_restore(blas_threads);
	pthread_barrier_destroy(&sh.bar);
	pthread_mutex_destroy(&sh.mu);
	pthread_cond_destroy(&sh.cv);
	for (int k = 0; k < started; k++) {
		sym_exec_free(ranks[k].x);
		sym_ctx_free(ranks[k].ctx);
	}
done:
	sym_exec_free(sg.x1);
	sym_slices_free(sg.s1);
	sym_slices_free(s);
	free(sh.failed);
	free(th);
	free(ranks);
	return ret;
}
