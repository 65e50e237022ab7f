/* SPDX-License-Identifier: MIT */
/*
 * symshard: symbolic integer expressions (sym_expr(3)).
 */
#ifndef SYMSHARD_EXPR_H
#define SYMSHARD_EXPR_H

#include <symshard/common.h>

#ifdef __cplusplus
extern "C" {
#endif

SYM_EXPORT SYM_GIVE sym_expr *sym_expr_const(SYM_KEEP sym_ctx *ctx,
    int64_t value);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_const_str(SYM_KEEP sym_ctx *ctx,
    const char *decimal);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_symbol(SYM_KEEP sym_symbol *sym);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_copy(SYM_KEEP const sym_expr *e);
SYM_EXPORT SYM_NULL sym_expr *sym_expr_free(SYM_TAKE sym_expr *e);

SYM_EXPORT SYM_GIVE sym_expr *sym_expr_add(SYM_TAKE sym_expr *a,
    SYM_TAKE sym_expr *b);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_sub(SYM_TAKE sym_expr *a,
    SYM_TAKE sym_expr *b);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_mul(SYM_TAKE sym_expr *a,
    SYM_TAKE sym_expr *b);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_neg(SYM_TAKE sym_expr *a);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_floordiv(SYM_TAKE sym_expr *a,
    SYM_TAKE sym_expr *b);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_ceildiv(SYM_TAKE sym_expr *a,
    SYM_TAKE sym_expr *b);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_mod(SYM_TAKE sym_expr *a,
    SYM_TAKE sym_expr *b);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_min(SYM_TAKE sym_expr *a,
    SYM_TAKE sym_expr *b);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_max(SYM_TAKE sym_expr *a,
    SYM_TAKE sym_expr *b);

SYM_EXPORT SYM_GIVE sym_expr *sym_expr_add_si(SYM_TAKE sym_expr *a, int64_t v);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_mul_si(SYM_TAKE sym_expr *a, int64_t v);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_floordiv_si(SYM_TAKE sym_expr *a,
    int64_t v);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_ceildiv_si(SYM_TAKE sym_expr *a,
    int64_t v);
SYM_EXPORT SYM_GIVE sym_expr *sym_expr_mod_si(SYM_TAKE sym_expr *a, int64_t v);

SYM_EXPORT SYM_GIVE sym_expr *sym_expr_substitute(SYM_TAKE sym_expr *e,
    SYM_KEEP sym_symbol *sym, SYM_KEEP const sym_expr *value);

SYM_EXPORT SYM_GIVE sym_expr *sym_expr_parse(SYM_KEEP sym_ctx *ctx,
    const char *text, SYM_KEEP const sym_loc *where);
SYM_EXPORT SYM_GIVE char *sym_expr_to_str(SYM_KEEP const sym_expr *e);

SYM_EXPORT SYM_KEEP sym_ctx *sym_expr_ctx(SYM_KEEP const sym_expr *e);
SYM_EXPORT sym_answer sym_expr_is_const(SYM_KEEP const sym_expr *e);
SYM_EXPORT int sym_expr_get_const(SYM_KEEP const sym_expr *e, int64_t *value);
SYM_EXPORT sym_answer sym_expr_is_symbol(SYM_KEEP const sym_expr *e);
SYM_EXPORT sym_answer sym_expr_is_affine(SYM_KEEP const sym_expr *e);
SYM_EXPORT sym_answer sym_expr_is_equal(SYM_KEEP const sym_expr *a,
    SYM_KEEP const sym_expr *b);
SYM_EXPORT uint32_t sym_expr_hash(SYM_KEEP const sym_expr *e);
SYM_EXPORT sym_answer sym_expr_involves(SYM_KEEP const sym_expr *e,
    SYM_KEEP const sym_symbol *sym);
SYM_EXPORT size_t sym_expr_symbols(SYM_KEEP const sym_expr *e, sym_symbol **out,
    size_t cap);

SYM_EXPORT int sym_expr_eval(SYM_KEEP const sym_expr *e,
    SYM_KEEP const sym_binding *b, int64_t *value);

#ifdef __cplusplus
}
#endif

#endif
