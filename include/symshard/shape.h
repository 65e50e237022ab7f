/* SPDX-License-Identifier: MIT */
/*
 * symshard: dtypes, shapes and the operator registry (sym_shape(3)).
 */
#ifndef SYMSHARD_SHAPE_H
#define SYMSHARD_SHAPE_H

#include <symshard/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sym_dtype {
	SYM_DT_INVALID = 0,
	SYM_DT_F16,
	SYM_DT_BF16,
	SYM_DT_F32,
	SYM_DT_F64,
	SYM_DT_I8,
	SYM_DT_I16,
	SYM_DT_I32,
	SYM_DT_I64,
	SYM_DT_U8,
	SYM_DT_BOOL
} sym_dtype;

typedef struct sym_shape sym_shape;
typedef struct sym_attrs sym_attrs;
typedef struct sym_op sym_op;

/* Kinds of attribute values. */
typedef enum sym_attr_kind {
	SYM_ATTR_NONE = 0,
	SYM_ATTR_INT,
	SYM_ATTR_BOOL,
	SYM_ATTR_FLOAT,
	SYM_ATTR_STRING,
	SYM_ATTR_LIST /* a list of expressions (integers included) */
} sym_attr_kind;

SYM_EXPORT SYM_KEEP const char *sym_dtype_name(sym_dtype dt);
SYM_EXPORT sym_dtype sym_dtype_from_name(const char *name);
SYM_EXPORT size_t sym_dtype_size(sym_dtype dt);
SYM_EXPORT sym_answer sym_dtype_is_float(sym_dtype dt);

SYM_EXPORT SYM_GIVE sym_shape *sym_shape_new(SYM_KEEP sym_ctx *ctx,
    sym_dtype dt, size_t rank, SYM_KEEP sym_expr *const *dims);
SYM_EXPORT SYM_GIVE sym_shape *sym_shape_copy(SYM_KEEP const sym_shape *s);
SYM_EXPORT SYM_NULL sym_shape *sym_shape_free(SYM_TAKE sym_shape *s);
SYM_EXPORT sym_dtype sym_shape_dtype(SYM_KEEP const sym_shape *s);
SYM_EXPORT size_t sym_shape_ndim(SYM_KEEP const sym_shape *s);
SYM_EXPORT SYM_KEEP const sym_expr *sym_shape_dim(SYM_KEEP const sym_shape *s,
    size_t i);
SYM_EXPORT SYM_GIVE sym_expr *sym_shape_numel(SYM_KEEP const sym_shape *s);
SYM_EXPORT sym_answer sym_shape_is_equal(SYM_KEEP const sym_shape *a,
    SYM_KEEP const sym_shape *b);
SYM_EXPORT SYM_GIVE char *sym_shape_to_str(SYM_KEEP const sym_shape *s);
SYM_EXPORT SYM_GIVE char *sym_shape_dims_to_str(SYM_KEEP const sym_shape *s);

SYM_EXPORT SYM_GIVE sym_attrs *sym_attrs_new(SYM_KEEP sym_ctx *ctx);
SYM_EXPORT void sym_attrs_free(SYM_TAKE sym_attrs *a);
SYM_EXPORT int sym_attrs_set_int(SYM_KEEP sym_attrs *a, const char *name,
    int64_t v);
SYM_EXPORT int sym_attrs_set_bool(SYM_KEEP sym_attrs *a, const char *name,
    int v);
SYM_EXPORT int sym_attrs_set_float(SYM_KEEP sym_attrs *a, const char *name,
    double v);
SYM_EXPORT int sym_attrs_set_string(SYM_KEEP sym_attrs *a, const char *name,
    const char *v);
SYM_EXPORT int sym_attrs_set_list(SYM_KEEP sym_attrs *a, const char *name,
    size_t n, SYM_KEEP sym_expr *const *items);
SYM_EXPORT int sym_attrs_set_loc(SYM_KEEP sym_attrs *a, const char *name,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT size_t sym_attrs_n_names(SYM_KEEP const sym_attrs *a);
SYM_EXPORT SYM_KEEP const char *sym_attrs_name(SYM_KEEP const sym_attrs *a,
    size_t i);
SYM_EXPORT sym_attr_kind sym_attrs_kind(SYM_KEEP const sym_attrs *a,
    const char *name);
SYM_EXPORT int sym_attrs_get_int(SYM_KEEP const sym_attrs *a, const char *name,
    int64_t *v);
SYM_EXPORT int sym_attrs_get_bool(SYM_KEEP const sym_attrs *a, const char *name,
    int *v);
SYM_EXPORT int sym_attrs_get_float(SYM_KEEP const sym_attrs *a,
    const char *name, double *v);
SYM_EXPORT SYM_KEEP const char *
sym_attrs_get_string(SYM_KEEP const sym_attrs *a, const char *name);
SYM_EXPORT size_t sym_attrs_list_n_items(SYM_KEEP const sym_attrs *a,
    const char *name);
SYM_EXPORT SYM_KEEP const sym_expr *
sym_attrs_list_item(SYM_KEEP const sym_attrs *a, const char *name, size_t i);
SYM_EXPORT SYM_GIVE char *sym_attrs_to_str(SYM_KEEP const sym_attrs *a);

SYM_EXPORT SYM_KEEP const sym_op *sym_op_find(const char *name);
SYM_EXPORT size_t sym_registry_n_ops(void);
SYM_EXPORT SYM_KEEP const sym_op *sym_registry_op(size_t i);
SYM_EXPORT SYM_KEEP const char *sym_op_name(SYM_KEEP const sym_op *op);
SYM_EXPORT SYM_KEEP const char *sym_op_family(SYM_KEEP const sym_op *op);
SYM_EXPORT int sym_op_min_inputs(SYM_KEEP const sym_op *op);
SYM_EXPORT int sym_op_max_inputs(SYM_KEEP const sym_op *op);
SYM_EXPORT SYM_KEEP const char *sym_op_positional(SYM_KEEP const sym_op *op,
    size_t i);

#ifdef __cplusplus
}
#endif

#endif
