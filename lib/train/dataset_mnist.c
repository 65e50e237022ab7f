/* SPDX-License-Identifier: MIT */
/*
 * MNIST/IDX files (sym_dataset(3)), read as MindSpore's MnistDataset
 * does: the images and labels of one split of a directory, each file
 * plain or gzip. The pixels stay bytes in memory (60000 images are 47 MB,
 * not 188 MB of floats per process) and are scaled to [0, 1] as rows are
 * read. Both headers are read and checked before either file's data, and
 * a file is read one byte past its data, no further. Every byte read of
 * the (uncompressed) files goes into the fingerprint.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "core/simd.h"
#include "train/dataset_private.h"

/* The limits of a file's header: items, and bytes of data. */
#define IDX_MAX_ITEMS ((uint64_t)1 << 31)
#define IDX_MAX_BYTES ((uint64_t)1 << 32)
/* The first buffer for the data, doubled as the data comes; a single
 * gzread reads at most IDX_MAX_READ bytes (it counts in an int). */
#define IDX_FIRST_CAP ((size_t)1 << 20)
#define IDX_MAX_READ ((size_t)1 << 30)

/* The files of each split (train, test): images, then labels. */
static const char *const split_file[2][2] = {
	{ "train-images-idx3-ubyte", "train-labels-idx1-ubyte" },
	{ "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte" },
};

/* The state of an MNIST dataset: every pixel and every label as a byte. */
struct mnist {
	unsigned char *image; /* n_rows rows of "row_bytes" */
	unsigned char *label; /* n_rows */
	size_t row_bytes;
};

/* One IDX file being read into the dataset "d". */
struct idx {
	sym_dataset *d; /* its fingerprint takes every byte read */
	char *path;     /* as opened: DIR/name or DIR/name.gz */
	gzFile f;
	int ndim; /* 3 for images (count, rows, columns), 1 for labels */
	uint64_t dim[3];
	uint64_t bytes; /* of data, as the header says */
	unsigned char *data;
};

/* Read from an MNIST dataset (see struct sym__dataset_ops): column 0
 * the pixels divided by 255, column 1 the label. */
static void
mnist_read(const sym_dataset *d, size_t c, int64_t row, int64_t start,
    int64_t count, void *dst)
{
	const struct mnist *m = d->state;
	const unsigned char *p;
	float *f = dst;

	if (c == 1) {
		*(int32_t *)dst = m->label[row];
		return;
	}
	p = m->image + (size_t)row * m->row_bytes + (size_t)start;
	SYM__SIMD
	for (int64_t i = 0; i < count; i++)
		f[i] = (float)p[i] / 255.0f;
}

/* Free the state of the MNIST dataset "d". */
static void
mnist_destroy(sym_dataset *d)
{
	struct mnist *m = d->state;

	if (m) {
		free(m->image);
		free(m->label);
	}
	free(m);
}

static const struct sym__dataset_ops mnist_ops = { mnist_read, mnist_destroy,
	NULL };

/* Return "dir"/"name" followed by "suffix", malloc'ed; NULL with an
 * error on "ctx". */
static char *
join_path(sym_ctx *ctx, const char *dir, const char *name, const char *suffix)
{
	size_t n = strlen(dir);
	char *s = sym__asprintf("%s%s%s%s", dir,
	    n && dir[n - 1] == '/' ? "" : "/", name, suffix);

	if (!s)
		sym__oom(ctx);
	return s;
}

/* Open "path" into "x"; return 0, or the errno of open(2), or -1 with
 * an error on the context of "x". */
static int
open_one(struct idx *x, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno ? errno : EIO;
	x->path = sym__strdup(x->d->ctx, path);
	x->f = x->path ? gzdopen(fd, "rb") : NULL;
	if (!x->f) {
		close(fd);
		if (x->path)
			sym__oom(x->d->ctx);
		return -1;
	}
	gzbuffer(x->f, 1 << 17);
	return 0;
}

/* Record on "ctx" that "path" cannot be opened for the errno "err", or
 * that neither "path" nor "gz" exists when "gz" is given; return -1. */
static int
open_error(sym_ctx *ctx, const char *path, const char *gz, int err)
{
	if (gz)
		sym__error(ctx, SYM_EIO, NULL,
		    "%s: no such file (tried %s and %s)", path, path, gz);
	else
		sym__error(ctx, SYM_EIO, NULL, "%s: cannot open: %s", path,
		    strerror(err));
	return -1;
}

/* Return whether the errno "err" says that a file does not exist. */
static int
missing(int err)
{
	return err == ENOENT || err == ENOTDIR;
}

/* Open the file "name" of "dir", or else "name".gz, into "x"; 0, or -1
 * with an error on the context of "x". */
static int
idx_open(struct idx *x, const char *dir, const char *name)
{
	sym_ctx *ctx = x->d->ctx;
	char *plain = join_path(ctx, dir, name, ""), *gz = NULL;
	int err = plain ? open_one(x, plain) : -1;

	if (missing(err) && (gz = join_path(ctx, dir, name, ".gz"))) {
		int gerr = open_one(x, gz);

		if (missing(gerr))
			err = open_error(ctx, plain, gz, gerr);
		else
			err = gerr > 0 ? open_error(ctx, gz, NULL, gerr) : gerr;
	} else if (missing(err)) {
		err = -1;
	} else if (err > 0) {
		err = open_error(ctx, plain, NULL, err);
	}
	free(plain);
	free(gz);
	return err ? -1 : 0;
}

/* Return whether the gzip stream of "x" ended before its end. */
static int
gz_truncated(struct idx *x)
{
	int code;

	gzerror(x->f, &code);
	return code == Z_BUF_ERROR;
}

/* Record on the context of "x" that its file cannot be read (with
 * zlib's message, without the "<fd:N>: " it starts with); return -1. */
static int
read_error(struct idx *x)
{
	int code, err = errno;
	const char *msg = gzerror(x->f, &code);

	if (code == Z_ERRNO)
		msg = strerror(err ? err : EIO);
	else if (!strncmp(msg, "<fd:", 4) && strstr(msg, ": "))
		msg = strstr(msg, ": ") + 2;
	sym__error(x->d->ctx, SYM_EIO, NULL, "%s: cannot read%s: %s", x->path,
	    code == Z_DATA_ERROR ? " its gzip stream" : "", msg);
	return -1;
}

/* Read up to "n" bytes of "x" into "buf" and mix them into the
 * fingerprint; return how many (fewer at the end of the file), or -1
 * with an error on the context of "x". */
static int64_t
idx_read(struct idx *x, void *buf, size_t n)
{
	size_t got = 0;
	int k = 1;

	while (got < n && k > 0) {
		size_t want = n - got < IDX_MAX_READ ? n - got : IDX_MAX_READ;

		errno = 0;
		k = gzread(x->f, (char *)buf + got, (unsigned)want);
		if (k < 0)
			return read_error(x);
		got += (size_t)k;
	}
	x->d->fingerprint = sym__fnv1a(x->d->fingerprint, buf, got);
	return (int64_t)got;
}

/* Return the code of an error for a file "x" that ends early: SYM_EIO
 * when its gzip stream does, else SYM_EINVAL. */
static sym_error
short_code(struct idx *x)
{
	return gz_truncated(x) ? SYM_EIO : SYM_EINVAL;
}

/* Return " (truncated gzip stream)" when the gzip stream of "x" ended
 * before its end, else "". */
static const char *
gz_note(struct idx *x)
{
	return gz_truncated(x) ? " (truncated gzip stream)" : "";
}

/* Check the magic number "m" of "x"; 0, or -1 with an error. */
static int
check_magic(struct idx *x, const unsigned char *m)
{
	sym_ctx *ctx = x->d->ctx;

	if (m[0] || m[1]) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: wrong magic number 0x%02x%02x%02x%02x, expected "
		    "0x0000080%d (IDX, unsigned bytes, %d dimension%s)",
		    x->path, m[0], m[1], m[2], m[3], x->ndim, x->ndim,
		    x->ndim > 1 ? "s" : "");
		return -1;
	}
	if (m[2] != 0x08) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: IDX data type 0x%02x, expected 0x08 (unsigned byte)",
		    x->path, m[2]);
		return -1;
	}
	if (m[3] != x->ndim) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: %d dimensions, expected %d (%s)", x->path, m[3],
		    x->ndim, x->ndim > 1 ? "images, rows, columns" : "labels");
		return -1;
	}
	return 0;
}

/* Check the sizes "x" declares and set its byte count; 0, or -1 with an
 * error. */
static int
check_sizes(struct idx *x)
{
	uint64_t per = x->ndim > 1 ? x->dim[1] * x->dim[2] : 1;

	if (x->dim[0] > IDX_MAX_ITEMS) {
		sym__error(x->d->ctx, SYM_EINVAL, NULL,
		    "%s: the header claims %llu items, more than 2^31", x->path,
		    (unsigned long long)x->dim[0]);
		return -1;
	}
	if (per && x->dim[0] > IDX_MAX_BYTES / per) {
		sym__error(x->d->ctx, SYM_EINVAL, NULL,
		    "%s: the header claims %llu items of %llu bytes, more "
		    "than 4 GiB of data",
		    x->path, (unsigned long long)x->dim[0],
		    (unsigned long long)per);
		return -1;
	}
	x->bytes = x->dim[0] * per;
	return 0;
}

/* Read and check the header of "x"; 0, or -1 with an error. */
static int
idx_header(struct idx *x)
{
	unsigned char h[16];
	size_t want = 4 + 4 * (size_t)x->ndim;
	int64_t got = idx_read(x, h, 4), rest = 0;

	if (got == 4 && check_magic(x, h) < 0)
		return -1;
	if (got == 4)
		rest = idx_read(x, h + 4, want - 4);
	if (got < 0 || rest < 0)
		return -1;
	if ((size_t)(got + rest) < want) {
		sym__error(x->d->ctx, short_code(x), NULL,
		    "%s: header truncated: %lld bytes, expected %zu (the "
		    "magic number and %d dimension%s)%s",
		    x->path, (long long)(got + rest), want, x->ndim,
		    x->ndim > 1 ? "s" : "", gz_note(x));
		return -1;
	}
	for (int i = 0; i < x->ndim; i++)
		x->dim[i] = (uint64_t)h[4 + 4 * i] << 24 |
		    (uint64_t)h[5 + 4 * i] << 16 | (uint64_t)h[6 + 4 * i] << 8 |
		    h[7 + 4 * i];
	return check_sizes(x);
}

/* Record on the context of "x" that its data stops after "have" bytes;
 * return -1. */
static int
data_truncated(struct idx *x, uint64_t have)
{
	if (x->ndim > 1)
		sym__error(x->d->ctx, short_code(x), NULL,
		    "%s: data truncated: the header announces %llu images "
		    "of %llux%llu pixels, %llu bytes, found %llu%s",
		    x->path, (unsigned long long)x->dim[0],
		    (unsigned long long)x->dim[1],
		    (unsigned long long)x->dim[2], (unsigned long long)x->bytes,
		    (unsigned long long)have, gz_note(x));
	else
		sym__error(x->d->ctx, short_code(x), NULL,
		    "%s: data truncated: the header announces %llu labels, "
		    "%llu bytes, found %llu%s",
		    x->path, (unsigned long long)x->dim[0],
		    (unsigned long long)x->bytes, (unsigned long long)have,
		    gz_note(x));
	return -1;
}

/* Read the data of "x", the buffer growing as it comes (a header that
 * lies costs no more memory than the file holds); 0, or -1 with an
 * error. */
static int
idx_data(struct idx *x)
{
	size_t cap = 0, have = 0;
	int64_t got = 1;

	while (have < x->bytes && got > 0) {
		size_t want = cap ? 2 * cap : IDX_FIRST_CAP;
		unsigned char *p;

		if (want > x->bytes)
			want = (size_t)x->bytes;
		p = sym__realloc_array(x->d->ctx, x->data, want, 1);
		if (!p) {
			sym__oom_bytes(x->d->ctx, want, 1, x->path);
			return -1;
		}
		x->data = p;
		cap = want;
		if ((got = idx_read(x, p + have, cap - have)) < 0)
			return -1;
		have += (size_t)got;
	}
	return have < x->bytes ? data_truncated(x, have) : 0;
}

/* Check that nothing follows the data of "x": one byte more is read, so
 * that a stream that never ends (a FIFO, a gzip of endless zeros) fails
 * at its first trailing byte; 0, or -1 with an error. */
static int
idx_trailing(struct idx *x)
{
	unsigned char byte;
	int k = gzread(x->f, &byte, 1);

	if (k < 0)
		return read_error(x);
	if (k > 0) {
		sym__error(x->d->ctx, SYM_EINVAL, NULL,
		    "%s: trailing data after the %llu bytes of data the "
		    "header announces",
		    x->path, (unsigned long long)x->bytes);
		return -1;
	}
	if (gz_truncated(x)) {
		sym__error(x->d->ctx, SYM_EIO, NULL,
		    "%s: truncated gzip stream after the %llu bytes of data",
		    x->path, (unsigned long long)x->bytes);
		return -1;
	}
	return 0;
}

/* Close "x" and free what it holds but its data. */
static void
idx_close(struct idx *x)
{
	if (x->f)
		gzclose(x->f);
	x->f = NULL;
	free(x->path);
	x->path = NULL;
}

/* Open the IDX file "name" (or "name".gz) of "dir", of "ndim"
 * dimensions, into "x" for "d" and read its header (idx_close closes
 * it); 0, or -1 with an error on its context. */
static int
idx_begin(struct idx *x, sym_dataset *d, const char *dir, const char *name,
    int ndim)
{
	memset(x, 0, sizeof(*x));
	x->d = d;
	x->ndim = ndim;
	if (idx_open(x, dir, name) < 0 || idx_header(x) < 0)
		return -1;
	return 0;
}

/* Read the data of "x", whose header is read, and check that nothing
 * follows it; 0, or -1 with an error on its context. */
static int
idx_finish(struct idx *x)
{
	return idx_data(x) < 0 || idx_trailing(x) < 0 ? -1 : 0;
}

/* Check that the headers of the images "im" and labels "lb" of "d"
 * announce as many items; 0, or -1 with an error naming both files. */
static int
counts_agree(sym_dataset *d, const struct idx *im, const struct idx *lb)
{
	if (im->dim[0] == lb->dim[0])
		return 0;
	sym__error(d->ctx, SYM_EINVAL, NULL,
	    "%s: %s holds %llu images but %s holds %llu labels", d->name,
	    im->path, (unsigned long long)im->dim[0], lb->path,
	    (unsigned long long)lb->dim[0]);
	return -1;
}

/* Hand the data of the images "im" and labels "lb" of "d" (as many) to
 * the dataset with its columns; 0, or -1 with an error. */
static int
mnist_columns(sym_dataset *d, struct idx *im, struct idx *lb)
{
	struct mnist *m = d->state;
	int64_t dim[3] = { 1, (int64_t)im->dim[1], (int64_t)im->dim[2] };

	m->image = im->data;
	m->label = lb->data;
	m->row_bytes = (size_t)(im->dim[1] * im->dim[2]);
	im->data = lb->data = NULL;
	d->n_rows = (int64_t)im->dim[0];
	if (sym__dataset_set_column(d, 0, "image", SYM_DT_F32, 3, dim) < 0 ||
	    sym__dataset_set_column(d, 1, "label", SYM_DT_I32, 0, NULL) < 0)
		return -1;
	return 0;
}

/* Return a new dataset of "ctx" called "name" with an empty MNIST state;
 * NULL when out of memory. */
static sym_dataset *
mnist_new(sym_ctx *ctx, const char *name)
{
	struct mnist *m = sym__alloc(ctx, sizeof(*m));
	sym_dataset *d;

	if (!m)
		return NULL;
	d = sym__dataset_new(ctx, name, &mnist_ops, m, 2);
	if (!d)
		free(m);
	return d;
}

/* Return the dataset of the split "split" of the MNIST/IDX files in
 * "dir", of "ctx"; NULL with an error on "ctx". */
sym_dataset *
sym_dataset_mnist_open(sym_ctx *ctx, const char *dir, sym_dataset_split split)
{
	int t = split == SYM_SPLIT_TEST;
	struct idx im = { 0 }, lb = { 0 };
	sym_dataset *d = NULL;
	char *name;

	if (!ctx)
		return NULL;
	if (!dir || !*dir) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "dataset mnist: no directory (mnist:DIR)");
		return NULL;
	}
	if (split != SYM_SPLIT_TRAIN && !t) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "mnist:%s: no split %d (train or test)", dir, (int)split);
		return NULL;
	}
	name = sym__asprintf("mnist:%s (%s)", dir, t ? "test" : "train");
	if (name)
		d = mnist_new(ctx, name);
	else
		sym__oom(ctx);
	if (d &&
	    (idx_begin(&im, d, dir, split_file[t][0], 3) < 0 ||
	        idx_begin(&lb, d, dir, split_file[t][1], 1) < 0 ||
	        counts_agree(d, &im, &lb) < 0 || idx_finish(&im) < 0 ||
	        idx_finish(&lb) < 0 || mnist_columns(d, &im, &lb) < 0)) {
		sym_dataset_free(d);
		d = NULL;
	}
	idx_close(&im);
	idx_close(&lb);
	free(im.data);
	free(lb.data);
	free(name);
	return d;
}
