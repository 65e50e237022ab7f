/* SPDX-License-Identifier: MIT */
/*
 * The toolbox of the ONNX operator mappings (HACKING.md section 10):
 * attributes read, graph inputs found, registry operators added to the
 * graph and their results defined as the ONNX outputs, and the sizes or
 * integer lists an operator reads from its inputs. The table of mappings
 * is onnx_ops.c.
 */
#include <stdlib.h>
#include <string.h>

#include "front/onnx_private.h"

/* Return the attribute "name" of "n", or NULL. */
const Onnx__AttributeProto *
sym__onnx_attr(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name &&
		    !strcmp(n->attribute[i]->name, name))
			return n->attribute[i];
	return NULL;
}

/* Return the integer attribute "name" of "n", or "dflt". */
int64_t
sym__onnx_attr_int(const Onnx__NodeProto *n, const char *name, int64_t dflt)
{
	const Onnx__AttributeProto *a = sym__onnx_attr(n, name);

	return a && a->has_i ? a->i : dflt;
}

/* Return the float attribute "name" of "n", or "dflt". */
double
sym__onnx_attr_float(const Onnx__NodeProto *n, const char *name, double dflt)
{
	const Onnx__AttributeProto *a = sym__onnx_attr(n, name);

	return a && a->has_f ? a->f : dflt;
}

/* Set the list attribute "name" of "a" to the "k" integers "v"; 0 or
 * -1. */
int
sym__onnx_set_ints(sym_ctx *ctx, sym_attrs *a, const char *name,
    const int64_t *v, size_t k)
{
	sym_expr *e[SYM__ONNX_MAX_SV] = { NULL };
	int rc;

	if (k > SYM__ONNX_MAX_SV)
		return -1;
	for (size_t i = 0; i < k; i++)
		e[i] = sym_expr_const(ctx, v[i]);
	rc = sym_attrs_set_list(a, name, k, e);
	for (size_t i = 0; i < k; i++)
		sym_expr_free(e[i]);
	return rc;
}

/* Return the graph value of input "i" of "n", or NULL (an error, or a
 * quiet failure). */
sym_value *
sym__onnx_in(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i)
{
	struct sym__oval *o;

	if (i >= n->n_input || !*n->input[i]) {
		sym__onnx_errorf(im, "input %zu is missing", i);
		return NULL;
	}
	o = sym__onnx_find(im, n->input[i]);
	if (!o) {
		sym__onnx_errorf(im, "input '%s' is not defined", n->input[i]);
		return NULL;
	}
	return sym__onnx_value(im, o);
}

/* Add the registry operator "op" to "im"'s graph on the "k" inputs "in"
 * with "attrs" (taken; NULL: none), its result named "out"; return it,
 * or NULL when it failed (its diagnostics are on the graph). */
sym_value *
sym__onnx_emit_attrs(struct sym__onnx *im, const char *op, const char *out,
    size_t k, sym_value *const *in, sym_attrs *attrs)
{
	sym_node *nd = sym_graph_add_op(im->g, op, 1, &out, k, in, attrs, NULL);
	sym_value *v = nd && !nd->failed ? sym_node_output(nd, 0) : NULL;

	sym_attrs_free(attrs);
	if (!nd)
		sym__graph_ctx_error(im->g, NULL);
	else if (!v)
		sym__onnx_errorf(im, "its %s does not apply", op);
	return v;
}

/* emit_attrs for an operator without attributes. */
sym_value *
sym__onnx_emit0(struct sym__onnx *im, const char *op, const char *out, size_t k,
    sym_value *const *in)
{
	return sym__onnx_emit_attrs(im, op, out, k, in, NULL);
}

/* emit_attrs with the attributes "attrs" made by sym_attrs_new: NULL
 * there means it failed (out of memory), and the node is not added
 * without them. */
sym_value *
sym__onnx_emit(struct sym__onnx *im, const char *op, const char *out, size_t k,
    sym_value *const *in, sym_attrs *attrs)
{
	if (!attrs) {
		sym__onnx_errorf(im, "out of memory for the attributes of %s",
		    op);
		return NULL;
	}
	return sym__onnx_emit_attrs(im, op, out, k, in, attrs);
}

/* Define output "i" of "n" as the graph value "v"; 0, or -1 when "v" is
 * NULL. */
int
sym__onnx_def(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i,
    sym_value *v)
{
	if (!v)
		return -1;
	struct sym__oval *o = sym__onnx_define(im, n->output[i]);
	if (!o)
		return -1;
	o->v = v;
	o->dtype = sym_shape_dtype(sym_value_shape(v));
	return 0;
}

/* A name for an intermediate result of "n": its output 0 and "what". */
char *
sym__onnx_tmp_name(struct sym__onnx *im, const Onnx__NodeProto *n,
    const char *what)
{
	return sym__asprintf_ctx(im->ctx, "%s/%s", n->output[0], what);
}

/* Read the constant elements of input "i" (or, when absent, of the ints
 * attribute "attr", NULL for none) into "v", their number into "*k";
 * 1 when given, 0 when absent, -1 when not constant. */
int
sym__onnx_ints(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i,
    const char *attr, int64_t *v, size_t *k)
{
	if (i < n->n_input && *n->input[i]) {
		struct sym__oval *o = sym__onnx_find(im, n->input[i]);
		sym_expr **e = NULL;
		if (o && !o->has_sv && o->init) {
			int64_t tmp[SYM__ONNX_MAX_SV];
			size_t m;
			if (sym__onnx_tensor_ints(im, o->init, o->init_dir, tmp,
			        SYM__ONNX_MAX_SV, &m) < 0)
				return -1;
			memcpy(v, tmp, m * sizeof(*v));
			*k = m;
			return 1;
		}
		if (!o || !o->has_sv)
			return -1;
		e = o->sv;
		for (size_t j = 0; j < o->sv_n; j++)
			if (sym_expr_get_const(e[j], &v[j]) < 0)
				return -1;
		*k = o->sv_n;
		return 1;
	}
	const Onnx__AttributeProto *a = attr ? sym__onnx_attr(n, attr) : NULL;
	if (!a)
		return 0;
	if (a->n_ints > SYM__ONNX_MAX_SV)
		return -1;
	memcpy(v, a->ints, a->n_ints * sizeof(*v));
	*k = a->n_ints;
	return 1;
}

/* The symbolic shape value of input "i" of "n" as "*e" (kept by the
 * table) and its length; 0, or -1 after an error. */
int
sym__onnx_sizes(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i,
    sym_expr ***e, size_t *k)
{
	struct sym__oval *o =
	    i < n->n_input ? sym__onnx_find(im, n->input[i]) : NULL;
	if (o && !o->has_sv && o->init && o->init->n_dims <= 1) {
		int64_t v[SYM__ONNX_MAX_SV];
		sym_expr *x[SYM__ONNX_MAX_SV];
		size_t m;
		if (sym__onnx_tensor_ints(im, o->init, o->init_dir, v,
		        SYM__ONNX_MAX_SV, &m) < 0)
			return -1;
		for (size_t j = 0; j < m; j++)
			x[j] = sym_expr_const(im->ctx, v[j]);
		if (sym__onnx_set_sv(im, o, SYM_DT_I64, 1, m, x) < 0)
			return -1;
	}
	if (!o || !o->has_sv || o->sv_rank != 1)
		return sym__onnx_errorf(im,
		    "input %zu ('%s') must be sizes known at import (a shape "
		    "value of rank 1)",
		    i, i < n->n_input ? n->input[i] : "");
	*e = o->sv;
	*k = o->sv_n;
	return 0;
}
