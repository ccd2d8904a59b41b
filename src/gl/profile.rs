//! Host time spent inside GL calls, by kind of work, and the GPU's time between draws: what
//! a call's fixed cost is made of. Off unless a context is created with profiling on; then
//! every wrapped GL entry point adds its count and its host time (two clock reads) to the
//! context's [`GlTimes`], and every draw is followed by a GPU timestamp query where desktop
//! GL has them (ARB_timer_query, core since 3.3), read when the times are taken. (One a
//! draw, not one a pass's run of draws: on the H200 a timestamp after sgemm 2048's 64 strip
//! draws came back before most of them had run, so their time was counted to the next pass;
//! one a draw cost no measurable time there. BENCHMARKS.md, session 38.)

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use glow::HasContext;

use super::Gl;

/// The kinds of GL work [`GlTimes`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GlWork {
    ErrorChecks,
    Draws,
    State,
    Allocations,
    Transfers,
    Waits,
}

/// How many GL calls of one kind ran and the host time they took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GlStat {
    /// Number of wrapped calls.
    pub calls: u64,
    /// Host (wall) time spent inside them.
    pub time: Duration,
}

/// Host time a context spent inside GL, by kind of work, since it was created or last
/// reset (see [`crate::Context::take_gl_times`]). Time a GL call blocks (the driver waiting
/// for the GPU, or for its own worker thread) counts as part of the call that blocked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GlTimes {
    /// `glGetError`: each is a round trip where the driver runs GL on a thread of its own.
    pub error_checks: GlStat,
    /// Draw submissions: framebuffer binds, viewports and the draw calls themselves.
    pub draws: GlStat,
    /// Programs, uniforms, texture and buffer bindings set before a draw.
    pub state: GlStat,
    /// Textures, framebuffers and buffers created.
    pub allocations: GlStat,
    /// Host uploads and downloads, device copies (a download waits for the GPU).
    pub transfers: GlStat,
    /// `glFinish` and fence waits.
    pub waits: GlStat,
    /// The GPU's side (desktop GL only; zero elsewhere): `calls` is the number of draws
    /// timestamped, `time` the GPU time from the first draw's end to the last one's, so
    /// `time / (calls - 1)` is the GPU time per draw when the GPU, not the host, sets the
    /// pace. Not part of [`GlTimes::total`].
    pub gpu: GlStat,
}

impl GlTimes {
    /// Host time inside GL, all kinds together.
    pub fn total(&self) -> Duration {
        self.kinds().iter().map(|(_, s)| s.time).sum()
    }

    /// Each kind with a short name, in a fixed order.
    pub fn kinds(&self) -> [(&'static str, GlStat); 6] {
        [
            ("error checks", self.error_checks),
            ("draws", self.draws),
            ("state", self.state),
            ("allocations", self.allocations),
            ("transfers", self.transfers),
            ("waits", self.waits),
        ]
    }

    fn stat(&mut self, w: GlWork) -> &mut GlStat {
        match w {
            GlWork::ErrorChecks => &mut self.error_checks,
            GlWork::Draws => &mut self.draws,
            GlWork::State => &mut self.state,
            GlWork::Allocations => &mut self.allocations,
            GlWork::Transfers => &mut self.transfers,
            GlWork::Waits => &mut self.waits,
        }
    }
}

/// The GPU time of one kernel's draws (see [`crate::Context::take_gl_profile`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelTime {
    /// The kernel's file under `glsl/` and its defines, e.g.
    /// `level2/trsv.frag PASS=3 NB=64 VEC4=1`.
    pub kernel: String,
    /// Draws timed.
    pub draws: u64,
    /// GPU time, each draw's from the end of the draw before it to its own end.
    pub time: Duration,
}

/// The counters of one context: `None` when profiling is off (one branch per wrapped call).
#[derive(Default)]
pub(crate) struct Profile(Option<RefCell<GlTimes>>, RefCell<Timestamps>);

/// GPU timestamp queries issued after draws and not read yet (with the kernel each draw
/// ran), spare ones to reuse, and the program in use.
#[derive(Default)]
struct Timestamps {
    pending: Vec<(glow::Query, Rc<str>)>,
    spare: Vec<glow::Query>,
    program: Option<Rc<str>>,
}

impl Profile {
    pub(crate) fn new(on: bool) -> Self {
        Profile(on.then(RefCell::default), RefCell::default())
    }

    fn on(&self) -> bool {
        self.0.is_some()
    }

    /// When profiling: the program later draws run (its label).
    pub(crate) fn set_program(&self, label: &Rc<str>) {
        if self.on() {
            self.1.borrow_mut().program = Some(label.clone());
        }
    }

    /// Runs `f`, adding its time to `w`'s counter when profiling is on.
    #[inline]
    pub(crate) fn time<T>(&self, w: GlWork, f: impl FnOnce() -> T) -> T {
        match &self.0 {
            None => f(),
            Some(times) => {
                let t = Instant::now();
                let r = f();
                let mut times = times.borrow_mut();
                let s = times.stat(w);
                s.calls += 1;
                s.time += t.elapsed();
                r
            }
        }
    }

    /// The counters so far, reset to zero; `None` when profiling is off.
    fn take(&self) -> Option<GlTimes> {
        self.0
            .as_ref()
            .map(|t| std::mem::take(&mut *t.borrow_mut()))
    }
}

impl Gl {
    /// Whether this context can timestamp draws on the GPU (desktop GL 3.3+).
    fn has_timestamps(&self) -> bool {
        !self.gl.version().is_embedded
    }

    /// After a draw, when profiling: a GPU timestamp of the moment it completes.
    pub(crate) fn stamp_draw(&self) {
        if !self.profile.on() || !self.has_timestamps() {
            return;
        }
        let mut ts = self.profile.1.borrow_mut();
        // SAFETY: queries are created by and used on this context (current); a timestamp
        // query is written by the GPU when the commands before it complete, and read back
        // only in `take_times`.
        let q = match ts.spare.pop() {
            Some(q) => q,
            None => match unsafe { self.gl.create_query() } {
                Ok(q) => q,
                Err(_) => return,
            },
        };
        // SAFETY: as above; TIMESTAMP is the only target glQueryCounter takes.
        unsafe { self.gl.query_counter(q, glow::TIMESTAMP) };
        let program = ts
            .program
            .clone()
            .unwrap_or_else(|| Rc::from("(no program)"));
        ts.pending.push((q, program));
    }

    /// The host time spent in GL calls by kind since the last call, then reset, with the
    /// GPU time between the timestamped draws (waiting for their queries) in all and by
    /// kernel (largest first); `None` when the context was made without profiling.
    pub(crate) fn take_times(&self) -> Option<(GlTimes, Vec<KernelTime>)> {
        let mut times = self.profile.take()?;
        let mut ts = self.profile.1.borrow_mut();
        let pending = std::mem::take(&mut ts.pending);
        // SAFETY: every pending query was issued by `stamp_draw` on this context; asking for
        // QUERY_RESULT waits until the GPU has written it; no query buffer is ever bound by
        // this crate, so the "offset" is the address of `v`, which holds the one u64 written.
        let stamps: Vec<u64> = pending
            .iter()
            .map(|&(q, _)| unsafe {
                let mut v = [0u64];
                self.gl.get_query_parameter_u64_with_offset(
                    q,
                    glow::QUERY_RESULT,
                    v.as_mut_ptr() as usize,
                );
                v[0]
            })
            .collect();
        let mut kernels: Vec<KernelTime> = Vec::new();
        for (i, (_, label)) in pending.iter().enumerate().skip(1) {
            let t = Duration::from_nanos(stamps[i].saturating_sub(stamps[i - 1]));
            match kernels.iter_mut().find(|k| *k.kernel == **label) {
                Some(k) => {
                    k.draws += 1;
                    k.time += t;
                }
                None => kernels.push(KernelTime {
                    kernel: label.to_string(),
                    draws: 1,
                    time: t,
                }),
            }
        }
        kernels.sort_by_key(|k| std::cmp::Reverse(k.time));
        ts.spare.extend(pending.into_iter().map(|(q, _)| q));
        if let (Some(first), Some(last)) = (stamps.first(), stamps.last()) {
            times.gpu = GlStat {
                calls: stamps.len() as u64,
                time: Duration::from_nanos(last.saturating_sub(*first)),
            };
        }
        Some((times, kernels))
    }

    /// Deletes the timestamp queries; at teardown.
    pub(crate) fn release_queries(&self) {
        let ts = &mut *self.profile.1.borrow_mut();
        let pending = ts.pending.drain(..).map(|(q, _)| q);
        for q in pending.chain(ts.spare.drain(..)) {
            // SAFETY: created by this context, deleted once.
            unsafe { self.gl.delete_query(q) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_when_on_and_take_resets() {
        let off = Profile::new(false);
        assert_eq!(off.time(GlWork::Draws, || 3), 3);
        assert_eq!(off.take(), None);
        let on = Profile::new(true);
        on.time(GlWork::Draws, || ());
        on.time(GlWork::Draws, || ());
        on.time(GlWork::Waits, || ());
        let t = on.take().expect("on");
        assert_eq!((t.draws.calls, t.waits.calls, t.state.calls), (2, 1, 0));
        assert_eq!(on.take().expect("on").draws.calls, 0);
    }
}
