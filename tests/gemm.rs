//! sgemm and sgemv against the reference BLAS: every transpose pair, both layouts, edge shapes, padded
//! leading dimensions whose gaps hold NaN (any read of them would poison the result) or
//! sentinels (any write to them is caught), and every kernel.
//!
//! Tolerance: both sides accumulate k products in sequence, so each entry differs from
//! the exact one by at most (k + 2) eps (|alpha| (|A||B|)_ij + |beta c_ij|); the check
//! allows twice that (GPU and CPU errors add).

mod common;

use common::*;
use fragblas::{Context, ContextOptions, Error, GemmKernel, GemvKernel, Layout, Transpose, Tuning};
use rand::rngs::StdRng;
use Layout::*;
use Transpose::*;

const TRANS: [(Transpose, Transpose); 4] = [
    (NoTrans, NoTrans),
    (NoTrans, Trans),
    (Trans, NoTrans),
    (Trans, Trans),
];
const SCALARS: [f32; 4] = [0.0, 1.0, -1.0, 0.7];

/// A stored matrix: `outer` lines of `inner` elements, stride ld; gaps filled with `gap`.
fn matrix(r: &mut StdRng, inner: usize, outer: usize, ld: usize, gap: f32) -> Vec<f32> {
    let mut v = vec![gap; mat::span(inner, outer, ld)];
    if v.is_empty() {
        return v;
    }
    for o in 0..outer {
        let vals = reals(r, inner);
        v[o * ld..o * ld + inner].copy_from_slice(&vals);
    }
    v
}

/// (inner, outer) of a stored matrix whose rows x cols are given, in `layout`.
fn lines(layout: Layout, rows: usize, cols: usize) -> (usize, usize) {
    match layout {
        ColMajor => (rows, cols),
        RowMajor => (cols, rows),
    }
}

struct Case {
    layout: Layout,
    ta: Transpose,
    tb: Transpose,
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    beta: f32,
    pad: usize,
}

fn run_case(ctx: &Context, r: &mut StdRng, cs: &Case, kernels: &[GemmKernel]) {
    let Case {
        layout,
        ta,
        tb,
        m,
        n,
        k,
        alpha,
        beta,
        pad,
    } = *cs;
    let (ar, ac) = mat::stored(m, k, ta.is_trans());
    let (br, bc) = mat::stored(k, n, tb.is_trans());
    let (a_in, a_out) = lines(layout, ar, ac);
    let (b_in, b_out) = lines(layout, br, bc);
    let (c_in, c_out) = lines(layout, m, n);
    let (lda, ldb, ldc) = (a_in.max(1) + pad, b_in.max(1) + pad, c_in.max(1) + pad);
    // NaN in the gaps of A and B: reading one would show. With alpha == 0 every element of
    // A and B is NaN: neither may be read at all.
    let a_gap = f32::NAN;
    let mut a = matrix(r, a_in, a_out, lda, a_gap);
    let mut b = matrix(r, b_in, b_out, ldb, a_gap);
    if alpha == 0.0 {
        a.iter_mut().for_each(|v| *v = f32::NAN);
        b.iter_mut().for_each(|v| *v = f32::NAN);
    }
    // Sentinels in C's gaps must survive; with beta == 0 the window holds NaN that must not
    // reach the result.
    let mut c0 = matrix(r, c_in, c_out, ldc, 12345.5);
    if beta == 0.0 && c_in > 0 {
        for o in 0..c_out {
            c0[o * ldc..o * ldc + c_in]
                .iter_mut()
                .for_each(|v| *v = f32::NAN);
        }
    }
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    let mut want = c0.clone();
    cpu_gemm::sgemm(
        layout, ta, tb, mi, ni, ki, alpha, &a, lda as i32, &b, ldb as i32, beta, &mut want,
        ldc as i32,
    );
    // |A||B| for the tolerance (finite copies: gaps and alpha == 0 NaNs zeroed).
    let fin = |v: &[f32]| {
        v.iter()
            .map(|x| if x.is_nan() { 0.0 } else { x.abs() })
            .collect::<Vec<_>>()
    };
    let mut bound = vec![0.0f32; c0.len()];
    cpu_gemm::sgemm(
        layout,
        ta,
        tb,
        mi,
        ni,
        ki,
        1.0,
        &fin(&a),
        lda as i32,
        &fin(&b),
        ldb as i32,
        0.0,
        &mut bound,
        ldc as i32,
    );
    let c_abs = fin(&c0);
    let tol = |i: usize| {
        2.0 * (k as f32 + 2.0) * EPS * (alpha.abs() * bound[i] + beta.abs() * c_abs[i])
            + f32::MIN_POSITIVE
    };
    let what = |kern: &str| {
        format!(
            "{kern} {layout:?} {ta:?}/{tb:?} m={m} n={n} k={k} alpha={alpha} beta={beta} pad={pad}"
        )
    };

    let ga = ctx.upload(&a).unwrap();
    let gb = ctx.upload(&b).unwrap();
    for &kern in kernels {
        let mut gc = ctx.upload(&c0).unwrap();
        let done = ctx.sgemm_with(
            kern, layout, ta, tb, mi, ni, ki, alpha, &ga, lda as i32, &gb, ldb as i32, beta,
            &mut gc, ldc as i32,
        );
        if !kern.runs_on(ctx.info()) && alpha != 0.0 && m * n * k != 0 {
            // A kernel this device lacks the GL features for (the tile kernels on GL 3.3 /
            // GLES 3.0, say) is refused, and C is left as it was. (A call that multiplies
            // nothing, alpha == 0 or an empty dimension, uses no kernel.)
            match done {
                Err(fragblas::Error::Unsupported(_)) => {}
                other => panic!("{}: {other:?}", what(&format!("{kern:?} refused"))),
            }
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&gc.to_vec().unwrap()),
                bits(&c0),
                "{}",
                what(&format!("{kern:?} refused"))
            );
            continue;
        }
        done.unwrap();
        let got = gc.to_vec().unwrap();
        assert_close_slices(&what(&format!("{kern:?}")), &got, &want, tol);
        for (i, v) in got.iter().enumerate() {
            if c0[i] == 12345.5 {
                assert_eq!(
                    *v,
                    12345.5,
                    "{}: gap element {i} written",
                    what(&format!("{kern:?}"))
                );
            }
        }
    }
    // The CBLAS-shaped host API writes only the window of the caller's slice.
    let mut host = c0.clone();
    host.extend([777.0; 3]);
    fragblas::cblas::sgemm(
        ctx, layout, ta, tb, mi, ni, ki, alpha, &a, lda as i32, &b, ldb as i32, beta, &mut host,
        ldc as i32,
    )
    .unwrap();
    assert_close_slices(&what("cblas"), &host[..c0.len()], &want, tol);
    assert_eq!(&host[c0.len()..], &[777.0; 3], "{}", what("cblas tail"));
    for (i, v) in host[..c0.len()].iter().enumerate() {
        if c0[i] == 12345.5 {
            assert_eq!(*v, 12345.5, "{}: gap {i}", what("cblas"));
        }
    }
}

/// Every kernel a caller (or the tuner) can pick, and `Auto`.
const KERNELS: [GemmKernel; 10] = [
    GemmKernel::Generic,
    GemmKernel::Vec4,
    GemmKernel::Mrt4,
    GemmKernel::Mrt8,
    GemmKernel::Strip1,
    GemmKernel::Strip4,
    GemmKernel::Strip8,
    GemmKernel::Tile8,
    GemmKernel::Tile16,
    GemmKernel::Auto,
];

#[test]
fn kernel_list_covers_every_kernel() {
    for k in GemmKernel::ALL {
        assert!(KERNELS.contains(&k), "{k:?} is not tested");
    }
}

#[test]
fn sgemm_small_shapes_all_transposes_layouts_and_scalars() {
    let ctx = ctx();
    let mut r = rng(21);
    let shapes = [
        (1, 1, 1),
        (7, 13, 29),
        (3, 4, 5),
        (4, 4, 4),
        (5, 5, 5),
        (15, 16, 17),
        (16, 16, 16),
        (17, 17, 15),
        // Whole texels of one column with k not a multiple of 4: the generic kernel's
        // aligned path and its remainder.
        (8, 6, 7),
        (12, 5, 10),
        (3, 5, 0),
        (0, 3, 4),
        (3, 0, 4),
    ];
    let mut idx = 0;
    for &(m, n, k) in &shapes {
        for layout in [ColMajor, RowMajor] {
            for (ta, tb) in TRANS {
                for alpha in SCALARS {
                    for beta in SCALARS {
                        idx += 1;
                        // (Every case, or one in `thin()`, the shapes' combinations taking
                        // turns: see common::kept.)
                        if !kept(idx, 2 * TRANS.len() * SCALARS.len() * SCALARS.len()) {
                            continue;
                        }
                        let pad = if idx % 2 == 0 { 3 } else { 0 };
                        let cs = Case {
                            layout,
                            ta,
                            tb,
                            m,
                            n,
                            k,
                            alpha,
                            beta,
                            pad,
                        };
                        run_case(&ctx, &mut r, &cs, &KERNELS);
                    }
                }
            }
        }
    }
}

#[test]
fn sgemm_tall_and_wide() {
    let ctx = ctx();
    let mut r = rng(22);
    for &(m, n, k) in &[(1, 1000, 7), (1000, 1, 7), (1, 1, 1000), (333, 2, 65)] {
        for layout in [ColMajor, RowMajor] {
            for (ta, tb) in TRANS {
                for (alpha, beta, pad) in [(0.7, -1.0, 2), (1.0, 0.0, 0), (-1.0, 1.0, 5)] {
                    let cs = Case {
                        layout,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        alpha,
                        beta,
                        pad,
                    };
                    run_case(&ctx, &mut r, &cs, &KERNELS);
                }
            }
        }
    }
}

#[test]
fn sgemm_long_k_spans_several_uniform_chunks() {
    // The strip kernels split k into chunks of 2048 that add up by blending.
    let ctx = ctx();
    let mut r = rng(24);
    let cases = [
        (ColMajor, NoTrans, NoTrans, 37, 21, 4100, 0.7, 1),
        (RowMajor, Trans, NoTrans, 9, 70, 2049, 0.0, 0),
        (ColMajor, Trans, Trans, 64, 33, 2048, -1.0, 3),
        (RowMajor, NoTrans, Trans, 3, 5, 6150, 1.0, 2),
    ];
    // (Every case, or one in `thin()`.)
    for (i, &(layout, ta, tb, m, n, k, beta, pad)) in cases.iter().enumerate() {
        if !kept(i, cases.len()) {
            continue;
        }
        let cs = Case {
            layout,
            ta,
            tb,
            m,
            n,
            k,
            alpha: -0.7,
            beta,
            pad,
        };
        run_case(&ctx, &mut r, &cs, &KERNELS);
    }
    // Longer than one pass of the generic kernel (GENERIC_SPAN = 8192), and than the strip
    // kernels' op(B) texture allows on llvmpipe (2k rows): the kernels that run it.
    let cs = Case {
        layout: ColMajor,
        ta: Trans,
        tb: NoTrans,
        m: 3,
        n: 2,
        k: 9000,
        alpha: -0.7,
        beta: 0.0,
        pad: 1,
    };
    let kernels = [GemmKernel::Generic, GemmKernel::Mrt8, GemmKernel::Auto];
    run_case(&ctx, &mut r, &cs, &kernels);
}

#[test]
fn sgemm_1024() {
    let ctx = ctx();
    let mut r = rng(23);
    // (Both, or with `thin()` the first: the thinned runs' kernels are the full run's.)
    let forms = [(ColMajor, NoTrans, NoTrans), (RowMajor, Trans, NoTrans)];
    for (i, (layout, ta, tb)) in forms.into_iter().enumerate() {
        if !kept(i, forms.len()) {
            continue;
        }
        let cs = Case {
            layout,
            ta,
            tb,
            m: 1024,
            n: 1024,
            k: 1024,
            alpha: 0.7,
            beta: -1.0,
            pad: 0,
        };
        run_case(&ctx, &mut r, &cs, &GemmKernel::ALL[1..]);
    }
    // The generic kernel at a size llvmpipe runs in reasonable time.
    let cs = Case {
        layout: ColMajor,
        ta: NoTrans,
        tb: Trans,
        m: 256,
        n: 256,
        k: 256,
        alpha: 1.0,
        beta: 0.7,
        pad: 1,
    };
    run_case(&ctx, &mut r, &cs, &[GemmKernel::Generic]);
}

/// On GPUs with image stores the packed kernels pack through image stores (8 texels a
/// fragment, every packed layout) and the strip kernels write C in place where C's offset
/// and leading dimension are multiples of 4 (the multiply itself where k is one chunk, the
/// merge where it is more; the rendered merge elsewhere): every kernel on a context that
/// takes those paths, over shapes that end mid-texel, mid-strip and mid-quad, k over two
/// uniform chunks, padded leading dimensions that are and are not
/// multiples of 4, both layouts, every transpose pair and special scalars. Packed op(A)
/// goes straight into the strip and tile kernels' buffers (a storage block).
#[test]
fn sgemm_with_image_store_packs_and_in_place_merge() {
    image_store_cases(&image_ctx(), 25, &KERNELS);
}

/// [`sgemm_with_image_store_packs_and_in_place_merge`] where packed op(A) goes into a
/// texture that is copied into the strip and tile kernels' buffers
/// (`ContextOptions::storage_packs` off: the path of GPUs with image stores but no fragment
/// storage block, or a packed op(A) larger than the largest one), under those kernels.
#[test]
fn sgemm_with_image_store_packs_copied_into_buffers() {
    let kernels = [GemmKernel::Strip4, GemmKernel::Strip8, GemmKernel::Tile16];
    image_store_cases(&copied_packs_ctx(), 26, &kernels);
}

/// A context with image stores whose packs write a texture that is copied into the strip
/// and tile kernels' buffers (`ContextOptions::storage_packs` off).
fn copied_packs_ctx() -> Context {
    Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        image_stores: Some(true),
        storage_packs: Some(false),
        ..Default::default()
    })
    .unwrap()
}

/// ssyrk's shape through sgemm: C := alpha*A*A^T + beta*C (and A^T*A) with the same buffer
/// as both operands, which the strip kernels pack once for both (the twin pack: op(A)'s
/// blocks and op(B)'s quads from one pass), on a context whose packs write the buffer
/// itself and one whose packs are copied into it.
#[test]
fn sgemm_of_one_operand_and_its_transpose_with_image_store_packs() {
    let mut r = rng(27);
    for ctx in [image_ctx(), copied_packs_ctx()] {
        for (ta, tb, m, k) in [(NoTrans, Trans, 37, 45), (Trans, NoTrans, 21, 70)] {
            let lda = if ta == NoTrans { m + 3 } else { k + 2 };
            let cols = if ta == NoTrans { k } else { m };
            let mut a = reals(&mut r, lda * cols);
            let rows = lda - if ta == NoTrans { 3 } else { 2 };
            for (i, v) in a.iter_mut().enumerate() {
                if i % lda >= rows {
                    *v = f32::NAN;
                }
            }
            let c0 = reals(&mut r, m * m);
            let (mi, ki) = (m as i32, k as i32);
            let mut want = c0.clone();
            cpu_gemm::sgemm(
                ColMajor, ta, tb, mi, mi, ki, 0.5, &a, lda as i32, &a, lda as i32, -1.0, &mut want,
                mi,
            );
            let fin: Vec<f32> = a
                .iter()
                .map(|x| if x.is_nan() { 0.0 } else { x.abs() })
                .collect();
            let mut bound = vec![0.0f32; m * m];
            cpu_gemm::sgemm(
                ColMajor, ta, tb, mi, mi, ki, 1.0, &fin, lda as i32, &fin, lda as i32, 0.0,
                &mut bound, mi,
            );
            let ga = ctx.upload(&a).unwrap();
            for kern in [GemmKernel::Strip4, GemmKernel::Strip8] {
                let mut gc = ctx.upload(&c0).unwrap();
                ctx.sgemm_with(
                    kern, ColMajor, ta, tb, mi, mi, ki, 0.5, &ga, lda as i32, &ga, lda as i32,
                    -1.0, &mut gc, mi,
                )
                .unwrap();
                let what = format!("{kern:?} {ta:?}/{tb:?} m={m} k={k}");
                let tol = |i: usize| {
                    2.0 * (k as f32 + 2.0) * EPS * (0.5 * bound[i] + c0[i].abs())
                        + f32::MIN_POSITIVE
                };
                assert_close_slices(&what, &gc.to_vec().unwrap(), &want, tol);
            }
        }
    }
}

fn image_store_cases(ctx: &Context, seed: u64, kernels: &[GemmKernel]) {
    let ctx = ctx.clone();
    let mut r = rng(seed);
    let mut idx = 0usize;
    for &(m, n, k) in &[
        (1, 1, 1),
        (7, 13, 29),
        (8, 16, 4),
        (9, 17, 33),
        (33, 70, 65),
        (64, 64, 64),
    ] {
        for layout in [ColMajor, RowMajor] {
            for (ta, tb) in TRANS {
                let (alpha, beta) = [(0.7, -1.0), (1.0, 0.0), (-1.0, 1.0), (0.0, 0.7)][idx % 4];
                // C's lines padded to a multiple of 4 (C written in place) or not.
                let c_in = if layout == ColMajor { m } else { n };
                let pad = if idx.is_multiple_of(2) {
                    (4 - c_in % 4) % 4
                } else {
                    (4 - c_in % 4) % 4 + 1
                };
                idx += 1;
                let cs = Case {
                    layout,
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    alpha,
                    beta,
                    pad,
                };
                run_case(&ctx, &mut r, &cs, kernels);
            }
        }
    }
    // k over two chunks of the strip kernels' uniform blocks.
    for (ta, tb, pad) in [(NoTrans, NoTrans, 3), (Trans, Trans, 0)] {
        let cs = Case {
            layout: ColMajor,
            ta,
            tb,
            m: 37,
            n: 21,
            k: 2100,
            alpha: -0.7,
            beta: 0.7,
            pad,
        };
        run_case(&ctx, &mut r, &cs, &[GemmKernel::Strip4, GemmKernel::Tile8]);
    }
}

/// The image-store packs read their operand in runs of texels whose positions step by
/// addition and wrap at the end of a texture row: operands in textures 5 and 7 texels wide,
/// so that runs cross rows at every phase, under the strip and tile kernels, every transpose
/// pair. In textures 33 and 64 texels wide, 2 to 12 columns of 21-47 floats fit a texture
/// row, so the pack of an untransposed operand takes its columns in spread order
/// (`spread` 2-12: whole blocks of 8-48 columns permuted, the last partial block in order).
#[test]
fn image_store_packs_read_runs_across_texture_rows() {
    for cap in [5u32, 7, 33, 64] {
        let ctx = Context::with_options(ContextOptions {
            tuning: Some(Tuning::Off),
            image_stores: Some(true),
            width_cap: Some(cap),
            ..Default::default()
        })
        .unwrap();
        let mut r = rng(60 + u64::from(cap));
        for (i, (ta, tb)) in TRANS.into_iter().enumerate() {
            let cs = Case {
                layout: [ColMajor, RowMajor][i % 2],
                ta,
                tb,
                m: 37,
                n: 21,
                k: 45,
                alpha: 0.7,
                beta: -1.0,
                pad: i % 3,
            };
            run_case(&ctx, &mut r, &cs, &[GemmKernel::Strip4, GemmKernel::Tile8]);
        }
    }
}

/// |op(A)| |x| with NaNs (gaps, alpha == 0 poison) counted as 0: the scale of the rounding
/// error of an sgemv on both sides.
#[allow(clippy::too_many_arguments)]
fn gemv_bound(
    layout: Layout,
    t: Transpose,
    m: i32,
    n: i32,
    a: &[f32],
    lda: usize,
    x: &[f32],
    incx: i32,
    len_y: usize,
    incy: i32,
) -> Vec<f32> {
    let fin = |v: &[f32]| {
        v.iter()
            .map(|x| if x.is_nan() { 0.0 } else { x.abs() })
            .collect::<Vec<_>>()
    };
    let mut bound = vec![0.0f32; len_y];
    cpu_gemm::sgemv(
        layout,
        t,
        m,
        n,
        1.0,
        &fin(a),
        lda as i32,
        &fin(x),
        incx,
        0.0,
        &mut bound,
        incy,
    );
    bound
}

#[test]
fn sgemv_long_sums_and_long_outputs() {
    // Both contexts: the final y update renders or, where y has unit stride, runs in place.
    for ctx in both_paths() {
        // 70000 outputs: more than 4096 quads of output texels, so the vec4 kernel's bands have
        // several rows of quads; with lda padded, the generic kernel sums 70000 values in passes
        // (llvmpipe stops a fragment's loops after about 65535 iterations).
        let mut r = rng(32);
        let (m, n) = (70_000usize, 3usize);
        for (t, pad, incx, incy) in [
            (NoTrans, 0, 1, 1),
            (Trans, 0, 1, -1),
            (Trans, 2, 1, 1),
            (NoTrans, 3, 2, 1),
        ] {
            let lda = m + pad;
            let mut a = reals(&mut r, lda * n);
            for col in 0..n {
                a[col * lda + m..(col + 1) * lda]
                    .iter_mut()
                    .for_each(|v| *v = f32::NAN);
            }
            let (lx, ly) = if t == NoTrans { (n, m) } else { (m, n) };
            let x = reals(&mut r, span(lx as i32, incx));
            let y0 = reals(&mut r, span(ly as i32, incy));
            let mut want = y0.clone();
            let (mi, ni) = (m as i32, n as i32);
            cpu_gemm::sgemv(
                ColMajor, t, mi, ni, 0.7, &a, lda as i32, &x, incx, -1.0, &mut want, incy,
            );
            // |A||x| (gap NaNs zeroed) bounds the rounding of both sides.
            let bound = gemv_bound(ColMajor, t, mi, ni, &a, lda, &x, incx, y0.len(), incy);
            let ga = ctx.upload(&a).unwrap();
            let gx = ctx.upload(&x).unwrap();
            let mut gy = ctx.upload(&y0).unwrap();
            ctx.sgemv(
                ColMajor, t, m as i32, n as i32, 0.7, &ga, lda as i32, &gx, incx, -1.0, &mut gy,
                incy,
            )
            .unwrap();
            let got = gy.to_vec().unwrap();
            let what = format!("{t:?} pad {pad} incx {incx} incy {incy}");
            let tol = |i: usize| {
                2.0 * (lx as f32 + 2.0) * EPS * (0.7 * bound[i] + y0[i].abs()) + f32::MIN_POSITIVE
            };
            assert_close_slices(&what, &got, &want, tol);
        }
    }
}

#[test]
fn sgemm_argument_errors_name_the_parameter() {
    let ctx = ctx();
    let a = ctx.upload(&[1.0; 64]).unwrap();
    let b = ctx.upload(&[1.0; 64]).unwrap();
    let mut c = ctx.upload(&[1.0; 64]).unwrap();
    let err = |layout, ta, tb, m, n, k, lda, ldb, ldc, c: &mut fragblas::Buffer| match ctx
        .sgemm(layout, ta, tb, m, n, k, 1.0, &a, lda, &b, ldb, 0.0, c, ldc)
        .unwrap_err()
    {
        Error::InvalidArgument {
            param, position, ..
        } => (param, position),
        e => panic!("{e:?}"),
    };
    assert_eq!(
        err(ColMajor, NoTrans, NoTrans, -1, 2, 2, 2, 2, 2, &mut c),
        ("m", 4)
    );
    assert_eq!(
        err(ColMajor, NoTrans, NoTrans, 2, -1, 2, 2, 2, 2, &mut c),
        ("n", 5)
    );
    assert_eq!(
        err(ColMajor, NoTrans, NoTrans, 2, 2, -1, 2, 2, 2, &mut c),
        ("k", 6)
    );
    assert_eq!(
        err(ColMajor, NoTrans, NoTrans, 4, 2, 2, 3, 4, 4, &mut c),
        ("lda", 9)
    );
    assert_eq!(
        err(ColMajor, NoTrans, NoTrans, 4, 2, 3, 4, 2, 4, &mut c),
        ("ldb", 11)
    );
    assert_eq!(
        err(ColMajor, NoTrans, NoTrans, 4, 2, 3, 4, 3, 3, &mut c),
        ("ldc", 14)
    );
    assert_eq!(
        err(RowMajor, NoTrans, NoTrans, 2, 4, 3, 2, 4, 4, &mut c),
        ("lda", 9)
    );
    assert_eq!(
        err(RowMajor, NoTrans, NoTrans, 2, 4, 3, 3, 3, 4, &mut c),
        ("ldb", 11)
    );
    assert_eq!(
        err(RowMajor, NoTrans, NoTrans, 2, 4, 3, 3, 4, 3, &mut c),
        ("ldc", 14)
    );
    // Buffers too short for the arguments.
    let mut small = ctx.upload(&[0.0; 3]).unwrap();
    assert_eq!(
        ctx.sgemm(ColMajor, NoTrans, NoTrans, 2, 2, 2, 1.0, &a, 2, &b, 2, 0.0, &mut small, 2),
        Err(Error::TooShort {
            routine: "sgemm",
            param: "c",
            needed: 4,
            len: 3
        })
    );
    let host_short = fragblas::cblas::sgemm(
        &ctx,
        ColMajor,
        NoTrans,
        NoTrans,
        4,
        4,
        4,
        1.0,
        &[1.0; 15],
        4,
        &[1.0; 16],
        4,
        0.0,
        &mut [0.0; 16],
        4,
    );
    assert_eq!(
        host_short,
        Err(Error::TooShort {
            routine: "sgemm",
            param: "a",
            needed: 16,
            len: 15
        })
    );
    ctx.finish().unwrap();
}

#[test]
fn sgemv_with_interleaved_and_spread_sums_matches_blas() {
    // The products' interleaved chunks at the default width, then with spread reads and a
    // tail: 24 x 4092 with lda 24 in textures 64 texels wide (6 texels a column: columns 32
    // apart share a row's place; 128 chunks of the 1023 texels of x, blocks of 64 texels, 960
    // in whole blocks), and its transpose's shape; 300 x 500 and 1000 x 1000 between. Then
    // with x read from a storage buffer (GPU paths), whose copy of a texture 64 wide holds
    // x's rows one after another.
    let mut r = rng(33);
    for (width, gpu) in [(8192, false), (64, false), (8192, true), (64, true)] {
        let ctx = if gpu {
            gpu_paths_ctx(width)
        } else {
            interleaved_ctx(width)
        };
        for (m, n) in [(24usize, 4092usize), (4092, 24), (300, 500), (1000, 1000)] {
            for layout in [ColMajor, RowMajor] {
                for t in [NoTrans, Trans] {
                    let (alpha, beta) = (0.7f32, -1.0f32);
                    let (inner, outer) = lines(layout, m, n);
                    let lda = inner.next_multiple_of(4);
                    let (lx, ly) = if t.is_trans() { (m, n) } else { (n, m) };
                    let mut a = matrix(&mut r, inner, outer, lda, f32::NAN);
                    a.extend([f32::NAN; 5]);
                    let x = reals(&mut r, lx);
                    let y0 = reals(&mut r, ly);
                    let mut want = y0.clone();
                    let (mi, ni, li) = (m as i32, n as i32, lda as i32);
                    cpu_gemm::sgemv(layout, t, mi, ni, alpha, &a, li, &x, 1, beta, &mut want, 1);
                    let ga = ctx.upload(&a).unwrap();
                    let gx = ctx.upload(&x).unwrap();
                    let mut gy = ctx.upload(&y0).unwrap();
                    ctx.sgemv(layout, t, mi, ni, alpha, &ga, li, &gx, 1, beta, &mut gy, 1)
                        .unwrap();
                    let got = gy.to_vec().unwrap();
                    let bound = gemv_bound(layout, t, mi, ni, &a, lda, &x, 1, ly, 1);
                    let tol = |i: usize| {
                        2.0 * (lx as f32 + 2.0)
                            * EPS
                            * (alpha.abs() * bound[i] + beta.abs() * y0[i].abs())
                            + f32::MIN_POSITIVE
                    };
                    let what = format!("sgemv width {width} {gpu} {layout:?} {t:?} m={m} n={n}");
                    assert_close_slices(&what, &got, &want, tol);
                }
            }
        }
    }
}

#[test]
fn sgemv_matches_blas() {
    // Both contexts: the final y update renders or, where y has unit stride, runs in place.
    for ctx in both_paths() {
        let mut r = rng(31);
        let shapes = [
            (1, 1),
            (3, 5),
            (7, 13),
            (16, 16),
            (17, 4),
            (1, 1000),
            (1000, 1),
            (64, 65),
            // Long summed index: the vec4 kernel splits it into chunks that a reduction adds.
            (5, 3001),
            (3001, 5),
            (123, 777),
            (0, 3),
            (3, 0),
        ];
        for &(m, n) in &shapes {
            for layout in [ColMajor, RowMajor] {
                for t in [NoTrans, Trans] {
                    for (incx, incy) in [(1, 1), (-2, 3), (3, -1), (2, 2), (1, -2), (1, 3)] {
                        for (alpha, beta) in
                            [(0.7, -1.0), (1.0, 0.0), (0.0, 0.7), (-1.0, 1.0), (0.0, 0.0)]
                        {
                            let (inner, outer) = lines(layout, m, n);
                            // Alternate a leading dimension with a gap of 0-2 and one rounded up
                            // to a multiple of 4 (which the vectorised kernel needs).
                            let lda = if (incx + incy) % 2 == 0 {
                                inner.max(1) + (m + n) % 3
                            } else {
                                inner.max(1).next_multiple_of(4)
                            };
                            let (lx, ly) = if t.is_trans() { (m, n) } else { (n, m) };
                            let mut a = matrix(&mut r, inner, outer, lda, f32::NAN);
                            // NaN past A's span too: no kernel may read beyond it.
                            a.extend([f32::NAN; 5]);
                            let mut x = reals(&mut r, span(lx as i32, incx));
                            if alpha == 0.0 {
                                a.iter_mut().for_each(|v| *v = f32::NAN);
                                x.iter_mut().for_each(|v| *v = f32::NAN);
                            }
                            let mut y0 = reals(&mut r, span(ly as i32, incy) + 2);
                            if beta == 0.0 {
                                for p in positions(ly as i32, incy) {
                                    y0[p] = f32::NAN;
                                }
                            }
                            let mut want = y0.clone();
                            let (mi, ni) = (m as i32, n as i32);
                            cpu_gemm::sgemv(
                                layout, t, mi, ni, alpha, &a, lda as i32, &x, incx, beta,
                                &mut want, incy,
                            );
                            let what = format!("sgemv {layout:?} {t:?} m={m} n={n} lda={lda} incx={incx} incy={incy} alpha={alpha} beta={beta}");
                            let ga = ctx.upload(&a).unwrap();
                            let gx = ctx.upload(&x).unwrap();
                            let mut gy = ctx.upload(&y0).unwrap();
                            ctx.sgemv(
                                layout, t, mi, ni, alpha, &ga, lda as i32, &gx, incx, beta,
                                &mut gy, incy,
                            )
                            .unwrap();
                            let got = gy.to_vec().unwrap();
                            // Each kernel explicitly too (Vec4 where it serves the call).
                            let vec4_serves = lda % 4 == 0 && incx == 1;
                            let mut by_kernel = Vec::new();
                            for kern in [GemvKernel::Generic, GemvKernel::Vec4] {
                                let mut gy = ctx.upload(&y0).unwrap();
                                let r = ctx.sgemv_with(
                                    kern, layout, t, mi, ni, alpha, &ga, lda as i32, &gx, incx,
                                    beta, &mut gy, incy,
                                );
                                if kern == GemvKernel::Vec4
                                    && !vec4_serves
                                    && alpha != 0.0
                                    && m > 0
                                    && n > 0
                                {
                                    assert!(matches!(r, Err(Error::Unsupported(_))), "{what}");
                                    continue;
                                }
                                r.unwrap();
                                by_kernel.push((kern, gy.to_vec().unwrap()));
                            }
                            // Sequential sums of lx products on both sides: bound from |A||x|.
                            let bound =
                                gemv_bound(layout, t, mi, ni, &a, lda, &x, incx, y0.len(), incy);
                            let tol = |i: usize| {
                                let c = if y0[i].is_nan() { 0.0 } else { y0[i].abs() };
                                2.0 * (lx as f32 + 2.0)
                                    * EPS
                                    * (alpha.abs() * bound[i] + beta.abs() * c)
                                    + f32::MIN_POSITIVE
                            };
                            assert_close_slices(&what, &got, &want, tol);
                            for (kern, v) in &by_kernel {
                                assert_close_slices(&format!("{kern:?} {what}"), v, &want, tol);
                            }
                            let mut host = y0.clone();
                            fragblas::cblas::sgemv(
                                &ctx, layout, t, mi, ni, alpha, &a, lda as i32, &x, incx, beta,
                                &mut host, incy,
                            )
                            .unwrap();
                            assert_close_slices(&format!("cblas {what}"), &host, &want, tol);
                            // Skipped elements: untouched, bit for bit.
                            let touched = positions(ly as i32, incy);
                            for i in 0..y0.len() {
                                if !touched.contains(&i) || m == 0 || n == 0 {
                                    assert!(same(got[i], y0[i]), "{what}: element {i} changed");
                                    assert!(
                                        same(host[i], y0[i]),
                                        "cblas {what}: element {i} changed"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn sgemm_with_k_zero_never_uses_alpha() {
    // Reference: k == 0 (like alpha == 0) gives C := beta*C without forming the product,
    // so a NaN or Inf alpha does not reach C; beta == 0 gives zeros.
    let ctx = ctx();
    let c0 = [1.0f32, -2.0, 3.0, f32::NAN];
    for alpha in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.0] {
        for (beta, want) in [(0.5f32, [0.5, -1.0, 1.5]), (0.0, [0.0, 0.0, 0.0])] {
            let mut gc = ctx.upload(&c0).unwrap();
            let (a, b) = (
                ctx.upload(&[f32::NAN]).unwrap(),
                ctx.upload(&[f32::NAN]).unwrap(),
            );
            ctx.sgemm(
                ColMajor, NoTrans, NoTrans, 3, 1, 0, alpha, &a, 3, &b, 1, beta, &mut gc, 3,
            )
            .unwrap();
            let got = gc.to_vec().unwrap();
            assert_eq!(&got[..3], &want, "alpha {alpha} beta {beta}");
            assert!(got[3].is_nan(), "outside the window");
            let mut host = c0;
            fragblas::cblas::sgemm(
                &ctx,
                ColMajor,
                NoTrans,
                NoTrans,
                3,
                1,
                0,
                alpha,
                &[],
                3,
                &[],
                1,
                beta,
                &mut host,
                3,
            )
            .unwrap();
            assert_eq!(&host[..3], &want, "cblas alpha {alpha} beta {beta}");
            let mut cpu = c0;
            cpu_gemm::sgemm(
                ColMajor,
                NoTrans,
                NoTrans,
                3,
                1,
                0,
                alpha,
                &[0.0],
                3,
                &[0.0],
                1,
                beta,
                &mut cpu,
                3,
            );
            assert_eq!(&cpu[..3], &want, "reference");
        }
    }
}

#[test]
fn quick_returns_need_no_operands() {
    // m == 0, n == 0, or (alpha == 0 or k == 0) with beta == 1: nothing is read, so empty
    // slices are fine and nothing is uploaded or written; alpha == 0 reads only C.
    let ctx = ctx();
    let mut c = [5.0f32; 4];
    for (m, n, k, alpha, beta) in [
        (0, 2, 2, 1.0, 0.0),
        (2, 0, 2, 1.0, 0.0),
        (2, 2, 2, 0.0, 1.0),
        (2, 2, 0, 1.0, 1.0),
    ] {
        fragblas::cblas::sgemm(
            &ctx,
            ColMajor,
            NoTrans,
            NoTrans,
            m,
            n,
            k,
            alpha,
            &[],
            2,
            &[],
            2,
            beta,
            &mut c,
            2,
        )
        .unwrap();
        assert_eq!(c, [5.0; 4]);
    }
    fragblas::cblas::sgemm(
        &ctx,
        RowMajor,
        Trans,
        NoTrans,
        2,
        2,
        3,
        0.0,
        &[],
        2,
        &[],
        2,
        2.0,
        &mut c,
        2,
    )
    .unwrap();
    assert_eq!(c, [10.0; 4]);
    let mut y = [1.0f32, 2.0];
    fragblas::cblas::sgemv(
        &ctx,
        ColMajor,
        NoTrans,
        2,
        3,
        0.0,
        &[],
        2,
        &[],
        1,
        -1.0,
        &mut y,
        1,
    )
    .unwrap();
    assert_eq!(y, [-1.0, -2.0]);
    fragblas::cblas::sgemv(
        &ctx,
        ColMajor,
        NoTrans,
        0,
        3,
        1.0,
        &[],
        1,
        &[],
        1,
        0.0,
        &mut [],
        1,
    )
    .unwrap();
}
