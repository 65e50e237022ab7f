/* SPDX-License-Identifier: MIT */
/*
 * The body of a checkpoint, shared by its core (checkpoint.c), its
 * reader (checkpoint_read.c) and its writer (checkpoint_write.c).
 */
#ifndef SYM_CKPT_CHECKPOINT_PRIVATE_H
#define SYM_CKPT_CHECKPOINT_PRIVATE_H

#include <stdio.h>

#include <symshard/checkpoint.h>

#include "core/ctx_private.h"
#include "core/strmap.h"

/* The most dimensions a tensor of a checkpoint has (as the executor). */
#define SYM__CKPT_MAX_NDIM 8
/* Every tensor's data starts at a multiple of this in the buffer. */
#define SYM__CKPT_ALIGN 16
/* The largest header a file may have, in bytes (as safetensors). */
#define SYM__CKPT_MAX_HEADER 100000000ULL
/* The deepest nesting of arrays and objects a header may have. */
#define SYM__CKPT_MAX_DEPTH 64
/* The name of the header's entry of metadata. */
#define SYM__CKPT_METADATA "__metadata__"

/* A tensor: its name, dtype, shape, and where its data is in the
 * checkpoint's buffer ("bytes" bytes from "offset", host byte order). */
struct sym__ctensor {
	char *name;
	sym_dtype dtype;
	size_t ndim;
	int64_t dim[SYM__CKPT_MAX_NDIM];
	size_t offset, bytes;
};

/* A metadata entry: two strings. */
struct sym__cmeta {
	char *key, *value;
};

struct sym_checkpoint {
	struct sym__obj obj;
	sym_ctx *ctx;
	struct sym__ctensor *t; /* in the order added or in file order */
	size_t n, cap;
	struct sym__strmap names; /* name to index in "t" */
	char *data;               /* one buffer for every tensor's data */
	size_t used, cap_data;
	struct sym__cmeta *meta;
	size_t n_meta, cap_meta;
};

/* Return the safetensors name of "dt" ("F32"), NULL when invalid. */
const char *sym__ckpt_dtype_name(sym_dtype dt);
/* Return the dtype of the safetensors name "name", SYM_DT_INVALID when
 * symshard has none. */
sym_dtype sym__ckpt_dtype_from_name(const char *name);
/* Return 1 when the host stores integers little-endian, else 0. */
int sym__ckpt_host_is_le(void);
/* Copy "bytes" bytes of elements of "es" bytes from "src" to "dst",
 * reversing the bytes of each element; "dst" may be "src". */
void sym__ckpt_swap(void *dst, const void *src, size_t bytes, size_t es);
/* Make room in the buffer of "ck" for "bytes" more bytes of data after
 * aligning; 0, or -1 with an error on its context. */
int sym__ckpt_reserve(sym_checkpoint *ck, size_t bytes);
/* Append to "ck" a tensor "name" of "dtype" and shape "dim" ("ndim"
 * sizes, checked by the caller) of "bytes" bytes, its data not set;
 * return its index, or SIZE_MAX with an error on the context. */
size_t sym__ckpt_push(sym_checkpoint *ck, const char *name, sym_dtype dtype,
    size_t ndim, const int64_t *dim, size_t bytes);

/* checkpoint_header.c: the header of a safetensors file read as a
 * stream. A tensor: its name (an offset in the names), the byte of the
 * header where its key starts, its data [begin, end), its dtype and its
 * "ndim" sizes from "dim" in the sizes. */
struct sym__st_entry {
	uint64_t name, at, begin, end, dim;
	sym_dtype dtype;
	uint8_t ndim;
};

/* A metadata entry: its key and value (offsets in the names) and the
 * byte where its key starts. */
struct sym__st_meta {
	uint64_t key, value, at;
};

/* A header: its names (NUL-terminated strings one after the other), its
 * tensors and their sizes, its metadata. */
struct sym__st_header {
	char *names;
	size_t n_names, cap_names;
	struct sym__st_entry *e;
	size_t n, cap;
	int64_t *dims;
	size_t n_dims, cap_dims;
	struct sym__st_meta *meta;
	size_t n_meta, cap_meta;
};

/* Read the header of "len" bytes of "f" (named "path") into "h"; 0, or
 * -1 with an error on "ctx". */
int sym__st_header_read(sym_ctx *ctx, const char *path, FILE *f, uint64_t len,
    struct sym__st_header *h);
/* Free what "h" holds. */
void sym__st_header_clear(struct sym__st_header *h);
/* Append the metadata "key" = "value" (copied) to "ck", whose keys are
 * known to differ; 0, or -1 with an error on its context. */
int sym__ckpt_meta_append(sym_checkpoint *ck, const char *key,
    const char *value);

/* checkpoint_convert.c: elements between the executor's storage (f32
 * for f16 and bf16, int32 for the integer dtypes) and their dtype. */
/* Return the bytes of one element of "dt" in the executor. */
size_t sym__ckpt_storage_size(sym_dtype dt);
/* Convert "n" stored elements of "dt" at "src" to "dt" at "dst". */
void sym__ckpt_from_storage(sym_dtype dt, const void *src, void *dst, size_t n);
/* Convert "n" elements of "dt" at "src" to the storage at "dst"; return
 * SIZE_MAX, or the index of the first one that does not fit. */
size_t sym__ckpt_to_storage(sym_dtype dt, const void *src, void *dst, size_t n);

#endif
