#!/usr/bin/env python3
"""CuPy's host-device rates by size, the peer of examples/bandwidth.rs: `cp.asarray` of a
NumPy f32 array (host to device) and `.get()` (device to host, into a new NumPy array), the
median of several calls after one warm-up call each, synchronized, from 64 KiB to 1 GiB;
and NumPy's own copy into an array already touched.

    python3 benches/peers/cupy_bandwidth.py [--max BYTES]
"""
import argparse
import time

import cupy as cp
import numpy as np


def median(reps, f):
    f()
    t = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    t.sort()
    return t[reps // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=1 << 30)
    args = ap.parse_args()
    print(f"CuPy {cp.__version__} host-device bandwidth, f32 arrays, "
          f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print("| bytes | asarray (GB/s) | get (GB/s) | host copy (GB/s) |")
    print("|---:|---:|---:|---:|")
    b = 64 << 10
    while b <= args.max:
        n = b // 4
        host = np.arange(n, dtype=np.float32)
        reps = max(3, min(50, (256 << 20) // b))

        def up():
            cp.asarray(host)
            cp.cuda.Device().synchronize()

        a = cp.asarray(host)

        def down():
            v = a.get()
            assert v.shape[0] == n

        dst = np.empty_like(host)

        def copy():
            np.copyto(dst, host)

        g = lambda t: b / t / 1e9
        tu, td, tc = median(reps, up), median(reps, down), median(reps, copy)
        print(f"| {b} | {g(tu):.2f} | {g(td):.2f} | {g(tc):.2f} |")
        print(f"RESULT cupy_bandwidth bytes={b} up_GBps={g(tu):.3f} down_GBps={g(td):.3f} "
              f"copy_GBps={g(tc):.3f}")
        b *= 4


if __name__ == "__main__":
    main()
