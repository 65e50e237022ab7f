/* SPDX-License-Identifier: MIT */
/*
 * The ONNX values of an import: a table from ONNX name to the graph value
 * and, for small integer tensors, the symbolic elements; made into graph
 * values when a tensor operator needs them (constants become params with
 * their data); the import's diagnostics, which name the node.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "front/onnx_private.h"

/* Return the ONNX value "name" of "im", or NULL. */
struct sym__oval *
sym__onnx_find(struct sym__onnx *im, const char *name)
{
	size_t i;

	if (!name || sym__strmap_get(&im->names, name, &i) < 1)
		return NULL;
	return &im->vals[i];
}

/* Add the ONNX value "name" to "im" and return it; NULL after an error
 * (an empty or duplicate name). The returned pointer stays valid until
 * the next definition. */
struct sym__oval *
sym__onnx_define(struct sym__onnx *im, const char *name)
{
	if (!name || !*name) {
		sym__onnx_errorf(im, "a value has an empty name");
		return NULL;
	}
	if (sym__onnx_find(im, name)) {
		sym__onnx_errorf(im, "value '%s' is defined twice", name);
		return NULL;
	}
	size_t old_cap = im->cap_vals;
	struct sym__oval *old = im->vals;
	if (SYM__RESERVE(im->ctx, im->vals, im->cap_vals, im->n_vals + 1) < 0)
		return NULL;
	if (im->vals != old || im->cap_vals != old_cap) {
		/* the map's keys point into the entries' names: unchanged */
	}
	struct sym__oval *o = &im->vals[im->n_vals];
	memset(o, 0, sizeof(*o));
	o->name = sym__strdup(im->ctx, name);
	if (!o->name ||
	    sym__strmap_put(im->ctx, &im->names, o->name, im->n_vals) < 0) {
		free(o->name);
		return NULL;
	}
	im->n_vals++;
	return o;
}

/* Free the table of "im". */
void
sym__onnx_vals_free(struct sym__onnx *im)
{
	for (size_t i = 0; i < im->n_vals; i++) {
		for (size_t k = 0; k < im->vals[i].sv_n; k++)
			sym_expr_free(im->vals[i].sv[k]);
		free(im->vals[i].sv);
		free(im->vals[i].name);
	}
	free(im->vals);
	sym__strmap_clear(&im->names);
}

/* Record on "im"'s graph a diagnostic of severity "sev" with the text of
 * "fmt", prefixed by the model and the node being mapped. */
static void
vdiag(struct sym__onnx *im, sym_severity sev, const char *fmt, va_list ap)
{
	char *msg = sym__vasprintf(fmt, ap);
	const Onnx__NodeProto *n = im->node;

	if (n)
		sym__graph_diag(im->g, sev, NULL, NULL, NULL,
		    "%s: node '%s' (%s, opset %lld): %s", im->file,
		    n->name && *n->name ? n->name : "(unnamed)",
		    n->op_type ? n->op_type : "", (long long)im->opset,
		    msg ? msg : fmt);
	else
		sym__graph_diag(im->g, sev, NULL, NULL, NULL, "%s: %s",
		    im->file, msg ? msg : fmt);
	free(msg);
}

/* Record an error (the text of "fmt") on "im"'s graph; -1. */
int
sym__onnx_errorf(struct sym__onnx *im, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(im, SYM_SEV_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}

/* Record a warning (the text of "fmt") on "im"'s graph. */
void
sym__onnx_warnf(struct sym__onnx *im, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(im, SYM_SEV_WARNING, fmt, ap);
	va_end(ap);
}

/* Return a new dimension: a fresh unique symbol standing for one that
 * could not be derived ("why"), with a warning naming the node, counted
 * in the import's statistics; NULL after an error. */
sym_expr *
sym__onnx_fresh_dim(struct sym__onnx *im, const char *why)
{
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	char name[48];
	sym_symbol *s = NULL;

	info.unique = 1;
	while (!s) {
		snprintf(name, sizeof(name), "unk%zu", ++im->n_fresh);
		if (!sym_symbol_find(im->ctx, name))
			s = sym_symbol_new(im->ctx, name, &info, NULL);
		else
			continue;
		if (!s)
			return NULL;
	}
	sym__onnx_warnf(im, "%s: the dimension becomes the fresh symbol %s",
	    why, name);
	return sym_expr_symbol(s);
}

/* Give "o" the "n" symbolic elements "items" (taken, also on failure) of
 * a tensor of dtype "dt" and rank "rank" (0 or 1); 0 or -1. */
int
sym__onnx_set_sv(struct sym__onnx *im, struct sym__oval *o, sym_dtype dt,
    size_t rank, size_t n, sym_expr **items)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		bad |= !items[i];
	if (bad || n > SYM__ONNX_MAX_SV || (rank == 0 && n != 1)) {
		for (size_t i = 0; i < n; i++)
			sym_expr_free(items[i]);
		return bad
		    ? -1
		    : sym__onnx_errorf(im, "a shape value of %zu elements", n);
	}
	o->sv = sym__calloc(im->ctx, n ? n : 1, sizeof(*o->sv));
	if (!o->sv) {
		for (size_t i = 0; i < n; i++)
			sym_expr_free(items[i]);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		o->sv[i] = sym_prove_simplify(im->ctx, items[i]);
	o->sv_n = n;
	o->sv_rank = rank;
	o->has_sv = 1;
	o->dtype = dt;
	return 0;
}

/* Make the param of the constant "o" with its data; frozen: it is not
 * trained unless it is a floating initializer. Return it, or NULL. */
static sym_value *
make_const(struct sym__onnx *im, struct sym__oval *o, sym_dtype dt, size_t rank,
    const int64_t *dims, void *data, size_t bytes, int frozen)
{
	sym_expr *d[SYM__ONNX_MAX_RANK] = { NULL };
	sym_value *v = NULL;

	for (size_t i = 0; i < rank; i++)
		d[i] = sym_expr_const(im->ctx, dims[i]);
	sym_shape *s = sym_shape_new(im->ctx, dt, rank, d);
	for (size_t i = 0; i < rank; i++)
		sym_expr_free(d[i]);
	if (s)
		v = sym_graph_add_input(im->g, o->name, SYM_VALUE_PARAM, s,
		    NULL);
	sym_shape_free(s);
	if (v && sym_value_set_data(v, data, bytes) < 0) {
		sym__graph_ctx_error(im->g, NULL);
		v = NULL;
	}
	if (v)
		v->frozen = frozen;
	return v;
}

/* Return the graph value of "o", making it when it is a constant (an
 * initializer or a shape value whose elements are all constants); NULL
 * after an error naming it, or quietly when its producer failed. */
sym_value *
sym__onnx_value(struct sym__onnx *im, struct sym__oval *o)
{
	if (o->v || o->failed)
		return o->v;
	if (o->init) {
		const Onnx__TensorProto *t = o->init;
		size_t bytes;
		void *data = sym__onnx_tensor_data(im, t, o->init_dir, &bytes);
		if (!data) {
			o->failed = 1;
			return NULL;
		}
		sym_dtype dt = sym__onnx_dtype(t->data_type);
		o->v = make_const(im, o, dt, t->n_dims, t->dims, data, bytes,
		    !sym_dtype_is_float(dt) || !o->weight);
		free(data);
	} else if (o->has_sv) {
		int64_t *data = sym__calloc(im->ctx, o->sv_n + 1, 8);
		int64_t dim = (int64_t)o->sv_n;
		for (size_t i = 0; data && i < o->sv_n; i++)
			if (sym_expr_get_const(o->sv[i], &data[i]) < 0) {
				char *t = sym_expr_to_str(o->sv[i]);
				sym__onnx_errorf(im,
				    "'%s' is used as a tensor, but its element "
				    "%zu is the size %s, not a constant; "
				    "tensors of sizes are not supported",
				    o->name, i, t ? t : "?");
				free(t);
				free(data);
				o->failed = 1;
				return NULL;
			}
		if (data && o->dtype == SYM_DT_I32)
			for (size_t i = 0; i < o->sv_n; i++)
				((int32_t *)data)[i] = (int32_t)data[i];
		if (data)
			o->v = make_const(im, o, o->dtype, o->sv_rank, &dim,
			    data, o->sv_n * sym_dtype_size(o->dtype), 1);
		free(data);
	} else {
		sym__onnx_errorf(im, "value '%s' is used before it is defined",
		    o->name);
	}
	if (!o->v)
		o->failed = 1;
	return o->v;
}
