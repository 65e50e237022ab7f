/* SPDX-License-Identifier: MIT */
/*
 * The prover's internal interface: facts, claims, the two tiers.
 */
#ifndef SYM_SYM_PROVE_PRIVATE_H
#define SYM_SYM_PROVE_PRIVATE_H

#include <symshard/prove.h>

#include "sym/expr_private.h"

/* The form of a fact or claim about an expression e. */
enum sym__rel {
	SYM__REL_EQ, /* e == 0 */
	SYM__REL_GE, /* e >= 0 */
	SYM__REL_NE, /* e != 0 */
	SYM__REL_DIV /* k divides e, k >= 1 */
};

/* Return 1 when the value "v" of an expression satisfies relation "rel"
 * (with divisor "k" >= 1 for SYM__REL_DIV), 0 otherwise. */
static inline int
sym__rel_holds(enum sym__rel rel, int64_t v, int64_t k)
{
	switch (rel) {
	case SYM__REL_EQ:
		return v == 0;
	case SYM__REL_GE:
		return v >= 0;
	case SYM__REL_NE:
		return v != 0;
	case SYM__REL_DIV:
		return v % k == 0;
	}
	return 0;
}

/* A fact assumed by the context (declared relation, unification, ...). */
struct sym__fact {
	enum sym__rel rel;
	sym_expr *e; /* internal reference */
	int64_t k;   /* for SYM__REL_DIV */
	int depth;   /* scope depth it was added at */
	sym_loc loc;
	char *loc_file;
	char *text; /* as the caller wrote it */
	/* The symbols of "e", whose fact counts it raised: kept so that
	 * forgetting the fact allocates nothing. */
	sym_symbol **syms;
	size_t n_syms;
};

/* A claim to prove for every admissible binding. */
struct sym__claim {
	enum sym__rel rel;
	sym_expr *e; /* borrowed */
	int64_t k;
};

/* 1 when "claim" holds at the binding "b", 0 when it fails, -1 on error
 * (unbound symbol, overflow, division by zero: recorded on the ctx). */
int sym__claim_holds(sym_ctx *ctx, const struct sym__claim *claim,
    const sym_binding *b);

/* 1 when "b" satisfies every declaration and every fact in scope whose
 * symbols it binds, 0 when it violates one (no error recorded), -1 on
 * error. */
int sym__binding_admissible(sym_ctx *ctx, const sym_binding *b);

/* As sym__binding_admissible, but 0 or -1 with the reason recorded. */
int sym__binding_check(sym_ctx *ctx, const sym_binding *b);

/*
 * The exact tier (prove_isl.c).
 *
 * sym__isl_prove: SYM_TRUE when no admissible binding (declarations of
 * the symbols involved, facts in scope) violates "claim"; SYM_FALSE with
 * "*witness" (when "witness" is not NULL) set to a complete admissible
 * binding of the symbols involved at which sym__claim_holds returns 0;
 * SYM_UNKNOWN when the operation budget ran out or no verified witness was
 * found; SYM_ERROR on error.
 *
 * sym__isl_bound: the minimum ("want_max" 0) or maximum of "e" over the
 * admissible bindings. SYM_TRUE when "*value" is exact (NULL: unbounded),
 * SYM_UNKNOWN when it is only a sound bound (NULL: none found).
 *
 * sym__isl_satisfiable: SYM_TRUE with a witness when some binding of all
 * symbols named by the facts satisfies the declarations and all facts,
 * SYM_FALSE when none does.
 */
sym_answer sym__isl_prove(sym_ctx *ctx, const struct sym__claim *claim,
    sym_binding **witness);
sym_answer sym__isl_bound(sym_ctx *ctx, sym_expr *e, int want_max,
    sym_expr **value);
sym_answer sym__isl_satisfiable(sym_ctx *ctx, sym_binding **witness);

#endif
