/* SPDX-License-Identifier: MIT */
/*
 * Invariant failures and SYMSHARD_TRACE (see trace.h).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static unsigned trace_mask;

/* Report the false invariant "cond" at "file":"line" and abort. */
void
sym__invariant_failed(const char *cond, const char *file, int line)
{
	fprintf(stderr, "symshard: %s:%d: invariant failed: %s\n", file, line,
	    cond);
	abort();
}

/* Set trace_mask from SYMSHARD_TRACE: a comma-separated list of "search"
 * or "all"; other words are ignored (the variable is a debugging aid,
 * not an interface that must refuse). */
static void
read_trace(void)
{
	static const struct {
		const char *name;
		unsigned what;
	} word[] = { { "search", SYM__TRACE_SEARCH }, { "all", ~0u } };
	const char *v = getenv("SYMSHARD_TRACE");

	while (v && *v) {
		size_t n = strcspn(v, ",");

		for (size_t i = 0; i < sizeof(word) / sizeof(word[0]); i++)
			if (strlen(word[i].name) == n &&
			    !strncmp(v, word[i].name, n))
				trace_mask |= word[i].what;
		v += n + (v[n] == ',');
	}
}

/* Return 1 when SYMSHARD_TRACE switches on "what", else 0. */
int
sym__trace_on(unsigned what)
{
	pthread_once(&trace_once, read_trace);
	return (trace_mask & what) != 0;
}

/* Print a trace line formatted from "fmt" on standard error. */
void
sym__trace(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "symshard trace: %s\n", line);
}
