#!/bin/bash
# Session 46, one call: tests of the new code (v2) on the GPU, strsv's A/B (old = 78f31d0,
# v2 = the update's stored-lane masks left out and A's position stepped from group to group),
# then the level-2 and level-3 tables on v2, each within what is left of the call.
cd "$(dirname "$0")"
T0=$SECONDS
left() { echo $(( 575 - (SECONDS - T0) )); }
for api in gl gles; do
  FRAGBLAS_API=$api timeout 120 ./level2_tri2 --test-threads=1 > $OUT/tests-v2-$api.txt 2>&1; echo "rc=$? t=$SECONDS" >> $OUT/tests-v2-$api.txt
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/passes.txt 2>&1
for r in 1 2; do for b in passes_old passes2; do
  echo "=== $b round $r" >> $OUT/passes.txt
  timeout 40 ./$b "strsv 4096 Lower (inverse)" "strsv 4096 Upper (inverse)" >> $OUT/passes.txt 2>&1
done; done
mkdir -p /tmp/ab
for r in 1 2; do for b in bench_old bench2; do [ $(left) -gt 30 ] || break;
  echo "=== $b round $r t=$SECONDS" >> $OUT/ab.txt
  timeout 60 ./$b --tune no --no-charts --only sgemv,strsv,stpsv --json-out /tmp/ab/ab-$b-$r.jsonl >> $OUT/ab.txt 2>&1
done; done
tar -C /tmp -cf $OUT/ab-jsonl.tar ab
[ $(left) -gt 40 ] && timeout $(left) ./bench2 --tune no --no-charts --only sgemv,ssymv,sspmv,strmv,stpmv,sgbmv,ssbmv,stbmv,strsv,stpsv,stbsv,sger,ssyr,sspr,ssyr2,sspr2 --json-out $OUT/level2.jsonl > $OUT/level2.txt 2>&1
echo "rc=$? t=$SECONDS" >> $OUT/level2.txt
[ $(left) -gt 60 ] && timeout $(left) ./bench2 --tune no --no-charts --max 4096 --only sgemm,ssymm,ssyrk,ssyr2k,strmm,strsm,sgemm_batched --json-out $OUT/level3.jsonl > $OUT/level3.txt 2>&1
echo "rc=$? t=$SECONDS" >> $OUT/level3.txt
