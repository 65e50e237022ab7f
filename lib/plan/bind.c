/* SPDX-License-Identifier: MIT */
/*
 * Binding the sizes of one step to a plan: the values of its symbols go
 * into the first slots of a sym_slices, the checks and the program run,
 * and every global size, local size, offset and byte count is then read
 * in constant time. Binding never calls the prover and allocates
 * nothing on success: sym_slices_new sizes everything once per plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_private.h"

/* Free the slices "s" and their arrays. */
static void
slices_free(sym_slices *s)
{
	free(s->val);
	free(s->given);
	free(s->has);
	free(s->poison);
	free(s->offsets);
	free(s);
}

/* Free the slices whose link is "link" (at sym_ctx_free too); they do not
 * touch their plan, which may be gone. */
static void
slices_destroy(struct sym__obj *obj)
{
	slices_free(SYM__OBJ_OF(obj, sym_slices, obj));
}

/* Return new, unbound slices for the plan "p" (a caller reference), or
 * NULL when out of memory. They may be bound again and again, and must
 * be freed before "p". */
sym_slices *
sym_slices_new(const sym_plan *p)
{
	sym_slices *s;

	if (!p)
		return NULL;
	s = sym__alloc(p->ctx, sizeof(*s));
	if (!s)
		return NULL;
	s->ctx = p->ctx;
	s->plan = p;
	s->val = sym__calloc(p->ctx, p->n_insn + 1, sizeof(*s->val));
	s->given = sym__calloc(p->ctx, p->n_elim + 1, sizeof(*s->given));
	s->has = sym__calloc(p->ctx, p->n_elim + p->n_extra + 1, 1);
	s->poison = p->n_extra ? sym__calloc(p->ctx, p->n_insn + 1, 1) : NULL;
	s->offsets = sym__calloc(p->ctx, p->n_offsets + 1, sizeof(*s->offsets));
	if (!s->val || !s->given || !s->has || (p->n_extra && !s->poison) ||
	    !s->offsets) {
		slices_free(s);
		return NULL;
	}
	strcpy(s->error, "not bound");
	sym__obj_init(&s->obj, SYM__OBJ_SLICES, slices_destroy);
	sym__obj_give(p->ctx, &s->obj);
	return s;
}

/* Free the slices "s" (NULL is ignored). */
void
sym_slices_free(sym_slices *s)
{
	if (!s)
		return;
	sym__obj_drop(s->ctx, &s->obj);
}

/* Mark "s" unbound with the message in "s->error", record it with
 * "code" at "where" on the context of "p"; return -1. */
static int
refuse(const sym_plan *p, sym_slices *s, sym_error code, const sym_loc *where)
{
	s->bound = 0;
	sym__error(p->ctx, code, where, "%s", s->error);
	return -1;
}

/* Compute into "s" the local sizes of every placement group of "p" and
 * its offsets on every rank: block index times local size (neither
 * overflows: the block is inside the global size). */
static void
offsets(const sym_plan *p, sym_slices *s)
{
	for (size_t g = 0; g < p->n_group; g++) {
		const struct sym__group *gr = &p->group[g];
		size_t k = gr->rank, n = (size_t)p->n_ranks * k;
		int64_t *o = s->offsets + gr->off, *loc = o - k;
		const int32_t *b = gr->block;

		for (size_t d = 0; d < k; d++)
			loc[d] = s->val[gr->local[d]];
		for (size_t i = 0; i < n; i += k)
			for (size_t d = 0; d < k; d++)
				o[i + d] = b[i + d] * loc[d];
	}
}

/* Run the checks and the program of "p" on the symbols already in "s";
 * 0, or -1 with "s" unbound and the error recorded. */
static int
bind_run(const sym_plan *p, sym_slices *s)
{
	size_t n0 = p->n_sym + p->n_extra;
	const sym_loc *where = NULL;
	sym_error code = SYM_EDOMAIN;

	for (size_t i = 0; i < p->n_check_sym; i++)
		if (!sym__check_eval(p, s, i))
			return refuse(p, s, SYM_EDOMAIN,
			    p->check[i].loc.line > 0 ? &p->check[i].loc : NULL);
	if (sym__plan_run(p, s, n0, p->n_insn1, &code, &where) < 0)
		return refuse(p, s, code, where);
	for (size_t i = p->n_check_sym; i < p->n_check1; i++)
		if (!sym__check_eval(p, s, i))
			return refuse(p, s, SYM_EDOMAIN,
			    p->check[i].loc.line > 0 ? &p->check[i].loc : NULL);
	if (sym__plan_run(p, s, p->n_insn1, p->n_insn, &code, &where) < 0)
		return refuse(p, s, code, where);
	offsets(p, s);
	s->bound = 1;
	s->error[0] = '\0';
	return 0;
}

/* Return 0 when "s" are slices of "p", else -1 with SYM_EINVAL. */
static int
same_plan(const sym_plan *p, sym_slices *s)
{
	if (s->plan == p)
		return 0;
	s->bound = 0;
	snprintf(s->error, sizeof(s->error), "slices of another plan");
	sym__error(p->ctx, SYM_EINVAL, NULL, "%s", s->error);
	return -1;
}

/* Return whether unification eliminated the symbol "sym" in "p" (its
 * value is derived from others). */
static int
eliminated(const sym_plan *p, const sym_symbol *sym)
{
	for (size_t e = 0; e < p->n_elim; e++)
		if (p->elim[e].var == sym)
			return 1;
	return 0;
}

/* Store in "*v" the value "b" gives the symbol "sym" of "p", or for an
 * instance (b') it does not name, the value it gives its symbol (b)
 * unless unification eliminated that one; 0, or -1 when it gives none. */
static int
bind_get(const sym_plan *p, const sym_binding *b, const sym_symbol *sym,
    int64_t *v)
{
	if (sym_binding_get(b, sym, v) == 0)
		return 0;
	if (sym->origin == sym || eliminated(p, sym->origin))
		return -1;
	return sym_binding_get(b, sym->origin, v);
}

/* Return 1 and store in "*value" and "*dim" the first input or parameter
 * of "p" whose declared shape uses the symbol "sym", and which of its
 * dimensions does; 0 when none does. */
static int
find_use(const sym_plan *p, const sym_symbol *sym, const sym_value **value,
    size_t *dim)
{
	sym_symbol *used[16];

	for (size_t t = 0; t < p->n_tensor; t++) {
		const sym_value *v = p->tensor[t].value;
		const sym_shape *sh = v ? v->declared : NULL;

		if (!sh || v->kind == SYM_VALUE_RESULT)
			continue;
		for (size_t d = 0; d < sh->rank; d++) {
			size_t n = sym_expr_symbols(sh->dim[d], used, 16);

			for (size_t k = 0; k < n && k < 16; k++)
				if (used[k] == sym) {
					*value = v;
					*dim = d;
					return 1;
				}
		}
	}
	return 0;
}

/* Refuse to bind "s" of "p" for want of a value of the symbol "sym":
 * SYM_EUNBOUND naming it, where it was declared, and for an instance
 * (b') the dimension that made it and how to bind it. Return -1. */
static int
refuse_unbound(const sym_plan *p, sym_slices *s, const sym_symbol *sym)
{
	const sym_loc *at = &sym->origin->loc;
	const sym_value *v;
	size_t n, d;

	n = sym__append(s->error, sizeof(s->error), 0, "no value for symbol %s",
	    sym->name);
	if (sym->origin != sym && find_use(p, sym, &v, &d))
		n = sym__append(s->error, sizeof(s->error), n,
		    ", the instance of %s in dimension %zu of %s",
		    sym->origin->name, d, v->name);
	n = sym__append_loc(s->error, sizeof(s->error), n, " (declared at ",
	    at);
	if (at->line > 0)
		n = sym__append(s->error, sizeof(s->error), n, ")");
	if (sym->origin != sym && eliminated(p, sym->origin))
		sym__append(s->error, sizeof(s->error), n,
		    ": bind %s itself (%s is derived from other symbols, so "
		    "it gives its instances no value)",
		    sym->name, sym->origin->name);
	else if (sym->origin != sym)
		sym__append(s->error, sizeof(s->error), n,
		    ": bind %s, or %s, which gives its instances its value",
		    sym->name, sym->origin->name);
	return refuse(p, s, SYM_EUNBOUND, NULL);
}

/* Bind the values "b" gives the symbols of "p" into "s": every symbol of
 * sym_plan_symbol must have one, an instance (b') the binding does not
 * name taking the value of its symbol (b); values given to variables
 * unification eliminated must agree with their derived values, and to
 * symbols only declared relations name are checked with them. Return 0,
 * or -1 with "s" unbound and the reason on the context of "p" and in
 * sym_slices_error: SYM_EUNBOUND (a symbol without value), SYM_EDOMAIN
 * (a constraint violated), SYM_EOVERFLOW or SYM_EDIVZERO. */
int
sym_plan_bind(const sym_plan *p, const sym_binding *b, sym_slices *s)
{
	int64_t v;

	if (!p || !b || !s || same_plan(p, s) < 0)
		return -1;
	for (size_t i = 0; i < p->n_sym; i++) {
		if (bind_get(p, b, p->sym[i], &v) < 0)
			return refuse_unbound(p, s, p->sym[i]);
		s->val[i] = v;
	}
	for (size_t e = 0; e < p->n_elim; e++)
		s->has[e] =
		    sym_binding_get(b, p->elim[e].var, &s->given[e]) == 0;
	s->partial = 0;
	for (size_t i = 0; i < p->n_extra; i++) {
		size_t k = p->n_sym + i;

		s->has[p->n_elim + i] =
		    sym_binding_get(b, p->sym[k], &s->val[k]) == 0;
		if (!s->has[p->n_elim + i])
			s->val[k] = 0;
		s->poison[k] = !s->has[p->n_elim + i];
		s->partial |= s->poison[k];
	}
	return bind_run(p, s);
}

/* Bind the "n" values "values" (n = sym_plan_n_symbols; sym_plan_symbol
 * order) into "s", as sym_plan_bind does. */
int
sym_plan_bind_values(const sym_plan *p, const int64_t *values, sym_slices *s)
{
	if (!p || !s || (p->n_sym && !values) || same_plan(p, s) < 0)
		return -1;
	for (size_t i = 0; i < p->n_sym; i++)
		s->val[i] = values[i];
	memset(s->has, 0, p->n_elim + p->n_extra);
	s->partial = p->n_extra > 0;
	for (size_t i = 0; i < p->n_extra; i++) {
		s->val[p->n_sym + i] = 0;
		s->poison[p->n_sym + i] = 1;
	}
	return bind_run(p, s);
}

/* Return SYM_TRUE when "s" holds the sizes of a successful binding,
 * SYM_FALSE when not, SYM_ERROR for NULL. */
sym_answer
sym_slices_is_bound(const sym_slices *s)
{
	if (!s)
		return SYM_ERROR;
	return s->bound ? SYM_TRUE : SYM_FALSE;
}

/* Return why the last binding of "s" failed ("not bound" before the
 * first), "" when it succeeded. */
const char *
sym_slices_error(const sym_slices *s)
{
	return s ? s->error : NULL;
}

/* Return the value the bound slices "s" give "sym": a symbol of the
 * plan, a variable eliminated by unification (its derived value), or an
 * optional symbol the binding gave; -1 when "s" is not bound or has no
 * value for it. */
int64_t
sym_slices_symbol(const sym_slices *s, const sym_symbol *sym)
{
	const sym_plan *p;
	long i;

	if (!s || !s->bound || !sym)
		return -1;
	p = s->plan;
	i = sym__plan_symbol_index(p, sym);
	if (i >= 0 && (size_t)i < p->n_sym)
		return s->val[i];
	if (i >= 0)
		return s->has[p->n_elim + (size_t)i - p->n_sym] ? s->val[i]
		                                                : -1;
	i = sym__plan_elim_index(p, sym);
	if (i < 0 || p->elim[i].slot == SYM__NO_SLOT)
		return -1;
	return s->val[p->elim[i].slot];
}

/* Return tensor "t" of the plan of the bound slices "s", or NULL. */
static const struct sym__tensor *
bound_tensor(const sym_slices *s, size_t t)
{
	if (!s || !s->bound || t >= s->plan->n_tensor)
		return NULL;
	return &s->plan->tensor[t];
}

/* Store the global sizes of tensor "t" of "s" in "size", or its local
 * ones when "local" is set; 0 or -1. */
static int
sizes(const sym_slices *s, size_t t, int local, int64_t *size)
{
	const struct sym__tensor *x = bound_tensor(s, t);

	if (!x || (x->rank && !size))
		return -1;
	for (size_t d = 0; d < x->rank; d++)
		size[d] = s->val[local ? x->local[d] : x->global[d]];
	return 0;
}

/* Store the global sizes of tensor "t" of "s" in "size"; 0 or -1. */
int
sym_slices_global(const sym_slices *s, size_t t, int64_t *size)
{
	return sizes(s, t, 0, size);
}

/* Store the local sizes of tensor "t" of "s" (the same on every rank)
 * in "size"; 0 or -1. */
int
sym_slices_local(const sym_slices *s, size_t t, int64_t *size)
{
	return sizes(s, t, 1, size);
}

/* Store in "offset" the global offsets of the block of tensor "t" of "s"
 * that "rank" holds; 0 or -1 (also for a rank out of range). */
int
sym_slices_offset(const sym_slices *s, size_t t, int64_t rank, int64_t *offset)
{
	const struct sym__tensor *x = bound_tensor(s, t);

	if (!x || (x->rank && !offset) || rank < 0 || rank >= s->plan->n_ranks)
		return -1;
	if (x->rank)
		memcpy(offset,
		    s->offsets + s->plan->group[x->group].off +
		        (size_t)rank * x->rank,
		    x->rank * sizeof(*offset));
	return 0;
}

/* Return the offsets of tensor "t" of "s" on every rank, rank after rank
 * (sym_plan_n_ranks x sym_plan_tensor_ndim integers, borrowed from "s"
 * until its next binding), or NULL when not bound or out of range. */
const int64_t *
sym_slices_offsets(const sym_slices *s, size_t t)
{
	const struct sym__tensor *x = bound_tensor(s, t);

	return x ? s->offsets + s->plan->group[x->group].off : NULL;
}

/* Return the local sizes of tensor "t" of "s" (sym_plan_tensor_ndim
 * integers, borrowed from "s" until its next binding), or NULL when not
 * bound or out of range. */
const int64_t *
sym_slices_local_sizes(const sym_slices *s, size_t t)
{
	const struct sym__tensor *x = bound_tensor(s, t);

	return x ? s->offsets + s->plan->group[x->group].off - x->rank : NULL;
}

/* Return the bytes step "i" of the bound slices "s" communicates (the
 * nccl-tests S), 0 for a kernel, -1 when not bound or out of range. */
int64_t
sym_slices_step_bytes(const sym_slices *s, size_t i)
{
	if (!s || !s->bound || i >= s->plan->n_step)
		return -1;
	if (s->plan->step[i].bytes == SYM__NO_SLOT)
		return 0;
	return s->val[s->plan->step[i].bytes];
}

/* Append to "b" the "n" integers "v" as "[1, 2]". */
static void
ints(struct sym__str *b, const int64_t *v, size_t n)
{
	sym__str_printf(b, "[");
	for (size_t d = 0; d < n; d++)
		sym__str_printf(b, "%s%lld", d ? ", " : "", (long long)v[d]);
	sym__str_printf(b, "]");
}

/* Append to "b" the line of tensor "t" ("in" or "out" per "dir") of "s"
 * on "rank": value, tensor, offset and size. */
static void
tensor_line(const sym_slices *s, const char *dir, size_t t, int64_t rank,
    struct sym__str *b)
{
	const struct sym__tensor *x = &s->plan->tensor[t];
	int64_t buf[16], *v = x->rank <= 8 ? buf : malloc(2 * x->rank * 8);

	if (!v) {
		b->failed = 1;
		return;
	}
	sym_slices_offset(s, t, rank, v);
	sym_slices_local(s, t, v + x->rank);
	sym__str_printf(b, "    %-3s %s (t%zu)  offset ", dir, x->value->name,
	    t);
	ints(b, v, x->rank);
	sym__str_printf(b, "  size ");
	ints(b, v + x->rank, x->rank);
	sym__str_printf(b, "\n");
	if (v != buf)
		free(v);
}

/* Append to "b" the steps of "s" on "rank". */
static void
rank_text(const sym_slices *s, int64_t rank, struct sym__str *b)
{
	const sym_plan *p = s->plan;

	sym__str_printf(b, "rank %lld\n", (long long)rank);
	for (size_t i = 0; i < p->n_step; i++) {
		const sym_plan_step *st = &p->step[i].pub;

		sym__str_printf(b, "  %zu  %s ", i,
		    st->kind == SYM_PLAN_KERNEL ? "kernel" : "comm");
		sym__step_label(p, i, b);
		if (st->kind == SYM_PLAN_COMM)
			sym__str_printf(b, "  %lld bytes",
			    (long long)sym_slices_step_bytes(s, i));
		sym__str_printf(b, "\n");
		for (size_t k = 0; k < st->n_in; k++)
			tensor_line(s, "in", st->in[k], rank, b);
		for (size_t k = 0; k < st->n_out; k++)
			tensor_line(s, "out", st->out[k], rank, b);
	}
}

/* Return the numeric slices of "s" on "rank" (every rank for -1) as
 * text (malloc'ed): the binding, then per step its tensors' offsets and
 * local sizes; "not bound: why" when unbound; NULL when out of memory or
 * the rank is out of range. */
char *
sym_slices_to_str(const sym_slices *s, int64_t rank)
{
	struct sym__str b = SYM__STR_INIT;
	const sym_plan *p;

	if (!s)
		return NULL;
	p = s->plan;
	if (rank < -1 || rank >= p->n_ranks) {
		sym__error(s->ctx, SYM_EINVAL, NULL,
		    "rank %lld is outside the plan's %lld ranks",
		    (long long)rank, (long long)p->n_ranks);
		return NULL;
	}
	if (!s->bound) {
		sym__str_printf(&b, "not bound: %s\n", s->error);
		return sym__str_take(&b, s->ctx);
	}
	for (size_t i = 0; i < p->n_sym; i++)
		sym__str_printf(&b, "%s%s = %lld", i ? ", " : "",
		    p->sym[i]->name, (long long)s->val[i]);
	sym__str_printf(&b, "%s\n", p->n_sym ? "" : "no symbols");
	for (int64_t r = rank < 0 ? 0 : rank;
	     r < (rank < 0 ? p->n_ranks : rank + 1); r++)
		rank_text(s, r, &b);
	return sym__str_take(&b, s->ctx);
}
