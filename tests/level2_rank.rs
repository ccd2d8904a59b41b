//! The rank updates against the reference BLAS: sger, ssyr, sspr, ssyr2, sspr2, through the
//! device API and the host API, for every size of the issue (m != n for sger), both
//! layouts, both triangles, increments {-2, -1, 1, 2} and alpha in {0, 1, -1, 0.7}, on both
//! of the context's paths (rendered and in place), with leading dimensions of every residue
//! mod 4 and ones that are multiples of 4 (whole-texel kernel). Slots of A outside the
//! matrix or the triangle hold NaN or, every other one, a finite sentinel: they must be
//! neither read (a NaN would reach a result) nor written (they must keep their bits; a
//! write over NaN could leave NaN).
//!
//! Tolerance: each element gets one or two products and sums on either side, each rounded
//! once: |gpu - cpu| <= 3 eps (|a| + |alpha| (|x_i y_j| + |y_i x_j|)).

mod common;

use common::check2::*;
use common::stored::{self, Kind, What};
use common::*;
use fragblas::{cblas, Context, ContextOptions, Layout, Tuning, Uplo};

const LAYOUTS: [Layout; 2] = [Layout::ColMajor, Layout::RowMajor];
const UPLOS: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Which {
    Ger,
    Syr,
    Spr,
    Syr2,
    Spr2,
}

/// Checks an updated matrix: written slots within tolerance, every other slot its bits.
fn assert_matrix(
    what: &str,
    got: &[f32],
    want: &[f32],
    before: &[f32],
    written: &[bool],
    tol: &[f32],
) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for i in 0..got.len() {
        if written[i] {
            let ok = (want[i].is_nan() && got[i].is_nan()) || (got[i] - want[i]).abs() <= tol[i];
            assert!(ok, "{what}: slot {i}: got {:e}, want {:e}", got[i], want[i]);
        } else {
            assert!(
                same(got[i], before[i]),
                "{what}: slot {i} outside the matrix changed"
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn rank_case(
    ctx: &Context,
    r: &mut rand::rngs::StdRng,
    which: Which,
    layout: Layout,
    uplo: Uplo,
    m: usize,
    n: usize,
    c: usize,
    vec4: bool,
) {
    let (incx, incy, alpha, _) = pick(c);
    let (kind, what_m, rows) = match which {
        Which::Ger => (Kind::Full, What::General, m),
        Which::Syr | Which::Syr2 => (Kind::Full, What::Triangle(uplo, None), n),
        Which::Spr | Which::Spr2 => (Kind::Packed, What::Triangle(uplo, None), n),
    };
    let least = match layout {
        Layout::ColMajor => rows.max(1),
        Layout::RowMajor => n.max(1),
    };
    let ld = if vec4 {
        least.next_multiple_of(4) + 4 * (c % 2)
    } else {
        least + c % 3
    };
    let mut a0 = stored::build(layout, kind, what_m, rows, n, ld, PAD, stored::random(r));
    let written = stored::written(layout, kind, what_m, rows, n, ld, a0.len());
    // Half the slots the update must not write hold a finite sentinel instead of NaN: an
    // update written over NaN would still be NaN, with the same bits.
    for (i, v) in a0.iter_mut().enumerate() {
        if !written[i] && i % 2 == 0 {
            *v = -7.25e7;
        }
    }
    let mut x = vector(r, rows, incx);
    let mut y = vector(r, n, incy);
    // A few zeros in y (and x): reference leaves the columns they pick alone, NaN or not.
    if n > 2 {
        y[positions(n as i32, incy)[1]] = 0.0;
        x[positions(rows as i32, incx)[n / 2 % rows.max(1)]] = 0.0;
    }
    let (mi, ni, ldi) = (rows as i32, n as i32, ld as i32);
    let reference = |a: &mut [f32], x: &[f32], y: &[f32], alpha: f32| match which {
        Which::Ger => cpu2::sger(layout, mi, ni, alpha, x, incx, y, incy, a, ldi),
        Which::Syr => cpu2::ssyr(layout, uplo, ni, alpha, x, incx, a, ldi),
        Which::Spr => cpu2::sspr(layout, uplo, ni, alpha, x, incx, a),
        Which::Syr2 => cpu2::ssyr2(layout, uplo, ni, alpha, x, incx, y, incy, a, ldi),
        Which::Spr2 => cpu2::sspr2(layout, uplo, ni, alpha, x, incx, y, incy, a),
    };
    let mut want = a0.clone();
    reference(&mut want, &x, &y, alpha);
    // |a| + |alpha| (|x||y|^T + |y||x|^T): the same update on magnitudes.
    let mut bound = magnitudes(&a0);
    reference(&mut bound, &magnitudes(&x), &magnitudes(&y), alpha.abs());
    let tol: Vec<f32> = bound
        .iter()
        .map(|b| 3.0 * EPS * b + f32::MIN_POSITIVE)
        .collect();
    let what = format!(
        "{which:?} {layout:?} {uplo:?} m={rows} n={n} incx={incx} incy={incy} alpha={alpha}"
    );
    for (i, w) in want.iter().enumerate() {
        assert!(
            !written[i] || w.is_finite(),
            "{what}: the reference read a NaN: the test's storage is wrong"
        );
    }
    let (gx, gy) = (ctx.upload(&x).unwrap(), ctx.upload(&y).unwrap());
    let mut ga = ctx.upload(&a0).unwrap();
    match which {
        Which::Ger => ctx.sger(layout, mi, ni, alpha, &gx, incx, &gy, incy, &mut ga, ldi),
        Which::Syr => ctx.ssyr(layout, uplo, ni, alpha, &gx, incx, &mut ga, ldi),
        Which::Spr => ctx.sspr(layout, uplo, ni, alpha, &gx, incx, &mut ga),
        Which::Syr2 => ctx.ssyr2(layout, uplo, ni, alpha, &gx, incx, &gy, incy, &mut ga, ldi),
        Which::Spr2 => ctx.sspr2(layout, uplo, ni, alpha, &gx, incx, &gy, incy, &mut ga),
    }
    .unwrap();
    assert_matrix(
        &format!("{what} device"),
        &ga.to_vec().unwrap(),
        &want,
        &a0,
        &written,
        &tol,
    );
    let mut ha = a0.clone();
    match which {
        Which::Ger => cblas::sger(ctx, layout, mi, ni, alpha, &x, incx, &y, incy, &mut ha, ldi),
        Which::Syr => cblas::ssyr(ctx, layout, uplo, ni, alpha, &x, incx, &mut ha, ldi),
        Which::Spr => cblas::sspr(ctx, layout, uplo, ni, alpha, &x, incx, &mut ha),
        Which::Syr2 => cblas::ssyr2(
            ctx, layout, uplo, ni, alpha, &x, incx, &y, incy, &mut ha, ldi,
        ),
        Which::Spr2 => cblas::sspr2(ctx, layout, uplo, ni, alpha, &x, incx, &y, incy, &mut ha),
    }
    .unwrap();
    assert_matrix(&format!("{what} host"), &ha, &want, &a0, &written, &tol);
}

#[test]
fn rank_updates_match_blas_on_both_paths() {
    for ctx in both_paths() {
        let mut r = rng(501);
        let mut c = 0;
        for &n in &SIZES {
            for layout in LAYOUTS {
                let mut ms = vec![n, n + 3, n / 2];
                ms.dedup();
                for &m in &ms {
                    rank_case(
                        &ctx,
                        &mut r,
                        Which::Ger,
                        layout,
                        Uplo::Upper,
                        m,
                        n,
                        c,
                        false,
                    );
                    c += 5;
                }
                for uplo in UPLOS {
                    for which in [Which::Syr, Which::Spr, Which::Syr2, Which::Spr2] {
                        rank_case(&ctx, &mut r, which, layout, uplo, n, n, c, false);
                        c += 5;
                    }
                }
            }
        }
        for which in [Which::Ger, Which::Syr, Which::Spr, Which::Syr2, Which::Spr2] {
            rank_case(
                &ctx,
                &mut r,
                which,
                Layout::RowMajor,
                Uplo::Lower,
                1000,
                1000,
                13,
                false,
            );
        }
    }
}

#[test]
fn rank_updates_with_vec4_texels_match_blas_on_both_paths() {
    for ctx in both_paths() {
        let mut r = rng(502);
        let mut c = 0;
        for n in [1, 2, 3, 4, 5, 7, 8, 9, 33, 65, 130] {
            for layout in LAYOUTS {
                for m in [n, n + 3, n / 2 + 1] {
                    rank_case(&ctx, &mut r, Which::Ger, layout, Uplo::Upper, m, n, c, true);
                    c += 5;
                }
                for uplo in UPLOS {
                    for which in [Which::Syr, Which::Syr2] {
                        rank_case(&ctx, &mut r, which, layout, uplo, n, n, c, true);
                        c += 5;
                    }
                }
            }
        }
        for (which, layout) in [
            (Which::Ger, Layout::ColMajor),
            (Which::Syr, Layout::RowMajor),
            (Which::Syr2, Layout::ColMajor),
        ] {
            rank_case(
                &ctx,
                &mut r,
                which,
                layout,
                Uplo::Upper,
                1030,
                1030,
                18,
                true,
            );
        }
        // Leading dimensions of 2048 and 1024 (columns of 512 and 256 texels in textures
        // 8192 wide, so columns 16 and 32 apart start at the same place of a row): the
        // in-place kernel's grid rows then hold 16 and 32 columns. Orders 1021 and 2045 end
        // inside a texel; c even keeps the leading dimension at the order rounded up.
        rank_case(
            &ctx,
            &mut r,
            Which::Ger,
            Layout::ColMajor,
            Uplo::Upper,
            2045,
            37,
            20,
            true,
        );
        for (which, uplo, layout) in [
            (Which::Syr, Uplo::Lower, Layout::ColMajor),
            (Which::Syr2, Uplo::Upper, Layout::RowMajor),
        ] {
            rank_case(&ctx, &mut r, which, layout, uplo, 1021, 1021, 22, true);
        }
    }
}

#[test]
fn rank_updates_with_vector_blocks_match_blas() {
    // x (and y) read from a storage buffer, as a GPU does from 2^22 elements (sspr's and
    // sspr2's shifted copies of them, whatever their increments): increments of
    // 1 (c % 16 == 10 picks incx = incy = 1; c / 16 every alpha in turn), textures 8192
    // and 16 texels wide (x's and y's textures then span rows, y after x in the buffer),
    // and one case in four with another increment (the texture path beside it).
    let mut r = rng(503);
    for width in [8192, 16] {
        let ctx = gpu_paths_ctx(width);
        let mut k = 0;
        for n in [1, 3, 4, 5, 9, 64, 130, 257] {
            for layout in LAYOUTS {
                for (which, uplo) in [
                    (Which::Ger, Uplo::Upper),
                    (Which::Syr, Uplo::Upper),
                    (Which::Syr, Uplo::Lower),
                    (Which::Syr2, Uplo::Upper),
                    (Which::Syr2, Uplo::Lower),
                    (Which::Spr, Uplo::Upper),
                    (Which::Spr, Uplo::Lower),
                    (Which::Spr2, Uplo::Upper),
                    (Which::Spr2, Uplo::Lower),
                ] {
                    let c = if k % 4 == 3 {
                        k
                    } else {
                        10 + 16 * (k % 4) + 64 * (k % 2)
                    };
                    let m = if which == Which::Ger { n + 3 } else { n };
                    rank_case(&ctx, &mut r, which, layout, uplo, m, n, c, true);
                    k += 1;
                }
            }
        }
    }
}

#[test]
fn packed_updates_with_unit_increments_match_blas() {
    // sspr and sspr2 with x and y of increment 1 (c = 26, 42, 58: alpha 1, -1 and 0.7):
    // a texel of the packed triangle inside one column is updated as a vector, the others
    // (a column's end inside the texel) element by element. Every order to 9 puts columns'
    // ends in every lane; rendered, in place, and in place in textures 16 texels wide.
    let narrow = Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        image_stores: Some(true),
        width_cap: Some(16),
        ..Default::default()
    })
    .expect("a GL context");
    let mut r = rng(503);
    for ctx in [ctx(), image_ctx(), narrow] {
        let mut k = 0;
        for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 33, 130, 1001] {
            for layout in LAYOUTS {
                for uplo in UPLOS {
                    for which in [Which::Spr, Which::Spr2] {
                        let c = [26, 42, 58][k % 3];
                        rank_case(&ctx, &mut r, which, layout, uplo, n, n, c, false);
                        k += 1;
                    }
                }
            }
        }
    }
}

#[test]
fn a_zero_factor_keeps_its_column_whatever_the_other_vector_holds() {
    // sger: y_j == 0 leaves column j alone even if x holds NaN and Inf; alpha == 0 reads
    // nothing at all. With lda = 4 whole texels are updated (in place on the second path).
    let ctx = ctx();
    let x = [1.0f32, f32::NAN, f32::INFINITY];
    let y = [0.0f32, 2.0];
    let a0 = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    for ctx in both_paths() {
        for lda in [3usize, 4] {
            let mut want = a0;
            cpu2::sger(
                Layout::ColMajor,
                3,
                2,
                1.0,
                &x,
                1,
                &y,
                1,
                &mut want,
                lda as i32,
            );
            let mut got = a0;
            cblas::sger(
                &ctx,
                Layout::ColMajor,
                3,
                2,
                1.0,
                &x,
                1,
                &y,
                1,
                &mut got,
                lda as i32,
            )
            .unwrap();
            assert_eq!(&got[..lda], &a0[..lda]);
            assert_same_slices("sger", &got, &want);
        }
    }
    // ssyr, ssyr2 (lda = 8: whole texels), sspr and sspr2: columns whose factors are all 0
    // (columns 2 and 5, next to columns with NaN and Inf factors) keep their bits, whatever
    // x and y hold in their rows. In place, a packed column whose factor is 0 still has its
    // last texel's later lanes updated by its fragment (they belong to the next columns),
    // so the columns around it change.
    let (n, lda) = (7usize, 8usize);
    let (ni, ldi) = (n as i32, lda as i32);
    let x = [1.0f32, f32::NAN, 0.0, 2.0, f32::INFINITY, 0.0, -1.5];
    let y = [0.5f32, 1.0, 0.0, f32::NAN, 3.0, 0.0, 2.0];
    let full: Vec<f32> = (0..lda * n).map(|i| i as f32 * 0.25 - 3.0).collect();
    let packed: Vec<f32> = (0..n * (n + 1) / 2).map(|i| i as f32 * 0.5 - 4.0).collect();
    for ctx in both_paths() {
        for uplo in UPLOS {
            for which in [Which::Syr, Which::Syr2, Which::Spr, Which::Spr2] {
                let is_packed = matches!(which, Which::Spr | Which::Spr2);
                let a1 = if is_packed { &packed } else { &full };
                let col = |j: usize| match (is_packed, uplo) {
                    (false, _) => j * lda..(j + 1) * lda,
                    (true, Uplo::Upper) => j * (j + 1) / 2..(j + 1) * (j + 2) / 2,
                    (true, Uplo::Lower) => j * (2 * n - j + 1) / 2..(j + 1) * (2 * n - j) / 2,
                };
                let (mut want, mut got) = (a1.clone(), a1.clone());
                let l = Layout::ColMajor;
                match which {
                    Which::Syr => {
                        cpu2::ssyr(l, uplo, ni, 0.5, &x, 1, &mut want, ldi);
                        cblas::ssyr(&ctx, l, uplo, ni, 0.5, &x, 1, &mut got, ldi)
                    }
                    Which::Syr2 => {
                        cpu2::ssyr2(l, uplo, ni, 0.5, &x, 1, &y, 1, &mut want, ldi);
                        cblas::ssyr2(&ctx, l, uplo, ni, 0.5, &x, 1, &y, 1, &mut got, ldi)
                    }
                    Which::Spr => {
                        cpu2::sspr(l, uplo, ni, 0.5, &x, 1, &mut want);
                        cblas::sspr(&ctx, l, uplo, ni, 0.5, &x, 1, &mut got)
                    }
                    _ => {
                        cpu2::sspr2(l, uplo, ni, 0.5, &x, 1, &y, 1, &mut want);
                        cblas::sspr2(&ctx, l, uplo, ni, 0.5, &x, 1, &y, 1, &mut got)
                    }
                }
                .unwrap();
                for j in [2, 5] {
                    assert_eq!(&got[col(j)], &a1[col(j)], "{which:?} column {j}");
                }
                assert_same_slices(&format!("{which:?}"), &got, &want);
            }
        }
    }
    let mut untouched = a0;
    cblas::sger(
        &ctx,
        Layout::ColMajor,
        3,
        2,
        0.0,
        &[],
        1,
        &[],
        1,
        &mut untouched,
        3,
    )
    .unwrap();
    assert_eq!(untouched, a0);
}

#[test]
fn argument_errors_name_the_parameter() {
    let ctx = ctx();
    let x = ctx.upload(&[1.0; 4]).unwrap();
    let mut a = ctx.upload(&[1.0; 16]).unwrap();
    let pos = |e: fragblas::Error| match e {
        fragblas::Error::InvalidArgument {
            param, position, ..
        } => (param, position),
        e => panic!("{e:?}"),
    };
    use Layout::*;
    assert_eq!(
        pos(ctx
            .sger(ColMajor, -1, 2, 1.0, &x, 1, &x, 1, &mut a, 1)
            .unwrap_err()),
        ("m", 2)
    );
    assert_eq!(
        pos(ctx
            .sger(RowMajor, 2, -1, 1.0, &x, 1, &x, 1, &mut a, 1)
            .unwrap_err()),
        ("n", 3)
    );
    assert_eq!(
        pos(ctx
            .sger(RowMajor, 2, 2, 1.0, &x, 1, &x, 0, &mut a, 2)
            .unwrap_err()),
        ("incy", 8)
    );
    assert_eq!(
        pos(ctx
            .sger(ColMajor, 4, 2, 1.0, &x, 1, &x, 1, &mut a, 3)
            .unwrap_err()),
        ("lda", 10)
    );
    assert_eq!(
        pos(ctx
            .ssyr(ColMajor, Uplo::Upper, 2, 1.0, &x, 0, &mut a, 2)
            .unwrap_err()),
        ("incx", 6)
    );
    assert_eq!(
        pos(ctx
            .ssyr2(ColMajor, Uplo::Upper, 4, 1.0, &x, 1, &x, 1, &mut a, 3)
            .unwrap_err()),
        ("lda", 10)
    );
    assert_eq!(
        pos(ctx
            .sspr2(ColMajor, Uplo::Upper, -4, 1.0, &x, 1, &x, 1, &mut a)
            .unwrap_err()),
        ("n", 3)
    );
    assert!(matches!(
        ctx.sspr(
            ColMajor,
            Uplo::Upper,
            6,
            1.0,
            &ctx.upload(&[1.0; 6]).unwrap(),
            1,
            &mut a
        ),
        Err(fragblas::Error::TooShort {
            param: "ap",
            needed: 21,
            ..
        })
    ));
    assert_eq!(a.to_vec().unwrap(), vec![1.0; 16]);
    ctx.finish().unwrap();
}
