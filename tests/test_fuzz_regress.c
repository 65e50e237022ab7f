/*
 * Replays every input kept in tests/fuzz/regress/ (inputs that once
 * crashed, hung or leaked in a fuzzer) through both fuzz targets: each
 * must now parse as a graph and as an expression without breaking a
 * property, leaving no object alive.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "targets.h"

/* Return the malloc'ed contents of the file "path", their length in
 * "*len"; fail the test when it cannot be read. */
static uint8_t *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	assert_non_null(f);
	do {
		if (cap - n < 4096) {
			cap = 2 * cap + 4096;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	assert_int_equal(ferror(f), 0);
	fclose(f);
	*len = n;
	return buf;
}

/* Return 1 when the directory entry "name" is an input to replay: not a
 * dot file and not the README. */
static int
is_input(const char *name)
{
	return name[0] != '.' && strncmp(name, "README", 6) != 0;
}

/* Replay every input of tests/fuzz/regress/ through both targets. */
static void
test_replay(void **state)
{
	const char *top = getenv("top_srcdir");
	char dir[4096], path[8192];
	struct dirent *ent;
	size_t n_files = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/regress", top ? top : ".");
	d = opendir(dir);
	if (!d)
		fail_msg("cannot open %s (set top_srcdir)", dir);
	while ((ent = readdir(d)) != NULL) {
		uint8_t *data;
		size_t len;

		if (!is_input(ent->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
		data = read_file(path, &len);
		if (fuzz_graph_one(data, len) != 0)
			fail_msg("%s breaks the graph parser", path);
		if (fuzz_expr_one(data, len) != 0)
			fail_msg("%s breaks the expression parser", path);
		free(data);
		n_files++;
	}
	closedir(d);
	print_message("replayed %zu inputs of %s\n", n_files, dir);
}

/* Run the tests of this program; returns the number of failures. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
	};

	return cmocka_run_group_tests_name("fuzz_regress", tests, NULL, NULL);
}
