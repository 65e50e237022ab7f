#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write the small ONNX models of tests/test_onnx.c into tests/onnx/.

Development tool (needs Debian's python3-onnx); make check reads what it
wrote and never runs it (slicesym's values are numpy's, written by
tools/st_write.py). gpt_tiny.onnx is made by
tools/onnx/export_gpt.py --layers 1 --width 16 --heads 2 --vocab 32.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(OUT, "..", "..", "tools"))
import st_write  # noqa: E402


def save(name, nodes, inputs, outputs, inits=(), opset=14):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="symshard-tests")
    onnx.save(m, os.path.join(OUT, name + ".onnx"))


def i64(name, vals):
    return numpy_helper.from_array(np.array(vals, dtype=np.int64), name)


def main():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 6])
    # x [b, s, 6] -> [b*s, 3, 2] through Shape, Gather, Mul, Div, Concat,
    # Unsqueeze; then y [b, s, 6] back via Shape + Slice, ReduceProd and
    # -1; z compares b*s with s*b (Equal, decided) to choose a Where.
    nodes = [
        helper.make_node("Shape", ["x"], ["sh"]),
        helper.make_node("Gather", ["sh", "zero"], ["b0"], axis=0),
        helper.make_node("Gather", ["sh", "one"], ["s0"], axis=0),
        helper.make_node("Mul", ["b0", "s0"], ["bs"]),
        helper.make_node("Div", ["six", "two"], ["three"]),
        helper.make_node("Unsqueeze", ["bs", "ax0"], ["bs1"]),
        helper.make_node("Unsqueeze", ["three", "ax0"], ["three1"]),
        helper.make_node("Concat", ["bs1", "three1", "two1"], ["target"],
                         axis=0),
        helper.make_node("Reshape", ["x", "target"], ["r"]),
        helper.make_node("Slice", ["sh", "st", "en"], ["bs_dims"]),
        helper.make_node("ReduceProd", ["bs_dims"], ["n"], keepdims=1),
        helper.make_node("Concat", ["n", "minus1"], ["t2"], axis=0),
        helper.make_node("Reshape", ["r", "t2"], ["flat"]),
        helper.make_node("Mul", ["s0", "b0"], ["sb"]),
        helper.make_node("Equal", ["bs", "sb"], ["same"]),
        helper.make_node("Where", ["same", "bs", "six"], ["pick"]),
        helper.make_node("Unsqueeze", ["pick", "ax0"], ["pick1"]),
        helper.make_node("Concat", ["pick1", "six1"], ["t3"], axis=0),
        helper.make_node("Reshape", ["x", "t3"], ["z"]),
        helper.make_node("Relu", ["z"], ["out"]),
    ]
    inits = [i64("zero", 0), i64("one", 1), i64("six", 6), i64("two", 2),
             i64("ax0", [0]), i64("two1", [2]), i64("st", [0]),
             i64("en", [2]), i64("minus1", [-1]), i64("six1", [6])]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
            for n in ("r", "flat", "out")]
    save("shapes", nodes, [x], outs, inits)

    # An operator without a mapping.
    save("unmapped", [helper.make_node("Hardmax", ["x"], ["y"],
                                       name="hm0")],
         [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])

    # An opset outside 11..18.
    save("opset9", [helper.make_node("Relu", ["x"], ["y"])], [x],
         [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
         opset=9)

    # An initializer whose raw data disagrees with its shape.
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 3],
                           np.zeros(6, np.float32).tobytes(), raw=True)
    w.raw_data = np.zeros(5, np.float32).tobytes()
    save("badsize", [helper.make_node("Add", ["w", "w"], ["y"])], [],
         [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
         [w])

    # External data outside the model's folder, and inside it.
    for name, loc in (("extout", "../secret.bin"), ("extin", "w.bin")):
        t = helper.make_tensor("w", TensorProto.FLOAT, [2], [0.0, 0.0])
        t.ClearField("float_data")
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", loc), ("offset", "0"), ("length", "8")):
            e = t.external_data.add()
            e.key, e.value = k, v
        save(name, [helper.make_node("Relu", ["w"], ["y"])], [],
             [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
             [t])
    # Named nodes for shard clauses: a Gemm with C (matmul and add; the
    # clause shards the matmul), a Relu, and two nodes named alike.
    xb = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 4])
    wts = [numpy_helper.from_array(np.ones((4, 8), np.float32), "W"),
           numpy_helper.from_array(np.ones(8, np.float32), "C")]
    save("named", [helper.make_node("Gemm", ["x", "W", "C"], ["h"],
                                    name="fc"),
                   helper.make_node("Relu", ["h"], ["a"], name="act"),
                   helper.make_node("Neg", ["a"], ["n1"], name="twin"),
                   helper.make_node("Neg", ["n1"], ["n2"], name="twin")],
         [xb], [helper.make_tensor_value_info("n2", TensorProto.FLOAT,
                                              None)], wts)
    # BatchNormalization in training with running statistics that are
    # graph inputs (they must be initializers, state), and one with four
    # inputs.
    xc = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 2])
    vecs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2])
            for n in ("scale", "bias", "mean", "var")]
    save("bntrain", [helper.make_node(
        "BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"],
        name="bn", training_mode=1)], [xc] + vecs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        opset=15)
    stats = [numpy_helper.from_array(np.zeros(2, np.float32), "m"),
             numpy_helper.from_array(np.ones(2, np.float32), "v")]
    save("bnshared", [helper.make_node(
        "BatchNormalization", [a, "scale", "bias", "m", "v"], [y],
        name=y, training_mode=1) for a, y in (("x", "y1"), ("y1", "y2"))],
        [xc] + vecs[:2],
        [helper.make_tensor_value_info("y2", TensorProto.FLOAT, None)],
        stats, opset=15)
    save("bn4", [helper.make_node(
        "BatchNormalization", ["x", "scale", "bias", "mean"], ["y"],
        name="bn")], [xc] + vecs[:3],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        opset=15)
    with open(os.path.join(OUT, "w.bin"), "wb") as f:
        f.write(np.array([1.5, -2.0], np.float32).tobytes())
    # Shape values of 0 elements (the shape of a scalar) broadcast with
    # a single element, as NumPy does: Add, Equal and Where fold to 0
    # elements and Reshape reads them as a scalar's shape.
    xs = helper.make_tensor_value_info("x", TensorProto.FLOAT, [])
    save("emptyshape", [
        helper.make_node("Shape", ["x"], ["sh"]),
        helper.make_node("Add", ["sh", "one1"], ["t"]),
        helper.make_node("Equal", ["sh", "one1"], ["e"]),
        helper.make_node("Where", ["e", "sh", "one1"], ["w"]),
        helper.make_node("Reshape", ["x", "t"], ["y"]),
        helper.make_node("Reshape", ["x", "w"], ["y2"])],
        [xs], [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
               for n in ("y", "y2")], [i64("one1", [1])])
    slicesym()
    sliceguard()
    return 0


def slicesym():
    """Slice with starts and ends that are symbolic shape values of
    other forms than a constant or the dimension plus one (x is [b, s,
    4]): y1 = x[:, s//2:s], y2 = x[:, s-2::-2], y3 = x[:, -(s//2):],
    y4 = x[b-1:b, 1:s-1], y5 = x[:, s//b:s] (s//b <= s is beyond the
    prover: a run-time guard); with numpy's values at two sizes for
    shape-run (tests/check-onnx-run.sh)."""
    xs = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 4])
    big = 2 ** 62
    nodes = [
        helper.make_node("Shape", ["x"], ["sh"]),
        helper.make_node("Gather", ["sh", "zero"], ["b0"], axis=0),
        helper.make_node("Gather", ["sh", "one"], ["s0"], axis=0),
        helper.make_node("Div", ["s0", "two"], ["half"]),
        helper.make_node("Unsqueeze", ["half", "ax0"], ["st1"]),
        helper.make_node("Unsqueeze", ["s0", "ax0"], ["en1"]),
        helper.make_node("Slice", ["x", "st1", "en1", "ax1"], ["y1"],
                         name="y1"),
        helper.make_node("Sub", ["s0", "two"], ["sm2"]),
        helper.make_node("Unsqueeze", ["sm2", "ax0"], ["st2"]),
        helper.make_node("Slice", ["x", "st2", "nbig", "ax1", "m2"],
                         ["y2"], name="y2"),
        helper.make_node("Sub", ["zero", "half"], ["nhalf"]),
        helper.make_node("Unsqueeze", ["nhalf", "ax0"], ["st3"]),
        helper.make_node("Slice", ["x", "st3", "pbig", "ax1"], ["y3"],
                         name="y3"),
        helper.make_node("Sub", ["b0", "onev"], ["bm1"]),
        helper.make_node("Sub", ["s0", "onev"], ["sm1"]),
        helper.make_node("Concat", ["bm1", "onev"], ["st4"], axis=0),
        helper.make_node("Unsqueeze", ["b0", "ax0"], ["b1"]),
        helper.make_node("Concat", ["b1", "sm1"], ["en4"], axis=0),
        helper.make_node("Slice", ["x", "st4", "en4", "ax01"], ["y4"],
                         name="y4"),
        helper.make_node("Div", ["s0", "b0"], ["sb"]),
        helper.make_node("Unsqueeze", ["sb", "ax0"], ["st5"]),
        helper.make_node("Slice", ["x", "st5", "en1", "ax1"], ["y5"],
                         name="y5"),
    ]
    inits = [i64("zero", 0), i64("one", 1), i64("two", 2), i64("ax0", [0]),
             i64("ax1", [1]), i64("ax01", [0, 1]), i64("m2", [-2]),
             i64("nbig", [-big]), i64("pbig", [big]), i64("onev", [1])]
    # bm1 = Sub(b0, [1]) is [b - 1] (a scalar minus a vector), sm1 too
    outs = [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)
            for y in ("y1", "y2", "y3", "y4", "y5")]
    save("slicesym", nodes, [xs], outs, inits)
    rng = np.random.default_rng(3)
    for b, s in ((2, 9), (3, 6)):
        x = rng.standard_normal((b, s, 4)).astype(np.float32)
        base = os.path.join(OUT, "slicesym.b%ds%d" % (b, s))
        st_write.write(base + ".in.safetensors", {"x": x})
        st_write.write(base + ".out.safetensors", {
            "y1": np.ascontiguousarray(x[:, s // 2:s]),
            "y2": np.ascontiguousarray(x[:, s - 2::-2]),
            "y3": np.ascontiguousarray(x[:, -(s // 2):]),
            "y4": np.ascontiguousarray(x[b - 1:b, 1:s - 1]),
            "y5": np.ascontiguousarray(x[:, s // b:s])})


def sliceguard():
    """A Slice whose start is b*n (x is [b, s, 4], w is [n]): y =
    x[:, b*n:]. s >= b*n is beyond the prover and fails for some sizes
    (b = 4, n = 5, s = 16), so it stays a run-time guard that a binding
    can violate; with numpy's values at b = 2, n = 3, s = 17 for
    shape-run (tests/check-onnx-run.sh)."""
    xs = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 4])
    ws = helper.make_tensor_value_info("w", TensorProto.FLOAT, ["n"])
    nodes = [
        helper.make_node("Shape", ["x"], ["sh"]),
        helper.make_node("Gather", ["sh", "zero"], ["b0"], axis=0),
        helper.make_node("Shape", ["w"], ["shw"]),
        helper.make_node("Gather", ["shw", "zero"], ["n0"], axis=0),
        helper.make_node("Mul", ["b0", "n0"], ["bn"]),
        helper.make_node("Unsqueeze", ["bn", "ax0"], ["st"]),
        helper.make_node("Slice", ["x", "st", "pbig", "ax1"], ["y"],
                         name="tail"),
    ]
    inits = [i64("zero", 0), i64("ax0", [0]), i64("ax1", [1]),
             i64("pbig", [2 ** 62])]
    save("sliceguard", nodes, [xs, ws],
         [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
         inits)
    rng = np.random.default_rng(5)
    b, n, s = 2, 3, 17
    x = rng.standard_normal((b, s, 4)).astype(np.float32)
    w = rng.standard_normal(n).astype(np.float32)
    base = os.path.join(OUT, "sliceguard.b%dn%ds%d" % (b, n, s))
    st_write.write(base + ".in.safetensors", {"x": x, "w": w})
    st_write.write(base + ".out.safetensors",
                   {"y": np.ascontiguousarray(x[:, b * n:])})


if __name__ == "__main__":
    sys.exit(main())
