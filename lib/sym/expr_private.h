/* SPDX-License-Identifier: MIT */
/*
 * The canonical form of symbolic expressions.
 *
 * Every expression handed to callers is a POLY node: a constant plus a sum
 * of terms, each a non-zero coefficient times a monomial, a product of
 * atoms raised to positive powers. Atoms are symbols (VAR) and the nodes
 * that could not be simplified away: FDIV and MOD (by a positive constant
 * or by an expression), MIN and MAX. Terms are sorted by monomial, factors
 * by atom, so equal canonical forms are the same node: every node is
 * hash-consed in its context's table.
 */
#ifndef SYM_SYM_EXPR_PRIVATE_H
#define SYM_SYM_EXPR_PRIVATE_H

#include <symshard/expr.h>
#include <symshard/symbol.h>

#include "core/ctx_private.h"
#include "core/hash.h"
#include "core/htab.h"
#include "core/num.h"
#include "sym/absval.h"

/* The most terms a polynomial may have once expanded. */
#define SYM__MAX_TERMS 4096

enum sym__kind {
	SYM__VAR,
	SYM__FDIV,
	SYM__MOD,
	SYM__MIN,
	SYM__MAX,
	SYM__POLY
};

struct sym__factor {
	struct sym_expr *atom;
	uint32_t exp;
};

struct sym__term {
	sym__num coef;
	uint32_t n;
	struct sym__factor *f;
};

struct sym_expr {
	sym_ctx *ctx;
	uint32_t hash; /* in the context's table under sym__table_key(hash) */
	uint32_t ref;
	uint32_t id; /* creation number, unique in the context */
	uint8_t kind;
	uint8_t affine; /* quasi-affine: see sym_expr_is_affine */
	uint16_t depth;
	sym__av av; /* abstract value from the declarations */
	union {
		struct {
			sym__num c;
			uint32_t n;
			struct sym__term *t;
		} poly;
		sym_symbol *var;
		struct {
			struct sym_expr *a, *b;
		} bin;
	} u;
};

/* Return the key of the context's table for a node of hash "h" (a
 * bijection: equal keys are equal hashes). */
static inline uint64_t
sym__table_key(uint32_t h)
{
	return sym__mix64(h);
}

/* Return the node of slot "i" of the context's table. */
static inline struct sym_expr *
sym__table_node(const sym_ctx *ctx, size_t i)
{
	return (struct sym_expr *)ctx->table.slot[i].item;
}

/* Walk the nodes "e" of the table of "ctx" whose hash is "h" ("i" is
 * the slot, a size_t of the caller's). */
#define SYM__TABLE_FOREACH(ctx, h, i, e)                                     \
	for ((i) = sym__htab_first(&(ctx)->table, sym__table_key(h));        \
	     (i) != SYM__HTAB_END && ((e) = sym__table_node((ctx), (i)), 1); \
	     (i) = sym__htab_next(&(ctx)->table, sym__table_key(h), (i)))

/* The body of a symbol. */
struct sym_symbol {
	sym_ctx *ctx;
	char *name;
	sym_symbol_info info;
	int64_t least, greatest; /* greatest = 0: unbounded */
	uint32_t id;
	unsigned instance; /* 0 for the declared symbol */
	unsigned n_instances;
	sym_symbol *origin;
	sym_loc loc;
	char *loc_file;
	struct sym_expr *expr; /* the POLY node of the symbol */
	unsigned n_facts;      /* facts in scope that name it */
	sym__av av;
};

/* Internal references: not counted as held by callers. */
void sym__expr_release(struct sym_expr *e);
sym_expr *sym__expr_give(sym_expr *e);

/* Return a new internal reference to "e" (may be NULL). */
static inline struct sym_expr *
sym__expr_ref(struct sym_expr *e)
{
	if (e)
		e->ref++;
	return e;
}

/* Release an internal reference to "e" (may be NULL); the last one goes
 * to sym__expr_release. */
static inline void
sym__expr_unref(struct sym_expr *e)
{
	if (e && --e->ref == 0)
		sym__expr_release(e);
}

sym_expr *sym__const(sym_ctx *ctx, int64_t v);
sym_expr *sym__const_num(sym_ctx *ctx, const sym__num *v);
sym_expr *sym__var(sym_symbol *sym);
sym_expr *sym__add(sym_expr *a, sym_expr *b);
sym_expr *sym__sub(sym_expr *a, sym_expr *b);
sym_expr *sym__mul(sym_expr *a, sym_expr *b);
sym_expr *sym__scale_si(sym_expr *a, int64_t k);
sym_expr *sym__add_si(sym_expr *a, int64_t k);
sym_expr *sym__fdiv(sym_expr *a, sym_expr *b);
sym_expr *sym__mod(sym_expr *a, sym_expr *b);
sym_expr *sym__min(sym_expr *a, sym_expr *b);
sym_expr *sym__max(sym_expr *a, sym_expr *b);
sym_expr *sym__atom_poly(struct sym_expr *atom);
/* The polynomial of the atom of "kind" over "var" or "a" and "b" (expr.c). */
sym_expr *sym__atom_expr(sym_ctx *ctx, enum sym__kind kind, sym_symbol *var,
    struct sym_expr *a, struct sym_expr *b);
int sym__expr_const_num(const sym_expr *e, const sym__num **v);
struct sym_expr *sym__poly_single_atom(const sym_expr *e);

/* Rebuild "e" with its atoms mapped: see sym__expr_map in expr_walk.c. */
typedef sym_expr *(*sym__atom_map)(struct sym_expr *atom, sym_expr *rebuilt,
    void *user);
sym_expr *sym__expr_map(sym_expr *e, sym__atom_map fn, void *user);

/* Visit every atom of "e" once (post-order, children first). */
typedef int (*sym__atom_fn)(struct sym_expr *atom, void *user);
int sym__expr_foreach_atom(sym_expr *e, sym__atom_fn fn, void *user);

size_t sym__expr_symbols_upto(const sym_expr *e, sym_symbol **out, size_t cap);
/* 1 when the declaration "info" is valid and admits a value, else 0. */
int sym__symbol_info_admits(const sym_symbol_info *info);
int sym__expr_eval_vals(const sym_expr *e, sym_symbol *const *sym,
    const int64_t *val, size_t n, int64_t *value);
sym_expr *sym__lin(sym_expr *a, int64_t ca, sym_expr *b, int64_t cb, int64_t c);

/*
 * Building canonical expressions, shared by expr.c (the constructors),
 * expr_intern.c (the hash-consing table), expr_poly.c (the order of terms,
 * the polynomial builder and its rewriting rules) and expr_div.c (floordiv
 * and mod); expr_walk.c holds the traversals.
 */

/* A polynomial under construction. */
struct sym__pb {
	sym_ctx *ctx;
	struct sym__term *t; /* tbuf until it outgrows it */
	size_t n, cap;
	struct sym__factor *fp; /* the factors of all terms: fbuf first */
	size_t fn, fcap;
	sym__num c;
	int err;
	int divmod; /* some factor is a floordiv or mod atom */
	int sorted; /* terms in order, monomials distinct, coefficients not 0 */
	struct sym__term tbuf[8];
	struct sym__factor fbuf[24];
};

/* expr_intern.c */

/* Return an internal reference to the atom of "kind" over "var" or over
 * "a" and "b" (borrowed), creating it if needed. */
struct sym_expr *sym__atom_get(sym_ctx *ctx, enum sym__kind kind,
    sym_symbol *var, struct sym_expr *a, struct sym_expr *b);
/* Return the atom of "kind" over "a", "b" if it exists (no reference). */
struct sym_expr *sym__atom_find(sym_ctx *ctx, enum sym__kind kind,
    struct sym_expr *a, struct sym_expr *b);
/* Return the hash of the constant polynomial "c"; the hash of any
 * polynomial starts from that of its constant. */
uint32_t sym__const_hash(const sym__num *c);
/* Return an internal reference to the interned polynomial of "pb"; "pb" is
 * consumed. */
sym_expr *sym__pb_intern(struct sym__pb *pb);

/* expr_poly.c */

/* Return the sign of the comparison of nodes "a" and "b" in the total
 * order that sorts terms and factors. */
int sym__expr_cmp(const struct sym_expr *a, const struct sym_expr *b);
/* Initialise the builder "pb" for "ctx". */
void sym__pb_init(struct sym__pb *pb, sym_ctx *ctx);
/* Free the arrays of "pb" (not what they hold) and empty it. */
void sym__pb_release(struct sym__pb *pb);
/* Release everything held by the builder "pb". */
void sym__pb_clear(struct sym__pb *pb);
/* Append "coef" times the monomial of "n" factors "f" to "pb", taking new
 * references to the atoms. "pb" stays sorted while the terms come in
 * increasing order of monomial with non-zero coefficients. */
void sym__pb_push(struct sym__pb *pb, const sym__num *coef, uint32_t n,
    const struct sym__factor *f);
/* Add "k" times the polynomial "p" to "pb" ("k" NULL means 1). */
void sym__pb_add_poly(struct sym__pb *pb, const sym_expr *p, const sym__num *k);
/* Add "ka" times "a" plus "kb" times "b" to "pb" (NULL means 1), merging
 * the terms of the two polynomials, which are in order already: the sum
 * comes out sorted when "pb" had no terms. */
void sym__pb_add_two(struct sym__pb *pb, const sym_expr *a, const sym__num *ka,
    const sym_expr *b, const sym__num *kb);
/* Normalise the builder "pb" (combine terms, apply the rewriting rules,
 * which only concern terms with a floordiv or mod factor) and return an
 * internal reference to its interned polynomial; "pb" is consumed. */
sym_expr *sym__pb_finish(struct sym__pb *pb);
/* Return the atom of term "t" when it is a single atom to the power one,
 * else NULL. */
struct sym_expr *sym__term_atom(const struct sym__term *t);
/* Return the constant value of the divisor of the FDIV or MOD atom "a", or
 * NULL when it is not constant. */
const sym__num *sym__atom_const_divisor(const struct sym_expr *a);

/* expr.c */

/* Return 1 when "a" and "b" belong to the same context, else record an
 * error and return 0. */
int sym__expr_same_ctx(const sym_expr *a, const sym_expr *b);
/* Return an internal reference to "k" times "a" (borrowed). */
sym_expr *sym__scale_num(sym_expr *a, const sym__num *k);

#endif
