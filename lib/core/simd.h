/* SPDX-License-Identifier: MIT */
/*
 * Loops the compiler may vectorise: configure adds -fopenmp-simd and
 * defines SYM_OMP_SIMD when the compiler has it; without it the marks
 * are empty and the loops stay as written.
 */
#ifndef SYM_CORE_SIMD_H
#define SYM_CORE_SIMD_H

#define SYM__PRAGMA(x) _Pragma(#x)
#ifdef SYM_OMP_SIMD
#define SYM__SIMD SYM__PRAGMA(omp simd)
#define SYM__SIMD_SUM(v) SYM__PRAGMA(omp simd reduction(+ : v))
#else
#define SYM__SIMD
#define SYM__SIMD_SUM(v)
#endif

#endif
