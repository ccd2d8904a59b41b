//! criterion benches: saxpy, sdot, sgemv and sgemm over sizes, resident (data already on the
//! GPU, timed up to a glFinish) and end-to-end (the CBLAS-shaped host call: upload, compute,
//! download), each beside the CPU BLAS (OpenBLAS, one thread per core) on the same data. Throughput is set in flops,
//! so criterion's "elem/s" reads as FLOP/s. Programs are compiled before timing.
//!
//! `cargo bench` on llvmpipe runs level 1 up to 2^24 and sgemm up to 1024; on a hardware
//! device, up to 2^26 and 4096 (the benchmark table binary goes further).
//! `FRAGBLAS_BENCH_QUICK=1` keeps a run short.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fragblas::{cblas, Context};

mod square;
use square::{cpu, random};

fn quick() -> bool {
    std::env::var("FRAGBLAS_BENCH_QUICK").is_ok_and(|v| v != "0")
}

fn context() -> Context {
    square::cpu_blas_on_all_cores();
    let ctx = Context::new().expect("a GL context");
    ctx.warm_up().expect("kernels compile");
    ctx
}

fn level1_sizes(ctx: &Context) -> Vec<usize> {
    let top = match (ctx.info().software, quick()) {
        (_, true) => 16,
        (true, false) => 24,
        (false, false) => 26,
    };
    (10..=top).step_by(2).map(|e| 1usize << e).collect()
}

fn gemm_sizes(ctx: &Context) -> Vec<usize> {
    match (ctx.info().software, quick()) {
        (_, true) => vec![64, 256],
        (true, false) => vec![64, 128, 256, 512, 1024],
        (false, false) => vec![256, 512, 1024, 2048, 4096],
    }
}

fn saxpy(c: &mut Criterion) {
    let ctx = context();
    let mut g = c.benchmark_group("saxpy");
    g.sample_size(10);
    for n in level1_sizes(&ctx) {
        let (x, y) = (random(n, 1), random(n, 2));
        let ni = n as i32;
        g.throughput(Throughput::Elements(2 * n as u64));
        let mut cy = y.clone();
        g.bench_with_input(BenchmarkId::new("cpu", n), &n, |b, _| {
            b.iter(|| cpu::saxpy(ni, 0.5, &x, &mut cy))
        });
        let gx = ctx.upload(&x).unwrap();
        let mut gy = ctx.upload(&y).unwrap();
        g.bench_with_input(BenchmarkId::new("resident", n), &n, |b, _| {
            b.iter(|| {
                ctx.saxpy(ni, 0.5, &gx, 1, &mut gy, 1).unwrap();
                ctx.finish().unwrap();
            })
        });
        let mut hy = y.clone();
        g.bench_with_input(BenchmarkId::new("e2e", n), &n, |b, _| {
            b.iter(|| cblas::saxpy(&ctx, ni, 0.5, &x, 1, &mut hy, 1).unwrap())
        });
    }
    g.finish();
}

fn sdot(c: &mut Criterion) {
    let ctx = context();
    let mut g = c.benchmark_group("sdot");
    g.sample_size(10);
    for n in level1_sizes(&ctx) {
        let (x, y) = (random(n, 3), random(n, 4));
        let ni = n as i32;
        g.throughput(Throughput::Elements(2 * n as u64));
        g.bench_with_input(BenchmarkId::new("cpu", n), &n, |b, _| {
            b.iter(|| cpu::sdot(ni, &x, &y))
        });
        let gx = ctx.upload(&x).unwrap();
        let gy = ctx.upload(&y).unwrap();
        g.bench_with_input(BenchmarkId::new("resident", n), &n, |b, _| {
            b.iter(|| ctx.sdot(ni, &gx, 1, &gy, 1).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("e2e", n), &n, |b, _| {
            b.iter(|| cblas::sdot(&ctx, ni, &x, 1, &y, 1).unwrap())
        });
    }
    g.finish();
}

fn sgemv(c: &mut Criterion) {
    let ctx = context();
    let mut g = c.benchmark_group("sgemv");
    g.sample_size(10);
    for n in gemm_sizes(&ctx) {
        let (a, x, y) = (random(n * n, 5), random(n, 6), random(n, 7));
        let ni = n as i32;
        g.throughput(Throughput::Elements(2 * (n * n) as u64));
        let mut cy = y.clone();
        g.bench_with_input(BenchmarkId::new("cpu", n), &n, |b, _| {
            b.iter(|| cpu::sgemv(ni, &a, &x, 0.5, &mut cy))
        });
        let (ga, gx) = (ctx.upload(&a).unwrap(), ctx.upload(&x).unwrap());
        let mut gy = ctx.upload(&y).unwrap();
        g.bench_with_input(BenchmarkId::new("resident", n), &n, |b, _| {
            b.iter(|| {
                square::sgemv_device(&ctx, ni, &ga, &gx, 0.5, &mut gy);
                ctx.finish().unwrap();
            })
        });
        let mut hy = y.clone();
        g.bench_with_input(BenchmarkId::new("e2e", n), &n, |b, _| {
            b.iter(|| square::sgemv_host(&ctx, ni, &a, &x, 0.5, &mut hy))
        });
    }
    g.finish();
}

fn sgemm(c: &mut Criterion) {
    let ctx = context();
    let mut g = c.benchmark_group("sgemm");
    g.sample_size(10);
    for n in gemm_sizes(&ctx) {
        let (a, bm, cm) = (random(n * n, 8), random(n * n, 9), random(n * n, 10));
        let ni = n as i32;
        g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
        let mut cc = cm.clone();
        g.bench_with_input(BenchmarkId::new("cpu", n), &n, |b, _| {
            b.iter(|| cpu::sgemm(ni, &a, &bm, 0.0, &mut cc))
        });
        let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&bm).unwrap());
        let mut gc = ctx.upload(&cm).unwrap();
        g.bench_with_input(BenchmarkId::new("resident", n), &n, |b, _| {
            b.iter(|| {
                square::sgemm_device(&ctx, ni, &ga, &gb, 0.0, &mut gc);
                ctx.finish().unwrap();
            })
        });
        let mut hc = cm.clone();
        g.bench_with_input(BenchmarkId::new("e2e", n), &n, |b, _| {
            b.iter(|| square::sgemm_host(&ctx, ni, &a, &bm, 0.0, &mut hc))
        });
    }
    g.finish();
}

criterion_group!(benches, saxpy, sdot, sgemv, sgemm);
criterion_main!(benches);
