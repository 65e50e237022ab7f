/*
 * The operator registry: the union of the families' tables, each ending
 * with an entry whose name is NULL.
 */
#include <string.h>

#include "shape/shape_private.h"

static const sym_op *const families[] = {
	sym__ops_matmul,
	sym__ops_elementwise,
	sym__ops_layout,
	sym__ops_concat,
	sym__ops_reduce,
	sym__ops_norm,
	sym__ops_gather,
	sym__ops_loss,
	sym__ops_conv,
};

#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

/* Return the operator called "name", or NULL when there is none. */
const sym_op *
sym_op_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t f = 0; f < N_FAMILIES; f++)
		for (const sym_op *op = families[f]; op->name; op++)
			if (op->name[0] == name[0] && !strcmp(op->name, name))
				return op;
	return NULL;
}

/* Return the number of registered operators. */
size_t
sym_op_count(void)
{
	size_t n = 0;

	for (size_t f = 0; f < N_FAMILIES; f++)
		for (const sym_op *op = families[f]; op->name; op++)
			n++;
	return n;
}

/* Return the "i"-th registered operator (family by family, in table
 * order), or NULL when "i" is out of range. */
const sym_op *
sym_op_at(size_t i)
{
	for (size_t f = 0; f < N_FAMILIES; f++)
		for (const sym_op *op = families[f]; op->name; op++)
			if (i-- == 0)
				return op;
	return NULL;
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
	return op ? op->family : NULL;
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
