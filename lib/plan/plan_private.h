/* SPDX-License-Identifier: MIT */
/*
 * The body of slice plans and bound slices, shared by the files of
 * lib/plan: plan.c (steps and tensors), plan_groups.c (placement groups),
 * plan_text.c (the listing), program.c (the straight-line integer program
 * and its interpreter), checks.c (the run-time checks and their messages)
 * and bind.c (binding, the sym_slices accessors).
 */
#ifndef SYM_PLAN_PLAN_PRIVATE_H
#define SYM_PLAN_PLAN_PRIVATE_H

#include <symshard/plan.h>

#include "core/hash.h"
#include "core/htab.h"
#include "core/str.h"
#include "graph/graph_private.h"
#include "redist/redist_private.h"
#include "shard/sharding_private.h"

/* No slot / no tensor. */
#define SYM__NO_SLOT UINT32_MAX
#define SYM__NO_TENSOR ((size_t)-1)

/* The operations of the integer program. Instruction i writes slot i;
 * "a" and "b" are the slots it reads. */
enum sym__pop {
	SYM__P_SYM,     /* an input: the value of symbol number "a" */
	SYM__P_CONST,   /* "k" */
	SYM__P_ADD,     /* a + b */
	SYM__P_SUB,     /* a - b */
	SYM__P_MUL,     /* a * b */
	SYM__P_FDIV,    /* floor(a / b), b > 0 */
	SYM__P_CDIV,    /* ceiling(a / b), b > 0 */
	SYM__P_MOD,     /* a mod b in [0, b), b > 0 */
	SYM__P_MIN,     /* min(a, b) */
	SYM__P_MAX,     /* max(a, b) */
	SYM__P_DIVEXACT /* a / k, failing check "what" unless k divides a */
};

/* Bits of sym__insn.flags. */
#define SYM__INSN_OPTIONAL 0x1 /* depends on a symbol a binding may omit */

struct sym__insn {
	uint8_t op;
	uint8_t flags;
	uint32_t a, b;
	uint32_t what; /* what it is computed for (messages), see sym__what */
	int64_t k;
};

/* What an instruction is first computed for, to name it in messages. */
enum sym__what_kind {
	SYM__W_CHECK, /* check "a" */
	SYM__W_DIM,   /* dimension "b" of tensor "a" */
	SYM__W_BYTES  /* the bytes of step "a" */
};

struct sym__what {
	uint8_t kind;
	size_t a, b;
};

/* Kinds of run-time checks. */
enum sym__check_kind {
	SYM__C_SYMBOL,  /* a symbol's declaration (min, max, class) */
	SYM__C_DERIVED, /* an eliminated variable's value against its own
	                   declaration */
	SYM__C_AGREE,   /* a value the binding gives an eliminated variable
	                   against the one derived */
	SYM__C_FACT,    /* a declared relation */
	SYM__C_GUARD,   /* a run-time guard */
	SYM__C_SIZE,    /* a dimension of an input is at least 1 */
	SYM__C_SPLIT    /* a split dimension divides (by its instruction) */
};

/* A symbol a message prints with its value. */
struct sym__named {
	const char *name;
	uint32_t slot;
};

/*
 * A run-time check: "slot" rel 0 (or "k" divides it; for symbols and
 * derived variables: "slot" is admissible for "sym"). "text" is the
 * constraint as messages name it; "named" the symbols they print; a check
 * needing an optional symbol ("optional") is skipped when the binding
 * omits one of them.
 */
struct sym__check {
	enum sym__check_kind kind;
	enum sym__rel rel;
	uint32_t slot;
	int64_t k;
	sym_symbol *sym; /* SYMBOL, DERIVED, AGREE */
	size_t elim;     /* DERIVED, AGREE: the eliminated variable */
	size_t tensor;   /* SPLIT: the tensor and its dimension */
	size_t dim;
	char *text;  /* "relation t = s + 128 declared at x.sg:7:1" */
	sym_loc loc; /* where the constraint was written */
	struct sym__named *named;
	size_t n_named;
	int optional;
};

/* A symbol eliminated by unification: "var" = "value", derived at
 * relation "rel" of the graph; its value is computed in "slot". */
struct sym__elim {
	sym_symbol *var;
	sym_expr *value; /* borrowed from the graph */
	size_t rel;
	uint32_t slot;
	int busy; /* being compiled (cycle detection) */
};

/* A tensor of the plan: a value in one layout. */
struct sym__tensor {
	const sym_value *value;
	sym_layout *layout; /* internal reference, NULL: whole everywhere */
	size_t rank;
	uint32_t *global; /* slots of the global sizes, by dimension */
	uint32_t *local;  /* slots of the local sizes */
	size_t group;     /* its placement group */
	size_t next;      /* the next tensor of the same value (compiling) */
};

/* A placement group: the tensors whose blocks are placed alike on every
 * rank and whose local sizes are the same slots share the offsets of
 * every rank, computed once per binding into the slices at "off":
 * offset[r][d] = block[r][d] * local[d]. */
struct sym__group {
	size_t rank;
	const uint32_t *local; /* the slots (of its first tensor) */
	int32_t *block;        /* n_ranks x rank block indices */
	size_t off;            /* where its offsets are in the slices */
};

/* A step with the slot of its bytes (SYM__NO_SLOT: none). */
struct sym__pstep {
	sym_plan_step pub;
	uint32_t bytes;
	size_t io;     /* offset of its inputs, then outputs, in the io pool */
	size_t bucket; /* its fused bucket (plan_fuse.c), or SIZE_MAX */
};

/* A bucket of fused all_reduces: its "n" steps in step order (packed in
 * that order, run at the last), "bytes" per device as the sharding
 * counts them. */
struct sym__pbucket {
	size_t *step;
	size_t n, cap;
	int64_t bytes;
};

struct sym_plan {
	struct sym__obj obj;
	sym_ctx *ctx;
	sym_graph *g;
	sym_sharding *sh; /* what it was compiled from (a reference), or NULL */
	unsigned flags;
	int single;
	int64_t n_ranks;

	/* The symbols: the "n_sym" a binding must give, then "n_extra"
	 * optional ones (named only by declared relations); the value of
	 * symbol i is slot i. */
	sym_symbol **sym;
	size_t n_sym, n_extra, cap_sym;
	struct sym__elim *elim;
	size_t n_elim;

	/* The program: [0, n_insn1) is what the checks need, the rest the
	 * sizes and bytes. */
	struct sym__insn *insn;
	size_t n_insn, cap_insn, n_insn1;
	struct sym__what *what;
	size_t n_what, cap_what;
	struct sym__check *check;
	size_t n_check, cap_check;
	size_t n_check_sym; /* [0, n_check_sym): symbol declarations */
	size_t n_check1;    /* [n_check_sym, n_check1): on segment 1 */

	struct sym__pstep *step;
	size_t n_step, cap_step;
	size_t *io;
	size_t n_io, cap_io;
	struct sym__tensor *tensor;
	size_t n_tensor, cap_tensor;
	struct sym__group *group;
	size_t n_group, cap_group;
	size_t n_offsets;            /* the offsets of every group */
	size_t *home;                /* by value index: its home tensor */
	struct sym__pbucket *bucket; /* fused all_reduces (plan_fuse.c) */
	size_t n_bucket;
	size_t *first; /* by value index: its last tensor (compiling) */

	/* Compilation only (freed when done). */
	struct sym__htab expr_map; /* expression node's id -> slot */
	struct sym__htab cse;      /* instruction's hash -> slot */
	uint32_t cur_what;
	int failed;
};

struct sym_slices {
	struct sym__obj obj;
	sym_ctx *ctx;
	const sym_plan *plan;
	int bound;
	int64_t *val;     /* by slot */
	int64_t *given;   /* by eliminated variable: the binding's value */
	uint8_t *has;     /* by eliminated variable: given; then by extra
	                      symbol: given */
	int64_t *offsets; /* by group: n_ranks x rank offsets */
	uint8_t *poison;  /* by slot, when the plan has extra symbols */
	int partial;      /* the binding omits an extra symbol: "poison"
	                    marks what depends on one */
	char error[1024];
};

/* plan_fuse.c */
int sym__plan_fuse(sym_plan *p);
void sym__plan_fuse_clear(sym_plan *p);

/* program.c */
/* The slot of "e" (an expression node of the plan's context), compiling
 * it for "p->cur_what" if needed; SYM__NO_SLOT on error (on the ctx). */
uint32_t sym__plan_expr(sym_plan *p, sym_expr *e);
/* The slot of an instruction, shared with an equal one already
 * emitted. */
uint32_t sym__plan_emit(sym_plan *p, enum sym__pop op, uint32_t a, uint32_t b,
    int64_t k);
/* Add what is being compiled now; 0 or -1. */
int sym__plan_what(sym_plan *p, enum sym__what_kind kind, size_t a, size_t b);
/* The number of symbol "sym" among the plan's symbols, -1 if none. */
long sym__plan_symbol_index(const sym_plan *p, const sym_symbol *sym);
/* The eliminated variable "var" is, -1 if none. */
long sym__plan_elim_index(const sym_plan *p, const sym_symbol *var);
/* Run instructions [from, to) of "p" over "s->val"; 0, or -1 with the
 * message in "s->error" and the code in "*code". */
int sym__plan_run(const sym_plan *p, sym_slices *s, size_t from, size_t to,
    sym_error *code, const sym_loc **where);
/* The name of operation "op" ("add"). */

/* checks.c */
/* Build the checks of "p" (after its symbols): symbols, derived
 * variables, declared relations, guards; 0 or -1. */
int sym__plan_checks(sym_plan *p);
/* Add the split check of dimension "d" of tensor "t" split "k" ways;
 * its number, or -1. */
long sym__plan_split_check(sym_plan *p, size_t t, size_t d, int64_t k);
void sym__check_clear(struct sym__check *c);
/* Evaluate check "i" of "p" on "s"; 1 holds (or skipped), 0 fails with
 * the message in "s->error". */
int sym__check_eval(const sym_plan *p, sym_slices *s, size_t i);
/* Write into "s->error" the message of the failed split check "i" of
 * "p", whose dimension has size "v". */
void sym__check_split_message(const sym_plan *p, size_t i, int64_t v,
    sym_slices *s);
/* Append "fmt" formatted to "buf" of "size" bytes holding "n"; return
 * the new length (at most size - 1). */
size_t sym__append(char *buf, size_t size, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Append "at FILE:LINE:COL" of "loc" (nothing when unknown) after
 * "prefix" to "buf". */
size_t sym__append_loc(char *buf, size_t size, size_t n, const char *prefix,
    const sym_loc *loc);

/* plan_groups.c */
/* Put every tensor of "p" in a placement group, the tensors placed alike
 * with the same local sizes together, and lay out the local sizes and
 * offsets of the groups; 0 or -1. */
int sym__plan_build_groups(sym_plan *p);

/* plan_text.c */
/* The label of step "i": "kernel matmul h1", "all_gather of a1 for
 * relu a2 (input 0)". */
void sym__step_label(const sym_plan *p, size_t i, struct sym__str *b);

#endif
