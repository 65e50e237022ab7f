#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Time one training step of the tutorial network in PyTorch, as
bench/bench_train times it in symshard, and compare.

The network of examples/ffn_train.sg: x [b, 1, 28, 28] flattened to 784,
matmul with w1 [784, 512], relu, w2 [512, 512], relu, w3 [512, 10],
softmax cross-entropy (mean) against integer labels; momentum SGD (lr
0.01, momentum 0.9, MindSpore's formula is PyTorch's SGD without
dampening). One step = forward, backward, update, on inputs written once,
one thread (torch.set_num_threads(1)), float32, the median of repeated
steps after two warm-up steps.

Usage: torch_train.py [--steps N] [--symshard FILE]
  FILE holds bench_train's JSON lines; the "train_step" lines are compared
  with PyTorch at the same batch sizes: ratio = PyTorch's median step time
  over symshard's (above 1: symshard is faster), goal >= 1.0.
"""
import argparse
import json
import statistics
import time

import torch


def step_time(b, steps):
    torch.manual_seed(0)
    x = torch.rand(b, 1, 28, 28)
    y = torch.randint(0, 10, (b,), dtype=torch.int64)
    w1 = torch.empty(784, 512).uniform_(-0.08, 0.08).requires_grad_()
    w2 = torch.empty(512, 512).uniform_(-0.1, 0.1).requires_grad_()
    w3 = torch.empty(512, 10).uniform_(-0.1, 0.1).requires_grad_()
    opt = torch.optim.SGD([w1, w2, w3], lr=0.01, momentum=0.9)
    times = []
    for i in range(steps + 2):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=False)
        h = torch.relu(x.reshape(-1, 784) @ w1)
        h = torch.relu(h @ w2)
        loss = torch.nn.functional.cross_entropy(h @ w3, y)
        loss.backward()
        opt.step()
        t = time.perf_counter() - t0
        if i >= 2:
            times.append(t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--symshard")
    a = ap.parse_args()
    torch.set_num_threads(1)
    ours = {}
    if a.symshard:
        with open(a.symshard) as f:
            for line in f:
                if line.startswith("{"):
                    d = json.loads(line)
                    if d.get("bench") == "train_step":
                        ours[d["b"]] = d["ms_median"]
    for b in (64, 256, 1024):
        steps = a.steps if b < 1024 else max(3, a.steps // 3)
        t = step_time(b, steps)
        print(json.dumps({"bench": "torch_train_step", "b": b,
                          "steps": steps, "ms_median": round(1e3 * t, 3),
                          "samples_per_s": round(b / t)}))
        if b in ours:
            r = 1e3 * t / ours[b]
            print(json.dumps({"bench": "train_vs_torch", "b": b,
                              "symshard_ms": ours[b],
                              "torch_ms": round(1e3 * t, 3),
                              "ratio": round(r, 3), "goal": 1.0,
                              "goal_met": r >= 1.0}))


if __name__ == "__main__":
    main()
