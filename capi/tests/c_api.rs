//! The C library from outside: C programs compiled against `include/fragblas.h` and linked
//! to `libfragblas.so`, and Debian's numpy with the library preloaded. Needs `cc` and
//! Debian's `python3-numpy` (`.ci/setup` installs both).

use std::path::{Path, PathBuf};
use std::process::Command;

/// netlib's reference BLAS: what results and argument errors are checked against.
fn reference_blas() -> String {
    std::env::var("FRAGBLAS_TEST_BLAS")
        .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3".into())
}

/// The folder holding `libfragblas.so`: the profile folder above this test binary.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    assert!(
        dir.join("libfragblas.so").exists(),
        "{} has no libfragblas.so: build it with cargo build -p fragblas-capi",
        dir.display()
    );
    dir.to_path_buf()
}

fn out_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("fragblas-capi-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A C program of tests/c.
fn c_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(name)
}

/// Compiles `source` with `defines` into `out`, linked to libfragblas.so.
fn compile(source: &Path, defines: &[&str], out: &Path) {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = lib_dir();
    let status = Command::new("cc")
        .args(["-O1", "-Wall", "-Werror", "-std=gnu11"])
        .args(defines)
        .arg("-I")
        .arg(here.join("include"))
        .arg(source)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lfragblas", "-ldl", "-lm", "-o"])
        .arg(out)
        .status()
        .expect("cc runs");
    assert!(status.success(), "compiling {} failed", source.display());
}

/// Runs `exe` with `env`; asserts success and returns stdout.
fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(exe)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("program runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "{} {env:?} failed ({}):\n{stdout}\n{stderr}",
        exe.display(),
        out.status
    );
    stdout
}

#[test]
fn every_routine_through_cblas_and_fortran_on_the_gpu_and_the_cpu() {
    let dir = out_dir();
    let exe = dir.join("check");
    compile(&c_source("check.c"), &[], &exe);
    let r = reference_blas();
    for route in ["gpu", "cpu"] {
        // With FRAGBLAS_ROUTE=cpu the CPU BLAS is the reference too, so results must agree
        // with it as they do through the GPU.
        let out = run(
            &exe,
            &[&r],
            &[("FRAGBLAS_ROUTE", route), ("FRAGBLAS_CPU_BLAS", &r)],
        );
        assert!(out.starts_with("ok: "), "{route}: {out}");
    }
}

#[test]
fn argument_errors_reach_the_programs_own_handlers_at_reference_positions() {
    let dir = out_dir();
    let r = reference_blas();
    for (define, name) in [("-DCBLAS", "xerbla_cblas"), ("-DFORTRAN", "xerbla_fortran")] {
        let exe = dir.join(name);
        compile(&c_source("xerbla.c"), &[define], &exe);
        for route in ["gpu", "cpu"] {
            let out = run(
                &exe,
                &[],
                &[("FRAGBLAS_ROUTE", route), ("FRAGBLAS_CPU_BLAS", &r)],
            );
            assert!(out.starts_with("ok: "), "{name} {route}: {out}");
        }
    }
}

#[test]
fn the_default_cblas_handler_prints_the_callers_row_major_position_and_stops() {
    // Reference CBLAS passes the column-major call's position (5: N there is the caller's
    // M) with RowMajorStrg set, and its default handler maps it back to the caller's 4; the
    // name is its Fortran layer's, blank-padded to six characters. The CPU route runs
    // reference CBLAS itself: both print the same.
    let dir = out_dir();
    let src = dir.join("bad_row.c");
    std::fs::write(
        &src,
        "#include \"fragblas.h\"\nint main(void){float a[16]={0};\n\
         cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasNoTrans,-1,4,4,1,a,4,a,4,0,a,4);return 3;}\n",
    )
    .unwrap();
    let exe = dir.join("bad_row");
    compile(&src, &[], &exe);
    let printed: Vec<String> = ["gpu", "cpu"]
        .iter()
        .map(|route| {
            let out = Command::new(&exe)
                .env("FRAGBLAS_ROUTE", route)
                .env("FRAGBLAS_CPU_BLAS", reference_blas())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(
                out.status.code(),
                Some(255),
                "{route}: exits with -1: {err}"
            );
            err
        })
        .collect();
    assert_eq!(
        printed[0], "Parameter 4 to routine cblas_sgemm  was incorrect\n",
        "gpu route"
    );
    assert_eq!(
        printed[0], printed[1],
        "the GPU route prints what reference prints"
    );
}

#[test]
fn the_default_handler_prints_the_reference_message_and_stops() {
    let dir = out_dir();
    let src = dir.join("bad.c");
    std::fs::write(
        &src,
        "#include \"fragblas.h\"\nint main(void){float a[4]={0};int m=-1,n=1;float one=1;\n\
         sgemm_(\"N\",\"N\",&m,&n,&n,&one,a,&n,a,&n,&one,a,&n);return 3;}\n",
    )
    .unwrap();
    let exe = dir.join("bad");
    compile(&src, &[], &exe);
    let out = Command::new(&exe)
        .env("FRAGBLAS_ROUTE", "gpu")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "reference XERBLA stops: {err}");
    assert!(
        err.contains("On entry to SGEMM parameter number  3 had an illegal value"),
        "{err}"
    );
}

#[test]
fn numpy_runs_float32_products_on_the_gpu_and_forwards_float64_ones() {
    let dir = out_dir();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/numpy_products.py");
    let python = "/usr/bin/python3"; // Debian's, whose numpy links libblas.so.3
    let py = |out: &str, preload: bool| {
        let mut c = Command::new(python);
        c.arg(&script).arg(dir.join(out));
        if preload {
            c.env("LD_PRELOAD", lib_dir().join("libfragblas.so"))
                .env("FRAGBLAS_ROUTE", "gpu")
                .env("FRAGBLAS_VERBOSE", "1");
        }
        let o = c.output().expect("python3 runs");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "numpy ({out}): {err}");
        err
    };
    py("without.npz", false);
    let log = py("with.npz", true);
    let compare = Command::new(python)
        .arg(&script)
        .arg("--compare")
        .arg(dir.join("with.npz"))
        .arg(dir.join("without.npz"))
        .output()
        .unwrap();
    assert!(
        compare.status.success(),
        "{}",
        String::from_utf8_lossy(&compare.stderr)
    );
    for line in ["sgemm ", "sgemv ", "sdot "] {
        assert!(
            log.lines()
                .any(|l| l.contains(line) && l.contains("-> gpu")),
            "no {line}on the GPU in the log:\n{log}"
        );
    }
    for sym in ["cblas_dgemm", "cblas_dgemv", "cblas_ddot"] {
        assert!(
            log.lines()
                .any(|l| l.trim_start_matches("fragblas:").trim().starts_with(sym)),
            "{sym} not forwarded in the log:\n{log}"
        );
    }
    assert!(
        !log.contains("-> cpu"),
        "a float32 product ran on the CPU:\n{log}"
    );
}

#[test]
fn without_a_gl_device_everything_runs_on_the_cpu_with_one_warning() {
    let dir = out_dir();
    let exe = dir.join("check_nodev");
    compile(&c_source("check.c"), &[], &exe);
    let r = reference_blas();
    let out = Command::new(&exe)
        .arg(&r)
        .env("FRAGBLAS_ROUTE", "gpu")
        .env("FRAGBLAS_DEVICE", "99") // no such EGL device
        .env("FRAGBLAS_CPU_BLAS", &r)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("no GL device could be opened").count(),
        1,
        "{err}"
    );
}
