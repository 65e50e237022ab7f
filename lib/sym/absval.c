/* SPDX-License-Identifier: MIT */
/*
 * Tier 0's abstract domain: intervals times congruence classes.
 *
 * Every operation over-approximates: when a bound leaves the 64-bit range
 * it widens to infinity (or to the nearest representable bound on the safe
 * side), and when a modulus does, the class widens to "any integer".
 */
#include "sym/absval.h"

static sym__av av_reduce(sym__av a);

typedef __int128 i128;

#define EXT_INF (((i128)1) << 120)

/* Return gcd of two non-negative 128-bit values. */
static i128
gcd128(i128 a, i128 b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		i128 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Return the inverse of "a" modulo "m" > 0, gcd(a, m) = 1. */
static i128
inverse128(i128 a, i128 m)
{
	i128 t0 = 0, t1 = 1, r0 = m, r1 = a % m;

	if (m == 1)
		return 0;
	if (r1 < 0)
		r1 += m;
	while (r1) {
		i128 q = r0 / r1, t;

		t = t0 - q * t1;
		t0 = t1;
		t1 = t;
		t = r0 - q * r1;
		r0 = r1;
		r1 = t;
	}
	return t0 < 0 ? t0 + m : t0;
}

/* Return floor("a" / "b") for b > 0. */
static i128
fdiv128(i128 a, i128 b)
{
	i128 q = a / b;

	if (a % b != 0 && a < 0)
		q--;
	return q;
}

/* Return "a" mod "b" in [0, b) for b > 0. */
static i128
fmod128(i128 a, i128 b)
{
	i128 m = a % b;

	return m < 0 ? m + b : m;
}

/* Return the lower bound of "a" as an extended integer. */
static i128
ext_lo(const sym__av *a)
{
	return a->lo_inf ? -EXT_INF : (i128)a->lo;
}

/* Return the upper bound of "a" as an extended integer. */
static i128
ext_hi(const sym__av *a)
{
	return a->hi_inf ? EXT_INF : (i128)a->hi;
}

/* Return the product of extended integers "a" and "b" (0 * inf = 0). */
static i128
ext_mul(i128 a, i128 b)
{
	int inf =
	    a == EXT_INF || a == -EXT_INF || b == EXT_INF || b == -EXT_INF;

	if (a == 0 || b == 0)
		return 0;
	if (inf)
		return ((a < 0) != (b < 0)) ? -EXT_INF : EXT_INF;
	return a * b;
}

/* Return the sum of extended integers "a" and "b" (same-side bounds, so
 * inf - inf does not occur). */
static i128
ext_add(i128 a, i128 b)
{
	if (a == EXT_INF || b == EXT_INF)
		return EXT_INF;
	if (a == -EXT_INF || b == -EXT_INF)
		return -EXT_INF;
	return a + b;
}

/* Store the extended lower bound "v" in "a", widening safely. */
static void
set_lo(sym__av *a, i128 v)
{
	if (v < (i128)INT64_MIN) {
		a->lo_inf = 1;
		a->lo = 0;
	} else {
		a->lo_inf = 0;
		a->lo = v > (i128)INT64_MAX ? INT64_MAX : (int64_t)v;
	}
}

/* Store the extended upper bound "v" in "a", widening safely. */
static void
set_hi(sym__av *a, i128 v)
{
	if (v > (i128)INT64_MAX) {
		a->hi_inf = 1;
		a->hi = 0;
	} else {
		a->hi_inf = 0;
		a->hi = v < (i128)INT64_MIN ? INT64_MIN : (int64_t)v;
	}
}

/* Store the class "r" + "m"Z in "a"; m = 0 is the single value r. A class
 * that does not fit 64 bits widens to all integers. */
static void
set_class(sym__av *a, i128 m, i128 r)
{
	if (m < 0)
		m = -m;
	if (m == 0 && (r < (i128)INT64_MIN || r > (i128)INT64_MAX))
		m = 1;
	if (m > (i128)INT64_MAX)
		m = 1;
	a->m = (int64_t)m;
	a->r = m ? (int64_t)fmod128(r, m) : (int64_t)r;
}

/* Return the value that is every integer. */
sym__av
sym__av_top(void)
{
	sym__av a = { 0, 0, 1, 1, 0, 1, 0 };

	return a;
}

/* Return the single value "v". */
sym__av
sym__av_const(int64_t v)
{
	sym__av a = { v, v, 0, 0, 0, 0, v };

	return a;
}

/* Return the value with the given bounds and class, reduced. */
sym__av
sym__av_make(int lo_inf, int64_t lo, int hi_inf, int64_t hi, int64_t m,
    int64_t r)
{
	sym__av a = sym__av_top();

	a.lo_inf = lo_inf != 0;
	a.lo = lo_inf ? 0 : lo;
	a.hi_inf = hi_inf != 0;
	a.hi = hi_inf ? 0 : hi;
	set_class(&a, m, r);
	return av_reduce(a);
}

/* Return the value with no element. */
static sym__av
av_empty(void)
{
	sym__av a = sym__av_top();

	a.empty = 1;
	return a;
}

/* Return "a" with its bounds rounded into its class; a single value has
 * m = 0; an infeasible value is empty. */
static sym__av
av_reduce(sym__av a)
{
	if (a.empty)
		return av_empty();
	if (a.m == 0) {
		if ((!a.lo_inf && a.r < a.lo) || (!a.hi_inf && a.r > a.hi))
			return av_empty();
		return sym__av_const(a.r);
	}
	if (a.m > 1) {
		if (!a.lo_inf) {
			i128 lo = (i128)a.lo + fmod128((i128)a.r - a.lo, a.m);

			if (lo > (i128)INT64_MAX)
				return av_empty();
			a.lo = (int64_t)lo;
		}
		if (!a.hi_inf) {
			i128 hi = (i128)a.hi - fmod128((i128)a.hi - a.r, a.m);

			if (hi < (i128)INT64_MIN)
				return av_empty();
			a.hi = (int64_t)hi;
		}
	}
	if (!a.lo_inf && !a.hi_inf) {
		if (a.lo > a.hi)
			return av_empty();
		if (a.lo == a.hi)
			return sym__av_const(a.lo);
	}
	return a;
}

/* Return the value of "a" + "b". */
sym__av
sym__av_add(sym__av a, sym__av b)
{
	sym__av s = sym__av_top();

	if (a.empty || b.empty)
		return av_empty();
	set_lo(&s, ext_add(ext_lo(&a), ext_lo(&b)));
	set_hi(&s, ext_add(ext_hi(&a), ext_hi(&b)));
	set_class(&s, sym__gcd64(a.m, b.m), (i128)a.r + b.r);
	return av_reduce(s);
}

/* Return the value of "a" * "b". */
sym__av
sym__av_mul(sym__av a, sym__av b)
{
	sym__av s = sym__av_top();
	i128 c[4], lo, hi, m;

	if (a.empty || b.empty)
		return av_empty();
	c[0] = ext_mul(ext_lo(&a), ext_lo(&b));
	c[1] = ext_mul(ext_lo(&a), ext_hi(&b));
	c[2] = ext_mul(ext_hi(&a), ext_lo(&b));
	c[3] = ext_mul(ext_hi(&a), ext_hi(&b));
	lo = hi = c[0];
	for (int i = 1; i < 4; i++) {
		lo = c[i] < lo ? c[i] : lo;
		hi = c[i] > hi ? c[i] : hi;
	}
	set_lo(&s, lo);
	set_hi(&s, hi);
	m = gcd128(gcd128((i128)a.m * b.m, (i128)a.m * b.r), (i128)b.m * a.r);
	set_class(&s, m, (i128)a.r * b.r);
	return av_reduce(s);
}

/* Return floor of extended "a" / finite "b" > 0, as an extended value. */
static i128
ext_fdiv(i128 a, i128 b)
{
	if (a == EXT_INF || a == -EXT_INF)
		return a;
	return fdiv128(a, b);
}

/* Return the value of "a" floordiv "k" for a constant k > 0. */
static sym__av
av_fdiv_const(sym__av a, int64_t k)
{
	sym__av s = sym__av_top();

	set_lo(&s, ext_fdiv(ext_lo(&a), k));
	set_hi(&s, ext_fdiv(ext_hi(&a), k));
	if (a.m == 0)
		set_class(&s, 0, fdiv128(a.r, k));
	else if (a.m % k == 0)
		set_class(&s, a.m / k, fdiv128(a.r, k));
	else
		set_class(&s, 1, 0);
	return av_reduce(s);
}

/* Store in "*r" the value of "a" floordiv or mod "b" where it does not
 * depend on more than "by_const", that operation by a constant k > 0:
 * empty when either is, top unless "b" >= 1 throughout, "by_const" for a
 * constant "b". Return 1 then, 0 when "b" is a range of divisors. */
static int
by_divisor(sym__av a, sym__av b, sym__av (*by_const)(sym__av, int64_t),
    sym__av *r)
{
	int64_t k;

	if (a.empty || b.empty)
		*r = av_empty();
	else if (b.lo_inf || b.lo < 1)
		*r = sym__av_top();
	else if (sym__av_is_const(b, &k))
		*r = by_const(a, k);
	else
		return 0;
	return 1;
}

/* Return the value of "a" floordiv "b"; top unless "b" >= 1 throughout. */
sym__av
sym__av_fdiv(sym__av a, sym__av b)
{
	sym__av s = sym__av_top(), r;
	i128 alo, ahi, blo, bhi, lo, hi;

	if (by_divisor(a, b, av_fdiv_const, &r))
		return r;
	alo = ext_lo(&a);
	ahi = ext_hi(&a);
	blo = b.lo;
	bhi = ext_hi(&b);
	if (alo == -EXT_INF)
		lo = -EXT_INF;
	else if (alo >= 0)
		lo = bhi == EXT_INF ? 0 : fdiv128(alo, bhi);
	else
		lo = fdiv128(alo, blo);
	if (ahi == EXT_INF)
		hi = EXT_INF;
	else if (ahi >= 0)
		hi = fdiv128(ahi, blo);
	else
		hi = bhi == EXT_INF ? -1 : fdiv128(ahi, bhi);
	set_lo(&s, lo);
	set_hi(&s, hi);
	return av_reduce(s);
}

/* Return the value of "a" mod "k" for a constant k > 0. */
static sym__av
av_mod_const(sym__av a, int64_t k)
{
	sym__av s = sym__av_top();
	int64_t g;

	if (a.m == 0)
		return sym__av_const((int64_t)fmod128(a.r, k));
	if (a.m % k == 0)
		return sym__av_const((int64_t)fmod128(a.r, k));
	if (!a.lo_inf && !a.hi_inf && fdiv128(a.lo, k) == fdiv128(a.hi, k)) {
		i128 q = fdiv128(a.lo, k) * k;

		set_lo(&s, a.lo - q);
		set_hi(&s, a.hi - q);
		set_class(&s, a.m, (i128)a.r - q);
		return av_reduce(s);
	}
	g = sym__gcd64(a.m, k);
	s.lo_inf = s.hi_inf = 0;
	s.lo = 0;
	s.hi = k - 1;
	if (!a.lo_inf && a.lo >= 0 && !a.hi_inf && a.hi < s.hi)
		s.hi = a.hi;
	set_class(&s, g, a.r);
	return av_reduce(s);
}

/* Return the value of "a" mod "b"; top unless "b" >= 1 throughout. */
sym__av
sym__av_mod(sym__av a, sym__av b)
{
	sym__av s = sym__av_top(), r;

	if (by_divisor(a, b, av_mod_const, &r))
		return r;
	if (!a.lo_inf && a.lo >= 0 && !a.hi_inf && a.hi < b.lo)
		return a;
	s.lo_inf = 0;
	s.lo = 0;
	if (!b.hi_inf) {
		s.hi_inf = 0;
		s.hi = b.hi - 1;
	}
	if (!a.lo_inf && a.lo >= 0 && !a.hi_inf && (s.hi_inf || a.hi < s.hi)) {
		s.hi_inf = 0;
		s.hi = a.hi;
	}
	return av_reduce(s);
}

/* Return the smallest class containing both classes of "a" and "b",
 * stored in "s". */
static void
join_class(sym__av *s, const sym__av *a, const sym__av *b)
{
	i128 d = (i128)a->r - b->r;
	i128 m = gcd128(gcd128(a->m, b->m), d);

	set_class(s, m, a->r);
}

/* Return the value of min("a", "b"). */
sym__av
sym__av_min(sym__av a, sym__av b)
{
	sym__av s = sym__av_top();

	if (a.empty || b.empty)
		return av_empty();
	set_lo(&s, ext_lo(&a) < ext_lo(&b) ? ext_lo(&a) : ext_lo(&b));
	set_hi(&s, ext_hi(&a) < ext_hi(&b) ? ext_hi(&a) : ext_hi(&b));
	join_class(&s, &a, &b);
	return av_reduce(s);
}

/* Return the value of max("a", "b"). */
sym__av
sym__av_max(sym__av a, sym__av b)
{
	sym__av s = sym__av_top();

	if (a.empty || b.empty)
		return av_empty();
	set_lo(&s, ext_lo(&a) > ext_lo(&b) ? ext_lo(&a) : ext_lo(&b));
	set_hi(&s, ext_hi(&a) > ext_hi(&b) ? ext_hi(&a) : ext_hi(&b));
	join_class(&s, &a, &b);
	return av_reduce(s);
}

/* Return the values in both "a" and "b" (the class by the Chinese
 * remainder theorem). */
sym__av
sym__av_meet(sym__av a, sym__av b)
{
	sym__av s = sym__av_top();
	i128 g, m1 = a.m, m2 = b.m, r1 = a.r, r2 = b.r, l, x;

	if (a.empty || b.empty)
		return av_empty();
	set_lo(&s, ext_lo(&a) > ext_lo(&b) ? ext_lo(&a) : ext_lo(&b));
	set_hi(&s, ext_hi(&a) < ext_hi(&b) ? ext_hi(&a) : ext_hi(&b));
	if (m1 == 0 || m2 == 0) {
		i128 v = m1 == 0 ? r1 : r2;
		i128 m = m1 == 0 ? m2 : m1;
		i128 r = m1 == 0 ? r2 : r1;

		if (m == 0 ? v != r : fmod128(v - r, m) != 0)
			return av_empty();
		set_class(&s, 0, v);
		return av_reduce(s);
	}
	g = gcd128(m1, m2);
	if (fmod128(r1 - r2, g) != 0)
		return av_empty();
	l = m1 / g * m2;
	if (l > (i128)INT64_MAX) {
		set_class(&s, m1 > m2 ? m1 : m2, m1 > m2 ? r1 : r2);
		return av_reduce(s);
	}
	/* x = r1 + m1 * t with (m1 / g) * t = (r2 - r1) / g (mod m2 / g). */
	x = r1 +
	    m1 * fmod128((r2 - r1) / g * inverse128(m1 / g, m2 / g), m2 / g);
	set_class(&s, l, x);
	return av_reduce(s);
}

/* Return 1 when "v" belongs to "a". */
int
sym__av_contains(sym__av a, int64_t v)
{
	if (a.empty)
		return 0;
	if (!a.lo_inf && v < a.lo)
		return 0;
	if (!a.hi_inf && v > a.hi)
		return 0;
	if (a.m == 0)
		return v == a.r;
	return fmod128((i128)v - a.r, a.m) == 0;
}

/* Return 1 and the value in "v" (may be NULL) when "a" is one value. */
int
sym__av_is_const(sym__av a, int64_t *v)
{
	if (a.empty || a.m != 0)
		return 0;
	if (v)
		*v = a.r;
	return 1;
}

/* Return 1 when every value of "a" is a multiple of k > 0. */
int
sym__av_divisible(sym__av a, int64_t k)
{
	if (a.empty)
		return 1;
	if (a.m == 0)
		return a.r % k == 0;
	return a.m % k == 0 && a.r % k == 0;
}

/* Return 1 when every value of "a" belongs to "b". */
int
sym__av_subset(sym__av a, sym__av b)
{
	if (a.empty)
		return 1;
	if (b.empty)
		return 0;
	if (!b.lo_inf && (a.lo_inf || a.lo < b.lo))
		return 0;
	if (!b.hi_inf && (a.hi_inf || a.hi > b.hi))
		return 0;
	if (b.m == 1)
		return 1;
	if (b.m == 0)
		return a.m == 0 && a.r == b.r;
	if (a.m != 0 && a.m % b.m != 0)
		return 0;
	return fmod128((i128)a.r - b.r, b.m) == 0;
}
