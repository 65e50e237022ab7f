/* SPDX-License-Identifier: MIT */
/*
 * Growable integers: int64 fast path with a GMP fallback.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"

_Static_assert(sizeof(long) == sizeof(int64_t),
    "the 64-bit fast path assumes an LP64 platform");

/* Store "z" in "r", demoting to the small form when it fits. */
void
sym__num_set_mpz(sym__num *r, mpz_srcptr z)
{
	if (mpz_fits_slong_p(z)) {
		long v = mpz_get_si(z);

		sym__num_clear(r);
		r->small = v;
		return;
	}
	if (!r->big) {
		r->big = malloc(sizeof(*r->big));
		if (!r->big)
			abort();
		mpz_init(r->big);
	}
	mpz_set(r->big, z);
	r->small = 0;
}

/* Set "z" to the value of "a". */
void
sym__num_get_mpz(mpz_ptr z, const sym__num *a)
{
	if (a->big)
		mpz_set(z, a->big);
	else
		mpz_set_si(z, (long)a->small);
}

/* Free the GMP integer of "r" (which has one): "r" is then small. */
void
sym__num_free_big(sym__num *r)
{
	mpz_clear(r->big);
	free(r->big);
	r->big = NULL;
}

/* Return the sign of "a", which is big. */
int
sym__num_sgn_big(const sym__num *a)
{
	return a->big ? mpz_sgn(a->big) : (a->small > 0) - (a->small < 0);
}

/* Return the sign of "a" - "b", at least one of them big. */
int
sym__num_cmp_big(const sym__num *a, const sym__num *b)
{
	if (!a->big && !b->big)
		return (a->small > b->small) - (a->small < b->small);
	if (a->big && b->big)
		return mpz_cmp(a->big, b->big);
	if (a->big)
		return mpz_cmp_si(a->big, (long)b->small);
	return -mpz_cmp_si(b->big, (long)a->small);
}

typedef void (*mpz_binop)(mpz_ptr, mpz_srcptr, mpz_srcptr);

/* Compute "op"("a", "b") in GMP and store it in "r". */
static void
slow_binop(sym__num *r, const sym__num *a, const sym__num *b, mpz_binop op)
{
	mpz_t x, y;

	mpz_init(x);
	mpz_init(y);
	sym__num_get_mpz(x, a);
	sym__num_get_mpz(y, b);
	op(x, x, y);
	sym__num_set_mpz(r, x);
	mpz_clear(x);
	mpz_clear(y);
}

/* Set "r" to "a" + "b" in GMP (the 64-bit path overflowed). */
void
sym__num_add_big(sym__num *r, const sym__num *a, const sym__num *b)
{
	slow_binop(r, a, b, mpz_add);
}

/* Set "r" to "a" - "b" in GMP (the 64-bit path overflowed). */
void
sym__num_sub_big(sym__num *r, const sym__num *a, const sym__num *b)
{
	slow_binop(r, a, b, mpz_sub);
}

/* Set "r" to "a" * "b" in GMP (the 64-bit path overflowed). */
void
sym__num_mul_big(sym__num *r, const sym__num *a, const sym__num *b)
{
	slow_binop(r, a, b, mpz_mul);
}

/* Set "r" to floor("a" / "b"); "b" must be non-zero. */
void
sym__num_fdiv_q(sym__num *r, const sym__num *a, const sym__num *b)
{
	if (!a->big && !b->big && !(a->small == INT64_MIN && b->small == -1)) {
		int64_t q = a->small / b->small;

		if ((a->small % b->small != 0) &&
		    ((a->small < 0) != (b->small < 0)))
			q--;
		sym__num_set_si(r, q);
		return;
	}
	slow_binop(r, a, b, mpz_fdiv_q);
}

/* Set "r" to "a" - "b" * floor("a" / "b"); "b" must be non-zero. */
void
sym__num_fdiv_r(sym__num *r, const sym__num *a, const sym__num *b)
{
	if (!a->big && !b->big) {
		int64_t m;

		if (b->small == -1) {
			sym__num_set_si(r, 0);
			return;
		}
		m = a->small % b->small;
		if (m != 0 && ((m < 0) != (b->small < 0)))
			m += b->small;
		sym__num_set_si(r, m);
		return;
	}
	slow_binop(r, a, b, mpz_fdiv_r);
}

/* Set "r" to "a" / "b", where "b" is known to divide "a". */
void
sym__num_divexact(sym__num *r, const sym__num *a, const sym__num *b)
{
	sym__num_fdiv_q(r, a, b);
}

/* Return 1 when "b" divides "a" ("b" non-zero). */
int
sym__num_divisible(const sym__num *a, const sym__num *b)
{
	sym__num m = SYM__NUM_ZERO;
	int res;

	sym__num_fdiv_r(&m, a, b);
	res = sym__num_sgn(&m) == 0;
	sym__num_clear(&m);
	return res;
}

/* Return gcd(a, b) of unsigned 64-bit values; gcd(0, 0) = 0. */
uint64_t
sym__gcdu64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Return gcd(|a|, |b|) for 64-bit values that are not INT64_MIN;
 * gcd(0, 0) = 0. */
int64_t
sym__gcd64(int64_t a, int64_t b)
{
	return (int64_t)sym__gcdu64((uint64_t)(a < 0 ? -a : a),
	    (uint64_t)(b < 0 ? -b : b));
}

/* Set "r" to the non-negative gcd of "a" and "b". */
void
sym__num_gcd(sym__num *r, const sym__num *a, const sym__num *b)
{
	if (!a->big && !b->big && a->small != INT64_MIN &&
	    b->small != INT64_MIN) {
		sym__num_set_si(r, sym__gcd64(a->small, b->small));
		return;
	}
	slow_binop(r, a, b, mpz_gcd);
}

/* Return a hash of the value of "a", which is big. */
uint32_t
sym__num_hash_big(const sym__num *a)
{
	uint64_t h;

	if (!a->big) {
		h = (uint64_t)a->small * SYM__GOLDEN;
		return (uint32_t)(h ^ (h >> 29));
	}
	h = SYM__FNV_BASIS ^ (uint64_t)mpz_sgn(a->big);
	for (size_t i = 0; i < mpz_size(a->big); i++)
		h = sym__fnv1a_word(h, mpz_getlimbn(a->big, (mp_size_t)i));
	return (uint32_t)(h ^ (h >> 32));
}

/* Return a newly allocated decimal string for "a", or NULL. */
char *
sym__num_to_str(const sym__num *a)
{
	mpz_t z;
	char *s, *copy;

	if (!a->big) {
		char buf[24];
		int n = snprintf(buf, sizeof(buf), "%lld", (long long)a->small);

		copy = malloc((size_t)n + 1);
		if (copy)
			memcpy(copy, buf, (size_t)n + 1);
		return copy;
	}
	mpz_init(z);
	sym__num_get_mpz(z, a);
	s = mpz_get_str(NULL, 10, z);
	mpz_clear(z);
	copy = s ? strdup(s) : NULL;
	if (s) {
		void (*freefunc)(void *, size_t);

		mp_get_memory_functions(NULL, NULL, &freefunc);
		freefunc(s, strlen(s) + 1);
	}
	return copy;
}

/* Parse the decimal string "s" (optional sign) into "r"; 0 or -1. */
int
sym__num_from_str(sym__num *r, const char *s)
{
	mpz_t z;

	if (mpz_init_set_str(z, s, 10) != 0) {
		mpz_clear(z);
		return -1;
	}
	sym__num_set_mpz(r, z);
	mpz_clear(z);
	return 0;
}
