#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Train the LeNet-style network of bench/lenet_train.sg on Fashion-MNIST
with PyTorch on one thread, measured as bench/bench_conv measures
symshard's trainer, and compare the samples per second.

The network: x [b, 1, 28, 28] (pixels / 255), conv 1->6 5x5 + bias, relu,
conv 6->16 5x5 stride 2 + bias, relu, flatten 1600, linear 120, relu,
linear 84, relu, linear 10; softmax cross-entropy (mean); SGD with
momentum 0.9, lr 0.01. The data, batches and timing are those of
bench/torch_trainer.py (its loader; every epoch shuffled and cut into
batches of B, W warm-up steps, R windows of K steps, the median window).

Usage: torch_lenet.py [--dataset DIR] [--batch B] [--steps K]
                      [--warmup W] [--windows R] [--symshard FILE]
  FILE holds bench_conv's JSON lines: its "conv_trainer" line of the same
  batch is compared: ratio = symshard's samples per second over
  PyTorch's, goal >= 1.0.
"""
import argparse
import json
import os
import sys
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_trainer import load  # noqa: E402


def net():
    """Return the network of bench/lenet_train.sg."""
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 6, 5), torch.nn.ReLU(),
        torch.nn.Conv2d(6, 16, 5, stride=2), torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(1600, 120), torch.nn.ReLU(),
        torch.nn.Linear(120, 84), torch.nn.ReLU(),
        torch.nn.Linear(84, 10))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--windows", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--symshard")
    a = ap.parse_args()
    if a.steps == 0:
        a.steps = (60000 + a.batch - 1) // a.batch
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    x, y = load(a.dataset)
    torch.manual_seed(a.seed)
    model = net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    shuffle = torch.Generator().manual_seed(a.seed)
    n = x.shape[0]
    order, pos = None, n
    seconds, samples = [], []
    for i in range(a.warmup + a.windows * a.steps):
        k = i - a.warmup
        if k >= 0 and k % a.steps == 0:
            t0 = time.perf_counter()
            samples.append(0)
        if pos >= n:
            order, pos = torch.randperm(n, generator=shuffle), 0
        rows = order[pos:pos + a.batch]
        pos += rows.shape[0]
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x[rows]), y[rows])
        loss.backward()
        opt.step()
        if k >= 0:
            samples[-1] += rows.shape[0]
            if k % a.steps == a.steps - 1:
                seconds.append(time.perf_counter() - t0)
    rates = [s / t for s, t in zip(samples, seconds)]
    rate = sorted(rates)[len(rates) // 2]
    print(json.dumps({
        "bench": "torch_lenet", "b": a.batch, "threads": 1,
        "torch": torch.__version__, "warmup_steps": a.warmup,
        "steps": a.steps, "windows": a.windows,
        "samples_per_s_windows": [round(r) for r in rates],
        "samples_per_s": round(rate)}))
    if not a.symshard:
        return 0
    with open(a.symshard) as f:
        ours = [json.loads(line) for line in f if line.startswith("{")]
    ours = [d for d in ours if d.get("bench") == "conv_trainer" and
            d.get("b") == a.batch]
    if not ours:
        print("# no conv_trainer line at b = %d to compare" % a.batch)
        return 0
    d = ours[0]
    ratio = d["samples_per_s"] / rate
    print(json.dumps({
        "bench": "lenet_vs_torch", "b": a.batch, "single_threaded": True,
        "symshard_samples_per_s": d["samples_per_s"],
        "torch_samples_per_s": round(rate), "ratio": round(ratio, 3),
        "symshard_conv_share": d["conv_share"], "goal": 1.0,
        "goal_met": ratio >= 1.0}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
