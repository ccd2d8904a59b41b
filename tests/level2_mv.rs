//! The general and symmetric matrix-vector products against the reference BLAS: sgbmv,
//! ssymv, ssbmv, sspmv, through the device API and the host API, in both layouts and both
//! triangles, every band width of {0, 1, 2, n-1, n+1}, every size of the issue, and every
//! increment and scalar of {-2, -1, 1, 2} x {0, 1, -1, 0.7} (a rotating pick per case, and
//! the whole grid at n = 9). Slots of A the routine does not read hold NaN (the gaps up to
//! lda, the other triangle, the band's unused corners); with alpha == 0 all of A and x are
//! NaN and with beta == 0 y's elements are: any read would show. The tolerance is derived
//! in `common::check2::check_mv`.

mod common;

use common::check2::*;
use common::stored::{self, Kind, What};
use common::*;
use fragblas::{cblas, Layout, Transpose, Uplo};

const LAYOUTS: [Layout; 2] = [Layout::ColMajor, Layout::RowMajor];
const UPLOS: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];

/// One sgbmv case.
#[allow(clippy::too_many_arguments)]
fn gbmv_case(
    ctx: &fragblas::Context,
    r: &mut rand::rngs::StdRng,
    layout: Layout,
    t: Transpose,
    m: usize,
    n: usize,
    kl: usize,
    ku: usize,
    c: usize,
) {
    let (incx, incy, alpha, beta) = pick(c);
    let lda = kl + ku + 1 + c % 3;
    let kind = Kind::GenBand { kl, ku };
    let a = stored::build(
        layout,
        kind,
        What::General,
        m,
        n,
        lda,
        PAD,
        stored::random(r),
    );
    let (len_x, len_y) = if t == Transpose::NoTrans {
        (n, m)
    } else {
        (m, n)
    };
    let (mi, ni, kli, kui, ldi) = (m as i32, n as i32, kl as i32, ku as i32, lda as i32);
    let what = format!("sgbmv {layout:?} {t:?} m={m} n={n} kl={kl} ku={ku} incx={incx} incy={incy} alpha={alpha} beta={beta}");
    check_mv(
        ctx,
        r,
        &what,
        &a,
        (len_x, incx),
        (len_y, incy),
        (alpha, beta),
        kl + ku + 1,
        |a, x, y, al, be| {
            cpu2::sgbmv(
                layout, t, mi, ni, kli, kui, al, a, ldi, x, incx, be, y, incy,
            )
        },
        |a, x, y| {
            ctx.sgbmv(
                layout, t, mi, ni, kli, kui, alpha, a, ldi, x, incx, beta, y, incy,
            )
        },
        |a, x, y| {
            cblas::sgbmv(
                ctx, layout, t, mi, ni, kli, kui, alpha, a, ldi, x, incx, beta, y, incy,
            )
        },
    );
}

#[test]
fn sgbmv_matches_blas() {
    let ctx = ctx();
    let mut r = rng(301);
    let mut c = 0;
    for &n in &SIZES {
        let mut ms = vec![n, n + 2, n / 2];
        ms.dedup();
        for &m in &ms {
            let w = widths(m.max(n));
            for (i, &kl) in w.iter().enumerate() {
                let ku = w[(i + 2) % w.len()];
                for layout in LAYOUTS {
                    for t in [Transpose::NoTrans, Transpose::Trans] {
                        gbmv_case(&ctx, &mut r, layout, t, m, n, kl, ku, c);
                        c += 7;
                    }
                }
            }
        }
    }
    // One large case.
    gbmv_case(
        &ctx,
        &mut r,
        Layout::ColMajor,
        Transpose::NoTrans,
        1000,
        1100,
        64,
        64,
        5,
    );
}

/// Which symmetric routine.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sym {
    Full,
    Band(usize),
    Packed,
}

/// One ssymv/ssbmv/sspmv case. With `vec4`, full storage gets a leading dimension that is a
/// multiple of 4 and x a unit increment (the product reads A as vec4 texels).
#[allow(clippy::too_many_arguments)]
fn sym_case(
    ctx: &fragblas::Context,
    r: &mut rand::rngs::StdRng,
    which: Sym,
    layout: Layout,
    uplo: Uplo,
    n: usize,
    c: usize,
    vec4: bool,
) {
    let (incx, incy, alpha, beta) = pick(c);
    let incx = if vec4 { 1 } else { incx };
    let what_m = What::Triangle(uplo, None);
    let ni = n as i32;
    let what = format!(
        "{which:?} {layout:?} {uplo:?} n={n} incx={incx} incy={incy} alpha={alpha} beta={beta}"
    );
    match which {
        Sym::Full => {
            let lda = if vec4 {
                n.max(1).next_multiple_of(4) + 4 * (c % 2)
            } else {
                n.max(1) + c % 3
            };
            let a = stored::build(
                layout,
                Kind::Full,
                what_m,
                n,
                n,
                lda,
                PAD,
                stored::random(r),
            );
            let ldi = lda as i32;
            check_mv(
                ctx,
                r,
                &what,
                &a,
                (n, incx),
                (n, incy),
                (alpha, beta),
                n,
                |a, x, y, al, be| cpu2::ssymv(layout, uplo, ni, al, a, ldi, x, incx, be, y, incy),
                |a, x, y| ctx.ssymv(layout, uplo, ni, alpha, a, ldi, x, incx, beta, y, incy),
                |a, x, y| {
                    cblas::ssymv(ctx, layout, uplo, ni, alpha, a, ldi, x, incx, beta, y, incy)
                },
            );
        }
        Sym::Band(k) => {
            let lda = k + 1 + c % 3;
            let a = stored::build(
                layout,
                Kind::Band { k },
                what_m,
                n,
                n,
                lda,
                PAD,
                stored::random(r),
            );
            let (ki, ldi) = (k as i32, lda as i32);
            check_mv(
                ctx,
                r,
                &what,
                &a,
                (n, incx),
                (n, incy),
                (alpha, beta),
                2 * k + 1,
                |a, x, y, al, be| {
                    cpu2::ssbmv(layout, uplo, ni, ki, al, a, ldi, x, incx, be, y, incy)
                },
                |a, x, y| ctx.ssbmv(layout, uplo, ni, ki, alpha, a, ldi, x, incx, beta, y, incy),
                |a, x, y| {
                    cblas::ssbmv(
                        ctx, layout, uplo, ni, ki, alpha, a, ldi, x, incx, beta, y, incy,
                    )
                },
            );
        }
        Sym::Packed => {
            let a = stored::build(
                layout,
                Kind::Packed,
                what_m,
                n,
                n,
                0,
                PAD,
                stored::random(r),
            );
            check_mv(
                ctx,
                r,
                &what,
                &a,
                (n, incx),
                (n, incy),
                (alpha, beta),
                n,
                |a, x, y, al, be| cpu2::sspmv(layout, uplo, ni, al, a, x, incx, be, y, incy),
                |a, x, y| ctx.sspmv(layout, uplo, ni, alpha, a, x, incx, beta, y, incy),
                |a, x, y| cblas::sspmv(ctx, layout, uplo, ni, alpha, a, x, incx, beta, y, incy),
            );
        }
    }
}

#[test]
fn ssymv_sbmv_spmv_match_blas() {
    let ctx = ctx();
    let mut r = rng(302);
    let mut c = 0;
    for &n in &SIZES {
        for layout in LAYOUTS {
            for uplo in UPLOS {
                let mut kinds = vec![Sym::Full, Sym::Packed];
                kinds.extend(widths(n).into_iter().map(Sym::Band));
                for which in kinds {
                    sym_case(&ctx, &mut r, which, layout, uplo, n, c, false);
                    c += 5;
                }
            }
        }
    }
    for which in [Sym::Full, Sym::Band(40), Sym::Packed] {
        sym_case(
            &ctx,
            &mut r,
            which,
            Layout::RowMajor,
            Uplo::Lower,
            1000,
            7,
            false,
        );
    }
}

#[test]
fn ssymv_with_vec4_reads_matches_blas() {
    let ctx = ctx();
    let mut r = rng(304);
    let mut c = 0;
    for n in [1, 2, 3, 4, 5, 7, 8, 9, 31, 33, 64, 65, 130, 257] {
        for layout in LAYOUTS {
            for uplo in UPLOS {
                // c steps by 17: every incy, alpha and beta in turn.
                sym_case(&ctx, &mut r, Sym::Full, layout, uplo, n, c, true);
                c += 17;
            }
        }
    }
    sym_case(
        &ctx,
        &mut r,
        Sym::Full,
        Layout::ColMajor,
        Uplo::Upper,
        1030,
        18,
        true,
    );
}

#[test]
fn ssymv_with_interleaved_and_spread_sums_matches_blas() {
    // Interleaved chunks at the default width (no spreading), and spread with a tail: order
    // 500 with lda 504 in textures 16 texels wide (126 texels a column: columns 8 apart share
    // a row's place; 16 chunks, blocks of 16 texels, 112 in whole blocks), order 1000 with
    // lda 1000 in textures 32 wide (250 texels a column: columns 16 apart; 32 chunks, blocks
    // of 32, 224 in whole blocks). c odd gives lda = n + 4 rounded, c even lda = n.
    // Last, with x read from a storage buffer (GPU paths).
    let mut r = rng(305);
    for (width, n, c, gpu) in [
        (8192, 257, 4, false),
        (8192, 700, 1, false),
        (16, 500, 1, false),
        (32, 1000, 0, false),
        (32, 1000, 1, true),
    ] {
        let ctx = if gpu {
            gpu_paths_ctx(width)
        } else {
            interleaved_ctx(width)
        };
        for layout in LAYOUTS {
            for uplo in UPLOS {
                for k in 0..2 {
                    sym_case(&ctx, &mut r, Sym::Full, layout, uplo, n, c + 34 * k, true);
                }
            }
        }
    }
}

#[test]
fn ssymv_and_sspmv_on_warps_match_blas() {
    // The read-once product on warps (tiles of 128 x 128): orders around the tiles' edges
    // and inside one, lda of n rounded to 4 (c even) or 4 more (c odd), in textures 8192
    // and 16 texels wide (a column then spans texture rows); sspmv read packed, where its
    // columns start anywhere in a texel and in the texture's rows.
    // Four cases in five have incy == 1 (c = 8 + 16a + 64b: every alpha and beta in turn),
    // which the warp path needs; the fifth another incy (the two-read product beside it).
    let mut r = rng(306);
    for width in [8192, 16] {
        let ctx = warp_ctx(width);
        let desktop_full = ctx.info().api == fragblas::GlApi::DesktopGl
            && std::env::var("FRAGBLAS_EXPECT_MINIMAL").map_or(true, |v| v != "1");
        // llvmpipe's desktop GL has ballots: the warp path must be what is tested there.
        assert!(
            !desktop_full || ctx.info().warp_ops.is_some(),
            "no warp operations on {}",
            ctx.info().renderer
        );
        let mut c = 0;
        for n in [1, 3, 4, 9, 127, 128, 129, 200, 256, 257, 390] {
            for layout in LAYOUTS {
                for uplo in UPLOS {
                    for which in [Sym::Full, Sym::Full, Sym::Packed] {
                        let cc = if c % 5 == 4 {
                            c
                        } else {
                            8 + c % 2 + 16 * ((c / 2) % 4) + 64 * ((c / 8) % 4)
                        };
                        sym_case(&ctx, &mut r, which, layout, uplo, n, cc, true);
                        c += 1;
                    }
                }
            }
        }
        if width == 8192 {
            for (uplo, which) in [
                (Uplo::Upper, Sym::Full),
                (Uplo::Lower, Sym::Full),
                (Uplo::Upper, Sym::Packed),
                (Uplo::Lower, Sym::Packed),
            ] {
                sym_case(
                    &ctx,
                    &mut r,
                    which,
                    Layout::ColMajor,
                    uplo,
                    1030,
                    8 + 16 + 64,
                    true,
                );
            }
        }
    }
}

#[test]
fn ssymv_on_warps_back_to_back_matches_blas() {
    // Calls that follow one another with nothing read between them: each draw takes its
    // tiles from the count the one before it zeroed (a GPU may run the next call's commands
    // before the last one's writes have landed, if the host wrote anything between them).
    let ctx = warp_ctx(8192);
    let mut r = rng(307);
    for (n, uplo) in [(300, Uplo::Upper), (390, Uplo::Lower), (128, Uplo::Upper)] {
        let lda = n + 4 * (n % 2);
        let a = reals(&mut r, lda * n);
        let x = reals(&mut r, n);
        let mut want = reals(&mut r, n);
        let (ga, gx, mut gy) = (
            ctx.upload(&a).unwrap(),
            ctx.upload(&x).unwrap(),
            ctx.upload(&want).unwrap(),
        );
        let (ni, li) = (n as i32, lda as i32);
        for _ in 0..5 {
            ctx.ssymv(
                Layout::ColMajor,
                uplo,
                ni,
                0.7,
                &ga,
                li,
                &gx,
                1,
                0.5,
                &mut gy,
                1,
            )
            .unwrap();
            cpu2::ssymv(
                Layout::ColMajor,
                uplo,
                ni,
                0.7,
                &a,
                li,
                &x,
                1,
                0.5,
                &mut want,
                1,
            );
        }
        let got = gy.to_vec().unwrap();
        assert_close_slices(&format!("ssymv {uplo:?} n={n} x5"), &got, &want, |i| {
            1e-5 * (n as f32) * (want[i].abs() + 1.0)
        });
    }
}

#[test]
fn sgbmv_ssbmv_sspmv_with_interleaved_sums_match_blas() {
    // Band and packed storage with interleaved chunks (the default on GPUs), in textures
    // 8192 and 16 texels wide (a column's rows then straddle texture rows), at orders whose
    // sums split into several chunks; c rotates the increments and scalars.
    // With image stores too (as on a GPU), symmetric packed storage is unpacked into full
    // storage.
    let mut r = rng(306);
    for (width, n, image) in [
        (8192, 700, false),
        (16, 301, false),
        (8192, 257, true),
        (16, 301, true),
    ] {
        let ctx = if image {
            gpu_paths_ctx(width)
        } else {
            interleaved_ctx(width)
        };
        let mut c = 0;
        for layout in LAYOUTS {
            for uplo in UPLOS {
                for which in [Sym::Packed, Sym::Band(40), Sym::Band(3)] {
                    sym_case(&ctx, &mut r, which, layout, uplo, n, c, false);
                    c += 5;
                }
            }
            for t in [Transpose::NoTrans, Transpose::Trans] {
                gbmv_case(&ctx, &mut r, layout, t, n, n + 5, 40, 7, c);
                gbmv_case(&ctx, &mut r, layout, t, n / 2, n, 2, 33, c + 1);
                c += 7;
            }
        }
    }
}

#[test]
fn every_increment_and_scalar_at_one_size() {
    let ctx = ctx();
    let mut r = rng(303);
    for c in 0..256 {
        let layout = LAYOUTS[c % 2];
        gbmv_case(
            &ctx,
            &mut r,
            layout,
            [Transpose::NoTrans, Transpose::Trans][(c / 2) % 2],
            9,
            7,
            2,
            1,
            c,
        );
        sym_case(
            &ctx,
            &mut r,
            [Sym::Full, Sym::Band(2), Sym::Packed][c % 3],
            layout,
            UPLOS[(c / 3) % 2],
            9,
            c,
            false,
        );
    }
}

#[test]
fn argument_errors_name_the_parameter() {
    let ctx = ctx();
    let a = ctx.upload(&[1.0; 16]).unwrap();
    let x = ctx.upload(&[1.0; 4]).unwrap();
    let mut y = ctx.upload(&[1.0; 4]).unwrap();
    let pos = |e: fragblas::Error| match e {
        fragblas::Error::InvalidArgument {
            param, position, ..
        } => (param, position),
        e => panic!("{e:?}"),
    };
    let nt = Transpose::NoTrans;
    use Layout::*;
    assert_eq!(
        pos(ctx
            .sgbmv(ColMajor, nt, -1, 2, 0, 0, 1.0, &a, 1, &x, 1, 0.0, &mut y, 1)
            .unwrap_err()),
        ("m", 3)
    );
    assert_eq!(
        pos(ctx
            .sgbmv(RowMajor, nt, -1, -1, 0, 0, 1.0, &a, 1, &x, 1, 0.0, &mut y, 1)
            .unwrap_err()),
        ("n", 4)
    );
    assert_eq!(
        pos(ctx
            .sgbmv(ColMajor, nt, 2, 2, 1, 1, 1.0, &a, 2, &x, 1, 0.0, &mut y, 1)
            .unwrap_err()),
        ("lda", 9)
    );
    assert_eq!(
        pos(ctx
            .sgbmv(ColMajor, nt, 2, 2, 1, 1, 1.0, &a, 3, &x, 0, 0.0, &mut y, 1)
            .unwrap_err()),
        ("incx", 11)
    );
    assert_eq!(
        pos(ctx
            .ssymv(ColMajor, Uplo::Upper, 2, 1.0, &a, 1, &x, 1, 0.0, &mut y, 1)
            .unwrap_err()),
        ("lda", 6)
    );
    assert_eq!(
        pos(ctx
            .ssbmv(
                ColMajor,
                Uplo::Upper,
                2,
                -1,
                1.0,
                &a,
                1,
                &x,
                1,
                0.0,
                &mut y,
                1
            )
            .unwrap_err()),
        ("k", 4)
    );
    assert_eq!(
        pos(ctx
            .sspmv(ColMajor, Uplo::Upper, 2, 1.0, &a, &x, 1, 0.0, &mut y, 0)
            .unwrap_err()),
        ("incy", 10)
    );
    // Too short, after the quick return: n == 0 needs nothing.
    assert!(matches!(
        ctx.ssymv(ColMajor, Uplo::Upper, 5, 1.0, &a, 5, &x, 1, 0.0, &mut y, 1),
        Err(fragblas::Error::TooShort { param: "a", .. })
    ));
    assert_eq!(
        cblas::ssymv(
            &ctx,
            ColMajor,
            Uplo::Upper,
            0,
            1.0,
            &[],
            1,
            &[],
            1,
            0.0,
            &mut [],
            1
        ),
        Ok(())
    );
    assert_eq!(
        cblas::sspmv(
            &ctx,
            ColMajor,
            Uplo::Lower,
            3,
            0.0,
            &[],
            &[],
            1,
            1.0,
            &mut [],
            1
        ),
        Ok(())
    );
    assert_eq!(y.to_vec().unwrap(), vec![1.0; 4]);
    ctx.finish().unwrap();
}

#[test]
fn inf_and_nan_in_x_reach_only_the_rows_whose_band_holds_them() {
    // An Inf and a NaN in x: in a band matrix they reach only the rows whose band includes
    // their column (reference never multiplies outside the band); the other rows stay
    // finite.
    let ctx = ctx();
    let mut r = rng(304);
    let (m, n, kl, ku) = (40usize, 40usize, 2usize, 3usize);
    for layout in LAYOUTS {
        for t in [Transpose::NoTrans, Transpose::Trans] {
            let lda = kl + ku + 1;
            let a = stored::build(
                layout,
                Kind::GenBand { kl, ku },
                What::General,
                m,
                n,
                lda,
                0,
                stored::random(&mut r),
            );
            let mut x = reals(&mut r, n);
            x[10] = f32::INFINITY;
            x[25] = f32::NAN;
            let mut want = vec![0.0f32; m];
            cpu2::sgbmv(
                layout, t, m as i32, n as i32, kl as i32, ku as i32, 1.0, &a, lda as i32, &x, 1,
                0.0, &mut want, 1,
            );
            let (ga, gx) = (ctx.upload(&a).unwrap(), ctx.upload(&x).unwrap());
            let mut gy = ctx.zeros(m).unwrap();
            ctx.sgbmv(
                layout, t, m as i32, n as i32, kl as i32, ku as i32, 1.0, &ga, lda as i32, &gx, 1,
                0.0, &mut gy, 1,
            )
            .unwrap();
            let what = format!("{layout:?} {t:?} row");
            assert_same_specials(&what, &gy.to_vec().unwrap(), &want);
            let finite = want.iter().filter(|w| w.is_finite()).count();
            assert!(
                finite > m / 2,
                "{layout:?} {t:?}: most rows are untouched by the Inf and NaN"
            );
        }
    }
}
