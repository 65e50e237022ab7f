/* SPDX-License-Identifier: MIT */
/*
 * The communications the sharding pass records (HACKING.md section 3):
 * the redistribution of a value a consumer needs in another layout (the
 * first consumer's copy shared by later ones wanting the same layout),
 * the resolution of partial sums right after their operator, the gather
 * of an update run on a shard (optimizer_shard), and at optimizer_shard=3
 * the params kept as their shards, gathered anew for each pass. Each
 * carries the reason shape-check shows.
 */
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "shard/shard_private.h"

/* Return "(m, n) over (m=2, k=4, n=1)" for the layout "l", malloc'ed. */
static char *
layout_text(const sym_layout *l)
{
	char *a = sym_layout_to_str(l), *m = sym_mesh_to_str(l->mesh), *s;

	s = a && m ? sym__asprintf("%s over %s", a, m) : NULL;
	free(a);
	free(m);
	return s;
}

/* Record the communication "plan" (taken) of "v" for input "input" of
 * "consumer" (NULL: the resolution of its partial sums), with the reason
 * "reason" (taken); 0 or -1. */
static int
add_comm(sym_sharding *sh, sym_value *v, sym_node *consumer, size_t input,
    sym_redist *plan, char *reason)
{
	struct sym__comm *c;

	if (!reason ||
	    SYM__RESERVE(sh->ctx, sh->comm, sh->cap_comm, sh->n_comm + 1) < 0) {
		sym_redist_free(plan);
		free(reason);
		return -1;
	}
	c = &sh->comm[sh->n_comm++];
	memset(c, 0, sizeof(*c));
	c->sh = sh;
	c->plan = plan;
	c->reason = reason;
	c->pub.value = v;
	c->pub.consumer = consumer;
	c->pub.input = input;
	c->pub.plan = plan;
	c->pub.reason = reason;
	c->shares = SIZE_MAX;
	return 0;
}

/* Return 1 when node "n" of the graph of "p" is in its backward part. */
static int
backward(const struct sym__pass *p, const sym_node *n)
{
	return n->index >= sym_graph_n_forward_nodes(p->g);
}

/* Return 1 when "v" is a param that the pass "p" keeps as its shard
 * between steps (optimizer_shard=3): gathered for its uses. */
static int
kept_sharded(const struct sym__pass *p, const sym_value *v)
{
	return p->sh && p->sh->optshard >= 3 && v->kind == SYM_VALUE_PARAM &&
	    sym__optshard_is(p, v);
}

/* Return the index of the communication of "p" that already lays out "v"
 * as "want" for a use before input "input" of node "n", or SIZE_MAX: the
 * first consumer's copy serves every later one that needs the same
 * layout, except that a param kept sharded (optimizer_shard=3) is
 * gathered once for the forward pass and once again for the backward
 * pass, its whole copy released in between. */
static size_t
shared_comm(struct sym__pass *p, const sym_value *v, const sym_node *n,
    size_t input, const sym_layout *want)
{
	const sym_sharding *sh = p->sh;

	for (size_t u = p->use0[v->index]; u < p->use0[v->index + 1]; u++) {
		const sym_node *c = p->g->node[p->use[u].node];
		const sym_reshard *r;
		size_t i;

		if (c->index > n->index || (c == n && p->use[u].input >= input))
			break;
		r = sym_sharding_find_reshard(sh, v, c, p->use[u].input);
		if (!r ||
		    (kept_sharded(p, v) && backward(p, c) != backward(p, n)))
			continue;
		i = (size_t)((const struct sym__comm *)r - sh->comm);
		if (sh->comm[i].shares == SIZE_MAX &&
		    sym_layout_is_equal(sym_reshard_target(r), want) ==
		        SYM_TRUE)
			return i;
	}
	return SIZE_MAX;
}

/* Return a plan for "v" copied from the memo "m" of the pass "p" (NULL:
 * out of memory), owned by the sharding rather than by the context (so
 * that freeing the context frees it with the sharding), or NULL with an error
 * diagnostic at "where". */
static sym_redist *
plan(struct sym__pass *p, sym_value *v, const struct sym__memo *m,
    const sym_loc *where)
{
	sym_redist *r = m && m->plan ? sym__redist_copy(m->plan) : NULL;

	if (!r) {
		sym__graph_diag(p->g, SYM_SEV_ERROR, where, NULL, NULL,
		    "cannot redistribute %s: %s", v->name,
		    m && m->error ? m->error : "out of memory");
		return NULL;
	}
	sym__obj_unlist(&r->obj);
	return r;
}

/* Return the concatenation of the "n" strings "part", malloc'ed. */
char *
sym__concat(const char *const *part, size_t n)
{
	size_t len = 1, pos = 0;
	char *t;

	for (size_t i = 0; i < n; i++)
		len += strlen(part[i]);
	t = malloc(len);
	for (size_t i = 0; t && i < n; i++) {
		size_t k = strlen(part[i]);

		memcpy(t + pos, part[i], k);
		pos += k;
	}
	if (t)
		t[pos] = '\0';
	return t;
}

/* Return "h -> q: (d0, d1) over (d0=8, d1=1) to (m, k) over (...)", the
 * reason of the redistribution "m" of "v" for the consumer "n",
 * malloc'ed; the texts of the layouts are kept in the memo. */
static char *
redist_reason(struct sym__memo *m, const sym_value *v, const sym_node *n)
{
	const char *part[7];

	if (!m->from_text)
		m->from_text = layout_text(m->from);
	if (!m->to_text)
		m->to_text = layout_text(m->to);
	if (!m->from_text || !m->to_text)
		return NULL;
	part[0] = v->name;
	part[1] = " -> ";
	part[2] = n->out[0]->name;
	part[3] = ": ";
	part[4] = m->from_text;
	part[5] = " to ";
	part[6] = m->to_text;
	return sym__concat(part, 7);
}

/* Return the reason of the redistribution "m" of "v" for the consumer
 * "n" (see redist_reason), which for a param kept sharded
 * (optimizer_shard=3) says that its whole copy is temporary;
 * malloc'ed. "p" is the pass. */
static char *
use_reason(struct sym__pass *p, struct sym__memo *m, const sym_value *v,
    const sym_node *n)
{
	char *r = redist_reason(m, v, n), *t;

	if (!r || !kept_sharded(p, v))
		return r;
	t = sym__asprintf("%s: %s is kept as its shard between steps "
	                  "(optimizer_shard=3), gathered whole for the %s "
	                  "pass and released after its last use there",
	    r, v->name, backward(p, n) ? "backward" : "forward");
	free(r);
	return t;
}

/* Return the place of the communication "c" before the use of input
 * "input" of node "n": 1 when "c" comes first in the order of the pass
 * (node by node, the inputs of a node in order, then its resolutions). */
static int
comm_before(const struct sym__comm *c, const sym_node *n, size_t input)
{
	const sym_node *at =
	    c->pub.consumer ? c->pub.consumer : c->pub.value->producer;

	return at->index < n->index ||
	    (at == n && c->pub.consumer && c->pub.input < input);
}

/* Record, in its place among the communications of "p", the plan "rp"
 * (taken) of "v" for input "input" of "n", with "reason" (taken), reading
 * the result of communication "first" (SIZE_MAX: none); the index of
 * every later communication moves up by one. 0 or -1. */
static int
insert_comm(struct sym__pass *p, sym_value *v, sym_node *n, size_t input,
    sym_redist *rp, char *reason, size_t first)
{
	sym_sharding *sh = p->sh;
	struct sym__comm c;
	size_t at = 0;

	if (add_comm(sh, v, n, input, rp, reason) < 0)
		return -1;
	c = sh->comm[sh->n_comm - 1];
	while (at + 1 < sh->n_comm && comm_before(&sh->comm[at], n, input))
		at++;
	memmove(&sh->comm[at + 1], &sh->comm[at],
	    (sh->n_comm - 1 - at) * sizeof(c));
	c.shares = first;
	sh->comm[at] = c;
	for (size_t i = 0; i < sh->n_comm; i++)
		if (i != at && sh->comm[i].shares != SIZE_MAX &&
		    sh->comm[i].shares >= at)
			sh->comm[i].shares++;
	return 0;
}

/*
 * Optimizer sharding level 3 (DESIGN section 20): keep the trained param
 * "v" as its shard "shard" between steps, decided at node "n" (where its
 * gradient is made). The uses of "v" before "n", laid out from the
 * param's whole layout, are laid out again from the shard: each gathers
 * what it needs (once for the forward uses and once for the backward
 * ones, see shared_comm); the later uses find the shard as the param's
 * layout. 0, or -1 after an error (recorded; out of memory as such, so
 * that the sharding is not trusted). "p" is the pass.
 */
int
sym__pass_keep_sharded(struct sym__pass *p, sym_value *v,
    const sym_layout *shard, const sym_node *n)
{
	sym_layout *s = sym__intern_layout(p, (sym_layout *)shard);
	int bad = 0;

	if (!s) {
		sym__oom(p->g->ctx);
		return -1;
	}
	sym__layout_unref(p->sh->layout[v->index]);
	p->sh->layout[v->index] = s;
	for (size_t u = p->use0[v->index]; u < p->use0[v->index + 1]; u++) {
		sym_node *c = p->g->node[p->use[u].node];
		size_t i = p->use[u].input, first;
		const struct sym__nshard *ns = sym__pass_nshard(p, c);
		const sym_reshard *old;
		struct sym__memo *m;
		sym_redist *rp;
		struct sym__comm *oc;

		if (c->index >= n->index)
			break;
		if (!ns->in_layout || !ns->in_layout[i])
			continue;
		m = sym__pass_redist(p, s, ns->in_layout[i],
		    sym__value_shape(v));
		old = sym_sharding_find_reshard(p->sh, v, c, i);
		if (!old && m && m->plan && sym_redist_n_steps(m->plan) == 0)
			continue;
		first = shared_comm(p, v, c, i, ns->in_layout[i]);
		rp = plan(p, v, m, &c->loc);
		if (!rp) {
			bad = 1;
			continue;
		}
		if (!old) {
			if (insert_comm(p, v, c, i, rp, use_reason(p, m, v, c),
			        first) < 0) {
				sym__oom(p->g->ctx);
				bad = 1;
			}
			continue;
		}
		oc = (struct sym__comm *)old;
		sym_redist_free(oc->plan);
		free(oc->reason);
		oc->plan = rp;
		oc->pub.plan = rp;
		oc->reason = use_reason(p, m, v, c);
		oc->pub.reason = oc->reason;
		oc->shares = first;
		if (!oc->reason) {
			sym__oom(p->g->ctx);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* Record the resolution of the partial sums of the outputs of node "n" (run
 * "r") right after it; 0 or -1. "p" is the pass. */
int
sym__pass_resolve_partials(struct sym__pass *p, sym_node *n, struct sym__run *r)
{
	for (size_t k = 0; k < n->n_out; k++) {
		sym_value *v = n->out[k];
		const char *part[2 * SYM_MESH_MAX_AXES + 8];
		size_t np = 0;
		sym_redist *rp;

		if (!sym__run_partial(r, k))
			continue;
		rp = plan(p, v,
		    sym__pass_redist(p, r->s.out[k], r->value[k],
		        sym__value_shape(v)),
		    &n->loc);
		if (!rp)
			return -1;
		part[np++] = v->name;
		part[np++] = ": partial sums over ";
		for (size_t i = 0; i < r->s.n_red[k]; i++) {
			if (i)
				part[np++] = ", ";
			part[np++] = r->s.mesh->name[r->s.red[k][i]];
		}
		if (r->s.n_red[k] == 0)
			part[np++] = "?";
		part[np++] = " resolved by ";
		part[np++] = r->scatter[k] ? "reduce_scatter along dimension 0"
		                           : "all_reduce";
		for (size_t t = 0; t < p->g->n_trained; t++)
			if (p->g->trained[t]->grad == v) {
				part[np++] = ": the gradient of ";
				part[np++] = p->g->trained[t]->name;
				part[np++] = ", which is replicated over those "
				             "axes, is the sum of the partial "
				             "gradients of its replicas "
				             "(MindSpore's mirror operator)";
				if (sym__optshard_is(p, p->g->trained[t]))
					part[np++] =
					    ", scattered to the shards of its "
					    "update (optimizer_shard)";
				break;
			}
		if (n->op->id == SYM__OP_BATCH_NORM_STATS)
			part[np++] =
			    ": batch_norm's statistics are those of the "
			    "whole batch (sharded training equals one "
			    "device; PyTorch and MindSpore keep "
			    "per-device statistics)";
		if (n->op->id == SYM__OP_SCE_COUNT)
			part[np++] =
			    ": the mean of softmax_cross_entropy divides by "
			    "the rows that count over the whole batch (the "
			    "labels stay split)";
		if (n->op->id == SYM__OP_SCE_TARGET ||
		    n->op->id == SYM__OP_SCE_SUMEXP)
			part[np++] =
			    ": softmax_cross_entropy's classes are split "
			    "(vocab_parallel): each row's label logit and "
			    "sum of exponentials add up the blocks of "
			    "classes";
		if (add_comm(p->sh, v, NULL, 0, rp, sym__concat(part, np)) < 0)
			return -1;
	}
	return 0;
}

/* Record the gather of the param that the update node "n" (run "r")
 * updated on its shard back to the param's own layout (optimizer_shard,
 * optshard.c); 0 or -1. "p" is the pass. */
int
sym__pass_gather_updated(struct sym__pass *p, sym_node *n, struct sym__run *r)
{
	sym_value *v;
	sym_redist *rp;

	if (!(n->op->flags & SYM__OPF_INPLACE) || !n->n_in || !n->n_out)
		return 0;
	if (!sym__optshard_is(p, n->in[0])) {
		/* The plan writes an update into the buffer of what it
		 * updates only when the two are laid out alike: an update
		 * laid out otherwise would be lost after the step. */
		for (size_t k = 0; k < n->n_out && k < n->n_in; k++) {
			const sym_layout *home = p->sh->layout[n->in[k]->index];

			if (home &&
			    sym_layout_is_equal(r->value[k], home) != SYM_TRUE)
				sym__graph_diag(p->g, SYM_SEV_ERROR, &n->loc,
				    NULL, NULL,
				    "%s: the update in place of %s is laid "
				    "out apart from it; it must have %s's "
				    "layout, or the update would be lost",
				    n->out[k]->name, n->in[k]->name,
				    n->in[k]->name);
		}
		return 0;
	}
	if (sym_layout_is_equal(r->s.out[0], r->value[0]) == SYM_TRUE)
		return 0;
	v = n->out[0];
	rp = plan(p, v,
	    sym__pass_redist(p, r->s.out[0], r->value[0], sym__value_shape(v)),
	    &n->loc);
	if (!rp)
		return -1;
	return add_comm(p->sh, v, NULL, 0, rp,
	    sym__asprintf("%s: gathered into the whole buffer of %s after "
	                  "its update on the shard (optimizer_shard)",
	        v->name, n->in[0]->name));
}

/* Lay out the inputs of node "n" as it needs them: a graph input or
 * parameter takes the layout of its first consumer; a value whose layout
 * differs gets a redistribution. Return 0 or -1. "p" is the pass. */
int
sym__pass_redistribute(struct sym__pass *p, sym_node *n)
{
	int bad = 0;

	sym_layout **layout = p->sh->layout;

	for (size_t i = 0; i < n->n_in; i++) {
		sym_value *v = n->in[i];
		const sym_layout *want = sym__pass_nshard(p, n)->in_layout[i];
		struct sym__memo *m;
		sym_redist *rp;
		size_t first;

		if (!layout[v->index]) {
			if (v->kind != SYM_VALUE_RESULT)
				layout[v->index] =
				    sym__layout_ref((sym_layout *)want);
			continue;
		}
		if (sym_layout_is_equal(layout[v->index], want) == SYM_TRUE)
			continue;
		m = sym__pass_redist(p, layout[v->index], want,
		    sym__value_shape(v));
		if (m && m->plan && sym_redist_n_steps(m->plan) == 0)
			continue;
		first = shared_comm(p, v, n, i, want);
		rp = plan(p, v, m, &n->loc);
		if (!rp) {
			bad = 1;
			continue;
		}
		if (add_comm(p->sh, v, n, i, rp, use_reason(p, m, v, n)) < 0)
			bad = 1;
		else
			p->sh->comm[p->sh->n_comm - 1].shares = first;
	}
	return bad ? -1 : 0;
}
