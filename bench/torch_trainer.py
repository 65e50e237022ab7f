#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Train the network of examples/ffn_train.sg on Fashion-MNIST with
PyTorch, measured as bench/bench_trainer measures symshard's trainer, and
compare the samples per second.

The network: x [b, 1, 28, 28] (pixels / 255) flattened to 784, matmul with
w1 [784, 512], relu, w2 [512, 512], relu, w3 [512, 10] (no biases, He
uniform, He uniform and Xavier uniform), softmax cross-entropy (mean over
the global batch) against the labels; momentum SGD (lr 0.01, momentum
0.9: MindSpore's Momentum is PyTorch's SGD without dampening).

A run: every epoch shuffles the training split (torch.randperm) and cuts
it into global batches of B, the last shorter one included; W warm-up
steps are not timed, then R windows of K steps each are (default: 3 of
one epoch's worth, as bench_trainer), and the median window counts. A
step is all of it: the rows of the batch gathered from the dataset in
memory, forward, backward, the update. One thread per process
(torch.set_num_threads(1), one inter-op thread, OPENBLAS_NUM_THREADS=1).

 --ranks 1: one process.
 --ranks 2: DistributedDataParallel with the gloo backend on two
   processes started by torch.multiprocessing, talking over 127.0.0.1
   only; each process takes its half of every global batch (the rows
   symshard's data-parallel rank reads); DDP averages the gradients of
   the local means, which is the gradient of the global mean. The time
   is the slowest process's.

Usage: torch_trainer.py [--dataset DIR] [--batch B] [--steps K]
                        [--warmup W] [--windows R] [--ranks 1|2]
                        [--symshard FILE]
  FILE holds bench_trainer's JSON lines: its "trainer" line of the same
  number of ranks and batch is compared: ratio = symshard's samples per
  second over PyTorch's (above 1: symshard is faster), goal >= 1.0 on one
  rank and >= 1.3 on two.
"""
import argparse
import gzip
import json
import os
import socket
import sys
import time

# One thread per process: Debian's torch calls its BLAS (OpenBLAS, which
# starts its own threads) through the generic interface, so
# torch.set_num_threads alone does not reach it.
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import numpy  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

GOALS = {1: 1.0, 2: 1.3}


def read_idx(path):
    """Return the array of the IDX file path (plain or .gz)."""
    if not os.path.exists(path):
        path += ".gz"
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big")
            for i in range(ndim)]
    return numpy.frombuffer(data, numpy.uint8, offset=4 + 4 * ndim) \
        .reshape(dims)


def load(directory):
    """Return the training split of directory: images [N, 1, 28, 28] in
    [0, 1] and labels [N] (int64)."""
    img = read_idx(os.path.join(directory, "train-images-idx3-ubyte"))
    lab = read_idx(os.path.join(directory, "train-labels-idx1-ubyte"))
    x = torch.from_numpy(img.astype(numpy.float32) / 255.0)
    return x.reshape(-1, 1, img.shape[1], img.shape[2]), \
        torch.from_numpy(lab.astype(numpy.int64))


class Net(torch.nn.Module):
    """784-512-512-10 without biases, as examples/ffn_train.sg."""

    def __init__(self):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.empty(784, 512))
        self.w2 = torch.nn.Parameter(torch.empty(512, 512))
        self.w3 = torch.nn.Parameter(torch.empty(512, 10))
        for w in (self.w1, self.w2):
            bound = (6.0 / w.shape[0]) ** 0.5
            torch.nn.init.uniform_(w, -bound, bound)
        bound = (6.0 / (self.w3.shape[0] + self.w3.shape[1])) ** 0.5
        torch.nn.init.uniform_(self.w3, -bound, bound)

    def forward(self, x):
        h = torch.relu(x.reshape(-1, 784) @ self.w1)
        h = torch.relu(h @ self.w2)
        return h @ self.w3


def train(rank, ranks, a, result):
    """Train on process rank of ranks as a says; put (seconds, samples,
    mean loss of the last tenth) in result (rank 0)."""
    torch.set_num_threads(1)
    if ranks > 1:
        dist.init_process_group("gloo", init_method=a.init, rank=rank,
                                world_size=ranks)
    x, y = load(a.dataset)
    torch.manual_seed(a.seed)
    net = Net()
    model = net
    if ranks > 1:
        model = torch.nn.parallel.DistributedDataParallel(net)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    shuffle = torch.Generator().manual_seed(a.seed)
    n = x.shape[0]
    order, pos = None, n
    seconds, samples = [], []
    loss_sum = 0.0
    for i in range(a.warmup + a.windows * a.steps):
        k = i - a.warmup
        if k >= 0 and k % a.steps == 0:
            if ranks > 1:
                dist.barrier()
            t0 = time.perf_counter()
            samples.append(0)
            loss_sum = 0.0
        if pos >= n:
            order, pos = torch.randperm(n, generator=shuffle), 0
        rows = order[pos:pos + a.batch]
        pos += rows.shape[0]
        part = (rows.shape[0] + ranks - 1) // ranks
        mine = rows[rank * part:(rank + 1) * part]
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x[mine]), y[mine])
        loss.backward()
        opt.step()
        if k >= 0:
            samples[-1] += rows.shape[0]
            if k % a.steps >= a.steps - a.steps // 10:
                loss_sum += loss.item()
            if k % a.steps == a.steps - 1:
                seconds.append(time.perf_counter() - t0)
    if ranks > 1:
        both = torch.tensor(seconds, dtype=torch.float64)
        dist.all_reduce(both, op=dist.ReduceOp.MAX)
        seconds = both.tolist()
        mean = torch.tensor([loss_sum], dtype=torch.float64)
        dist.all_reduce(mean, op=dist.ReduceOp.SUM)
        loss_sum = mean.item() / ranks
        dist.destroy_process_group()
    if rank == 0:
        result.put((seconds, samples, loss_sum / max(1, a.steps // 10)))


def free_port():
    """Return a TCP port free on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ours(path, ranks, batch):
    """Return bench_trainer's "trainer" line of ranks and batch in path."""
    if not path:
        return None
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                d = json.loads(line)
                if d.get("bench") == "trainer" and \
                        d.get("ranks") == ranks and d.get("b") == batch:
                    return d
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--windows", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ranks", type=int, choices=(1, 2), default=1)
    ap.add_argument("--symshard")
    a = ap.parse_args()
    if a.steps == 0:
        a.steps = (60000 + a.batch - 1) // a.batch
    torch.set_num_interop_threads(1)
    if a.ranks == 1:
        import queue
        result = queue.Queue()
        train(0, 1, a, result)
    else:
        # gloo on the loopback interface only
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"
        a.init = "tcp://127.0.0.1:%d" % free_port()
        ctx = mp.get_context("spawn")
        result = ctx.SimpleQueue()
        mp.start_processes(train, args=(a.ranks, a, result),
                           nprocs=a.ranks, join=True, start_method="spawn")
    seconds, samples, loss = result.get()
    rates = [s / t for s, t in zip(samples, seconds)]
    # the median as bench_trainer takes it (nearest rank, the upper one
    # of an even count)
    rate = sorted(rates)[len(rates) // 2]
    print(json.dumps({
        "bench": "torch_trainer",
        "backend": "single" if a.ranks == 1 else "ddp_gloo",
        "ranks": a.ranks, "b": a.batch, "threads_per_process": 1,
        "torch": torch.__version__, "warmup_steps": a.warmup,
        "steps": a.steps, "windows": a.windows,
        "samples_per_s_windows": [round(r) for r in rates],
        "samples": sum(samples), "seconds": round(sum(seconds), 3),
        "samples_per_s": round(rate),
        "loss_last_tenth": round(loss, 4)}))
    d = ours(a.symshard, a.ranks, a.batch)
    if d is None:
        if a.symshard:
            print("# no symshard line of %d rank(s) at b = %d to compare"
                  % (a.ranks, a.batch))
        return 0
    if (d["steps"], d["warmup_steps"], d["windows"]) != \
            (a.steps, a.warmup, a.windows):
        print("# symshard ran %d x %d steps after %d, PyTorch %d x %d "
              "after %d: not compared"
              % (d["windows"], d["steps"], d["warmup_steps"], a.windows,
                 a.steps, a.warmup))
        return 1
    ratio = d["samples_per_s"] / rate
    print(json.dumps({
        "bench": "trainer_vs_torch", "ranks": a.ranks, "b": a.batch,
        "symshard": "mpi" if a.ranks > 1 else "threads",
        "torch": "DistributedDataParallel gloo" if a.ranks > 1
        else "one process",
        "single_threaded": True,
        "symshard_ompi_yield_when_idle": d.get("ompi_yield_when_idle"),
        "symshard_samples_per_s": d["samples_per_s"],
        "torch_samples_per_s": round(rate),
        "ratio": round(ratio, 3), "goal": GOALS[a.ranks],
        "goal_met": ratio >= GOALS[a.ranks]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
