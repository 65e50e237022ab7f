/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by the tools (see tool_args.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <symshard.h>

#include "tool_args.h"

/* Store in "*n" the unsigned integer written in "s", at least "least";
 * 0, or -1 when "s" is not one. */
int
tool_parse_number(const char *s, uint64_t least, uint64_t *n)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < least)
		return -1;
	*n = v;
	return 0;
}

/* Store in "*n" the bytes written in "s": a positive integer, optionally
 * followed by KiB, MiB or GiB; 0, or -1 when "s" is not one. */
int
tool_parse_bytes(const char *s, int64_t *n)
{
	static const char *const unit[] = { "", "KiB", "MiB", "GiB" };
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v < 1)
		return -1;
	for (int u = 0; u < 4; u++)
		if (!strcmp(end, unit[u])) {
			if (v > (unsigned long long)INT64_MAX >> (10 * u))
				return -1;
			*n = (int64_t)(v << (10 * u));
			return 0;
		}
	return -1;
}

/* Store in "*x" the tolerance written in "s", a finite number > 0;
 * 0, or -1 when "s" is not one. */
int
tool_parse_tolerance(const char *s, double *x)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0) || !isfinite(v))
		return -1;
	*x = v;
	return 0;
}

/* Return the name among the "n" "names" of the option of "arg" ("--bind"
 * of "--bind=x"), or NULL when "arg" is none of them. */
const char *
tool_valued_option(const char *arg, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		if (!strncmp(arg, names[i], len) &&
		    (arg[len] == '\0' || arg[len] == '='))
			return names[i];
	}
	return NULL;
}

/* Return 1 when the command line "argv" of "argc" words asks for the mpi
 * backend (before "--"), so that MPI starts before it is read. */
int
tool_wants_mpi(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--backend=mpi"))
			return 1;
		if (!strcmp(argv[i], "--backend") && i + 1 < argc &&
		    !strcmp(argv[i + 1], "mpi"))
			return 1;
	}
	return 0;
}

/* Keep the error from "fmt" in "v" for the other processes of mpi
 * unless one is kept, and print it after the tool's name on stderr when
 * "v" speaks and "print" is 1; return "status". */
int
tool_note(struct tool_voice *v, int print, int status, const char *fmt, ...)
{
	char msg[sizeof(v->why)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!v->why[0])
		snprintf(v->why, sizeof(v->why), "%s", msg);
	if (print && v->speak)
		fprintf(stderr, "%s: %s\n", v->prog, msg);
	return status;
}

/* Print the usage error "msg" about "what" (NULL: none) and a pointer
 * to --help on stderr when "v" speaks; return "status". */
int
tool_usage_error(struct tool_voice *v, int status, const char *msg,
    const char *what)
{
	tool_note(v, 1, status, "%s%s%s%s", msg, what ? " '" : "",
	    what ? what : "", what ? "'" : "");
	if (v->speak)
		fprintf(stderr, "Try '%s --help' for more information.\n",
		    v->prog);
	return status;
}

/* Return the time of the monotonic clock in seconds. */
double
tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Return the 64-bit FNV-1a hash "h" with the "n" bytes of "data" folded
 * in. */
uint64_t
tool_fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Whether "file" is an ONNX model: named .onnx, or starting as one. */
int
tool_is_onnx(const char *file)
{
	size_t n = strlen(file);
	unsigned char head[2];
	FILE *f;
	int yes;

	if (n > 5 && !strcmp(file + n - 5, ".onnx"))
		return 1;
	if (!strcmp(file, "-") || !(f = fopen(file, "rb")))
		return 0;
	yes = fread(head, 1, 2, f) == 2 && sym_onnx_is_model(head, 2);
	fclose(f);
	return yes;
}
