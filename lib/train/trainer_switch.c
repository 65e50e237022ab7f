/* SPDX-License-Identifier: MIT */
/*
 * Plan switching (DESIGN section 19, sym_trainer(3)): a trainer given
 * the search of a "parallel auto" graph (o.search) holds one plan per
 * distinct plan of the search's pieces, compiled when a batch first
 * runs on it, and every rank one executor per plan that ran. When the
 * plan changes, every param and optimizer state moves from its layout
 * in the old plan to its layout in the new one through the
 * redistribution planner (sym_redist_plan), each rank keeping only its
 * block; before any step ran and any checkpoint was loaded the params
 * are initialized on the new plan instead (the same numbers: they depend
 * on the seed and the global index only).
 *
 * The rule. When an epoch's batches are made, each gets its plan, in
 * order, starting from the current plan "cur":
 *   - the batch's own plan "want" is that of the piece covering its
 *     (b, s); when want is cur, it stays;
 *   - when cur does not fit the batch (its memory at the batch's sizes
 *     exceeds the search's cap), it switches to want;
 *   - otherwise it switches only when the modelled saving over the run
 *     of consecutive batches whose plan is want, the sum over them of
 *     T_cur - T_want (the search's time expressions at each batch's
 *     sizes), exceeds the modelled time of the switch (the alpha-beta
 *     time of the redistribution steps of every param and state, on the
 *     search's topology; 0 while the params are fresh).
 * The epoch's modelled time this way (steps and switches) is then
 * compared with staying on each single plan that fits every batch (the
 * switch into it included): when one is cheaper, the whole epoch runs on
 * it. So by the model an epoch is never slower than the best single
 * plan. Evaluation stays on the current plan unless a batch does not fit
 * it. With o.no_switch every batch stays on the current plan unless it
 * does not fit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <symshard/grad.h>

#include "exec/exec_private.h"
#include "shard/search_private.h"
#include "train/trainer_private.h"

/* Return the plan of "t" for the search entry "e", adding it (its
 * sharding from piece "i"); SIZE_MAX with an error on failure. */
static size_t
plan_of_entry(sym_trainer *t, size_t e, size_t i)
{
	sym_search *s = t->o.search;
	struct sym__tplan *tp;

	for (size_t k = 0; k < t->n_plans; k++)
		if (t->plans[k].entry == e)
			return k;
	tp = &t->plans[t->n_plans];
	memset(tp, 0, sizeof(*tp));
	tp->entry = e;
	tp->sh = sym_search_sharding(s, i);
	if (!tp->sh)
		return SIZE_MAX;
	tp->fs = s->entry[e].fs;
	tp->mem = s->entry[e].mem;
	return t->n_plans++;
}

/* Record the params and optimizer state of the graph of "t" (every
 * value of kind param) in t->pv; 0 or -1. */
static int
list_params(sym_trainer *t)
{
	size_t nv = sym_graph_n_values(t->g);

	t->pv = sym__realloc_array(t->ctx, NULL, nv ? nv : 1, sizeof(*t->pv));
	if (!t->pv)
		return -1;
	for (size_t i = 0; i < nv; i++) {
		const sym_value *v = sym_graph_value(t->g, i);

		if (sym_value_get_kind(v) == SYM_VALUE_PARAM)
			t->pv[t->n_pv++] = v;
	}
	return 0;
}

/* Set up plan switching on "t" when its options give a search: the
 * distinct plans of its pieces (sharded, not compiled), "p" the plan of
 * piece o.search_piece. 0, or -1 with an error. */
int
sym__switch_setup(sym_trainer *t)
{
	sym_search *s = t->o.search;
	size_t np, init;

	t->from_plan = SIZE_MAX;
	if (s && !t->seq_sym)
		t->o.search = s = NULL; /* rows of one shape: one plan */
	if (!s)
		return 0;
	np = sym_search_n_pieces(s);
	if (s->g != t->g || t->o.search_piece >= np ||
	    sym_search_piece_fit(s, t->o.search_piece) == SYM_SEARCH_OVERFLOW) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: plan switching needs a search of the plan's "
		    "graph and a piece of it with a plan");
		return -1;
	}
	t->plans = sym__realloc_array(t->ctx, NULL, np, sizeof(*t->plans));
	t->piece_plan =
	    sym__realloc_array(t->ctx, NULL, np, sizeof(*t->piece_plan));
	t->mb = sym_binding_new(t->ctx);
	if (!t->plans || !t->piece_plan || !t->mb || list_params(t) < 0)
		return -1;
	for (size_t i = 0; i < np; i++) {
		t->piece_plan[i] = SIZE_MAX;
		if (sym_search_piece_fit(s, i) == SYM_SEARCH_OVERFLOW)
			continue;
		t->piece_plan[i] = plan_of_entry(t, s->piece[i].entry, i);
		if (t->piece_plan[i] == SIZE_MAX)
			return -1;
	}
	t->moves = sym__realloc_array(t->ctx, NULL, t->n_plans * t->n_plans,
	    sizeof(*t->moves));
	if (!t->moves)
		return -1;
	memset(t->moves, 0, t->n_plans * t->n_plans * sizeof(*t->moves));
	init = t->piece_plan[t->o.search_piece];
	t->plans[init].p = (sym_plan *)t->p;
	t->plans[init].s = t->s;
	t->cur_plan = init;
	t->cap = s->cap;
	t->fresh = 1;
	return 0;
}

/* Free what plan switching holds on "t" (after its executors), t->s
 * set back to the slices the trainer made. */
void
sym__switch_free(sym_trainer *t)
{
	for (size_t k = 0; k < t->n_plans; k++)
		if (!t->plans[k].own && t->plans[k].s)
			t->s = t->plans[k].s; /* the trainer's own */
	for (size_t k = 0; k < t->n_plans; k++) {
		if (t->plans[k].own) {
			sym_slices_free(t->plans[k].s);
			sym_plan_free(t->plans[k].p);
		}
		sym_sharding_free(t->plans[k].sh);
	}
	for (size_t k = 0; t->moves && k < t->n_plans * t->n_plans; k++) {
		for (size_t i = 0; t->moves[k].r && i < t->n_pv; i++)
			sym_redist_free(t->moves[k].r[i]);
		free(t->moves[k].r);
	}
	free(t->moves);
	free(t->plans);
	free(t->piece_plan);
	free(t->pv);
	sym_binding_free(t->mb);
}

/* Free the executors of rank "r" other than its current one, and its
 * buffers of moving params. */
void
sym__switch_rank_free(struct sym__trank *r)
{
	for (size_t k = 0; r->xs && k < r->t->n_plans; k++)
		if (r->xs[k] != r->x)
			sym_exec_free(r->xs[k]);
	free(r->xs);
	r->xs = NULL;
	sym__xmove_clear(r->mv);
	free(r->mv);
	r->mv = NULL;
}

/* Return the moves of "t" from plan "a" to plan "b", planned on first
 * use; NULL with an error. */
static struct sym__tmove *
moves(sym_trainer *t, size_t a, size_t b)
{
	struct sym__tmove *m = &t->moves[a * t->n_plans + b];
	const sym_topology *topo = t->o.search->topo;

	if (m->r)
		return m;
	m->r = sym__realloc_array(t->ctx, NULL, t->n_pv ? t->n_pv : 1,
	    sizeof(*m->r));
	if (!m->r)
		return NULL;
	memset(m->r, 0, (t->n_pv ? t->n_pv : 1) * sizeof(*m->r));
	m->seconds = 0;
	for (size_t i = 0; i < t->n_pv; i++) {
		const sym_value *v = t->pv[i];
		const sym_layout *la =
		    sym_sharding_value_layout(t->plans[a].sh, v);
		const sym_layout *lb =
		    sym_sharding_value_layout(t->plans[b].sh, v);

		m->r[i] = la && lb
		    ? sym_redist_plan(la, lb, sym_value_shape(v), topo)
		    : NULL;
		if (!m->r[i]) {
			if (sym_ctx_last_error(t->ctx) == SYM_OK || !la || !lb)
				sym__error(t->ctx, SYM_EINVAL, NULL,
				    "plan switching: no redistribution of "
				    "'%s' between plans %zu and %zu",
				    sym_value_name(v), a, b);
			for (size_t j = 0; j < i; j++)
				sym_redist_free(m->r[j]);
			free(m->r);
			m->r = NULL;
			return NULL;
		}
		for (size_t k = 0; k < sym_redist_n_steps(m->r[i]); k++)
			m->seconds +=
			    sym_redist_step_seconds(m->r[i], k, t->binding);
	}
	return m;
}

/* Return the modelled seconds of switching "t" from plan "a" to "b"
 * ("fresh": nothing to move), -1 with an error. */
static double
switch_cost(sym_trainer *t, size_t a, size_t b, int fresh)
{
	struct sym__tmove *m;

	if (a == b || fresh)
		return 0;
	m = moves(t, a, b);
	return m ? m->seconds : -1;
}

/* Bind the model binding of "t" to the sizes of batch "sb". */
static void
model_bind(sym_trainer *t, const struct sym__seqbatch *sb)
{
	sym_binding_set(t->mb, t->batch_sym, sb->b);
	sym_binding_set(t->mb, t->seq_sym, sb->s);
}

/* Return the modelled seconds of a step of plan "k" of "t" at the
 * model's binding, INFINITY when it does not fit the cap or cannot be
 * evaluated. */
static double
step_seconds(sym_trainer *t, size_t k)
{
	int64_t fs, mem;

	if (sym_expr_eval(t->plans[k].fs, t->mb, &fs) < 0)
		return INFINITY;
	if (t->cap > 0 &&
	    (sym_expr_eval(t->plans[k].mem, t->mb, &mem) < 0 || mem > t->cap))
		return INFINITY;
	return (double)fs * 1e-15;
}

/* Return the plan of the piece of "t" covering the model's binding,
 * SIZE_MAX when none. */
static size_t
covering(sym_trainer *t)
{
	sym_search *s = t->o.search;

	for (size_t i = 0; i < sym_search_n_pieces(s); i++) {
		int in = t->piece_plan[i] != SIZE_MAX;

		for (size_t k = 0; in && k < sym_search_n_symbols(s); k++) {
			int64_t lo, hi, v;

			sym_search_piece_range(s, i, k, &lo, &hi);
			if (sym_binding_get(t->mb, sym_search_symbol(s, k),
			        &v) < 0)
				continue;
			in = v >= lo && (hi < 0 || v <= hi);
		}
		if (in)
			return t->piece_plan[i];
	}
	return SIZE_MAX;
}

/* The model of an epoch's batches: by batch, the seconds of each plan
 * ("sec", n_sb x n_plans) and the covering plan. */
struct emodel {
	double *sec;
	size_t *want;
};

/* Fill "m" for the batches of "q" of "t"; 0, or -1 with an error (a
 * batch no piece covers). */
static int
model_epoch(sym_trainer *t, const struct sym__seqsched *q, struct emodel *m)
{
	size_t n = q->n_sb ? q->n_sb : 1, np = t->n_plans;

	m->sec = sym__realloc_array(t->ctx, NULL, n * np, sizeof(*m->sec));
	m->want = sym__realloc_array(t->ctx, NULL, n, sizeof(*m->want));
	if (!m->sec || !m->want)
		return -1;
	for (size_t j = 0; j < q->n_sb; j++) {
		model_bind(t, &q->sb[j]);
		for (size_t k = 0; k < np; k++)
			m->sec[j * np + k] = step_seconds(t, k);
		m->want[j] = covering(t);
		if (m->want[j] == SIZE_MAX) {
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "plan switching: no piece of the search covers "
			    "%s=%lld, %s=%lld",
			    sym_symbol_name(t->batch_sym),
			    (long long)q->sb[j].b, sym_symbol_name(t->seq_sym),
			    (long long)q->sb[j].s);
			return -1;
		}
	}
	return 0;
}

/* Give the batches of "q" of "t" their plans by the rule (see above),
 * from plan "cur"; return the modelled seconds, -1 with an error. */
static double
by_rule(sym_trainer *t, struct sym__seqsched *q, const struct emodel *m,
    size_t cur)
{
	size_t np = t->n_plans;
	int fresh = t->fresh;
	double total = 0;

	for (size_t j = 0; j < q->n_sb; j++) {
		size_t want = m->want[j], k = cur;
		double c;

		if (want != cur && !isfinite(m->sec[j * np + cur])) {
			k = want;
		} else if (want != cur && !t->o.no_switch) {
			double saving = 0;

			for (size_t i = j; i < q->n_sb && m->want[i] == want;
			     i++)
				saving += m->sec[i * np + cur] -
				    m->sec[i * np + want];
			if ((c = switch_cost(t, cur, want, fresh)) < 0)
				return -1;
			if (saving > c)
				k = want;
		}
		if (k != cur) {
			if ((c = switch_cost(t, cur, k, fresh)) < 0)
				return -1;
			total += c;
			cur = k;
		}
		fresh = 0;
		q->sb[j].plan = cur;
		total += m->sec[j * np + cur];
	}
	return total;
}

/* Run the whole of "q" of "t" on the single plan cheaper by the model
 * than "total" (the rule's), when one is; 0, or -1 with an error. */
static int
best_single(sym_trainer *t, struct sym__seqsched *q, const struct emodel *m,
    double total)
{
	size_t np = t->n_plans, best = SIZE_MAX;

	for (size_t k = 0; k < np; k++) {
		double c = switch_cost(t, t->cur_plan, k, t->fresh), sum;

		if (c < 0)
			return -1;
		sum = c;
		for (size_t j = 0; j < q->n_sb; j++)
			sum += m->sec[j * np + k];
		if (sum < total) {
			total = sum;
			best = k;
		}
	}
	for (size_t j = 0; best != SIZE_MAX && j < q->n_sb; j++)
		q->sb[j].plan = best;
	return 0;
}

/* Give every batch of the schedule "q" of "t" its plan (an evaluation's
 * when "eval"): see the rule above. 0, or -1 with an error. */
int
sym__switch_schedule(sym_trainer *t, struct sym__seqsched *q, int eval)
{
	struct emodel m = { NULL, NULL };
	double total;
	int rc = -1;

	if (!t->o.search)
		return 0;
	if (model_epoch(t, q, &m) < 0)
		goto out;
	if (eval) {
		for (size_t j = 0; j < q->n_sb; j++)
			q->sb[j].plan =
			    isfinite(m.sec[j * t->n_plans + t->cur_plan])
			    ? t->cur_plan
			    : m.want[j];
		rc = 0;
		goto out;
	}
	total = by_rule(t, q, &m, t->cur_plan);
	if (total >= 0 && (t->o.no_switch || best_single(t, q, &m, total) == 0))
		rc = 0;
out:
	free(m.sec);
	free(m.want);
	return rc;
}

/* Compile plan "k" of "t" when it is not; 0, or -1 with an error. */
static int
compile(sym_trainer *t, size_t k)
{
	struct sym__tplan *tp = &t->plans[k];

	if (tp->p)
		return 0;
	tp->p = sym_plan_compile_sharding(tp->sh, 0);
	if (!tp->p)
		return -1;
	tp->own = 1;
	tp->s = sym_slices_new(tp->p);
	if (!tp->s)
		return -1;
	if (sym_plan_n_ranks(tp->p) != t->n_ranks) {
		sym__error(t->ctx, SYM_EINTERNAL, NULL,
		    "plan switching: plan %zu is for %lld ranks", k,
		    (long long)sym_plan_n_ranks(tp->p));
		return -1;
	}
	return 0;
}

/* Make plan "k" the current plan of "t" (t->p, t->s, the feeds'
 * tensors). */
static void
make_current(sym_trainer *t, size_t k)
{
	t->cur_plan = k;
	t->p = t->plans[k].p;
	t->s = t->plans[k].s;
	for (size_t i = 0; i < t->n_feed; i++)
		t->feed[i].t = sym_plan_value_tensor(t->p, t->feed[i].v);
}

/* Before batch "sb" of "t" is bound: make its plan current (compiled
 * when first needed), the switch pending until sym__switch_after. 0, or
 * -1 with an error. */
int
sym__switch_before(sym_trainer *t, const struct sym__seqbatch *sb)
{
	t->switched = 0;
	t->from_plan = SIZE_MAX;
	if (!t->o.search || sb->plan == t->cur_plan)
		return 0;
	if (sb->plan >= t->n_plans || compile(t, sb->plan) < 0 ||
	    (!t->fresh && !moves(t, t->cur_plan, sb->plan)))
		return -1;
	t->from_plan = t->cur_plan;
	make_current(t, sb->plan);
	return 0;
}

/* After the batch is bound on the current plan of "t": move the params
 * there on every rank when a switch is pending (its measured and
 * modelled seconds recorded). 0, or -1 with an error. */
int
sym__switch_after(sym_trainer *t)
{
	double t0 = sym__seconds(), c;

	if (t->from_plan == SIZE_MAX)
		return 0;
	c = switch_cost(t, t->from_plan, t->cur_plan, t->fresh);
	if (c < 0 || sym__trainer_run(t, SYM__JOB_SWITCH) < 0) {
		t->from_plan = SIZE_MAX;
		return -1;
	}
	t->from_plan = SIZE_MAX;
	t->switched = 1;
	t->last_switch = sym__seconds() - t0;
	t->last_modelled = c;
	t->switches++;
	t->switch_seconds += t->last_switch;
	t->switch_modelled += c;
	t->model_run += c;
	return 0;
}

/* Rank "r" of the trainer: the executor of the current plan, made and
 * prepared when first needed, given the params of the plan it switched
 * from (initialized instead when fresh). 0 or -1 (agreed). */
int
sym__switch_job(struct sym__trank *r)
{
	sym_trainer *t = r->t;
	size_t from = t->from_plan, to = t->cur_plan;
	const struct sym__tmove *m =
	    t->fresh ? NULL : &t->moves[from * t->n_plans + to];
	sym_exec *x;
	int bad = 0;

	if (!r->xs) {
		r->xs = calloc(t->n_plans, sizeof(*r->xs));
		r->mv = calloc(1, sizeof(*r->mv));
		if (r->xs)
			r->xs[from] = r->x;
	}
	if (!r->xs || !r->mv) {
		sym__error(r->ctx, SYM_ENOMEM, NULL, "plan switching");
		bad = 1;
	} else if (!r->xs[to]) {
		r->xs[to] = sym_exec_new(r->ctx, t->p, r->ep);
	}
	x = bad ? NULL : r->xs[to];
	bad = !x || sym_exec_prepare(x, t->s) < 0 ||
	    (t->fresh && sym_exec_init_params(x, t->o.seed) < 0);
	if (sym__trank_agree(r, bad) < 0)
		return -1;
	for (size_t i = 0; m && !bad && i < t->n_pv; i++)
		bad =
		    sym__exec_move(r->x, x, t->pv[i], m->r[i],
		        sym_sharding_value_layout(t->plans[from].sh, t->pv[i]),
		        r->mv) < 0;
	if (sym__trank_agree(r, bad) < 0)
		return -1;
	r->x = x;
	return 0;
}

/* Fill the plan switching fields of the step "r" of "t" and account
 * for the step in the model. */
void
sym__switch_account(sym_trainer *t, sym_train_step *r)
{
	struct sym__seqbatch sb;

	t->fresh = 0;
	if (!t->o.search)
		return;
	r->plan = t->cur_plan;
	r->switched = t->switched;
	r->switch_seconds = t->switched ? t->last_switch : 0;
	r->switch_modelled = t->switched ? t->last_modelled : 0;
	t->switched = 0;
	sb.b = t->cur.n;
	sb.s = t->cur_seq;
	model_bind(t, &sb);
	for (size_t k = 0; k < t->n_plans; k++) {
		double sec = step_seconds(t, k);

		t->plans[k].run_seconds += sec;
		if (k == t->cur_plan)
			t->model_run += sec;
	}
}

/* Store in "r" the plan switching of "t" so far; 0, or -1 when "t"
 * switches no plan. */
int
sym_trainer_switching(const sym_trainer *t, sym_train_switching *r)
{
	if (!t || !r || !t->o.search)
		return -1;
	memset(r, 0, sizeof(*r));
	r->n_plans = t->n_plans;
	r->switches = t->switches;
	r->seconds = t->switch_seconds;
	r->modelled = t->switch_modelled;
	r->model_run = t->model_run;
	r->model_best = INFINITY;
	for (size_t k = 0; k < t->n_plans; k++) {
		r->n_compiled += t->plans[k].p != NULL;
		if (t->plans[k].run_seconds < r->model_best) {
			r->model_best = t->plans[k].run_seconds;
			r->best_plan = k;
		}
	}
	return 0;
}

/* Return the first piece of the search of "t" whose plan is "plan",
 * SIZE_MAX when none. */
size_t
sym_trainer_plan_piece(const sym_trainer *t, size_t plan)
{
	for (size_t i = 0;
	     t && t->o.search && i < sym_search_n_pieces(t->o.search); i++)
		if (t->piece_plan[i] == plan)
			return i;
	return SIZE_MAX;
}
