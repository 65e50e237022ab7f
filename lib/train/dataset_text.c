/* SPDX-License-Identifier: MIT */
/*
 * Sequence corpora (sym_dataset(3)): "text:FILE", records of bytes
 * separated by a line holding only "%" (or "sep="), and
 * "tokens:FILE.safetensors", a pre-tokenised ragged corpus ("tokens"
 * int32 [T], "offsets" int64 [N+1]). A record of L tokens is one row of
 * the language model's columns "ids" (tokens[0 : L-1]) and "labels"
 * (tokens[1 : L]), of length s = L - 1; past it a row reads as pad (id
 * 0, label -100, the loss's ignore_index). Empty records and records of
 * one token are dropped and counted (sym_dataset_notice), records longer
 * than "max_len" + 1 tokens cut; "eval=F" holds out the last fraction
 * of the records as the test split. The whole corpus stays in memory
 * as bytes (text) or int32 (tokens); every byte of a text goes into the
 * fingerprint.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard/checkpoint.h>

#include "train/dataset_private.h"

/* The largest text corpus read (bytes), and the largest vocabulary. */
#define SEQ_FILE_LIMIT ((size_t)1 << 30)
#define SEQ_MAX_VOCAB ((int64_t)1 << 30)
/* The label of a position past a record: the loss ignores it. */
#define SEQ_IGNORE (-100)

/* The options of a specification. */
struct seq_spec {
	char *path;
	const char *sep; /* in "buf"; "%" by default */
	int64_t max_len; /* 0: no limit */
	double eval;
	int64_t vocab;
	int tokens; /* tokens:, else text: */
	char *buf;  /* the specification's copy, cut into options */
};

/* The state of a corpus: its tokens (bytes of a text, or int32), and
 * for each row of the split its first token and its length L. */
struct seq {
	unsigned char *bytes;
	int32_t *tok;
	int64_t *start, *len; /* n_rows */
};

/* Return token "i" of "q". */
static int32_t
token(const struct seq *q, int64_t i)
{
	return q->bytes ? (int32_t)q->bytes[i] : q->tok[i];
}

/* Read from a corpus (see struct sym__dataset_ops): column 0 is "ids",
 * 1 "labels" (shifted by one), pads past the row's length. */
static void
seq_read(const sym_dataset *d, size_t c, int64_t row, int64_t start,
    int64_t count, void *dst)
{
	const struct seq *q = d->state;
	int64_t s = q->len[row] - 1, first = q->start[row] + (c ? 1 : 0);
	int32_t *out = dst;

	for (int64_t i = 0; i < count; i++)
		out[i] = start + i < s ? token(q, first + start + i)
		                       : (int32_t)d->col[c].pad;
}

/* Return the length s of row "row" of a corpus. */
static int64_t
seq_length(const sym_dataset *d, int64_t row)
{
	const struct seq *q = d->state;

	return q->len[row] - 1;
}

/* Free the state of a corpus. */
static void
seq_destroy(sym_dataset *d)
{
	struct seq *q = d->state;

	if (!q)
		return;
	free(q->bytes);
	free(q->tok);
	free(q->start);
	free(q->len);
	free(q);
}

static const struct sym__dataset_ops seq_ops = { seq_read, seq_destroy,
	seq_length };

/* Parse the number "v" of option "key" of "spec" into "*out" (an integer
 * in ["lo", "hi"]); 0, or -1 with an error on "ctx". */
static int
spec_int(sym_ctx *ctx, const char *spec, const char *key, const char *v,
    int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "dataset '%s': %s=%s: expected an integer from %lld to %lld",
		    spec, key, v, (long long)lo, (long long)hi);
		return -1;
	}
	*out = n;
	return 0;
}

/* Parse the option "opt" ("key=value") of "spec" into "o"; 0, or -1
 * with an error on "ctx". */
static int
spec_option(sym_ctx *ctx, const char *spec, char *opt, struct seq_spec *o)
{
	char *eq = strchr(opt, '='), *end;
	const char *v;

	if (!eq) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "dataset '%s': option '%s': expected KEY=VALUE", spec, opt);
		return -1;
	}
	*eq = '\0';
	v = eq + 1;
	if (!strcmp(opt, "sep") && !o->tokens) {
		o->sep = v;
		return 0;
	}
	if (!strcmp(opt, "max_len"))
		return spec_int(ctx, spec, opt, v, 1, INT32_MAX, &o->max_len);
	if (!strcmp(opt, "vocab") && o->tokens)
		return spec_int(ctx, spec, opt, v, 1, SEQ_MAX_VOCAB, &o->vocab);
	if (!strcmp(opt, "eval")) {
		errno = 0;
		o->eval = strtod(v, &end);
		if (*v && !*end && !errno && o->eval >= 0 && o->eval < 1)
			return 0;
		sym__error(ctx, SYM_EINVAL, NULL,
		    "dataset '%s': eval=%s: expected a fraction in [0, 1)",
		    spec, v);
		return -1;
	}
	sym__error(ctx, SYM_EINVAL, NULL,
	    "dataset '%s': unknown option '%s' (%s)", spec, opt,
	    o->tokens ? "tokens: takes max_len=, eval=, vocab="
	              : "text: takes sep=, max_len=, eval=");
	return -1;
}

/* Parse "spec" into "o" (its strings in o->buf, to free); 0, or -1 with
 * an error on "ctx". */
static int
spec_parse(sym_ctx *ctx, const char *spec, struct seq_spec *o)
{
	char *p, *comma;

	memset(o, 0, sizeof(*o));
	o->tokens = !strncmp(spec, "tokens:", 7);
	o->sep = "%";
	o->vocab = 256;
	o->buf = sym__strdup(ctx, spec + (o->tokens ? 7 : 5));
	if (!o->buf)
		return -1;
	o->path = o->buf;
	comma = strchr(o->buf, ',');
	if (comma)
		*comma = '\0';
	if (!*o->path) {
		sym__error(ctx, SYM_EINVAL, NULL, "dataset '%s': no file",
		    spec);
		return -1;
	}
	for (p = comma ? comma + 1 : NULL; p;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (spec_option(ctx, spec, p, o) < 0)
			return -1;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* Read the whole file "path" into "*buf" ("*n" bytes, at most
 * SEQ_FILE_LIMIT); 0, or -1 with an error on "ctx". */
static int
slurp(sym_ctx *ctx, const char *path, unsigned char **buf, size_t *n)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, got;
	int bad = 0;

	*buf = NULL;
	*n = 0;
	if (!f) {
		sym__error(ctx, SYM_EIO, NULL, "%s: cannot open: %s", path,
		    strerror(errno));
		return -1;
	}
	do {
		if (*n == cap && SYM__RESERVE(ctx, *buf, cap, *n + 65536) < 0) {
			bad = 1;
			break;
		}
		got = fread(*buf + *n, 1, cap - *n, f);
		*n += got;
		if (*n > SEQ_FILE_LIMIT) {
			sym__error(ctx, SYM_EINVAL, NULL,
			    "%s: larger than %zu bytes, the limit of a text "
			    "corpus (tokenise it into a tokens: file)",
			    path, SEQ_FILE_LIMIT);
			bad = 1;
		}
	} while (got > 0 && !bad);
	if (!bad && ferror(f)) {
		sym__error(ctx, SYM_EIO, NULL, "%s: cannot read: %s", path,
		    strerror(errno ? errno : EIO));
		bad = 1;
	}
	fclose(f);
	if (bad) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 0;
}

/* The records of a corpus as they are found: first token and length of
 * each kept one, and the counts of those dropped or cut. */
struct records {
	int64_t *start, *len;
	size_t n, cap;
	int64_t empty, single, cut, max_len, longest;
};

/* Add the record of "len" tokens from token "start" to "r"; 0, or -1
 * out of memory. */
static int
add_record(sym_ctx *ctx, struct records *r, int64_t start, int64_t len)
{
	size_t cap = r->cap;

	if (len == 0) {
		r->empty++;
		return 0;
	}
	if (len == 1) {
		r->single++;
		return 0;
	}
	if (r->max_len && len > r->max_len + 1) {
		r->cut++;
		len = r->max_len + 1;
	}
	if (SYM__RESERVE(ctx, r->start, cap, r->n + 1) < 0 ||
	    SYM__RESERVE(ctx, r->len, r->cap, r->n + 1) < 0)
		return -1;
	r->start[r->n] = start;
	r->len[r->n++] = len;
	if (len - 1 > r->longest)
		r->longest = len - 1;
	return 0;
}

/* Cut the text "b" ("n" bytes) into records at the lines equal to
 * "sep" (the empty string: blank lines), into "r"; return the number
 * of separator lines, or -1 out of memory. */
static int64_t
split_text(sym_ctx *ctx, const unsigned char *b, size_t n, const char *sep,
    struct records *r)
{
	size_t seplen = strlen(sep), pos = 0, rec = 0;
	int64_t nsep = 0;

	while (pos < n) {
		const unsigned char *nl = memchr(b + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - b) : n;

		if (end - pos == seplen && !memcmp(b + pos, sep, seplen)) {
			if (add_record(ctx, r, (int64_t)rec,
			        (int64_t)(pos - rec)) < 0)
				return -1;
			nsep++;
			rec = end < n ? end + 1 : n;
		}
		pos = end + 1;
	}
	if (rec < n && add_record(ctx, r, (int64_t)rec, (int64_t)(n - rec)) < 0)
		return -1;
	return nsep;
}

/* Read the text corpus of "o" into "q" and "r"; 0, or -1 with an error
 * on "ctx". */
static int
read_text(sym_ctx *ctx, const struct seq_spec *o, struct seq *q,
    struct records *r, uint64_t *fp)
{
	size_t n;
	int64_t nsep;

	if (slurp(ctx, o->path, &q->bytes, &n) < 0)
		return -1;
	*fp = sym__fnv1a(*fp, q->bytes, n);
	nsep = split_text(ctx, q->bytes, n, o->sep, r);
	if (nsep < 0)
		return -1;
	if (nsep == 0 && n > 0) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: the separator (%s%s%s) never occurs in its %zu "
		    "bytes: give the records' separator line with sep= "
		    "(sep= alone: a blank line)",
		    o->path, *o->sep ? "a line holding only '" : "a blank line",
		    o->sep, *o->sep ? "'" : "", n);
		return -1;
	}
	return 0;
}

/* Find the tensor "name" of "ck" (from "path") as "dt" [?]; return its
 * index, or SIZE_MAX with an error on "ctx". */
static size_t
find_tensor(sym_ctx *ctx, const sym_checkpoint *ck, const char *path,
    const char *name, sym_dtype dt)
{
	size_t i = sym_checkpoint_find(ck, name);

	if (i == SIZE_MAX)
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: no tensor '%s' (a tokens: corpus holds 'tokens' int32 "
		    "[T] and 'offsets' int64 [N+1])",
		    path, name);
	else if (sym_checkpoint_tensor_dtype(ck, i) != dt ||
	    sym_checkpoint_tensor_ndim(ck, i) != 1)
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: tensor '%s' is %s of %zu dimensions, expected %s of "
		    "one",
		    path, name,
		    sym_dtype_name(sym_checkpoint_tensor_dtype(ck, i)),
		    sym_checkpoint_tensor_ndim(ck, i), sym_dtype_name(dt));
	else
		return i;
	return SIZE_MAX;
}

/* Check the offsets "off" ("n" + 1 of them) of "path" against "T"
 * tokens; 0, or -1 with an error on "ctx" naming the first bad one. */
static int
check_offsets(sym_ctx *ctx, const char *path, const int64_t *off, int64_t n,
    int64_t T)
{
	for (int64_t i = 0; i <= n; i++) {
		const char *why = off[i] < 0 ? "negative"
		    : off[i] > T             ? "past the end of 'tokens'"
		    : i && off[i] < off[i - 1]
		    ? "smaller than the one before (offsets must not decrease)"
		    : NULL;

		if (why) {
			sym__error(ctx, SYM_EINVAL, NULL,
			    "%s: offsets[%lld] = %lld is %s (%lld tokens)",
			    path, (long long)i, (long long)off[i], why,
			    (long long)T);
			return -1;
		}
	}
	return 0;
}

/* Check that every token of the records "r" of "q" (from "path") is in
 * [0, "vocab"); 0, or -1 with an error on "ctx" naming the first one
 * that is not. */
static int
check_tokens(sym_ctx *ctx, const char *path, const struct seq *q,
    const struct records *r, int64_t vocab)
{
	for (size_t k = 0; k < r->n; k++)
		for (int64_t i = 0; i < r->len[k]; i++) {
			int32_t v = q->tok[r->start[k] + i];

			if (v >= 0 && v < vocab)
				continue;
			sym__error(ctx, SYM_EINVAL, NULL,
			    "%s: tokens[%lld] = %d (token %lld of record %zu) "
			    "is outside the vocabulary [0, %lld) (vocab=)",
			    path, (long long)(r->start[k] + i), (int)v,
			    (long long)i, k, (long long)vocab);
			return -1;
		}
	return 0;
}

/* Read the token corpus of "o" into "q" and "r"; 0, or -1 with an error
 * on "ctx". */
static int
read_tokens(sym_ctx *ctx, const struct seq_spec *o, struct seq *q,
    struct records *r, uint64_t *fp)
{
	sym_checkpoint *ck = sym_checkpoint_read(ctx, o->path);
	size_t it, io, bt = 0, bo = 0;
	const int64_t *off;
	int64_t T, n;
	int rc = -1;

	if (!ck)
		return -1;
	it = find_tensor(ctx, ck, o->path, "tokens", SYM_DT_I32);
	io = it == SIZE_MAX
	    ? SIZE_MAX
	    : find_tensor(ctx, ck, o->path, "offsets", SYM_DT_I64);
	if (io == SIZE_MAX)
		goto out;
	T = sym_checkpoint_tensor_dim(ck, it, 0);
	n = sym_checkpoint_tensor_dim(ck, io, 0) - 1;
	off = sym_checkpoint_tensor_data(ck, io, &bo);
	if (n < 0) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: 'offsets' is empty (N records need N + 1 offsets)",
		    o->path);
		goto out;
	}
	if (check_offsets(ctx, o->path, off, n, T) < 0 ||
	    !(q->tok = sym__alloc(ctx, T ? (size_t)T * 4 : 4)))
		goto out;
	if (T)
		memcpy(q->tok, sym_checkpoint_tensor_data(ck, it, &bt),
		    (size_t)T * 4);
	*fp = sym__fnv1a(*fp, q->tok, (size_t)T * 4);
	*fp = sym__fnv1a(*fp, off, bo);
	for (int64_t i = 0; i < n; i++)
		if (add_record(ctx, r, off[i], off[i + 1] - off[i]) < 0)
			goto out;
	rc = check_tokens(ctx, o->path, q, r, o->vocab);
out:
	sym_checkpoint_free(ck);
	return rc;
}

/* Set the notice of "d" (from "path") from the counts of "r" when
 * records were dropped or cut; 0, or -1 out of memory. */
static int
set_notice(sym_dataset *d, const char *path, const struct records *r)
{
	if (!r->empty && !r->single && !r->cut)
		return 0;
	d->notice = sym__asprintf(
	    "%s: %zu records kept; dropped %lld empty and %lld of one token "
	    "(nothing to predict); %lld cut to max_len %lld + 1 tokens",
	    path, r->n, (long long)r->empty, (long long)r->single,
	    (long long)r->cut, (long long)r->max_len);
	if (!d->notice)
		sym__oom(d->ctx);
	return d->notice ? 0 : -1;
}

/* Keep in "q" the records of "r" of split "split" (the last fraction
 * "eval" is the test split); store their number in "*rows". 0, or -1
 * with an error on "ctx". */
static int
take_split(sym_ctx *ctx, const struct seq_spec *o, struct records *r,
    sym_dataset_split split, struct seq *q, int64_t *rows)
{
	int64_t n = (int64_t)r->n, test = (int64_t)floor(o->eval * (double)n);
	int64_t first = split == SYM_SPLIT_TEST ? n - test : 0;

	if (n == 0) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: no record of at least 2 tokens (%lld empty, %lld of "
		    "one token)",
		    o->path, (long long)r->empty, (long long)r->single);
		return -1;
	}
	if (split == SYM_SPLIT_TEST && test == 0) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "%s: no held-out records: eval=%g of %lld records holds "
		    "out none (--eval-split F)",
		    o->path, o->eval, (long long)n);
		return -1;
	}
	*rows = split == SYM_SPLIT_TEST ? test : n - test;
	memmove(r->start, r->start + first, (size_t)*rows * sizeof(int64_t));
	memmove(r->len, r->len + first, (size_t)*rows * sizeof(int64_t));
	q->start = r->start;
	q->len = r->len;
	r->start = r->len = NULL;
	return 0;
}

/* Make the dataset of the corpus "q" ("rows" rows, the longest row of
 * the whole corpus "longest") named after "spec" and "split"; NULL with
 * an error on "ctx" ("q" is freed then). */
static sym_dataset *
make_dataset(sym_ctx *ctx, const char *spec, sym_dataset_split split,
    struct seq *q, int64_t rows, int64_t longest, uint64_t fp)
{
	char *name = sym__asprintf("%s (%s)", spec,
	    split == SYM_SPLIT_TEST ? "held out" : "train");
	sym_dataset *d =
	    name ? sym__dataset_new(ctx, name, &seq_ops, q, 2) : NULL;

	if (!name)
		sym__oom(ctx);

	free(name);
	if (!d) {
		seq_destroy(&(sym_dataset){ .state = q });
		return NULL;
	}
	d->n_rows = rows;
	d->fingerprint ^= fp;
	if (sym__dataset_set_column(d, 0, "ids", SYM_DT_I32, 1, &longest) < 0 ||
	    sym__dataset_set_column(d, 1, "labels", SYM_DT_I32, 1, &longest) <
	        0) {
		sym_dataset_free(d);
		return NULL;
	}
	d->col[0].pad = 0;
	d->col[1].pad = SEQ_IGNORE;
	return d;
}

/* Open the sequence corpus "spec", its split "split" (see the top of
 * the file); NULL with an error on "ctx". */
sym_dataset *
sym__dataset_seq_open(sym_ctx *ctx, const char *spec, sym_dataset_split split)
{
	struct seq_spec o;
	struct records r = { 0 };
	struct seq *q = NULL;
	sym_dataset *d = NULL;
	uint64_t fp = SYM__FNV_BASIS;
	int64_t rows = 0;

	if (spec_parse(ctx, spec, &o) < 0 || !(q = sym__alloc(ctx, sizeof(*q))))
		goto out;
	r.max_len = o.max_len;
	if ((o.tokens ? read_tokens(ctx, &o, q, &r, &fp)
	              : read_text(ctx, &o, q, &r, &fp)) < 0 ||
	    take_split(ctx, &o, &r, split, q, &rows) < 0)
		goto out;
	d = make_dataset(ctx, spec, split, q, rows, r.longest, fp);
	q = NULL;
	if (d && set_notice(d, o.path, &r) < 0) {
		sym_dataset_free(d);
		d = NULL;
	}
out:
	if (q)
		seq_destroy(&(sym_dataset){ .state = q });
	free(r.start);
	free(r.len);
	free(o.buf);
	return d;
}
