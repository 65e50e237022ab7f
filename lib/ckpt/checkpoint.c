/* SPDX-License-Identifier: MIT */
/*
 * Checkpoints: an in-memory set of named whole tensors (name, dtype,
 * shape, data) with string metadata, read from and written to the
 * safetensors format (checkpoint_read.c, checkpoint_write.c). The data
 * of every tensor lives in one buffer of the checkpoint, each tensor's
 * at an aligned offset, in the host's byte order.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ckpt/checkpoint_private.h"

/* The safetensors names of the dtypes. */
static const char *const dtype_names[] = {
	[SYM_DT_F16] = "F16",
	[SYM_DT_BF16] = "BF16",
	[SYM_DT_F32] = "F32",
	[SYM_DT_F64] = "F64",
	[SYM_DT_I8] = "I8",
	[SYM_DT_I16] = "I16",
	[SYM_DT_I32] = "I32",
	[SYM_DT_I64] = "I64",
	[SYM_DT_U8] = "U8",
	[SYM_DT_BOOL] = "BOOL",
};

#define N_DTYPE_NAMES (sizeof(dtype_names) / sizeof(dtype_names[0]))

/* Return the safetensors name of "dt" ("F32"), NULL when invalid. */
const char *
sym__ckpt_dtype_name(sym_dtype dt)
{
	return (unsigned)dt < N_DTYPE_NAMES ? dtype_names[dt] : NULL;
}

/* Return the dtype whose safetensors name is "name", SYM_DT_INVALID when
 * there is none. */
sym_dtype
sym__ckpt_dtype_from_name(const char *name)
{
	for (unsigned i = 0; name && i < N_DTYPE_NAMES; i++)
		if (dtype_names[i] && !strcmp(dtype_names[i], name))
			return (sym_dtype)i;
	return SYM_DT_INVALID;
}

/* Return 1 when the host stores integers little-endian, else 0. */
int
sym__ckpt_host_is_le(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

/* Copy "bytes" bytes of elements of "es" bytes (at most 8) from "src" to
 * "dst", reversing the bytes of each element; "dst" may be "src". */
void
sym__ckpt_swap(void *dst, const void *src, size_t bytes, size_t es)
{
	const unsigned char *s = src;
	unsigned char *d = dst, tmp[8];

	for (size_t i = 0; i + es <= bytes; i += es) {
		memcpy(tmp, s + i, es);
		for (size_t k = 0; k < es; k++)
			d[i + k] = tmp[es - 1 - k];
	}
}

/* Return "n" rounded up to a multiple of SYM__CKPT_ALIGN (SIZE_MAX when
 * that overflows). */
static size_t
align_up(size_t n)
{
	size_t a = SYM__CKPT_ALIGN;

	return n > SIZE_MAX - (a - 1) ? SIZE_MAX : (n + a - 1) / a * a;
}

/* Make room in the buffer of "ck" (allocated then, if it was not) for
 * "bytes" more bytes after aligning its end; 0, or -1 with SYM_ENOMEM on
 * its context. */
int
sym__ckpt_reserve(sym_checkpoint *ck, size_t bytes)
{
	size_t off = align_up(ck->used), cap;
	char *q;

	if (off == SIZE_MAX || bytes > SIZE_MAX - off) {
		sym__oom_bytes(ck->ctx, SIZE_MAX, 2,
		    "the data of a checkpoint");
		return -1;
	}
	if (ck->data && off + bytes <= ck->cap_data)
		return 0;
	cap = ck->cap_data > SIZE_MAX / 2 ? SIZE_MAX : 2 * ck->cap_data;
	if (cap < off + bytes)
		cap = off + bytes;
	if (cap < 256)
		cap = 256;
	q = realloc(ck->data, cap);
	if (!q) {
		sym__oom_bytes(ck->ctx, cap, 1, "the data of a checkpoint");
		return -1;
	}
	ck->data = q;
	ck->cap_data = cap;
	return 0;
}

/* Append to "ck" a tensor "name" of "dtype" and shape "dim" ("ndim"
 * sizes, checked by the caller) of "bytes" bytes, its data not set;
 * return its index, or SIZE_MAX with an error on the context. */
size_t
sym__ckpt_push(sym_checkpoint *ck, const char *name, sym_dtype dtype,
    size_t ndim, const int64_t *dim, size_t bytes)
{
	struct sym__ctensor *t;

	if (sym__ckpt_reserve(ck, bytes) < 0)
		return SIZE_MAX;
	if (SYM__RESERVE(ck->ctx, ck->t, ck->cap, ck->n + 1) < 0)
		return SIZE_MAX;
	t = &ck->t[ck->n];
	memset(t, 0, sizeof(*t));
	t->name = sym__strdup(ck->ctx, name);
	if (!t->name || sym__strmap_put(ck->ctx, &ck->names, t->name, ck->n)) {
		free(t->name);
		return SIZE_MAX;
	}
	t->dtype = dtype;
	t->ndim = ndim;
	if (ndim)
		memcpy(t->dim, dim, ndim * sizeof(*dim));
	t->offset = align_up(ck->used);
	t->bytes = bytes;
	ck->used = t->offset + bytes;
	return ck->n++;
}

/* Free the checkpoint whose link is "link" (at sym_ctx_free too). */
static void
checkpoint_destroy(struct sym__obj *obj)
{
	sym_checkpoint *ck = SYM__OBJ_OF(obj, sym_checkpoint, obj);

	for (size_t i = 0; i < ck->n; i++)
		free(ck->t[i].name);
	for (size_t i = 0; i < ck->n_meta; i++) {
		free(ck->meta[i].key);
		free(ck->meta[i].value);
	}
	sym__strmap_clear(&ck->names);
	free(ck->t);
	free(ck->meta);
	free(ck->data);
	free(ck);
}

/* Return a new empty checkpoint of "ctx", NULL when out of memory. */
sym_checkpoint *
sym_checkpoint_new(sym_ctx *ctx)
{
	sym_checkpoint *ck;

	if (!ctx)
		return NULL;
	ck = sym__alloc(ctx, sizeof(*ck));
	if (!ck)
		return NULL;
	ck->ctx = ctx;
	sym__obj_init(&ck->obj, SYM__OBJ_CHECKPOINT, checkpoint_destroy);
	sym__obj_give(ctx, &ck->obj);
	return ck;
}

/* Free "ck" (NULL: nothing). */
void
sym_checkpoint_free(sym_checkpoint *ck)
{
	if (!ck)
		return;
	sym__obj_drop(ck->ctx, &ck->obj);
}

/* Return 1 when "s" is valid UTF-8 (what a JSON string holds), else 0. */
static int
is_utf8(const char *s)
{
	json_t *j = json_string(s);

	json_decref(j);
	return j != NULL;
}

/* Check that "name" can name a new tensor of "ck": not NULL, empty,
 * reserved, invalid UTF-8 or taken; 0, or -1 with an error. */
static int
check_name(sym_checkpoint *ck, const char *name)
{
	size_t i;

	if (!name || !*name)
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: a tensor needs a name that is not empty");
	else if (!strcmp(name, SYM__CKPT_METADATA))
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: '%s' names the metadata, not a tensor", name);
	else if (!is_utf8(name))
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: the tensor name '%s' is not valid UTF-8",
		    name);
	else if (sym__strmap_get(&ck->names, name, &i))
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: a tensor named '%s' is already there", name);
	else
		return 0;
	return -1;
}

/* Store in "*bytes" the byte count of a tensor of "dtype" and shape
 * "dim" ("ndim" sizes); 0, or -1 when a size is negative or the count
 * does not fit in int64_t and size_t. */
static int
shape_bytes(sym_dtype dtype, size_t ndim, const int64_t *dim, size_t *bytes)
{
	uint64_t n = sym_dtype_size(dtype), max = INT64_MAX;

	if (max > SIZE_MAX)
		max = SIZE_MAX;
	for (size_t i = 0; i < ndim; i++) {
		if (dim[i] < 0 || (dim[i] && n > max / (uint64_t)dim[i]))
			return -1;
		n *= (uint64_t)dim[i];
	}
	*bytes = (size_t)n;
	return 0;
}

/* Check "dtype" and the shape "dim" ("ndim" sizes) of the tensor "name"
 * of "ck", storing its byte count in "*bytes"; 0, or -1 with an error. */
static int
check_shape(sym_checkpoint *ck, const char *name, sym_dtype dtype, size_t ndim,
    const int64_t *dim, size_t *bytes)
{
	if (!sym__ckpt_dtype_name(dtype))
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: tensor '%s': unknown dtype %d", name,
		    (int)dtype);
	else if (ndim > SYM__CKPT_MAX_NDIM)
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: tensor '%s' has %zu dimensions, more than %d",
		    name, ndim, SYM__CKPT_MAX_NDIM);
	else if (ndim && !dim)
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: tensor '%s' has %zu dimensions but no sizes",
		    name, ndim);
	else if (shape_bytes(dtype, ndim, dim, bytes) < 0)
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: tensor '%s': a size is negative or the "
		    "tensor has more bytes than 64 bits count",
		    name);
	else
		return 0;
	return -1;
}

/* Add to "ck" a copy of the tensor "name" of "dtype" and shape "dim"
 * ("ndim" sizes) whose data, row-major in the host's byte order, is
 * "data"; 0, or -1 with an error on the context of "ck". */
int
sym_checkpoint_add(sym_checkpoint *ck, const char *name, sym_dtype dtype,
    size_t ndim, const int64_t *dim, const void *data)
{
	size_t bytes, i;

	if (!ck || check_name(ck, name) < 0 ||
	    check_shape(ck, name, dtype, ndim, dim, &bytes) < 0)
		return -1;
	if (bytes && !data) {
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: tensor '%s' of %zu bytes has no data", name,
		    bytes);
		return -1;
	}
	i = sym__ckpt_push(ck, name, dtype, ndim, dim, bytes);
	if (i == SIZE_MAX)
		return -1;
	if (bytes)
		memcpy(ck->data + ck->t[i].offset, data, bytes);
	return 0;
}

/* Return the index of the metadata entry "key" of "ck", SIZE_MAX when
 * there is none. */
static size_t
find_meta(const sym_checkpoint *ck, const char *key)
{
	for (size_t i = 0; key && i < ck->n_meta; i++)
		if (!strcmp(ck->meta[i].key, key))
			return i;
	return SIZE_MAX;
}

/* Append the entry "key" = "value" (copied) to the metadata of "ck";
 * 0, or -1 with SYM_ENOMEM. */
static int
append_meta(sym_checkpoint *ck, const char *key, const char *value)
{
	struct sym__cmeta e;

	if (SYM__RESERVE(ck->ctx, ck->meta, ck->cap_meta, ck->n_meta + 1) < 0)
		return -1;
	e.key = sym__strdup(ck->ctx, key);
	e.value = e.key ? sym__strdup(ck->ctx, value) : NULL;
	if (!e.value) {
		free(e.key);
		return -1;
	}
	ck->meta[ck->n_meta++] = e;
	return 0;
}

/* Append the metadata "key" = "value" (copied) to "ck", whose keys are
 * known to differ from "key"; 0, or -1 with an error on its context. */
int
sym__ckpt_meta_append(sym_checkpoint *ck, const char *key, const char *value)
{
	return append_meta(ck, key, value);
}

/* Set the metadata entry "key" of "ck" to a copy of "value", or remove
 * it when "value" is NULL; 0, or -1 with an error on the context. */
int
sym_checkpoint_set_metadata(sym_checkpoint *ck, const char *key,
    const char *value)
{
	size_t i;
	char *v;

	if (!ck)
		return -1;
	if (!key || !*key || !is_utf8(key) || (value && !is_utf8(value))) {
		sym__error(ck->ctx, SYM_EINVAL, NULL,
		    "checkpoint: metadata '%s': keys must be non-empty and "
		    "keys and values valid UTF-8",
		    key ? key : "(null)");
		return -1;
	}
	i = find_meta(ck, key);
	if (i == SIZE_MAX)
		return value ? append_meta(ck, key, value) : 0;
	if (!value) {
		free(ck->meta[i].key);
		free(ck->meta[i].value);
		memmove(&ck->meta[i], &ck->meta[i + 1],
		    (ck->n_meta - i - 1) * sizeof(*ck->meta));
		ck->n_meta--;
		return 0;
	}
	v = sym__strdup(ck->ctx, value);
	if (!v)
		return -1;
	free(ck->meta[i].value);
	ck->meta[i].value = v;
	return 0;
}

/* Return the metadata value "key" of "ck", NULL when absent. */
const char *
sym_checkpoint_metadata(const sym_checkpoint *ck, const char *key)
{
	size_t i = ck ? find_meta(ck, key) : SIZE_MAX;

	return i == SIZE_MAX ? NULL : ck->meta[i].value;
}

/* Return the number of tensors of "ck", 0 for NULL. */
size_t
sym_checkpoint_n_tensors(const sym_checkpoint *ck)
{
	return ck ? ck->n : 0;
}

/* Return the index of the tensor "name" of "ck", SIZE_MAX when none. */
size_t
sym_checkpoint_find(const sym_checkpoint *ck, const char *name)
{
	size_t i;

	return ck && sym__strmap_get(&ck->names, name, &i) ? i : SIZE_MAX;
}

/* Return tensor "i" of "ck", NULL when out of range. */
static const struct sym__ctensor *
tensor(const sym_checkpoint *ck, size_t i)
{
	return ck && i < ck->n ? &ck->t[i] : NULL;
}

/* Return the name of tensor "i" of "ck", NULL when out of range. */
const char *
sym_checkpoint_tensor_name(const sym_checkpoint *ck, size_t i)
{
	return tensor(ck, i) ? tensor(ck, i)->name : NULL;
}

/* Return the dtype of tensor "i" of "ck", SYM_DT_INVALID when out of
 * range. */
sym_dtype
sym_checkpoint_tensor_dtype(const sym_checkpoint *ck, size_t i)
{
	return tensor(ck, i) ? tensor(ck, i)->dtype : SYM_DT_INVALID;
}

/* Return the number of dimensions of tensor "i" of "ck", 0 when out of
 * range. */
size_t
sym_checkpoint_tensor_ndim(const sym_checkpoint *ck, size_t i)
{
	return tensor(ck, i) ? tensor(ck, i)->ndim : 0;
}

/* Return size "d" of tensor "i" of "ck", -1 when out of range. */
int64_t
sym_checkpoint_tensor_dim(const sym_checkpoint *ck, size_t i, size_t d)
{
	const struct sym__ctensor *t = tensor(ck, i);

	return t && d < t->ndim ? t->dim[d] : -1;
}

/* Return the data of tensor "i" of "ck" and store its size in "*bytes"
 * (unless "bytes" is NULL); NULL and 0 when out of range. */
const void *
sym_checkpoint_tensor_data(const sym_checkpoint *ck, size_t i, size_t *bytes)
{
	const struct sym__ctensor *t = tensor(ck, i);

	if (bytes)
		*bytes = t ? t->bytes : 0;
	return t ? ck->data + t->offset : NULL;
}
