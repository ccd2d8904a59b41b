//! criterion benches: saxpy, sdot, sgemv and sgemm over sizes, resident (data already on the
//! GPU, timed up to a glFinish) and end-to-end (the CBLAS-shaped host call: upload, compute,
//! download), each beside the CPU BLAS (BLIS, one thread per core) on the same data. Throughput is set in flops,
//! so criterion's "elem/s" reads as FLOP/s. Programs are compiled before timing.
//!
//! `cargo bench` on llvmpipe runs level 1 up to 2^24 and sgemm up to 1024; on a hardware
//! device, up to 2^26 and 4096 (the benchmark table binary goes further).
//! `FRAGBLAS_BENCH_QUICK=1` keeps a run short.

extern crate blis_src;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fragblas::{cblas, Context, Layout, Transpose::NoTrans};
use rand::{Rng, SeedableRng};

fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| r.gen_range(-1.0f32..1.0)).collect()
}

fn quick() -> bool {
    std::env::var("FRAGBLAS_BENCH_QUICK").is_ok_and(|v| v != "0")
}

extern "C" {
    fn bli_thread_set_num_threads(n: i64);
}

fn context() -> Context {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: plain BLIS call setting its global thread count: the CPU side uses every core.
    unsafe { bli_thread_set_num_threads(threads as i64) };
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
            // SAFETY: x and cy hold n elements.
            b.iter(|| unsafe { cblas_sys::cblas_saxpy(ni, 0.5, x.as_ptr(), 1, cy.as_mut_ptr(), 1) })
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
            // SAFETY: x and y hold n elements.
            b.iter(|| unsafe { cblas_sys::cblas_sdot(ni, x.as_ptr(), 1, y.as_ptr(), 1) })
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
            b.iter(|| {
                // SAFETY: a holds n*n elements, x and cy n.
                unsafe {
                    cblas_sys::cblas_sgemv(
                        cblas_sys::CblasColMajor,
                        cblas_sys::CblasNoTrans,
                        ni,
                        ni,
                        1.0,
                        a.as_ptr(),
                        ni,
                        x.as_ptr(),
                        1,
                        0.5,
                        cy.as_mut_ptr(),
                        1,
                    )
                }
            })
        });
        let (ga, gx) = (ctx.upload(&a).unwrap(), ctx.upload(&x).unwrap());
        let mut gy = ctx.upload(&y).unwrap();
        g.bench_with_input(BenchmarkId::new("resident", n), &n, |b, _| {
            b.iter(|| {
                ctx.sgemv(
                    Layout::ColMajor,
                    NoTrans,
                    ni,
                    ni,
                    1.0,
                    &ga,
                    ni,
                    &gx,
                    1,
                    0.5,
                    &mut gy,
                    1,
                )
                .unwrap();
                ctx.finish().unwrap();
            })
        });
        let mut hy = y.clone();
        g.bench_with_input(BenchmarkId::new("e2e", n), &n, |b, _| {
            b.iter(|| {
                cblas::sgemv(
                    &ctx,
                    Layout::ColMajor,
                    NoTrans,
                    ni,
                    ni,
                    1.0,
                    &a,
                    ni,
                    &x,
                    1,
                    0.5,
                    &mut hy,
                    1,
                )
                .unwrap()
            })
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
            b.iter(|| {
                // SAFETY: a, bm, cc hold n*n elements.
                unsafe {
                    cblas_sys::cblas_sgemm(
                        cblas_sys::CblasColMajor,
                        cblas_sys::CblasNoTrans,
                        cblas_sys::CblasNoTrans,
                        ni,
                        ni,
                        ni,
                        1.0,
                        a.as_ptr(),
                        ni,
                        bm.as_ptr(),
                        ni,
                        0.0,
                        cc.as_mut_ptr(),
                        ni,
                    )
                }
            })
        });
        let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&bm).unwrap());
        let mut gc = ctx.upload(&cm).unwrap();
        g.bench_with_input(BenchmarkId::new("resident", n), &n, |b, _| {
            b.iter(|| {
                ctx.sgemm(
                    Layout::ColMajor,
                    NoTrans,
                    NoTrans,
                    ni,
                    ni,
                    ni,
                    1.0,
                    &ga,
                    ni,
                    &gb,
                    ni,
                    0.0,
                    &mut gc,
                    ni,
                )
                .unwrap();
                ctx.finish().unwrap();
            })
        });
        let mut hc = cm.clone();
        g.bench_with_input(BenchmarkId::new("e2e", n), &n, |b, _| {
            b.iter(|| {
                cblas::sgemm(
                    &ctx,
                    Layout::ColMajor,
                    NoTrans,
                    NoTrans,
                    ni,
                    ni,
                    ni,
                    1.0,
                    &a,
                    ni,
                    &bm,
                    ni,
                    0.0,
                    &mut hc,
                    ni,
                )
                .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, saxpy, sdot, sgemv, sgemm);
criterion_main!(benches);
