#!/bin/bash
# Session 47, call 3: the quad apply with its sums by constant indices (v4: each quad member
# a quarter of the steps in a run; v5: steps interleaved, member q on steps q, q+4, ...),
# against v2 (a7281de) by passes, then the tables of sgemm,strsm (v2, v4) and level 3 (v4).
cd "$(dirname "$0")"
T0=$SECONDS
left() { echo $(( 400 - (SECONDS - T0) )); }
for t in "level3_tri4 gl"; do set -- $t
  echo "=== $1 $2" >> $OUT/tests.txt
  FRAGBLAS_API=$2 timeout 150 ./$1 --test-threads=1 2>&1 | grep -E "^test |test result|panicked|FAILED|failures" >> $OUT/tests.txt; echo "rc=$? t=$SECONDS" >> $OUT/tests.txt
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/passes.txt 2>&1
for r in 1 2; do for b in passes2 passes4 passes5; do [ $(left) -gt 250 ] || break;
  echo "=== $b round $r t=$SECONDS" >> $OUT/passes.txt
  timeout 60 ./$b "strsm 1024 (inverse)" "strsm 2048 (inverse)" "strsm 4096 (inverse)" >> $OUT/passes.txt 2>&1
done; done
mkdir -p /tmp/ab
for r in 1; do for b in bench2 bench4; do [ $(left) -gt 100 ] || break;
  echo "=== $b round $r t=$SECONDS" >> $OUT/ab.txt
  timeout 60 ./$b --tune no --no-charts --max 4096 --only sgemm,strsm --json-out /tmp/ab/ab-$b-$r.jsonl >> $OUT/ab.txt 2>&1
done; done
tar -C /tmp -cf $OUT/ab-jsonl.tar ab
[ $(left) -gt 50 ] && timeout $(left) ./bench4 --tune no --no-charts --max 4096 --only sgemm,ssymm,ssyrk,ssyr2k,strmm,strsm,sgemm_batched --json-out $OUT/level3.jsonl > $OUT/level3.txt 2>&1
echo "rc=$? t=$SECONDS" >> $OUT/level3.txt
