# SPDX-License-Identifier: MIT
"""ONNX's own shape inference on the models bench_onnx imported, in the
same run (bench/run.sh): onnx.shape_inference.infer_shapes(model,
data_prop=True) timed like bench_onnx (at least 5 runs and 0.5 s, the
median), and what it keeps: of the dimensions of every value the nodes
compute and the graph outputs, how many are symbolic, how many of those
are still a dimension parameter of the graph's inputs (ONNX can only
name a declared symbol, not an expression of it) and how many are fresh
unk__N, the dimensions it leaves unknown (neither a size nor a name),
and the values left without a shape. Reads bench_onnx's JSON
lines on standard input and prints, for each model, a line with ONNX's
figures and the ratio of its time to symshard's import.

Usage: bench_onnx MODEL... | python3 bench/onnx_infer.py DIR
(DIR: where the models are). Needs Debian's python3-onnx; without it the
line says "skipped".
"""
import json
import os
import statistics
import sys
import time


def count(model):
    """The symbolic dims kept, fresh dims and shapeless values of
    "model" after inference."""
    g = model.graph
    declared = set()
    for vi in g.input:
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                declared.add(d.dim_param)
    inits = {t.name for t in g.initializer}
    info = {vi.name: vi for vi in list(g.value_info) + list(g.output)}
    kept = fresh = other = unknown = shapeless = values = 0
    for n in g.node:
        for out in n.output:
            if not out or out in inits:
                continue
            values += 1
            vi = info.get(out)
            if (vi is None or not vi.type.tensor_type.HasField("shape")):
                shapeless += 1
                continue
            for d in vi.type.tensor_type.shape.dim:
                if d.HasField("dim_value"):
                    continue
                if d.HasField("dim_param") and d.dim_param in declared:
                    kept += 1
                elif d.HasField("dim_param") and \
                        d.dim_param.startswith("unk__"):
                    fresh += 1
                elif d.HasField("dim_param"):
                    other += 1
                else:
                    unknown += 1
    return values, kept, fresh, other, unknown, shapeless


def bench(path):
    import onnx
    model = onnx.load(path)
    times = []
    start = time.perf_counter()
    inferred = None
    while len(times) < 5 or time.perf_counter() - start < 0.5:
        t0 = time.perf_counter()
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
        times.append(time.perf_counter() - t0)
        if len(times) >= 1000:
            break
    return statistics.median(times), len(times), count(inferred)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    try:
        import onnx  # noqa: F401
    except ImportError:
        onnx = None
    for line in sys.stdin:
        r = json.loads(line)
        if r.get("bench") != "onnx_import":
            continue
        name = r["model"]
        if onnx is None:
            print(json.dumps({"bench": "onnx_infer", "model": name,
                              "skipped": "python3-onnx is not installed"}))
            continue
        t, runs, (values, kept, fresh, other, unknown, shapeless) = \
            bench(os.path.join(folder, name))
        print(json.dumps({
            "bench": "onnx_infer", "model": name, "runs": runs,
            "seconds": float("%.6g" % t),
            "values": values, "symbolic_dims_kept": kept,
            "fresh_unk_dims": fresh, "other_symbolic_dims": other,
            "unknown_dims": unknown,
            "values_without_shape": shapeless,
            "symshard_seconds": r["seconds"],
            "symshard_symbolic_dims": r["symbolic_dims"],
            "symshard_lost_dims": r["lost_dims"],
            "ratio_onnx_over_symshard": float("%.4g" % (t / r["seconds"]))
            if r["seconds"] > 0 else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
