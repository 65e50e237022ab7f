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
 * A case the reader refuses must be listed, with its reason, in
 * tests/onnx/node-skip.txt; a case that imports but fails on values must
 * be listed with a reason that starts "values:". A listed case that now
 * imports (or passes on values) is a failure too: the list is kept
 * exact. Prints how many ran, passed on shapes and on values and were
 * skipped; exits 77 (skip) without the test data.
 *
 * Usage: test_onnx_node [NODE-DIR [SKIP-FILE]]
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * reason"): 0 no, 2 with a reason "values: ...", else 1. */
static int
skipped(const char *skip, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = skip; p && *p;) {
		if (!strncmp(p, name, len) && (p[len] == ' ' || p[len] == '\n'))
			return strncmp(p + len, " values:", 8) ? 1 : 2;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
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

/* Add the TensorProto at "path" to "ck" under its own name, or "name"
 * when it has none; 0, or -1 after a message naming the case "which". */
static int
add_proto(sym_checkpoint *ck, const char *path, const char *name,
    const char *which, sym_ctx *ctx)
{
	size_t n, numel = 1, es;
	unsigned char *b = slurp(path, &n), *data = NULL;
	Onnx__TensorProto *t =
	    b ? onnx__tensor_proto__unpack(NULL, n, b) : NULL;
	sym_dtype dt = t ? dtype_of(t->data_type) : SYM_DT_INVALID;
	int rc = -1;

	free(b);
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
 * and compare its outputs with the expected ones; 0 when every one
 * agrees, else -1 after a message naming the case "which". */
static int
check_values(sym_graph *g, sym_ctx *ctx, const char *dir, const char *which)
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
		if (add_proto(in, path, "", which, ctx) < 0)
			goto out;
	}
	for (size_t k = 0; want && k < sym_graph_n_outputs(g); k++) {
		snprintf(path, sizeof(path),
		    "%s/%s/test_data_set_0/output_%zu.pb", dir, which, k);
		if (add_proto(want, path,
		        sym_value_name(sym_graph_output(g, k)), which, ctx) < 0)
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
		snprintf(path, sizeof(path), "%s/%s/model.onnx", dir,
		    e->d_name);
		sym_ctx *ctx = sym_ctx_new();
		sym_graph *g = ctx ? sym_onnx_read(ctx, path, NULL) : NULL;
		int ok = g && sym_graph_n_errors(g) == 0;
		int listed = skipped(skip, e->d_name);
		if (!ok && listed) {
			n_skipped++;
		} else if (!ok) {
			printf(
			    "FAIL %s: refused and not in the skip list: %s\n",
			    e->d_name,
			    g && sym_graph_n_diagnostics(g)
			        ? sym_graph_diagnostic(g, 0)->message
			        : (ctx ? sym_ctx_last_message(ctx) : "?"));
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
				int vfail =
				    check_values(g, ctx, dir, e->d_name) < 0;

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
	printf("onnx node tests: %zu ran, %zu passed on shapes, %zu on "
	       "values (%zu fail on values, listed), %zu skipped (listed in "
	       "%s), %zu failed\n",
	    ran, passed, values, n_values_listed, n_skipped, skip_path, bad);
	return bad ? 1 : 0;
}
