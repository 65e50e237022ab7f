/* SPDX-License-Identifier: MIT */
/*
 * What the unit tests share: contexts that must end with no live object,
 * whole files read from disk or from the source tree, and a team of
 * threads running as the ranks of a threads communicator. Every helper
 * fails the running cmocka test instead of returning an error.
 */
#ifndef SYMSHARD_TESTLIB_H
#define SYMSHARD_TESTLIB_H

#include <stddef.h>

#include <symshard.h>

/* The most ranks a team runs. */
#define TL_MAX_RANKS 8

sym_ctx *tl_ctx_new(void);
void tl_ctx_free(sym_ctx *ctx);

char *tl_read_file(const char *path, size_t *len);
char *tl_read_source(const char *name, size_t *len);

struct tl_team;

/* One rank's thread: its context (kept from tl_team_init to
 * tl_team_clear), its endpoint while it runs, its first failure. */
struct tl_member {
	struct tl_team *team;
	int rank;
	sym_ctx *ctx;
	sym_comm_endpoint *ep;
	char err[512];
};

/* The ranks of a threads communicator, each run by "fn" in its own
 * thread by tl_team_run. */
struct tl_team {
	sym_communicator *comm;
	sym_ctx *ctx;
	int n;
	int (*fn)(struct tl_member *m, void *arg);
	void *arg;
	struct tl_member m[TL_MAX_RANKS];
};

void tl_team_init(struct tl_team *t, int n_ranks, long timeout_ms);
void tl_team_run(struct tl_team *t, int n,
    int (*fn)(struct tl_member *m, void *arg), void *arg);
void tl_team_clear(struct tl_team *t);
int tl_failed(struct tl_member *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
