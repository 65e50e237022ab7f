# SPDX-License-Identifier: MIT
"""The model of examples/gpt.sg in PyTorch eager, one thread, against
symshard's trainer on the same batch shapes (needs torch; make check
never runs it).

The model: byte embedding and learned positions (width 64), 2 pre-norm
blocks of causal self-attention (4 heads of 16, no biases) and a gelu
MLP (256), a final layer norm, the output projection tied to the
embedding; cross entropy with ignore_index -100 over the pads; AdamW
(lr 0.003, no weight decay). One thread (torch.set_num_threads(1),
OPENBLAS_NUM_THREADS=1).

Two ways to run it:

  gpt_torch.py --steps FILE [--symshard FILE]
      FILE (bench_trainer --steps-out) lists the steps symshard ran, each
      {"window": W, "b": .., "s": .., "tokens": ..}, W = -1 for the
      warm-up. The same steps are run here in the same order: the
      warm-up untimed, then each window timed; a window's real tokens
      per second are its real tokens over its wall time, the median
      window counts. With --symshard (bench_trainer's JSON lines) the
      "trainer" line's tokens_per_s is compared: {"bench":
      "gpt_vs_torch", ..., "ratio": symshard over PyTorch, "goal": 1.0,
      "goal_met": ...}.
  gpt_torch.py STEPS.json
      the step events of a shape-train --json run ("bindings", "tokens"),
      all timed together.

The batches are random bytes with the real tokens of each step as a
prefix of the flattened batch and the rest labelled -100: the work per
step is that of symshard's batch of the same shape.
"""
import json
import math
import os
import sys
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import torch  # noqa: E402

torch.set_num_threads(1)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:
    pass
torch.manual_seed(0)
D, H, F, L, V, MAXS = 64, 4, 256, 2, 256, 512
GOAL = 1.0


class Block(torch.nn.Module):
    """A pre-norm block: causal attention and a gelu MLP."""

    def __init__(s):
        super().__init__()
        s.ln1 = torch.nn.LayerNorm(D)
        s.q = torch.nn.Linear(D, D, bias=False)
        s.k = torch.nn.Linear(D, D, bias=False)
        s.v = torch.nn.Linear(D, D, bias=False)
        s.o = torch.nn.Linear(D, D, bias=False)
        s.ln2 = torch.nn.LayerNorm(D)
        s.f1 = torch.nn.Linear(D, F, bias=False)
        s.f2 = torch.nn.Linear(F, D, bias=False)

    def forward(s, x, mask):
        b, n, _ = x.shape
        h = s.ln1(x)
        q = s.q(h).view(b, n, H, D // H).transpose(1, 2)
        k = s.k(h).view(b, n, H, D // H).transpose(1, 2)
        v = s.v(h).view(b, n, H, D // H).transpose(1, 2)
        a = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(D // H)) + mask
        c = (a.softmax(-1) @ v).transpose(1, 2).reshape(b, n, D)
        r = x + s.o(c)
        return r + s.f2(torch.nn.functional.gelu(s.f1(s.ln2(r))))


class GPT(torch.nn.Module):
    """examples/gpt.sg's model."""

    def __init__(s):
        super().__init__()
        s.wte = torch.nn.Embedding(V, D)
        s.wpe = torch.nn.Embedding(MAXS, D)
        s.blocks = torch.nn.ModuleList([Block() for _ in range(L)])
        s.lnf = torch.nn.LayerNorm(D)

    def forward(s, ids):
        b, n = ids.shape
        x = s.wte(ids) + s.wpe(torch.arange(n))
        mask = torch.triu(torch.full((n, n), -1e9), 1)
        for blk in s.blocks:
            x = blk(x, mask)
        return s.lnf(x) @ s.wte.weight.t()


def train_step(m, opt, b, n, tokens):
    """One AdamW step on a random batch of b rows of n bytes whose first
    tokens (flattened) are real, the rest pads."""
    ids = torch.randint(0, V, (b, n))
    lab = torch.randint(0, V, (b, n))
    pad = b * n - tokens
    flat = lab.view(-1)
    if pad:
        flat[-pad:] = -100
    loss = torch.nn.functional.cross_entropy(m(ids).view(-1, V), flat,
                                             ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()


def median(v):
    """The median of the list v."""
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] +
                                              v[len(v) // 2]) / 2


def windows(steps_file, symshard_file):
    """Run the steps of steps_file window by window and print the
    result, compared with symshard_file's trainer line when given."""
    steps = [json.loads(line) for line in open(steps_file) if line.strip()]
    m = GPT()
    opt = torch.optim.AdamW(m.parameters(), lr=0.003, weight_decay=0)
    for st in steps:
        if st["window"] < 0:
            train_step(m, opt, st["b"], st["s"], st["tokens"])
    rates = []
    nw = max([st["window"] for st in steps] + [-1]) + 1
    total = 0
    seconds = 0.0
    for w in range(nw):
        mine = [st for st in steps if st["window"] == w]
        t0 = time.perf_counter()
        for st in mine:
            train_step(m, opt, st["b"], st["s"], st["tokens"])
        dt = time.perf_counter() - t0
        real = sum(st["tokens"] for st in mine)
        rates.append(real / dt)
        total += real
        seconds += dt
    rate = median(rates)
    print(json.dumps({"bench": "gpt_torch", "torch": torch.__version__,
                      "threads": torch.get_num_threads(),
                      "windows": nw,
                      "steps": len([s for s in steps if s["window"] >= 0]),
                      "tokens_per_s_windows": [round(r) for r in rates],
                      "tokens": total, "seconds": round(seconds, 3),
                      "tokens_per_s": round(rate)}))
    if not symshard_file:
        return
    ours = None
    for line in open(symshard_file):
        if line.startswith("{"):
            o = json.loads(line)
            if o.get("bench") == "trainer" and "tokens_per_s" in o:
                ours = o
    if ours is None:
        print("# gpt_torch: no trainer line with tokens_per_s in %s" %
              symshard_file)
        return
    ratio = ours["tokens_per_s"] / rate
    print(json.dumps({"bench": "gpt_vs_torch", "ranks": ours["ranks"],
                      "tokens_per_batch": ours.get("tokens_per_batch"),
                      "symshard_tokens_per_s": ours["tokens_per_s"],
                      "torch_tokens_per_s": round(rate),
                      "ratio": round(ratio, 3), "goal": GOAL,
                      "goal_met": ratio >= GOAL}))


def shape_train_run(path):
    """Time the step events of a shape-train --json run, all together."""
    steps = [json.loads(line) for line in open(path) if '"step"' in line]
    m = GPT()
    opt = torch.optim.AdamW(m.parameters(), lr=0.003, weight_decay=0)
    real = 0
    t0 = time.time()
    for st in steps:
        train_step(m, opt, st["bindings"]["b"], st["bindings"]["s"],
                   st["tokens"])
        real += st["tokens"]
    dt = time.time() - t0
    print("pytorch: %d steps, %d real tokens in %.2f s: %.0f real tokens/s"
          % (len(steps), real, dt, real / dt))


def main(argv):
    """Run as the command line argv says."""
    if len(argv) == 2 and not argv[1].startswith("--"):
        shape_train_run(argv[1])
        return 0
    steps_file = symshard_file = None
    i = 1
    while i + 1 < len(argv):
        if argv[i] == "--steps":
            steps_file = argv[i + 1]
        elif argv[i] == "--symshard":
            symshard_file = argv[i + 1]
        else:
            break
        i += 2
    if i != len(argv) or not steps_file:
        print("usage: gpt_torch.py --steps FILE [--symshard FILE] | "
              "gpt_torch.py STEPS.json", file=sys.stderr)
        return 2
    windows(steps_file, symshard_file)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
