#!/bin/bash
# Session 47, call 2: tests of the quad apply (v3) on the GPU (level3_tri, level2_tri: quad_sum
# moved to common.glsl), strsm's A/B by passes and table (v2 = a7281de's code, v3 = the packed
# apply split over quads), then the level-3 table on v3, each within what is left of the call.
cd "$(dirname "$0")"
T0=$SECONDS
left() { echo $(( 560 - (SECONDS - T0) )); }
for t in "level3_tri3 gl" "level3_tri3 gles" "level2_tri3 gl"; do set -- $t
  echo "=== $1 $2" >> $OUT/tests.txt
  FRAGBLAS_API=$2 timeout 150 ./$1 --test-threads=1 2>&1 | grep -E "^test |test result|panicked|FAILED|failures" >> $OUT/tests.txt; echo "rc=$? t=$SECONDS" >> $OUT/tests.txt
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/passes.txt 2>&1
for r in 1 2; do for b in passes2 passes3; do [ $(left) -gt 200 ] || break;
  echo "=== $b round $r t=$SECONDS" >> $OUT/passes.txt
  timeout 60 ./$b "strsm 1024 (inverse)" "strsm 2048 (inverse)" "strsm 4096 (inverse)" "strsv 4096 Lower (inverse)" >> $OUT/passes.txt 2>&1
done; done
mkdir -p /tmp/ab
for r in 1 2; do for b in bench2 bench3; do [ $(left) -gt 80 ] || break;
  echo "=== $b round $r t=$SECONDS" >> $OUT/ab.txt
  timeout 60 ./$b --tune no --no-charts --max 4096 --only sgemm,strsm --json-out /tmp/ab/ab-$b-$r.jsonl >> $OUT/ab.txt 2>&1
done; done
tar -C /tmp -cf $OUT/ab-jsonl.tar ab
[ $(left) -gt 50 ] && timeout $(left) ./bench3 --tune no --no-charts --max 4096 --only sgemm,ssymm,ssyrk,ssyr2k,strmm,strsm,sgemm_batched --json-out $OUT/level3.jsonl > $OUT/level3.txt 2>&1
echo "rc=$? t=$SECONDS" >> $OUT/level3.txt
