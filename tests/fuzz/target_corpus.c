/* SPDX-License-Identifier: MIT */
/*
 * The corpus target: the bytes of an input (after a selector byte)
 * written to a temporary file and opened as a sequence corpus, text:
 * with the separator and options the selector picks, or tokens: (a
 * safetensors file). Whatever the bytes, opening fails with an error or
 * gives rows whose lengths lie in [1, the column's size], every element
 * of which reads (past the length: id 0, label -100), both splits, and
 * nothing leaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "targets.h"

/* The specifications the selector byte picks (its low 3 bits). */
static const char *const opts[8] = { "", ",sep=", ",sep=END", ",max_len=3",
	",eval=0.5", ",max_len=1,eval=0.3", "", ",vocab=7" };

/* Check every row of "d" (from "spec"); 0, or -1 after fuzz_fail. */
static int
check_rows(const sym_dataset *d, const char *spec)
{
	int64_t n = sym_dataset_n_rows(d),
	        dim = sym_dataset_column_dim(d, 0, 0);
	int32_t buf[64];

	if (n < 1 || sym_dataset_n_columns(d) != 2 || dim < 1)
		return fuzz_fail("%s: %lld rows of %lld", spec, (long long)n,
		    (long long)dim);
	for (int64_t r = 0; r < n; r++) {
		int64_t len = sym_dataset_row_length(d, r);

		if (len < 1 || len > dim)
			return fuzz_fail("%s: row %lld has length %lld of %lld",
			    spec, (long long)r, (long long)len, (long long)dim);
		for (int64_t e = 0; e < len + 2; e += 64) {
			int64_t k = len + 2 - e < 64 ? len + 2 - e : 64;

			if (sym_dataset_read(d, 1, r, e, k, buf) < 0 ||
			    sym_dataset_read(d, 0, r, e, k, buf) < 0)
				return fuzz_fail("%s: row %lld does not read",
				    spec, (long long)r);
		}
		if (sym_dataset_read(d, 1, r, len, 1, buf) < 0 ||
		    buf[0] != -100)
			return fuzz_fail("%s: row %lld: label %d past its end",
			    spec, (long long)r, buf[0]);
	}
	return 0;
}

/* Run one input through the corpus target; 0, or -1 when it breaks a
 * property. */
int
fuzz_corpus_one(const uint8_t *data, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char path[512], spec[600];
	sym_ctx *ctx;
	FILE *f;
	int fd, res = 0;

	if (size < 1)
		return 0;
	snprintf(path, sizeof(path), "%s/symshard-fuzz-XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	f = fdopen(fd, "wb");
	if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1) {
		if (f)
			fclose(f);
		unlink(path);
		return 0;
	}
	fclose(f);
	snprintf(spec, sizeof(spec), "%s:%s%s", data[0] & 8 ? "tokens" : "text",
	    path, opts[data[0] & 7]);
	ctx = fuzz_new_ctx();
	for (int split = 0; ctx && split < 2 && res == 0; split++) {
		sym_dataset *d = sym_dataset_open(ctx, spec,
		    split ? SYM_SPLIT_TEST : SYM_SPLIT_TRAIN);

		if (!d && sym_ctx_last_error(ctx) == SYM_OK)
			res = fuzz_fail("%s: no dataset and no error", spec);
		if (d)
			res = check_rows(d, spec);
		sym_dataset_free(d);
	}
	if (ctx && res == 0 && sym_ctx_live_objects(ctx) != 0)
		res = fuzz_fail("%s: objects left", spec);
	sym_ctx_free(ctx);
	unlink(path);
	return res;
}
