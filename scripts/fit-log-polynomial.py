#!/usr/bin/env python3
"""Fits the polynomial cuda/math/tandem_math.cu's logf and log2f use.

    log(1 + F) = F + F^2 P(F),   F in [sqrt(1/2) - 1, sqrt(2) - 1]

P approximates g(F) = (log(1 + F) - F) / F^2 in the minimax sense, weighted
so that what is minimised is the relative error of log(1 + F) itself
(weight F^2 / |log(1 + F)|). Remez exchange in mpmath at 30 digits, then
the coefficients are rounded to float one at a time from the constant term
up (c0 is -1/2 exactly), the rest refitted after each rounding, so each
rounding is absorbed by the coefficients above it instead of adding its
own error.

Prints the coefficients as C hex-float literals, lowest degree first, and
the weighted error before and after rounding. Needs only mpmath (Debian:
python3-mpmath). Usage: python3 scripts/fit-log-polynomial.py [DEGREE]
(default 8; about a minute).

The library's tests, not this script, are what vouch for the result:
MathLib.* checks logf and log2f on 2^20 inputs and every float of two
reduced ranges against double precision.
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 30
LO = mp.sqrt(mp.mpf(1) / 2) - 1
HI = mp.sqrt(2) - 1
GRID = [LO + (HI - LO) * i / 3000 for i in range(3001)]


def g(x):
    if x == 0:
        return mp.mpf(-0.5)
    return (mp.log1p(x) - x) / (x * x)


def weight(x):
    if x == 0:
        return mp.mpf(0)
    return x * x / abs(mp.log1p(x))


def to_float(v):
    return mp.mpf(struct.unpack('f', struct.pack('f', float(v)))[0])


def remez(target, w, n, iters=40):
    """Coefficients of the degree-n polynomial minimising max |w (p - target)|."""
    m = n + 2
    ref = [(LO + HI) / 2 + (HI - LO) / 2 * mp.cos(mp.pi * (m - 1 - i) / (m - 1)) for i in range(m)]
    best = None
    for _ in range(iters):
        A = mp.matrix(m, m)
        b = mp.matrix(m, 1)
        for i, x in enumerate(ref):
            for k in range(n + 1):
                A[i, k] = w(x) * x**k
            A[i, n + 1] = -((-1) ** i)
            b[i] = w(x) * target(x)
        sol = mp.lu_solve(A, b)
        c = [sol[k] for k in range(n + 1)]
        err = [w(x) * (mp.polyval(c[::-1], x) - target(x)) for x in GRID]
        peak = max(abs(e) for e in err)
        if best is None or peak < best[1]:
            best = (c, peak)
        # Alternating extrema of the error become the next reference.
        ext = [i for i in range(len(GRID))
               if (i == 0 or abs(err[i]) >= abs(err[i - 1]))
               and (i + 1 == len(GRID) or abs(err[i]) >= abs(err[i + 1]))]
        alt = []
        for i in ext:
            if alt and mp.sign(err[alt[-1]]) == mp.sign(err[i]):
                if abs(err[i]) > abs(err[alt[-1]]):
                    alt[-1] = i
            else:
                alt.append(i)
        while len(alt) > m:
            alt.pop(0 if abs(err[alt[0]]) < abs(err[alt[-1]]) else -1)
        if len(alt) < m or abs(peak - abs(sol[n + 1])) < peak * mp.mpf('1e-6'):
            break
        ref = [GRID[i] for i in alt]
    return best


def fit(n):
    # c0 is g(0) = -1/2 exactly: any other value makes (g - c0) / F, the
    # next target, unbounded at F = 0.
    fixed = [mp.mpf(-0.5)]
    for j in range(1, n + 1):
        # Fit the remaining coefficients c_j..c_n with c_0..c_{j-1} fixed.
        def target(x, j=j):
            if x == 0:  # the limit: the Taylor coefficient of F^j in g
                return mp.mpf((-1) ** j) / (j + 2) if j == 1 else mp.mpf(0)
            return (g(x) - mp.polyval(fixed[::-1], x)) / x**j

        def w(x, j=j):
            return weight(x) * abs(x) ** j

        c, peak = remez(target, w, n - j)
        if j == 1:
            print(f"degree {n}: weighted error {mp.nstr(peak, 4)} "
                  f"(2^{mp.nstr(mp.log(peak, 2), 4)}) before rounding")
        fixed.append(to_float(c[0]))
    peak = max(abs(weight(x) * (mp.polyval(fixed[::-1], x) - g(x))) for x in GRID)
    print(f"degree {n}: weighted error {mp.nstr(peak, 4)} "
          f"(2^{mp.nstr(mp.log(peak, 2), 4)}) with float coefficients")
    for k, c in enumerate(fixed):
        print(f"  c{k} = {float(c).hex()}f  // {mp.nstr(c, 9)}")


if __name__ == "__main__":
    fit(int(sys.argv[1]) if len(sys.argv) > 1 else 8)
