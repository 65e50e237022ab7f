/* SPDX-License-Identifier: MIT */
/*
 * Sharding a checked graph (HACKING.md section 3): every node gets a
 * strategy (its shard clause, else the semi-automatic default or a
 * cheaper propagated one, see clause.c and choose.c), a
 * device matrix and input and output layouts; every split dimension is
 * proved divisible (refuted: an error with a witness; undecided: a
 * run-time guard); partial sums are resolved right after their operator;
 * and a value whose producer's layout differs from what a consumer needs
 * gets a redistribution plan. Graph inputs and parameters are loaded in
 * the layout their first consumer needs (as MindSpore's dataset sharding
 * loads each rank's slice), so they need no communication there.
 */
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "shard/shard_private.h"

/* Remove the diagnostics and guards the last sharding of "g" added, the
 * ranges [shard_diag0, shard_diag1) and [shard_guard0, shard_guard1);
 * those recorded after it (nodes added since, strategies that did not
 * parse) move down and stay. */
static void
drop_shard_results(sym_graph *g)
{
	size_t d0 = g->shard_diag0, d1 = g->shard_diag1;
	size_t g0 = g->shard_guard0, g1 = g->shard_guard1;

	if (g->too_many && d1 > d0 && d1 == g->n_diag)
		g->too_many = 0; /* its last error, "too many errors", goes */
	for (size_t i = d0; i < d1; i++) {
		if (g->diag[i].pub.severity == SYM_SEV_ERROR)
			g->n_errors--;
		free(g->diag[i].message);
		free(g->diag[i].witness);
		free(g->diag[i].hint);
		sym_binding_free(g->diag[i].w);
	}
	if (d1 > d0)
		memmove(g->diag + d0, g->diag + d1,
		    (g->n_diag - d1) * sizeof(*g->diag));
	g->n_diag -= d1 - d0;
	for (size_t i = g0; i < g1; i++) {
		free(g->guard[i].text);
		free(g->guard[i].reason);
		sym__expr_unref(g->guard[i].e);
	}
	if (g1 > g0)
		memmove(g->guard + g0, g->guard + g1,
		    (g->n_guard - g1) * sizeof(*g->guard));
	g->n_guard -= g1 - g0;
	g->shard_diag1 = g->shard_diag0;
	g->shard_guard1 = g->shard_guard0;
}

/* Release the current sharding of "g" and the diagnostics and guards
 * sym_graph_shard recorded on "g" with it. */
static void
graph_shard_clear(sym_graph *g)
{
	if (!g->sharding)
		return;
	sym__obj_unref(&g->sharding->obj);
	g->sharding = NULL;
	drop_shard_results(g);
}

/* Move the diagnostics and guards "g" recorded from "d0" and "g0" on to
 * the sharding "sh" (0), or leave them when out of memory (-1). */
static int
move_reports(sym_graph *g, sym_sharding *sh, size_t d0, size_t g0)
{
	size_t nd = g->n_diag - d0, ng = g->n_guard - g0;

	sh->diag = sym__calloc(g->ctx, nd + 1, sizeof(*sh->diag));
	sh->guard = sym__calloc(g->ctx, ng + 1, sizeof(*sh->guard));
	if (!sh->diag || !sh->guard)
		return -1;
	if (nd) /* g->diag may be NULL when empty: no memcpy from it */
		memcpy(sh->diag, g->diag + d0, nd * sizeof(*sh->diag));
	if (ng)
		memcpy(sh->guard, g->guard + g0, ng * sizeof(*sh->guard));
	for (size_t i = 0; i < nd; i++)
		if (sh->diag[i].pub.severity == SYM_SEV_ERROR) {
			sh->n_errors++;
			g->n_errors--;
		}
	if (g->too_many && nd)
		g->too_many = 0;
	sh->n_diag = nd;
	sh->n_guard = ng;
	g->n_diag = d0;
	g->n_guard = g0;
	return 0;
}

/* Return the label of node "n" for messages, "matmul h1", malloc'ed. */
char *
sym__node_label(const sym_node *n)
{
	const char *part[3];

	part[0] = n->op->name;
	part[1] = " ";
	part[2] = n->n_out > 0 && n->out[0] ? n->out[0]->name : NULL;
	return sym__concat(part, part[2] ? 3 : 1);
}

/* Prepare the run "r" of node "n" in the pass "p": the shapes and names
 * of its values (in the scratch memory of the rule's run); 0 or -1. */
int
sym__run_init(struct sym__pass *p, sym_node *n, struct sym__run *r)
{
	size_t ni = n->n_in + 1, no = n->n_out + 1;

	memset(r, 0, sizeof(*r));
	r->in_shape = sym__shard_scratch(&r->s, ni, sizeof(*r->in_shape));
	r->out_shape = sym__shard_scratch(&r->s, no, sizeof(*r->out_shape));
	r->in_name = sym__shard_scratch(&r->s, ni, sizeof(*r->in_name));
	r->value = sym__shard_scratch(&r->s, no, sizeof(*r->value));
	r->scatter = sym__shard_scratch(&r->s, no, sizeof(*r->scatter));
	if (!r->in_shape || !r->out_shape || !r->in_name || !r->value ||
	    !r->scatter) {
		sym__oom(p->g->ctx);
		return -1;
	}
	for (size_t i = 0; i < n->n_in; i++) {
		r->in_shape[i] = sym__value_shape(n->in[i]);
		r->in_name[i] = n->in[i]->name;
	}
	for (size_t k = 0; k < n->n_out; k++)
		r->out_shape[k] = sym__value_shape(n->out[k]);
	r->s.ctx = p->g->ctx;
	r->s.op = n->op;
	r->s.at = &n->at;
	r->s.n_in = n->n_in;
	r->s.n_out = n->n_out;
	r->s.in_shape = r->in_shape;
	r->s.out_shape = r->out_shape;
	r->s.in_name = r->in_name;
	r->s.devices = p->devices;
	return sym__shard_begin(&r->s);
}

/* Release what the run "r" holds. */
void
sym__run_clear(struct sym__run *r)
{
	for (size_t k = 0; r->value && k < r->s.n_out; k++)
		sym__layout_unref(r->value[k]);
	sym__shard_clear(&r->s);
	free(r->source);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

/* Return 1 when output "k" of the run "r" holds partial sums over an
 * axis of size > 1. */
int
sym__run_partial(const struct sym__run *r, size_t k)
{
	const sym_layout *l = r->s.out[k];

	for (size_t a = 0; l && a < l->mesh->n_axes; a++)
		if ((l->partial >> a & 1) && l->mesh->size[a] > 1)
			return 1;
	return 0;
}

/* Give every output of the successful run "r" without a resolved layout
 * its partial sums resolved in place (AllReduce); 0 or -1. */
int
sym__run_resolve(struct sym__run *r)
{
	for (size_t k = 0; k < r->s.n_out; k++) {
		if (r->value[k])
			continue;
		r->value[k] = sym__shard_resolved(&r->s, k);
		if (!r->value[k])
			return -1;
	}
	return 0;
}

/* Write the decimal digits of "v" at "t"; return how many were written
 * (at most 20). */
size_t
sym__put_int(char *t, int64_t v)
{
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char d[20];
	size_t n = 0, k = 0;

	do
		d[n++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		t[k++] = '-';
	while (n > 0)
		t[k++] = d[--n];
	return k;
}

/* Return the split counts of the input layouts of "r" as a strategy
 * tuple, "((8, 1), (1, 1))", malloc'ed. */
char *
sym__run_tuple_text(const struct sym__run *r)
{
	/* a generator's strategy is the split of its output */
	sym_layout *const *ls = r->s.n_in ? r->s.in : r->s.out;
	size_t n = r->s.n_in ? r->s.n_in : r->s.n_out;
	size_t len = 4, pos = 0;
	char *t;

	for (size_t i = 0; i < n; i++)
		len += 5 + 23 * ls[i]->rank;
	t = malloc(len);
	if (!t)
		return NULL;
	t[pos++] = '(';
	for (size_t i = 0; i < n; i++) {
		const sym_layout *l = ls[i];

		if (i) {
			t[pos++] = ',';
			t[pos++] = ' ';
		}
		t[pos++] = '(';
		for (size_t d = 0; d < l->rank; d++) {
			if (d) {
				t[pos++] = ',';
				t[pos++] = ' ';
			}
			pos +=
			    sym__put_int(t + pos, sym_layout_dim_splits(l, d));
		}
		if (l->rank == 1)
			t[pos++] = ',';
		t[pos++] = ')';
	}
	if (n == 1)
		t[pos++] = ',';
	t[pos++] = ')';
	t[pos] = '\0';
	return t;
}

/* Return the names of the axes of size > 1 that split dimension "d" of
 * "l", "axis dp" or "axes dp, sp", malloc'ed. */
static char *
axes_words(const sym_layout *l, size_t d)
{
	size_t len = 8, pos = 0, n = 0;
	char *t;

	for (size_t i = 0; i < l->n[d]; i++)
		len += strlen(l->mesh->name[l->axes[d][i]]) + 2;
	t = malloc(len);
	if (!t)
		return NULL;
	for (size_t i = 0; i < l->n[d]; i++)
		n += l->mesh->size[l->axes[d][i]] > 1;
	pos += (size_t)snprintf(t, len, n == 1 ? "axis" : "axes");
	for (size_t i = 0, k = 0; i < l->n[d]; i++) {
		int a = l->axes[d][i];

		if (l->mesh->size[a] == 1)
			continue;
		pos += (size_t)snprintf(t + pos, len - pos, "%s%s",
		    k++ ? ", " : " ", l->mesh->name[a]);
	}
	return t;
}

/* Return 1 when the split "k" of dimension "d" of "v" was already
 * validated in the pass "p" (recording it otherwise). */
static int
seen(struct sym__pass *p, const sym_value *v, size_t d, int64_t k)
{
	struct sym__seen *s = &p->seen[v->index];

	for (uint8_t i = 0; i < s->n; i++)
		if (s->d[i] == d && s->k[i] == k)
			return 1;
	if (s->n < 8 && d < 256) {
		s->d[s->n] = (uint8_t)d;
		s->k[s->n++] = k;
	}
	return 0;
}

/* Record the run-time guard that "k" divides "e", dimension "d" of "v"
 * at node "n" labelled "label" with the axes "axes", unless sharding
 * already guards the same; 0 or -1. */
static int
guard(struct sym__pass *p, const sym_node *n, const char *label,
    const sym_value *v, size_t d, sym_expr *e, int64_t k, const char *axes)
{
	sym_graph *g = p->g;
	char *es, *text, *reason;
	int r;

	for (size_t i = p->guard0; i < g->n_guard; i++)
		if (g->guard[i].rel == SYM__REL_DIV && g->guard[i].e == e &&
		    g->guard[i].k == k)
			return 0;
	es = sym_expr_to_str(e);
	if (!es)
		return -1;
	text = sym_expr_is_symbol(e) == SYM_TRUE
	    ? sym__asprintf("%s mod %lld == 0", es, (long long)k)
	    : sym__asprintf("(%s) mod %lld == 0", es, (long long)k);
	reason = sym__asprintf("dimension %zu of %s split %lld ways (%s)", d,
	    v->name, (long long)k, axes);
	r = sym__graph_add_guard(g, SYM__REL_DIV, e, k, text, &n->loc,
	    reason ? reason : "sharding");
	if (r == 0)
		sym__graph_diag(g, SYM_SEV_WARNING, &n->loc, NULL, NULL,
		    "%s: dimension %zu of %s (size %s) could not be proved "
		    "divisible by %lld (%s); checked at run time",
		    label, d, v->name, es, (long long)k, axes);
	free(reason);
	free(es);
	return r;
}

/* Return the label of node "n" for messages kept in "*label", made the
 * first time it is needed (the operator's name when out of memory). */
static const char *
lazy_label(const sym_node *n, char **label)
{
	if (!*label)
		*label = sym__node_label(n);
	return *label ? *label : n->op->name;
}

/* Prove that every split dimension of the tensor "v" laid out as "l" at
 * node "n" (its label kept in "*lab", made when a message needs it)
 * divides evenly; refuted: an error with a witness and a hint; undecided:
 * a run-time guard. Return 0, or -1 when some split is refuted. "p" is
 * the pass. */
static int
validate_tensor(struct sym__pass *p, const sym_node *n, char **lab,
    sym_value *v, const sym_layout *l)
{
	sym_shape *shape = sym__value_shape(v);
	const char *label;
	int bad = 0;

	for (size_t d = 0; shape && d < l->rank && d < shape->rank; d++) {
		int64_t k = sym_layout_dim_splits(l, d);
		sym_expr *e = shape->dim[d];
		sym_binding *w = NULL;
		char *axes, *es, *wt, *hint;
		sym_answer a;

		if (k <= 1 || seen(p, v, d, k))
			continue;
		a = sym_prove_divisible(p->g->ctx, e, k, &w);
		if (a == SYM_TRUE) {
			sym_binding_free(w);
			continue;
		}
		axes = axes_words(l, d);
		es = sym_expr_to_str(e);
		label = lazy_label(n, lab);
		if (a == SYM_UNKNOWN) {
			guard(p, n, label, v, d, e, k, axes ? axes : "?");
		} else if (a == SYM_ERROR) {
			bad = 1;
			sym__graph_diag(p->g, SYM_SEV_ERROR, &n->loc, NULL,
			    NULL, "%s: dimension %zu of %s: %s", label, d,
			    v->name, sym_ctx_last_message(p->g->ctx));
			sym_ctx_clear_error(p->g->ctx);
		} else {
			bad = 1;
			wt = sym__witness_text(w);
			hint = sym__divisor_hint(e, k);
			if (wt)
				sym__graph_diag_w(p->g, SYM_SEV_ERROR, &n->loc,
				    w, hint,
				    "%s: %s makes dimension %zu of %s (size "
				    "%s) not divisible by %lld (%s)",
				    label, wt, d, v->name, es ? es : "?",
				    (long long)k, axes ? axes : "?");
			else
				sym__graph_diag(p->g, SYM_SEV_ERROR, &n->loc,
				    NULL, hint,
				    "%s: dimension %zu of %s (size %s) is not "
				    "divisible by %lld (%s)",
				    label, d, v->name, es ? es : "?",
				    (long long)k, axes ? axes : "?");
			free(wt);
			free(hint);
		}
		sym_binding_free(w);
		free(axes);
		free(es);
	}
	return bad ? -1 : 0;
}

/* Validate the layouts node "n" needs and produces; 0 or -1. "p" is the
 * pass. */
static int
validate_node(struct sym__pass *p, sym_node *n)
{
	const struct sym__nshard *ns = sym__pass_nshard(p, n);
	char *label = NULL;
	int bad = 0;

	for (size_t i = 0; i < n->n_in; i++)
		bad |= validate_tensor(p, n, &label, n->in[i],
		           ns->in_layout[i]) < 0;
	for (size_t k = 0; k < n->n_out; k++)
		if (sym__pass_vlayout(p, n->out[k]))
			bad |= validate_tensor(p, n, &label, n->out[k],
			           sym__pass_vlayout(p, n->out[k])) < 0;
	free(label);
	return bad ? -1 : 0;
}

/* Give node "n" the layouts of its successful run "r" (the source and
 * text are taken), as the pass's objects equal to them; 0, or -1 with
 * SYM_ENOMEM on the context. "p" is the pass. */
static int
commit(struct sym__pass *p, sym_node *n, struct sym__run *r)
{
	sym_ctx *ctx = p->g->ctx;
	struct sym__nshard *ns = &p->sh->node[n->index];

	ns->in_layout = sym__calloc(ctx, n->n_in + 1, sizeof(*ns->in_layout));
	ns->out_layout =
	    sym__calloc(ctx, n->n_out + 1, sizeof(*ns->out_layout));
	if (!ns->in_layout || !ns->out_layout)
		return -1;
	ns->n_in = n->n_in;
	ns->n_out = n->n_out;
	ns->mesh = sym__intern_mesh(p, r->s.mesh);
	for (size_t i = 0; i < n->n_in; i++)
		ns->in_layout[i] = sym__intern_layout(p, r->s.in[i]);
	for (size_t k = 0; k < n->n_out; k++) {
		ns->out_layout[k] = sym__intern_layout(p, r->s.out[k]);
		p->sh->layout[n->out[k]->index] =
		    sym__intern_layout(p, r->value[k]);
	}
	ns->source = r->source;
	ns->text = r->text;
	r->source = r->text = NULL;
	return 0;
}

/* Record the notes of the run "r" of node "n" as note diagnostics. */
static void
notes(sym_graph *g, sym_node *n, const struct sym__run *r)
{
	char *label;

	if (r->s.n_note == 0)
		return;
	label = sym__node_label(n);
	for (size_t i = 0; i < r->s.n_note; i++)
		sym__graph_diag(g, SYM_SEV_NOTE, &n->loc, NULL, NULL, "%s: %s",
		    label ? label : n->op->name, r->s.note[i]);
	free(label);
}

/* Index the uses of every value of the graph of "p": the uses of value v
 * are use[use0[v] .. use0[v + 1]), by node order; 0 or -1. */
static int
index_uses(struct sym__pass *p)
{
	sym_graph *g = p->g;
	size_t n = 0, *fill;

	p->use0 = sym__calloc(g->ctx, g->n_value + 2, sizeof(*p->use0));
	if (!p->use0)
		return -1;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_in; k++) {
			p->use0[g->node[i]->in[k]->index + 1]++;
			n++;
		}
	for (size_t v = 0; v < g->n_value; v++)
		p->use0[v + 1] += p->use0[v];
	p->use = sym__calloc(g->ctx, n + 1, sizeof(*p->use));
	fill = sym__calloc(g->ctx, g->n_value + 1, sizeof(*fill));
	if (!p->use || !fill) {
		free(fill);
		return -1;
	}
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_in; k++) {
			size_t v = g->node[i]->in[k]->index;
			struct sym__use *u = &p->use[p->use0[v] + fill[v]++];

			u->node = i;
			u->input = k;
		}
	free(fill);
	return 0;
}

/* Return 1 when node "i" of "g" is the batch_norm_stats that the next
 * node, a batch_norm, reads (the graph adds them together): it then
 * follows that batch_norm's shard clause. */
int
sym__bn_stats_of(const sym_graph *g, size_t i)
{
	const sym_node *st = g->node[i], *bn;

	if (st->op->id != SYM__OP_BATCH_NORM_STATS || i + 1 >= g->n_node)
		return 0;
	bn = g->node[i + 1];
	return bn->op->id == SYM__OP_BATCH_NORM && bn->n_in == 6 &&
	    st->n_out == 1 && bn->in[5] == st->out[0];
}

/* Return the index of the class-split softmax_cross_entropy of "g" whose
 * statistic (sce_target or sce_sumexp, the graph added them just before
 * it) node "i" is, or 0 when it is none. */
size_t
sym__sce_stats_of(const sym_graph *g, size_t i)
{
	const sym_node *st = g->node[i];

	if ((st->op->id != SYM__OP_SCE_TARGET &&
	        st->op->id != SYM__OP_SCE_SUMEXP) ||
	    st->n_out != 1)
		return 0;
	for (size_t j = i + 1; j < g->n_node && j <= i + 2; j++) {
		const sym_node *l = g->node[j];

		if (l->op->id == SYM__OP_SOFTMAX_CROSS_ENTROPY &&
		    l->n_in >= 4 &&
		    (l->in[l->n_in - 2] == st->out[0] ||
		        l->in[l->n_in - 1] == st->out[0]))
			return j;
	}
	return 0;
}

/* Set up the pass "p" over "g" with the topology "topo" and the
 * assignment "a" (may be NULL): the strategy of every node, the binding
 * of every symbol to its least value and its text (built in linear time:
 * 100,000 symbols took 20 s when it was copied at every symbol); 0 or
 * -1. */
static int
pass_init(struct sym__pass *p, sym_graph *g, const sym_topology *topo,
    const struct sym__assign *a)
{
	size_t ns = sym_ctx_n_symbols(g->ctx);
	struct sym__str least = SYM__STR_INIT;

	memset(p, 0, sizeof(*p));
	p->g = g;
	p->topo = topo;
	p->guard0 = g->n_guard;
	if (a) {
		p->xmesh = a->mesh;
		p->n_xmesh = a->n_mesh;
		p->memos = a->memos;
	}
	p->devices = g->devices > 0 ? g->devices : 1;
	p->strategy = sym__calloc(g->ctx, g->n_node + 1, sizeof(*p->strategy));
	for (size_t i = 0; p->strategy && i < g->n_node; i++)
		p->strategy[i] = a && i < a->n_strategy && a->strategy[i]
		    ? a->strategy[i]
		    : g->node[i]->strategy;
	for (size_t i = 0; p->strategy && i < g->n_node; i++)
		if (!p->strategy[i] && sym__bn_stats_of(g, i))
			p->strategy[i] = p->strategy[i + 1];
	for (size_t i = 0; p->strategy && i < g->n_node; i++)
		if (!p->strategy[i] && sym__sce_stats_of(g, i))
			p->strategy[i] = p->strategy[sym__sce_stats_of(g, i)];
	p->run_of = sym__calloc(g->ctx, g->n_node + 1, sizeof(*p->run_of));
	for (size_t i = 0; p->strategy && p->run_of && i < g->n_node; i++)
		p->run_of[i] = p->strategy[i] ? p->n_run++ : SIZE_MAX;
	for (size_t i = 0; p->run_of && i < g->n_node; i++)
		if (p->run_of[i] == SIZE_MAX)
			p->run_of[i] = p->n_run;
	p->run = sym__calloc(g->ctx, p->n_run + 1, sizeof(*p->run));
	p->decl_mesh = sym__calloc(g->ctx, g->n_mesh + p->n_xmesh + 1,
	    sizeof(*p->decl_mesh));
	p->seen = sym__calloc(g->ctx, g->n_value + 1, sizeof(*p->seen));
	p->least = sym_binding_new(g->ctx);
	if (!p->strategy || !p->run_of || !p->run || !p->decl_mesh ||
	    !p->seen || !p->least || index_uses(p) < 0)
		return -1;
	for (size_t i = 0; i < ns; i++) {
		sym_symbol *s = sym_ctx_symbol(g->ctx, i);
		int64_t v = sym_symbol_least(s);

		sym_binding_set(p->least, s, v);
		if (sym_symbol_origin(s) == s)
			sym__str_printf(&least, "%s%s = %lld",
			    least.len ? ", " : "", sym_symbol_name(s),
			    (long long)v);
	}
	if (least.len && !(p->least_txt = sym__str_take(&least, g->ctx)))
		return -1;
	sym__str_clear(&least);
	p->least_words = p->least_txt
	    ? sym__asprintf("; bytes at the least sizes %s", p->least_txt)
	    : strdup("");
	return p->least_words ? 0 : -1;
}

/* Release what the pass "p" holds. */
static void
pass_clear(struct sym__pass *p)
{
	for (size_t i = 0; p->run && i <= p->n_run; i++)
		sym__run_clear(&p->run[i]);
	for (size_t i = 0; p->decl_mesh && i < p->g->n_mesh + p->n_xmesh; i++)
		sym__mesh_unref(p->decl_mesh[i]);
	free(p->run);
	free(p->run_of);
	free(p->strategy);
	free(p->divisor);
	free(p->decl_mesh);
	free(p->seen);
	free(p->use0);
	free(p->use);
	free(p->least_txt);
	free(p->least_words);
	sym_binding_free(p->least);
	sym__pass_redist_clear(p);
	sym__intern_clear(p);
	sym__optshard_clear(p);
}

/* Return the declaration of the mesh "name" in the pass "p", the
 * graph's first, then the assignment's, with its index in p->decl_mesh
 * at "*index"; NULL when there is none. */
const struct sym__mesh_decl *
sym__pass_find_mesh(const struct sym__pass *p, const char *name, size_t *index)
{
	const struct sym__mesh_decl *m = sym__graph_find_mesh(p->g, name);

	if (m) {
		*index = (size_t)(m - p->g->mesh);
		return m;
	}
	for (size_t k = 0; k < p->n_xmesh; k++)
		if (!strcmp(p->xmesh[k].name, name)) {
			*index = p->g->n_mesh + k;
			return &p->xmesh[k];
		}
	return NULL;
}

/* Begin a pass "p" over "g" that shards nothing (the strategy search
 * tries runs of single nodes in it); 0, or -1 with nothing to end. */
int
sym__pass_begin(struct sym__pass *p, sym_graph *g, const sym_topology *topo)
{
	if (pass_init(p, g, topo, NULL) < 0) {
		pass_clear(p);
		return -1;
	}
	return 0;
}

/* End the pass "p" begun by sym__pass_begin. */
void
sym__pass_end(struct sym__pass *p)
{
	pass_clear(p);
}

/* Run the pass "p" over every node of its graph. The run of a node is
 * released once the node is done: only the runs of later nodes with shard
 * clauses are read again (for the costs of their producers), so the nodes
 * without one share a single run. */
static void
pass_run(struct sym__pass *p)
{
	sym_graph *g = p->g;

	for (size_t i = 0; i < g->n_node; i++)
		if (p->strategy[i])
			sym__shard_clause(p, g->node[i]);
	for (size_t i = 0; i < g->n_node; i++) {
		sym_node *n = g->node[i];
		struct sym__run *r = sym__pass_run(p, i);

		if (!p->strategy[i] &&
		    !((n->fwd || (n->op->flags & SYM__OPF_INPLACE)) &&
		        sym__shard_derive(p, n) == 0))
			sym__shard_choose(p, n);
		if (r->ok && sym__optshard_node(p, n, r) < 0)
			sym__graph_ctx_error(g, &n->loc);
		if (r->ok && commit(p, n, r) < 0) {
			sym__graph_ctx_error(g, &n->loc);
		} else if (r->ok) {
			notes(g, n, r);
			validate_node(p, n);
			sym__pass_redistribute(p, n);
			sym__pass_resolve_partials(p, n, r);
			if (sym__pass_gather_updated(p, n, r) < 0)
				sym__graph_ctx_error(g, &n->loc);
		}
		sym__run_clear(r);
	}
}

/* Shard "g" (checked, differentiated when it trains) with the assignment
 * "a" (NULL: its own clauses) on "topo" (NULL: one node with the default
 * links). Return the sharding (one library reference; its errors are
 * among its reports, or the graph's when a->keep_reports), or NULL when
 * out of memory (SYM_ENOMEM on the context). */
sym_sharding *
sym__shard_build(sym_graph *g, const struct sym__assign *a,
    const sym_topology *topo)
{
	sym_topology *own = NULL;
	struct sym__pass p;
	size_t d0 = g->n_diag, g0 = g->n_guard;
	unsigned long oom = sym__ctx_n_oom(g->ctx);
	sym_sharding *sh = sym__sharding_alloc(g);

	if (!sh)
		return NULL;
	memset(&p, 0, sizeof(p));
	if (!topo)
		own = sym_topology_new(g->ctx, 0, 0, 0, 0, 0);
	if (!topo && !own) {
		sh->failed = 1;
	} else if (pass_init(&p, g, topo ? topo : own, a) < 0) {
		sym__oom(g->ctx);
		sh->failed = 1;
	} else {
		p.sh = sh;
		sh->optshard = a && a->set_optshard
		    ? a->optshard
		    : sym_graph_optimizer_shard(g);
		pass_run(&p);
		if (!sh->failed && sym__fusion_build(sh, g->fusion_bytes) < 0)
			sh->failed = 1;
		/* A rule or a proof that ran out of memory may have been taken
		 * for a rejected strategy: the sharding is not to be trusted. */
		if (!sh->failed && sym__ctx_n_oom(g->ctx) != oom) {
			sym__oom(g->ctx);
			sh->failed = 1;
		}
	}
	if (p.g)
		pass_clear(&p);
	sym_topology_free(own);
	if (sh->failed)
		sym__graph_ctx_error(g, NULL);
	if ((!a || !a->keep_reports) && move_reports(g, sh, d0, g0) < 0) {
		sym__obj_unref(&sh->obj);
		return NULL;
	}
	return sh;
}

/* Shard the graph "g" (whose shapes have been inferred without errors)
 * on its devices with its own shard clauses, pricing communication with
 * "topo" (NULL: one node with the default links), and make it the
 * graph's current sharding, whose diagnostics and guards the graph
 * records. Return 0, or -1 when the graph has errors or its strategies
 * are invalid (diagnostics say why). */
int
sym_graph_shard(sym_graph *g, const sym_topology *topo)
{
	struct sym__assign a;

	memset(&a, 0, sizeof(a));
	a.keep_reports = 1;
	return sym__graph_shard_with(g, &a, topo);
}

/* As sym_graph_shard, with the assignment "a" (its keep_reports is
 * ignored); 0 or -1. */
int
sym__graph_shard_with(sym_graph *g, const struct sym__assign *a,
    const sym_topology *topo)
{
	struct sym__assign k = *a;
	size_t errors;

	if (!g)
		return -1;
	graph_shard_clear(g);
	g->shard_clear = graph_shard_clear;
	if (g->loss && !g->differentiated && g->n_errors == 0 &&
	    sym_graph_differentiate(g) < 0)
		return -1;
	if (g->n_errors > 0)
		return sym__graph_diag(g, SYM_SEV_ERROR, NULL, NULL, NULL,
		    "cannot shard a graph with errors (%zu found before "
		    "sharding)",
		    g->n_errors);
	g->shard_diag0 = g->n_diag;
	g->shard_guard0 = g->n_guard;
	errors = g->n_errors;
	k.keep_reports = 1;
	g->sharding = sym__shard_build(g, &k, topo);
	if (!g->sharding)
		sym__graph_ctx_error(g, NULL);
	g->shard_diag1 = g->n_diag;
	g->shard_guard1 = g->n_guard;
	return g->n_errors > errors ? -1 : 0;
}

/* Set the sharding option "opt" of "g" to "value"; 0, or -1 with
 * SYM_EINVAL for an unknown option. */
int
sym_graph_set_shard_option(sym_graph *g, sym_shard_option opt, long value)
{
	if (!g)
		return -1;
	switch (opt) {
	case SYM_SHARD_OPT_POWER_OF_TWO:
		g->opt_power_of_two = value != 0;
		return 0;
	case SYM_SHARD_OPT_PROPAGATE:
		g->opt_propagate = value != 0;
		return 0;
	}
	sym__error(g->ctx, SYM_EINVAL, NULL, "unknown sharding option %d",
	    (int)opt);
	return -1;
}

/* Return the value of the sharding option "opt" of "g"; -1 with
 * SYM_EINVAL for an unknown option (or NULL). */
long
sym_graph_get_shard_option(const sym_graph *g, sym_shard_option opt)
{
	if (!g)
		return -1;
	switch (opt) {
	case SYM_SHARD_OPT_POWER_OF_TWO:
		return g->opt_power_of_two;
	case SYM_SHARD_OPT_PROPAGATE:
		return g->opt_propagate;
	}
	sym__error(g->ctx, SYM_EINVAL, NULL, "unknown sharding option %d",
	    (int)opt);
	return -1;
}
