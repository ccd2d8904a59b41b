//! ssymm, ssyrk and ssyr2k against the reference BLAS, through the device API and the host
//! API: every size of the issue for m, n and k, both layouts, both sides, both triangles,
//! both transposes, alpha and beta in {0, 1, -1, 0.7}, leading dimensions tight and 3
//! larger. Slots no routine reads hold NaN (the gaps past each column or row, the other
//! triangle of A, all of A and B when alpha is 0, C's window when beta is 0) and every slot
//! a routine must not write is checked bit for bit (the gaps, the other triangle of C, the
//! slots past the end). One large case per routine (about 1000).
//!
//! Tolerance: each element is a sum of at most `terms` products (m or n for ssymm, k for
//! ssyrk, 2k for ssyr2k); both sides lie within (terms + 2) eps of the exact value in units
//! of the magnitude bound |alpha| |A||B| + |beta||C|, and the check allows the sum.

mod common;

use common::level3::check3::*;
use common::level3::cpu3;
use common::stored::{self, Kind, What};
use common::*;
use fragblas::{cblas, Layout, Side, Transpose, Uplo};

const LAYOUTS: [Layout; 2] = [Layout::ColMajor, Layout::RowMajor];
const SIDES: [Side; 2] = [Side::Left, Side::Right];
const UPLOS: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];
const TRANS: [Transpose; 2] = [Transpose::NoTrans, Transpose::Trans];

/// A general `rows x cols` matrix: random, NaN in the gaps and PAD slots after.
fn general(r: &mut rand::rngs::StdRng, l: Layout, rows: usize, cols: usize, ld: usize) -> Vec<f32> {
    stored::build(
        l,
        Kind::Full,
        What::General,
        rows,
        cols,
        ld,
        PAD,
        stored::random(r),
    )
}

/// The c-th pick of (alpha, beta, extra leading dimension): over 32 consecutive c, every
/// combination.
fn pick(c: usize) -> (f32, f32, usize) {
    (SCALARS[c % 4], SCALARS[(c / 4) % 4], [0, 3][(c / 16) % 2])
}

/// Sets every slot of `v` to NaN (a matrix the call must not read).
fn poison(v: &mut [f32]) {
    v.iter_mut().for_each(|x| *x = f32::NAN);
}

/// Sets the written slots of `v` to NaN (C when beta is 0: not read).
fn poison_written(v: &mut [f32], written: &[bool]) {
    for (x, w) in v.iter_mut().zip(written) {
        if *w {
            *x = f32::NAN;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn symm_case(
    ctx: &fragblas::Context,
    r: &mut rand::rngs::StdRng,
    (layout, side, uplo): (Layout, Side, Uplo),
    m: usize,
    n: usize,
    (alpha, beta, extra): (f32, f32, usize),
) {
    let ctx = ctx.clone();
    let ka = if side == Side::Left { m } else { n };
    let lda = ka.max(1) + extra;
    let (ldb, ldc) = (ld(layout, m, n, extra), ld(layout, m, n, extra));
    let tri = What::Triangle(uplo, None);
    let mut a = stored::build(layout, Kind::Full, tri, ka, ka, lda, PAD, stored::random(r));
    let mut b = general(r, layout, m, n, ldb);
    let mut c = general(r, layout, m, n, ldc);
    let written = stored::written(layout, Kind::Full, What::General, m, n, ldc, c.len());
    if alpha == 0.0 {
        poison(&mut a);
        poison(&mut b);
    }
    if beta == 0.0 {
        poison_written(&mut c, &written);
    }
    let (mi, ni, lda, ldb, ldc) = (m as i32, n as i32, lda as i32, ldb as i32, ldc as i32);
    let what = format!(
        "ssymm {layout:?} {side:?} {uplo:?} m={m} n={n} alpha={alpha} beta={beta} +{extra}"
    );
    check_mm(
        &ctx,
        &what,
        (&a, &b, &c),
        &written,
        (alpha, beta),
        Tol::Product(ka),
        true,
        &|a, b, c, al, be| cpu3::ssymm(layout, side, uplo, mi, ni, al, a, lda, b, ldb, be, c, ldc),
        &|ga, gb, gc| {
            ctx.ssymm(
                layout, side, uplo, mi, ni, alpha, ga, lda, gb, ldb, beta, gc, ldc,
            )
        },
        &|a, b, c| {
            cblas::ssymm(
                &ctx, layout, side, uplo, mi, ni, alpha, a, lda, b, ldb, beta, c, ldc,
            )
        },
    );
}

#[test]
fn ssymm_every_size_side_triangle_and_layout() {
    let mut r = rng(31);
    let mut count = 0usize;
    for (si, &m) in SIZES.iter().enumerate() {
        let n = SIZES[(si * 7 + 3) % SIZES.len()];
        for layout in LAYOUTS {
            for side in SIDES {
                for uplo in UPLOS {
                    // (All of them, or one in `thin()`, rotating.)
                    if kept(count, 8) {
                        symm_case(&ctx(), &mut r, (layout, side, uplo), m, n, pick(count));
                    }
                    count += 1;
                }
            }
        }
    }
    symm_case(
        &ctx(),
        &mut r,
        (Layout::ColMajor, Side::Left, Uplo::Lower),
        1000,
        999,
        (0.7, -1.0, 2),
    );
}

/// One ssyrk (`b` None) or ssyr2k case.
#[allow(clippy::too_many_arguments)]
fn syrk_case(
    ctx: &fragblas::Context,
    r: &mut rand::rngs::StdRng,
    two: bool,
    (layout, uplo, trans): (Layout, Uplo, Transpose),
    n: usize,
    k: usize,
    (alpha, beta, extra): (f32, f32, usize),
) {
    let ctx = ctx.clone();
    // op(A) is n x k: A is n x k (NoTrans) or k x n.
    let (ar, ac) = if trans == Transpose::NoTrans {
        (n, k)
    } else {
        (k, n)
    };
    let lda = ld(layout, ar, ac, extra);
    let ldb = ld(layout, ar, ac, 2 * extra);
    let ldc = ld(layout, n, n, extra);
    let mut a = general(r, layout, ar, ac, lda);
    let mut b = general(r, layout, ar, ac, ldb);
    let tri = What::Triangle(uplo, None);
    let mut c = stored::build(layout, Kind::Full, tri, n, n, ldc, PAD, stored::random(r));
    let written = stored::written(layout, Kind::Full, tri, n, n, ldc, c.len());
    if alpha == 0.0 || k == 0 {
        poison(&mut a);
        poison(&mut b);
    }
    if beta == 0.0 {
        poison_written(&mut c, &written);
    }
    let (ni, ki, lda, ldb, ldc) = (n as i32, k as i32, lda as i32, ldb as i32, ldc as i32);
    let name = if two { "ssyr2k" } else { "ssyrk" };
    let what = format!(
        "{name} {layout:?} {uplo:?} {trans:?} n={n} k={k} alpha={alpha} beta={beta} +{extra}"
    );
    if two {
        check_mm(
            &ctx,
            &what,
            (&a, &b, &c),
            &written,
            (alpha, beta),
            Tol::Product(2 * k),
            true,
            &|a, b, c, al, be| {
                cpu3::ssyr2k(layout, uplo, trans, ni, ki, al, a, lda, b, ldb, be, c, ldc)
            },
            &|ga, gb, gc| {
                ctx.ssyr2k(
                    layout, uplo, trans, ni, ki, alpha, ga, lda, gb, ldb, beta, gc, ldc,
                )
            },
            &|a, b, c| {
                cblas::ssyr2k(
                    &ctx, layout, uplo, trans, ni, ki, alpha, a, lda, b, ldb, beta, c, ldc,
                )
            },
        );
    } else {
        check_mm(
            &ctx,
            &what,
            (&a, &b, &c),
            &written,
            (alpha, beta),
            Tol::Product(k),
            true,
            &|a, _, c, al, be| cpu3::ssyrk(layout, uplo, trans, ni, ki, al, a, lda, be, c, ldc),
            &|ga, _, gc| ctx.ssyrk(layout, uplo, trans, ni, ki, alpha, ga, lda, beta, gc, ldc),
            &|a, _, c| {
                cblas::ssyrk(
                    &ctx, layout, uplo, trans, ni, ki, alpha, a, lda, beta, c, ldc,
                )
            },
        );
    }
}

fn syrk_sweep(two: bool, seed: u64) {
    let mut r = rng(seed);
    let mut count = 0;
    for (si, &n) in SIZES.iter().enumerate() {
        let k = SIZES[(si * 5 + 2) % SIZES.len()];
        for layout in LAYOUTS {
            for uplo in UPLOS {
                for trans in TRANS {
                    syrk_case(
                        &ctx(),
                        &mut r,
                        two,
                        (layout, uplo, trans),
                        n,
                        k,
                        pick(count),
                    );
                    count += 1;
                }
            }
        }
    }
}

#[test]
fn ssyrk_every_size_triangle_transpose_and_layout() {
    syrk_sweep(false, 32);
    let mut r = rng(33);
    syrk_case(
        &ctx(),
        &mut r,
        false,
        (Layout::RowMajor, Uplo::Upper, Transpose::NoTrans),
        1000,
        500,
        (-1.0, 0.7, 1),
    );
}

#[test]
fn ssyr2k_every_size_triangle_transpose_and_layout() {
    syrk_sweep(true, 34);
    let mut r = rng(35);
    syrk_case(
        &ctx(),
        &mut r,
        true,
        (Layout::ColMajor, Uplo::Lower, Transpose::Trans),
        1000,
        300,
        (0.7, 1.0, 0),
    );
}

/// Each sgemm kernel pinned in turn (where it cannot run a product, the usual choice
/// stands) under small odd shapes of ssymm, ssyrk and ssyr2k: every size, k and triangle
/// from 0 to 9, the special scalars, both layouts and transposes.
#[test]
fn every_gemm_kernel_under_small_symmetric_shapes() {
    let ctx = ctx();
    let mut r = rng(37);
    let mut count = 0;
    for kernel in fragblas::GemmKernel::ALL {
        ctx.set_gemm_kernel(kernel);
        for n in [1, 2, 3, 5, 8, 9] {
            for k in [0, 1, 4, 7] {
                let l = LAYOUTS[count % 2];
                let (alpha, beta, extra) = pick(count);
                for two in [false, true] {
                    let modes = (l, UPLOS[(count / 2) % 2], TRANS[(count / 4) % 2]);
                    syrk_case(&ctx, &mut r, two, modes, n, k, (alpha, beta, extra));
                }
                if k == 0 {
                    let modes = (l, SIDES[(count / 2) % 2], UPLOS[(count / 4) % 2]);
                    symm_case(&ctx, &mut r, modes, n, n + 1, (alpha, beta, extra));
                }
                count += 1;
            }
        }
    }
    ctx.set_gemm_kernel(fragblas::GemmKernel::Auto);
}

/// Each sgemm kernel the routines can pick runs their blocks right (pinned in turn).
#[test]
fn every_gemm_kernel_under_the_symmetric_routines() {
    let ctx = ctx();
    let mut r = rng(36);
    for (i, kernel) in fragblas::GemmKernel::ALL.into_iter().enumerate() {
        ctx.set_gemm_kernel(kernel);
        let l = LAYOUTS[i % 2];
        symm_case(
            &ctx,
            &mut r,
            (l, SIDES[i % 2], UPLOS[(i / 2) % 2]),
            65,
            129,
            (0.7, -1.0, 3),
        );
        for two in [false, true] {
            let modes = (l, UPLOS[i % 2], TRANS[(i / 2) % 2]);
            syrk_case(&ctx, &mut r, two, modes, 129, 33, (-1.0, 0.7, 1));
        }
    }
    ctx.set_gemm_kernel(fragblas::GemmKernel::Auto);
}

/// On a context whose packed kernels pack through image stores and whose strip kernels
/// write C in place (GPUs with image stores): ssymm, ssyrk and ssyr2k under the strip and
/// tile kernels, with C's leading dimension a multiple of 4 (the triangles of ssyrk's
/// diagonal blocks written in place) and not, at orders that end mid-strip, and k over one
/// chunk of the strip kernels and over two.
#[test]
fn symmetric_routines_with_image_store_packs_and_in_place_merge() {
    let ctx = image_ctx();
    let mut r = rng(39);
    for (i, kernel) in [
        fragblas::GemmKernel::Strip4,
        fragblas::GemmKernel::Tile8,
        fragblas::GemmKernel::Strip1,
    ]
    .into_iter()
    .enumerate()
    {
        ctx.set_gemm_kernel(kernel);
        for (c, (n, k, extra)) in [(129, 33, 3), (70, 9, 2), (9, 5, 3)]
            .into_iter()
            .enumerate()
        {
            let l = LAYOUTS[(i + c) % 2];
            symm_case(
                &ctx,
                &mut r,
                (l, SIDES[c % 2], UPLOS[(i + c) % 2]),
                n,
                n + 3,
                (0.7, [-1.0, 0.0][c % 2], extra),
            );
            for two in [false, true] {
                for uplo in UPLOS {
                    let modes = (l, uplo, TRANS[(c + two as usize) % 2]);
                    // beta == 0 too: the other triangle holds NaN (it may not be read),
                    // so only a finite result shows a write there.
                    let beta = [0.7, 0.0][(c + two as usize) % 2];
                    syrk_case(&ctx, &mut r, two, modes, n, k, (-1.0, beta, extra));
                }
            }
        }
    }
    // k over two chunks of the strip kernels' uniform blocks, C's leading dimension a
    // multiple of 4: each strip's last draw adds what its first left in the targets and
    // writes its part of C's triangle itself.
    for kernel in [fragblas::GemmKernel::Strip4, fragblas::GemmKernel::Strip1] {
        ctx.set_gemm_kernel(kernel);
        for (c, (n, extra)) in [(70, 2), (37, 3)].into_iter().enumerate() {
            for two in [false, true] {
                let uplo = UPLOS[(c + two as usize) % 2];
                let modes = (Layout::ColMajor, uplo, TRANS[c % 2]);
                syrk_case(&ctx, &mut r, two, modes, n, 2100, (0.7, -1.0, extra));
            }
        }
    }
    ctx.set_gemm_kernel(fragblas::GemmKernel::Auto);
}

/// Netlib's sblat3 loops of ssyr2k (every size, k, triangle, transpose and scalar of
/// sblat3's data, in one context) under each kernel: the strip kernels got
/// SSYR2K('U', 'N', n = 5, k = 1, alpha = 1, lda = ldb = ldc = 6, beta = 0) wrong on
/// llvmpipe while the default framebuffer was bound after every draw (issue 31).
#[test]
fn ssyr2k_sblat3_case_under_every_kernel() {
    let ctx = ctx();
    let mut r = rng(38);
    for kernel in fragblas::GemmKernel::ALL {
        ctx.set_gemm_kernel(kernel);
        // sblat3's loops: sizes, then k, triangle, transpose, alpha, beta, in one context.
        for n in [0, 1, 2, 3, 5, 9] {
            for k in [0, 1, 2, 4] {
                for uplo in UPLOS {
                    for trans in TRANS {
                        for alpha in [0.0, 1.0, 0.7] {
                            for beta in [0.0, 1.0, 0.9] {
                                let modes = (Layout::ColMajor, uplo, trans);
                                syrk_case(&ctx, &mut r, true, modes, n, k, (alpha, beta, 1));
                            }
                        }
                    }
                }
            }
        }
    }
    ctx.set_gemm_kernel(fragblas::GemmKernel::Auto);
}

/// From order 2048 the triangle is first halved (a square block between the halves, each
/// half in column blocks): both routines, both triangles and transposes, both layouts, with
/// a short k to keep it quick.
#[test]
fn ssyrk_ssyr2k_halved_triangles() {
    let mut r = rng(36);
    let mut c = 0usize;
    for two in [false, true] {
        for uplo in [Uplo::Upper, Uplo::Lower] {
            for trans in [Transpose::NoTrans, Transpose::Trans] {
                let layout = [Layout::ColMajor, Layout::RowMajor][c % 2];
                let scalars = [(0.7, 1.0, 0), (-1.0, 0.0, 3)][(c / 2) % 2];
                // (All of them, or one in `thin()`, rotating: with 2, each routine both
                // triangles and, over the two, both transposes.)
                if kept(c, 4) {
                    syrk_case(&ctx(), &mut r, two, (layout, uplo, trans), 2100, 3, scalars);
                }
                c += 1;
            }
        }
    }
}
