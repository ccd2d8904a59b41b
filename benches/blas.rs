//! criterion benches: saxpy, sdot, sgemv and sgemm over sizes, resident (data already on the
//! GPU, timed up to a glFinish) and end-to-end (the CBLAS-shaped host call: upload, compute,
//! download), each beside the CPU BLAS (OpenBLAS, one thread per core) on the same data. Throughput is set in flops,
//! so criterion's "elem/s" reads as FLOP/s. Programs are compiled before timing.
//!
//! `cargo bench` on llvmpipe runs level 1 up to 2^24 and sgemm up to 1024; on a hardware
//! device, up to 2^26 and 4096 (the benchmark table binary goes further).
//! `FRAGBLAS_BENCH_QUICK=1` keeps a run short.
//!
//! The `latency` group times single small calls, the table's latency rows one call at a time:
//! resident calls whose result stays on the GPU are timed as a run of calls up to a read of
//! the last result, divided by the number of calls; a scalar result or a host-API call is
//! read back each call.

use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fragblas::{cblas, Context, Diag, Layout::ColMajor, Transpose::NoTrans, Uplo};

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

/// The time of `iters` calls of `call`, told at its last call (which then reads a part of
/// the result, so that the GPU has finished them all): per call, what a loop that keeps
/// its results on the GPU pays.
fn calls_then_read(iters: u64, mut call: impl FnMut(bool)) -> std::time::Duration {
    let t = Instant::now();
    for i in 0..iters {
        call(i + 1 == iters);
    }
    t.elapsed()
}

fn latency(c: &mut Criterion) {
    let ctx = context();
    let mut g = c.benchmark_group("latency");
    g.sample_size(20);
    let n = 1usize << 16;
    let (x, y) = (random(n, 11), random(n, 12));
    let gx = ctx.upload(&x).unwrap();
    let mut gy = ctx.upload(&y).unwrap();
    g.bench_function("saxpy_2^16", |b| {
        b.iter_custom(|iters| {
            calls_then_read(iters, |last| {
                ctx.saxpy(n as i32, 1e-3, &gx, 1, &mut gy, 1).unwrap();
                if last {
                    gy.read_range(0, 1).unwrap();
                }
            })
        })
    });
    g.bench_function("sdot_2^16", |b| {
        b.iter(|| ctx.sdot(n as i32, &gx, 1, &gy, 1).unwrap())
    });
    let m = 1024usize;
    let (a, xv) = (
        ctx.upload(&random(m * m, 13)).unwrap(),
        ctx.upload(&random(m, 14)).unwrap(),
    );
    let mut yv = ctx.upload(&random(m, 15)).unwrap();
    g.bench_function("sgemv_1024", |b| {
        b.iter_custom(|iters| {
            calls_then_read(iters, |last| {
                let mi = m as i32;
                ctx.sgemv(
                    ColMajor, NoTrans, mi, mi, 1.0, &a, mi, &xv, 1, 0.5, &mut yv, 1,
                )
                .unwrap();
                if last {
                    yv.read_range(0, 1).unwrap();
                }
            })
        })
    });
    let k = 64usize;
    let ki = k as i32;
    let (ga, gb) = (
        ctx.upload(&random(k * k, 16)).unwrap(),
        ctx.upload(&random(k * k, 17)).unwrap(),
    );
    let mut gc = ctx.upload(&random(k * k, 18)).unwrap();
    g.bench_function("sgemm_64", |b| {
        b.iter_custom(|iters| {
            calls_then_read(iters, |last| {
                ctx.sgemm(
                    ColMajor, NoTrans, NoTrans, ki, ki, ki, 1.0, &ga, ki, &gb, ki, 0.5, &mut gc, ki,
                )
                .unwrap();
                if last {
                    gc.read_range(0, 1).unwrap();
                }
            })
        })
    });
    // A unit upper triangle with small off-diagonal values: repeated solves stay bounded.
    let t = 256usize;
    let tri: Vec<f32> = random(t * t, 19)
        .iter()
        .map(|v| v * 1e-3 / t as f32)
        .collect();
    let ta = ctx.upload(&tri).unwrap();
    let mut tx = ctx.upload(&random(t, 20)).unwrap();
    g.bench_function("strsv_256", |b| {
        b.iter_custom(|iters| {
            calls_then_read(iters, |last| {
                let ti = t as i32;
                ctx.strsv(
                    ColMajor,
                    Uplo::Upper,
                    NoTrans,
                    Diag::Unit,
                    ti,
                    &ta,
                    ti,
                    &mut tx,
                    1,
                )
                .unwrap();
                if last {
                    tx.read_range(0, 1).unwrap();
                }
            })
        })
    });
    let s = 16usize;
    let si = s as i32;
    let (ha, hx) = (random(s * s, 21), random(s, 22));
    let mut hy = random(s, 23);
    g.bench_function("cblas_sgemv_16", |b| {
        b.iter(|| {
            cblas::sgemv(
                &ctx, ColMajor, NoTrans, si, si, 1.0, &ha, si, &hx, 1, 0.5, &mut hy, 1,
            )
            .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, saxpy, sdot, sgemv, sgemm, latency);
criterion_main!(benches);
