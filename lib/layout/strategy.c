/*
 * Parsed mesh declarations and shard strategies: freeing and printing
 * them as the user wrote them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/strategy.h"

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
	int err;
};

/* Append the string "s" to "b"; on failure set b->err. */
static void
put(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * (b->len + n + 1);
		char *p = realloc(b->s, cap);

		if (!p) {
			b->err = 1;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

/* Return the text of "b" (NULL when an append failed, freeing it). */
static char *
done(struct buf *b)
{
	if (!b->err)
		return b->s;
	free(b->s);
	return NULL;
}

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

/* Append the integer "v" to "b". */
static void
put_int(struct buf *b, int64_t v)
{
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char t[24];
	size_t k = sizeof(t) - 1;

	t[k] = '\0';
	do
		t[--k] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		t[--k] = '-';
	put(b, t + k);
}

/* Append the tensor strategy "t" to "b": "(2, 4)", "(4,)" or
 * "m(mp, (sp, dp), None)". */
static void
put_tensor(struct buf *b, const struct sym__tensor_strategy *t)
{
	if (!t->is_layout) {
		put(b, "(");
		for (size_t i = 0; i < t->n; i++) {
			if (i)
				put(b, ", ");
			put_int(b, t->split[i]);
		}
		put(b, t->n == 1 ? ",)" : ")");
		return;
	}
	put(b, t->mesh ? t->mesh : "?");
	put(b, "(");
	for (size_t i = 0; i < t->n; i++) {
		const struct sym__dim_axes *d = &t->dims[i];

		if (i)
			put(b, ", ");
		if (d->n == 0)
			put(b, "None");
		if (d->n > 1)
			put(b, "(");
		for (size_t j = 0; j < d->n; j++) {
			if (j)
				put(b, ", ");
			put(b, d->axis[j]);
		}
		if (d->n > 1)
			put(b, ")");
	}
	put(b, ")");
}

/* Append the tuple of the "n" tensor strategies "t" to "b": "((2, 4),
 * (4, 1))", with a trailing comma for one: "((4, 1),)". */
static void
put_tuple(struct buf *b, const struct sym__tensor_strategy *t, size_t n)
{
	put(b, "(");
	for (size_t i = 0; i < n; i++) {
		if (i)
			put(b, ", ");
		put_tensor(b, &t[i]);
	}
	put(b, n == 1 ? ",)" : ")");
}

/* Return the tensor strategy "t" as written ("(2, 4)", "m(mp, (sp, dp))",
 * "m(None, mp)"), malloc'ed, or NULL when out of memory. */
char *
sym__tensor_strategy_to_str(const struct sym__tensor_strategy *t)
{
	struct buf b = { NULL, 0, 0, 0 };

	if (!t)
		return NULL;
	put(&b, "");
	put_tensor(&b, t);
	return done(&b);
}

/* Return the strategy "s" as written ("((2, 4), (4, 1)) -> ((8, 1),)"),
 * malloc'ed, or NULL when out of memory. */
char *
sym__strategy_to_str(const struct sym__strategy *s)
{
	struct buf b = { NULL, 0, 0, 0 };

	if (!s)
		return NULL;
	put_tuple(&b, s->in, s->n_in);
	if (s->has_out) {
		put(&b, " -> ");
		put_tuple(&b, s->out, s->n_out);
	}
	return done(&b);
}
