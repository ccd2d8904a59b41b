//! The triangular matrix-vector products and solves against the reference BLAS: strmv,
//! stbmv, stpmv, strsv, stbsv, stpsv, through the device API and the host API, for every
//! size of the issue, both layouts, both triangles, both transposes, unit and non-unit
//! diagonals, band widths {0, 1, 2, n-1, n+1} and increments {-2, -1, 1, 2}. Slots of A
//! the routine does not read hold NaN (gaps, the other triangle, a unit diagonal); x's
//! neighbours are sentinels that must not change.
//!
//! Tolerances: a product sums at most w terms (w the band's width), so both sides lie
//! within (w + 2) eps |op(A)||x| of the exact value. A solve's matrix is well conditioned
//! by construction (`stored::dominant`: condition at most 5 in the infinity norm), so each
//! side's forward error is at most about 5 (w + 2) eps max|x|; the check allows twice that.

mod common;

use common::check2::*;
use common::stored::{self, Kind, What};
use common::*;
use fragblas::{cblas, Diag, Layout, Transpose, Uplo};
use std::ops::RangeInclusive;

const LAYOUTS: [Layout; 2] = [Layout::ColMajor, Layout::RowMajor];
const UPLOS: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];
const TRANS: [Transpose; 2] = [Transpose::NoTrans, Transpose::Trans];
const DIAGS: [Diag; 2] = [Diag::NonUnit, Diag::Unit];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Store {
    Full,
    Band(usize),
    Packed,
}

/// The CBLAS name of `store`'s triangular multiply, or with `solve` its solve.
fn tri_name(solve: bool, store: Store) -> String {
    let op = if solve { "sv" } else { "mv" };
    match store {
        Store::Full => format!("cblas_str{op}"),
        Store::Band(_) => format!("cblas_stb{op}"),
        Store::Packed => format!("cblas_stp{op}"),
    }
}

/// `store`'s triangular multiply (or, with `solve`, solve) by the CPU BLAS on host data;
/// a band's width is the store's.
#[allow(clippy::too_many_arguments)]
fn cpu_tri(
    solve: bool,
    store: Store,
    (layout, uplo, t, d): (Layout, Uplo, Transpose, Diag),
    n: i32,
    a: &[f32],
    lda: i32,
    x: &mut [f32],
    incx: i32,
) {
    let name = tri_name(solve, store);
    match store {
        Store::Full => cpu2::tr_full(&name, layout, uplo, t, d, n, a, lda, x, incx),
        Store::Band(k) => cpu2::tr_band(&name, layout, uplo, t, d, n, k as i32, a, lda, x, incx),
        Store::Packed => cpu2::tr_packed(&name, layout, uplo, t, d, n, a, x, incx),
    }
}

/// [`cpu_tri`]'s routine on the device (strmv ... stpsv on device buffers).
#[allow(clippy::too_many_arguments)]
fn device_tri(
    ctx: &fragblas::Context,
    solve: bool,
    store: Store,
    (layout, uplo, t, d): (Layout, Uplo, Transpose, Diag),
    n: i32,
    a: &fragblas::Buffer,
    lda: i32,
    x: &mut fragblas::Buffer,
    incx: i32,
) -> fragblas::Result<()> {
    let k = match store {
        Store::Band(k) => k as i32,
        _ => 0,
    };
    match (solve, store) {
        (false, Store::Full) => ctx.strmv(layout, uplo, t, d, n, a, lda, x, incx),
        (false, Store::Band(_)) => ctx.stbmv(layout, uplo, t, d, n, k, a, lda, x, incx),
        (false, Store::Packed) => ctx.stpmv(layout, uplo, t, d, n, a, x, incx),
        (true, Store::Full) => ctx.strsv(layout, uplo, t, d, n, a, lda, x, incx),
        (true, Store::Band(_)) => ctx.stbsv(layout, uplo, t, d, n, k, a, lda, x, incx),
        (true, Store::Packed) => ctx.stpsv(layout, uplo, t, d, n, a, x, incx),
    }
}

/// One triangular case: `solve` picks strsv/stbsv/stpsv over the multiplies.
#[allow(clippy::too_many_arguments)]
fn tri_case(
    ctx: &fragblas::Context,
    r: &mut rand::rngs::StdRng,
    solve: bool,
    store: Store,
    (layout, uplo, t, d): (Layout, Uplo, Transpose, Diag),
    n: usize,
    incx: i32,
    ld_extra: usize,
) {
    let what_m = What::Triangle(uplo, Some(d));
    let (kind, lda, width) = match store {
        Store::Full => (Kind::Full, n.max(1) + ld_extra, n),
        Store::Band(k) => (
            Kind::Band { k },
            k + 1 + ld_extra,
            k.min(n.saturating_sub(1)) + 1,
        ),
        Store::Packed => (Kind::Packed, 0, n),
    };
    let a = if solve {
        stored::build(
            layout,
            kind,
            what_m,
            n,
            n,
            lda,
            PAD,
            stored::dominant(r, width.saturating_sub(1)),
        )
    } else {
        stored::build(layout, kind, what_m, n, n, lda, PAD, stored::random(r))
    };
    let x0 = vector(r, n, incx);
    let (ni, ldi) = (n as i32, lda as i32);
    let k = match store {
        Store::Band(k) => k as i32,
        _ => 0,
    };
    let name = tri_name(solve, store);
    let how = (layout, uplo, t, d);
    let reference = |a: &[f32], x: &mut [f32]| cpu_tri(solve, store, how, ni, a, ldi, x, incx);
    let mut want = x0.clone();
    reference(&a, &mut want);
    let what = format!("{name} {layout:?} {uplo:?} {t:?} {d:?} n={n} incx={incx} lda={lda}");
    for p in positions(ni, incx) {
        assert!(
            want[p].is_finite(),
            "{what}: the reference read a NaN: the test's storage is wrong"
        );
    }
    let tol: Vec<f32> = if solve {
        let big = positions(ni, incx)
            .iter()
            .map(|&p| want[p].abs())
            .fold(0.0f32, f32::max);
        vec![2.0 * 5.0 * (width as f32 + 2.0) * EPS * big + f32::MIN_POSITIVE; x0.len()]
    } else {
        let mut bound = magnitudes(&x0);
        reference(&magnitudes(&a), &mut bound);
        bound
            .iter()
            .map(|b| 2.0 * (width as f32 + 2.0) * EPS * b + f32::MIN_POSITIVE)
            .collect()
    };
    let ga = ctx.upload(&a).unwrap();
    let mut gx = ctx.upload(&x0).unwrap();
    device_tri(ctx, solve, store, how, ni, &ga, ldi, &mut gx, incx).unwrap();
    assert_vector(
        &format!("{what} device"),
        &gx.to_vec().unwrap(),
        &want,
        &x0,
        n,
        incx,
        |i| tol[i],
    );
    let mut hx = x0.clone();
    let run = match (solve, store) {
        (false, Store::Full) => cblas::strmv(ctx, layout, uplo, t, d, ni, &a, ldi, &mut hx, incx),
        (false, Store::Band(_)) => {
            cblas::stbmv(ctx, layout, uplo, t, d, ni, k, &a, ldi, &mut hx, incx)
        }
        (false, Store::Packed) => cblas::stpmv(ctx, layout, uplo, t, d, ni, &a, &mut hx, incx),
        (true, Store::Full) => cblas::strsv(ctx, layout, uplo, t, d, ni, &a, ldi, &mut hx, incx),
        (true, Store::Band(_)) => {
            cblas::stbsv(ctx, layout, uplo, t, d, ni, k, &a, ldi, &mut hx, incx)
        }
        (true, Store::Packed) => cblas::stpsv(ctx, layout, uplo, t, d, ni, &a, &mut hx, incx),
    };
    run.unwrap();
    assert_vector(&format!("{what} host"), &hx, &want, &x0, n, incx, |i| {
        tol[i]
    });
    assert_same_slices(&format!("{what} a unchanged"), &ga.to_vec().unwrap(), &a);
}

/// Every combination of layout, triangle, transpose and diagonal, every size in `orders`,
/// every store (band widths included), increments rotating through INCS.
fn sweep(
    ctx: &fragblas::Context,
    solve: bool,
    seed: u64,
    (orders, every): (RangeInclusive<usize>, usize),
) {
    let mut r = rng(seed);
    let mut c = 0usize;
    let every = every * thin();
    for &n in SIZES.iter().filter(|n| orders.contains(n)) {
        let mut stores = vec![Store::Full, Store::Packed];
        stores.extend(widths(n).into_iter().map(Store::Band));
        for store in stores {
            for layout in LAYOUTS {
                for uplo in UPLOS {
                    for t in TRANS {
                        for d in DIAGS {
                            // One case in `every`, a different combination each time.
                            if (5 * c + c / 16).is_multiple_of(every) {
                                tri_case(
                                    ctx,
                                    &mut r,
                                    solve,
                                    store,
                                    (layout, uplo, t, d),
                                    n,
                                    INCS[c % 4],
                                    c % 3,
                                );
                            }
                            c += 1;
                        }
                    }
                }
            }
        }
    }
    // One large case per storage.
    for store in [Store::Full, Store::Band(70), Store::Packed] {
        let combo = (
            Layout::ColMajor,
            Uplo::Lower,
            Transpose::NoTrans,
            Diag::NonUnit,
        );
        if orders.contains(&1000) {
            tri_case(ctx, &mut r, solve, store, combo, 1000, -1, 1);
        }
    }
}

/// Full storage with a leading dimension that is a multiple of 4 and a unit increment, the
/// calls whose products read A as vec4 texels: every combination, sizes across the texel and
/// chunk boundaries, leading dimensions just enough and 4 more.
fn sweep_vec4(
    ctx: &fragblas::Context,
    solve: bool,
    seed: u64,
    (orders, every): (RangeInclusive<usize>, usize),
) {
    let mut r = rng(seed);
    let mut c = 0usize;
    let every = every * thin();
    let all = [1, 2, 3, 4, 5, 7, 8, 9, 31, 33, 64, 65, 130, 257];
    for n in all.into_iter().filter(|n| orders.contains(n)) {
        for layout in LAYOUTS {
            for uplo in UPLOS {
                for t in TRANS {
                    for d in DIAGS {
                        let extra = (4 - n % 4) % 4 + 4 * (c % 2);
                        let combo = (layout, uplo, t, d);
                        if (5 * c + c / 16).is_multiple_of(every) {
                            tri_case(ctx, &mut r, solve, Store::Full, combo, n, 1, extra);
                        }
                        c += 1;
                    }
                }
            }
        }
    }
    for (uplo, t) in [
        (Uplo::Upper, Transpose::Trans),
        (Uplo::Lower, Transpose::NoTrans),
    ] {
        let combo = (Layout::RowMajor, uplo, t, Diag::Unit);
        if orders.contains(&1030) {
            tri_case(ctx, &mut r, solve, Store::Full, combo, 1030, 1, 2);
        }
    }
}

#[test]
fn strmv_strsv_with_vec4_reads_match_blas() {
    sweep_vec4(&ctx(), false, 404, (0..=usize::MAX, 1));
    for p in both_solves() {
        sweep_vec4(&p.ctx, true, 405, (p.orders, p.every));
    }
}

#[test]
fn strmv_strsv_with_interleaved_and_spread_sums_match_blas() {
    // As ssymv's test in level2_mv.rs: interleaved chunks at the default width, then spread
    // reads with a tail (order 500, lda 504, textures 16 texels wide; order 1000, lda 1000,
    // 32 wide), every triangle, transpose and diagonal.
    let mut r = rng(406);
    let mut c = 0usize;
    for (width, n, extra) in [(8192, 257, 3), (16, 500, 4), (32, 1000, 0)] {
        let ctx = interleaved_ctx(width);
        for solve in [false, true] {
            for layout in LAYOUTS {
                for uplo in UPLOS {
                    for t in TRANS {
                        for d in DIAGS {
                            // (All of them, or one in `thin()`, rotating.)
                            if kept(c, 16) {
                                let combo = (layout, uplo, t, d);
                                tri_case(&ctx, &mut r, solve, Store::Full, combo, n, 1, extra);
                            }
                            c += 1;
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn stpmv_stbmv_with_interleaved_sums_match_blas() {
    // The products of packed and band storage with interleaved chunks (the default on GPUs),
    // in textures 8192 and 16 texels wide (a column's rows then straddle texture rows),
    // orders whose sums split into many chunks (257: 22 of 3 texels; 1000 with k = 40: the
    // band's 23 texels in 3 chunks), x of increments 1 and -2 (copied to unit stride).
    // With image stores too (as on a GPU: a symmetric packed matrix would be unpacked, a
    // triangular one is not).
    let mut r = rng(407);
    for (width, n, store, image) in [
        (8192, 257, Store::Packed, false),
        (16, 1000, Store::Packed, false),
        (8192, 1000, Store::Band(40), false),
        (16, 301, Store::Band(9), false),
        (8192, 257, Store::Packed, true),
        (16, 130, Store::Packed, true),
    ] {
        let ctx = if image {
            gpu_paths_ctx(width)
        } else {
            interleaved_ctx(width)
        };
        for layout in LAYOUTS {
            for uplo in UPLOS {
                for t in TRANS {
                    for (i, d) in DIAGS.into_iter().enumerate() {
                        let combo = (layout, uplo, t, d);
                        let incx = [1, -2][i];
                        tri_case(&ctx, &mut r, false, store, combo, n, incx, 1);
                    }
                }
            }
        }
    }
}

#[test]
fn strmv_stbmv_stpmv_match_blas() {
    sweep(&ctx(), false, 401, (0..=usize::MAX, 1));
}

#[test]
fn strsv_stbsv_stpsv_match_blas() {
    // Block by block, and by inverted diagonal blocks.
    for p in both_solves() {
        sweep(&p.ctx, true, 402, (p.orders, p.every));
    }
}

/// By inverted blocks on a context with image stores (the inversion pass one fragment a
/// column of a 16 x 16 sub-block's inverse, joined into the blocks' inverses by product
/// passes): one case in two of the sweep (orders whose last block is short, with whole
/// sub-blocks past the matrix), and the zero-unknown cases (a NaN in a column reference
/// skips).
#[test]
fn strsv_stbsv_stpsv_by_joined_sub_block_inverses_match_blas() {
    let [_, inverse] = both_solves();
    let p = SolvePath {
        ctx: inverse_image_ctx(),
        every: inverse.every.max(2),
        ..inverse
    };
    sweep(&p.ctx, true, 408, (p.orders.clone(), p.every));
    zero_unknown_cases(&p.ctx);
}

/// The band chain (a band no wider than a block of 64 unknowns, on a context with image
/// stores and inverse solves: one draw a group of 32 blocks, `s_i = y'_i + M_i s_last`):
/// every layout, triangle, transpose and diagonal, band widths across texel and block
/// boundaries, orders of whole blocks and with a short last block, of one group (up to 17
/// blocks) and of two (33 blocks: a last group of one), increments rotating through INCS.
#[test]
fn stbsv_by_the_band_chain_matches_blas() {
    let ctx = inverse_image_ctx();
    let mut r = rng(410);
    let mut c = 0usize;
    // (Without image stores, as on the minimal device, the block steps solve these: the
    // orders past its limit are left to the other configurations.)
    let max = max_order().unwrap_or(usize::MAX);
    let sizes = [65usize, 128, 130, 200].map(|n| (n, &[3usize, 4, 5, 31, 33, 60, 63, 64][..]));
    let groups = [1030usize, 2100].map(|n| (n, &[5usize, 64][..]));
    for (n, ks) in sizes.into_iter().chain(groups).filter(|(n, _)| *n <= max) {
        for &k in ks {
            for layout in LAYOUTS {
                for uplo in UPLOS {
                    for t in TRANS {
                        for d in DIAGS {
                            if c.is_multiple_of(3 * thin()) {
                                let combo = (layout, uplo, t, d);
                                let (inc, extra) = (INCS[c % 4], c % 5 % 3);
                                tri_case(&ctx, &mut r, true, Store::Band(k), combo, n, inc, extra);
                            }
                            c += 1;
                        }
                    }
                }
            }
        }
    }
}

/// Where the band chain meets a value that is not finite it leaves the solve to the block
/// steps, so Inf and NaN go where reference's go: a zero diagonal element (Inf, then NaN,
/// from there on), an Inf in x, a NaN of A in a column whose unknown is not 0 (it spreads
/// from its row on). Band of 40, n = 150 (three blocks), both layouts, triangles and
/// transposes.
#[test]
fn the_band_chain_leaves_special_values_to_the_block_steps() {
    let ctx = inverse_image_ctx();
    let (n, k) = (150usize, 40usize);
    let mut r = rng(411);
    let what_m = |uplo| What::Triangle(uplo, Some(Diag::NonUnit));
    for case in 0..3 {
        for layout in LAYOUTS {
            for uplo in UPLOS {
                for t in TRANS {
                    let kind = Kind::Band { k };
                    let lda = k + 1;
                    let mut a = stored::build(
                        layout,
                        kind,
                        what_m(uplo),
                        n,
                        n,
                        lda,
                        0,
                        stored::dominant(&mut r, k),
                    );
                    let slot = |i, j| stored::slot(layout, kind, what_m(uplo), n, n, lda, i, j);
                    let mut x = reals(&mut r, n);
                    match case {
                        0 => a[slot(70, 70).unwrap()] = 0.0,
                        1 => x[100] = f32::INFINITY,
                        _ => {
                            let (i, j) = if uplo == Uplo::Lower {
                                (90, 75)
                            } else {
                                (75, 90)
                            };
                            a[slot(i, j).unwrap()] = f32::NAN;
                        }
                    }
                    let mut want = x.clone();
                    let (ni, ldi) = (n as i32, lda as i32);
                    let how = (layout, uplo, t, Diag::NonUnit);
                    cpu_tri(true, Store::Band(k), how, ni, &a, ldi, &mut want, 1);
                    assert!(
                        want.iter().any(|w| !w.is_finite()),
                        "case {case}: the reference stayed finite"
                    );
                    let ga = ctx.upload(&a).unwrap();
                    let mut gx = ctx.upload(&x).unwrap();
                    device_tri(&ctx, true, Store::Band(k), how, ni, &ga, ldi, &mut gx, 1).unwrap();
                    let what = format!("case {case} {layout:?} {uplo:?} {t:?}");
                    assert_same_specials(&what, &gx.to_vec().unwrap(), &want);
                }
            }
        }
    }
}

/// Block by block on a context with image stores: each block's solution stored into its
/// texture and each update made in place in the right-hand side (the draws never change
/// the bound framebuffer), packed triangles copied into full storage first; one case in
/// three of the sweep, every order (one block and several), and the zero-unknown cases.
#[test]
fn strsv_stbsv_stpsv_in_place_block_steps_match_blas() {
    let ctx = image_ctx();
    sweep(&ctx, true, 409, (0..=usize::MAX, 3));
    zero_unknown_cases(&ctx);
}

#[test]
fn singular_and_special_values_spread_as_in_reference() {
    for ctx in both_paths() {
        singular_and_special_values(&ctx);
    }
}

/// [`singular_and_special_values_spread_as_in_reference`] on `ctx`.
fn singular_and_special_values(ctx: &fragblas::Context) {
    // A zero or NaN on the diagonal, zeros in x, Inf in x: the no-transpose loops skip a zero
    // x_j (so a NaN of A's column j does not spread, and 0/0 is not taken), the transposed
    // ones do not. Results must be Inf or NaN exactly where reference's are.
    let n = 37;
    let mut r = rng(403);
    // lda = n reads A element by element; lda = 40 (a multiple of 4, incx 1) as vec4 texels.
    for (solve, layout, uplo, t, lda) in [
        (true, Layout::ColMajor, Uplo::Upper, Transpose::NoTrans),
        (true, Layout::ColMajor, Uplo::Lower, Transpose::Trans),
        (true, Layout::RowMajor, Uplo::Lower, Transpose::NoTrans),
        (false, Layout::ColMajor, Uplo::Upper, Transpose::NoTrans),
        (false, Layout::RowMajor, Uplo::Upper, Transpose::Trans),
        (false, Layout::ColMajor, Uplo::Lower, Transpose::NoTrans),
        (false, Layout::ColMajor, Uplo::Lower, Transpose::Trans),
    ]
    .into_iter()
    .flat_map(|(s, l, u, t)| [(s, l, u, t, n), (s, l, u, t, 40)])
    {
        let what_m = What::Triangle(uplo, Some(Diag::NonUnit));
        let mut a = stored::build(
            layout,
            Kind::Full,
            what_m,
            n,
            n,
            lda,
            0,
            stored::dominant(&mut r, n),
        );
        // A zero diagonal element, a NaN in a column, an Inf elsewhere.
        let s = |i, j| stored::slot(layout, Kind::Full, what_m, n, n, lda, i, j).unwrap();
        a[s(5, 5)] = 0.0;
        let (i, j) = if uplo == Uplo::Upper {
            (3, 20)
        } else {
            (20, 3)
        };
        a[s(i, j)] = f32::NAN;
        // Row and column 5 hold nothing but their zero diagonal, and b_5 = 0: unknown 5 is
        // 0 when its turn comes, which the non-transposed solves do not divide (reference
        // skips it: 0, not 0/0).
        for k in 0..n {
            if k != 5 {
                for (i, j) in [(5, k), (k, 5)] {
                    if let Some(p) = stored::slot(layout, Kind::Full, what_m, n, n, lda, i, j) {
                        a[p] = 0.0;
                    }
                }
            }
        }
        let mut x = reals(&mut r, n);
        x[5] = 0.0;
        x[3] = 0.0;
        x[20] = 0.0;
        // An Inf in x (the multiplies only: in a solve it would reach every unknown,
        // unknown 5 included, through its zero products).
        if !solve {
            x[30] = f32::INFINITY;
        }
        let name = if solve { "cblas_strsv" } else { "cblas_strmv" };
        let mut want = x.clone();
        cpu2::tr_full(
            name,
            layout,
            uplo,
            t,
            Diag::NonUnit,
            n as i32,
            &a,
            lda as i32,
            &mut want,
            1,
        );
        let ga = ctx.upload(&a).unwrap();
        let mut gx = ctx.upload(&x).unwrap();
        let ni = n as i32;
        let routine = if solve {
            fragblas::Context::strsv
        } else {
            fragblas::Context::strmv
        };
        routine(
            ctx,
            layout,
            uplo,
            t,
            Diag::NonUnit,
            ni,
            &ga,
            lda as i32,
            &mut gx,
            1,
        )
        .unwrap();
        let what = format!("{name} {layout:?} {uplo:?} {t:?} lda={lda}");
        assert_same_specials(&what, &gx.to_vec().unwrap(), &want);
    }
}

#[test]
fn stpmv_on_warps_matches_blas() {
    // The packed triangle's product on warps (tiles of 128 x 128, one of the two terms of
    // each texel): orders around the tiles' edges, textures 8192 and 16 texels wide (a
    // packed column then starts anywhere in a texel and in the texture's rows), every
    // layout, triangle, transpose and diagonal, x of increment 1 and -2 (copied to unit
    // stride first).
    let mut r = rng(410);
    for width in [8192, 16] {
        let ctx = warp_ctx(width);
        let orders: &[usize] = if width == 8192 {
            &[1, 4, 127, 129, 257, 520]
        } else {
            &[5, 128, 300]
        };
        let mut c = 0;
        for &n in orders {
            for layout in LAYOUTS {
                for uplo in UPLOS {
                    for t in TRANS {
                        for d in DIAGS {
                            let incx = if c % 4 == 3 { -2 } else { 1 };
                            tri_case(
                                &ctx,
                                &mut r,
                                false,
                                Store::Packed,
                                (layout, uplo, t, d),
                                n,
                                incx,
                                0,
                            );
                            c += 1;
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn special_values_in_a_packed_product_on_warps_spread_as_in_reference() {
    // stpmv on warps: without transpose a column whose x_j is 0 is skipped (its NaN or
    // Inf does not spread), with transpose it is not; the special values sit in a plain
    // tile (off the diagonal between whole blocks), a diagonal tile and the partial last
    // block column (n = 300: blocks of 128, 128 and 44), and an Inf in x.
    let n = 300;
    let mut r = rng(411);
    let ctx = warp_ctx(8192);
    for layout in LAYOUTS {
        for uplo in UPLOS {
            for t in TRANS {
                for d in DIAGS {
                    let what = What::Triangle(uplo, Some(d));
                    let mut a = stored::build(
                        layout,
                        Kind::Packed,
                        what,
                        n,
                        n,
                        0,
                        0,
                        stored::random(&mut r),
                    );
                    let mut x = reals(&mut r, n);
                    // (row, column) in the upper triangle; the lower takes the transpose.
                    let cells = [
                        (10, 200, f32::NAN),
                        (140, 200, f32::INFINITY),
                        (20, 60, f32::NAN),
                        (130, 290, f32::NEG_INFINITY),
                    ];
                    for (i, j, v) in cells {
                        let (i, j) = match uplo {
                            Uplo::Upper => (i, j),
                            Uplo::Lower => (j, i),
                        };
                        let p = stored::slot(layout, Kind::Packed, what, n, n, 0, i, j).unwrap();
                        a[p] = v;
                    }
                    for z in [200, 60, 290, 10, 130] {
                        x[z] = 0.0;
                    }
                    x[250] = f32::INFINITY;
                    let mut want = x.clone();
                    let how = (layout, uplo, t, d);
                    cpu_tri(false, Store::Packed, how, n as i32, &a, 0, &mut want, 1);
                    let ga = ctx.upload(&a).unwrap();
                    let mut gx = ctx.upload(&x).unwrap();
                    ctx.stpmv(layout, uplo, t, d, n as i32, &ga, &mut gx, 1)
                        .unwrap();
                    let got = gx.to_vec().unwrap();
                    for i in 0..n {
                        let (g, w) = (got[i], want[i]);
                        let what = format!(
                            "{layout:?} {uplo:?} {t:?} {d:?} element {i}: got {g}, want {w}"
                        );
                        if w.is_nan() {
                            assert!(g.is_nan(), "{what}");
                        } else if w.is_infinite() {
                            assert_eq!(g, w, "{what}");
                        } else {
                            // |A||x| <= 16 (n + 1): |A(i, j)| <= 1, |x_j| <= 16.
                            let tol =
                                2.0 * (n as f32 + 2.0) * f32::EPSILON * 16.0 * (n as f32 + 1.0);
                            assert!((g - w).abs() <= tol, "{what}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn special_values_in_a_band_product_spread_as_in_reference() {
    // stbmv's loops without transpose skip a column whose x_j is 0, so a NaN or Inf of A's
    // column j does not spread; the transposed loops do not skip. A band's column part
    // (`product_stored.frag`'s band_column_part) reads the texels inside the band with
    // positions stepped by addition and the texels on the diagonal block or the band's edge
    // masked lane by lane: the special values sit in both kinds of texel, in bands whose
    // columns start on a texel (k = 8: lda - 1 = 8) and bands whose columns do not (k = 7,
    // and lda = k + 3), on the default context, with image stores and with interleaved
    // chunks in a texture 16 texels wide (a column's rows straddle texture rows).
    let n = 61;
    let mut r = rng(409);
    let contexts = [ctx(), image_ctx(), interleaved_ctx(16)];
    for (c, ctx) in contexts.iter().enumerate() {
        for (k, lda) in [(8, 9), (7, 8), (7, 10)] {
            for layout in LAYOUTS {
                for uplo in UPLOS {
                    for t in TRANS {
                        let what = What::Triangle(uplo, Some(Diag::NonUnit));
                        let kind = Kind::Band { k };
                        let mut a =
                            stored::build(layout, kind, what, n, n, lda, 0, stored::random(&mut r));
                        let mut x = reals(&mut r, n);
                        // Column 20 (x_20 = 0): NaN on the diagonal, at the band's far edge
                        // and in the middle; column 33 (x_33 = 0): Inf inside the band;
                        // x_45 = Inf.
                        let far = |j: usize, d: usize| match uplo {
                            Uplo::Upper => (j - d, j),
                            Uplo::Lower => (j + d, j),
                        };
                        for (i, j, v) in [
                            (20, 20, f32::NAN),
                            (far(20, k).0, 20, f32::NAN),
                            (far(20, 4).0, 20, f32::NAN),
                            (far(33, 5).0, 33, f32::INFINITY),
                            (far(33, 1).0, 33, f32::NEG_INFINITY),
                        ] {
                            let p = stored::slot(layout, kind, what, n, n, lda, i, j).unwrap();
                            a[p] = v;
                        }
                        x[20] = 0.0;
                        x[33] = 0.0;
                        x[45] = f32::INFINITY;
                        let mut want = x.clone();
                        let (ni, ki, li) = (n as i32, k as i32, lda as i32);
                        let d = Diag::NonUnit;
                        cpu2::tr_band(
                            "cblas_stbmv",
                            layout,
                            uplo,
                            t,
                            d,
                            ni,
                            ki,
                            &a,
                            li,
                            &mut want,
                            1,
                        );
                        let ga = ctx.upload(&a).unwrap();
                        let mut gx = ctx.upload(&x).unwrap();
                        ctx.stbmv(layout, uplo, t, d, ni, ki, &ga, li, &mut gx, 1)
                            .unwrap();
                        let got = gx.to_vec().unwrap();
                        for i in 0..n {
                            let (g, w) = (got[i], want[i]);
                            let what = format!(
                                "context {c} k={k} lda={lda} {layout:?} {uplo:?} {t:?} \
                                 element {i}: got {g}, want {w}"
                            );
                            if w.is_nan() {
                                assert!(g.is_nan(), "{what}");
                            } else if w.is_infinite() {
                                assert_eq!(g, w, "{what}");
                            } else {
                                // |A||x| <= 16 (k + 1): |A(i, j)| <= 1, |x_j| <= 16.
                                let bound = 16.0 * (k as f32 + 1.0);
                                let tol = 2.0 * (k as f32 + 2.0) * f32::EPSILON * bound;
                                assert!((g - w).abs() <= tol, "{what}");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_zero_unknown_skips_its_column_across_blocks_as_in_reference() {
    // An unknown whose solution is exactly 0 (its right-hand side 0, its row empty) and a
    // NaN in its column in a block solved later: reference's column loops skip the column,
    // so no NaN; its dot loops take it. Also band and packed storage,
    // both triangles and both layouts; n = 150 spans three blocks of 64.
    // Block by block and by inverted blocks (whose fragments meet the NaN and solve).
    for SolvePath { ctx, .. } in both_solves() {
        zero_unknown_cases(&ctx);
    }
}

/// [`a_zero_unknown_skips_its_column_across_blocks_as_in_reference`] on `ctx`.
fn zero_unknown_cases(ctx: &fragblas::Context) {
    let n = 150;
    let mut r = rng(406);
    for store in [
        Store::Full,
        Store::Band(120),
        Store::Band(40),
        Store::Packed,
    ] {
        for layout in LAYOUTS {
            for uplo in UPLOS {
                for t in TRANS {
                    let what_m = What::Triangle(uplo, Some(Diag::NonUnit));
                    let (kind, lda, k) = match store {
                        Store::Full => (Kind::Full, 152, 0),
                        Store::Band(k) => (Kind::Band { k }, k + 1, k),
                        Store::Packed => (Kind::Packed, 0, 0),
                    };
                    let mut a = stored::build(
                        layout,
                        kind,
                        what_m,
                        n,
                        n,
                        lda,
                        0,
                        stored::dominant(&mut r, k.max(n - 1).min(n - 1)),
                    );
                    let slot = |i, j| stored::slot(layout, kind, what_m, n, n, lda, i, j);
                    // In op(A)'s solve order, z comes early and (row, z) late.
                    let forward = (uplo == Uplo::Lower) != (t == Transpose::Trans);
                    // (A band of 40, on a context with image stores and inverse solves,
                    // is solved by the band chain: z and late in neighbouring blocks.)
                    let (z, late) = match (store, forward) {
                        (Store::Band(40), true) => (50, 80),
                        (Store::Band(40), false) => (n - 10, n - 40),
                        (_, true) => (5, 100),
                        (_, false) => (n - 6, n - 101),
                    };
                    for q in 0..n {
                        if q != z {
                            for (i, j) in [(z, q), (q, z)] {
                                if let Some(p) = slot(i, j) {
                                    a[p] = 0.0;
                                }
                            }
                        }
                    }
                    let (i, j) = if uplo == Uplo::Lower {
                        (z.max(late), z.min(late))
                    } else {
                        (z.min(late), z.max(late))
                    };
                    if let Some(p) = slot(i, j) {
                        a[p] = f32::NAN;
                    }
                    let mut x = reals(&mut r, n);
                    x[z] = 0.0;
                    let (ni, ldi) = (n as i32, lda as i32);
                    let d = Diag::NonUnit;
                    let mut want = x.clone();
                    let how = (layout, uplo, t, d);
                    cpu_tri(true, store, how, ni, &a, ldi, &mut want, 1);
                    let ga = ctx.upload(&a).unwrap();
                    let mut gx = ctx.upload(&x).unwrap();
                    device_tri(ctx, true, store, how, ni, &ga, ldi, &mut gx, 1).unwrap();
                    let got = gx.to_vec().unwrap();
                    let nans = want.iter().filter(|w| w.is_nan()).count();
                    // Reference's column loops are those of the column-major no-transpose form
                    // (a row-major matrix is the column-major transpose).
                    let column_loops = (t == Transpose::NoTrans) == (layout == Layout::ColMajor);
                    if column_loops {
                        assert_eq!(
                            nans, 0,
                            "{store:?} {layout:?} {uplo:?} {t:?}: the NaN spread"
                        );
                    } else {
                        assert!(
                            nans > 0,
                            "{store:?} {layout:?} {uplo:?} {t:?}: the NaN stayed"
                        );
                    }
                    for q in 0..n {
                        let what = format!(
                            "{store:?} {layout:?} {uplo:?} {t:?} element {q}: got {}, want {}",
                            got[q], want[q]
                        );
                        assert_eq!(got[q].is_nan(), want[q].is_nan(), "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn argument_errors_name_the_parameter() {
    let ctx = ctx();
    let a = ctx.upload(&[1.0; 16]).unwrap();
    let mut x = ctx.upload(&[1.0; 4]).unwrap();
    let pos = |e: fragblas::Error| match e {
        fragblas::Error::InvalidArgument {
            param, position, ..
        } => (param, position),
        e => panic!("{e:?}"),
    };
    let (l, u, t, d) = (
        Layout::ColMajor,
        Uplo::Upper,
        Transpose::NoTrans,
        Diag::Unit,
    );
    assert_eq!(
        pos(ctx.strmv(l, u, t, d, -1, &a, 1, &mut x, 1).unwrap_err()),
        ("n", 5)
    );
    assert_eq!(
        pos(ctx.strsv(l, u, t, d, 4, &a, 3, &mut x, 1).unwrap_err()),
        ("lda", 7)
    );
    assert_eq!(
        pos(ctx.strsv(l, u, t, d, 4, &a, 4, &mut x, 0).unwrap_err()),
        ("incx", 9)
    );
    assert_eq!(
        pos(ctx.stbmv(l, u, t, d, 4, -1, &a, 4, &mut x, 1).unwrap_err()),
        ("k", 6)
    );
    assert_eq!(
        pos(ctx.stbsv(l, u, t, d, 4, 3, &a, 3, &mut x, 1).unwrap_err()),
        ("lda", 8)
    );
    assert_eq!(
        pos(ctx.stpsv(l, u, t, d, 4, &a, &mut x, 0).unwrap_err()),
        ("incx", 8)
    );
    assert!(matches!(
        ctx.stpmv(l, u, t, d, 6, &a, &mut x, 1),
        Err(fragblas::Error::TooShort {
            param: "ap",
            needed: 21,
            ..
        })
    ));
    assert_eq!(
        cblas::strsv(&ctx, l, u, t, d, 0, &[], 1, &mut [], 1),
        Ok(())
    );
    assert_eq!(x.to_vec().unwrap(), vec![1.0; 4]);
    ctx.finish().unwrap();
}

#[test]
fn a_product_into_an_x_of_its_own_length_leaves_x_fit_for_every_routine() {
    // With increment 1 and a buffer of exactly n elements, strmv, stbmv and stpmv make the
    // product's texture x's (no copy pass). The lanes past n of its last texel then hold
    // whatever the product left there (from the matrix's poisoned gap: NaN), which no
    // routine may read: the product matches the CPU, and so do sdot, sasum, snrm2 and isamax
    // of it, saxpy into it, and the solve with the same matrix, which gives x back.
    let mut r = rng(440);
    // (Every case, or one in `thin()`, the storages taking turns: see common::kept.)
    let mut c = 0;
    for ctx in both_paths() {
        for n in sizes(&[1, 3, 5, 130, 301]) {
            let n = n as usize;
            for store in [Store::Full, Store::Band(3), Store::Packed] {
                c += 1;
                if !kept(c, 3) {
                    continue;
                }
                let uplo = if n % 2 == 1 { Uplo::Upper } else { Uplo::Lower };
                let d = Diag::NonUnit;
                let (kind, lda, width) = match store {
                    Store::Full => (Kind::Full, n.next_multiple_of(4) + 4, n),
                    Store::Band(k) => (Kind::Band { k }, k + 2, k.min(n - 1) + 1),
                    Store::Packed => (Kind::Packed, 0, n),
                };
                let what_m = What::Triangle(uplo, Some(d));
                let dominant = stored::dominant(&mut r, width - 1);
                let layout = Layout::ColMajor;
                let a = stored::build(layout, kind, what_m, n, n, lda, PAD, dominant);
                let x0 = reals(&mut r, n);
                let (ni, ldi) = (n as i32, lda as i32);
                let t = Transpose::NoTrans;
                let what = format!("{store:?} {uplo:?} n={n}");
                let how = (layout, uplo, t, d);
                let mut want = x0.clone();
                cpu_tri(false, store, how, ni, &a, ldi, &mut want, 1);
                let ga = ctx.upload(&a).unwrap();
                let mut gx = ctx.upload(&x0).unwrap();
                device_tri(&ctx, false, store, how, ni, &ga, ldi, &mut gx, 1).unwrap();
                let got = gx.to_vec().unwrap();
                let scale = want.iter().fold(1.0f32, |m, v| m.max(v.abs()));
                for i in 0..n {
                    assert!(
                        (got[i] - want[i]).abs() <= 1e-4 * scale,
                        "{what}: x[{i}] = {} against {}",
                        got[i],
                        want[i]
                    );
                }
                // The reductions of the product, against the same reductions on the CPU.
                let dot: f64 = got.iter().map(|&v| v as f64 * v as f64).sum();
                let asum: f64 = got.iter().map(|&v| v.abs() as f64).sum();
                let close = |g: f32, w: f64, name: &str| {
                    assert!(
                        (g as f64 - w).abs() <= 1e-5 * w.abs().max(1.0),
                        "{what}: {name} {g} against {w}"
                    )
                };
                close(ctx.sdot(ni, &gx, 1, &gx, 1).unwrap(), dot, "sdot");
                close(ctx.sasum(ni, &gx, 1).unwrap(), asum, "sasum");
                close(ctx.snrm2(ni, &gx, 1).unwrap(), dot.sqrt(), "snrm2");
                let first_max =
                    (0..n).fold(0, |b, i| if got[i].abs() > got[b].abs() { i } else { b });
                assert_eq!(
                    ctx.isamax(ni, &gx, 1).unwrap(),
                    Some(first_max),
                    "{what}: isamax"
                );
                // The solve gives x0 back (condition at most 5), then saxpy adds it again.
                device_tri(&ctx, true, store, how, ni, &ga, ldi, &mut gx, 1).unwrap();
                let gx0 = ctx.upload(&x0).unwrap();
                ctx.saxpy(ni, 1.0, &gx0, 1, &mut gx, 1).unwrap();
                let back = gx.to_vec().unwrap();
                let big = x0.iter().fold(1.0f32, |m, v| m.max(v.abs()));
                for i in 0..n {
                    assert!(
                        (back[i] - 2.0 * x0[i]).abs() <= 1e-3 * big,
                        "{what}: the solve and saxpy gave {} for 2 * {}",
                        back[i],
                        x0[i]
                    );
                }
            }
        }
    }
}
