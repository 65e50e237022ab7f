/* SPDX-License-Identifier: MIT */
/*
 * shape-run: run a graph file (symshard-graph(5)) sharded on its ranks,
 * kernel by kernel, one step per --bind, and compare every step with the
 * same graph run on one device (shape-run(1)). A thin wrapper over the
 * library: the checking is sym_graph_parse_file's, the sharding
 * sym_graph_shard's, the plans sym_plan_compile's, the binding
 * sym_plan_bind's, the runs and the comparison sym_exec_check's.
 *
 * Exit status: 0 every step matches, 1 invalid graph, rejected binding,
 * failed run or mismatch, 2 usage or internal error. On the mpi backend
 * the processes agree on the outcome of reading, compiling and binding
 * before anything runs (and sym_exec_check on each step), so that one
 * failing process makes every process stop with its error instead of
 * leaving them waiting.
 */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symshard.h>
#include <symshard/exec.h>
#include <symshard/plan.h>

#include "bind_arg.h"
#include "tool_args.h"

#define PROG "shape-run"

enum {
	EXIT_MATCH = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2
};

/* The command line, and whether this process prints. */
struct options {
	const char *file;
	const char **bind; /* the --bind texts, in order */
	size_t n_bind;
	int64_t ranks;       /* --ranks; 0: the graph's devices */
	const char *backend; /* --backend, NULL when not given */
	int mpi;             /* --backend mpi */
	uint64_t seed;
	double rtol, atol; /* 0: the executor's defaults */
	int quiet;
	int autop;               /* --auto: search the strategies */
	int64_t memory;          /* --memory BYTES, 0: none */
	const char *inputs;      /* --inputs FILE.safetensors, or NULL */
	const char *outputs;     /* --outputs FILE.safetensors, or NULL */
	struct tool_voice voice; /* speaks: not on the ranks of mpi but 0 */
};

/* One step: its binding, its text and its bound slices. */
struct step {
	sym_binding *b;
	char *text; /* "b = 8, s = 16" */
	sym_slices *s;
};

/* Everything a run holds, freed by release(). */
struct run {
	sym_ctx *ctx;
	sym_communicator *comm;
	sym_graph *g;
	sym_plan *plan, *single;
	sym_checkpoint *inputs, *outputs; /* of --inputs and --outputs */
	struct step *step;
	size_t n_step;
	int64_t devices; /* what the file says, 1 when it says nothing */
	int64_t ranks;
	int told; /* the failure's message is printed */
};

/* Progress of one step, shown on a terminal once it lasts. */
struct progress {
	const char *label;
	double start, last; /* seconds */
	int shown;          /* characters on the line, 0: nothing shown */
};

/* Print the usage summary to "out". */
static void
usage(FILE *out)
{
	fputs("usage: " PROG " FILE.sg|FILE.onnx [--bind NAME=V[,NAME=V...]]"
	      "... [--ranks N]\n"
	      "           [--backend threads|mpi] [--seed S] [--rtol X] "
	      "[--atol X]\n"
	      "           [--check] [--quiet] [--auto] [--memory BYTES]\n"
	      "           [--inputs FILE.safetensors] "
	      "[--outputs FILE.safetensors]\n"
	      "       " PROG " --help | --version\n"
	      "\n"
	      "Check and shard the graph FILE.sg (or the ONNX model "
	      "FILE.onnx), then for\n"
	      "each --bind run one step of its\n"
	      "sharded plan on every rank and the same graph on one device, "
	      "and compare\n"
	      "their outputs.\n"
	      "\n"
	      "  --bind NAME=V,...     the sizes of one step (one step per "
	      "--bind, in order)\n"
	      "  --ranks N             run on N ranks (default: the graph's "
	      "devices)\n"
	      "  --backend threads     ranks are threads of this process "
	      "(default)\n"
	      "  --backend mpi         one rank per process: mpirun -n N " PROG
	      " ...\n"
	      "  --seed S              seed of the inputs and parameters "
	      "(default 1)\n"
	      "  --rtol X, --atol X    tolerances of the comparison, |a - b| "
	      "<= atol + rtol*|b|\n"
	      "                        (default: sym_exec(3)'s)\n"
	      "  --check               compare with one device (the default "
	      "and only mode)\n"
	      "  --quiet               print only errors and mismatches\n"
	      "  --auto                search the strategies of the "
	      "operators without one\n"
	      "  --memory BYTES        ... under this cap per device (KiB, "
	      "MiB, GiB)\n"
	      "  --inputs FILE         the inputs and params it names, "
	      "from safetensors\n"
	      "                        (the others are seeded; one step)\n"
	      "  --outputs FILE        write the outputs of the sharded run "
	      "(one step)\n"
	      "  --help                print this help and exit\n"
	      "  --version             print the version and exit\n"
	      "\n"
	      "Exit status: 0 every step matches, 1 invalid graph, rejected "
	      "binding or\n"
	      "mismatch, 2 usage or internal error.\n",
	    out);
}

/* Apply the option "name" with the value "val" to "o"; return 0, or
 * EXIT_USAGE after a message. */
static int
option_value(struct options *o, const char *name, const char *val)
{
	uint64_t n;

	if (!strcmp(name, "--bind")) {
		if (!strchr(val, '='))
			return tool_usage_error(&o->voice, EXIT_USAGE,
			    "--bind expects NAME=V[,NAME=V...], not", val);
		o->bind[o->n_bind++] = val;
	} else if (!strcmp(name, "--ranks")) {
		if (tool_parse_number(val, 1, &n) < 0 || n > 65536)
			return tool_usage_error(&o->voice, EXIT_USAGE,
			    "--ranks expects an integer from 1 to 65536, not",
			    val);
		o->ranks = (int64_t)n;
	} else if (!strcmp(name, "--memory")) {
		if (tool_parse_bytes(val, &o->memory) < 0)
			return tool_usage_error(&o->voice, EXIT_USAGE,
			    "--memory expects a positive number of bytes (KiB, "
			    "MiB or GiB may follow), not",
			    val);
	} else if (!strcmp(name, "--inputs") || !strcmp(name, "--outputs")) {
		const char **slot = name[2] == 'i' ? &o->inputs : &o->outputs;

		if (*slot)
			return tool_usage_error(&o->voice, EXIT_USAGE,
			    name[2] == 'i' ? "--inputs given twice:"
			                   : "--outputs given twice:",
			    val);
		*slot = val;
	} else if (!strcmp(name, "--seed")) {
		if (tool_parse_number(val, 0, &n) < 0)
			return tool_usage_error(&o->voice, EXIT_USAGE,
			    "--seed expects an unsigned 64-bit integer, not",
			    val);
		o->seed = n;
	} else if (!strcmp(name, "--rtol") || !strcmp(name, "--atol")) {
		if (tool_parse_tolerance(val,
		        name[2] == 'r' ? &o->rtol : &o->atol) < 0)
			return tool_usage_error(&o->voice, EXIT_USAGE,
			    name[2] == 'r'
			        ? "--rtol expects a positive number, not"
			        : "--atol expects a positive number, not",
			    val);
	} else if (o->backend) {
		return tool_usage_error(&o->voice, EXIT_USAGE,
		    "--backend given twice:", val);
	} else if (!strcmp(val, "threads") || !strcmp(val, "mpi")) {
		o->backend = val;
		o->mpi = !strcmp(val, "mpi");
	} else {
		return tool_usage_error(&o->voice, EXIT_USAGE,
		    "--backend expects threads or mpi, not", val);
	}
	return 0;
}

/* Read the command line "argv" of "argc" words into "o". Return -1 to go
 * on, or the exit status when the program is done (help, version, usage
 * error). */
static int
parse_args(int argc, char **argv, struct options *o)
{
	static const char *const valued[] = { "--bind", "--ranks", "--backend",
		"--seed", "--rtol", "--atol", "--memory", "--inputs",
		"--outputs" };
	int only_files = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *val;

		if (only_files || a[0] != '-') {
			if (o->file)
				return tool_usage_error(&o->voice, EXIT_USAGE,
				    "more than one file:", a);
			o->file = a;
		} else if (!strcmp(a, "--")) {
			only_files = 1;
		} else if (!strcmp(a, "--help")) {
			if (o->voice.speak)
				usage(stdout);
			return EXIT_MATCH;
		} else if (!strcmp(a, "--version")) {
			if (o->voice.speak)
				printf(PROG " (symshard) %s\n", sym_version());
			return EXIT_MATCH;
		} else if (!strcmp(a, "--check")) {
			continue;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
		} else if (!strcmp(a, "--auto")) {
			o->autop = 1;
		} else if ((name = tool_valued_option(a, valued,
		                sizeof(valued) / sizeof(valued[0]))) != NULL) {
			if (a[strlen(name)] == '=')
				val = a + strlen(name) + 1;
			else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2))
				val = argv[++i];
			else
				return tool_usage_error(&o->voice, EXIT_USAGE,
				    "a value is missing after", name);
			if (option_value(o, name, val) != 0)
				return EXIT_USAGE;
		} else {
			return tool_usage_error(&o->voice, EXIT_USAGE,
			    "unknown option", a);
		}
	}
	if (!o->file)
		return tool_usage_error(&o->voice, EXIT_USAGE,
		    "no graph file given", NULL);
	if ((o->inputs || o->outputs) && o->n_bind > 1)
		return tool_usage_error(&o->voice, EXIT_USAGE,
		    o->inputs
		        ? "--inputs runs one step: give at most one --bind"
		        : "--outputs runs one step: give at most one "
		          "--bind",
		    NULL);
	return -1;
}

/* Return the exit status of the failure left on "ctx": EXIT_USAGE for
 * what is no fault of the input (memory, input/output, internal errors),
 * else EXIT_FAIL. */
static int
failure_status(const sym_ctx *ctx)
{
	switch (sym_ctx_last_error(ctx)) {
	case SYM_ENOMEM:
	case SYM_EINTERNAL:
	case SYM_EIO:
	case SYM_OK:
		return EXIT_USAGE;
	default:
		return EXIT_FAIL;
	}
}

/* Print, when "o" speaks, the diagnostics of the graph of "r" to stderr
 * as the library formats them (with --quiet only the errors); 0, or -1
 * when out of memory. */
static int
print_diagnostics(const struct run *r, const struct options *o)
{
	size_t n = sym_graph_n_diagnostics(r->g);

	for (size_t i = 0; o->voice.speak && i < n; i++) {
		const sym_diagnostic *d = sym_graph_diagnostic(r->g, i);
		char *text;

		if (o->quiet && d->severity != SYM_SEV_ERROR)
			continue;
		text = sym_diagnostic_format(r->g, d);
		if (!text)
			return -1;
		fprintf(stderr, "%s\n", text);
		free(text);
	}
	return 0;
}

/* Keep in "o" the first error diagnostic of the graph of "r" for the
 * other processes (printed already with the others). */
static void
note_first_error(const struct run *r, struct options *o)
{
	size_t n = sym_graph_n_diagnostics(r->g);

	for (size_t i = 0; i < n; i++) {
		const sym_diagnostic *d = sym_graph_diagnostic(r->g, i);
		char *text;

		if (d->severity != SYM_SEV_ERROR)
			continue;
		text = sym_diagnostic_format(r->g, d);
		if (text)
			tool_note(&o->voice, 0, 0, "%s", text);
		free(text);
		return;
	}
}

/* Differentiate the training graph "g" and make the gradients of the
 * params it trains outputs too, so that every step checks the backward
 * pass against one device as well as the loss (errors are left on the
 * graph, which the caller reports). */
static void
check_gradients(sym_graph *g)
{
	if (sym_graph_differentiate(g) < 0)
		return;
	for (size_t i = 0; i < sym_graph_n_trained(g); i++)
		sym_graph_mark_output(g,
		    sym_value_grad(sym_graph_trained(g, i)), NULL);
}

/* Return the sizes the first --bind of "o" gives (the strategy search's
 * piece that covers them runs), NULL when there is none or it does not
 * parse (reported later). */
static sym_binding *
first_binding(const struct run *r, const struct options *o)
{
	sym_binding *b;

	if (!o->n_bind || sym_ctx_n_symbols(r->ctx) == 0 ||
	    bind_arg_error(o->bind[0]))
		return NULL;
	b = sym_binding_new(r->ctx);
	if (b && sym_binding_parse(b, o->bind[0], NULL) < 0) {
		sym_binding_free(b);
		b = NULL;
	}
	sym_ctx_clear_error(r->ctx);
	return b;
}

/* Read, check and shard the graph of "o" into "r" on the ranks "o" asks
 * for (on mpi, those of the communicator), printing its diagnostics;
 * return -1 to go on, or the exit status. */
static int
load_graph(struct run *r, struct options *o)
{
	int64_t n;
	int status;

	if (tool_is_onnx(o->file)) {
		sym_onnx_stats st = SYM_ONNX_STATS_INIT;

		r->g = sym_onnx_read(r->ctx, o->file, &st);
	} else {
		r->g = sym_graph_parse_file(r->ctx, o->file);
	}
	if (!r->g)
		return tool_note(&o->voice, 1, EXIT_USAGE, "%s",
		    sym_ctx_last_message(r->ctx));
	r->devices = sym_graph_n_devices(r->g);
	if (r->devices < 1)
		r->devices = 1;
	r->ranks = o->ranks ? o->ranks : r->devices;
	if (r->comm) {
		n = sym_comm_n_ranks(r->comm);
		if (o->ranks && o->ranks != n)
			return tool_note(&o->voice, 1, EXIT_USAGE,
			    "--ranks %" PRId64 ", but mpirun started %" PRId64
			    " processes",
			    o->ranks, n);
		r->ranks = n;
	}
	if (sym_graph_n_errors(r->g) == 0) {
		if (r->ranks != r->devices &&
		    sym_graph_set_devices(r->g, r->ranks, NULL) < 0)
			return tool_note(&o->voice, 1, EXIT_USAGE, "%s",
			    sym_ctx_last_message(r->ctx));
		if (sym_graph_loss(r->g))
			check_gradients(r->g);
		sym_binding *at = first_binding(r, o);

		status = tool_shard(&o->voice, r->g, o->autop, o->memory, at,
		    EXIT_FAIL);
		sym_binding_free(at);
		if (status)
			return status;
	}
	if (print_diagnostics(r, o) < 0)
		return tool_note(&o->voice, 1, EXIT_USAGE, "out of memory");
	if (sym_graph_n_errors(r->g) == 0)
		return -1;
	note_first_error(r, o);
	if (r->ranks != r->devices)
		return tool_note(&o->voice, 1, EXIT_FAIL,
		    "%s cannot run on %" PRId64 " rank%s: its strategies are "
		    "for %" PRId64 " device%s (see the errors above); run it "
		    "%s%" PRId64 "%s",
		    o->file, r->ranks, r->ranks == 1 ? "" : "s", r->devices,
		    r->devices == 1 ? "" : "s",
		    r->comm ? "with mpirun -n " : "on ", r->devices,
		    r->comm ? "" : " ranks");
	return tool_note(&o->voice, 1, EXIT_FAIL, "%s is invalid: nothing runs",
	    o->file);
}

/* Read the --inputs file of "o" into "r" and make the table of its
 * --outputs, whose path must be writable; return -1 to go on, or the
 * exit status after a message. */
static int
open_files(struct run *r, struct options *o)
{
	if (o->inputs) {
		r->inputs = sym_checkpoint_read(r->ctx, o->inputs);
		if (!r->inputs)
			return tool_note(&o->voice, 1, failure_status(r->ctx),
			    "--inputs %s: %s", o->inputs,
			    sym_ctx_last_message(r->ctx));
	}
	if (!o->outputs)
		return -1;
	if (sym_checkpoint_check_path(r->ctx, o->outputs) < 0)
		return tool_note(&o->voice, 1, EXIT_USAGE, "--outputs %s: %s",
		    o->outputs, sym_ctx_last_message(r->ctx));
	r->outputs = sym_checkpoint_new(r->ctx);
	return r->outputs
	    ? -1
	    : tool_note(&o->voice, 1, EXIT_USAGE, "out of memory");
}

/* Compile the sharded and the single-device plans of "r"; return -1 to
 * go on, or the exit status after a message. */
static int
compile_plans(struct run *r, struct options *o)
{
	r->plan = sym_plan_compile(r->g, 0);
	if (r->plan)
		r->single = sym_plan_compile(r->g, SYM_PLAN_SINGLE);
	if (r->single)
		return -1;
	return tool_note(&o->voice, 1, failure_status(r->ctx),
	    "%s: cannot compile the %s plan: %s", o->file,
	    r->plan ? "single-device" : "sharded",
	    sym_ctx_last_message(r->ctx));
}

/* Return the malloc'ed names of the symbols a binding of "p" must give,
 * "b, s", or NULL when out of memory. */
static char *
symbol_names(const sym_plan *p)
{
	size_t n = sym_plan_n_symbols(p), len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(sym_symbol_name(sym_plan_symbol(p, i))) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, sym_symbol_name(sym_plan_symbol(p, i)));
	}
	return s;
}

/* Read the bindings of "o" into the steps of "r" (one step with no size
 * when there is no --bind) and bind each to the sharded plan, printing
 * every one rejected; return -1 to go on, or the exit status. Nothing
 * runs unless every binding is accepted. */
static int
bind_steps(struct run *r, struct options *o)
{
	size_t n = o->n_bind ? o->n_bind : 1;
	int status = -1;

	if (o->n_bind == 0 && sym_plan_n_symbols(r->plan) > 0) {
		char *names = symbol_names(r->plan);

		tool_note(&o->voice, 1, EXIT_USAGE,
		    "%s has dynamic sizes: give %s with --bind NAME=V", o->file,
		    names ? names : "them");
		free(names);
		return tool_usage_error(&o->voice, EXIT_USAGE,
		    "no --bind given", NULL);
	}
	r->step = calloc(n, sizeof(*r->step));
	if (!r->step)
		return tool_note(&o->voice, 0, EXIT_USAGE, "out of memory");
	r->n_step = n;
	for (size_t i = 0; i < n; i++) {
		struct step *st = &r->step[i];

		st->b = sym_binding_new(r->ctx);
		if (!st->b)
			return tool_note(&o->voice, 0, EXIT_USAGE,
			    "out of memory");
		if (o->n_bind && bind_arg_error(o->bind[i])) {
			char msg[256];

			snprintf(msg, sizeof(msg), "--bind '%s': %s",
			    o->bind[i], bind_arg_error(o->bind[i]));
			return tool_usage_error(&o->voice, EXIT_USAGE, msg,
			    NULL);
		}
		if (o->n_bind && sym_binding_parse(st->b, o->bind[i], NULL)) {
			if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
				return tool_note(&o->voice, 0, EXIT_USAGE,
				    "out of memory");
			return tool_usage_error(&o->voice, EXIT_USAGE,
			    sym_ctx_last_message(r->ctx), NULL);
		}
		st->text = sym_binding_to_str(st->b);
		st->s = sym_slices_new(r->plan);
		if (!st->text || !st->s)
			return tool_note(&o->voice, 0, EXIT_USAGE,
			    "out of memory");
		if (sym_plan_bind(r->plan, st->b, st->s) == 0)
			continue;
		status = tool_note(&o->voice, 1, EXIT_FAIL, "%s: rejected: %s",
		    st->text[0] ? st->text : "no sizes",
		    sym_slices_error(st->s));
	}
	if (status == EXIT_FAIL && o->voice.speak)
		fprintf(stderr, PROG ": nothing runs\n");
	return status;
}

/* Return the FNV-1a hash of the number and the bindings of the steps of
 * "r", in order. */
static uint64_t
steps_hash(const struct run *r)
{
	uint64_t h = TOOL_FNV_BASIS ^ (uint64_t)r->n_step;

	for (size_t i = 0; i < r->n_step; i++)
		h = tool_fnv1a(h, r->step[i].text, strlen(r->step[i].text) + 1);
	return h;
}

/* Print, when "o" speaks, that rank "k" runs another plan than rank 0:
 * "fp" holds the plan, steps and seed of every rank, three a rank. */
static void
tell_different(const struct options *o, const uint64_t *fp, int k)
{
	static const char *const what[] = { "the plan", "the --bind steps",
		"the seed" };
	const char *part[3];
	size_t n = 0;

	for (size_t j = 0; j < 3; j++)
		if (fp[3 * (size_t)k + j] != fp[j])
			part[n++] = what[j];
	if (!o->voice.speak)
		return;
	fprintf(stderr, PROG ": rank %d runs a different plan (", k);
	for (size_t j = 0; j < n; j++)
		fprintf(stderr, "%s%s",
		    j == 0          ? ""
		        : j + 1 < n ? ", "
		                    : " and ",
		    part[j]);
	fprintf(stderr, " differ%s from rank 0's)\n" PROG ": nothing runs\n",
	    n == 1 && part[0] != what[1] ? "s" : "");
}

/*
 * On the mpi backend of "r", through "ep", before the first step: every
 * process compares the fingerprints of its plan (sym_plan_fingerprint),
 * its steps and its seed with those of the others, so that a process
 * that would call other collectives stops them all instead of leaving
 * them waiting. Return -1 to go on, else EXIT_USAGE on every process,
 * rank 0 saying which is the lowest rank that differs and in what.
 */
static int
agree_plan(struct run *r, const struct options *o, sym_comm_endpoint *ep)
{
	int n = sym_comm_n_ranks(r->comm);
	uint64_t mine[3], *all = calloc((size_t)(n > 0 ? n : 1), sizeof(mine));
	int k = 1;

	mine[0] = sym_plan_fingerprint(r->plan);
	mine[1] = steps_hash(r);
	mine[2] = o->seed;
	if (!all || mine[0] == 0 ||
	    sym_comm_all_gather(ep, NULL, 0, mine, all, sizeof(mine)) < 0) {
		if (o->voice.speak)
			fprintf(stderr, PROG ": %s\n",
			    all ? sym_ctx_last_message(r->ctx)
			        : "out of memory");
		free(all);
		return EXIT_USAGE;
	}
	while (k < n && !memcmp(all + 3 * (size_t)k, all, sizeof(mine)))
		k++;
	if (k < n)
		tell_different(o, all, k);
	free(all);
	r->told |= k < n;
	return k < n ? EXIT_USAGE : -1;
}

/*
 * On the mpi backend of "r", agree with the other processes on the
 * outcome "status" of reading, compiling and binding here (-1: go on,
 * else the exit status), before the first step runs: when a process
 * stopped, every process stops, rank 0 printing the error of the lowest
 * rank that failed unless it printed its own. Return -1 to go on, or
 * the exit status: this process's own, else the highest of those that
 * stopped.
 */
static int
agree_setup(struct run *r, struct options *o, int status)
{
	sym_comm_endpoint *ep;
	int32_t mine = status < 0 ? 0 : status + 1, top = 0;
	sym_error code = status <= 0 ? SYM_OK : sym_ctx_last_error(r->ctx);

	ep = sym_comm_attach(r->ctx, r->comm, sym_comm_rank(r->comm));
	if (!ep ||
	    sym_comm_all_reduce(ep, NULL, 0, &mine, &top, 1, SYM_DT_I32,
	        SYM_REDUCE_MAX) < 0) {
		if (o->voice.speak)
			fprintf(stderr, PROG ": %s\n",
			    sym_ctx_last_message(r->ctx));
		sym_comm_detach(ep);
		return EXIT_USAGE;
	}
	if (status > 0 && code == SYM_OK)
		code = SYM_EINVAL;
	/* top 1: the processes that stopped are done (--help), none failed */
	if (top > 1 &&
	    sym_comm_agree(ep, code, o->voice.why[0] ? o->voice.why : NULL) <
	        0 &&
	    status < 0 && o->voice.speak)
		fprintf(stderr, PROG ": %s\n" PROG ": nothing runs\n",
		    sym_ctx_last_message(r->ctx));
	if (status < 0 && top == 0)
		status = agree_plan(r, o, ep);
	sym_comm_detach(ep);
	if (status >= 0 || top == 0)
		return status;
	return top - 1;
}

/* Called by rank 0 after step "i" (from 0) of the "n" steps of its
 * sharded run: once the step of the struct progress "arg" has lasted a
 * second, show on the terminal how many steps are done, at most ten times
 * a second, and after the last one that the single-device run goes on. */
static void
show_progress(void *arg, size_t i, size_t n)
{
	struct progress *pg = arg;
	double t = tool_now();
	char line[256];
	int len;

	if (t - pg->start < 1.0 || (i + 1 < n && t - pg->last < 0.1))
		return;
	pg->last = t;
	if (i + 1 < n)
		len = snprintf(line, sizeof(line),
		    PROG ": %s: sharded step %zu of %zu", pg->label, i + 1, n);
	else
		len = snprintf(line, sizeof(line),
		    PROG ": %s: %zu sharded steps done, running on one device",
		    pg->label, n);
	fprintf(stderr, "\r%-*s", pg->shown, line);
	if (len > pg->shown)
		pg->shown =
		    len < (int)sizeof(line) ? len : (int)sizeof(line) - 1;
	fflush(stderr);
}

/* Erase what show_progress left on the line of "pg". */
static void
clear_progress(struct progress *pg)
{
	if (pg->shown)
		fprintf(stderr, "\r%*s\r", pg->shown, "");
	pg->shown = 0;
}

/* Return "s" seconds as "5.57 us", "1.20 ms" or "2.31 s" in "buf" of
 * "size" bytes. */
static const char *
seconds_text(char *buf, size_t size, double s)
{
	if (s < 1e-3)
		snprintf(buf, size, "%.2f us", s * 1e6);
	else if (s < 1.0)
		snprintf(buf, size, "%.2f ms", s * 1e3);
	else
		snprintf(buf, size, "%.2f s", s);
	return buf;
}

/* Print the heading of "r": the file, ranks, backend, seed, and what one
 * rank's plan holds. */
static void
print_heading(const struct run *r, const struct options *o)
{
	size_t n = sym_plan_n_steps(r->plan), kernels = 0;

	for (size_t i = 0; i < n; i++)
		if (sym_plan_get_step(r->plan, i)->kind == SYM_PLAN_KERNEL)
			kernels++;
	printf("%s: %" PRId64 " rank%s (%s), seed %" PRIu64, o->file, r->ranks,
	    r->ranks == 1 ? "" : "s", o->mpi ? "mpi" : "threads", o->seed);
	if (r->ranks != r->devices)
		printf(", the file says %" PRId64 " device%s", r->devices,
		    r->devices == 1 ? "" : "s");
	printf("\n  per rank: %zu kernel%s, %zu communication step%s; "
	       "binding: %zu instructions, %zu checks\n",
	    kernels, kernels == 1 ? "" : "s", n - kernels,
	    n - kernels == 1 ? "" : "s", sym_plan_n_instructions(r->plan),
	    sym_plan_n_checks(r->plan));
}

/* Print the result "rep" of step "st" of "r", its binding padded to
 * "width"; return 1 when it matches, else 0. The times are of one cold
 * run (fresh executors, their memory touched for the first time), and
 * say so. */
static int
print_result(const struct step *st, int width, const sym_exec_report *rep,
    const struct options *o)
{
	int ok = rep->n_mismatch == 0;
	char t1[32], t2[32];

	if (!o->voice.speak || (o->quiet && ok))
		return ok;
	printf("  %-*s  max abs %.2e  max rel %.2e  cold run: sharded %s  "
	       "single %s  %s\n",
	    width, st->text[0] ? st->text : "no sizes", rep->max_abs,
	    rep->max_rel, seconds_text(t1, sizeof(t1), rep->sharded_seconds),
	    seconds_text(t2, sizeof(t2), rep->single_seconds),
	    ok ? "ok" : "MISMATCH");
	if (!ok)
		printf("    %" PRId64 " element%s beyond tolerance; the "
		       "largest difference at %s[%" PRId64 "] (row-major)\n",
		    rep->n_mismatch, rep->n_mismatch == 1 ? "" : "s",
		    rep->worst ? sym_value_name(rep->worst) : "?",
		    rep->worst_index);
	return ok;
}

/* Run every step of "r" on its communicator, printing each result;
 * return the exit status. */
static int
run_steps(struct run *r, const struct options *o)
{
	sym_exec_options opts;
	size_t matched = 0;
	int width = 0, tty = o->voice.speak && isatty(STDERR_FILENO);

	if (!r->comm) {
		r->comm = sym_comm_threads_new(r->ctx, (int)r->ranks);
		if (!r->comm) {
			fprintf(stderr, PROG ": %s\n",
			    sym_ctx_last_message(r->ctx));
			return EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < r->n_step; i++) {
		int w = (int)strlen(r->step[i].text);

		width = w > width ? w : width;
	}
	if (o->voice.speak && !o->quiet)
		print_heading(r, o);
	memset(&opts, 0, sizeof(opts));
	opts.size = sizeof(opts);
	opts.seed = o->seed;
	opts.rtol = o->rtol;
	opts.atol = o->atol;
	opts.inputs = r->inputs;
	opts.outputs = r->outputs;
	for (size_t i = 0; i < r->n_step; i++) {
		struct step *st = &r->step[i];
		struct progress pg = { st->text, tool_now(), 0, 0 };
		sym_exec_report rep;
		int res;

		fflush(stdout);
		opts.progress = tty ? show_progress : NULL;
		opts.progress_arg = &pg;
		memset(&rep, 0, sizeof(rep));
		res = sym_exec_check(r->ctx, r->plan, r->single, r->comm, st->b,
		    &opts, &rep);
		clear_progress(&pg);
		if (res < 0) {
			sym_loc at = sym_ctx_last_location(r->ctx);

			if (o->voice.speak)
				fprintf(stderr, PROG ": %s: the run failed: ",
				    st->text[0] ? st->text : "no sizes");
			if (o->voice.speak && at.file)
				fprintf(stderr, "%s:%d:%d: ", at.file, at.line,
				    at.col);
			if (o->voice.speak)
				fprintf(stderr, "%s\n",
				    sym_ctx_last_message(r->ctx));
			r->told = 1;
			return failure_status(r->ctx);
		}
		matched += (size_t)print_result(st, width, &rep, o);
	}
	if (r->outputs && o->voice.speak &&
	    sym_checkpoint_write(r->outputs, o->outputs) < 0) {
		fprintf(stderr, PROG ": --outputs %s: %s\n", o->outputs,
		    sym_ctx_last_message(r->ctx));
		r->told = 1;
		return EXIT_USAGE;
	}
	if (o->voice.speak && !o->quiet && matched == r->n_step)
		printf("%zu step%s: every output matches the single-device "
		       "run\n",
		    r->n_step, r->n_step == 1 ? "" : "s");
	else if (o->voice.speak && matched < r->n_step)
		printf("MISMATCH in %zu of %zu step%s: the outputs differ "
		       "from the single-device run\n",
		    r->n_step - matched, r->n_step, r->n_step == 1 ? "" : "s");
	return matched == r->n_step ? EXIT_MATCH : EXIT_FAIL;
}

/* Free what "r" holds but its context; return the number of library
 * objects the context still counts, printed on stderr when "o" speaks. */
static size_t
release(struct run *r, const struct options *o)
{
	size_t live;

	for (size_t i = 0; i < r->n_step; i++) {
		sym_slices_free(r->step[i].s);
		sym_binding_free(r->step[i].b);
		free(r->step[i].text);
	}
	free(r->step);
	sym_plan_free(r->single);
	sym_plan_free(r->plan);
	sym_checkpoint_free(r->inputs);
	sym_checkpoint_free(r->outputs);
	sym_graph_free(r->g);
	sym_comm_free(r->comm);
	r->comm = NULL;
	live = sym_ctx_report_live(r->ctx, o->voice.speak ? stderr : NULL);
	return live;
}

/* Run shape-run with the command line "argv" of "argc" words; return its
 * exit status. */
int
main(int argc, char **argv)
{
	struct options o;
	struct run r;
	size_t live;
	int status;

	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	o.seed = 1;
	o.voice.speak = 1;
	o.voice.prog = PROG;
	r.ctx = sym_ctx_new();
	o.bind = calloc((size_t)argc, sizeof(*o.bind));
	if (!r.ctx || !o.bind) {
		fprintf(stderr, PROG ": out of memory\n");
		sym_ctx_free(r.ctx);
		free(o.bind);
		return EXIT_USAGE;
	}
	if (tool_wants_mpi(argc, argv) && sym_comm_mpi_available()) {
		r.comm = sym_comm_mpi_new(r.ctx, &argc, &argv);
		if (!r.comm) {
			fprintf(stderr, PROG ": %s\n",
			    sym_ctx_last_message(r.ctx));
			sym_ctx_free(r.ctx);
			free(o.bind);
			return EXIT_USAGE;
		}
		o.voice.speak = sym_comm_rank(r.comm) == 0;
	}
	status = parse_args(argc, argv, &o);
	if (status < 0 && o.mpi && !sym_comm_mpi_available()) {
		fprintf(stderr,
		    PROG ": --backend mpi: this symshard was built "
		         "without MPI (see configure --with-mpi); use "
		         "--backend threads\n");
		status = EXIT_USAGE;
	}
	if (status < 0)
		status = open_files(&r, &o);
	if (status < 0)
		status = load_graph(&r, &o);
	if (status < 0)
		status = compile_plans(&r, &o);
	if (status < 0)
		status = bind_steps(&r, &o);
	if (r.comm)
		status = agree_setup(&r, &o, status);
	if (status < 0)
		status = run_steps(&r, &o);
	if (status == EXIT_USAGE && sym_ctx_last_error(r.ctx) == SYM_ENOMEM &&
	    o.voice.speak && !r.told)
		fprintf(stderr, PROG ": out of memory\n");
	live = release(&r, &o);
	sym_ctx_free(r.ctx);
	free(o.bind);
	if (live) {
		if (o.voice.speak)
			fprintf(stderr,
			    PROG ": internal error: %zu library object%s "
			         "not released\n",
			    live, live == 1 ? "" : "s");
		status = EXIT_USAGE;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (o.voice.speak)
			fprintf(stderr, PROG ": cannot write the report: %s\n",
			    strerror(errno));
		status = EXIT_USAGE;
	}
	return status;
}
