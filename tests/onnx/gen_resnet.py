#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Export a small ResNet-style network from torch.nn modules to ONNX with
a dynamic batch axis, and write PyTorch's outputs at two batch sizes.

Development tool (needs Debian's python3-torch); make check reads what it
wrote and never runs it. The network has the structure of torchvision's
ResNet-18 at tiny widths: a 3x3 stem (Conv, BatchNormalization, Relu), a
MaxPool, two basic residual blocks (the second with a strided 1x1
projection on its shortcut), GlobalAveragePool, Flatten and a Gemm head,
on 1x28x28 images (the size of MNIST and Fashion-MNIST). The model is
exported in evaluation mode with training=PRESERVE and constant folding
off so that every BatchNormalization stays a node (PyTorch's eval export
would otherwise fold it into the Conv before it).

Usage: tests/onnx/gen_resnet.py [OUT-DIR]
Writes resnet_tiny.onnx and, for batch sizes 5 and 16,
resnet_tiny.bN.in.safetensors (the images, "x") and
resnet_tiny.bN.out.safetensors (PyTorch's logits, "logits"), and
resnet_tiny.shapes.txt: for every value of the model, its name and its
dimensions at those two batch sizes, as ONNX's shape inference gives
them on copies of the model with the batch fixed (needs python3-onnx),
the oracle of tests/check-onnx-resnet.sh's symbolic dimensions, and
resnet_tiny.stats.safetensors, the running statistics of its batch
norms, and resnet_tiny.b16.train.safetensors, PyTorch's logits in
training mode (batch statistics) on the images of batch 16, and
resnet_tiny.step1.safetensors, the running statistics after one forward
pass in training on the first 16 images of check-onnx-resnet.sh's IDX
files.
"""
import copy
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import st_write  # noqa: E402


class Block(nn.Module):
    """A basic residual block: conv-bn-relu-conv-bn, plus the input (or
    its strided 1x1 projection), relu."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False),
                nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        s = x if self.down is None else self.down(x)
        return torch.relu(y + s)


class ResNet(nn.Module):
    """Stem, max pooling, two blocks, global average pooling, head."""

    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = Block(8, 8, 1)
        self.layer2 = Block(8, 16, 2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.gap(x), 1))


def idx28_images(n):
    """The first "n" images of check-onnx-resnet.sh's idx28, [n, 1, 28,
    28], pixels / 255: a diagonal stripe pattern of the label on
    noise."""
    x = torch.zeros(n, 1, 28, 28)
    for s in range(n):
        label = (s * 7 + s // 5) % 10
        for r in range(28):
            for c in range(28):
                v = 200 if (r + c) % 10 == label else (s * 13 + r * 3 + c) % 40
                x[s, 0, r, c] = v
    return x / 255


def write_shapes(base, sizes):
    """Write base.shapes.txt: "NAME D,D,... D,D,..." for every value of
    base.onnx, its dimensions at each batch size of "sizes"."""
    import onnx
    from onnx import shape_inference

    per = []
    for b in sizes:
        m = onnx.load(base + ".onnx")
        for v in list(m.graph.input) + list(m.graph.output):
            d = v.type.tensor_type.shape.dim[0]
            d.ClearField("dim_param")
            d.dim_value = b
        m = shape_inference.infer_shapes(m, strict_mode=True)
        shapes = {}
        for v in (list(m.graph.input) + list(m.graph.value_info) +
                  list(m.graph.output)):
            dims = [d.dim_value for d in v.type.tensor_type.shape.dim]
            if any(x <= 0 for x in dims):
                raise SystemExit(f"{v.name}: no static shape at {b}")
            shapes[v.name] = ",".join(str(x) for x in dims)
        per.append(shapes)
    with open(base + ".shapes.txt", "w") as f:
        for name in sorted(per[0]):
            f.write(name + " " + " ".join(s[name] for s in per) + "\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(3)
    model = ResNet()
    # Scales and shifts that are not the defaults (1 and 0): equal
    # initializers would be merged by the exporter into one param behind
    # Identity nodes.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    # Running statistics that are not the defaults (0 and 1), so that a
    # wrong use of them shows in the values: a few batches in training.
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, 1, 28, 28) * 2 + 0.5)
    model.eval()
    base = os.path.join(out, "resnet_tiny")
    torch.onnx.export(
        model, torch.randn(2, 1, 28, 28), base + ".onnx",
        input_names=["x"], output_names=["logits"],
        dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=14, training=torch.onnx.TrainingMode.PRESERVE,
        do_constant_folding=False)
    st_write.write(base + ".stats.safetensors",
                   {k: v for k, v in model.state_dict().items()
                    if k.endswith(("running_mean", "running_var"))})
    g = torch.Generator().manual_seed(1)
    sizes = (5, 16)
    write_shapes(base, sizes)
    for b in sizes:
        x = torch.randn(b, 1, 28, 28, generator=g)
        with torch.no_grad():
            logits = model(x)
        st_write.write(f"{base}.b{b}.in.safetensors", {"x": x})
        st_write.write(f"{base}.b{b}.out.safetensors",
                       {"logits": logits})
    # The same model in training (batch statistics) on the images of
    # batch 16: its logits, for an import in training.
    trained = copy.deepcopy(model).train()
    with torch.no_grad():
        logits = trained(x)
    st_write.write(f"{base}.b{b}.train.safetensors", {"logits": logits})
    # The running statistics after one step in training on the first 16
    # images that tests/check-onnx-resnet.sh writes as IDX files (its
    # idx28, pixels / 255 as the MNIST reader gives them).
    trained = copy.deepcopy(model).train()
    with torch.no_grad():
        trained(idx28_images(16))
    st_write.write(base + ".step1.safetensors",
                   {k: v for k, v in trained.state_dict().items()
                    if k.endswith(("running_mean", "running_var"))})
    return 0


if __name__ == "__main__":
    sys.exit(main())
