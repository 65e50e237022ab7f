/* SPDX-License-Identifier: MIT */
/*
 * Reading a checkpoint from a safetensors file: an 8-byte little-endian
 * header length N, N bytes of a JSON object (the header: every tensor's
 * dtype, shape and data offsets, and "__metadata__"), then the data. The
 * header is read as a stream (checkpoint_header.c) and validated whole
 * before any data is read: dtypes, shapes, offsets and sizes, and a data
 * area that the tensors cover exactly, without gaps or overlaps, as the
 * format requires.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt/checkpoint_private.h"

/* A file being read: its name, stream and size; its header's length,
 * its tensors and metadata, and the size of its data area (what follows
 * the header). */
struct reader {
	sym_ctx *ctx;
	const char *path;
	FILE *f;
	uint64_t size, n_header, n_data;
	struct sym__st_header h;
};

/* The name at "off" in the names of the header of "r". */
#define NAME(r, off) ((r)->h.names + (off))

/* Record on the context of "r" an error "code" whose message is the
 * path of its file, ": " and "fmt"; return -1. */
static int __attribute__((format(printf, 3, 4)))
fail(struct reader *r, sym_error code, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = sym__vasprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		sym__oom(r->ctx);
	else
		sym__error(r->ctx, code, NULL, "%s: %s", r->path, msg);
	free(msg);
	return -1;
}

/* Open the file of "r" and find its size; 0, or -1 with an error. */
static int
open_file(struct reader *r)
{
	struct stat st;

	r->f = fopen(r->path, "rb");
	if (!r->f || fstat(fileno(r->f), &st) < 0)
		return fail(r, SYM_EIO, "cannot open: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(r, SYM_EINVAL, "not a regular file");
	r->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	return 0;
}

/* Read the header length of the file of "r"; 0, or -1 with an error. */
static int
read_length(struct reader *r)
{
	unsigned char b[8];

	if (r->size < 8 || fread(b, 1, 8, r->f) != 8)
		return fail(r, SYM_EINVAL,
		    "not a safetensors file: %llu bytes, too short for the "
		    "8-byte header length",
		    (unsigned long long)r->size);
	r->n_header = 0;
	for (int i = 7; i >= 0; i--)
		r->n_header = r->n_header << 8 | b[i];
	if (r->n_header > r->size - 8)
		return fail(r, SYM_EINVAL,
		    "not a safetensors file: its header length %llu is "
		    "larger than the %llu bytes that follow it",
		    (unsigned long long)r->n_header,
		    (unsigned long long)(r->size - 8));
	if (r->n_header > SYM__CKPT_MAX_HEADER)
		return fail(r, SYM_EINVAL,
		    "not a safetensors file: its header length %llu is "
		    "larger than the limit, %llu bytes",
		    (unsigned long long)r->n_header, SYM__CKPT_MAX_HEADER);
	r->n_data = r->size - 8 - r->n_header;
	return 0;
}

/* Order two entries by their data, then by their place in the header. */
static int
by_offsets(const void *a, const void *b)
{
	const struct sym__st_entry *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Check that the entries of "r", sorted by their data, cover its data
 * area exactly: no gap, no overlap, nothing missing, nothing after; 0,
 * or -1 with an error. */
static int
check_cover(struct reader *r)
{
	uint64_t at = 0;
	size_t last = SIZE_MAX;

	for (size_t i = 0; i < r->h.n; i++) {
		const struct sym__st_entry *e = &r->h.e[i];

		if (e->begin > at)
			return fail(r, SYM_EINVAL,
			    "bytes [%llu, %llu) of the data are in no tensor "
			    "(the next is '%s')",
			    (unsigned long long)at,
			    (unsigned long long)e->begin, NAME(r, e->name));
		if (e->begin < at)
			return fail(r, SYM_EINVAL,
			    "tensors '%s' and '%s' overlap at byte %llu of "
			    "the data",
			    NAME(r, r->h.e[last].name), NAME(r, e->name),
			    (unsigned long long)e->begin);
		at = e->end;
		last = i;
	}
	for (size_t i = 0; at > r->n_data && i < r->h.n; i++)
		if (r->h.e[i].end > r->n_data)
			return fail(r, SYM_EINVAL,
			    "truncated: tensor '%s' needs bytes [%llu, %llu) "
			    "of the data, which has %llu: %llu bytes missing",
			    NAME(r, r->h.e[i].name),
			    (unsigned long long)r->h.e[i].begin,
			    (unsigned long long)r->h.e[i].end,
			    (unsigned long long)r->n_data,
			    (unsigned long long)(at - r->n_data));
	if (at < r->n_data)
		return fail(r, SYM_EINVAL,
		    "bytes [%llu, %llu) at the end of the data are in no "
		    "tensor",
		    (unsigned long long)at, (unsigned long long)r->n_data);
	return 0;
}

/* Return the checkpoint of "r", its tensors in the order of their data,
 * its metadata the header's; NULL with an error. */
static sym_checkpoint *
build(struct reader *r)
{
	sym_checkpoint *ck = sym_checkpoint_new(r->ctx);
	size_t total = 0, a = SYM__CKPT_ALIGN, n = r->h.n;

	if (r->n_data > SIZE_MAX - a * (n + 1)) {
		sym__oom_bytes(r->ctx, SIZE_MAX, 2, "the data of a checkpoint");
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		total = (total + a - 1) / a * a +
		    (size_t)(r->h.e[i].end - r->h.e[i].begin);
	if (!ck || sym__ckpt_reserve(ck, total) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		const struct sym__st_entry *e = &r->h.e[i];

		if (sym__ckpt_push(ck, NAME(r, e->name), e->dtype, e->ndim,
		        r->h.dims + e->dim,
		        (size_t)(e->end - e->begin)) == SIZE_MAX)
			goto fail;
	}
	for (size_t i = 0; i < r->h.n_meta; i++)
		if (sym__ckpt_meta_append(ck, NAME(r, r->h.meta[i].key),
		        NAME(r, r->h.meta[i].value)) < 0)
			goto fail;
	return ck;
fail:
	sym_checkpoint_free(ck);
	return NULL;
}

/* Read the data of every tensor of "ck" from the file of "r" (the
 * tensors in the order of their data, which follows the header without
 * gaps), converting it to the host's byte order; 0, or -1 with an
 * error. */
static int
read_data(struct reader *r, sym_checkpoint *ck)
{
	int le = sym__ckpt_host_is_le();

	for (size_t i = 0; i < ck->n; i++) {
		struct sym__ctensor *t = &ck->t[i];
		char *p = ck->data + t->offset;

		if (fread(p, 1, t->bytes, r->f) != t->bytes)
			return fail(r, SYM_EIO, "cannot read tensor '%s': %s",
			    t->name,
			    ferror(r->f) ? strerror(errno) : "the file shrank");
		if (!le)
			sym__ckpt_swap(p, p, t->bytes,
			    sym_dtype_size(t->dtype));
	}
	return 0;
}

/* Return the checkpoint read from the safetensors file "path", with an
 * error on "ctx" when it cannot be read or is not valid (NULL then). */
sym_checkpoint *
sym_checkpoint_read(sym_ctx *ctx, const char *path)
{
	struct reader r;
	sym_checkpoint *ck = NULL;

	if (!ctx)
		return NULL;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.path = path ? path : "(null)";
	if (!path)
		fail(&r, SYM_EINVAL, "no file name");
	else if (open_file(&r) == 0 && read_length(&r) == 0 &&
	    sym__st_header_read(ctx, r.path, r.f, r.n_header, &r.h) == 0) {
		qsort(r.h.e, r.h.n, sizeof(*r.h.e), by_offsets);
		if (check_cover(&r) == 0 && (ck = build(&r)) &&
		    read_data(&r, ck) < 0) {
			sym_checkpoint_free(ck);
			ck = NULL;
		}
	}
	if (r.f)
		fclose(r.f);
	sym__st_header_clear(&r.h);
	return ck;
}
