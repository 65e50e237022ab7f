/* SPDX-License-Identifier: MIT */
/*
 * The fuzz target of the text inputs that are neither graph files nor
 * expressions. The first byte of an input picks the reader (its value
 * modulo 6, so that the digits '0' to '5' name them); the rest is the
 * text it reads:
 *
 *   0  sym_binding_parse over declared symbols and instances; what it
 *      accepts prints as text that reads back to the same binding, and
 *      what it refuses leaves the binding unchanged;
 *   1  sym_layout_parse on a mesh the second byte picks (modulo 4: three
 *      fixed meshes, or one whose axis sizes the byte gives); the text
 *      holds one layout per line, the first two of which are printed,
 *      read back and described, then redistributed one into the other;
 *   2  sym_node_set_strategy on the nodes of a small graph, one line of
 *      the text per node in turn, the second byte picking the first
 *      node; the graph then runs through the pipeline target;
 *   3  sym_graph_add_mesh with the first line of the text on a small
 *      graph, the other lines being strategies, then the pipeline;
 *   4  sym_topology_parse_file and
 *   5  sym_topology_parse_rank_table on a temporary file holding the
 *      text; a topology read shards the small graph.
 *
 * Besides the properties of every target (no crash, no object left
 * alive), a reader that fails must leave an error on the context whose
 * location, when it has one, lies within the text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "targets.h"

/* The graph the strategy, mesh and topology inputs apply to: small
 * enough for the pipeline to run it. */
static const char small_graph[] = "devices 8\n"
                                  "symbol b divisor=8\n"
                                  "input x : f32[b, 16]\n"
                                  "param w : f32[16, 32]\n"
                                  "param c : f32[32]\n"
                                  "y = matmul(x, w)\n"
                                  "z = add(y, c)\n"
                                  "a = relu(z)\n"
                                  "s = reduce_sum(a, axis=[1])\n"
                                  "output s, a\n";

/* Return the number of lines of "text" and store in "*len" the length of
 * line "line" (from 1), or 0 when it has none. */
static int
line_count(const char *text, int line, size_t *len)
{
	int n = 1;

	*len = 0;
	for (const char *p = text;; n++) {
		const char *end = p + strcspn(p, "\n");

		if (n == line)
			*len = (size_t)(end - p);
		if (!*end)
			return n;
		p = end + 1;
	}
}

/* Return 0 when a reader of "text" (its first character at line
 * "first", column 1 of "file") that failed left an error on "ctx",
 * located within "text" when it is located in "file"; else -1 naming
 * "what". */
static int
check_error(sym_ctx *ctx, const char *what, const char *text, const char *file,
    int first)
{
	sym_loc at = sym_ctx_last_location(ctx);
	int line = at.line - first + 1, n;
	size_t len;

	if (sym_ctx_last_error(ctx) == SYM_OK)
		return fuzz_fail("%s failed without an error", what);
	fuzz_note("%s: %s", what, sym_ctx_last_message(ctx));
	if (at.line <= 0 || !at.file || strcmp(at.file, file) != 0)
		return 0;
	n = line_count(text, line, &len);
	if (line < 1 || line > n || at.col < 1 || (size_t)at.col > len + 1)
		return fuzz_fail("%s: error at %d:%d, outside the %d lines "
		                 "from line %d (%s)",
		    what, at.line, at.col, n, first, sym_ctx_last_message(ctx));
	return 0;
}

/* Return a new binding of "ctx" holding its symbol "name" at "value", or
 * NULL. */
static sym_binding *
binding_with(sym_ctx *ctx, const char *name, int64_t value)
{
	sym_binding *b = sym_binding_new(ctx);

	if (b && sym_binding_set(b, sym_symbol_find(ctx, name), value) < 0) {
		sym_binding_free(b);
		return NULL;
	}
	return b;
}

/* Return 0 when "a" and "b" give the same symbols the same values, else
 * -1. */
static int
same_binding(const sym_binding *a, const sym_binding *b)
{
	if (sym_binding_n_symbols(a) != sym_binding_n_symbols(b))
		return -1;
	for (size_t i = 0; i < sym_binding_n_symbols(a); i++) {
		int64_t v;

		if (sym_binding_get(b, sym_binding_symbol(a, i), &v) < 0 ||
		    v != sym_binding_value(a, i))
			return -1;
	}
	return 0;
}

/* Declare in "ctx" the symbols the binding inputs name: b (with two
 * instances), s (bounded, unique), k (with a remainder). Return 0 or
 * -1. */
static int
declare(sym_ctx *ctx)
{
	sym_symbol_info b = { 1, 0, 8, 0, 0 }, s = { 128, 8192, 128, 0, 1 };
	sym_symbol_info k = { 1, 0, 4, 1, 1 };
	sym_symbol *sb = sym_symbol_new(ctx, "b", &b, NULL);

	if (!sb || !sym_symbol_new(ctx, "s", &s, NULL) ||
	    !sym_symbol_new(ctx, "k", &k, NULL) ||
	    !sym_symbol_instantiate(sb) || !sym_symbol_instantiate(sb))
		return -1;
	return 0;
}

/* Read "text" as a binding over the symbols of declare() into one that
 * holds b = 8; check it as the comment at the top of this file says.
 * Return 0 or -1. */
static int
one_binding(sym_ctx *ctx, const char *text)
{
	sym_loc where = { "bind", 1, 1 };
	sym_binding *b, *again = NULL;
	char *before = NULL, *after = NULL;
	int res = 0;

	if (declare(ctx) < 0 || !(b = binding_with(ctx, "b", 8)))
		return 0;
	before = sym_binding_to_str(b);
	sym_ctx_clear_error(ctx);
	if (sym_binding_parse(b, text, &where) < 0) {
		res = check_error(ctx, "sym_binding_parse", text, "bind", 1);
		after = sym_binding_to_str(b);
		if (!res && before && after && strcmp(before, after) != 0)
			res = fuzz_fail("a binding refused changed '%s' into "
			                "'%s'",
			    before, after);
		goto out;
	}
	after = sym_binding_to_str(b);
	again = sym_binding_new(ctx);
	if (!after || !again)
		goto out;
	if (sym_binding_parse(again, after, NULL) < 0 ||
	    same_binding(b, again) < 0)
		res = fuzz_fail("the binding '%s' does not read back: %s",
		    after, sym_ctx_last_message(ctx));
	sym_ctx_clear_error(ctx);
	if (sym_binding_check(b) < 0 && sym_ctx_last_error(ctx) == SYM_OK)
		res = fuzz_fail("sym_binding_check failed without an error");
out:
	free(before);
	free(after);
	sym_binding_free(again);
	sym_binding_free(b);
	return res;
}

/* Return a new mesh of "ctx" picked by "pick": (dp=2, sp=2, mp=2); (4);
 * (x=2, y=3) on the ranks 5 to 0; or (x, y) of the sizes bits 2-4 and
 * 5-7 of "pick" give, which may be 0. NULL with an error on "ctx" when
 * they are not sizes. */
static sym_mesh *
pick_mesh(sym_ctx *ctx, unsigned pick)
{
	static const int64_t cube[] = { 2, 2, 2 }, four[] = { 4 };
	static const int64_t xy[] = { 2, 3 }, ranks[] = { 5, 4, 3, 2, 1, 0 };
	static const char *const cube_names[] = { "dp", "sp", "mp" };
	static const char *const xy_names[] = { "x", "y" };
	int64_t sizes[2] = { (pick >> 2) & 7, (pick >> 5) & 7 };

	switch (pick & 3) {
	case 0:
		return sym_mesh_new(ctx, 3, cube, cube_names, 0, NULL);
	case 1:
		return sym_mesh_new(ctx, 1, four, NULL, 0, NULL);
	case 2:
		return sym_mesh_new(ctx, 2, xy, xy_names, 6, ranks);
	default:
		return sym_mesh_new(ctx, 2, sizes, xy_names, 0, NULL);
	}
}

/* Return 0 when every block of the layout "l" is held by as many ranks
 * of its mesh, each rank's block index lying within the splits of every
 * dimension; else -1. */
static int
check_blocks(const sym_layout *l)
{
	const sym_mesh *m = sym_layout_mesh(l);
	int64_t n = sym_mesh_n_devices(m), blocks = 1, *count;
	size_t rank = sym_layout_ndim(l);
	int res = 0;

	for (size_t d = 0; d < rank; d++)
		blocks *= sym_layout_dim_splits(l, d);
	if (blocks < 1 || blocks > n || n % blocks != 0)
		return fuzz_fail("a layout of %lld blocks on %lld devices",
		    (long long)blocks, (long long)n);
	count = calloc((size_t)blocks, sizeof(*count));
	for (int64_t r = 0; count && r < n && !res; r++) {
		int64_t index = 0;

		for (size_t d = 0; d < rank; d++) {
			int64_t k = sym_layout_dim_splits(l, d);
			int64_t blk =
			    sym_layout_block(l, sym_mesh_rank(m, r), d);

			if (blk < 0 || blk >= k) {
				res = fuzz_fail("rank %lld holds block %lld of "
				                "%lld along dimension %zu",
				    (long long)sym_mesh_rank(m, r),
				    (long long)blk, (long long)k, d);
				break;
			}
			index = index * k + blk;
		}
		if (!res)
			count[index]++;
	}
	for (int64_t i = 0; count && i < blocks && !res; i++)
		if (count[i] != n / blocks)
			res = fuzz_fail("block %lld is held by %lld ranks of "
			                "%lld",
			    (long long)i, (long long)count[i], (long long)n);
	free(count);
	return res;
}

/* Describe the layout "l" through every accessor; check that it prints
 * as text that reads back to an equal layout, that its standard form is
 * equal to it, that its axes and dimensions agree both ways and that its
 * blocks are spread evenly. Return 0 or -1. */
static int
describe_layout(const sym_layout *l)
{
	const sym_mesh *m = sym_layout_mesh(l);
	char *text = sym_layout_to_str(l);
	sym_layout *again = text ? sym_layout_parse(m, text, NULL) : NULL;
	sym_layout *std = sym_layout_standard(l);
	int res = 0, map[SYM_MESH_MAX_AXES + 1];

	if (!again || sym_layout_is_equal(l, again) != 1)
		res = fuzz_fail("the layout '%s' does not read back",
		    text ? text : "(null)");
	else if (!std || sym_layout_is_equal(l, std) != 1)
		res = fuzz_fail("the layout '%s' differs from its standard "
		                "form",
		    text);
	for (size_t d = 0; d < sym_layout_ndim(l) && !res; d++) {
		int64_t k = 1;

		for (size_t i = 0; i < sym_layout_dim_n_axes(l, d); i++) {
			int a = sym_layout_dim_axis(l, d, i);

			if (a < 0 || (size_t)a >= sym_mesh_n_axes(m) ||
			    sym_layout_axis_dim(l, (size_t)a) != (int)d)
				res = fuzz_fail("'%s': axis %d of dimension "
				                "%zu",
				    text, a, d);
			else
				k *= sym_mesh_axis_size(m, (size_t)a);
		}
		if (!res && k != sym_layout_dim_splits(l, d))
			res = fuzz_fail("'%s': dimension %zu has %lld splits, "
			                "its axes %lld",
			    text, d, (long long)sym_layout_dim_splits(l, d),
			    (long long)k);
		if (!res &&
		    sym_layout_tensor_map(l, d, SYM_MESH_MAX_AXES + 1, map) < 1)
			res = fuzz_fail("'%s': no tensor map of dimension %zu",
			    text, d);
	}
	for (size_t a = 0; a < sym_mesh_n_axes(m) && !res; a++)
		if (sym_layout_is_partial(l, a) !=
		    (sym_layout_axis_dim(l, a) == -2))
			res = fuzz_fail("'%s': axis %zu is partial or not",
			    text, a);
	if (!res)
		res = check_blocks(l);
	free(text);
	sym_layout_free(again);
	sym_layout_free(std);
	return res;
}

/* Return a new shape of "ctx" of "rank" dimensions 48, or symbol b when
 * "symbolic", or NULL. */
static sym_shape *
shape_of(sym_ctx *ctx, size_t rank, int symbolic)
{
	sym_expr *dims[8];
	sym_shape *s = NULL;
	size_t i;

	if (rank > 8)
		return NULL;
	for (i = 0; i < rank; i++) {
		dims[i] = symbolic ? sym_expr_symbol(sym_symbol_find(ctx, "b"))
		                   : sym_expr_const(ctx, 48);
		if (!dims[i])
			break;
	}
	if (i == rank)
		s = sym_shape_new(ctx, SYM_DT_F32, rank, dims);
	while (i-- > 0)
		sym_expr_free(dims[i]);
	return s;
}

/* Plan the redistribution of a tensor of dimensions 48 (or b, when
 * "symbolic") from "from" to "to" and print it; when it succeeds, its
 * last step must reach "to" (or "from" must equal "to"). Return 0 or
 * -1. */
static int
redistribute(sym_ctx *ctx, const sym_layout *from, const sym_layout *to,
    int symbolic)
{
	sym_shape *shape = shape_of(ctx, sym_layout_ndim(from), symbolic);
	sym_redist *r;
	size_t n;
	int res = 0;

	if (!shape)
		return 0;
	sym_ctx_clear_error(ctx);
	r = sym_redist_plan(from, to, shape, NULL);
	if (!r) {
		res = sym_ctx_last_error(ctx) == SYM_OK
		    ? fuzz_fail("sym_redist_plan failed without an error")
		    : 0;
	} else if (fuzz_note("a redistribution of %zu steps",
	               sym_redist_n_steps(r)),
	    fuzz_print_redist(r, NULL) < 0) {
		res = -1;
	} else if ((n = sym_redist_n_steps(r)) > 0
	        ? sym_layout_is_equal(sym_redist_step_layout(r, n - 1), to) != 1
	        : sym_layout_is_equal(from, to) != 1) {
		res = fuzz_fail("a redistribution does not reach its layout");
	}
	sym_redist_free(r);
	sym_shape_free(shape);
	return res;
}

/* Read the first two lines of "text" as layouts on the mesh "pick"
 * chooses (pick_mesh), describe each and redistribute the first into the
 * second. Return 0 or -1. */
static int
layouts(sym_ctx *ctx, unsigned pick, const char *text)
{
	sym_symbol_info info = { 1, 0, 8, 0, 1 };
	sym_mesh *m = pick_mesh(ctx, pick);
	sym_layout *l[2] = { NULL, NULL };
	const char *line = text;
	int res = 0;

	if (!m)
		return check_error(ctx, "sym_mesh_new", "", "-", 1);
	if (!sym_symbol_new(ctx, "b", &info, NULL)) {
		sym_mesh_free(m);
		return 0;
	}
	for (int i = 0; i < 2 && line && !res; i++) {
		size_t len = strcspn(line, "\n");
		char *one = strndup(line, len);
		sym_loc where = { "layout", i + 1, 1 };

		line = line[len] ? line + len + 1 : NULL;
		if (!one)
			break;
		sym_ctx_clear_error(ctx);
		l[i] = sym_layout_parse(m, one, &where);
		if (!l[i])
			res = check_error(ctx, "sym_layout_parse", one,
			    "layout", i + 1);
		else
			res = describe_layout(l[i]);
		free(one);
	}
	if (!res && l[0] && l[1] &&
	    sym_layout_ndim(l[0]) == sym_layout_ndim(l[1]))
		res = redistribute(ctx, l[0], l[1], (pick & 0x80) != 0);
	sym_layout_free(l[0]);
	sym_layout_free(l[1]);
	sym_mesh_free(m);
	return res;
}

/* Return a new graph of "ctx" read from small_graph, or NULL. */
static sym_graph *
small(sym_ctx *ctx)
{
	sym_graph *g = sym_graph_parse(ctx, small_graph, "small.sg");

	if (g && sym_graph_n_errors(g) > 0) {
		sym_graph_free(g);
		return NULL;
	}
	return g;
}

/* Give the nodes of "g", in turn from node "first", the strategies on
 * the lines of "text" from line "line" (from 1); the first line is a
 * mesh when "mesh". Each that is refused must add an error diagnostic
 * located on its line. Return 0 or -1. */
static int
strategies(sym_graph *g, const char *text, size_t first, int mesh)
{
	size_t n = sym_graph_n_nodes(g), k = first;
	int lineno = 1;

	for (const char *line = text; line; lineno++) {
		size_t len = strcspn(line, "\n");
		size_t errors = sym_graph_n_errors(g);
		size_t seen = sym_graph_n_diagnostics(g);
		char *one = strndup(line, len);
		sym_loc where = { "input", lineno, 1 };
		int r;

		line = line[len] ? line + len + 1 : NULL;
		if (!one)
			return 0;
		if (mesh && lineno == 1)
			r = sym_graph_add_mesh(g, one, &where);
		else
			r = sym_node_set_strategy(g, sym_graph_node(g, k++ % n),
			    one, &where);
		if (r < 0 && sym_graph_n_errors(g) == errors &&
		    sym_ctx_last_error(sym_graph_ctx(g)) != SYM_ENOMEM) {
			free(one);
			return fuzz_fail("a strategy or mesh refused without "
			                 "an error diagnostic");
		}
		for (size_t i = seen; r < 0 && i < sym_graph_n_diagnostics(g);
		     i++) {
			const sym_diagnostic *d = sym_graph_diagnostic(g, i);

			if (d->severity == SYM_SEV_ERROR && d->loc.file &&
			    !strcmp(d->loc.file, "input") &&
			    (d->loc.line != lineno || d->loc.col < 1 ||
			        (size_t)d->loc.col > len + 1)) {
				free(one);
				return fuzz_fail("error at %d:%d of line %d "
				                 "(%zu characters): %s",
				    d->loc.line, d->loc.col, lineno, len,
				    d->message);
			}
		}
		if (r < 0)
			fuzz_note("line %d refused", lineno);
		free(one);
	}
	return 0;
}

/* Set the strategies (and the mesh, when "mesh") of the small graph
 * from "text", from node "first", and run it through the pipeline;
 * "seed" chooses the bindings. Return 0 or -1. */
static int
strategy_input(sym_ctx *ctx, const char *text, size_t first, int mesh,
    uint64_t seed)
{
	sym_graph *g = small(ctx);
	int res;

	if (!g)
		return 0;
	res = strategies(g, text, first, mesh);
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++)
		fuzz_note("%s", sym_graph_diagnostic(g, i)->message);
	if (!res && sym_graph_n_errors(g) == 0)
		res = fuzz_pipeline_graph(ctx, g, NULL, seed);
	sym_graph_free(g);
	return res;
}

/* Return the malloc'ed path of a new temporary file holding the "size"
 * bytes of "data", or NULL. */
static char *
temp_file(const uint8_t *data, size_t size)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	size_t done = 0;
	int fd;

	if (!dir || !*dir)
		dir = P_tmpdir;
	path = malloc(strlen(dir) + 32);
	if (!path)
		return NULL;
	sprintf(path, "%s/symshard-fuzz-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	if (done < size) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

/* Read the "size" bytes of "data" as a topology file, or a rank table
 * when "table"; shard the small graph on what is read. Return 0 or
 * -1. */
static int
topology(sym_ctx *ctx, const uint8_t *data, size_t size, int table,
    uint64_t seed)
{
	char *path = temp_file(data, size), *text;
	sym_topology *t;
	sym_graph *g;
	int res = 0;

	if (!path)
		return 0;
	sym_ctx_clear_error(ctx);
	t = table ? sym_topology_parse_rank_table(ctx, path)
	          : sym_topology_parse_file(ctx, path);
	text = fuzz_text_of(data, size);
	if (!t) {
		if (text)
			res = check_error(ctx,
			    table ? "sym_topology_parse_rank_table"
			          : "sym_topology_parse_file",
			    text, path, 1);
	} else if (fuzz_printed(sym_topology_to_str(t), "sym_topology_to_str") <
	    0) {
		res = -1;
	} else {
		for (int64_t r = 0; r < 64; r++)
			(void)sym_topology_node_of(t, r);
		g = small(ctx);
		if (g)
			res = fuzz_pipeline_graph(ctx, g, t, seed);
		sym_graph_free(g);
	}
	sym_topology_free(t);
	unlink(path);
	free(path);
	free(text);
	return res;
}

/* Read the input "data" of "size" bytes as the comment at the top of
 * this file says. Return 0, or -1 when a property is broken. */
int
fuzz_inputs_one(const uint8_t *data, size_t size)
{
	sym_ctx *ctx = fuzz_new_ctx();
	unsigned pick = size > 1 ? data[1] : 0;
	char *text = size ? fuzz_text_of(data + 1, size - 1) : NULL;
	uint64_t seed = size;
	int res = 0;

	for (size_t i = 0; i < size; i++)
		seed = seed * 31 + data[i];
	if (!ctx || !text) {
		free(text);
		sym_ctx_free(ctx);
		return 0;
	}
	switch (data[0] % 6) {
	case 0:
		res = one_binding(ctx, text);
		break;
	case 1:
		res = layouts(ctx, pick, size > 2 ? text + 1 : "");
		break;
	case 2:
		res = strategy_input(ctx, size > 2 ? text + 1 : "", pick, 0,
		    seed);
		break;
	case 3:
		res = strategy_input(ctx, text, 0, 1, seed);
		break;
	default:
		res = topology(ctx, data + 1, size - 1, data[0] % 6 == 5, seed);
		break;
	}
	if (sym_ctx_live_objects(ctx) != 0)
		res = fuzz_fail("%zu objects left alive",
		    sym_ctx_live_objects(ctx));
	sym_ctx_free(ctx);
	free(text);
	return res;
}
