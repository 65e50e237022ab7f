/* SPDX-License-Identifier: MIT */
/*
 * symshard: checkpoints in the safetensors format (sym_checkpoint(3),
 * symshard-checkpoint(5)).
 */
#ifndef SYMSHARD_CHECKPOINT_H
#define SYMSHARD_CHECKPOINT_H

#include <symshard/common.h>
#include <symshard/shape.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_checkpoint sym_checkpoint;

SYM_EXPORT SYM_GIVE sym_checkpoint *sym_checkpoint_new(SYM_KEEP sym_ctx *ctx);
SYM_EXPORT SYM_GIVE sym_checkpoint *sym_checkpoint_read(SYM_KEEP sym_ctx *ctx,
    const char *path);
SYM_EXPORT void sym_checkpoint_free(SYM_TAKE sym_checkpoint *ck);
SYM_EXPORT int sym_checkpoint_add(SYM_KEEP sym_checkpoint *ck, const char *name,
    sym_dtype dtype, size_t ndim, const int64_t *dim, const void *data);
SYM_EXPORT int sym_checkpoint_set_metadata(SYM_KEEP sym_checkpoint *ck,
    const char *key, const char *value);
SYM_EXPORT SYM_KEEP const char *
sym_checkpoint_metadata(SYM_KEEP const sym_checkpoint *ck, const char *key);
SYM_EXPORT int sym_checkpoint_check_path(SYM_KEEP sym_ctx *ctx,
    const char *path);
SYM_EXPORT int sym_checkpoint_write(SYM_KEEP const sym_checkpoint *ck,
    const char *path);
SYM_EXPORT size_t sym_checkpoint_n_tensors(SYM_KEEP const sym_checkpoint *ck);
SYM_EXPORT size_t sym_checkpoint_find(SYM_KEEP const sym_checkpoint *ck,
    const char *name);
SYM_EXPORT SYM_KEEP const char *
sym_checkpoint_tensor_name(SYM_KEEP const sym_checkpoint *ck, size_t i);
SYM_EXPORT sym_dtype
sym_checkpoint_tensor_dtype(SYM_KEEP const sym_checkpoint *ck, size_t i);
SYM_EXPORT size_t sym_checkpoint_tensor_ndim(SYM_KEEP const sym_checkpoint *ck,
    size_t i);
SYM_EXPORT int64_t sym_checkpoint_tensor_dim(SYM_KEEP const sym_checkpoint *ck,
    size_t i, size_t d);
SYM_EXPORT SYM_KEEP const void *
sym_checkpoint_tensor_data(SYM_KEEP const sym_checkpoint *ck, size_t i,
    size_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
