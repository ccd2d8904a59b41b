//! The `cblas` feature: code written against the `cblas` crate's enums ports with `.into()`,
//! and gives the reference BLAS's results.
#![cfg(feature = "cblas")]

mod common;

use cblas_crate::{Diagonal, Layout, Part, Side, Transpose};
use common::{cpu_gemm, ctx, reals, rng};
use fragblas::cblas;

#[test]
fn a_cblas_crate_call_ports_with_into() {
    let ctx = ctx();
    let mut r = rng(11);
    let (m, n, k) = (9, 7, 5);
    let a = reals(&mut r, m * k);
    let b = reals(&mut r, n * k);
    let c0 = reals(&mut r, m * n);
    // C := A * B^T in column-major storage, written as a `cblas` crate user would.
    let (layout, ta, tb) = (Layout::ColumnMajor, Transpose::None, Transpose::Ordinary);
    let mut got = c0.clone();
    cblas::sgemm(
        &ctx,
        layout.into(),
        ta.into(),
        tb.into(),
        m as i32,
        n as i32,
        k as i32,
        1.5,
        &a,
        m as i32,
        &b,
        n as i32,
        0.5,
        &mut got,
        m as i32,
    )
    .unwrap();
    let mut want = c0;
    cpu_gemm::sgemm(
        layout.into(),
        ta.into(),
        tb.into(),
        m as i32,
        n as i32,
        k as i32,
        1.5,
        &a,
        m as i32,
        &b,
        n as i32,
        0.5,
        &mut want,
        m as i32,
    );
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{g} vs {w}");
    }
    // The other enums convert to the variants with the same CBLAS meaning.
    assert_eq!(fragblas::Uplo::from(Part::Lower), fragblas::Uplo::Lower);
    assert_eq!(
        fragblas::Diag::from(Diagonal::Generic),
        fragblas::Diag::NonUnit
    );
    assert_eq!(fragblas::Side::from(Side::Right), fragblas::Side::Right);
    assert_eq!(
        fragblas::Transpose::from(Transpose::Conjugate),
        fragblas::Transpose::ConjTrans
    );
    assert!(matches!(
        Layout::from(fragblas::Layout::RowMajor),
        Layout::RowMajor
    ));
}
