#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Development tool, not run by make check: print the expected values of
# test_vocab_parallel in tests/test_kernels_loss.c, computed by PyTorch in
# double: logits x[i] = 3 sin(0.7 i + 0.2) (row-major, [16, 16]), the
# labels below with ignore_index=-1 (labels on the edges of the blocks of
# 2 and of 4 classes, ignored rows), the mean over the rows that count,
# the per-row losses and the gradient of the mean (dloss 1).
import math
import torch

lab = [1, 2, -1, 15, 0, 3, 4, 7, -1, 8, 12, 11, 5, -1, 14, 9]
x = torch.tensor([3 * math.sin(0.7 * i + 0.2) for i in range(256)],
                 dtype=torch.float64).reshape(16, 16).requires_grad_()
y = torch.tensor(lab)
loss = torch.nn.functional.cross_entropy(x, y, ignore_index=-1)
loss.backward()
rows = torch.nn.functional.cross_entropy(x.detach(), y, ignore_index=-1,
                                         reduction="none")
print("/* SPDX-License-Identifier: MIT */")
print("/* Made by tests/gen_sce_vocab.py (PyTorch %s); do not edit. */"
      % torch.__version__.split("a")[0])
print("static const double vp_mean = %.17g;" % loss.item())
print("static const double vp_rows[16] = {")
print(",\n".join("\t%.17g" % v for v in rows.tolist()))
print("};")
print("static const double vp_grad[256] = {")
print(",\n".join("\t%.17g" % v for v in x.grad.reshape(-1).tolist()))
print("};")
