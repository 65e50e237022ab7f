#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Export real models to ONNX with dynamic axes and report, for each, what
shape-check's import and ONNX's own shape inference derive.

Development tool (needs Debian's python3-torch, python3-torchvision and
python3-onnx); make check never runs it.

Full size (the default): torchvision's resnet18, resnet50, mobilenet_v2,
squeezenet1_0 (224x224 images, dynamic batch) and vit_b_16 (224x224 is
fixed by its position embedding; dynamic batch), the GPT-style decoder
of tools/onnx/export_gpt.py (12 blocks of width 768, dynamic batch and
sequence) and an encoder-decoder transformer of torch.nn modules
(nn.Transformer with token embeddings and a causal target mask; dynamic
batch, source and target lengths). Weights are random: the figures are
about shapes.

--tiny writes the small fixtures of tests/onnx/ instead: the same graph
structures at tiny widths (mobilenet_v2 at width 0.25 on 32x32 images,
a squeezenet1_0 of small Fire modules, a ViT of image 32, patch 8,
width 16, one encoder and one decoder layer of width 16), each with
PyTorch's inputs and outputs at two sizes (NAME.SIZE.in.safetensors,
NAME.SIZE.out.safetensors), the oracle of tests/check-onnx-models.sh.

Usage: tools/onnx/export_models.py [--tiny] [--out DIR]
           [--shape-check PROGRAM] [--reuse] [MODEL ...]

--reuse reports on the full-size models already exported to DIR.

For each model it prints one line:
  NAME: N nodes, V values; shape-check: S symbolic dims, L lost;
  onnx (data_prop): U fresh unk__ dims, W values without a shape
"""
import argparse
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import st_write  # noqa: E402


class EncDec(nn.Module):
    """An encoder-decoder transformer: source and target token
    embeddings plus learned positions, nn.Transformer (batch first) with
    a causal target mask, and a head over the target vocabulary."""

    def __init__(self, vocab, d, heads, layers, ff, max_len=512):
        super().__init__()
        self.src = nn.Embedding(vocab, d)
        self.tgt = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.tr = nn.Transformer(d, heads, layers, layers, ff, dropout=0.0,
                                 batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, src, tgt):
        s, t = src.shape[1], tgt.shape[1]
        ps = torch.arange(s, device=src.device).unsqueeze(0)
        pt = torch.arange(t, device=tgt.device).unsqueeze(0)
        mask = torch.triu(torch.full((t, t), float("-inf"),
                                     device=tgt.device), diagonal=1)
        y = self.tr(self.src(src) + self.pos(ps), self.tgt(tgt) + self.pos(pt),
                    tgt_mask=mask)
        return self.head(y)


def image_model(name, tiny):
    """A torchvision image classifier and its image side."""
    import torchvision.models as tvm
    from torchvision.models.squeezenet import Fire

    if not tiny:
        side = 224
        return getattr(tvm, name)(), side
    if name == "mobilenet_v2":
        from torchvision.ops.misc import Conv2dNormActivation
        m = tvm.mobilenet_v2(width_mult=0.25, num_classes=10,
                             inverted_residual_setting=[
                                 [1, 16, 1, 1], [6, 24, 2, 2],
                                 [6, 32, 1, 2]])
        # Its last 1x1 convolution (to 1280 channels whatever the width)
        # and head at 64 channels.
        cin = m.features[-1][0].in_channels
        m.features[-1] = Conv2dNormActivation(
            cin, 64, kernel_size=1, norm_layer=nn.BatchNorm2d,
            activation_layer=nn.ReLU6)
        m.classifier[1] = nn.Linear(64, 10)
        return m, 32
    if name == "squeezenet1_0":
        m = tvm.squeezenet1_0(num_classes=10)
        # The layers of squeezenet1_0 (7x7 stem of stride 2, ceil-mode
        # max pools, Fire modules) with fewer modules and channels.
        m.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=7, stride=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(8, 4, 8, 8), Fire(16, 4, 8, 8),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(16, 8, 16, 16))
        m.classifier = nn.Sequential(
            nn.Dropout(0.5), nn.Conv2d(32, 10, 1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((1, 1)))
        return m, 33
    if name == "vit_b_16":
        from torchvision.models.vision_transformer import VisionTransformer
        return VisionTransformer(image_size=32, patch_size=8, num_layers=1,
                                 num_heads=2, hidden_dim=16, mlp_dim=32,
                                 num_classes=10), 32
    raise SystemExit(f"{name}: no tiny variant")


IMAGE = ("resnet18", "resnet50", "mobilenet_v2", "squeezenet1_0",
         "vit_b_16")
FULL = IMAGE + ("gpt", "encdec")
TINY = ("mobilenet_v2", "squeezenet1_0", "vit_b_16", "encdec")
TINY_NAME = {"mobilenet_v2": "mobilenet_tiny",
             "squeezenet1_0": "squeezenet_tiny", "vit_b_16": "vit_tiny",
             "encdec": "encdec_tiny"}


def export(name, tiny, path):
    """Export model "name" to "path"; return (model, make_inputs) where
    make_inputs(size, generator) gives a dict of input tensors."""
    torch.manual_seed(0)
    if name in IMAGE:
        model, side = image_model(name, tiny)
        model.eval()
        names, axes = ["x"], {"x": {0: "batch"}, "logits": {0: "batch"}}

        def make(g, b):
            return {"x": torch.randn(b, 3, side, side, generator=g)}
    elif name == "gpt":
        from export_gpt import GPT
        model = GPT(50257, 768, 12, 12, 1024).eval()
        names = ["ids"]
        axes = {"ids": {0: "batch", 1: "seq"},
                "logits": {0: "batch", 1: "seq"}}

        def make(g, b):
            return {"ids": torch.randint(0, 50257, (b, 7), generator=g)}
    else:
        vocab = 32 if tiny else 32000
        model = (EncDec(vocab, 16, 2, 1, 32, max_len=16) if tiny else
                 EncDec(vocab, 512, 8, 6, 2048)).eval()
        names = ["src", "tgt"]
        axes = {"src": {0: "batch", 1: "src_len"},
                "tgt": {0: "batch", 1: "tgt_len"},
                "logits": {0: "batch", 1: "tgt_len"}}

        def make(g, b, s=5, t=4):
            return {"src": torch.randint(0, vocab, (b, s), generator=g),
                    "tgt": torch.randint(0, vocab, (b, t), generator=g)}
    g = torch.Generator().manual_seed(7)
    args = make(g, 2)
    if tiny:
        # Weights off their initial values (torchvision's ViT starts its
        # head at zero, its norms at 1 and 0, which would make logits
        # that test nothing), and running statistics off 0 and 1: a few
        # passes in training.
        with torch.no_grad():
            for p in model.parameters():
                p.add_(torch.randn(p.shape, generator=g) * 0.2)
            model.train()
            for _ in range(3):
                model(*make(g, 4).values())
            model.eval()
    torch.onnx.export(model, tuple(args.values()), path, input_names=names,
                      output_names=["logits"], dynamic_axes=axes,
                      opset_version=14)
    return model, make


def onnx_figures(path):
    """Nodes, values, and of ONNX's shape inference with data propagation:
    fresh unk__ dimensions and values left without a shape."""
    import onnx
    from onnx import shape_inference

    m = shape_inference.infer_shapes(onnx.load(path), data_prop=True)
    known = {vi.name: vi for vi in list(m.graph.value_info) +
             list(m.graph.output) + list(m.graph.input)}
    values = set(v.name for v in m.graph.input)
    values.update(i.name for i in m.graph.initializer)
    fresh = noshape = 0
    for node in m.graph.node:
        for out in node.output:
            if not out:
                continue
            values.add(out)
            vi = known.get(out)
            if vi is None or not vi.type.tensor_type.HasField("shape"):
                noshape += 1
                continue
            for dim in vi.type.tensor_type.shape.dim:
                if dim.HasField("dim_param"):
                    fresh += dim.dim_param.startswith("unk__")
                elif not dim.HasField("dim_value"):
                    fresh += 1
    return len(m.graph.node), len(values), fresh, noshape


def shape_check(prog, path):
    """shape-check's import line: symbolic dims, lost and the time of the
    whole run (reading the weights included), or the error."""
    if not prog:
        return "shape-check not run"
    t0 = time.monotonic()
    r = subprocess.run([prog, path], capture_output=True, text=True)
    secs = time.monotonic() - t0
    for line in r.stdout.splitlines():
        if line.startswith("onnx:"):
            f = line.replace(",", "").split()
            sym = f[f.index("symbolic") - 1]
            lost = f[f.index("lost") - 1]
            return f"{sym} symbolic dims, {lost} lost in {secs:.2f} s"
    err = (r.stderr.strip().splitlines() or ["no import line"])[0]
    return "error: " + err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--out", default=".")
    ap.add_argument("--shape-check", metavar="PROGRAM")
    ap.add_argument("--reuse", action="store_true",
                    help="report on the full-size models already in --out")
    a = ap.parse_args()
    todo = a.models or (TINY if a.tiny else FULL)
    os.makedirs(a.out, exist_ok=True)
    for name in todo:
        base = os.path.join(a.out, TINY_NAME[name] if a.tiny else name)
        if not (a.reuse and not a.tiny and os.path.exists(base + ".onnx")):
            model, make = export(name, a.tiny, base + ".onnx")
        nodes, values, fresh, noshape = onnx_figures(base + ".onnx")
        print(f"{name}: {nodes} nodes, {values} values; shape-check: "
              f"{shape_check(a.shape_check, base + '.onnx')}; onnx "
              f"(data_prop): {fresh} fresh unk__ dims, {noshape} values "
              f"without a shape", flush=True)
        if not a.tiny:
            continue
        g = torch.Generator().manual_seed(1)
        sizes = ((3, 9, 6), (5, 4, 11)) if name == "encdec" else \
            ((2,), (5,))
        for sz in sizes:
            inputs = make(g, *sz)
            with torch.no_grad():
                logits = model(*inputs.values())
            tag = "b%d" % sz[0] if len(sz) == 1 else "b%ds%dt%d" % sz
            st_write.write(f"{base}.{tag}.in.safetensors", inputs)
            st_write.write(f"{base}.{tag}.out.safetensors",
                           {"logits": logits})
    return 0


if __name__ == "__main__":
    sys.exit(main())
