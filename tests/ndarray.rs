//! The `ndarray` feature against the reference BLAS: `nd::sgemm` and `nd::sgemv` on
//! row-major, column-major, transposed, stepped, reversed and broadcast views, written into
//! views of larger arrays whose other elements are sentinels that must survive, and the
//! conversions between `Buffer` and arrays.
#![cfg(feature = "ndarray")]

mod common;

use common::cpu_gemm;
use common::{ctx, reals, rng};
use fragblas::{nd, Error, Layout, Transpose::NoTrans};
use ndarray::{s, Array1, Array2, ArrayView1, ArrayView2, ShapeBuilder};

const SENTINEL: f32 = -777.0;

/// The reference product on standard-layout copies of the operands.
fn want_gemm(
    alpha: f32,
    a: &ArrayView2<f32>,
    b: &ArrayView2<f32>,
    beta: f32,
    c: &ArrayView2<f32>,
) -> Array2<f32> {
    let ((m, k), n) = (a.dim(), b.ncols());
    let (a, b) = (a.as_standard_layout(), b.as_standard_layout());
    let mut c = c.as_standard_layout().into_owned();
    cpu_gemm::sgemm(
        Layout::RowMajor,
        NoTrans,
        NoTrans,
        m as i32,
        n as i32,
        k as i32,
        alpha,
        a.as_slice().unwrap(),
        k.max(1) as i32,
        b.as_slice().unwrap(),
        n.max(1) as i32,
        beta,
        c.as_slice_mut().unwrap(),
        n.max(1) as i32,
    );
    c
}

fn want_gemv(
    alpha: f32,
    a: &ArrayView2<f32>,
    x: &ArrayView1<f32>,
    beta: f32,
    y: &ArrayView1<f32>,
) -> Array1<f32> {
    let (m, n) = a.dim();
    let a = a.as_standard_layout();
    let x: Vec<f32> = x.iter().copied().collect();
    let mut y: Array1<f32> = y.iter().copied().collect();
    cpu_gemm::sgemv(
        Layout::RowMajor,
        NoTrans,
        m as i32,
        n as i32,
        alpha,
        a.as_slice().unwrap(),
        n.max(1) as i32,
        &x,
        1,
        beta,
        y.as_slice_mut().unwrap(),
        1,
    );
    y
}

fn assert_close<'a>(
    what: &str,
    got: impl IntoIterator<Item = &'a f32>,
    want: impl IntoIterator<Item = &'a f32>,
    k: usize,
) {
    let tol = 4.0 * (k.max(1) as f32) * f32::EPSILON * 4.0;
    for (i, (g, w)) in got.into_iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}: element {i}: got {g}, want {w}"
        );
    }
}

/// A random `rows x cols` matrix in each storage the tests use, as owned arrays whose views
/// are the operands: row-major, column-major, the transpose of a row-major array, a
/// stepped slice of a larger array, and one with reversed rows.
/// A storage's name, the owned array, and how to view the operand in it.
type Storage = (
    &'static str,
    Array2<f32>,
    fn(&Array2<f32>) -> ArrayView2<f32>,
);

fn storages(seed: u64, rows: usize, cols: usize) -> Vec<Storage> {
    let mut r = rng(seed);
    let data = reals(&mut r, rows * cols);
    let row = Array2::from_shape_vec((rows, cols), data.clone()).unwrap();
    let col = Array2::from_shape_vec((rows, cols).f(), data.clone()).unwrap();
    let trans = Array2::from_shape_vec((cols, rows), data.clone()).unwrap();
    let big =
        Array2::from_shape_vec((2 * rows, cols + 3), reals(&mut r, 2 * rows * (cols + 3))).unwrap();
    vec![
        ("row-major", row.clone(), |a| a.view()),
        ("column-major", col, |a| a.view()),
        ("transposed view", trans, |a| a.t()),
        ("stepped slice", big, |a| {
            let rows = a.nrows() / 2;
            let cols = a.ncols() - 3;
            a.slice(s![..2 * rows;2, 1..1 + cols])
        }),
        ("reversed rows", row, |a| a.slice(s![..;-1, ..])),
    ]
}

#[test]
fn sgemm_on_every_storage_matches_the_reference() {
    let ctx = ctx();
    let (m, n, k) = (37, 29, 45);
    let (alpha, beta) = (0.75, -1.25);
    for (an, a_own, a_view) in storages(1, m, k) {
        for (bn, b_own, b_view) in storages(2, k, n) {
            let (a, b) = (a_view(&a_own), b_view(&b_own));
            assert_eq!((a.dim(), b.dim()), ((m, k), (k, n)));
            let mut r = rng(3);
            // C: row-major, column-major, and a stepped window of a sentinel-filled array.
            let c0 = Array2::from_shape_vec((m, n), reals(&mut r, m * n)).unwrap();
            let want = want_gemm(alpha, &a, &b, beta, &c0.view());
            let mut c_row = c0.clone();
            nd::sgemm(&ctx, alpha, &a, &b, beta, &mut c_row).unwrap();
            assert_close(&format!("{an} x {bn} -> row-major"), &c_row, &want, k);
            let mut c_col = Array2::zeros((m, n).f());
            c_col.assign(&c0);
            nd::sgemm(&ctx, alpha, &a, &b, beta, &mut c_col).unwrap();
            assert_close(
                &format!("{an} x {bn} -> column-major"),
                c_col.iter(),
                want.iter(),
                k,
            );
            let mut big = Array2::from_elem((m + 2, 2 * n + 1), SENTINEL);
            big.slice_mut(s![1..m + 1, ..2 * n;2]).assign(&c0);
            nd::sgemm(
                &ctx,
                alpha,
                &a,
                &b,
                beta,
                &mut big.slice_mut(s![1..m + 1, ..2 * n;2]),
            )
            .unwrap();
            assert_close(
                &format!("{an} x {bn} -> stepped"),
                big.slice(s![1..m + 1, ..2 * n;2]).iter(),
                want.iter(),
                k,
            );
            for ((i, j), v) in big.indexed_iter() {
                if !(1..=m).contains(&i) || j % 2 == 1 || j >= 2 * n {
                    assert_eq!(
                        *v, SENTINEL,
                        "{an} x {bn}: ({i}, {j}) outside C was written"
                    );
                }
            }
        }
    }
}

#[test]
fn sgemm_semantics_and_shapes() {
    let ctx = ctx();
    let mut r = rng(4);
    let a = Array2::from_shape_vec((8, 5), reals(&mut r, 40)).unwrap();
    let b = Array2::from_shape_vec((5, 6), reals(&mut r, 30)).unwrap();
    // beta = 0: a NaN C is not read.
    let mut c = Array2::from_elem((8, 6), f32::NAN);
    nd::sgemm(&ctx, 1.0, &a, &b, 0.0, &mut c).unwrap();
    assert_close("beta 0", &c, &a.dot(&b), 5);
    // alpha = 0: NaN operands are not read, C is scaled by beta.
    let nan_a = Array2::from_elem((8, 5), f32::NAN);
    let mut c2 = c.clone();
    nd::sgemm(&ctx, 0.0, &nan_a, &b, 2.0, &mut c2).unwrap();
    assert_close("alpha 0", &c2, &(&c * 2.0), 1);
    // A broadcast operand (stride 0) is copied, then multiplied.
    let row = Array1::from(reals(&mut r, 5));
    let bc = row.broadcast((8, 5)).unwrap();
    let mut c3 = Array2::zeros((8, 6));
    nd::sgemm(&ctx, 1.0, &bc, &b, 0.0, &mut c3).unwrap();
    assert_close("broadcast", &c3, &bc.dot(&b), 5);
    // Empty dimensions are quick returns.
    let mut e = Array2::<f32>::zeros((0, 6));
    nd::sgemm(&ctx, 1.0, &Array2::zeros((0, 5)), &b, 1.0, &mut e).unwrap();
    // Mismatched shapes name the argument.
    let err = nd::sgemm(&ctx, 1.0, &a, &a, 0.0, &mut c).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                param: "b",
                position: 3,
                ..
            }
        ),
        "{err}"
    );
    let err = nd::sgemm(&ctx, 1.0, &a, &b, 0.0, &mut Array2::zeros((6, 8))).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                param: "c",
                position: 5,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn sgemv_on_every_storage_matches_the_reference() {
    let ctx = ctx();
    let (m, n) = (41, 23);
    let (alpha, beta) = (-0.5, 1.5);
    let mut r = rng(5);
    let xs = Array1::from(reals(&mut r, 3 * n));
    let x_views: [(&str, ArrayView1<f32>); 3] = [
        ("contiguous", xs.slice(s![..n])),
        ("step 3", xs.slice(s![..;3])),
        ("reversed", xs.slice(s![..n;-1])),
    ];
    for (an, a_own, a_view) in storages(6, m, n) {
        let a = a_view(&a_own);
        for (xn, x) in &x_views {
            let y0 = Array1::from(reals(&mut r, m));
            let want = want_gemv(alpha, &a, x, beta, &y0.view());
            let mut y = y0.clone();
            nd::sgemv(&ctx, alpha, &a, x, beta, &mut y).unwrap();
            assert_close(&format!("{an}, x {xn} -> contiguous"), &y, &want, n);
            let mut yr = Array1::zeros(m);
            yr.slice_mut(s![..;-1]).assign(&y0);
            nd::sgemv(&ctx, alpha, &a, x, beta, &mut yr.slice_mut(s![..;-1])).unwrap();
            assert_close(
                &format!("{an}, x {xn} -> reversed"),
                yr.slice(s![..;-1]).iter(),
                want.iter(),
                n,
            );
            // A column of a sentinel-filled matrix: the other columns must survive.
            let mut big = Array2::from_elem((m, 3), SENTINEL);
            big.column_mut(1).assign(&y0);
            nd::sgemv(&ctx, alpha, &a, x, beta, &mut big.column_mut(1)).unwrap();
            assert_close(
                &format!("{an}, x {xn} -> column"),
                big.column(1).iter(),
                want.iter(),
                n,
            );
            assert!(big
                .column(0)
                .iter()
                .chain(big.column(2))
                .all(|v| *v == SENTINEL));
        }
        // Transposed: A^T x.
        let xt = Array1::from(reals(&mut r, m));
        let y0 = Array1::from(reals(&mut r, n));
        let want = want_gemv(alpha, &a.t(), &xt.view(), beta, &y0.view());
        let mut y = y0.clone();
        nd::sgemv(&ctx, alpha, &a.t(), &xt, beta, &mut y).unwrap();
        assert_close(&format!("{an} transposed"), &y, &want, m);
    }
    let a = Array2::<f32>::zeros((3, 2));
    let err = nd::sgemv(&ctx, 1.0, &a, &Array1::zeros(3), 0.0, &mut Array1::zeros(3)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                param: "x",
                position: 3,
                ..
            }
        ),
        "{err}"
    );
    let err = nd::sgemv(&ctx, 1.0, &a, &Array1::zeros(2), 0.0, &mut Array1::zeros(2)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                param: "y",
                position: 5,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn buffers_and_arrays_convert_both_ways() {
    let ctx = ctx();
    let mut r = rng(7);
    let a = Array2::from_shape_vec((13, 7), reals(&mut r, 91)).unwrap();
    for view in [a.view(), a.t(), a.slice(s![..;2, ..;-3])] {
        let buf = ctx.upload_array(&view).unwrap();
        assert_eq!(buf.to_array2(view.dim()).unwrap(), view);
        assert_eq!(
            buf.to_array1().unwrap().to_vec(),
            view.iter().copied().collect::<Vec<_>>()
        );
    }
    let buf = ctx.upload_array(&a).unwrap();
    assert!(matches!(
        buf.to_array2((13, 8)),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        buf.to_array2((usize::MAX, 2)),
        Err(Error::LengthMismatch { .. })
    ));
}
