/* SPDX-License-Identifier: MIT */
/*
 * Agreeing on failures (sym_comm(3)): every rank says whether it failed;
 * one all_reduce over all ranks tells each whether any did and which is
 * the lowest that did, and only then a broadcast from that rank hands
 * every rank its error. Cheap enough for every step boundary: one
 * collective of one integer when nothing failed.
 */
#include <stdio.h>
#include <string.h>

#include "comm/comm_private.h"

#define MSG_MAX 1024
#define FILE_MAX 256

/* The error of the failing rank as the others receive it. */
struct verdict {
	int32_t code, line, col, pad;
	char file[FILE_MAX];
	char msg[MSG_MAX];
};

/* Fill "v" with the error "code" and "msg" of this rank, or when "msg"
 * is NULL with the error last recorded on "ctx" and its location. */
static void
verdict_fill(struct verdict *v, sym_ctx *ctx, sym_error code, const char *msg)
{
	sym_loc loc = { NULL, 0, 0 };

	memset(v, 0, sizeof(*v));
	if (!msg) {
		msg = sym_ctx_last_message(ctx);
		loc = sym_ctx_last_location(ctx);
	}
	v->code = (int32_t)code;
	v->line = loc.line;
	v->col = loc.col;
	snprintf(v->file, sizeof(v->file), "%s", loc.file ? loc.file : "");
	snprintf(v->msg, sizeof(v->msg), "%s", msg ? msg : "");
}

/* Record on "ctx" the error "v" of rank "rank": its code and location,
 * its message prefixed by "rank N: " unless it starts so already. */
static void
verdict_record(const struct verdict *v, sym_ctx *ctx, int rank)
{
	sym_loc loc = { v->file[0] ? v->file : NULL, v->line, v->col };
	char prefix[32];
	size_t n;

	n = (size_t)snprintf(prefix, sizeof(prefix), "rank %d: ", rank);
	sym__error(ctx, v->code != SYM_OK ? (sym_error)v->code : SYM_EINTERNAL,
	    loc.file ? &loc : NULL, "%s%.*s",
	    strncmp(v->msg, prefix, n) ? prefix : "", MSG_MAX, v->msg);
}

/* Agree with every rank of the communicator of "ep" (a collective over
 * all of them) on whether one failed: "code" is SYM_OK when this rank
 * did not, else the code of its error, whose message is "msg" (NULL:
 * the error last recorded on the handle's context, with its location).
 * Return 0 when no rank failed; else -1 on every rank with the error of
 * the lowest failing rank recorded on the handle's context (and -1 with
 * the communicator's error when a collective fails). */
int
sym_comm_agree(sym_comm_endpoint *ep, sym_error code, const char *msg)
{
	struct verdict v;
	int32_t mine, top = 0;
	int n, root;

	if (!ep || !atomic_load(&ep->attached) || !ep->ctx)
		return -1;
	n = ep->comm->n_ranks;
	mine = code != SYM_OK ? n - ep->rank : 0;
	if (sym_comm_all_reduce(ep, NULL, 0, &mine, &top, 1, SYM_DT_I32,
	        SYM_REDUCE_MAX) < 0)
		return -1;
	if (top == 0)
		return 0;
	root = n - top;
	if (root == ep->rank)
		verdict_fill(&v, ep->ctx, code, msg);
	else
		memset(&v, 0, sizeof(v));
	if (sym_comm_broadcast(ep, NULL, 0, &v, sizeof(v), root) < 0)
		return -1;
	v.file[FILE_MAX - 1] = '\0';
	v.msg[MSG_MAX - 1] = '\0';
	verdict_record(&v, ep->ctx, root);
	return -1;
}
