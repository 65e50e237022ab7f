#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Development tool, not run by make check: prints the expected values of
# tests/test_kernels_index.c, computed by PyTorch (Debian's python3-torch)
# on the inputs that test defines. Paste its output over the block of
# expectations there when the cases change, and read the diff.
import torch

X = [3, -1, 0, 2, 5, 5, -2, 1, 0, 0, 4, -3,
     1.5, 2, -0.5, 7, 2, 2, 0, -1, 6, -4, 3, 1]


def x3():
    return torch.tensor(X, dtype=torch.float64).reshape(2, 3, 4)


def emit(name, t):
    v = t.detach().double().reshape(-1).tolist()
    body = ", ".join(repr(float(a)) for a in v)
    print("static const double %s[] = { %s };" % (name, body))


def cumsum(x, axis, reverse=False, exclusive=False):
    if reverse:
        x = x.flip(axis)
    y = x.cumsum(axis)
    if exclusive:
        y = y - x
    return y.flip(axis) if reverse else y


x = x3()
emit("want_min_1", x.amin(dim=1))
emit("want_min_02k", x.amin(dim=(0, 2), keepdim=True))
emit("want_prod_2", x.prod(dim=2))
emit("want_prod_all", x.prod())
emit("want_argmax_1", x.argmax(dim=1))
emit("want_argmin_2k", x.argmin(dim=2, keepdim=True))
emit("want_cumsum_1", cumsum(x, 1))
emit("want_cumsum_2r", cumsum(x, 2, reverse=True))
emit("want_cumsum_0re", cumsum(x, 0, reverse=True, exclusive=True))
emit("want_tril_0", x.tril())
emit("want_tril_m1", x.tril(-1))
emit("want_triu_1", x.triu(1))
emit("want_triu_m2", x.triu(-2))
s = torch.tensor([1, -2, 3.5], dtype=torch.float64).reshape(3, 1)
emit("want_expand", s.expand(2, 3, 4))
m = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.float64)
emit("want_tile", m.tile((2, 3)))
# pad [1, 0, -1, 2]: dim 0 one before, dim 1 cropped by one before and
# two after; torch's pad lists the last dimension first.
emit("want_pad", torch.nn.functional.pad(m, (-1, 2, 1, 0), value=9.0))
# gradients: reduce_prod with none, one and two zeros in a group; amin
# with ties, routed as PyTorch's amin does.
g = torch.tensor([[2, 3, 4], [0, 5, 6], [0, 7, 0], [1, 0.5, -2]],
                 dtype=torch.float64, requires_grad=True)
dy = torch.tensor([1.5, -2, 3, 0.25], dtype=torch.float64)
(g.prod(dim=1) * dy).sum().backward()
emit("want_prod_grad", g.grad)
h = torch.tensor([[1, 1, 2], [3, -1, -1], [0, 0, 0], [4, 5, 6]],
                 dtype=torch.float64, requires_grad=True)
(h.amin(dim=1) * dy).sum().backward()
emit("want_min_grad", h.grad)
# integers (i32): XI is X with the halves rounded toward zero
XI = [int(a) for a in X]
xi = torch.tensor(XI, dtype=torch.int32).reshape(2, 3, 4)
emit("want_i_min_1", xi.amin(dim=1))
emit("want_i_prod_2", xi.prod(dim=2))
emit("want_i_argmax_1", xi.argmax(dim=1))
emit("want_i_cumsum_1", cumsum(xi, 1))
emit("want_i_tril_m1", xi.tril(-1))
