//! Level-3 rows (flop-bound): sgemm, the other level-3 routines, and batched sgemm against
//! the same products as separate calls.

use std::time::Duration;

use cb::{
    CblasColMajor as COL, CblasLeft as LEFT, CblasNoTrans as NT, CblasNonUnit as NU,
    CblasUpper as UP,
};
use cblas_sys as cb;
use fragblas::{
    cblas, Context, Diag::NonUnit, Layout::ColMajor, Side::Left, Transpose::NoTrans, Uplo::Upper,
};

use crate::measure::{array_case, check, random, Bound, Measured, Spec, EPS};

fn spec(routine: &'static str, n: usize, flops: f64, bytes: f64) -> Spec {
    Spec {
        routine,
        size: format!("{n}^3"),
        m: n,
        n,
        k: n,
        flops,
        bytes,
        bound: Bound::Flops,
    }
}

/// C := A B (beta 0), n x n x n.
pub fn sgemm(ctx: &Context, n: usize, budget: Duration) -> Measured {
    let ni = n as i32;
    let a = random(n * n, 8);
    let b = random(n * n, 9);
    let c0 = random(n * n, 10);
    let (ga, gb) = (
        ctx.upload(&a).expect("upload"),
        ctx.upload(&b).expect("upload"),
    );
    let nf = n as f64;
    array_case(
        ctx,
        spec("sgemm", n, 2.0 * nf * nf * nf, 4.0 * 3.0 * nf * nf),
        budget,
        &c0,
        // SAFETY: a, b and c hold n*n elements.
        |c| unsafe {
            cb::cblas_sgemm(
                COL,
                NT,
                NT,
                ni,
                ni,
                ni,
                1.0,
                a.as_ptr(),
                ni,
                b.as_ptr(),
                ni,
                0.0,
                c.as_mut_ptr(),
                ni,
            )
        },
        |c| {
            ctx.sgemm(
                ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &ga, ni, &gb, ni, 0.0, c, ni,
            )
        },
        |c| {
            cblas::sgemm(
                ctx, ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &a, ni, &b, ni, 0.0, c, ni,
            )
        },
        // |a|, |b| < 1: (|A||B|)_ij <= n; both sides within (n + 2) eps n of the exact value.
        move |_, _| 2.0 * (n as f32 + 2.0) * EPS * n as f32,
    )
}

/// The other level-3 routines at order n (k = n for the rank-k updates), column-major, the
/// upper triangle, no transposes, the left side; each with its own flop count: ssymm
/// 2 n^3, ssyrk n^3 (n(n+1)k), ssyr2k 2 n^3, strmm and strsm n^3 (m^2 n). strsm's matrix is
/// well conditioned (diagonal in [1, 2], each row's other elements adding up to at most
/// 1/2: condition at most 5), so the result is checked within 10 (n + 2) eps max|x|.
pub fn others(ctx: &Context, n: usize, budget: Duration) -> Vec<Measured> {
    let ni = n as i32;
    let nf = n as f64;
    let a = random(n * n, 20);
    let b = random(n * n, 21);
    let c0 = random(n * n, 22);
    // Upper triangle dominant: |diag| in [1, 2], off-diagonal scaled by 0.5 / n.
    let tri: Vec<f32> = a
        .iter()
        .enumerate()
        .map(|(s, &v)| {
            if s % n == s / n {
                1.0 + v.abs()
            } else {
                v * 0.5 / nf as f32
            }
        })
        .collect();
    let (ga, gb, gt) = (
        ctx.upload(&a).expect("upload"),
        ctx.upload(&b).expect("upload"),
        ctx.upload(&tri).expect("upload"),
    );
    let sq = |routine, flops: f64| Spec {
        routine,
        size: format!("{n}^3"),
        m: n,
        n,
        k: n,
        flops,
        bytes: 4.0 * 3.0 * nf * nf,
        bound: Bound::Flops,
    };
    let prod_tol = move |terms: usize| {
        move |_: usize, _: &[f32]| 2.0 * (terms as f32 + 2.0) * EPS * (terms as f32 + 1.0)
    };
    // max|x| once, not once per element.
    let x_max = std::cell::OnceCell::new();
    let solve_tol = move |_: usize, want: &[f32]| {
        let x = *x_max.get_or_init(|| want.iter().fold(0.0f32, |m, v| m.max(v.abs())));
        10.0 * (n as f32 + 2.0) * EPS * x
    };
    // SAFETY (every CPU closure here): the slices hold n*n elements.
    vec![
        array_case(
            ctx,
            sq("ssymm", 2.0 * nf * nf * nf),
            budget,
            &c0,
            |c| unsafe {
                cb::cblas_ssymm(
                    COL,
                    LEFT,
                    UP,
                    ni,
                    ni,
                    1.0,
                    a.as_ptr(),
                    ni,
                    b.as_ptr(),
                    ni,
                    0.5,
                    c.as_mut_ptr(),
                    ni,
                )
            },
            |c| {
                ctx.ssymm(
                    ColMajor, Left, Upper, ni, ni, 1.0, &ga, ni, &gb, ni, 0.5, c, ni,
                )
            },
            |c| {
                cblas::ssymm(
                    ctx, ColMajor, Left, Upper, ni, ni, 1.0, &a, ni, &b, ni, 0.5, c, ni,
                )
            },
            prod_tol(n),
        ),
        array_case(
            ctx,
            sq("ssyrk", nf * nf * nf),
            budget,
            &c0,
            |c| unsafe {
                cb::cblas_ssyrk(
                    COL,
                    UP,
                    NT,
                    ni,
                    ni,
                    1.0,
                    a.as_ptr(),
                    ni,
                    0.5,
                    c.as_mut_ptr(),
                    ni,
                )
            },
            |c| ctx.ssyrk(ColMajor, Upper, NoTrans, ni, ni, 1.0, &ga, ni, 0.5, c, ni),
            |c| {
                cblas::ssyrk(
                    ctx, ColMajor, Upper, NoTrans, ni, ni, 1.0, &a, ni, 0.5, c, ni,
                )
            },
            prod_tol(n),
        ),
        array_case(
            ctx,
            sq("ssyr2k", 2.0 * nf * nf * nf),
            budget,
            &c0,
            |c| unsafe {
                cb::cblas_ssyr2k(
                    COL,
                    UP,
                    NT,
                    ni,
                    ni,
                    1.0,
                    a.as_ptr(),
                    ni,
                    b.as_ptr(),
                    ni,
                    0.5,
                    c.as_mut_ptr(),
                    ni,
                )
            },
            |c| {
                ctx.ssyr2k(
                    ColMajor, Upper, NoTrans, ni, ni, 1.0, &ga, ni, &gb, ni, 0.5, c, ni,
                )
            },
            |c| {
                cblas::ssyr2k(
                    ctx, ColMajor, Upper, NoTrans, ni, ni, 1.0, &a, ni, &b, ni, 0.5, c, ni,
                )
            },
            prod_tol(2 * n),
        ),
        array_case(
            ctx,
            sq("strmm", nf * nf * nf),
            budget,
            &b,
            |x| unsafe {
                cb::cblas_strmm(
                    COL,
                    LEFT,
                    UP,
                    NT,
                    NU,
                    ni,
                    ni,
                    1.0,
                    a.as_ptr(),
                    ni,
                    x.as_mut_ptr(),
                    ni,
                )
            },
            |x| {
                ctx.strmm(
                    ColMajor, Left, Upper, NoTrans, NonUnit, ni, ni, 1.0, &ga, ni, x, ni,
                )
            },
            |x| {
                cblas::strmm(
                    ctx, ColMajor, Left, Upper, NoTrans, NonUnit, ni, ni, 1.0, &a, ni, x, ni,
                )
            },
            prod_tol(n),
        ),
        array_case(
            ctx,
            sq("strsm", nf * nf * nf),
            budget,
            &b,
            |x| unsafe {
                cb::cblas_strsm(
                    COL,
                    LEFT,
                    UP,
                    NT,
                    NU,
                    ni,
                    ni,
                    1.0,
                    tri.as_ptr(),
                    ni,
                    x.as_mut_ptr(),
                    ni,
                )
            },
            |x| {
                ctx.strsm(
                    ColMajor, Left, Upper, NoTrans, NonUnit, ni, ni, 1.0, &gt, ni, x, ni,
                )
            },
            |x| {
                cblas::strsm(
                    ctx, ColMajor, Left, Upper, NoTrans, NonUnit, ni, ni, 1.0, &tri, ni, x, ni,
                )
            },
            solve_tol,
        ),
    ]
}

/// The row of `count` separate sgemm calls.
fn loop_name(count: usize) -> &'static str {
    match count {
        1000 => "sgemm_x1000",
        100 => "sgemm_x100",
        _ => "sgemm_loop",
    }
}

/// `count` products of n x n x n (C := A B + 0.5 C): batched in one call, and (row
/// `sgemm_x<count>`) as `count` separate sgemm calls on separate buffers holding the same
/// data. The CPU column is OpenBLAS's sgemm in a loop for both.
pub fn batched(ctx: &Context, n: usize, count: usize, budget: Duration) -> Vec<Measured> {
    let ni = n as i32;
    let one = n * n;
    let a = random(count * one, 30);
    let b = random(count * one, 31);
    let c0 = random(count * one, 32);
    let nf = n as f64;
    let flops = 2.0 * nf * nf * nf * count as f64;
    let spec = |routine| Spec {
        routine,
        size: format!("{count}x{n}^3"),
        m: n,
        n,
        k: n,
        flops,
        bytes: 4.0 * 3.0 * (count * one) as f64,
        bound: Bound::Flops,
    };
    let cpu = |c: &mut [f32]| {
        for p in 0..count {
            let r = p * one..(p + 1) * one;
            // SAFETY: each product's slices hold n*n elements.
            unsafe {
                cb::cblas_sgemm(
                    COL,
                    NT,
                    NT,
                    ni,
                    ni,
                    ni,
                    1.0,
                    a[r.clone()].as_ptr(),
                    ni,
                    b[r.clone()].as_ptr(),
                    ni,
                    0.5,
                    c[r].as_mut_ptr(),
                    ni,
                )
            }
        }
    };
    let (ga, gb) = (
        ctx.upload(&a).expect("upload"),
        ctx.upload(&b).expect("upload"),
    );
    let s = one as i64;
    let tol = move |_: usize, _: &[f32]| 2.0 * (n as f32 + 2.0) * EPS * (n as f32 + 1.0);
    let strided = array_case(
        ctx,
        spec("sgemm_batched"),
        budget,
        &c0,
        cpu,
        |c| {
            ctx.sgemm_batched_strided(
                ColMajor,
                NoTrans,
                NoTrans,
                ni,
                ni,
                ni,
                1.0,
                &ga,
                ni,
                s,
                &gb,
                ni,
                s,
                0.5,
                c,
                ni,
                s,
                count as i32,
            )
        },
        |c| {
            let mut g = ctx.upload(c)?;
            ctx.sgemm_batched_strided(
                ColMajor,
                NoTrans,
                NoTrans,
                ni,
                ni,
                ni,
                1.0,
                &ctx.upload(&a)?,
                ni,
                s,
                &ctx.upload(&b)?,
                ni,
                s,
                0.5,
                &mut g,
                ni,
                s,
                count as i32,
            )?;
            g.read_into(c)
        },
        tol,
    );
    // Separate buffers and separate calls, on the same data.
    let pa: Vec<_> = a
        .chunks(one)
        .map(|x| ctx.upload(x).expect("upload"))
        .collect();
    let pb: Vec<_> = b
        .chunks(one)
        .map(|x| ctx.upload(x).expect("upload"))
        .collect();
    let mut pc: Vec<_> = c0
        .chunks(one)
        .map(|x| ctx.upload(x).expect("upload"))
        .collect();
    let mut want = c0.clone();
    cpu(&mut want);
    let run = |pc: &mut Vec<fragblas::Buffer>| -> fragblas::Result<()> {
        for p in 0..count {
            ctx.sgemm(
                ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &pa[p], ni, &pb[p], ni, 0.5,
                &mut pc[p], ni,
            )?;
        }
        Ok(())
    };
    let verdict = run(&mut pc).map_err(|e| e.to_string()).and_then(|_| {
        let got: Vec<f32> = pc
            .iter()
            .flat_map(|x| x.to_vec().expect("download"))
            .collect();
        check("sgemm loop", &got, &want, |i| tol(i, &want))
    });
    let (mut c, mut h) = (c0.clone(), c0.clone());
    let looped = Measured::time(
        spec(loop_name(count)),
        verdict,
        (ctx.info().software, budget),
        || cpu(&mut c),
        || {
            run(&mut pc).expect("loop run");
            // The last product's C: the GPU runs commands in order, so when it is done
            // every earlier product is.
            pc[count - 1].read_range(0, 1).expect("reading a result");
        },
        || {
            for p in 0..count {
                let r = p * one..(p + 1) * one;
                cblas::sgemm(
                    ctx,
                    ColMajor,
                    NoTrans,
                    NoTrans,
                    ni,
                    ni,
                    ni,
                    1.0,
                    &a[r.clone()],
                    ni,
                    &b[r.clone()],
                    ni,
                    0.5,
                    &mut h[r],
                    ni,
                )
                .expect("host run");
            }
        },
    );
    vec![strided, looped]
}
