/* SPDX-License-Identifier: MIT */
/*
 * What the kernel tests (tests/test_kernels_*.c) share: tensors built,
 * filled from a seeded generator and compared with references computed
 * in double; calls of a kernel through the registry with attributes
 * decoded as the executor decodes them, and calls that must fail with a
 * given message. The kernels (lib/kern/kern_*.c) are internal: these
 * programs link the convenience library.
 *
 * Error bounds, relative to max(1, |reference|): 1e-6 for f32 results of
 * one rounding (elementwise arithmetic, copies are exact), 2e-6 for f32
 * libm functions, softmax, layer_norm and the loss, 1e-5 for f32 sums of
 * up to ~100 products (matmul, conv2d), 1e-12 for every f64 result.
 */
#ifndef SYMSHARD_KERNTEST_H
#define SYMSHARD_KERNTEST_H

#include <stddef.h>
#include <stdint.h>

#include <symshard.h>

#include "kern/kernel.h"
#include "shape/shape_private.h"

#define TOL_F32 1e-6
#define TOL_F32_FN 2e-6
#define TOL_F32_SUM 1e-5
#define TOL_F64 1e-12

uint64_t kt_rnd(uint64_t *s);
double kt_urand(uint64_t *s, double lo, double hi);
int64_t kt_irand(uint64_t *s, int64_t lo, int64_t hi);
struct sym__tensor kt_tensor(sym_dtype dt, int rank, const int64_t *dim);
int64_t kt_numel(const struct sym__tensor *t);
double kt_get(const struct sym__tensor *t, int64_t i);
void kt_set(struct sym__tensor *t, int64_t i, double v);
void kt_fill(struct sym__tensor *t, uint64_t *s, double lo, double hi);
struct sym__tensor kt_random_tensor(uint64_t *s, sym_dtype dt, int rank,
    const int64_t *dim, double lo, double hi);
double kt_tol(sym_dtype dt, double f32);
void kt_check_close(double got, double want, double eps, const char *what,
    int64_t i);
void kt_check_tensor(const struct sym__tensor *t, const double *want,
    double eps, const char *what);
void kt_free_all(struct sym__tensor *t, int n);
sym__kernel_fn kt_kernel(const char *name);
sym_shape *kt_input_shape(sym_ctx *ctx, const struct sym__kernel_args *a,
    int i);
void kt_decode(const char *name, const sym_attrs *at,
    struct sym__kernel_args *a);
void kt_release(struct sym__kernel_args *a);
struct sym__kernel_args kt_args(const char *name, const sym_attrs *at,
    const struct sym__tensor *in, int n_in, struct sym__tensor *out, int n_out);
void kt_decode_fails(const char *name, const sym_attrs *at,
    const struct sym__tensor *in, int n_in, int n_out, const char *want);
void kt_run_args(const char *name, struct sym__kernel_args *a);
void kt_run(const char *name, const sym_attrs *at, const struct sym__tensor *in,
    int n_in, struct sym__tensor *out, int n_out);
void kt_fail_args(const char *name, struct sym__kernel_args *a,
    const char *want);
void kt_fails(const char *name, const sym_attrs *at,
    const struct sym__tensor *in, int n_in, struct sym__tensor *out, int n_out,
    const char *want);
void kt_fails_at(const char *name, const struct sym__opattrs *dec,
    const struct sym__tensor *in, int n_in, struct sym__tensor *out, int n_out,
    const char *want);
void kt_set_depth_symbol(sym_ctx *ctx, sym_attrs *at);
sym_attrs *kt_attrs(sym_ctx *ctx);
void kt_set_ints(sym_ctx *ctx, sym_attrs *a, const char *name, size_t n,
    const int64_t *v);
void kt_unravel(int64_t i, int rank, const int64_t *dim, int64_t *c);
int64_t kt_ravel(int rank, const int64_t *dim, const int64_t *c);
double *kt_doubles(int64_t n);

#endif
