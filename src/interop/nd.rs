//! `ndarray` interop (feature `ndarray`): matrix products and matrix-vector products on
//! arrays and views of any layout and stride, and conversions between [`Buffer`] and
//! `Array1` / `Array2`.
//!
//! The products take `&ArrayBase` (an `Array2`, an `ArrayView2`, a transposed view `a.t()`,
//! a slice `a.slice(s![..;2, 1..])`) and write into any mutable array or view. A matrix
//! whose elements are contiguous in memory, in row-major (C) or column-major (Fortran)
//! order, goes to the GPU as it is, its order mapped to a transpose and a leading
//! dimension; any other view (a slice with steps or gaps, a negative or zero stride) is first
//! copied into a row-major array (reading the gaps of a view would read memory it does not
//! borrow). A vector goes as it is with stride 1 or -1 (a negative increment), else copied.
//! Results match [`crate::cblas`] with the same operands: BLAS semantics, `beta == 0` does
//! not read the output, `alpha == 0` does not read the operands.
//!
//! ```
//! use fragblas::{nd, Context};
//! use ndarray::{array, s, Array2};
//! let ctx = Context::new()?;
//! let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];          // 2 x 3
//! let b = Array2::from_shape_fn((3, 4), |(i, j)| (i + j) as f32); // 3 x 4
//! let mut c = Array2::<f32>::zeros((2, 4));
//! nd::sgemm(&ctx, 1.0, &a, &b, 0.0, &mut c)?;
//! assert_eq!(c, a.dot(&b));
//!
//! // Transposed and stepped views, written into a column of a larger array.
//! let mut y = Array2::<f32>::zeros((3, 2));
//! nd::sgemv(&ctx, 1.0, &a.t(), &b.slice(s![1, ..;2]), 0.0, &mut y.column_mut(1))?;
//! assert_eq!(y.column(1), a.t().dot(&b.slice(s![1, ..;2])));
//! # Ok::<(), fragblas::Error>(())
//! ```

use std::borrow::Cow;

use ndarray::{Array1, Array2, ArrayBase, Data, DataMut, Dimension, Ix1, Ix2};

use crate::blas::types::{Layout, Transpose};
use crate::cblas;
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::{Error, Result};

/// A matrix as the row-major host API sees it: memory, whether that memory holds the
/// matrix or its transpose, and the leading dimension.
struct Operand<'a> {
    data: Cow<'a, [f32]>,
    trans: Transpose,
    ld: usize,
}

/// `a` without a copy when its elements are contiguous in row- or column-major order, else
/// a row-major copy.
fn operand<S: Data<Elem = f32>>(a: &ArrayBase<S, Ix2>) -> Operand<'_> {
    let (rows, cols) = a.dim();
    if let Some(s) = a.as_slice() {
        return Operand {
            data: Cow::Borrowed(s),
            trans: Transpose::NoTrans,
            ld: cols.max(1),
        };
    }
    if let Some(s) = a
        .as_slice_memory_order()
        .filter(|_| a.t().is_standard_layout())
    {
        return Operand {
            data: Cow::Borrowed(s),
            trans: Transpose::Trans,
            ld: rows.max(1),
        };
    }
    let owned: Vec<f32> = a.iter().copied().collect();
    Operand {
        data: Cow::Owned(owned),
        trans: Transpose::NoTrans,
        ld: cols.max(1),
    }
}

/// A vector as the host API sees it: memory and increment (1 or -1 without a copy).
fn vector<S: Data<Elem = f32>>(x: &ArrayBase<S, Ix1>) -> (Cow<'_, [f32]>, i32) {
    match (x.as_slice_memory_order(), x.strides()) {
        (Some(s), [st]) if *st < 0 && x.len() > 1 => (Cow::Borrowed(s), -1),
        (Some(s), _) => (Cow::Borrowed(s), 1),
        (None, _) => (Cow::Owned(x.iter().copied().collect()), 1),
    }
}

/// A dimension as the host API's `i32`.
fn dim(routine: &'static str, param: &'static str, position: u32, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| Error::InvalidArgument {
        routine,
        param,
        position,
        reason: format!("a dimension of {v} is more than a BLAS integer holds"),
    })
}

/// A shape mismatch between two arguments, reported against the second.
fn mismatch(routine: &'static str, param: &'static str, position: u32, why: String) -> Error {
    Error::InvalidArgument {
        routine,
        param,
        position,
        reason: why,
    }
}

/// `C := alpha*A*B + beta*C` for `A` (m x k), `B` (k x n), `C` (m x n), each an array or
/// view of any layout (see the [module](self) for when an operand is copied). Argument
/// positions in errors count from `alpha` = 1 (`a` = 2, `b` = 3, `c` = 5).
///
/// ```
/// use fragblas::{nd, Context};
/// use ndarray::{array, Array2, ShapeBuilder};
/// let ctx = Context::new()?;
/// let a = array![[1.0f32, 2.0], [3.0, 4.0]];
/// let mut c = Array2::<f32>::from_elem((2, 2).f(), 1.0); // column-major C
/// nd::sgemm(&ctx, 2.0, &a, &a.t(), 1.0, &mut c)?;
/// assert_eq!(c, array![[11.0, 23.0], [23.0, 51.0]]);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn sgemm<SA, SB, SC>(
    ctx: &Context,
    alpha: f32,
    a: &ArrayBase<SA, Ix2>,
    b: &ArrayBase<SB, Ix2>,
    beta: f32,
    c: &mut ArrayBase<SC, Ix2>,
) -> Result<()>
where
    SA: Data<Elem = f32>,
    SB: Data<Elem = f32>,
    SC: DataMut<Elem = f32>,
{
    const R: &str = "nd::sgemm";
    let ((m, k), (kb, n)) = (a.dim(), b.dim());
    if kb != k {
        let why = format!("a is {m} x {k} but b is {kb} x {n}: b must have {k} rows");
        return Err(mismatch(R, "b", 3, why));
    }
    if c.dim() != (m, n) {
        let why = format!("c is {:?} but a*b is {m} x {n}", c.dim());
        return Err(mismatch(R, "c", 5, why));
    }
    let (mi, ni, ki) = (dim(R, "a", 2, m)?, dim(R, "b", 3, n)?, dim(R, "a", 2, k)?);
    let (oa, ob) = (operand(a), operand(b));
    // C's memory in row-major order holds C itself (C-contiguous) or C^T (Fortran order);
    // C^T = B^T A^T swaps and transposes the operands.
    let run = |c_mem: &mut [f32], c_is_transposed: bool| -> Result<()> {
        let (first, second, rows, cols) = if c_is_transposed {
            let flip = |o: &Operand| (o.trans.flip(), o.ld);
            (flip(&ob), flip(&oa), ni, mi)
        } else {
            ((oa.trans, oa.ld), (ob.trans, ob.ld), mi, ni)
        };
        let (d1, d2): (&[f32], &[f32]) = if c_is_transposed {
            (&ob.data, &oa.data)
        } else {
            (&oa.data, &ob.data)
        };
        let ldc = (cols as usize).max(1) as i32;
        cblas::sgemm(
            ctx,
            Layout::RowMajor,
            first.0,
            second.0,
            rows,
            cols,
            ki,
            alpha,
            d1,
            first.1 as i32,
            d2,
            second.1 as i32,
            beta,
            c_mem,
            ldc,
        )
    };
    if let Some(mem) = c.as_slice_mut() {
        return run(mem, false);
    }
    if c.t().is_standard_layout() {
        if let Some(mem) = c.as_slice_memory_order_mut() {
            return run(mem, true);
        }
    }
    let mut tmp: Vec<f32> = c.iter().copied().collect();
    run(&mut tmp, false)?;
    c.iter_mut().zip(tmp).for_each(|(d, v)| *d = v);
    Ok(())
}

/// `y := alpha*A*x + beta*y` for `A` (m x n), `x` (n), `y` (m), each an array or view of
/// any layout or stride (see the [module](self)); pass `a.t()` for `A^T x`. Argument
/// positions in errors count from `alpha` = 1 (`a` = 2, `x` = 3, `y` = 5).
///
/// ```
/// use fragblas::{nd, Context};
/// use ndarray::array;
/// let ctx = Context::new()?;
/// let a = array![[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]];
/// let mut y = array![1.0f32, 1.0];
/// nd::sgemv(&ctx, 1.0, &a.t(), &array![1.0, 0.0, -1.0], 2.0, &mut y)?;
/// assert_eq!(y, array![-2.0, -2.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn sgemv<SA, SX, SY>(
    ctx: &Context,
    alpha: f32,
    a: &ArrayBase<SA, Ix2>,
    x: &ArrayBase<SX, Ix1>,
    beta: f32,
    y: &mut ArrayBase<SY, Ix1>,
) -> Result<()>
where
    SA: Data<Elem = f32>,
    SX: Data<Elem = f32>,
    SY: DataMut<Elem = f32>,
{
    const R: &str = "nd::sgemv";
    let (m, n) = a.dim();
    if x.len() != n {
        let why = format!("a is {m} x {n} but x has {} elements", x.len());
        return Err(mismatch(R, "x", 3, why));
    }
    if y.len() != m {
        let why = format!("a is {m} x {n} but y has {} elements", y.len());
        return Err(mismatch(R, "y", 5, why));
    }
    let (mi, ni) = (dim(R, "a", 2, m)?, dim(R, "a", 2, n)?);
    let oa = operand(a);
    let (xs, incx) = vector(x);
    // The host API's row-major A is (m x n) as is, or the stored (n x m) transposed.
    let (rows, cols) = if oa.trans.is_trans() {
        (ni, mi)
    } else {
        (mi, ni)
    };
    let run = |ys: &mut [f32], incy: i32| {
        cblas::sgemv(
            ctx,
            Layout::RowMajor,
            oa.trans,
            rows,
            cols,
            alpha,
            &oa.data,
            oa.ld as i32,
            &xs,
            incx,
            beta,
            ys,
            incy,
        )
    };
    let negative = matches!(y.strides(), [s] if *s < 0) && y.len() > 1;
    if let Some(ys) = y.as_slice_memory_order_mut() {
        return run(ys, if negative { -1 } else { 1 });
    }
    let mut tmp: Vec<f32> = y.iter().copied().collect();
    run(&mut tmp, 1)?;
    y.iter_mut().zip(tmp).for_each(|(d, v)| *d = v);
    Ok(())
}

impl Context {
    /// Uploads an array of any dimension, its elements in logical (row-major) order; a
    /// standard-layout array is uploaded without an intermediate copy.
    ///
    /// ```
    /// use ndarray::array;
    /// let ctx = fragblas::Context::new()?;
    /// let a = array![[1.0f32, 2.0], [3.0, 4.0]];
    /// let buf = ctx.upload_array(&a.t())?;            // the transpose, row by row
    /// assert_eq!(buf.to_vec()?, vec![1.0, 3.0, 2.0, 4.0]);
    /// assert_eq!(buf.to_array2((2, 2))?, a.t());
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn upload_array<S: Data<Elem = f32>, D: Dimension>(
        &self,
        a: &ArrayBase<S, D>,
    ) -> Result<Buffer> {
        match a.as_slice() {
            Some(s) => self.upload(s),
            None => self.upload(&a.iter().copied().collect::<Vec<f32>>()),
        }
    }
}

impl Buffer {
    /// The whole buffer as an `Array1`.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0])?;
    /// assert_eq!(x.to_array1()?, ndarray::array![1.0, 2.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn to_array1(&self) -> Result<Array1<f32>> {
        Ok(Array1::from(self.to_vec()?))
    }

    /// The buffer as a `rows x cols` row-major `Array2`; `rows * cols` must be the buffer's
    /// length (a column-major matrix reads back as its transpose: `to_array2((n, m))?.t()`).
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// assert_eq!(x.to_array2((2, 3))?, ndarray::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    /// assert!(x.to_array2((4, 2)).is_err());
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn to_array2(&self, (rows, cols): (usize, usize)) -> Result<Array2<f32>> {
        if rows.checked_mul(cols) != Some(self.len()) {
            return Err(Error::LengthMismatch {
                what: "Buffer::to_array2 (rows * cols must be the buffer's length)",
                expected: self.len(),
                actual: rows.saturating_mul(cols),
            });
        }
        Array2::from_shape_vec((rows, cols), self.to_vec()?)
            .map_err(|e| Error::Unsupported(format!("Buffer::to_array2: {e}")))
    }
}
