//! The crate's one error type. It depends on nothing else in the crate.

use std::fmt;

/// Everything that can go wrong in this crate.
///
/// Invalid BLAS arguments name the routine, the parameter and its position in the
/// CBLAS argument list (the `INFO` value a reference `xerbla` would print), so that
/// a caller porting from CBLAS can find the offending argument at once.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A BLAS argument is out of its allowed range.
    InvalidArgument {
        /// Routine name, e.g. `"sgemm"`.
        routine: &'static str,
        /// Parameter name as CBLAS spells it, e.g. `"lda"`.
        param: &'static str,
        /// 1-based position of the parameter in the CBLAS call.
        position: u32,
        /// What is wrong with it.
        reason: String,
    },
    /// A vector or matrix argument holds fewer elements than the BLAS arguments address.
    TooShort {
        /// Routine name.
        routine: &'static str,
        /// Parameter name, e.g. `"x"`.
        param: &'static str,
        /// Elements the arguments address.
        needed: usize,
        /// Elements the argument holds.
        len: usize,
    },
    /// A host slice and a device buffer (or two buffers) differ in length where they must agree.
    LengthMismatch {
        /// What was being copied.
        what: &'static str,
        /// Length that was required.
        expected: usize,
        /// Length that was given.
        actual: usize,
    },
    /// A buffer of `n` floats does not fit in one texture of this device.
    BufferTooLarge {
        /// Requested number of floats.
        n: usize,
        /// Texels per row in use (the width cap).
        width_cap: u32,
        /// The device's maximum texture size.
        max_texture_size: u32,
    },
    /// A buffer belongs to a different [`crate::Context`] than the one it was used with.
    ForeignBuffer {
        /// Parameter name of the buffer.
        param: &'static str,
    },
    /// No EGL library could be loaded or no usable device was found.
    NoDevice(String),
    /// Creating or making current the GL context failed.
    Context(String),
    /// A device lacks something this crate needs (an extension, a format, a size).
    Unsupported(String),
    /// A shader failed to compile; carries the driver's log.
    ShaderCompile {
        /// Kernel name (file in `glsl/`).
        kernel: &'static str,
        /// The driver's info log.
        log: String,
    },
    /// A program failed to link; carries the driver's log.
    ProgramLink {
        /// Kernel name (file in `glsl/`).
        kernel: &'static str,
        /// The driver's info log.
        log: String,
    },
    /// The driver reported a GL error after an operation.
    Gl {
        /// The operation that was running.
        operation: &'static str,
        /// The GL error code (`glGetError`).
        code: u32,
    },
    /// A framebuffer could not be completed (status code from `glCheckFramebufferStatus`).
    Framebuffer(u32),
    /// The tuning cache could not be read or written (path and reason).
    Cache(String),
    /// A call through a `SharedContext` panicked on its GL thread (the panic's message); the
    /// handle keeps working.
    Panicked(String),
    /// A `SharedContext` call was made on the handle's own GL thread (from inside a closure
    /// given to `SharedContext::with`), where waiting for it would deadlock.
    Reentrant,
    /// The GL thread of a `SharedContext` is gone (it could not start, or ended).
    Disconnected,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidArgument {
                routine,
                param,
                position,
                reason,
            } => write!(
                f,
                "{routine}: parameter {position} ({param}) is invalid: {reason}"
            ),
            Error::TooShort {
                routine,
                param,
                needed,
                len,
            } => write!(
                f,
                "{routine}: {param} holds {len} elements but the arguments address {needed}"
            ),
            Error::LengthMismatch {
                what,
                expected,
                actual,
            } => write!(
                f,
                "{what}: length {actual} given where {expected} is required"
            ),
            Error::BufferTooLarge {
                n,
                width_cap,
                max_texture_size,
            } => write!(
                f,
                "a buffer of {n} floats does not fit in one RGBA32F texture \
                 (width cap {width_cap} texels, max texture size {max_texture_size}: \
                 at most {} floats)",
                texture_capacity(*width_cap, *max_texture_size)
            ),
            Error::ForeignBuffer { param } => write!(
                f,
                "buffer {param} belongs to another context than the one it was used with"
            ),
            Error::NoDevice(msg) => write!(f, "no usable GL device: {msg}"),
            Error::Context(msg) => write!(f, "GL context: {msg}"),
            Error::Unsupported(msg) => write!(f, "unsupported by this device: {msg}"),
            Error::ShaderCompile { kernel, log } => {
                write!(f, "shader {kernel} failed to compile: {log}")
            }
            Error::ProgramLink { kernel, log } => {
                write!(f, "program {kernel} failed to link: {log}")
            }
            Error::Gl { operation, code } => {
                write!(f, "GL error 0x{code:04X} during {operation}")
            }
            Error::Framebuffer(status) => {
                write!(f, "framebuffer incomplete (status 0x{status:04X})")
            }
            Error::Cache(msg) => write!(f, "tuning cache: {msg}"),
            Error::Panicked(msg) => write!(f, "a call panicked on the GL thread: {msg}"),
            Error::Reentrant => write!(
                f,
                "a SharedContext call from its own GL thread (inside `with`) would deadlock"
            ),
            Error::Disconnected => write!(f, "the SharedContext's GL thread has ended"),
        }
    }
}

impl std::error::Error for Error {}

/// Floats one RGBA32F texture holds with rows of at most `width_cap` texels and sides of at
/// most `max_texture_size`, capped at the largest index a shader can address (`i32::MAX`):
/// the limit [`Error::BufferTooLarge`] reports. [`crate::layout::max_floats`] is this.
pub(crate) fn texture_capacity(width_cap: u32, max_texture_size: u32) -> usize {
    let cap = width_cap.min(max_texture_size) as usize;
    (cap * max_texture_size as usize * 4).min(i32::MAX as usize)
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
