/* SPDX-License-Identifier: MIT */
/*
 * symshard: the prover (sym_prove(3)).
 */
#ifndef SYMSHARD_PROVE_H
#define SYMSHARD_PROVE_H

#include <symshard/common.h>
#include <symshard/ctx.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which tier settled the last query. */
typedef enum sym_tier {
	SYM_TIER_NONE = -1,
	SYM_TIER_FAST = 0,
	SYM_TIER_EXACT = 1
} sym_tier;

SYM_EXPORT sym_answer sym_prove_divisible(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP const sym_expr *e, int64_t k, SYM_GIVE sym_binding **witness);
SYM_EXPORT sym_answer sym_prove_cmp(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP const sym_expr *lhs, sym_cmp op, SYM_KEEP const sym_expr *rhs,
    SYM_GIVE sym_binding **witness);
SYM_EXPORT sym_answer sym_prove_bounds(SYM_KEEP sym_ctx *ctx,
    SYM_KEEP const sym_expr *e, SYM_GIVE sym_expr **min,
    SYM_GIVE sym_expr **max);
SYM_EXPORT SYM_GIVE sym_expr *sym_prove_simplify(SYM_KEEP sym_ctx *ctx,
    SYM_TAKE sym_expr *e);
SYM_EXPORT sym_tier sym_prove_last_tier(SYM_KEEP const sym_ctx *ctx);
SYM_EXPORT SYM_KEEP const char *sym_cmp_name(sym_cmp op);

#ifdef __cplusplus
}
#endif

#endif
