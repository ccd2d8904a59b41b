"""float32 and float64 numpy products, for the LD_PRELOAD test of libfragblas.so.

python3 numpy_products.py OUT.npz   computes the products and saves them.
python3 numpy_products.py --compare WITH.npz WITHOUT.npz
    checks that the float32 results with the preload match those without (to float32
    rounding of the sums) and that the float64 ones (forwarded to the same CPU BLAS) are
    identical.
"""
import sys

import numpy as np


def products():
    rng = np.random.default_rng(7)
    out = {}
    for dt in (np.float32, np.float64):
        tag = np.dtype(dt).name
        a = rng.standard_normal((300, 200)).astype(dt)
        b = rng.standard_normal((200, 150)).astype(dt)
        v = rng.standard_normal(200).astype(dt)
        w = rng.standard_normal(300).astype(dt)
        out[f"{tag}_gemm"] = np.dot(a, b)
        out[f"{tag}_gemm_t"] = np.dot(b.T, a.T)  # transposed operands
        out[f"{tag}_matmul_strided"] = a[::2, ::1] @ b  # a view with a row stride
        out[f"{tag}_gemv"] = np.dot(a, v)
        out[f"{tag}_gemv_t"] = np.dot(w, a)
        out[f"{tag}_dot"] = np.array(np.dot(v, v[::-1]))
        out[f"{tag}_big"] = np.dot(rng.standard_normal((512, 384)).astype(dt),
                                   rng.standard_normal((384, 256)).astype(dt))
    return out


def main():
    if sys.argv[1] == "--compare":
        got, want = np.load(sys.argv[2]), np.load(sys.argv[3])
        for key in want.files:
            g, w = got[key], want[key]
            if key.startswith("float64"):
                assert np.array_equal(g, w), f"{key}: float64 results differ"
            else:
                k = 384 if "big" in key else 200
                tol = 4 * k * np.finfo(np.float32).eps * (1 + np.abs(w))
                bad = np.abs(g - w) > tol
                assert not bad.any(), f"{key}: {bad.sum()} elements differ beyond {tol.max()}"
        print(f"ok: {len(want.files)} products agree")
        return
    np.savez(sys.argv[1], **products())


if __name__ == "__main__":
    main()
