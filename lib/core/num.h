/*
 * Integers that can grow: a 64-bit value, promoted to a GMP integer when an
 * operation would overflow and demoted again when the result fits.
 */
#ifndef SYM_CORE_NUM_H
#define SYM_CORE_NUM_H

#include <stdint.h>

#include <gmp.h>

typedef struct sym__num {
	int64_t small;
	mpz_ptr big; /* NULL when the value is "small" */
} sym__num;

#define SYM__NUM_ZERO   \
	{               \
		0, NULL \
	}

void sym__num_set_si(sym__num *r, int64_t v);
void sym__num_set(sym__num *r, const sym__num *a);
void sym__num_set_mpz(sym__num *r, mpz_srcptr z);
void sym__num_get_mpz(mpz_ptr z, const sym__num *a);
void sym__num_clear(sym__num *r);
int sym__num_fits(const sym__num *a, int64_t *v);
int sym__num_sgn(const sym__num *a);
int sym__num_cmp(const sym__num *a, const sym__num *b);
int sym__num_cmp_si(const sym__num *a, int64_t v);
int sym__num_eq(const sym__num *a, const sym__num *b);
void sym__num_add(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_sub(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_mul(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_neg(sym__num *r, const sym__num *a);
void sym__num_fdiv_q(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_fdiv_r(sym__num *r, const sym__num *a, const sym__num *b);
void sym__num_divexact(sym__num *r, const sym__num *a, const sym__num *b);
int sym__num_divisible(const sym__num *a, const sym__num *b);
void sym__num_gcd(sym__num *r, const sym__num *a, const sym__num *b);
int64_t sym__gcd64(int64_t a, int64_t b);
uint32_t sym__num_hash(const sym__num *a);
char *sym__num_to_str(const sym__num *a);
int sym__num_from_str(sym__num *r, const char *s);

static inline int
sym__num_is_small(const sym__num *a)
{
	return a->big == NULL;
}

#endif
