/* SPDX-License-Identifier: MIT */
/*
 * Element types: names, sizes and classes.
 */
#include <string.h>

#include "shape/shape_private.h"

static const struct {
	const char *name;
	size_t size;
	int is_float;
} dtypes[] = {
	[SYM_DT_INVALID] = { "invalid", 0, 0 },
	[SYM_DT_F16] = { "f16", 2, 1 },
	[SYM_DT_BF16] = { "bf16", 2, 1 },
	[SYM_DT_F32] = { "f32", 4, 1 },
	[SYM_DT_F64] = { "f64", 8, 1 },
	[SYM_DT_I8] = { "i8", 1, 0 },
	[SYM_DT_I16] = { "i16", 2, 0 },
	[SYM_DT_I32] = { "i32", 4, 0 },
	[SYM_DT_I64] = { "i64", 8, 0 },
	[SYM_DT_U8] = { "u8", 1, 0 },
	[SYM_DT_BOOL] = { "bool", 1, 0 },
};

#define N_DTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

/* Return 1 when "dt" is a valid dtype other than SYM_DT_INVALID. */
static int
valid(sym_dtype dt)
{
	return (unsigned)dt > SYM_DT_INVALID && (unsigned)dt < N_DTYPES;
}

/* Return the name of "dt" ("f32"), or "invalid" for anything else. */
const char *
sym_dtype_name(sym_dtype dt)
{
	return valid(dt) ? dtypes[dt].name : dtypes[SYM_DT_INVALID].name;
}

/* Return the dtype called "name", or SYM_DT_INVALID when there is none. */
sym_dtype
sym_dtype_from_name(const char *name)
{
	if (!name)
		return SYM_DT_INVALID;
	for (unsigned i = SYM_DT_INVALID + 1; i < N_DTYPES; i++)
		if (!strcmp(dtypes[i].name, name))
			return (sym_dtype)i;
	return SYM_DT_INVALID;
}

/* Return the size in bytes of one element of "dt", 0 when invalid. */
size_t
sym_dtype_size(sym_dtype dt)
{
	return valid(dt) ? dtypes[dt].size : 0;
}

/* Return SYM_TRUE when "dt" is a floating-point type, SYM_FALSE when
 * not, SYM_ERROR when it is no type. */
sym_answer
sym_dtype_is_float(sym_dtype dt)
{
	if (!valid(dt))
		return SYM_ERROR;
	return dtypes[dt].is_float ? SYM_TRUE : SYM_FALSE;
}
