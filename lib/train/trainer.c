/* SPDX-License-Identifier: MIT */
/*
 * The trainer (sym_trainer(3)): a sharded plan trained on a dataset, its
 * executors living across steps. On the threads backend each rank is a
 * thread of the trainer that waits for a job (initialize, step,
 * evaluate, gather or set a value) at a barrier with the caller's
 * thread; on mpi this process is one rank and runs the jobs itself.
 * A single rank on threads runs its jobs in the caller's thread, as on
 * mpi: a hand-off to another thread at every job would cost more than
 * the work of a small step.
 * The ranks agree on failures before every collective part of a job
 * (through a barrier of the ranks on threads, sym_comm_agree on mpi), so
 * a rank that fails never leaves the others waiting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard/grad.h>

#include "exec/exec_private.h"
#include "train/trainer_private.h"

/* Agree among the ranks of the trainer of "r" on whether one failed
 * ("bad": this one, with its error on its context); return 0 when none
 * did, -1 otherwise (the same on every rank). */
int
sym__trank_agree(struct sym__trank *r, int bad)
{
	sym_trainer *t = r->t;
	sym_error code = SYM_OK;

	if (t->inline_rank) {
		r->failed |= bad;
		return r->failed ? -1 : 0;
	}
	if (!t->mpi) {
		int any = 0;

		/* The second barrier keeps a rank's next verdict out of this
		 * one's reading. */
		r->failed |= bad;
		pthread_barrier_wait(&t->rbar);
		for (int k = 0; k < t->n_local; k++)
			any |= t->rank[k].failed != 0;
		pthread_barrier_wait(&t->rbar);
		return any ? -1 : 0;
	}
	if (bad) {
		code = sym_ctx_last_error(r->ctx);
		if (code == SYM_OK)
			code = SYM_EINTERNAL;
	}
	return sym_comm_agree(r->ep, code, NULL) < 0 ? -1 : 0;
}

/* Make room for "bytes" bytes in the gathering buffer of "r"; 0 or -1. */
static int
whole_reserve(struct sym__trank *r, size_t bytes)
{
	void *p;

	if (bytes <= r->whole_cap)
		return 0;
	p = realloc(r->whole, bytes);
	if (!p) {
		sym__oom_bytes(r->ctx, 1, bytes, "trainer: a gathered value");
		return -1;
	}
	r->whole = p;
	r->whole_cap = bytes;
	return 0;
}

/* Prepare rank "r" for the bound slices and read its rows of the
 * current batch; agree; run (forward only when "forward"); agree.
 * Return 0 or -1. */
static int
job_batch(struct sym__trank *r, int forward)
{
	sym_trainer *t = r->t;
	int bad = !r->x || sym_exec_prepare(r->x, t->s) < 0 ||
	    sym__trainer_read(t, r->x, t->p, t->s, r->k, 0) < 0;

	if (sym__trank_agree(r, bad) < 0)
		return -1;
	bad = (forward ? sym_exec_run_forward(r->x) : sym_exec_run(r->x)) < 0;
	return sym__trank_agree(r, bad);
}

/* Gather value "name" ("bytes" bytes whole) of rank "r" into its
 * buffer; 0 or -1 (the same on every rank). */
static int
job_gather(struct sym__trank *r, const char *name, size_t bytes)
{
	int bad = !r->x || whole_reserve(r, bytes ? bytes : 1) < 0;

	if (sym__trank_agree(r, bad) < 0)
		return -1;
	return sym_exec_gather_whole(r->x, name, r->whole, bytes);
}

/* Run the current job of the trainer on rank "r"; 0 or -1. */
static int
rank_job(struct sym__trank *r)
{
	sym_trainer *t = r->t;
	int bad;

	switch (t->job) {
	case SYM__JOB_INIT:
		bad = !r->x || sym_exec_prepare(r->x, t->s) < 0 ||
		    sym_exec_init_params(r->x, t->o.seed) < 0;
		return sym__trank_agree(r, bad);
	case SYM__JOB_PREPARE:
		bad = !r->x || sym_exec_prepare(r->x, t->s) < 0;
		return sym__trank_agree(r, bad);
	case SYM__JOB_STEP:
		return job_batch(r, 0);
	case SYM__JOB_EVAL:
		if (job_batch(r, 1) < 0)
			return -1;
		return t->scores
		    ? job_gather(r, sym_value_name(t->scores), t->job_bytes)
		    : 0;
	case SYM__JOB_GATHER:
		return job_gather(r, t->job_name, t->job_bytes);
	case SYM__JOB_SWITCH:
		return sym__switch_job(r);
	case SYM__JOB_SET:
		bad = !r->x ||
		    sym_exec_set_whole(r->x, t->job_name, t->job_whole,
		        t->job_bytes) < 0;
		return sym__trank_agree(r, bad);
	default:
		return 0;
	}
}

/* The thread of the rank "arg" (a struct sym__trank): attach, make the
 * executor, then run jobs until told to quit; return NULL. */
static void *
rank_main(void *arg)
{
	struct sym__trank *r = arg;
	sym_trainer *t = r->t;

	pthread_mutex_lock(&t->mu);
	while (t->go == 0)
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
	if (t->go < 0)
		return NULL;
	r->ctx = sym_ctx_new();
	if (r->ctx && (r->ep = sym_comm_attach(r->ctx, t->comm, r->k)))
		r->x = sym_exec_new(r->ctx, t->p, r->ep);
	for (;;) {
		pthread_barrier_wait(&t->bar);
		if (t->job == SYM__JOB_QUIT)
			break;
		r->failed = 0;
		pthread_barrier_wait(&t->rbar);
		if (rank_job(r) < 0 && !r->failed)
			r->failed = 2; /* another rank's failure */
		pthread_barrier_wait(&t->bar);
	}
	sym__switch_rank_free(r);
	sym_exec_free(r->x);
	r->x = NULL;
	sym_comm_detach(r->ep);
	return NULL;
}

/* Copy onto the trainer's context the error of the rank of "t" that
 * failed on its own first (else of any failed rank), prefixed by its
 * rank unless it names it already; return -1. */
static int
rank_failure(sym_trainer *t)
{
	for (int pass = 1; pass <= 2; pass++)
		for (int k = 0; k < t->n_local; k++) {
			const sym_ctx *from = t->rank[k].ctx;
			char prefix[32];
			const char *msg;
			sym_loc loc;

			if (!t->rank[k].failed ||
			    (pass == 1 && t->rank[k].failed != 1))
				continue;
			if (!from) {
				sym__error(t->ctx, SYM_ENOMEM, NULL,
				    "rank %d: no context", k);
				return -1;
			}
			loc = sym_ctx_last_location(from);
			snprintf(prefix, sizeof(prefix), "rank %d: ", k);
			msg = sym_ctx_last_message(from);
			sym__error(t->ctx, sym_ctx_last_error(from),
			    loc.file ? &loc : NULL, "%s%s",
			    strncmp(msg, prefix, strlen(prefix)) ? prefix : "",
			    msg);
			return -1;
		}
	sym__error(t->ctx, SYM_EINTERNAL, NULL, "trainer: a rank failed");
	return -1;
}

/* Have every rank of "t" run "job"; return 0, or -1 with the error of
 * the failing rank on the trainer's context. */
int
sym__trainer_run(sym_trainer *t, enum sym__job job)
{
	t->job = job;
	if (t->mpi) {
		t->rank[0].failed = 0;
		return rank_job(&t->rank[0]);
	}
	if (t->inline_rank) {
		struct sym__trank *r = &t->rank[0];

		r->failed = 0;
		if (rank_job(r) == 0)
			return 0;
		r->failed = 1;
		return rank_failure(t);
	}
	pthread_barrier_wait(&t->bar);
	if (job == SYM__JOB_QUIT)
		return 0;
	pthread_barrier_wait(&t->bar);
	for (int k = 0; k < t->n_local; k++)
		if (t->rank[k].failed)
			return rank_failure(t);
	return 0;
}

/* Bind the batch symbol of "t" to "rows" (and nothing else) on "p" into
 * "s"; without a batch symbol, check that "rows" is the graph's own
 * batch and bind the rest. 0, or -1 with the reason in
 * sym__trainer_bind_error (or, out of memory, on the trainer's
 * context). */
int
sym__trainer_bind(sym_trainer *t, sym_slices *s, const sym_plan *p,
    int64_t rows)
{
	t->bind_why[0] = '\0';
	if (!t->batch_sym && rows != t->fixed_batch) {
		snprintf(t->bind_why, sizeof(t->bind_why),
		    "the graph has no batch symbol: %s%s%severy batch is %lld "
		    "samples",
		    t->fixed_from ? "input " : "",
		    t->fixed_from ? sym_value_name(t->fixed_from) : "",
		    t->fixed_from ? " says " : "", (long long)t->fixed_batch);
		return -1;
	}
	if (t->batch_sym && sym_binding_set(t->binding, t->batch_sym, rows) < 0)
		return -1;
	if (t->seq_sym &&
	    sym_binding_set(t->binding, t->seq_sym, t->cur_seq) < 0)
		return -1;
	return sym_plan_bind(p, t->binding, s);
}

/* Return why the last sym__trainer_bind of "t" into "s" failed. */
const char *
sym__trainer_bind_error(const sym_trainer *t, const sym_slices *s)
{
	return t->bind_why[0] ? t->bind_why : sym_slices_error(s);
}

/* Tell the rank threads of "t" to run (1) or give up (-1). */
static void
set_go(sym_trainer *t, int go)
{
	pthread_mutex_lock(&t->mu);
	t->go = go;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

/* Start the rank threads of "t" and let them go when all started; 0, or
 * -1 with an error on the trainer's context (those started give up). */
static int
start_threads(sym_trainer *t)
{
	if (pthread_barrier_init(&t->bar, NULL, (unsigned)t->n_local + 1) !=
	    0) {
		sym__error(t->ctx, SYM_ENOMEM, NULL, "trainer: no barrier");
		return -1;
	}
	if (pthread_barrier_init(&t->rbar, NULL, (unsigned)t->n_local) != 0) {
		pthread_barrier_destroy(&t->bar);
		sym__error(t->ctx, SYM_ENOMEM, NULL, "trainer: no barrier");
		return -1;
	}
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	t->have_bar = 1;
	for (int k = 0; k < t->n_local; k++) {
		int rc =
		    pthread_create(&t->th[k], NULL, rank_main, &t->rank[k]);

		if (rc != 0) {
			sym__thread_start_error(t->ctx, "trainer", k,
			    t->n_local, rc);
			set_go(t, -1);
			return -1;
		}
		t->n_started = k + 1;
	}
	set_go(t, 1);
	return 0;
}

/* Tell the rank threads of "t" to quit (when they run) and join them. */
static void
stop_threads(sym_trainer *t)
{
	if (!t->have_bar)
		return;
	if (t->go > 0)
		sym__trainer_run(t, SYM__JOB_QUIT);
	for (int k = 0; k < t->n_started; k++)
		pthread_join(t->th[k], NULL);
	pthread_barrier_destroy(&t->bar);
	pthread_barrier_destroy(&t->rbar);
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	t->have_bar = 0;
}

/* Free "t" (NULL: nothing): stop its ranks, free what it holds. */
void
sym_trainer_free(sym_trainer *t)
{
	if (!t)
		return;
	stop_threads(t);
	for (int k = 0; t->rank && k < t->n_local; k++) {
		struct sym__trank *r = &t->rank[k];

		if (t->mpi || t->inline_rank) {
			sym__switch_rank_free(r);
			sym_exec_free(r->x);
			sym_comm_detach(r->ep);
		}
		if (!t->mpi)
			sym_ctx_free(r->ctx);
		free(r->whole);
	}
	sym__switch_free(t);
	sym__blas_restore(t->blas_threads);
	sym_exec_free(t->x1);
	sym_slices_free(t->s1);
	sym_slices_free(t->s);
	sym_binding_free(t->binding);
	free(t->rank);
	free(t->th);
	free(t->feed);
	free(t->order);
	free(t->rows);
	sym__seq_free(&t->train_q);
	sym__seq_free(&t->eval_q);
	free(t->batch);
	free(t->cmp);
	free(t);
}

/* Copy the options "o" into "t" (its batch sizes included); 0, or -1
 * with an error on "ctx". */
static int
copy_options(sym_trainer *t, const sym_train_options *o, sym_ctx *ctx)
{
	memset(&t->o, 0, sizeof(t->o));
	t->o.size = sizeof(t->o);
	if (o) {
		if (sym__options_size(ctx, o->size, sizeof(*o), "trainer",
		        "options", "SYM_TRAIN_OPTIONS_INIT") < 0)
			return -1;
		memcpy(&t->o, o, o->size);
		t->o.size = sizeof(t->o);
	}
	if (t->o.tokens_per_batch < 0) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "trainer: --tokens-per-batch %lld: must be positive",
		    (long long)t->o.tokens_per_batch);
		return -1;
	}
	if (!t->o.batch || t->o.n_batch == 0) {
		t->o.batch = NULL;
		t->o.n_batch = 0;
		return 0; /* set by default_batches */
	}
	t->batch =
	    sym__realloc_array(ctx, NULL, t->o.n_batch, sizeof(*t->batch));
	if (!t->batch)
		return -1;
	memcpy(t->batch, t->o.batch, t->o.n_batch * sizeof(*t->batch));
	t->o.batch = t->batch;
	for (size_t i = 0; i < t->o.n_batch; i++)
		if (t->batch[i] < 1) {
			sym__error(ctx, SYM_EINVAL, NULL,
			    "trainer: batch size %lld: must be positive",
			    (long long)t->batch[i]);
			return -1;
		}
	return 0;
}

/* Check the plan "p" of "t" and the communicator; 0, or -1 with an
 * error on the trainer's context. */
static int
check_plan(sym_trainer *t, const sym_plan *p)
{
	const sym_value *loss;

	if (!p) {
		if (sym_ctx_last_error(t->ctx) == SYM_OK)
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "trainer: no plan");
		return -1;
	}
	t->g = sym_plan_graph(p);
	if (t->n_ranks != sym_plan_n_ranks(p)) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: the plan is for %lld ranks, the communicator "
		    "has %d",
		    (long long)sym_plan_n_ranks(p), t->n_ranks);
		return -1;
	}
	loss = sym_graph_loss(t->g);
	if (!sym_graph_is_training(t->g) || !loss) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: the graph minimizes no loss (a training graph "
		    "has 'minimize LOSS with OPTIMIZER(...)')");
		return -1;
	}
	for (size_t i = 0; i < sym_graph_n_outputs(t->g); i++)
		if (sym_graph_output(t->g, i) == loss)
			return 0;
	sym__error(t->ctx, SYM_EINVAL, NULL,
	    "trainer: the loss '%s' is not an output of the graph (add "
	    "'output %s')",
	    sym_value_name(loss), sym_value_name(loss));
	return -1;
}

/* Bind "s" of the plan "p" of "t" for the first batch it runs: the first
 * batch size, or the rows of the training data when it has fewer and the
 * plan admits them, so that the buffers the first step prepares follow
 * the rows a batch delivers, not the nominal size; 0 or -1. */
static int
bind_first(sym_trainer *t, sym_slices *s, const sym_plan *p)
{
	int64_t n = t->train ? sym_dataset_n_rows(t->train) : 0;

	if (t->seq_sym)
		return sym__seq_first_bind(t, s, p);
	if (n > 0 && n < t->batch[0] && sym__trainer_bind(t, s, p, n) == 0)
		return 0;
	return sym__trainer_bind(t, s, p, t->batch[0]);
}

/* Give "t" its default batch sizes when the options gave none: the
 * graph's own batch without a batch symbol, else SYM_TRAIN_BATCH; 0 or
 * -1. */
static int
default_batches(sym_trainer *t)
{
	if (t->o.n_batch)
		return 0;
	t->batch = sym__alloc(t->ctx, sizeof(*t->batch));
	if (!t->batch)
		return -1;
	t->batch[0] = t->batch_sym ? SYM_TRAIN_BATCH : t->fixed_batch;
	t->o.batch = t->batch;
	t->o.n_batch = 1;
	return 0;
}

/* Check every batch size of "t" against the plan (each must bind); 0,
 * or -1 with an error naming the size and the declaration it breaks. */
static int
check_batches(sym_trainer *t)
{
	if (default_batches(t) < 0)
		return -1;
	if (t->o.tokens_per_batch && !t->seq_sym) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "--tokens-per-batch: the data has no sequences (a text: "
		    "or tokens: corpus)");
		return -1;
	}
	for (size_t i = 0; !t->seq_sym && i < t->o.n_batch; i++)
		if (sym__trainer_bind(t, t->s, t->p, t->batch[i]) < 0) {
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "batch size %lld: %s", (long long)t->batch[i],
			    sym__trainer_bind_error(t, t->s));
			return -1;
		}
	return bind_first(t, t->s, t->p);
}

/* Return "h" followed by the string "s" (NULL: empty) and its NUL. */
static uint64_t
hash_str(uint64_t h, const char *s)
{
	return sym__fnv1a(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* Return "h" followed by the double "x". */
static uint64_t
hash_double(uint64_t h, double x)
{
	return sym__fnv1a(h, &x, sizeof(x));
}

/* Return the fingerprint of what the graph "g" computes beyond its
 * plan's listing: its optimizer, every operator's attributes, every
 * value's initializer and whether it is frozen. Graphs parsed from equal texts
 * have equal fingerprints, whatever their comments and spacing. */
uint64_t
sym__graph_fingerprint(const sym_graph *g)
{
	uint64_t h = SYM__FNV_BASIS;
	sym_optimizer opt;

	if (sym_graph_optimizer(g, &opt) == 0) {
		int32_t k = (int32_t)opt.kind | (opt.nesterov != 0) << 8;

		h = sym__fnv1a(h, &k, sizeof(k));
		h = hash_double(h, opt.lr);
		h = hash_double(h, opt.momentum);
		h = hash_double(h, opt.dampening);
		h = hash_double(h, opt.weight_decay);
		h = hash_double(h, opt.beta1);
		h = hash_double(h, opt.beta2);
		h = hash_double(h, opt.eps);
	}
	for (size_t i = 0; i < sym_graph_n_nodes(g); i++) {
		const sym_node *n = sym_graph_node(g, i);
		char *a = sym_attrs_to_str(sym_node_attrs(n));

		h = hash_str(h, sym_node_op_name(n));
		h = hash_str(h, a);
		free(a);
	}
	for (size_t i = 0; i < sym_graph_n_values(g); i++) {
		const sym_value *v = sym_graph_value(g, i);
		sym_init in;
		int32_t k;

		if (sym_value_get_init(v, &in) < 0)
			continue;
		k = (int32_t)in.kind | sym_value_is_frozen(v) << 8;
		h = hash_str(h, sym_value_name(v));
		h = sym__fnv1a(h, &k, sizeof(k));
		h = hash_double(h, in.value);
		h = hash_double(h, in.sigma);
		h = hash_double(h, in.mean);
		h = hash_double(h, in.scale);
		h = hash_double(h, in.gain);
		h = hash_double(h, in.negative_slope);
	}
	return h;
}

/* On mpi, check that every process of "t" has the same "mine" (a
 * fingerprint of "what"); 0, or -1 with an error naming the first
 * process that differs from process 0 (on every process). A
 * collective. */
int
sym__trainer_agree_hash(sym_trainer *t, uint64_t mine, const char *what)
{
	uint64_t *all;
	int bad;

	if (!t->mpi)
		return 0;
	all =
	    sym__realloc_array(t->ctx, NULL, (size_t)t->n_ranks, sizeof(mine));
	if (sym__trank_agree(&t->rank[0], !all) < 0) {
		free(all);
		return -1;
	}
	bad = sym_comm_all_gather(t->rank[0].ep, NULL, 0, &mine, all,
	          sizeof(mine)) < 0;
	for (int k = 1; !bad && k < t->n_ranks; k++)
		if (all[k] != all[0]) {
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "trainer: process %d disagrees with process 0 on "
			    "%s: every process must read the same contents",
			    k, what);
			bad = 1;
		}
	free(all);
	return bad ? -1 : 0;
}

/* The fields every process of an mpi trainer must agree on. */
enum {
	AG_PLAN,
	AG_GRAPH,
	AG_TRAIN,
	AG_TEST,
	AG_SEED,
	AG_BATCH,
	AG_FLAGS,
	AG_CALLER,
	AG_N
};

static const char *const agree_name[AG_N] = { "the plan",
	"the graph (an operator's attribute, the optimizer, an initializer "
	"or a frozen param)",
	"the training data", "the test data", "the seed", "the batch sizes",
	"shuffling, dropping the remainder, checking or allowing non-finite "
	"losses",
	"the options of the caller" };

/* Fill "f" with what the processes of "t" must agree on. */
static void
agree_fields(const sym_trainer *t, uint64_t f[AG_N])
{
	f[AG_PLAN] = sym_plan_fingerprint(t->p);
	f[AG_GRAPH] = sym__graph_fingerprint(t->g);
	f[AG_TRAIN] = sym_dataset_fingerprint(t->train);
	f[AG_TEST] = sym_dataset_fingerprint(t->test);
	f[AG_SEED] = t->o.seed;
	f[AG_BATCH] = sym__fnv1a(SYM__FNV_BASIS, t->batch,
	    t->o.n_batch * sizeof(*t->batch));
	f[AG_BATCH] = sym__fnv1a(f[AG_BATCH], &t->o.tokens_per_batch,
	    sizeof(t->o.tokens_per_batch));
	f[AG_FLAGS] = (uint64_t)(t->o.no_shuffle != 0) |
	    (uint64_t)(t->o.pad_to_max != 0) << 62 |
	    (uint64_t)(t->o.drop_remainder != 0) << 1 |
	    (uint64_t)(t->o.single != NULL) << 2 |
	    (uint64_t)t->o.check_every << 3 |
	    (uint64_t)(t->o.allow_nonfinite != 0) << 63;
	f[AG_CALLER] = t->o.agree;
}

/* On mpi, check that every process of "t" (rank "r") runs with the same
 * plan, data and options; 0, or -1 with an error naming the first
 * process and field that differ from process 0 (on every process). */
static int
agree_processes(sym_trainer *t, struct sym__trank *r)
{
	uint64_t mine[AG_N], *all;
	int bad;

	all =
	    sym__realloc_array(t->ctx, NULL, (size_t)t->n_ranks, sizeof(mine));
	if (sym__trank_agree(r, !all) < 0) {
		free(all);
		return -1;
	}
	agree_fields(t, mine);
	bad = sym_comm_all_gather(r->ep, NULL, 0, mine, all, sizeof(mine)) < 0;
	for (int k = 1; !bad && k < t->n_ranks; k++)
		for (int f = 0; !bad && f < AG_N; f++)
			if (all[(size_t)k * AG_N + (size_t)f] != all[f]) {
				sym__error(t->ctx, SYM_EINVAL, NULL,
				    "trainer: process %d disagrees with "
				    "process 0 on %s: every process must "
				    "run the same command on the same files",
				    k, agree_name[f]);
				bad = 1;
			}
	free(all);
	return bad ? -1 : 0;
}

/* Set up the executors of "t" on its ranks (threads started, or this
 * process's rank) and initialize their params; 0 or -1. */
static int
setup_ranks(sym_trainer *t)
{
	int reserve;

	if (t->mpi) {
		t->rank[0].x = sym_exec_new(t->ctx, t->p, t->rank[0].ep);
	} else if (t->inline_rank) {
		struct sym__trank *r = &t->rank[0];

		*r = (struct sym__trank){ .t = t, .k = 0 };
		r->ctx = sym_ctx_new();
		if (r->ctx && (r->ep = sym_comm_attach(r->ctx, t->comm, 0)))
			r->x = sym_exec_new(r->ctx, t->p, r->ep);
	} else {
		for (int k = 0; k < t->n_local; k++)
			t->rank[k] = (struct sym__trank){ .t = t, .k = k };
		if (start_threads(t) < 0)
			return -1;
	}
	/* On sequences every bucket is first prepared, the buffers and
	 * scratch areas sized for all of them (sym__seq_prepare_buckets),
	 * then bound back to the first batch. */
	reserve = t->o.search ? 1 : sym__seq_prepare_buckets(t, t->s, t->p);
	if (reserve < 0 && bind_first(t, t->s, t->p) < 0)
		return -1;
	if (sym__trainer_run(t, SYM__JOB_INIT) < 0)
		return -1;
	return reserve == 0 ? bind_first(t, t->s, t->p) : 0;
}

/* Set up the single-device side of "t" (o.single, on mpi on process 0
 * only): bound to the first batch size, params initialized; 0 or -1. */
static int
setup_single(sym_trainer *t)
{
	const sym_plan *single = t->o.single;

	if (!single || (t->mpi && t->rank[0].k != 0))
		return 0;
	if (sym_plan_n_ranks(single) != 1 || sym_plan_graph(single) != t->g) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: the plan to check against must be the "
		    "single-device plan of the same graph");
		return -1;
	}
	t->s1 = sym_slices_new(single);
	t->x1 = sym_exec_new(t->ctx, single, NULL);
	if (!t->s1 || !t->x1)
		return -1;
	if (bind_first(t, t->s1, single) < 0) {
		sym__error(t->ctx, SYM_EINVAL, NULL, "single device: %s",
		    sym__trainer_bind_error(t, t->s1));
		return -1;
	}
	if (sym_exec_prepare(t->x1, t->s1) < 0 ||
	    sym_exec_init_params(t->x1, t->o.seed) < 0)
		return -1;
	return 0;
}

/* Check the arguments of "t" and bind its inputs to the data, locally;
 * 0 or -1. */
static int
setup_local(sym_trainer *t, const sym_plan *p, const sym_train_options *o)
{
	if (copy_options(t, o, t->ctx) < 0 || check_plan(t, p) < 0)
		return -1;
	t->binding = sym_binding_new(t->ctx);
	t->s = sym_slices_new(p);
	if (!t->binding || !t->s || sym__trainer_feeds(t) < 0 ||
	    check_batches(t) < 0 || sym__switch_setup(t) < 0)
		return -1;
	return 0;
}

/* Return a new trainer of the plan "p" on the communicator "comm" with
 * the datasets "train" and "test" (either may be NULL) and the options
 * "o" (see sym_trainer(3)): a collective on mpi; NULL with an error on
 * "ctx". */
sym_trainer *
sym_trainer_new(sym_ctx *ctx, const sym_plan *p, sym_communicator *comm,
    sym_dataset *train, sym_dataset *test, const sym_train_options *o)
{
	sym_trainer *t;
	int bad;

	if (!ctx)
		return NULL;
	if (!comm) {
		sym__error(ctx, SYM_EINVAL, NULL, "trainer: no communicator");
		return NULL;
	}
	t = sym__alloc(ctx, sizeof(*t));
	if (!t)
		return NULL;
	t->ctx = ctx;
	t->p = p;
	t->comm = comm;
	t->train = train;
	t->test = test;
	t->label_feed = SIZE_MAX;
	t->n_ranks = sym_comm_n_ranks(comm);
	t->mpi = !strcmp(sym_comm_backend(comm), "mpi");
	t->n_local = t->mpi ? 1 : t->n_ranks;
	t->inline_rank = !t->mpi && t->n_local == 1;
	t->rank =
	    sym__realloc_array(ctx, NULL, (size_t)t->n_local, sizeof(*t->rank));
	t->th =
	    sym__realloc_array(ctx, NULL, (size_t)t->n_local, sizeof(*t->th));
	if (!t->rank || !t->th) {
		sym_trainer_free(t);
		return NULL;
	}
	memset(t->rank, 0, (size_t)t->n_local * sizeof(*t->rank));
	if (t->mpi) {
		t->rank[0] = (struct sym__trank){
			.t = t, .k = sym_comm_rank(comm), .ctx = ctx
		};
		t->rank[0].ep = sym_comm_attach(ctx, comm, t->rank[0].k);
		if (!t->rank[0].ep) {
			sym_trainer_free(t);
			return NULL;
		}
	}
	bad = setup_local(t, p, o) < 0;
	if (t->mpi) {
		if (sym__trank_agree(&t->rank[0], bad) < 0 ||
		    agree_processes(t, &t->rank[0]) < 0)
			bad = 1;
	}
	if (bad) {
		sym_trainer_free(t);
		return NULL;
	}
	t->blas_threads = sym__blas_one_thread();
	bad = setup_ranks(t) < 0 || setup_single(t) < 0;
	if (t->mpi && sym__trank_agree(&t->rank[0], bad) < 0)
		bad = 1;
	if (bad) {
		sym_trainer_free(t);
		return NULL;
	}
	return t;
}
