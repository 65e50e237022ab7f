/* SPDX-License-Identifier: MIT */
/*
 * Symbols: declarations with MindSpore's semantics, and their instances.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sym/expr_private.h"

/* Free every symbol of "ctx" (their expressions belong to the table). */
static void
symbol_free_all(sym_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n_sym; i++) {
		free(ctx->sym[i]->name);
		free(ctx->sym[i]->loc_file);
		free(ctx->sym[i]);
	}
	free(ctx->sym);
	ctx->sym = NULL;
	ctx->n_sym = ctx->cap_sym = 0;
	sym__strmap_clear(&ctx->sym_names);
}

/* Return 1 when "name" is an identifier: a letter or underscore followed
 * by letters, digits and underscores, and not a word of the expression
 * syntax. */
static int
valid_name(const char *name)
{
	static const char *reserved[] = { "floordiv", "ceildiv", "mod", "min",
		"max" };

	if (!name || !(isalpha((unsigned char)*name) || *name == '_'))
		return 0;
	for (size_t i = 0; i < sizeof(reserved) / sizeof(*reserved); i++)
		if (strcmp(name, reserved[i]) == 0)
			return 0;
	for (name++; *name; name++)
		if (!isalnum((unsigned char)*name) && *name != '_')
			return 0;
	return 1;
}

/* Return the least admissible value of "info" in "*least" and the
 * greatest (0 when unbounded) in "*greatest"; return 0 when the set of
 * values is empty or the declaration invalid, with the reason in "why". */
static int
compute_range(const sym_symbol_info *info, int64_t *least, int64_t *greatest,
    const char **why)
{
	__int128 lo, hi, d = info->divisor, r = info->remainder, m;

	if (info->min < 1) {
		*why = "min must be at least 1";
		return 0;
	}
	if (info->max < 0) {
		*why = "max must be positive (0 means unbounded)";
		return 0;
	}
	if (info->divisor < 1) {
		*why = "divisor must be at least 1";
		return 0;
	}
	if (info->remainder < 0 || info->remainder >= info->divisor) {
		*why = "remainder must lie in [0, divisor)";
		return 0;
	}
	if (info->max != 0 && info->min > info->max) {
		*why = "min is greater than max";
		return 0;
	}
	lo = info->min > d + r ? info->min : d + r;
	m = (lo - r) % d;
	if (m)
		lo += d - m;
	if (lo > INT64_MAX) {
		*why = "no value fits 64 bits";
		return 0;
	}
	*least = (int64_t)lo;
	*greatest = 0;
	if (info->max != 0) {
		hi = info->max - ((info->max - r) % d + d) % d;
		if (hi < lo) {
			*why = "no value satisfies min, max, divisor and "
			       "remainder together";
			return 0;
		}
		*greatest = (int64_t)hi;
	}
	return 1;
}

/* Return 1 when the declaration "info" is valid and admits at least one
 * value that fits 64 bits (computed exactly), else 0. */
int
sym__symbol_info_admits(const sym_symbol_info *info)
{
	int64_t lo, hi;
	const char *why = NULL;

	return info && compute_range(info, &lo, &hi, &why);
}

/* Append the new symbol "s" to the table of "ctx", and to its map of
 * names unless a symbol of that name came first; 0 or -1. */
static int
add_symbol(sym_ctx *ctx, sym_symbol *s)
{
	size_t old;

	if (!ctx->sym && sym__ctx_add_hook(ctx, symbol_free_all) < 0)
		return -1;
	if (SYM__RESERVE(ctx, ctx->sym, ctx->cap_sym, ctx->n_sym + 1) < 0)
		return -1;
	if (!sym__strmap_get(&ctx->sym_names, s->name, &old) &&
	    sym__strmap_put(ctx, &ctx->sym_names, s->name, ctx->n_sym) < 0)
		return -1;
	s->id = (uint32_t)ctx->n_sym;
	ctx->sym[ctx->n_sym++] = s;
	return 0;
}

/* Return a new symbol named "name" (copied) with "info", located at
 * "where", registered in "ctx"; the symbol is owned by "ctx". */
static sym_symbol *
symbol_create(sym_ctx *ctx, const char *name, const sym_symbol_info *info,
    const sym_loc *where, sym_symbol *origin)
{
	sym_symbol *s = sym__alloc(ctx, sizeof(*s));

	if (!s)
		return NULL;
	s->ctx = ctx;
	s->info = *info;
	s->name = sym__strdup(ctx, name);
	if (!s->name) {
		free(s);
		return NULL;
	}
	if (where) {
		s->loc = *where;
		s->loc_file =
		    where->file ? sym__strdup(ctx, where->file) : NULL;
		s->loc.file = s->loc_file;
	}
	s->origin = origin ? origin : s;
	if (add_symbol(ctx, s) < 0) {
		free(s->loc_file);
		free(s->name);
		free(s);
		return NULL;
	}
	compute_range(info, &s->least, &s->greatest, &(const char *){ NULL });
	s->av = sym__av_make(0, s->least, s->greatest == 0, s->greatest,
	    info->divisor, info->remainder);
	s->expr = sym__var(s);
	return s->expr ? s : NULL;
}

/* Return the symbol "name" of "ctx", or NULL. */
sym_symbol *
sym_symbol_find(sym_ctx *ctx, const char *name)
{
	size_t i;

	if (!ctx || !name || !sym__strmap_get(&ctx->sym_names, name, &i))
		return NULL;
	return ctx->sym[i];
}

/* Declare the symbol "name" in "ctx" with "info" (NULL: the defaults),
 * declared at "where" (may be NULL). Return the symbol, owned by "ctx",
 * or NULL with SYM_EDECL when the declaration is invalid. */
sym_symbol *
sym_symbol_new(sym_ctx *ctx, const char *name, const sym_symbol_info *info,
    const sym_loc *where)
{
	sym_symbol_info def = SYM_SYMBOL_INFO_INIT;
	const char *why = NULL;
	int64_t lo, hi;
	sym_symbol *old;

	if (!ctx)
		return NULL;
	if (!info)
		info = &def;
	if (!valid_name(name)) {
		sym__error(ctx, SYM_EDECL, where,
		    "invalid symbol name '%s': use letters, digits and "
		    "underscores, starting with a letter, and not one of "
		    "floordiv, ceildiv, mod, min, max",
		    name ? name : "(null)");
		return NULL;
	}
	old = sym_symbol_find(ctx, name);
	if (old) {
		if (old->loc.file)
			sym__error(ctx, SYM_EDECL, where,
			    "symbol %s is already declared at %s:%d:%d", name,
			    old->loc.file, old->loc.line, old->loc.col);
		else
			sym__error(ctx, SYM_EDECL, where,
			    "symbol %s is already declared", name);
		return NULL;
	}
	if (!compute_range(info, &lo, &hi, &why)) {
		sym__error(ctx, SYM_EDECL, where,
		    "invalid declaration of symbol %s (min=%lld max=%lld "
		    "divisor=%lld remainder=%lld): %s",
		    name, (long long)info->min, (long long)info->max,
		    (long long)info->divisor, (long long)info->remainder, why);
		return NULL;
	}
	return symbol_create(ctx, name, info, where, NULL);
}

/* Return a fresh variable with the constraints of "sym" (printed with one
 * more prime per instance: b', b'', ...), or "sym" itself when it is
 * unique. The variable is owned by the context. */
sym_symbol *
sym_symbol_instantiate(sym_symbol *sym)
{
	sym_symbol *origin, *s;
	char *name;
	size_t len;

	if (!sym)
		return NULL;
	if (sym->info.unique)
		return sym;
	origin = sym->origin;
	len = strlen(origin->name);
	name = sym__alloc(sym->ctx, len + origin->n_instances + 2);
	if (!name)
		return NULL;
	memcpy(name, origin->name, len);
	memset(name + len, '\'', origin->n_instances + 1);
	name[len + origin->n_instances + 1] = '\0';
	s = symbol_create(sym->ctx, name, &origin->info, &origin->loc, origin);
	free(name);
	if (!s)
		return NULL;
	s->instance = ++origin->n_instances;
	return s;
}

/* Return the context of "sym". */
sym_ctx *
sym_symbol_ctx(const sym_symbol *sym)
{
	return sym ? sym->ctx : NULL;
}

/* Return the name of "sym" (primes included for instances). */
const char *
sym_symbol_name(const sym_symbol *sym)
{
	return sym ? sym->name : NULL;
}

/* Copy the declaration of "sym" into "info". */
void
sym_symbol_get_info(const sym_symbol *sym, sym_symbol_info *info)
{
	if (sym && info)
		*info = sym->info;
}

/* Return SYM_TRUE when "sym" was declared unique, SYM_FALSE when not,
 * SYM_ERROR for NULL. */
sym_answer
sym_symbol_is_unique(const sym_symbol *sym)
{
	if (!sym)
		return SYM_ERROR;
	return sym->info.unique ? SYM_TRUE : SYM_FALSE;
}

/* Return the declared symbol "sym" is an instance of (itself if none). */
sym_symbol *
sym_symbol_origin(const sym_symbol *sym)
{
	return sym ? sym->origin : NULL;
}

/* Return the instance number of "sym": 0 for a declared symbol. */
unsigned
sym_symbol_instance(const sym_symbol *sym)
{
	return sym ? sym->instance : 0;
}

/* Return where "sym" was declared (file NULL when unknown). */
sym_loc
sym_symbol_location(const sym_symbol *sym)
{
	sym_loc none = { NULL, 0, 0 };

	return sym ? sym->loc : none;
}

/* Return the least admissible value of "sym". */
int64_t
sym_symbol_least(const sym_symbol *sym)
{
	return sym ? sym->least : 0;
}

/* Return the greatest admissible value of "sym", 0 when unbounded. */
int64_t
sym_symbol_greatest(const sym_symbol *sym)
{
	return sym ? sym->greatest : 0;
}

/* Return 1 when "value" is an admissible value of "sym". */
int
sym_symbol_admits(const sym_symbol *sym, int64_t value)
{
	return sym && sym__av_contains(sym->av, value);
}

/* Return a malloc'ed description of the declaration of "sym" as written
 * in a graph file ("b min=8 divisor=8 unique"), or NULL. */
char *
sym_symbol_to_str(const sym_symbol *sym)
{
	char buf[160];
	int n = 0;

	if (!sym)
		return NULL;
	buf[0] = '\0';
	if (sym->info.min != 1)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " min=%lld",
		    (long long)sym->info.min);
	if (sym->info.max != 0)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " max=%lld",
		    (long long)sym->info.max);
	if (sym->info.divisor != 1)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " divisor=%lld",
		    (long long)sym->info.divisor);
	if (sym->info.remainder != 0)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n,
		    " remainder=%lld", (long long)sym->info.remainder);
	if (sym->info.unique)
		snprintf(buf + n, sizeof(buf) - (size_t)n, " unique");
	return sym__asprintf_ctx(sym->ctx, "%s%s", sym->name, buf);
}

/* Return a malloc'ed message saying which declared constraint "value"
 * violates ("b = 12 violates divisor=8 declared at f.sg:3:8"), or NULL
 * when "value" is admissible (or on allocation failure). */
char *
sym_symbol_explain(const sym_symbol *sym, int64_t value)
{
	const sym_symbol_info *in;
	char rule[160];
	const sym_loc *at;

	if (!sym || sym_symbol_admits(sym, value))
		return NULL;
	in = &sym->info;
	if (value < in->min)
		snprintf(rule, sizeof(rule), "min=%lld", (long long)in->min);
	else if (in->max && value > in->max)
		snprintf(rule, sizeof(rule), "max=%lld", (long long)in->max);
	else if (in->remainder == 0)
		snprintf(rule, sizeof(rule), "divisor=%lld",
		    (long long)in->divisor);
	else
		snprintf(rule, sizeof(rule),
		    "divisor=%lld remainder=%lld (values are %lld*N + %lld "
		    "with N >= 1)",
		    (long long)in->divisor, (long long)in->remainder,
		    (long long)in->divisor, (long long)in->remainder);
	at = &sym->origin->loc;
	if (at->file)
		return sym__asprintf_ctx(sym->ctx,
		    "%s = %lld violates %s declared at %s:%d:%d", sym->name,
		    (long long)value, rule, at->file, at->line, at->col);
	return sym__asprintf_ctx(sym->ctx, "%s = %lld violates %s", sym->name,
	    (long long)value, rule);
}

/* Return the number of symbols (and instances) of "ctx". */
size_t
sym_ctx_n_symbols(const sym_ctx *ctx)
{
	return ctx ? ctx->n_sym : 0;
}

/* Return symbol number "i" of "ctx" in declaration order, or NULL. */
sym_symbol *
sym_ctx_symbol(const sym_ctx *ctx, size_t i)
{
	return ctx && i < ctx->n_sym ? ctx->sym[i] : NULL;
}
