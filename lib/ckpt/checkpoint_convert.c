/* SPDX-License-Identifier: MIT */
/*
 * Elements between the executor's storage and a checkpoint's dtype. The
 * executor keeps f16 and bf16 as f32, the integer dtypes as int32 and
 * bool as one byte (sym_exec(3)); a checkpoint holds every tensor in its
 * own dtype (symshard-checkpoint(5)). Saving rounds f32 to f16 or bf16
 * to nearest, ties to even, and narrows the integers, whose values the
 * kernels keep wrapped to their width; loading widens them back, exactly
 * but for i64, whose values must fit in 32 bits.
 */
#include <math.h>
#include <string.h>

#include "kern/kernel.h"
#include "ckpt/checkpoint_private.h"

/* Return the f16 bits nearest to "f" (ties to even; beyond the largest
 * f16, infinity; NaN stays NaN). */
static uint16_t
f32_to_f16(float f)
{
	uint32_t x, ax, sign, h, rest;

	memcpy(&x, &f, sizeof(x));
	sign = x >> 16 & 0x8000;
	ax = x & 0x7fffffff;
	if (ax >= 0x7f800000)
		return (uint16_t)(sign | 0x7c00 |
		    (ax > 0x7f800000 ? 0x200 | (ax >> 13 & 0x3ff) : 0));
	if (ax >= 0x477ff000) /* 65520 and above round to infinity */
		return (uint16_t)(sign | 0x7c00);
	if (ax < 0x38800000) { /* below 2^-14: a subnormal f16 */
		float a;

		memcpy(&a, &ax, sizeof(a));
		return (uint16_t)(sign | (uint32_t)lrintf(a * 16777216.0f));
	}
	h = ((ax >> 23) - 127 + 15) << 10 | (ax >> 13 & 0x3ff);
	rest = ax & 0x1fff;
	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

/* Return the f32 that the f16 bits "h" stand for (exactly). */
static float
f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = h >> 10 & 0x1f;
	uint32_t m = h & 0x3ff, x;
	float f;

	if (e == 0) {
		f = ldexpf((float)m, -24);
		return sign ? -f : f;
	}
	x = e == 31 ? sign | 0x7f800000 | m << 13
	            : sign | (e - 15 + 127) << 23 | m << 13;
	memcpy(&f, &x, sizeof(f));
	return f;
}

/* Return the bf16 bits nearest to "f" (ties to even; NaN stays NaN). */
static uint16_t
f32_to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof(x));
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)(x >> 16 | 0x40);
	return (uint16_t)((x + 0x7fff + (x >> 16 & 1)) >> 16);
}

/* Return the f32 that the bf16 bits "h" stand for (exactly). */
static float
bf16_to_f32(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;

	memcpy(&f, &x, sizeof(f));
	return f;
}

/* Return the number of bytes an element of "dt" takes in the executor
 * (sym__tensor_elem_size), 0 for an invalid dtype. */
size_t
sym__ckpt_storage_size(sym_dtype dt)
{
	return sym__tensor_elem_size(dt);
}

/* Convert the "n" elements of "dt" at "src", stored as the executor
 * stores them, to the elements of "dt" at "dst" (sym_dtype_size bytes
 * each, host order). "dst" is a file's bytes and need not be aligned
 * for "dt": every element is stored through memcpy. */
void
sym__ckpt_from_storage(sym_dtype dt, const void *src, void *dst, size_t n)
{
	const float *f = src;
	const int32_t *i = src;
	unsigned char *d = dst;

	for (size_t k = 0; k < n; k++)
		switch (dt) {
		case SYM_DT_F16:
		case SYM_DT_BF16: {
			uint16_t h = dt == SYM_DT_F16 ? f32_to_f16(f[k])
			                              : f32_to_bf16(f[k]);

			memcpy(d + 2 * k, &h, 2);
			break;
		}
		case SYM_DT_I8:
		case SYM_DT_U8:
			d[k] = (unsigned char)(uint32_t)i[k];
			break;
		case SYM_DT_I16: {
			int16_t v = (int16_t)i[k];

			memcpy(d + 2 * k, &v, 2);
			break;
		}
		case SYM_DT_I64: {
			int64_t v = i[k];

			memcpy(d + 8 * k, &v, 8);
			break;
		}
		default:
			memcpy(dst, src, n * sym_dtype_size(dt));
			return;
		}
}

/* Convert the "n" elements of "dt" at "src" (sym_dtype_size bytes each,
 * host order) to the executor's storage at "dst"; return SIZE_MAX, or
 * the index of the first element the storage cannot hold (an i64 beyond
 * 32 bits). "src" is a file's bytes and need not be aligned for "dt"
 * (safetensors data offsets are byte offsets): every element is loaded
 * through memcpy. */
size_t
sym__ckpt_to_storage(sym_dtype dt, const void *src, void *dst, size_t n)
{
	const unsigned char *s = src;
	float *f = dst;
	int32_t *i = dst;

	for (size_t k = 0; k < n; k++)
		switch (dt) {
		case SYM_DT_F16:
		case SYM_DT_BF16: {
			uint16_t h;

			memcpy(&h, s + 2 * k, 2);
			f[k] =
			    dt == SYM_DT_F16 ? f16_to_f32(h) : bf16_to_f32(h);
			break;
		}
		case SYM_DT_I8:
			i[k] = (int8_t)s[k];
			break;
		case SYM_DT_U8:
			i[k] = s[k];
			break;
		case SYM_DT_I16: {
			int16_t v;

			memcpy(&v, s + 2 * k, 2);
			i[k] = v;
			break;
		}
		case SYM_DT_I64: {
			int64_t v;

			memcpy(&v, s + 8 * k, 8);
			if (v < INT32_MIN || v > INT32_MAX)
				return k;
			i[k] = (int32_t)v;
			break;
		}
		default:
			memcpy(dst, src, n * sym_dtype_size(dt));
			return SIZE_MAX;
		}
	return SIZE_MAX;
}
