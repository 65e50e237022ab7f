/* SPDX-License-Identifier: MIT */
/*
 * Conformance: ONNX's backend node tests (Debian's libonnx-testdata,
 * one folder per case with model.onnx and test_data_set_N/output_K.pb)
 * read by sym_onnx_read; every output's dtype and shape must equal the
 * expected TensorProto's. Then the values: the model runs (sym_exec_check
 * on one rank against one device) on test_data_set_0's input_K.pb and
 * every output must equal output_K.pb, floats within |got - want| <=
 * 1e-4 + 1e-3*|want| (ONNX's own backend tests use rtol 1e-3), integers
 * and bools exactly, NaN where NaN is expected.
 *
 * A graph input that an operator reads as sizes (Slice's starts, ends,
 * axes and steps, Reshape's shape, ...: size_inputs below), of at most
 * 64 integers, becomes an initializer holding the test data's value
 * before the import, as exporters write such constants; the run then
 * feeds the other inputs only.
 *
 * A case the reader refuses must be listed, with its reason, in
 * tests/onnx/node-skip.txt, and be refused for that reason (its first
 * diagnostic without the model's file name); a case that imports but
 * fails on values must be listed with a reason that starts "values:"
 * (a note, not compared). A listed case that now imports (or passes on
 * values), or is refused for another reason, is a failure too: the list
 * is kept exact. Prints how many ran, passed on shapes and on values and were
 * skipped; exits 77 (skip) without the test data.
 *
 * Usage: test_onnx_node [NODE-DIR [SKIP-FILE]]
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <symshard.h>

#include "onnx.pb-c.h"

#ifndef ONNX_TESTDATA
#define ONNX_TESTDATA "/usr/share/libonnx-testdata/data/node"
#endif

/* Read the whole file "path" into a new buffer, its size in "*n"; NULL
 * when it cannot be read. */
static unsigned char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)len + 1)) &&
	    fread(b, 1, (size_t)len, f) == (size_t)len)
		*n = (size_t)len;
	else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* Whether the case "name" is in the skip list "skip" (lines "NAME
 * reason"): 0 no, 2 with a reason "values: ...", else 1; its reason in
 * "*why" and its length in "*why_len". */
static int
skipped(const char *skip, const char *name, const char **why, size_t *why_len)
{
	size_t len = strlen(name);

	for (const char *p = skip; p && *p;) {
		if (!strncmp(p, name, len) &&
		    (p[len] == ' ' || p[len] == '\n')) {
			const char *end = strchr(p + len, '\n');
			*why = p[len] == ' ' ? p + len + 1 : p + len;
			*why_len = end ? (size_t)(end - *why) : strlen(*why);
			return strncmp(p + len, " values:", 8) ? 1 : 2;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/* The operators that read an input as sizes (a symbolic shape value,
 * DESIGN section 18), with the positions of those inputs as a mask. */
static const struct {
	const char *op;
	unsigned inputs;
} size_inputs[] = {
	{ "ConstantOfShape", 1u << 0 },
	{ "Expand", 1u << 1 },
	{ "Range", 7u },
	{ "Reshape", 1u << 1 },
	{ "Slice", 0x1eu },
	{ "Tile", 1u << 1 },
};

/* Whether the graph input "name" of "g" is read as sizes by a node. */
static int
read_as_sizes(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0;
		     k < sizeof(size_inputs) / sizeof(*size_inputs); k++) {
			const Onnx__NodeProto *n = g->node[i];
			if (strcmp(n->op_type, size_inputs[k].op))
				continue;
			for (size_t j = 0; j < n->n_input && j < 8; j++)
				if ((size_inputs[k].inputs >> j & 1) &&
				    !strcmp(n->input[j], name))
					return 1;
		}
	return 0;
}

/* The case "which" of "dir" with the small integer graph inputs that an
 * operator reads as sizes (ONNX's tests give them as inputs, such as
 * Slice's starts and ends) made initializers holding the test data's
 * values, as an exporter writes constants: the model is written to
 * "tmp" and their names, "*n" of them, are set in "names" (at most 8).
 * Return 1 when the model was rewritten, 0 when it has no such input,
 * -1 when it cannot be read. */
static int
constant_sizes(const char *dir, const char *which, const char *tmp,
    char names[8][64], size_t *n)
{
	char path[4096];
	size_t len, k, rewritten = 0;
	unsigned char *b, *out;
	Onnx__ModelProto *m;
	Onnx__TensorProto *t[8];
	char *own[8];
	int rc = -1;

	*n = 0;
	snprintf(path, sizeof(path), "%s/%s/model.onnx", dir, which);
	b = slurp(path, &len);
	m = b ? onnx__model_proto__unpack(NULL, len, b) : NULL;
	free(b);
	if (!m || !m->graph)
		goto out;
	for (k = 0; k < m->graph->n_input && rewritten < 8; k++) {
		const char *name = m->graph->input[k]->name;
		size_t tl;
		snprintf(path, sizeof(path),
		    "%s/%s/test_data_set_0/input_%zu.pb", dir, which, k);
		if (!read_as_sizes(m->graph, name) || strlen(name) >= 64 ||
		    !(b = slurp(path, &tl)))
			continue;
		t[rewritten] = onnx__tensor_proto__unpack(NULL, tl, b);
		free(b);
		Onnx__TensorProto *p = t[rewritten];
		if (!p)
			continue;
		if ((p->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT64 &&
		        p->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT32) ||
		    p->n_dims > 1 || (p->n_dims == 1 && p->dims[0] > 64)) {
			onnx__tensor_proto__free_unpacked(p, NULL);
			continue;
		}
		snprintf(names[rewritten++], 64, "%s", name);
	}
	rc = 0;
	if (rewritten) {
		Onnx__GraphProto *g = m->graph;
		size_t old = g->n_initializer;
		Onnx__TensorProto **init = g->initializer,
		                  **all = calloc(old + rewritten, sizeof(*all));
		FILE *f;
		rc = -1;
		if (all) {
			if (old)
				memcpy(all, init, old * sizeof(*all));
			for (k = 0; k < rewritten; k++) {
				all[old + k] = t[k];
				own[k] = t[k]->name;
				t[k]->name = names[k];
			}
			g->initializer = all;
			g->n_initializer = old + rewritten;
			len = onnx__model_proto__get_packed_size(m);
			out = malloc(len ? len : 1);
			if (out && onnx__model_proto__pack(m, out) == len &&
			    (f = fopen(tmp, "wb"))) {
				rc = fwrite(out, 1, len, f) == len ? 1 : -1;
				rc = fclose(f) == 0 ? rc : -1;
			}
			free(out);
			g->initializer = init;
			g->n_initializer = old;
			free(all);
			for (k = 0; k < rewritten; k++)
				t[k]->name = own[k];
		}
		for (k = 0; k < rewritten; k++)
			onnx__tensor_proto__free_unpacked(t[k], NULL);
		*n = rc == 1 ? rewritten : 0;
	}
out:
	if (m)
		onnx__model_proto__free_unpacked(m, NULL);
	return rc;
}

/* The reason why "g" (NULL when it could not be made; "ctx" its
 * context) was refused: its first diagnostic without the prefix naming
 * the model "path" (a static string). */
static const char *
refusal(const sym_graph *g, sym_ctx *ctx, const char *path)
{
	const char *m = g && sym_graph_n_diagnostics(g)
	    ? sym_graph_diagnostic(g, 0)->message
	    : (ctx ? sym_ctx_last_message(ctx) : NULL);
	size_t n = strlen(path);

	if (!m)
		return "?";
	if (!strncmp(m, path, n) && !strncmp(m + n, ": ", 2))
		return m + n + 2;
	return m;
}

/* Compare output "k" of "g" with the TensorProto at "path"; 0 when its
 * dtype and shape are those, else -1 after a message naming "name". */
static int
check_output(const sym_graph *g, size_t k, const char *path, const char *name)
{
	size_t n;
	unsigned char *b = slurp(path, &n);
	Onnx__TensorProto *t =
	    b ? onnx__tensor_proto__unpack(NULL, n, b) : NULL;
	int rc = -1;

	free(b);
	if (!t) {
		printf("FAIL %s: cannot read %s\n", name, path);
		return -1;
	}
	const sym_shape *s = k < sym_graph_n_outputs(g)
	    ? sym_value_shape(sym_graph_output(g, k))
	    : NULL;
	char *got = s ? sym_shape_to_str(s) : NULL;
	if (!s)
		printf("FAIL %s: no output %zu\n", name, k);
	else if (sym_shape_ndim(s) != t->n_dims)
		printf("FAIL %s: output %zu is %s, expected rank %zu\n", name,
		    k, got, t->n_dims);
	else {
		rc = 0;
		for (size_t i = 0; i < t->n_dims; i++) {
			int64_t d;
			if (sym_expr_get_const(sym_shape_dim(s, i), &d) < 0 ||
			    d != t->dims[i])
				rc = -1;
		}
		if (rc < 0)
			printf("FAIL %s: output %zu is %s, expected dimension "
			       "%lld at some axis\n",
			    name, k, got, (long long)t->dims[0]);
	}
	free(got);
	onnx__tensor_proto__free_unpacked(t, NULL);
	return rc;
}

/* Return the dtype of the ONNX element type "t", SYM_DT_INVALID for one
 * the checkpoint cannot hold. */
static sym_dtype
dtype_of(int t)
{
	switch (t) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		return SYM_DT_F32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
		return SYM_DT_F64;
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
		return SYM_DT_F16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
		return SYM_DT_BF16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
		return SYM_DT_I8;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
		return SYM_DT_I16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
		return SYM_DT_I32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
		return SYM_DT_I64;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
		return SYM_DT_U8;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
		return SYM_DT_BOOL;
	default:
		return SYM_DT_INVALID;
	}
}

/* Store element "i" of the typed fields of "t" into "out" (dtype "dt");
 * 0, or -1 when "t" has fewer. */
static int
typed_element(const Onnx__TensorProto *t, sym_dtype dt, size_t i, void *out)
{
	size_t es = sym_dtype_size(dt);
	int64_t v;

	if (dt == SYM_DT_F32 && i < t->n_float_data) {
		memcpy(out, &t->float_data[i], 4);
		return 0;
	}
	if (dt == SYM_DT_F64 && i < t->n_double_data) {
		memcpy(out, &t->double_data[i], 8);
		return 0;
	}
	if (dt == SYM_DT_I64 && i < t->n_int64_data) {
		memcpy(out, &t->int64_data[i], 8);
		return 0;
	}
	if (i >= t->n_int32_data || dt == SYM_DT_F32 || dt == SYM_DT_F64 ||
	    dt == SYM_DT_I64)
		return -1;
	v = t->int32_data[i];
	if (es == 1) {
		uint8_t b = (uint8_t)v;
		memcpy(out, &b, 1);
	} else if (es == 2) {
		uint16_t h = (uint16_t)v;
		memcpy(out, &h, 2);
	} else {
		int32_t w = (int32_t)v;
		memcpy(out, &w, 4);
	}
	return 0;
}

/* Whether "name" is one of the "n" names "names". */
static int
listed_name(const char *name, char names[][64], size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/* Add the TensorProto at "path" to "ck" under its own name, or "name"
 * when it has none, unless its name is one of the "n_skip" "skip"; 0,
 * or -1 after a message naming the case "which". */
static int
add_proto(sym_checkpoint *ck, const char *path, const char *name,
    const char *which, sym_ctx *ctx, char skip[][64], size_t n_skip)
{
	size_t n, numel = 1, es;
	unsigned char *b = slurp(path, &n), *data = NULL;
	Onnx__TensorProto *t =
	    b ? onnx__tensor_proto__unpack(NULL, n, b) : NULL;
	sym_dtype dt = t ? dtype_of(t->data_type) : SYM_DT_INVALID;
	int rc = -1;

	free(b);
	if (t && listed_name(t->name, skip, n_skip)) {
		rc = 0;
		goto out;
	}
	if (!t || dt == SYM_DT_INVALID || t->n_dims > 16) {
		printf("FAIL %s: values: cannot read %s\n", which, path);
		goto out;
	}
	for (size_t i = 0; i < t->n_dims; i++)
		numel *= (size_t)t->dims[i];
	es = sym_dtype_size(dt);
	data = calloc(numel ? numel : 1, es);
	if (!data)
		goto out;
	if (t->has_raw_data && t->raw_data.len == numel * es)
		memcpy(data, t->raw_data.data, numel * es);
	else
		for (size_t i = 0; i < numel; i++)
			if (typed_element(t, dt, i, data + i * es) < 0) {
				printf("FAIL %s: values: %s holds too few "
				       "elements\n",
				    which, path);
				goto out;
			}
	if (sym_checkpoint_add(ck, t->name && *t->name ? t->name : name, dt,
	        t->n_dims, t->dims, data) == 0)
		rc = 0;
	else
		printf("FAIL %s: values: %s\n", which,
		    sym_ctx_last_message(ctx));
out:
	free(data);
	if (t)
		onnx__tensor_proto__free_unpacked(t, NULL);
	return rc;
}

/* Return element "i" of "data" (dtype "dt") as a double. */
static double
element(const unsigned char *data, sym_dtype dt, size_t i)
{
	float f;
	double d;
	int64_t l;
	int32_t w;
	int16_t h;

	switch (dt) {
	case SYM_DT_F32:
		memcpy(&f, data + 4 * i, 4);
		return f;
	case SYM_DT_F64:
		memcpy(&d, data + 8 * i, 8);
		return d;
	case SYM_DT_I64:
		memcpy(&l, data + 8 * i, 8);
		return (double)l;
	case SYM_DT_I32:
		memcpy(&w, data + 4 * i, 4);
		return w;
	case SYM_DT_I16:
		memcpy(&h, data + 2 * i, 2);
		return h;
	case SYM_DT_I8:
		return (int8_t)data[i];
	default:
		return data[i];
	}
}

/* Whether "got" agrees with "want" for dtype "dt" (see the top). */
static int
agrees(double got, double want, sym_dtype dt)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	if (dt != SYM_DT_F32 && dt != SYM_DT_F64)
		return got == want;
	return fabs(got - want) <= 1e-4 + 1e-3 * fabs(want);
}

/* Compare tensor "j" of "want" with its namesake in "got"; 0 when they
 * agree, else -1 after a message naming the case "which". */
static int
compare_tensor(const sym_checkpoint *got, const sym_checkpoint *want, size_t j,
    const char *which)
{
	const char *name = sym_checkpoint_tensor_name(want, j);
	size_t i = sym_checkpoint_find(got, name), bytes, n;
	sym_dtype dt = sym_checkpoint_tensor_dtype(want, j);
	const unsigned char *a, *b;

	if (i == SIZE_MAX || sym_checkpoint_tensor_dtype(got, i) != dt) {
		printf("FAIL %s: values: output %s %s\n", which, name,
		    i == SIZE_MAX ? "missing" : "of another dtype");
		return -1;
	}
	b = sym_checkpoint_tensor_data(want, j, &bytes);
	a = sym_checkpoint_tensor_data(got, i, &n);
	if (n != bytes) {
		printf("FAIL %s: values: output %s of another size\n", which,
		    name);
		return -1;
	}
	n = bytes / sym_dtype_size(dt);
	for (size_t k = 0; k < n; k++)
		if (!agrees(element(a, dt, k), element(b, dt, k), dt)) {
			printf("FAIL %s: values: %s[%zu] is %.9g, expected "
			       "%.9g\n",
			    which, name, k, element(a, dt, k),
			    element(b, dt, k));
			return -1;
		}
	return 0;
}

/* Run "g" (checked, on "ctx") on the inputs of "dir"/test_data_set_0
 * but the "n_consts" named "consts" (made constants) and compare its
 * outputs with the expected ones; 0 when every one agrees, else -1
 * after a message naming the case "which". */
static int
check_values(sym_graph *g, sym_ctx *ctx, const char *dir, const char *which,
    char consts[][64], size_t n_consts)
{
	sym_checkpoint *in = sym_checkpoint_new(ctx);
	sym_checkpoint *out = sym_checkpoint_new(ctx);
	sym_checkpoint *want = sym_checkpoint_new(ctx);
	sym_plan *p = NULL, *single = NULL;
	sym_communicator *comm = NULL;
	sym_binding *b = sym_binding_new(ctx);
	sym_exec_options o = SYM_EXEC_OPTIONS_INIT;
	sym_exec_report r;
	char path[4096];
	int rc = -1;

	for (size_t k = 0; in && want; k++) {
		FILE *f;

		snprintf(path, sizeof(path),
		    "%s/%s/test_data_set_0/input_%zu.pb", dir, which, k);
		if (!(f = fopen(path, "rb")))
			break;
		fclose(f);
		if (add_proto(in, path, "", which, ctx, consts, n_consts) < 0)
			goto out;
	}
	for (size_t k = 0; want && k < sym_graph_n_outputs(g); k++) {
		snprintf(path, sizeof(path),
		    "%s/%s/test_data_set_0/output_%zu.pb", dir, which, k);
		if (add_proto(want, path,
		        sym_value_name(sym_graph_output(g, k)), which, ctx,
		        NULL, 0) < 0)
			goto out;
	}
	if (b && sym_graph_shard(g, NULL) == 0 &&
	    (p = sym_plan_compile(g, 0)) &&
	    (single = sym_plan_compile(g, SYM_PLAN_SINGLE)))
		comm = sym_comm_threads_new(ctx, (int)sym_plan_n_ranks(p));
	o.inputs = in;
	o.outputs = out;
	if (!comm || sym_exec_check(ctx, p, single, comm, b, &o, &r) < 0) {
		printf("FAIL %s: values: %s\n", which,
		    sym_ctx_last_message(ctx));
		goto out;
	}
	rc = r.n_mismatch ? -1 : 0;
	if (rc < 0)
		printf("FAIL %s: values: one rank differs from one device\n",
		    which);
	for (size_t j = 0; rc == 0 && j < sym_checkpoint_n_tensors(want); j++)
		rc = compare_tensor(out, want, j, which);
out:
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(single);
	sym_binding_free(b);
	sym_checkpoint_free(in);
	sym_checkpoint_free(out);
	sym_checkpoint_free(want);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ONNX_TESTDATA;
	const char *skip_path = argc > 2 ? argv[2] : "tests/onnx/node-skip.txt";
	size_t n_skip_file = 0, ran = 0, passed = 0, n_skipped = 0, bad = 0;
	size_t values = 0, n_values_listed = 0;
	char *skip = (char *)slurp(skip_path, &n_skip_file);
	DIR *d = opendir(dir);
	struct dirent *e;
	/* a case's model with its sizes made constants, in the current
	 * folder (the build's) */
	char tmp_model[64];

	snprintf(tmp_model, sizeof(tmp_model), "onnx-node-%ld.onnx",
	    (long)getpid());

	if (!d) {
		printf("SKIP: no ONNX node tests in %s (install "
		       "libonnx-testdata)\n",
		    dir);
		free(skip);
		return 77;
	}
	if (!skip) {
		printf("FAIL: cannot read the skip list %s\n", skip_path);
		closedir(d);
		return 1;
	}
	skip[n_skip_file] = 0;
	while ((e = readdir(d))) {
		char path[4096];
		if (strncmp(e->d_name, "test_", 5))
			continue;
		char consts[8][64];
		size_t n_consts = 0;
		snprintf(path, sizeof(path), "%s/%s/model.onnx", dir,
		    e->d_name);
		int cs = constant_sizes(dir, e->d_name, tmp_model, consts,
		    &n_consts);
		sym_ctx *ctx = sym_ctx_new();
		sym_graph *g = ctx
		    ? sym_onnx_read(ctx, cs == 1 ? tmp_model : path, NULL)
		    : NULL;
		int ok = g && sym_graph_n_errors(g) == 0;
		const char *why = NULL;
		size_t why_len = 0;
		int listed = skipped(skip, e->d_name, &why, &why_len);
		const char *said =
		    ok ? NULL : refusal(g, ctx, cs == 1 ? tmp_model : path);
		if (!ok && listed == 1 &&
		    (strlen(said) != why_len || strncmp(said, why, why_len))) {
			printf("FAIL %s: refused, but not for the reason the "
			       "skip list gives: %s\n",
			    e->d_name, said);
			bad++;
		} else if (!ok && listed) {
			n_skipped++;
		} else if (!ok) {
			printf(
			    "FAIL %s: refused and not in the skip list: %s\n",
			    e->d_name, said);
			bad++;
		} else if (listed == 1) {
			printf("FAIL %s: imports but is in the skip list\n",
			    e->d_name);
			bad++;
		} else {
			int fail = 0;
			ran++;
			for (size_t k = 0; k < sym_graph_n_outputs(g); k++) {
				snprintf(path, sizeof(path),
				    "%s/%s/test_data_set_0/output_%zu.pb", dir,
				    e->d_name, k);
				fail |= check_output(g, k, path, e->d_name) < 0;
			}
			passed += !fail;
			bad += fail;
			if (!fail) {
				int vfail = check_values(g, ctx, dir, e->d_name,
				                consts, n_consts) < 0;

				values += !vfail;
				n_values_listed += vfail && listed == 2;
				if (!vfail && listed == 2) {
					printf("FAIL %s: passes on values but "
					       "is in the skip list\n",
					    e->d_name);
					bad++;
				} else if (vfail && listed != 2) {
					bad++;
				}
			}
		}
		sym_graph_free(g);
		sym_ctx_free(ctx);
	}
	closedir(d);
	free(skip);
	remove(tmp_model);
	printf("onnx node tests: %zu ran, %zu passed on shapes, %zu on "
	       "values (%zu fail on values, listed), %zu skipped (listed in "
	       "%s), %zu failed\n",
	    ran, passed, values, n_values_listed, n_skipped, skip_path, bad);
	return bad ? 1 : 0;
}
