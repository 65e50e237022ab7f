/*
 * The body of a checkpoint, shared by its core (checkpoint.c), its
 * reader (checkpoint_read.c) and its writer (checkpoint_write.c).
 */
#ifndef SYM_TRAIN_CHECKPOINT_PRIVATE_H
#define SYM_TRAIN_CHECKPOINT_PRIVATE_H

#include <symshard/checkpoint.h>

#include "core/ctx_private.h"
#include "core/strmap.h"

/* The most dimensions a tensor of a checkpoint has (as the executor). */
#define SYM__CKPT_MAX_NDIM 8
/* Every tensor's data starts at a multiple of this in the buffer. */
#define SYM__CKPT_ALIGN 16
/* The largest header a file may have, in bytes (as safetensors). */
#define SYM__CKPT_MAX_HEADER 100000000ULL
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
