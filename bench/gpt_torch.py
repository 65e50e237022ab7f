# SPDX-License-Identifier: MIT
# The model of examples/gpt.sg in PyTorch eager, one thread, for the
# speed comparison of README.md (a development tool that needs torch;
# make check never runs it): trained with AdamW on the batch shapes (b, s)
# and real token counts of the step objects of a shape-train --json run,
# the pads at the end ignored by the loss; prints real tokens per second.
# Usage: python3 bench/gpt_torch.py STEPS.json
import json, sys, time, math
import torch
torch.set_num_threads(1)
torch.manual_seed(0)
D, H, F, L, V, MAXS = 64, 4, 256, 2, 256, 512
class Block(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.ln1 = torch.nn.LayerNorm(D); s.q = torch.nn.Linear(D, D, bias=False)
        s.k = torch.nn.Linear(D, D, bias=False); s.v = torch.nn.Linear(D, D, bias=False)
        s.o = torch.nn.Linear(D, D, bias=False); s.ln2 = torch.nn.LayerNorm(D)
        s.f1 = torch.nn.Linear(D, F, bias=False); s.f2 = torch.nn.Linear(F, D, bias=False)
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
    def __init__(s):
        super().__init__()
        s.wte = torch.nn.Embedding(V, D); s.wpe = torch.nn.Embedding(MAXS, D)
        s.blocks = torch.nn.ModuleList([Block() for _ in range(L)]); s.lnf = torch.nn.LayerNorm(D)
    def forward(s, ids):
        b, n = ids.shape
        x = s.wte(ids) + s.wpe(torch.arange(n))
        mask = torch.triu(torch.full((n, n), -1e9), 1)
        for blk in s.blocks: x = blk(x, mask)
        return s.lnf(x) @ s.wte.weight.t()
m = GPT(); opt = torch.optim.AdamW(m.parameters(), lr=0.003, weight_decay=0)
steps = [json.loads(l) for l in open(sys.argv[1]) if '"step"' in l]
real = 0; t0 = time.time()
for st in steps:
    b, n = st["bindings"]["b"], st["bindings"]["s"]
    ids = torch.randint(0, V, (b, n)); lab = torch.randint(0, V, (b, n))
    # pads: the real tokens as a prefix of rows
    pad = b * n - st["tokens"]; flat = lab.view(-1)
    if pad: flat[-pad:] = -100
    loss = torch.nn.functional.cross_entropy(m(ids).view(-1, V), flat, ignore_index=-100)
    opt.zero_grad(); loss.backward(); opt.step()
    real += st["tokens"]
dt = time.time() - t0
print("pytorch: %d steps, %d real tokens in %.2f s: %.0f real tokens/s" % (len(steps), real, dt, real / dt))
