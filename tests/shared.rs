//! The any-thread handle: `SharedContext` and `SharedBuffer` are `Send + Sync`; 8 threads
//! make hundreds of mixed calls (level 1, sgemv, sgemm, through the device and the host
//! API) on their own buffers and on shared read-only ones, every result checked against the
//! reference BLAS; buffers cross threads and are dropped on others; errors, panics and
//! re-entrant calls come back as errors and the handle keeps working; 1000 create/drop
//! cycles of handles and of buffers leave memory flat.
//!
//! Tolerances: the data are small integers (`common::ints`), so every sum here is exact in
//! f32 in any order: results must equal the reference's bit for bit.

mod common;

use std::sync::Arc;

use common::cpu_gemm::{sgemm as cpu_sgemm, sgemv as cpu_sgemv};
use common::*;
use fragblas::{Error, Layout, SharedBuffer, SharedContext, Transpose};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn the_handles_are_send_and_sync() {
    assert_send_sync::<SharedContext>();
    assert_send_sync::<SharedBuffer>();
    assert_send_sync::<fragblas::SharedPendingRead>();
}

/// Resident set size of this process in bytes (Linux).
fn rss() -> usize {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = s.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
fn eight_threads_of_mixed_calls_agree_with_blas() {
    let ctx = SharedContext::new().unwrap();
    let n = 48usize;
    let mut r = rng(61);
    // Shared read-only operands: an n x n matrix and a vector.
    let a_host = Arc::new(ints(&mut r, n * n));
    let v_host = Arc::new(ints(&mut r, n));
    let a = ctx.upload(&a_host).unwrap();
    let v = ctx.upload(&v_host).unwrap();
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (ctx, a, v, a_host, v_host) = (&ctx, &a, &v, a_host.clone(), v_host.clone());
            s.spawn(move || {
                let mut r = rng(100 + t);
                let ni = n as i32;
                let x_host = ints(&mut r, n);
                let mut y_host = ints(&mut r, n);
                let x = ctx.upload(&x_host).unwrap();
                let mut y = ctx.upload(&y_host).unwrap();
                let mut c = ctx.zeros(n * n).unwrap();
                let mut c_host = vec![0.0f32; n * n];
                for i in 0..60 {
                    let alpha = [1.0f32, -1.0, 2.0][i % 3];
                    // y := alpha x + y (device API)
                    ctx.saxpy(ni, alpha, &x, 1, &mut y, 1).unwrap();
                    cpu::saxpy(ni, alpha, &x_host, 1, &mut y_host, 1);
                    // A dot with the shared vector.
                    let d = ctx.sdot(ni, &y, 1, v, 1).unwrap();
                    assert_eq!(
                        d,
                        cpu::sdot(ni, &y_host, 1, &v_host, 1),
                        "thread {t} call {i}"
                    );
                    // y := A x + 0 y with the shared matrix, every 4th call.
                    if i % 4 == 0 {
                        ctx.sgemv(
                            Layout::ColMajor,
                            Transpose::NoTrans,
                            ni,
                            ni,
                            0.5,
                            a,
                            ni,
                            &x,
                            1,
                            0.0,
                            &mut y,
                            1,
                        )
                        .unwrap();
                        cpu_sgemv(
                            Layout::ColMajor,
                            Transpose::NoTrans,
                            ni,
                            ni,
                            0.5,
                            &a_host,
                            ni,
                            &x_host,
                            1,
                            0.0,
                            &mut y_host,
                            1,
                        );
                    }
                    // C := A A^T + C every 10th call; host API saxpy in between.
                    if i % 10 == 0 {
                        ctx.sgemm(
                            Layout::ColMajor,
                            Transpose::NoTrans,
                            Transpose::Trans,
                            ni,
                            ni,
                            ni,
                            1.0,
                            a,
                            ni,
                            a,
                            ni,
                            1.0,
                            &mut c,
                            ni,
                        )
                        .unwrap();
                        cpu_sgemm(
                            Layout::ColMajor,
                            Transpose::NoTrans,
                            Transpose::Trans,
                            ni,
                            ni,
                            ni,
                            1.0,
                            &a_host,
                            ni,
                            &a_host,
                            ni,
                            1.0,
                            &mut c_host,
                            ni,
                        );
                    } else if i % 10 == 5 {
                        let mut h = x_host.clone();
                        ctx.cblas().saxpy(ni, 2.0, &v_host, 1, &mut h, 1).unwrap();
                        let mut want = x_host.clone();
                        cpu::saxpy(ni, 2.0, &v_host, 1, &mut want, 1);
                        assert_eq!(h, want);
                    }
                }
                assert_eq!(y.to_vec().unwrap(), y_host, "thread {t} y");
                assert_eq!(c.to_vec().unwrap(), c_host, "thread {t} c");
            });
        }
    });
    // The shared operands are untouched.
    assert_eq!(a.to_vec().unwrap(), *a_host);
    assert_eq!(v.to_vec().unwrap(), *v_host);
}

#[test]
fn buffers_cross_threads_and_drop_anywhere() {
    let ctx = SharedContext::new().unwrap();
    let made: Vec<SharedBuffer> = std::thread::scope(|s| {
        (0..4)
            .map(|i| {
                s.spawn({
                    let ctx = ctx.clone();
                    move || ctx.upload(&[i as f32; 10]).unwrap()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect()
    });
    // Read on this thread, dropped on others; a pending read finished on yet another.
    let pending = made[3].read_async().unwrap();
    std::thread::scope(|s| {
        for (i, b) in made.into_iter().enumerate() {
            s.spawn(move || {
                assert_eq!(b.to_vec().unwrap(), vec![i as f32; 10]);
                drop(b);
            });
        }
        s.spawn(move || assert_eq!(pending.wait().unwrap(), vec![3.0; 10]));
    });
    // The handle is dropped on another thread too, after a clone is made there.
    let h = std::thread::spawn(move || {
        let c = ctx.clone();
        drop(ctx);
        c.zeros(3).unwrap().to_vec().unwrap()
    });
    assert_eq!(h.join().unwrap(), vec![0.0; 3]);
}

#[test]
fn errors_panics_and_reentrant_calls_come_back_as_errors() {
    let ctx = SharedContext::new().unwrap();
    let x = ctx.upload(&[1.0, 2.0]).unwrap();
    let mut y = ctx.zeros(2).unwrap();
    // An argument error names the parameter, as with Context.
    let e = ctx.saxpy(3, 1.0, &x, 1, &mut y, 1).unwrap_err();
    assert!(matches!(e, Error::TooShort { param: "x", .. }), "{e}");
    // A panic inside a closure is the caller's error; the handle keeps working.
    let e = ctx.with(|_| -> u32 { panic!("boom") }).unwrap_err();
    assert_eq!(e, Error::Panicked("boom".into()));
    let e = ctx.with_buffers(&[&x], &mut [&mut y], |_, _, _| -> u32 { panic!("bang") });
    assert!(matches!(e, Err(Error::Panicked(_))));
    ctx.saxpy(2, 1.0, &x, 1, &mut y, 1).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![1.0, 2.0], "y survived the panic");
    // A call from inside a closure (on the GL thread) is an error, not a deadlock.
    let inner = ctx.clone();
    let inner_x = ctx.upload(&[3.0]).unwrap();
    let r = ctx.with(move |_| inner.sasum(1, &inner_x, 1)).unwrap();
    assert_eq!(r, Err(Error::Reentrant));
    // A buffer of another handle is foreign.
    let other = SharedContext::new().unwrap();
    let z = other.zeros(2).unwrap();
    assert_eq!(
        ctx.saxpy(2, 1.0, &z, 1, &mut y, 1).unwrap_err(),
        Error::ForeignBuffer { param: "x" }
    );
    assert_eq!(ctx.sasum(2, &x, 1).unwrap(), 3.0);
}

#[test]
fn info_reports_the_subnormal_arithmetic_the_handle_does() {
    let ctx = SharedContext::new().unwrap();
    let tiny = 1.0e-40f32;
    let doubled = ctx
        .with(move |c| {
            let mut g = c.upload(&[tiny, 1.0]).unwrap();
            c.sscal(2, 2.0, &mut g, 1).unwrap();
            g.to_vec().unwrap()[0]
        })
        .unwrap();
    let info = ctx.info();
    assert_eq!(info.flushes_subnormals, doubled == 0.0, "{}", info.renderer);
    if !info.flushes_subnormals {
        assert_eq!(doubled, 2.0 * tiny);
    }
    let from_ctx = ctx.with(|c| c.info().flushes_subnormals).unwrap();
    assert_eq!(info.flushes_subnormals, from_ctx);
}

#[test]
fn every_routine_family_runs_through_the_handle() {
    use fragblas::{Diag, Side, Uplo};
    let ctx = SharedContext::new().unwrap();
    let local = fragblas::Context::new().unwrap();
    let mut r = rng(62);
    let n = 5i32;
    let a_host = ints(&mut r, 25);
    let b_host = ints(&mut r, 25);
    let a = ctx.upload(&a_host).unwrap();
    let b = ctx.upload(&b_host).unwrap();
    let (la, lb) = (
        local.upload(&a_host).unwrap(),
        local.upload(&b_host).unwrap(),
    );
    // Level 3 through both APIs of the handle against the same calls on a Context.
    let mut c = ctx.upload(&b_host).unwrap();
    let mut lc = local.upload(&b_host).unwrap();
    ctx.ssyrk(
        Layout::ColMajor,
        Uplo::Lower,
        Transpose::NoTrans,
        n,
        n,
        1.0,
        &a,
        n,
        1.0,
        &mut c,
        n,
    )
    .unwrap();
    local
        .ssyrk(
            Layout::ColMajor,
            Uplo::Lower,
            Transpose::NoTrans,
            n,
            n,
            1.0,
            &la,
            n,
            1.0,
            &mut lc,
            n,
        )
        .unwrap();
    assert_eq!(c.to_vec().unwrap(), lc.to_vec().unwrap());
    let mut h = b_host.clone();
    ctx.cblas()
        .strmm(
            Layout::RowMajor,
            Side::Right,
            Uplo::Upper,
            Transpose::Trans,
            Diag::Unit,
            n,
            n,
            2.0,
            &a_host,
            n,
            &mut h,
            n,
        )
        .unwrap();
    let mut want = b_host.clone();
    fragblas::cblas::strmm(
        &local,
        Layout::RowMajor,
        Side::Right,
        Uplo::Upper,
        Transpose::Trans,
        Diag::Unit,
        n,
        n,
        2.0,
        &a_host,
        n,
        &mut want,
        n,
    )
    .unwrap();
    assert_eq!(h, want);
    // Results that stay on the GPU become handles; slices of buffers; the rotations.
    let d = ctx.sdot_device(25, &a, 1, &b, 1).unwrap();
    assert_eq!(
        d.to_vec().unwrap(),
        vec![local.sdot(25, &la, 1, &lb, 1).unwrap()]
    );
    let mut c2 = ctx.zeros(25).unwrap();
    ctx.sgemm_batched(
        Layout::ColMajor,
        Transpose::NoTrans,
        Transpose::NoTrans,
        n,
        n,
        n,
        1.0,
        &[&a],
        n,
        &[&b],
        n,
        0.0,
        &mut [&mut c2],
        n,
    )
    .unwrap();
    let mut lc2 = local.zeros(25).unwrap();
    local
        .sgemm(
            Layout::ColMajor,
            Transpose::NoTrans,
            Transpose::NoTrans,
            n,
            n,
            n,
            1.0,
            &la,
            n,
            &lb,
            n,
            0.0,
            &mut lc2,
            n,
        )
        .unwrap();
    assert_eq!(c2.to_vec().unwrap(), lc2.to_vec().unwrap());
    let (mut p, mut q) = (3.0f32, 4.0f32);
    assert_eq!(ctx.srotg(&mut p, &mut q), (0.6, 0.8));
    let mut x = ctx.upload(&[1.0, 2.0]).unwrap();
    let mut y = ctx.upload(&[3.0, 4.0]).unwrap();
    ctx.srotm(2, &mut x, 1, &mut y, 1, &[-1.0, 0.0, -1.0, 1.0, 0.0])
        .unwrap();
    assert_eq!(
        (x.to_vec().unwrap(), y.to_vec().unwrap()),
        (vec![3.0, 4.0], vec![-1.0, -2.0])
    );
}

/// Set in the child process of [`a_thousand_handles_and_buffers_leave_memory_flat`].
const MEMORY_CHILD: &str = "FRAGBLAS_TEST_MEMORY_CHILD";

#[test]
fn a_thousand_handles_and_buffers_leave_memory_flat() {
    // The resident memory is the process's: the other tests of this file, running beside
    // this one on other threads, grow it too (on softpipe, where they run longest, by 75 MiB
    // once). So the measurement runs alone, in a child process running this test only.
    if std::env::var_os(MEMORY_CHILD).is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_thousand_handles_and_buffers_leave_memory_flat",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(MEMORY_CHILD, "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "the measuring child failed:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    // Warm up once (driver initialisation), then measure.
    for _ in 0..20 {
        let c = SharedContext::new().unwrap();
        c.zeros(1000).unwrap();
    }
    let before = rss();
    for i in 0..1000 {
        let c = SharedContext::new().unwrap();
        let b = c.upload(&[i as f32; 256]).unwrap();
        assert_eq!(b.len(), 256);
        drop(c); // the buffer keeps the GL thread alive
        assert_eq!(b.to_vec().unwrap()[0], i as f32);
    }
    let ctx = SharedContext::new().unwrap();
    for i in 0..1000 {
        let b = ctx.upload(&[i as f32; 4096]).unwrap();
        let c = b.try_clone().unwrap();
        drop(b);
        drop(c);
    }
    ctx.finish().unwrap();
    let after = rss();
    // Flat: within 64 MiB after 2000 cycles (one leaked context or texture each would be
    // hundreds of MiB).
    assert!(
        after < before + (64 << 20),
        "resident memory grew from {} to {} MiB",
        before >> 20,
        after >> 20
    );
}

/// The README's example, as written there.
#[test]
fn the_readme_example_runs() {
    let ctx = SharedContext::new().expect("a GL device");
    let x = ctx.upload(&vec![1.0f32; 1000]).unwrap();
    let sums: Vec<f32> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|t| {
                let (ctx, x) = (&ctx, &x);
                s.spawn(move || -> fragblas::Result<f32> {
                    let mut y = ctx.upload(&vec![t as f32; 1000])?;
                    ctx.saxpy(1000, 2.0, x, 1, &mut y, 1)?;
                    ctx.sdot(1000, x, 1, &y, 1)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
    });
    assert_eq!(sums, vec![2000.0, 3000.0, 4000.0, 5000.0]);
}
