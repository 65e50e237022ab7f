#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tokenise tests/onnx/corpus.txt into corpus32.safetensors, the token
corpus (shape-train --dataset tokens:FILE, sym_dataset(3)) on which
tests/check-onnx-train.sh fine-tunes gpt_tiny.onnx, whose vocabulary
has 32 ids: records are the text between lines holding only "%" (as
text:FILE cuts them), each character one token: a-z are 1 to 26 (upper
case as lower), space 27, "." 28, "," 29, a newline 30, anything else
31. The file holds "tokens" (int32 [T]) and "offsets" (int64 [N+1]).

Development tool (Python's standard library only); make check reads what
it wrote and never runs it.

Usage: tests/onnx/gen_corpus.py [CORPUS.txt [OUT.safetensors]]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import st_write  # noqa: E402


def token(ch):
    """The id of character "ch" (see the top of the file)."""
    if "a" <= ch.lower() <= "z":
        return ord(ch.lower()) - ord("a") + 1
    return {" ": 27, ".": 28, ",": 29, "\n": 30}.get(ch, 31)


def records(text):
    """The records of "text": the text between lines holding only "%",
    each with its lines' newlines."""
    out, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.rstrip("\n") == "%":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(line)
    if cur:
        out.append("".join(cur))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(here, "corpus.txt")
    out = sys.argv[2] if len(sys.argv) > 2 else \
        os.path.join(here, "corpus32.safetensors")
    with open(src, encoding="utf-8") as f:
        recs = records(f.read())
    tokens, offsets = [], [0]
    for r in recs:
        tokens.extend(token(c) for c in r)
        offsets.append(len(tokens))
    st_write.write(out, {"tokens": ("I32", tokens),
                         "offsets": ("I64", offsets)})
    print(f"{out}: {len(recs)} records, {len(tokens)} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
