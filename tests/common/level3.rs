//! Level-3 test helpers: the reference BLAS level-3 routines, and the check every level-3
//! case makes (device API and host API against the reference, within a tolerance on what
//! the routine writes, bit for bit everywhere else).

/// Reference BLAS level-3 routines (CBLAS, any layout), on host slices sized by the caller.
pub mod cpu3 {
    use super::super::cpu2::{dg, ul};
    use super::super::cpu_gemm::{lay, tr};
    use super::super::enums::{LEFT, RIGHT};
    use super::super::sym;
    use fragblas::{Diag, Layout, Side, Transpose, Uplo};

    type Fp = *const f32;
    type Mp = *mut f32;

    pub fn sd(s: Side) -> i32 {
        match s {
            Side::Left => LEFT,
            Side::Right => RIGHT,
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn ssymm(
        l: Layout,
        s: Side,
        u: Uplo,
        m: i32,
        n: i32,
        alpha: f32,
        a: &[f32],
        lda: i32,
        b: &[f32],
        ldb: i32,
        beta: f32,
        c: &mut [f32],
        ldc: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, i32, i32, f32, Fp, i32, Fp, i32, f32, Mp, i32);
        // SAFETY: callers size the slices to what the arguments address.
        unsafe {
            sym::<F>("cblas_ssymm")(
                lay(l),
                sd(s),
                ul(u),
                m,
                n,
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
    pub fn ssyrk(
        l: Layout,
        u: Uplo,
        t: Transpose,
        n: i32,
        k: i32,
        alpha: f32,
        a: &[f32],
        lda: i32,
        beta: f32,
        c: &mut [f32],
        ldc: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, i32, i32, f32, Fp, i32, f32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_ssyrk")(
                lay(l),
                ul(u),
                tr(t),
                n,
                k,
                alpha,
                a.as_ptr(),
                lda,
                beta,
                c.as_mut_ptr(),
                ldc,
            )
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn ssyr2k(
        l: Layout,
        u: Uplo,
        t: Transpose,
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
        type F = unsafe extern "C" fn(i32, i32, i32, i32, i32, f32, Fp, i32, Fp, i32, f32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>("cblas_ssyr2k")(
                lay(l),
                ul(u),
                tr(t),
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

    /// strmm or strsm (`name`).
    #[allow(clippy::too_many_arguments)]
    pub fn tr3(
        name: &str,
        l: Layout,
        s: Side,
        u: Uplo,
        t: Transpose,
        d: Diag,
        m: i32,
        n: i32,
        alpha: f32,
        a: &[f32],
        lda: i32,
        b: &mut [f32],
        ldb: i32,
    ) {
        type F = unsafe extern "C" fn(i32, i32, i32, i32, i32, i32, i32, f32, Fp, i32, Mp, i32);
        // SAFETY: as above.
        unsafe {
            sym::<F>(name)(
                lay(l),
                sd(s),
                ul(u),
                tr(t),
                dg(d),
                m,
                n,
                alpha,
                a.as_ptr(),
                lda,
                b.as_mut_ptr(),
                ldb,
            )
        }
    }
}

/// The check of one level-3 case.
pub mod check3 {
    use super::super::check2::magnitudes;
    use super::super::*;
    use fragblas::{Buffer, Context, Layout};

    /// Sizes, scalars and leading-dimension padding of the level-3 tests.
    pub const SIZES: [usize; 11] = [0, 1, 2, 3, 5, 9, 17, 33, 64, 65, 129];
    pub const SCALARS: [f32; 4] = [0.0, 1.0, -1.0, 0.7];
    /// Slots after each matrix's span: NaN that no routine may read or write.
    pub const PAD: usize = 3;

    /// The leading dimension of a `rows x cols` matrix in `layout`, `extra` past the least.
    pub fn ld(layout: Layout, rows: usize, cols: usize, extra: usize) -> usize {
        let inner = if layout == Layout::ColMajor {
            rows
        } else {
            cols
        };
        inner.max(1) + extra
    }

    /// Every slot the routine writes: `within` tolerance of `want`; every other slot: bit for
    /// bit what it held (`before`).
    pub fn assert_matrix(
        what: &str,
        got: &[f32],
        want: &[f32],
        before: &[f32],
        written: &[bool],
        tol: &dyn Fn(usize) -> f32,
    ) {
        assert_eq!(got.len(), want.len(), "{what}: lengths");
        for i in 0..got.len() {
            let (g, w) = (got[i], want[i]);
            if written.get(i).copied().unwrap_or(false) {
                let ok = if w.is_nan() {
                    g.is_nan()
                } else if w.is_infinite() {
                    g == w
                } else {
                    (g - w).abs() <= tol(i)
                };
                assert!(
                    ok,
                    "{what}: slot {i}: got {g:e}, want {w:e} (tolerance {:e})",
                    tol(i)
                );
            } else {
                assert!(
                    same(g, before[i]),
                    "{what}: slot {i} must not be written: {:e} became {g:e}",
                    before[i]
                );
            }
        }
    }

    /// The reference run of a case: `(a, b, c, alpha, beta)`.
    pub type Reference<'a> = &'a dyn Fn(&[f32], &[f32], &mut [f32], f32, f32);
    /// The host-API run of a case: `(a, b, c)`.
    pub type Host<'a> = &'a dyn Fn(&[f32], &[f32], &mut [f32]) -> fragblas::Result<()>;
    /// The device-API run of a case: `(a, b, c)`.
    pub type Device<'a> = &'a dyn Fn(&Buffer, &Buffer, &mut Buffer) -> fragblas::Result<()>;

    /// How far a result may be from the reference's.
    #[derive(Clone, Copy, Debug)]
    pub enum Tol {
        /// Sums of at most this many products: 2 (terms + 2) eps of the magnitude bound (the
        /// reference run on |a|, |b|, |c| with |alpha| and |beta|, NaN slots taken as 0:
        /// each side's rounding error is at most (terms + 2) eps times it).
        Product(usize),
        /// A triangular solve of this order with a matrix of condition at most 5 (in the
        /// infinity norm, `stored::dominant`): each side's forward error is at most about
        /// 5 (order + 2) eps max|x|; twice that.
        Solve(usize),
    }

    /// One case of a routine that updates `c` from `a` and `b` with `alpha` and `beta`:
    /// `reference(a, b, c, alpha, beta)` on the reference BLAS, `device(a, b, c)` on the
    /// device API and `host(a, b, c)` on the host API must agree on the `written` slots of
    /// c within `tol`, and leave every other slot of c, and a and b, as they were. `finite`
    /// says the reference result must be finite where written (the test's storage puts NaN
    /// only where nothing is read).
    #[allow(clippy::too_many_arguments)]
    pub fn check_mm(
        ctx: &Context,
        what: &str,
        (a, b, c0): (&[f32], &[f32], &[f32]),
        written: &[bool],
        (alpha, beta): (f32, f32),
        tol: Tol,
        finite: bool,
        reference: Reference,
        device: Device,
        host: Host,
    ) {
        let mut want = c0.to_vec();
        reference(a, b, &mut want, alpha, beta);
        if finite {
            for (i, w) in want.iter().enumerate() {
                assert!(
                    !written[i] || w.is_finite(),
                    "{what}: the reference read a NaN (slot {i}): the test's storage is wrong"
                );
            }
        }
        let mut bound = magnitudes(c0);
        reference(
            &magnitudes(a),
            &magnitudes(b),
            &mut bound,
            alpha.abs(),
            beta.abs(),
        );
        let x_max = (0..want.len())
            .filter(|&i| written[i] && want[i].is_finite())
            .fold(0.0f32, |m, i| m.max(want[i].abs()));
        let tol = |i: usize| {
            f32::MIN_POSITIVE
                + match tol {
                    Tol::Product(terms) => 2.0 * (terms as f32 + 2.0) * EPS * bound[i],
                    Tol::Solve(order) => 10.0 * (order as f32 + 2.0) * EPS * x_max,
                }
        };
        let (ga, gb) = (ctx.upload(a).unwrap(), ctx.upload(b).unwrap());
        let mut gc = ctx.upload(c0).unwrap();
        device(&ga, &gb, &mut gc).unwrap();
        let got = gc.to_vec().unwrap();
        assert_matrix(&format!("{what} device"), &got, &want, c0, written, &tol);
        let mut hc = c0.to_vec();
        host(a, b, &mut hc).unwrap();
        assert_matrix(&format!("{what} host"), &hc, &want, c0, written, &tol);
        assert_same_slices(&format!("{what} a"), &ga.to_vec().unwrap(), a);
        assert_same_slices(&format!("{what} b"), &gb.to_vec().unwrap(), b);
    }
}
