/* SPDX-License-Identifier: MIT */
/*
 * What the kernel families (lib/kern/kern_*.c) share: their kernels,
 * storage classes, checking the tensors and reading the attributes of a
 * call, and strided copies.
 */
#ifndef SYM_KERN_KERN_PRIVATE_H
#define SYM_KERN_KERN_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/simd.h"
#include "kern/kernel.h"

/* Every operator's kernel, as lib/shape/ops.def names it (its
 * SYM__OPIMPL column KERNEL); kernel.c makes the table of them. */
#define SYM__OPIMPL(ID, KERNEL, ...) int KERNEL(struct sym__kernel_args *a);
#include "shape/ops.def"

/* How the elements of a dtype are stored (see struct sym__tensor). */
enum sym__kst {
	SYM__KST_NONE = 0,
	SYM__KST_F32,
	SYM__KST_F64,
	SYM__KST_I32,
	SYM__KST_U8
};

enum sym__kst sym__kst(sym_dtype dt);

int sym__kfail(struct sym__kernel_args *a, const char *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sym__kio(struct sym__kernel_args *a, const char *op, int in_min, int in_max,
    int out_min, int out_max);
int sym__ksame_dims(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn, const struct sym__tensor *y,
    const char *yn);
int sym__ksame_kst(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn, const struct sym__tensor *y,
    const char *yn);
int sym__kfloat(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn);
int sym__kgrad_pair(struct sym__kernel_args *a, const char *op);

/* Return element "i" of the f32 or f64 tensor "t" as a double. */
static inline double
sym__kld(const struct sym__tensor *t, int64_t i)
{
	return t->dtype == SYM_DT_F64 ? ((const double *)t->data)[i]
	                              : ((const float *)t->data)[i];
}

/* Return element "i" of "x" (storage "k": f32, f64 or i32) as a
 * double. */
static inline double
sym__kld_kst(const void *x, enum sym__kst k, int64_t i)
{
	if (k == SYM__KST_F32)
		return ((const float *)x)[i];
	if (k == SYM__KST_F64)
		return ((const double *)x)[i];
	return ((const int32_t *)x)[i];
}

/* Store "v" as element "i" of the f32 or f64 tensor "t". */
static inline void
sym__kstore(struct sym__tensor *t, int64_t i, double v)
{
	if (t->dtype == SYM_DT_F64)
		((double *)t->data)[i] = v;
	else
		((float *)t->data)[i] = (float)v;
}
int sym__kindices(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn);
enum sym__kst sym__knumeric(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x);
int sym__kno_i64(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *x, const char *xn);
void sym__kwrap(void *data, sym_dtype dt, int64_t n);
int64_t sym__kprod(const int64_t *dim, int from, int to);

/* The decoded attributes of the call "a" of "op", or NULL with an
 * error. */
const struct sym__opattrs *sym__kat(struct sym__kernel_args *a, const char *op);
/* Check that the decoded axis "axis" (called "what") is below "rank";
 * 0 or -1. */
int sym__kaxis(struct sym__kernel_args *a, const char *op, const char *what,
    size_t axis, int rank);
/* Check that the "n" int32 indices "idx" are in [0, "global"); 0 or -1. */
int sym__kin_range(struct sym__kernel_args *a, const char *op,
    const int32_t *idx, int64_t n, int64_t global);
/* Check the dims, block and indices of a gather of input "ip" by input
 * "ii" along "ax" whose output (or its gradient) is "y" (kern_gather.c);
 * 0 or -1. */
int sym__kgather_check(struct sym__kernel_args *a, const char *op, int ip,
    int ii, int ax, const struct sym__tensor *y, const char *yn);
/* Check the arity ("n_in" inputs, one output) of a call "a" of gather or
 * gather_grad and its decoded axis against the rank of the table, input
 * "ip"; store the axis in "*ax" (kern_gather.c); 0 or -1. */
int sym__kgather_axis(struct sym__kernel_args *a, const char *op, int n_in,
    int ip, int *ax);
/* Check the arity ("n_in" inputs, one output) of a call "a" of embedding
 * or embedding_grad and that its table, input "ip", has rank 2
 * (kern_gather.c); 0 or -1. */
int sym__kembedding_table(struct sym__kernel_args *a, const char *op, int n_in,
    int ip);

int64_t sym__kin_offset(const struct sym__kernel_args *a, int i, int d);
int64_t sym__kin_global(const struct sym__kernel_args *a, int i, int d);
int64_t sym__kout_offset(const struct sym__kernel_args *a, int o, int d);

int sym__kcopy_or_alias(struct sym__kernel_args *a, const char *op);
void sym__kstrides(const struct sym__tensor *t, int64_t *stride);
void sym__kcopy(void *dst, const int64_t *dstride, const void *src,
    const int64_t *sstride, size_t es, int rank, const int64_t *dim);

/* The scratch bytes of a call of each family's kernels that take
 * scratch (sym__kernel_scratch), 0 for a call whose tensors the kernel
 * refuses. */
size_t sym__kscratch_reduce(const struct sym__kernel_args *a);
size_t sym__kscratch_conv(const struct sym__kernel_args *a);
size_t sym__kscratch_softmax(const struct sym__kernel_args *a);
size_t sym__kscratch_grad(const struct sym__kernel_args *a);

#endif
