#!/usr/bin/env python3
# A stand-in for LLVM's `not`, used only where llvm-19 does not ship one:
# runs its arguments and succeeds exactly when they fail (exit status != 0).
import subprocess
import sys

if len(sys.argv) < 2:
    sys.exit("usage: not COMMAND [ARGS...]")
sys.exit(0 if subprocess.call(sys.argv[1:]) != 0 else 1)
