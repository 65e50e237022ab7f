/* SPDX-License-Identifier: MIT */
/*
 * Integers that can grow: a 64-bit value, promoted to a GMP integer when an
 * operation would overflow and demoted again when the result fits.
 */
#ifndef SYM_CORE_NUM_H
#define SYM_CORE_NUM_H

#include <stdint.h>

#include <gmp.h>

#include "core/hash.h"

typedef struct sym__num {
	int64_t small;
	mpz_ptr big; /* NULL when the value is "small" */
} sym__num;

#define SYM__NUM_ZERO   \
	{               \
		0, NULL \
	}

void sym__num_set_mpz(sym__num *r, mpz_srcptr z);
void sym__num_get_mpz(mpz_ptr z, const sym__num *a);
void sym__num_free_big(sym__num *r);
int sym__num_sgn_big(const sym__num *a);
int sym__num_cmp_big(const sym__num *a, const sym__num *b);
void sym__num_add_big(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_sub_big(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_mul_big(sym__num *r, const sym__num *a, const sym__num *b);
uint32_t sym__num_hash_big(const sym__num *a);
void sym__num_fdiv_q(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_fdiv_r(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_divexact(sym__num *r, const sym__num *a, const sym__num *b);
int sym__num_divisible(const sym__num *a, const sym__num *b);
void sym__num_gcd(sym__num *r, const sym__num *a, const sym__num *b);
int64_t sym__gcd64(int64_t a, int64_t b);
/* gcd(a, b) of unsigned 64-bit values; gcd(0, 0) = 0. */
uint64_t sym__gcdu64(uint64_t a, uint64_t b);
char *sym__num_to_str(const sym__num *a);
int sym__num_from_str(sym__num *r, const char *s);

/*
 * The 64-bit fast paths are inline: tier 0 builds small polynomials whose
 * numbers nearly always fit, and a call per operation costs more than the
 * operation. The GMP paths stay in num.c.
 */

/* Return 1 when "a" holds its value in 64 bits. */
static inline int
sym__num_is_small(const sym__num *a)
{
	return a->big == NULL;
}

/* Release the storage of "r" and set it to zero. */
static inline void
sym__num_clear(sym__num *r)
{
	if (r->big)
		sym__num_free_big(r);
	r->small = 0;
}

/* Set "r" to the 64-bit value "v". */
static inline void
sym__num_set_si(sym__num *r, int64_t v)
{
	if (r->big)
		sym__num_free_big(r);
	r->small = v;
}

/* Set "r" to a copy of "a". */
static inline void
sym__num_set(sym__num *r, const sym__num *a)
{
	if (r == a)
		return;
	if (a->big)
		sym__num_set_mpz(r, a->big);
	else
		sym__num_set_si(r, a->small);
}

/* Return 1 and the value in "v" (may be NULL) when "a" fits 64 bits, 0
 * otherwise. */
static inline int
sym__num_fits(const sym__num *a, int64_t *v)
{
	if (a->big)
		return 0;
	if (v)
		*v = a->small;
	return 1;
}

/* Return the sign of "a". */
static inline int
sym__num_sgn(const sym__num *a)
{
	if (a->big)
		return sym__num_sgn_big(a);
	return (a->small > 0) - (a->small < 0);
}

/* Return the sign of "a" - "b". */
static inline int
sym__num_cmp(const sym__num *a, const sym__num *b)
{
	if (!a->big && !b->big)
		return (a->small > b->small) - (a->small < b->small);
	return sym__num_cmp_big(a, b);
}

/* Return the sign of "a" - "v". */
static inline int
sym__num_cmp_si(const sym__num *a, int64_t v)
{
	const sym__num n = { v, NULL };

	return sym__num_cmp(a, &n);
}

/* Return 1 when "a" equals "b". */
static inline int
sym__num_eq(const sym__num *a, const sym__num *b)
{
	if (!a->big && !b->big)
		return a->small == b->small;
	return sym__num_cmp_big(a, b) == 0;
}

/* Set "r" to "a" + "b". */
static inline void
sym__num_add(sym__num *r, const sym__num *a, const sym__num *b)
{
	int64_t v;

	if (!a->big && !b->big &&
	    !__builtin_add_overflow(a->small, b->small, &v)) {
		sym__num_set_si(r, v);
		return;
	}
	sym__num_add_big(r, a, b);
}

/* Set "r" to "a" - "b". */
static inline void
sym__num_sub(sym__num *r, const sym__num *a, const sym__num *b)
{
	int64_t v;

	if (!a->big && !b->big &&
	    !__builtin_sub_overflow(a->small, b->small, &v)) {
		sym__num_set_si(r, v);
		return;
	}
	sym__num_sub_big(r, a, b);
}

/* Set "r" to "a" * "b". */
static inline void
sym__num_mul(sym__num *r, const sym__num *a, const sym__num *b)
{
	int64_t v;

	if (!a->big && !b->big &&
	    !__builtin_mul_overflow(a->small, b->small, &v)) {
		sym__num_set_si(r, v);
		return;
	}
	sym__num_mul_big(r, a, b);
}

/* Set "r" to -"a". */
static inline void
sym__num_neg(sym__num *r, const sym__num *a)
{
	const sym__num zero = SYM__NUM_ZERO;

	sym__num_sub(r, &zero, a);
}

/* Return a hash of the value of "a". */
static inline uint32_t
sym__num_hash(const sym__num *a)
{
	uint64_t h;

	if (a->big)
		return sym__num_hash_big(a);
	h = (uint64_t)a->small * SYM__GOLDEN;
	return (uint32_t)(h ^ (h >> 29));
}

#endif
