//! The minimal-capability device: what a GL 3.3 / GLES 3.0 context reports and which paths
//! the library takes there. CI runs the suite on such devices (Mesa's softpipe, desktop GL
//! 3.3; llvmpipe with `MESA_GLES_VERSION_OVERRIDE=3.0`) with `FRAGBLAS_EXPECT_MINIMAL=1`,
//! under which these tests insist that the context really is one: no image stores, no
//! storage blocks, the tile kernels refused, level 1 rendered even where in-place updates
//! are asked for. Elsewhere they check that the capabilities agree with the version.
mod common;

use common::{ctx, ints, rng};
use fragblas::{Context, ContextOptions, GemmKernel, GlApi, Tuning};

/// Whether CI says this run's device is a minimal one.
fn expect_minimal() -> bool {
    std::env::var("FRAGBLAS_EXPECT_MINIMAL").is_ok_and(|v| v == "1")
}

/// The (major, minor) version in the context's version string (`4.5 (Core Profile) Mesa`,
/// `OpenGL ES 3.0 Mesa`).
fn version(info: &fragblas::DeviceInfo) -> (u32, u32) {
    let v = info
        .version
        .split_whitespace()
        .find(|w| w.contains('.') && w.starts_with(|c: char| c.is_ascii_digit()))
        .expect("a version number");
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

#[test]
fn capabilities_agree_with_the_version_and_minimal_devices_are_minimal() {
    let ctx = ctx();
    let info = ctx.info();
    let v = version(info);
    let images_core = if info.api == GlApi::Gles {
        v >= (3, 1)
    } else {
        v >= (4, 3)
    };
    // Image stores and storage blocks come with GL 4.3 / GLES 3.1, never before.
    assert!(
        !info.image_stores || images_core,
        "{}: image stores",
        info.version
    );
    assert!(
        info.max_fragment_storage_blocks == 0 || images_core,
        "{}: storage blocks",
        info.version
    );
    if expect_minimal() {
        let minimal = if info.api == GlApi::Gles {
            (3, 0)
        } else {
            (3, 3)
        };
        assert_eq!(v, minimal, "{}", info.version);
        assert!(!info.image_stores && info.max_fragment_storage_blocks == 0);
        for k in [GemmKernel::Tile8, GemmKernel::Tile16] {
            assert!(!k.runs_on(info), "{k:?} on {}", info.version);
        }
        // Asked for in-place level 1, the context still renders: it has no image stores.
        let c = Context::with_options(ContextOptions {
            image_stores: Some(true),
            tuning: Some(Tuning::Off),
            ..Default::default()
        })
        .unwrap();
        assert!(!c.level1_in_place());
    }
}

/// The paths a minimal device takes give reference results: saxpy rendered (no image
/// stores), sgemm with every kernel the device can run, and the kernels it cannot refused.
#[test]
fn the_fallback_paths_compute_right() {
    let ctx = ctx();
    let mut r = rng(5);
    let n = 1000usize;
    let (x, y) = (ints(&mut r, n), ints(&mut r, n));
    let gx = ctx.upload(&x).unwrap();
    let mut gy = ctx.upload(&y).unwrap();
    ctx.saxpy(n as i32, 2.0, &gx, 1, &mut gy, 1).unwrap();
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| 2.0 * a + b).collect();
    assert_eq!(gy.to_vec().unwrap(), want);
    let m = 12usize;
    let (a, b) = (ints(&mut r, m * m), ints(&mut r, m * m));
    let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&b).unwrap());
    let mut exact = vec![0.0f32; m * m];
    for j in 0..m {
        for i in 0..m {
            exact[i + j * m] = (0..m).map(|l| a[i + l * m] * b[l + j * m]).sum();
        }
    }
    for k in GemmKernel::ALL {
        let mut gc = ctx.zeros(m * m).unwrap();
        let mi = m as i32;
        let done = ctx.sgemm_with(
            k,
            fragblas::Layout::ColMajor,
            fragblas::Transpose::NoTrans,
            fragblas::Transpose::NoTrans,
            mi,
            mi,
            mi,
            1.0,
            &ga,
            mi,
            &gb,
            mi,
            0.0,
            &mut gc,
            mi,
        );
        if k.runs_on(ctx.info()) {
            done.unwrap();
            assert_eq!(gc.to_vec().unwrap(), exact, "{k:?}");
        } else {
            assert!(
                matches!(done, Err(fragblas::Error::Unsupported(_))),
                "{k:?}"
            );
        }
    }
}
