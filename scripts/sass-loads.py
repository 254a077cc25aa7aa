#!/usr/bin/env python3
"""Global loads in a cubin's SASS, and how many of them sit together.

    python3 scripts/sass-loads.py KERNEL.cubin

prints one line per kernel (`.text.KERNEL` section):

    KERNEL INSTRUCTIONS LDG STG BRANCHES MAX_LDG_RUN

INSTRUCTIONS is the section's size / 16 (ptxas pads each kernel to 128
bytes, so it moves in steps of 8), LDG and STG count the global load and
store instructions, BRANCHES the
BRA and EXIT instructions, and MAX_LDG_RUN is the most LDGs in one
straight-line run of SASS between two of those: a static proxy for how many
global loads one warp can have in flight at once (the memory-level
parallelism the list scheduler and the loop unrollers are after). A run may
span a branch target (a label reached by falling through), so it bounds a
basic block's loads from above; it never spans a branch.

Why decode by hand: this machine's CUDA toolkit has ptxas but neither
cuobjdump nor nvdisasm, and Debian main packages no SASS disassembler.
sm_90 instructions are 16 bytes, little endian, with the opcode in the low
12 bits. The LDG opcode (0x981) is checked against the PTX in
tests/ptx-compare/check.sh: in the straight-line kernels vadd and saxpy,
each variant's LDG count must equal its PTX ld.global count (elsewhere
ptxas may unroll loops or join neighbouring loads). STG is 0x986, BRA
0x947, EXIT 0x94d. Exit status 0; 1 if the file is not an ELF cubin; 2
usage.
"""
import struct
import sys

LDG, STG, BRA, EXIT = 0x981, 0x986, 0x947, 0x94D
INSTRUCTION_BYTES = 16


def text_sections(path):
    """Yields (kernel name, bytes) for every .text.KERNEL section of an ELF64 file."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError(f"{path}: not an ELF64 cubin")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise ValueError(f"{path}: section headers lie outside the file")
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    for name_off, _type, _flags, _addr, offset, size, *_ in headers:
        end = data.index(b"\0", names_at + name_off)
        name = data[names_at + name_off:end].decode()
        if name.startswith(".text."):
            if offset + size > len(data) or size % INSTRUCTION_BYTES:
                raise ValueError(f"{path}: section {name} is cut short or not whole instructions")
            yield name[len(".text."):], data[offset:offset + size]


def load_stats(code):
    """(instructions, LDG, STG, branches, most LDGs between two branches) of one kernel's code."""
    ldg = stg = branches = run = max_run = 0
    for at in range(0, len(code), INSTRUCTION_BYTES):
        opcode = int.from_bytes(code[at:at + 2], "little") & 0xFFF
        if opcode == LDG:
            ldg += 1
            run += 1
            max_run = max(max_run, run)
        elif opcode == STG:
            stg += 1
        elif opcode in (BRA, EXIT):
            branches += 1
            run = 0
    return len(code) // INSTRUCTION_BYTES, ldg, stg, branches, max_run


def main(argv):
    if len(argv) != 2:
        print("usage: sass-loads.py KERNEL.cubin", file=sys.stderr)
        return 2
    try:
        for kernel, code in text_sections(argv[1]):
            print(kernel, *load_stats(code))
    except (OSError, ValueError, struct.error) as e:
        print(f"sass-loads: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
