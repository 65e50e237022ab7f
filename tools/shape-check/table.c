/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the aligned tables of the readable report. Rows of cells
 * are printed in columns two spaces apart; lines (headings inside a
 * section) are printed as they are, without widening the columns.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Return a malloc'ed copy of "s" (NULL for NULL). */
char *
text_dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Append to "t" the row "row" (its cells taken); a failed allocation
 * frees them and marks "t" out of memory. */
static void
append(struct table *t, struct table_row *row)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		void *p = realloc(t->row, cap * sizeof(*t->row));

		if (!p) {
			for (int i = 0; i < TABLE_COLS; i++)
				free(row->cell[i]);
			t->oom = 1;
			return;
		}
		t->row = p;
		t->cap = cap;
	}
	t->row[t->n++] = *row;
}

/* Add to "t" a row of the "n" cells "c" (taken, malloc'ed; NULL is an
 * empty cell; at most TABLE_COLS), indented by "indent" spaces. */
void
table_row(struct table *t, int indent, size_t n, char **c)
{
	struct table_row row;

	memset(&row, 0, sizeof(row));
	row.indent = indent;
	for (size_t i = 0; i < n; i++) {
		if (i < TABLE_COLS)
			row.cell[i] = c[i];
		else
			free(c[i]);
	}
	append(t, &row);
}

/* Add to "t" a row of the cells "c0" .. "c3" (taken), indented by two
 * spaces. */
void
table_add(struct table *t, char *c0, char *c1, char *c2, char *c3)
{
	char *c[4] = { c0, c1, c2, c3 };

	table_row(t, 2, 4, c);
}

/* Add to "t" the line "text" (taken; NULL marks "t" out of memory),
 * indented by "indent" spaces. */
void
table_line(struct table *t, int indent, char *text)
{
	struct table_row row;

	if (!text) {
		t->oom = 1;
		return;
	}
	memset(&row, 0, sizeof(row));
	row.indent = indent;
	row.line = 1;
	row.cell[0] = text;
	append(t, &row);
}

/* Write "n" spaces to "out" (none when "n" is not positive). */
static void
pad(long n, FILE *out)
{
	static const char spaces[] = "                                ";
	const long most = (long)sizeof(spaces) - 1;

	while (n > 0) {
		long k = n < most ? n : most;

		fwrite(spaces, 1, (size_t)k, out);
		n -= k;
	}
}

/* Print row "row" of cells to "out", with the column widths "width"
 * (stdio's plain writes: this is the bulk of a large report). */
static void
print_row(const struct table_row *row, const size_t *width, FILE *out)
{
	int last = TABLE_COLS - 1;

	while (last > 0 && !(row->cell[last] && *row->cell[last]))
		last--;
	pad(row->indent, out);
	for (int j = 0; j <= last; j++) {
		const char *c = row->cell[j] ? row->cell[j] : "";
		size_t len = strlen(c);

		if (j)
			fputs("  ", out);
		fputs(c, out);
		if (j < last)
			pad((long)width[j] - (long)len, out);
	}
	fputc('\n', out);
}

/* Print the rows of "t" to "out", or "  none" when it is empty; free the
 * cells. Return 0, or -1 when "t" ran out of memory. */
int
table_print(struct table *t, FILE *out)
{
	size_t width[TABLE_COLS] = { 0 };

	for (size_t i = 0; i < t->n; i++)
		for (int j = 0; j < TABLE_COLS && !t->row[i].line; j++)
			if (t->row[i].cell[j] &&
			    strlen(t->row[i].cell[j]) > width[j])
				width[j] = strlen(t->row[i].cell[j]);
	if (t->n == 0 && !t->oom)
		fputs("  none\n", out);
	for (size_t i = 0; i < t->n && !t->oom; i++) {
		if (t->row[i].line) {
			pad(t->row[i].indent, out);
			fputs(t->row[i].cell[0], out);
			fputc('\n', out);
		} else {
			print_row(&t->row[i], width, out);
		}
	}
	for (size_t i = 0; i < t->n; i++)
		for (int j = 0; j < TABLE_COLS; j++)
			free(t->row[i].cell[j]);
	free(t->row);
	return t->oom ? -1 : 0;
}
