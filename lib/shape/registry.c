/* SPDX-License-Identifier: MIT */
/*
 * The operator registry: one entry per line of lib/shape/ops.def with
 * its name, family, arity, positional arguments, attribute decoder,
 * shape rule, the facts the executor needs and its flop count. The sharding rules
 * (lib/rules/rules.c) and the kernels (lib/kern/kernel.c) are tables
 * indexed by the same identities.
 */
#include <string.h>

#include "shape/shape_private.h"

static const char *const reshape_pos[] = { "shape", NULL };
static const char *const perm_pos[] = { "perm", NULL };
static const char *const sum_to_pos[] = { "shape", NULL };
static const char *const expand_pos[] = { "shape", NULL };
static const char *const tile_pos[] = { "repeats", NULL };
static const char *const pad_pos[] = { "pads", NULL };
static const char *const arange_pos[] = { "range", NULL };
static const char *const full_pos[] = { "shape", NULL };

static const char *const family_name[SYM__N_FAMILIES] = {
	[SYM__FAM_MATMUL] = "matmul",
	[SYM__FAM_ELEMENTWISE] = "elementwise",
	[SYM__FAM_LAYOUT] = "layout",
	[SYM__FAM_CONCAT] = "concat",
	[SYM__FAM_REDUCE] = "reduce",
	[SYM__FAM_NORM] = "norm",
	[SYM__FAM_GATHER] = "gather",
	[SYM__FAM_LOSS] = "loss",
	[SYM__FAM_CONV] = "conv",
	[SYM__FAM_POOL] = "pool",
	[SYM__FAM_DROPOUT] = "dropout",
	[SYM__FAM_INDEX] = "index",
	[SYM__FAM_GENERATE] = "generate",
	[SYM__FAM_OPTIM] = "optim",
	[SYM__FAM_GRAD] = "grad",
};

/* One entry per line of ops.def. */
#define SYM__OPDEF(ID, NAME, FAM, MIN, MAX, POS, DECODE, RULE, FLAGS, NORM,   \
    NIN, IN, T, D, WORK, PER)                                                 \
	[SYM__OP_##ID] = { SYM__OP_##ID, NAME, SYM__FAM_##FAM, MIN, MAX, POS, \
		DECODE, RULE, SYM__OPF_##FLAGS, SYM__NORM_##NORM,             \
		{ IN, T, D }, NIN, SYM__WORK_##WORK, PER },
static const sym_op ops[SYM__N_OPS] = {
#include "shape/ops.def"
};

/* Return the registry entry of "id", or NULL when out of range. */
const sym_op *
sym__op(enum sym__opid id)
{
	return (unsigned)id < SYM__N_OPS ? &ops[id] : NULL;
}

/* Return the operator called "name", or NULL when there is none. */
const sym_op *
sym_op_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < SYM__N_OPS; i++)
		if (ops[i].name[0] == name[0] && !strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}

/* Return the number of registered operators. */
size_t
sym_registry_n_ops(void)
{
	return SYM__N_OPS;
}

/* Return the "i"-th registered operator (family by family), or NULL
 * when "i" is out of range. */
const sym_op *
sym_registry_op(size_t i)
{
	return i < SYM__N_OPS ? &ops[i] : NULL;
}

/* Return the name of "op" ("matmul"), or NULL. */
const char *
sym_op_name(const sym_op *op)
{
	return op ? op->name : NULL;
}

/* Return the family of "op" ("matmul", "elementwise", ...), or NULL. */
const char *
sym_op_family(const sym_op *op)
{
	return op ? family_name[op->family] : NULL;
}

/* Return the least number of inputs of "op", or -1 for NULL. */
int
sym_op_min_inputs(const sym_op *op)
{
	return op ? op->min_in : -1;
}

/* Return the largest number of inputs of "op", -1 when unbounded (or for
 * NULL). */
int
sym_op_max_inputs(const sym_op *op)
{
	return op ? op->max_in : -1;
}

/* Return the name of the attribute that holds positional list argument
 * "i" of "op" (reshape's "shape"), or NULL when there is none. */
const char *
sym_op_positional(const sym_op *op, size_t i)
{
	if (!op || !op->positional)
		return NULL;
	for (size_t k = 0; op->positional[k]; k++)
		if (k == i)
			return op->positional[k];
	return NULL;
}
