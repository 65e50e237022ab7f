/* SPDX-License-Identifier: MIT */
/*
 * The redistributions of one sharding pass, each planned once: a pass
 * asks for the plan between two layouts of a tensor many times over
 * (every candidate strategy of every node is priced, then the chosen
 * ones are planned again for the report), and graphs repeat the same
 * layouts and shapes block after block. A plan depends only on the two
 * layouts, the shape and the topology (fixed for the pass), so the pass
 * keeps one memo per distinct (from, to, shape): its plan, or why there
 * is none, its bytes at the least sizes and the text of its steps.
 *
 * The key is exact: layouts compare as in intern.c (equal meshes,
 * the same axes in every dimension, size-1 axes included since the
 * plan's meshes and names follow them, the same partial axes); shapes are
 * equal when they have the same dtype and the same dimension expressions,
 * which are hash-consed, so equal expressions are one object. The memo
 * holds references to its key, which keeps those objects alive and their
 * addresses unique.
 */
#include <stdlib.h>
#include <string.h>

#include "shard/shard_private.h"

/* Return the hash of the redistribution of "shape" from "from" to "to".
 */
static uint64_t
key_hash(const sym_layout *from, const sym_layout *to, const sym_shape *shape)
{
	uint64_t h = sym__hash_mix(shape->dtype, shape->rank);

	for (size_t d = 0; d < shape->rank; d++)
		h = sym__hash_mix(h, (uint64_t)(uintptr_t)shape->dim[d]);
	return sym__mix64(sym__layout_hash(sym__layout_hash(h, from), to));
}

/* Return 1 when "a" and "b" have the same dtype and dimensions. */
static int
same_shape(const sym_shape *a, const sym_shape *b)
{
	if (a == b)
		return 1;
	if (a->dtype != b->dtype || a->rank != b->rank)
		return 0;
	for (size_t d = 0; d < a->rank; d++)
		if (a->dim[d] != b->dim[d])
			return 0;
	return 1;
}

/* Return "a, b" for the malloc'ed list "s" (may be NULL, freed) and
 * "what", malloc'ed. */
static char *
append(char *s, const char *what)
{
	char *t = sym__asprintf("%s%s%s", s ? s : "", s ? ", " : "", what);

	free(s);
	return t;
}

/* Return the steps of plan "r" as "all_gather over d0, all_reduce over
 * k", malloc'ed (NULL when it has none). */
static char *
steps_text(const sym_redist *r)
{
	char *s = NULL;

	for (size_t i = 0; i < sym_redist_n_steps(r); i++) {
		int axes[SYM_MESH_MAX_AXES];
		size_t n = sym_redist_step_axes(r, i, SYM_MESH_MAX_AXES, axes);
		const sym_layout *l = sym_redist_step_layout(r, i);
		char *names = NULL, *t;

		for (size_t k = 0; l && k < n && k < SYM_MESH_MAX_AXES; k++)
			names = append(names,
			    sym_mesh_axis_name(sym_layout_mesh(l),
			        (size_t)axes[k]));
		t = sym__asprintf("%s over %s",
		    sym_redist_kind_name(sym_redist_step_kind(r, i)),
		    names ? names : "no axis");
		free(names);
		if (t)
			s = append(s, t);
		free(t);
	}
	return s;
}

/* Fill the new memo "m" of the pass "p" (its key set): plan it and price
 * it at the least sizes (its steps' text waits for sym__memo_steps). */
static void
fill(struct sym__pass *p, struct sym__memo *m)
{
	sym_ctx *ctx = p->g->ctx;
	double total = 0;

	m->cost = -1;
	m->plan = sym_redist_plan(m->from, m->to, m->shape, p->topo);
	if (!m->plan) {
		m->error = strdup(sym_ctx_last_message(ctx));
		sym_ctx_clear_error(ctx);
		return;
	}
	sym__obj_unlist(&m->plan->obj);
	for (size_t i = 0; i < sym_redist_n_steps(m->plan); i++) {
		int64_t v;

		if (sym_expr_eval(sym_redist_step_bytes(m->plan, i), p->least,
		        &v) < 0) {
			sym_ctx_clear_error(ctx);
			return;
		}
		total += (double)v;
	}
	m->cost = total;
}

/* Return the steps of memo "m" as text, "all_gather over d0, all_reduce
 * over k", made the first time they are asked for: a search plans many
 * redistributions whose text no report shows. NULL when "m" has no steps
 * or memory ran out. */
const char *
sym__memo_steps(struct sym__memo *m)
{
	if (!m->steps && m->plan && sym_redist_n_steps(m->plan) > 0)
		m->steps = steps_text(m->plan);
	return m->steps;
}

/* Return the pass whose memos hold the redistributions of "p": the
 * shared one of its assignment (a search running, on the same topology),
 * else "p" itself. */
struct sym__pass *
sym__pass_memos(struct sym__pass *p)
{
	struct sym__pass *m = p->memos;

	return m && m != p && m->topo == p->topo ? m : p;
}

/* Return the memo of the redistribution of a tensor of shape "shape"
 * from "from" to "to" in the pass "p", planned the first time it is
 * asked for (borrowed: valid until the next call); NULL when out of
 * memory. */
struct sym__memo *
sym__pass_redist(struct sym__pass *p, const sym_layout *from,
    const sym_layout *to, const sym_shape *shape)
{
	uint64_t h;
	struct sym__memo *m;

	if (sym__pass_memos(p) != p)
		return sym__pass_redist(sym__pass_memos(p), from, to, shape);
	h = key_hash(from, to, shape);
	for (size_t i = sym__htab_first(&p->memo_index, h); i != SYM__HTAB_END;
	     i = sym__htab_next(&p->memo_index, h, i)) {
		m = &p->memo[p->memo_index.slot[i].item];
		if (same_shape(m->shape, shape) &&
		    sym__layout_same(m->from, from) &&
		    sym__layout_same(m->to, to))
			return m;
	}
	if (SYM__RESERVE(p->g->ctx, p->memo, p->cap_memo, p->n_memo + 1) < 0 ||
	    sym__htab_add(p->g->ctx, &p->memo_index, h, p->n_memo) < 0)
		return NULL;
	m = &p->memo[p->n_memo++];
	memset(m, 0, sizeof(*m));
	m->from = sym__layout_ref((sym_layout *)from);
	m->to = sym__layout_ref((sym_layout *)to);
	m->shape = sym__shape_ref((sym_shape *)shape);
	fill(p, m);
	return m;
}

/* Release the memos of the pass "p". */
void
sym__pass_redist_clear(struct sym__pass *p)
{
	for (size_t i = 0; i < p->n_memo; i++) {
		struct sym__memo *m = &p->memo[i];

		sym_redist_free(m->plan);
		sym__layout_unref(m->from);
		sym__layout_unref(m->to);
		sym__shape_unref(m->shape);
		free(m->error);
		free(m->steps);
		free(m->from_text);
		free(m->to_text);
	}
	free(p->memo);
	sym__htab_clear(&p->memo_index);
	p->memo = NULL;
	p->n_memo = p->cap_memo = 0;
}
