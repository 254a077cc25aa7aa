#!/usr/bin/env python3
"""Writes and prints NumPy .npy files without numpy (the lit tests use it).

  npy.py write FILE.npy DESCR V...   a 1-D array, e.g. write a.npy '<f4' 1 2.5
  npy.py iota FILE.npy DESCR N SCALE  N elements i * SCALE
  npy.py print FILE.npy              'descr shape: v v v ...' (floats as %g)

Headers are written exactly as numpy.save writes them (version 1.0, padded
with spaces to a 64-byte boundary, ending in a newline).
"""
import ast
import struct
import sys

FORMATS = {"<f4": "f", "<i4": "i", "<u4": "I", "|u1": "B", "<f8": "d"}


def write(path, descr, values):
    fmt = FORMATS[descr]
    if fmt in "fd":
        values = [float(v) for v in values]
    else:
        values = [int(v, 0) for v in values]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (
        descr, len(values))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("ascii"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def show(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x93NUMPY\x01\x00", "not a version 1.0 .npy file"
    (length,) = struct.unpack("<H", data[8:10])
    assert (10 + length) % 64 == 0, "data not 64-byte aligned"
    header = ast.literal_eval(data[10:10 + length].decode("ascii"))
    assert header["fortran_order"] is False
    count = 1
    for d in header["shape"]:
        count *= d
    fmt = FORMATS[header["descr"]]
    body = data[10 + length:]
    assert len(body) == count * struct.calcsize(fmt), "wrong data size"
    values = struct.unpack("<%d%s" % (count, fmt), body)
    text = " ".join(("%g" % v) if fmt in "fd" else str(v) for v in values)
    print("%s %s: %s" % (header["descr"], header["shape"], text))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "iota":
        n, scale = int(sys.argv[4]), float(sys.argv[5])
        as_text = str if FORMATS[sys.argv[3]] in "fd" else (lambda v: str(int(v)))
        write(sys.argv[2], sys.argv[3], [as_text(i * scale) for i in range(n)])
    elif cmd == "print":
        show(sys.argv[2])
    else:
        sys.exit("unknown command " + cmd)
