/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: text: and tokens: sequence corpora
 * (fuzz_corpus_one; the first byte picks the format and the options).
 */
#include <stdlib.h>

#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run one input; abort (a finding) when it breaks a property. Returns
 * 0. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_corpus_one(data, size) < 0)
		abort();
	return 0;
}
