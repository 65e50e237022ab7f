/* SPDX-License-Identifier: MIT */
/*
 * Graphs: values, nodes, diagnostics and their accessors.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "graph/graph_private.h"

/* Free the value "v". */
static void
value_free(sym_value *v)
{
	sym__shape_unref(v->declared);
	sym__shape_unref(v->shape);
	free(v->data);
	free(v->name);
	free(v);
}

/* Free the node "n" (not its values). */
static void
node_free(sym_node *n)
{
	sym__attrs_free(n->attrs);
	free(n->mirror);
	free(n->onnx_name);
	sym__opattrs_clear(&n->at);
	sym__strategy_free(n->strategy);
	free(n->in);
	free(n->out);
	free(n);
}

/* Free the graph whose link is "link". */
static void
graph_destroy(struct sym__obj *obj)
{
	sym_graph *g = SYM__OBJ_OF(obj, sym_graph, obj);

	if (g->shard_clear)
		g->shard_clear(g);
	for (size_t i = 0; i < g->n_value; i++)
		value_free(g->value[i]);
	for (size_t i = 0; i < g->n_node; i++)
		node_free(g->node[i]);
	for (size_t i = 0; i < g->n_diag; i++) {
		free(g->diag[i].message);
		free(g->diag[i].witness);
		free(g->diag[i].hint);
		sym_binding_free(g->diag[i].w);
	}
	for (size_t i = 0; i < g->n_rel; i++) {
		free(g->rel[i].reason);
		sym__expr_unref(g->rel[i].value);
	}
	for (size_t i = 0; i < g->n_guard; i++) {
		free(g->guard[i].text);
		free(g->guard[i].reason);
		sym__expr_unref(g->guard[i].e);
	}
	for (size_t i = 0; i < g->n_assertion; i++) {
		free(g->assertion[i].text);
		free(g->assertion[i].witness);
		free(g->assertion[i].normal);
		sym_binding_free(g->assertion[i].w);
	}
	for (size_t i = 0; i < g->n_subst; i++)
		sym__expr_unref(g->subst_value[i]);
	for (size_t i = 0; i < g->n_mesh; i++)
		sym__mesh_decl_free(&g->mesh[i]);
	for (size_t i = 0; i < g->n_files; i++)
		free(g->files[i]);
	free(g->files);
	free(g->mesh);
	sym__strmap_clear(&g->mesh_names);
	free(g->subst_var);
	free(g->subst_value);
	free(g->value);
	free(g->node);
	free(g->output);
	free(g->trained);
	sym__strmap_clear(&g->names);
	free(g->diag);
	free(g->rel);
	free(g->guard);
	free(g->assertion);
	free(g->used);
	free(g->source);
	free(g->filename);
	free(g);
}

/* Return a new, empty graph in "ctx". */
sym_graph *
sym_graph_new(sym_ctx *ctx)
{
	sym_graph *g;

	if (!ctx)
		return NULL;
	g = sym__alloc(ctx, sizeof(*g));
	if (!g)
		return NULL;
	g->ctx = ctx;
	g->opt_propagate = 1;
	sym__obj_init(&g->obj, SYM__OBJ_GRAPH, graph_destroy);
	sym__obj_give(ctx, &g->obj);
	return g;
}

/* Free the graph "g" and everything it owns. */
void
sym_graph_free(sym_graph *g)
{
	if (!g)
		return;
	sym__obj_drop(g->ctx, &g->obj);
}

/* Return the context of "g". */
sym_ctx *
sym_graph_ctx(const sym_graph *g)
{
	return g ? g->ctx : NULL;
}

/* Return the text "g" was parsed from, or NULL. */
const char *
sym_graph_source(const sym_graph *g)
{
	return g ? g->source : NULL;
}

/* Return the file name "g" was parsed from, or NULL. */
const char *
sym_graph_filename(const sym_graph *g)
{
	return g ? g->filename : NULL;
}

/* Return the copy kept by "g" of the file name "file" (NULL for NULL). */
const char *
sym__graph_intern_file(sym_graph *g, const char *file)
{
	char **p, *copy;

	if (!file)
		return NULL;
	for (size_t i = 0; i < g->n_files; i++)
		if (strcmp(g->files[i], file) == 0)
			return g->files[i];
	copy = sym__strdup(g->ctx, file);
	p = copy
	    ? sym__realloc_array(g->ctx, g->files, g->n_files + 1, sizeof(*p))
	    : NULL;
	if (!p) {
		free(copy);
		return NULL;
	}
	g->files = p;
	g->files[g->n_files++] = copy;
	return copy;
}

/* Return "where" with its file interned in "g" (a zero location for
 * NULL). */
static sym_loc
own_loc(sym_graph *g, const sym_loc *where)
{
	sym_loc l = { NULL, 0, 0 };

	if (where) {
		l = *where;
		l.file = sym__graph_intern_file(g, where->file);
	}
	return l;
}

/* Record the diagnostic of "sev" at "where" on "g" with the message
 * "msg" (taken), the "witness", its values "w" and the "hint" (copied,
 * may be NULL); once
 * "g" has as many errors as its limit (while it is parsed), the next error
 * is replaced by "too many errors" and every later diagnostic is
 * dropped. A diagnostic recorded while the context's error is SYM_ENOMEM
 * (it reports that memory ran out), or lost for want of memory, sets
 * g->oom, so that the parser fails with SYM_ENOMEM instead of returning a
 * graph whose errors are wrong or missing. */
static void
record(sym_graph *g, sym_severity sev, const sym_loc *where,
    const char *witness, const sym_binding *w, const char *hint, char *msg)
{
	struct sym__diag *d;

	if (!msg || sym_ctx_last_error(g->ctx) == SYM_ENOMEM)
		g->oom = 1;
	if (g->too_many || !msg) {
		free(msg);
		return;
	}
	if (sev == SYM_SEV_ERROR && g->error_limit &&
	    g->n_errors >= g->error_limit) {
		free(msg);
		msg = sym__asprintf("too many errors (%zu): stopping here",
		    g->error_limit);
		witness = hint = NULL;
		w = NULL;
		g->too_many = 1;
	}
	if (!msg ||
	    SYM__RESERVE(g->ctx, g->diag, g->cap_diag, g->n_diag + 1) < 0) {
		g->oom = 1;
		free(msg);
		return;
	}
	d = &g->diag[g->n_diag++];
	memset(d, 0, sizeof(*d));
	d->message = msg;
	d->witness = witness ? sym__strdup(g->ctx, witness) : NULL;
	d->hint = hint ? sym__strdup(g->ctx, hint) : NULL;
	d->w = w ? sym_binding_dup(w) : NULL;
	if ((witness && !d->witness) || (hint && !d->hint) || (w && !d->w))
		g->oom = 1; /* the diagnostic stands, incomplete */
	d->pub.severity = sev;
	d->pub.loc = own_loc(g, where);
	d->pub.message = d->message;
	d->pub.witness = d->witness;
	d->pub.hint = d->hint;
	d->pub.witness_binding = d->w;
	if (sev == SYM_SEV_ERROR)
		g->n_errors++;
}

/* Record a diagnostic of "sev" at "where" on "g" (none once it has too
 * many errors); return -1 for an error, 0 otherwise. */
int
sym__graph_diag(sym_graph *g, sym_severity sev, const sym_loc *where,
    const char *witness, const char *hint, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (g->too_many)
		return sev == SYM_SEV_ERROR ? -1 : 0;
	va_start(ap, fmt);
	msg = sym__vasprintf(fmt, ap);
	va_end(ap);
	record(g, sev, where, witness, NULL, hint, msg);
	return sev == SYM_SEV_ERROR ? -1 : 0;
}

/* Record a diagnostic of "sev" at "where" on "g" with the witness "w"
 * (copied, may be NULL), its text and the "hint" (may be NULL); return -1
 * for an error, 0 otherwise. */
int
sym__graph_diag_w(sym_graph *g, sym_severity sev, const sym_loc *where,
    const sym_binding *w, const char *hint, const char *fmt, ...)
{
	va_list ap;
	char *msg, *wt;

	if (g->too_many)
		return sev == SYM_SEV_ERROR ? -1 : 0;
	va_start(ap, fmt);
	msg = sym__vasprintf(fmt, ap);
	va_end(ap);
	wt = w && sym_binding_n_symbols(w) ? sym_binding_to_str(w) : NULL;
	record(g, sev, where, wt, wt ? w : NULL, hint, msg);
	free(wt);
	return sev == SYM_SEV_ERROR ? -1 : 0;
}

/* Record the context's last error as an error diagnostic of "g" (at its
 * own location if it has one, else at "where") and clear it, unless it is
 * SYM_ENOMEM, which stays for the caller (and sets g->oom). */
int
sym__graph_ctx_error(sym_graph *g, const sym_loc *where)
{
	sym_loc at = sym_ctx_last_location(g->ctx);
	int r;

	r = sym__graph_diag(g, SYM_SEV_ERROR, at.line > 0 ? &at : where, NULL,
	    NULL, "%s", sym_ctx_last_message(g->ctx));
	if (sym_ctx_last_error(g->ctx) != SYM_ENOMEM)
		sym_ctx_clear_error(g->ctx);
	return r;
}

/* Record an error diagnostic "message" at "where" on "g" (for front
 * ends that find errors of their own); return -1. */
int
sym_graph_error(sym_graph *g, const sym_loc *where, const char *message)
{
	if (!g || !message)
		return -1;
	return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL, "%s",
	    message);
}

/* Set the number of devices of "g" to "n" >= 1; 0 or -1. */
int
sym_graph_set_devices(sym_graph *g, int64_t n, const sym_loc *where)
{
	if (!g)
		return -1;
	if (n < 1)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "the number of devices must be at least 1, not %lld",
		    (long long)n);
	g->devices = n;
	g->devices_loc = own_loc(g, where);
	return 0;
}

/* Ask for the strategies of "g" to be searched ("parallel auto"), under
 * a cap of "memory" bytes per device (0: none), as declared at "where"
 * (may be NULL); 0, or -1 with an error diagnostic for a negative cap. */
int
sym_graph_set_auto_parallel(sym_graph *g, int64_t memory, const sym_loc *where)
{
	if (!g)
		return -1;
	if (memory < 0)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "the memory of parallel auto must be positive, not %lld",
		    (long long)memory);
	g->auto_parallel = 1;
	g->auto_memory = memory;
	g->auto_loc = own_loc(g, where);
	return 0;
}

/* Return 1 when "g" asks for its strategies to be searched (its memory
 * cap in "*memory", 0: none; may be NULL), else 0. */
int
sym_graph_auto_parallel(const sym_graph *g, int64_t *memory)
{
	if (memory)
		*memory = g && g->auto_parallel ? g->auto_memory : 0;
	return g && g->auto_parallel;
}

/* Ask for the gradient all_reduces of "g" to be fused into buckets of
 * about "bytes" bytes ("parallel fusion_bytes=", 0: none), as declared at
 * "where" (may be NULL; unused); 0, or -1 with an error diagnostic for a
 * negative size. */
int
sym_graph_set_fusion_bytes(sym_graph *g, int64_t bytes, const sym_loc *where)
{
	if (!g)
		return -1;
	if (bytes < 0)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "the fusion_bytes of parallel must be positive, not %lld",
		    (long long)bytes);
	g->fusion_bytes = bytes;
	return 0;
}

/* Return the bucket size of the gradient fusion of "g" (0: none). */
int64_t
sym_graph_fusion_bytes(const sym_graph *g)
{
	return g ? g->fusion_bytes : 0;
}

/* Shard the optimizer of "g" at "level" ("parallel optimizer_shard=",
 * 0: none; DESIGN section 20), as declared at "where" (may be NULL);
 * 0, or -1 with an error diagnostic for a level out of range. */
int
sym_graph_set_optimizer_shard(sym_graph *g, int level, const sym_loc *where)
{
	if (!g)
		return -1;
	if (level < 0 || level > 3)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL,
		    "the levels are 1 (optimizer state), 2 (and gradients) "
		    "and 3 (and params)",
		    "the level of optimizer_shard must be 1, 2 or 3, not %d",
		    level);
	g->optimizer_shard = level;
	return 0;
}

/* Return the optimizer sharding level of "g" (0: none). */
int
sym_graph_optimizer_shard(const sym_graph *g)
{
	return g ? g->optimizer_shard : 0;
}

/* Set the size in bytes below which a param of "g" keeps its optimizer
 * state whole under optimizer sharding ("optimizer_shard_min_bytes=",
 * 64 KiB unless set), as declared at "where" (may be NULL); 0, or -1
 * with an error diagnostic for a negative size. */
int
sym_graph_set_optimizer_shard_min_bytes(sym_graph *g, int64_t bytes,
    const sym_loc *where)
{
	if (!g)
		return -1;
	if (bytes < 0)
		return sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "the optimizer_shard_min_bytes of parallel must not be "
		    "negative, not %lld",
		    (long long)bytes);
	g->optimizer_shard_min_bytes = bytes;
	g->optimizer_shard_min_set = 1;
	return 0;
}

/* Return the size in bytes below which a param of "g" keeps its
 * optimizer state whole (64 KiB unless set). */
int64_t
sym_graph_optimizer_shard_min_bytes(const sym_graph *g)
{
	return !g || !g->optimizer_shard_min_set ? 64 * 1024
	                                         : g->optimizer_shard_min_bytes;
}

/* Return the number of devices of "g" (0 when never set). */
int64_t
sym_graph_n_devices(const sym_graph *g)
{
	return g ? g->devices : 0;
}

/* Return the value named "name" in "g", or NULL. */
sym_value *
sym_graph_find_value(const sym_graph *g, const char *name)
{
	size_t i;

	if (!g || !name || sym__strmap_get(&g->names, name, &i) != 1)
		return NULL;
	return g->value[i];
}

/* Return a new value "name" of "kind" in "g" at "where", or NULL (with a
 * diagnostic when the name is taken). */
sym_value *
sym__graph_value_new(sym_graph *g, const char *name, sym_value_kind kind,
    const sym_loc *where)
{
	sym_value *v, *old = sym_graph_find_value(g, name);

	if (old) {
		if (old->loc.line > 0)
			sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
			    "value '%s' is already defined at line %d", name,
			    old->loc.line);
		else
			sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
			    "value '%s' is already defined", name);
		return NULL;
	}
	if (SYM__RESERVE(g->ctx, g->value, g->cap_value, g->n_value + 1) < 0)
		return NULL;
	v = sym__alloc(g->ctx, sizeof(*v));
	if (!v)
		return NULL;
	v->name = sym__strdup(g->ctx, name);
	if (!v->name ||
	    sym__strmap_put(g->ctx, &g->names, v->name, g->n_value) < 0) {
		free(v->name);
		free(v);
		return NULL;
	}
	v->kind = kind;
	v->loc = own_loc(g, where);
	v->graph = g;
	v->index = g->n_value;
	g->value[g->n_value++] = v;
	return v;
}

/* Return "e" (borrowed) with symbol "var" replaced by "value", as an
 * internal reference. */
static sym_expr *
subst_expr(sym_expr *e, sym_symbol *var, sym_expr *value)
{
	sym_expr *c, *r;

	if (sym_expr_involves(e, var) != SYM_TRUE)
		return sym__expr_ref(e);
	c = sym_expr_copy(e);
	r = sym_expr_substitute(c, var, value);
	if (!r)
		return NULL;
	sym__expr_ref(r);
	sym_expr_free(r);
	return r;
}

/* Return "s" with the substitutions from number "from" on applied, as an
 * internal reference ("s" borrowed). */
static sym_shape *
subst_shape(sym_graph *g, sym_shape *s, size_t from)
{
	sym_expr **d;
	sym_shape *r;
	int changed = 0;

	if (from >= g->n_subst)
		return sym__shape_ref(s);
	d = sym__calloc(g->ctx, s->rank + 1, sizeof(*d));
	if (!d)
		return NULL;
	for (size_t i = 0; i < s->rank; i++) {
		d[i] = sym__expr_ref(s->dim[i]);
		for (size_t k = from; k < g->n_subst && d[i]; k++) {
			sym_expr *n = subst_expr(d[i], g->subst_var[k],
			    g->subst_value[k]);

			changed |= n != d[i];
			sym__expr_unref(d[i]);
			d[i] = n;
		}
		if (!d[i])
			break;
	}
	r = NULL;
	if (!changed)
		r = sym__shape_ref(s);
	else if (s->rank == 0 || d[s->rank - 1])
		r = sym__shape_new(g->ctx, s->dtype, s->rank, d);
	for (size_t i = 0; i < s->rank; i++)
		sym__expr_unref(d[i]);
	free(d);
	return r;
}

/* Return the shape of "v" with every substitution applied (kept by "v";
 * NULL when its shape is unknown). */
sym_shape *
sym__value_shape(sym_value *v)
{
	sym_graph *g = v->graph;
	sym_shape *s;

	if (!v->shape || v->subst_gen == g->n_subst)
		return v->shape;
	s = subst_shape(g, v->shape, v->subst_gen);
	if (!s)
		return v->shape;
	sym__shape_unref(v->shape);
	v->shape = s;
	v->subst_gen = g->n_subst;
	return s;
}

/* Return 1 when symbol "s" was already used by an input of "g", marking
 * it used. */
static int
mark_used(sym_graph *g, sym_symbol *s)
{
	size_t id = s->id, n = sym_ctx_n_symbols(g->ctx);

	if (id >= g->n_used) {
		uint8_t *u = sym__realloc_array(g->ctx, g->used, n + 1, 1);

		if (!u)
			return 0;
		memset(u + g->n_used, 0, n + 1 - g->n_used);
		g->used = u;
		g->n_used = n + 1;
	}
	if (g->used[id])
		return 1;
	g->used[id] = 1;
	return 0;
}

/* Return "e" (borrowed) with every non-unique symbol that an earlier
 * declaration already used replaced by a fresh instance (b', b'', ...),
 * as an internal reference. */
static sym_expr *
fresh_uses(sym_graph *g, sym_expr *e)
{
	size_t n = sym_expr_symbols(e, NULL, 0);
	sym_symbol **syms =
	    n ? sym__realloc_array(g->ctx, NULL, n, sizeof(*syms)) : NULL;
	sym_expr *r = sym__expr_ref(e);

	if (n && !syms) {
		sym__expr_unref(r);
		return NULL;
	}
	sym_expr_symbols(e, syms, n);
	for (size_t i = 0; i < n && r; i++) {
		sym_symbol *inst;
		sym_expr *ie, *nr;

		if (sym_symbol_is_unique(syms[i]) || !mark_used(g, syms[i]))
			continue;
		inst = sym_symbol_instantiate(syms[i]);
		ie = inst ? sym__var(inst) : NULL;
		nr = ie ? subst_expr(r, syms[i], ie) : NULL;
		sym__expr_unref(ie);
		sym__expr_unref(r);
		r = nr;
	}
	free(syms);
	return r;
}

/* Require dimension "i" of the input or parameter "v" declared at "where"
 * to be at least 1: refuted, an error with a witness; undecided, a
 * warning and a run-time guard, as for the requirements of operators. */
static void
positive_dim(sym_graph *g, sym_value *v, size_t i, const sym_loc *where)
{
	sym_expr *dim = v->declared->dim[i], *one = sym__const(g->ctx, 1), *e;
	sym_binding *w = NULL;
	sym_answer a =
	    one ? sym_prove_cmp(g->ctx, dim, SYM_GE, one, &w) : SYM_ERROR;
	char *ds, *reason;

	if (a == SYM_FALSE) {
		sym__graph_diag_w(g, SYM_SEV_ERROR, where, w, NULL,
		    "dimension %zu of %s can be less than 1", i, v->name);
	} else if (a == SYM_ERROR) {
		sym__graph_diag(g, SYM_SEV_ERROR, where, NULL, NULL,
		    "dimension %zu of %s: %s", i, v->name,
		    sym_ctx_last_message(g->ctx));
		sym_ctx_clear_error(g->ctx);
	} else if (a == SYM_UNKNOWN) {
		ds = sym_expr_to_str(dim);
		e = sym__sub(dim, one);
		reason = sym__asprintf_ctx(g->ctx, "dimension %zu of %s", i,
		    v->name);
		if (ds && e && reason &&
		    sym__graph_add_guard(g, SYM__REL_GE, e, 0,
		        sym__asprintf("%s >= 1", ds), where, reason) == 0)
			sym__graph_diag(g, SYM_SEV_WARNING, where, NULL, NULL,
			    "could not prove that dimension %zu of %s (%s) is "
			    "at least 1; checked at run time",
			    i, v->name, ds);
		free(reason);
		sym__expr_unref(e);
		free(ds);
	}
	sym_binding_free(w);
	sym__expr_unref(one);
}

/* Add an input or parameter "name" of shape "shape" (kept) to "g";
 * non-unique symbols get a fresh variable per use after the first.
 * Return the value, or NULL with a diagnostic. */
sym_value *
sym_graph_add_input(sym_graph *g, const char *name, sym_value_kind kind,
    const sym_shape *shape, const sym_loc *where)
{
	sym_value *v;
	sym_expr **d;

	if (!g || !name || !shape)
		return NULL;
	if (kind == SYM_VALUE_RESULT) {
		sym__error(g->ctx, SYM_EINVAL, where,
		    "an input must be SYM_VALUE_INPUT or SYM_VALUE_PARAM");
		return NULL;
	}
	v = sym__graph_value_new(g, name, kind, where);
	if (!v)
		return NULL;
	d = sym__calloc(g->ctx, shape->rank + 1, sizeof(*d));
	if (!d)
		return NULL;
	for (size_t i = 0; i < shape->rank; i++)
		d[i] = fresh_uses(g, shape->dim[i]);
	v->declared = sym__shape_new(g->ctx, shape->dtype, shape->rank, d);
	for (size_t i = 0; i < shape->rank; i++)
		sym__expr_unref(d[i]);
	free(d);
	if (!v->declared) {
		v->failed = 1;
		sym__graph_ctx_error(g, where);
		return v;
	}
	for (size_t i = 0; i < shape->rank; i++)
		positive_dim(g, v, i, where);
	v->shape = sym__shape_ref(v->declared);
	v->subst_gen = g->n_subst;
	return v;
}

/* Give the param "v" the "bytes" bytes at "data" (copied), its elements
 * row-major in its dtype, replacing any data it had; "bytes" must be
 * what its shape needs when that is constant. 0, or -1 with SYM_EINVAL
 * (not a param, or a size that disagrees). */
int
sym_value_set_data(sym_value *v, const void *data, size_t bytes)
{
	sym_ctx *ctx = v ? v->graph->ctx : NULL;
	int64_t n = 1, d;

	if (!v || (!data && bytes))
		return -1;
	if (v->kind != SYM_VALUE_PARAM || !v->declared) {
		sym__error(ctx, SYM_EINVAL, NULL, "'%s' is not a param",
		    v->name);
		return -1;
	}
	for (size_t i = 0; i < v->declared->rank && n >= 0; i++)
		n = sym_expr_get_const(v->declared->dim[i], &d) < 0 ||
		        d > INT64_MAX / (n ? n : 1)
		    ? -1
		    : n * d;
	if (n >= 0 &&
	    (uint64_t)n * sym_dtype_size(v->declared->dtype) != bytes) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "'%s' needs %llu bytes of data, not %zu", v->name,
		    (unsigned long long)n * sym_dtype_size(v->declared->dtype),
		    bytes);
		return -1;
	}
	void *copy = sym__alloc(ctx, bytes ? bytes : 1);
	if (!copy)
		return -1;
	if (bytes)
		memcpy(copy, data, bytes);
	free(v->data);
	v->data = copy;
	v->data_bytes = bytes;
	return 0;
}

/* Return the data of "v" (kept by the value), its size in "*bytes" (may
 * be NULL), or NULL when it has none. */
const void *
sym_value_data(const sym_value *v, size_t *bytes)
{
	if (bytes)
		*bytes = v && v->data ? v->data_bytes : 0;
	return v ? v->data : NULL;
}

/* Mark "v" as an output of "g"; 0 or -1. */
int
sym_graph_mark_output(sym_graph *g, sym_value *v, const sym_loc *where)
{
	(void)where;
	if (!g || !v)
		return -1;
	for (size_t i = 0; i < g->n_output; i++)
		if (g->output[i] == v)
			return 0;
	if (SYM__RESERVE(g->ctx, g->output, g->cap_output, g->n_output + 1) < 0)
		return -1;
	g->output[g->n_output++] = v;
	return 0;
}

/* Accessors. */

size_t
sym_graph_n_values(const sym_graph *g)
{
	return g ? g->n_value : 0;
}

sym_value *
sym_graph_value(const sym_graph *g, size_t i)
{
	return g && i < g->n_value ? g->value[i] : NULL;
}

size_t
sym_graph_n_nodes(const sym_graph *g)
{
	return g ? g->n_node : 0;
}

sym_node *
sym_graph_node(const sym_graph *g, size_t i)
{
	return g && i < g->n_node ? g->node[i] : NULL;
}

size_t
sym_graph_n_outputs(const sym_graph *g)
{
	return g ? g->n_output : 0;
}

sym_value *
sym_graph_output(const sym_graph *g, size_t i)
{
	return g && i < g->n_output ? g->output[i] : NULL;
}

const char *
sym_value_name(const sym_value *v)
{
	return v ? v->name : NULL;
}

sym_value_kind
sym_value_get_kind(const sym_value *v)
{
	return v ? v->kind : SYM_VALUE_RESULT;
}

/* Return the shape of "v" after every unification (owned by the graph;
 * NULL when it could not be inferred). */
const sym_shape *
sym_value_shape(const sym_value *v)
{
	return v ? sym__value_shape((sym_value *)v) : NULL;
}

/* Return the shape of "v" as declared or first inferred. */
const sym_shape *
sym_value_declared_shape(const sym_value *v)
{
	return v ? (v->declared ? v->declared : v->shape) : NULL;
}

sym_node *
sym_value_producer(const sym_value *v)
{
	return v ? v->producer : NULL;
}

sym_loc
sym_value_location(const sym_value *v)
{
	sym_loc none = { NULL, 0, 0 };

	return v ? v->loc : none;
}

const char *
sym_node_op_name(const sym_node *n)
{
	return n ? n->op->name : NULL;
}

const sym_op *
sym_node_op(const sym_node *n)
{
	return n ? n->op : NULL;
}

size_t
sym_node_n_inputs(const sym_node *n)
{
	return n ? n->n_in : 0;
}

sym_value *
sym_node_input(const sym_node *n, size_t i)
{
	return n && i < n->n_in ? n->in[i] : NULL;
}

size_t
sym_node_n_outputs(const sym_node *n)
{
	return n ? n->n_out : 0;
}

sym_value *
sym_node_output(const sym_node *n, size_t i)
{
	return n && i < n->n_out ? n->out[i] : NULL;
}

const sym_attrs *
sym_node_attrs(const sym_node *n)
{
	return n ? n->attrs : NULL;
}

/* Return the decoded attributes of "n", or NULL for NULL. */
const struct sym__opattrs *
sym__node_opattrs(const sym_node *n)
{
	return n ? &n->at : NULL;
}

sym_loc
sym_node_location(const sym_node *n)
{
	sym_loc none = { NULL, 0, 0 };

	return n ? n->loc : none;
}

size_t
sym_graph_n_diagnostics(const sym_graph *g)
{
	return g ? g->n_diag : 0;
}

const sym_diagnostic *
sym_graph_diagnostic(const sym_graph *g, size_t i)
{
	return g && i < g->n_diag ? &g->diag[i].pub : NULL;
}

size_t
sym_graph_n_errors(const sym_graph *g)
{
	return g ? g->n_errors : 0;
}

size_t
sym_graph_n_relations(const sym_graph *g)
{
	return g ? g->n_rel : 0;
}

const sym_relation *
sym_graph_relation(const sym_graph *g, size_t i)
{
	return g && i < g->n_rel ? &g->rel[i].pub : NULL;
}

size_t
sym_graph_n_guards(const sym_graph *g)
{
	return g ? g->n_guard : 0;
}

const sym_guard *
sym_graph_guard(const sym_graph *g, size_t i)
{
	return g && i < g->n_guard ? &g->guard[i].pub : NULL;
}

size_t
sym_graph_n_assertions(const sym_graph *g)
{
	return g ? g->n_assertion : 0;
}

const sym_assertion *
sym_graph_assertion(const sym_graph *g, size_t i)
{
	return g && i < g->n_assertion ? &g->assertion[i].pub : NULL;
}

/* Return whether the location "loc" is in the source text of "g": the
 * same file name (or none on either side). Text given through the API
 * with a location of its own (sym_node_set_strategy) is not. */
static int
in_source(const sym_graph *g, const sym_loc *loc)
{
	if (!g->source)
		return 0;
	if (!loc->file || !g->filename)
		return !loc->file && !g->filename;
	return strcmp(loc->file, g->filename) == 0;
}

/* Return the static name of severity "severity": "error", "warning",
 * "note", or "unknown" for a value that is no severity. */
const char *
sym_severity_name(sym_severity severity)
{
	switch (severity) {
	case SYM_SEV_ERROR:
		return "error";
	case SYM_SEV_WARNING:
		return "warning";
	case SYM_SEV_NOTE:
		return "note";
	}
	return "unknown";
}

/* Return the static name of the kind of value "kind": "input", "param",
 * "result", or "unknown" for a value that is no kind. */
const char *
sym_value_kind_name(sym_value_kind kind)
{
	switch (kind) {
	case SYM_VALUE_INPUT:
		return "input";
	case SYM_VALUE_PARAM:
		return "param";
	case SYM_VALUE_RESULT:
		return "result";
	}
	return "unknown";
}

/* Return the text of diagnostic "d" of "g" as a compiler prints it: the
 * location, severity and message, the source line with a caret when the
 * location is in the graph's source, then the witness and hint lines.
 * Malloc'ed. */
char *
sym_diagnostic_format(const sym_graph *g, const sym_diagnostic *d)
{
	if (!g || !d)
		return NULL;
	return sym__diag_format(&d->loc, sym_severity_name(d->severity),
	    d->message, in_source(g, &d->loc) ? g->source : NULL, d->witness,
	    d->hint);
}

/* Add the mesh declaration "m" (its contents are taken) to "g"; 0 or -1
 * with a diagnostic when the name is taken. */
int
sym__graph_add_mesh(sym_graph *g, struct sym__mesh_decl *m)
{
	if (sym__graph_find_mesh(g, m->name)) {
		sym__graph_diag(g, SYM_SEV_ERROR, &m->loc, NULL, NULL,
		    "mesh '%s' is already declared", m->name);
		sym__mesh_decl_free(m);
		return -1;
	}
	if (SYM__RESERVE(g->ctx, g->mesh, g->cap_mesh, g->n_mesh + 1) < 0 ||
	    (m->name &&
	        sym__strmap_put(g->ctx, &g->mesh_names, m->name, g->n_mesh) <
	            0)) {
		sym__mesh_decl_free(m);
		return -1;
	}
	g->mesh[g->n_mesh] = *m;
	g->mesh[g->n_mesh].loc.file = sym__graph_intern_file(g, m->loc.file);
	g->n_mesh++;
	return 0;
}

/* Return the mesh declaration "name" of "g", or NULL. */
const struct sym__mesh_decl *
sym__graph_find_mesh(const sym_graph *g, const char *name)
{
	size_t i;

	if (!name || !sym__strmap_get(&g->mesh_names, name, &i))
		return NULL;
	return &g->mesh[i];
}

/* Give the node "n" the strategy "s" (taken), replacing any. */
void
sym__node_set_strategy(sym_node *n, struct sym__strategy *s)
{
	if (!n) {
		sym__strategy_free(s);
		return;
	}
	sym__strategy_free(n->strategy);
	n->strategy = s;
}
