/* SPDX-License-Identifier: MIT */
/*
 * Replays every input kept in tests/fuzz/regress/ (inputs that once
 * crashed, hung, leaked or broke a property in a fuzzer): those at the
 * top through the targets of the parsers (graph and expression) and the
 * pipeline, those of regress/TARGET/ through TARGET (pipeline, inputs,
 * and graph or expr when they have a folder); then the seed corpora of
 * the pipeline and inputs targets. Each must run without breaking a
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
#include <sys/stat.h>

#include <cmocka.h>

#include "targets.h"
#include "testlib.h"

/* Return 1 when the directory entry "name" of "dir" is an input to
 * replay: a regular file, not a dot file and not the README. */
static int
is_input(const char *dir, const char *name)
{
	char path[8192];
	struct stat st;

	if (name[0] == '.' || strncmp(name, "README", 6) == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A fuzz target and its name. */
struct target {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
};

static const struct target graph = { "graph", fuzz_graph_one };
static const struct target expr = { "expr", fuzz_expr_one };
static const struct target pipeline = { "pipeline", fuzz_pipeline_one };
static const struct target inputs = { "inputs", fuzz_inputs_one };
static const struct target corpus = { "corpus", fuzz_corpus_one };
static const struct target onnx = { "onnx", fuzz_onnx_one };

/* Replay every input of the folder "sub" of tests/fuzz/ through the "n"
 * targets "t"; return the number of inputs. A folder that must exist
 * ("required") fails the test when it does not. */
static size_t
replay(const char *sub, const struct target *const *t, size_t n, int required)
{
	const char *top = getenv("top_srcdir");
	char dir[4096], path[8192];
	struct dirent *ent;
	size_t n_files = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/%s", top ? top : ".", sub);
	d = opendir(dir);
	if (!d && !required)
		return 0;
	if (!d)
		fail_msg("cannot open %s (set top_srcdir)", dir);
	while ((ent = readdir(d)) != NULL) {
		uint8_t *data;
		size_t len;

		if (!is_input(dir, ent->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
		data = (uint8_t *)tl_read_file(path, &len);
		for (size_t i = 0; i < n; i++)
			if (t[i]->one(data, len) != 0)
				fail_msg("%s breaks the %s target", path,
				    t[i]->name);
		free(data);
		n_files++;
	}
	closedir(d);
	print_message("replayed %zu inputs of %s\n", n_files, dir);
	return n_files;
}

/* Replay the inputs of tests/fuzz/regress/ through the parsers' targets
 * (graph and expression) and the pipeline, and those of
 * regress/TARGET/ through TARGET alone. */
static void
test_regress(void **state)
{
	const struct target *parsers[] = { &graph, &expr, &pipeline };
	const struct target *one[1];

	(void)state;
	assert_true(replay("regress", parsers, 3, 1) > 0);
	one[0] = &graph;
	replay("regress/graph", one, 1, 0);
	one[0] = &expr;
	replay("regress/expr", one, 1, 0);
	one[0] = &pipeline;
	replay("regress/pipeline", one, 1, 0);
	one[0] = &inputs;
	replay("regress/inputs", one, 1, 0);
	one[0] = &corpus;
	replay("regress/corpus", one, 1, 0);
}

/* Replay the seed corpora of the pipeline, inputs and onnx targets through
 * them: every seed must keep every property. */
static void
test_corpus(void **state)
{
	const struct target *one[1] = { &pipeline };

	(void)state;
	assert_true(replay("corpus-pipeline", one, 1, 1) > 0);
	one[0] = &inputs;
	assert_true(replay("corpus-inputs", one, 1, 1) > 0);
	one[0] = &corpus;
	assert_true(replay("corpus-corpus", one, 1, 1) > 0);
	one[0] = &onnx;
	assert_true(replay("corpus-onnx", one, 1, 1) > 0);
	replay("regress/onnx", one, 1, 0);
}

/* Run the tests of this program; returns the number of failures. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regress),
		cmocka_unit_test(test_corpus),
	};

	return cmocka_run_group_tests_name("fuzz_regress", tests, NULL, NULL);
}
