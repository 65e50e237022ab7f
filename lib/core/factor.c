/* SPDX-License-Identifier: MIT */
/*
 * Exact factoring of 64-bit integers. Trial division by 2, 3 and the
 * numbers 6k +- 1 stops at the cube root of what is left, m: every prime
 * factor of m is then larger than its cube root, so m is 1, a prime, the
 * square of a prime or the product of two distinct primes. A
 * deterministic Miller-Rabin test (the first twelve primes as bases are
 * exact below 3.3e24) tells the primes, an integer square root the
 * squares, and Pollard's rho (Brent's variant) splits the products, in
 * about m^(1/4) steps.
 */
#include <math.h>
#include <stdlib.h>

#include "core/factor.h"
#include "core/num.h"

typedef unsigned __int128 u128;

/* Return "a" * "b" mod "n". */
static uint64_t
mulmod(uint64_t a, uint64_t b, uint64_t n)
{
	return (uint64_t)((u128)a * b % n);
}

/* Return "a" to the power "e" mod "n". */
static uint64_t
powmod(uint64_t a, uint64_t e, uint64_t n)
{
	uint64_t r = 1 % n;

	for (a %= n; e; e >>= 1) {
		if (e & 1)
			r = mulmod(r, a, n);
		a = mulmod(a, a, n);
	}
	return r;
}

/* Return 1 when the odd "n" > 2 is a strong probable prime to base "a"
 * ("d" odd, "n" - 1 = "d" * 2^"s"). */
static int
strong_probable_prime(uint64_t n, uint64_t a, uint64_t d, unsigned s)
{
	uint64_t x = powmod(a, d, n);

	if (x == 1 || x == n - 1)
		return 1;
	while (--s > 0) {
		x = mulmod(x, x, n);
		if (x == n - 1)
			return 1;
	}
	return 0;
}

/* Return 1 when "n" is prime. */
static int
is_prime(uint64_t n)
{
	static const uint64_t base[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31,
		37 };
	uint64_t d = n - 1;
	unsigned s = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < sizeof(base) / sizeof(*base); i++)
		if (n % base[i] == 0)
			return n == base[i];
	for (; d % 2 == 0; d /= 2)
		s++;
	for (size_t i = 0; i < sizeof(base) / sizeof(*base); i++)
		if (!strong_probable_prime(n, base[i], d, s))
			return 0;
	return 1;
}

/* Return the integer square root of "n" (the largest r with r * r <= n). */
static uint64_t
isqrt(uint64_t n)
{
	uint64_t r = (uint64_t)sqrtl((long double)n);

	while (r > 0 && (u128)r * r > n)
		r--;
	while ((u128)(r + 1) * (r + 1) <= n)
		r++;
	return r;
}

/* Return |"a" - "b"|. */
static uint64_t
absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Return a factor of "n" other than 1 and "n" found by the sequence
 * x -> x^2 + "c" mod "n" (Brent's cycle finding), or "n" when this "c"
 * fails. "n" is odd and composite. */
static uint64_t
rho(uint64_t n, uint64_t c)
{
	uint64_t x = 0, y = 2, ys = 2, q = 1, g = 1;
	const uint64_t m = 128;

	for (uint64_t r = 1; g == 1; r *= 2) {
		x = y;
		for (uint64_t i = 0; i < r; i++)
			y = (mulmod(y, y, n) + c) % n;
		for (uint64_t k = 0; k < r && g == 1; k += m) {
			ys = y;
			for (uint64_t i = 0; i < m && i < r - k; i++) {
				y = (mulmod(y, y, n) + c) % n;
				q = mulmod(q, absdiff(x, y), n);
			}
			g = sym__gcdu64(q, n);
		}
	}
	if (g == n) {
		do {
			ys = (mulmod(ys, ys, n) + c) % n;
			g = sym__gcdu64(absdiff(x, ys), n);
		} while (g == 1);
	}
	return g;
}

/* Add the prime "q" with exponent "e" to the "n" factors "prime" and
 * "exp", kept in increasing order; the new number of factors. */
static size_t
add_factor(uint64_t *prime, unsigned *exp, size_t n, uint64_t q, unsigned e)
{
	size_t i = n;

	while (i > 0 && prime[i - 1] > q) {
		prime[i] = prime[i - 1];
		exp[i] = exp[i - 1];
		i--;
	}
	prime[i] = q;
	exp[i] = e;
	return n + 1;
}

/* Factor the rest "m" of a trial division up to its cube root into the
 * "k" factors "prime" and "exp"; their new number. */
static size_t
factor_rest(uint64_t m, uint64_t *prime, unsigned *exp, size_t k)
{
	uint64_t r, f = m;

	if (m == 1)
		return k;
	if (is_prime(m))
		return add_factor(prime, exp, k, m, 1);
	r = isqrt(m);
	if (r * r == m)
		return add_factor(prime, exp, k, r, 2);
	for (uint64_t c = 1; f == m; c++)
		f = rho(m, c);
	k = add_factor(prime, exp, k, f, 1);
	return add_factor(prime, exp, k, m / f, 1);
}

/* Return the number of distinct prime factors of "n", written in
 * increasing order to "prime" with their exponents in "exp". */
size_t
sym__factor(uint64_t n, uint64_t *prime, unsigned *exp)
{
	size_t k = 0;

	for (uint64_t d = 2; d < 5 && n > 1; d++) {
		unsigned e = 0;

		for (; n % d == 0; n /= d)
			e++;
		if (e)
			k = add_factor(prime, exp, k, d, e);
	}
	for (uint64_t d = 5; d <= n / d / d; d += 2) {
		unsigned e = 0;

		if (d % 3 == 0)
			continue;
		for (; n % d == 0; n /= d)
			e++;
		if (e)
			k = add_factor(prime, exp, k, d, e);
	}
	return factor_rest(n, prime, exp, k);
}

/* Compare the divisors at "a" and "b" for qsort. */
static int
cmp_divisor(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Return the divisors of "n" in increasing order, malloc'ed, their number
 * in "*count". */
int64_t *
sym__divisors(int64_t n, size_t *count)
{
	uint64_t prime[SYM__FACTOR_MAX];
	unsigned exp[SYM__FACTOR_MAX];
	size_t k = sym__factor(n > 0 ? (uint64_t)n : 1, prime, exp), total = 1;
	int64_t *d;

	for (size_t i = 0; i < k; i++)
		total *= exp[i] + 1;
	d = malloc(total * sizeof(*d));
	if (!d)
		return NULL;
	d[0] = 1;
	*count = 1;
	for (size_t i = 0; i < k; i++) {
		size_t have = *count;
		int64_t pw = 1;

		for (unsigned e = 0; e < exp[i]; e++) {
			pw *= (int64_t)prime[i];
			for (size_t j = 0; j < have; j++)
				d[(*count)++] = d[j] * pw;
		}
	}
	qsort(d, *count, sizeof(*d), cmp_divisor);
	return d;
}
