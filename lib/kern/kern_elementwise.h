/* SPDX-License-Identifier: MIT */
/*
 * What kern_math.c shares with the other elementwise kernels
 * (kern_elementwise.c, kern_grad.c): gelu's tanh approximation. The
 * kernels themselves are declared from lib/shape/ops.def
 * (kern_private.h).
 */
#ifndef SYM_KERN_KERN_ELEMENTWISE_H
#define SYM_KERN_KERN_ELEMENTWISE_H

#include "kern/kern_private.h"

/* gelu's tanh approximation and its derivative at "x" (kern_math.c),
 * for the kernels of gelu and gelu_grad. */
double sym__gelu_tanh(double x);
double sym__gelu_tanh_grad(double x);

#endif
