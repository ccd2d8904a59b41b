//! The GPU side: one `SharedContext` opened on first need (C callers call from any thread),
//! the cost model's GPU and CPU rates measured once, and the call that turns C pointers
//! into the slices the crate's host API checks.
//!
//! C passes pointers without lengths. A call first runs the crate's host routine with
//! empty slices: its checks run in reference order before anything moves, and a slice that
//! is too short comes back as `TooShort` with the number of elements the arguments address.
//! The slice is then made exactly that long and the routine runs again, until it runs (a
//! handful of rounds, all on the GL thread, none touching the GPU until the last).

use std::ffi::c_int;
use std::sync::OnceLock;
use std::time::Instant;

use fragblas_core::{cblas, Context, Error, Layout, SharedContext, Transpose};

use crate::cpu::forwarding;
use crate::cpu_fn;
use crate::route::{say, Model};

/// The opened device and, on hardware, its measured model.
pub struct Gpu {
    /// The handle every call goes through.
    pub ctx: SharedContext,
    /// Whether the renderer is a software one (llvmpipe): the CPU BLAS is then faster.
    pub software: bool,
    model: OnceLock<Option<Model>>,
}

/// The device, opened on first call; `None` (with one warning) when none can be opened.
pub fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| match SharedContext::new() {
        Ok(ctx) => {
            let software = ctx.info().software;
            say(|| {
                format!(
                    "GL device: {} ({})",
                    ctx.info().renderer,
                    ctx.info().version
                )
            });
            Some(Gpu {
                ctx,
                software,
                model: OnceLock::new(),
            })
        }
        Err(e) => {
            eprintln!(
                "fragblas: no GL device could be opened ({e}); every call runs on the CPU BLAS"
            );
            None
        }
    })
    .as_ref()
}

impl Gpu {
    /// The cost model's rates, measured on first use (about a tenth of a second on a
    /// hardware GPU); `None` if a measurement failed.
    pub fn model(&self) -> Option<&Model> {
        self.model
            .get_or_init(|| match measure(&self.ctx) {
                Ok(m) => {
                    say(|| format!("measured model: {m:?}"));
                    Some(m)
                }
                Err(e) => {
                    say(|| format!("could not measure the cost model ({e}); using the CPU"));
                    None
                }
            })
            .as_ref()
    }
}

type CpuSgemm = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    f32,
    *const f32,
    c_int,
    *const f32,
    c_int,
    f32,
    *mut f32,
    c_int,
);
type CpuSgemv = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    f32,
    *const f32,
    c_int,
    *const f32,
    c_int,
    f32,
    *mut f32,
    c_int,
);

/// Best of `reps` runs of `f`, in seconds.
fn best(reps: usize, mut f: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    let mut t = f64::INFINITY;
    for _ in 0..reps {
        let s = Instant::now();
        f()?;
        t = t.min(s.elapsed().as_secs_f64());
    }
    Ok(t)
}

fn measure(shared: &SharedContext) -> Result<Model, Error> {
    const N: usize = 1024;
    let data: Vec<f32> = (0..N * N).map(|i| (i % 7) as f32 * 0.25).collect();
    let (gpu_fixed, up, down, gemm) = shared.with(move |ctx: &Context| {
        let a = ctx.upload(&data)?;
        let b = ctx.upload(&data)?;
        let mut c = ctx.zeros(N * N)?;
        let n = N as i32;
        let mut gemm = || {
            ctx.sgemm(
                Layout::ColMajor,
                Transpose::NoTrans,
                Transpose::NoTrans,
                n,
                n,
                n,
                1.0,
                &a,
                n,
                &b,
                n,
                0.0,
                &mut c,
                n,
            )?;
            ctx.finish()
        };
        gemm()?;
        let gemm_s = best(3, &mut gemm)?;
        let up_s = best(3, || ctx.upload(&data).and_then(|_| ctx.finish()))?;
        let mut out = vec![0.0f32; N * N];
        let down_s = best(3, || c.read_into(&mut out))?;
        let small = [1.0f32; 64];
        let mut sc = [0.0f32; 64];
        let mut tiny = || {
            cblas::sgemm(
                ctx,
                Layout::ColMajor,
                Transpose::NoTrans,
                Transpose::NoTrans,
                8,
                8,
                8,
                1.0,
                &small,
                8,
                &small,
                8,
                0.0,
                &mut sc,
                8,
            )
        };
        tiny()?;
        let fixed = best(5, tiny)?;
        Ok::<_, Error>((fixed, up_s, down_s, gemm_s))
    })??;
    let bytes = (N * N * 4) as f64;
    let flops = 2.0 * (N as f64).powi(3);
    // The CPU BLAS: a 768^3 sgemm and a 2048^2 sgemv, the best of six runs each (the first
    // run of a threaded BLAS starts its threads).
    let (cpu_gemm, cpu_gemv) = forwarding(|| {
        let sgemm = cpu_fn!("cblas_sgemm", CpuSgemm);
        let sgemv = cpu_fn!("cblas_sgemv", CpuSgemv);
        let (m, v) = (768usize, 2048usize);
        let a = vec![0.5f32; v * v]; // holds the 768 x 768 operands too
        let mut c = vec![0.0f32; m * m];
        let mut y = vec![0.0f32; v];
        let g = best(6, || {
            // SAFETY: the arrays hold what the arguments address.
            unsafe {
                sgemm(
                    102,
                    111,
                    111,
                    m as c_int,
                    m as c_int,
                    m as c_int,
                    1.0,
                    a.as_ptr(),
                    m as c_int,
                    a.as_ptr(),
                    m as c_int,
                    0.0,
                    c.as_mut_ptr(),
                    m as c_int,
                )
            };
            Ok(())
        })?;
        let s = best(6, || {
            // SAFETY: as above.
            unsafe {
                sgemv(
                    102,
                    111,
                    v as c_int,
                    v as c_int,
                    1.0,
                    a.as_ptr(),
                    v as c_int,
                    a.as_ptr(),
                    1,
                    0.0,
                    y.as_mut_ptr(),
                    1,
                )
            };
            Ok(())
        })?;
        Ok::<_, Error>((g, s))
    })?;
    Ok(Model {
        gpu_fixed,
        up_bps: bytes / up,
        down_bps: bytes / down,
        gpu_flops: flops / gemm,
        cpu_flops: 2.0 * 768f64.powi(3) / cpu_gemm,
        cpu_bps: (2048.0 * 2048.0 * 4.0) / cpu_gemv,
    })
}

/// Up to four C pointers and the lengths the routine's checks asked for so far.
pub struct Slices {
    ptrs: [usize; 4],
    lens: [usize; 4],
}

impl Slices {
    /// Operand `i`, read only.
    pub fn r(&self, i: usize) -> &[f32] {
        if self.lens[i] == 0 {
            return &[];
        }
        // SAFETY: the caller's pointer addresses at least `lens[i]` floats: that is what
        // its BLAS arguments address (the length came from the routine's own checks), and
        // the C caller waits for the call to end.
        unsafe { std::slice::from_raw_parts(self.ptrs[i] as *const f32, self.lens[i]) }
    }

    /// Operand `i`, written.
    #[allow(clippy::mut_from_ref)]
    pub fn w(&self, i: usize) -> &mut [f32] {
        if self.lens[i] == 0 {
            return &mut [];
        }
        // SAFETY: as in `r`; BLAS forbids output operands that overlap any other operand,
        // and each operand index is taken once per call.
        unsafe { std::slice::from_raw_parts_mut(self.ptrs[i] as *mut f32, self.lens[i]) }
    }
}

/// Why a GPU call did not give a result.
pub enum Failure {
    /// A BLAS argument is invalid: the CBLAS position and the crate's message.
    Invalid(u32, String),
    /// An enumeration argument is invalid: what reference CBLAS's C layer checks itself,
    /// before it calls its Fortran layer (the position and the message).
    InvalidEnum(u32, String),
    /// Anything else (no device, a pointer that is null where data is needed, a GL
    /// failure, a panic): the caller runs the CPU BLAS instead.
    Other(String),
}

/// Runs `f` on the GL thread with the operands behind `ptrs` (named `names` in the crate's
/// `TooShort` errors), growing each slice to what the checks ask for.
pub fn call<T: Send + 'static>(
    names: &'static [&'static str],
    ptrs: [usize; 4],
    f: impl Fn(&Context, &Slices) -> Result<T, Error> + Send + 'static,
) -> Result<T, Failure> {
    let Some(g) = gpu() else {
        return Err(Failure::Other("no GL device".into()));
    };
    let run = g.ctx.with(move |ctx| {
        let mut s = Slices { ptrs, lens: [0; 4] };
        for _ in 0..=names.len() {
            match f(ctx, &s) {
                Err(Error::TooShort { param, needed, .. }) => {
                    let Some(i) = names.iter().position(|n| *n == param) else {
                        return Err(Failure::Other(format!("unknown operand {param}")));
                    };
                    if s.ptrs[i] == 0 {
                        return Err(Failure::Other(format!("{param} is a null pointer")));
                    }
                    if s.lens[i] >= needed {
                        return Err(Failure::Other(format!("{param}: lengths did not settle")));
                    }
                    s.lens[i] = needed;
                }
                Err(Error::InvalidArgument {
                    position,
                    reason,
                    param,
                    ..
                }) => return Err(Failure::Invalid(position, format!("{param}: {reason}"))),
                Err(e) => return Err(Failure::Other(e.to_string())),
                Ok(t) => return Ok(t),
            }
        }
        Err(Failure::Other("operand lengths did not settle".into()))
    });
    match run {
        Ok(r) => r,
        Err(e) => Err(Failure::Other(e.to_string())),
    }
}
