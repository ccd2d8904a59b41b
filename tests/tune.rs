//! The sgemm auto-tuner: modes, the on-disk cache, and that tuned calls stay correct.
mod common;

use std::path::{Path, PathBuf};

use common::{cpu_gemm, ints, rng};
use fragblas::{
    Buffer, Context, ContextOptions, GemmKernel, Layout, ShapeClass, Transpose, Tuning,
};

/// A fresh cache directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fragblas-tune-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

/// C := A * B, column-major, no transposes, tight leading dimensions, through `Auto`.
fn plain_sgemm(
    ctx: &Context,
    (m, n, k): (usize, usize, usize),
    a: &Buffer,
    b: &Buffer,
    c: &mut Buffer,
) {
    let nt = Transpose::NoTrans;
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    ctx.sgemm(
        Layout::ColMajor,
        nt,
        nt,
        mi,
        ni,
        ki,
        1.0,
        a,
        mi,
        b,
        ki,
        0.0,
        c,
        mi,
    )
    .unwrap();
}

fn context(tuning: Tuning, dir: &Path) -> Context {
    Context::with_options(ContextOptions {
        tuning: Some(tuning),
        tune_cache_dir: Some(dir.to_path_buf()),
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn tuning_times_every_runnable_kernel_and_saves_the_fastest() {
    let dir = temp_dir("save");
    let ctx = context(Tuning::Auto, &dir);
    let r = ctx.tune_sgemm(96, 80, 72).unwrap();
    assert_eq!(r.class, ShapeClass::of(96, 80, 72));
    assert_eq!(r.shape, (96, 80, 72));
    // Every kernel the device can run is timed (on llvmpipe all of them; on a GL 3.3 /
    // GLES 3.0 device not the tile kernels); a small product also times the generic one;
    // Vec4 is left out where Mrt4 runs.
    let timed: Vec<GemmKernel> = r.timings.iter().map(|(k, _)| *k).collect();
    let want: Vec<GemmKernel> = GemmKernel::ALL
        .into_iter()
        .filter(|k| *k != GemmKernel::Vec4 && k.runs_on(ctx.info()))
        .collect();
    assert_eq!(timed, want);
    let fastest = r.timings.iter().min_by_key(|(_, t)| *t).unwrap().0;
    assert_eq!(r.chosen, fastest);
    assert!(r.gflops(r.chosen).unwrap() > 0.0);
    let file = r.saved_to.clone().expect("saved");
    assert_eq!(Some(file.as_path()), ctx.tuning_cache_file());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains(&format!("m7 n7 k7 {}", r.chosen.name())),
        "{text}"
    );
    assert_eq!(ctx.sgemm_kernel_for(96, 80, 72), r.chosen);
    // Another shape of the same class gets the same choice.
    assert_eq!(ctx.sgemm_kernel_for(128, 65, 100), r.chosen);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn modes_decide_whether_the_cache_is_read_and_calls_are_timed() {
    let dir = temp_dir("modes");
    let class = ShapeClass::of(256, 256, 256);
    // Plant a choice that is not the default, as if an earlier run had measured it.
    let writer = context(Tuning::Auto, &dir);
    let default = writer.sgemm_kernel_for(256, 256, 256);
    let planted = if default == GemmKernel::Vec4 {
        GemmKernel::Mrt4
    } else {
        GemmKernel::Vec4
    };
    let file = writer.tuning_cache_file().unwrap().to_path_buf();
    drop(writer);
    let text = {
        let ctx = context(Tuning::Auto, &dir);
        ctx.tune_sgemm(8, 8, 8).unwrap();
        std::fs::read_to_string(&file).unwrap()
    };
    let header: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(
        &file,
        format!(
            "{header}m{} n{} k{} {}\n",
            class.m,
            class.n,
            class.k,
            planted.name()
        ),
    )
    .unwrap();

    // Cached and Auto read it; Off ignores it.
    assert_eq!(
        context(Tuning::Cached, &dir).sgemm_kernel_for(256, 256, 256),
        planted
    );
    assert_eq!(
        context(Tuning::Auto, &dir).sgemm_kernel_for(256, 256, 256),
        planted
    );
    let off = context(Tuning::Off, &dir);
    assert_eq!(off.sgemm_kernel_for(256, 256, 256), default);

    // Force ignores the cache until it has timed the class itself, times it on the first
    // large enough call, and overwrites the planted choice with the measured one. The result
    // is exact (small integers).
    let ctx = context(Tuning::Force, &dir);
    assert_eq!(ctx.sgemm_kernel_for(256, 256, 256), default);
    let mut r = rng(31);
    let (m, n, k) = (256usize, 256usize, 256usize);
    let a = ints(&mut r, m * k);
    let b = ints(&mut r, k * n);
    let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&b).unwrap());
    let mut gc = ctx.zeros(m * n).unwrap();
    let nt = Transpose::NoTrans;
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    plain_sgemm(&ctx, (m, n, k), &ga, &gb, &mut gc);
    let measured = ctx.sgemm_kernel_for(m, n, k);
    let after = std::fs::read_to_string(&file).unwrap();
    let line = format!("m{} n{} k{} {}", class.m, class.n, class.k, measured.name());
    assert!(after.contains(&line), "{after}");
    let mut want = vec![0.0; m * n];
    cpu_gemm::sgemm(
        Layout::ColMajor,
        nt,
        nt,
        mi,
        ni,
        ki,
        1.0,
        &a,
        mi,
        &b,
        ki,
        0.0,
        &mut want,
        mi,
    );
    assert_eq!(gc.to_vec().unwrap(), want);

    // Clearing deletes the file and the choices.
    ctx.clear_tuning_cache().unwrap();
    assert!(!file.exists());
    assert_eq!(ctx.sgemm_kernel_for(m, n, k), default);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn auto_mode_times_a_large_enough_call_once_and_small_ones_never() {
    let dir = temp_dir("auto");
    let ctx = context(Tuning::Auto, &dir);
    let file = ctx.tuning_cache_file().unwrap().to_path_buf();
    let run = |m: usize, n: usize, k: usize| {
        let a = ctx.upload(&vec![0.5; m * k]).unwrap();
        let b = ctx.upload(&vec![0.25; k * n]).unwrap();
        let mut c = ctx.zeros(m * n).unwrap();
        plain_sgemm(&ctx, (m, n, k), &a, &b, &mut c);
        // 0.5 * 0.25 * k is exact.
        assert!(c.to_vec().unwrap().iter().all(|v| *v == 0.125 * k as f32));
    };
    run(100, 100, 100); // below TUNE_MIN_WORK: nothing timed, nothing written
    assert!(!file.exists());
    run(256, 256, 256);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("m8 n8 k8 "), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_environment_variable_sets_the_mode() {
    let dir = temp_dir("env");
    let with_env = |v: &str| {
        std::env::set_var(fragblas::tune::TUNE_ENV, v);
        let r = Context::with_options(ContextOptions {
            tune_cache_dir: Some(dir.clone()),
            ..Default::default()
        });
        std::env::remove_var(fragblas::tune::TUNE_ENV);
        r
    };
    assert_eq!(with_env("off").unwrap().tuning(), Tuning::Off);
    // Without the variable: Cached, so a first large sgemm times nothing and writes no file.
    let default = Context::with_options(ContextOptions {
        tune_cache_dir: Some(dir.clone()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(default.tuning(), Tuning::Cached);
    let (a, b) = (
        default.zeros(256 * 256).unwrap(),
        default.zeros(256 * 256).unwrap(),
    );
    let mut c = default.zeros(256 * 256).unwrap();
    plain_sgemm(&default, (256, 256, 256), &a, &b, &mut c);
    assert_eq!(default.sgemm_tuned_kernel(256, 256, 256), None);
    assert!(!dir.exists(), "the default mode wrote a tuning cache");
    drop(default);
    assert_eq!(with_env("cached").unwrap().tuning(), Tuning::Cached);
    assert_eq!(with_env("force").unwrap().tuning(), Tuning::Force);
    let ctx = context(Tuning::Auto, &dir);
    ctx.tune_sgemm(8, 8, 8).unwrap();
    let file = ctx.tuning_cache_file().unwrap().to_path_buf();
    assert!(file.exists());
    let cleared = with_env("clear").unwrap();
    assert_eq!(cleared.tuning(), Tuning::Auto);
    assert!(!file.exists(), "clear deletes the device's cache file");
    let err = with_env("sometimes")
        .err()
        .expect("an unknown mode is an error");
    assert!(err.to_string().contains("FRAGBLAS_TUNE"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
