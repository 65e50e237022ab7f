/* SPDX-License-Identifier: MIT */
/*
 * The library's hash table (lib/core/htab.h) against a plain array: random
 * insertions and removals with hashes crowded into few first slots, so
 * that probes wrap around the end and removals shift entries back across
 * it; after every operation each item present is found under its hash,
 * and no item removed is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/hash.h"
#include "core/htab.h"
#include "testlib.h"

#define N_ITEMS 600

/* The hash of item "k": few distinct first slots, many near the end of
 * the table ("crowd" bits of spread), so that runs wrap around. */
static uint64_t
item_hash(uintptr_t k, unsigned crowd)
{
	uint64_t h = sym__mix64(k) & ((1u << crowd) - 1);

	return ~h; /* the low bits are all ones: the last slots */
}

/* Check that exactly the items of "in" are in "t". */
static void
check_all(const struct sym__htab *t, const unsigned char *in, unsigned crowd)
{
	size_t n = 0;

	for (uintptr_t k = 0; k < N_ITEMS; k++) {
		size_t i = sym__htab_find_item(t, item_hash(k, crowd), k);

		if (in[k]) {
			assert_true(i != SYM__HTAB_END);
			assert_int_equal(t->slot[i].item, k);
			n++;
		} else {
			assert_true(i == SYM__HTAB_END);
		}
	}
	assert_int_equal(t->n, n);
	assert_true(2 * t->n <= t->cap);
}

/* Random insertions and removals checked after every one. */
static void
test_random(void **state)
{
	(void)state;
	for (unsigned crowd = 1; crowd <= 9; crowd += 4) {
		struct sym__htab t = { NULL, 0, 0 };
		unsigned char in[N_ITEMS] = { 0 };
		uint64_t seed = crowd;

		for (int step = 0; step < 3000; step++) {
			uintptr_t k = sym__splitmix64(&seed) % N_ITEMS;
			uint64_t h = item_hash(k, crowd);

			if (!in[k]) {
				assert_int_equal(sym__htab_add(NULL, &t, h, k),
				    0);
				in[k] = 1;
			} else {
				size_t i = sym__htab_find_item(&t, h, k);

				assert_true(i != SYM__HTAB_END);
				sym__htab_remove(&t, i);
				in[k] = 0;
			}
			if (step % 7 == 0 || t.n < 40)
				check_all(&t, in, crowd);
		}
		check_all(&t, in, crowd);
		sym__htab_clear(&t);
		assert_null(t.slot);
		assert_int_equal(t.cap, 0);
	}
}

/* Entries of one hash are visited in the order they were added, and a
 * lookup in an empty table finds nothing. */
static void
test_same_hash(void **state)
{
	struct sym__htab t = { NULL, 0, 0 };
	uintptr_t k = 0;

	(void)state;
	assert_true(sym__htab_first(&t, 42) == SYM__HTAB_END);
	for (uintptr_t i = 0; i < 100; i++)
		assert_int_equal(sym__htab_add(NULL, &t, i % 3 ? 7 : 42, i), 0);
	for (size_t i = sym__htab_first(&t, 42); i != SYM__HTAB_END;
	     i = sym__htab_next(&t, 42, i), k += 3)
		assert_int_equal(t.slot[i].item, k);
	assert_int_equal(k, 102);
	assert_true(sym__htab_first(&t, 43) == SYM__HTAB_END);
	sym__htab_clear(&t);
}

/* A reservation that cannot be made fails, records SYM_ENOMEM and leaves
 * the table as it was. */
static void
test_reserve_overflow(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	struct sym__htab t = { NULL, 0, 0 };

	(void)state;
	assert_int_equal(sym__htab_add(ctx, &t, 1, 5), 0);
	assert_int_equal(sym__htab_reserve(ctx, &t, SIZE_MAX / 2), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ENOMEM);
	assert_int_equal(t.n, 1);
	assert_true(sym__htab_find_item(&t, 1, 5) != SYM__HTAB_END);
	sym__htab_clear(&t);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_same_hash),
		cmocka_unit_test(test_reserve_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
