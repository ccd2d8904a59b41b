//! Buffers created and dropped in a loop must not accumulate. This test measures the
//! process's resident memory (llvmpipe keeps textures in it), so it lives alone in its own
//! test binary: no other test allocates beside it.

mod common;

use common::*;

#[test]
fn many_buffers_created_and_dropped_do_not_grow() {
    let ctx = ctx();
    let data = vec![1.5f32; 100_000];
    // Warm the allocator and driver, then measure resident memory across many cycles.
    for _ in 0..20 {
        let _ = ctx.upload(&data).unwrap();
    }
    ctx.finish().unwrap();
    let before = resident_kib();
    for i in 0..400 {
        let b = ctx.upload(&data).unwrap();
        if i % 50 == 0 {
            assert_eq!(b.to_vec().unwrap()[99_999], 1.5);
        }
    }
    ctx.finish().unwrap();
    let after = resident_kib();
    // 400 leaked buffers would hold 400 * 400 KB = 160 MB; allow 20 MB of noise.
    assert!(
        after < before + 20 * 1024,
        "resident memory grew from {before} KiB to {after} KiB"
    );
}

fn resident_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap()
}
