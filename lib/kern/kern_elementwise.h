/* SPDX-License-Identifier: MIT */
/*
 * The kernels of the elementwise family that live outside
 * kern_elementwise.c, whose table lists them: the operators that
 * broadcast any number of operands (kern_compare.c) and the unary maths
 * added with them and their gradients (kern_math.c).
 */
#ifndef SYM_KERN_KERN_ELEMENTWISE_H
#define SYM_KERN_KERN_ELEMENTWISE_H

#include "kern/kern_private.h"

int sym__k_equal(struct sym__kernel_args *a);
int sym__k_not_equal(struct sym__kernel_args *a);
int sym__k_less(struct sym__kernel_args *a);
int sym__k_less_equal(struct sym__kernel_args *a);
int sym__k_greater(struct sym__kernel_args *a);
int sym__k_greater_equal(struct sym__kernel_args *a);
int sym__k_logical_and(struct sym__kernel_args *a);
int sym__k_logical_or(struct sym__kernel_args *a);
int sym__k_logical_not(struct sym__kernel_args *a);
int sym__k_where(struct sym__kernel_args *a);
int sym__k_pow(struct sym__kernel_args *a);
int sym__k_pow_grad(struct sym__kernel_args *a);

int sym__k_erf(struct sym__kernel_args *a);
int sym__k_rsqrt(struct sym__kernel_args *a);
int sym__k_reciprocal(struct sym__kernel_args *a);
int sym__k_abs(struct sym__kernel_args *a);
int sym__k_sign(struct sym__kernel_args *a);
int sym__k_floor(struct sym__kernel_args *a);
int sym__k_ceil(struct sym__kernel_args *a);
int sym__k_clip(struct sym__kernel_args *a);
int sym__k_silu(struct sym__kernel_args *a);
int sym__k_softplus(struct sym__kernel_args *a);
int sym__k_erf_grad(struct sym__kernel_args *a);
int sym__k_rsqrt_grad(struct sym__kernel_args *a);
int sym__k_reciprocal_grad(struct sym__kernel_args *a);
int sym__k_clip_grad(struct sym__kernel_args *a);
int sym__k_silu_grad(struct sym__kernel_args *a);
int sym__k_softplus_grad(struct sym__kernel_args *a);

/* gelu's tanh approximation and its derivative at "x" (kern_math.c),
 * for the kernels of gelu and gelu_grad. */
double sym__gelu_tanh(double x);
double sym__gelu_tanh_grad(double x);

#endif
