/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the dropout family: any split. dropout(x) is laid
 * out like x; dropout_grad(dy, y) needs dy and y split alike and is
 * laid out like them. The kernels draw each element's mask from its
 * global index, so every layout draws the mask one device draws.
 */
#include "rules/rule_private.h"

/* The layout step of dropout_grad; "s" is the run. */
int
sym__shard_infer_dropout_grad(struct sym__shard *s)
{
	int first = sym__shard_complete_alike(s);

	if (first < 0)
		return -1;
	return sym__shard_out_same(s, 0, (size_t)first);
}
