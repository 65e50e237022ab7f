/* SPDX-License-Identifier: MIT */
/*
 * The context: options, allocation helpers, clean-up hooks, live objects.
 */
#include <stdlib.h>
#include <string.h>

#include "core/ctx_private.h"

/* The name of each kind of object in leak reports, one and several. */
static const char *const kind_name[SYM__N_OBJ][2] = {
	[SYM__OBJ_EXPR] = { "expression", "expressions" },
	[SYM__OBJ_BINDING] = { "binding", "bindings" },
	[SYM__OBJ_SHAPE] = { "shape", "shapes" },
	[SYM__OBJ_ATTRS] = { "attribute set", "attribute sets" },
	[SYM__OBJ_MESH] = { "mesh", "meshes" },
	[SYM__OBJ_LAYOUT] = { "layout", "layouts" },
	[SYM__OBJ_REDIST] = { "redistribution plan", "redistribution plans" },
	[SYM__OBJ_TOPOLOGY] = { "topology", "topologies" },
	[SYM__OBJ_GRAPH] = { "graph", "graphs" },
	[SYM__OBJ_PLAN] = { "plan", "plans" },
	[SYM__OBJ_SLICES] = { "slices object", "slices objects" },
	[SYM__OBJ_COMM] = { "communicator", "communicators" },
	[SYM__OBJ_EXECUTOR] = { "executor", "executors" },
	[SYM__OBJ_DATASET] = { "dataset", "datasets" },
	[SYM__OBJ_CHECKPOINT] = { "checkpoint", "checkpoints" },
	[SYM__OBJ_SEARCH] = { "strategy search", "strategy searches" },
	[SYM__OBJ_SHARDING] = { "sharding", "shardings" },
};

/* Return a new context with default options, or NULL when out of
 * memory. */
sym_ctx *
sym_ctx_new(void)
{
	sym_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->opt_isl_max_ops = 200000;
	ctx->opt_witness = 1;
	ctx->opt_exact = 1;
	ctx->opt_fast = 1;
	ctx->opt_redist_bound = 1;
	ctx->last_tier = SYM_TIER_NONE;
	ctx->fail_at = -1;
	ctx->owned.prev = ctx->owned.next = &ctx->owned;
	return ctx;
}

/* Free "ctx" and everything it owns, including objects callers forgot to
 * release (sym_ctx_live_objects counts those beforehand). */
void
sym_ctx_free(sym_ctx *ctx)
{
	if (!ctx)
		return;
	sym__obj_forget_all(ctx);
	for (int i = ctx->n_hook - 1; i >= 0; i--)
		ctx->hook[i](ctx);
	free(ctx->msg);
	free(ctx->loc_file);
	free(ctx);
}

/* Register "fn" to run when "ctx" is freed (once per function); hooks run
 * in reverse order of registration. Return 0 or -1. */
int
sym__ctx_add_hook(sym_ctx *ctx, void (*fn)(sym_ctx *ctx))
{
	for (int i = 0; i < ctx->n_hook; i++)
		if (ctx->hook[i] == fn)
			return 0;
	if (ctx->n_hook == SYM__N_HOOK) {
		sym__error(ctx, SYM_EINTERNAL, NULL, "too many clean-up hooks");
		return -1;
	}
	ctx->hook[ctx->n_hook++] = fn;
	return 0;
}

/* Set option "opt" of "ctx" to "value"; return 0, or -1 when the option or
 * value is invalid. */
int
sym_ctx_set_option(sym_ctx *ctx, sym_option opt, long value)
{
	if (!ctx)
		return -1;
	switch (opt) {
	case SYM_CTX_OPT_ISL_MAX_OPERATIONS:
		if (value < 0)
			break;
		ctx->opt_isl_max_ops = value;
		return 0;
	case SYM_CTX_OPT_WITNESS:
		ctx->opt_witness = value != 0;
		return 0;
	case SYM_CTX_OPT_EXACT_TIER:
		ctx->opt_exact = value != 0;
		return 0;
	case SYM_CTX_OPT_FAST_TIER:
		ctx->opt_fast = value != 0;
		return 0;
	case SYM_CTX_OPT_REDIST_BOUND:
		ctx->opt_redist_bound = value != 0;
		return 0;
	}
	sym__error(ctx, SYM_EINVAL, NULL, "invalid option %d or value %ld",
	    (int)opt, value);
	return -1;
}

/* Return the value of option "opt" of "ctx", or -1 if it is invalid. */
long
sym_ctx_get_option(const sym_ctx *ctx, sym_option opt)
{
	if (!ctx)
		return -1;
	switch (opt) {
	case SYM_CTX_OPT_ISL_MAX_OPERATIONS:
		return ctx->opt_isl_max_ops;
	case SYM_CTX_OPT_WITNESS:
		return ctx->opt_witness;
	case SYM_CTX_OPT_EXACT_TIER:
		return ctx->opt_exact;
	case SYM_CTX_OPT_FAST_TIER:
		return ctx->opt_fast;
	case SYM_CTX_OPT_REDIST_BOUND:
		return ctx->opt_redist_bound;
	}
	return -1;
}

/* Return the number of objects handed to callers of "ctx" and not yet
 * released. */
size_t
sym_ctx_live_objects(const sym_ctx *ctx)
{
	long n = 0;

	if (!ctx)
		return 0;
	for (int i = 0; i < SYM__N_OBJ; i++)
		n += ctx->live[i];
	return n > 0 ? (size_t)n : 0;
}

/* Print to "out" one line per kind of object still held by callers of
 * "ctx"; return the total number (as sym_ctx_live_objects). */
size_t
sym_ctx_report_live(const sym_ctx *ctx, FILE *out)
{
	if (!ctx)
		return 0;
	for (int i = 0; i < SYM__N_OBJ; i++)
		if (ctx->live[i] && out)
			fprintf(out, "symshard: %ld %s still alive\n",
			    ctx->live[i], kind_name[i][ctx->live[i] != 1]);
	return sym_ctx_live_objects(ctx);
}

/* Count the allocations through the helpers and make the one numbered
 * "k" fail (and every later one when "later" is set; none when "k" is
 * negative): the failure injection of the tests. */
void
sym__ctx_fail_alloc(sym_ctx *ctx, long k, int later)
{
	ctx->alloc_watch = 1;
	ctx->fail_later = later != 0;
	ctx->fail_at = k;
	ctx->n_alloc = 0;
}

/* Stop counting and failing the allocations of "ctx". */
void
sym__ctx_fail_alloc_off(sym_ctx *ctx)
{
	ctx->alloc_watch = 0;
	ctx->fail_at = -1;
}

/* Return how many allocations were counted since sym__ctx_fail_alloc. */
unsigned long
sym__ctx_n_alloc(const sym_ctx *ctx)
{
	return ctx->n_alloc;
}

/* See ctx_private.h. */
unsigned long
sym__ctx_n_oom(const sym_ctx *ctx)
{
	return ctx ? ctx->n_oom : 0;
}

/* Return 1 when the next allocation through the helpers must fail (the
 * failure injection of sym__ctx_fail_alloc), counting it; else 0. */
static int
fail_now(sym_ctx *ctx)
{
	unsigned long n;

	if (!ctx || !ctx->alloc_watch)
		return 0;
	n = ctx->n_alloc++;
	if (ctx->fail_at < 0)
		return 0;
	return n == (unsigned long)ctx->fail_at ||
	    (ctx->fail_later && n > (unsigned long)ctx->fail_at);
}

/* Return a copy of "s" allocated with malloc, or NULL (error on "ctx"). */
char *
sym__strdup(sym_ctx *ctx, const char *s)
{
	char *copy = fail_now(ctx) ? NULL : strdup(s);

	if (!copy)
		sym__oom(ctx);
	return copy;
}

/* Return "size" zeroed bytes, or NULL with an error on "ctx". */
void *
sym__alloc(sym_ctx *ctx, size_t size)
{
	void *p = fail_now(ctx) ? NULL : calloc(1, size ? size : 1);

	if (!p)
		sym__oom(ctx);
	return p;
}

/* Return "n" zeroed elements of "size" bytes (one element when "n" is 0),
 * or NULL with SYM_ENOMEM on "ctx" when their size overflows or memory runs
 * out. */
void *
sym__calloc(sym_ctx *ctx, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		sym__oom(ctx);
		return NULL;
	}
	p = fail_now(ctx) ? NULL : calloc(n ? n : 1, size ? size : 1);
	if (!p)
		sym__oom(ctx);
	return p;
}

/* Resize "p" to "n" elements of "size" bytes; NULL with an error on "ctx"
 * on overflow or exhaustion ("p" is then left untouched). */
void *
sym__realloc_array(sym_ctx *ctx, void *p, size_t n, size_t size)
{
	void *q;

	if (size && n > SIZE_MAX / size) {
		sym__oom(ctx);
		return NULL;
	}
	q = fail_now(ctx) ? NULL : realloc(p, (n * size) != 0 ? n * size : 1);
	if (!q)
		sym__oom(ctx);
	return q;
}

/* The capacity, in elements, of an array's first allocation. */
#define RESERVE_FIRST 8

/* Make the array "*arr" of "*cap" elements of "elem" bytes hold at least
 * "need" elements: at least double it when it must grow (starting at
 * RESERVE_FIRST), or grow it to exactly "need" when doubling would
 * overflow. Return 0, or -1 with SYM_ENOMEM on "ctx" when the size
 * overflows or memory runs out ("*arr" and "*cap" are then unchanged). */
int
sym__reserve(sym_ctx *ctx, void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * *cap;
	void *p;

	if (need <= *cap && *arr)
		return 0;
	if (c < RESERVE_FIRST)
		c = RESERVE_FIRST;
	if (c < need || (elem && c > SIZE_MAX / elem))
		c = need;
	p = sym__realloc_array(ctx, *arr, c, elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}
