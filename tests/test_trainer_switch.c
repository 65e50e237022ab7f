/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of plan switching (sym_trainer(3), DESIGN section 19):
 * examples/lm_switch.sg, whose search gives different plans for short
 * and long sequences, trained on a corpus whose buckets cross the
 * pieces. Sharded training with switches equals one device at every
 * step (losses and every param and state compared after each step);
 * the plan of every step is the one the rule gives, recomputed here
 * from the search's public answers (piece ranges, time expressions,
 * the layouts of every param in each piece's sharding and the
 * redistribution planner's times), and the switches are counted.
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
#include "testlib.h"
#include "train/trainer_private.h"

#define RANKS 4
#define MAX_STEPS 256

/* The corpus: blocks of records of one length each, in file order, so
 * that with no_shuffle the batches run in blocks of one bucket. */
static const int64_t block_len[] = { 5, 5, 180, 5, 200, 200, 13, 150 };
#define N_BLOCK 8
#define PER_BLOCK 8

/* A test's run: the graph, its search and topology, the plans, the
 * corpus and the trainer. */
struct run {
	sym_ctx *ctx;
	char path[512], spec[600];
	sym_graph *g;
	sym_topology *topo;
	sym_search *s;
	sym_plan *p, *single;
	sym_communicator *comm;
	sym_dataset *train;
	sym_trainer *t;
};

/* Write the corpus into a fresh file of "r" and its specification. */
static void
write_corpus(struct run *r)
{
	const char *tmp = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(r->path, sizeof(r->path), "%s/symshard-switch-XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(r->path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	for (int i = 0; i < N_BLOCK; i++)
		for (int k = 0; k < PER_BLOCK; k++) {
			for (int64_t j = 0; j < block_len[i]; j++)
				fputc('a' + (int)((i * 7 + k + j) % 26), f);
			fputs("\n%\n", f);
		}
	assert_int_equal(fclose(f), 0);
	snprintf(r->spec, sizeof(r->spec), "text:%s", r->path);
}

/* Read, search and compile examples/lm_switch.sg into "r" (the piece
 * that covers the least sizes first), open its corpus. */
static void
setup_run(struct run *r)
{
	sym_search_options so = SYM_SEARCH_OPTIONS_INIT;
	char *text;

	memset(r, 0, sizeof(*r));
	r->ctx = tl_ctx_new();
	text = tl_read_source("examples/lm_switch.sg", NULL);
	r->g = sym_graph_parse(r->ctx, text, "lm_switch.sg");
	free(text);
	assert_non_null(r->g);
	if (sym_graph_n_errors(r->g))
		fail_msg("lm_switch.sg: %s", sym_ctx_last_message(r->ctx));
	/* the default links, devices of 300 GFLOP/s: the plans change
	 * between the buckets of 8 and 200 at b = 4 */
	r->topo = sym_topology_new(r->ctx, 0, 0, 0, 0, 0);
	assert_non_null(r->topo);
	assert_int_equal(sym_topology_set_flops(r->topo, 300e9), 0);
	so.topo = r->topo;
	r->s = sym_graph_search(r->g, &so);
	assert_non_null(r->s);
	assert_int_equal(sym_search_apply(r->s, 0), 0);
	r->p = sym_plan_compile(r->g, 0);
	r->single = sym_plan_compile(r->g, SYM_PLAN_SINGLE);
	assert_non_null(r->p);
	assert_non_null(r->single);
	write_corpus(r);
	r->train = sym_dataset_open(r->ctx, r->spec, SYM_SPLIT_TRAIN);
	assert_non_null(r->train);
}

/* Free "r", asserting that nothing is left. */
static void
release(struct run *r)
{
	sym_trainer_free(r->t);
	sym_comm_free(r->comm);
	sym_dataset_free(r->train);
	sym_search_free(r->s);
	sym_plan_free(r->single);
	sym_plan_free(r->p);
	sym_topology_free(r->topo);
	sym_graph_free(r->g);
	unlink(r->path);
	tl_ctx_free(r->ctx);
}

/* Return 1 when pieces "i" and "j" of "s" have the same strategies. */
static int
same_plan(const sym_search *s, size_t i, size_t j)
{
	for (size_t n = 0; n < sym_search_n_nodes(s); n++)
		if (strcmp(sym_search_strategy(s, i, n),
		        sym_search_strategy(s, j, n)))
			return 0;
	return 1;
}

/* Return the piece of the search of "r" covering (b, s). */
static size_t
piece_at(const struct run *r, int64_t b, int64_t s)
{
	for (size_t i = 0; i < sym_search_n_pieces(r->s); i++) {
		int in = sym_search_piece_fit(r->s, i) != SYM_SEARCH_OVERFLOW;

		for (size_t k = 0; in && k < sym_search_n_symbols(r->s); k++) {
			const char *y =
			    sym_symbol_name(sym_search_symbol(r->s, k));
			int64_t lo, hi, v = !strcmp(y, "b") ? b : s;

			sym_search_piece_range(r->s, i, k, &lo, &hi);
			in = v >= lo && (hi < 0 || v <= hi);
		}
		if (in)
			return i;
	}
	fail_msg("no piece covers b=%lld, s=%lld", (long long)b, (long long)s);
	return 0;
}

/* Return the value of symbol "name" in the bindings "text" of a step
 * ("b=4,s=8"). */
static int64_t
bound(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == '=')
			return strtoll(p + n + 1, NULL, 10);
	fail_msg("no %s in %s", name, text);
	return -1;
}

/* The model of the test, computed from the search's public answers: for
 * each plan of the trainer a piece of it, and the binding. */
struct model {
	struct run *r;
	size_t np, rep[16];
	sym_binding *b;
};

/* Return the trainer's plan of piece "i" of the model "m". */
static size_t
plan_of(const struct model *m, size_t i)
{
	for (size_t k = 0; k < m->np; k++)
		if (same_plan(m->r->s, m->rep[k], i))
			return k;
	fail_msg("piece %zu has no plan of the trainer", i);
	return 0;
}

/* Return the plan covering (b, s) in "m". */
static size_t
covering(struct model *m, int64_t b, int64_t s)
{
	return plan_of(m, piece_at(m->r, b, s));
}

/* Return the modelled seconds of a step of plan "k" at (b, s). */
static double
seconds(struct model *m, size_t k, int64_t b, int64_t s)
{
	int64_t fs;

	for (size_t i = 0; i < sym_binding_n_symbols(m->b); i++) {
		const sym_symbol *y = sym_binding_symbol(m->b, i);

		sym_binding_set(m->b, (sym_symbol *)y,
		    !strcmp(sym_symbol_name(y), "b") ? b : s);
	}
	assert_int_equal(sym_expr_eval(sym_search_piece_femtoseconds(m->r->s,
	                                   m->rep[k]),
	                     m->b, &fs),
	    0);
	return (double)fs * 1e-15;
}

/* Return the modelled seconds of moving every param and state of "m"
 * from plan "a" to plan "c": the planner's steps between their layouts
 * in the two pieces' shardings. */
static double
switch_seconds(struct model *m, size_t a, size_t c)
{
	sym_sharding *sa, *sc;
	double sum = 0;

	if (a == c)
		return 0;
	sa = sym_search_sharding(m->r->s, m->rep[a]);
	sc = sym_search_sharding(m->r->s, m->rep[c]);
	assert_non_null(sa);
	assert_non_null(sc);
	for (size_t i = 0; i < sym_graph_n_values(m->r->g); i++) {
		const sym_value *v = sym_graph_value(m->r->g, i);
		sym_redist *rd;

		if (sym_value_get_kind(v) != SYM_VALUE_PARAM)
			continue;
		rd = sym_redist_plan(sym_sharding_value_layout(sa, v),
		    sym_sharding_value_layout(sc, v), sym_value_shape(v),
		    m->r->topo);
		assert_non_null(rd);
		for (size_t k = 0; k < sym_redist_n_steps(rd); k++)
			sum += sym_redist_step_seconds(rd, k, m->b);
		sym_redist_free(rd);
	}
	sym_sharding_free(sa);
	sym_sharding_free(sc);
	return sum;
}

/* Return the allocations of executor "x". */
static size_t
exec_allocations(const sym_exec *x)
{
	return x->buffer_allocs + x->kscratch.grows + x->scratch.grows;
}

/* Return the allocations of the executors of "t" (every plan's of every
 * rank, and the single-device one) and of their moves so far. */
static size_t
allocations(const sym_trainer *t)
{
	size_t n = t->x1 ? exec_allocations(t->x1) : 0;

	for (int k = 0; k < t->n_local; k++) {
		const struct sym__trank *r = &t->rank[k];

		for (size_t j = 0; r->xs && j < t->n_plans; j++)
			if (r->xs[j])
				n += exec_allocations(r->xs[j]);
		if (r->mv)
			n += r->mv->grows + r->mv->scratch.grows;
	}
	return n;
}

/* Start ("on") or stop counting the allocations through the helpers of
 * the context of "t" and of its ranks' (core/ctx_private.h: what the
 * redistribution planner, the plans, the executors' objects and the
 * gathers of the check take); return those counted since the last
 * start. */
static unsigned long
ctx_allocations(sym_trainer *t, int on)
{
	unsigned long n = 0;

	for (int k = -1; k < t->n_local; k++) {
		sym_ctx *c = k < 0 ? t->ctx : t->rank[k].ctx;

		if (k >= 0 && c == t->ctx)
			continue;
		n += sym__ctx_n_alloc(c);
		if (on)
			sym__ctx_fail_alloc(c, -1, 0);
		else
			sym__ctx_fail_alloc_off(c);
	}
	return n;
}

/* A step run: its sizes and the plan it ran on. */
struct ran {
	int64_t b, s;
	size_t plan;
	int switched;
};

/* The modelled seconds of an epoch: its steps on the plans they ran on
 * with the switches, and the least of its steps on one plan. */
struct totals {
	double run, single;
};

/* Assert that the "n" steps "st" of an epoch that started on plan "cur"
 * ("fresh": before any step) ran on the plans the rule gives; add its
 * modelled seconds to "tot"; return the switches it makes. */
static int64_t
check_rule(struct model *m, const struct ran *st, size_t n, size_t cur,
    int fresh, struct totals *tot)
{
	size_t want[MAX_STEPS], got[MAX_STEPS], at = cur, best = SIZE_MAX;
	double total = 0, single, least = INFINITY;
	int64_t switches = 0;
	int fresh0 = fresh;

	for (size_t j = 0; j < n; j++)
		want[j] = covering(m, st[j].b, st[j].s);
	for (size_t j = 0; j < n; j++) {
		if (want[j] != at) {
			double saving = 0;
			double cost =
			    fresh ? 0 : switch_seconds(m, at, want[j]);

			for (size_t i = j; i < n && want[i] == want[j]; i++)
				saving += seconds(m, at, st[i].b, st[i].s) -
				    seconds(m, want[j], st[i].b, st[i].s);
			if (saving > cost) {
				total += cost;
				at = want[j];
			}
		}
		fresh = 0;
		got[j] = at;
		total += seconds(m, at, st[j].b, st[j].s);
	}
	for (size_t k = 0; k < m->np; k++) {
		double steps = 0;

		for (size_t j = 0; j < n; j++)
			steps += seconds(m, k, st[j].b, st[j].s);
		single = steps +
		    (cur == k || fresh0 ? 0 : switch_seconds(m, cur, k));
		least = steps < least ? steps : least;
		if (single < total) {
			total = single;
			best = k;
		}
	}
	for (size_t j = 0; j < n; j++) {
		size_t plan = best != SIZE_MAX ? best : got[j];
		size_t before =
		    j ? (best != SIZE_MAX ? best : got[j - 1]) : cur;

		if (st[j].plan != plan)
			fail_msg("step %zu (b=%lld, s=%lld) ran on plan %zu, "
			         "the rule says %zu",
			    j + 1, (long long)st[j].b, (long long)st[j].s,
			    st[j].plan, plan);
		assert_int_equal(st[j].switched, plan != before);
		switches += plan != before;
	}
	/* the first epoch starts free: never slower than one plan */
	if (fresh0)
		assert_true(total <= least * (1 + 1e-12));
	tot->run += total;
	tot->single += least;
	return switches;
}

/* The search of lm_switch.sg gives different plans at b = 4 for the
 * bucket s = 8 and the bucket s = 200. */
static void
test_pieces(void **state)
{
	struct run r;

	(void)state;
	setup_run(&r);
	assert_false(same_plan(r.s, piece_at(&r, 4, 8), piece_at(&r, 4, 200)));
	release(&r);
}

/* Train three epochs in file order with switching on 4 ranks, checked
 * against one device at every step; every step's plan is the rule's,
 * the switches are counted and moved the params right (the check
 * restarts the reference from the sharded params after every step, so
 * a param moved wrong shows at the next step). The third epoch, the
 * same batches on the same plans as the second, switches six times and
 * allocates nothing: neither the executors of either plan nor the
 * single-device one, nor the moves, and, once its first step made the
 * epoch's schedule, nothing through the context helpers of the trainer
 * and its ranks either (the redistributions planned, the plans compiled
 * and the executors made the first time; the check's gathers through
 * the executors' scratch). */
static void
test_switching(void **state)
{
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;
	sym_train_switching sw;
	struct ran st[MAX_STEPS];
	struct model m;
	sym_train_step step;
	int64_t batch = 4, rule_switches = 0, sw2 = 0, third = 0;
	size_t allocs2 = 0;
	unsigned long counted = ~0UL;
	struct totals tot = { 0, 0 };
	size_t n = 0, epoch_start = 0, cur = 0;
	int rc, fresh = 1;
	struct run r;

	(void)state;
	setup_run(&r);
	o.seed = 3;
	o.batch = &batch;
	o.n_batch = 1;
	o.no_shuffle = 1;
	o.single = r.single;
	o.check_every = 1;
	o.search = r.s;
	o.search_piece = 0;
	r.comm = sym_comm_threads_new(r.ctx, RANKS);
	assert_non_null(r.comm);
	r.t = sym_trainer_new(r.ctx, r.p, r.comm, r.train, NULL, &o);
	if (!r.t)
		fail_msg("%s", sym_ctx_last_message(r.ctx));
	memset(&m, 0, sizeof(m));
	m.r = &r;
	assert_int_equal(sym_trainer_switching(r.t, &sw), 0);
	assert_true(sw.n_plans >= 2 && sw.n_plans <= 16);
	assert_int_equal(sw.n_compiled, 1);
	m.np = sw.n_plans;
	for (size_t k = 0; k < m.np; k++)
		m.rep[k] = sym_trainer_plan_piece(r.t, k);
	cur = plan_of(&m, 0);
	m.b = sym_binding_new(r.ctx);
	for (size_t i = 0; i < sym_plan_n_symbols(r.p); i++)
		sym_binding_set(m.b, sym_plan_symbol(r.p, i), 8);
	while ((rc = sym_trainer_step(r.t, &step)) >= 0) {
		if (rc == 0 && third)
			counted = ctx_allocations(r.t, 0);
		if (rc == 0) {
			rule_switches += check_rule(&m, st + epoch_start,
			    n - epoch_start, cur, fresh, &tot);
			fresh = 0;
			cur = st[n - 1].plan;
			epoch_start = n;
			if (sym_trainer_epoch(r.t) == 2) {
				allocs2 = allocations(r.t);
				assert_int_equal(sym_trainer_switching(r.t,
				                     &sw),
				    0);
				sw2 = sw.switches;
			}
			if (sym_trainer_epoch(r.t) == 3)
				break;
			continue;
		}
		if (step.mismatch)
			fail_msg("step %lld: %s", (long long)step.step,
			    step.mismatch);
		assert_true(step.params_checked);
		/* the third epoch's schedule is made by its first step */
		if (step.epoch == 3 && third++ == 0)
			ctx_allocations(r.t, 1);
		assert_true(n < MAX_STEPS);
		st[n++] = (struct ran){ bound(step.bindings, "b"),
			bound(step.bindings, "s"), step.plan, step.switched };
	}
	assert_true(rc >= 0);
	assert_int_equal(sym_trainer_switching(r.t, &sw), 0);
	if (getenv("SWITCH_VERBOSE"))
		fprintf(stderr,
		    "%zu steps, %zu plans (%zu compiled), %lld "
		    "switches in %.6f s (modelled %.6f s); modelled %.6f s, "
		    "best single %.6f s\n",
		    n, sw.n_plans, sw.n_compiled, (long long)sw.switches,
		    sw.seconds, sw.modelled, sw.model_run, sw.model_best);
	assert_int_equal(sw.switches, rule_switches);
	/* plans 0 (short) and 3 (long) alternate by bucket, the third
	 * epoch's first step switching back from the second's last */
	if (getenv("SWITCH_VERBOSE"))
		fprintf(stderr,
		    "third epoch: %lld steps, %lld switches, "
		    "%lu allocations\n",
		    (long long)third, (long long)(sw.switches - sw2), counted);
	assert_int_equal(third, 16);
	assert_int_equal(sw.switches - sw2, 6);
	assert_int_equal(allocations(r.t), allocs2);
	assert_int_equal(counted, 0);
	assert_true(sw.switches >= 1);
	assert_true(sw.n_compiled >= 2);
	assert_true(sw.seconds > 0);
	/* the trainer's model of the steps run agrees with the test's */
	assert_true(fabs(sw.model_run - tot.run) <= 1e-9 * tot.run);
	assert_true(sw.model_best <= tot.single * (1 + 1e-9));
	sym_binding_free(m.b);
	release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_switching),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
