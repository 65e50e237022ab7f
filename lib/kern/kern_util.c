/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the kernel families: failing with a message, checking the
 * tensors of a call, reading attributes (their kind checked first, so
 * that reading never touches the context and calls may run in parallel),
 * global offsets, strides and strided copies.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern_private.h"

#include <symshard/expr.h>

/* Return the storage class of "dt", SYM__KST_NONE when invalid. */
enum sym__kst
sym__kst(sym_dtype dt)
{
	if (dt == SYM_DT_F64)
		return SYM__KST_F64;
	if (dt == SYM_DT_BOOL)
		return SYM__KST_U8;
	if (sym_dtype_is_float(dt))
		return SYM__KST_F32;
	return sym_dtype_size(dt) ? SYM__KST_I32 : SYM__KST_NONE;
}

/* Set the error of "a" to "op: " followed by the printf-style "fmt",
 * replacing any previous message (left NULL when out of memory); return
 * -1. */
int
sym__kfail(struct sym__kernel_args *a, const char *op, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "%s: ", op);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(buf))
		vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	free(a->error);
	a->error = strdup(buf);
	return -1;
}

/* Write the dims of "t" as "[2, 3]" into "buf" of "size" bytes; return
 * "buf". */
static const char *
kdims(const struct sym__tensor *t, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int d = 0; d <= t->rank && len < size; d++) {
		int n = snprintf(buf + len, size - len, "%s%lld",
		    d ? ", " : "[", d < t->rank ? (long long)t->dim[d] : 0LL);

		if (d == t->rank)
			n = snprintf(buf + len, size - len, "]");
		if (n < 0)
			break;
		len += (size_t)n;
	}
	if (t->rank == 0)
		snprintf(buf, size, "[]");
	return buf;
}

/* Check tensor "t" of "a", the "i"-th "role" ("input") of "op": a valid
 * rank and dtype, dims >= 0 whose nonzero product (and byte count) fits,
 * and data unless it is empty; return 0 or -1. */
static int
check_tensor(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *t, const char *role, int i)
{
	int64_t n;
	size_t es = sym__tensor_elem_size(t->dtype);

	if (t->rank < 0 || t->rank > SYM__MAX_RANK)
		return sym__kfail(a, op,
		    "%s %d has rank %d (0 to %d supported)", role, i, t->rank,
		    SYM__MAX_RANK);
	if (!es)
		return sym__kfail(a, op, "%s %d has an invalid dtype", role, i);
	n = sym__tensor_numel(t);
	if (n < 0 || (uint64_t)n > SIZE_MAX / es)
		return sym__kfail(a, op,
		    "%s %d has a negative dimension or too many elements", role,
		    i);
	if (n > 0 && !t->data)
		return sym__kfail(a, op, "%s %d has no data", role, i);
	return 0;
}

/* Check that the call "a" of "op" has "in_min" to "in_max" inputs and
 * "out_min" to "out_max" outputs, every one valid (see check_tensor);
 * return 0 or -1. */
int
sym__kio(struct sym__kernel_args *a, const char *op, int in_min, int in_max,
    int out_min, int out_max)
{
	if (a->n_in < in_min || a->n_in > in_max || (a->n_in > 0 && !a->in))
		return sym__kfail(a, op, "%d input%s given, %d to %d expected",
		    a->n_in, a->n_in == 1 ? "" : "s", in_min, in_max);
	if (a->n_out < out_min || a->n_out > out_max ||
	    (a->n_out > 0 && !a->out))
		return sym__kfail(a, op, "%d output%s given, %d to %d expected",
		    a->n_out, a->n_out == 1 ? "" : "s", out_min, out_max);
	for (int i = 0; i < a->n_in; i++)
		if (check_tensor(a, op, &a->in[i], "input", i) < 0)
			return -1;
	for (int i = 0; i < a->n_out; i++)
		if (check_tensor(a, op, &a->out[i], "output", i) < 0)
			return -1;
	return 0;
}

/* Check that tensors "x" and "y" of the call "a" of "op", called "xn" and
 * "yn" in messages, have the same dims; return 0 or -1. */
int
sym__ksame_dims(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn, const struct sym__tensor *y,
    const char *yn)
{
	char bx[128], by[128];
	int same = x->rank == y->rank;

	for (int d = 0; same && d < x->rank; d++)
		same = x->dim[d] == y->dim[d];
	if (same)
		return 0;
	return sym__kfail(a, op, "%s %s and %s %s must have the same dims", xn,
	    kdims(x, bx, sizeof(bx)), yn, kdims(y, by, sizeof(by)));
}

/* Check that tensors "x" and "y" of the call "a" of "op", called "xn" and
 * "yn", are stored alike (f32, f64, int32 or bool); return 0 or -1. */
int
sym__ksame_kst(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn, const struct sym__tensor *y,
    const char *yn)
{
	if (sym__kst(x->dtype) == sym__kst(y->dtype))
		return 0;
	return sym__kfail(a, op, "%s is %s but %s is %s", xn,
	    sym_dtype_name(x->dtype), yn, sym_dtype_name(y->dtype));
}

/* Check that tensor "x" of the call "a" of "op", called "xn", has a
 * floating dtype; return 0 or -1. */
int
sym__kfloat(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn)
{
	enum sym__kst k = sym__kst(x->dtype);

	if (k == SYM__KST_F32 || k == SYM__KST_F64)
		return 0;
	return sym__kfail(a, op, "%s must have a floating dtype, not %s", xn,
	    sym_dtype_name(x->dtype));
}

/* Check the call "a" of the unary gradient "op": dy and v in, dx out,
 * all of one floating dtype and of the same dims; return 0 or -1. */
int
sym__kgrad_pair(struct sym__kernel_args *a, const char *op)
{
	const struct sym__tensor *g, *v, *z;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0)
		return -1;
	g = &a->in[0];
	v = &a->in[1];
	z = &a->out[0];
	if (sym__kfloat(a, op, g, "dy") < 0 ||
	    sym__ksame_kst(a, op, g, "dy", v, "the second operand") < 0 ||
	    sym__ksame_kst(a, op, g, "dy", z, "the output") < 0 ||
	    sym__ksame_dims(a, op, g, "dy", v, "the second operand") < 0 ||
	    sym__ksame_dims(a, op, g, "dy", z, "the output") < 0)
		return -1;
	return 0;
}

/* Return the storage of tensor "x" of the call "a" of "op" when it holds
 * numbers (f32, f64 or i32), else SYM__KST_NONE with an error. */
enum sym__kst
sym__knumeric(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x)
{
	enum sym__kst k = sym__kst(x->dtype);

	if (k != SYM__KST_NONE && k != SYM__KST_U8)
		return k;
	sym__kfail(a, op, "dtype %s is not supported",
	    sym_dtype_name(x->dtype));
	return SYM__KST_NONE;
}

/* Check that tensor "x" of the call "a" of "op", called "xn", has an
 * integer dtype (stored as int32); return 0 or -1. */
int
sym__kindices(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn)
{
	if (sym__kst(x->dtype) == SYM__KST_I32)
		return 0;
	return sym__kfail(a, op, "%s must have an integer dtype, not %s", xn,
	    sym_dtype_name(x->dtype));
}

/* Check that tensor "x" of the call "a" of "op", called "xn", is not
 * i64, which is held in int32: the integer arithmetic of "op" could make
 * values that need more bits; return 0 or -1. */
int
sym__kno_i64(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn)
{
	if (x->dtype != SYM_DT_I64)
		return 0;
	return sym__kfail(a, op,
	    "%s is i64, which is held in 32 bits that the result could "
	    "overflow",
	    xn);
}

/* Wrap the "n" int32 values at "data", of the integer dtype "dt", to the
 * width of "dt": two's complement for i8 and i16, modulo 256 for u8, as
 * NumPy and PyTorch compute; any other dtype is left alone. */
void
sym__kwrap(void *data, sym_dtype dt, int64_t n)
{
	int32_t *restrict v = data;

	switch (dt) {
	case SYM_DT_I8:
		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			v[i] = (int8_t)(uint8_t)(uint32_t)v[i];
		break;
	case SYM_DT_I16:
		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			v[i] = (int16_t)(uint16_t)(uint32_t)v[i];
		break;
	case SYM_DT_U8:
		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			v[i] = (uint8_t)(uint32_t)v[i];
		break;
	default:
		break;
	}
}

/* Return the product of "dim"[from] to "dim"[to - 1] (1 when empty); the
 * dims of a checked tensor never overflow it. */
int64_t
sym__kprod(const int64_t *dim, int from, int to)
{
	int64_t p = 1;

	for (int d = from; d < to; d++)
		p *= dim[d];
	return p;
}

/* Return the decoded attributes of the call "a" of "op", or NULL with an
 * error when the caller gave none. */
const struct sym__opattrs *
sym__kat(struct sym__kernel_args *a, const char *op)
{
	if (!a->at)
		sym__kfail(a, op, "no decoded attributes");
	return a->at;
}

/* Check that the decoded axis "axis", called "what", of the call "a" of
 * "op" is below "rank"; return 0 or -1. */
int
sym__kaxis(struct sym__kernel_args *a, const char *op, const char *what,
    size_t axis, int rank)
{
	if (axis < (size_t)rank)
		return 0;
	return sym__kfail(a, op, "%s %zu is out of range for rank %d", what,
	    axis, rank);
}

/* Check that the "n" int32 "idx" of the call "a" of "op" are in [0,
 * "global"); return 0 or -1. */
int
sym__kin_range(struct sym__kernel_args *a, const char *op, const int32_t *idx,
    int64_t n, int64_t global)
{
	for (int64_t j = 0; j < n; j++)
		if (idx[j] < 0 || idx[j] >= global)
			return sym__kfail(a, op,
			    "index %lld (element %lld) is out of range [0, "
			    "%lld)",
			    (long long)idx[j], (long long)j, (long long)global);
	return 0;
}

/* Return the global offset of input "i" of "a" along "d" (0 without
 * offsets). */
int64_t
sym__kin_offset(const struct sym__kernel_args *a, int i, int d)
{
	return a->offset ? a->offset[i][d] : 0;
}

/* Return the global size of dimension "d" of input "i" of "a" (the local
 * one without global sizes). */
int64_t
sym__kin_global(const struct sym__kernel_args *a, int i, int d)
{
	return a->global_dim ? a->global_dim[i][d] : a->in[i].dim[d];
}

/* Return the global offset of output "o" of "a" along "d" (0 without
 * output offsets). */
int64_t
sym__kout_offset(const struct sym__kernel_args *a, int o, int d)
{
	return a->out_offset ? a->out_offset[o][d] : 0;
}

/* Copy input 0 of the call "a" of "op" to output 0 unless they share
 * their data (an alias), after checking that they have the same dtype and
 * element count; return 0 or -1. */
int
sym__kcopy_or_alias(struct sym__kernel_args *a, const char *op)
{
	const struct sym__tensor *x = &a->in[0], *y = &a->out[0];
	int64_t n = sym__tensor_numel(x);

	if (sym__ksame_kst(a, op, x, "the input", y, "the output") < 0)
		return -1;
	if (n != sym__tensor_numel(y))
		return sym__kfail(a, op,
		    "the input has %lld elements but the output %lld",
		    (long long)n, (long long)sym__tensor_numel(y));
	if (n > 0 && x->data != y->data)
		memcpy(y->data, x->data,
		    (size_t)n * sym__tensor_elem_size(x->dtype));
	return 0;
}

/* Store in "stride" the row-major strides of "t", in elements. */
void
sym__kstrides(const struct sym__tensor *t, int64_t *stride)
{
	int64_t s = 1;

	for (int d = t->rank - 1; d >= 0; d--) {
		stride[d] = s;
		s *= t->dim[d];
	}
}

/* Copy "n" elements of "es" bytes from "src" to "dst", their strides (in
 * elements) "ss" and "ds". */
static void
copy_row(char *restrict dst, int64_t ds, const char *restrict src, int64_t ss,
    size_t es, int64_t n)
{
	if (ds == 1 && ss == 1) {
		memcpy(dst, src, (size_t)n * es);
		return;
	}
	switch (es) {
	case 1:
		for (int64_t i = 0; i < n; i++)
			dst[i * ds] = src[i * ss];
		break;
	case 4: {
		uint32_t *restrict d = (uint32_t *)(void *)dst;
		const uint32_t *restrict s =
		    (const uint32_t *)(const void *)src;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			d[i * ds] = s[i * ss];
		break;
	}
	default: {
		uint64_t *restrict d = (uint64_t *)(void *)dst;
		const uint64_t *restrict s =
		    (const uint64_t *)(const void *)src;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			d[i * ds] = s[i * ss];
		break;
	}
	}
}

/*
 * Copy the box of dims "dim" ("rank" of them, at most SYM__MAX_RANK) of
 * elements of "es" bytes (1, 4 or 8) from "src" with strides "sstride" to
 * "dst" with strides "dstride" (in elements; the two must not overlap).
 * Dims of size 1 are dropped and neighbours that are contiguous in both
 * are merged, so that the innermost copies are as long as possible.
 */
void
sym__kcopy(void *dst, const int64_t *dstride, const void *src,
    const int64_t *sstride, size_t es, int rank, const int64_t *dim)
{
	int64_t n[SYM__MAX_RANK], ds[SYM__MAX_RANK], ss[SYM__MAX_RANK];
	int64_t idx[SYM__MAX_RANK] = { 0 };
	int r = 0;

	for (int d = 0; d < rank; d++) {
		if (dim[d] == 0)
			return;
		if (dim[d] == 1)
			continue;
		if (r > 0 && ds[r - 1] == dstride[d] * dim[d] &&
		    ss[r - 1] == sstride[d] * dim[d]) {
			n[r - 1] *= dim[d];
			ds[r - 1] = dstride[d];
			ss[r - 1] = sstride[d];
			continue;
		}
		n[r] = dim[d];
		ds[r] = dstride[d];
		ss[r] = sstride[d];
		r++;
	}
	if (r == 0) {
		memcpy(dst, src, es);
		return;
	}
	for (;;) {
		int64_t so = 0, dof = 0;
		int d;

		for (d = 0; d < r - 1; d++) {
			so += idx[d] * ss[d];
			dof += idx[d] * ds[d];
		}
		copy_row((char *)dst + dof * (int64_t)es, ds[r - 1],
		    (const char *)src + so * (int64_t)es, ss[r - 1], es,
		    n[r - 1]);
		for (d = r - 2; d >= 0; d--) {
			if (++idx[d] < n[d])
				break;
			idx[d] = 0;
		}
		if (d < 0)
			return;
	}
}
