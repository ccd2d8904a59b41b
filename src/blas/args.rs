//! Pure argument checks shared by the routines: no GL, unit-tested below.

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
