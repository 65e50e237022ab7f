/* SPDX-License-Identifier: MIT */
/*
 * symshard: symbols, the named positive integers of dynamic dimensions
 * (sym_symbol(3)).
 */
#ifndef SYMSHARD_SYMBOL_H
#define SYMSHARD_SYMBOL_H

#include <symshard/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A symbol's admissible values: { divisor * N + remainder : N >= 1 }
 * intersected with [min, max]; max == 0 means unbounded (MindSpore).
 */
typedef struct sym_symbol_info {
	int64_t min;
	int64_t max;
	int64_t divisor;
	int64_t remainder;
	int unique;
} sym_symbol_info;

/* clang-format off */
#define SYM_SYMBOL_INFO_INIT { 1, 0, 1, 0, 0 }
/* clang-format on */

SYM_EXPORT SYM_KEEP sym_symbol *sym_symbol_new(SYM_KEEP sym_ctx *ctx,
    const char *name, SYM_KEEP const sym_symbol_info *info,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT SYM_KEEP sym_symbol *sym_symbol_find(SYM_KEEP sym_ctx *ctx,
    const char *name);
SYM_EXPORT SYM_KEEP sym_symbol *
sym_symbol_instantiate(SYM_KEEP sym_symbol *sym);

SYM_EXPORT SYM_KEEP sym_ctx *sym_symbol_ctx(SYM_KEEP const sym_symbol *sym);
SYM_EXPORT SYM_KEEP const char *sym_symbol_name(SYM_KEEP const sym_symbol *sym);
SYM_EXPORT void sym_symbol_get_info(SYM_KEEP const sym_symbol *sym,
    sym_symbol_info *info);
SYM_EXPORT sym_answer sym_symbol_is_unique(SYM_KEEP const sym_symbol *sym);
SYM_EXPORT SYM_KEEP sym_symbol *
sym_symbol_origin(SYM_KEEP const sym_symbol *sym);
SYM_EXPORT unsigned sym_symbol_instance(SYM_KEEP const sym_symbol *sym);
SYM_EXPORT sym_loc sym_symbol_location(SYM_KEEP const sym_symbol *sym);
SYM_EXPORT int64_t sym_symbol_least(SYM_KEEP const sym_symbol *sym);
SYM_EXPORT int64_t sym_symbol_greatest(SYM_KEEP const sym_symbol *sym);
SYM_EXPORT int sym_symbol_admits(SYM_KEEP const sym_symbol *sym, int64_t value);
SYM_EXPORT SYM_GIVE char *sym_symbol_explain(SYM_KEEP const sym_symbol *sym,
    int64_t value);
SYM_EXPORT SYM_GIVE char *sym_symbol_to_str(SYM_KEEP const sym_symbol *sym);

SYM_EXPORT size_t sym_ctx_n_symbols(SYM_KEEP const sym_ctx *ctx);
SYM_EXPORT SYM_KEEP sym_symbol *sym_ctx_symbol(SYM_KEEP const sym_ctx *ctx,
    size_t i);

/* Bindings: a value for each of some symbols. */
SYM_EXPORT SYM_GIVE sym_binding *sym_binding_new(SYM_KEEP sym_ctx *ctx);
SYM_EXPORT SYM_GIVE sym_binding *sym_binding_dup(SYM_KEEP const sym_binding *b);
SYM_EXPORT void sym_binding_free(SYM_TAKE sym_binding *b);
SYM_EXPORT int sym_binding_set(SYM_KEEP sym_binding *b,
    SYM_KEEP sym_symbol *sym, int64_t value);
SYM_EXPORT int sym_binding_get(SYM_KEEP const sym_binding *b,
    SYM_KEEP const sym_symbol *sym, int64_t *value);
SYM_EXPORT size_t sym_binding_n_symbols(SYM_KEEP const sym_binding *b);
SYM_EXPORT SYM_KEEP sym_symbol *
sym_binding_symbol(SYM_KEEP const sym_binding *b, size_t i);
SYM_EXPORT int64_t sym_binding_value(SYM_KEEP const sym_binding *b, size_t i);
SYM_EXPORT SYM_GIVE char *sym_binding_to_str(SYM_KEEP const sym_binding *b);
SYM_EXPORT int sym_binding_parse(SYM_KEEP sym_binding *b, const char *text,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_binding_check(SYM_KEEP const sym_binding *b);

#ifdef __cplusplus
}
#endif

#endif
