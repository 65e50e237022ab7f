/* SPDX-License-Identifier: MIT */
/*
 * shape-check --draw: an SVG 1.1 picture of which rank holds which block
 * of a tensor, in the manner of the figures of MindSpore's layout
 * tutorial. The tensor is a grid of blocks, its last dimension across and
 * its other dimensions down (the leading dimensions flattened, the first
 * most significant); each cell is labelled with the ranks that hold the
 * block and colored per block. Below, the device matrix: one cell per
 * rank, in the color of the block it holds. A title gives the value, its
 * global shape, layout, mesh, tensor map and local block shape; the
 * headers of rows and columns give the index range of each block
 * ("0:4"), or "#k" (block k) when the dimension's size is symbolic.
 *
 * What is drawn is bounded, not the tensor or the mesh: at most MAX_CELLS
 * rows and columns of blocks, and of the device matrix, the first ones,
 * with a line under the grid that says how many there are; a cell finds
 * the ranks that hold its block from the coordinates of the block, so
 * the work grows with the cells drawn, not with the number of devices
 * (save for a mesh with an explicit rank list, held in memory anyway).
 *
 * Sizes are estimated from the number of characters (monospace), and
 * nothing depends on the run, so the same input gives the same picture.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MARGIN 20.0
#define CHAR_W 7.5   /* width of a character of the 12px monospace font */
#define CELL_W 8.5   /* width of a character of the 14px cell labels */
#define LINE_H 17.0  /* height of a line of text inside a cell */
#define TOP_H 18.0   /* height of the label above the column headers */
#define TITLE_W 9.5  /* width of a character of the 16px title */
#define MAX_RANKS 16 /* ranks listed in a cell before abbreviating */
#define MAX_CELLS 32 /* rows and columns of a grid drawn at most */
#define NOTE_H 20.0  /* height of the line under a cut grid */

/* A grid of labelled cells with row and column headers. */
struct grid {
	size_t rows, cols;
	char **row_hdr;      /* rows headers */
	char **col_hdr;      /* cols headers */
	struct strbuf *cell; /* rows * cols labels, lines split by '\n' */
	int64_t *color;      /* rows * cols palette indices, -1: none */
	char *top;           /* above the column headers, or NULL */
	char *corner;        /* above the row headers, or NULL */
	char *note;          /* under the cells (what is not drawn), or NULL */
	double cw, ch, hw;   /* cell width and height, row header width */
};

/* Free the contents of "gr". */
static void
grid_clear(struct grid *gr)
{
	for (size_t i = 0; gr->row_hdr && i < gr->rows; i++)
		free(gr->row_hdr[i]);
	for (size_t j = 0; gr->col_hdr && j < gr->cols; j++)
		free(gr->col_hdr[j]);
	for (size_t k = 0; gr->cell && k < gr->rows * gr->cols; k++)
		free(gr->cell[k].s);
	free(gr->row_hdr);
	free(gr->col_hdr);
	free(gr->cell);
	free(gr->color);
	free(gr->top);
	free(gr->corner);
	free(gr->note);
	memset(gr, 0, sizeof(*gr));
}

/* Allocate the headers and cells of "gr" for "rows" x "cols" cells; 0, or
 * -1 when out of memory. */
static int
grid_init(struct grid *gr, size_t rows, size_t cols)
{
	memset(gr, 0, sizeof(*gr));
	gr->rows = rows;
	gr->cols = cols;
	gr->row_hdr = calloc(rows, sizeof(*gr->row_hdr));
	gr->col_hdr = calloc(cols, sizeof(*gr->col_hdr));
	gr->cell = calloc(rows * cols, sizeof(*gr->cell));
	gr->color = calloc(rows * cols, sizeof(*gr->color));
	return gr->row_hdr && gr->col_hdr && gr->cell && gr->color ? 0 : -1;
}

/* Return the number of lines of "s" and store the length of its longest
 * in "*width". */
static size_t
text_lines(const char *s, size_t *width)
{
	size_t n = 1, len = 0;

	*width = 0;
	for (; s && *s; s++) {
		if (*s == '\n') {
			n++;
			len = 0;
			continue;
		}
		if (++len > *width)
			*width = len;
	}
	return n;
}

/* Compute the cell and header sizes of "gr" from its texts; 0, or -1
 * when some text is missing (out of memory). */
static int
grid_measure(struct grid *gr)
{
	size_t w, lines, maxl = 1, hw = gr->corner ? strlen(gr->corner) : 0;
	double cw = 64;

	for (size_t k = 0; k < gr->rows * gr->cols; k++) {
		if (gr->cell[k].oom || !gr->cell[k].s)
			return -1;
		lines = text_lines(gr->cell[k].s, &w);
		cw =
		    (double)w * CELL_W + 24 > cw ? (double)w * CELL_W + 24 : cw;
		maxl = lines > maxl ? lines : maxl;
	}
	for (size_t j = 0; j < gr->cols; j++) {
		if (!gr->col_hdr[j])
			return -1;
		w = strlen(gr->col_hdr[j]);
		cw =
		    (double)w * CHAR_W + 12 > cw ? (double)w * CHAR_W + 12 : cw;
	}
	for (size_t i = 0; i < gr->rows; i++) {
		if (!gr->row_hdr[i])
			return -1;
		hw = strlen(gr->row_hdr[i]) > hw ? strlen(gr->row_hdr[i]) : hw;
	}
	gr->cw = cw;
	gr->ch = (double)maxl * LINE_H + 24;
	gr->hw = (double)hw * CHAR_W + 14;
	return 0;
}

/* Return the width of "gr" once drawn. */
static double
grid_width(const struct grid *gr)
{
	double w = gr->hw + (double)gr->cols * gr->cw;
	double top = gr->top ? gr->hw + (double)strlen(gr->top) * CHAR_W : 0;
	double note = gr->note ? (double)strlen(gr->note) * CHAR_W : 0;

	w = note > w ? note : w;
	return top > w ? top : w;
}

/* Return the height of "gr" once drawn, its column headers included. */
static double
grid_height(const struct grid *gr)
{
	return (gr->top ? TOP_H : 0) + 22 + (double)gr->rows * gr->ch +
	    (gr->note ? NOTE_H : 0);
}

/* Write "s" to "out" with the characters XML reserves escaped, stopping
 * at the end or at "stop" (when not NUL). */
static void
put_text(FILE *out, const char *s, char stop)
{
	for (; *s && *s != stop; s++) {
		if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else
			fputc(*s, out);
	}
}

/* Write the text element "s" at ("x", "y") with the attributes "attrs". */
static void
text_at(FILE *out, double x, double y, const char *attrs, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
	put_text(out, s, '\0');
	fputs("</text>\n", out);
}

/* Write the fill color of palette index "k" to "out": light, distinct
 * hues (golden-angle steps), white for -1. */
static void
put_color(FILE *out, int64_t k)
{
	double h, s = 0.62, l = 0.83, c, x, m, rgb[3];
	int sector;

	if (k < 0) {
		fputs("#ffffff", out);
		return;
	}
	h = fmod(205.0 + (double)k * 137.507764, 360.0);
	c = (1 - fabs(2 * l - 1)) * s;
	x = c * (1 - fabs(fmod(h / 60.0, 2) - 1));
	m = l - c / 2;
	sector = (int)(h / 60.0);
	rgb[0] = sector == 0 || sector == 5 ? c
	    : sector == 1 || sector == 4    ? x
	                                    : 0;
	rgb[1] = sector == 1 || sector == 2 ? c
	    : sector == 0 || sector == 3    ? x
	                                    : 0;
	rgb[2] = sector == 3 || sector == 4 ? c
	    : sector == 2 || sector == 5    ? x
	                                    : 0;
	fprintf(out, "#%02x%02x%02x", (int)lround((rgb[0] + m) * 255),
	    (int)lround((rgb[1] + m) * 255), (int)lround((rgb[2] + m) * 255));
}

/* Draw "gr" to "out" with its top left corner at ("x", "y"). */
static void
grid_draw(const struct grid *gr, FILE *out, double x, double y)
{
	double gx = x + gr->hw, gy;

	fputs("<g font-family=\"monospace\" font-size=\"12\">\n", out);
	if (gr->top) {
		text_at(out, gx + (double)gr->cols * gr->cw / 2, y + 13,
		    "text-anchor=\"middle\" font-style=\"italic\"", gr->top);
		y += TOP_H;
	}
	if (gr->corner)
		text_at(out, gx - 8, y + 15,
		    "text-anchor=\"end\" font-style=\"italic\"", gr->corner);
	gy = y + 22;
	for (size_t j = 0; j < gr->cols; j++)
		text_at(out, gx + ((double)j + 0.5) * gr->cw, y + 15,
		    "text-anchor=\"middle\" fill=\"#444444\"", gr->col_hdr[j]);
	for (size_t i = 0; i < gr->rows; i++) {
		double cy = gy + (double)i * gr->ch;

		text_at(out, gx - 8, cy + gr->ch / 2 + 4,
		    "text-anchor=\"end\" fill=\"#444444\"", gr->row_hdr[i]);
		for (size_t j = 0; j < gr->cols; j++) {
			size_t k = i * gr->cols + j, w;
			double cx = gx + (double)j * gr->cw;
			const char *s = gr->cell[k].s;
			size_t lines = text_lines(s, &w);
			double ty = cy + gr->ch / 2 -
			    ((double)lines - 1) * LINE_H / 2 + 5;

			fprintf(out,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"",
			    cx, cy, gr->cw, gr->ch);
			put_color(out, gr->color[k]);
			fputs("\" stroke=\"#333333\" stroke-width=\"1\"/>\n",
			    out);
			for (size_t n = 0; n < lines; n++) {
				fprintf(out,
				    "<text x=\"%.1f\" y=\"%.1f\" "
				    "text-anchor=\"middle\" font-size=\"14\" "
				    "font-weight=\"bold\">",
				    cx + gr->cw / 2, ty + (double)n * LINE_H);
				put_text(out, s, '\n');
				fputs("</text>\n", out);
				s = strchr(s, '\n');
				s = s ? s + 1 : "";
			}
		}
	}
	if (gr->note)
		text_at(out, x, gy + (double)gr->rows * gr->ch + 15,
		    "font-style=\"italic\"", gr->note);
	fputs("</g>\n", out);
}

/* The value being drawn and what the picture needs of it. */
struct picture {
	const struct report *r;
	const sym_value *v;
	const sym_layout *l;
	const sym_mesh *m;
	size_t rank;     /* of the tensor */
	int symbolic;    /* some split dimension has a symbolic size */
	int64_t *splits; /* per dimension */
};

/* Return the malloc'ed index range of block "b" of dimension "d" of the
 * picture "p": "0:4" for a constant size, ":" for a whole symbolic
 * dimension, "#b" for a block of one. */
static char *
block_range(struct picture *p, size_t d, int64_t b)
{
	const sym_expr *e = sym_shape_dim(sym_value_shape(p->v), d);
	int64_t size, k = p->splits[d];

	if (e && sym_expr_get_const(e, &size) == 0)
		return report_format("%lld:%lld", (long long)(b * (size / k)),
		    (long long)((b + 1) * (size / k)));
	sym_ctx_clear_error(p->r->ctx);
	if (k == 1)
		return strdup(":");
	p->symbolic = 1;
	return report_format("#%lld", (long long)b);
}

/* Return the malloc'ed header of row "row" of the tensor grid of "p": the
 * ranges of the leading dimensions' blocks, "0:4" or "#3, :". */
static char *
row_header(struct picture *p, size_t row)
{
	struct strbuf b = { NULL, 0, 0, 0 };
	size_t lead = p->rank > 0 ? p->rank - 1 : 0;
	int64_t *idx = calloc(lead + 1, sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t d = lead; d-- > 0;) {
		idx[d] = (int64_t)(row % (size_t)p->splits[d]);
		row /= (size_t)p->splits[d];
	}
	for (size_t d = 0; d < lead; d++) {
		char *s = block_range(p, d, idx[d]);

		strbuf_add(&b, "%s%s", d ? ", " : "", s ? s : "?");
		if (!s)
			b.oom = 1;
		free(s);
	}
	free(idx);
	return strbuf_take(&b);
}

/* Append to the cell label "b" the "n" ranks of the "nd" devices that
 * hold a block, the least of them sorted in "ranks" (all of them when
 * "n" <= MAX_RANKS, else the first 7): up to eight a line, abbreviated
 * beyond MAX_RANKS. */
static void
rank_label(struct strbuf *b, const int64_t *ranks, int64_t n, int64_t nd)
{
	if (n > MAX_RANKS && n == nd) {
		strbuf_add(b, "all %lld ranks", (long long)n);
		return;
	}
	for (int64_t i = 0; i < n; i++) {
		if (n > MAX_RANKS && i == 7) {
			strbuf_add(b, " ...\n%lld ranks", (long long)n);
			return;
		}
		strbuf_add(b, "%s%lld",
		    i == 0      ? ""
		        : i % 8 ? " "
		                : "\n",
		    (long long)ranks[i]);
	}
	if (n == 0)
		strbuf_add(b, "-");
}

/* Compare the ranks "a" and "b" (for qsort). */
static int
cmp_rank(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Return the index of the cell of the tensor grid of "p" holding the
 * block of "rank" (row-major), or -1. */
static int64_t
cell_of(const struct picture *p, int64_t rank)
{
	int64_t k = 0;

	for (size_t d = 0; d < p->rank; d++) {
		int64_t b = sym_layout_block(p->l, rank, d);

		if (b < 0)
			return -1;
		k = k * p->splits[d] + b;
	}
	return k;
}

/* Return the malloc'ed axes that split dimension "d" of "p", "mp" or
 * "(sp, dp)", "" when none does. */
static char *
split_axes(const struct picture *p, size_t d)
{
	size_t n = sym_layout_dim_n_axes(p->l, d);
	struct strbuf b = { NULL, 0, 0, 0 };

	strbuf_add(&b, "%s", n > 1 ? "(" : "");
	for (size_t i = 0; i < n; i++)
		strbuf_add(&b, "%s%s", i ? ", " : "",
		    sym_mesh_axis_name(p->m,
		        (size_t)sym_layout_dim_axis(p->l, d, i)));
	strbuf_add(&b, "%s", n > 1 ? ")" : "");
	return strbuf_take(&b);
}

/* Return the malloc'ed description of how dimension "d" of "p" is cut:
 * "dim 0 (size 8): 2 blocks along mp" or "dim 1 (size 784): not split". */
static char *
dim_text(const struct picture *p, size_t d)
{
	char *size = sym_expr_to_str(sym_shape_dim(sym_value_shape(p->v), d));
	char *axes = split_axes(p, d);
	char *s;

	if (p->splits[d] == 1)
		s = report_format("dim %zu (size %s): not split", d,
		    size ? size : "?");
	else
		s = report_format("dim %zu (size %s): %lld blocks along %s", d,
		    size ? size : "?", (long long)p->splits[d],
		    axes ? axes : "?");
	free(size);
	free(axes);
	return s;
}

/* Set the labels above the column and row headers of the tensor grid
 * "gr" of "p": the dimension across and its axes, the dimensions down. */
static void
axis_labels(const struct picture *p, struct grid *gr)
{
	char *axes;
	struct strbuf b = { NULL, 0, 0, 0 };

	if (p->rank == 0) {
		gr->top = strdup("a scalar: one block");
		return;
	}
	axes = split_axes(p, p->rank - 1);
	if (p->splits[p->rank - 1] > 1)
		gr->top = report_format("dim %zu, split along %s", p->rank - 1,
		    axes ? axes : "?");
	else
		gr->top = report_format("dim %zu, not split", p->rank - 1);
	free(axes);
	if (p->rank < 2)
		return;
	strbuf_add(&b, "dim%s", p->rank > 2 ? "s" : "");
	for (size_t d = 0; d + 1 < p->rank; d++)
		strbuf_add(&b, "%s%zu", d ? ", " : " ", d);
	gr->corner = strbuf_take(&b);
}

/* Return "n" rows or columns cut to the MAX_CELLS drawn. */
static size_t
drawn(size_t n)
{
	return n < MAX_CELLS ? n : MAX_CELLS;
}

/* Set the note of "gr", which draws the first of "rows" rows and "cols"
 * columns of "what", when some are not drawn. */
static void
cut_note(struct grid *gr, size_t rows, size_t cols, const char *what)
{
	struct strbuf b = { NULL, 0, 0, 0 };

	if (gr->rows == rows && gr->cols == cols)
		return;
	strbuf_add(&b, "drawn: the first ");
	if (gr->rows < rows)
		strbuf_add(&b, "%zu of %zu rows%s", gr->rows, rows,
		    gr->cols < cols ? " and " : "");
	if (gr->cols < cols)
		strbuf_add(&b, "%zu of %zu columns", gr->cols, cols);
	strbuf_add(&b, " of %s", what);
	gr->note = strbuf_take(&b);
}

/* Store in "out" the positions of the ranks of the mesh of "p" with the
 * coordinates "c" (one per axis) along the axes not in "used", the "max"
 * first in the order of the rank list. */
static void
first_positions(const struct picture *p, const int64_t *c, const int *used,
    int64_t *out, int64_t max)
{
	size_t na = sym_mesh_n_axes(p->m);
	int64_t k[SYM_MESH_MAX_AXES];

	memcpy(k, c, na * sizeof(*k));
	for (int64_t i = 0; i < max; i++) {
		out[i] = 0;
		for (size_t a = 0; a < na; a++)
			out[i] = out[i] * sym_mesh_axis_size(p->m, a) + k[a];
		for (size_t a = na; a-- > 0;) {
			if (used[a])
				continue;
			if (++k[a] < sym_mesh_axis_size(p->m, a))
				break;
			k[a] = 0;
		}
	}
}

/* Return the number of ranks that hold the block "blk" (one index per
 * dimension) of "p", and store the least of them (at most MAX_RANKS) in
 * "held", sorted; -1 when out of memory. Without a rank list, ranks are
 * positions and the first ones are the least; with one, every holder is
 * looked at (the list has an entry per device in memory anyway). */
static int64_t
block_holders(const struct picture *p, const int64_t *blk, int64_t *held)
{
	int64_t c[SYM_MESH_MAX_AXES] = { 0 }, n = 1, *all;
	int used[SYM_MESH_MAX_AXES] = { 0 };

	for (size_t d = 0; d < p->rank; d++) {
		int64_t b = blk[d];

		for (size_t i = sym_layout_dim_n_axes(p->l, d); i-- > 0;) {
			int a = sym_layout_dim_axis(p->l, d, i);
			int64_t size = sym_mesh_axis_size(p->m, (size_t)a);

			c[a] = b % size;
			b /= size;
			used[a] = 1;
		}
	}
	for (size_t a = 0; a < sym_mesh_n_axes(p->m); a++)
		n *= used[a] ? 1 : sym_mesh_axis_size(p->m, a);
	if (!sym_mesh_has_rank_list(p->m)) {
		first_positions(p, c, used, held,
		    n < MAX_RANKS ? n : MAX_RANKS);
		return n;
	}
	all = calloc((size_t)n, sizeof(*all));
	if (!all)
		return -1;
	first_positions(p, c, used, all, n);
	for (int64_t i = 0; i < n; i++)
		all[i] = sym_mesh_rank(p->m, all[i]);
	qsort(all, (size_t)n, sizeof(*all), cmp_rank);
	memcpy(held, all,
	    (size_t)(n < MAX_RANKS ? n : MAX_RANKS) * sizeof(*all));
	free(all);
	return n;
}

/* Fill in "gr" with the tensor grid of "p": the ranks holding each block
 * drawn. Return 0, or -1 when out of memory. */
static int
tensor_grid(struct picture *p, struct grid *gr)
{
	int64_t nd = sym_mesh_n_devices(p->m), held[MAX_RANKS], *blk;
	size_t cols = p->rank ? (size_t)p->splits[p->rank - 1] : 1, rows = 1;

	for (size_t d = 0; d + 1 < p->rank; d++)
		rows *= (size_t)p->splits[d];
	blk = calloc(p->rank + 1, sizeof(*blk));
	if (!blk || grid_init(gr, drawn(rows), drawn(cols)) < 0) {
		free(blk);
		return -1;
	}
	for (size_t k = 0; k < gr->rows * gr->cols; k++) {
		size_t i = k / gr->cols, j = k % gr->cols;
		int64_t n;

		for (size_t d = p->rank; d-- > 0;) {
			size_t at = d + 1 == p->rank ? j : i;

			blk[d] = (int64_t)(at % (size_t)p->splits[d]);
			if (d + 1 < p->rank)
				i /= (size_t)p->splits[d];
		}
		n = block_holders(p, blk, held);
		if (n < 0) {
			gr->cell[k].oom = 1;
			continue;
		}
		rank_label(&gr->cell[k], held, n, nd);
		gr->color[k] = (int64_t)((k / gr->cols) * cols + j);
	}
	for (size_t i = 0; i < gr->rows; i++)
		gr->row_hdr[i] = row_header(p, i);
	for (size_t j = 0; j < gr->cols; j++)
		gr->col_hdr[j] = p->rank
		    ? block_range(p, p->rank - 1, (int64_t)j)
		    : strdup("");
	free(blk);
	axis_labels(p, gr);
	cut_note(gr, rows, cols, "blocks");
	return grid_measure(gr);
}

/* Return the axes of "m" of size > 1 in "axes" (at most
 * SYM_MESH_MAX_AXES) and their number. */
static size_t
real_axes(const sym_mesh *m, size_t *axes)
{
	size_t n = 0;

	for (size_t a = 0; a < sym_mesh_n_axes(m) && n < SYM_MESH_MAX_AXES; a++)
		if (sym_mesh_axis_size(m, a) > 1)
			axes[n++] = a;
	return n;
}

/* Fill in "gr" with the device grid of "p": one cell per rank drawn, the
 * last axis of size > 1 across, the others down; each cell colored as the
 * block its rank holds. Return 0, or -1 when out of memory. */
static int
device_grid(struct picture *p, struct grid *gr)
{
	size_t axes[SYM_MESH_MAX_AXES], na = real_axes(p->m, axes);
	size_t cols = na ? (size_t)sym_mesh_axis_size(p->m, axes[na - 1]) : 1;
	size_t rows = (size_t)sym_mesh_n_devices(p->m) / cols;
	int64_t c[SYM_MESH_MAX_AXES];

	if (grid_init(gr, drawn(rows), drawn(cols)) < 0)
		return -1;
	for (size_t k = 0; k < gr->rows * gr->cols; k++) {
		size_t i = k / gr->cols, j = k % gr->cols;
		int64_t rank = sym_mesh_rank(p->m, (int64_t)(i * cols + j));

		gr->color[k] = cell_of(p, rank);
		strbuf_add(&gr->cell[k], "%lld", (long long)rank);
		if (j == 0 && sym_mesh_coords(p->m, rank, c) == 0) {
			struct strbuf b = { NULL, 0, 0, 0 };

			for (size_t a = 0; a + 1 < na; a++)
				strbuf_add(&b, "%s%s=%lld", a ? " " : "",
				    sym_mesh_axis_name(p->m, axes[a]),
				    (long long)c[axes[a]]);
			gr->row_hdr[i] = strbuf_take(&b);
		}
		if (i == 0 && sym_mesh_coords(p->m, rank, c) == 0)
			gr->col_hdr[j] = na
			    ? report_format("%s=%lld",
			          sym_mesh_axis_name(p->m, axes[na - 1]),
			          (long long)c[axes[na - 1]])
			    : strdup("");
	}
	cut_note(gr, rows, cols, "the device matrix");
	return grid_measure(gr);
}

/* Append to "lines" (taken texts, "*n" so far) the lines of the header
 * of the picture "p": title, layout, local block, how the dimensions are
 * cut. The first line is the title. */
static void
header_lines(const struct picture *p, char **lines, size_t *n)
{
	char *shape = sym_shape_to_str(sym_value_shape(p->v));
	char *lay = report_layout_text(p->l);
	char *map = report_tensor_map_text(p->l);
	char *local = report_local_shape_text(p->v, p->l);

	lines[(*n)++] =
	    report_format("%s : %s", sym_value_name(p->v), shape ? shape : "?");
	lines[(*n)++] = report_format("layout %s, tensor map %s",
	    lay ? lay : "?", map ? map : "?");
	lines[(*n)++] =
	    report_format("each rank holds a block %s", local ? local : "?");
	if (p->rank >= 2) {
		struct strbuf b = { NULL, 0, 0, 0 };

		for (size_t d = 0; d + 1 < p->rank; d++) {
			char *t = dim_text(p, d);

			strbuf_add(&b, "%s%s",
			    d ? "; " : "rows: ", t ? t : "?");
			free(t);
		}
		lines[(*n)++] = strbuf_take(&b);
	}
	if (p->rank >= 1) {
		char *t = dim_text(p, p->rank - 1);

		lines[(*n)++] = report_format("%s: %s",
		    p->rank >= 2 ? "columns" : "blocks", t ? t : "?");
		free(t);
	}
	free(shape);
	free(lay);
	free(map);
	free(local);
}

/* Write the SVG document of the picture "p" with the grids "tg" (tensor)
 * and "dg" (devices) and the header "lines" ("n") to "out". */
static void
write_svg(const struct picture *p, const struct grid *tg, const struct grid *dg,
    char **lines, size_t n, FILE *out)
{
	char *mesh = sym_mesh_to_str(p->m);
	char *caption = report_format("devices %s: each rank in the color "
	                              "of the block it holds",
	    mesh ? mesh : "?");
	double w = grid_width(tg), y, h;
	const char *legend = "cells: the ranks that hold the block";

	for (size_t i = 0; i < n; i++) {
		double lw = (double)strlen(lines[i]) * (i ? CHAR_W : TITLE_W);

		w = lw > w ? lw : w;
	}
	w = grid_width(dg) > w ? grid_width(dg) : w;
	if (caption && (double)strlen(caption) * CHAR_W > w)
		w = (double)strlen(caption) * CHAR_W;
	h = MARGIN + 24 + (double)(n - 1) * 17 + 14 + grid_height(tg) + 22 +
	    46 + grid_height(dg) + (p->symbolic ? 22 : 0) + MARGIN;
	w += 2 * MARGIN;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n",
	    out);
	fprintf(out,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	    "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
	    ceil(w), ceil(h), ceil(w), ceil(h));
	fputs("<title>", out);
	put_text(out, lines[0], '\0');
	fputs("</title>\n", out);
	fprintf(out,
	    "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"#ffffff\"/>\n",
	    ceil(w), ceil(h));
	y = MARGIN + 16;
	text_at(out, MARGIN, y,
	    "font-family=\"sans-serif\" font-size=\"16\" font-weight=\"bold\"",
	    lines[0]);
	y += 8;
	for (size_t i = 1; i < n; i++)
		text_at(out, MARGIN, y += 17,
		    "font-family=\"monospace\" font-size=\"12\"", lines[i]);
	y += 14;
	grid_draw(tg, out, MARGIN, y);
	y += grid_height(tg) + 22;
	text_at(out, MARGIN, y, "font-family=\"sans-serif\" font-size=\"12\"",
	    legend);
	y += 46;
	text_at(out, MARGIN, y - 14,
	    "font-family=\"sans-serif\" font-size=\"13\" font-weight=\"bold\"",
	    caption ? caption : "devices");
	grid_draw(dg, out, MARGIN, y);
	y += grid_height(dg);
	if (p->symbolic)
		text_at(out, MARGIN, y + 20,
		    "font-family=\"sans-serif\" font-size=\"12\"",
		    "#k: block k of a dimension of symbolic size; \":\": the "
		    "whole dimension");
	fputs("</svg>\n", out);
	free(mesh);
	free(caption);
}

/* Write to "out" the picture of which rank holds which block of the
 * value "v" of "r", which must have a layout; 0, or -1 when out of
 * memory. */
int
report_svg(const struct report *r, const sym_value *v, FILE *out)
{
	struct picture p = { r, v, sym_value_layout(v), NULL, 0, 0, NULL };
	struct grid tg, dg;
	char *lines[6] = { NULL };
	size_t n = 0;
	int res = -1;

	if (!p.l || !sym_value_shape(v))
		return -1;
	p.m = sym_layout_mesh(p.l);
	p.rank = sym_layout_ndim(p.l);
	p.splits = calloc(p.rank + 1, sizeof(*p.splits));
	memset(&tg, 0, sizeof(tg));
	memset(&dg, 0, sizeof(dg));
	if (p.splits) {
		for (size_t d = 0; d < p.rank; d++)
			p.splits[d] = sym_layout_dim_splits(p.l, d);
		header_lines(&p, lines, &n);
		res = tensor_grid(&p, &tg) | device_grid(&p, &dg);
		for (size_t i = 0; i < n; i++)
			if (!lines[i])
				res = -1;
	}
	if (res == 0)
		write_svg(&p, &tg, &dg, lines, n, out);
	grid_clear(&tg);
	grid_clear(&dg);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(p.splits);
	return res;
}
