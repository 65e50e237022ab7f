/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the sequence corpora of the dataset family (text: and
 * tokens:): files written by the test into a fresh temporary directory,
 * the records, lengths, columns and pads they give (expected values
 * worked out by hand from the bytes written), the options (sep=,
 * max_len=, eval=, vocab=), the notices that count what was dropped or
 * cut, and every kind of bad file, each a located error naming the file.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <symshard.h>

/* A test's context and temporary directory. */
struct fx {
	sym_ctx *ctx;
	char dir[512];
	char spec[1200];
};

/* Create the context and the directory of a test in "*state"; 0. */
static int
setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->ctx = sym_ctx_new();
	assert_non_null(fx->ctx);
	snprintf(fx->dir, sizeof(fx->dir), "%s/symshard-seq-XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(fx->dir));
	*state = fx;
	return 0;
}

/* Remove the directory of the test "*state" and free its context,
 * asserting that no object is left; 0. */
static int
teardown(void **state)
{
	struct fx *fx = *state;
	DIR *dir = opendir(fx->dir);
	struct dirent *e;
	char path[1024];

	while (dir && (e = readdir(dir)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", fx->dir, e->d_name);
		remove(path);
	}
	if (dir)
		closedir(dir);
	rmdir(fx->dir);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
	sym_ctx_free(fx->ctx);
	free(fx);
	return 0;
}

/* Write the "n" bytes "data" to the file "name" of "fx"; return the
 * specification "PREFIX" + its path + "opts" (in fx->spec). */
static const char *
write_file(struct fx *fx, const char *name, const void *data, size_t n,
    const char *prefix, const char *opts)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fx->dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	snprintf(fx->spec, sizeof(fx->spec), "%s%s%s", prefix, path, opts);
	return fx->spec;
}

/* Assert that row "row" of column "col" of "d" reads as "want" over
 * "n" elements from element 0. */
static void
assert_row(const sym_dataset *d, const char *col, int64_t row,
    const int32_t *want, int64_t n)
{
	int32_t got[64];
	size_t c = sym_dataset_find_column(d, col);

	assert_true(c != SIZE_MAX);
	assert_true(n <= 64);
	assert_int_equal(sym_dataset_read(d, c, row, 0, n, got), 0);
	for (int64_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("%s row %lld element %lld: %d, expected %d",
			    col, (long long)row, (long long)i, got[i], want[i]);
}

/* Assert that the last error of "ctx" contains "part". */
static void
assert_error(sym_ctx *ctx, const char *part)
{
	const char *msg = sym_ctx_last_message(ctx);

	if (!msg || !strstr(msg, part))
		fail_msg("error '%s' does not contain '%s'", msg ? msg : "",
		    part);
}

/* A fortune file: records "ab\n", "xyz\n", an empty one, "\n" (one
 * byte), "q\n" and "la\xff\0t" (no final newline, bytes outside ASCII
 * and a NUL: bytes are tokens). */
static const char fortunes[] = "ab\n%\nxyz\n%\n%\n\n%\nq\n%\nla\xff\0t";

/* text: records, lengths, columns shifted by one, pads past a row (id 0,
 * label -100), reading beyond the longest row, the notice. */
static void
test_text_records(void **state)
{
	struct fx *fx = *state;
	const char *spec =
	    write_file(fx, "f", fortunes, sizeof(fortunes) - 1, "text:", "");
	sym_dataset *d = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN);
	static const int32_t ids0[] = { 'a', 'b', 0, 0, 0, 0 };
	static const int32_t lab0[] = { 'b', '\n', -100, -100, -100, -100 };
	static const int32_t ids1[] = { 'x', 'y', 'z', 0 };
	static const int32_t lab1[] = { 'y', 'z', '\n', -100 };
	static const int32_t ids3[] = { 'l', 'a', 0xff, 0, 0, 0, 0, 0 };
	static const int32_t lab3[] = { 'a', 0xff, 0, 't', -100, -100, -100,
		-100 };
	int32_t far[3];

	assert_non_null(d);
	assert_int_equal(sym_dataset_n_rows(d), 4);
	assert_int_equal(sym_dataset_n_columns(d), 2);
	assert_string_equal(sym_dataset_column_name(d, 0), "ids");
	assert_string_equal(sym_dataset_column_name(d, 1), "labels");
	assert_int_equal(sym_dataset_column_dtype(d, 0), SYM_DT_I32);
	assert_int_equal(sym_dataset_column_ndim(d, 0), 1);
	assert_int_equal(sym_dataset_column_dim(d, 0, 0), 4);
	assert_int_equal(sym_dataset_row_length(d, 0), 2);
	assert_int_equal(sym_dataset_row_length(d, 1), 3);
	assert_int_equal(sym_dataset_row_length(d, 2), 1);
	assert_int_equal(sym_dataset_row_length(d, 3), 4);
	assert_int_equal(sym_dataset_row_length(d, 4), -1);
	assert_row(d, "ids", 0, ids0, 6);
	assert_row(d, "labels", 0, lab0, 6);
	assert_row(d, "ids", 1, ids1, 4);
	assert_row(d, "labels", 1, lab1, 4);
	assert_row(d, "ids", 3, ids3, 8);
	assert_row(d, "labels", 3, lab3, 8);
	assert_int_equal(sym_dataset_read(d, 1, 2, 1000, 3, far), 0);
	assert_int_equal(far[0], -100);
	assert_int_equal(far[2], -100);
	assert_int_equal(sym_dataset_read(d, 0, 4, 0, 1, far), -1);
	assert_error(fx->ctx, "no row 4");
	assert_non_null(sym_dataset_notice(d));
	assert_non_null(strstr(sym_dataset_notice(d),
	    "4 records kept; dropped 1 empty and 1 of one token"));
	sym_dataset_free(d);
}

/* sep=: another separator line; an empty one means a blank line. */
static void
test_text_separators(void **state)
{
	struct fx *fx = *state;
	static const char ends[] = "one\nEND\ntwo two\nEND\n";
	static const char para[] = "first\nline\n\nsecond\n";
	static const int32_t ids[] = { 't', 'w', 'o', ' ', 't', 'w', 'o' };
	const char *spec =
	    write_file(fx, "e", ends, sizeof(ends) - 1, "text:", ",sep=END");
	sym_dataset *d = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN);

	assert_non_null(d);
	assert_int_equal(sym_dataset_n_rows(d), 2);
	assert_int_equal(sym_dataset_row_length(d, 0), 3);
	assert_int_equal(sym_dataset_row_length(d, 1), 7);
	assert_row(d, "ids", 1, ids, 7);
	assert_null(sym_dataset_notice(d));
	sym_dataset_free(d);
	spec = write_file(fx, "p", para, sizeof(para) - 1, "text:", ",sep=");
	d = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN);
	assert_non_null(d);
	assert_int_equal(sym_dataset_n_rows(d), 2);
	assert_int_equal(sym_dataset_row_length(d, 0), 10);
	assert_int_equal(sym_dataset_row_length(d, 1), 6);
	sym_dataset_free(d);
}

/* max_len= cuts records to s <= N and counts them; eval= holds out the
 * last fraction of the records kept (floor). */
static void
test_text_max_len_and_split(void **state)
{
	struct fx *fx = *state;
	static const int32_t lab[] = { 'y', 'z', -100 };
	const char *spec = write_file(fx, "f", fortunes, sizeof(fortunes) - 1,
	    "text:", ",max_len=2,eval=0.5");
	sym_dataset *tr = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN);
	sym_dataset *te = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TEST);

	assert_non_null(tr);
	assert_non_null(te);
	assert_int_equal(sym_dataset_n_rows(tr), 2);
	assert_int_equal(sym_dataset_n_rows(te), 2);
	assert_int_equal(sym_dataset_row_length(tr, 0), 2);
	assert_int_equal(sym_dataset_row_length(tr, 1), 2);
	assert_row(tr, "labels", 1, lab, 3);
	assert_int_equal(sym_dataset_row_length(te, 0), 1);
	assert_int_equal(sym_dataset_row_length(te, 1), 2);
	assert_int_equal(sym_dataset_column_dim(tr, 0, 0), 2);
	assert_int_equal(sym_dataset_column_dim(te, 0, 0), 2);
	assert_non_null(strstr(sym_dataset_notice(tr),
	    "2 cut to max_len 2 + 1 tokens"));
	assert_true(sym_dataset_fingerprint(tr) != 0);
	sym_dataset_free(tr);
	sym_dataset_free(te);
	/* 4 records: 0.2 holds out none, which is no test split */
	spec = write_file(fx, "f", fortunes, sizeof(fortunes) - 1,
	    "text:", ",eval=0.2");
	assert_null(sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TEST));
	assert_error(fx->ctx, "holds out none");
	spec = write_file(fx, "f", fortunes, sizeof(fortunes) - 1, "text:", "");
	assert_null(sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TEST));
	assert_error(fx->ctx, "no held-out records");
}

/* The fingerprint follows the bytes of the file. */
static void
test_text_fingerprint(void **state)
{
	struct fx *fx = *state;
	static const char other[] = "ab\n%\nxyZ\n%\n%\n\n%\nq\n%\nla\xff\0t";
	const char *spec =
	    write_file(fx, "f", fortunes, sizeof(fortunes) - 1, "text:", "");
	sym_dataset *a = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN);
	sym_dataset *b = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN), *c;

	spec = write_file(fx, "f", other, sizeof(other) - 1, "text:", "");
	c = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_true(sym_dataset_fingerprint(a) == sym_dataset_fingerprint(b));
	assert_true(sym_dataset_fingerprint(a) != sym_dataset_fingerprint(c));
	sym_dataset_free(a);
	sym_dataset_free(b);
	sym_dataset_free(c);
}

/* Bad text files and specifications: each an error naming the file or
 * the option, nothing left allocated. */
static void
test_text_errors(void **state)
{
	struct fx *fx = *state;
	static const char nosep[] = "one record\nand no separator\n";
	static const char shorts[] = "%\n\n%\n%\n";
	char spec[1200];

	write_file(fx, "n", nosep, sizeof(nosep) - 1, "text:", "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx,
	    "the separator (a line holding only '%') never "
	    "occurs in its 28 bytes");
	write_file(fx, "s", shorts, sizeof(shorts) - 1, "text:", "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx,
	    "no record of at least 2 tokens (2 empty, 1 of one token)");
	write_file(fx, "z", "", 0, "text:", "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "no record of at least 2 tokens (0 empty");
	snprintf(spec, sizeof(spec), "text:%s/missing", fx->dir);
	assert_null(sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "missing: cannot open");
	assert_null(sym_dataset_open(fx->ctx, "text:", SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "no file");
	write_file(fx, "n", nosep, sizeof(nosep) - 1, "text:", ",colour=red");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "unknown option 'colour'");
	write_file(fx, "n", nosep, sizeof(nosep) - 1, "text:", ",max_len=0");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "max_len=0: expected an integer from 1");
	write_file(fx, "n", nosep, sizeof(nosep) - 1, "text:", ",eval=1");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "eval=1: expected a fraction in [0, 1)");
	write_file(fx, "n", nosep, sizeof(nosep) - 1, "text:", ",vocab=9");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "unknown option 'vocab'");
	write_file(fx, "n", nosep, sizeof(nosep) - 1, "text:", ",junk");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "expected KEY=VALUE");
	/* a directory is no corpus */
	snprintf(spec, sizeof(spec), "text:%s", fx->dir);
	assert_null(sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN));
	assert_int_not_equal(sym_ctx_last_error(fx->ctx), SYM_OK);
}

/* Write the token corpus "tok" ("T" tokens, int32) with the offsets
 * "off" ("n1" of them, or a tensor of dtype "odt") as the file "name" of
 * "fx"; return its specification with "opts". */
static const char *
write_tokens(struct fx *fx, const char *name, const int32_t *tok, int64_t T,
    const int64_t *off, int64_t n1, sym_dtype odt, const char *opts)
{
	sym_checkpoint *ck = sym_checkpoint_new(fx->ctx);
	char path[1024];

	assert_non_null(ck);
	assert_int_equal(sym_checkpoint_add(ck, "tokens", SYM_DT_I32, 1, &T,
	                     tok),
	    0);
	if (off)
		assert_int_equal(sym_checkpoint_add(ck, "offsets", odt, 1, &n1,
		                     off),
		    0);
	snprintf(path, sizeof(path), "%s/%s", fx->dir, name);
	assert_int_equal(sym_checkpoint_write(ck, path), 0);
	sym_checkpoint_free(ck);
	snprintf(fx->spec, sizeof(fx->spec), "tokens:%s%s", path, opts);
	return fx->spec;
}

/* tokens: records between offsets; an empty and a one-token record
 * dropped; a vocabulary larger than bytes with vocab=. */
static void
test_tokens(void **state)
{
	struct fx *fx = *state;
	static const int32_t tok[] = { 5, 6, 7, 9, 300, 301, 302, 8, 1, 2 };
	static const int64_t off[] = { 0, 3, 3, 4, 7, 9 };
	static const int32_t ids2[] = { 300, 301, 0 };
	static const int32_t lab2[] = { 301, 302, -100 };
	const char *spec =
	    write_tokens(fx, "t", tok, 10, off, 6, SYM_DT_I64, ",vocab=512");
	sym_dataset *d = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN);

	assert_non_null(d);
	assert_int_equal(sym_dataset_n_rows(d), 3);
	assert_int_equal(sym_dataset_row_length(d, 0), 2);
	assert_int_equal(sym_dataset_row_length(d, 1), 2);
	assert_int_equal(sym_dataset_row_length(d, 2), 1);
	assert_row(d, "ids", 1, ids2, 3);
	assert_row(d, "labels", 1, lab2, 3);
	assert_non_null(strstr(sym_dataset_notice(d),
	    "3 records kept; dropped 1 empty and 1 of one token"));
	sym_dataset_free(d);
	/* the default vocabulary is the bytes: 300 is outside it */
	spec = write_tokens(fx, "t", tok, 10, off, 6, SYM_DT_I64, "");
	assert_null(sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx,
	    "tokens[4] = 300 (token 0 of record 1) is "
	    "outside the vocabulary [0, 256)");
}

/* Bad token corpora: offsets that decrease, overrun, are negative or
 * missing, of the wrong dtype, a file that is no safetensors. */
static void
test_tokens_errors(void **state)
{
	struct fx *fx = *state;
	static const int32_t tok[] = { 5, 6, 7, 9 };
	static const int64_t down[] = { 0, 3, 2, 4 };
	static const int64_t over[] = { 0, 3, 5 };
	static const int64_t neg[] = { -1, 3 };
	static const int32_t small[] = { 0, 4 };
	static const int32_t badtok[] = { 5, -6, 7, 9 };
	static const int64_t good[] = { 0, 4 };

	write_tokens(fx, "a", tok, 4, down, 4, SYM_DT_I64, "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "offsets[2] = 2 is smaller than the one before");
	write_tokens(fx, "b", tok, 4, over, 3, SYM_DT_I64, "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "offsets[2] = 5 is past the end of 'tokens'");
	write_tokens(fx, "c", tok, 4, neg, 2, SYM_DT_I64, "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "offsets[0] = -1 is negative");
	write_tokens(fx, "d", tok, 4, NULL, 0, SYM_DT_I64, "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "no tensor 'offsets'");
	write_tokens(fx, "e", tok, 4, (const int64_t *)small, 2, SYM_DT_I32,
	    "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "tensor 'offsets' is i32");
	write_tokens(fx, "f", badtok, 4, good, 2, SYM_DT_I64, "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "tokens[1] = -6");
	write_tokens(fx, "g", tok, 4, good, 2, SYM_DT_I64, ",sep=x");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_error(fx->ctx, "unknown option 'sep'");
	write_file(fx, "h", "garbage!", 8, "tokens:", "");
	assert_null(sym_dataset_open(fx->ctx, fx->spec, SYM_SPLIT_TRAIN));
	assert_int_not_equal(sym_ctx_last_error(fx->ctx), SYM_OK);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_records, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_text_separators, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_text_max_len_and_split,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_fingerprint, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_text_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tokens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tokens_errors, setup,
		    teardown),
	};

	return cmocka_run_group_tests_name("dataset_seq", tests, NULL, NULL);
}
