#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Export a small GPT-style decoder from torch.nn modules to ONNX with
dynamic axes batch and seq, and compare the symbolic dimensions that
ONNX's own shape inference (data propagation on) derives with those
shape-check derives.

Development tool (needs Debian's python3-torch and python3-onnx); make
check does not run it.

Usage: tools/onnx/export_gpt.py OUT.onnx [--layers N] [--width D]
           [--heads H] [--vocab V] [--compare SHAPE-CHECK]
           [--values BxS ...]

--values 3x17 writes OUT.b3s17.in.safetensors (the ids) and
OUT.b3s17.out.safetensors (the logits PyTorch computes) beside the model,
for shape-run --inputs and the values check of tests/check-onnx-run.sh.
"""
import argparse
import re
import subprocess
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import st_write  # noqa: E402


class Block(nn.Module):
    """A pre-norm decoder block: causal self-attention and a gelu MLP."""

    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        k = k.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        v = v.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        att = q @ k.transpose(-2, -1) / (d // self.h) ** 0.5
        mask = torch.tril(torch.ones(s, s, device=x.device)) == 0
        att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    """Token and learned position embeddings, blocks, a final norm and a
    head."""

    def __init__(self, vocab, d, h, layers, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList([Block(d, h) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        s = ids.shape[1]
        pos = torch.arange(s, device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def write_values(model, out, vocab, sizes):
    """For each "BxS" of "sizes", the ids and PyTorch's logits beside
    "out"."""
    g = torch.Generator().manual_seed(1)
    base = out[:-5] if out.endswith(".onnx") else out
    for bs in sizes:
        b, s = (int(v) for v in bs.split("x"))
        ids = torch.randint(0, vocab, (b, s), generator=g)
        with torch.no_grad():
            logits = model(ids)
        st_write.write(f"{base}.b{b}s{s}.in.safetensors", {"ids": ids})
        st_write.write(f"{base}.b{b}s{s}.out.safetensors",
                       {"logits": logits})


def onnx_counts(path):
    """Symbolic dimensions of ONNX's inference: (derived, fresh unk__,
    values without a shape)."""
    import onnx
    from onnx import shape_inference

    m = shape_inference.infer_shapes(onnx.load(path), data_prop=True)
    known = {vi.name: vi for vi in list(m.graph.value_info) +
             list(m.graph.output) + list(m.graph.input)}
    sym = fresh = noshape = 0
    for node in m.graph.node:
        for out in node.output:
            vi = known.get(out)
            if vi is None or not vi.type.tensor_type.HasField("shape"):
                noshape += 1
                continue
            for dim in vi.type.tensor_type.shape.dim:
                if dim.HasField("dim_param"):
                    sym += 1
                    fresh += dim.dim_param.startswith("unk__")
                elif not dim.HasField("dim_value"):
                    sym += 1
                    fresh += 1
    return sym, fresh, noshape, len(m.graph.node)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--compare", metavar="SHAPE-CHECK")
    ap.add_argument("--values", nargs="*", default=[], metavar="BxS")
    a = ap.parse_args()
    torch.manual_seed(0)
    model = GPT(a.vocab, a.width, a.heads, a.layers).eval()
    ids = torch.randint(0, a.vocab, (2, 7))
    torch.onnx.export(model, (ids,), a.out, input_names=["ids"],
                      output_names=["logits"], opset_version=14,
                      dynamic_axes={"ids": {0: "batch", 1: "seq"},
                                    "logits": {0: "batch", 1: "seq"}})
    write_values(model, a.out, a.vocab, a.values)
    sym, fresh, noshape, nodes = onnx_counts(a.out)
    print(f"onnx.shape_inference (data_prop): {nodes} nodes, {sym} "
          f"symbolic dimensions, {fresh} of them fresh (lost), {noshape} "
          f"values without a shape")
    if a.compare:
        r = subprocess.run([a.compare, a.out], capture_output=True,
                           text=True)
        line = next((l for l in r.stdout.splitlines()
                     if l.startswith("onnx:")), None)
        print("shape-check:", line or "(no import line)")
        errors = [l for l in (r.stdout + r.stderr).splitlines()
                  if "error:" in l]
        for e in errors[:20]:
            print("  ", e)
        if errors:
            print(f"shape-check: {len(errors)} errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
