/*
 * shape-check: parse a graph file (symshard-graph(5)), infer its shapes
 * and report them, readable or as JSON (shape-check(1)). A thin wrapper
 * over the library: the checking is sym_graph_parse_file's.
 *
 * Exit status: 0 valid, 1 invalid input (diagnostics printed), 2 usage
 * or internal error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check_report.h"

#define PROG "shape-check"

enum {
	EXIT_VALID = 0,
	EXIT_INVALID = 1,
	EXIT_USAGE = 2
};

/* The command line. */
struct options {
	const char *file;
	int json;
	int strict;
	int64_t devices;   /* 0: as the file says */
	const char *later; /* an option that comes with the plan work */
};

/* Print the usage summary to "out". */
static void
usage(FILE *out)
{
	fputs("usage: " PROG " FILE.sg [--json] [--strict] [--devices N]\n"
	      "       " PROG " --help | --version\n"
	      "\n"
	      "Parse the graph FILE.sg (- for standard input), infer every "
	      "shape over its\n"
	      "symbolic sizes and report symbols, values, relations, guards "
	      "and assertions.\n"
	      "\n"
	      "  --json        print the report as one JSON object\n"
	      "  --strict      undecided requirements and assertions are "
	      "errors\n"
	      "  --devices N   use N devices instead of the file's "
	      "'devices'\n"
	      "  --help        print this help and exit\n"
	      "  --version     print the version and exit\n"
	      "\n"
	      "Not implemented yet (they come with the sharding and plan "
	      "work):\n"
	      "  --bind NAME=V, --rank R, --draw TENSOR=FILE.svg, --dot FILE\n"
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
		"--draw", "--dot" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);

		if (!strncmp(arg, names[i], n) &&
		    (arg[n] == '\0' || arg[n] == '='))
			return names[i];
	}
	return NULL;
}

/* Apply the option "name" with the value "val" to "o"; return 0, or
 * EXIT_USAGE after a message. */
static int
option_value(struct options *o, const char *name, const char *val)
{
	if (strcmp(name, "--devices") != 0) {
		if (!o->later)
			o->later = name;
		return 0;
	}
	if (parse_count(val, &o->devices) < 0)
		return usage_error("--devices expects a positive integer, not",
		    val);
	return 0;
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
	if (o->later) {
		fprintf(stderr,
		    PROG ": %s: not implemented yet: comes with the "
		         "sharding/plan work\n",
		    o->later);
		return EXIT_USAGE;
	}
	return -1;
}

/* Return the graph parsed from standard input in "ctx", its locations
 * naming "<stdin>", or NULL with the reason on "ctx" or in errno. A NUL
 * byte ends the text with an error, as in a file. */
static sym_graph *
parse_stdin(sym_ctx *ctx)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap), *q, *nul;
	sym_graph *g;

	while (buf && (got = fread(buf + n, 1, cap - n - 1, stdin)) > 0) {
		n += got;
		if (cap - n < 2) {
			q = realloc(buf, cap *= 2);
			if (!q)
				free(buf);
			buf = q;
		}
	}
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	if (ferror(stdin)) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	g = sym_graph_parse(ctx, buf, "<stdin>");
	nul = memchr(buf, '\0', n);
	if (g && nul) {
		sym_loc at = { "<stdin>", 1, 1 };

		for (char *p = buf; p < nul; p++) {
			at.col++;
			if (*p == '\n') {
				at.line++;
				at.col = 1;
			}
		}
		sym_graph_error(g, &at,
		    "the file contains a NUL byte: the rest of it is ignored");
	}
	free(buf);
	return g;
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

/* Check the graph "g" of "ctx" as "o" says and print its diagnostics and
 * report; return the exit status. */
static int
check(sym_ctx *ctx, sym_graph *g, const struct options *o)
{
	struct report r = { ctx, g, o->strict, 0, 0, 0, 0 };

	if (o->devices > 0) {
		r.overridden = 1;
		r.file_devices = sym_graph_devices(g);
		if (sym_graph_set_devices(g, o->devices, NULL) < 0)
			return usage_error("cannot use that number of devices",
			    NULL);
	}
	report_count(&r);
	if (print_diagnostics(&r) < 0 ||
	    (o->json ? report_json(&r, stdout) : report_text(&r, stdout)) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_USAGE;
	}
	return r.n_errors ? EXIT_INVALID : EXIT_VALID;
}

/* Run shape-check with the command line "argv" of "argc" words; return
 * its exit status. */
int
main(int argc, char **argv)
{
	struct options o = { NULL, 0, 0, 0, NULL };
	sym_graph *g;
	sym_ctx *ctx;
	size_t live;
	int status = parse_args(argc, argv, &o);

	if (status >= 0)
		return status;
	ctx = sym_ctx_new();
	if (!ctx) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_USAGE;
	}
	errno = 0;
	g = strcmp(o.file, "-") ? sym_graph_parse_file(ctx, o.file)
	                        : parse_stdin(ctx);
	if (!g) {
		if (sym_ctx_last_error(ctx) != SYM_OK)
			fprintf(stderr, PROG ": %s\n",
			    sym_ctx_last_message(ctx));
		else
			fprintf(stderr,
			    PROG ": cannot read standard input: %s\n",
			    strerror(errno));
		sym_ctx_free(ctx);
		return EXIT_USAGE;
	}
	status = check(ctx, g, &o);
	sym_graph_free(g);
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
