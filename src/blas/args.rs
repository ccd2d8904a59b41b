//! Pure argument rules shared by the routines: errors naming the parameter and its CBLAS
//! position, increments, and the storage a vector or matrix argument spans. No GL; uses
//! nothing of the crate but [`crate::error`]; unit-tested below.

use crate::error::{Error, Result};

/// Error for parameter `param` at CBLAS position `position` of `routine`.
pub(crate) fn invalid(
    routine: &'static str,
    param: &'static str,
    position: u32,
    reason: impl Into<String>,
) -> Error {
    Error::InvalidArgument {
        routine,
        param,
        position,
        reason: reason.into(),
    }
}

/// A zero increment is an error (reference BLAS level 2 rejects it; this crate rejects it
/// for level 1 as well rather than silently broadcasting one element).
pub(crate) fn check_inc(
    routine: &'static str,
    param: &'static str,
    position: u32,
    inc: i32,
) -> Result<()> {
    if inc == 0 {
        Err(invalid(routine, param, position, "must not be zero"))
    } else {
        Ok(())
    }
}

/// Elements a vector argument of `n` logical elements with increment `inc` spans in storage:
/// `1 + (n - 1) * |inc|`, or 0 when `n <= 0`.
pub(crate) fn vector_span(n: i32, inc: i32) -> usize {
    if n <= 0 {
        0
    } else {
        1 + (n as usize - 1) * inc.unsigned_abs() as usize
    }
}

/// Checks that a vector argument of length `len` holds the `n` elements the increment walks.
pub(crate) fn check_span(
    routine: &'static str,
    param: &'static str,
    len: usize,
    n: i32,
    inc: i32,
) -> Result<()> {
    let needed = vector_span(n, inc);
    if needed > len {
        Err(Error::TooShort {
            routine,
            param,
            needed,
            len,
        })
    } else {
        Ok(())
    }
}

/// What precedes the vectors in a routine's CBLAS argument list, which fixes where its
/// increments sit: `(n, x, incx, y, incy)` or `(n, alpha, x, incx, y, incy)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lead {
    /// `n` alone: sdot, scopy, sswap, sasum, snrm2, isamax.
    N,
    /// `n` and a scalar: saxpy, sscal.
    NAlpha,
}

impl Lead {
    /// CBLAS position of `incx` (1-based); `incy` comes two later.
    fn incx_pos(self) -> u32 {
        match self {
            Lead::N => 3,
            Lead::NAlpha => 4,
        }
    }
}

/// The argument rules of the single-vector routines (sscal, sasum, snrm2, isamax) for a
/// vector `x` of `len` elements: its increment is not zero, and it holds what `n` and the
/// increment address. `Ok(false)` for the reference quick return: `n <= 0` or a negative
/// increment.
pub(crate) fn one_vector(
    routine: &'static str,
    lead: Lead,
    n: i32,
    len: usize,
    incx: i32,
) -> Result<bool> {
    check_inc(routine, "incx", lead.incx_pos(), incx)?;
    if n <= 0 || incx < 0 {
        return Ok(false);
    }
    check_span(routine, "x", len, n, incx)?;
    Ok(true)
}

/// The argument rules of the two-vector routines (scopy, sswap, saxpy, sdot) for vectors of
/// `x_len` and `y_len` elements: neither increment is zero, and both hold what `n` and their
/// increments address. `Ok(false)` for a quick return: `n <= 0`, or `skip` (saxpy's
/// `alpha == 0`), which is decided before the lengths are checked, as before any data would
/// be read.
pub(crate) fn two_vectors(
    routine: &'static str,
    lead: Lead,
    n: i32,
    skip: bool,
    (x_len, incx): (usize, i32),
    (y_len, incy): (usize, i32),
) -> Result<bool> {
    check_inc(routine, "incx", lead.incx_pos(), incx)?;
    check_inc(routine, "incy", lead.incx_pos() + 2, incy)?;
    if n <= 0 || skip {
        return Ok(false);
    }
    check_span(routine, "x", x_len, n, incx)?;
    check_span(routine, "y", y_len, n, incy)?;
    Ok(true)
}

/// Elements a column-major `rows` x `cols` matrix with leading dimension `ld` spans:
/// `ld * (cols - 1) + rows`, or 0 when either dimension is 0.
pub(crate) fn matrix_span(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        ld * (cols - 1) + rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans() {
        assert_eq!(vector_span(0, 1), 0);
        assert_eq!(vector_span(-3, 1), 0);
        assert_eq!(vector_span(1, 7), 1);
        assert_eq!(vector_span(4, 1), 4);
        assert_eq!(vector_span(4, -3), 10);
        assert_eq!(vector_span(4, 3), 10);
        assert_eq!(matrix_span(3, 4, 5), 18);
        assert_eq!(matrix_span(0, 4, 5), 0);
        assert_eq!(matrix_span(3, 0, 5), 0);
    }

    #[test]
    fn zero_increment_names_the_parameter() {
        let e = check_inc("saxpy", "incy", 6, 0).unwrap_err();
        assert_eq!(
            e,
            Error::InvalidArgument {
                routine: "saxpy",
                param: "incy",
                position: 6,
                reason: "must not be zero".into()
            }
        );
        assert!(e.to_string().contains("parameter 6 (incy)"));
        assert!(check_inc("saxpy", "incy", 6, -2).is_ok());
    }

    #[test]
    fn short_vectors_are_reported() {
        assert!(check_span("sdot", "x", 10, 4, 3).is_ok());
        let e = check_span("sdot", "x", 9, 4, -3).unwrap_err();
        assert_eq!(
            e,
            Error::TooShort {
                routine: "sdot",
                param: "x",
                needed: 10,
                len: 9
            }
        );
        assert!(check_span("sdot", "x", 0, 0, 3).is_ok());
    }
}
