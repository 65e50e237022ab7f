#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Development tool, not run by make check: print the expected values of
# tests/test_kernels_pool.c (the pooling cases) computed by PyTorch in
# double. Inputs are x[i] = 2 sin(1.3 i + 0.5) and dy[i] = cos(0.9 i) in
# row-major order, as the test builds them.
import math
import torch

F = torch.nn.functional


def seq(shape, f):
    n = 1
    for d in shape:
        n *= d
    return torch.tensor([f(i) for i in range(n)],
                        dtype=torch.float64).reshape(shape)


def xs(shape):
    return seq(shape, lambda i: 2 * math.sin(1.3 * i + 0.5))


def dys(shape):
    return seq(shape, lambda i: math.cos(0.9 * i))


def emit(name, t):
    v = t.reshape(-1).tolist()
    print("static const double %s[%d] = {" % (name, len(v)))
    for i in range(0, len(v), 3):
        print("\t" + " ".join("%.17g," % a for a in v[i:i + 3]))
    print("};")


CASES = [
    # name, op, x shape, kwargs
    ("max_a", "max", (2, 3, 7, 6),
     dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1),
          dilation=(1, 2), ceil_mode=True)),
    ("max_b", "max", (1, 2, 5, 5),
     dict(kernel_size=2, stride=2, ceil_mode=True)),
    ("avg_a", "avg", (2, 2, 7, 6),
     dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
          count_include_pad=True)),
    ("avg_b", "avg", (2, 2, 7, 6),
     dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
          count_include_pad=False)),
    ("avg_c", "avg", (1, 2, 5, 5),
     dict(kernel_size=2, stride=2, padding=1, ceil_mode=True)),
    ("glob", "global", (2, 3, 4, 5), {}),
]

for name, op, shape, kw in CASES:
    x = xs(shape).requires_grad_(True)
    if op == "max":
        y = F.max_pool2d(x, **kw)
    elif op == "avg":
        y = F.avg_pool2d(x, **kw)
    else:
        y = x.mean(dim=(2, 3), keepdim=True)
    dy = dys(tuple(y.shape))
    y.backward(dy)
    print("/* %s %s %s: output %s */" % (name, op, kw, list(y.shape)))
    emit(name + "_y", y.detach())
    emit(name + "_dx", x.grad)
