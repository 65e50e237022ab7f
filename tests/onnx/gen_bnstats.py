#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write bnstats.onnx: one BatchNormalization in training (opset 15,
momentum 0.9) whose outputs 1 and 2, the updated running statistics,
are graph outputs, with running statistics that are initializers, and
PyTorch's numbers for it at batch 6: bnstats.b6.in.safetensors (the
input "x") and bnstats.b6.out.safetensors ("y", "rm", "rv": the
output and nn.BatchNorm2d's running statistics after one forward pass in
training with momentum 0.1, the same update).

Development tool (needs Debian's python3-torch and python3-onnx); make
check reads what it wrote and never runs it.

Usage: tests/onnx/gen_bnstats.py [OUT-DIR]
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import st_write  # noqa: E402


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.abspath(__file__))
    g = torch.Generator().manual_seed(5)
    c = 3
    bn = torch.nn.BatchNorm2d(c, momentum=0.1)
    with torch.no_grad():
        bn.weight.copy_(torch.rand(c, generator=g) + 0.5)
        bn.bias.copy_(torch.rand(c, generator=g) - 0.5)
        bn.running_mean.copy_(torch.rand(c, generator=g))
        bn.running_var.copy_(torch.rand(c, generator=g) + 0.5)
    inits = [numpy_helper.from_array(t.detach().numpy().copy(), n)
             for n, t in (("scale", bn.weight), ("bias", bn.bias),
                          ("mean", bn.running_mean),
                          ("var", bn.running_var))]
    x = torch.randn(6, c, 4, 4, generator=g) * 2 + 1
    bn.train()
    with torch.no_grad():
        y = bn(x)
    node = helper.make_node(
        "BatchNormalization", ["x", "scale", "bias", "mean", "var"],
        ["y", "rm", "rv"], name="bn", training_mode=1, momentum=0.9)
    graph = helper.make_graph(
        [node], "bnstats",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", c, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("rm", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("rv", TensorProto.FLOAT, None)],
        inits)
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", 15)],
                          producer_name="symshard-tests")
    onnx.save(m, os.path.join(out, "bnstats.onnx"))
    base = os.path.join(out, "bnstats.b6")
    st_write.write(base + ".in.safetensors", {"x": x})
    st_write.write(base + ".out.safetensors",
                   {"y": y, "rm": bn.running_mean.clone(),
                    "rv": bn.running_var.clone()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
