#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Development tool, not run by make check: print tests/batch_norm_expect.h,
# the expected values of tests/test_kernels_batch_norm.c computed by
# PyTorch in double. x[i] = 2 sin(1.3 i + 0.5) + 0.3 c (c its channel),
# dy[i] = cos(0.9 i), gamma[c] = 1 + 0.25 c, beta[c] = 0.1 c - 0.2,
# running_mean[c] = 0.05 c, running_var[c] = 1 + 0.5 c, in row-major
# order, as the test builds them.
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
    c = shape[1]
    s = 1
    for d in shape[2:]:
        s *= d
    return seq(shape, lambda i: 2 * math.sin(1.3 * i + 0.5) +
               0.3 * ((i // s) % c))


def dys(shape):
    return seq(shape, lambda i: math.cos(0.9 * i))


def emit(name, t):
    v = t.reshape(-1).tolist()
    print("static const double %s[%d] = {" % (name, len(v)))
    for i in range(0, len(v), 3):
        print("\t" + " ".join("%.17g," % a for a in v[i:i + 3]))
    print("};")


# name, x shape, momentum, epsilon
CASES = [
    ("nchw", (3, 4, 5, 2), 0.1, 1e-5),
    ("nc", (6, 3), 0.3, 0.01),
]

print("/* Made by tests/gen_batch_norm.py with PyTorch %s; do not edit. */"
      % torch.__version__)
for name, shape, mom, eps in CASES:
    c = shape[1]
    x = xs(shape).requires_grad_(True)
    g = torch.tensor([1 + 0.25 * k for k in range(c)],
                     dtype=torch.float64, requires_grad=True)
    b = torch.tensor([0.1 * k - 0.2 for k in range(c)],
                     dtype=torch.float64, requires_grad=True)
    rm = torch.tensor([0.05 * k for k in range(c)], dtype=torch.float64)
    rv = torch.tensor([1 + 0.5 * k for k in range(c)], dtype=torch.float64)
    dy = dys(shape)
    # training mode: batch statistics, running ones updated
    y = F.batch_norm(x, rm, rv, g, b, training=True, momentum=mom, eps=eps)
    y.backward(dy)
    emit("%s_y_train" % name, y.detach())
    emit("%s_rm_next" % name, rm)
    emit("%s_rv_next" % name, rv)
    emit("%s_dx_train" % name, x.grad)
    emit("%s_dg_train" % name, g.grad)
    emit("%s_db_train" % name, b.grad)
    # evaluation mode, on the initial running statistics
    for t in (x, g, b):
        t.grad = None
    rm = torch.tensor([0.05 * k for k in range(c)], dtype=torch.float64)
    rv = torch.tensor([1 + 0.5 * k for k in range(c)], dtype=torch.float64)
    y = F.batch_norm(x, rm, rv, g, b, training=False, momentum=mom, eps=eps)
    y.backward(dy)
    emit("%s_y_eval" % name, y.detach())
    emit("%s_dx_eval" % name, x.grad)
    emit("%s_dg_eval" % name, g.grad)
