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

/// A zero increment is an error for the level-2 and level-3 routines, as in reference BLAS
/// (level 1 accepts it: see [`two_vectors`]).
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
/// `1 + (n - 1) * |inc|` (1 for a zero increment: the same element `n` times), or 0 when
/// `n <= 0`. Saturates instead of overflowing, so an impossible span is simply too long for
/// any vector.
pub(crate) fn vector_span(n: i32, inc: i32) -> usize {
    if n <= 0 {
        0
    } else {
        ((n - 1) as usize)
            .saturating_mul(inc.unsigned_abs() as usize)
            .saturating_add(1)
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

/// The increment a fragment pass walks `n` elements with: any increment addresses only the
/// first element when `n == 1`, so the pass gets 1 (which keeps `i32::MIN`, whose absolute
/// value does not fit an `int`, out of the shaders).
pub(crate) fn pass_inc(n: i32, inc: i32) -> i32 {
    if n == 1 {
        1
    } else {
        inc
    }
}

/// The argument rules of sscal, sasum and isamax for a vector `x` of `len` elements: as in
/// reference BLAS, `n <= 0` or `incx <= 0` returns at once (`Ok(false)`, nothing read or
/// written, no error); otherwise `x` must hold what `n` and the increment address.
pub(crate) fn one_vector(routine: &'static str, n: i32, len: usize, incx: i32) -> Result<bool> {
    if n <= 0 || incx <= 0 {
        return Ok(false);
    }
    check_span(routine, "x", len, n, incx)?;
    Ok(true)
}

/// The argument rules of the two-vector routines (scopy, sswap, saxpy, sdot, sdsdot, dsdot,
/// srot, srotm) for vectors of `x_len` and `y_len` elements. Any increment is legal, as in
/// reference BLAS: a negative one walks from the end, a zero one visits the same element `n`
/// times. `Ok(false)` for a quick return: `n <= 0`, or `skip` (saxpy's `alpha == 0`,
/// srotm's flag -2), decided before the lengths are checked, as before any data would be
/// read. Otherwise both must hold what `n` and their increments address.
pub(crate) fn two_vectors(
    routine: &'static str,
    n: i32,
    skip: bool,
    (x_len, incx): (usize, i32),
    (y_len, incy): (usize, i32),
) -> Result<bool> {
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

/// Error unless `v >= 0`.
pub(crate) fn non_negative(r: &'static str, param: &'static str, pos: u32, v: i32) -> Result<()> {
    if v < 0 {
        Err(invalid(r, param, pos, format!("{v} is negative")))
    } else {
        Ok(())
    }
}

/// Error unless `ld >= max(1, min)`.
pub(crate) fn ld_at_least(
    r: &'static str,
    param: &'static str,
    pos: u32,
    ld: i32,
    min: i64,
) -> Result<()> {
    if (ld as i64) < min.max(1) {
        Err(invalid(
            r,
            param,
            pos,
            format!("{ld} is less than max(1, {min})"),
        ))
    } else {
        Ok(())
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
        assert_eq!(vector_span(5, 0), 1);
        assert_eq!(vector_span(1, i32::MIN), 1);
        assert_eq!(vector_span(2, i32::MIN), 1 + (1usize << 31));
        assert_eq!(
            vector_span(i32::MAX, i32::MAX),
            (i32::MAX as usize - 1) * i32::MAX as usize + 1
        );
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
    fn level1_quick_returns_come_before_length_checks() {
        // sscal/sasum/isamax: n <= 0 or incx <= 0 return at once, whatever the length.
        assert_eq!(one_vector("sasum", 5, 0, 0), Ok(false));
        assert_eq!(one_vector("sasum", 5, 0, -1), Ok(false));
        assert_eq!(one_vector("sasum", 0, 0, 1), Ok(false));
        assert_eq!(one_vector("sasum", 2, 2, 1), Ok(true));
        assert!(one_vector("sasum", 3, 2, 1).is_err());
        // Two vectors: zero increments are legal and span one element.
        assert_eq!(two_vectors("saxpy", 7, false, (1, 0), (7, 1)), Ok(true));
        assert_eq!(two_vectors("saxpy", 7, true, (0, 1), (0, 1)), Ok(false));
        assert_eq!(two_vectors("saxpy", -7, false, (0, 1), (0, 1)), Ok(false));
        assert_eq!(
            two_vectors("saxpy", 7, false, (7, 1), (1, 2)),
            Err(Error::TooShort {
                routine: "saxpy",
                param: "y",
                needed: 13,
                len: 1
            })
        );
        // Increments of i32::MIN: one element is fine, two cannot exist.
        assert_eq!(
            two_vectors("scopy", 1, false, (1, i32::MIN), (1, i32::MIN)),
            Ok(true)
        );
        assert!(two_vectors("scopy", 2, false, (1 << 31, i32::MIN), (2, 1)).is_err());
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
