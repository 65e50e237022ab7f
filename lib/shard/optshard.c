/* SPDX-License-Identifier: MIT */
/*
 * Optimizer sharding ("parallel optimizer_shard", levels 1 to 3; DESIGN
 * section 20: MindSpore's parallel optimizer, ZeRO's stages).
 *
 * The rule: a trained param laid out replicated over mesh axes on which
 * its gradient holds partial sums (its data-parallel axes), of at least
 * "optimizer_shard_min_bytes" at the least sizes, has its update laid
 * out like the param and also split over those axes, along the first
 * dimension that the split divides for every admissible size (proved).
 * Then:
 *
 *	- the gradient's partial sums are resolved into that layout (a
 *	  reduce_scatter where data parallelism all-reduces),
 *	- the optimizer state, params whose first consumer is the update,
 *	  is loaded in that layout (one shard per device),
 *	- the update reads its shard of the param (a local slice),
 *	- the updated param is all-gathered back to the param's own
 *	  layout, and the plan writes that gather into the param's buffer.
 *
 * At level 3 the param itself is kept as its shard between steps
 * (pass.c, sym__pass_keep_sharded): its uses gather it, once for the
 * forward pass and once for the backward pass, and the update writes
 * its shard in place, gathered back into nothing.
 *
 * A param that no split divides is an error with a witness; one below
 * the threshold stays whole, with a note that says so; one whose
 * gradient comes out without partial sums (the param split over every
 * axis its gradient is summed on) keeps its update laid out like the
 * param, the source of the update's strategy saying why.
 */
#include <stdlib.h>
#include <string.h>

#include "shard/shard_private.h"

/* Return 1 when "n" is the update operator of a trained param. */
static int
is_update(const sym_node *n)
{
	switch (n->op->id) {
	case SYM__OP_SGD_UPDATE:
	case SYM__OP_MOMENTUM_UPDATE:
	case SYM__OP_ADAM_UPDATE:
	case SYM__OP_ADAMW_UPDATE:
		return n->n_in > 0 && n->n_out > 0;
	default:
		return 0;
	}
}

/* Return the trained param of "g" whose gradient is "v", or NULL. */
static sym_value *
grad_param(const sym_graph *g, const sym_value *v)
{
	for (size_t t = 0; t < g->n_trained; t++)
		if (g->trained[t]->grad == v)
			return g->trained[t];
	return NULL;
}

/* Return the bytes of "v" at the least sizes of the pass "p" (-1 when
 * they cannot be evaluated or overflow). */
static int64_t
least_bytes(const struct sym__pass *p, sym_value *v)
{
	sym_shape *sh = sym__value_shape(v);
	int64_t n = sh ? (int64_t)sym_dtype_size(sh->dtype) : -1;

	for (size_t d = 0; sh && d < sh->rank; d++) {
		int64_t k;

		if (sym_expr_eval(sh->dim[d], p->least, &k) < 0 || k < 0 ||
		    (k > 0 && n > INT64_MAX / k))
			return -1;
		n *= k;
	}
	return n;
}

/* Return the memory of the decisions of "p", made once needed; NULL
 * when out of memory. */
static struct sym__optshard *
decisions(struct sym__pass *p)
{
	if (!p->optshard)
		p->optshard = sym__calloc(p->g->ctx, p->g->n_value + 1,
		    sizeof(*p->optshard));
	return p->optshard;
}

/* Return the names of the mesh axes of "m" in the bit set "axes",
 * "dp" or "dp, sp", malloc'ed. */
static char *
axes_text(const sym_mesh *m, uint32_t axes)
{
	const char *part[2 * SYM_MESH_MAX_AXES];
	size_t np = 0;

	for (size_t a = 0; a < m->n_axes; a++)
		if (axes >> a & 1) {
			if (np)
				part[np++] = ", ";
			part[np++] = m->name[a];
		}
	return sym__concat(part, np);
}

/* Record the error that no dimension of "v" (laid out as "l") divides
 * "k" more ways over "axes": the witness of dimension 0 (or the sizes
 * when every dimension is a constant); "p" is the pass. */
static void
indivisible(struct sym__pass *p, sym_value *v, const sym_layout *l, int64_t k,
    const char *axes)
{
	sym_shape *sh = sym__value_shape(v);
	sym_binding *w = NULL;
	char *es = sh && sh->rank ? sym_expr_to_str(sh->dim[0]) : NULL;
	char *wt = NULL;
	int64_t k0 = sh && sh->rank ? sym_layout_dim_splits(l, 0) * k : k;

	if (sh && sh->rank &&
	    sym_prove_divisible(p->g->ctx, sh->dim[0], k0, &w) == SYM_FALSE)
		wt = sym__witness_text(w);
	sym_ctx_clear_error(p->g->ctx);
	sym__graph_diag_w(p->g, SYM_SEV_ERROR, &v->loc, w,
	    "set 'parallel optimizer_shard_min_bytes=' above its size to "
	    "keep its optimizer state whole, or give it a dimension the "
	    "data-parallel degree divides",
	    "optimizer_shard: no dimension of param %s can be split %lld "
	    "more ways over %s for every size%s%s%s%s%s",
	    v->name, (long long)k, axes, wt && *wt ? ": " : "",
	    wt && *wt ? wt : "", wt && *wt ? " makes dimension 0 (size " : "",
	    wt && *wt && es ? es : "", wt && *wt ? ") indivisible" : "");
	if (es)
		sym__graph_diag(p->g, SYM_SEV_NOTE, &v->loc, NULL, NULL,
		    "optimizer_shard: dimension 0 of %s is %s, split %lld "
		    "ways already and %lld more over %s",
		    v->name, es, (long long)sym_layout_dim_splits(l, 0),
		    (long long)k, axes);
	free(wt);
	free(es);
	sym_binding_free(w);
}

/* Return the layout of the update of "v", laid out as "l", split "k"
 * more ways over the mesh axes "axes" (a bit set) along the first
 * dimension proved to divide, as a new internal reference; NULL when
 * none does (an error diagnostic) or out of memory. "p" is the pass. */
static sym_layout *
split_layout(struct sym__pass *p, sym_value *v, const sym_layout *l,
    uint32_t axes, int64_t k)
{
	sym_shape *sh = sym__value_shape(v);
	uint8_t n[SYM_MESH_MAX_AXES + 1];
	int8_t ax[SYM_MESH_MAX_AXES + 1][SYM_MESH_MAX_AXES];
	size_t d = 0;
	char *at;

	if (!sh || sh->rank != l->rank || l->rank > SYM_MESH_MAX_AXES)
		return NULL;
	for (; d < l->rank; d++) {
		sym_binding *w = NULL;
		sym_answer a = sym_prove_divisible(p->g->ctx, sh->dim[d],
		    sym_layout_dim_splits(l, d) * k, &w);

		sym_binding_free(w);
		sym_ctx_clear_error(p->g->ctx);
		if (a == SYM_TRUE)
			break;
	}
	if (d == l->rank) {
		at = axes_text(l->mesh, axes);
		indivisible(p, v, l, k, at ? at : "?");
		free(at);
		return NULL;
	}
	memcpy(n, l->n, l->rank * sizeof(*n));
	memcpy(ax, l->axes, l->rank * sizeof(*ax));
	for (size_t a = 0; a < l->mesh->n_axes; a++)
		if (axes >> a & 1)
			ax[d][n[d]++] = (int8_t)a;
	return sym__layout_new(l->mesh, l->rank, n,
	    (const int8_t(*)[SYM_MESH_MAX_AXES])ax, 0);
}

/* Decide the update layout of the trained param "v" whose gradient
 * comes out of node "n" as "gl" (with partial sums) and record it; at
 * level 3 the param is kept as that shard from then on. "p" is the
 * pass. 0, or -1 on an error (recorded). */
static int
decide(struct sym__pass *p, sym_value *v, const sym_layout *gl,
    const sym_node *n)
{
	struct sym__optshard *o = decisions(p);
	const sym_layout *l = sym__pass_vlayout(p, v);
	uint32_t axes = 0, used = 0;
	int64_t k = 1, bytes, min = sym_graph_optimizer_shard_min_bytes(p->g);
	char *at;

	if (!o)
		return sym__graph_ctx_error(p->g, &v->loc);
	o += v->index;
	if (o->decided)
		return 0;
	o->decided = 1;
	if (!l || l->partial || !sym_mesh_is_equal(l->mesh, gl->mesh))
		return 0;
	for (size_t d = 0; d < l->rank; d++)
		for (size_t j = 0; j < l->n[d]; j++)
			used |= 1u << l->axes[d][j];
	for (size_t a = 0; a < l->mesh->n_axes; a++)
		if ((gl->partial >> a & 1) && !(used >> a & 1) &&
		    l->mesh->size[a] > 1) {
			axes |= 1u << a;
			k *= l->mesh->size[a];
		}
	if (!axes)
		return 0;
	bytes = least_bytes(p, v);
	if (bytes >= 0 && bytes < min) {
		at = axes_text(l->mesh, axes);
		sym__graph_diag(p->g, SYM_SEV_NOTE, &v->loc, NULL, NULL,
		    "optimizer_shard: param %s (%lld bytes%s) is below "
		    "optimizer_shard_min_bytes=%lld: its update and optimizer "
		    "state stay whole (replicated over %s)",
		    v->name, (long long)bytes,
		    p->least_txt ? " at the least sizes" : "", (long long)min,
		    at ? at : "?");
		free(at);
		return 0;
	}
	o->layout = split_layout(p, v, l, axes, k);
	if (!o->layout)
		return -1;
	o->axes = axes;
	if (p->sh->optshard >= 3 && v->kind == SYM_VALUE_PARAM)
		return sym__pass_keep_sharded(p, v, o->layout, n);
	return 0;
}

/* Say in the source of the run "r" of the update "n" that its param's
 * update is not split further because the param's gradient came out of
 * its producer without partial sums (the param is split over every axis
 * its gradient is summed on, or the gradient is a sum made locally):
 * there is no reduce_scatter to shard it with. 0, or -1 when out of
 * memory. */
static int
whole_update(const sym_node *n, struct sym__run *r)
{
	const sym_value *v = n->in[0];
	char *s;

	if (!r->ok || !r->source || !v->grad)
		return 0;
	s = sym__asprintf("%s; optimizer_shard: not split further, as its "
	                  "gradient %s holds no partial sums to "
	                  "reduce_scatter",
	    r->source, v->grad->name);
	if (!s)
		return -1;
	free(r->source);
	r->source = s;
	return 0;
}

/*
 * Before node "n" of the pass "p" is committed with its run "r": resolve
 * the partial sums of a trained param's gradient into the layout of the
 * param's sharded update (deciding it), and lay out a sharded update on
 * its param's shard, its updated param gathered back to the param's
 * layout. Return 0, or -1 after an error (recorded; a param that
 * cannot be sharded keeps its whole update, a run that cannot be made is
 * not ok).
 */
int
sym__optshard_node(struct sym__pass *p, sym_node *n, struct sym__run *r)
{
	const struct sym__optshard *o;
	sym_value *v;
	sym_layout *l;

	if (!p->sh || p->sh->optshard < 1 || !r->ok)
		return 0;
	for (size_t k = 0; k < n->n_out && !is_update(n); k++) {
		v = grad_param(p->g, n->out[k]);
		if (!v || !sym__run_partial(r, k))
			continue;
		if (decide(p, v, r->s.out[k], n) < 0)
			continue;
		o = p->optshard + v->index;
		if (!o->layout)
			continue;
		sym__layout_unref(r->value[k]);
		r->value[k] = sym__layout_ref(o->layout);
	}
	if (is_update(n) &&
	    (!p->optshard || !p->optshard[n->in[0]->index].decided))
		return whole_update(n, r);
	if (!is_update(n) || !p->optshard ||
	    !p->optshard[n->in[0]->index].layout)
		return 0;
	o = p->optshard + n->in[0]->index;
	l = sym__pass_vlayout(p, n->in[0]);
	sym__run_clear(r);
	if (sym__run_init(p, n, r) < 0)
		return -1;
	r->s.mesh = sym__mesh_ref(o->layout->mesh);
	r->s.in[0] = sym__layout_ref(o->layout);
	if (sym__shard_infer(&r->s) < 0 || sym__run_resolve(r) < 0) {
		sym__run_clear(r);
		return -1;
	}
	sym__layout_unref(r->value[0]);
	r->value[0] = sym__layout_ref(l);
	r->ok = 1;
	r->source = sym__asprintf("optimizer_shard: laid out like %s split "
	                          "over its data-parallel axes",
	    n->in[0]->name);
	r->text = sym__run_tuple_text(r);
	return r->source && r->text ? 0 : -1;
}

/* Return 1 when the trained param "v" has its update sharded in the
 * pass "p". */
int
sym__optshard_is(const struct sym__pass *p, const sym_value *v)
{
	return p->optshard && v && p->optshard[v->index].layout;
}

/* Release the decisions of the pass "p". */
void
sym__optshard_clear(struct sym__pass *p)
{
	for (size_t i = 0; p->optshard && i < p->g->n_value; i++)
		sym__layout_unref(p->optshard[i].layout);
	free(p->optshard);
	p->optshard = NULL;
}
