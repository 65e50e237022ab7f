/* SPDX-License-Identifier: MIT */
/*
 * Topologies: which node each rank is on and the link parameters of the
 * alpha-beta cost model, from arguments, from a small text file or from
 * MindSpore's rank_table.json.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/file.h"
#include "redist/redist_private.h"

#define DEFAULT_INTRA_GBPS 100.0
#define DEFAULT_INTRA_US 5.0
#define DEFAULT_INTER_GBPS 25.0
#define DEFAULT_INTER_US 10.0
/* The compute rate of a device, in floating-point operations per second
 * (sym_search(3)): an accelerator's order of magnitude. */
#define DEFAULT_FLOPS 100e12
/* The greatest rank a topology file or a rank table may name: the table
 * of nodes by rank is allocated up to it. */
#define MAX_RANK ((1LL << 20) - 1)

/* Free the topology whose link is "link" (at sym_ctx_free too). */
static void
topology_destroy(struct sym__obj *obj)
{
	sym_topology *t = SYM__OBJ_OF(obj, sym_topology, obj);

	free(t->node_of);
	free(t);
}

/* Return "v" if it is positive, else "def". */
static double
positive_or(double v, double def)
{
	return v > 0 ? v : def;
}

/* Return a new topology of "ctx": "ranks_per_node" consecutive ranks per
 * node (<= 0: all ranks on one node), bandwidths in GB/s and latencies in
 * microseconds inside a node ("intra_gbps", "intra_latency_us") and
 * between nodes ("inter_gbps", "inter_latency_us"); values <= 0 take the
 * defaults 100 GB/s, 5 us, 25 GB/s, 10 us. NULL with SYM_EINVAL for a
 * value that is not finite. */
sym_topology *
sym_topology_new(sym_ctx *ctx, int64_t ranks_per_node, double intra_gbps,
    double intra_latency_us, double inter_gbps, double inter_latency_us)
{
	sym_topology *t;

	if (!ctx)
		return NULL;
	if (!isfinite(intra_gbps) || !isfinite(intra_latency_us) ||
	    !isfinite(inter_gbps) || !isfinite(inter_latency_us)) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "topology: bandwidths and latencies must be finite");
		return NULL;
	}
	t = sym__alloc(ctx, sizeof(*t));
	if (!t)
		return NULL;
	t->ctx = ctx;
	t->ranks_per_node = ranks_per_node > 0 ? ranks_per_node : 0;
	t->intra_bw = positive_or(intra_gbps, DEFAULT_INTRA_GBPS) * 1e9;
	t->intra_lat = positive_or(intra_latency_us, DEFAULT_INTRA_US) * 1e-6;
	t->inter_bw = positive_or(inter_gbps, DEFAULT_INTER_GBPS) * 1e9;
	t->inter_lat = positive_or(inter_latency_us, DEFAULT_INTER_US) * 1e-6;
	t->flops = DEFAULT_FLOPS;
	sym__obj_init(&t->obj, SYM__OBJ_TOPOLOGY, topology_destroy);
	sym__obj_give(ctx, &t->obj);
	return t;
}

/* Set the compute rate of every device of "t" to "flops" floating-point
 * operations per second (<= 0: the default, 100e12); 0, or -1 with
 * SYM_EINVAL when "t" is NULL or "flops" is not finite. */
int
sym_topology_set_flops(sym_topology *t, double flops)
{
	if (!t)
		return -1;
	if (!isfinite(flops)) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "topology: the compute rate must be finite");
		return -1;
	}
	t->flops = flops > 0 ? flops : DEFAULT_FLOPS;
	return 0;
}

/* Return the compute rate of a device of "t" in floating-point
 * operations per second (NULL: the default of a topology). */
double
sym_topology_flops(const sym_topology *t)
{
	return t ? t->flops : DEFAULT_FLOPS;
}

/* Free "t" (NULL is ignored). */
void
sym_topology_free(sym_topology *t)
{
	if (!t)
		return;
	sym__obj_drop(t->ctx, &t->obj);
}

/* Return the node of rank "rank" in "t", or -1 when "rank" is negative or,
 * for a topology with an explicit node list, beyond it. */
int64_t
sym_topology_node_of(const sym_topology *t, int64_t rank)
{
	if (!t || rank < 0)
		return -1;
	if (t->node_of)
		return rank < t->n_ranks ? t->node_of[rank] : -1;
	if (t->ranks_per_node > 0)
		return rank / t->ranks_per_node;
	return 0;
}

int64_t
sym__topology_first_node_size(const sym_topology *t, int64_t devices)
{
	int64_t first, n = 0;

	if (!t || devices <= 0)
		return devices > 0 ? devices : 0;
	if (!t->node_of)
		return t->ranks_per_node > 0 && t->ranks_per_node < devices
		    ? t->ranks_per_node
		    : devices;
	first = t->n_ranks > 0 ? t->node_of[0] : -1;
	for (int64_t r = 0; r < devices && r < t->n_ranks; r++)
		n += t->node_of[r] == first;
	return n;
}

/* Return the number of nodes of the explicit node list of "t". */
static int64_t
count_nodes(const sym_topology *t)
{
	int64_t n = 0;

	for (int64_t r = 0; r < t->n_ranks; r++)
		if (t->node_of[r] + 1 > n)
			n = t->node_of[r] + 1;
	return n;
}

/* Return a malloc'ed description of "t", such as "ranks_per_node 8, intra
 * 100 GB/s 5 us, inter 25 GB/s 10 us", or NULL. */
char *
sym_topology_to_str(const sym_topology *t)
{
	char nodes[96];

	if (!t)
		return NULL;
	if (t->node_of)
		snprintf(nodes, sizeof(nodes), "%lld ranks on %lld nodes",
		    (long long)t->n_ranks, (long long)count_nodes(t));
	else if (t->ranks_per_node > 0)
		snprintf(nodes, sizeof(nodes), "ranks_per_node %lld",
		    (long long)t->ranks_per_node);
	else
		snprintf(nodes, sizeof(nodes), "one node");
	return sym__asprintf_ctx(t->ctx,
	    "%s, intra %g GB/s %g us, inter %g GB/s %g us, compute %g TFLOP/s",
	    nodes, t->intra_bw / 1e9, t->intra_lat * 1e6, t->inter_bw / 1e9,
	    t->inter_lat * 1e6, t->flops / 1e12);
}

/* The state of the parser of a topology file. */
struct tparse {
	sym_ctx *ctx;
	const char *path;
	int line;
	const char *text; /* start of the current line */
	const char *p;
	int seen_rpn, seen_intra, seen_inter, seen_flops;
	int64_t rpn;
	double flops;         /* flop/s, 0: the default */
	double bw[2], lat[2]; /* GB/s and us: intra, inter */
	int64_t *node_of;     /* by rank, -1 when unassigned */
	int64_t cap;          /* entries of node_of */
	int64_t n_ranks;      /* 1 + the greatest rank assigned */
	int64_t n_nodes;
};

/* Record a located SYM_EPARSE error at the current position of "tp" with
 * the message "fmt"; return -1. */
static int __attribute__((format(printf, 2, 3)))
tfail(struct tparse *tp, const char *fmt, ...)
{
	sym_loc at = { tp->path, tp->line, (int)(tp->p - tp->text) + 1 };
	va_list ap;

	va_start(ap, fmt);
	sym__verror(tp->ctx, SYM_EPARSE, &at, fmt, ap);
	va_end(ap);
	return -1;
}

/* Skip blanks in "tp". */
static void
skip_blanks(struct tparse *tp)
{
	while (*tp->p == ' ' || *tp->p == '\t' || *tp->p == '\r')
		tp->p++;
}

/* Return 1 when the current line of "tp" has nothing left but blanks and
 * a comment. */
static int
at_end(struct tparse *tp)
{
	skip_blanks(tp);
	return *tp->p == '\0' || *tp->p == '\n' || *tp->p == '#';
}

/* Store the length of the word at the position of "tp" in "*len"; return
 * a pointer to it. */
static const char *
word(struct tparse *tp, size_t *len)
{
	const char *w;

	skip_blanks(tp);
	w = tp->p;
	while (*tp->p && !isspace((unsigned char)*tp->p) && *tp->p != '#')
		tp->p++;
	*len = (size_t)(tp->p - w);
	tp->p = w;
	return w;
}

/* Parse a positive decimal number at the position of "tp" into "*v"
 * (digits, a point, an exponent: no hexadecimal); return 0 or -1. */
static int
number(struct tparse *tp, double *v)
{
	char *end;

	skip_blanks(tp);
	if (!isdigit((unsigned char)*tp->p) && *tp->p != '.')
		return tfail(tp, "expected a positive number");
	if (tp->p[0] == '0' && (tp->p[1] == 'x' || tp->p[1] == 'X'))
		return tfail(tp, "expected a positive decimal number");
	errno = 0;
	*v = strtod(tp->p, &end);
	if (errno == ERANGE || !isfinite(*v) || *v <= 0)
		return tfail(tp, "expected a positive number");
	tp->p = end;
	return 0;
}

/* A unit and its factor to the base unit (GB/s or microseconds). */
struct unit {
	const char *name;
	double factor;
};

static const struct unit bw_units[] = { { "TB/s", 1e3 }, { "GB/s", 1.0 },
	{ "MB/s", 1e-3 }, { "Gbit/s", 0.125 }, { "Gb/s", 0.125 }, { NULL, 0 } };
static const struct unit lat_units[] = { { "s", 1e6 }, { "ms", 1e3 },
	{ "us", 1.0 }, { "ns", 1e-3 }, { NULL, 0 } };
static const struct unit flop_units[] = { { "PFLOP/s", 1e15 },
	{ "TFLOP/s", 1e12 }, { "GFLOP/s", 1e9 }, { "MFLOP/s", 1e6 },
	{ "FLOP/s", 1.0 }, { NULL, 0 } };

/* Parse a number and one of "units" at the position of "tp", described as
 * "what" in errors, into "*v" in the base unit; return 0 or -1. */
static int
quantity(struct tparse *tp, const struct unit *units, const char *what,
    double *v)
{
	size_t len;
	const char *w;

	if (at_end(tp))
		return tfail(tp, "expected a %s", what);
	if (number(tp, v) < 0)
		return -1;
	w = word(tp, &len);
	for (size_t i = 0; units[i].name; i++)
		if (len == strlen(units[i].name) &&
		    strncmp(w, units[i].name, len) == 0) {
			*v *= units[i].factor;
			tp->p += len;
			return 0;
		}
	if (units == bw_units)
		return tfail(tp,
		    "expected a bandwidth unit (GB/s, MB/s, TB/s or Gbit/s)");
	if (units == flop_units)
		return tfail(tp,
		    "expected a compute rate unit (TFLOP/s, GFLOP/s, "
		    "PFLOP/s, MFLOP/s or FLOP/s)");
	return tfail(tp, "expected a latency unit (us, ms, ns or s)");
}

/* Parse a non-negative integer at the position of "tp" into "*v"; return
 * 0 or -1. */
static int
integer(struct tparse *tp, int64_t *v)
{
	char *end;
	long long x;

	skip_blanks(tp);
	if (!isdigit((unsigned char)*tp->p))
		return tfail(tp, "expected a rank number");
	errno = 0;
	x = strtoll(tp->p, &end, 10);
	if (errno == ERANGE || x > MAX_RANK)
		return tfail(tp, "rank number too large (at most %lld)",
		    MAX_RANK);
	tp->p = end;
	*v = x;
	return 0;
}

/* Put rank "r" on node "node" in "tp"; return 0 or -1. */
static int
assign_rank(struct tparse *tp, int64_t r, int64_t node)
{
	if (r >= tp->cap) {
		int64_t n = r + 1 > 2 * tp->cap ? r + 1 : 2 * tp->cap;
		int64_t *a = sym__realloc_array(tp->ctx, tp->node_of, (size_t)n,
		    sizeof(*a));

		if (!a)
			return -1;
		for (int64_t i = tp->cap; i < n; i++)
			a[i] = -1;
		tp->node_of = a;
		tp->cap = n;
	}
	if (tp->node_of[r] >= 0)
		return tfail(tp, "rank %lld is already on node %lld",
		    (long long)r, (long long)tp->node_of[r]);
	tp->node_of[r] = node;
	if (r + 1 > tp->n_ranks)
		tp->n_ranks = r + 1;
	return 0;
}

/* Parse the ranks and ranges "R" or "R-S" of a "node" line of "tp";
 * return 0 or -1. */
static int
node_line(struct tparse *tp)
{
	int64_t node = tp->n_nodes++;

	if (at_end(tp))
		return tfail(tp, "expected the ranks of node %lld",
		    (long long)node);
	while (!at_end(tp)) {
		int64_t lo = 0, hi = 0;
		const char *start = tp->p;

		if (integer(tp, &lo) < 0)
			return -1;
		hi = lo;
		if (*tp->p == '-') {
			tp->p++;
			if (integer(tp, &hi) < 0)
				return -1;
			if (hi < lo) {
				tp->p = start;
				return tfail(tp, "empty rank range");
			}
		}
		if (*tp->p && !isspace((unsigned char)*tp->p) &&
		    *tp->p != '#' && *tp->p != ',')
			return tfail(tp, "expected a rank or a range R-S");
		if (*tp->p == ',')
			tp->p++;
		for (int64_t r = lo; r <= hi; r++) {
			const char *here = tp->p;

			tp->p = start;
			if (assign_rank(tp, r, node) < 0)
				return -1;
			tp->p = here;
		}
	}
	return 0;
}

/* Parse one line of a topology file (at the position of "tp"); return 0
 * or -1. */
static int
one_line(struct tparse *tp)
{
	size_t len;
	const char *w;

	if (at_end(tp))
		return 0;
	w = word(tp, &len);
	if (len == 14 && strncmp(w, "ranks_per_node", len) == 0) {
		double v = 0;

		if (tp->seen_rpn++)
			return tfail(tp, "ranks_per_node given twice");
		if (tp->n_nodes)
			return tfail(tp,
			    "ranks_per_node and node lines "
			    "exclude each other");
		tp->p += len;
		skip_blanks(tp);
		if (at_end(tp))
			return tfail(tp,
			    "expected the number of ranks per node");
		if (number(tp, &v) < 0)
			return -1;
		if (v > 1e9)
			return tfail(tp,
			    "ranks_per_node too large (at most 1000000000)");
		if (v != (double)(int64_t)v)
			return tfail(tp,
			    "ranks_per_node must be a whole number");
		tp->rpn = (int64_t)v;
	} else if ((len == 5 && strncmp(w, "intra", len) == 0) ||
	    (len == 5 && strncmp(w, "inter", len) == 0)) {
		int k = w[2] == 't' && w[3] == 'e' ? 1 : 0;
		int *seen = k ? &tp->seen_inter : &tp->seen_intra;

		if ((*seen)++)
			return tfail(tp, "%s given twice",
			    k ? "inter" : "intra");
		tp->p += len;
		if (quantity(tp, bw_units, "bandwidth such as 100GB/s",
		        &tp->bw[k]) < 0 ||
		    quantity(tp, lat_units, "latency such as 5us",
		        &tp->lat[k]) < 0)
			return -1;
	} else if (len == 5 && strncmp(w, "flops", len) == 0) {
		if (tp->seen_flops++)
			return tfail(tp, "flops given twice");
		tp->p += len;
		if (quantity(tp, flop_units, "compute rate such as 100TFLOP/s",
		        &tp->flops) < 0)
			return -1;
	} else if (len == 4 && strncmp(w, "node", len) == 0) {
		if (tp->seen_rpn)
			return tfail(tp,
			    "ranks_per_node and node lines "
			    "exclude each other");
		tp->p += len;
		if (node_line(tp) < 0)
			return -1;
	} else {
		return tfail(tp,
		    "unknown keyword '%.*s' (expected "
		    "ranks_per_node, intra, inter, flops or node)",
		    (int)len, w);
	}
	if (!at_end(tp))
		return tfail(tp, "unexpected text at the end of the line");
	return 0;
}

/* Parse the whole "text" in "tp"; return 0 or -1. */
static int
parse_text(struct tparse *tp, const char *text)
{
	const char *p = text;

	while (*p) {
		tp->line++;
		tp->text = tp->p = p;
		if (one_line(tp) < 0)
			return -1;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	for (int64_t r = 0; r < tp->n_ranks; r++)
		if (tp->node_of[r] < 0) {
			tp->text = tp->p = "";
			return tfail(tp,
			    "rank %lld is on no node (node lines "
			    "must cover ranks 0 to %lld)",
			    (long long)r, (long long)tp->n_ranks - 1);
		}
	return 0;
}

/* Give the new topology "t" the ranks and the flop rate "tp" parsed, or
 * free them when "t" is NULL (out of memory); return "t". */
static sym_topology *
take_parsed(sym_topology *t, struct tparse *tp)
{
	if (!t) {
		free(tp->node_of);
		return NULL;
	}
	t->node_of = tp->node_of;
	t->n_ranks = tp->n_ranks;
	if (tp->flops > 0)
		t->flops = tp->flops;
	return t;
}

/* Return the text of the file "path" (malloc'ed) with its length in
 * "*len", or NULL: for a NULL "ctx", and with an error on "ctx" naming
 * "what" when "path" is NULL or cannot be read. */
static char *
read_text(sym_ctx *ctx, const char *path, const char *what, size_t *len)
{
	if (!ctx)
		return NULL;
	if (!path) {
		sym__error(ctx, SYM_EINVAL, NULL, "%s: no file name", what);
		return NULL;
	}
	return sym__read_file(ctx, path, SYM__FILE_LIMIT, len, NULL);
}

/* Return a new topology of "ctx" from the topology file "path" (format in
 * sym_redist(3)), or NULL with SYM_EIO or a located SYM_EPARSE. */
sym_topology *
sym_topology_parse_file(sym_ctx *ctx, const char *path)
{
	struct tparse tp;
	size_t len;
	char *text;

	text = read_text(ctx, path, "topology", &len);
	if (!text)
		return NULL;
	memset(&tp, 0, sizeof(tp));
	tp.ctx = ctx;
	tp.path = path;
	if (parse_text(&tp, text) < 0) {
		free(tp.node_of);
		free(text);
		return NULL;
	}
	free(text);
	return take_parsed(sym_topology_new(ctx, tp.rpn, tp.bw[0], tp.lat[0],
	                       tp.bw[1], tp.lat[1]),
	    &tp);
}

/* Record SYM_EPARSE "PATH: WHAT: fmt" on "ctx" for a malformed rank table;
 * return -1. */
static int __attribute__((format(printf, 4, 5)))
rfail(sym_ctx *ctx, const char *path, const char *what, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sym__error(ctx, SYM_EPARSE, NULL, "rank table '%s': %s%s%s", path, what,
	    *what ? ": " : "", msg);
	return -1;
}

/* Store in "*v" the non-negative integer "j" (a JSON integer or a string
 * of digits, as MindSpore writes them); return 0, or -1 when it is
 * neither. */
static int
json_count(const json_t *j, int64_t *v)
{
	const char *s;
	char *end;
	long long x;

	if (json_is_integer(j)) {
		if (json_integer_value(j) < 0)
			return -1;
		*v = (int64_t)json_integer_value(j);
		return 0;
	}
	if (!json_is_string(j))
		return -1;
	s = json_string_value(j);
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (*end || errno == ERANGE)
		return -1;
	*v = x;
	return 0;
}

/* Read the "device" list of server "i" ("server") of the rank table
 * "path" into "tp" as node "i"; return 0 or -1. */
static int
rank_table_server(struct tparse *tp, const char *path, size_t i, json_t *server)
{
	json_t *dev = json_object_get(server, "device");
	char what[64];

	snprintf(what, sizeof(what), "server_list[%zu]", i);
	if (!json_is_object(server))
		return rfail(tp->ctx, path, what, "expected an object");
	if (!dev)
		return rfail(tp->ctx, path, what, "missing \"device\"");
	if (!json_is_array(dev) || json_array_size(dev) == 0)
		return rfail(tp->ctx, path, what,
		    "\"device\" must be a non-empty array");
	for (size_t k = 0; k < json_array_size(dev); k++) {
		json_t *d = json_array_get(dev, k), *id;
		int64_t r;

		snprintf(what, sizeof(what), "server_list[%zu].device[%zu]", i,
		    k);
		if (!json_is_object(d))
			return rfail(tp->ctx, path, what, "expected an object");
		id = json_object_get(d, "rank_id");
		if (!id)
			return rfail(tp->ctx, path, what,
			    "missing \"rank_id\"");
		if (json_count(id, &r) < 0)
			return rfail(tp->ctx, path, what,
			    "\"rank_id\" must be a non-negative integer");
		if (r > MAX_RANK)
			return rfail(tp->ctx, path, what,
			    "\"rank_id\" %lld is too large (at most %lld)",
			    (long long)r, MAX_RANK);
		if (tp->node_of && r < tp->cap && tp->node_of[r] >= 0)
			return rfail(tp->ctx, path, what,
			    "rank %lld appears twice", (long long)r);
		tp->text = tp->p = "";
		if (assign_rank(tp, r, (int64_t)i) < 0)
			return -1;
	}
	return 0;
}

/* Read the parsed rank table "root" of "path" into "tp"; return 0 or
 * -1. */
static int
rank_table(struct tparse *tp, const char *path, json_t *root)
{
	json_t *list, *count;
	int64_t n;

	if (!json_is_object(root))
		return rfail(tp->ctx, path, "", "expected a JSON object");
	list = json_object_get(root, "server_list");
	if (!list)
		return rfail(tp->ctx, path, "", "missing \"server_list\"");
	if (!json_is_array(list) || json_array_size(list) == 0)
		return rfail(tp->ctx, path, "server_list",
		    "expected a non-empty array");
	count = json_object_get(root, "server_count");
	if (count &&
	    (json_count(count, &n) < 0 || n != (int64_t)json_array_size(list)))
		return rfail(tp->ctx, path, "server_count",
		    "does not match the %zu servers of \"server_list\"",
		    json_array_size(list));
	for (size_t i = 0; i < json_array_size(list); i++)
		if (rank_table_server(tp, path, i, json_array_get(list, i)) < 0)
			return -1;
	n = 0;
	for (int64_t r = 0; r < tp->n_ranks; r++)
		n += tp->node_of[r] >= 0;
	for (int64_t r = 0; r < tp->n_ranks; r++)
		if (tp->node_of[r] < 0)
			return rfail(tp->ctx, path, "",
			    "rank %lld is missing (rank_id must number the "
			    "%lld devices 0 to %lld)",
			    (long long)r, (long long)n, (long long)n - 1);
	return 0;
}

/* Return a new topology of "ctx" from MindSpore's rank table "path": the
 * ranks of a server share a node; links take the defaults of
 * sym_topology_new. NULL with SYM_EIO, or SYM_EPARSE naming the problem
 * (located where Jansson says, at column 1 when it says 0: before the
 * first character of a line, in an empty file or at a bad first byte). */
sym_topology *
sym_topology_parse_rank_table(sym_ctx *ctx, const char *path)
{
	struct tparse tp;
	json_error_t jerr;
	json_t *root;
	size_t len;
	char *text;

	text = read_text(ctx, path, "rank table", &len);
	if (!text)
		return NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!root) {
		sym_loc at = { path, jerr.line,
			jerr.column > 0 ? jerr.column : 1 };

		sym__error(ctx, SYM_EPARSE, jerr.line > 0 ? &at : NULL,
		    "rank table '%s': invalid JSON: %s", path, jerr.text);
		return NULL;
	}
	memset(&tp, 0, sizeof(tp));
	tp.ctx = ctx;
	tp.path = path;
	if (rank_table(&tp, path, root) < 0) {
		json_decref(root);
		free(tp.node_of);
		return NULL;
	}
	json_decref(root);
	return take_parsed(sym_topology_new(ctx, 0, 0, 0, 0, 0), &tp);
}
