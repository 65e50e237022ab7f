/* SPDX-License-Identifier: MIT */
/*
 * The body of sym_ctx, shared by the files of the library.
 */
#ifndef SYM_CORE_CTX_PRIVATE_H
#define SYM_CORE_CTX_PRIVATE_H

#include <stdarg.h>
#include <stddef.h>

#include <symshard/ctx.h>
#include <symshard/prove.h>

#include "core/strmap.h"

struct sym__fact;
struct sym__prover;

/* The kinds of objects handed to callers, one per type, for the
 * accounting of live objects and leak reports (HACKING.md section 1). */
enum sym__obj_kind {
	SYM__OBJ_EXPR,
	SYM__OBJ_BINDING,
	SYM__OBJ_SHAPE,
	SYM__OBJ_ATTRS,
	SYM__OBJ_MESH,
	SYM__OBJ_LAYOUT,
	SYM__OBJ_REDIST,
	SYM__OBJ_TOPOLOGY,
	SYM__OBJ_GRAPH,
	SYM__OBJ_PLAN,
	SYM__OBJ_SLICES,
	SYM__OBJ_COMM,
	SYM__OBJ_EXECUTOR,
	SYM__OBJ_DATASET,
	SYM__OBJ_CHECKPOINT,
	SYM__OBJ_SEARCH,
	SYM__OBJ_SHARDING,
	SYM__N_OBJ
};

#define SYM__N_HOOK 8
#define SYM__N_RECENT 256

/* The header of every object a context hands to callers (except
 * expressions, which the context's table owns: they are only counted).
 * "ref" counts every reference, "cref" those held by callers, which are
 * the object's live count; while "cref" is positive the object is on its
 * context's list of caller-held objects ("prev", "next"), so that
 * sym_ctx_free drops the references callers forgot. "destroy" frees the
 * object when "ref" reaches zero. An object with a single owner is the
 * case ref = cref = 1. */
struct sym__obj {
	struct sym__obj *prev, *next;
	void (*destroy)(struct sym__obj *obj);
	enum sym__obj_kind kind;
	unsigned ref;
	unsigned cref;
};

struct sym_ctx {
	sym_error err;
	char *msg;
	sym_loc loc;
	char *loc_file;

	long opt_isl_max_ops;
	int opt_witness;
	int opt_exact;
	int opt_fast;
	int opt_redist_bound; /* SYM_CTX_OPT_REDIST_BOUND */

	struct sym__htab table; /* the hash-consed expression nodes */
	uint32_t next_node_id;

	/* Recently released polynomials, kept alive for reuse. */
	struct sym_expr *recent[SYM__N_RECENT];
	unsigned recent_pos;

	/* References handed to callers and not yet released, per kind. */
	long live[SYM__N_OBJ];

	/* Objects callers hold (a circular list through their headers). */
	struct sym__obj owned;

	/* Bindings released by callers, kept for reuse by binding.c: a list
	 * through the "next" of their headers. */
	struct sym__obj *spare_bindings;
	unsigned n_spare_bindings;

	/* Clean-up functions registered by the layers above core. */
	void (*hook[SYM__N_HOOK])(sym_ctx *ctx);
	int n_hook;

	sym_symbol **sym;
	size_t n_sym, cap_sym;
	struct sym__strmap sym_names; /* the first symbol of each name */

	struct sym__fact *fact;
	size_t n_fact, cap_fact;
	int depth;
	uint64_t facts_gen; /* changes whenever the facts change */
	/* facts.c: values of the symbols (by id; 0: none yet) at which
	 * every fact holds, unless "fact_w_bad" (until no fact is left) */
	int64_t *fact_w;
	size_t cap_fact_w;
	int fact_w_bad;

	struct sym__prover *prover;
	sym_tier last_tier;

	/* Allocation failure injection, for the tests only
	 * (sym__ctx_fail_alloc): while "alloc_watch" is set, every
	 * allocation through the helpers below counts in "n_alloc"; the one
	 * numbered "fail_at" (from 0; negative: none) fails, and so does
	 * every later one when "fail_later" is set. Off by default, when the
	 * helpers touch none of these fields. */
	int alloc_watch;
	int fail_later;
	long fail_at;
	unsigned long n_alloc;
	/* How many times SYM_ENOMEM was recorded (sym__ctx_n_oom): a caller
	 * that takes a failure for a rejection compares it before and after,
	 * so that running out of memory is never mistaken for a "no". */
	unsigned long n_oom;
};

sym_error sym__error(sym_ctx *ctx, sym_error code, const sym_loc *where,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
sym_error sym__verror(sym_ctx *ctx, sym_error code, const sym_loc *where,
    const char *fmt, va_list ap);
void sym__oom(sym_ctx *ctx);
/* 0 when "size" is a known size of an options structure of at most "max"
 * bytes, else -1 with an error "who: what of an unknown size" (error.c). */
int sym__options_size(sym_ctx *ctx, size_t size, size_t max, const char *who,
    const char *what, const char *init);
void sym__oom_bytes(sym_ctx *ctx, size_t n, size_t size, const char *what);
char *sym__strdup(sym_ctx *ctx, const char *s);
void *sym__alloc(sym_ctx *ctx, size_t size);
void *sym__calloc(sym_ctx *ctx, size_t n, size_t size);
void *sym__realloc_array(sym_ctx *ctx, void *p, size_t n, size_t size);
int sym__reserve(sym_ctx *ctx, void **arr, size_t *cap, size_t need,
    size_t elem);

/* Test hook: count the allocations through the helpers above from now
 * on and make the one numbered "k" (from 0) fail, and every later one too
 * when "later" is set; no failure when "k" is negative. */
void sym__ctx_fail_alloc(sym_ctx *ctx, long k, int later);
/* Stop counting and failing allocations (sym__ctx_fail_alloc). */
void sym__ctx_fail_alloc_off(sym_ctx *ctx);
/* The allocations counted since sym__ctx_fail_alloc. */
unsigned long sym__ctx_n_alloc(const sym_ctx *ctx);
/* How many times "ctx" recorded SYM_ENOMEM (0 for NULL). */
unsigned long sym__ctx_n_oom(const sym_ctx *ctx);

/* Make the array "arr" (an lvalue) of capacity "cap" (a size_t lvalue)
 * hold at least "need" elements: sym__reserve with the element size of
 * "arr". */
#define SYM__RESERVE(ctx, arr, cap, need) \
	sym__reserve((ctx), (void **)&(arr), &(cap), (need), sizeof(*(arr)))
char *sym__asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sym__vasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));
char *sym__asprintf_ctx(sym_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The time of the monotonic clock in seconds (error.c). */
double sym__seconds(void);

int sym__ctx_add_hook(sym_ctx *ctx, void (*fn)(sym_ctx *ctx));

/* obj.c */
void sym__obj_init(struct sym__obj *obj, enum sym__obj_kind kind,
    void (*destroy)(struct sym__obj *obj));
void sym__obj_ref(struct sym__obj *obj);
void sym__obj_unref(struct sym__obj *obj);
void sym__obj_give(sym_ctx *ctx, struct sym__obj *obj);
void sym__obj_drop(sym_ctx *ctx, struct sym__obj *obj);
void sym__obj_unlist(struct sym__obj *obj);
void sym__obj_forget_all(sym_ctx *ctx);

/* Return the object of type "type" whose header, its member "member", is
 * at "obj". */
#define SYM__OBJ_OF(obj, type, member) \
	((type *)(void *)((char *)(obj)-offsetof(type, member)))

#endif
