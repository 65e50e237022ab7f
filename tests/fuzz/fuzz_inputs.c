/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: bindings, layouts, strategies, meshes and topology
 * files (fuzz_inputs_one; the first byte picks the reader).
 */
#include <stdlib.h>

#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run one input; abort (a finding) when it breaks a property. Returns
 * 0. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_inputs_one(data, size) < 0)
		abort();
	return 0;
}
