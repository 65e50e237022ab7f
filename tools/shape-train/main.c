/* SPDX-License-Identifier: MIT */
/*
 * shape-train: train a training graph (symshard-graph(5): a graph that
 * minimizes a loss) sharded on its ranks, on a dataset, for epochs or
 * steps, evaluating on the test split, optionally against one device,
 * loading and saving checkpoints (shape-train(1)). A thin wrapper over
 * the library: the checking is sym_graph_parse_file's, the sharding
 * sym_graph_shard's, the data sym_dataset(3)'s, the training loop, the
 * evaluation and the checkpoints sym_trainer(3)'s.
 *
 * Exit status: 0 trained (and matched), 1 invalid graph, data,
 * checkpoint, binding or mismatch, 2 usage or internal error. On the mpi
 * backend the processes agree on the outcome of reading the graph and
 * the data before the trainer starts (and the trainer on everything
 * after), so one failing process stops all of them with its error.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symshard.h>

#include "tool_args.h"
#include "args.h"

/* Everything a run holds, freed by release(). */
struct run {
	sym_ctx *ctx;
	sym_communicator *comm;
	sym_graph *g;
	sym_plan *plan, *single;
	sym_dataset *train, *test;
	sym_trainer *t;
	sym_topology *topo; /* --rank-table or --topology */
	sym_search *search; /* parallel auto: the plans to switch between */
	size_t piece;       /* the piece that starts */
	int64_t ranks;
	/* The totals of the run (tokens: sequences, real and computed). */
	int64_t steps, samples, tokens, padded;
	double seconds;
	sym_eval_result last_eval;
	int evaluated;
	int switching;   /* the trainer switches plans */
	int64_t eval_at; /* the steps run at the last evaluation */
	int mismatch;
	/* The progress and log lines. */
	double log_start;
	int64_t log_samples;
	int bar_shown;
};

/* Record the error left on the context of "r" in "o" and print it
 * (located when the library located it); return "status", or the
 * status of the failure when "status" is negative. */
static int
fail(struct run *r, struct train_options *o, int status)
{
	sym_error e = sym_ctx_last_error(r->ctx);

	if (status < 0)
		status = e == SYM_ENOMEM || e == SYM_EINTERNAL || e == SYM_OK
		    ? TRAIN_EXIT_USAGE
		    : TRAIN_EXIT_FAIL;
	return tool_note(&o->voice, 1, status, "%s",
	    sym_ctx_last_message(r->ctx));
}

/* Print, when "o" speaks, the diagnostics of the graph of "r" (with
 * --quiet or --json only the errors) on stderr. */
static void
print_diagnostics(const struct run *r, struct train_options *o)
{
	size_t n = sym_graph_n_diagnostics(r->g);

	for (size_t i = 0; i < n; i++) {
		const sym_diagnostic *d = sym_graph_diagnostic(r->g, i);
		char *text;

		if ((o->quiet || o->json) && d->severity != SYM_SEV_ERROR)
			continue;
		text = sym_diagnostic_format(r->g, d);
		if (!text)
			continue;
		if (d->severity == SYM_SEV_ERROR)
			tool_note(&o->voice, 0, 0, "%s", text);
		if (o->voice.speak)
			fprintf(stderr, "%s\n", text);
		free(text);
	}
}

/* Return the sizes the first step of "o" runs at: its first batch (64
 * unless --batch says) for the first symbol the graph of "r" declares,
 * the batch symbol; NULL when there is no symbol (or out of memory). */
static sym_binding *
batch_binding(const struct run *r, const struct train_options *o)
{
	sym_ctx *ctx = sym_graph_ctx(r->g);
	sym_binding *b;

	if (sym_ctx_n_symbols(ctx) == 0 || !(b = sym_binding_new(ctx)))
		return NULL;
	sym_binding_set(b, sym_ctx_symbol(ctx, 0),
	    o->n_batch ? o->batch[0] : SYM_TRAIN_BATCH);
	return b;
}

/* Read the topology file or the rank table of "o" into "r" and check
 * that a rank table places every rank of the run; return -1 to go on,
 * or the exit status. */
static int
load_rank_table(struct run *r, struct train_options *o)
{
	if (o->topology && o->rank_table)
		return tool_note(&o->voice, 1, TRAIN_EXIT_USAGE,
		    "--topology and --rank-table exclude each other");
	if (o->topology) {
		r->topo = sym_topology_parse_file(r->ctx, o->topology);
		return r->topo ? -1 : fail(r, o, TRAIN_EXIT_USAGE);
	}
	if (!o->rank_table)
		return -1;
	r->topo = sym_topology_parse_rank_table(r->ctx, o->rank_table);
	if (!r->topo)
		return fail(r, o, TRAIN_EXIT_USAGE);
	for (int64_t k = 0; k < r->ranks; k++)
		if (sym_topology_node_of(r->topo, k) < 0)
			return tool_note(&o->voice, 1, TRAIN_EXIT_USAGE,
			    "%s places no rank %" PRId64 ", but the run has "
			    "%" PRId64 " ranks",
			    o->rank_table, k, r->ranks);
	return -1;
}

/* Return 1 when the graph of "r" has what an evaluation measures the
 * accuracy with: class scores (an output of floating [B, C], C >= 2)
 * and labels (an integer input [B] that the data feeds). */
static int
has_scores(const struct run *r)
{
	int scores = 0, labels = 0;

	for (size_t i = 0; i < sym_graph_n_outputs(r->g); i++) {
		const sym_shape *sh =
		    sym_value_shape(sym_graph_output(r->g, i));
		sym_dtype dt = sym_shape_dtype(sh);
		int64_t c;

		scores |= sym_shape_ndim(sh) == 2 &&
		    (dt == SYM_DT_F32 || dt == SYM_DT_F64) &&
		    sym_expr_get_const(sym_shape_dim(sh, 1), &c) == 0 && c >= 2;
	}
	for (size_t i = 0; i < sym_graph_n_values(r->g); i++) {
		const sym_value *v = sym_graph_value(r->g, i);
		const sym_shape *sh = sym_value_shape(v);
		sym_init init;

		if (sym_value_get_kind(v) != SYM_VALUE_INPUT ||
		    (sym_value_get_init(v, &init) == 0 &&
		        init.kind != SYM_INIT_DEFAULT))
			continue;
		labels |= sym_shape_ndim(sh) == 1 &&
		    (sym_shape_dtype(sh) == SYM_DT_I32 ||
		        sym_shape_dtype(sh) == SYM_DT_I64);
	}
	return scores && labels;
}

/* Drop every strategy of the graph of "r" (written for its "devices"
 * devices) for a run on one rank, where none splits anything, and say
 * so: a checkpoint then evaluates without a single-device graph. */
static void
drop_strategies(struct run *r, struct train_options *o, int64_t devices)
{
	for (size_t i = 0; i < sym_graph_n_nodes(r->g); i++)
		sym_node_drop_strategy(r->g, sym_graph_node(r->g, i));
	if (o->voice.speak)
		fprintf(stderr,
		    "shape-train: on 1 rank: the strategies of %s for %" PRId64
		    " devices are dropped, every operator runs whole\n",
		    o->file, devices);
}

/* Read, check and shard the graph of "o" into "r" on its ranks; compile
 * its plans. Return -1 to go on, or the exit status. */
static int
load_graph(struct run *r, struct train_options *o)
{
	int64_t devices;
	int st;

	r->g = strcmp(o->file, "-")
	    ? sym_graph_parse_file(r->ctx, o->file)
	    : sym_graph_parse_stream(r->ctx, stdin, "<stdin>");
	if (!r->g)
		return fail(r, o, TRAIN_EXIT_USAGE);
	devices = sym_graph_n_devices(r->g) > 0 ? sym_graph_n_devices(r->g) : 1;
	r->ranks = r->comm ? sym_comm_n_ranks(r->comm)
	    : o->ranks     ? o->ranks
	                   : devices;
	if (r->comm && o->ranks && o->ranks != r->ranks)
		return tool_note(&o->voice, 1, TRAIN_EXIT_USAGE,
		    "--ranks %" PRId64 ", but mpirun started %" PRId64
		    " processes",
		    o->ranks, r->ranks);
	if (sym_graph_n_errors(r->g) == 0 && !sym_graph_loss(r->g))
		return tool_note(&o->voice, 1, TRAIN_EXIT_FAIL,
		    "%s minimizes no loss: a training graph ends with "
		    "'minimize LOSS with OPTIMIZER(...)'",
		    o->file);
	if (sym_graph_n_errors(r->g) == 0 && o->eval && !o->dataset_spec &&
	    !has_scores(r))
		return tool_note(&o->voice, 1, TRAIN_EXIT_FAIL,
		    "--eval: %s has no class scores (an output of floating "
		    "[B, C], C >= 2) and labels (an integer input [B]): "
		    "there is no accuracy to measure",
		    o->file);
	if (sym_graph_n_errors(r->g) == 0 && r->ranks == 1 && devices > 1)
		drop_strategies(r, o, devices);
	if (sym_graph_n_errors(r->g) == 0 && r->ranks != devices)
		sym_graph_set_devices(r->g, r->ranks, NULL);
	if ((st = load_rank_table(r, o)) >= 0)
		return st;
	if (sym_graph_n_errors(r->g) == 0) {
		sym_binding *at = batch_binding(r, o);

		st = tool_shard_keep(&o->voice, r->g, r->topo, o->autop,
		    o->memory, at, TRAIN_EXIT_FAIL, &r->search, &r->piece);

		sym_binding_free(at);

		if (st)
			return st;
	}
	print_diagnostics(r, o);
	if (sym_graph_n_errors(r->g))
		return tool_note(&o->voice, 1, TRAIN_EXIT_FAIL,
		    "%s is invalid%s: nothing trains", o->file,
		    r->ranks != devices ? " on this number of ranks" : "");
	r->plan = sym_plan_compile(r->g, 0);
	if (r->plan && o->check)
		r->single = sym_plan_compile(r->g, SYM_PLAN_SINGLE);
	if (!r->plan || (o->check && !r->single))
		return fail(r, o, -1);
	return -1;
}

/* Open the datasets of "o" into "r" (the test split when evaluating);
 * return -1 to go on, or the exit status. */
static int
open_data(struct run *r, struct train_options *o)
{
	if (!o->dataset)
		return -1;
	r->train = sym_dataset_open(r->ctx, o->dataset, SYM_SPLIT_TRAIN);
	if (r->train && o->eval)
		r->test = sym_dataset_open(r->ctx, o->dataset, SYM_SPLIT_TEST);
	if (!r->train || (o->eval && !r->test) ||
	    train_transforms_apply(o, r->train) < 0 ||
	    (r->test && train_transforms_apply(o, r->test) < 0))
		return fail(r, o, TRAIN_EXIT_FAIL);
	if (sym_dataset_notice(r->train) && o->voice.speak)
		fprintf(stderr, "shape-train: %s\n",
		    sym_dataset_notice(r->train));
	return -1;
}

/* Check, on the process that writes it, that the checkpoint of --save
 * can be written, before anything trains; return -1 to go on, or the
 * exit status. */
static int
check_save(struct run *r, struct train_options *o)
{
	if (!o->save || (r->comm && sym_comm_rank(r->comm) != 0))
		return -1;
	if (sym_checkpoint_check_path(r->ctx, o->save) < 0)
		return fail(r, o, TRAIN_EXIT_FAIL);
	return -1;
}

/*
 * On the mpi backend, agree with the other processes on the outcome
 * "status" of reading the graph and the data here (-1: go on), so that
 * no process starts the trainer while another stopped: every process
 * stops, rank 0 printing the lowest failing rank's error unless it
 * printed its own. Return -1 to go on, or the exit status.
 */
static int
agree_setup(struct run *r, struct train_options *o, int status)
{
	sym_comm_endpoint *ep =
	    sym_comm_attach(r->ctx, r->comm, sym_comm_rank(r->comm));
	int32_t mine = status < 0 ? 0 : status + 1, top = 0;
	sym_error code = status < 0 ? SYM_OK : sym_ctx_last_error(r->ctx);

	if (!ep ||
	    sym_comm_all_reduce(ep, NULL, 0, &mine, &top, 1, SYM_DT_I32,
	        SYM_REDUCE_MAX) < 0) {
		sym_comm_detach(ep);
		return fail(r, o, TRAIN_EXIT_USAGE);
	}
	if (status >= 0 && code == SYM_OK)
		code = SYM_EINVAL;
	/* top 1: the processes that stopped are done (--help) */
	if (top > 1 &&
	    sym_comm_agree(ep, code, o->voice.why[0] ? o->voice.why : NULL) <
	        0 &&
	    status < 0 && o->voice.speak)
		fprintf(stderr,
		    "shape-train: %s\nshape-train: nothing trains\n",
		    sym_ctx_last_message(r->ctx));
	sym_comm_detach(ep);
	if (status >= 0 || top == 0)
		return status;
	return top - 1;
}

/* Start the trainer of "r" (loading the checkpoint of "o"); return -1
 * to go on, or the exit status. */
static int
start_trainer(struct run *r, struct train_options *o)
{
	sym_train_options to = SYM_TRAIN_OPTIONS_INIT;
	sym_train_switching sw;

	if (!r->comm) {
		r->comm = sym_comm_threads_new(r->ctx, (int)r->ranks);
		if (!r->comm)
			return fail(r, o, -1);
	}
	to.seed = o->seed;
	to.batch = o->batch;
	to.n_batch = o->n_batch;
	to.no_shuffle = o->no_shuffle;
	to.drop_remainder = o->drop_remainder;
	to.map = o->map;
	to.single = r->single;
	to.check_every = (size_t)o->check_every;
	to.rtol = o->rtol;
	to.atol = o->atol;
	to.agree = train_options_hash(o);
	to.allow_nonfinite = o->allow_nonfinite;
	to.tokens_per_batch = o->tokens_per_batch;
	to.pad_to_max = o->pad_to_max;
	to.search = r->search;
	to.search_piece = r->piece;
	r->t =
	    sym_trainer_new(r->ctx, r->plan, r->comm, r->train, r->test, &to);
	if (!r->t)
		return fail(r, o, -1);
	r->switching = sym_trainer_switching(r->t, &sw) == 0 && sw.n_plans > 1;
	if (o->load && sym_trainer_load(r->t, o->load) < 0)
		return fail(r, o, -1);
	if (o->load && sym_trainer_notice(r->t) && o->voice.speak)
		fprintf(stderr, "shape-train: %s\n", sym_trainer_notice(r->t));
	return -1;
}

/* Print the "bindings" of a step ("b=64,s=12") as a JSON object. */
static void
json_bindings(const char *bindings)
{
	const char *p = bindings;

	putchar('{');
	while (p && *p) {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');

		if (!eq)
			break;
		printf("%s\"%.*s\": %.*s", p == bindings ? "" : ", ",
		    (int)(eq - p), p,
		    (int)(end ? end - eq - 1 : (long)strlen(eq + 1)), eq + 1);
		p = end ? end + 1 : NULL;
	}
	putchar('}');
}

/* Print "x" as a JSON number ("null" when not finite). */
static void
json_number(double x)
{
	if (isfinite(x))
		printf("%.9g", x);
	else
		fputs("null", stdout);
}

/* Clear the progress bar of "r" from the terminal. */
static void
clear_bar(struct run *r)
{
	if (r->bar_shown) {
		fprintf(stderr, "\r%*s\r", r->bar_shown, "");
		r->bar_shown = 0;
	}
}

/* Show the progress bar of step "s" of "r" ("per": steps of an epoch,
 * 0 when not known) on a terminal. */
static void
show_bar(struct run *r, const struct train_options *o, const sym_train_step *s,
    int64_t per)
{
	char bar[32];
	int64_t in_epoch = per ? (s->step - 1) % per + 1 : 0;
	int fill = per ? (int)(30 * in_epoch / per) : 0;

	if (!o->voice.speak || o->quiet || o->json || !isatty(2))
		return;
	memset(bar, ' ', 30);
	memset(bar, '=', (size_t)fill);
	bar[30] = '\0';
	r->bar_shown = fprintf(stderr,
	    "\repoch %" PRId64 " [%s] %" PRId64 "/%" PRId64 " loss %.4f",
	    s->epoch, bar, in_epoch, per, s->loss);
	fflush(stderr);
}

/* Print the plan switching members of the JSON event of step "s". */
static void
json_switch(const sym_train_step *s)
{
	printf(", \"plan\": %zu", s->plan + 1);
	if (!s->switched)
		return;
	fputs(", \"switch\": {\"seconds\": ", stdout);
	json_number(s->switch_seconds);
	fputs(", \"modelled\": ", stdout);
	json_number(s->switch_modelled);
	putchar('}');
}

/* Report step "s" of "r" (JSON, log line, progress bar). */
static void
report_step(struct run *r, const struct train_options *o,
    const sym_train_step *s, int64_t per)
{
	r->steps++;
	r->samples += s->padded_tokens ? s->records : s->rows;
	r->seconds += s->seconds;
	r->log_samples += s->rows;
	r->tokens += s->tokens;
	r->padded += s->padded_tokens;
	if (!o->voice.speak)
		return;
	if (o->json) {
		printf("{\"event\": \"step\", \"epoch\": %" PRId64
		       ", \"step\": %" PRId64 ", \"loss\": ",
		    s->epoch, s->step);
		json_number(s->loss);
		fputs(", \"bindings\": ", stdout);
		json_bindings(s->bindings);
		if (s->padded_tokens)
			printf(", \"tokens\": %" PRId64
			       ", \"padded_tokens\": %" PRId64,
			    s->tokens, s->padded_tokens);
		if (r->switching)
			json_switch(s);
		fputs("}\n", stdout);
	} else if (!o->quiet && s->step % o->log_every == 0 &&
	    s->padded_tokens) {
		clear_bar(r);
		printf("epoch %" PRId64 " step %" PRId64 ": loss %.4f (%s: "
		       "%" PRId64 " records, %" PRId64 " tokens of %" PRId64
		       " computed, %.0f tokens/s)",
		    s->epoch, s->step, s->loss, s->bindings, s->records,
		    s->tokens, s->padded_tokens,
		    s->seconds > 0 ? (double)s->tokens / s->seconds : 0.0);
		if (r->switching)
			printf(" plan %zu", s->plan + 1);
		if (s->switched)
			printf(", switched in %.3f ms (modelled %.3f ms)",
			    1e3 * s->switch_seconds, 1e3 * s->switch_modelled);
		putchar('\n');
		fflush(stdout);
	} else if (!o->quiet && s->step % o->log_every == 0) {
		double t = tool_now();

		clear_bar(r);
		printf("epoch %" PRId64 " step %" PRId64
		       ": loss %.4f (%.0f samples/s)\n",
		    s->epoch, s->step, s->loss,
		    (double)r->log_samples / (t - r->log_start));
		fflush(stdout);
		r->log_start = t;
		r->log_samples = 0;
	}
	show_bar(r, o, s, per);
}

/* Print the mismatch "what" of "r" once; return TRAIN_EXIT_FAIL. */
static int
report_mismatch(struct run *r, const struct train_options *o, const char *what)
{
	if (!r->mismatch && o->voice.speak) {
		clear_bar(r);
		fprintf(o->json ? stderr : stdout, "MISMATCH %s\n", what);
	}
	r->mismatch = 1;
	return TRAIN_EXIT_FAIL;
}

/* Evaluate the trainer of "r" and report it; 0 or -1. */
static int
evaluate(struct run *r, const struct train_options *o)
{
	sym_eval_result e;

	if (sym_trainer_evaluate(r->t, &e) < 0)
		return -1;
	r->last_eval = e;
	r->evaluated = 1;
	r->eval_at = r->steps;
	if (!o->voice.speak)
		return 0;
	clear_bar(r);
	if (o->json) {
		printf("{\"event\": \"eval\", \"epoch\": %" PRId64
		       ", \"loss\": ",
		    e.epoch);
		json_number(e.loss);
		fputs(", \"accuracy\": ", stdout);
		json_number(e.accuracy);
		if (e.tokens) {
			fputs(", \"perplexity\": ", stdout);
			json_number(e.perplexity);
			printf(", \"tokens\": %" PRId64, e.tokens);
		}
		fputs("}\n", stdout);
	} else if (e.tokens) {
		printf("%s eval: token loss %.4f, perplexity %.3f, accuracy "
		       "%.2f%% (%" PRId64 " tokens of %" PRId64
		       " held-out records, %.2f s)\n",
		    e.epoch ? "after training" : "before training", e.loss,
		    e.perplexity, 100 * e.accuracy, e.tokens, e.rows,
		    e.seconds);
	} else if (e.epoch == 0) {
		printf("eval before training: loss %.4f, accuracy %.2f%% "
		       "(%" PRId64 " samples, %.2f s)\n",
		    e.loss, 100 * e.accuracy, e.rows, e.seconds);
	} else {
		printf("epoch %" PRId64 " eval: loss %.4f, accuracy %.2f%% "
		       "(%" PRId64 " samples, %.2f s)\n",
		    e.epoch, e.loss, 100 * e.accuracy, e.rows, e.seconds);
	}
	if (e.dropped && e.tokens)
		fprintf(stderr,
		    "shape-train: evaluation: %" PRId64 " held-out records "
		    "were not evaluated (longer than the sequence symbol "
		    "admits, or left out of a last batch)\n",
		    e.dropped);
	else if (e.dropped)
		fprintf(stderr,
		    "shape-train: evaluation: the last %" PRId64
		    " samples were not evaluated: the batch symbol does "
		    "not admit their number\n",
		    e.dropped);
	fflush(stdout);
	return 0;
}

/* The end of an epoch of "r": its notice, its evaluation; 0 or -1. */
static int
end_epoch(struct run *r, const struct train_options *o)
{
	const char *notice = sym_trainer_notice(r->t);

	if (notice && o->voice.speak) {
		clear_bar(r);
		fprintf(stderr, "shape-train: %s\n", notice);
	}
	return o->eval ? evaluate(r, o) : 0;
}

/* Train "r" as "o" says (epochs or steps); return -1 to go on, or the
 * exit status. */
static int
train(struct run *r, struct train_options *o)
{
	int64_t b = o->n_batch ? o->batch[0] : 0;
	int64_t per = o->dataset && r->train && b
	    ? (sym_dataset_n_rows(r->train) + b - 1) / b
	    : 0;
	int64_t done = 0, epochs = 0;

	r->log_start = tool_now();
	while (o->steps >= 0 ? done < o->steps : epochs < o->epochs) {
		sym_train_step s;
		int rc = sym_trainer_step(r->t, &s);

		if (rc < 0)
			return fail(r, o, -1);
		if (rc == 0) {
			epochs++;
			if (end_epoch(r, o) < 0)
				return fail(r, o, -1);
			continue;
		}
		done++;
		if (!per && r->train && s.rows) /* no --batch: the first */
			per = (sym_dataset_n_rows(r->train) + s.rows - 1) /
			    s.rows;
		report_step(r, o, &s, per);
		if (s.mismatch)
			return report_mismatch(r, o, s.mismatch);
	}
	clear_bar(r);
	if (o->eval &&
	    (o->steps == 0 ||
	        (o->dataset_spec && r->steps && r->eval_at != r->steps)) &&
	    evaluate(r, o) < 0)
		return fail(r, o, -1);
	return -1;
}

/* Print the plan switching members of the JSON end event of "r". */
static void
json_switching(const struct run *r)
{
	sym_train_switching w;

	if (!r->switching || sym_trainer_switching(r->t, &w) < 0)
		return;
	printf(", \"plans\": %zu, \"plans_compiled\": %zu, \"switches\": "
	       "%" PRId64 ", \"switch_seconds\": ",
	    w.n_plans, w.n_compiled, w.switches);
	json_number(w.seconds);
	fputs(", \"switch_modelled\": ", stdout);
	json_number(w.modelled);
	fputs(", \"modelled_seconds\": ", stdout);
	json_number(w.model_run);
	printf(", \"best_single_plan\": %zu, \"best_single_modelled\": ",
	    w.best_plan + 1);
	json_number(w.model_best);
}

/* Print the plan switching part of the summary of "r". */
static void
text_switching(const struct run *r)
{
	sym_train_switching w;

	if (!r->switching || sym_trainer_switching(r->t, &w) < 0)
		return;
	printf("; %" PRId64 " plan switch%s in %.3f s (modelled %.6f s), "
	       "%zu of %zu plans compiled; modelled %.6f s, on the best "
	       "single plan (%zu) %.6f s",
	    w.switches, w.switches == 1 ? "" : "es", w.seconds, w.modelled,
	    w.n_compiled, w.n_plans, w.model_run, w.best_plan + 1,
	    w.model_best);
}

/* Compare the params of "r" at the end (--check), save the checkpoint,
 * print the summary; return -1 to go on, or the exit status. */
static int
finish(struct run *r, struct train_options *o)
{
	sym_exec_report rep;

	if (o->check && r->steps) {
		if (sym_trainer_compare_params(r->t, &rep) < 0)
			return fail(r, o, -1);
		if (rep.n_mismatch)
			return report_mismatch(r, o,
			    sym_trainer_mismatch(r->t));
	}
	if (o->save && sym_trainer_save(r->t, o->save) < 0)
		return fail(r, o, -1);
	if (o->voice.speak && o->json && r->padded) {
		printf("{\"event\": \"end\", \"steps\": %" PRId64
		       ", \"tokens\": %" PRId64 ", \"padded_tokens\": %" PRId64
		       ", \"padding\": ",
		    r->steps, r->tokens, r->padded);
		json_number((double)(r->padded - r->tokens) /
		    (double)r->padded);
		fputs(", \"tokens_per_second\": ", stdout);
		json_number(r->seconds > 0 ? (double)r->tokens / r->seconds
		                           : NAN);
		json_switching(r);
		fputs("}\n", stdout);
	}
	if (!o->voice.speak || o->json || o->quiet)
		return -1;
	printf("trained %" PRId64 " steps (%" PRId64 " samples) in %.2f s: "
	       "%.0f samples/s",
	    r->steps, r->samples, r->seconds,
	    r->seconds > 0 ? (double)r->samples / r->seconds : 0.0);
	if (r->padded)
		printf("; %" PRId64 " real tokens of %" PRId64
		       " computed (padding %.1f%%), %.0f real tokens/s",
		    r->tokens, r->padded,
		    100.0 * (double)(r->padded - r->tokens) / (double)r->padded,
		    r->seconds > 0 ? (double)r->tokens / r->seconds : 0.0);
	if (r->evaluated && r->last_eval.tokens)
		printf("; held-out perplexity %.3f, token accuracy %.2f%%",
		    r->last_eval.perplexity, 100 * r->last_eval.accuracy);
	else if (r->evaluated)
		printf("; test accuracy %.2f%%", 100 * r->last_eval.accuracy);
	text_switching(r);
	if (o->check)
		printf("; every step matched one device");
	if (o->save)
		printf("; saved %s", o->save);
	putchar('\n');
	return -1;
}

/* Release what "r" holds; return the number of library objects the
 * context still counts (printed when "o" speaks). */
static size_t
release(struct run *r, const struct train_options *o)
{
	sym_trainer_free(r->t);
	sym_search_free(r->search);
	sym_dataset_free(r->train);
	sym_dataset_free(r->test);
	sym_plan_free(r->single);
	sym_plan_free(r->plan);
	sym_graph_free(r->g);
	sym_comm_free(r->comm);
	sym_topology_free(r->topo);
	return sym_ctx_report_live(r->ctx, o->voice.speak ? stderr : NULL);
}

/* Return the number of processes an MPI launcher says it started
 * (Open MPI's OMPI_COMM_WORLD_SIZE, PMI_SIZE of MPICH and others), 1
 * when none does; store this process's rank in "*rank". */
static long
launched_processes(long *rank)
{
	static const char *const size[] = { "OMPI_COMM_WORLD_SIZE",
		"PMI_SIZE" };
	static const char *const who[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK" };

	for (size_t i = 0; i < 2; i++) {
		const char *s = getenv(size[i]), *r = getenv(who[i]);
		long n = s ? strtol(s, NULL, 10) : 0;

		if (n > 1) {
			*rank = r ? strtol(r, NULL, 10) : 0;
			return n;
		}
	}
	*rank = 0;
	return 1;
}

/* Refuse, unless "o" runs on the mpi backend, to run as one of several
 * processes an MPI launcher started: each would train alone. Return -1
 * to go on, or the exit status (only the first process says why). */
static int
check_launcher(struct train_options *o)
{
	long rank, n = launched_processes(&rank);

	if (o->mpi || n <= 1)
		return -1;
	o->voice.speak = rank == 0;
	return tool_note(&o->voice, 1, TRAIN_EXIT_USAGE,
	    "started as one of %ld processes of mpirun, but the backend is "
	    "threads: each process would train alone; give --backend mpi",
	    n);
}

/* Run shape-train with the command line "argv" of "argc" words; return
 * its exit status. */
int
main(int argc, char **argv)
{
	struct train_options o;
	struct run r;
	int status;

	train_options_init(&o);
	memset(&r, 0, sizeof(r));
	r.ctx = sym_ctx_new();
	if (!r.ctx) {
		fprintf(stderr, "shape-train: out of memory\n");
		return TRAIN_EXIT_USAGE;
	}
	if (tool_wants_mpi(argc, argv) && sym_comm_mpi_available()) {
		r.comm = sym_comm_mpi_new(r.ctx, &argc, &argv);
		if (!r.comm) {
			fprintf(stderr, "shape-train: %s\n",
			    sym_ctx_last_message(r.ctx));
			sym_ctx_free(r.ctx);
			return TRAIN_EXIT_USAGE;
		}
		o.voice.speak = sym_comm_rank(r.comm) == 0;
	}
	status = train_parse_args(argc, argv, &o);
	if (status < 0 && o.mpi && !sym_comm_mpi_available())
		status = tool_note(&o.voice, 1, TRAIN_EXIT_USAGE,
		    "--backend mpi: this symshard was built without MPI "
		    "(see configure --with-mpi); use --backend threads");
	if (status < 0)
		status = check_launcher(&o);
	if (status < 0)
		status = load_graph(&r, &o);
	if (status < 0)
		status = open_data(&r, &o);
	if (status < 0)
		status = check_save(&r, &o);
	if (r.comm && sym_comm_mpi_available() && o.mpi)
		status = agree_setup(&r, &o, status);
	if (status < 0)
		status = start_trainer(&r, &o);
	if (status < 0)
		status = train(&r, &o);
	if (status < 0)
		status = finish(&r, &o);
	if (status < 0 && o.sample && train_sample(r.ctx, r.g, r.t, &o) < 0)
		status = TRAIN_EXIT_FAIL;
	if (release(&r, &o) && status <= 0)
		status = tool_note(&o.voice, 1, TRAIN_EXIT_USAGE,
		    "internal error: library objects not released");
	sym_ctx_free(r.ctx);
	train_options_clear(&o);
	if (fflush(stdout) != 0 || ferror(stdout))
		status = TRAIN_EXIT_USAGE;
	return status < 0 ? TRAIN_EXIT_OK : status;
}
