#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Answer the prover benchmark's query mix with SymPy and time it.

Usage: sympy_mix.py [--min-time SECONDS] [--verbose] [--symshard FILE] MIX
  MIX         the output of `bench_prove --mix` (one JSON object a line),
              or - for standard input
  --symshard  the output of `bench_prove` in the same run: also print the
              "ratio_sympy" line comparing the two on the same mix
  --verbose   add every query's grade and answer to the output

The mix is answered the way a SymPy user would answer it:

- A symbol declared `divisor=d remainder=r` becomes d*N + r with N a SymPy
  symbol declared integer and positive (N >= 1, as in the declaration).
  A plain symbol is itself an integer, positive symbol. Lower bounds above
  d + r and upper bounds cannot be declared on a SymPy symbol: they are
  listed under "not_expressed" and are missing from divisibility and
  comparison queries (so SymPy can only give up on queries that need them,
  never answer them wrongly because of it).
- A fact `q == e` (q a symbol) is applied by substituting e for q; other
  facts are listed under "not_expressed".
- floordiv, ceildiv, mod, min, max are floor(a/b), ceiling(a/b), Mod(a, b),
  Min, Max.
- divisible(e, k): Mod(e, k) == 0, simplifying Mod(e, k) when it stays
  unevaluated; a non-zero constant remainder answers false.
- lhs OP rhs: simplify the difference, then ask is_zero / is_nonnegative /
  is_positive of it (None: SymPy gives up).
- bounds of e: with one free symbol, sympy.calculus.util.minimum/maximum
  over the interval of that symbol's N (upper bounds are expressible
  there); with several, substitute an AccumBounds interval for each N.
  Both ends must equal the exact bounds to count as correct.

Each answer is compared with the expected one: correct, wrong, or gave up
(None, unevaluated, or an exception). SymPy's `false` means "false for every
value" and it never gives a witness; it counts as correct for a query whose
expected answer is false.

The ratio line: "ratio" is SymPy's warm time per query over symshard's
default configuration (both tiers) on the whole mix, the goal being >= 100;
"ratio_cold" uses SymPy's cold time; "ratio_exact_only" symshard's exact
tier alone.

Timing: the expressions are built once, outside the timed region; each
query is timed with time.perf_counter. "warm": passes over the whole mix
repeated with SymPy's cache on (the cache then remembers most of the work:
the lowest, most favourable time for SymPy); "cold": sympy's cache cleared
(untimed) before every query. Prints one JSON object.
"""

import argparse
import json
import re
import sys
import time

try:
    import sympy
    from sympy import AccumBounds, Interval, Max, Min, Mod, ceiling, floor, oo
    from sympy.calculus.util import maximum, minimum
    from sympy.core.cache import clear_cache
except ImportError as exc:  # pragma: no cover - reported by run.sh
    print(json.dumps({"bench": "prove", "case": "sympy",
                      "error": "sympy is not available: %s" % exc}))
    sys.exit(3)

TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*'*)|(//|[-+*%(),]))")
WORDS = {"floordiv", "ceildiv", "mod", "min", "max"}
MUL_OPS = {"*", "floordiv", "ceildiv", "mod", "//", "%"}


class Parser:
    """Recursive-descent parser of symshard's expression syntax."""

    def __init__(self, text, names):
        self.toks = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = TOKEN.match(text, pos)
            if not m:
                raise ValueError("cannot parse %r at %d" % (text, pos))
            self.toks.append(m.group(1) or m.group(2) or m.group(3))
            pos = m.end()
        self.i = 0
        self.names = names

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want=None):
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise ValueError("expected %r, got %r" % (want, tok))
        self.i += 1
        return tok

    def parse(self):
        e = self.expr()
        if self.peek() is not None:
            raise ValueError("trailing %r" % self.peek())
        return e

    def expr(self):
        e = self.term()
        while self.peek() in ("+", "-"):
            e = e + self.term() if self.take() == "+" else e - self.term()
        return e

    def term(self):
        e = self.unary()
        while self.peek() in MUL_OPS:
            e = apply(self.take(), e, self.unary())
        return e

    def unary(self):
        if self.peek() in ("-", "+"):
            return -self.unary() if self.take() == "-" else self.unary()
        return self.primary()

    def primary(self):
        tok = self.take()
        if tok.isdigit():
            return sympy.Integer(int(tok))
        if tok == "(":
            e = self.expr()
            self.take(")")
            return e
        if tok in WORDS:
            self.take("(")
            args = [self.expr()]
            while self.peek() == ",":
                self.take()
                args.append(self.expr())
            self.take(")")
            if tok in ("min", "max"):
                return (Min if tok == "min" else Max)(*args)
            return apply(tok, *args)
        if tok in self.names:
            return self.names[tok]
        raise ValueError("unknown name %r" % tok)


def apply(op, a, b):
    """Return the SymPy form of a OP b for a multiplicative operator."""
    if op == "*":
        return a * b
    if op in ("floordiv", "//"):
        return floor(a / b)
    if op == "ceildiv":
        return ceiling(a / b)
    return Mod(a, b)


def declare(mix):
    """Return (names, domains, not_expressed) for the symbols and facts."""
    names, domains, missing = {}, {}, []
    for d in (m for m in mix if m["mix"] == "symbol"):
        name, div, rem = d["name"], d["divisor"], d["remainder"]
        if div == 1 and rem == 0:
            var = sympy.Symbol(name, integer=True, positive=True)
            names[name] = var
        else:
            var = sympy.Symbol(name + "0", integer=True, positive=True)
            names[name] = div * var + rem
        # The interval of var implied by min and max.
        lo = max(1, -(-(d["min"] - rem) // div))
        hi = (d["max"] - rem) // div if d["max"] else oo
        domains[var] = (lo, hi)
        if lo > 1:
            missing.append("%s >= %d" % (name, d["min"]))
        if d["max"]:
            missing.append("%s <= %d" % (name, d["max"]))
    for f in (m for m in mix if m["mix"] == "fact"):
        if f["op"] == "==" and f["lhs"] in names and \
                names[f["lhs"]].is_Symbol:
            names[f["lhs"]] = Parser(f["rhs"], names).parse()
        else:
            missing.append("%s %s %s" % (f["lhs"], f["op"], f["rhs"]))
    return names, domains, missing


def truth(value):
    """Map SymPy's True/False/None (or a Boolean) to 'true'/'false'/None."""
    if value is True or value is sympy.true:
        return "true"
    if value is False or value is sympy.false:
        return "false"
    return None


def ask_divisible(e, k):
    """Return whether k divides e: 'true', 'false' or None (gave up)."""
    r = Mod(e, k)
    if r.free_symbols:
        r = sympy.simplify(r)
    if r == 0:
        return "true"
    if r.is_number or r.is_zero is False:
        return "false"
    return None


def ask_cmp(lhs, op, rhs):
    """Return whether lhs op rhs holds: 'true', 'false' or None."""
    if op in ("==", "!="):
        d = sympy.simplify(lhs - rhs)
        zero = "true" if d == 0 else truth(d.is_zero)
        if op == "==" or zero is None:
            return zero
        return "false" if zero == "true" else "true"
    d = sympy.simplify(rhs - lhs if op in ("<=", "<") else lhs - rhs)
    return truth(d.is_nonnegative if op in ("<=", ">=") else d.is_positive)


def ask_bounds(e, domains):
    """Return SymPy's (min, max) of e; (None, None) when it gives up."""
    free = sorted(e.free_symbols, key=str)
    if len(free) == 1:
        v = free[0]
        dom = Interval(*domains[v])
        return minimum(e, v, dom), maximum(e, v, dom)
    r = e.subs({v: AccumBounds(*domains[v]) for v in free})
    if isinstance(r, AccumBounds):
        return r.min, r.max
    if r.is_number:
        return r, r
    return None, None


def as_bound(text, infinite):
    """Return the expected bound text as SymPy (None: infinite)."""
    return infinite if text is None else sympy.Integer(int(text))


class Query:
    """One query of the mix, built once."""

    def __init__(self, q, names, domains):
        self.q = q
        self.lhs = Parser(q["lhs"], names).parse()
        if q["kind"] == "cmp":
            self.rhs = Parser(q["rhs"], names).parse()
        self.domains = domains

    def answer(self):
        """Return SymPy's answer: 'true', 'false', (min, max) or None."""
        q = self.q
        if q["kind"] == "divisible":
            return ask_divisible(self.lhs, q["k"])
        if q["kind"] == "cmp":
            return ask_cmp(self.lhs, q["op"], self.rhs)
        return ask_bounds(self.lhs, self.domains)

    def grade(self):
        """Return ('correct' | 'wrong' | 'gave_up', answer as text)."""
        try:
            a = self.answer()
        except Exception as exc:  # SymPy raising is giving up
            return "gave_up", "%s: %s" % (type(exc).__name__, exc)
        q = self.q
        if q["kind"] != "bounds":
            if a is None:
                return "gave_up", None
            return ("correct" if a == q["expect"] else "wrong"), a
        lo, hi = a
        text = "[%s, %s]" % (lo, hi)
        if lo is None or hi is None or not (lo.is_number and hi.is_number):
            return "gave_up", text
        ok = lo == as_bound(q["min"], -oo) and hi == as_bound(q["max"], oo)
        return ("correct" if ok else "wrong"), text


def time_pass(queries, cold):
    """Answer every query once; return the seconds spent in the queries."""
    total = 0.0
    for q in queries:
        if cold:
            clear_cache()
        t0 = time.perf_counter()
        try:
            q.answer()
        except Exception:
            pass
        total += time.perf_counter() - t0
    return total


def measure(queries, cold, min_time):
    """Return (median ns per query, passes) over passes of the mix taking
    at least min_time seconds in all, and at least 3 passes."""
    per = []
    while len(per) < 3 or sum(per) < min_time:
        per.append(time_pass(queries, cold))
    per.sort()
    return per[len(per) // 2] * 1e9 / len(queries), len(per)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mix")
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--symshard")
    args = ap.parse_args()
    src = sys.stdin if args.mix == "-" else open(args.mix)
    mix = [json.loads(line) for line in src if line.strip()]
    names, domains, missing = declare(mix)
    queries = [Query(q, names, domains) for q in mix if q["mix"] == "query"]

    counts = {"correct": 0, "wrong": 0, "gave_up": 0}
    details = []
    for q in queries:
        clear_cache()
        grade, ans = q.grade()
        counts[grade] += 1
        details.append({"id": q.q["id"], "kind": q.q["kind"],
                        "grade": grade, "answer": ans})
    warm_ns, warm_passes = measure(queries, False, args.min_time)
    cold_ns, cold_passes = measure(queries, True, args.min_time)
    out = {"bench": "prove", "case": "sympy", "sympy": sympy.__version__,
           "queries": len(queries), "ns_per_query": round(warm_ns, 1),
           "ns_per_query_cold": round(cold_ns, 1),
           "passes": [warm_passes, cold_passes]}
    out.update(counts)
    out["by_kind"] = {}
    for d in details:
        k = out["by_kind"].setdefault(d["kind"], {"correct": 0, "wrong": 0,
                                                  "gave_up": 0})
        k[d["grade"]] += 1
    out["not_expressed"] = missing
    if args.verbose:
        out["details"] = details
    print(json.dumps(out, separators=(",", ":")))
    if args.symshard:
        print(json.dumps(ratio(args.symshard, out), separators=(",", ":")))


def ratio(path, sym):
    """Return the ratio_sympy object from bench_prove's output in path and
    SymPy's result sym."""
    cases = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                obj = json.loads(line)
                cases[obj.get("case")] = obj
    ours = cases["default"]["ns_per_query"]
    exact = cases["exact"]["ns_per_query"]
    r = sym["ns_per_query"] / ours
    return {"bench": "prove", "case": "ratio_sympy",
            "queries": sym["queries"], "symshard_ns": ours,
            "sympy_ns": sym["ns_per_query"],
            "sympy_cold_ns": sym["ns_per_query_cold"],
            "ratio": round(r, 1),
            "ratio_cold": round(sym["ns_per_query_cold"] / ours, 1),
            "ratio_exact_only": round(sym["ns_per_query"] / exact, 1),
            "goal": 100, "goal_met": r >= 100,
            "symshard_answered": cases["default"]["true"] +
            cases["default"]["false"],
            # bench_prove exits with status 1 on a wrong answer.
            "symshard_wrong": 0,
            "sympy_correct": sym["correct"], "sympy_wrong": sym["wrong"],
            "sympy_gave_up": sym["gave_up"]}


if __name__ == "__main__":
    main()
