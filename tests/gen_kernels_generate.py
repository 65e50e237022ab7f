#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Development tool, not run by make check: prints the expected values of
# tests/test_kernels_generate.c, computed by PyTorch (Debian's
# python3-torch) for the calls that test makes. Paste its output over the
# block of expectations there when the cases change, and read the diff.
import torch


def emit(name, t):
    v = t.detach().double().reshape(-1).tolist()
    body = ", ".join(repr(float(a)) for a in v)
    print("static const double %s[] = { %s };" % (name, body))


emit("want_arange_f32", torch.arange(0.5, 3.2, 0.3, dtype=torch.float32))
emit("want_arange_f64", torch.arange(-1.25, 2.0, 0.4, dtype=torch.float64))
emit("want_arange_neg", torch.arange(10, -7, -3, dtype=torch.int64))
emit("want_arange_i32", torch.arange(3, 40, 5, dtype=torch.int32))
emit("want_arange_s", torch.arange(1, 23, 2, dtype=torch.int64))
emit("want_full_bool", torch.full((2, 3), 2, dtype=torch.bool))
emit("want_full_f64", torch.full((2, 3), -0.1, dtype=torch.float64))
emit("want_full_f32", torch.full((2, 3), -0.1, dtype=torch.float32))
emit("want_full_i32", torch.full((2, 3), -7, dtype=torch.int32))
