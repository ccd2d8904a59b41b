//! Where a small call's time goes: each case is a loop of 1000 calls on resident data (the
//! benchmark table's latency rows), timed to its last result, with the wall time, the
//! process's and the calling thread's CPU time, and the host time inside GL by kind of work
//! (`Context::take_gl_times`), all per call. What is not inside GL is the library's own
//! host time (checks, planning, lookups) or time the driver spends on other threads. The
//! last column is the GPU's time from the loop's first draw to its last (desktop GL): where
//! it is close to the wall time, the GPU, not the host, sets the pace.
//!
//! ```text
//! cargo run --release --example latency                 # every case
//! cargo run --release --example latency -- sgemm sdot   # cases whose name contains these
//! ```
use std::time::{Duration, Instant};

use fragblas::{
    cblas, Buffer, Context, ContextOptions, Diag, GemmKernel, GlTimes, Layout::ColMajor,
    Transpose::NoTrans, Uplo,
};

/// Calls per timed loop.
const CALLS: usize = 1000;

/// CPU time of the process (all its threads, the driver's included) or of this thread.
fn cpu_time(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid pointer it is given.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// What one loop of [`CALLS`] calls cost, per call.
struct PerCall {
    wall: f64,
    process_cpu: f64,
    thread_cpu: f64,
    gl: GlTimes,
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6 / CALLS as f64
}

/// Runs `body` (which makes [`CALLS`] calls and reads the last result) after 0.3 s of the
/// same work (GPU clocks up), three times; keeps the loop with the median wall time.
fn measure(ctx: &Context, mut body: impl FnMut()) -> PerCall {
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(300) {
        body();
    }
    let mut loops: Vec<PerCall> = (0..3)
        .map(|_| {
            ctx.take_gl_times();
            let (p0, t0, w0) = (
                cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID),
                cpu_time(libc::CLOCK_THREAD_CPUTIME_ID),
                Instant::now(),
            );
            body();
            let wall = w0.elapsed();
            PerCall {
                wall: us(wall),
                process_cpu: us(cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID) - p0),
                thread_cpu: us(cpu_time(libc::CLOCK_THREAD_CPUTIME_ID) - t0),
                gl: ctx.take_gl_times().unwrap_or_default(),
            }
        })
        .collect();
    loops.sort_by(|a, b| a.wall.total_cmp(&b.wall));
    loops.swap_remove(1)
}

fn random(len: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

fn print(name: &str, r: &PerCall) {
    let g = &r.gl;
    let cell =
        |s: fragblas::GlStat| format!("{:6.1} ({:4.1})", us(s.time), s.calls as f64 / CALLS as f64);
    println!(
        "{name:<20} {:8.1} {:8.1} {:8.1} | {} {} {} {} {} {} | {:7.1} | {:7.1}",
        r.wall,
        r.process_cpu,
        r.thread_cpu,
        cell(g.error_checks),
        cell(g.draws),
        cell(g.state),
        cell(g.allocations),
        cell(g.transfers),
        cell(g.waits),
        r.wall - us(g.total()),
        us(g.gpu.time),
    );
}

fn main() -> Result<(), fragblas::Error> {
    let filters: Vec<String> = std::env::args().skip(1).collect();
    let wanted = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f));
    let ctx = Context::with_options(ContextOptions {
        profile: Some(true),
        ..Default::default()
    })?;
    ctx.warm_up()?;
    println!(
        "device: {} ({}), {CALLS} calls a loop, microseconds per call",
        ctx.info().renderer,
        ctx.info().version
    );
    println!(
        "{:<20} {:>8} {:>8} {:>8} | {:>13} {:>13} {:>13} {:>13} {:>13} {:>13} | {:>7} | {:>7}",
        "case",
        "wall",
        "proc cpu",
        "thr cpu",
        "glGetError(n)",
        "draws (n)",
        "state (n)",
        "alloc (n)",
        "transfer (n)",
        "waits (n)",
        "not GL",
        "GPU"
    );
    let case = |name: &str, body: &mut dyn FnMut()| {
        if wanted(name) {
            let r = measure(&ctx, body);
            print(name, &r);
        }
    };

    // sgemm 64^3 on 1000 separate resident operands, as the table's sgemm_x1000.
    let n = 64usize;
    let ups = |seed: u32| -> Vec<Buffer> {
        (0..CALLS)
            .map(|i| ctx.upload(&random(n * n, seed + i as u32)).expect("upload"))
            .collect()
    };
    let (pa, pb, mut pc) = (ups(1), ups(5000), ups(9000));
    let ni = n as i32;
    for (name, kernel) in [
        ("sgemm_64_x1000", GemmKernel::Auto),
        ("sgemm_64_vec4_x1000", GemmKernel::Vec4),
        ("sgemm_64_tile8_x1000", GemmKernel::Tile8),
        ("sgemm_64_mrt4_x1000", GemmKernel::Mrt4),
    ] {
        case(name, &mut || {
            for p in 0..CALLS {
                ctx.sgemm_with(
                    kernel, ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &pa[p], ni, &pb[p], ni,
                    0.5, &mut pc[p], ni,
                )
                .expect("sgemm");
            }
            pc[CALLS - 1].read_range(0, 1).expect("read");
        });
    }
    case("sgemm_64_same_x1000", &mut || {
        for _ in 0..CALLS {
            ctx.sgemm(
                ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &pa[0], ni, &pb[0], ni, 0.5,
                &mut pc[0], ni,
            )
            .expect("sgemm");
        }
        pc[0].read_range(0, 1).expect("read");
    });

    let len = 1usize << 16;
    let x = ctx.upload(&random(len, 11))?;
    let mut y = ctx.upload(&random(len, 12))?;
    case("saxpy_2^16_x1000", &mut || {
        for _ in 0..CALLS {
            ctx.saxpy(len as i32, 1e-3, &x, 1, &mut y, 1)
                .expect("saxpy");
        }
        y.read_range(0, 1).expect("read");
    });
    for fan_in in [16, 64, 256] {
        ctx.set_reduce_fan_in(fan_in)?;
        case(&format!("sdot_2^16_f{fan_in}_x1000"), &mut || {
            for _ in 0..CALLS {
                std::hint::black_box(ctx.sdot(len as i32, &x, 1, &y, 1).expect("sdot"));
            }
        });
    }
    ctx.set_reduce_fan_in(16)?;

    let m = 1024usize;
    let a = ctx.upload(&random(m * m, 13))?;
    let xv = ctx.upload(&random(m, 14))?;
    let mut yv = ctx.upload(&random(m, 15))?;
    case("sgemv_1024_x1000", &mut || {
        for _ in 0..CALLS {
            ctx.sgemv(
                ColMajor, NoTrans, m as i32, m as i32, 1.0, &a, m as i32, &xv, 1, 0.5, &mut yv, 1,
            )
            .expect("sgemv");
        }
        yv.read_range(0, 1).expect("read");
    });

    // An upper triangle with diagonal 1 and small other elements: repeated solves keep x
    // near its start. (x must not decay to zero: the solve skips the work of a zero
    // unknown, as reference BLAS does, and would time 4x faster.)
    let t = 256usize;
    let mut tri: Vec<f32> = random(t * t, 16)
        .iter()
        .map(|v| v * 1e-3 / t as f32)
        .collect();
    for i in 0..t {
        tri[i * t + i] = 1.0;
    }
    let ta = ctx.upload(&tri)?;
    let x0 = random(t, 17);
    let mut tx = ctx.upload(&x0)?;
    case("strsv_256_x1000", &mut || {
        for _ in 0..CALLS {
            ctx.strsv(
                ColMajor,
                Uplo::Upper,
                NoTrans,
                Diag::NonUnit,
                t as i32,
                &ta,
                t as i32,
                &mut tx,
                1,
            )
            .expect("strsv");
        }
        tx.read_range(0, 1).expect("read");
    });

    // The host API end to end on a tiny problem: upload, compute, read back each call.
    let s = 16usize;
    let (ha, hx) = (random(s * s, 18), random(s, 19));
    let mut hy = random(s, 20);
    case("cblas_sgemv_16_x1000", &mut || {
        for _ in 0..CALLS {
            cblas::sgemv(
                &ctx, ColMajor, NoTrans, s as i32, s as i32, 1.0, &ha, s as i32, &hx, 1, 0.5,
                &mut hy, 1,
            )
            .expect("cblas sgemv");
        }
    });

    // The smallest draws: one fragment, in place (image stores where the device has them)
    // and rendered (a strided vector always takes the rendering path).
    let mut tiny = ctx.upload(&random(8, 21))?;
    case("sscal_4_x1000", &mut || {
        for _ in 0..CALLS {
            ctx.sscal(4, 1.0001, &mut tiny, 1).expect("sscal");
        }
        tiny.read_range(0, 1).expect("read");
    });
    case("sscal_4_inc2_x1000", &mut || {
        for _ in 0..CALLS {
            ctx.sscal(4, 1.0001, &mut tiny, 2).expect("sscal");
        }
        tiny.read_range(0, 1).expect("read");
    });

    // Anchors: an empty round trip (glFinish) and a one-element read of a resident result.
    case("finish_x1000", &mut || {
        for _ in 0..CALLS {
            ctx.finish().expect("finish");
        }
    });
    case("read_1_x1000", &mut || {
        for _ in 0..CALLS {
            y.read_range(0, 1).expect("read");
        }
    });
    Ok(())
}
