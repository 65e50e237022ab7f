/* SPDX-License-Identifier: MIT */
/*
 * Parsed mesh declarations and shard strategies: freeing and printing
 * them as the user wrote them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "layout/strategy.h"

/* Free what the mesh declaration "m" holds (not "m" itself, which lives
 * in an array of its graph) and empty it. */
void
sym__mesh_decl_free(struct sym__mesh_decl *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->axis_name && i < m->n_axes; i++)
		free(m->axis_name[i]);
	free(m->axis_name);
	free(m->axis_size);
	free(m->ranks);
	free(m->name);
	memset(m, 0, sizeof(*m));
}

/* Free what the tensor strategy "t" holds. */
static void
tensor_clear(struct sym__tensor_strategy *t)
{
	free(t->split);
	free(t->mesh);
	for (size_t i = 0; t->dims && i < t->n; i++) {
		for (size_t j = 0; j < t->dims[i].n; j++)
			free(t->dims[i].axis[j]);
		free(t->dims[i].axis);
	}
	free(t->dims);
}

/* Free the strategy "s" (allocated with malloc) and all it holds. */
void
sym__strategy_free(struct sym__strategy *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_in; i++)
		tensor_clear(&s->in[i]);
	for (size_t i = 0; i < s->n_out; i++)
		tensor_clear(&s->out[i]);
	free(s->in);
	free(s->out);
	free(s);
}

/* Append the tensor strategy "t" to "b": "(2, 4)", "(4,)" or
 * "m(mp, (sp, dp), None)". */
static void
put_tensor(struct sym__str *b, const struct sym__tensor_strategy *t)
{
	if (!t->is_layout) {
		sym__str_puts(b, "(");
		for (size_t i = 0; i < t->n; i++) {
			if (i)
				sym__str_puts(b, ", ");
			sym__str_printf(b, "%lld", (long long)t->split[i]);
		}
		sym__str_puts(b, t->n == 1 ? ",)" : ")");
		return;
	}
	sym__str_puts(b, t->mesh ? t->mesh : "?");
	sym__str_puts(b, "(");
	for (size_t i = 0; i < t->n; i++) {
		const struct sym__dim_axes *d = &t->dims[i];

		if (i)
			sym__str_puts(b, ", ");
		if (d->n == 0)
			sym__str_puts(b, "None");
		if (d->n > 1)
			sym__str_puts(b, "(");
		for (size_t j = 0; j < d->n; j++) {
			if (j)
				sym__str_puts(b, ", ");
			sym__str_puts(b, d->axis[j]);
		}
		if (d->n > 1)
			sym__str_puts(b, ")");
	}
	sym__str_puts(b, ")");
}

/* Append the tuple of the "n" tensor strategies "t" to "b": "((2, 4),
 * (4, 1))", with a trailing comma for one: "((4, 1),)". */
static void
put_tuple(struct sym__str *b, const struct sym__tensor_strategy *t, size_t n)
{
	sym__str_puts(b, "(");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sym__str_puts(b, ", ");
		put_tensor(b, &t[i]);
	}
	sym__str_puts(b, n == 1 ? ",)" : ")");
}

/* Return the tensor strategy "t" as written ("(2, 4)", "m(mp, (sp, dp))",
 * "m(None, mp)"), malloc'ed, or NULL when out of memory. */
char *
sym__tensor_strategy_to_str(const struct sym__tensor_strategy *t)
{
	struct sym__str b = SYM__STR_INIT;

	if (!t)
		return NULL;
	put_tensor(&b, t);
	return sym__str_take(&b, NULL);
}

/* Return the strategy "s" as written ("((2, 4), (4, 1)) -> ((8, 1),)"),
 * malloc'ed, or NULL when out of memory. */
char *
sym__strategy_to_str(const struct sym__strategy *s)
{
	struct sym__str b = SYM__STR_INIT;

	if (!s)
		return NULL;
	put_tuple(&b, s->in, s->n_in);
	if (s->has_out) {
		sym__str_puts(&b, " -> ");
		put_tuple(&b, s->out, s->n_out);
	}
	return sym__str_take(&b, NULL);
}
