/* SPDX-License-Identifier: MIT */
/*
 * shape-check: parse a graph file (symshard-graph(5)), infer its shapes,
 * shard it on its devices and report both, readable or as JSON
 * (shape-check(1)); draw the layout of tensors (--draw) and the sharded
 * graph (--dot); evaluate the slice plan at the sizes --bind gives
 * (--rank). A thin wrapper over the library: the checking is
 * sym_graph_parse_file's, the sharding sym_graph_shard's, the slices
 * sym_plan_bind's.
 *
 * Exit status: 0 valid, 1 invalid input (diagnostics printed), 2 usage
 * or internal error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bind_arg.h"
#include "tool_args.h"
#include "report.h"

#define PROG "shape-check"

enum {
	EXIT_VALID = 0,
	EXIT_INVALID = 1,
	EXIT_USAGE = 2
};

/* A --draw TENSOR=FILE.svg request. */
struct draw {
	const char *value; /* the name, "len" bytes */
	size_t len;
	const char *file;
};

/* The command line. */
struct options {
	const char *file;
	int json;
	int strict;
	int64_t devices;        /* 0: as the file says */
	const char *topology;   /* --topology FILE */
	const char *rank_table; /* --rank-table FILE */
	struct draw *draw;      /* --draw, in the order given */
	size_t n_draw;
	const char *dot;   /* --dot FILE */
	const char **bind; /* --bind NAME=V[,NAME=V...], in the order given */
	size_t n_bind;
	int64_t rank;        /* --rank R, or -1 */
	int autop;           /* --auto: search the strategies */
	int64_t memory;      /* --memory BYTES, or 0 */
	const char **symbol; /* --symbol NAME:K=V,..., in the order given */
	size_t n_symbol;
};

/* Print the usage summary to "out". */
static void
usage(FILE *out)
{
	fputs(
	    "usage: " PROG " FILE.sg [--json] [--strict] [--devices N]\n"
	    "           [--topology FILE | --rank-table FILE]\n"
	    "           [--draw TENSOR=FILE.svg]... [--dot FILE]\n"
	    "           [--bind NAME=V[,NAME=V]...]... [--rank R]\n"
	    "           [--auto] [--memory BYTES]\n"
	    "           [--symbol NAME:divisor=D,min=A,max=B,remainder=R]...\n"
	    "       " PROG " --help | --version\n"
	    "\n"
	    "Parse the graph FILE.sg (- for standard input) or the ONNX "
	    "model FILE.onnx,\n"
	    "infer every "
	    "shape over its\n"
	    "symbolic sizes, shard it on its devices and report symbols, "
	    "values, layouts,\n"
	    "strategies, communication, relations, guards and "
	    "assertions.\n"
	    "\n"
	    "  --json                  print the report as one JSON "
	    "object\n"
	    "  --strict                undecided requirements and "
	    "assertions are errors\n"
	    "  --devices N             use N devices instead of the "
	    "file's 'devices'\n"
	    "  --topology FILE         price communication on the "
	    "topology of FILE\n"
	    "  --rank-table FILE       ... or on the nodes of a MindSpore "
	    "rank_table.json\n"
	    "  --draw TENSOR=FILE.svg  draw which rank holds which block "
	    "of TENSOR\n"
	    "  --dot FILE              write the sharded graph to FILE "
	    "(Graphviz)\n"
	    "  --bind NAME=V           evaluate the slice plan with symbol "
	    "NAME = V\n"
	    "                          (repeatable; NAME=V,NAME2=V2 "
	    "works too)\n"
	    "  --rank R                print the slices of rank R only "
	    "(with --bind)\n"
	    "  --auto                  search the strategies of the "
	    "operators without one\n"
	    "  --memory BYTES          ... under this cap per device "
	    "(KiB, MiB, GiB)\n"
	    "  --symbol NAME:K=V,...   constrain the ONNX dimension "
	    "parameter NAME\n"
	    "                          (divisor, remainder, min, max; "
	    "repeatable)\n"
	    "  --help                  print this help and exit\n"
	    "  --version               print the version and exit\n"
	    "\n"
	    "Exit status: 0 valid, 1 invalid input, 2 usage or internal "
	    "error.\n",
	    out);
}

/* Print the usage error "msg" about "what" and a pointer to --help on
 * stderr; return EXIT_USAGE. */
static int
usage_error(const char *msg, const char *what)
{
	fprintf(stderr, PROG ": %s%s%s%s\n", msg, what ? " '" : "",
	    what ? what : "", what ? "'" : "");
	fputs("Try '" PROG " --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

/* Store in "*n" the positive integer written in "s"; 0, or -1 when "s"
 * is not one. */
static int
parse_count(const char *s, int64_t *n)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 1)
		return -1;
	*n = v;
	return 0;
}

/* Return the name of the option of "arg" ("--bind" of "--bind=x") that
 * takes a value, or NULL when "arg" is not such an option. */
static const char *
valued_option(const char *arg)
{
	static const char *const names[] = { "--devices", "--bind", "--rank",
		"--draw", "--dot", "--topology", "--rank-table", "--memory",
		"--symbol" };

	return tool_valued_option(arg, names, sizeof(names) / sizeof(names[0]));
}

/* Apply the option "name" with the value "val" to "o"; return 0, or
 * EXIT_USAGE after a message. */
static int
option_value(struct options *o, const char *name, const char *val)
{
	const char *eq;

	if (!strcmp(name, "--devices")) {
		if (parse_count(val, &o->devices) < 0)
			return usage_error("--devices expects a positive "
			                   "integer, not",
			    val);
	} else if (!strcmp(name, "--topology")) {
		o->topology = val;
	} else if (!strcmp(name, "--memory")) {
		if (tool_parse_bytes(val, &o->memory) < 0)
			return usage_error("--memory expects a positive number "
			                   "of bytes (KiB, MiB or GiB may "
			                   "follow), not",
			    val);
	} else if (!strcmp(name, "--rank-table")) {
		o->rank_table = val;
	} else if (!strcmp(name, "--dot")) {
		o->dot = val;
	} else if (!strcmp(name, "--draw")) {
		eq = strchr(val, '=');
		if (!eq || eq == val || !eq[1])
			return usage_error("--draw expects TENSOR=FILE.svg, "
			                   "not",
			    val);
		o->draw[o->n_draw].value = val;
		o->draw[o->n_draw].len = (size_t)(eq - val);
		o->draw[o->n_draw++].file = eq + 1;
	} else if (!strcmp(name, "--bind")) {
		eq = strchr(val, '=');
		if (!eq || eq == val)
			return usage_error("--bind expects NAME=VALUE, not",
			    val);
		o->bind[o->n_bind++] = val;
	} else if (!strcmp(name, "--symbol")) {
		o->symbol[o->n_symbol++] = val;
	} else if (!strcmp(name, "--rank")) {
		if (!strcmp(val, "0"))
			o->rank = 0;
		else if (parse_count(val, &o->rank) < 0)
			return usage_error("--rank expects a rank (an integer "
			                   "from 0), not",
			    val);
	}
	return 0;
}

/* Declare the symbols of the --symbol options of "o" on "ctx" (unique,
 * with the constraints given); 0, or -1 with the error on "ctx". */
static int
declare_symbols(sym_ctx *ctx, const struct options *o)
{
	for (size_t i = 0; i < o->n_symbol; i++) {
		sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
		const char *spec = o->symbol[i], *colon = strchr(spec, ':');
		size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
		char name[128];
		int ok = len > 0 && len < sizeof(name);

		info.unique = 1;
		for (const char *p = colon ? colon + 1 : NULL; ok && p && *p;) {
			const char *end = strchr(p, ',');
			size_t n = end ? (size_t)(end - p) : strlen(p);
			char *stop;
			const char *eq = memchr(p, '=', n);
			long long v = eq ? strtoll(eq + 1, &stop, 10) : 0;
			size_t k = eq ? (size_t)(eq - p) : 0;

			ok = eq && stop == p + n && stop != eq + 1;
			if (ok && k == 7 && !strncmp(p, "divisor", 7))
				info.divisor = v;
			else if (ok && k == 9 && !strncmp(p, "remainder", 9))
				info.remainder = v;
			else if (ok && k == 3 && !strncmp(p, "min", 3))
				info.min = v;
			else if (ok && k == 3 && !strncmp(p, "max", 3))
				info.max = v;
			else
				ok = 0;
			p = end ? end + 1 : p + n;
		}
		if (!ok) {
			usage_error("--symbol expects NAME:divisor=D,min=A,"
			            "max=B,remainder=R, not",
			    spec);
			sym_ctx_clear_error(ctx);
			return -1;
		}
		memcpy(name, spec, len);
		name[len] = 0;
		if (!sym_symbol_new(ctx, name, &info, NULL)) {
			fprintf(stderr, PROG ": --symbol %s: %s\n", spec,
			    sym_ctx_last_message(ctx));
			return -1;
		}
	}
	return 0;
}

/* Whether "file" is an ONNX model: named .onnx, or starting as one. */
static int
is_onnx(const char *file)
{
	size_t n = strlen(file);
	unsigned char head[2];
	FILE *f;
	int yes = 0;

	if (n > 5 && !strcmp(file + n - 5, ".onnx"))
		return 1;
	if (!strcmp(file, "-") || !(f = fopen(file, "rb")))
		return 0;
	yes = fread(head, 1, 2, f) == 2 && sym_onnx_is_model(head, 2);
	fclose(f);
	return yes;
}

/* Read the ONNX model of "o" and print what the import found (text
 * reports only); the graph, or NULL with the error on "ctx". */
static sym_graph *
read_onnx(sym_ctx *ctx, const struct options *o)
{
	sym_onnx_stats st = SYM_ONNX_STATS_INIT;
	sym_graph *g = sym_onnx_read(ctx, o->file, &st);

	if (g && !o->json)
		printf("onnx: opset %lld, %zu nodes (%zu folded as shape "
		       "values), %zu values, %zu symbolic dimensions, %zu "
		       "lost\n\n",
		    (long long)st.opset, st.nodes, st.folded, st.values,
		    st.symbolic_dims, st.lost_dims);
	return g;
}

/* Read the command line "argv" of "argc" words into "o". Return -1 to go
 * on, or the exit status when the program is done (help, version, usage
 * error). */
static int
parse_args(int argc, char **argv, struct options *o)
{
	int only_files = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *val;

		if (only_files || a[0] != '-' || !strcmp(a, "-")) {
			if (o->file)
				return usage_error("more than one file:", a);
			o->file = a;
		} else if (!strcmp(a, "--")) {
			only_files = 1;
		} else if (!strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_VALID;
		} else if (!strcmp(a, "--version")) {
			printf(PROG " (symshard) %s\n", sym_version());
			return EXIT_VALID;
		} else if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--strict")) {
			o->strict = 1;
		} else if (!strcmp(a, "--auto")) {
			o->autop = 1;
		} else if ((name = valued_option(a)) != NULL) {
			if (a[strlen(name)] == '=')
				val = a + strlen(name) + 1;
			else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2))
				val = argv[++i];
			else
				return usage_error("a value is missing after",
				    name);
			if (option_value(o, name, val) != 0)
				return EXIT_USAGE;
		} else {
			return usage_error("unknown option", a);
		}
	}
	if (!o->file)
		return usage_error("no graph file given (- reads standard "
		                   "input)",
		    NULL);
	if (o->topology && o->rank_table)
		return usage_error("--topology and --rank-table exclude each "
		                   "other",
		    NULL);
	return -1;
}

/* Print every diagnostic of the graph of "r" to stderr as the library
 * formats it, with --strict applied to its severity; 0, or -1 when out of
 * memory. */
static int
print_diagnostics(const struct report *r)
{
	size_t n = sym_graph_n_diagnostics(r->g);

	for (size_t i = 0; i < n; i++) {
		sym_diagnostic d = *sym_graph_diagnostic(r->g, i);
		char *text;

		d.severity = report_severity(r, &d);
		text = sym_diagnostic_format(r->g, &d);
		if (!text)
			return -1;
		fprintf(stderr, "%s\n", text);
		free(text);
	}
	return 0;
}

/* Return the topology "o" names, read in "ctx", or NULL when it names
 * none; set "*bad" and print why when it cannot be read. */
static sym_topology *
load_topology(sym_ctx *ctx, const struct options *o, int *bad)
{
	const char *path = o->topology ? o->topology : o->rank_table;
	sym_topology *t;
	sym_loc at;

	if (!path)
		return NULL;
	t = o->topology ? sym_topology_parse_file(ctx, path)
	                : sym_topology_parse_rank_table(ctx, path);
	if (t)
		return t;
	at = sym_ctx_last_location(ctx);
	if (o->topology && at.line > 0)
		fprintf(stderr, PROG ": %s:%d:%d: %s\n",
		    at.file ? at.file : path, at.line, at.col,
		    sym_ctx_last_message(ctx));
	else if (at.line > 0)
		fprintf(stderr, PROG ": %s (line %d, column %d)\n",
		    sym_ctx_last_message(ctx), at.line, at.col);
	else
		fprintf(stderr, PROG ": %s\n", sym_ctx_last_message(ctx));
	*bad = 1;
	return NULL;
}

/* Return 0 when the topology of "r" places every rank of its graph, else
 * print which one it does not and return EXIT_USAGE. */
static int
check_topology(const struct report *r, const struct options *o)
{
	int64_t n = sym_graph_n_devices(r->g);

	for (int64_t rank = 0; r->topo && rank < (n > 0 ? n : 1); rank++) {
		if (sym_topology_node_of(r->topo, rank) >= 0)
			continue;
		fprintf(stderr,
		    PROG ": %s places no rank %lld, but the graph has %lld "
		         "devices\n",
		    o->topology ? o->topology : o->rank_table, (long long)rank,
		    (long long)n);
		return EXIT_USAGE;
	}
	return 0;
}

/* The name of the temporary file "path" is written to before it is
 * renamed into place ("PATH.tmp"), or NULL when out of memory. */
static char *
temp_name(const char *path)
{
	size_t n = strlen(path);
	char *t = malloc(n + 5);

	if (t) {
		memcpy(t, path, n);
		memcpy(t + n, ".tmp", 5);
	}
	return t;
}

/* Write "path"'s temporary file "tmp" with "emit" (the report "r" and,
 * for a picture, the value "v"); 0, or EXIT_USAGE after a message (and
 * the temporary file removed). */
static int
write_temp(const struct report *r, const sym_value *v, const char *path,
    const char *tmp,
    int (*emit)(const struct report *, const sym_value *, FILE *))
{
	FILE *f = fopen(tmp, "w");
	int res, err;

	if (!f) {
		fprintf(stderr, PROG ": cannot write '%s': %s\n", path,
		    strerror(errno));
		return EXIT_USAGE;
	}
	res = emit(r, v, f);
	err = ferror(f);
	if (fclose(f) != 0)
		err = 1;
	if (err || res < 0) {
		fprintf(stderr, PROG ": cannot write '%s': %s\n", path,
		    res < 0 ? "out of memory" : strerror(errno));
		remove(tmp);
		return EXIT_USAGE;
	}
	return 0;
}

/* Write the picture of "v" of "r" to "out" (for write_temp). */
static int
write_svg(const struct report *r, const sym_value *v, FILE *out)
{
	return report_svg(r, v, out);
}

/* Write the graph of "r" to "out" (for write_temp). */
static int
write_dot(const struct report *r, const sym_value *v, FILE *out)
{
	(void)v;
	return report_dot(r, out);
}

/* One file --draw or --dot asks for. */
struct out_file {
	const char *path;
	char *tmp;          /* its temporary file once written, or NULL */
	const sym_value *v; /* the value drawn; NULL for --dot */
};

/* Resolve the values the --draw options of "o" name into "files" (*n of
 * them: a value without a layout, because the graph has errors, is not
 * drawn, and said so); 0, or EXIT_USAGE after a message when one names no
 * value. */
static int
resolve_draws(const struct report *r, const struct options *o,
    struct out_file *files, size_t *n)
{
	int status = 0;

	for (size_t i = 0; i < o->n_draw; i++) {
		const struct draw *d = &o->draw[i];
		char *name = strndup(d->value, d->len);
		sym_value *v = name ? sym_graph_find_value(r->g, name) : NULL;

		if (!name) {
			fprintf(stderr, PROG ": out of memory\n");
			status = EXIT_USAGE;
		} else if (!v) {
			fprintf(stderr,
			    PROG ": --draw: %s has no value named "
			         "'%s'\n",
			    sym_graph_filename(r->g), name);
			status = EXIT_USAGE;
		} else if (!sym_value_layout(v)) {
			fprintf(stderr,
			    PROG ": --draw: %s has no layout (the graph has "
			         "errors): '%s' not written\n",
			    name, d->file);
		} else {
			files[*n].path = d->file;
			files[(*n)++].v = v;
		}
		free(name);
	}
	return status;
}

/* Write the pictures and the graph "o" asks for about "r", all or none:
 * each is written to a temporary file first, and only when every one was
 * written are they renamed into place. Return 0, or EXIT_USAGE when one
 * names no value or cannot be written (nothing is then written). */
static int
write_outputs(const struct report *r, const struct options *o)
{
	struct out_file *files = calloc(o->n_draw + 1, sizeof(*files));
	size_t n = 0;
	int status;

	if (!files) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_USAGE;
	}
	status = resolve_draws(r, o, files, &n);
	if (o->dot)
		files[n++].path = o->dot;
	for (size_t i = 0; !status && i < n; i++) {
		files[i].tmp = temp_name(files[i].path);
		if (!files[i].tmp) {
			fprintf(stderr, PROG ": out of memory\n");
			status = EXIT_USAGE;
		} else if (write_temp(r, files[i].v, files[i].path,
		               files[i].tmp,
		               files[i].v ? write_svg : write_dot) != 0) {
			free(files[i].tmp);
			files[i].tmp = NULL;
			status = EXIT_USAGE;
		}
	}
	for (size_t i = 0; !status && i < n; i++) {
		if (rename(files[i].tmp, files[i].path) != 0) {
			fprintf(stderr, PROG ": cannot write '%s': %s\n",
			    files[i].path, strerror(errno));
			status = EXIT_USAGE;
		} else {
			free(files[i].tmp);
			files[i].tmp = NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (files[i].tmp)
			remove(files[i].tmp);
		free(files[i].tmp);
	}
	free(files);
	return status;
}

/* Return the binding of the symbols of "ctx" that the --bind options of
 * "o" give, or NULL after a usage error message (an unknown symbol, a
 * bad number, a symbol given twice). */
static sym_binding *
parse_bindings(sym_ctx *ctx, const struct options *o)
{
	sym_binding *all = sym_binding_new(ctx), *one;

	for (size_t i = 0; all && i < o->n_bind; i++) {
		const char *bad = bind_arg_error(o->bind[i]);

		if (bad) {
			fprintf(stderr, PROG ": --bind '%s': %s\n", o->bind[i],
			    bad);
			sym_binding_free(all);
			return NULL;
		}
		one = sym_binding_new(ctx);
		if (!one || sym_binding_parse(one, o->bind[i], NULL) < 0) {
			fprintf(stderr, PROG ": --bind %s: %s\n", o->bind[i],
			    one ? sym_ctx_last_message(ctx) : "out of memory");
			sym_binding_free(one);
			sym_binding_free(all);
			return NULL;
		}
		for (size_t k = 0; k < sym_binding_n_symbols(one); k++) {
			sym_symbol *s = sym_binding_symbol(one, k);

			if (sym_binding_get(all, s, NULL) == 0) {
				fprintf(stderr,
				    PROG ": --bind %s: %s is given a value "
				         "twice\n",
				    o->bind[i], sym_symbol_name(s));
				sym_binding_free(one);
				sym_binding_free(all);
				return NULL;
			}
			sym_binding_set(all, s, sym_binding_value(one, k));
		}
		sym_binding_free(one);
	}
	if (!all)
		fprintf(stderr, PROG ": out of memory\n");
	return all;
}

/* Compile and bind the slice plan of "r" at the sizes the --bind options
 * of "o" give (a binding "r" keeps, freed by the caller); return 0, or
 * the exit status after a message. */
static int
prepare_slices(struct report *r, const struct options *o)
{
	sym_binding *b = parse_bindings(r->ctx, o);
	char *why = NULL;
	int res;

	if (!b)
		return EXIT_USAGE;
	res = report_slices_prepare(r, b, &why);
	if (res == 0)
		return 0;
	fprintf(stderr, PROG ": %s\n", why ? why : "out of memory");
	free(why);
	return EXIT_USAGE;
}

/* Search the strategies of the graph of "r" (--auto, --memory or its
 * "parallel auto" statement) with the options "o", leaving it sharded
 * with the plan of the first piece and the search in r->search; return
 * 0, or EXIT_INVALID after a message when no plan fits (the search's
 * error, located at the statement), EXIT_USAGE when out of memory. */
static int
search(struct report *r, const struct options *o)
{
	sym_search_options so = SYM_SEARCH_OPTIONS_INIT;
	sym_loc at;

	so.memory = o->memory;
	so.topo = r->topo;
	r->search = sym_graph_search(r->g, &so);
	/* the search leaves the graph as it was: shard it with the plan of
	 * the first piece that fits */
	if (r->search &&
	    sym_search_apply(r->search, tool_piece_at(r->search, NULL)) == 0)
		return 0;
	if (r->search) {
		sym_search_free(r->search);
		r->search = NULL;
	}
	if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_USAGE;
	}
	at = sym_ctx_last_location(r->ctx);
	if (at.line > 0)
		fprintf(stderr, "%s:%d:%d: error: %s\n",
		    at.file ? at.file : sym_graph_filename(r->g), at.line,
		    at.col, sym_ctx_last_message(r->ctx));
	else
		fprintf(stderr, "%s: error: %s\n", sym_graph_filename(r->g),
		    sym_ctx_last_message(r->ctx));
	return EXIT_INVALID;
}

/* Shard the graph of "r" with the piece of its search that covers the
 * sizes the --bind options of "o" give (without them, or when none
 * covers them, the first piece that fits, which the search left), noted
 * in r->piece; return 0, EXIT_INVALID after a message when no plan can
 * run at those sizes, or EXIT_USAGE after a message (a bad --bind). */
static int
choose_piece(struct report *r, const struct options *o)
{
	sym_binding *b = NULL;
	size_t i, n = sym_search_n_pieces(r->search);
	char *why;

	if (o->n_bind && !(b = parse_bindings(r->ctx, o)))
		return EXIT_USAGE;
	r->piece = tool_piece_at(r->search, NULL);
	i = b ? tool_piece_at(r->search, b) : r->piece;
	if (i == n)
		i = r->piece;
	why = tool_piece_refusal(r->search, i, b);
	sym_binding_free(b);
	if (why) {
		fprintf(stderr, "%s: error: --bind %s\n",
		    sym_graph_filename(r->g), why);
		free(why);
		return EXIT_INVALID;
	}
	if (i != r->piece && sym_search_apply(r->search, i) < 0) {
		fprintf(stderr, PROG ": %s\n", sym_ctx_last_message(r->ctx));
		return EXIT_USAGE;
	}
	r->piece = i;
	return 0;
}

/* Check and shard the graph "g" of "ctx" as "o" says, on the topology
 * "topo" (NULL: the default), and print its diagnostics and report; write
 * what --draw and --dot ask for. Return the exit status. */
static int
check(sym_ctx *ctx, sym_graph *g, const sym_topology *topo,
    const struct options *o)
{
	struct report r;
	int status;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.g = g;
	r.strict = o->strict;
	r.topo = topo;
	r.rank = o->rank;
	if (o->devices > 0) {
		r.overridden = 1;
		r.file_devices = sym_graph_n_devices(g);
		if (sym_graph_set_devices(g, o->devices, NULL) < 0)
			return usage_error("cannot use that number of devices",
			    NULL);
	}
	if (check_topology(&r, o) != 0)
		return EXIT_USAGE;
	if (sym_graph_n_errors(g) == 0) {
		r.sharded = 1;
		if (o->autop || o->memory || sym_graph_auto_parallel(g, NULL))
			status = search(&r, o);
		else
			status = sym_graph_shard(g, topo) < 0 &&
			        sym_ctx_last_error(ctx) == SYM_ENOMEM
			    ? EXIT_USAGE
			    : 0;
		if (status == 0 && r.search)
			status = choose_piece(&r, o);
		if (status) {
			sym_search_free(r.search);
			return status;
		}
	}
	if ((o->n_bind > 0 || o->rank >= 0) &&
	    (status = prepare_slices(&r, o)) != 0) {
		report_slices_release(&r);
		sym_binding_free(r.bind);
		return status;
	}
	report_count(&r);
	if (report_shard_prepare(&r) < 0 || report_cost_prepare(&r) < 0 ||
	    print_diagnostics(&r) < 0 ||
	    (o->json ? report_json(&r, stdout) : report_text(&r, stdout)) < 0) {
		report_shard_release(&r);
		report_cost_release(&r);
		sym_search_free(r.search);
		report_slices_release(&r);
		sym_binding_free(r.bind);
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_USAGE;
	}
	status = write_outputs(&r, o);
	report_shard_release(&r);
	report_cost_release(&r);
	sym_search_free(r.search);
	report_slices_release(&r);
	sym_binding_free(r.bind);
	if (status)
		return status;
	return r.n_errors ? EXIT_INVALID : EXIT_VALID;
}

/* Run shape-check with the command line "argv" of "argc" words; return
 * its exit status. */
int
main(int argc, char **argv)
{
	struct options o;
	sym_topology *topo;
	sym_graph *g;
	sym_ctx *ctx;
	size_t live;
	int status, bad = 0;

	memset(&o, 0, sizeof(o));
	o.rank = -1;
	o.draw = calloc((size_t)argc, sizeof(*o.draw));
	o.bind = calloc((size_t)argc, sizeof(*o.bind));
	o.symbol = calloc((size_t)argc, sizeof(*o.symbol));
	if (!o.draw || !o.bind || !o.symbol) {
		free(o.draw);
		free(o.bind);
		free(o.symbol);
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_USAGE;
	}
	status = parse_args(argc, argv, &o);
	if (status >= 0) {
		free(o.draw);
		free(o.bind);
		free(o.symbol);
		return status;
	}
	ctx = sym_ctx_new();
	if (!ctx) {
		free(o.draw);
		free(o.bind);
		free(o.symbol);
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_USAGE;
	}
	topo = load_topology(ctx, &o, &bad);
	if (bad) {
		sym_ctx_free(ctx);
		free(o.draw);
		free(o.bind);
		free(o.symbol);
		return EXIT_USAGE;
	}
	errno = 0;
	if (declare_symbols(ctx, &o) < 0)
		bad = 1;
	g = bad || !is_onnx(o.file) ? NULL : read_onnx(ctx, &o);
	if (!g && !bad && !sym_ctx_last_error(ctx))
		g = strcmp(o.file, "-")
		    ? sym_graph_parse_file(ctx, o.file)
		    : sym_graph_parse_stream(ctx, stdin, "<stdin>");
	if (!g) {
		if (!bad)
			fprintf(stderr, PROG ": %s\n",
			    sym_ctx_last_message(ctx));
		sym_topology_free(topo);
		sym_ctx_free(ctx);
		free(o.draw);
		free(o.bind);
		free(o.symbol);
		return EXIT_USAGE;
	}
	status = check(ctx, g, topo, &o);
	sym_graph_free(g);
	sym_topology_free(topo);
	free(o.draw);
	free(o.bind);
	free(o.symbol);
	live = sym_ctx_report_live(ctx, stderr);
	sym_ctx_free(ctx);
	if (live) {
		fprintf(stderr,
		    PROG ": internal error: %zu library object%s "
		         "not released\n",
		    live, live == 1 ? "" : "s");
		status = EXIT_USAGE;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the report: %s\n",
		    strerror(errno));
		status = EXIT_USAGE;
	}
	return status;
}
