/* SPDX-License-Identifier: MIT */
/*
 * Reading an ONNX model (sym_onnx(3), DESIGN section 18): the file,
 * bounded and checked before protobuf-c unpacks it; the opset; the
 * initializers, inputs with their dimension parameters as symbols, the
 * nodes in order and the outputs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "front/onnx_private.h"

/* Return the dimension "d" of the input "what": its value, the symbol
 * its parameter names (made unique when the context has none of that
 * name), or a fresh symbol; NULL after an error. */
static sym_expr *
input_dim(struct sym__onnx *im, const Onnx__TensorShapeProto__Dimension *d,
    const char *what, size_t i)
{
	if (d->value_case ==
	    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
		if (d->dim_value < 1) {
			sym__onnx_errorf(im,
			    "input '%s': dimension %zu is %lld, not at least "
			    "1",
			    what, i, (long long)d->dim_value);
			return NULL;
		}
		return sym_expr_const(im->ctx, d->dim_value);
	}
	if (d->value_case ==
	        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
	    d->dim_param && *d->dim_param) {
		sym_symbol *s = NULL;
		for (size_t k = 0; k < im->n_alias && !s; k++)
			if (!strcmp(im->alias_from[k], d->dim_param))
				s = im->alias_to[k];
		if (!s)
			s = sym_symbol_find(im->ctx, d->dim_param);
		if (!s) {
			sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
			info.unique = 1;
			s = sym_symbol_new(im->ctx, d->dim_param, &info, NULL);
		}
		if (!s) {
			sym__graph_ctx_error(im->g, NULL);
			return NULL;
		}
		return sym_expr_symbol(s);
	}
	char why[256];
	snprintf(why, sizeof(why), "input '%s': dimension %zu has no size",
	    what, i);
	return sym__onnx_fresh_dim(im, why);
}

/* Make the graph input of the ONNX input "vi"; 0 or -1. */
static int
add_input(struct sym__onnx *im, const Onnx__ValueInfoProto *vi)
{
	const char *name = vi->name;
	const Onnx__TypeProto *tp = vi->type;
	sym_expr *d[SYM__ONNX_MAX_RANK];
	size_t rank = 0;
	int rc = -1;

	struct sym__oval *o = sym__onnx_define(im, name);
	if (!o)
		return -1;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !tp->tensor_type) {
		o->failed = 1;
		return sym__onnx_errorf(im, "input '%s' is not a tensor", name);
	}
	sym_dtype dt = sym__onnx_dtype(tp->tensor_type->elem_type);
	if (dt == SYM_DT_INVALID) {
		o->failed = 1;
		return sym__onnx_errorf(im,
		    "input '%s': element type %d is not supported", name,
		    (int)tp->tensor_type->elem_type);
	}
	const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
	if (!sh) {
		o->failed = 1;
		return sym__onnx_errorf(im, "input '%s' has no shape", name);
	}
	if (sh->n_dim > SYM__ONNX_MAX_RANK) {
		o->failed = 1;
		return sym__onnx_errorf(im, "input '%s' has %zu dimensions",
		    name, sh->n_dim);
	}
	for (rank = 0; rank < sh->n_dim; rank++) {
		d[rank] = input_dim(im, sh->dim[rank], name, rank);
		if (!d[rank])
			goto out;
	}
	sym_shape *s = sym_shape_new(im->ctx, dt, rank, d);
	o->dtype = dt;
	o->v = s ? sym_graph_add_input(im->g, name, SYM_VALUE_INPUT, s, NULL)
	         : NULL;
	sym_shape_free(s);
	rc = o->v ? 0 : -1;
out:
	for (size_t i = 0; i < rank; i++)
		sym_expr_free(d[i]);
	if (rc < 0)
		o->failed = 1;
	return rc;
}

/* Find the default domain's opset of "im"'s model; 0, or -1 after an
 * error (absent, or outside the supported range). */
static int
read_opset(struct sym__onnx *im)
{
	const Onnx__ModelProto *m = im->model;

	im->opset = -1;
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = m->opset_import[i];
		if (!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx"))
			im->opset = o->has_version ? o->version : -1;
	}
	if (im->opset < SYM__ONNX_MIN_OPSET || im->opset > SYM__ONNX_MAX_OPSET)
		return sym__onnx_errorf(im,
		    "opset %lld of the default domain is not supported (%d "
		    "to %d are)",
		    (long long)im->opset, SYM__ONNX_MIN_OPSET,
		    SYM__ONNX_MAX_OPSET);
	return 0;
}

/* Define the outputs of "n" as failed, so that their uses stay quiet. */
static void
fail_outputs(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	for (size_t i = 0; i < n->n_output; i++) {
		struct sym__oval *o = sym__onnx_find(im, n->output[i]);
		if (!o && *n->output[i])
			o = sym__onnx_define(im, n->output[i]);
		if (o && !o->v && !o->has_sv)
			o->failed = 1;
	}
}

/* Whether an input of "n" comes from a failed node. */
static int
quiet_failure(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	for (size_t i = 0; i < n->n_input; i++) {
		struct sym__oval *o = sym__onnx_find(im, n->input[i]);
		if (o && o->failed)
			return 1;
	}
	return 0;
}

/* Give the graph nodes from "first" on, which ONNX node "n" of "im"
 * was mapped to, its name, and mark the one a shard clause naming it
 * applies to: the mapping's choice ("im->primary"), else the producer of
 * its output 0, else the last; 0, or -1 when out of memory. */
static int
name_nodes(struct sym__onnx *im, const Onnx__NodeProto *n, size_t first)
{
	sym_graph *g = im->g;
	sym_node *primary = im->primary;

	if (!n->name || !*n->name || first >= g->n_node)
		return 0;
	if (!primary) {
		struct sym__oval *o =
		    n->n_output ? sym__onnx_find(im, n->output[0]) : NULL;
		sym_node *p = o && o->v ? o->v->producer : NULL;
		primary = p && p->index >= first ? p : g->node[g->n_node - 1];
	}
	for (size_t i = first; i < g->n_node; i++) {
		g->node[i]->onnx_name = sym__strdup(im->ctx, n->name);
		if (!g->node[i]->onnx_name)
			return sym__graph_ctx_error(g, NULL);
		g->node[i]->onnx_primary = g->node[i] == primary;
	}
	return 0;
}

/* Import the graph of "im"'s model; 0 or -1 (diagnostics on the
 * graph). */
static int
import(struct sym__onnx *im)
{
	const Onnx__GraphProto *gp = im->model->graph;
	int rc = 0;

	if (!gp)
		return sym__onnx_errorf(im, "the model has no graph");
	if (read_opset(im) < 0)
		return -1;
	for (size_t i = 0; i < gp->n_initializer; i++) {
		struct sym__oval *o =
		    sym__onnx_define(im, gp->initializer[i]->name);
		if (!o)
			return -1;
		o->init = gp->initializer[i];
		o->init_dir = im->dir;
		o->weight = 1;
	}
	/* Floating initializers are params now; integer ones when a tensor
	 * operator uses them (most are sizes folded as shape values). */
	for (size_t i = 0; i < gp->n_initializer; i++) {
		struct sym__oval *o =
		    sym__onnx_find(im, gp->initializer[i]->name);
		sym_dtype dt = sym__onnx_dtype(gp->initializer[i]->data_type);
		if (o && o->init == gp->initializer[i] &&
		    (dt == SYM_DT_INVALID || sym_dtype_is_float(dt)) &&
		    !sym__onnx_value(im, o))
			rc = -1;
	}
	for (size_t i = 0; i < gp->n_input; i++)
		if (!sym__onnx_find(im, gp->input[i]->name) &&
		    add_input(im, gp->input[i]) < 0)
			rc = -1;
	for (size_t i = 0; i < gp->n_node; i++) {
		const Onnx__NodeProto *n = gp->node[i];
		im->node = n;
		im->node_index = i;
		if (quiet_failure(im, n)) {
			fail_outputs(im, n);
			continue;
		}
		int r = sym__onnx_fold(im, n);
		size_t first = im->g->n_node;
		im->n_folded += r == 1;
		im->primary = NULL;
		if (r == 0)
			r = sym__onnx_map_node(im, n);
		if (r == 0)
			r = name_nodes(im, n, first);
		if (r < 0) {
			fail_outputs(im, n);
			rc = -1;
		}
	}
	im->node = NULL;
	for (size_t i = 0; i < gp->n_output; i++) {
		struct sym__oval *o = sym__onnx_find(im, gp->output[i]->name);
		if (!o) {
			rc = sym__onnx_errorf(im, "output '%s' is not defined",
			    gp->output[i]->name);
			continue;
		}
		sym_value *v = sym__onnx_value(im, o);
		if (v && sym_graph_mark_output(im->g, v, NULL) < 0)
			rc = sym__graph_ctx_error(im->g, NULL);
	}
	return rc;
}

/* Fill "st" (may be NULL) from "im". */
static void
fill_stats(struct sym__onnx *im, sym_onnx_stats *st)
{
	if (!st || st->size < sizeof(*st))
		return;
	st->opset = im->opset;
	st->nodes =
	    im->model && im->model->graph ? im->model->graph->n_node : 0;
	st->folded = im->n_folded;
	st->values = 0;
	st->symbolic_dims = 0;
	st->lost_dims = im->n_fresh;
	for (size_t i = 0; i < im->n_vals; i++) {
		const struct sym__oval *o = &im->vals[i];
		if (!o->v)
			continue;
		st->values++;
		const sym_shape *s = sym_value_shape(o->v);
		for (size_t k = 0; s && k < sym_shape_ndim(s); k++)
			st->symbolic_dims +=
			    !sym_expr_is_const(sym_shape_dim(s, k));
	}
}

/* Read the "size" bytes at "data", the model "file" (folder "dir" for
 * external data, may be NULL), into a new graph with "stats" (may be
 * NULL); NULL with an error on "ctx" when it is not a model. */
static sym_graph *
read_model(sym_ctx *ctx, const uint8_t *data, size_t size, const char *file,
    const char *dir, sym_onnx_stats *stats, const struct sym__onnx_into *into)
{
	struct sym__onnx im;

	memset(&im, 0, sizeof(im));
	if (into) {
		im.alias_from = into->from;
		im.alias_to = into->to;
		im.n_alias = into->n;
		im.training = into->training;
	}
	im.ctx = ctx;
	im.file = file;
	if (sym__onnx_wire_check(ctx, data, size, file) < 0)
		return NULL;
	im.model = onnx__model_proto__unpack(NULL, size, data);
	if (!im.model) {
		sym__error(ctx, SYM_EPARSE, NULL,
		    "%s: not a valid ONNX model (protobuf-c could not unpack "
		    "it)",
		    file);
		return NULL;
	}
	im.g = into ? into->g : sym_graph_new(ctx);
	if (im.g) {
		im.dir = dir ? sym__strdup(ctx, dir) : NULL;
		if (!into)
			im.g->filename = sym__strdup(ctx, file);
		im.file = sym__graph_intern_file(im.g, file);
		if (!im.file)
			im.file = file;
		import(&im);
		fill_stats(&im, stats);
	}
	sym__onnx_vals_free(&im);
	free(im.dir);
	onnx__model_proto__free_unpacked(im.model, NULL);
	return im.g;
}

/* Read the ONNX model of the "size" bytes at "data", named "filename"
 * in messages (may be NULL), into a new graph; its statistics into
 * "stats" (may be NULL). External data is refused. NULL with an error
 * on "ctx" when the bytes are not a model; otherwise the graph, whose
 * diagnostics hold the errors of the import. */
sym_graph *
sym_onnx_read_mem(sym_ctx *ctx, const void *data, size_t size,
    const char *filename, sym_onnx_stats *stats)
{
	if (!ctx || (!data && size))
		return NULL;
	if (size > SYM__ONNX_FILE_LIMIT) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: the model is larger than %zu bytes",
		    filename ? filename : "(memory)", SYM__ONNX_FILE_LIMIT);
		return NULL;
	}
	return read_model(ctx, data ? data : (const void *)"", size,
	    filename ? filename : "(memory)", NULL, stats, NULL);
}

/* Read the ONNX model at "path" (external data from its folder) into a
 * new graph, or into "into" (may be NULL); as sym_onnx_read_mem
 * otherwise. */
static sym_graph *
read_path(sym_ctx *ctx, const char *path, sym_onnx_stats *stats,
    const struct sym__onnx_into *into)
{
	struct stat st;
	sym_graph *g = NULL;

	if (!ctx || !path)
		return NULL;
	FILE *f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		sym__error(ctx, SYM_EIO, NULL, "%s: cannot read: %s", path,
		    f ? "not a regular file" : strerror(errno));
		if (f)
			fclose(f);
		return NULL;
	}
	if ((uint64_t)st.st_size > SYM__ONNX_FILE_LIMIT) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: the model is larger than %zu bytes", path,
		    SYM__ONNX_FILE_LIMIT);
		fclose(f);
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	uint8_t *buf = sym__alloc(ctx, size ? size : 1);
	if (buf && fread(buf, 1, size, f) != size)
		sym__error(ctx, SYM_EIO, NULL, "%s: cannot read", path);
	else if (buf) {
		const char *slash = strrchr(path, '/');
		char *dir = slash ? sym__asprintf("%.*s", (int)(slash - path),
		                        slash == path ? "/" : path)
		                  : sym__asprintf(".");
		if (slash == path && dir)
			strcpy(dir, "/");
		g = dir ? read_model(ctx, buf, size, path, dir, stats, into)
		        : NULL;
		free(dir);
	}
	free(buf);
	fclose(f);
	return g;
}

/* Read the ONNX model at "path" into a new graph; as sym_onnx_read_mem
 * otherwise. */
sym_graph *
sym_onnx_read(sym_ctx *ctx, const char *path, sym_onnx_stats *stats)
{
	return read_path(ctx, path, stats, NULL);
}

/* Import the ONNX model at "path" into "into->g", its dimension
 * parameters "into->from" being the symbols "into->to"; 0, or -1 with an
 * error on the graph's context when the file is not a model (the
 * import's errors are diagnostics of the graph). */
int
sym__onnx_import(sym_graph *g, const char *path,
    const struct sym__onnx_into *into)
{
	return read_path(sym_graph_ctx(g), path, NULL, into) ? 0 : -1;
}

/* Return 1 when the "size" bytes at "data" look like an ONNX model (a
 * protobuf whose first field is the ModelProto's ir_version), else 0: a
 * text never starts with byte 8. */
sym_answer
sym_onnx_is_model(const void *data, size_t size)
{
	if (!data)
		return SYM_ERROR;
	return size >= 2 && ((const uint8_t *)data)[0] == 0x08 ? SYM_TRUE
	                                                       : SYM_FALSE;
}

/* Return the number of ONNX operators the reader maps. */
size_t
sym_onnx_n_supported(void)
{
	return sym__onnx_supported(NULL);
}

/* Return the name of supported ONNX operator "i", or NULL. */
const char *
sym_onnx_supported(size_t i)
{
	const char *const *names;
	size_t n = sym__onnx_supported(&names);

	return i < n ? names[i] : NULL;
}
