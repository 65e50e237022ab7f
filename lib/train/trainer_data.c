/* SPDX-License-Identifier: MIT */
/*
 * The trainer's data: the graph's inputs bound to the columns of the
 * datasets (by a map or in declaration order, dtypes and shapes
 * checked), the sample order of an epoch, and each rank reading only
 * the rows, and the elements of each row, that its block of an input
 * holds (MindSpore's num_shards/shard_id, for any layout).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard/grad.h>
#include <symshard/onnx.h>

#include "ckpt/checkpoint_private.h"
#include "exec/exec_private.h"
#include "train/dataset_private.h"
#include "train/trainer_private.h"

#define MAX_NDIM (SYM__DATASET_MAX_NDIM + 1)

/* The most elements of a column converted to the executor's storage at
 * once (read_run). */
#define CONVERT_RUN 256

/* Training data of at most this many rows is shuffled with a stored
 * order (Fisher-Yates, 4 bytes a row: 64 MiB at most); larger data with
 * a keyed permutation computed position by position, which stores
 * nothing (sym_trainer(3)). */
#define SHUFFLE_STORED_MAX ((int64_t)1 << 24)

/* Return the symbol that expression "e" is, or NULL when it is not a
 * bare symbol. */
static sym_symbol *
bare_symbol(const sym_expr *e)
{
	sym_symbol *s = NULL;

	if (!e || !sym_expr_is_symbol(e) || sym_expr_symbols(e, &s, 1) != 1)
		return NULL;
	return s;
}

/* Record on the context of "t" that input "v" and column "c" of "d"
 * disagree ("why"), naming both; return -1. */
static int
mismatch(sym_trainer *t, const sym_value *v, const sym_dataset *d, size_t c,
    const char *why)
{
	char *in = sym_shape_to_str(sym_value_shape(v));
	char row[160] = "";
	size_t n = 0;
	sym_loc loc = sym_value_location(v);

	for (size_t i = 0; i < sym_dataset_column_ndim(d, c) && n < 120; i++)
		n += (size_t)snprintf(row + n, sizeof(row) - n, "%s%lld",
		    i ? ", " : "", (long long)sym_dataset_column_dim(d, c, i));
	sym__error(t->ctx, SYM_EINVAL, loc.file ? &loc : NULL,
	    "input %s : %s and column '%s' of %s (%s rows of [%s]): %s",
	    sym_value_name(v), in ? in : "?", sym_dataset_column_name(d, c),
	    sym_dataset_name(d), sym_dtype_name(sym_dataset_column_dtype(d, c)),
	    row, why);
	free(in);
	return -1;
}

/* Take the first dimension of input "v" (fed from column "c" of "d")
 * as the batch: a bare symbol, the batch symbol, or without one a
 * constant, the graph's own batch; every fed input must have the same.
 * Return 0 or -1 with an error naming both. */
static int
first_dim(sym_trainer *t, const sym_value *v, const sym_dataset *d, size_t c)
{
	const sym_expr *e = sym_shape_dim(sym_value_shape(v), 0);
	sym_symbol *b = bare_symbol(e);
	int64_t n = 0;

	if (!b && (sym_expr_get_const(e, &n) < 0 || n < 1))
		return mismatch(t, v, d, c,
		    "the first dimension must be a symbol (the batch) or a "
		    "constant");
	if (t->batch_sym || t->fixed_from) {
		if (b != t->batch_sym || (!b && n != t->fixed_batch))
			return mismatch(t, v, d, c,
			    "the first dimension is not the batch of the "
			    "other inputs");
		return 0;
	}
	t->batch_sym = b;
	t->fixed_batch = n;
	t->fixed_from = b ? NULL : v;
	return 0;
}

/* Return 1 when "dt" is a dtype of indices (i32 or i64), else 0. */
static int
index_dtype(sym_dtype dt)
{
	return dt == SYM_DT_I32 || dt == SYM_DT_I64;
}

/* Check that the dtype of input "v" can take the elements of column "c"
 * of "d": the same dtype, or integers (i32 or i64) into an input of
 * either, in the dtype the graph declares. Return 0 or -1 with an error
 * naming both. */
static int
check_dtype(sym_trainer *t, const sym_value *v, const sym_dataset *d, size_t c)
{
	sym_dtype in = sym_shape_dtype(sym_value_shape(v));
	sym_dtype col = sym_dataset_column_dtype(d, c);
	char why[160];

	if (in == col || (index_dtype(in) && index_dtype(col)))
		return 0;
	if (!index_dtype(col))
		return mismatch(t, v, d, c, "the dtypes differ");
	snprintf(why, sizeof(why),
	    "the column holds integers, which feed an i32 or i64 input, "
	    "not %s",
	    sym_dtype_name(in));
	return mismatch(t, v, d, c, why);
}

/* Check that input "v" can take the rows of column "c" of "d": a dtype
 * that takes the column's (check_dtype), a first dimension that is the
 * batch symbol, the others equal to the column's (a symbol among them is
 * bound to the column's size). Return 0 or -1 with an error naming
 * both. */
static int
check_column(sym_trainer *t, const sym_value *v, const sym_dataset *d, size_t c)
{
	const sym_shape *sh = sym_value_shape(v);
	size_t nd = sym_shape_ndim(sh);
	sym_symbol *b;

	if (check_dtype(t, v, d, c) < 0)
		return -1;
	if (nd != sym_dataset_column_ndim(d, c) + 1)
		return mismatch(t, v, d, c,
		    "the input must have one dimension more than a row");
	if (first_dim(t, v, d, c) < 0)
		return -1;
	if (sym_dataset_row_length(d, 0) >= 0)
		return sym__seq_feed(t, v, d, c);
	b = t->batch_sym;
	for (size_t i = 1; i < nd; i++) {
		const sym_expr *e = sym_shape_dim(sh, i);
		int64_t want = sym_dataset_column_dim(d, c, i - 1), have, old;
		sym_symbol *s = bare_symbol(e);

		if (s && s != b && sym_binding_get(t->binding, s, &old) == 1 &&
		    old != want)
			return mismatch(t, v, d, c,
			    "a symbolic size would take two values");
		if (s && s != b) {
			if (sym_binding_set(t->binding, s, want) < 0)
				return -1;
		} else if (sym_expr_get_const(e, &have) < 0 || have != want) {
			return mismatch(t, v, d, c,
			    "the sizes of a row differ");
		}
	}
	return 0;
}

/* Return the column of "d" that input "name" takes under the map "map"
 * ("x=image,y=label"): SIZE_MAX when the map does not name it, SIZE_MAX
 * - 1 with an error on the trainer's context when the column is not in
 * "d". */
static size_t
mapped_column(sym_trainer *t, const char *map, const char *name,
    const sym_dataset *d)
{
	size_t len = strlen(name);

	for (const char *p = map; p && *p;) {
		const char *end = strchr(p, ','), *eq = strchr(p, '=');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (eq && eq < p + n && (size_t)(eq - p) == len &&
		    !strncmp(p, name, len)) {
			char col[128];
			size_t k = n - len - 1;

			snprintf(col, sizeof(col), "%.*s", (int)k, eq + 1);
			if (sym_dataset_find_column(d, col) != SIZE_MAX)
				return sym_dataset_find_column(d, col);
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "--map %s=%s: %s has no column '%s'", name, col,
			    sym_dataset_name(d), col);
			return SIZE_MAX - 1;
		}
		p = end ? end + 1 : NULL;
	}
	return SIZE_MAX;
}

/* Record on the context of "t" an error when an entry of the map "rest"
 * binds the input "name" again, which the entry "first" ("len" bytes)
 * binds; return 0 when none does, else -1. */
static int
map_again(sym_trainer *t, const char *rest, const char *name, const char *first,
    size_t len)
{
	size_t k = strlen(name);

	for (const char *p = rest; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > k && p[k] == '=' && !strncmp(p, name, k)) {
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "--map binds input '%s' twice: '%.*s' and '%.*s'",
			    name, (int)len, first, (int)n, p);
			return -1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* Check that every entry of the map of "t" names an input of the graph
 * that takes data; 0 or -1 with an error. */
static int
check_map(sym_trainer *t)
{
	for (const char *p = t->o.map; p && *p;) {
		const char *end = strchr(p, ','), *eq = strchr(p, '=');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char name[128];
		const sym_value *v;

		if (!eq || eq >= p + n || eq == p) {
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "--map '%.*s': expected INPUT=COLUMN", (int)n, p);
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - p), p);
		v = sym_graph_find_value(t->g, name);
		if (!v || sym_value_get_kind(v) != SYM_VALUE_INPUT) {
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "--map %.*s: the graph has no input '%s'", (int)n,
			    p, name);
			return -1;
		}
		if (map_again(t, end ? end + 1 : NULL, name, p, n) < 0)
			return -1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* Bind input "v" to its column of the training data of "t" ("next": the
 * column in declaration order); append the feed. 0 or -1. */
static int
add_feed(sym_trainer *t, const sym_value *v, size_t *next)
{
	struct sym__feed *f = &t->feed[t->n_feed];
	size_t c = t->o.map
	    ? mapped_column(t, t->o.map, sym_value_name(v), t->train)
	    : (*next)++;

	if (c == SIZE_MAX - 1)
		return -1;
	if (c == SIZE_MAX || c >= sym_dataset_n_columns(t->train)) {
		sym_loc loc = sym_value_location(v);

		sym__error(t->ctx, SYM_EINVAL, loc.file ? &loc : NULL,
		    "input %s takes no column of %s%s", sym_value_name(v),
		    sym_dataset_name(t->train),
		    t->o.map ? ": add it to the map (INPUT=COLUMN)"
		             : ": the data has fewer columns than the graph "
		               "has inputs");
		return -1;
	}
	if (check_column(t, v, t->train, c) < 0)
		return -1;
	f->v = v;
	f->col = c;
	f->col_test = c;
	f->t = sym_plan_value_tensor(t->p, v);
	t->n_feed++;
	if (!t->test)
		return 0;
	f->col_test = sym_dataset_find_column(t->test,
	    sym_dataset_column_name(t->train, c));
	if (f->col_test == SIZE_MAX) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "the test data %s has no column '%s' (input %s)",
		    sym_dataset_name(t->test),
		    sym_dataset_column_name(t->train, c), sym_value_name(v));
		return -1;
	}
	return check_column(t, v, t->test, f->col_test);
}

/* Find the class scores of "t" (the first output [batch, C], C >= 2,
 * floating) and the label feed (the first integer input [batch]). */
static void
find_scores(sym_trainer *t)
{
	if (t->seq_sym) {
		sym__seq_find_scores(t);
		return;
	}
	for (size_t i = 0; !t->scores && i < sym_graph_n_outputs(t->g); i++) {
		const sym_value *v = sym_graph_output(t->g, i);
		const sym_shape *sh = sym_value_shape(v);
		sym_dtype dt = sym_shape_dtype(sh);
		int64_t c;

		if (sym_shape_ndim(sh) == 2 &&
		    (dt == SYM_DT_F32 || dt == SYM_DT_F64) &&
		    bare_symbol(sym_shape_dim(sh, 0)) == t->batch_sym &&
		    (t->batch_sym ||
		        (sym_expr_get_const(sym_shape_dim(sh, 0), &c) == 0 &&
		            c == t->fixed_batch)) &&
		    sym_expr_get_const(sym_shape_dim(sh, 1), &c) == 0 && c >= 2)
			t->scores = v;
	}
	for (size_t i = 0; i < t->n_feed && t->label_feed == SIZE_MAX; i++) {
		const sym_shape *sh = sym_value_shape(t->feed[i].v);

		if (sym_shape_ndim(sh) == 1 &&
		    (sym_shape_dtype(sh) == SYM_DT_I32 ||
		        sym_shape_dtype(sh) == SYM_DT_I64))
			t->label_feed = i;
	}
}

/* Allocate the stored sample order of "t" when its epochs shuffle data
 * of at most SHUFFLE_STORED_MAX rows; 0, or -1 out of memory. */
static int
alloc_order(sym_trainer *t)
{
	int64_t n = sym_dataset_n_rows(t->train);

	if (t->o.no_shuffle || n < 2 || n > SHUFFLE_STORED_MAX)
		return 0;
	t->order =
	    sym__realloc_array(t->ctx, NULL, (size_t)n, sizeof(*t->order));
	return t->order ? 0 : -1;
}

/* The batch symbol of a trainer without data: the plan's only symbol;
 * without one, the graph's own batch is the first dimension of its
 * first input that has one (1 when none does). 0, or -1 with an error
 * when the plan has several symbols. */
static int
batch_without_data(sym_trainer *t)
{
	size_t n = sym_plan_n_symbols(t->p);

	if (n > 1) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: without data the batch size binds the "
		    "graph's only symbol, and it has %zu",
		    n);
		return -1;
	}
	t->batch_sym = n ? sym_plan_symbol(t->p, 0) : NULL;
	t->fixed_batch = 1;
	for (size_t i = 0; !n && i < sym_graph_n_values(t->g); i++) {
		const sym_value *v = sym_graph_value(t->g, i);
		const sym_shape *sh = sym_value_shape(v);
		int64_t rows;

		if (sym_value_get_kind(v) == SYM_VALUE_INPUT &&
		    sym_shape_ndim(sh) > 0 &&
		    sym_expr_get_const(sym_shape_dim(sh, 0), &rows) == 0) {
			t->fixed_batch = rows;
			t->fixed_from = v;
			break;
		}
	}
	return 0;
}

/* Bind the inputs of the graph of "t" that have no initializer to the
 * columns of its training data (see the top of the file); find the batch
 * symbol, the class scores and the labels. 0, or -1 with an error. */
int
sym__trainer_feeds(sym_trainer *t)
{
	size_t nv = sym_graph_n_values(t->g), next = 0;

	for (size_t i = 0; !t->train && i < nv; i++)
		t->n_inputs += sym_value_get_kind(sym_graph_value(t->g, i)) ==
		    SYM_VALUE_INPUT;
	if (!t->train)
		return batch_without_data(t);
	if (sym_dataset_n_rows(t->train) == 0) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: the training data %s has no samples",
		    sym_dataset_name(t->train));
		return -1;
	}
	t->feed = sym__realloc_array(t->ctx, NULL, nv + 1, sizeof(*t->feed));
	if (!t->feed || check_map(t) < 0 || alloc_order(t) < 0)
		return -1;
	for (size_t i = 0; i < nv; i++) {
		const sym_value *v = sym_graph_value(t->g, i);
		sym_init init;

		if (sym_value_get_kind(v) != SYM_VALUE_INPUT)
			continue;
		t->n_inputs++;
		if (sym_value_get_init(v, &init) == 0 &&
		    init.kind != SYM_INIT_DEFAULT)
			continue;
		if (add_feed(t, v, &next) < 0)
			return -1;
	}
	if (!t->batch_sym && !t->fixed_from) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: the graph has no input to take %s",
		    sym_dataset_name(t->train));
		return -1;
	}
	find_scores(t);
	return 0;
}

/* Return the key of the shuffle of the epoch of "t" (t->epoch, from 1). */
uint64_t
sym__trainer_epoch_key(const sym_trainer *t)
{
	return t->o.seed ^ (0xd1b54a32d192ed03ULL * (uint64_t)t->epoch);
}

/* Set the sample order of the epoch of "t" (t->epoch, from 1): the rows
 * of the training data, shuffled with the seed and the epoch unless
 * o.no_shuffle (the same order on every rank). Only data of at most
 * SHUFFLE_STORED_MAX rows stores its order; sym__trainer_row_at computes the others'. */
void
sym__trainer_shuffle(sym_trainer *t)
{
	int64_t n = sym_dataset_n_rows(t->train);
	uint64_t st = sym__trainer_epoch_key(t);

	if (!t->order)
		return;
	for (int64_t i = 0; i < n; i++)
		t->order[i] = (uint32_t)i;
	for (int64_t i = n - 1; i > 0; i--) {
		int64_t j = (int64_t)(sym__splitmix64(&st) % (uint64_t)(i + 1));
		uint32_t tmp = t->order[i];

		t->order[i] = t->order[j];
		t->order[j] = tmp;
	}
}

/* Return position "i" of a permutation of [0, "n") keyed by "key": a
 * Feistel network of four rounds over the least power of 4 that holds
 * "n" (a bijection of it), walked until it falls below "n" (a cycle of
 * the bijection leads back to "i", so this ends; fewer than 4 steps are
 * expected). */
int64_t
sym__trainer_keyed_perm(uint64_t key, int64_t n, int64_t i)
{
	unsigned half = 1;
	uint64_t x = (uint64_t)i, mask;

	while (half < 32 && ((uint64_t)1 << (2 * half)) < (uint64_t)n)
		half++;
	mask = ((uint64_t)1 << half) - 1;
	do {
		uint64_t l = x >> half, r = x & mask;

		for (uint64_t k = 1; k <= 4; k++) {
			uint64_t s = key ^ (r * SYM__GOLDEN) ^ k;
			uint64_t f = sym__splitmix64(&s) & mask;
			uint64_t nl = r;

			r = l ^ f;
			l = nl;
		}
		x = l << half | r;
	} while (x >= (uint64_t)n);
	return (int64_t)x;
}

/* Return the row of the training data of "t" at position "pos" of the
 * sample order of its epoch. */
int64_t
sym__trainer_row_at(const sym_trainer *t, int64_t pos)
{
	if (t->o.no_shuffle)
		return pos;
	if (t->order)
		return t->order[pos];
	if (sym_dataset_n_rows(t->train) < 2)
		return pos;
	return sym__trainer_keyed_perm(sym__trainer_epoch_key(t),
	    sym_dataset_n_rows(t->train), pos);
}

/* Return room for the "n" row numbers of a batch of "t" (grown as
 * batches need, never beyond the rows one delivers), or NULL out of
 * memory. */
int64_t *
sym__trainer_rows(sym_trainer *t, int64_t n)
{
	if (SYM__RESERVE(t->ctx, t->rows, t->cap_rows, (size_t)n) < 0)
		return NULL;
	return t->rows;
}

/* Store in the batch rows of "t" the "n" rows of the epoch's order from
 * position t->pos; return them, or NULL out of memory. */
int64_t *
sym__trainer_batch_rows(sym_trainer *t, int64_t n)
{
	int64_t *rows = sym__trainer_rows(t, n);

	for (int64_t i = 0; rows && i < n; i++)
		rows[i] = sym__trainer_row_at(t, t->pos + i);
	return rows;
}

/* Read elements ["start", "start" + "n") of row "row" of column "c" of
 * "d" (its pads when "row" is -1) into "dst" in the executor's storage,
 * which is that of every input the column feeds (check_dtype): an i64
 * column is narrowed to the 32 bits the executor stores integers in,
 * through a buffer of CONVERT_RUN elements. 0, or -1 with an error on
 * "ctx". */
static int
read_run(sym_ctx *ctx, const sym_dataset *d, size_t c, int64_t row,
    int64_t start, int64_t n, char *dst)
{
	sym_dtype dt = sym_dataset_column_dtype(d, c);
	size_t ss = sym__tensor_elem_size(dt);
	int64_t buf[CONVERT_RUN], val;

	if (sym_dtype_size(dt) == ss) {
		if (row >= 0)
			return sym_dataset_read(d, c, row, start, n, dst);
		sym__dataset_pad(d, c, n, dst);
		return 0;
	}
	for (int64_t e = 0; e < n; e += CONVERT_RUN) {
		int64_t k = n - e < CONVERT_RUN ? n - e : CONVERT_RUN;
		size_t bad;

		if (row < 0)
			sym__dataset_pad(d, c, k, buf);
		else if (sym_dataset_read(d, c, row, start + e, k, buf) < 0)
			return -1;
		bad = sym__ckpt_to_storage(dt, buf, dst + (size_t)e * ss,
		    (size_t)k);
		if (bad == SIZE_MAX)
			continue;
		memcpy(&val, (char *)buf + bad * sym_dtype_size(dt),
		    sizeof(val));
		sym__error(ctx, SYM_EINVAL, NULL,
		    "sample %lld of %s: column '%s' holds %lld (element %lld), "
		    "beyond the 32 bits the executor stores integers in",
		    (long long)row, sym_dataset_name(d),
		    sym_dataset_column_name(d, c), (long long)val,
		    (long long)(start + e + (int64_t)bad));
		return -1;
	}
	return 0;
}

/* Read into "dst" the block ("off", "ext") of a tensor of "nd"
 * dimensions (global sizes "glob") whose rows are rows "rows" of column
 * "c" of "d", in the executor's storage (read_run); 0, or -1 with an
 * error on "ctx". The trailing dimensions the block holds whole are
 * read as one run. */
static int
read_block(sym_ctx *ctx, const sym_dataset *d, size_t c, const int64_t *rows,
    int nd, const int64_t *glob, const int64_t *off, const int64_t *ext,
    char *dst)
{
	size_t es = sym__tensor_elem_size(sym_dataset_column_dtype(d, c));
	int64_t run = nd > 1 ? ext[nd - 1] : 1, idx[MAX_NDIM] = { 0 };
	int k = nd - 1;

	while (k > 1 && ext[k] == glob[k]) {
		k--;
		run *= ext[k];
	}
	for (int64_t r = 0; r < ext[0]; r++)
		for (;;) {
			int64_t start = 0;

			for (int i = 1; i < nd; i++)
				start = start * glob[i] + off[i] +
				    (i < k ? idx[i] : 0);
			if (read_run(ctx, d, c, rows[off[0] + r], start, run,
			        dst) < 0)
				return -1;
			dst += (size_t)run * es;
			int i = k - 1;
			while (i >= 1 && ++idx[i] == ext[i])
				idx[i--] = 0;
			if (i < 1)
				break;
		}
	return 0;
}

/* Read into the block of every fed input of "x" (rank "rank" of "p",
 * bound by "s"; "single": the single-device plan) its rows of the
 * current batch of "t"; fill the inputs without data from the seed and
 * the step. 0 or -1 with an error on the context of "x". */
int
sym__trainer_read(sym_trainer *t, sym_exec *x, const sym_plan *p,
    const sym_slices *s, int64_t rank, int single)
{
	uint64_t seed = sym__step_seed(t->o.seed, t->step);

	sym__exec_set_rng(x, seed);
	if (t->n_feed < t->n_inputs && sym_exec_fill_inputs(x, seed) < 0)
		return -1;
	for (size_t i = 0; i < t->n_feed; i++) {
		const struct sym__feed *f = &t->feed[i];
		size_t tt = single ? sym_plan_value_tensor(p, f->v) : f->t;
		int nd = (int)sym_plan_tensor_ndim(p, tt);
		int64_t glob[MAX_NDIM], off[MAX_NDIM], ext[MAX_NDIM];
		void *dst = sym_exec_data(x, tt, NULL);

		if (nd < 1 || nd > MAX_NDIM || !dst ||
		    sym_slices_global(s, tt, glob) < 0 ||
		    sym_slices_local(s, tt, ext) < 0 ||
		    sym_slices_offset(s, tt, rank, off) < 0)
			return -1;
		if (read_block(x->ctx, t->cur.data,
		        t->cur.test ? f->col_test : f->col, t->cur.rows, nd,
		        glob, off, ext, dst) < 0)
			return -1;
	}
	return 0;
}

/* Store in "*at" the first element of the "n" elements of "buf" (dtype
 * "dt", integer) outside [0, "bound"), and its value in "*val"; return
 * 1 when there is one, 0 when not. */
static int
out_of_range(const void *buf, sym_dtype dt, int64_t n, int64_t bound,
    int64_t *at, int64_t *val)
{
	for (int64_t i = 0; i < n; i++) {
		int64_t v = dt == SYM_DT_I64 ? ((const int64_t *)buf)[i]
		                             : ((const int32_t *)buf)[i];

		if (v < 0 || v >= bound) {
			*at = i;
			*val = v;
			return 1;
		}
	}
	return 0;
}

/* Record on the context of "t" that feed "f" of sample "row" holds "val"
 * (at element "at" of the row), outside [0, "bound") that the kernel of
 * "node" indexes, during "what"; return -1. */
static int
index_error(sym_trainer *t, const struct sym__feed *f, const char *what,
    int64_t row, int64_t at, int64_t val, int64_t bound, const sym_node *node)
{
	sym_loc loc = sym_node_location(node);
	const sym_dataset *d = t->cur.data;
	char elem[48] = "", at_[320] = "";

	if (sym_dataset_column_ndim(d, t->cur.test ? f->col_test : f->col))
		snprintf(elem, sizeof(elem), " (element %lld)", (long long)at);
	if (loc.file)
		snprintf(at_, sizeof(at_), " at %s:%d:%d", loc.file, loc.line,
		    loc.col);
	else if (sym_node_onnx_name(node))
		snprintf(at_, sizeof(at_), " (ONNX node '%s')",
		    sym_node_onnx_name(node));
	sym__error(t->ctx, SYM_EINVAL, loc.file ? &loc : NULL,
	    "%s: sample %lld of %s: %s = %lld%s is out of range [0, %lld) "
	    "of %s %s%s",
	    what, (long long)row, sym_dataset_name(d), sym_value_name(f->v),
	    (long long)val, elem, (long long)bound, sym_node_op_name(node),
	    sym_node_n_outputs(node) ? sym_value_name(sym_node_output(node, 0))
	                             : "",
	    at_);
	return -1;
}

/* Explain the failure of the current batch of "t" during "what" ("step
 * 3 (epoch 1)"): when a fed integer input holds an index outside the
 * range its kernel indexes, name the dataset sample (the rank and the
 * row of its block say little); else put "what" before the error.
 * Return -1. */
int
sym__trainer_explain(sym_trainer *t, const char *what)
{
	char msg[1024];
	sym_error code = sym_ctx_last_error(t->ctx);
	sym_loc loc = sym_ctx_last_location(t->ctx);
	int64_t buf[256];

	snprintf(msg, sizeof(msg), "%s", sym_ctx_last_message(t->ctx));
	for (size_t i = 0; t->cur.data && i < t->n_feed; i++) {
		const struct sym__feed *f = &t->feed[i];
		size_t c = t->cur.test ? f->col_test : f->col;
		sym_dtype dt = sym_dataset_column_dtype(t->cur.data, c);
		int64_t numel = t->cur.data->col[c].row_numel, at, val;
		const sym_node *node = NULL;
		int64_t bound =
		    sym__exec_index_bound(t->rank[0].x, f->v, &node);

		if (bound < 0 || (dt != SYM_DT_I32 && dt != SYM_DT_I64))
			continue;
		for (int64_t r = 0; r < t->cur.n && t->cur.rows[r] >= 0; r++)
			for (int64_t e = 0, row = t->cur.rows[r],
			             len = t->seq_sym
			         ? sym_dataset_row_length(t->cur.data, row)
			         : numel;
			     e < len; e += 256) {
				int64_t k = len - e < 256 ? len - e : 256;

				if (sym_dataset_read(t->cur.data, c, row, e, k,
				        buf) < 0)
					return -1;
				if (out_of_range(buf, dt, k, bound, &at, &val))
					return index_error(t, f, what, row,
					    e + at, val, bound, node);
			}
	}
	sym__error(t->ctx, code != SYM_OK ? code : SYM_EINTERNAL,
	    loc.file ? &loc : NULL, "%s: %s", what, msg);
	return -1;
}
