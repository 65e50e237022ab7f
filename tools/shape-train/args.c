/* SPDX-License-Identifier: MIT */
/*
 * The command line of shape-train: its options, their checking (a
 * usage error names the option and the value) and the hash every
 * process of mpi compares.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#include "tool_args.h"
#include "args.h"

#define PROG "shape-train"

/* Print the usage summary to "out". */
static void
usage(FILE *out)
{
	fputs("usage: " PROG " FILE.sg [--dataset mnist:DIR] "
	      "[--map INPUT=COLUMN[,...]]...\n"
	      "           [--batch B[,B...]] [--epochs E | --steps K] "
	      "[--ranks N]\n"
	      "           [--backend threads|mpi] [--seed S] [--no-shuffle] "
	      "[--drop-remainder]\n"
	      "           [--check] [--check-every K] [--rtol X] [--atol X] "
	      "[--eval]\n"
	      "           [--log-every K] [--save FILE] [--load FILE] "
	      "[--json] [--quiet]\n"
	      "           [--auto] [--memory BYTES] [--rank-table FILE | "
	      "--topology FILE]\n"
	      "           [--rescale [COLUMN=]SCALE[,SHIFT]] "
	      "[--normalize [COLUMN=]MEAN/STD]\n"
	      "           [--allow-nonfinite] [--tokens-per-batch T] "
	      "[--pad-to-max]\n"
	      "           [--max-len N] [--eval-split F] [--sample N] "
	      "[--prompt TEXT]\n"
	      "       " PROG " --help | --version\n"
	      "\n"
	      "Train the training graph FILE.sg sharded on its ranks.\n"
	      "\n"
	      "  --dataset mnist:DIR   MNIST/IDX files in DIR (columns image, "
	      "label)\n"
	      "  --dataset text:FILE[,sep=S]  records separated by a line "
	      "S (default %)\n"
	      "  --dataset tokens:FILE a ragged corpus (safetensors: tokens, "
	      "offsets)\n"
	      "  --map INPUT=COLUMN    bind an input to a column (default: "
	      "in order)\n"
	      "  --batch B[,B...]      global batch sizes, cycled (default "
	      "64)\n"
	      "  --epochs E            passes over the data (default 1)\n"
	      "  --steps K             K steps instead (0 with --eval: only "
	      "evaluate)\n"
	      "  --ranks N             run on N ranks (default: the graph's "
	      "devices)\n"
	      "  --backend threads|mpi ranks are threads (default) or "
	      "processes under mpirun\n"
	      "  --seed S              seed of the params and the shuffle "
	      "(default 1)\n"
	      "  --no-shuffle          keep the file's order\n"
	      "  --drop-remainder      drop every epoch's last, shorter "
	      "batch\n"
	      "  --check               train on one device alongside and "
	      "compare\n"
	      "  --check-every K       compare the params every K steps too\n"
	      "  --rtol X, --atol X    tolerances of --check (default: "
	      "sym_exec(3)'s)\n"
	      "  --eval                evaluate on the test split after each "
	      "epoch\n"
	      "  --log-every K         a line every K steps (default 100)\n"
	      "  --save FILE           write a checkpoint (safetensors) at "
	      "the end\n"
	      "  --load FILE           start from a checkpoint\n"
	      "  --json                one JSON object per line on stdout\n"
	      "  --quiet               no progress bar, no log lines\n"
	      "  --auto                search the strategies of the "
	      "operators without one\n"
	      "  --memory BYTES        ... under this cap per device (KiB, "
	      "MiB, GiB)\n"
	      "  --rank-table FILE     the nodes of a MindSpore "
	      "rank_table.json\n"
	      "  --topology FILE       the links and compute rate the "
	      "search prices\n"
	      "  --rescale SPEC        map x * SCALE + SHIFT over a column "
	      "(default image)\n"
	      "  --normalize SPEC      map (x - MEAN) / STD over a column, "
	      "per channel\n"
	      "  --allow-nonfinite     go on after a NaN or infinite "
	      "loss\n"
	      "  --tokens-per-batch T  sequences: batches of b * s <= T "
	      "tokens, in buckets\n"
	      "  --pad-to-max          sequences: pad every record to the "
	      "largest s\n"
	      "  --max-len N           sequences: cut records to s <= N\n"
	      "  --eval-split F        sequences: hold out the last fraction "
	      "F of records\n"
	      "  --sample N            print N bytes generated after "
	      "training\n"
	      "  --prompt TEXT         ... continuing TEXT (default: a "
	      "newline)\n"
	      "\n"
	      "Exit status: 0 trained (and matched), 1 invalid graph, data, "
	      "checkpoint,\n"
	      "binding or mismatch, 2 usage or internal error.\n",
	    out);
}

/* Set the defaults of "o". */
void
train_options_init(struct train_options *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->epochs = 1;
	o->steps = -1;
	o->log_every = 100;
	o->voice.speak = 1;
	o->voice.prog = PROG;
}

/* Free what "o" holds. */
void
train_options_clear(struct train_options *o)
{
	free(o->map);
	free(o->batch);
	free(o->maps);
	free(o->dataset_spec);
	o->dataset_spec = NULL;
	o->map = NULL;
	o->batch = NULL;
	o->maps = NULL;
}

/* Read the batch sizes "val" ("64" or "64,256,32") into "o"; 0, or
 * TRAIN_EXIT_USAGE after a message. */
static int
parse_batch(struct train_options *o, const char *val)
{
	size_t n = 1;
	char *copy, *save = NULL;

	for (const char *p = val; *p; p++)
		n += *p == ',';
	if (val[0] == ',' || strstr(val, ",,"))
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--batch expects positive integers B[,B...], not", val);
	free(o->batch);
	o->batch = calloc(n, sizeof(*o->batch));
	copy = strdup(val);
	if (!o->batch || !copy) {
		free(copy);
		return tool_note(&o->voice, 1, TRAIN_EXIT_USAGE,
		    "out of memory");
	}
	o->n_batch = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t b;

		if (tool_parse_number(tok, 1, &b) < 0 || b > INT64_MAX / 2) {
			free(copy);
			return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
			    "--batch expects positive integers B[,B...], not",
			    val);
		}
		o->batch[o->n_batch++] = (int64_t)b;
	}
	free(copy);
	if (o->n_batch == 0 || val[strlen(val) - 1] == ',')
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--batch expects positive integers B[,B...], not", val);
	return 0;
}

/* Append the --map entries "val" to "o"; 0 or TRAIN_EXIT_USAGE. */
static int
add_map(struct train_options *o, const char *val)
{
	size_t old = o->map ? strlen(o->map) : 0;
	char *m;

	if (!strchr(val, '=') || val[0] == '=' || val[0] == ',')
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--map expects INPUT=COLUMN[,...], not", val);
	m = realloc(o->map, old + strlen(val) + 2);
	if (!m)
		return tool_note(&o->voice, 1, TRAIN_EXIT_USAGE,
		    "out of memory");
	if (old)
		m[old++] = ',';
	strcpy(m + old, val);
	o->map = m;
	return 0;
}

/* Append the transform "val" (a --normalize when "normalize", else a
 * --rescale) to "o", checked; 0 or TRAIN_EXIT_USAGE. */
static int
add_transform(struct train_options *o, int normalize, const char *val)
{
	double a[TRAIN_MAX_CHANNELS], b[TRAIN_MAX_CHANNELS];
	char column[128];
	size_t n;
	struct train_transform *m;

	if (train_transform_parse(val, normalize, column, sizeof(column), a, b,
	        &n) < 0)
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    normalize ? "--normalize expects "
		                "[COLUMN=]MEAN[,MEAN...]/STD[,STD...], not"
		              : "--rescale expects [COLUMN=]SCALE[,SHIFT], not",
		    val);
	m = realloc(o->maps, (o->n_maps + 1) * sizeof(*m));
	if (!m)
		return tool_note(&o->voice, 1, TRAIN_EXIT_USAGE,
		    "out of memory");
	m[o->n_maps].normalize = normalize;
	m[o->n_maps].spec = val;
	o->maps = m;
	o->n_maps++;
	return 0;
}

/* Store in "*n" the count "val" of option "name" (at least "least"); 0
 * or TRAIN_EXIT_USAGE. */
static int
count(struct train_options *o, const char *name, const char *val,
    uint64_t least, int64_t *n)
{
	uint64_t v;
	char msg[96];

	if (tool_parse_number(val, least, &v) == 0 && v <= INT64_MAX / 2) {
		*n = (int64_t)v;
		return 0;
	}
	snprintf(msg, sizeof(msg), "%s expects an integer %s, not", name,
	    least ? "of at least 1" : "of at least 0");
	return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE, msg, val);
}

/* Apply the option "name" with the value "val" to "o"; 0 or
 * TRAIN_EXIT_USAGE after a message. */
static int
option_value(struct train_options *o, const char *name, const char *val)
{
	uint64_t n;

	if (!strcmp(name, "--dataset"))
		o->dataset = val;
	else if (!strcmp(name, "--map"))
		return add_map(o, val);
	else if (!strcmp(name, "--batch"))
		return parse_batch(o, val);
	else if (!strcmp(name, "--epochs"))
		return count(o, name, val, 1, &o->epochs);
	else if (!strcmp(name, "--steps"))
		return count(o, name, val, 0, &o->steps);
	else if (!strcmp(name, "--tokens-per-batch"))
		return count(o, name, val, 1, &o->tokens_per_batch);
	else if (!strcmp(name, "--max-len"))
		return count(o, name, val, 1, &o->max_len);
	else if (!strcmp(name, "--sample"))
		return count(o, name, val, 1, &o->sample);
	else if (!strcmp(name, "--prompt"))
		o->prompt = val;
	else if (!strcmp(name, "--eval-split")) {
		char *end;

		o->eval_split = strtod(val, &end);
		if (!*val || *end || !(o->eval_split > 0) ||
		    !(o->eval_split < 1))
			return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
			    "--eval-split expects a fraction in (0, 1), not",
			    val);
	} else if (!strcmp(name, "--check-every"))
		return count(o, name, val, 1, &o->check_every);
	else if (!strcmp(name, "--log-every"))
		return count(o, name, val, 1, &o->log_every);
	else if (!strcmp(name, "--ranks")) {
		if (tool_parse_number(val, 1, &n) < 0 || n > 65536)
			return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
			    "--ranks expects an integer from 1 to 65536, not",
			    val);
		o->ranks = (int64_t)n;
	} else if (!strcmp(name, "--seed")) {
		if (tool_parse_number(val, 0, &n) < 0)
			return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
			    "--seed expects an unsigned 64-bit integer, not",
			    val);
		o->seed = n;
	} else if (!strcmp(name, "--rtol") || !strcmp(name, "--atol")) {
		if (tool_parse_tolerance(val,
		        name[2] == 'r' ? &o->rtol : &o->atol) < 0)
			return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
			    name[2] == 'r'
			        ? "--rtol expects a positive number, not"
			        : "--atol expects a positive number, not",
			    val);
	} else if (!strcmp(name, "--save")) {
		if (!*val)
			return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
			    "--save expects a file name, not", val);
		o->save = val;
	} else if (!strcmp(name, "--load"))
		o->load = val;
	else if (!strcmp(name, "--rank-table"))
		o->rank_table = val;
	else if (!strcmp(name, "--topology"))
		o->topology = val;
	else if (!strcmp(name, "--rescale") || !strcmp(name, "--normalize"))
		return add_transform(o, name[2] == 'n', val);
	else if (!strcmp(name, "--memory")) {
		if (tool_parse_bytes(val, &o->memory) < 0)
			return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
			    "--memory expects a positive number of bytes (KiB, "
			    "MiB or GiB may follow), not",
			    val);
	} else if (strcmp(val, "threads") && strcmp(val, "mpi"))
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--backend expects threads or mpi, not", val);
	else {
		o->backend = val;
		o->mpi = !strcmp(val, "mpi");
	}
	return 0;
}

/* Apply the flag "a" (an option without a value) to "o"; 1 when it is
 * one, 0 when not. */
static int
flag(struct train_options *o, const char *a)
{
	static const char *const names[] = { "--no-shuffle", "--drop-remainder",
		"--check", "--eval", "--json", "--quiet", "--auto",
		"--allow-nonfinite", "--pad-to-max" };
	int *const field[] = { &o->no_shuffle, &o->drop_remainder, &o->check,
		&o->eval, &o->json, &o->quiet, &o->autop, &o->allow_nonfinite,
		&o->pad_to_max };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(a, names[i])) {
			*field[i] = 1;
			return 1;
		}
	return 0;
}

/* Check the options of "o" for sequences and add --max-len and
 * --eval-split to the dataset's specification (o->dataset_spec); 0 or
 * TRAIN_EXIT_USAGE. */
static int
sequence_options(struct train_options *o)
{
	int seq = o->dataset &&
	    (!strncmp(o->dataset, "text:", 5) ||
	        !strncmp(o->dataset, "tokens:", 7));
	size_t n;

	if (!seq &&
	    (o->max_len || o->eval_split > 0 || o->pad_to_max ||
	        o->tokens_per_batch))
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--tokens-per-batch, --pad-to-max, --max-len and "
		    "--eval-split need a corpus of sequences (--dataset "
		    "text:FILE or tokens:FILE)",
		    NULL);
	if (!seq)
		return 0;
	n = strlen(o->dataset) + 80;
	o->dataset_spec = malloc(n);
	if (!o->dataset_spec)
		return tool_note(&o->voice, 1, TRAIN_EXIT_USAGE,
		    "out of memory");
	snprintf(o->dataset_spec, n, "%s", o->dataset);
	if (o->max_len)
		snprintf(o->dataset_spec + strlen(o->dataset_spec),
		    n - strlen(o->dataset_spec), ",max_len=%lld",
		    (long long)o->max_len);
	if (o->eval_split > 0)
		snprintf(o->dataset_spec + strlen(o->dataset_spec),
		    n - strlen(o->dataset_spec), ",eval=%.17g", o->eval_split);
	o->dataset = o->dataset_spec;
	o->eval |= o->eval_split > 0;
	return 0;
}

/* Check the combination of options of "o"; 0 or TRAIN_EXIT_USAGE. */
static int
check_combination(struct train_options *o, int gave_epochs)
{
	if (!o->file)
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "no graph file given (- reads standard input)", NULL);
	if (o->mpi && !strcmp(o->file, "-"))
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--backend mpi reads the graph from a file: the standard "
		    "input reaches only one process",
		    NULL);
	if (gave_epochs && o->steps >= 0)
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--epochs and --steps exclude each other", NULL);
	if (o->check_every && !o->check)
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--check-every needs --check", NULL);
	if ((o->rtol > 0 || o->atol > 0) && !o->check)
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--rtol and --atol need --check", NULL);
	if (o->eval && !o->dataset)
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--eval needs --dataset (its test split)", NULL);
	if (o->steps < 0 && !o->dataset && gave_epochs)
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--epochs needs --dataset (without data, give --steps)",
		    NULL);
	if (o->n_maps && !o->dataset)
		return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
		    "--rescale and --normalize need --dataset", NULL);
	if (o->steps < 0 && !o->dataset)
		o->steps = 1;
	return sequence_options(o);
}

/* Read the command line "argv" of "argc" words into "o". Return -1 to go
 * on, or the exit status when the program is done (help, version, usage
 * error). */
int
train_parse_args(int argc, char **argv, struct train_options *o)
{
	static const char *const valued[] = { "--dataset", "--map", "--batch",
		"--epochs", "--steps", "--ranks", "--backend", "--seed",
		"--check-every", "--log-every", "--rtol", "--atol", "--save",
		"--load", "--memory", "--rank-table", "--topology", "--rescale",
		"--normalize", "--tokens-per-batch", "--max-len",
		"--eval-split", "--sample", "--prompt" };
	int only_files = 0, gave_epochs = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *val;

		if (only_files || a[0] != '-' || !a[1]) {
			if (o->file)
				return tool_usage_error(&o->voice,
				    TRAIN_EXIT_USAGE, "more than one file:", a);
			o->file = a;
		} else if (!strcmp(a, "--")) {
			only_files = 1;
		} else if (!strcmp(a, "--help")) {
			if (o->voice.speak)
				usage(stdout);
			return TRAIN_EXIT_OK;
		} else if (!strcmp(a, "--version")) {
			if (o->voice.speak)
				printf(PROG " (symshard) %s\n", sym_version());
			return TRAIN_EXIT_OK;
		} else if (flag(o, a)) {
			continue;
		} else if ((name = tool_valued_option(a, valued,
		                sizeof(valued) / sizeof(valued[0])))) {
			if (a[strlen(name)] == '=')
				val = a + strlen(name) + 1;
			else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2))
				val = argv[++i];
			else
				return tool_usage_error(&o->voice,
				    TRAIN_EXIT_USAGE,
				    "a value is missing after", name);
			gave_epochs |= !strcmp(name, "--epochs");
			if (option_value(o, name, val) != 0)
				return TRAIN_EXIT_USAGE;
		} else {
			return tool_usage_error(&o->voice, TRAIN_EXIT_USAGE,
			    "unknown option", a);
		}
	}
	return check_combination(o, gave_epochs) ? TRAIN_EXIT_USAGE : -1;
}

/* Return a hash of the options of "o" every process must share. */
uint64_t
train_options_hash(const struct train_options *o)
{
	const char *text[] = { o->file, o->dataset, o->map, o->save, o->load,
		o->rank_table, o->prompt, o->topology };
	int64_t nums[] = { o->epochs, o->steps, o->eval, o->json, o->log_every,
		o->autop, o->memory, o->allow_nonfinite, o->tokens_per_batch,
		o->pad_to_max, o->sample };
	uint64_t h = TOOL_FNV_BASIS;

	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		const char *c = text[i] ? text[i] : "";

		h = tool_fnv1a(h, c, strlen(c) + 1);
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		for (size_t b = 0; b < 8; b++) {
			unsigned char byte =
			    (unsigned char)((uint64_t)nums[i] >> (8 * b));

			h = tool_fnv1a(h, &byte, 1);
		}
	return h;
}
