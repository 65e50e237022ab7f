/* SPDX-License-Identifier: MIT */
/*
 * A param (or optimizer state) moved from one executor to another of
 * the same graph on the same ranks: this rank's block under the first
 * plan's layout becomes its block under the second's, through the
 * steps of a redistribution (sym_redist_plan) run on the communicator,
 * as the executor runs the redistributions of its plan. The trainer
 * moves its params this way when it switches plans (DESIGN section 19).
 */
#include <stdlib.h>
#include <string.h>

#include <symshard/layout.h>

#include "exec/exec_private.h"

/* Make room for "bytes" bytes in buffer "k" of "m"; 0, or -1 with an
 * error on "ctx". */
static int
move_reserve(struct sym__xmove *m, int k, size_t bytes, sym_ctx *ctx)
{
	void *p;

	if (bytes <= m->cap[k])
		return 0;
	p = realloc(m->buf[k], bytes);
	if (!p) {
		sym__oom_bytes(ctx, 1, bytes, "moving a param");
		return -1;
	}
	m->buf[k] = p;
	m->cap[k] = bytes;
	m->grows++;
	return 0;
}

/* Return step "i" of "r" for the rank of "to" (its source layout
 * "before"), made once and kept in "m"; NULL with an error on the
 * context of "to". */
static const struct sym__xstep *
move_step(sym_exec *to, const sym_redist *r, size_t i, const sym_layout *before,
    size_t ndim, struct sym__xmove *m)
{
	struct sym__xmstep *k;
	char err[256];

	for (size_t j = 0; j < m->n_steps; j++)
		if (m->steps[j].r == r && m->steps[j].i == i)
			return &m->steps[j].x;
	if (m->n_steps == m->cap_steps) {
		size_t cap = m->cap_steps ? 2 * m->cap_steps : 16;
		void *p = realloc(m->steps, cap * sizeof(*m->steps));

		if (!p) {
			sym__oom_bytes(to->ctx, cap, sizeof(*m->steps),
			    "moving a param");
			return NULL;
		}
		m->steps = p;
		m->cap_steps = cap;
		m->grows++;
	}
	k = &m->steps[m->n_steps];
	k->r = r;
	k->i = i;
	if (sym__xstep_from_redist(&k->x, r, i, before, ndim, to->rank, err,
	        sizeof(err)) < 0) {
		sym__error(to->ctx, SYM_EINTERNAL, NULL,
		    "moving a param: step %zu: %s", i, err);
		return NULL;
	}
	m->grows++;
	m->n_steps++;
	return &k->x;
}

/* Return the bytes of the block after step "x" of a tensor of "nd"
 * global sizes "global" with elements of "es" bytes. */
static size_t
after_bytes(const struct sym__xstep *x, int nd, const int64_t *global,
    size_t es)
{
	size_t n = es;

	for (int d = 0; d < nd; d++)
		n *= (size_t)(global[d] / x->asplit[d]);
	return n;
}

/* Run the steps of "r" from "src" to "dst" ("dst_bytes" bytes) of the
 * tensor "t" of "to" ("global" sizes) on the endpoint of "to", through
 * the buffers of "m"; "before": the layout of the source. 0, or -1 with
 * an error on the context of "to". */
static int
move_steps(sym_exec *to, size_t t, const sym_redist *r,
    const sym_layout *before, const int64_t *global, const void *src, void *dst,
    size_t dst_bytes, struct sym__xmove *m)
{
	const struct sym__etensor *e = &to->tensor[t];
	size_t n = sym_redist_n_steps(r);
	const void *in = src;
	char err[256];

	for (size_t i = 0; i < n; i++) {
		const struct sym__xstep *x =
		    move_step(to, r, i, before, e->rank, m);
		void *out;
		size_t bytes;
		int rc;

		if (!x)
			return -1;
		bytes = after_bytes(x, (int)e->rank, global, e->es);
		if (i + 1 == n && bytes != dst_bytes) {
			sym__error(to->ctx, SYM_EINTERNAL, NULL,
			    "moving a param: %zu bytes arrive for a block of "
			    "%zu",
			    bytes, dst_bytes);
			return -1;
		}
		out = i + 1 == n ? dst
		    : move_reserve(m, (int)(i % 2), bytes, to->ctx) < 0
		    ? NULL
		    : m->buf[i % 2];
		rc = out ? sym__xstep_run(x, to->ep, global, e->dtype, in, out,
		               &m->scratch, err, sizeof(err))
		         : -1;
		if (rc == SYM__XSTEP_ERR)
			sym__error(to->ctx, SYM_EINTERNAL, NULL,
			    "moving a param: step %zu: %s", i, err);
		if (rc < 0 || !out)
			return -1;
		in = out;
		before = sym_redist_step_layout(r, i);
	}
	return 0;
}

/* Move value "v" (a param or optimizer state) of "from" into "to"
 * (executors of plans of the same graph on the same ranks, prepared)
 * through the redistribution "r" from its layout "la" in the plan of
 * "from" to its layout in the plan of "to" (0 steps: the blocks are
 * the same), using the buffers of "m". A collective over the ranks of
 * "to"; 0, or -1 with an error on the context of "to". */
int
sym__exec_move(sym_exec *from, sym_exec *to, const sym_value *v,
    const sym_redist *r, const sym_layout *la, struct sym__xmove *m)
{
	size_t ta = sym_plan_value_tensor(from->plan, v);
	size_t tb = sym_plan_value_tensor(to->plan, v);
	size_t na, nb;
	void *src, *dst;
	int64_t global[SYM__MAX_RANK];

	src = sym_exec_data(from, ta, &na);
	dst = sym_exec_data(to, tb, &nb);
	if (ta >= from->n_tensor || tb >= to->n_tensor || !r ||
	    from->tensor[ta].dtype != to->tensor[tb].dtype) {
		sym__error(to->ctx, SYM_EINTERNAL, NULL,
		    "moving '%s': not kept alike by both plans",
		    sym_value_name(v));
		return -1;
	}
	if (sym_redist_n_steps(r) == 0) {
		if (na != nb) {
			sym__error(to->ctx, SYM_EINTERNAL, NULL,
			    "moving '%s': blocks of %zu and %zu bytes",
			    sym_value_name(v), na, nb);
			return -1;
		}
		if (nb)
			memcpy(dst, src, nb);
		return 0;
	}
	memcpy(global, to->tensor[tb].global, sizeof(global));
	return move_steps(to, tb, r, la, global, src, dst, nb, m);
}

/* Free the buffers of "m" (kept zeroed). */
void
sym__xmove_clear(struct sym__xmove *m)
{
	if (!m)
		return;
	free(m->buf[0]);
	free(m->buf[1]);
	sym__xscratch_clear(&m->scratch);
	for (size_t j = 0; j < m->n_steps; j++)
		sym__xstep_clear(&m->steps[j].x);
	free(m->steps);
	memset(m, 0, sizeof(*m));
}
