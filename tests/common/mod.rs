//! Shared test helpers: a per-thread context, random data, and safe wrappers over the CPU
//! reference BLAS: netlib's reference BLAS (Debian's `libblas3`, 3.11, through its CBLAS
//! interface), loaded at run time from `/usr/lib/x86_64-linux-gnu/blas/libblas.so.3` or the
//! path in `FRAGBLAS_TEST_BLAS`. The reference implementation, not a tuned one, because the
//! tests check reference semantics (zero increments, NaN in isamax, quick returns), where
//! tuned BLAS libraries differ from it.
#![allow(dead_code)]

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

/// The reference BLAS library, loaded once.
pub fn reference_blas() -> &'static libloading::Library {
    static LIB: std::sync::OnceLock<libloading::Library> = std::sync::OnceLock::new();
    LIB.get_or_init(|| {
        let path = std::env::var("FRAGBLAS_TEST_BLAS")
            .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3".into());
        // SAFETY: loading the reference BLAS runs no initialisers with preconditions.
        unsafe { libloading::Library::new(&path) }.unwrap_or_else(|e| {
            panic!(
                "the reference BLAS {path} (apt-get install libblas3, or FRAGBLAS_TEST_BLAS): {e}"
            )
        })
    })
}

/// A function of the reference BLAS by name, e.g. `sym::<unsafe extern "C" fn(..)>("cblas_saxpy")`.
pub fn sym<T: Copy>(name: &str) -> T {
    let c = format!("{name}\0");
    // SAFETY: callers name the C type of the symbol they ask for.
    unsafe { *reference_blas().get::<T>(c.as_bytes()).expect(name) }
}

/// CBLAS enum values (netlib `cblas.h`).
pub mod enums {
    pub const ROW_MAJOR: i32 = 101;
    pub const COL_MAJOR: i32 = 102;
    pub const NO_TRANS: i32 = 111;
    pub const TRANS: i32 = 112;
    pub const CONJ_TRANS: i32 = 113;
    pub const UPPER: i32 = 121;
    pub const LOWER: i32 = 122;
    pub const NON_UNIT: i32 = 131;
    pub const UNIT: i32 = 132;
    pub const LEFT: i32 = 141;
    pub const RIGHT: i32 = 142;
}

/// Reference BLAS wrappers on host slices; the slices are sized by the caller.
pub mod cpu {
    use super::sym;
    type Axpy = unsafe extern "C" fn(i32, f32, *const f32, i32, *mut f32, i32);
    type Copy2 = unsafe extern "C" fn(i32, *const f32, i32, *mut f32, i32);
    type Swap = unsafe extern "C" fn(i32, *mut f32, i32, *mut f32, i32);
    type Scal = unsafe extern "C" fn(i32, f32, *mut f32, i32);
    type Dot = unsafe extern "C" fn(i32, *const f32, i32, *const f32, i32) -> f32;
    type Red = unsafe extern "C" fn(i32, *const f32, i32) -> f32;
    type Iamax = unsafe extern "C" fn(i32, *const f32, i32) -> usize;
    type Rot = unsafe extern "C" fn(i32, *mut f32, i32, *mut f32, i32, f32, f32);
    type Rotm = unsafe extern "C" fn(i32, *mut f32, i32, *mut f32, i32, *const f32);
    type Rotg = unsafe extern "C" fn(*mut f32, *mut f32, *mut f32, *mut f32);
    type Rotmg = unsafe extern "C" fn(*mut f32, *mut f32, *mut f32, f32, *mut f32);
    type Sdsdot = unsafe extern "C" fn(i32, f32, *const f32, i32, *const f32, i32) -> f32;
    type Dsdot = unsafe extern "C" fn(i32, *const f32, i32, *const f32, i32) -> f64;

    pub fn saxpy(n: i32, alpha: f32, x: &[f32], incx: i32, y: &mut [f32], incy: i32) {
        // SAFETY: callers size x and y to the spans BLAS addresses.
        unsafe { sym::<Axpy>("cblas_saxpy")(n, alpha, x.as_ptr(), incx, y.as_mut_ptr(), incy) }
    }
    pub fn scopy(n: i32, x: &[f32], incx: i32, y: &mut [f32], incy: i32) {
        // SAFETY: as above.
        unsafe { sym::<Copy2>("cblas_scopy")(n, x.as_ptr(), incx, y.as_mut_ptr(), incy) }
    }
    pub fn sswap(n: i32, x: &mut [f32], incx: i32, y: &mut [f32], incy: i32) {
        // SAFETY: as above.
        unsafe { sym::<Swap>("cblas_sswap")(n, x.as_mut_ptr(), incx, y.as_mut_ptr(), incy) }
    }
    pub fn sscal(n: i32, alpha: f32, x: &mut [f32], incx: i32) {
        // SAFETY: as above.
        unsafe { sym::<Scal>("cblas_sscal")(n, alpha, x.as_mut_ptr(), incx) }
    }
    pub fn sdot(n: i32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> f32 {
        // SAFETY: as above.
        unsafe { sym::<Dot>("cblas_sdot")(n, x.as_ptr(), incx, y.as_ptr(), incy) }
    }
    pub fn sasum(n: i32, x: &[f32], incx: i32) -> f32 {
        // SAFETY: as above.
        unsafe { sym::<Red>("cblas_sasum")(n, x.as_ptr(), incx) }
    }
    pub fn snrm2(n: i32, x: &[f32], incx: i32) -> f32 {
        // SAFETY: as above.
        unsafe { sym::<Red>("cblas_snrm2")(n, x.as_ptr(), incx) }
    }
    /// 0-based, as CBLAS returns it (0 also when there is no element).
    pub fn isamax(n: i32, x: &[f32], incx: i32) -> usize {
        // SAFETY: as above.
        unsafe { sym::<Iamax>("cblas_isamax")(n, x.as_ptr(), incx) }
    }
    pub fn srot(n: i32, x: &mut [f32], incx: i32, y: &mut [f32], incy: i32, c: f32, s: f32) {
        // SAFETY: as above.
        unsafe { sym::<Rot>("cblas_srot")(n, x.as_mut_ptr(), incx, y.as_mut_ptr(), incy, c, s) }
    }
    pub fn srotm(n: i32, x: &mut [f32], incx: i32, y: &mut [f32], incy: i32, p: &[f32; 5]) {
        // SAFETY: as above; p holds the 5 parameters.
        unsafe {
            sym::<Rotm>("cblas_srotm")(n, x.as_mut_ptr(), incx, y.as_mut_ptr(), incy, p.as_ptr())
        }
    }
    /// (r, z, c, s) as reference SROTG leaves a, b, c, s.
    pub fn srotg(a: f32, b: f32) -> (f32, f32, f32, f32) {
        let (mut a, mut b, mut c, mut s) = (a, b, 0.0, 0.0);
        // SAFETY: four valid pointers to floats.
        unsafe { sym::<Rotg>("cblas_srotg")(&mut a, &mut b, &mut c, &mut s) };
        (a, b, c, s)
    }
    /// (d1, d2, x1) as reference SROTMG leaves them; `param` is updated in place.
    pub fn srotmg(d1: f32, d2: f32, x1: f32, y1: f32, param: &mut [f32; 5]) -> (f32, f32, f32) {
        let (mut d1, mut d2, mut x1) = (d1, d2, x1);
        // SAFETY: valid pointers; param holds 5 floats.
        unsafe { sym::<Rotmg>("cblas_srotmg")(&mut d1, &mut d2, &mut x1, y1, param.as_mut_ptr()) };
        (d1, d2, x1)
    }
    pub fn sdsdot(n: i32, sb: f32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> f32 {
        // SAFETY: as above.
        unsafe { sym::<Sdsdot>("cblas_sdsdot")(n, sb, x.as_ptr(), incx, y.as_ptr(), incy) }
    }
    pub fn dsdot(n: i32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> f64 {
        // SAFETY: as above.
        unsafe { sym::<Dsdot>("cblas_dsdot")(n, x.as_ptr(), incx, y.as_ptr(), incy) }
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
    use super::enums::*;
    use super::sym;
    use fragblas::{Layout, Transpose};

    pub fn lay(l: Layout) -> i32 {
        match l {
            Layout::RowMajor => ROW_MAJOR,
            Layout::ColMajor => COL_MAJOR,
        }
    }
    pub fn tr(t: Transpose) -> i32 {
        match t {
            Transpose::NoTrans => NO_TRANS,
            Transpose::Trans => TRANS,
            Transpose::ConjTrans => CONJ_TRANS,
        }
    }

    type Gemm = unsafe extern "C" fn(
        i32,
        i32,
        i32,
        i32,
        i32,
        i32,
        f32,
        *const f32,
        i32,
        *const f32,
        i32,
        f32,
        *mut f32,
        i32,
    );
    type Gemv = unsafe extern "C" fn(
        i32,
        i32,
        i32,
        i32,
        f32,
        *const f32,
        i32,
        *const f32,
        i32,
        f32,
        *mut f32,
        i32,
    );

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
            sym::<Gemm>("cblas_sgemm")(
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
            sym::<Gemv>("cblas_sgemv")(
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
