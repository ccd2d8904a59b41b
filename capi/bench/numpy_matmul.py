"""Times numpy float32 matmul (C = A @ B, all n x n) at the sizes given, best of `--reps`
runs after one warm-up, and prints one JSON line per size. Run it with and without
LD_PRELOAD=libfragblas.so to compare (BENCHMARKS.md, "libfragblas"):

    python3 numpy_matmul.py 1024 4096 8192
    LD_PRELOAD=target/release/libfragblas.so python3 numpy_matmul.py 1024 4096 8192
"""
import argparse
import json
import os
import time

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("sizes", type=int, nargs="+")
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    rng = np.random.default_rng(1)
    for n in args.sizes:
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        c = a @ b  # warm-up (and, through libfragblas, the cost model's first measurement)
        best = float("inf")
        for _ in range(args.reps):
            t = time.perf_counter()
            c = a @ b
            best = min(best, time.perf_counter() - t)
        # A spot check of the result against float64 on a few entries.
        i = rng.integers(0, n, 8)
        j = rng.integers(0, n, 8)
        exact = np.einsum("ij,ji->i", a[i, :].astype(np.float64), b[:, j].astype(np.float64))
        err = float(np.max(np.abs(c[i, j] - exact) / (1 + np.abs(exact))))
        print(json.dumps({
            "n": n, "seconds": best, "gflops": 2 * n**3 / best / 1e9, "max_rel_err": err,
            "preload": os.environ.get("LD_PRELOAD", ""),
            "route": os.environ.get("FRAGBLAS_ROUTE", "auto"),
        }), flush=True)


if __name__ == "__main__":
    main()
