/* SPDX-License-Identifier: MIT */
/*
 * Applying operators: shape inference, requirements (proved, unified,
 * refuted or guarded), declared relations and assertions.
 */
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "graph/graph_private.h"

/* Return the malloc'ed text of binding "w", or NULL when it is empty. */
char *
sym__witness_text(sym_binding *w)
{
	if (!w || sym_binding_n_symbols(w) == 0)
		return NULL;
	return sym_binding_to_str(w);
}

/* Record on "g" the substitution of "var" by "value" (borrowed) and the
 * derived relation, required by "reason" at "where"; 0 or -1. */
static int
add_subst(sym_graph *g, sym_symbol *var, sym_expr *value, const sym_loc *where,
    const char *reason)
{
	struct sym__relation *r;
	sym_symbol **vars;
	sym_expr **vals;

	vars = sym__realloc_array(g->ctx, g->subst_var, g->n_subst + 1,
	    sizeof(*vars));
	if (!vars)
		return -1;
	g->subst_var = vars;
	vals = sym__realloc_array(g->ctx, g->subst_value, g->n_subst + 1,
	    sizeof(*vals));
	if (!vals)
		return -1;
	g->subst_value = vals;
	if (SYM__RESERVE(g->ctx, g->rel, g->cap_rel, g->n_rel + 1) < 0)
		return -1;
	r = &g->rel[g->n_rel];
	memset(r, 0, sizeof(*r));
	r->reason = sym__strdup(g->ctx, reason);
	r->value = sym__expr_ref(value);
	r->pub.var = var;
	r->pub.value = r->value;
	r->pub.reason = r->reason;
	if (where) {
		r->pub.loc = *where;
		r->pub.loc.file = sym__graph_intern_file(g, where->file);
	}
	g->n_rel++;
	g->subst_var[g->n_subst] = var;
	g->subst_value[g->n_subst] = sym__expr_ref(value);
	g->n_subst++;
	return 0;
}

/* Look in "d" (= a - b) for a non-unique variable v occurring once, alone,
 * with coefficient +1 or -1, and return it with "*value" set to what v
 * must equal for d == 0 (an internal reference). Variables whose every
 * value the other side admits anyway are preferred, then the most
 * recently created. */
static sym_symbol *
unify_candidate(sym_expr *d, sym_expr **value)
{
	sym_symbol *best = NULL;
	int best_implied = -1;

	*value = NULL;
	for (uint32_t i = 0; i < d->u.poly.n; i++) {
		const struct sym__term *t = &d->u.poly.t[i];
		struct sym_expr *a =
		    t->n == 1 && t->f[0].exp == 1 ? t->f[0].atom : NULL;
		sym_symbol *v;
		sym_expr *ve, *rest, *val;
		int64_t c;
		int implied;

		if (!a || a->kind != SYM__VAR || !sym__num_fits(&t->coef, &c) ||
		    (c != 1 && c != -1))
			continue;
		v = a->u.var;
		if (sym_symbol_is_unique(v))
			continue;
		ve = sym__var(v);
		val = sym__scale_si(ve, c);
		rest = val ? sym__sub(d, val) : NULL;
		sym__expr_unref(val);
		sym__expr_unref(ve);
		if (!rest)
			continue;
		if (sym_expr_involves(rest, v) == SYM_TRUE) {
			sym__expr_unref(rest);
			continue;
		}
		val = sym__scale_si(rest, -c);
		sym__expr_unref(rest);
		if (!val)
			continue;
		if (sym_expr_is_const(val) == SYM_TRUE) {
			/* v == constant is proved or refuted, not unified */
			sym__expr_unref(val);
			continue;
		}
		implied = sym__av_subset(val->av, v->av);
		if (implied > best_implied ||
		    (implied == best_implied && v->id > best->id)) {
			sym__expr_unref(*value);
			*value = val;
			best = v;
			best_implied = implied;
		} else {
			sym__expr_unref(val);
		}
	}
	return best;
}

/* Return "d" divided by its content: the gcd of its coefficients and the
 * largest monomial of symbols common to all its terms (positive, since
 * symbols are), so that d == 0 exactly when the result is 0. Internal
 * reference; "d" itself when there is nothing to divide out. */
static sym_expr *
primitive_part(sym_expr *d)
{
	struct sym__factor f[SYM_MESH_MAX_AXES];
	uint32_t nf = 0;
	sym__num g = SYM__NUM_ZERO, one = { 1, NULL };
	sym_expr *m, *q;
	if (d->u.poly.n == 0)
		return sym__expr_ref(d);
	sym__num_set(&g, &d->u.poly.c);
	for (uint32_t i = 0; i < d->u.poly.n; i++)
		sym__num_gcd(&g, &g, &d->u.poly.t[i].coef);
	if (sym__num_sgn(&d->u.poly.c) == 0) {
		const struct sym__term *t0 = &d->u.poly.t[0];

		for (uint32_t j = 0; j < t0->n && nf < SYM_MESH_MAX_AXES; j++) {
			struct sym_expr *a = t0->f[j].atom;
			uint32_t e = t0->f[j].exp;

			if (a->kind != SYM__VAR)
				continue;
			for (uint32_t i = 1; i < d->u.poly.n && e; i++) {
				const struct sym__term *t = &d->u.poly.t[i];
				uint32_t k, found = 0;

				for (k = 0; k < t->n; k++)
					if (t->f[k].atom == a)
						found = t->f[k].exp;
				e = found < e ? found : e;
			}
			if (e) {
				f[nf].atom = a;
				f[nf++].exp = e;
			}
		}
	}
	if (nf == 0 && sym__num_cmp(&g, &one) <= 0) {
		sym__num_clear(&g);
		return sym__expr_ref(d);
	}
	m = sym__const_num(d->ctx, &g);
	for (uint32_t j = 0; m && j < nf; j++) {
		sym_expr *v = sym__atom_poly(f[j].atom), *n;

		for (uint32_t e = 0; v && e < f[j].exp; e++) {
			n = sym__mul(m, v);
			sym__expr_unref(m);
			m = n;
		}
		sym__expr_unref(v);
	}
	sym__num_clear(&g);
	q = m ? sym__fdiv(d, m) : NULL;
	sym__expr_unref(m);
	return q ? q : sym__expr_ref(d);
}

/* Try to satisfy "a" == "b" by unifying a fresh variable; return 1 when
 * done, 0 when no variable can be unified, -1 when unifying contradicts
 * the declarations (a diagnostic labelled "label" is recorded). */
static int
unify(sym_graph *g, sym_expr *a, sym_expr *b, const sym_loc *where,
    const char *label, const char *what)
{
	sym_expr *d0 = sym__sub(a, b), *d, *value = NULL, *ve;
	sym_symbol *v;
	int r = 0;

	d = d0 ? primitive_part(d0) : NULL;
	sym__expr_unref(d0);
	v = d ? unify_candidate(d, &value) : NULL;
	sym__expr_unref(d);
	if (!v)
		return 0;
	if (!sym__av_subset(value->av, v->av)) {
		ve = sym__var(v);
		r = sym_ctx_assume(g->ctx, ve, SYM_EQ, value, where);
		sym__expr_unref(ve);
		if (r < 0) {
			char *s = sym_expr_to_str(value);

			sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
			    "%s: %s: %s would need %s = %s, which no "
			    "admissible value allows",
			    label, what, sym_symbol_name(v), sym_symbol_name(v),
			    s ? s : "?");
			free(s);
			sym_ctx_clear_error(g->ctx);
			sym__expr_unref(value);
			return -1;
		}
	}
	r = add_subst(g, v, value, where, what) < 0 ? -1 : 1;
	sym__expr_unref(value);
	return r;
}

/* Record a run-time guard "e rel 0" (or "k | e") with text "text" (taken;
 * NULL when making it ran out of memory) on "g"; 0, or -1 (SYM_ENOMEM when
 * "text" is missing). */
int
sym__graph_add_guard(sym_graph *g, enum sym__rel rel, sym_expr *e, int64_t k,
    char *text, const sym_loc *where, const char *reason)
{
	struct sym__guard *gd;

	if (!text)
		sym__oom(g->ctx);
	if (!text ||
	    SYM__RESERVE(g->ctx, g->guard, g->cap_guard, g->n_guard + 1) < 0) {
		free(text);
		return -1;
	}
	gd = &g->guard[g->n_guard++];
	memset(gd, 0, sizeof(*gd));
	gd->rel = rel;
	gd->e = sym__expr_ref(e);
	gd->k = k;
	gd->text = text;
	gd->reason = sym__strdup(g->ctx, reason);
	gd->pub.text = gd->text;
	gd->pub.reason = gd->reason;
	if (where) {
		gd->pub.loc = *where;
		gd->pub.loc.file = sym__graph_intern_file(g, where->file);
	}
	return 0;
}

/* Return 1 when the symbol "s" declared with divisor "div" and remainder
 * 0 (its min and max kept) admits a value, computed exactly, and, when
 * facts name "s", the prover shows that they admit one divisible by
 * "div"; else 0. */
static int
hint_admits(sym_symbol *s, int64_t div)
{
	sym_symbol_info info = s->info;
	sym_ctx *ctx = s->ctx;
	sym_answer a = SYM_ERROR;
	sym_expr *v;

	info.divisor = div;
	info.remainder = 0;
	if (!sym__symbol_info_admits(&info))
		return 0;
	if (s->n_facts == 0)
		return 1;
	if (sym_ctx_push(ctx) < 0) {
		sym_ctx_clear_error(ctx);
		return 0;
	}
	v = sym__var(s);
	if (v && sym_ctx_assume_divisible(ctx, v, div, NULL) == 0)
		a = sym_ctx_satisfiable(ctx, NULL);
	sym__expr_unref(v);
	sym_ctx_pop(ctx);
	sym_ctx_clear_error(ctx);
	return a == SYM_TRUE;
}

/* Return a hint for making "k" divide "e" when "e" is a constant times
 * one symbol ("declare b with divisor=8") and the hinted declaration
 * admits a value, or NULL. */
char *
sym__divisor_hint(sym_expr *e, int64_t k)
{
	struct sym_expr *a;
	int64_t c, need, div, l;
	sym_symbol *s;

	if (e->u.poly.n != 1 || sym__num_sgn(&e->u.poly.c) != 0 ||
	    e->u.poly.t[0].n != 1 || e->u.poly.t[0].f[0].exp != 1)
		return NULL;
	a = e->u.poly.t[0].f[0].atom;
	if (a->kind != SYM__VAR || !sym__num_fits(&e->u.poly.t[0].coef, &c))
		return NULL;
	s = sym_symbol_origin(a->u.var);
	need = k / sym__gcd64(c, k);
	div = s->info.divisor;
	if (s->info.remainder != 0 ||
	    __builtin_mul_overflow(div / sym__gcd64(div, need), need, &l) ||
	    !hint_admits(s, l))
		return NULL;
	return sym__asprintf("declare %s with divisor=%lld", s->name,
	    (long long)l);
}

/* Return a hint for an equality of "a" and "b" that fails because they
 * name different instances of the same non-unique symbols ("b'*s'" and
 * "b*s"): declare those symbols unique, malloc'ed; NULL when there are
 * none (or out of memory). */
static char *
unique_hint(sym_graph *g, sym_expr *a, sym_expr *b)
{
	size_t na = sym_expr_symbols(a, NULL, 0);
	size_t nb = sym_expr_symbols(b, NULL, 0), n = 0;
	sym_symbol **y =
	    sym__realloc_array(g->ctx, NULL, na + nb + 1, sizeof(*y));
	struct sym__str t = SYM__STR_INIT;
	const char *first = NULL;

	if (!y)
		return NULL;
	sym_expr_symbols(a, y, na);
	sym_expr_symbols(b, y + na, nb);
	for (size_t i = 0; i < na + nb; i++) {
		sym_symbol *o = sym_symbol_origin(y[i]);
		int twice = 0, listed = 0;

		for (size_t j = 0; j < na + nb; j++)
			twice |= y[j] != y[i] && sym_symbol_origin(y[j]) == o;
		for (size_t j = 0; j < i; j++)
			listed |= sym_symbol_origin(y[j]) == o;
		if (!twice || listed || sym_symbol_is_unique(o))
			continue;
		if (n++)
			sym__str_puts(&t, ", ");
		sym__str_puts(&t, sym_symbol_name(o));
		first = first ? first : sym_symbol_name(o);
	}
	free(y);
	if (n)
		sym__str_printf(&t,
		    ": each use of a non-unique symbol is a different "
		    "variable; declare %s unique ('symbol %s ... unique') to "
		    "make every use one size",
		    n > 1 ? "them" : "it", first);
	if (n == 0) {
		sym__str_clear(&t);
		return NULL;
	}
	return sym__str_take(&t, g->ctx);
}

/* Return the text of requirement "r" as a claim ("a == b", "a >= b",
 * "(a) mod k == 0"), malloc'ed. */
static char *
req_text(const struct sym__req *r)
{
	char *a = sym_expr_to_str(r->a),
	     *b = r->b ? sym_expr_to_str(r->b) : NULL, *s = NULL;

	if (!a || (r->b && !b)) {
		free(a);
		free(b);
		return NULL;
	}
	if (r->kind == SYM__REQ_EQUAL)
		s = sym__asprintf("%s == %s", a, b);
	else if (r->kind == SYM__REQ_GE)
		s = sym__asprintf("%s >= %s", a, b);
	else if (sym_expr_is_symbol(r->a) || sym_expr_is_const(r->a))
		s = sym__asprintf("%s mod %lld == 0", a, (long long)r->k);
	else
		s = sym__asprintf("(%s) mod %lld == 0", a, (long long)r->k);
	free(a);
	free(b);
	return s;
}

/* Settle the requirement "r" of node "what" at "where": proved, unified,
 * refuted (error diagnostic with witness) or left as a guard. Return 0,
 * or -1 when it is refuted. */
static int
settle(sym_graph *g, const struct sym__req *r, const sym_loc *where,
    const char *what)
{
	sym_binding *w = NULL;
	sym_answer ans;
	sym_expr *e = NULL;
	enum sym__rel rel = SYM__REL_GE;
	char *hint = NULL, *why;
	int u, located;

	if (r->kind == SYM__REQ_EQUAL && r->a == r->b)
		return 0;
	if (r->kind == SYM__REQ_DIVISIBLE)
		ans = sym_prove_divisible(g->ctx, r->a, r->k, &w);
	else
		ans = sym_prove_cmp(g->ctx, r->a,
		    r->kind == SYM__REQ_EQUAL ? SYM_EQ : SYM_GE, r->b, &w);
	if (ans == SYM_TRUE)
		return 0;
	if (ans == SYM_ERROR) {
		sym_binding_free(w);
		sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "%s %s: %s", what, r->what, sym_ctx_last_message(g->ctx));
		sym_ctx_clear_error(g->ctx);
		return -1;
	}
	if (r->kind == SYM__REQ_EQUAL) {
		u = unify(g, r->a, r->b, where, what, r->what);
		if (u != 0) {
			sym_binding_free(w);
			return u < 0 ? -1 : 0;
		}
	}
	if (ans == SYM_FALSE) {
		if (r->kind == SYM__REQ_DIVISIBLE)
			hint = sym__divisor_hint(r->a, r->k);
		else if (r->kind == SYM__REQ_EQUAL)
			hint = unique_hint(g, r->a, r->b);
		sym__graph_diag_w(g, SYM_SEV_ERROR, where, w, hint, "%s: %s",
		    what, r->what);
		free(hint);
		sym_binding_free(w);
		return -1;
	}
	sym_binding_free(w);
	if (r->kind == SYM__REQ_DIVISIBLE) {
		e = sym__expr_ref(r->a);
		rel = SYM__REL_DIV;
	} else {
		e = sym__sub(r->a, r->b);
		rel = r->kind == SYM__REQ_EQUAL ? SYM__REL_EQ : SYM__REL_GE;
	}
	/* without a location (ONNX imports, graphs built through the API)
	 * the reason names the operator, so that a rejected binding does */
	located = where && where->line > 0;
	why =
	    located ? NULL : sym__asprintf_ctx(g->ctx, "%s: %s", what, r->what);
	if (located || why)
		u = sym__graph_add_guard(g, rel, e, r->k, req_text(r), where,
		    located ? r->what : why);
	else
		u = -1; /* out of memory, on the context */
	sym__expr_unref(e);
	free(why);
	if (u == 0)
		sym__graph_diag(g, SYM_SEV_WARNING, where, NULL, NULL,
		    "%s: could not prove that %s; checked at run time", what,
		    r->what);
	return u;
}

/* Return the label of a node for messages: "matmul h1". */
static char *
node_label(const sym_op *op, size_t n_out, const char *const *out_names)
{
	if (n_out > 0 && out_names && out_names[0])
		return sym__asprintf("%s %s", op->name, out_names[0]);
	return sym__asprintf("%s", op->name);
}

/* Create the node of "op" in "g" with inputs "in" and a copy of "attrs";
 * NULL on allocation failure. */
static sym_node *
node_new(sym_graph *g, const sym_op *op, size_t n_in, sym_value *const *in,
    const sym_attrs *attrs, const sym_loc *where)
{
	sym_node *n;

	if (SYM__RESERVE(g->ctx, g->node, g->cap_node, g->n_node + 1) < 0)
		return NULL;
	n = sym__alloc(g->ctx, sizeof(*n));
	if (!n)
		return NULL;
	n->op = op;
	n->n_in = n_in;
	n->in = sym__alloc(g->ctx, (n_in + 1) * sizeof(*n->in));
	n->attrs = sym__attrs_copy(g->ctx, attrs);
	if (!n->in || !n->attrs) {
		free(n->in);
		sym__attrs_free(n->attrs);
		free(n);
		return NULL;
	}
	if (n_in)
		memcpy(n->in, in, n_in * sizeof(*in));
	if (where) {
		n->loc = *where;
		n->loc.file = sym__graph_intern_file(g, where->file);
	}
	n->index = g->n_node;
	n->graph = g;
	g->node[g->n_node++] = n;
	return n;
}

/* Attach "count" result values to node "n", named by "names" (generated
 * when NULL) with the shapes "shapes" (NULL entries: failed), inferred
 * before the substitutions from number "gen" on. A result whose name is
 * taken marks the node failed. Return 0 or -1. */
static int
node_outputs(sym_graph *g, sym_node *n, size_t count, size_t gen,
    const char *const *names, sym_shape **shapes)
{
	n->out = sym__alloc(g->ctx, (count + 1) * sizeof(*n->out));
	if (!n->out)
		return -1;
	for (size_t i = 0; i < count; i++) {
		char buf[32];
		const char *name = names ? names[i] : NULL;
		sym_value *v;

		if (!name) {
			snprintf(buf, sizeof(buf), "%%%zu", g->auto_names++);
			name = buf;
		}
		v = sym__graph_value_new(g, name, SYM_VALUE_RESULT, &n->loc);
		if (!v) {
			n->failed = 1;
			continue;
		}
		v->producer = n;
		v->shape =
		    shapes && shapes[i] ? sym__shape_ref(shapes[i]) : NULL;
		v->failed = !v->shape;
		v->subst_gen = gen;
		n->out[n->n_out++] = v;
		sym__value_shape(v);
		v->declared = v->shape ? sym__shape_ref(v->shape) : NULL;
	}
	return 0;
}

/* Apply "op" (by name) to the inputs "in" of "g" with attributes "attrs"
 * (kept), naming the "n_out" results "out_names" (both may be 0/NULL:
 * the rule's outputs get generated names). The shapes are inferred, the
 * requirements proved, unified or guarded, and every problem recorded as
 * a located diagnostic. Return the node (also when it has errors), or
 * NULL when it could not be created. */
static sym_node *
add_node(sym_graph *g, const char *op, size_t n_out,
    const char *const *out_names, size_t n_in, sym_value *const *in,
    const sym_attrs *attrs, const sym_loc *where)
{
	const sym_op *o;
	struct sym__infer inf;
	sym_shape **shapes, *shape_buf[8];
	const char **names, *name_buf[8];
	sym_node *n;
	char *label;
	int failed = 0;
	size_t gen;

	if (!g || !op || (n_in && !in))
		return NULL;
	o = sym_op_find(op);
	if (!o) {
		sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "unknown operator '%s'", op);
		return NULL;
	}
	for (size_t i = 0; i < n_in; i++)
		if (!in[i])
			return NULL;
	n = node_new(g, o, n_in, in, attrs, where);
	if (!n)
		return NULL;
	shapes = n_in <= 8 ? shape_buf
	                   : sym__alloc(g->ctx, (n_in + 1) * sizeof(*shapes));
	names = n_in <= 8 ? name_buf
	                  : sym__alloc(g->ctx, (n_in + 1) * sizeof(*names));
	label = NULL;
	if (!shapes || !names) {
		if (shapes != shape_buf)
			free(shapes);
		if (names != name_buf)
			free(names);
		return NULL;
	}
	for (size_t i = 0; i < n_in; i++) {
		shapes[i] = sym__value_shape(in[i]);
		names[i] = in[i]->name;
		if (!shapes[i])
			failed = 1;
	}
	gen = g->n_subst;
	memset(&inf, 0, sizeof(inf));
	inf.ctx = g->ctx;
	inf.op = o;
	inf.n_in = n_in;
	inf.in = shapes;
	inf.in_name = names;
	inf.attrs = n->attrs;
	inf.n_out_wanted = n_out;
	if (!failed && sym__infer_run(&inf) < 0) {
		label = node_label(o, n_out, out_names);
		const struct sym__attr *at = inf.error_attr
		    ? sym__attrs_find(n->attrs, inf.error_attr)
		    : NULL;

		sym__graph_diag(g, SYM_SEV_ERROR,
		    at && at->has_loc ? &at->loc : where, NULL, NULL, "%s: %s",
		    label ? label : o->name,
		    inf.error ? inf.error : "invalid operands");
		failed = 1;
	}
	for (size_t i = 0; !failed && i < inf.n_req; i++) {
		if (inf.req[i].kind == SYM__REQ_EQUAL &&
		    inf.req[i].a == inf.req[i].b)
			continue;
		if (!label)
			label = node_label(o, n_out, out_names);
		if (settle(g, &inf.req[i], where, label ? label : o->name) < 0)
			failed = 1;
	}
	if (failed) {
		n->failed = 1;
		node_outputs(g, n, n_out ? n_out : 1, gen, out_names, NULL);
	} else {
		node_outputs(g, n, inf.n_out, gen, n_out ? out_names : NULL,
		    inf.out);
		sym__infer_take_attrs(&inf, &n->at);
	}
	for (size_t i = 0; i < n->n_out; i++)
		sym__value_shape(n->out[i]);
	sym__infer_clear(&inf);
	if (shapes != shape_buf)
		free(shapes);
	if (names != name_buf)
		free(names);
	free(label);
	return n;
}

/* Return 1 when "attrs" (may be NULL) says training=false. */
static int
not_training(const sym_attrs *attrs)
{
	const struct sym__attr *t =
	    attrs ? sym__attrs_find(attrs, "training") : NULL;

	return t && t->kind == SYM_ATTR_BOOL && !t->i;
}

/*
 * Add batch_norm(x, gamma, beta, running_mean, running_var) to "g" as
 * three nodes (see lib/shape/op_batch_norm.c): "Y.stats" =
 * batch_norm_stats(x), Y = batch_norm(..., Y.stats) and, unless
 * training=false, "RM.next", "RV.next" = batch_norm_update(running_mean,
 * running_var, Y.stats), Y the first of "out_names" (or a generated
 * name), RM and RV the names of the running statistics. Arguments as
 * sym_graph_add_op; return the batch_norm node, or NULL.
 */
static sym_node *
add_batch_norm(sym_graph *g, size_t n_out, const char *const *out_names,
    sym_value *const *in, const sym_attrs *attrs, const sym_loc *where)
{
	char *nm[3];
	sym_value *all[6], *upd[3];
	sym_node *st, *bn = NULL;

	nm[0] = n_out && out_names && out_names[0]
	    ? sym__asprintf("%s.stats", out_names[0])
	    : sym__asprintf("%%%zu.stats", g->auto_names++);
	nm[1] = sym__asprintf("%s.next", in[3]->name);
	nm[2] = sym__asprintf("%s.next", in[4]->name);
	if (!nm[0] || !nm[1] || !nm[2]) {
		sym__error(g->ctx, SYM_ENOMEM, where, "out of memory");
		goto done;
	}
	st = add_node(g, "batch_norm_stats", 1, (const char *const *)nm, 1, in,
	    attrs, where);
	if (!st || st->n_out != 1)
		goto done;
	memcpy(all, in, 5 * sizeof(*in));
	all[5] = st->out[0];
	bn = add_node(g, "batch_norm", n_out, out_names, 6, all, attrs, where);
	if (!bn || bn->failed || st->failed || not_training(attrs))
		goto done;
	upd[0] = in[3];
	upd[1] = in[4];
	upd[2] = st->out[0];
	add_node(g, "batch_norm_update", 2, (const char *const *)nm + 1, 3, upd,
	    attrs, where);
done:
	for (size_t i = 0; i < 3; i++)
		free(nm[i]);
	return bn;
}

/* Return 1 when "logits" and "labels" have the ranks and dtypes that
 * softmax_cross_entropy accepts (floating [N, C], integer [N]), so that
 * the count of its mean is worth adding; else its own rule reports the
 * operands once. */
static int
sce_operands_typed(sym_value *logits, sym_value *labels)
{
	const sym_shape *x = sym__value_shape(logits);
	const sym_shape *l = sym__value_shape(labels);

	return x && l && x->rank == 2 && sym_dtype_is_float(x->dtype) &&
	    l->rank == 1 && l->dtype != SYM_DT_INVALID &&
	    l->dtype != SYM_DT_BOOL && !sym_dtype_is_float(l->dtype);
}

/*
 * Add the derived node "op" of softmax_cross_entropy to "g": its output
 * "Y.suffix" (Y the loss's first output name, "out_names" (may be NULL)
 * of "n_out"), its "n_in" inputs "in", the loss's "attrs", at "where".
 * Return its output, or NULL when it failed (its rule said why).
 */
static sym_value *
add_derived(sym_graph *g, size_t n_out, const char *const *out_names,
    const char *op, const char *suffix, size_t n_in, sym_value *const *in,
    const sym_attrs *attrs, const sym_loc *where)
{
	char *nm = n_out && out_names && out_names[0]
	    ? sym__asprintf("%s.%s", out_names[0], suffix)
	    : sym__asprintf("%%%zu.%s", g->auto_names++, suffix);
	sym_node *n;

	if (!nm) {
		sym__error(g->ctx, SYM_ENOMEM, where, "out of memory");
		return NULL;
	}
	n = add_node(g, op, 1, (const char *const *)&nm, n_in, in, attrs,
	    where);
	free(nm);
	return n && n->n_out == 1 && !n->failed ? n->out[0] : NULL;
}

/*
 * Add softmax_cross_entropy(logits, labels) with vocab_parallel=1 to "g":
 * "Y.target" = sce_target(logits, labels), each row's label logit, and
 * "Y.sumexp" = sce_sumexp(logits, labels, Y.target), each row's sum of
 * exp(logit - label logit), both partial sums over the axes that split
 * the classes, which the pass all-reduces; with a counted mean
 * (counted_mean) "Y.count" = sce_count(labels) too; then
 * Y = softmax_cross_entropy(logits, labels[, Y.count], Y.target,
 * Y.sumexp), whose loss of a row is log(Y.sumexp). Arguments as
 * sym_graph_add_op ("counted": add the count); return the loss's node,
 * or NULL.
 */
static sym_node *
add_sce_split(sym_graph *g, size_t n_out, const char *const *out_names,
    sym_value *const *in, const sym_attrs *attrs, const sym_loc *where,
    int counted)
{
	sym_value *all[5] = { in[0], in[1], NULL, NULL, NULL };
	sym_value *se[3] = { in[0], in[1], NULL };
	size_t k = 2;

	if (!sce_operands_typed(in[0], in[1]))
		return add_node(g, "softmax_cross_entropy", n_out, out_names, 2,
		    in, attrs, where);
	if (counted) {
		all[k] = add_derived(g, n_out, out_names, "sce_count", "count",
		    1, in + 1, attrs, where);
		if (!all[k++])
			goto alone;
	}
	all[k] = add_derived(g, n_out, out_names, "sce_target", "target", 2, in,
	    attrs, where);
	if (!all[k++])
		goto alone;
	se[2] = all[k - 1];
	all[k] = add_derived(g, n_out, out_names, "sce_sumexp", "sumexp", 3, se,
	    attrs, where);
	if (!all[k++])
		goto alone;
	return add_node(g, "softmax_cross_entropy", n_out, out_names, k, all,
	    attrs, where);
alone:
	return add_node(g, "softmax_cross_entropy", n_out, out_names, 2, in,
	    attrs, where);
}

/*
 * Add softmax_cross_entropy(logits, labels) with the reduction "mean" to
 * "g" as two nodes: "Y.count" = sce_count(labels), the number of rows
 * whose label is not ignore_index (partial sums over a split batch that
 * the pass all-reduces), and Y = softmax_cross_entropy(logits, labels,
 * Y.count), which divides by it. Operands of the wrong rank or dtype
 * get the loss alone, whose rule names them. Arguments as
 * sym_graph_add_op; return the softmax_cross_entropy node, or NULL.
 */
static sym_node *
add_sce_mean(sym_graph *g, size_t n_out, const char *const *out_names,
    sym_value *const *in, const sym_attrs *attrs, const sym_loc *where)
{
	char *nm = n_out && out_names && out_names[0]
	    ? sym__asprintf("%s.count", out_names[0])
	    : sym__asprintf("%%%zu.count", g->auto_names++);
	sym_value *all[3];
	sym_node *ct;

	if (!sce_operands_typed(in[0], in[1])) {
		free(nm);
		return add_node(g, "softmax_cross_entropy", n_out, out_names, 2,
		    in, attrs, where);
	}
	if (!nm) {
		sym__error(g->ctx, SYM_ENOMEM, where, "out of memory");
		return NULL;
	}
	ct = add_node(g, "sce_count", 1, (const char *const *)&nm, 1, in + 1,
	    attrs, where);
	free(nm);
	if (!ct || ct->n_out != 1 || ct->failed)
		return add_node(g, "softmax_cross_entropy", n_out, out_names, 2,
		    in, attrs, where);
	all[0] = in[0];
	all[1] = in[1];
	all[2] = ct->out[0];
	return add_node(g, "softmax_cross_entropy", n_out, out_names, 3, all,
	    attrs, where);
}

/* Return 1 when "attrs" (may be NULL) gives softmax_cross_entropy the
 * reduction "mean" (its default) and writes ignore_index: the mean over
 * the rows that count, which needs their count over the whole batch.
 * Without ignore_index the mean divides by the global batch and needs
 * no count (a row labelled with the default -100 on a split batch is
 * then the kernel's error, which names the attribute). */
static int
counted_mean(const sym_attrs *attrs)
{
	const struct sym__attr *r =
	    attrs ? sym__attrs_find(attrs, "reduction") : NULL;

	if (!attrs || !sym__attrs_find(attrs, "ignore_index"))
		return 0;
	return !r || (r->kind == SYM_ATTR_STRING && !strcmp(r->s, "mean"));
}

/* Return 1 when "attrs" (may be NULL) gives softmax_cross_entropy
 * vocab_parallel=1: the loss computed from statistics that allow its
 * class dimension to be split (add_sce_split). */
static int
vocab_parallel(const sym_attrs *attrs)
{
	const struct sym__attr *v =
	    attrs ? sym__attrs_find(attrs, "vocab_parallel") : NULL;

	return v && v->kind == SYM_ATTR_INT && v->i == 1;
}

/* Apply "op" (by name) to the inputs "in" of "g"; see add_node. A
 * batch_norm of five operands is three nodes (add_batch_norm), a mean
 * softmax_cross_entropy with ignore_index two (add_sce_mean). */
sym_node *
sym_graph_add_op(sym_graph *g, const char *op, size_t n_out,
    const char *const *out_names, size_t n_in, sym_value *const *in,
    const sym_attrs *attrs, const sym_loc *where)
{
	int ok = g && op && (!n_in || in);

	for (size_t i = 0; ok && i < n_in; i++)
		ok = in[i] != NULL;
	if (ok && sym__attrs_failed(attrs)) {
		sym__error(g->ctx, SYM_EINVAL, where,
		    "%s: its attributes are incomplete (setting one of them "
		    "failed)",
		    op);
		return NULL;
	}
	if (ok && n_in == 5 && !strcmp(op, "batch_norm"))
		return add_batch_norm(g, n_out, out_names, in, attrs, where);
	if (ok && n_in == 2 && !strcmp(op, "softmax_cross_entropy") &&
	    vocab_parallel(attrs))
		return add_sce_split(g, n_out, out_names, in, attrs, where,
		    counted_mean(attrs));
	if (ok && n_in == 2 && !strcmp(op, "softmax_cross_entropy") &&
	    counted_mean(attrs))
		return add_sce_mean(g, n_out, out_names, in, attrs, where);
	return add_node(g, op, n_out, out_names, n_in, in, attrs, where);
}

/* Return 1 when each of the "n" symbols "s" is unique; otherwise record
 * a diagnostic at "where" naming the first that is not and return 0. */
static int
unique_symbols(sym_graph *g, sym_symbol *const *s, size_t n, const char *what,
    const sym_loc *where)
{
	for (size_t i = 0; i < n; i++)
		if (!sym_symbol_is_unique(s[i])) {
			sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
			    "%s names %s, which is not unique: each use of a "
			    "non-unique symbol is a different variable; "
			    "declare it 'symbol %s ... unique'",
			    what, sym_symbol_name(s[i]),
			    sym_symbol_name(sym_symbol_origin(s[i])));
			return 0;
		}
	return 1;
}

/* Return 1 when every symbol of "e" is unique; otherwise record a
 * diagnostic at "where" naming the first that is not and return 0. */
static int
only_unique(sym_graph *g, sym_expr *e, const char *what, const sym_loc *where)
{
	size_t n = sym_expr_symbols(e, NULL, 0);
	sym_symbol **s =
	    n ? sym__realloc_array(g->ctx, NULL, n, sizeof(*s)) : NULL;
	int ok;

	if (n && !s)
		return 0;
	sym_expr_symbols(e, s, n);
	ok = unique_symbols(g, s, n, what, where);
	free(s);
	return ok;
}

/* Declare the relation "lhs" "op" "rhs" between unique symbols in "g":
 * every later proof assumes it. Return 0, or -1 with a diagnostic. */
int
sym_graph_add_relation(sym_graph *g, const sym_expr *lhs, sym_cmp op,
    const sym_expr *rhs, const sym_loc *where)
{
	if (!g || !lhs || !rhs)
		return -1;
	if (!only_unique(g, (sym_expr *)lhs, "a relation", where) ||
	    !only_unique(g, (sym_expr *)rhs, "a relation", where))
		return -1;
	if (sym_ctx_assume(g->ctx, lhs, op, rhs, where) < 0)
		return sym__graph_ctx_error(g, where);
	return 0;
}

/* Return "w" (taken) when it binds some symbol or "n" is 0; else free it
 * and return a new binding of the "n" symbols "syms" (their least values,
 * or a sample of the facts of the context of "g" completed with them)
 * admissible in that context, or NULL when none is found. */
static sym_binding *
any_witness(sym_graph *g, sym_binding *w, sym_symbol *const *syms, size_t n)
{
	sym_binding *b = NULL;

	if ((w && sym_binding_n_symbols(w) > 0) || n == 0)
		return w;
	sym_binding_free(w);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0)
			b = sym_binding_new(g->ctx);
		else if (sym_ctx_satisfiable(g->ctx, &b) != SYM_TRUE) {
			sym_binding_free(b);
			b = NULL;
		}
		for (size_t i = 0; b && i < n; i++)
			if (sym_binding_get(b, syms[i], NULL) < 0 &&
			    sym_binding_set(b, syms[i],
			        sym_symbol_least(syms[i])) < 0) {
				sym_binding_free(b);
				b = NULL;
			}
		if (b && sym__binding_admissible(g->ctx, b) == 1)
			return b;
		sym_binding_free(b);
		b = NULL;
	}
	sym_ctx_clear_error(g->ctx);
	return NULL;
}

/* Prove "lhs" "op" "rhs" in "g" and record it as an assertion: a refuted
 * assertion is an error with a witness, an undecided one a warning. Its
 * text is "text" (NULL: the normal form); a witness binds the "n_syms"
 * symbols "syms" it names when the assertion is false for every
 * admissible value. Return the answer. */
sym_answer
sym__graph_assert(sym_graph *g, sym_expr *lhs, sym_cmp op, sym_expr *rhs,
    const char *text, sym_symbol *const *syms, size_t n_syms,
    const sym_loc *where)
{
	struct sym__assertion *as;
	sym_binding *w = NULL;
	sym_answer r;
	char *a, *b;

	if (!g || !lhs || !rhs)
		return SYM_ERROR;
	if (!unique_symbols(g, syms, n_syms, "an assertion", where) ||
	    !only_unique(g, lhs, "an assertion", where) ||
	    !only_unique(g, rhs, "an assertion", where))
		return SYM_ERROR;
	if (SYM__RESERVE(g->ctx, g->assertion, g->cap_assertion,
	        g->n_assertion + 1) < 0)
		return SYM_ERROR;
	r = sym_prove_cmp(g->ctx, lhs, op, rhs, &w);
	if (r == SYM_ERROR) {
		sym__graph_ctx_error(g, where);
		return r;
	}
	if (r == SYM_FALSE)
		w = any_witness(g, w, syms, n_syms);
	if (w && sym_binding_n_symbols(w) == 0) {
		sym_binding_free(w);
		w = NULL;
	}
	a = sym_expr_to_str(lhs);
	b = sym_expr_to_str(rhs);
	as = &g->assertion[g->n_assertion++];
	memset(as, 0, sizeof(*as));
	as->normal =
	    a && b ? sym__asprintf("%s %s %s", a, sym_cmp_name(op), b) : NULL;
	as->text = text ? strdup(text) : as->normal ? strdup(as->normal) : NULL;
	as->witness = sym__witness_text(w);
	as->w = w;
	as->pub.text = as->text ? as->text : "";
	as->pub.normal = as->normal ? as->normal : "";
	as->pub.result = r;
	as->pub.witness = as->witness;
	as->pub.witness_binding = as->witness ? w : NULL;
	if (where) {
		as->pub.loc = *where;
		as->pub.loc.file = sym__graph_intern_file(g, where->file);
	}
	if (r == SYM_FALSE)
		sym__graph_diag_w(g, SYM_SEV_ERROR, where,
		    as->pub.witness_binding, NULL, "assertion '%s' is false",
		    as->pub.text);
	else if (r == SYM_UNKNOWN)
		sym__graph_diag(g, SYM_SEV_WARNING, where, NULL, NULL,
		    "assertion '%s' could not be decided", as->pub.text);
	free(a);
	free(b);
	return r;
}

/* Prove "lhs" "op" "rhs" in "g" and record it as an assertion: a refuted
 * assertion is an error with a witness, an undecided one a warning.
 * Return the answer. */
sym_answer
sym_graph_assert(sym_graph *g, const sym_expr *lhs, sym_cmp op,
    const sym_expr *rhs, const sym_loc *where)
{
	return sym__graph_assert(g, (sym_expr *)lhs, op, (sym_expr *)rhs, NULL,
	    NULL, 0, where);
}
