/* SPDX-License-Identifier: MIT */
/*
 * The readable listing of a plan (sym_plan_to_str) and its fingerprint,
 * with the step labels that the messages of the program (program.c) and
 * the listing of bound slices (bind.c) use too.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/hash.h"
#include "plan/plan_private.h"

/* Append the label of step "i" of "p" to "b": "kernel matmul h1",
 * "all_to_all of x2 for matmul h1 (input 0)", "all_reduce of h1 after
 * matmul h1 (partial sums)". */
void
sym__step_label(const sym_plan *p, size_t i, struct sym__str *b)
{
	const sym_plan_step *s = &p->step[i].pub;
	const char *out = s->node->n_out ? s->node->out[0]->name : "";

	if (s->kind == SYM_PLAN_KERNEL) {
		sym__str_printf(b, "%s %s", s->node->op->name, out);
		return;
	}
	sym__str_printf(b, "%s of %s", sym_redist_kind_name(s->comm),
	    s->value->name);
	if (s->input == SYM_PLAN_NO_INPUT)
		sym__str_printf(b, " after %s %s (partial sums)",
		    s->node->op->name, out);
	else
		sym__str_printf(b, " for %s %s (input %zu)", s->node->op->name,
		    out, s->input);
}

/* Append the expressions "e" of the "n" dimensions to "b" as "[b, 784]"
 * ("?" when one cannot be printed). */
static void
dims_text(struct sym__str *b, sym_expr *const *e, size_t n)
{
	sym__str_printf(b, "[");
	for (size_t d = 0; d < n; d++) {
		char *s = sym_expr_to_str(e[d]);

		sym__str_printf(b, "%s%s", d ? ", " : "", s ? s : "?");
		free(s);
	}
	sym__str_printf(b, "]");
}

/* Append tensor "t" of "p" to "b": value, layout, global and local
 * shapes. */
static void
tensor_text(const sym_plan *p, size_t t, struct sym__str *b)
{
	const struct sym__tensor *x = &p->tensor[t];
	sym_shape *sh = sym__value_shape((sym_value *)x->value), *loc = NULL;
	char *l = x->layout ? sym_layout_to_str(x->layout) : NULL;
	char *m = x->layout ? sym_mesh_to_str(x->layout->mesh) : NULL;

	sym__str_printf(b, "  t%zu  %s  ", t, x->value->name);
	if (x->layout)
		sym__str_printf(b, "%s on %s", l ? l : "?", m ? m : "?");
	else
		sym__str_printf(b, "whole");
	sym__str_printf(b, "  global ");
	dims_text(b, sh->dim, sh->rank);
	if (x->layout) {
		loc = sym_layout_local_shape(x->layout, sh);
		sym__str_printf(b, "  local ");
		if (loc)
			dims_text(b, loc->dim, loc->rank);
		else
			sym__str_printf(b, "?");
		sym_shape_free(loc);
	}
	sym__str_printf(b, "\n");
	free(l);
	free(m);
}

/* Return the readable listing of "p" (malloc'ed): its symbols, steps,
 * tensors with their symbolic global and local shapes, and checks; NULL
 * when out of memory. */
char *
sym_plan_to_str(const sym_plan *p)
{
	static const char *kind[] = { [SYM__C_SYMBOL] = "symbol",
		[SYM__C_DERIVED] = "derived",
		[SYM__C_AGREE] = "given",
		[SYM__C_FACT] = "relation",
		[SYM__C_GUARD] = "guard",
		[SYM__C_SIZE] = "size",
		[SYM__C_SPLIT] = "split" };
	struct sym__str b = SYM__STR_INIT;
	unsigned long oom;

	if (!p)
		return NULL;
	oom = sym__ctx_n_oom(p->ctx);
	sym__str_printf(&b,
	    "plan: %lld rank%s, %zu steps, %zu tensors, %zu instructions, "
	    "%zu checks\nsymbols:",
	    (long long)p->n_ranks, p->n_ranks == 1 ? "" : "s", p->n_step,
	    p->n_tensor, p->n_insn, p->n_check);
	for (size_t i = 0; i < p->n_sym + p->n_extra; i++)
		sym__str_printf(&b, " %s%s", p->sym[i]->name,
		    i >= p->n_sym ? " (optional)" : "");
	if (p->n_sym + p->n_extra == 0)
		sym__str_printf(&b, " none");
	sym__str_printf(&b, "\nsteps\n");
	for (size_t i = 0; i < p->n_step; i++) {
		const sym_plan_step *s = &p->step[i].pub;

		sym__str_printf(&b, "  %zu  %s ", i,
		    s->kind == SYM_PLAN_KERNEL ? "kernel" : "comm");
		sym__step_label(p, i, &b);
		sym__str_printf(&b, ":");
		for (size_t k = 0; k < s->n_in; k++)
			sym__str_printf(&b, " t%zu", s->in[k]);
		sym__str_printf(&b, " ->");
		for (size_t k = 0; k < s->n_out; k++)
			sym__str_printf(&b, " t%zu", s->out[k]);
		if (s->kind == SYM_PLAN_COMM) {
			char *e =
			    sym_expr_to_str(sym_redist_step_bytes(s->redist,
			        s->redist_step));

			sym__str_printf(&b, "  S = %s bytes", e ? e : "?");
			free(e);
			if (p->step[i].bucket != SIZE_MAX)
				sym__str_printf(&b, "  (fused bucket %zu)",
				    p->step[i].bucket);
		}
		sym__str_printf(&b, "\n");
	}
	sym__str_printf(&b, "tensors\n");
	for (size_t t = 0; t < p->n_tensor; t++)
		tensor_text(p, t, &b);
	sym__str_printf(&b, "checks\n");
	for (size_t i = 0; i < p->n_check; i++)
		sym__str_printf(&b, "  %-8s  %s\n", kind[p->check[i].kind],
		    p->check[i].text);
	/* A part that could not be printed for want of memory shows as
	 * "?": no listing rather than a wrong one. */
	if (sym__ctx_n_oom(p->ctx) != oom) {
		sym__oom(p->ctx);
		b.failed = 1;
	}
	return sym__str_take(&b, p->ctx);
}

/* Return the fingerprint of "p": a 64-bit FNV-1a hash of its listing
 * (sym_plan_to_str), so that two plans with equal listings, compiled
 * alike from equal graphs, have equal fingerprints; 0 for NULL, or with
 * SYM_ENOMEM when out of memory. */
uint64_t
sym_plan_fingerprint(const sym_plan *p)
{
	char *s = sym_plan_to_str(p);
	uint64_t h;

	if (!s)
		return 0;
	h = sym__fnv1a_str(SYM__FNV_BASIS, s);
	free(s);
	return h ? h : 1;
}
