/* SPDX-License-Identifier: MIT */
/*
 * What the unit tests share (testlib.h): contexts checked for leaks,
 * files read whole, and a team of threads as the ranks of a threads
 * communicator.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

/* Return a new context; fail the test when there is none. */
sym_ctx *
tl_ctx_new(void)
{
	sym_ctx *ctx = sym_ctx_new();

	assert_non_null(ctx);
	return ctx;
}

/* Assert that every object handed out by "ctx" was released (listing on
 * stderr those that were not), then free "ctx". */
void
tl_ctx_free(sym_ctx *ctx)
{
	assert_int_equal(sym_ctx_report_live(ctx, stderr), 0);
	sym_ctx_free(ctx);
}

/* Return the contents of the file "path", malloc'ed and followed by a
 * NUL byte, their length in "*len" when "len" is not NULL; fail the test
 * when the file cannot be read. */
char *
tl_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		fail_msg("cannot open %s (set top_srcdir)", path);
	do {
		if (cap - n < 4096) {
			cap = 2 * cap + 4096;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	if (ferror(f))
		fail_msg("cannot read %s", path);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Return as tl_read_file the file "name" of the source tree, found
 * under the directory $top_srcdir (the current one when unset), as
 * "examples/ffn.sg". */
char *
tl_read_source(const char *name, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", top && *top ? top : ".", name);
	return tl_read_file(path, len);
}

/* Record the failure of "m" from "fmt" unless one is recorded; return
 * -1. */
int
tl_failed(struct tl_member *m, const char *fmt, ...)
{
	va_list ap;

	if (m->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Run the rank "p" (a struct tl_member): attach, the team's function,
 * detach; return NULL. */
static void *
member_main(void *p)
{
	struct tl_member *m = p;

	m->ep = sym_comm_attach(m->ctx, m->team->comm, m->rank);
	if (!m->ep) {
		tl_failed(m, "rank %d: attach: %s", m->rank,
		    sym_ctx_last_message(m->ctx));
		return NULL;
	}
	m->team->fn(m, m->team->arg);
	sym_comm_detach(m->ep);
	m->ep = NULL;
	return NULL;
}

/* Set up "t": a threads communicator of "n_ranks" ranks (at most
 * TL_MAX_RANKS) whose collectives time out after "timeout_ms" (0: the
 * communicator's default), and a context per rank. */
void
tl_team_init(struct tl_team *t, int n_ranks, long timeout_ms)
{
	assert_true(n_ranks >= 1 && n_ranks <= TL_MAX_RANKS);
	memset(t, 0, sizeof(*t));
	t->ctx = tl_ctx_new();
	t->comm = sym_comm_threads_new(t->ctx, n_ranks);
	assert_non_null(t->comm);
	if (timeout_ms)
		assert_int_equal(sym_comm_set_option(t->comm,
		                     SYM_COMM_OPT_TIMEOUT_MS, timeout_ms),
		    0);
	for (int r = 0; r < n_ranks; r++) {
		t->m[r].team = t;
		t->m[r].rank = r;
		t->m[r].ctx = tl_ctx_new();
	}
}

/* Run "fn" with "arg" on ranks 0 .. "n" - 1 of "t" and wait for them;
 * fail with the first failure of a rank. */
void
tl_team_run(struct tl_team *t, int n, int (*fn)(struct tl_member *, void *),
    void *arg)
{
	pthread_t th[TL_MAX_RANKS];

	assert_true(n >= 1 && n <= TL_MAX_RANKS && t->m[n - 1].ctx);
	t->n = n;
	t->fn = fn;
	t->arg = arg;
	for (int r = 0; r < n; r++) {
		t->m[r].err[0] = '\0';
		assert_int_equal(pthread_create(&th[r], NULL, member_main,
		                     &t->m[r]),
		    0);
	}
	for (int r = 0; r < n; r++)
		assert_int_equal(pthread_join(th[r], NULL), 0);
	for (int r = 0; r < n; r++)
		if (t->m[r].err[0])
			fail_msg("%d ranks: rank %d: %s", n, r, t->m[r].err);
}

/* Release what "t" holds, asserting that no rank's context and not the
 * team's kept a live object. */
void
tl_team_clear(struct tl_team *t)
{
	for (int r = 0; r < TL_MAX_RANKS; r++)
		if (t->m[r].ctx)
			tl_ctx_free(t->m[r].ctx);
	sym_comm_free(t->comm);
	tl_ctx_free(t->ctx);
}
