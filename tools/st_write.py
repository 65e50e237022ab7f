# SPDX-License-Identifier: MIT
"""The safetensors writer of the development scripts (the fixture
generators under tests/ and tools/onnx/): one place that knows the
format, so every fixture is written the same way.

The format (sym_checkpoint(3)): an 8-byte little-endian length, a JSON
header (no spaces, padded with spaces to a multiple of 8 bytes) that maps
each name to its dtype, shape and data offsets, then the tensors' bytes,
little-endian and row-major, in the order given.

A tensor is a torch tensor, a NumPy array, or a pair (DTYPE, VALUES) of a
safetensors dtype name ("I32", "I64", "F32", ...) and a flat list of
Python numbers, for scripts that import neither.

Usage, from a script in the tree:

    sys.path.insert(0, os.path.join(HERE, "..", "tools"))
    import st_write
    st_write.write("out.safetensors", {"x": x, "ids": ("I32", [1, 2])})
"""
import json
import struct

# NumPy's dtype names to safetensors' and struct's.
_NAMES = {"float64": "F64", "float32": "F32", "float16": "F16",
          "int64": "I64", "int32": "I32", "int16": "I16", "int8": "I8",
          "uint8": "U8", "bool": "BOOL"}
_FORMATS = {"F64": "d", "F32": "f", "F16": "e", "I64": "q", "I32": "i",
            "I16": "h", "I8": "b", "U8": "B", "BOOL": "?"}


def encode(t):
    """Return (dtype, shape, bytes) of the tensor "t" (see the top)."""
    if isinstance(t, tuple):
        dtype, values = t
        b = struct.pack("<%d%s" % (len(values), _FORMATS[dtype]), *values)
        return dtype, [len(values)], b
    if hasattr(t, "detach"):  # torch
        t = t.detach().contiguous().cpu().numpy()
    dtype = _NAMES[t.dtype.name]
    if t.dtype.byteorder == ">":
        t = t.astype(t.dtype.newbyteorder("<"))
    return dtype, list(t.shape), t.tobytes(order="C")


def header(tensors):
    """Return the padded header and the data blobs of "tensors" (name ->
    tensor, in order)."""
    head, blobs, off = {}, [], 0
    for name, t in tensors.items():
        dtype, shape, b = encode(t)
        head[name] = {"dtype": dtype, "shape": shape,
                      "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(head, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return h, blobs


def write(path, tensors):
    """Write "tensors" (name -> tensor, in order) to the file "path" as
    safetensors; return the number of bytes written."""
    h, blobs = header(tensors)
    data = struct.pack("<Q", len(h)) + h + b"".join(blobs)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)
