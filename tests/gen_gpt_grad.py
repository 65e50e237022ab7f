#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Development tool, not run by make check: write tests/data/gpt_grad.safetensors,
# the PyTorch oracle for examples/gpt.sg. The model below has gpt.sg's
# parameter names and layouts (matmul(x, w) with w [in, out], the tied
# output projection x @ wte^T, erf gelu, layer norm epsilon 1e-5, the
# causal mask -1e9 above the diagonal added after the product is scaled,
# softmax_cross_entropy's mean over the labels that are not -100). One
# batch of b = 8 rows of s = 24 bytes (gpt.sg's symbols are multiples of
# 8) with rows of unequal lengths padded by 0 and labelled -100. Written:
# every param (name), ids, labels, loss, every param's gradient
# ("grad.NAME"), all in float32 (ids and labels int32); forward and
# backward are computed in float64 from the float32 weights, then rounded.
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import st_write  # noqa: E402

torch.manual_seed(25)
B, S, D, H, HD, F, V, P = 8, 24, 64, 4, 16, 256, 256, 512

names = ["wte", "wpe"]
shapes = {"wte": [V, D], "wpe": [P, D]}
for i in range(2):
    for n, sh in [("ln%da_g", [D]), ("ln%da_b", [D]), ("wq%d", [D, D]),
                  ("wk%d", [D, D]), ("wv%d", [D, D]), ("wo%d", [D, D]),
                  ("ln%dm_g", [D]), ("ln%dm_b", [D]), ("w1_%d", [D, F]),
                  ("w2_%d", [F, D])]:
        names.append(n % i)
        shapes[n % i] = sh
names += ["lnf_g", "lnf_b", "scale"]
shapes.update({"lnf_g": [D], "lnf_b": [D], "scale": [1]})

params = {}
for n in names:
    sh = shapes[n]
    if n == "scale":
        t = torch.tensor([0.25])
    elif "_g" in n:
        t = 1 + 0.1 * torch.randn(sh)
    elif "_b" in n:
        t = 0.1 * torch.randn(sh)
    else:
        t = torch.randn(sh) * (0.3 / math.sqrt(sh[0]) if n[0] == "w" and
                               n not in ("wte", "wpe") else 0.1)
    params[n] = t.float().double().requires_grad_()

lens = [24, 17, 5, 11, 23, 1, 9, 14]
ids = torch.zeros(B, S, dtype=torch.int64)
labels = torch.full((B, S), -100, dtype=torch.int64)
for r, n in enumerate(lens):
    row = torch.randint(0, V, (n + 1,))
    ids[r, :n] = row[:n]
    labels[r, :n] = row[1:]
labels[3, 4] = -100


def forward(p):
    pos = torch.arange(S)
    mask = torch.triu(torch.full((S, S), -1e9, dtype=torch.float64), 1)
    x = p["wte"][ids] + p["wpe"][pos]
    for i in range(2):
        ln = torch.nn.functional.layer_norm
        h = ln(x, [D], p["ln%da_g" % i], p["ln%da_b" % i], 1e-5).reshape(-1, D)
        q = (h @ p["wq%d" % i]).reshape(B, S, H, HD).permute(0, 2, 1, 3)
        k = (h @ p["wk%d" % i]).reshape(B, S, H, HD).permute(0, 2, 3, 1)
        v = (h @ p["wv%d" % i]).reshape(B, S, H, HD).permute(0, 2, 1, 3)
        a = torch.softmax((q @ k) * p["scale"] + mask, dim=-1) @ v
        a = a.permute(0, 2, 1, 3).reshape(-1, D) @ p["wo%d" % i]
        r = x + a.reshape(B, S, D)
        m = ln(r, [D], p["ln%dm_g" % i], p["ln%dm_b" % i], 1e-5)
        g = torch.nn.functional.gelu(m.reshape(-1, D) @ p["w1_%d" % i])
        x = r + (g @ p["w2_%d" % i]).reshape(B, S, D)
    hf = torch.nn.functional.layer_norm(x, [D], p["lnf_g"], p["lnf_b"], 1e-5)
    logits = hf.reshape(-1, D) @ p["wte"].t()
    return torch.nn.functional.cross_entropy(logits, labels.reshape(-1),
                                             ignore_index=-100)


loss = forward(params)
loss.backward()

out = {}
for n in names:
    out[n] = params[n].detach().float()
out["ids"] = ids.int()
out["labels"] = labels.int()
out["loss"] = loss.detach().float().reshape(1)
for n in names:
    out["grad." + n] = params[n].grad.float()

path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/gpt_grad.safetensors"
size = st_write.write(path, out)
print("loss %.9g, %d tensors, %d bytes" % (loss.item(), len(out), size))
