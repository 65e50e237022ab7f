/* SPDX-License-Identifier: MIT */
/*
 * Factoring 64-bit integers exactly (device counts and split counts, up to
 * 2^63 - 1): trial division up to the cube root, then a deterministic
 * primality test, a square test or Pollard's rho on what is left.
 */
#ifndef SYM_CORE_FACTOR_H
#define SYM_CORE_FACTOR_H

#include <stddef.h>
#include <stdint.h>

/* A number below 2^64 has at most 15 distinct prime factors. */
#define SYM__FACTOR_MAX 16

/* The distinct prime factors of "n" (>= 1) in increasing order into
 * "prime" and their exponents into "exp" (room for SYM__FACTOR_MAX
 * each); their number (0 for 1). */
size_t sym__factor(uint64_t n, uint64_t *prime, unsigned *exp);
/* The divisors of "n" (>= 1) in increasing order, malloc'ed, their number
 * in "*count"; NULL when out of memory. */
int64_t *sym__divisors(int64_t n, size_t *count);

#endif
