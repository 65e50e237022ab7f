/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the parser of expressions (sym_expr_parse) and the
 * printer it must agree with.
 */
#include <stdlib.h>

#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run one input; abort (a finding) when it breaks a property. Returns
 * 0. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_expr_one(data, size) < 0)
		abort();
	return 0;
}
