//! strmm and strsm against the reference BLAS, through the device API and the host API:
//! every size of the issue for m and n, both layouts, both sides, both triangles, both
//! transposes, unit and non-unit diagonals, alpha in {0, 1, -1, 0.7}, leading dimensions
//! tight and 3 larger. Slots not read hold NaN (the gaps, the other triangle of A, a unit
//! diagonal; all of A and B when alpha is 0); B's gaps and the slots after it are checked
//! bit for bit. One large case per routine (order 1000). A singular A gives the Inf and NaN
//! reference's substitution gives, element for element.
//!
//! Tolerances: a product sums at most `order` terms (`Tol::Product`). A solve's matrix is
//! well conditioned by construction (`stored::dominant`: condition at most 5 in the infinity
//! norm, whichever transpose), so each side's forward error is at most about
//! 5 (order + 2) eps max|x|, and the check allows twice that (`Tol::Solve`).

mod common;

use common::level3::check3::*;
use common::level3::cpu3;
use common::stored::{self, Kind, What};
use common::*;
use fragblas::{cblas, Diag, Layout, Side, Transpose, Uplo};

const LAYOUTS: [Layout; 2] = [Layout::ColMajor, Layout::RowMajor];
const SIDES: [Side; 2] = [Side::Left, Side::Right];
const UPLOS: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];
const TRANS: [Transpose; 2] = [Transpose::NoTrans, Transpose::Trans];
const DIAGS: [Diag; 2] = [Diag::NonUnit, Diag::Unit];

type Modes = (Layout, Side, Uplo, Transpose, Diag);

/// One strmm (`solve` false) or strsm case on `ctx`.
fn tri_case(
    ctx: &fragblas::Context,
    r: &mut rand::rngs::StdRng,
    solve: bool,
    (layout, side, uplo, trans, diag): Modes,
    (m, n): (usize, usize),
    (alpha, extra): (f32, usize),
) {
    let ka = if side == Side::Left { m } else { n };
    let lda = ka.max(1) + extra;
    let ldb = ld(layout, m, n, extra);
    let what_a = What::Triangle(uplo, Some(diag));
    let mut a = if solve {
        let d = stored::dominant(r, ka.saturating_sub(1));
        stored::build(layout, Kind::Full, what_a, ka, ka, lda, PAD, d)
    } else {
        stored::build(
            layout,
            Kind::Full,
            what_a,
            ka,
            ka,
            lda,
            PAD,
            stored::random(r),
        )
    };
    let mut b = stored::build(
        layout,
        Kind::Full,
        What::General,
        m,
        n,
        ldb,
        PAD,
        stored::random(r),
    );
    let written = stored::written(layout, Kind::Full, What::General, m, n, ldb, b.len());
    if alpha == 0.0 {
        a.iter_mut().for_each(|x| *x = f32::NAN);
        for (x, w) in b.iter_mut().zip(&written) {
            if *w {
                *x = f32::NAN;
            }
        }
    }
    let (mi, ni, lda, ldb) = (m as i32, n as i32, lda as i32, ldb as i32);
    let name = if solve { "strsm" } else { "strmm" };
    let what = format!(
        "{name} {layout:?} {side:?} {uplo:?} {trans:?} {diag:?} m={m} n={n} alpha={alpha} +{extra}"
    );
    let cname = format!("cblas_{name}");
    let tol = if solve {
        Tol::Solve(ka)
    } else {
        Tol::Product(ka)
    };
    check_mm(
        ctx,
        &what,
        (&a, &[], &b),
        &written,
        (alpha, 0.0),
        tol,
        true,
        &|a, _, b, al, _| {
            cpu3::tr3(
                &cname, layout, side, uplo, trans, diag, mi, ni, al, a, lda, b, ldb,
            )
        },
        &|ga, _, gb| {
            if solve {
                ctx.strsm(
                    layout, side, uplo, trans, diag, mi, ni, alpha, ga, lda, gb, ldb,
                )
            } else {
                ctx.strmm(
                    layout, side, uplo, trans, diag, mi, ni, alpha, ga, lda, gb, ldb,
                )
            }
        },
        &|a, _, b| {
            if solve {
                cblas::strsm(
                    ctx, layout, side, uplo, trans, diag, mi, ni, alpha, a, lda, b, ldb,
                )
            } else {
                cblas::strmm(
                    ctx, layout, side, uplo, trans, diag, mi, ni, alpha, a, lda, b, ldb,
                )
            }
        },
    );
}

/// Every size pair, layout, side, triangle, transpose and diagonal on `ctx`, where A's order
/// is in `orders`, one case in `every`.
fn sweep(
    ctx: &fragblas::Context,
    solve: bool,
    seed: u64,
    (orders, every): (std::ops::RangeInclusive<usize>, usize),
) {
    let mut r = rng(seed);
    let mut count = 0usize;
    // (With `thin()` one case in `every * thin()`, still rotating.)
    let every = every * thin();
    for (si, &m) in SIZES.iter().enumerate() {
        let n = SIZES[(si * 7 + 3) % SIZES.len()];
        for layout in LAYOUTS {
            for side in SIDES {
                for uplo in UPLOS {
                    for trans in TRANS {
                        for diag in DIAGS {
                            let alpha = SCALARS[count % 4];
                            let extra = [0, 3][(count / 4) % 2];
                            let modes = (layout, side, uplo, trans, diag);
                            let ka = if side == Side::Left { m } else { n };
                            let picked = (5 * count + count / 16).is_multiple_of(every);
                            if orders.contains(&ka) && picked {
                                tri_case(ctx, &mut r, solve, modes, (m, n), (alpha, extra));
                            }
                            count += 1;
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn strmm_every_size_side_triangle_transpose_diagonal_and_layout() {
    sweep(&ctx(), false, 41, (0..=usize::MAX, 1));
    let mut r = rng(42);
    let modes = (
        Layout::ColMajor,
        Side::Right,
        Uplo::Upper,
        Transpose::Trans,
        Diag::NonUnit,
    );
    tri_case(&ctx(), &mut r, false, modes, (300, 1000), (0.7, 1));
}

/// The same sweep (one case in three) on a context with image stores, where a block
/// product's fragment multiplies eight columns of W by four rows of T.
#[test]
fn strmm_sweep_with_image_stores() {
    sweep(&image_ctx(), false, 43, (0..=usize::MAX, 3));
}

/// strsm's sweep (one case in three) on a context with image stores, where B is copied in
/// and out of the working matrix in place, 8 texels a fragment.
#[test]
fn strsm_sweep_with_image_stores() {
    sweep(&image_ctx(), true, 44, (0..=usize::MAX, 3));
}

#[test]
fn strsm_every_size_side_triangle_transpose_diagonal_and_layout() {
    // By substitution on small blocks, and by the inverses of blocks of 64 (orders of two
    // blocks and more).
    for (i, p) in both_solves().into_iter().enumerate() {
        sweep(&p.ctx, true, 43, (p.orders.clone(), p.every));
        let mut r = rng(44 + i as u64);
        let modes = (
            Layout::RowMajor,
            Side::Left,
            Uplo::Lower,
            Transpose::NoTrans,
            Diag::NonUnit,
        );
        if p.orders.contains(&1000) {
            tri_case(&p.ctx, &mut r, true, modes, (1000, 300), (-1.0, 2));
        }
    }
}

/// The inverse path over orders that cross its blocks of 64 (one past, a short last block,
/// several blocks), every side, triangle, transpose, diagonal and layout.
#[test]
fn strsm_by_inverted_blocks_across_block_boundaries() {
    let [_, p] = both_solves();
    inverted_block_cases(&p, &[1, 6, 13]);
}

/// The inverse path on a context with image stores, where a fragment applies its texels of
/// a block's inverse to four columns of W (substituting in a column that meets an Inf or
/// NaN): the block boundaries, singular matrices and an Inf in B. The updates run on the
/// strip kernel, as on a GPU (where they read their blocks of T from one pack of T); the
/// singular and Inf tests below run this context on the device's own choice of kernel.
#[test]
fn strsm_by_inverted_blocks_with_image_stores() {
    let [_, inverse] = both_solves();
    let p = SolvePath {
        ctx: inverse_image_ctx(),
        ..inverse
    };
    p.ctx.set_gemm_kernel(fragblas::GemmKernel::Strip4);
    inverted_block_cases(&p, &[1, 6, 13]);
    singular_cases(&p.ctx, &p.orders, 6);
    infinity_cases(&p.ctx, &[true], &p.orders, 5);
}

/// strsm by inverted blocks with many right-hand sides (2053: quads of op(B) whose last
/// column groups lie past W's columns) on a device with image stores, the updates on the
/// strip kernels: each block's apply writes the solved rows as the updates' op(B) quads and
/// into W's next texture (`TRI_APPLY_PACKED`), the updates read the quads from their first
/// row. Regular, singular and infinite cases, both sides (on the right, W is B's transpose:
/// its columns are B's rows).
#[test]
fn strsm_packed_applies_with_many_right_hand_sides() {
    let [_, inverse] = both_solves();
    // One case in eight of the sweep: each is 2048 columns wide.
    let p = SolvePath {
        ctx: inverse_image_ctx(),
        every: 8 * inverse.every,
        ..inverse
    };
    if !p.ctx.info().image_stores {
        eprintln!("skipped: the packed applies need image stores");
        return;
    }
    p.ctx.set_gemm_kernel(fragblas::GemmKernel::Strip4);
    let wide = 2048 + 5;
    inverted_block_cases(&p, &[wide]);
    singular_cases(&p.ctx, &p.orders, wide);
    infinity_cases(&p.ctx, &[true], &p.orders, wide);
}

/// strsm over orders that cross the inverse path's blocks of 64 on `p`'s context.
fn inverted_block_cases(p: &SolvePath, others: &[usize]) {
    let mut r = rng(49);
    let mut c = 0usize;
    let every = p.every * thin();
    for order in [65usize, 100, 128, 191, 300] {
        for layout in LAYOUTS {
            for side in SIDES {
                for uplo in UPLOS {
                    for trans in TRANS {
                        for diag in DIAGS {
                            c += 1;
                            if !p.orders.contains(&order) || !(5 * c + c / 16).is_multiple_of(every)
                            {
                                continue;
                            }
                            let other = others[c % others.len()];
                            let mn = if side == Side::Left {
                                (order, other)
                            } else {
                                (other, order)
                            };
                            let modes = (layout, side, uplo, trans, diag);
                            let alpha = [1.0, -0.7][c % 2];
                            tri_case(&p.ctx, &mut r, true, modes, mn, (alpha, c % 4));
                        }
                    }
                }
            }
        }
    }
}

/// Whether two results are alike for a singular solve: NaN where NaN, an infinity where an
/// infinity, and finite values close (relative to the largest finite one).
fn alike(got: &[f32], want: &[f32]) -> Result<(), String> {
    let big = want
        .iter()
        .filter(|x| x.is_finite())
        .fold(1.0f32, |m, x| m.max(x.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g.is_infinite()
        } else {
            g.is_finite() && (g - w).abs() <= 1e-3 * big
        };
        if !ok {
            return Err(format!("slot {i}: got {g:e}, want {w:e}"));
        }
    }
    Ok(())
}

#[test]
fn strsm_singular_matrices_give_reference_inf_and_nan() {
    // On the inverse path a zero diagonal leaves Inf or NaN in its block's inverse, and the
    // fragments that meet them solve by substitution.
    for p in both_solves() {
        singular_cases(&p.ctx, &p.orders, 6);
    }
    // The same through image stores, four columns of 8 rows a fragment: a fragment tests only its
    // sums for an Inf or NaN (every term's Inf or NaN leaves one there).
    let orders = both_solves()[1].orders.clone();
    singular_cases(&inverse_image_ctx(), &orders, 6);
}

fn singular_cases(ctx: &fragblas::Context, orders: &std::ops::RangeInclusive<usize>, rhs: usize) {
    let mut r = rng(45);
    for &order in [5usize, 33, 70, 150].iter().filter(|o| orders.contains(o)) {
        for side in SIDES {
            for uplo in UPLOS {
                for trans in TRANS {
                    let (m, n) = if side == Side::Left {
                        (order, rhs)
                    } else {
                        (rhs, order)
                    };
                    let layout = Layout::ColMajor;
                    let what_a = What::Triangle(uplo, Some(Diag::NonUnit));
                    let mut a = stored::build(
                        layout,
                        Kind::Full,
                        what_a,
                        order,
                        order,
                        order,
                        0,
                        |i, j| {
                            if i == j {
                                1.5
                            } else {
                                0.25 + 0.5 * ((i + 2 * j) % 3) as f32
                            }
                        },
                    );
                    // A zero on the diagonal in the middle: the solve divides by it.
                    let p = order / 2;
                    a[p + p * order] = 0.0;
                    let mut b = reals(&mut r, m * n);
                    // A zero column (left) or row (right) of B: reference leaves it 0 where
                    // it skips, or divides 0 by 0.
                    for i in 0..m.min(n) {
                        b[i + 2 * m] = 0.0;
                        b[2 + i * m] = 0.0;
                    }
                    let mut want = b.clone();
                    let (mi, ni, o) = (m as i32, n as i32, order as i32);
                    cpu3::tr3(
                        "cblas_strsm",
                        layout,
                        side,
                        uplo,
                        trans,
                        Diag::NonUnit,
                        mi,
                        ni,
                        1.0,
                        &a,
                        o,
                        &mut want,
                        mi,
                    );
                    assert!(want.iter().any(|x| !x.is_finite()), "the case is singular");
                    let ga = ctx.upload(&a).unwrap();
                    let mut gb = ctx.upload(&b).unwrap();
                    ctx.strsm(
                        layout,
                        side,
                        uplo,
                        trans,
                        Diag::NonUnit,
                        mi,
                        ni,
                        1.0,
                        &ga,
                        o,
                        &mut gb,
                        mi,
                    )
                    .unwrap();
                    let got = gb.to_vec().unwrap();
                    if let Err(e) = alike(&got, &want) {
                        panic!("strsm {side:?} {uplo:?} {trans:?} order {order}: {e}");
                    }
                }
            }
        }
    }
}

/// An Inf in B reaches exactly the elements it reaches in reference BLAS: the diagonal
/// blocks read only the stored triangle (never multiply the other triangle's zeros) and
/// the off-diagonal blocks hold only terms reference forms too. (A has no zeros, so no
/// zero test of reference's decides anything.)
#[test]
fn an_infinity_in_b_reaches_what_it_reaches_in_reference() {
    for (i, p) in both_solves().into_iter().enumerate() {
        // strmm once; strsm on both paths (by inverted blocks, the fragments that meet the
        // Inf solve by substitution).
        let solves: &[bool] = if i == 0 { &[false, true] } else { &[true] };
        infinity_cases(&p.ctx, solves, &p.orders, 5);
    }
    // strmm's block products through image stores, four columns a fragment.
    infinity_cases(&image_ctx(), &[false], &(0..=usize::MAX), 5);
    // strsm's inverse products through image stores, four columns of 8 rows a fragment.
    let orders = both_solves()[1].orders.clone();
    infinity_cases(&inverse_image_ctx(), &[true], &orders, 5);
}

fn infinity_cases(
    ctx: &fragblas::Context,
    solves: &[bool],
    orders: &std::ops::RangeInclusive<usize>,
    rhs: usize,
) {
    let mut r = rng(46);
    for &solve in solves {
        for &order in [7usize, 40, 100, 150].iter().filter(|o| orders.contains(o)) {
            for side in SIDES {
                for uplo in UPLOS {
                    for trans in TRANS {
                        let (m, n) = if side == Side::Left {
                            (order, rhs)
                        } else {
                            (rhs, order)
                        };
                        let layout = Layout::ColMajor;
                        let what_a = What::Triangle(uplo, Some(Diag::NonUnit));
                        let a = stored::build(
                            layout,
                            Kind::Full,
                            what_a,
                            order,
                            order,
                            order,
                            0,
                            stored::dominant(&mut r, order - 1),
                        );
                        let mut b = reals(&mut r, m * n);
                        // Inf in the middle of the solve order.
                        let (i, j) = if side == Side::Left {
                            (order / 2, 1)
                        } else {
                            (1, order / 2)
                        };
                        b[i + j * m] = f32::INFINITY;
                        let mut want = b.clone();
                        let name = if solve { "cblas_strsm" } else { "cblas_strmm" };
                        let (mi, ni, o) = (m as i32, n as i32, order as i32);
                        cpu3::tr3(
                            name,
                            layout,
                            side,
                            uplo,
                            trans,
                            Diag::NonUnit,
                            mi,
                            ni,
                            0.7,
                            &a,
                            o,
                            &mut want,
                            mi,
                        );
                        let ga = ctx.upload(&a).unwrap();
                        let mut gb = ctx.upload(&b).unwrap();
                        let d = Diag::NonUnit;
                        if solve {
                            ctx.strsm(
                                layout, side, uplo, trans, d, mi, ni, 0.7, &ga, o, &mut gb, mi,
                            )
                        } else {
                            ctx.strmm(
                                layout, side, uplo, trans, d, mi, ni, 0.7, &ga, o, &mut gb, mi,
                            )
                        }
                        .unwrap();
                        if let Err(e) = alike(&gb.to_vec().unwrap(), &want) {
                            panic!("{name} {side:?} {uplo:?} {trans:?} order {order}: {e}");
                        }
                    }
                }
            }
        }
    }
}

/// Each sgemm kernel the routines can pick runs their updates right (pinned in turn).
#[test]
fn every_gemm_kernel_under_small_triangular_shapes() {
    // Each kernel pinned in turn under strmm and strsm of sizes 1 to 9 (where a kernel
    // cannot run a product, the usual choice stands), every side, triangle, transpose and
    // diagonal over the sizes.
    let ctx = ctx();
    let mut r = rng(48);
    let mut c = 0;
    for kernel in fragblas::GemmKernel::ALL {
        ctx.set_gemm_kernel(kernel);
        for (m, n) in [(1, 1), (2, 5), (3, 9), (5, 2), (8, 7), (9, 4)] {
            for solve in [false, true] {
                let modes = (
                    LAYOUTS[c % 2],
                    SIDES[(c / 2) % 2],
                    UPLOS[(c / 4) % 2],
                    TRANS[(c / 8) % 2],
                    DIAGS[(c / 16) % 2],
                );
                let alpha = [1.0, 0.7, -1.0][c % 3];
                tri_case(&ctx, &mut r, solve, modes, (m, n), (alpha, c % 4));
                c += 1;
            }
        }
    }
    ctx.set_gemm_kernel(fragblas::GemmKernel::Auto);
}

#[test]
fn every_gemm_kernel_under_the_triangular_routines() {
    let ctx = ctx();
    let mut r = rng(47);
    for (i, kernel) in fragblas::GemmKernel::ALL.into_iter().enumerate() {
        ctx.set_gemm_kernel(kernel);
        for solve in [false, true] {
            let modes = (
                LAYOUTS[i % 2],
                SIDES[(i / 2) % 2],
                UPLOS[i % 2],
                TRANS[(i / 4) % 2],
                DIAGS[(i / 2) % 2],
            );
            tri_case(&ctx, &mut r, solve, modes, (129, 65), (0.7, 2));
        }
    }
    ctx.set_gemm_kernel(fragblas::GemmKernel::Auto);
}

/// strmm and strsm on a context whose packed kernels pack through image stores and whose
/// strip kernels write C in place (GPUs with image stores), under the strip and tile
/// kernels.
#[test]
fn triangular_routines_with_image_store_packs_and_in_place_merge() {
    let ctx = image_ctx();
    let mut r = rng(49);
    let mut c = 0;
    for kernel in [fragblas::GemmKernel::Strip4, fragblas::GemmKernel::Tile8] {
        ctx.set_gemm_kernel(kernel);
        for (m, n, extra) in [(300, 40, 0), (129, 65, 3), (9, 4, 1)] {
            for solve in [false, true] {
                let modes = (
                    LAYOUTS[c % 2],
                    SIDES[(c / 2) % 2],
                    UPLOS[(c / 4) % 2],
                    TRANS[(c / 8) % 2],
                    DIAGS[(c / 2) % 2],
                );
                tri_case(&ctx, &mut r, solve, modes, (m, n), (0.7, extra));
                c += 1;
            }
        }
    }
    ctx.set_gemm_kernel(fragblas::GemmKernel::Auto);
}

/// strmm writes its product straight into B where B's window is aligned (a leading
/// dimension and offset that are multiples of 4) and W is not B's transpose (GPUs with image
/// stores): the diagonal blocks in place, then the rest of T as one sgemm on B. Orders on
/// both sides of one pass (64) and of the sgemm's blocks, rows that end inside a texel
/// (the gap rows up to ldb share it and must keep their NaN), both layouts (the row-major
/// forms' W is B itself or its transpose), every side, triangle, transpose and diagonal.
#[test]
fn strmm_straight_into_an_aligned_b_keeps_everything_outside_its_window() {
    let ctx = image_ctx();
    let mut r = rng(51);
    let mut c = 0;
    for (m, n, extra) in [
        (70, 9, 2),
        (64, 5, 0),
        (131, 7, 1),
        (33, 12, 3),
        (200, 4, 0),
    ] {
        for layout in LAYOUTS {
            for side in SIDES {
                for uplo in UPLOS {
                    let modes = (layout, side, uplo, TRANS[c % 2], DIAGS[(c / 2) % 2]);
                    let alpha = [0.7, 1.0, -1.0][c % 3];
                    let (m, n) = if side == Side::Left { (m, n) } else { (n, m) };
                    tri_case(&ctx, &mut r, false, modes, (m, n), (alpha, extra));
                    c += 1;
                }
            }
        }
    }
    // Every sgemm kernel pinned: those that cannot bound their sums take the pitched path
    // (T expanded whole), the others go straight into B.
    for kernel in fragblas::GemmKernel::ALL {
        ctx.set_gemm_kernel(kernel);
        let modes = (
            Layout::ColMajor,
            Side::Left,
            UPLOS[c % 2],
            TRANS[(c / 2) % 2],
            DIAGS[c % 2],
        );
        tri_case(&ctx, &mut r, false, modes, (97, 6), (0.7, 3));
        c += 1;
    }
    ctx.set_gemm_kernel(fragblas::GemmKernel::Auto);
}

/// Up to 64 rows (a product of one diagonal block, one pass of its block kernel) strmm follows
/// reference's zero tests: an Inf in A whose terms reference leaves out (the row of B it
/// multiplies is zero, or the Inf meets a zero of B) and a zero of A facing an Inf of B
/// give reference's Inf and NaN, on the rendered block kernel and on the one that
/// multiplies four columns a fragment through image stores.
#[test]
fn strmm_zero_tests_inside_a_diagonal_block_match_reference() {
    let mut r = rng(50);
    for ctx in [ctx(), image_ctx()] {
        for order in [7usize, 40, 64] {
            for side in SIDES {
                for uplo in UPLOS {
                    for trans in TRANS {
                        let left = side == Side::Left;
                        let (m, n) = if left { (order, 11) } else { (11, order) };
                        let what_a = What::Triangle(uplo, Some(Diag::NonUnit));
                        let mut a = stored::build(
                            Layout::ColMajor,
                            Kind::Full,
                            what_a,
                            order,
                            order,
                            order,
                            0,
                            stored::dominant(&mut r, order - 1),
                        );
                        // An Inf and a zero off the diagonal, inside the stored triangle.
                        let (p, q) = (order - 1, order / 3);
                        let (p, q) = if uplo == Uplo::Lower { (p, q) } else { (q, p) };
                        a[p + q * order] = f32::INFINITY;
                        let (p2, q2) = (order / 2, order / 4);
                        let (p2, q2) = if uplo == Uplo::Lower {
                            (p2, q2)
                        } else {
                            (q2, p2)
                        };
                        if p2 != q2 && (p2, q2) != (p, q) {
                            a[p2 + q2 * order] = 0.0;
                        }
                        let mut b = reals(&mut r, m * n);
                        // Zeros in the lines of B the Inf's terms use, in every other line
                        // of the other direction; an Inf where the zero of A meets B.
                        for t in (0..if left { n } else { m }).step_by(2) {
                            for k in [p, q] {
                                let at = if left { k + t * m } else { t + k * m };
                                b[at] = 0.0;
                            }
                        }
                        let at = if left { q2 + m } else { 1 + p2 * m };
                        b[at] = f32::INFINITY;
                        let mut want = b.clone();
                        let (mi, ni, o) = (m as i32, n as i32, order as i32);
                        let (l, d) = (Layout::ColMajor, Diag::NonUnit);
                        cpu3::tr3(
                            "cblas_strmm",
                            l,
                            side,
                            uplo,
                            trans,
                            d,
                            mi,
                            ni,
                            0.7,
                            &a,
                            o,
                            &mut want,
                            mi,
                        );
                        let ga = ctx.upload(&a).unwrap();
                        let mut gb = ctx.upload(&b).unwrap();
                        ctx.strmm(l, side, uplo, trans, d, mi, ni, 0.7, &ga, o, &mut gb, mi)
                            .unwrap();
                        if let Err(e) = alike(&gb.to_vec().unwrap(), &want) {
                            panic!("strmm {side:?} {uplo:?} {trans:?} order {order}: {e}");
                        }
                    }
                }
            }
        }
    }
}
