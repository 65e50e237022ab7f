/* SPDX-License-Identifier: MIT */
/*
 * Abstract values of tier 0: an interval intersected with a congruence
 * class, { x : lo <= x <= hi, x = r (mod m) }, kept reduced.
 */
#ifndef SYM_SYM_ABSVAL_H
#define SYM_SYM_ABSVAL_H

#include <stdint.h>

#include "core/num.h"

typedef struct sym__av {
	int64_t lo, hi;
	uint8_t lo_inf; /* lo is -infinity */
	uint8_t hi_inf; /* hi is +infinity */
	uint8_t empty;  /* no value at all */
	int64_t m;      /* 0: the single value r; else x = r (mod m) */
	int64_t r;      /* 0 <= r < m when m > 0 */
} sym__av;

sym__av sym__av_top(void);
sym__av sym__av_const(int64_t v);
sym__av sym__av_make(int lo_inf, int64_t lo, int hi_inf, int64_t hi, int64_t m,
    int64_t r);
sym__av sym__av_add(sym__av a, sym__av b);
sym__av sym__av_mul(sym__av a, sym__av b);
sym__av sym__av_fdiv(sym__av a, sym__av b);
sym__av sym__av_mod(sym__av a, sym__av b);
sym__av sym__av_min(sym__av a, sym__av b);
sym__av sym__av_max(sym__av a, sym__av b);
sym__av sym__av_meet(sym__av a, sym__av b);
int sym__av_contains(sym__av a, int64_t v);
int sym__av_is_const(sym__av a, int64_t *v);
int sym__av_divisible(sym__av a, int64_t k);
int sym__av_subset(sym__av a, sym__av b);

#endif
