/* SPDX-License-Identifier: MIT */
/*
 * TensorProtos: their element types, element counts and data (inline raw
 * bytes, the typed fields, or external data from beside the model, never
 * from outside its folder), decoded into symshard's row-major layout.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "front/onnx_private.h"

/* Return the dtype of ONNX's element type "t", or SYM_DT_INVALID. */
sym_dtype
sym__onnx_dtype(int32_t t)
{
	switch (t) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		return SYM_DT_F32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
		return SYM_DT_F64;
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
		return SYM_DT_F16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
		return SYM_DT_BF16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
		return SYM_DT_I8;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
		return SYM_DT_I16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
		return SYM_DT_I32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
		return SYM_DT_I64;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
		return SYM_DT_U8;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
		return SYM_DT_BOOL;
	default:
		return SYM_DT_INVALID;
	}
}

/* Set "*numel" to the number of elements of "t", checking every
 * dimension (0 <= d) and the product (at most 2^62); 0, or -1 after an
 * error naming the tensor. */
int
sym__onnx_tensor_numel(struct sym__onnx *im, const Onnx__TensorProto *t,
    int64_t *numel)
{
	int64_t n = 1;

	if (t->n_dims > SYM__ONNX_MAX_RANK)
		return sym__onnx_errorf(im, "tensor '%s' has %zu dimensions",
		    t->name ? t->name : "", t->n_dims);
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0)
			return sym__onnx_errorf(im,
			    "tensor '%s': dimension %zu is negative (%lld)",
			    t->name ? t->name : "", i, (long long)t->dims[i]);
		if (t->dims[i] && n > ((int64_t)1 << 62) / t->dims[i])
			return sym__onnx_errorf(im,
			    "tensor '%s': its number of elements overflows",
			    t->name ? t->name : "");
		n *= t->dims[i];
	}
	*numel = n;
	return 0;
}

/* Return the value of key "key" among the external data entries of "t",
 * or NULL. */
static const char *
ext_get(const Onnx__TensorProto *t, const char *key)
{
	for (size_t i = 0; i < t->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = t->external_data[i];
		if (e->key && e->value && !strcmp(e->key, key))
			return e->value;
	}
	return NULL;
}

/* Parse the decimal "s" into "*v" (0 <= v); 0 or -1. */
static int
parse_size(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	unsigned long long r = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = r;
	return 0;
}

/* Whether the relative "loc" stays inside its folder: not absolute,
 * no ".." component, no empty name. */
static int
inside(const char *loc)
{
	if (!*loc || loc[0] == '/')
		return 0;
	for (const char *p = loc; *p;) {
		const char *q = strchr(p, '/');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p = q ? q + 1 : p + len;
	}
	return 1;
}

/* Read the "want" bytes of the external data of "t" (folder "dir") into
 * "buf"; 0, or -1 after an error naming the tensor. */
static int
read_external(struct sym__onnx *im, const Onnx__TensorProto *t, const char *dir,
    void *buf, size_t want)
{
	const char *name = t->name ? t->name : "";
	const char *loc = ext_get(t, "location");
	uint64_t off = 0, len = want;

	if (!dir)
		return sym__onnx_errorf(im,
		    "tensor '%s': external data of a model read from memory",
		    name);
	if (!loc || !inside(loc))
		return sym__onnx_errorf(im,
		    "tensor '%s': external data location '%s' is not a "
		    "relative path inside the model's folder",
		    name, loc ? loc : "(none)");
	if ((ext_get(t, "offset") &&
	        parse_size(ext_get(t, "offset"), &off) < 0) ||
	    (ext_get(t, "length") &&
	        parse_size(ext_get(t, "length"), &len) < 0))
		return sym__onnx_errorf(im,
		    "tensor '%s': invalid external data offset or length",
		    name);
	if (len != want)
		return sym__onnx_errorf(im,
		    "tensor '%s': external data length %llu, its shape needs "
		    "%zu bytes",
		    name, (unsigned long long)len, want);
	char *path = sym__asprintf("%s/%s", dir, loc);
	char *real = path ? realpath(path, NULL) : NULL;
	char *rdir = realpath(dir, NULL);
	size_t dl = rdir ? strlen(rdir) : 0;
	int ok = real && rdir && !strncmp(real, rdir, dl) && real[dl] == '/';
	FILE *f = ok ? fopen(real, "rb") : NULL;
	struct stat st;
	int rc = -1;

	if (!ok)
		sym__onnx_errorf(im,
		    "tensor '%s': external data '%s' is missing or outside "
		    "the model's folder",
		    name, loc);
	else if (!f || fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode))
		sym__onnx_errorf(im, "tensor '%s': cannot read '%s'", name,
		    loc);
	else if (off > (uint64_t)st.st_size || len > (uint64_t)st.st_size - off)
		sym__onnx_errorf(im,
		    "tensor '%s': external data beyond the end of '%s'", name,
		    loc);
	else if (fseeko(f, (off_t)off, SEEK_SET) < 0 ||
	    fread(buf, 1, want, f) != want)
		sym__onnx_errorf(im, "tensor '%s': cannot read '%s'", name,
		    loc);
	else
		rc = 0;
	if (f)
		fclose(f);
	free(path);
	free(real);
	free(rdir);
	return rc;
}

/* Store element "i" of value "v" (as double or as integer "iv") into the
 * buffer "out" of dtype "dt". */
static void
put(void *out, sym_dtype dt, size_t i, int64_t iv, double v, int is_int)
{
	switch (dt) {
	case SYM_DT_F32:
		((float *)out)[i] = is_int ? (float)iv : (float)v;
		break;
	case SYM_DT_F64:
		((double *)out)[i] = is_int ? (double)iv : v;
		break;
	case SYM_DT_I8:
		((int8_t *)out)[i] = (int8_t)iv;
		break;
	case SYM_DT_I16:
		((int16_t *)out)[i] = (int16_t)iv;
		break;
	case SYM_DT_I32:
		((int32_t *)out)[i] = (int32_t)iv;
		break;
	case SYM_DT_I64:
		((int64_t *)out)[i] = iv;
		break;
	case SYM_DT_U8:
		((uint8_t *)out)[i] = (uint8_t)iv;
		break;
	case SYM_DT_BOOL:
		((uint8_t *)out)[i] = iv != 0;
		break;
	case SYM_DT_F16:
	case SYM_DT_BF16:
		((uint16_t *)out)[i] = (uint16_t)iv;
		break;
	default:
		break;
	}
}

/* Return the data of "t" (external data under "dir", may be NULL) as a
 * new row-major buffer in its dtype, its size in "*bytes" (a tensor of
 * no element gives a buffer of 1 byte and *bytes 0); NULL after an error
 * naming the tensor: unsupported type, data of the wrong size. */
void *
sym__onnx_tensor_data(struct sym__onnx *im, const Onnx__TensorProto *t,
    const char *dir, size_t *bytes)
{
	const char *name = t->name ? t->name : "";
	sym_dtype dt = sym__onnx_dtype(t->data_type);
	int64_t numel;

	if (dt == SYM_DT_INVALID) {
		sym__onnx_errorf(im,
		    "tensor '%s': element type %d is not "
		    "supported",
		    name, (int)t->data_type);
		return NULL;
	}
	if (sym__onnx_tensor_numel(im, t, &numel) < 0)
		return NULL;
	size_t es = sym_dtype_size(dt), n = (size_t)numel;
	if (n > SIZE_MAX / es) {
		sym__onnx_errorf(im, "tensor '%s' is too large", name);
		return NULL;
	}
	size_t want = n * es;
	void *out = sym__alloc(im->ctx, want ? want : 1);
	if (!out)
		return NULL;
	*bytes = want;
	if (t->has_data_location &&
	    t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		if (read_external(im, t, dir, out, want) < 0)
			goto fail;
		return out;
	}
	if (t->has_raw_data) {
		if (t->raw_data.len != want) {
			sym__onnx_errorf(im,
			    "tensor '%s': %zu bytes of raw data, its shape "
			    "needs %zu",
			    name, t->raw_data.len, want);
			goto fail;
		}
		if (want)
			memcpy(out, t->raw_data.data, want);
		return out;
	}
	size_t have;
	switch (dt) {
	case SYM_DT_F32:
		have = t->n_float_data;
		break;
	case SYM_DT_F64:
		have = t->n_double_data;
		break;
	case SYM_DT_I64:
		have = t->n_int64_data;
		break;
	default:
		have = t->n_int32_data;
		break;
	}
	if (have != n) {
		sym__onnx_errorf(im,
		    "tensor '%s': %zu elements of data, its shape has %zu",
		    name, have, n);
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		switch (dt) {
		case SYM_DT_F32:
			put(out, dt, i, 0, t->float_data[i], 0);
			break;
		case SYM_DT_F64:
			put(out, dt, i, 0, t->double_data[i], 0);
			break;
		case SYM_DT_I64:
			put(out, dt, i, t->int64_data[i], 0, 1);
			break;
		default:
			put(out, dt, i, t->int32_data[i], 0, 1);
			break;
		}
	}
	return out;
fail:
	free(out);
	return NULL;
}

/* Read the elements of the integer tensor "t" (at most "max") into
 * "out", their number in "*n"; 0, or -1 after an error naming it (not an
 * integer tensor, too many elements). */
int
sym__onnx_tensor_ints(struct sym__onnx *im, const Onnx__TensorProto *t,
    const char *dir, int64_t *out, size_t max, size_t *n)
{
	sym_dtype dt = sym__onnx_dtype(t->data_type);
	int64_t numel;
	size_t bytes;

	if (dt != SYM_DT_I64 && dt != SYM_DT_I32 && dt != SYM_DT_I8 &&
	    dt != SYM_DT_I16 && dt != SYM_DT_U8 && dt != SYM_DT_BOOL)
		return sym__onnx_errorf(im,
		    "tensor '%s' is not an integer tensor",
		    t->name ? t->name : "");
	if (sym__onnx_tensor_numel(im, t, &numel) < 0)
		return -1;
	if ((uint64_t)numel > max)
		return sym__onnx_errorf(im,
		    "tensor '%s' has %lld elements, more than the %zu of a "
		    "shape value",
		    t->name ? t->name : "", (long long)numel, max);
	void *d = sym__onnx_tensor_data(im, t, dir, &bytes);
	if (!d)
		return -1;
	for (int64_t i = 0; i < numel; i++) {
		switch (dt) {
		case SYM_DT_I64:
			out[i] = ((int64_t *)d)[i];
			break;
		case SYM_DT_I32:
			out[i] = ((int32_t *)d)[i];
			break;
		case SYM_DT_I16:
			out[i] = ((int16_t *)d)[i];
			break;
		case SYM_DT_I8:
			out[i] = ((int8_t *)d)[i];
			break;
		default:
			out[i] = ((uint8_t *)d)[i];
			break;
		}
	}
	free(d);
	*n = (size_t)numel;
	return 0;
}
