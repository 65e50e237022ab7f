/* SPDX-License-Identifier: MIT */
/*
 * Debugging aids compiled into every build: invariant checks that are on
 * in the sanitizer builds, and traces of the library's decisions that
 * an environment variable switches on (as SQLite's WHERETRACE).
 *
 * SYM__INVARIANT(cond) states an index invariant of the dynamic
 * programming, the plans or the executor. Configured with
 * --enable-invariants (the default with --enable-sanitizers or
 * --enable-tsan) it stops the process with the condition and its place
 * when "cond" is false; otherwise it compiles to nothing and "cond" is
 * not evaluated. It is for the library's own mistakes, never for bad
 * input, which gets an error.
 *
 * SYMSHARD_TRACE=search (a comma-separated list; "all" for everything)
 * prints the named component's decisions on standard error, one line
 * each, prefixed "symshard trace: ": the search's priced plans, its
 * choices by size and its pieces.
 */
#ifndef SYM_CORE_TRACE_H
#define SYM_CORE_TRACE_H

#ifdef SYM_INVARIANTS
#define SYM__INVARIANT(cond) \
	((cond) ? (void)0 : sym__invariant_failed(#cond, __FILE__, __LINE__))
#else
#define SYM__INVARIANT(cond) ((void)sizeof(cond))
#endif

/* Report the false invariant "cond" at "file":"line" and abort. */
_Noreturn void sym__invariant_failed(const char *cond, const char *file,
    int line);

/* The components SYMSHARD_TRACE names. */
enum sym__trace_what {
	SYM__TRACE_SEARCH = 1u << 0
};

/* Return 1 when SYMSHARD_TRACE switches on "what", else 0 (read once). */
int sym__trace_on(unsigned what);

/* Print a trace line formatted from "fmt" on standard error. */
void sym__trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
