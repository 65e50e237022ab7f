#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Development tool, not run by make check: print the expected values of
# test_sharded_count in tests/test_kernels_loss.c, computed by PyTorch in
# double: logits x[i] = 2 sin(1.3 i + 0.5) (row-major, [16, 4]), the
# labels below with ignore_index=-1, the mean over the rows that count
# and its gradient (dloss 1).
import math
import torch

lab = [2, -1, -1, -1, 0, 3, -1, 1, -1, -1, 3, 0, 1, -1, 2, 2]
x = torch.tensor([2 * math.sin(1.3 * i + 0.5) for i in range(64)],
                 dtype=torch.float64).reshape(16, 4).requires_grad_()
y = torch.tensor(lab)
loss = torch.nn.functional.cross_entropy(x, y, ignore_index=-1)
loss.backward()
print("/* SPDX-License-Identifier: MIT */")
print("/* Made by tests/gen_sce_count.py (PyTorch %s); do not edit. */"
      % torch.__version__.split("a")[0])
print("static const double sc_mean = %.17g;" % loss.item())
print("static const double sc_grad[64] = {")
print(",\n".join("\t%.17g" % v for v in x.grad.reshape(-1).tolist()))
print("};")
