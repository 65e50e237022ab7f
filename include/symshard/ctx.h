/* SPDX-License-Identifier: MIT */
/*
 * symshard: the context (sym_ctx(3)).
 */
#ifndef SYMSHARD_CTX_H
#define SYMSHARD_CTX_H

#include <stdio.h>

#include <symshard/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Options, read and set with sym_ctx_get_option / sym_ctx_set_option. */
typedef enum sym_option {
	/* ISL operation budget per query; 0 = unlimited. */
	SYM_CTX_OPT_ISL_MAX_OPERATIONS,
	/* 1 = compute witnesses for SYM_FALSE answers (default), 0 = not. */
	SYM_CTX_OPT_WITNESS,
	/* 1 = use the exact (ISL) tier (default), 0 = tier 0 only. */
	SYM_CTX_OPT_EXACT_TIER,
	/* 1 = use tier 0 (default), 0 = go straight to the exact tier. */
	SYM_CTX_OPT_FAST_TIER,
	/* 1 = the redistribution planner bounds its search by its fallback
	 * plan and a lower bound (default); 0 = a plain shortest-path search,
	 * slower, with the same answers (to check the bounds). */
	SYM_CTX_OPT_REDIST_BOUND
} sym_option;

/* Comparison operators for facts and queries. */
typedef enum sym_cmp {
	SYM_EQ,
	SYM_NE,
	SYM_LE,
	SYM_LT,
	SYM_GE,
	SYM_GT
} sym_cmp;

SYM_EXPORT SYM_GIVE sym_ctx *sym_ctx_new(void);
SYM_EXPORT void sym_ctx_free(SYM_TAKE sym_ctx *ctx);

SYM_EXPORT int sym_ctx_set_option(SYM_KEEP sym_ctx *ctx, sym_option opt,
    long value);
SYM_EXPORT long sym_ctx_get_option(SYM_KEEP const sym_ctx *ctx, sym_option opt);

SYM_EXPORT sym_error sym_ctx_last_error(SYM_KEEP const sym_ctx *ctx);
SYM_EXPORT SYM_KEEP const char *
sym_ctx_last_message(SYM_KEEP const sym_ctx *ctx);
SYM_EXPORT sym_loc sym_ctx_last_location(SYM_KEEP const sym_ctx *ctx);
SYM_EXPORT void sym_ctx_clear_error(SYM_KEEP sym_ctx *ctx);

SYM_EXPORT size_t sym_ctx_live_objects(SYM_KEEP const sym_ctx *ctx);
SYM_EXPORT size_t sym_ctx_report_live(SYM_KEEP const sym_ctx *ctx, FILE *out);

SYM_EXPORT int sym_ctx_push(SYM_KEEP sym_ctx *ctx);
SYM_EXPORT int sym_ctx_pop(SYM_KEEP sym_ctx *ctx);
SYM_EXPORT int sym_ctx_depth(SYM_KEEP const sym_ctx *ctx);
SYM_EXPORT int sym_ctx_assume(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP const sym_expr *lhs, sym_cmp op, SYM_KEEP const sym_expr *rhs,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_ctx_assume_divisible(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP const sym_expr *e, int64_t k, SYM_KEEP const sym_loc *where);
SYM_EXPORT size_t sym_ctx_n_facts(SYM_KEEP const sym_ctx *ctx);
SYM_EXPORT SYM_GIVE char *sym_ctx_fact_to_str(SYM_KEEP const sym_ctx *ctx,
    size_t i);
SYM_EXPORT sym_answer sym_ctx_satisfiable(SYM_KEEP sym_ctx *ctx,
    SYM_GIVE sym_binding **witness);

#ifdef __cplusplus
}
#endif

#endif
