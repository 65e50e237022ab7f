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
  gpt_torch.py --ranks 2 --steps FILE [--symshard FILE]
      the same steps data parallel on two processes: DistributedDataParallel
      with gloo on 127.0.0.1, one thread each, rank r taking rows
      [r * b / 2, (r + 1) * b / 2) of every batch (b is a multiple of 8),
      as symshard's two MPI ranks do. The loss is the global mean over the
      real tokens of the whole batch (each rank's sum over its real
      tokens, scaled so that DDP's average of the gradients is the
      gradient of that mean), so both sides compute the same thing. Each
      window starts at a barrier; its time is the slowest process's.
      Compared with the "trainer" line of ranks 2: {"bench":
      "gpt_ddp_vs_torch", ..., "ratio", "goal": 1.3, "goal_met"}.
  gpt_torch.py --steps FILE --symshard FILE --pad-steps FILE2
               --pad-symshard FILE2
      also the steps of a --pad-to-max run (every batch at s = 512) the
      same way, then {"bench": "gpt_buckets_vs_pad", ...}: each side's
      real tokens per second in buckets over padded ("speedup"), the
      padding of each run's timed steps, and "goal_met": symshard's
      speed-up at least PyTorch's.
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
import socket
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
GOAL_DDP = 1.3


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


def train_step(m, opt, b, n, tokens, rank=0, ranks=1):
    """One AdamW step on a random batch of b rows of n bytes whose first
    tokens (flattened) are real, the rest pads; on ranks > 1, this
    rank's rows of it, the loss the mean over the whole batch's real
    tokens (DDP averages the ranks' gradients, hence the factor ranks)."""
    rows = b // ranks
    ids = torch.randint(0, V, (rows, n))
    lab = torch.randint(0, V, (rows, n))
    flat = lab.view(-1)
    real = min(max(tokens - rank * rows * n, 0), rows * n)
    if real < rows * n:
        flat[real:] = -100
    logits = m(ids).view(-1, V)
    if ranks == 1:
        loss = torch.nn.functional.cross_entropy(logits, flat,
                                                 ignore_index=-100)
    else:
        loss = torch.nn.functional.cross_entropy(
            logits, flat, ignore_index=-100, reduction="sum") * (
                ranks / max(tokens, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()


def median(v):
    """The median of the list v."""
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] +
                                              v[len(v) // 2]) / 2


def run_windows(steps, rank=0, ranks=1):
    """Train on the steps (warm-up untimed, then window by window) as
    rank of ranks; return each window's (seconds, real tokens), the
    seconds the slowest process's."""
    torch.manual_seed(0)
    m = GPT()
    model = m
    if ranks > 1:
        model = torch.nn.parallel.DistributedDataParallel(m)
    opt = torch.optim.AdamW(m.parameters(), lr=0.003, weight_decay=0)
    torch.manual_seed(1 + rank)
    for st in steps:
        if st["window"] < 0:
            train_step(model, opt, st["b"], st["s"], st["tokens"], rank,
                       ranks)
    nw = max([st["window"] for st in steps] + [-1]) + 1
    seconds, real = [], []
    for w in range(nw):
        mine = [st for st in steps if st["window"] == w]
        if ranks > 1:
            torch.distributed.barrier()
        t0 = time.perf_counter()
        for st in mine:
            train_step(model, opt, st["b"], st["s"], st["tokens"], rank,
                       ranks)
        seconds.append(time.perf_counter() - t0)
        real.append(sum(st["tokens"] for st in mine))
    if ranks > 1:
        top = torch.tensor(seconds, dtype=torch.float64)
        torch.distributed.all_reduce(top, op=torch.distributed.ReduceOp.MAX)
        seconds = top.tolist()
    return list(zip(seconds, real))


def ddp_process(rank, ranks, init, steps, result):
    """One process of the data-parallel run: rank of ranks, gloo at
    init; rank 0 puts the windows in result."""
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
    torch.distributed.init_process_group("gloo", init_method=init,
                                         rank=rank, world_size=ranks)
    out = run_windows(steps, rank, ranks)
    torch.distributed.destroy_process_group()
    if rank == 0:
        result.put(out)


def free_port():
    """Return a TCP port free on 127.0.0.1."""
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        return sk.getsockname()[1]


def windows(steps_file, symshard_file, ranks):
    """Run the steps of steps_file window by window on ranks processes
    and print the result, compared with symshard_file's trainer line of
    as many ranks when given. Return (PyTorch's real tokens/s,
    symshard's or None, the padding of the timed steps)."""
    steps = [json.loads(line) for line in open(steps_file) if line.strip()]
    if ranks == 1:
        out = run_windows(steps)
    else:
        import torch.multiprocessing as mp
        for st in steps:
            if st["b"] % ranks:
                print("# gpt_torch: b=%d is not a multiple of %d ranks" %
                      (st["b"], ranks), file=sys.stderr)
                sys.exit(2)
        # gloo on the loopback interface only
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"
        init = "tcp://127.0.0.1:%d" % free_port()
        ctx = mp.get_context("spawn")
        result = ctx.SimpleQueue()
        mp.start_processes(ddp_process, args=(ranks, init, steps, result),
                           nprocs=ranks, join=True, start_method="spawn")
        out = result.get()
    rates = [r / t for t, r in out]
    rate = median(rates)
    timed = [st for st in steps if st["window"] >= 0]
    computed = sum(st["b"] * st["s"] for st in timed)
    padding = 1 - sum(st["tokens"] for st in timed) / max(computed, 1)
    print(json.dumps({"bench": "gpt_torch", "torch": torch.__version__,
                      "backend": "single" if ranks == 1 else "ddp_gloo",
                      "ranks": ranks, "threads_per_process": 1,
                      "windows": len(out),
                      "steps": len([s for s in steps if s["window"] >= 0]),
                      "tokens_per_s_windows": [round(r) for r in rates],
                      "tokens": sum(r for _, r in out),
                      "padding": round(padding, 4),
                      "seconds": round(sum(t for t, _ in out), 3),
                      "tokens_per_s": round(rate)}))
    if not symshard_file:
        return rate, None, padding
    ours = None
    for line in open(symshard_file):
        if line.startswith("{"):
            o = json.loads(line)
            if o.get("bench") == "trainer" and "tokens_per_s" in o and \
                    o.get("ranks") == ranks:
                ours = o
    if ours is None:
        print("# gpt_torch: no trainer line of %d ranks with tokens_per_s "
              "in %s" % (ranks, symshard_file))
        return rate, None, padding
    ratio = ours["tokens_per_s"] / rate
    goal = GOAL if ranks == 1 else GOAL_DDP
    print(json.dumps({"bench": "gpt_vs_torch" if ranks == 1 else
                      "gpt_ddp_vs_torch", "ranks": ours["ranks"],
                      "tokens_per_batch": ours.get("tokens_per_batch"),
                      "pad_to_max": ours.get("pad_to_max", False),
                      "symshard_tokens_per_s": ours["tokens_per_s"],
                      "torch_tokens_per_s": round(rate),
                      "ratio": round(ratio, 3), "goal": goal,
                      "goal_met": ratio >= goal}))
    sys.stdout.flush()
    return rate, ours["tokens_per_s"], padding


def buckets_vs_pad(bucket, pad):
    """Print the speed-ups of buckets over padding to the max, each
    side's, from the (torch, symshard, padding) of the two runs."""
    if bucket[1] is None or pad[1] is None:
        print("# gpt_torch: no symshard figures for buckets against "
              "--pad-to-max")
        return
    ours = bucket[1] / pad[1]
    theirs = bucket[0] / pad[0]
    print(json.dumps({"bench": "gpt_buckets_vs_pad",
                      "padding_buckets": round(bucket[2], 4),
                      "padding_pad_to_max": round(pad[2], 4),
                      "symshard_tokens_per_s_buckets": bucket[1],
                      "symshard_tokens_per_s_pad": pad[1],
                      "torch_tokens_per_s_buckets": round(bucket[0]),
                      "torch_tokens_per_s_pad": round(pad[0]),
                      "symshard_speedup": round(ours, 3),
                      "torch_speedup": round(theirs, 3),
                      "goal": "symshard_speedup >= torch_speedup",
                      "goal_met": ours >= theirs}))


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
    steps_file = symshard_file = pad_steps = pad_symshard = None
    ranks = 1
    i = 1
    while i + 1 < len(argv):
        if argv[i] == "--steps":
            steps_file = argv[i + 1]
        elif argv[i] == "--symshard":
            symshard_file = argv[i + 1]
        elif argv[i] == "--pad-steps":
            pad_steps = argv[i + 1]
        elif argv[i] == "--pad-symshard":
            pad_symshard = argv[i + 1]
        elif argv[i] == "--ranks" and argv[i + 1] in ("1", "2"):
            ranks = int(argv[i + 1])
        else:
            break
        i += 2
    if i != len(argv) or not steps_file or \
            (pad_steps and (ranks != 1 or not symshard_file or
                            not pad_symshard)):
        print("usage: gpt_torch.py [--ranks 1|2] --steps FILE "
              "[--symshard FILE] [--pad-steps FILE --pad-symshard FILE] | "
              "gpt_torch.py STEPS.json", file=sys.stderr)
        return 2
    bucket = windows(steps_file, symshard_file, ranks)
    if pad_steps:
        buckets_vs_pad(bucket, windows(pad_steps, pad_symshard, 1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
