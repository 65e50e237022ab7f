/*
 * Reading a checkpoint from a safetensors file: an 8-byte little-endian
 * header length N, N bytes of a JSON object (the header: every tensor's
 * dtype, shape and data offsets, and "__metadata__"), then the data. The
 * header is validated whole before any data is read: dtypes, shapes,
 * offsets and sizes, and a data area that the tensors cover exactly,
 * without gaps or overlaps, as the format requires.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "train/checkpoint_private.h"

/* A tensor of the header: its name (the header's), dtype, shape, its
 * bytes [begin, end) in the data area and its position in the header. */
struct entry {
	const char *name;
	sym_dtype dtype;
	size_t ndim;
	int64_t dim[SYM__CKPT_MAX_NDIM];
	uint64_t begin, end;
	size_t pos;
};

/* A file being read: its name, stream and size; its header's length,
 * text and JSON value, the tensors in it and the size of its data area
 * (what follows the header). */
struct reader {
	sym_ctx *ctx;
	const char *path;
	FILE *f;
	uint64_t size, n_header, n_data;
	char *text;
	json_t *root, *meta;
	struct entry *e;
	size_t n;
};

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

/* Return the key that ends just before byte "pos" of the header of "r"
 * (where jansson reports a duplicate key), decoded, or NULL. */
static json_t *
key_before(const struct reader *r, size_t pos)
{
	size_t q = pos - 1, bs;

	if (pos < 2 || pos > r->n_header || r->text[q] != '"')
		return NULL;
	while (q-- > 0) {
		if (r->text[q] != '"')
			continue;
		for (bs = 0; bs < q && r->text[q - 1 - bs] == '\\'; bs++)
			;
		if (bs % 2 == 0)
			return json_loadb(r->text + q, pos - q, JSON_DECODE_ANY,
			    NULL);
	}
	return NULL;
}

/* Read and parse the header of "r" into "r->root"; 0, or -1 with an
 * error. */
static int
read_header(struct reader *r)
{
	json_error_t err;
	json_t *key;

	r->text = sym__alloc(r->ctx, (size_t)r->n_header + 1);
	if (!r->text)
		return -1;
	if (fread(r->text, 1, (size_t)r->n_header, r->f) != r->n_header)
		return fail(r, SYM_EIO, "cannot read the header: %s",
		    ferror(r->f) ? strerror(errno) : "the file shrank");
	r->root = json_loadb(r->text, (size_t)r->n_header,
	    JSON_REJECT_DUPLICATES, &err);
	if (!r->root && json_error_code(&err) == json_error_duplicate_key &&
	    (key = key_before(r, (size_t)err.position)) &&
	    json_is_string(key)) {
		fail(r, SYM_EINVAL, "the header has the key '%s' twice",
		    json_string_value(key));
		json_decref(key);
		return -1;
	}
	if (!r->root)
		return fail(r, SYM_EINVAL,
		    "not a safetensors file: its header is not JSON (%s, at "
		    "byte %d of the header)",
		    err.text, err.position);
	if (!json_is_object(r->root))
		return fail(r, SYM_EINVAL,
		    "not a safetensors file: its header is not a JSON object");
	return 0;
}

/* Check the metadata of the header of "r", when it has some: an object
 * of strings; 0, or -1 with an error. */
static int
check_metadata(struct reader *r)
{
	r->meta = json_object_get(r->root, SYM__CKPT_METADATA);
	if (r->meta && !json_is_object(r->meta))
		return fail(r, SYM_EINVAL, "%s is not an object of strings",
		    SYM__CKPT_METADATA);
	for (void *it = json_object_iter(r->meta); it;
	     it = json_object_iter_next(r->meta, it))
		if (!*json_object_iter_key(it) ||
		    !json_is_string(json_object_iter_value(it)))
			return fail(r, SYM_EINVAL,
			    "%s: the key '%s' is empty or its value not a "
			    "string",
			    SYM__CKPT_METADATA, json_object_iter_key(it));
	return 0;
}

/* Return 1 when "v" is a JSON integer that is not negative, else 0. */
static int
is_count(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

/* Set the dtype and the shape of "e" from "v", its entry in the header
 * of "r"; 0, or -1 with an error. */
static int
parse_type(struct reader *r, struct entry *e, json_t *v)
{
	const char *dt = json_string_value(json_object_get(v, "dtype"));
	json_t *shape = json_object_get(v, "shape");

	if (!dt)
		return fail(r, SYM_EINVAL, "tensor '%s' has no dtype string",
		    e->name);
	e->dtype = sym__ckpt_dtype_from_name(dt);
	if (e->dtype == SYM_DT_INVALID)
		return fail(r, SYM_EINVAL,
		    "tensor '%s': unknown dtype '%s' (symshard reads F16, "
		    "BF16, F32, F64, I8, I16, I32, I64, U8 and BOOL)",
		    e->name, dt);
	if (!json_is_array(shape))
		return fail(r, SYM_EINVAL,
		    "tensor '%s': its shape is not a list of non-negative "
		    "integers",
		    e->name);
	e->ndim = json_array_size(shape);
	if (e->ndim > SYM__CKPT_MAX_NDIM)
		return fail(r, SYM_EINVAL,
		    "tensor '%s' has %zu dimensions, more than %d", e->name,
		    e->ndim, SYM__CKPT_MAX_NDIM);
	for (size_t i = 0; i < e->ndim; i++) {
		json_t *d = json_array_get(shape, i);

		if (!is_count(d))
			return fail(r, SYM_EINVAL,
			    "tensor '%s': its shape is not a list of "
			    "non-negative integers",
			    e->name);
		e->dim[i] = json_integer_value(d);
	}
	return 0;
}

/* Store in "*bytes" the byte count of "e"; 0, or -1 when it does not fit
 * in 64 bits. */
static int
entry_bytes(const struct entry *e, uint64_t *bytes)
{
	uint64_t n = sym_dtype_size(e->dtype);

	for (size_t i = 0; i < e->ndim; i++) {
		if (e->dim[i] && n > (uint64_t)INT64_MAX / (uint64_t)e->dim[i])
			return -1;
		n *= (uint64_t)e->dim[i];
	}
	*bytes = n;
	return 0;
}

/* Write the shape of "e" to "buf" ("size" bytes) as "[2, 3]". */
static void
shape_text(const struct entry *e, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < e->ndim && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%lld",
		    i ? ", " : "", (long long)e->dim[i]);
}

/* Set the data offsets of "e" from "v", its entry in the header of "r",
 * and check them against its dtype and shape; 0, or -1 with an error. */
static int
parse_offsets(struct reader *r, struct entry *e, json_t *v)
{
	json_t *o = json_object_get(v, "data_offsets");
	json_t *b = json_array_get(o, 0), *end = json_array_get(o, 1);
	uint64_t want;
	char shape[SYM__CKPT_MAX_NDIM * 22];

	if (json_array_size(o) != 2 || !is_count(b) || !is_count(end) ||
	    json_integer_value(b) > json_integer_value(end))
		return fail(r, SYM_EINVAL,
		    "tensor '%s': its data_offsets are not two integers "
		    "[BEGIN, END] with 0 <= BEGIN <= END",
		    e->name);
	e->begin = (uint64_t)json_integer_value(b);
	e->end = (uint64_t)json_integer_value(end);
	if (entry_bytes(e, &want) < 0)
		return fail(r, SYM_EINVAL,
		    "tensor '%s': its shape has more bytes than 64 bits count",
		    e->name);
	if (e->end - e->begin == want)
		return 0;
	shape_text(e, shape, sizeof(shape));
	return fail(r, SYM_EINVAL,
	    "tensor '%s': its data_offsets [%llu, %llu] hold %llu bytes, but "
	    "%s [%s] takes %llu",
	    e->name, (unsigned long long)e->begin, (unsigned long long)e->end,
	    (unsigned long long)(e->end - e->begin),
	    sym__ckpt_dtype_name(e->dtype), shape, (unsigned long long)want);
}

/* Read every tensor entry of the header of "r" into "r->e"; 0, or -1
 * with an error. */
static int
parse_entries(struct reader *r)
{
	r->e = sym__realloc_array(r->ctx, NULL, json_object_size(r->root) + 1,
	    sizeof(*r->e));
	if (!r->e)
		return -1;
	for (void *it = json_object_iter(r->root); it;
	     it = json_object_iter_next(r->root, it)) {
		const char *name = json_object_iter_key(it);
		json_t *v = json_object_iter_value(it);
		struct entry *e = &r->e[r->n];

		if (v == r->meta)
			continue;
		memset(e, 0, sizeof(*e));
		e->name = name;
		e->pos = r->n++;
		if (!*name)
			return fail(r, SYM_EINVAL,
			    "a tensor of the header has an empty name");
		if (!json_is_object(v))
			return fail(r, SYM_EINVAL,
			    "tensor '%s' is not an object with a dtype, a "
			    "shape and data_offsets",
			    name);
		if (parse_type(r, e, v) < 0 || parse_offsets(r, e, v) < 0)
			return -1;
	}
	return 0;
}

/* Order two entries by their data, then by their place in the header. */
static int
by_offsets(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Check that the entries of "r", sorted by their data, cover its data
 * area exactly: no gap, no overlap, nothing missing, nothing after; 0,
 * or -1 with an error. */
static int
check_cover(struct reader *r)
{
	uint64_t at = 0;
	size_t last = SIZE_MAX;

	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->begin > at)
			return fail(r, SYM_EINVAL,
			    "bytes [%llu, %llu) of the data are in no tensor "
			    "(the next is '%s')",
			    (unsigned long long)at,
			    (unsigned long long)e->begin, e->name);
		if (e->begin < at)
			return fail(r, SYM_EINVAL,
			    "tensors '%s' and '%s' overlap at byte %llu of "
			    "the data",
			    r->e[last].name, e->name,
			    (unsigned long long)e->begin);
		at = e->end;
		last = i;
	}
	for (size_t i = 0; at > r->n_data && i < r->n; i++)
		if (r->e[i].end > r->n_data)
			return fail(r, SYM_EINVAL,
			    "truncated: tensor '%s' needs bytes [%llu, %llu) "
			    "of the data, which has %llu: %llu bytes missing",
			    r->e[i].name, (unsigned long long)r->e[i].begin,
			    (unsigned long long)r->e[i].end,
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
	size_t total = 0, a = SYM__CKPT_ALIGN;

	if (r->n_data > SIZE_MAX - a * (r->n + 1)) {
		sym__oom_bytes(r->ctx, SIZE_MAX, 2, "the data of a checkpoint");
		goto fail;
	}
	for (size_t i = 0; i < r->n; i++)
		total = (total + a - 1) / a * a +
		    (size_t)(r->e[i].end - r->e[i].begin);
	if (!ck || sym__ckpt_reserve(ck, total) < 0)
		goto fail;
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (sym__ckpt_push(ck, e->name, e->dtype, e->ndim, e->dim,
		        (size_t)(e->end - e->begin)) == SIZE_MAX)
			goto fail;
	}
	for (void *it = json_object_iter(r->meta); it;
	     it = json_object_iter_next(r->meta, it))
		if (sym_checkpoint_set_metadata(ck, json_object_iter_key(it),
		        json_string_value(json_object_iter_value(it))) < 0)
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
	struct reader r = { ctx, path ? path : "(null)", NULL, 0, 0, 0, NULL,
		NULL, NULL, NULL, 0 };
	sym_checkpoint *ck = NULL;

	if (!ctx)
		return NULL;
	if (!path)
		fail(&r, SYM_EINVAL, "no file name");
	else if (open_file(&r) == 0 && read_length(&r) == 0 &&
	    read_header(&r) == 0 && check_metadata(&r) == 0 &&
	    parse_entries(&r) == 0) {
		qsort(r.e, r.n, sizeof(*r.e), by_offsets);
		if (check_cover(&r) == 0 && (ck = build(&r)) &&
		    read_data(&r, ck) < 0) {
			sym_checkpoint_free(ck);
			ck = NULL;
		}
	}
	if (r.f)
		fclose(r.f);
	json_decref(r.root);
	free(r.text);
	free(r.e);
	return ck;
}
