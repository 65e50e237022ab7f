/*
 * Placeholder for the unit tests of the expr family: checks only that the
 * library links and reports a version.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <symshard.h>

/* Check that sym_version() returns a string; "state" is unused. */
static void
test_version(void **state)
{
	(void)state;
	assert_non_null(sym_version());
}

/* Run the tests of this program; returns the number of failures. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
	};

	return cmocka_run_group_tests_name("expr", tests, NULL, NULL);
}
