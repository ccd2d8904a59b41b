//! Foundation tests: layout round trips, device copies, lifetimes, several contexts, errors.

mod common;

use common::*;
use fragblas::{Context, ContextOptions, Error};

fn small_cap_ctx(cap: u32) -> Context {
    Context::with_options(ContextOptions {
        width_cap: Some(cap),
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn round_trips_are_exact_around_the_width_cap() {
    for cap in [1u32, 3, 16] {
        let ctx = small_cap_ctx(cap);
        assert_eq!(ctx.width_cap(), cap);
        let w = 4 * cap as usize;
        let mut lens: Vec<usize> = (1..=9).collect();
        lens.extend([w - 1, w, w + 1, 3 * w - 1, 3 * w, 3 * w + 1]);
        let mut r = rng(cap as u64);
        for len in lens {
            let mut data = reals(&mut r, len);
            // Values whose bits must survive: signed zero, a subnormal, extremes, Inf.
            let specials = [
                -0.0,
                1.0e-40,
                f32::MAX,
                f32::MIN_POSITIVE,
                f32::NEG_INFINITY,
            ];
            for (d, s) in data.iter_mut().zip(specials) {
                *d = s;
            }
            let b = ctx.upload(&data).unwrap();
            assert_eq!(b.len(), len);
            assert_same_slices(&format!("cap {cap} len {len}"), &b.to_vec().unwrap(), &data);
            // Every prefix comes back exactly too.
            for k in [0, 1, len / 2, len.saturating_sub(1), len] {
                let mut out = vec![f32::NAN; k];
                b.read_into(&mut out).unwrap();
                assert_same_slices(&format!("cap {cap} len {len} prefix {k}"), &out, &data[..k]);
            }
        }
    }
}

#[test]
fn round_trips_with_the_default_cap() {
    let ctx = ctx();
    let w = 4 * ctx.width_cap() as usize;
    let mut r = rng(7);
    for len in [1, 2, 3, 4, 5, 6, 7, 8, 9, w - 1, w, w + 1] {
        let data = reals(&mut r, len);
        let mut b = ctx.zeros(len).unwrap();
        assert!(b.to_vec().unwrap().iter().all(|v| *v == 0.0));
        b.write(&data).unwrap();
        assert_same_slices(&format!("len {len}"), &b.to_vec().unwrap(), &data);
    }
}

#[test]
fn read_never_writes_past_the_callers_slice() {
    let ctx = small_cap_ctx(2);
    let data: Vec<f32> = (0..13).map(|i| i as f32 + 0.5).collect();
    let b = ctx.upload(&data).unwrap();
    // A larger slice whose tail must stay as it was.
    let mut out = [-7.0f32; 20];
    b.read_into(&mut out[..13]).unwrap();
    assert_eq!(&out[..13], &data[..]);
    assert!(out[13..].iter().all(|v| *v == -7.0));
}

#[test]
fn device_copy_and_clone() {
    let ctx = small_cap_ctx(5);
    let mut r = rng(11);
    for len in [1, 7, 20, 21, 99] {
        let data = reals(&mut r, len);
        let src = ctx.upload(&data).unwrap();
        let mut dst = ctx.upload(&reals(&mut r, len)).unwrap();
        dst.copy_from(&src).unwrap();
        assert_same_slices("copy_from", &dst.to_vec().unwrap(), &data);
        let c = src.try_clone().unwrap();
        drop(src);
        assert_same_slices("try_clone", &c.to_vec().unwrap(), &data);
    }
}

#[test]
fn length_mismatches_are_errors() {
    let ctx = ctx();
    let mut b = ctx.upload(&[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(
        b.write(&[1.0, 2.0]),
        Err(Error::LengthMismatch {
            what: "Buffer::write",
            expected: 3,
            actual: 2
        })
    );
    let mut big = [0.0f32; 4];
    assert!(matches!(
        b.read_into(&mut big),
        Err(Error::LengthMismatch {
            expected: 3,
            actual: 4,
            ..
        })
    ));
    let other = ctx.upload(&[1.0, 2.0]).unwrap();
    assert!(matches!(
        b.copy_from(&other),
        Err(Error::LengthMismatch {
            expected: 3,
            actual: 2,
            ..
        })
    ));
    // The buffer is unchanged by the failed calls.
    assert_eq!(b.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
}

#[test]
fn oversize_buffers_are_errors_naming_the_limits() {
    let ctx = small_cap_ctx(4);
    let max = ctx.max_buffer_len();
    assert_eq!(max, 4 * 4 * ctx.info().max_texture_size as usize);
    let err = ctx.zeros(max + 1).unwrap_err();
    match &err {
        Error::BufferTooLarge {
            n,
            width_cap,
            max_texture_size,
        } => {
            assert_eq!(*n, max + 1);
            assert_eq!(*width_cap, 4);
            assert_eq!(*max_texture_size, ctx.info().max_texture_size);
        }
        e => panic!("unexpected {e:?}"),
    }
    assert!(err.to_string().contains(&(max + 1).to_string()));
}

#[test]
fn two_contexts_work_independently() {
    let a = Context::new().unwrap();
    let b = Context::new().unwrap();
    let xa = a.upload(&[1.0, 2.0, 3.0]).unwrap();
    let mut ya = a.upload(&[1.0, 1.0, 1.0]).unwrap();
    let xb = b.upload(&[10.0, 20.0]).unwrap();
    let mut yb = b.upload(&[0.5, 0.5]).unwrap();
    // Interleave work on the two contexts.
    a.saxpy(3, 2.0, &xa, 1, &mut ya, 1).unwrap();
    b.saxpy(2, -1.0, &xb, 1, &mut yb, 1).unwrap();
    assert_eq!(ya.to_vec().unwrap(), vec![3.0, 5.0, 7.0]);
    assert_eq!(yb.to_vec().unwrap(), vec![-9.5, -19.5]);
    // A buffer used with the wrong context is an error naming it.
    assert_eq!(
        a.saxpy(2, 1.0, &xb, 1, &mut ya, 1),
        Err(Error::ForeignBuffer { param: "x" })
    );
    assert_eq!(
        b.sdot(2, &xb, 1, &ya, 1),
        Err(Error::ForeignBuffer { param: "y" })
    );
    drop(a);
    // b still works after a is gone, and a's buffers keep their context alive.
    assert_eq!(
        b.sdot(2, &xb, 1, &yb, 1).unwrap(),
        -9.5 * 10.0 - 19.5 * 20.0
    );
    assert_eq!(xa.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
}

#[test]
fn device_info_is_filled_in() {
    let ctx = ctx();
    let i = ctx.info();
    assert!(!i.renderer.is_empty() && !i.version.is_empty());
    assert!(i.max_texture_size >= 4096);
    assert!(i.max_draw_buffers >= 4);
    let devices = fragblas::list_devices().unwrap();
    assert!(devices.iter().any(|d| d.index == i.device_index));
}

#[test]
fn bad_device_index_is_a_clear_error() {
    let err = Context::with_options(ContextOptions {
        device: Some(999),
        ..Default::default()
    })
    .err()
    .unwrap();
    assert!(
        matches!(&err, Error::NoDevice(m) if m.contains("999")),
        "{err}"
    );
}

#[test]
fn desktop_gl_and_gles_contexts_both_compute() {
    use fragblas::GlApi;
    for api in [GlApi::DesktopGl, GlApi::Gles] {
        let ctx = Context::with_options(ContextOptions {
            api,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(ctx.info().api, api);
        let es = ctx.info().version.contains("OpenGL ES");
        assert_eq!(es, api == GlApi::Gles, "{}", ctx.info().version);
        let x = ctx.upload(&[1.0, -2.0, 3.0, 4.5, 5.0]).unwrap();
        let mut y = ctx.upload(&[0.5; 5]).unwrap();
        ctx.saxpy(5, 2.0, &x, 1, &mut y, 1).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![2.5, -3.5, 6.5, 9.5, 10.5]);
        assert_eq!(ctx.isamax(5, &x, 1).unwrap(), Some(4));
    }
}

#[test]
fn the_api_variable_is_honoured() {
    // CI runs the whole suite once with FRAGBLAS_API unset (desktop GL on Mesa) and once
    // with FRAGBLAS_API=gles: the per-thread test context must follow it.
    let want = match std::env::var("FRAGBLAS_API").as_deref() {
        Ok("gles") => fragblas::GlApi::Gles,
        _ => fragblas::GlApi::DesktopGl,
    };
    assert_eq!(ctx().info().api, want);
}

#[test]
fn staged_writes_round_trip_like_plain_ones() {
    for cap in [3u32, 8192] {
        let ctx = small_cap_ctx(cap);
        let mut r = rng(78);
        for len in [1usize, 3, 4, 5, 11, 12, 13, 1000, 65537] {
            let mut b = ctx.upload(&reals(&mut r, len)).unwrap();
            let data = reals(&mut r, len);
            b.write_staged(&data).unwrap();
            assert_same_slices(&format!("cap {cap} len {len}"), &b.to_vec().unwrap(), &data);
            // A second staged write reuses the unpack buffer; a plain write after it still
            // reads client memory.
            let again = reals(&mut r, len);
            b.write_staged(&again).unwrap();
            assert_same_slices(&format!("again {cap} {len}"), &b.to_vec().unwrap(), &again);
            b.write_direct(&data).unwrap();
            assert_same_slices(&format!("direct {cap} {len}"), &b.to_vec().unwrap(), &data);
            b.write(&again).unwrap();
            assert_same_slices(&format!("write {cap} {len}"), &b.to_vec().unwrap(), &again);
        }
        // More than one staging batch: whole rows in two pieces, then the partial row (the
        // narrow context cannot hold that many floats).
        let len = fragblas::buffer::STAGING_BYTES / 2 + 12_345;
        if len <= ctx.max_buffer_len() {
            let data = reals(&mut r, len);
            let mut b = ctx.zeros(len).unwrap();
            b.write_staged(&data).unwrap();
            assert_same_slices(&format!("batched cap {cap}"), &b.to_vec().unwrap(), &data);
        }
        let mut b = ctx.zeros(3).unwrap();
        let err = b.write_staged(&[1.0; 4]).unwrap_err();
        assert!(
            matches!(err, fragblas::Error::LengthMismatch { .. }),
            "{err}"
        );
    }
}

#[test]
fn asynchronous_readback_returns_the_data_of_the_work_before_it() {
    for cap in [3u32, 8192] {
        let ctx = small_cap_ctx(cap);
        let mut r = rng(77);
        for len in [1usize, 4, 5, 11, 12, 13, 1000, 65537] {
            let data = reals(&mut r, len);
            let x = ctx.upload(&data).unwrap();
            let mut y = ctx.upload(&reals(&mut r, len)).unwrap();
            // Queue work, then the readback, with no wait in between.
            ctx.scopy(len as i32, &x, 1, &mut y, 1).unwrap();
            let pending = y.read_async().unwrap();
            let got = pending.wait().unwrap();
            assert_same_slices(&format!("cap {cap} len {len}"), &got, &data);
            // Into the caller's slice: the same data, whatever the slice held before.
            let mut host = vec![f32::NAN; len];
            y.read_async().unwrap().wait_into(&mut host).unwrap();
            assert_same_slices(&format!("wait_into cap {cap} len {len}"), &host, &data);
        }
        let x = ctx.upload(&[1.0, 2.0, 3.0]).unwrap();
        let err = x
            .read_async()
            .unwrap()
            .wait_into(&mut [0.0; 2])
            .unwrap_err();
        assert!(
            matches!(
                err,
                fragblas::Error::LengthMismatch {
                    expected: 3,
                    actual: 2,
                    ..
                }
            ),
            "{err}"
        );
        // A readback dropped unwaited leaves nothing behind.
        let x = ctx.upload(&[1.0, 2.0]).unwrap();
        let p = x.read_async().unwrap();
        while !p.is_ready().unwrap() {
            std::thread::yield_now();
        }
        drop(p);
        let p = x.read_async().unwrap();
        drop(p);
        ctx.finish().unwrap();
        assert_eq!(x.to_vec().unwrap(), vec![1.0, 2.0]);
    }
}

#[test]
fn large_reads_split_over_threads_return_every_element() {
    // Above 2^21 floats the copies out of (and into) mapped pixel buffers run on several
    // threads; every element, the pieces' edges included, must arrive in place.
    let ctx = Context::new().unwrap();
    let mut r = rng(71);
    let len = 3 * (1 << 21) + 5;
    let data = reals(&mut r, len);
    let mut b = ctx.zeros(len).unwrap();
    b.write_staged(&data).unwrap();
    let mut out = vec![f32::NAN; len];
    b.read_async().unwrap().wait_into(&mut out).unwrap();
    assert_same_slices("read_async", &out, &data);
    let mut prefix = vec![f32::NAN; len - 3];
    b.read_into(&mut prefix).unwrap();
    assert_same_slices("read_into prefix", &prefix, &data[..len - 3]);
}
