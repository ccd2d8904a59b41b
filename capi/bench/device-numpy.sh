#!/usr/bin/env bash
# The libfragblas measurements of BENCHMARKS.md on the device machine: Debian's numpy (with
# Debian's python3.11 and OpenBLAS, from .py/*.deb) with and without the preload, the
# GPU/CPU break-even, and the SharedContext overhead bench. Expects .gl/ (EGL debs), .py/
# (python and numpy debs) and .bin/ (libfragblas.so, shared_bench, lib/libgfortran,
# cache/) carried beside the checkout; writes to $OUT.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/deb; for f in .py/*.deb; do dpkg -x "$f" /tmp/deb; done
D=/tmp/deb/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$D/openblas-pthread:$D:$PWD/.bin/lib
export PYTHONHOME=/tmp/deb/usr PYTHONPATH=/tmp/deb/usr/lib/python3/dist-packages
export FRAGBLAS_TUNE_CACHE=$PWD/.bin/cache PYTHONUNBUFFERED=1
PY=/tmp/deb/usr/bin/python3.11
LIB=$PWD/.bin/libfragblas.so
M=capi/bench/numpy_matmul.py
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$PY -c 'import numpy; print("numpy", numpy.__version__)'
timeout 150 .bin/shared_bench --bench --warm-up-time 1 --measurement-time 3 2>&1 | grep -E "time:|^[a-z]" | tee "$OUT/shared.txt"
S="1024 4096 8192"
$PY $M $S | tee "$OUT/numpy-plain.jsonl"
FRAGBLAS_VERBOSE=1 LD_PRELOAD=$LIB $PY $M $S 2>"$OUT/numpy-auto.log" | tee "$OUT/numpy-auto.jsonl"
B="256 384 512 640 768 1024"
for r in gpu cpu; do
    FRAGBLAS_ROUTE=$r LD_PRELOAD=$LIB $PY $M $B --reps 5 | tee "$OUT/breakeven-$r.jsonl"
done
FRAGBLAS_VERBOSE=1 LD_PRELOAD=$LIB $PY $M $B 2>"$OUT/breakeven-auto.log" | tee "$OUT/breakeven-auto.jsonl"
cat "$OUT/numpy-auto.log" "$OUT/breakeven-auto.log" | grep -v "forwarded symbols"
