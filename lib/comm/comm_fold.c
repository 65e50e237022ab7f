/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of the reductions, shared by both backends so that they
 * give bitwise the same results: element by element, the members' values
 * are combined in group order, ((x0 + x1) + x2) + ..., whatever the
 * backend and however the vector is cut into shares, segments or tiles.
 */
#include <string.h>

#include "comm/comm_private.h"

#define FOLD_TILE_BYTES 4096

/* Store in "out" the "len" values of "a" combined with those of "b": sum
 * or max of float, double and int32 (the int32 sum wraps modulo 2^32).
 * "out" may be "a" or "b". Blocks of 64 through a local array let the
 * compiler vectorise without run-time alias checks. */
#define COMBINE(name, type, expr)                                             \
	static void name(type *out, const type *a, const type *b, size_t len) \
	{                                                                     \
		type t[64];                                                   \
		size_t k = 0;                                                 \
		for (; k + 64 <= len; k += 64) {                              \
			for (size_t u = 0; u < 64; u++)                       \
				t[u] = expr(a[k + u], b[k + u]);              \
			memcpy(out + k, t, sizeof(t));                        \
		}                                                             \
		for (; k < len; k++)                                          \
			out[k] = expr(a[k], b[k]);                            \
	}

#define ADD(a, b) ((a) + (b))
#define ADD_WRAP(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define MAX(a, b) ((b) > (a) ? (b) : (a))

COMBINE(sum_f32, float, ADD)
COMBINE(sum_f64, double, ADD)
COMBINE(sum_i32, int32_t, ADD_WRAP)
COMBINE(max_f32, float, MAX)
COMBINE(max_f64, double, MAX)
COMBINE(max_i32, int32_t, MAX)

/* Store in "out" the "len" elements of "x" combined with those of "y" by
 * the reduction of "a"; "out" may be "x" or "y". */
void
sym__comm_combine(const struct sym__comm_args *a, void *out, const void *x,
    const void *y, size_t len)
{
	int sum = a->op == SYM_REDUCE_SUM;

	switch (a->dtype) {
	case SYM_DT_F32:
		(sum ? sum_f32 : max_f32)(out, x, y, len);
		break;
	case SYM_DT_F64:
		(sum ? sum_f64 : max_f64)(out, x, y, len);
		break;
	default:
		(sum ? sum_i32 : max_i32)(out, x, y, len);
		break;
	}
}

/* Return the first element of member "c"'s share of "count" elements
 * split among "n" members, at a multiple of "unit" ("count" for "c" =
 * "n"): the split of a reduction's segment that both backends make, so
 * that a reduce_scatter's blocks are the same on threads and MPI. */
size_t
sym__comm_share(size_t count, int n, int c, size_t unit)
{
	size_t q = count / (size_t)n, r = count % (size_t)n;
	size_t lo = q * (size_t)c + ((size_t)c < r ? (size_t)c : r);

	return c >= n ? count : lo / unit * unit;
}

/* Return the size of an element of the reduction of "a". */
size_t
sym__comm_elem_size(const struct sym__comm_args *a)
{
	return a->dtype == SYM_DT_F64 ? 8 : 4;
}

/* Store at "out" the reduction by "a", in order, of the "n" vectors of
 * "len" elements at "base", "base" + "stride", ... ("stride" in bytes),
 * tile by tile so that the partial result stays in cache and "out" is
 * written once; "out" may be one of the vectors. */
void
sym__comm_fold(const struct sym__comm_args *a, void *out, const void *base,
    size_t stride, int n, size_t len)
{
	_Alignas(64) unsigned char acc[FOLD_TILE_BYTES];
	size_t es = sym__comm_elem_size(a), per = FOLD_TILE_BYTES / es;
	const char *b = base;

	for (size_t k = 0; k < len; k += per) {
		size_t m = len - k < per ? len - k : per, o = k * es;
		char *dst = (char *)out + o;

		if (n == 1) {
			if (dst != b + o)
				memmove(dst, b + o, m * es);
			continue;
		}
		sym__comm_combine(a, n == 2 ? dst : (void *)acc, b + o,
		    b + stride + o, m);
		for (int j = 2; j < n; j++)
			sym__comm_combine(a, j == n - 1 ? dst : (void *)acc,
			    acc, b + (size_t)j * stride + o, m);
	}
}
