/* SPDX-License-Identifier: MIT */
/*
 * bench_switch: plan switching (sym_trainer(3), DESIGN section 19)
 * against the best single plan on the same batches, by the cost model
 * and measured.
 *
 * The graph (default examples/lm_switch.sg) is searched on a topology of
 * the default links and devices of --flops (default 300 GFLOP/s), where
 * its plans differ between short and long sequences. A corpus of records
 * of mixed lengths (written by the program: blocks of 8 records of one
 * length, lengths cycling through 5, 180, 13, 200, 60, 150) is trained at
 * --batch b (default 4) on --ranks threads (default 4), the batches
 * shuffled with the seed:
 *  - "switching": the trainer switching between the search's plans by
 *    its rule;
 *  - "single": the trainer on the plan the model finds cheapest for the
 *    same steps (sym_train_switching.best_plan of the switching run),
 *    never switching.
 * Each run trains one warm-up epoch (not timed: plans compiled, buffers
 * sized) and then --epochs E timed epochs (default 3); the time of a run
 * is the sum of its steps' sym_trainer_step times, switches included.
 * The two runs alternate --rounds times (default 3); the medians are
 * reported. The modelled seconds are the model's for the same timed
 * steps: its machine is the topology's, not this one; the measured ones
 * are this machine's, where ranks are threads sharing its cores.
 *
 * Prints {"bench": "switch", ...}.
 *
 * Usage: bench_switch [--graph FILE] [--ranks N] [--batch B]
 *                     [--epochs E] [--rounds R] [--flops F] [--seed S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <symshard.h>

#include "util.h"

#define MAX_ROUNDS 16

/* The options of the benchmark. */
struct opts {
	const char *graph;
	int ranks, rounds;
	int64_t batch, epochs;
	double flops;
	uint64_t seed;
};

/* What one run measured and modelled. */
struct result {
	double seconds;
	int64_t steps, tokens;
	sym_train_switching sw;
	size_t best_piece; /* a piece of the best single plan */
};

/* The objects of the benchmark. */
struct bench {
	sym_ctx *ctx;
	sym_graph *g;
	sym_topology *topo;
	sym_search *s;
	sym_dataset *data;
	char path[512];
};

/* Print "why" and exit with status 2. */
static void
die(const char *why, const char *more)
{
	fprintf(stderr, "bench_switch: %s%s%s\n", why, more ? ": " : "",
	    more ? more : "");
	exit(2);
}

/* Write the corpus into a fresh file of "b" and open it. */
static void
corpus(struct bench *b)
{
	static const int len[] = { 5, 180, 13, 200, 60, 150 };
	const char *tmp = getenv("TMPDIR");
	char spec[600];
	FILE *f;
	int fd;

	snprintf(b->path, sizeof(b->path), "%s/bench-switch-XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(b->path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		die("cannot write the corpus", b->path);
	for (int blk = 0; blk < 24; blk++)
		for (int r = 0; r < 8; r++) {
			for (int k = 0; k < len[blk % 6]; k++)
				fputc('a' + (blk + r * 3 + k) % 26, f);
			fputs("\n%\n", f);
		}
	if (fclose(f) != 0)
		die("cannot write the corpus", b->path);
	snprintf(spec, sizeof(spec), "text:%s", b->path);
	b->data = sym_dataset_open(b->ctx, spec, SYM_SPLIT_TRAIN);
	if (!b->data)
		die(sym_ctx_last_message(b->ctx), NULL);
}

/* Read and search the graph of "o" into "b". */
static void
setup(struct bench *b, const struct opts *o)
{
	sym_search_options so = SYM_SEARCH_OPTIONS_INIT;

	b->ctx = sym_ctx_new();
	b->g = sym_graph_parse_file(b->ctx, o->graph);
	if (!b->g || sym_graph_n_errors(b->g))
		die(sym_ctx_last_message(b->ctx), o->graph);
	if (sym_graph_n_devices(b->g) != o->ranks)
		sym_graph_set_devices(b->g, o->ranks, NULL);
	b->topo = sym_topology_new(b->ctx, 0, 0, 0, 0, 0);
	if (!b->topo || sym_topology_set_flops(b->topo, o->flops) < 0)
		die(sym_ctx_last_message(b->ctx), NULL);
	so.topo = b->topo;
	b->s = sym_graph_search(b->g, &so);
	if (!b->s)
		die(sym_ctx_last_message(b->ctx), o->graph);
	corpus(b);
}

/* Train on piece "piece" of the search of "b" ("no_switch": stay on its
 * plan) into "r": a warm-up epoch, then the timed ones. */
static void
train(struct bench *b, const struct opts *o, size_t piece, int no_switch,
    struct result *r)
{
	sym_train_options to = SYM_TRAIN_OPTIONS_INIT;
	sym_sharding *sh = sym_search_sharding(b->s, piece);
	sym_plan *p = sh ? sym_plan_compile_sharding(sh, 0) : NULL;
	sym_communicator *comm = sym_comm_threads_new(b->ctx, o->ranks);
	sym_train_switching warm;
	sym_train_step st;
	sym_trainer *t;
	int rc;

	if (!p || !comm)
		die(sym_ctx_last_message(b->ctx), NULL);
	to.seed = o->seed;
	to.batch = &o->batch;
	to.n_batch = 1;
	to.search = b->s;
	to.search_piece = piece;
	to.no_switch = no_switch;
	t = sym_trainer_new(b->ctx, p, comm, b->data, NULL, &to);
	if (!t)
		die(sym_ctx_last_message(b->ctx), NULL);
	memset(r, 0, sizeof(*r));
	while ((rc = sym_trainer_step(t, &st)) > 0)
		;
	sym_trainer_switching(t, &warm);
	while (rc >= 0) {
		rc = sym_trainer_step(t, &st);
		if (rc == 0 && sym_trainer_epoch(t) == o->epochs + 1)
			break;
		if (rc > 0) {
			r->seconds += st.seconds;
			r->steps++;
			r->tokens += st.tokens;
		}
	}
	if (rc < 0)
		die(sym_ctx_last_message(b->ctx), NULL);
	sym_trainer_switching(t, &r->sw);
	r->best_piece = sym_trainer_plan_piece(t, r->sw.best_plan);
	r->sw.switches -= warm.switches;
	r->sw.seconds -= warm.seconds;
	r->sw.modelled -= warm.modelled;
	r->sw.model_run -= warm.model_run;
	sym_trainer_free(t);
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_sharding_free(sh);
}

/* Return the median of the "n" values "v". */
static double
median(double *v, size_t n)
{
	struct bench_spread s = bench_spread_of(v, n);

	return s.median;
}

/* Parse the command line into "o". */
static void
parse(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			die("a value is missing after", a);
		if (!strcmp(a, "--graph"))
			o->graph = v;
		else if (!strcmp(a, "--ranks"))
			o->ranks = atoi(v);
		else if (!strcmp(a, "--batch"))
			o->batch = atoll(v);
		else if (!strcmp(a, "--epochs"))
			o->epochs = atoll(v);
		else if (!strcmp(a, "--rounds"))
			o->rounds = atoi(v);
		else if (!strcmp(a, "--flops"))
			o->flops = atof(v);
		else if (!strcmp(a, "--seed"))
			o->seed = strtoull(v, NULL, 10);
		else
			die("unknown option", a);
		i++;
	}
	if (o->ranks < 1 || o->batch < 1 || o->epochs < 1 || o->rounds < 1 ||
	    o->rounds > MAX_ROUNDS || !(o->flops > 0))
		die("bad option values", NULL);
}

int
main(int argc, char **argv)
{
	struct opts o = { "examples/lm_switch.sg", 4, 3, 4, 3, 300e9, 1 };
	double ts[MAX_ROUNDS], t1[MAX_ROUNDS];
	struct result a, c;
	struct bench b;
	size_t best = 0;

	parse(argc, argv, &o);
	memset(&b, 0, sizeof(b));
	bench_header("bench_switch");
	setup(&b, &o);
	for (int k = 0; k < o.rounds; k++) {
		train(&b, &o, 0, 0, &a);
		best = a.best_piece;
		train(&b, &o, best, 1, &c);
		ts[k] = a.seconds;
		t1[k] = c.seconds;
	}
	printf("{\"bench\": \"switch\", \"graph\": \"%s\", \"ranks\": %d, "
	       "\"backend\": \"threads\", \"cores\": %d, \"flops\": %g, "
	       "\"batch\": %lld, \"steps\": %lld, \"tokens\": %lld, "
	       "\"plans\": %zu, \"plans_compiled\": %zu, \"switches\": %lld, "
	       "\"best_single_plan\": %zu, \"best_single_piece\": %zu, "
	       "\"modelled_switching_s\": %.9g, \"modelled_single_s\": %.9g, "
	       "\"modelled_ratio\": %.4f, \"modelled_switch_s\": %.9g, "
	       "\"measured_switching_s\": %.6f, \"measured_single_s\": %.6f, "
	       "\"measured_ratio\": %.4f, \"measured_switch_s\": %.6f, "
	       "\"rounds\": %d}\n",
	    o.graph, o.ranks, bench_online_cores(), o.flops, (long long)o.batch,
	    (long long)a.steps, (long long)a.tokens, a.sw.n_plans,
	    a.sw.n_compiled, (long long)a.sw.switches, a.sw.best_plan + 1,
	    best + 1, a.sw.model_run, c.sw.model_run,
	    c.sw.model_run / a.sw.model_run, a.sw.modelled,
	    median(ts, (size_t)o.rounds), median(t1, (size_t)o.rounds),
	    median(t1, (size_t)o.rounds) / median(ts, (size_t)o.rounds),
	    a.sw.seconds, o.rounds);
	sym_search_free(b.s);
	sym_dataset_free(b.data);
	sym_topology_free(b.topo);
	sym_graph_free(b.g);
	unlink(b.path);
	sym_ctx_free(b.ctx);
	return 0;
}
