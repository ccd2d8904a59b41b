//! Batched sgemm against the reference BLAS's sgemm run on each product: the strided form
//! (batch counts 0 to 1000, shapes small and odd, both layouts, every transpose, the four
//! scalars, strides tight, padded with NaN gaps, and 0 for a shared A or B) and the form
//! over slices of buffers (one texture row and several, equal and mixed lengths). Slots of
//! C outside every window are checked bit for bit; A and B unchanged.
//!
//! Tolerance: each element sums k products; both sides lie within (k + 2) eps of the exact
//! value in units of |alpha| |A||B| + |beta||C|, and the check allows the sum.

mod common;

use common::check2::magnitudes;
use common::cpu_gemm;
use common::*;
use fragblas::{Layout, Transpose};
use rand::Rng;

const SCALARS: [f32; 4] = [0.0, 1.0, -1.0, 0.7];

/// One strided case; `gap` extra slots (NaN) after each matrix; stride 0 for A (B) when
/// `share.0` (`share.1`); with `fours`, the leading dimensions and strides rounded up to
/// multiples of 4 (the gaps NaN).
#[allow(clippy::too_many_arguments)]
fn strided_case(
    ctx: &fragblas::Context,
    r: &mut rand::rngs::StdRng,
    layout: Layout,
    (ta, tb): (Transpose, Transpose),
    (m, n, k): (usize, usize, usize),
    (alpha, beta): (f32, f32),
    count: usize,
    gap: usize,
    share: (bool, bool),
    fours: bool,
) {
    let ctx = ctx.clone();
    let col = layout == Layout::ColMajor;
    // Stored shapes in the user's layout: (rows, cols) of A, B, C.
    let sa = if ta == Transpose::NoTrans {
        (m, k)
    } else {
        (k, m)
    };
    let sb = if tb == Transpose::NoTrans {
        (k, n)
    } else {
        (n, k)
    };
    let ld = |(rows, cols): (usize, usize)| {
        let tight = if col { rows.max(1) } else { cols.max(1) };
        if fours {
            tight.next_multiple_of(4)
        } else {
            tight + gap % 2
        }
    };
    let round = |st: usize| if fours { st.next_multiple_of(4) } else { st };
    let (lda, ldb, ldc) = (ld(sa), ld(sb), ld((m, n)));
    let span = |(rows, cols): (usize, usize), ld: usize| {
        let (inner, outer) = if col { (rows, cols) } else { (cols, rows) };
        mat::span(inner, outer, ld)
    };
    let stride = |s: usize, shared: bool| if shared { 0 } else { round(s + gap) };
    let (stra, strb) = (
        stride(span(sa, lda), share.0),
        stride(span(sb, ldb), share.1),
    );
    let strc = round(span((m, n), ldc) + gap);
    let total = |st: usize, one: usize| {
        if count == 0 {
            3
        } else {
            (count - 1) * st + one + 3
        }
    };
    // NaN everywhere, then random values in each matrix's slots.
    let fill =
        |r: &mut rand::rngs::StdRng, len: usize, st: usize, shape: (usize, usize), ld: usize| {
            let mut v = vec![f32::NAN; len];
            for p in 0..count {
                let (inner, outer) = if col { shape } else { (shape.1, shape.0) };
                for o in 0..outer {
                    for i in 0..inner {
                        v[p * st + i + o * ld] = r.gen_range(-1.0f32..1.0);
                    }
                }
            }
            v
        };
    let mut a = fill(r, total(stra, span(sa, lda)), stra, sa, lda);
    let mut b = fill(r, total(strb, span(sb, ldb)), strb, sb, ldb);
    let mut c0 = fill(r, total(strc, span((m, n), ldc)), strc, (m, n), ldc);
    let mut written = vec![false; c0.len()];
    for p in 0..count {
        let (inner, outer) = if col { (m, n) } else { (n, m) };
        for o in 0..outer {
            for i in 0..inner {
                written[p * strc + i + o * ldc] = true;
            }
        }
    }
    if alpha == 0.0 || k == 0 {
        a.iter_mut().for_each(|x| *x = f32::NAN);
        b.iter_mut().for_each(|x| *x = f32::NAN);
    }
    if beta == 0.0 {
        for (x, w) in c0.iter_mut().zip(&written) {
            if *w {
                *x = f32::NAN;
            }
        }
    }
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    let (lai, lbi, lci) = (lda as i32, ldb as i32, ldc as i32);
    let reference = |a: &[f32], b: &[f32], c: &mut [f32], al: f32, be: f32| {
        for p in 0..count {
            cpu_gemm::sgemm(
                layout,
                ta,
                tb,
                mi,
                ni,
                ki,
                al,
                &a[p * stra..],
                lai,
                &b[p * strb..],
                lbi,
                be,
                &mut c[p * strc..],
                lci,
            );
        }
    };
    let mut want = c0.clone();
    reference(&a, &b, &mut want, alpha, beta);
    let mut bound = magnitudes(&c0);
    reference(
        &magnitudes(&a),
        &magnitudes(&b),
        &mut bound,
        alpha.abs(),
        beta.abs(),
    );
    let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&b).unwrap());
    let mut gc = ctx.upload(&c0).unwrap();
    ctx.sgemm_batched_strided(
        layout,
        ta,
        tb,
        mi,
        ni,
        ki,
        alpha,
        &ga,
        lai,
        stra as i64,
        &gb,
        lbi,
        strb as i64,
        beta,
        &mut gc,
        lci,
        strc as i64,
        count as i32,
    )
    .unwrap();
    let got = gc.to_vec().unwrap();
    let what = format!(
        "strided {layout:?} {ta:?} {tb:?} {m}x{n}x{k} alpha={alpha} beta={beta} count={count} gap={gap} share={share:?}"
    );
    for i in 0..got.len() {
        if written[i] {
            let tol = 2.0 * (k as f32 + 2.0) * EPS * bound[i] + f32::MIN_POSITIVE;
            assert!(
                want[i].is_finite() && (got[i] - want[i]).abs() <= tol,
                "{what}: slot {i}: got {:e}, want {:e}",
                got[i],
                want[i]
            );
        } else {
            assert!(same(got[i], c0[i]), "{what}: slot {i} must not be written");
        }
    }
    assert_same_slices(&format!("{what} a"), &ga.to_vec().unwrap(), &a);
    assert_same_slices(&format!("{what} b"), &gb.to_vec().unwrap(), &b);
}

#[test]
fn strided_batches_of_every_shape_transpose_and_scalar() {
    let mut r = rng(51);
    let shapes = [
        (1, 1, 1),
        (3, 5, 2),
        (4, 4, 4),
        (8, 12, 16),
        (17, 9, 33),
        (64, 64, 64),
        (5, 3, 0),
    ];
    let mut c = 0;
    for (si, &shape) in shapes.iter().enumerate() {
        for layout in [Layout::ColMajor, Layout::RowMajor] {
            for ta in [Transpose::NoTrans, Transpose::Trans] {
                for tb in [Transpose::NoTrans, Transpose::Trans] {
                    let scalars = (SCALARS[c % 4], SCALARS[(c / 4) % 4]);
                    let count = [0, 1, 2, 7, 33][(c + si) % 5];
                    let gap = [0, 4, 3][c % 3];
                    let share = [(false, false), (true, false), (false, true)][(c / 3) % 3];
                    strided_case(
                        &ctx(),
                        &mut r,
                        layout,
                        (ta, tb),
                        shape,
                        scalars,
                        count,
                        gap,
                        share,
                        false,
                    );
                    c += 1;
                }
            }
        }
    }
}

#[test]
fn a_thousand_products_and_a_long_k() {
    let mut r = rng(52);
    let nn = (Transpose::NoTrans, Transpose::NoTrans);
    strided_case(
        &ctx(),
        &mut r,
        Layout::ColMajor,
        nn,
        (64, 64, 64),
        (0.7, 1.0),
        1000,
        0,
        (false, false),
        false,
    );
    strided_case(
        &ctx(),
        &mut r,
        Layout::RowMajor,
        nn,
        (32, 32, 32),
        (1.0, 0.0),
        1000,
        4,
        (false, true),
        false,
    );
    // k past one span of the kernel's loop: the passes add up.
    strided_case(
        &ctx(),
        &mut r,
        Layout::ColMajor,
        nn,
        (4, 4, 9000),
        (1.0, -1.0),
        3,
        0,
        (false, false),
        false,
    );
}

/// The slice form: `count` products of m x n x k, each matrix its own buffer (of `extra`
/// more elements, differing per product when `mixed`).
fn slices_case(
    r: &mut rand::rngs::StdRng,
    (m, n, k): (usize, usize, usize),
    count: usize,
    mixed: bool,
) {
    let ctx = ctx();
    let layout = Layout::ColMajor;
    let (ta, tb) = (Transpose::NoTrans, Transpose::Trans);
    let extra = |p: usize| if mixed { p % 3 } else { 0 };
    let a: Vec<Vec<f32>> = (0..count).map(|p| reals(r, m * k + extra(p))).collect();
    let b: Vec<Vec<f32>> = (0..count).map(|p| reals(r, n * k + extra(p + 1))).collect();
    let c0: Vec<Vec<f32>> = (0..count).map(|p| reals(r, m * n + extra(p + 2))).collect();
    let ga: Vec<_> = a.iter().map(|x| ctx.upload(x).unwrap()).collect();
    let gb: Vec<_> = b.iter().map(|x| ctx.upload(x).unwrap()).collect();
    let mut gc: Vec<_> = c0.iter().map(|x| ctx.upload(x).unwrap()).collect();
    let ra: Vec<&fragblas::Buffer> = ga.iter().collect();
    let rb: Vec<&fragblas::Buffer> = gb.iter().collect();
    let mut rc: Vec<&mut fragblas::Buffer> = gc.iter_mut().collect();
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    ctx.sgemm_batched(
        layout, ta, tb, mi, ni, ki, 0.7, &ra, mi, &rb, ni, -1.0, &mut rc, mi,
    )
    .unwrap();
    for p in 0..count {
        let mut want = c0[p].clone();
        cpu_gemm::sgemm(
            layout, ta, tb, mi, ni, ki, 0.7, &a[p], mi, &b[p], ni, -1.0, &mut want, mi,
        );
        let got = gc[p].to_vec().unwrap();
        let tol = 4.0 * (k as f32 + 2.0) * EPS * (k as f32 + 1.0);
        for i in 0..got.len() {
            if i < m * n {
                assert!((got[i] - want[i]).abs() <= tol, "product {p} element {i}");
            } else {
                assert!(
                    same(got[i], c0[p][i]),
                    "product {p}: slot {i} past C changed"
                );
            }
        }
    }
}

#[test]
fn slices_of_buffers() {
    let mut r = rng(53);
    slices_case(&mut r, (8, 8, 8), 50, false);
    slices_case(&mut r, (5, 3, 7), 20, true);
    // Matrices of several texture rows (4096 texels a row by default).
    slices_case(&mut r, (100, 300, 20), 5, false);
    slices_case(&mut r, (2, 2, 2), 0, false);
}

#[test]
fn slices_of_unequal_counts_are_errors() {
    let ctx = ctx();
    let x = ctx.upload(&[1.0]).unwrap();
    let mut y = ctx.upload(&[1.0]).unwrap();
    let nt = Transpose::NoTrans;
    let e = ctx
        .sgemm_batched(
            Layout::ColMajor,
            nt,
            nt,
            1,
            1,
            1,
            1.0,
            &[&x, &x],
            1,
            &[&x],
            1,
            0.0,
            &mut [&mut y],
            1,
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            fragblas::Error::InvalidArgument {
                param: "b",
                position: 10,
                ..
            }
        ),
        "{e}"
    );
}

/// The register-tiled path (column-major A and B not transposed, m, the leading dimensions
/// and the strides multiples of 4, on a device with 8 render targets): tiles of 8 x 4 that
/// run past m (m % 8 == 4) and past n, k not a multiple of 4 (B's columns padded with NaN),
/// counts that fill a grid row and more, NaN gaps after each matrix, a shared A or B,
/// alpha 1, -1 and 0.7 with every beta.
#[test]
fn tiled_products_of_every_edge() {
    tiled_edges(&ctx(), 53);
}

/// The same on a context with image stores (as a GPU with GL 4.3 / GLES 3.1): tiles of
/// 8 x 8 written into C where they lie, no targets and no merge pass.
#[test]
fn tiled_products_in_place_through_image_stores() {
    tiled_edges(&image_ctx(), 54);
}

/// Batches on the strip kernels (a context with image stores, as a GPU): products of 128
/// columns and more, k a multiple of 4, the A's (B's) one after another or one for all;
/// draws of 4 strips that mix products, many draws, the last part empty (strips past the
/// batch), strips past m (m % 8 == 4), a batch's A packed over two chunks of k, both
/// layouts; one whose A is more terms than a texture is tall (80 x 256 on llvmpipe, whose
/// largest texture is 16384: op(A)'s pack draws a row of fragments a term), which runs in
/// two pieces (64 and 16 products), each packed and drawn in turn; and one whose k does not
/// divide a chunk (260: the 8th product's terms would cross 2048), which runs in pieces of
/// 7 and 2 products, each inside one chunk; more such k (12, 36 with one A for all, 100 in
/// row-major order, 1000, 2044: one product a piece).
#[test]
fn batches_on_the_strip_kernels() {
    let mut r = rng(56);
    let nn = (Transpose::NoTrans, Transpose::NoTrans);
    let cases = [
        (Layout::ColMajor, (12, 128, 8), 20, (false, false)),
        (Layout::ColMajor, (36, 144, 64), 3, (true, false)),
        (Layout::ColMajor, (4, 128, 512), 6, (false, false)),
        (Layout::ColMajor, (20, 160, 12), 33, (false, true)),
        (Layout::RowMajor, (128, 8, 16), 4, (false, false)),
        (Layout::ColMajor, (68, 128, 256), 10, (false, false)),
        (Layout::ColMajor, (8, 128, 256), 80, (false, false)),
        (Layout::ColMajor, (8, 128, 260), 9, (false, false)),
        (Layout::ColMajor, (12, 128, 12), 200, (false, false)),
        (Layout::ColMajor, (20, 144, 1000), 5, (false, true)),
        (Layout::ColMajor, (8, 128, 2044), 3, (false, false)),
        (Layout::ColMajor, (16, 128, 36), 100, (true, false)),
        (Layout::RowMajor, (128, 8, 100), 25, (false, false)),
    ];
    for (c, &(layout, shape, count, share)) in cases.iter().enumerate() {
        strided_case(
            &image_ctx(),
            &mut r,
            layout,
            nn,
            shape,
            ([0.7, -1.0, 1.0][c % 3], SCALARS[(c + 1) % 4]),
            count,
            0,
            share,
            true,
        );
    }
}

fn tiled_edges(ctx: &fragblas::Context, seed: u64) {
    let mut r = rng(seed);
    let nn = (Transpose::NoTrans, Transpose::NoTrans);
    let mut c = 0usize;
    for m in [4, 8, 12, 20, 36] {
        for n in [1, 3, 4, 5, 9, 17] {
            let k = [1, 3, 4, 7, 64, 130][c % 6];
            // alpha 0 takes the one-pass kernel: the other tests have it.
            let scalars = ([0.7, -1.0, 1.0][c % 3], SCALARS[(c / 2) % 4]);
            let count = [1, 2, 7, 33, 1100][c % 5];
            let gap = [4, 0, 8, 3][(c / 2) % 4];
            let share = [(false, false), (true, false), (false, true)][c % 3];
            strided_case(
                ctx,
                &mut r,
                Layout::ColMajor,
                nn,
                (m, n, k),
                scalars,
                count,
                gap,
                share,
                true,
            );
            c += 1;
        }
    }
}
