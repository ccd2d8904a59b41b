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
    static INVERSE_CTX: RefCell<Option<Context>> = const { RefCell::new(None) };
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
/// A context whose level-2 triangular solves apply inverted diagonal blocks (the hardware
/// default; software devices solve block by block).
#[allow(dead_code)]
pub fn inverse_ctx() -> Context {
    INVERSE_CTX.with(|c| {
        c.borrow_mut()
            .get_or_insert_with(|| {
                Context::with_options(ContextOptions {
                    tuning: Some(Tuning::Off),
                    inverse_solves: Some(true),
                    ..Default::default()
                })
                .expect("a GL context (Mesa llvmpipe in CI)")
            })
            .clone()
    })
}

/// A context that solves by inverted diagonal blocks and has image stores (as a GPU with
/// GL 4.3 / GLES 3.1): the inversion pass runs one fragment a column of a block's inverse,
/// strsm applies the inverses to four columns of 8 rows a fragment.
#[allow(dead_code)]
pub fn inverse_image_ctx() -> Context {
    Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        inverse_solves: Some(true),
        image_stores: Some(true),
        ..Default::default()
    })
    .expect("a GL context (Mesa llvmpipe in CI)")
}

/// A context whose level-2 products split their sums into interleaved chunks (the hardware
/// default; `ContextOptions::interleaved_products`), with buffer textures `width_cap`
/// texels wide: with a narrow texture and a suitable leading dimension, the products also
/// spread their reads (neighbouring chunks and results a few texels apart) and have a tail.
#[allow(dead_code)]
pub fn interleaved_ctx(width_cap: u32) -> Context {
    Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        interleaved_products: Some(true),
        width_cap: Some(width_cap),
        ..Default::default()
    })
    .expect("a GL context (Mesa llvmpipe in CI)")
}

/// [`interleaved_ctx`] with image stores forced on where the device has them (as on a GPU):
/// symmetric packed products are then unpacked into full storage first, and the level-2
/// kernels that read a vector texel a matrix texel read it from a storage buffer
/// (`ContextOptions::vector_blocks`) whatever the size (a GPU does so from 2^22 elements).
#[allow(dead_code)]
pub fn gpu_paths_ctx(width_cap: u32) -> Context {
    Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        interleaved_products: Some(true),
        image_stores: Some(true),
        vector_blocks: Some(true),
        width_cap: Some(width_cap),
        ..Default::default()
    })
    .expect("a GL context (Mesa llvmpipe in CI)")
}

/// [`gpu_paths_ctx`] with ssymv's product on warps wherever the device has warp operations
/// (`ContextOptions::warp_products`; llvmpipe's desktop GL by ballots, a GPU by default).
#[allow(dead_code)]
pub fn warp_ctx(width_cap: u32) -> Context {
    Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        interleaved_products: Some(true),
        image_stores: Some(true),
        vector_blocks: Some(true),
        warp_products: Some(true),
        width_cap: Some(width_cap),
        ..Default::default()
    })
    .expect("a GL context (Mesa llvmpipe in CI)")
}

/// One of the level-2 solves' paths in the tests: its context, the orders it covers, and
/// `every`: the sweeps run one case in `every`.
#[allow(dead_code)]
pub struct SolvePath {
    pub ctx: Context,
    pub orders: std::ops::RangeInclusive<usize>,
    pub every: usize,
}

/// Both of the level-2 solves' paths: block by block (every order, every case), and by
/// inverted blocks (orders of two blocks and more: one block is solved by substitution on
/// both paths). Where `FRAGBLAS_TEST_MAX_ORDER` is set (CI sets it for softpipe, which
/// interprets the inversion pass's thousands of block solves slowly), the inverse path
/// covers orders up to it and one case in eight.
#[allow(dead_code)]
pub fn both_solves() -> [SolvePath; 2] {
    let max = max_order();
    [
        SolvePath {
            ctx: ctx(),
            orders: 0..=usize::MAX,
            every: 1,
        },
        SolvePath {
            ctx: inverse_ctx(),
            orders: 65..=max.unwrap_or(usize::MAX),
            every: if max.is_some() { 8 } else { 1 },
        },
    ]
}

/// `FRAGBLAS_TEST_MAX_ORDER`, where it is set: the largest order of the solves that run
/// on a path the slow minimal device takes (CI sets it for softpipe).
#[allow(dead_code)]
pub fn max_order() -> Option<usize> {
    std::env::var("FRAGBLAS_TEST_MAX_ORDER")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
}

/// `FRAGBLAS_TEST_THIN`, where it is set (CI sets it for the GLES run, whose kernels the GL
/// run has checked on every case, and for the minimal devices, which run the same sweeps
/// through slower paths): the widest sweeps run one case in this many, still rotating
/// through every combination. 1 where it is not set.
#[allow(dead_code)]
pub fn thin() -> usize {
    std::env::var("FRAGBLAS_TEST_THIN")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1)
}

/// Whether case `c` of a sweep runs: every case, or with `FRAGBLAS_TEST_THIN` = t one in t,
/// rotating by one place each `period` cases. With `period` the number of the inner loops'
/// combinations, each combination runs at one in t of the outer loops' values, the
/// combinations taking turns.
#[allow(dead_code)]
pub fn kept(c: usize, period: usize) -> bool {
    (c + c / period.max(1)).is_multiple_of(thin())
}

pub fn both_paths() -> [Context; 2] {
    [ctx(), image_ctx()]
}

/// The vector lengths of `all` this run tests: every one, or those up to
/// `FRAGBLAS_TEST_MAX_LEN` where it is set (CI sets it for the slow GL 3.3 software device,
/// softpipe, which runs every path on the shorter vectors).
pub fn sizes(all: &[i32]) -> Vec<i32> {
    let max = std::env::var("FRAGBLAS_TEST_MAX_LEN")
        .ok()
        .and_then(|v| v.parse::<i32>().ok())
        .unwrap_or(i32::MAX);
    all.iter().copied().filter(|&n| n <= max).collect()
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

/// NaN where want is NaN, the same Inf where want is infinite, a finite value elsewhere:
/// where reference's special values went, whatever the rounding of the finite ones.
#[allow(dead_code)]
pub fn assert_same_specials(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let at = format!("{what} element {i}: got {g}, want {w}");
        if w.is_nan() {
            assert!(g.is_nan(), "{at}");
        } else if w.is_infinite() {
            assert_eq!(g, w, "{at}");
        } else {
            assert!(g.is_finite(), "{at}");
        }
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

/// Reference BLAS level-2 routines (CBLAS, any layout), on host slices sized by the caller.
pub mod cpu2 {
    use super::sym;
    use fragblas::{Diag, Layout, Transpose, Uplo};

    pub fn ul(u: Uplo) -> i32 {
        match u {
            Uplo::Upper => super::enums::UPPER,
            Uplo::Lower => super::enums::LOWER,
        }
    }
    pub fn dg(d: Diag) -> i32 {
        match d {
            Diag::NonUnit => super::enums::NON_UNIT,
            Diag::Unit => super::enums::UNIT,
        }
    }
    use super::cpu_gemm::{lay, tr};

    type Fp = *const f32;
    type Mp = *mut f32;

    #[allow(clippy::too_many_arguments)]
    pub fn sgbmv(
        l: Layout,
        t: Transpose,
        m: i32,
        n: i32,
        kl: i32,
        ku: i32,
        alpha: f32,
        a: &[f32],
        lda: i32,
        x: &[f32],
        incx: i32,
        beta: f32,
        y: &mut [f32],
        incy: i32,
    ) {
        type F =
            unsafe extern "C" fn(i32, i32, i32, i32, i32, i32, f32, Fp, i32, Fp, i32, f32, Mp, i32);
        // SAFETY: callers size the slices to what the arguments address.
        unsafe {
            sym::<F>("cblas_sgbmv")(
                lay(l),
                tr(t),
                m,
                n,
                kl,
                ku,
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
    #[allow(clippy::too_many_arguments)]
    pub fn ssymv(
        l: Layout,
        u: Uplo,
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
        type F = unsafe extern "C" fn(i32, i32, i32, f32, Fp, i32, Fp, i32, f32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_ssymv")(
                lay(l),
                ul(u),
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
    #[allow(clippy::too_many_arguments)]
    pub fn ssbmv(
        l: Layout,
        u: Uplo,
        n: i32,
        k: i32,
        alpha: f32,
        a: &[f32],
        lda: i32,
        x: &[f32],
        incx: i32,
        beta: f32,
        y: &mut [f32],
        incy: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, i32, f32, Fp, i32, Fp, i32, f32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_ssbmv")(
                lay(l),
                ul(u),
                n,
                k,
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
    #[allow(clippy::too_many_arguments)]
    pub fn sspmv(
        l: Layout,
        u: Uplo,
        n: i32,
        alpha: f32,
        ap: &[f32],
        x: &[f32],
        incx: i32,
        beta: f32,
        y: &mut [f32],
        incy: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, f32, Fp, Fp, i32, f32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_sspmv")(
                lay(l),
                ul(u),
                n,
                alpha,
                ap.as_ptr(),
                x.as_ptr(),
                incx,
                beta,
                y.as_mut_ptr(),
                incy,
            )
        }
    }
    /// strmv, strsv (`name`), full storage.
    #[allow(clippy::too_many_arguments)]
    pub fn tr_full(
        name: &str,
        l: Layout,
        u: Uplo,
        t: Transpose,
        d: Diag,
        n: i32,
        a: &[f32],
        lda: i32,
        x: &mut [f32],
        incx: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, i32, i32, Fp, i32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>(name)(
                lay(l),
                ul(u),
                tr(t),
                dg(d),
                n,
                a.as_ptr(),
                lda,
                x.as_mut_ptr(),
                incx,
            )
        }
    }
    /// stbmv, stbsv (`name`), band storage.
    #[allow(clippy::too_many_arguments)]
    pub fn tr_band(
        name: &str,
        l: Layout,
        u: Uplo,
        t: Transpose,
        d: Diag,
        n: i32,
        k: i32,
        a: &[f32],
        lda: i32,
        x: &mut [f32],
        incx: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, i32, i32, i32, Fp, i32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>(name)(
                lay(l),
                ul(u),
                tr(t),
                dg(d),
                n,
                k,
                a.as_ptr(),
                lda,
                x.as_mut_ptr(),
                incx,
            )
        }
    }
    /// stpmv, stpsv (`name`), packed storage.
    #[allow(clippy::too_many_arguments)]
    pub fn tr_packed(
        name: &str,
        l: Layout,
        u: Uplo,
        t: Transpose,
        d: Diag,
        n: i32,
        ap: &[f32],
        x: &mut [f32],
        incx: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, i32, i32, Fp, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>(name)(
                lay(l),
                ul(u),
                tr(t),
                dg(d),
                n,
                ap.as_ptr(),
                x.as_mut_ptr(),
                incx,
            )
        }
    }
    #[allow(clippy::too_many_arguments)]
    pub fn sger(
        l: Layout,
        m: i32,
        n: i32,
        alpha: f32,
        x: &[f32],
        incx: i32,
        y: &[f32],
        incy: i32,
        a: &mut [f32],
        lda: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, f32, Fp, i32, Fp, i32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_sger")(
                lay(l),
                m,
                n,
                alpha,
                x.as_ptr(),
                incx,
                y.as_ptr(),
                incy,
                a.as_mut_ptr(),
                lda,
            )
        }
    }
    #[allow(clippy::too_many_arguments)]
    pub fn ssyr(
        l: Layout,
        u: Uplo,
        n: i32,
        alpha: f32,
        x: &[f32],
        incx: i32,
        a: &mut [f32],
        lda: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, f32, Fp, i32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_ssyr")(
                lay(l),
                ul(u),
                n,
                alpha,
                x.as_ptr(),
                incx,
                a.as_mut_ptr(),
                lda,
            )
        }
    }
    pub fn sspr(l: Layout, u: Uplo, n: i32, alpha: f32, x: &[f32], incx: i32, ap: &mut [f32]) {
        type F = unsafe extern "C" fn(i32, i32, i32, f32, Fp, i32, Mp);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_sspr")(lay(l), ul(u), n, alpha, x.as_ptr(), incx, ap.as_mut_ptr())
        }
    }
    #[allow(clippy::too_many_arguments)]
    pub fn ssyr2(
        l: Layout,
        u: Uplo,
        n: i32,
        alpha: f32,
        x: &[f32],
        incx: i32,
        y: &[f32],
        incy: i32,
        a: &mut [f32],
        lda: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, f32, Fp, i32, Fp, i32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_ssyr2")(
                lay(l),
                ul(u),
                n,
                alpha,
                x.as_ptr(),
                incx,
                y.as_ptr(),
                incy,
                a.as_mut_ptr(),
                lda,
            )
        }
    }
    #[allow(clippy::too_many_arguments)]
    pub fn sspr2(
        l: Layout,
        u: Uplo,
        n: i32,
        alpha: f32,
        x: &[f32],
        incx: i32,
        y: &[f32],
        incy: i32,
        ap: &mut [f32],
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, f32, Fp, i32, Fp, i32, Mp);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_sspr2")(
                lay(l),
                ul(u),
                n,
                alpha,
                x.as_ptr(),
                incx,
                y.as_ptr(),
                incy,
                ap.as_mut_ptr(),
            )
        }
    }
}

/// Level-2 matrices in the user's layout, in every storage: which storage slot holds
/// element (i, j), and a builder that fills the slots a routine reads with random values
/// and every other slot (gaps past the rows, the other triangle, an implicit unit diagonal,
/// band slots outside the matrix) with NaN, which no routine may read.
pub mod stored {
    use fragblas::{Diag, Layout, Uplo};
    use rand::rngs::StdRng;
    use rand::Rng;

    /// How the matrix is stored.
    #[derive(Clone, Copy, Debug)]
    pub enum Kind {
        /// Full storage with leading dimension `ld`.
        Full,
        /// General band with `kl` sub- and `ku` super-diagonals.
        GenBand { kl: usize, ku: usize },
        /// Symmetric or triangular band with `k` diagonals beside the diagonal.
        Band { k: usize },
        /// Packed triangle.
        Packed,
    }

    /// What the matrix is: general (every element of the storage), or one triangle
    /// (symmetric, or triangular with a unit diagonal or not).
    #[derive(Clone, Copy, Debug)]
    pub enum What {
        General,
        Triangle(Uplo, Option<Diag>),
    }

    /// The slot of element (i, j) of an `m x n` matrix, if the storage holds it.
    #[allow(clippy::too_many_arguments)]
    pub fn slot(
        layout: Layout,
        kind: Kind,
        what: What,
        m: usize,
        n: usize,
        ld: usize,
        i: usize,
        j: usize,
    ) -> Option<usize> {
        let row = layout == Layout::RowMajor;
        let (i_, j_) = (i as i64, j as i64);
        if let What::Triangle(u, _) = what {
            let inside = match u {
                Uplo::Upper => i <= j,
                Uplo::Lower => i >= j,
            };
            if !inside {
                return None;
            }
        }
        let uplo = match what {
            What::Triangle(u, _) => Some(u),
            What::General => None,
        };
        let idx = match kind {
            Kind::Full => {
                if row {
                    j + i * ld
                } else {
                    i + j * ld
                }
            }
            Kind::GenBand { kl, ku } => {
                if i_ - j_ > kl as i64 || j_ - i_ > ku as i64 {
                    return None;
                }
                if row {
                    (kl as i64 + j_ - i_) as usize + i * ld
                } else {
                    (ku as i64 + i_ - j_) as usize + j * ld
                }
            }
            Kind::Band { k } => {
                if (i_ - j_).abs() > k as i64 {
                    return None;
                }
                match (row, uplo.expect("a symmetric or triangular band")) {
                    (false, Uplo::Upper) => k + i - j + j * ld,
                    (false, Uplo::Lower) => i - j + j * ld,
                    (true, Uplo::Upper) => j - i + i * ld,
                    (true, Uplo::Lower) => k + j - i + i * ld,
                }
            }
            Kind::Packed => match (row, uplo.expect("a packed triangle")) {
                (false, Uplo::Upper) => i + j * (j + 1) / 2,
                (false, Uplo::Lower) => i + j * (2 * n - j - 1) / 2,
                (true, Uplo::Upper) => j + i * (2 * n - i - 1) / 2,
                (true, Uplo::Lower) => j + i * (i + 1) / 2,
            },
        };
        let _ = m;
        Some(idx)
    }

    /// Whether a routine reads element (i, j): stored, and not a unit diagonal.
    pub fn read(what: What, i: usize, j: usize) -> bool {
        !(matches!(what, What::Triangle(_, Some(Diag::Unit))) && i == j)
    }

    /// Slots the storage spans: `len` with room for every stored element.
    #[allow(clippy::too_many_arguments)]
    pub fn len(layout: Layout, kind: Kind, what: What, m: usize, n: usize, ld: usize) -> usize {
        let mut end = 0;
        for i in 0..m {
            for j in 0..n {
                if let Some(s) = slot(layout, kind, what, m, n, ld, i, j) {
                    end = end.max(s + 1);
                }
            }
        }
        end
    }

    /// A stored `m x n` matrix: NaN everywhere but the slots read, which get `value(i, j)`;
    /// `extra` more slots of NaN after the end.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        layout: Layout,
        kind: Kind,
        what: What,
        m: usize,
        n: usize,
        ld: usize,
        extra: usize,
        mut value: impl FnMut(usize, usize) -> f32,
    ) -> Vec<f32> {
        let mut v = vec![f32::NAN; len(layout, kind, what, m, n, ld) + extra];
        for j in 0..n {
            for i in 0..m {
                if let Some(s) = slot(layout, kind, what, m, n, ld, i, j) {
                    if read(what, i, j) {
                        v[s] = value(i, j);
                    }
                }
            }
        }
        v
    }

    /// Random values in [-1, 1].
    pub fn random(r: &mut StdRng) -> impl FnMut(usize, usize) -> f32 + '_ {
        move |_, _| r.gen_range(-1.0f32..1.0)
    }

    /// A well-conditioned triangle: diagonal entries of magnitude in [1, 2], the others
    /// scaled so that each row's off-diagonal magnitudes add up to at most 1/2. Then the
    /// inverse has infinity norm at most 2 and the matrix at most 2.5: condition <= 5.
    pub fn dominant(r: &mut StdRng, off_per_row: usize) -> impl FnMut(usize, usize) -> f32 + '_ {
        let scale = 0.5 / off_per_row.max(1) as f32;
        move |i, j| {
            if i == j {
                let v = r.gen_range(1.0f32..2.0);
                if r.gen_bool(0.5) {
                    -v
                } else {
                    v
                }
            } else {
                r.gen_range(-1.0f32..1.0) * scale
            }
        }
    }

    /// The slots holding the matrix's elements that a routine may write (every stored
    /// element, unit diagonal included).
    #[allow(clippy::too_many_arguments)]
    pub fn written(
        layout: Layout,
        kind: Kind,
        what: What,
        m: usize,
        n: usize,
        ld: usize,
        total: usize,
    ) -> Vec<bool> {
        let mut w = vec![false; total];
        for j in 0..n {
            for i in 0..m {
                if let Some(s) = slot(layout, kind, what, m, n, ld, i, j) {
                    w[s] = true;
                }
            }
        }
        w
    }
}

/// The checks every level-2 test file makes, against the reference BLAS.
pub mod check2 {
    use super::*;
    use fragblas::{Buffer, Context};

    /// Increments, scalars and band widths of the level-2 tests.
    pub const INCS: [i32; 4] = [-2, -1, 1, 2];
    pub const SCALARS: [f32; 4] = [0.0, 1.0, -1.0, 0.7];
    pub const SIZES: [usize; 15] = [0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 64, 65, 257];
    /// Elements past every vector's and matrix's span: sentinels that must not change.
    pub const PAD: usize = 3;

    /// Band widths {0, 1, 2, n-1, n+1} for an order n, without repeats.
    pub fn widths(n: usize) -> Vec<usize> {
        let mut w = vec![0, 1, 2, n.saturating_sub(1), n + 1];
        w.sort();
        w.dedup();
        w
    }

    /// The c-th pick of (incx, incy, alpha, beta): over 256 consecutive c, every
    /// combination once (the factors of c run at different speeds).
    pub fn pick(c: usize) -> (i32, i32, f32, f32) {
        (
            INCS[c % 4],
            INCS[(c / 4) % 4],
            SCALARS[(c / 16) % 4],
            SCALARS[(c / 64) % 4],
        )
    }

    /// A vector of `n` logical elements with increment `inc`: random, PAD more after.
    pub fn vector(r: &mut StdRng, n: usize, inc: i32) -> Vec<f32> {
        reals(r, span(n as i32, inc) + PAD)
    }

    /// Sets the logical elements of a vector to `v`.
    pub fn set_logical(x: &mut [f32], n: usize, inc: i32, v: f32) {
        for p in positions(n as i32, inc) {
            x[p] = v;
        }
    }

    /// |v| with NaN taken as 0: the magnitudes of what a routine reads (NaN marks slots it
    /// does not read).
    pub fn magnitudes(v: &[f32]) -> Vec<f32> {
        v.iter()
            .map(|x| if x.is_nan() { 0.0 } else { x.abs() })
            .collect()
    }

    /// Checks `y` (n logical elements, increment inc) against `want`: within `tol(i)` on
    /// the logical elements, bit for bit elsewhere (`before` holds what was there).
    pub fn assert_vector(
        what: &str,
        got: &[f32],
        want: &[f32],
        before: &[f32],
        n: usize,
        inc: i32,
        tol: impl Fn(usize) -> f32,
    ) {
        let mut logical = vec![false; before.len()];
        positions(n as i32, inc)
            .into_iter()
            .for_each(|p| logical[p] = true);
        assert_eq!(got.len(), want.len(), "{what}: lengths");
        for i in 0..got.len() {
            if logical[i] {
                let (g, w) = (got[i], want[i]);
                let ok = if w.is_nan() {
                    g.is_nan()
                } else if w.is_infinite() {
                    g == w
                } else {
                    (g - w).abs() <= tol(i)
                };
                assert!(
                    ok,
                    "{what}: element {i}: got {g:e}, want {w:e} (tolerance {:e})",
                    tol(i)
                );
            } else {
                assert!(
                    same(got[i], before[i]),
                    "{what}: element {i} outside the vector changed"
                );
            }
        }
    }

    /// A matrix-vector case: `y := alpha*op(A)*x + beta*y` with `terms` products per
    /// element; `reference(a, x, y, alpha, beta)`, `device(a, x, y)` and `host(a, x, y)`
    /// run it on the reference BLAS, the device API and the host API.
    #[allow(clippy::too_many_arguments)]
    pub fn check_mv(
        ctx: &Context,
        r: &mut StdRng,
        what: &str,
        a: &[f32],
        (len_x, incx): (usize, i32),
        (len_y, incy): (usize, i32),
        (alpha, beta): (f32, f32),
        terms: usize,
        reference: impl Fn(&[f32], &[f32], &mut [f32], f32, f32),
        device: impl Fn(&Buffer, &Buffer, &mut Buffer) -> fragblas::Result<()>,
        host: impl Fn(&[f32], &[f32], &mut [f32]) -> fragblas::Result<()>,
    ) {
        let mut a = a.to_vec();
        let mut x = vector(r, len_x, incx);
        // alpha == 0: A and x are not read at all.
        if alpha == 0.0 {
            a.iter_mut().for_each(|v| *v = f32::NAN);
            x.iter_mut().for_each(|v| *v = f32::NAN);
        }
        let mut y0 = vector(r, len_y, incy);
        // beta == 0: y is not read.
        if beta == 0.0 {
            set_logical(&mut y0, len_y, incy, f32::NAN);
        }
        let mut want = y0.clone();
        reference(&a, &x, &mut want, alpha, beta);
        // (An empty matrix is reference's quick return: y keeps what it had.)
        if len_x > 0 {
            for p in positions(len_y as i32, incy) {
                assert!(
                    want[p].is_finite(),
                    "{what}: the reference read a NaN (element {p}): the test's storage is wrong"
                );
            }
        }
        let mut bound = vec![0.0f32; y0.len()];
        reference(&magnitudes(&a), &magnitudes(&x), &mut bound, 1.0, 0.0);
        let y_abs = magnitudes(&y0);
        // Both sides sum `terms` products in some order: each within (terms + 2) eps of
        // the exact value in units of alpha |A||x| + |beta y|; the check allows the sum.
        let tol = |i: usize| {
            2.0 * (terms as f32 + 2.0) * EPS * (alpha.abs() * bound[i] + beta.abs() * y_abs[i])
                + f32::MIN_POSITIVE
        };
        let (ga, gx) = (ctx.upload(&a).unwrap(), ctx.upload(&x).unwrap());
        let mut gy = ctx.upload(&y0).unwrap();
        device(&ga, &gx, &mut gy).unwrap();
        assert_vector(
            &format!("{what} device"),
            &gy.to_vec().unwrap(),
            &want,
            &y0,
            len_y,
            incy,
            tol,
        );
        let mut hy = y0.clone();
        host(&a, &x, &mut hy).unwrap();
        assert_vector(&format!("{what} host"), &hy, &want, &y0, len_y, incy, tol);
        // A and x are unchanged.
        assert_same_slices(&format!("{what} a"), &ga.to_vec().unwrap(), &a);
        assert_same_slices(&format!("{what} x"), &gx.to_vec().unwrap(), &x);
    }
}

pub mod level3;
