/* SPDX-License-Identifier: MIT */
/*
 * The strategy search's pieces and cells (search_private.h): the
 * searched symbols (the first symbol, and a second one with more than
 * one admissible size), the samples of the first, the cut of its sizes
 * into pieces between samples by bisection over the plans found (each
 * plan assumed best on one interval), refined by searching again at the
 * pieces' ends; then the second symbol's sizes cut into cells within
 * which the pieces stay the same, and the pieces bounded where their
 * plan's costs leave 64 bits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "shard/search_private.h"

/* The most cells the sizes of the second searched symbol are cut in. */
#define MAX_CELLS 16
/* The greatest sample: sizes beyond it are priced as the last piece. */
#define SAMPLE_LIMIT ((int64_t)1 << 32)

/* Return the least size from "lo" to "hi" (INT64_MAX: no bound) of a
 * symbol of "info" that is at least "x" and admissible (x when it has no
 * divisor), INT64_MAX when none. */
static int64_t
admissible_in(const sym_symbol_info *info, int64_t lo, int64_t hi, int64_t x)
{
	int64_t d = info->divisor > 0 ? info->divisor : 1;
	int64_t r;

	if (x < lo)
		x = lo;
	r = ((info->remainder - x) % d + d) % d;
	if (x > INT64_MAX - r || (hi != INT64_MAX && x + r > hi))
		return INT64_MAX;
	return x + r;
}

/* Return the least admissible size of the searched symbol of "s" that is
 * at least "x", INT64_MAX when none. */
static int64_t
admissible_from(const sym_search *s, int64_t x)
{
	return admissible_in(&s->var[0].info, s->var[0].lo, s->var[0].hi, x);
}

/* The winner among the plans "set" ("n" entries) of "s" at size "b": the
 * best one's index in "set" and its state (struct sym__sval) in
 * "*bad". */
static size_t
winner(sym_search *s, const size_t *set, size_t n, int64_t b, int *bad)
{
	size_t w = 0;

	sym__search_bind_at(s, b);
	for (size_t k = 1; k < n; k++)
		if (sym__search_better(sym__search_value(s, set[k]),
		        sym__search_value(s, set[w])))
			w = k;
	*bad = sym__search_value(s, set[w]).bad;
	return w;
}

/* Return 1 when the winner "w" in state "bad" and "w2" in state "bad2"
 * make one piece: the same state, and the same plan when it fits (the
 * sizes where none fits, or none can be priced, are one piece). */
static int
same_win(size_t w, int bad, size_t w2, int bad2)
{
	return bad == bad2 && (bad != 0 || w == w2);
}

/* Return the greatest admissible size in ["a", "c") of "s" at which the
 * winner of "set" still makes one piece with "w" in state "bad" (the
 * winner at "a"), by bisection over the admissible sizes. */
static int64_t
last_of(sym_search *s, const size_t *set, size_t n, int64_t a, int64_t c,
    size_t w, int bad)
{
	int64_t d = s->var[0].info.divisor > 0 ? s->var[0].info.divisor : 1;
	int64_t lo = 0, hi = (c - a) / d; /* a + lo*d keeps, a + hi*d not */

	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2, b = a + mid * d;
		int f;
		size_t x = winner(s, set, n, b, &f);

		if (same_win(x, f, w, bad))
			lo = mid;
		else
			hi = mid;
	}
	return a + lo * d;
}

/* Append the piece ["lo", "hi"] of plan "entry" in state "bad" to "s"; 0
 * or -1. */
static int
add_piece(sym_search *s, int64_t lo, int64_t hi, size_t entry, int bad)
{
	struct sym__spiece *p =
	    sym__realloc_array(s->ctx, s->piece, s->n_piece + 1, sizeof(*p));

	if (!p)
		return -1;
	s->piece = p;
	p[s->n_piece] = (struct sym__spiece){ .entry = entry, .bad = bad };
	p[s->n_piece].lo[0] = lo;
	p[s->n_piece++].hi[0] = hi;
	if (sym__trace_on(SYM__TRACE_SEARCH))
		sym__trace("search: piece %zu: %s in [%lld, %lld]: plan %zu%s",
		    s->n_piece - 1, sym_symbol_name(s->var[0].sym),
		    (long long)lo, (long long)hi, entry,
		    bad ? " (does not fit)" : "");
	return 0;
}

/* Cut the sizes of "s" into pieces over the plans "set" ("n") found at
 * the "ns" samples "sample": between two samples whose winners differ,
 * each boundary by bisection, assuming every plan wins on one interval
 * of sizes (true when times are linear in the symbol: the best of lines
 * is their lower envelope). 0 or -1. */
static int
cut_pieces(sym_search *s, const size_t *set, size_t n, const int64_t *sample,
    size_t ns)
{
	int bad, f;
	int64_t lo = sample[0];
	size_t w = winner(s, set, n, lo, &bad);

	for (size_t k = 1; k < ns; k++)
		for (;;) {
			size_t x = winner(s, set, n, sample[k], &f);
			int64_t end;

			if (same_win(x, f, w, bad))
				break;
			end = last_of(s, set, n, lo, sample[k], w, bad);
			if (add_piece(s, lo, end, set[w], bad) < 0)
				return -1;
			lo = admissible_from(s, end + 1);
			w = winner(s, set, n, lo, &bad);
		}
	return add_piece(s, lo, s->var[0].hi == INT64_MAX ? -1 : s->var[0].hi,
	    set[w], bad);
}

/* Store the information of the symbol "y" in "*info", its least
 * admissible size (at least 1; INT64_MAX when none) in "*lo" and its
 * greatest in "*hi" (INT64_MAX: no bound). */
static void
sizes_of(const sym_symbol *y, sym_symbol_info *info, int64_t *lo, int64_t *hi)
{
	sym_symbol_get_info(y, info);
	*lo = sym_symbol_least(y) > 0 ? sym_symbol_least(y) : 1;
	*hi = sym_symbol_greatest(y) > 0 ? sym_symbol_greatest(y) : INT64_MAX;
	*lo = admissible_in(info, *lo, *hi, *lo);
}

/* Make "y" (an origin) searched symbol s->n_var of "s", unless it is not
 * the first and has a single admissible size (then it stays at it) or no
 * greatest size to look at. */
static void
choose_var(sym_search *s, sym_symbol *y)
{
	struct sym__svar v = { y, SYM_SYMBOL_INFO_INIT, 0, 0, 0 };

	sizes_of(y, &v.info, &v.lo, &v.hi);
	if (s->n_var > 0) {
		if (v.lo == INT64_MAX ||
		    admissible_in(&v.info, v.lo, v.hi, v.lo + 1) == INT64_MAX)
			return;
		/* unbounded: looked at up to SAMPLE_LIMIT */
		v.top = v.hi != INT64_MAX
		    ? v.hi
		    : admissible_in(&v.info, v.lo, v.hi,
		          v.lo > SAMPLE_LIMIT ? v.lo : SAMPLE_LIMIT);
		if (v.top == INT64_MAX)
			return;
	}
	s->var[s->n_var++] = v;
}

/* Choose the searched symbols of "s" (at most SYM__SEARCH_MAX_SYM): the
 * first symbol of the context (its origin) and the next ones with more
 * than one admissible size; the others stay at their least values in
 * s->b. */
void
sym__search_choose_symbol(sym_search *s)
{
	size_t ns = sym_ctx_n_symbols(s->ctx);

	s->n_var = 0;
	for (size_t i = 0; i < ns; i++) {
		sym_symbol *y = sym_ctx_symbol(s->ctx, i);

		sym_binding_set(s->b, y, sym_symbol_least(y));
		if (s->n_var < SYM__SEARCH_MAX_SYM && sym_symbol_origin(y) == y)
			choose_var(s, y);
	}
	if (!s->n_var) {
		s->var[0].info = (sym_symbol_info)SYM_SYMBOL_INFO_INIT;
		s->var[0].lo = s->var[0].hi = 1;
	}
}

/* Store in "sample" (room for 70) the sizes "s" searches at: the least
 * admissible one, then four times larger each, up to the greatest or
 * SAMPLE_LIMIT; return how many. */
size_t
sym__search_samples(sym_search *s, int64_t *sample)
{
	size_t n = 0;
	int64_t v = s->var[0].lo;

	while (v != INT64_MAX && n < 68) {
		sample[n++] = v;
		if (!s->n_var || v >= SAMPLE_LIMIT)
			break;
		v = admissible_from(s,
		    v > SAMPLE_LIMIT / 4 ? SAMPLE_LIMIT : 4 * v);
	}
	if (s->var[0].hi != INT64_MAX && sample[n - 1] != s->var[0].hi &&
	    sym_symbol_admits(s->var[0].sym, s->var[0].hi))
		sample[n++] = s->var[0].hi;
	return n;
}

/* Return 1 when the plan of entry "e" of "s" can be priced at size "v"
 * of its symbol, the second one (if any) at "v2". */
static int
priced_at(sym_search *s, size_t e, int64_t v, int64_t v2)
{
	sym__search_bind_at(s, v);
	if (s->n_var > 1)
		sym__search_bind(s, s->var[1].sym, v2);
	return sym__search_value(s, e).bad < 2;
}

/* Return the least size of piece "p" of "s" (one that fits) at which
 * its plan cannot be priced (its time or memory beyond 64 bits; found by
 * bisection, assuming costs grow with the sizes), the second symbol at
 * the greatest size of the piece (or s->var[1].top); -1 when there is none. */
static int64_t
first_unpriced(sym_search *s, const struct sym__spiece *p)
{
	int64_t d = s->var[0].info.divisor > 0 ? s->var[0].info.divisor : 1;
	int64_t v2 = p->hi[1] >= 0 ? p->hi[1] : s->var[1].top, lo = 0;
	int64_t hi = p->hi[0] >= 0 ? (p->hi[0] - p->lo[0]) / d
	                           : (INT64_MAX - p->lo[0]) / d;

	if (priced_at(s, p->entry, p->lo[0] + hi * d, v2))
		return -1;
	if (!priced_at(s, p->entry, p->lo[0], v2))
		return p->lo[0];
	while (hi - lo > 1) { /* p->lo[0] + lo*d priced, p->lo[0] + hi*d not */
		int64_t mid = lo + (hi - lo) / 2;

		if (priced_at(s, p->entry, p->lo[0] + mid * d, v2))
			lo = mid;
		else
			hi = mid;
	}
	return p->lo[0] + hi * d;
}

/* Bound the pieces of "s" that fit where their plan can no longer be
 * priced (first_unpriced), the sizes of the cell beyond made one piece
 * that cannot be priced; 0 or -1. */
int
sym__search_bound_pieces(sym_search *s)
{
	struct sym__spiece *out =
	    sym__calloc(s->ctx, 2 * s->n_piece + 1, sizeof(*out));
	struct sym__spiece p;
	int64_t d = s->var[0].info.divisor > 0 ? s->var[0].info.divisor : 1;
	size_t n = 0, e;

	if (!out)
		return -1;
	for (size_t i = 0; i < s->n_piece; i = e) {
		int64_t cut = -1;

		for (e = i;
		     e < s->n_piece && s->piece[e].lo[1] == s->piece[i].lo[1];)
			e++;
		for (size_t k = i; k < e && cut < 0; k++) {
			p = s->piece[k];
			cut = p.bad == 2             ? p.lo[0]
			    : p.bad == 0 && s->n_var ? first_unpriced(s, &p)
			                             : -1;
			if (cut > p.lo[0]) {
				out[n] = p;
				out[n++].hi[0] = cut - d;
			}
			if (cut < 0) {
				out[n++] = p;
				continue;
			}
			p.lo[0] = cut;
			p.hi[0] = s->piece[e - 1].hi[0];
			p.bad = 2;
			out[n++] = p;
		}
	}
	free(s->piece);
	s->piece = out;
	s->n_piece = n;
	sym__search_bind_at(s, s->var[0].lo);
	if (s->n_var > 1)
		sym__search_bind(s, s->var[1].sym, s->var[1].lo);
	return 0;
}

/* Add entry "e" to "w" unless it is there; return 1 when added, 0 when
 * it was there, -1 when out of memory (recorded on "ctx"). */
static int
set_add(sym_ctx *ctx, struct sym__swinners *w, size_t e)
{
	for (size_t m = 0; m < w->n; m++)
		if (w->e[m] == e)
			return 0;
	if (SYM__RESERVE(ctx, w->e, w->cap, w->n + 1) < 0)
		return -1;
	w->e[w->n++] = e;
	return 1;
}

/* The searches again at the ends of pieces: their sizes and starts. */
struct seen {
	struct {
		int64_t b;
		size_t warm;
	} * at;
	size_t n, cap;
};

/* Return 1 when "s" searched at size "b" from "warm" before (a search
 * again would find the same plan), else record it and return 0; -1 when
 * out of memory. */
static int
searched_before(sym_search *s, struct seen *seen, int64_t b, size_t warm)
{
	for (size_t k = 0; k < seen->n; k++)
		if (seen->at[k].b == b && seen->at[k].warm == warm)
			return 1;
	if (SYM__RESERVE(s->ctx, seen->at, seen->cap, seen->n + 1) < 0)
		return -1;
	seen->at[seen->n].b = b;
	seen->at[seen->n++].warm = warm;
	return 0;
}

/* Search "s" at size "b" from "warm" and add to "w" the best plan found
 * at each level of optimizer sharding searched there: a lower level's
 * plan over the cap at "b" may fit, and win, at smaller sizes. Return the
 * number of plans added (0 when all were in "w"), or -1 when out of
 * memory; "*e" the best plan at "b". */
static int
search_add(sym_search *s, struct sym__swinners *w, int64_t b, size_t warm,
    size_t *e)
{
	int added = 0;

	*e = sym__search_at(s, b, warm);
	if (*e == SIZE_MAX || s->failed)
		return -1;
	for (size_t l = 0; l < s->n_level_best; l++) {
		int t = set_add(s->ctx, w, s->level_best[l]);

		if (t < 0)
			return -1;
		added += t;
	}
	return added;
}

/* Search "s" at the "ns" sizes "sample" of its symbol (the second one,
 * if any, as bound in s->b), from "*warm", adding the winners to "w";
 * then cut the pieces and search again at both ends of every piece,
 * recutting with the plans found there until no new plan wins an end
 * (at most "rounds" rounds), so that a plan best only between two
 * samples is found too. 0 or -1. */
int
sym__search_refine(sym_search *s, struct sym__swinners *w,
    const int64_t *sample, size_t ns, size_t *warm, int rounds)
{
	struct seen seen = { NULL, 0, 0 };
	int grew = 1, rc = 0;

	for (size_t k = 0; k < ns && rc == 0; k++)
		if (search_add(s, w, sample[k], *warm, warm) < 0)
			rc = -1;
	for (int round = 0; rc == 0 && grew && round <= rounds; round++) {
		s->n_piece = 0;
		if (cut_pieces(s, w->e, w->n, sample, ns) < 0)
			rc = -1;
		grew = 0;
		for (size_t i = 0; rc == 0 && round < rounds && i < s->n_piece;
		     i++) {
			int64_t ends[2] = { s->piece[i].lo[0],
				s->piece[i].hi[0] };

			for (int j = 0; j < 2 && rc == 0; j++) {
				size_t e;
				int t;

				if (ends[j] < 0)
					continue;
				t = searched_before(s, &seen, ends[j],
				    s->piece[i].entry);
				if (t != 0) {
					rc = t < 0 ? -1 : 0;
					continue;
				}
				t = search_add(s, w, ends[j], s->piece[i].entry,
				    &e);
				if (t < 0)
					rc = -1;
				grew |= t > 0;
			}
		}
	}
	free(seen.at);
	return rc;
}

/* Cut the pieces of "s" at size "v" of its second symbol over the plans
 * "w" (see cut_pieces), from piece "base" on; 0 or -1. */
static int
pieces_at(sym_search *s, const struct sym__swinners *w, const int64_t *sample,
    size_t ns, int64_t v, size_t base)
{
	sym__search_bind(s, s->var[1].sym, v);
	s->n_piece = base;
	return cut_pieces(s, w->e, w->n, sample, ns);
}

/* Return 1 when the "n" pieces of "s" from "a" on and those from "b" on
 * (to the last) are the same: ranges, plans and states, but for where
 * the sizes that cannot be priced begin (sym__search_bound_pieces bounds them for
 * the greatest size of a cell) and the plan of a piece that does not
 * fit. */
static int
same_pieces(const sym_search *s, size_t a, size_t n, size_t b)
{
	if (s->n_piece - b != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct sym__spiece *p = &s->piece[a + i];
		const struct sym__spiece *q = &s->piece[b + i];
		int end = i + 1 < n && p[1].bad == 2;

		if ((p->bad != 2 && p->lo[0] != q->lo[0]) ||
		    (!end && p->bad != 2 && p->hi[0] != q->hi[0]) ||
		    (p->bad == 0 && p->entry != q->entry) || p->bad != q->bad)
			return 0;
	}
	return 1;
}

/* Cut the sizes of the second symbol of "s" into cells within which the
 * pieces over its first symbol stay the same (the same plans, the same
 * breakpoints), by bisection from the least size of each cell up to
 * s->var[1].top (assuming the pieces change once in between: cost lines that
 * cross once); each cell keeps the pieces cut at its least size, over
 * the plans "w". At most MAX_CELLS cells: the last one then runs to the
 * end. 0 or -1. */
int
sym__search_cut_cells(sym_search *s, const struct sym__swinners *w,
    const int64_t *sample, size_t ns)
{
	int64_t a = s->var[1].lo,
	        d = s->var[1].info.divisor > 0 ? s->var[1].info.divisor : 1;
	size_t base = 0;

	s->n_cell = 0;
	while (a != INT64_MAX) {
		int64_t v = s->var[1].top;
		size_t n;

		if (pieces_at(s, w, sample, ns, a, base) < 0)
			return -1;
		n = s->n_piece - base;
		if (s->n_cell + 1 < MAX_CELLS && a < s->var[1].top) {
			int64_t lo = 0, hi = (s->var[1].top - a) / d;

			if (pieces_at(s, w, sample, ns, s->var[1].top,
			        base + n) < 0)
				return -1;
			if (!same_pieces(s, base, n, base + n)) {
				/* a + lo*d keeps the pieces, a + hi*d not */
				while (hi - lo > 1) {
					int64_t mid = lo + (hi - lo) / 2;

					if (pieces_at(s, w, sample, ns,
					        a + mid * d, base + n) < 0)
						return -1;
					if (same_pieces(s, base, n, base + n))
						lo = mid;
					else
						hi = mid;
				}
				v = a + lo * d;
			}
		}
		s->n_piece = base + n;
		for (size_t i = base; i < base + n; i++) {
			s->piece[i].lo[1] = a;
			s->piece[i].hi[1] = v < s->var[1].top ? v
			    : s->var[1].hi == INT64_MAX       ? -1
			                                      : s->var[1].hi;
		}
		s->n_cell++;
		base += n;
		if (v >= s->var[1].top)
			break;
		a = admissible_in(&s->var[1].info, s->var[1].lo, s->var[1].hi,
		    v + 1);
	}
	return 0;
}
