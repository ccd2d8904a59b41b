//! Square problems as both benchmark programs run them (the table, `examples/bench.rs`, and
//! the criterion benches, `benches/blas.rs`): column-major, no transposes, unit strides,
//! alpha 1 for the matrix routines, on the CPU BLAS (OpenBLAS, the system's
//! `libopenblas`), on device buffers, and through the CBLAS-shaped host API.
#![allow(dead_code)]

use fragblas::{cblas, Buffer, Context, Layout::ColMajor, Transpose::NoTrans};
use rand::{Rng, SeedableRng};

#[link(name = "openblas")]
extern "C" {
    fn openblas_set_num_threads(n: i32);
}

/// The CPU BLAS the benchmarks compare with.
pub const CPU_BLAS: &str = "OpenBLAS";

/// Lets the CPU BLAS use every core; returns how many that is.
pub fn cpu_blas_on_all_cores() -> usize {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: plain OpenBLAS call setting its global thread count.
    unsafe { openblas_set_num_threads(threads as i32) };
    threads
}

/// `len` values uniform in [-1, 1), the same for the same seed.
pub fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| r.gen_range(-1.0f32..1.0)).collect()
}

/// The CPU BLAS (OpenBLAS through CBLAS) on host slices.
pub mod cpu {
    pub fn saxpy(n: i32, alpha: f32, x: &[f32], y: &mut [f32]) {
        assert!(x.len() >= n as usize && y.len() >= n as usize);
        // SAFETY: x and y hold n elements (asserted).
        unsafe { cblas_sys::cblas_saxpy(n, alpha, x.as_ptr(), 1, y.as_mut_ptr(), 1) }
    }

    pub fn sdot(n: i32, x: &[f32], y: &[f32]) -> f32 {
        assert!(x.len() >= n as usize && y.len() >= n as usize);
        // SAFETY: x and y hold n elements (asserted).
        unsafe { cblas_sys::cblas_sdot(n, x.as_ptr(), 1, y.as_ptr(), 1) }
    }

    /// y := A x + beta y, A n x n.
    pub fn sgemv(n: i32, a: &[f32], x: &[f32], beta: f32, y: &mut [f32]) {
        let nu = n as usize;
        assert!(a.len() >= nu * nu && x.len() >= nu && y.len() >= nu);
        // SAFETY: a holds n*n elements, x and y n (asserted).
        unsafe {
            cblas_sys::cblas_sgemv(
                cblas_sys::CblasColMajor,
                cblas_sys::CblasNoTrans,
                n,
                n,
                1.0,
                a.as_ptr(),
                n,
                x.as_ptr(),
                1,
                beta,
                y.as_mut_ptr(),
                1,
            )
        }
    }

    /// C := A B + beta C, all n x n.
    pub fn sgemm(n: i32, a: &[f32], b: &[f32], beta: f32, c: &mut [f32]) {
        let nn = n as usize * n as usize;
        assert!(a.len() >= nn && b.len() >= nn && c.len() >= nn);
        // SAFETY: a, b and c hold n*n elements (asserted).
        unsafe {
            cblas_sys::cblas_sgemm(
                cblas_sys::CblasColMajor,
                cblas_sys::CblasNoTrans,
                cblas_sys::CblasNoTrans,
                n,
                n,
                n,
                1.0,
                a.as_ptr(),
                n,
                b.as_ptr(),
                n,
                beta,
                c.as_mut_ptr(),
                n,
            )
        }
    }
}

/// y := A x + beta y on device buffers.
pub fn sgemv_device(ctx: &Context, n: i32, a: &Buffer, x: &Buffer, beta: f32, y: &mut Buffer) {
    ctx.sgemv(ColMajor, NoTrans, n, n, 1.0, a, n, x, 1, beta, y, 1)
        .unwrap()
}

/// C := A B + beta C on device buffers (kernel chosen by `GemmKernel::Auto`).
pub fn sgemm_device(ctx: &Context, n: i32, a: &Buffer, b: &Buffer, beta: f32, c: &mut Buffer) {
    ctx.sgemm(
        ColMajor, NoTrans, NoTrans, n, n, n, 1.0, a, n, b, n, beta, c, n,
    )
    .unwrap()
}

/// y := A x + beta y through the CBLAS-shaped host API (upload, compute, download).
pub fn sgemv_host(ctx: &Context, n: i32, a: &[f32], x: &[f32], beta: f32, y: &mut [f32]) {
    cblas::sgemv(ctx, ColMajor, NoTrans, n, n, 1.0, a, n, x, 1, beta, y, 1).unwrap()
}

/// C := A B + beta C through the CBLAS-shaped host API.
pub fn sgemm_host(ctx: &Context, n: i32, a: &[f32], b: &[f32], beta: f32, c: &mut [f32]) {
    cblas::sgemm(
        ctx, ColMajor, NoTrans, NoTrans, n, n, n, 1.0, a, n, b, n, beta, c, n,
    )
    .unwrap()
}
