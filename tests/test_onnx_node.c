/*
 * Conformance: ONNX's backend node tests (Debian's libonnx-testdata,
 * one folder per case with model.onnx and test_data_set_N/output_K.pb)
 * read by sym_onnx_read; every output's dtype and shape must equal the
 * expected TensorProto's. A case the reader refuses must be listed, with
 * its reason, in tests/onnx/node-skip.txt, and a listed case that now
 * imports is a failure too (the list is kept exact). Prints how many
 * ran, passed and were skipped; exits 77 (skip) without the test data.
 *
 * Usage: test_onnx_node [NODE-DIR [SKIP-FILE]]
 */
#include <dirent.h>
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
 * reason"). */
static int
skipped(const char *skip, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = skip; p && *p;) {
		if (!strncmp(p, name, len) && (p[len] == ' ' || p[len] == '\n'))
			return 1;
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

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ONNX_TESTDATA;
	const char *skip_path = argc > 2 ? argv[2] : "tests/onnx/node-skip.txt";
	size_t n_skip_file = 0, ran = 0, passed = 0, n_skipped = 0, bad = 0;
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
		} else if (listed) {
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
		}
		sym_graph_free(g);
		sym_ctx_free(ctx);
	}
	closedir(d);
	free(skip);
	printf("onnx node tests: %zu ran, %zu passed, %zu skipped (listed in "
	       "%s), %zu failed\n",
	    ran, passed, n_skipped, skip_path, bad);
	return bad ? 1 : 0;
}
