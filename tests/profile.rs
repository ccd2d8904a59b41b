//! The profile's GPU time by kernel (`Context::take_gl_profile`): on desktop GL every draw
//! after the first is timed and named by its kernel's file and defines; on GLES (no timer
//! queries) the list is empty and the GPU time zero. Taking the profile resets it.

mod common;

use fragblas::{Context, ContextOptions, Diag, GlApi, Layout::ColMajor, Transpose, Tuning, Uplo};

#[test]
fn gpu_time_by_kernel_names_each_pass() {
    let ctx = Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        profile: Some(true),
        inverse_solves: Some(true),
        ..Default::default()
    })
    .expect("a GL context");
    let n = 132;
    let mut a = vec![0.001f32; n * n];
    for i in 0..n {
        a[i + i * n] = 2.0;
    }
    let ga = ctx.upload(&a).unwrap();
    let mut x = ctx.upload(&vec![1.0f32; n]).unwrap();
    let mut first = ctx.upload(&[1.0f32; 4]).unwrap();
    ctx.take_gl_profile();
    // The profile's first draw is not timed: a level-1 call takes it, so that every pass of
    // the solve is (x has exactly n elements and increment 1, so the solve runs in x's own
    // texture, without copy passes).
    ctx.sscal(4, 2.0, &mut first, 1).unwrap();
    let ni = n as i32;
    ctx.strsv(
        ColMajor,
        Uplo::Lower,
        Transpose::NoTrans,
        Diag::NonUnit,
        ni,
        &ga,
        ni,
        &mut x,
        1,
    )
    .unwrap();
    ctx.finish().unwrap();
    let (times, kernels) = ctx.take_gl_profile().expect("profiling is on");
    if ctx.info().api == GlApi::Gles {
        assert!(kernels.is_empty());
        assert_eq!(times.gpu.calls, 0);
    } else {
        // The inversion pass once; 3 blocks (132 = 2 x 64 + 4): an inverse product and an
        // update each; no copies.
        let draws = |name: &str| {
            kernels
                .iter()
                .filter(|k| k.kernel.starts_with(name))
                .map(|k| k.draws)
                .sum::<u64>()
        };
        assert_eq!(
            draws("level2/trsv.frag PASS=2 NB=64 VEC4=1"),
            1,
            "{kernels:?}"
        );
        assert_eq!(
            draws("level2/trsv.frag PASS=3 NB=64 VEC4=1"),
            3,
            "{kernels:?}"
        );
        assert_eq!(
            draws("level2/trsv.frag PASS=0 NB=64 VEC4=1"),
            3,
            "{kernels:?}"
        );
        assert_eq!(draws("level1/"), 0, "{kernels:?}");
        // Every draw but the first is attributed; the times add up to the GPU's.
        let total: u64 = kernels.iter().map(|k| k.draws).sum();
        assert_eq!(total + 1, times.gpu.calls);
        let sum: std::time::Duration = kernels.iter().map(|k| k.time).sum();
        assert_eq!(sum, times.gpu.time);
        // Largest first.
        assert!(kernels.windows(2).all(|w| w[0].time >= w[1].time));
    }
    let (again, kernels) = ctx.take_gl_profile().expect("profiling is on");
    assert!(kernels.is_empty());
    assert_eq!(again.draws.calls, 0);
}
