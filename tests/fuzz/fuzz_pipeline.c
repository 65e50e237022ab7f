/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a graph file through sharding, slice plans, bindings and
 * the executor (fuzz_pipeline_one).
 */
#include <stdlib.h>

#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run one input; abort (a finding) when it breaks a property. Returns
 * 0. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_pipeline_one(data, size) < 0)
		abort();
	return 0;
}
