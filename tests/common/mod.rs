//! Shared test helpers: a per-thread context, random data, and safe wrappers over the CPU
//! reference BLAS (BLIS through its CBLAS interface).
#![allow(dead_code)]

extern crate blis_src;

use std::cell::RefCell;

use fragblas::{Context, ContextOptions, Tuning};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

thread_local! {
    static CTX: RefCell<Option<Context>> = const { RefCell::new(None) };
    static IMAGE_CTX: RefCell<Option<Context>> = const { RefCell::new(None) };
}

/// The test thread's context (contexts are per thread; each test runs on its own thread).
/// Tuning is off so that tests never time kernels or touch the user's tuning cache; each
/// kernel the tuner can pick is tested by name, and tests/tune.rs tests the tuner.
pub fn ctx() -> Context {
    CTX.with(|c| {
        c.borrow_mut()
            .get_or_insert_with(|| {
                Context::with_options(ContextOptions {
                    tuning: Some(Tuning::Off),
                    ..Default::default()
                })
                .expect("a GL context (Mesa llvmpipe in CI)")
            })
            .clone()
    })
}

/// A second context of the test thread whose level-1 update routines take the in-place
/// image-store path wherever the device has image stores (llvmpipe has), where `ctx()`
/// takes the rendering path on a software device.
pub fn image_ctx() -> Context {
    IMAGE_CTX.with(|c| {
        c.borrow_mut()
            .get_or_insert_with(|| {
                Context::with_options(ContextOptions {
                    tuning: Some(Tuning::Off),
                    image_stores: Some(true),
                    ..Default::default()
                })
                .expect("a GL context (Mesa llvmpipe in CI)")
            })
            .clone()
    })
}

/// Both contexts, for the routines that have two paths.
pub fn both_paths() -> [Context; 2] {
    [ctx(), image_ctx()]
}

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// Random reals in [-1, 1] scaled by random powers of two in [2^-4, 2^4]: varied
/// magnitudes and signs, never all equal, exactly representable scalings.
pub fn reals(rng: &mut StdRng, len: usize) -> Vec<f32> {
    (0..len)
        .map(|_| rng.gen_range(-1.0f32..1.0) * (1 << rng.gen_range(0..9)) as f32 / 16.0)
        .collect()
}

/// Random small integers in [-4, 4], never all zero for len >= 2: every partial sum of
/// products of up to 2^20 of them is an integer below 2^24, so f32 sums are exact in any order.
pub fn ints(rng: &mut StdRng, len: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..len).map(|_| rng.gen_range(-4i32..=4) as f32).collect();
    if len > 0 {
        v[0] = 3.0;
    }
    if len > 1 {
        v[len - 1] = -2.0;
    }
    v
}

/// Storage span of n elements with increment inc.
pub fn span(n: i32, inc: i32) -> usize {
    if n <= 0 {
        0
    } else {
        1 + (n as usize - 1) * inc.unsigned_abs() as usize
    }
}

/// Storage positions touched by n elements with increment inc, in logical order.
pub fn positions(n: i32, inc: i32) -> Vec<usize> {
    let a = inc.unsigned_abs() as usize;
    (0..n.max(0) as usize)
        .map(|i| {
            if inc > 0 {
                i * a
            } else {
                (n as usize - 1 - i) * a
            }
        })
        .collect()
}

/// Bitwise equality, with every NaN equal to every NaN.
pub fn same(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

pub fn assert_same_slices(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(same(*g, *w), "{what}: element {i}: got {g:?}, want {w:?}");
    }
}

/// Elementwise |got - want| <= tol(i), NaN where want is NaN, Inf of the same sign.
pub fn assert_close_slices(what: &str, got: &[f32], want: &[f32], tol: impl Fn(usize) -> f32) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= tol(i)
        };
        assert!(
            ok,
            "{what}: element {i}: got {g:?}, want {w:?} (tolerance {})",
            tol(i)
        );
    }
}

pub const EPS: f32 = f32::EPSILON;

/// Reference BLAS (BLIS) wrappers on host slices; the slices are sized by the caller.
pub mod cpu {
    use cblas_sys::*;

    pub fn saxpy(n: i32, alpha: f32, x: &[f32], incx: i32, y: &mut [f32], incy: i32) {
        // SAFETY: callers size x and y to the spans BLAS addresses.
        unsafe { cblas_saxpy(n, alpha, x.as_ptr(), incx, y.as_mut_ptr(), incy) }
    }
    pub fn scopy(n: i32, x: &[f32], incx: i32, y: &mut [f32], incy: i32) {
        // SAFETY: as above.
        unsafe { cblas_scopy(n, x.as_ptr(), incx, y.as_mut_ptr(), incy) }
    }
    pub fn sswap(n: i32, x: &mut [f32], incx: i32, y: &mut [f32], incy: i32) {
        // SAFETY: as above.
        unsafe { cblas_sswap(n, x.as_mut_ptr(), incx, y.as_mut_ptr(), incy) }
    }
    pub fn sscal(n: i32, alpha: f32, x: &mut [f32], incx: i32) {
        // SAFETY: as above.
        unsafe { cblas_sscal(n, alpha, x.as_mut_ptr(), incx) }
    }
    pub fn sdot(n: i32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> f32 {
        // SAFETY: as above.
        unsafe { cblas_sdot(n, x.as_ptr(), incx, y.as_ptr(), incy) }
    }
    pub fn sasum(n: i32, x: &[f32], incx: i32) -> f32 {
        // SAFETY: as above.
        unsafe { cblas_sasum(n, x.as_ptr(), incx) }
    }
    pub fn snrm2(n: i32, x: &[f32], incx: i32) -> f32 {
        // SAFETY: as above.
        unsafe { cblas_snrm2(n, x.as_ptr(), incx) }
    }
    /// 0-based, as CBLAS returns it.
    pub fn isamax(n: i32, x: &[f32], incx: i32) -> usize {
        // SAFETY: as above.
        unsafe { cblas_isamax(n, x.as_ptr(), incx) as usize }
    }
}

/// Column-major helpers for matrix tests.
pub mod mat {
    /// Rows and columns of the stored matrix behind op(X) of shape rows x cols.
    pub fn stored(rows: usize, cols: usize, trans: bool) -> (usize, usize) {
        if trans {
            (cols, rows)
        } else {
            (rows, cols)
        }
    }

    /// Elements a stored `r x c` matrix (in its own layout's sense: `outer` lines of `inner`
    /// elements with stride ld) spans.
    pub fn span(inner: usize, outer: usize, ld: usize) -> usize {
        if inner == 0 || outer == 0 {
            0
        } else {
            ld * (outer - 1) + inner
        }
    }
}

pub mod cpu_gemm {
    use cblas_sys::*;
    use fragblas::{Layout, Transpose};

    fn lay(l: Layout) -> CBLAS_LAYOUT {
        match l {
            Layout::RowMajor => CblasRowMajor,
            Layout::ColMajor => CblasColMajor,
        }
    }
    fn tr(t: Transpose) -> CBLAS_TRANSPOSE {
        match t {
            Transpose::NoTrans => CblasNoTrans,
            Transpose::Trans => CblasTrans,
            Transpose::ConjTrans => CblasConjTrans,
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn sgemm(
        layout: Layout,
        ta: Transpose,
        tb: Transpose,
        m: i32,
        n: i32,
        k: i32,
        alpha: f32,
        a: &[f32],
        lda: i32,
        b: &[f32],
        ldb: i32,
        beta: f32,
        c: &mut [f32],
        ldc: i32,
    ) {
        // SAFETY: callers size a, b, c to the spans the arguments address.
        unsafe {
            cblas_sgemm(
                lay(layout),
                tr(ta),
                tr(tb),
                m,
                n,
                k,
                alpha,
                a.as_ptr(),
                lda,
                b.as_ptr(),
                ldb,
                beta,
                c.as_mut_ptr(),
                ldc,
            )
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn sgemv(
        layout: Layout,
        t: Transpose,
        m: i32,
        n: i32,
        alpha: f32,
        a: &[f32],
        lda: i32,
        x: &[f32],
        incx: i32,
        beta: f32,
        y: &mut [f32],
        incy: i32,
    ) {
        // SAFETY: as above.
        unsafe {
            cblas_sgemv(
                lay(layout),
                tr(t),
                m,
                n,
                alpha,
                a.as_ptr(),
                lda,
                x.as_ptr(),
                incx,
                beta,
                y.as_mut_ptr(),
                incy,
            )
        }
    }
}
