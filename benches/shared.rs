//! criterion bench of the cost a `SharedContext` adds to a call: the same resident call
//! through a `Context` and through a `SharedContext` (a job sent to the GL thread and its
//! result sent back), each followed by a finish; the difference of the two is the added
//! cost (two round trips per iteration: the call and the finish). saxpy of 1024 elements
//! and sgemm of 64^3, where the call's own work is small, and an empty job (`with(|_| ())`),
//! the round trip alone.
//!
//! `cargo bench --bench shared`

use criterion::{criterion_group, criterion_main, Criterion};
use fragblas::{Context, Layout::ColMajor, SharedContext, Transpose::NoTrans};

fn overhead(c: &mut Criterion) {
    let ctx = Context::new().expect("a GL context");
    let shared = SharedContext::new().expect("a GL context");
    let v: Vec<f32> = (0..64 * 64).map(|i| (i % 13) as f32 - 6.0).collect();
    let (x, mut y) = (
        ctx.upload(&v[..1024]).unwrap(),
        ctx.upload(&v[..1024]).unwrap(),
    );
    let (sx, mut sy) = (
        shared.upload(&v[..1024]).unwrap(),
        shared.upload(&v[..1024]).unwrap(),
    );
    // A job that does nothing: the round trip alone.
    c.bench_function("round_trip/shared", |b| {
        b.iter(|| shared.with(|_| ()).unwrap())
    });
    let mut g = c.benchmark_group("saxpy_1024");
    g.bench_function("context", |b| {
        b.iter(|| {
            ctx.saxpy(1024, 0.5, &x, 1, &mut y, 1).unwrap();
            ctx.finish().unwrap();
        })
    });
    g.bench_function("shared", |b| {
        b.iter(|| {
            shared.saxpy(1024, 0.5, &sx, 1, &mut sy, 1).unwrap();
            shared.finish().unwrap();
        })
    });
    g.finish();
    let (a, bb) = (ctx.upload(&v).unwrap(), ctx.upload(&v).unwrap());
    let mut cc = ctx.zeros(v.len()).unwrap();
    let (sa, sb) = (shared.upload(&v).unwrap(), shared.upload(&v).unwrap());
    let mut sc = shared.zeros(v.len()).unwrap();
    let mut g = c.benchmark_group("sgemm_64");
    g.bench_function("context", |b| {
        b.iter(|| {
            ctx.sgemm(
                ColMajor, NoTrans, NoTrans, 64, 64, 64, 1.0, &a, 64, &bb, 64, 0.0, &mut cc, 64,
            )
            .unwrap();
            ctx.finish().unwrap();
        })
    });
    g.bench_function("shared", |b| {
        b.iter(|| {
            shared
                .sgemm(
                    ColMajor, NoTrans, NoTrans, 64, 64, 64, 1.0, &sa, 64, &sb, 64, 0.0, &mut sc, 64,
                )
                .unwrap();
            shared.finish().unwrap();
        })
    });
    g.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);
