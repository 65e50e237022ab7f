/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the dataset family: MNIST/IDX files written into a fresh
 * temporary directory (plain and gzip, both splits, every kind of corrupt
 * file, each error naming the file and its problem, nothing leaked),
 * datasets in memory, and the argument checks of the readers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include <symshard.h>

/* The data of the tests: 5 images of 2x3 pixels and their labels. */
#define N_IMG 5
#define ROWS 2
#define COLS 3
#define PIX (ROWS * COLS)

static const unsigned char pixels[N_IMG * PIX] = { 0, 255, 1, 128, 64, 254, 10,
	20, 30, 40, 50, 60, 200, 100, 0, 3, 7, 11, 255, 255, 255, 0, 0, 0, 17,
	34, 51, 68, 85, 102 };
static const unsigned char labels[N_IMG] = { 7, 0, 255, 3, 9 };

#define IMAGES "train-images-idx3-ubyte"
#define LABELS "train-labels-idx1-ubyte"
#define T_IMAGES "t10k-images-idx3-ubyte"
#define T_LABELS "t10k-labels-idx1-ubyte"

/* A test's context and temporary directory. */
struct fx {
	sym_ctx *ctx;
	char dir[512];
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
	snprintf(fx->dir, sizeof(fx->dir), "%s/symshard-dataset-XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(fx->dir));
	*state = fx;
	return 0;
}

/* Remove the directory of the test "*state" and free its context; 0. */
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
	sym_ctx_free(fx->ctx);
	free(fx);
	return 0;
}

/* Return in "path" ("size" bytes) the path of "name" in the directory of
 * "fx". */
static char *
path_of(const struct fx *fx, const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", fx->dir, name);
	return path;
}

/* Write the "n" bytes "data" to the file "name" of "fx", gzip-compressed
 * when "gz" (which appends .gz to the name). */
static void
write_file(const struct fx *fx, const char *name, const void *data, size_t n,
    int gz)
{
	char path[1024], full[1100];
	gzFile g;
	FILE *f;

	path_of(fx, name, path, sizeof(path));
	if (gz) {
		snprintf(full, sizeof(full), "%s.gz", path);
		assert_non_null(g = gzopen(full, "wb"));
		assert_int_equal(gzwrite(g, data, (unsigned)n), (int)n);
		assert_int_equal(gzclose(g), Z_OK);
		return;
	}
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Store in "buf" an IDX file of unsigned bytes with "ndim" sizes "dim",
 * the magic number's bytes 2 and 3 replaced by "type" and "nd" when they
 * are not -1, followed by the "n" bytes "data"; return its length. */
static size_t
idx(unsigned char *buf, int type, int nd, int ndim, const uint32_t *dim,
    const unsigned char *data, size_t n)
{
	size_t len = 4;

	buf[0] = buf[1] = 0;
	buf[2] = (unsigned char)(type < 0 ? 0x08 : type);
	buf[3] = (unsigned char)(nd < 0 ? ndim : nd);
	for (int i = 0; i < ndim; i++) {
		for (int b = 0; b < 4; b++)
			buf[len + (size_t)b] =
			    (unsigned char)(dim[i] >> (24 - 8 * b));
		len += 4;
	}
	if (n)
		memcpy(buf + len, data, n);
	return len + n;
}

/* Write the images "pix" ("count" of "rows" x "cols") and labels "lab"
 * into the files "im" and "lb" of "fx", gzip when "gz". */
static void
write_split(const struct fx *fx, const char *im, const char *lb, uint32_t count,
    uint32_t rows, uint32_t cols, const unsigned char *pix,
    const unsigned char *lab, int gz)
{
	unsigned char buf[1024];
	uint32_t dim[3] = { count, rows, cols };

	write_file(fx, im, buf,
	    idx(buf, -1, -1, 3, dim, pix, (size_t)count * rows * cols), gz);
	write_file(fx, lb, buf, idx(buf, -1, -1, 1, dim, lab, count), gz);
}

/* Write the test's training split (5 images of 2x3), gzip when "gz". */
static void
write_train(const struct fx *fx, int gz)
{
	write_split(fx, IMAGES, LABELS, N_IMG, ROWS, COLS, pixels, labels, gz);
}

/* Fail unless every row of "d" has the pixels "pix" ("per" a row) scaled
 * by 1/255 and the labels "lab" ("n" rows). */
static void
check_rows(const sym_dataset *d, int n, int per, const unsigned char *pix,
    const unsigned char *lab)
{
	float f[64];
	int32_t l = -1;

	assert_int_equal(sym_dataset_n_rows(d), n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(sym_dataset_read(d, 0, i, 0, per, f), 0);
		for (int j = 0; j < per; j++)
			if (f[j] != (float)pix[i * per + j] / 255.0f)
				fail_msg(
				    "row %d pixel %d: %.9g, expected %d/255", i,
				    j, f[j], pix[i * per + j]);
		assert_int_equal(sym_dataset_read(d, 1, i, 0, 1, &l), 0);
		assert_int_equal(l, lab[i]);
	}
}

/* Fail unless "d" has the columns of an MNIST dataset of "rows" x "cols"
 * images. */
static void
check_columns(const sym_dataset *d, int64_t rows, int64_t cols)
{
	assert_int_equal(sym_dataset_n_columns(d), 2);
	assert_string_equal(sym_dataset_column_name(d, 0), "image");
	assert_int_equal(sym_dataset_column_dtype(d, 0), SYM_DT_F32);
	assert_int_equal(sym_dataset_column_ndim(d, 0), 3);
	assert_int_equal(sym_dataset_column_dim(d, 0, 0), 1);
	assert_int_equal(sym_dataset_column_dim(d, 0, 1), rows);
	assert_int_equal(sym_dataset_column_dim(d, 0, 2), cols);
	assert_int_equal(sym_dataset_column_dim(d, 0, 3), -1);
	assert_string_equal(sym_dataset_column_name(d, 1), "label");
	assert_int_equal(sym_dataset_column_dtype(d, 1), SYM_DT_I32);
	assert_int_equal(sym_dataset_column_ndim(d, 1), 0);
	assert_int_equal(sym_dataset_column_dim(d, 1, 0), -1);
	assert_int_equal(sym_dataset_find_column(d, "image"), 0);
	assert_int_equal(sym_dataset_find_column(d, "label"), 1);
	assert_int_equal(sym_dataset_find_column(d, "x"), SIZE_MAX);
}

/* Fail unless opening "split" of the directory of "fx" fails with
 * "code" and a message holding the path of "file" and "what", leaving
 * no live object. */
static void
expect_error(struct fx *fx, sym_dataset_split split, sym_error code,
    const char *file, const char *what)
{
	sym_dataset *d = sym_dataset_mnist_open(fx->ctx, fx->dir, split);
	const char *msg = sym_ctx_last_message(fx->ctx);
	char path[1024];

	assert_null(d);
	path_of(fx, file, path, sizeof(path));
	if (!strstr(msg, path) || !strstr(msg, what))
		fail_msg("message '%s' lacks '%s' or '%s'", msg, path, what);
	assert_int_equal(sym_ctx_last_error(fx->ctx), code);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Check the training split of plain files: name, columns, every pixel
 * and label, a partial row; "state" is the fixture. */
static void
test_mnist_train(void **state)
{
	struct fx *fx = *state;
	char name[1024];
	float f[5] = { -1, -1, -1, -1, -1 };
	sym_dataset *d;

	write_train(fx, 0);
	d = sym_dataset_mnist_open(fx->ctx, fx->dir, SYM_SPLIT_TRAIN);
	assert_non_null(d);
	snprintf(name, sizeof(name), "mnist:%s (train)", fx->dir);
	assert_string_equal(sym_dataset_name(d), name);
	check_columns(d, ROWS, COLS);
	check_rows(d, N_IMG, PIX, pixels, labels);
	assert_int_equal(sym_dataset_read(d, 0, 0, 0, 2, f), 0);
	assert_true(f[0] == 0.0f && f[1] == 1.0f && f[2] == -1.0f);
	assert_int_equal(sym_dataset_read(d, 0, 2, 2, 3, f), 0);
	assert_true(f[0] == 0.0f && f[1] == 3.0f / 255.0f &&
	    f[2] == 7.0f / 255.0f && f[3] == -1.0f);
	assert_int_equal(sym_dataset_read(d, 0, 4, 5, 1, f), 0);
	assert_true(f[0] == 102.0f / 255.0f);
	sym_dataset_free(d);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Check that the test split reads the t10k files, of other sizes; "state"
 * is the fixture. */
static void
test_mnist_test_split(void **state)
{
	static const unsigned char tpix[3 * 4] = { 1, 2, 3, 4, 5, 6, 7, 8, 9,
		10, 11, 12 };
	static const unsigned char tlab[3] = { 1, 2, 3 };
	struct fx *fx = *state;
	char name[1024];
	sym_dataset *d, *t;

	write_train(fx, 0);
	write_split(fx, T_IMAGES, T_LABELS, 3, 1, 4, tpix, tlab, 0);
	t = sym_dataset_mnist_open(fx->ctx, fx->dir, SYM_SPLIT_TEST);
	d = sym_dataset_mnist_open(fx->ctx, fx->dir, SYM_SPLIT_TRAIN);
	assert_non_null(t);
	assert_non_null(d);
	snprintf(name, sizeof(name), "mnist:%s (test)", fx->dir);
	assert_string_equal(sym_dataset_name(t), name);
	check_columns(t, 1, 4);
	check_rows(t, 3, 4, tpix, tlab);
	check_rows(d, N_IMG, PIX, pixels, labels);
	assert_true(sym_dataset_fingerprint(d) != sym_dataset_fingerprint(t));
	sym_dataset_free(t);
	sym_dataset_free(d);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Return the fingerprint of the training split of "fx", checking its
 * rows. */
static uint64_t
train_fingerprint(struct fx *fx)
{
	sym_dataset *d = sym_dataset_mnist_open(fx->ctx, fx->dir, 0);
	uint64_t h;

	assert_non_null(d);
	check_columns(d, ROWS, COLS);
	check_rows(d, N_IMG, PIX, pixels, labels);
	h = sym_dataset_fingerprint(d);
	sym_dataset_free(d);
	return h;
}

/* Remove the files "a" and "b" of "fx". */
static void
remove_files(const struct fx *fx, const char *a, const char *b)
{
	char path[1024];

	assert_int_equal(unlink(path_of(fx, a, path, sizeof(path))), 0);
	assert_int_equal(unlink(path_of(fx, b, path, sizeof(path))), 0);
}

/* Write the labels "lab" of the training split into "fx", gzip when
 * "gz". */
static void
write_labels(const struct fx *fx, const unsigned char *lab, int gz)
{
	unsigned char buf[64];
	uint32_t n = N_IMG;

	write_file(fx, LABELS, buf, idx(buf, -1, -1, 1, &n, lab, N_IMG), gz);
}

/* Check that gzip files read as the plain ones, with the same
 * fingerprint, also mixed; that a plain file comes before its .gz; that
 * the fingerprint follows the contents; "state" is the fixture. */
static void
test_mnist_gzip(void **state)
{
	static const unsigned char other[N_IMG] = { 7, 0, 255, 3, 8 };
	struct fx *fx = *state;
	uint64_t plain;
	sym_dataset *d;
	int32_t l = -1;

	write_train(fx, 0);
	plain = train_fingerprint(fx);
	assert_true(plain != 0);
	assert_true(train_fingerprint(fx) == plain);
	remove_files(fx, IMAGES, LABELS);
	write_train(fx, 1);
	assert_true(train_fingerprint(fx) == plain);
	write_labels(fx, other, 1);
	write_labels(fx, labels, 0);
	assert_true(train_fingerprint(fx) == plain);
	remove_files(fx, LABELS, IMAGES ".gz");
	write_split(fx, IMAGES, T_LABELS, N_IMG, ROWS, COLS, pixels, labels, 0);
	d = sym_dataset_mnist_open(fx->ctx, fx->dir, SYM_SPLIT_TRAIN);
	assert_non_null(d);
	assert_int_equal(sym_dataset_read(d, 1, 4, 0, 1, &l), 0);
	assert_int_equal(l, 8);
	assert_true(sym_dataset_fingerprint(d) != plain);
	sym_dataset_free(d);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Check sym_dataset_open: "mnist:DIR" opens the files as
 * sym_dataset_mnist_open does, other specifications are refused;
 * "state" is the fixture. */
static void
test_open_spec(void **state)
{
	struct fx *fx = *state;
	char spec[1024];
	sym_dataset *d;

	write_train(fx, 0);
	snprintf(spec, sizeof(spec), "mnist:%s", fx->dir);
	d = sym_dataset_open(fx->ctx, spec, SYM_SPLIT_TRAIN);
	assert_non_null(d);
	check_columns(d, ROWS, COLS);
	check_rows(d, N_IMG, PIX, pixels, labels);
	assert_true(sym_dataset_fingerprint(d) == train_fingerprint(fx));
	sym_dataset_free(d);
	assert_null(sym_dataset_open(fx->ctx, "cifar:/x", SYM_SPLIT_TRAIN));
	assert_int_equal(sym_ctx_last_error(fx->ctx), SYM_EINVAL);
	assert_string_equal(sym_ctx_last_message(fx->ctx),
	    "dataset 'cifar:/x': unknown format (expected mnist:DIR, text:FILE "
	    "or tokens:FILE.safetensors)");
	assert_null(sym_dataset_open(fx->ctx, NULL, SYM_SPLIT_TRAIN));
	assert_string_equal(sym_ctx_last_message(fx->ctx),
	    "dataset: no specification");
	assert_null(sym_dataset_open(fx->ctx, "mnist:", SYM_SPLIT_TEST));
	assert_string_equal(sym_ctx_last_message(fx->ctx),
	    "dataset mnist: no directory (mnist:DIR)");
	assert_null(sym_dataset_mnist_open(fx->ctx, fx->dir, 7));
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx), ": no split 7"));
	assert_null(sym_dataset_open(NULL, spec, SYM_SPLIT_TRAIN));
	assert_null(sym_dataset_mnist_open(NULL, fx->dir, SYM_SPLIT_TRAIN));
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Check missing files: both names tried and said, for the images and
 * for the labels, in a missing directory too; "state" is the fixture. */
static void
test_mnist_missing(void **state)
{
	struct fx *fx = *state;
	char path[1024], msg[4096];
	sym_dataset *d;

	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EIO, IMAGES, "no such file");
	path_of(fx, IMAGES, path, sizeof(path));
	d = sym_dataset_mnist_open(fx->ctx, fx->dir, SYM_SPLIT_TRAIN);
	assert_null(d);
	snprintf(msg, sizeof(msg), "%s: no such file (tried %s and %s.gz)",
	    path, path, path);
	assert_string_equal(sym_ctx_last_message(fx->ctx), msg);
	write_train(fx, 1);
	expect_error(fx, SYM_SPLIT_TEST, SYM_EIO, T_IMAGES ".gz",
	    "no such file");
	path_of(fx, LABELS ".gz", path, sizeof(path));
	assert_int_equal(unlink(path), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EIO, LABELS ".gz",
	    "no such file (tried");
	assert_null(sym_dataset_mnist_open(fx->ctx, path, SYM_SPLIT_TRAIN));
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx), "no such file"));
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Check a file that cannot be read (a directory in its place); "state"
 * is the fixture. */
static void
test_mnist_unreadable(void **state)
{
	struct fx *fx = *state;
	char path[1024];

	write_train(fx, 0);
	path_of(fx, LABELS, path, sizeof(path));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EIO, LABELS,
	    "cannot read: Is a directory");
}

/* Check a wrong magic number, a type other than unsigned byte and a
 * wrong number of dimensions; "state" is the fixture. */
static void
test_mnist_magic(void **state)
{
	struct fx *fx = *state;
	uint32_t dim[3] = { N_IMG, ROWS, COLS };
	unsigned char buf[256];
	size_t n;

	write_train(fx, 0);
	n = idx(buf, -1, -1, 3, dim, pixels, N_IMG * PIX);
	buf[0] = 0x12;
	buf[1] = 0x34;
	write_file(fx, IMAGES, buf, n, 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "wrong magic number 0x12340803, expected 0x00000803");
	write_file(fx, IMAGES, buf, idx(buf, 0x0d, -1, 3, dim, pixels, 30), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "IDX data type 0x0d, expected 0x08 (unsigned byte)");
	write_file(fx, IMAGES, buf, idx(buf, -1, 2, 3, dim, pixels, 30), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "2 dimensions, expected 3 (images, rows, columns)");
	write_train(fx, 0);
	write_file(fx, LABELS, buf, idx(buf, -1, -1, 3, dim, pixels, 30), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, LABELS,
	    "3 dimensions, expected 1 (labels)");
	write_file(fx, LABELS, "\x1f\x8b\x08\x00", 4, 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EIO, LABELS,
	    "header truncated: 0 bytes, expected 8 (the magic number and 1 "
	    "dimension) (truncated gzip stream)");
	write_file(fx, LABELS, "\x1f\x8b\x08\0\0\0\0\0\0\3\xff\xff\xff", 13, 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EIO, LABELS,
	    "cannot read its gzip stream: invalid block type");
}

/* Check headers shorter than their magic number says; "state" is the
 * fixture. */
static void
test_mnist_short_header(void **state)
{
	struct fx *fx = *state;
	uint32_t dim[3] = { N_IMG, ROWS, COLS };
	unsigned char buf[256];

	write_train(fx, 0);
	idx(buf, -1, -1, 3, dim, NULL, 0);
	write_file(fx, IMAGES, buf, 10, 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "header truncated: 10 bytes, expected 16 (the magic number and 3 "
	    "dimensions)");
	write_file(fx, IMAGES, buf, 2, 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "header truncated: 2 bytes, expected 16");
	write_train(fx, 0);
	write_file(fx, LABELS, buf, 0, 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, LABELS,
	    "header truncated: 0 bytes, expected 8 (the magic number and 1 "
	    "dimension)");
}

/* Check data shorter than the header says and trailing bytes; "state"
 * is the fixture. */
static void
test_mnist_data_size(void **state)
{
	struct fx *fx = *state;
	uint32_t dim[3] = { N_IMG, ROWS, COLS };
	unsigned char buf[256], more[N_IMG * PIX + 2] = { 0 };

	write_train(fx, 0);
	write_file(fx, IMAGES, buf, idx(buf, -1, -1, 3, dim, pixels, 29), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "data truncated: the header announces 5 images of 2x3 pixels, 30 "
	    "bytes, found 29");
	write_file(fx, IMAGES, buf, idx(buf, -1, -1, 3, dim, more, 32), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    ": trailing data after the 30 bytes of data the header announces");
	write_train(fx, 0);
	write_file(fx, LABELS, buf, idx(buf, -1, -1, 1, dim, labels, 4), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, LABELS,
	    "data truncated: the header announces 5 labels, 5 bytes, found 4");
	write_file(fx, LABELS, buf, idx(buf, -1, -1, 1, dim, more, 6), 1);
	write_file(fx, LABELS, buf, idx(buf, -1, -1, 1, dim, more, 6), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, LABELS,
	    ": trailing data after the 5 bytes of data the header announces");
}

/* Check images and labels of different counts: both files and both
 * counts are named; "state" is the fixture. */
static void
test_mnist_counts(void **state)
{
	struct fx *fx = *state;
	uint32_t four = 4;
	unsigned char buf[64];
	char im[1024], msg[4096];

	write_train(fx, 1);
	write_file(fx, LABELS, buf, idx(buf, -1, -1, 1, &four, labels, 4), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, LABELS, "4 labels");
	path_of(fx, IMAGES ".gz", im, sizeof(im));
	assert_null(sym_dataset_mnist_open(fx->ctx, fx->dir, SYM_SPLIT_TRAIN));
	snprintf(msg, sizeof(msg),
	    "mnist:%s (train): %s holds 5 images but %s/" LABELS
	    " holds 4 labels",
	    fx->dir, im, fx->dir);
	assert_string_equal(sym_ctx_last_message(fx->ctx), msg);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Check the limits: more than 2^31 items or 4 GiB of data are refused
 * before reading; a header that claims much more than the file holds
 * fails as truncated (without allocating what it claims), or before any
 * data is read when the other file's header disagrees; "state" is the
 * fixture. */
static void
test_mnist_limits(void **state)
{
	struct fx *fx = *state;
	uint32_t dim[3] = { 0x80000001u, 28, 28 };
	unsigned char buf[256];

	write_train(fx, 0);
	write_file(fx, IMAGES, buf, idx(buf, -1, -1, 3, dim, pixels, 30), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "the header claims 2147483649 items, more than 2^31");
	dim[0] = 0x80000000u;
	write_file(fx, IMAGES, buf, idx(buf, -1, -1, 3, dim, pixels, 30), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "the header claims 2147483648 items of 784 bytes, more than 4 GiB "
	    "of data");
	dim[0] = 0x40000000u;
	dim[1] = dim[2] = 2;
	write_file(fx, IMAGES, buf, idx(buf, -1, -1, 3, dim, pixels, 30), 0);
	write_file(fx, LABELS, buf, idx(buf, -1, -1, 1, dim, labels, 5), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "1073741824 images of 2x2 pixels, 4294967296 bytes, found 30");
	write_train(fx, 0);
	dim[0] = 0x80000000u;
	write_file(fx, LABELS, buf, idx(buf, -1, -1, 1, dim, labels, 5), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, LABELS,
	    " holds 5 images but ");
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx),
	    " holds 2147483648 labels"));
	dim[1] = dim[2] = 1;
	write_file(fx, IMAGES, buf, idx(buf, -1, -1, 3, dim, pixels, 5), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    "2147483648 images of 1x1 pixels, 2147483648 bytes, found 5");
}

/* Read the whole file "name" of "fx" into "buf" ("size" bytes); return
 * its length. */
static size_t
read_file(const struct fx *fx, const char *name, unsigned char *buf,
    size_t size)
{
	char path[1024];
	FILE *f = fopen(path_of(fx, name, path, sizeof(path)), "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, size, f);
	assert_true(n < size);
	fclose(f);
	return n;
}

/* Write "n" bytes of "buf" as the file "name" of "fx". */
static void
rewrite(const struct fx *fx, const char *name, const unsigned char *buf,
    size_t n)
{
	write_file(fx, name, buf, n, 0);
}

/* Check truncated and corrupt gzip streams; "state" is the fixture. */
static void
test_mnist_gzip_corrupt(void **state)
{
	struct fx *fx = *state;
	unsigned char gz[1024];
	size_t n;

	write_train(fx, 1);
	n = read_file(fx, IMAGES ".gz", gz, sizeof(gz));
	rewrite(fx, IMAGES ".gz", gz, n - 4);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EIO, IMAGES ".gz",
	    "truncated gzip stream after the 30 bytes of data");
	rewrite(fx, IMAGES ".gz", gz, 24);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EIO, IMAGES ".gz", "truncated: ");
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx),
	    "(truncated gzip stream)"));
	gz[n - 8] ^= 0xff;
	rewrite(fx, IMAGES ".gz", gz, n);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EIO, IMAGES ".gz",
	    "cannot read its gzip stream: incorrect data check");
}

/* A writer of a FIFO: its path and the "n" bytes "head" it writes
 * first, then zeros until the reader closes the FIFO. */
struct fifo_writer {
	const char *path;
	const unsigned char *head;
	size_t n;
	long long zeros; /* written after "head" */
};

/* Write the FIFO of "arg" (a struct fifo_writer) as it says; NULL. */
static void *
fifo_write(void *arg)
{
	struct fifo_writer *w = arg;
	unsigned char zero[4096] = { 0 };
	int fd = open(w->path, O_WRONLY);
	ssize_t k;

	if (fd < 0)
		return NULL;
	if (write(fd, w->head, w->n) == (ssize_t)w->n)
		while ((k = write(fd, zero, sizeof(zero))) > 0)
			w->zeros += k;
	close(fd);
	return NULL;
}

/* Check that images from a FIFO that keeps sending zeros after its data
 * fail at the first trailing byte instead of reading forever; "state"
 * is the fixture. */
static void
test_mnist_endless_fifo(void **state)
{
	struct fx *fx = *state;
	uint32_t dim[3] = { N_IMG, ROWS, COLS };
	unsigned char buf[256];
	char path[1024];
	struct fifo_writer w = { path, buf, 0, 0 };
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	pthread_t th;

	write_train(fx, 0);
	path_of(fx, IMAGES, path, sizeof(path));
	assert_int_equal(remove(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	w.n = idx(buf, -1, -1, 3, dim, pixels, N_IMG * PIX);
	assert_int_equal(sigaction(SIGPIPE, &ign, &old), 0);
	assert_int_equal(pthread_create(&th, NULL, fifo_write, &w), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES,
	    ": trailing data after the 30 bytes of data the header announces");
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(sigaction(SIGPIPE, &old, NULL), 0);
	assert_true(w.zeros > 0);
}

/* Check that a gzip whose data is followed by 4 MiB of zeros and a
 * corrupt check value fails at the first trailing byte (reading on would
 * reach the corrupt check value and report it instead); "state" is the
 * fixture. */
static void
test_mnist_gzip_trailing(void **state)
{
	struct fx *fx = *state;
	uint32_t dim[3] = { N_IMG, ROWS, COLS };
	size_t n = 4u << 20, len;
	unsigned char *big = calloc(1, n), *gz = malloc(n);
	char path[1024];
	uLongf glen = (uLongf)n;
	z_stream z = { 0 };

	assert_non_null(big);
	assert_non_null(gz);
	len = idx(big, -1, -1, 3, dim, pixels, N_IMG * PIX);
	write_train(fx, 1);
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 31, 9,
	                     Z_DEFAULT_STRATEGY),
	    Z_OK);
	z.next_in = big;
	z.avail_in = (uInt)(len + n / 2);
	z.next_out = gz;
	z.avail_out = (uInt)glen;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	glen = z.total_out;
	assert_int_equal(deflateEnd(&z), Z_OK);
	gz[glen - 8] ^= 0xff;
	path_of(fx, IMAGES ".gz", path, sizeof(path));
	rewrite(fx, IMAGES ".gz", gz, glen);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, IMAGES ".gz",
	    ": trailing data after the 30 bytes of data the header announces");
	free(big);
	free(gz);
}

/* Check that both headers are read before any data: labels whose header
 * is wrong are reported even when the images' data is truncated, and
 * counts that differ before the images' data is read; "state" is the
 * fixture. */
static void
test_mnist_headers_first(void **state)
{
	struct fx *fx = *state;
	uint32_t dim[3] = { N_IMG, ROWS, COLS }, four = 4;
	unsigned char buf[256];

	write_train(fx, 0);
	write_file(fx, IMAGES, buf, idx(buf, -1, -1, 3, dim, pixels, 29), 0);
	write_file(fx, LABELS, buf, idx(buf, 0x0d, -1, 1, dim, labels, 5), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, LABELS,
	    "IDX data type 0x0d, expected 0x08 (unsigned byte)");
	write_file(fx, LABELS, buf, idx(buf, -1, -1, 1, &four, labels, 4), 0);
	expect_error(fx, SYM_SPLIT_TRAIN, SYM_EINVAL, LABELS,
	    "holds 5 images but ");
	assert_non_null(strstr(sym_ctx_last_message(fx->ctx),
	    " holds 4 labels"));
}

/* Check that a dataset still alive counts as a live object and is freed
 * with its context (the sanitizers' leak checker sees the rest);
 * "state" is the fixture. */
static void
test_mnist_freed_with_ctx(void **state)
{
	struct fx *fx = *state;

	write_train(fx, 0);
	assert_non_null(sym_dataset_mnist_open(fx->ctx, fx->dir,
	    SYM_SPLIT_TRAIN));
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 1);
}

/* The columns of the dataset in memory of the tests (3 rows): x f64
 * [2, 2], y i32 [], z u8 [4] without data (zeros). */
static const int64_t xdim[2] = { 2, 2 }, zdim[1] = { 4 };
static const int32_t ydata[3] = { 4, -1, 2 };

/* Store in "col" the columns of the dataset in memory of the tests, x
 * from "x". */
static void
memory_columns(sym_dataset_column col[3], const double *x)
{
	col[0] = (sym_dataset_column){ "x", SYM_DT_F64, 2, xdim, x };
	col[1] = (sym_dataset_column){ "y", SYM_DT_I32, 0, NULL, ydata };
	col[2] = (sym_dataset_column){ "z", SYM_DT_U8, 1, zdim, NULL };
}

/* Check a dataset in memory: its columns, the data copied and read back
 * whole and in part, zeros without data, the fingerprint following the
 * data; "state" is the fixture. */
static void
test_memory(void **state)
{
	struct fx *fx = *state;
	double x[12], got[4] = { 0 };
	sym_dataset_column col[3];
	unsigned char z[4] = { 9, 9, 9, 9 };
	sym_dataset *d, *e;
	int32_t y = 0;

	for (int i = 0; i < 12; i++)
		x[i] = 0.5 * i - 1;
	memory_columns(col, x);
	d = sym_dataset_from_memory(fx->ctx, 3, col, 3);
	assert_non_null(d);
	x[5] = 100;
	assert_string_equal(sym_dataset_name(d), "memory");
	assert_int_equal(sym_dataset_n_rows(d), 3);
	assert_int_equal(sym_dataset_n_columns(d), 3);
	assert_string_equal(sym_dataset_column_name(d, 2), "z");
	assert_int_equal(sym_dataset_column_dtype(d, 0), SYM_DT_F64);
	assert_int_equal(sym_dataset_column_ndim(d, 0), 2);
	assert_int_equal(sym_dataset_column_dim(d, 0, 1), 2);
	assert_int_equal(sym_dataset_column_ndim(d, 1), 0);
	assert_int_equal(sym_dataset_find_column(d, "y"), 1);
	assert_int_equal(sym_dataset_read(d, 0, 1, 1, 3, got), 0);
	assert_true(got[0] == 1.5 && got[1] == 2.0 && got[2] == 2.5);
	assert_true(got[3] == 0);
	assert_int_equal(sym_dataset_read(d, 1, 1, 0, 1, &y), 0);
	assert_int_equal(y, -1);
	assert_int_equal(sym_dataset_read(d, 2, 2, 0, 4, z), 0);
	assert_true(!z[0] && !z[1] && !z[2] && !z[3]);
	assert_int_equal(sym_dataset_read(d, 0, 0, 4, 0, NULL), 0);
	e = sym_dataset_from_memory(fx->ctx, 3, col, 3);
	assert_non_null(e);
	assert_true(sym_dataset_fingerprint(d) != sym_dataset_fingerprint(e));
	x[5] = 1.5;
	sym_dataset_free(e);
	e = sym_dataset_from_memory(fx->ctx, 3, col, 3);
	assert_true(sym_dataset_fingerprint(d) == sym_dataset_fingerprint(e));
	sym_dataset_free(e);
	sym_dataset_free(d);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Check the transforms mapped over a column: a rescaling then a
 * normalisation per channel (the first dimension of a row) read back
 * whole and in part, the fingerprint following them; "state" is the
 * fixture. */
static void
test_transforms(void **state)
{
	struct fx *fx = *state;
	double x[12], got[4] = { 0 }, mean[2] = { 1, 3 }, sd[2] = { 2, 4 };
	sym_dataset_column col[3];
	sym_dataset *d;
	uint64_t before;

	for (int i = 0; i < 12; i++)
		x[i] = 0.5 * i - 1;
	memory_columns(col, x);
	d = sym_dataset_from_memory(fx->ctx, 3, col, 3);
	assert_non_null(d);
	before = sym_dataset_fingerprint(d);
	assert_int_equal(sym_dataset_rescale(d, "x", 2, 1), 0);
	assert_true(sym_dataset_fingerprint(d) != before);
	assert_int_equal(sym_dataset_read(d, 0, 1, 0, 4, got), 0);
	assert_true(got[0] == 3 && got[1] == 4 && got[2] == 5 && got[3] == 6);
	before = sym_dataset_fingerprint(d);
	assert_int_equal(sym_dataset_normalize(d, "x", mean, sd, 2), 0);
	assert_true(sym_dataset_fingerprint(d) != before);
	assert_int_equal(sym_dataset_read(d, 0, 1, 0, 4, got), 0);
	assert_true(got[0] == 1 && got[1] == 1.5 && got[2] == 0.5 &&
	    got[3] == 0.75);
	assert_int_equal(sym_dataset_read(d, 0, 2, 1, 2, got), 0);
	assert_true(got[0] == 3.5 && got[1] == 1.5);
	sym_dataset_free(d);
}

/* Fail unless the last call failed with SYM_EINVAL and the message
 * "msg" on the context of "fx". */
static void
assert_einval(struct fx *fx, const char *msg)
{
	assert_int_equal(sym_ctx_last_error(fx->ctx), SYM_EINVAL);
	assert_string_equal(sym_ctx_last_message(fx->ctx), msg);
}

/* Check that the transforms refuse a missing or integer column, a count
 * of channels other than 1 or the row's, a zero standard deviation and
 * numbers that are not finite, and leave the column as it was; "state"
 * is the fixture. */
static void
test_transform_errors(void **state)
{
	struct fx *fx = *state;
	double x[12] = { 0 }, m[3] = { 0, 0, 0 }, sd[3] = { 1, 0, 1 }, got;
	sym_dataset_column col[3];
	sym_dataset *d;

	memory_columns(col, x);
	d = sym_dataset_from_memory(fx->ctx, 3, col, 3);
	assert_non_null(d);
	assert_int_equal(sym_dataset_rescale(d, "w", 2, 0), -1);
	assert_einval(fx, "rescale: memory has no column 'w'");
	assert_int_equal(sym_dataset_rescale(d, "y", 2, 0), -1);
	assert_einval(fx,
	    "rescale: column 'y' of memory is i32: only f32 and "
	    "f64 columns are transformed");
	assert_int_equal(sym_dataset_rescale(d, "x", NAN, 0), -1);
	assert_einval(fx,
	    "rescale: the scale nan and the shift 0 must be "
	    "finite");
	assert_int_equal(sym_dataset_normalize(d, "x", m, sd, 3), -1);
	assert_einval(fx,
	    "normalize: column 'x' of memory has 2 channels (the "
	    "first dimension of a row): give 1 or 2 means and "
	    "standard deviations, not 3");
	assert_int_equal(sym_dataset_normalize(d, "x", m, sd, 2), -1);
	assert_einval(fx,
	    "normalize: channel 1: the mean 0 must be finite and "
	    "the standard deviation 0 positive");
	assert_int_equal(sym_dataset_normalize(d, "z", m, sd, 1), -1);
	assert_int_equal(sym_dataset_read(d, 0, 0, 0, 1, &got), 0);
	assert_true(got == 0);
	assert_int_equal(sym_dataset_rescale(NULL, "x", 1, 0), -1);
	sym_dataset_free(d);
}

/* Fail unless sym_dataset_from_memory refuses "n_col" columns "col" of
 * "n_rows" rows with SYM_EINVAL and the message "msg". */
static void
expect_memory_error(sym_ctx *ctx, int64_t n_rows, const sym_dataset_column *col,
    size_t n_col, const char *msg)
{
	assert_null(sym_dataset_from_memory(ctx, n_rows, col, n_col));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_string_equal(sym_ctx_last_message(ctx), msg);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_clear_error(ctx);
}

/* Check the arguments sym_dataset_from_memory refuses; "state" is the
 * fixture. */
static void
test_memory_errors(void **state)
{
	struct fx *fx = *state;
	const int64_t big[2] = { INT64_MAX, 2 }, neg[1] = { -1 };
	const int64_t nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	double x[12] = { 0 };
	sym_dataset_column col[3];
	sym_ctx *ctx = fx->ctx;

	memory_columns(col, x);
	expect_memory_error(ctx, 3, col, 0, "dataset in memory: no columns");
	expect_memory_error(ctx, 3, NULL, 2, "dataset in memory: no columns");
	expect_memory_error(ctx, -1, col, 3,
	    "dataset in memory: a negative number of rows");
	col[1].name = NULL;
	expect_memory_error(ctx, 3, col, 3,
	    "dataset in memory: column 1 has no name");
	col[1].name = "x";
	expect_memory_error(ctx, 3, col, 3,
	    "dataset in memory: columns 0 and 1 are both called 'x'");
	memory_columns(col, x);
	col[2].dim = NULL;
	expect_memory_error(ctx, 3, col, 3,
	    "dataset in memory: column 'z' has 1 dimension but no sizes");
	memory_columns(col, x);
	col[1].dtype = SYM_DT_INVALID;
	expect_memory_error(ctx, 3, col, 3,
	    "dataset in memory: column 'y': no dtype");
	memory_columns(col, x);
	expect_memory_error(ctx, INT64_MAX / 2, col, 1,
	    "dataset in memory: column 'x': too many bytes");
	col[0].dim = big;
	expect_memory_error(ctx, 3, col, 1,
	    "memory: column 'x': size 2 of dimension 1 is negative or too "
	    "large");
	col[0].dim = neg;
	col[0].ndim = 1;
	expect_memory_error(ctx, 3, col, 1,
	    "memory: column 'x': size -1 of dimension 0 is negative or too "
	    "large");
	col[0].dim = nine;
	col[0].ndim = 9;
	expect_memory_error(ctx, 3, col, 1,
	    "memory: column 'x' has 9 dimensions per row, more than 8");
	assert_null(sym_dataset_from_memory(NULL, 3, col, 1));
}

/* Fail unless reading "count" elements from "start" of row "row" of
 * column "c" of "d" into "dst" fails with the message "msg". */
static void
expect_read_error(const sym_dataset *d, sym_ctx *ctx, size_t c, int64_t row,
    int64_t start, int64_t count, void *dst, const char *msg)
{
	assert_int_equal(sym_dataset_read(d, c, row, start, count, dst), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_string_equal(sym_ctx_last_message(ctx), msg);
	sym_ctx_clear_error(ctx);
}

/* Check the arguments sym_dataset_read refuses, and the getters on NULL
 * and out of range; "state" is the fixture. */
static void
test_read_errors(void **state)
{
	struct fx *fx = *state;
	double x[12] = { 0 }, got[8];
	sym_dataset_column col[3];
	sym_dataset *d;

	memory_columns(col, x);
	d = sym_dataset_from_memory(fx->ctx, 3, col, 3);
	assert_non_null(d);
	expect_read_error(d, fx->ctx, 3, 0, 0, 1, got,
	    "memory: no column 3 (3 columns)");
	expect_read_error(d, fx->ctx, 0, 3, 0, 1, got,
	    "memory: no row 3 in column 'x' (rows 0 to 2)");
	expect_read_error(d, fx->ctx, 1, -1, 0, 1, got,
	    "memory: no row -1 in column 'y' (rows 0 to 2)");
	expect_read_error(d, fx->ctx, 0, 2, 3, 2, got,
	    "memory: 2 elements from element 3 of a row of column 'x', which "
	    "has 4");
	expect_read_error(d, fx->ctx, 0, 2, 1, INT64_MAX, got,
	    "memory: 9223372036854775807 elements from element 1 of a row of "
	    "column 'x', which has 4");
	expect_read_error(d, fx->ctx, 0, 0, -1, 1, got,
	    "memory: 1 element from element -1 of a row of column 'x', which "
	    "has 4");
	expect_read_error(d, fx->ctx, 1, 0, 0, 2, got,
	    "memory: 2 elements from element 0 of a row of column 'y', which "
	    "has 1");
	expect_read_error(d, fx->ctx, 0, 0, 0, 1, NULL,
	    "memory: no destination to read column 'x' into");
	assert_int_equal(sym_dataset_read(NULL, 0, 0, 0, 1, got), -1);
	assert_null(sym_dataset_column_name(d, 3));
	assert_int_equal(sym_dataset_column_dtype(d, 3), SYM_DT_INVALID);
	assert_int_equal(sym_dataset_column_ndim(d, 3), 0);
	assert_int_equal(sym_dataset_column_dim(d, 3, 0), -1);
	assert_int_equal(sym_dataset_find_column(d, NULL), SIZE_MAX);
	sym_dataset_free(d);
	assert_null(sym_dataset_name(NULL));
	assert_int_equal(sym_dataset_n_rows(NULL), -1);
	assert_int_equal(sym_dataset_n_columns(NULL), 0);
	assert_int_equal(sym_dataset_find_column(NULL, "x"), SIZE_MAX);
	assert_int_equal(sym_dataset_fingerprint(NULL), 0);
	sym_dataset_free(NULL);
	assert_int_equal(sym_ctx_live_objects(fx->ctx), 0);
}

/* Run the tests of the dataset family. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mnist_train, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_test_split, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_gzip, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_open_spec, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_missing, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_unreadable, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_magic, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_short_header, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_data_size, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_counts, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_limits, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_gzip_corrupt, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_endless_fifo, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_gzip_trailing, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_headers_first, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mnist_freed_with_ctx,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_read_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_transforms, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_transform_errors, setup,
		    teardown),
	};

	return cmocka_run_group_tests_name("dataset", tests, NULL, NULL);
}
