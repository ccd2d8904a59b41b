/*
 * fragblas.h: the C interface of libfragblas.so.
 *
 * The CBLAS part matches netlib's cblas.h (the same enumerations and values, the same
 * prototypes for every single-precision routine), so a program written against cblas.h
 * compiles against this header unchanged; the Fortran part declares the single-precision
 * Fortran BLAS symbols (all arguments by reference; character arguments are followed by
 * their hidden lengths at the end, which may be omitted from C).
 *
 * libfragblas.so also exports every other netlib BLAS symbol (double, complex, lsame_, ...)
 * and forwards it to the CPU BLAS: declare those from your system's cblas.h if you need them.
 * Environment: FRAGBLAS_ROUTE=auto|gpu|cpu, FRAGBLAS_CPU_BLAS=path, FRAGBLAS_VERBOSE=1, and
 * the crate's FRAGBLAS_API=gl|gles and FRAGBLAS_DEVICE=n (see README.md).
 */
#ifndef FRAGBLAS_H
#define FRAGBLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CBLAS_INDEX
#define CBLAS_INDEX size_t
#endif

#ifndef CBLAS_H
typedef enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 } CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 } CBLAS_UPLO;
typedef enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 } CBLAS_DIAG;
typedef enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 } CBLAS_SIDE;
typedef CBLAS_LAYOUT CBLAS_ORDER;
#endif

/* ---- CBLAS, level 1 ---- */
float cblas_sdsdot(const int N, const float alpha, const float *X, const int incX, const float *Y, const int incY);
double cblas_dsdot(const int N, const float *X, const int incX, const float *Y, const int incY);
float cblas_sdot(const int N, const float *X, const int incX, const float *Y, const int incY);
float cblas_snrm2(const int N, const float *X, const int incX);
float cblas_sasum(const int N, const float *X, const int incX);
CBLAS_INDEX cblas_isamax(const int N, const float *X, const int incX); /* 0-based */
void cblas_sswap(const int N, float *X, const int incX, float *Y, const int incY);
void cblas_scopy(const int N, const float *X, const int incX, float *Y, const int incY);
void cblas_saxpy(const int N, const float alpha, const float *X, const int incX, float *Y, const int incY);
void cblas_srotg(float *a, float *b, float *c, float *s);
void cblas_srotmg(float *d1, float *d2, float *b1, const float b2, float *P);
void cblas_srot(const int N, float *X, const int incX, float *Y, const int incY, const float c, const float s);
void cblas_srotm(const int N, float *X, const int incX, float *Y, const int incY, const float *P);
void cblas_sscal(const int N, const float alpha, float *X, const int incX);

/* ---- CBLAS, level 2 ---- */
void cblas_sgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, const int M, const int N, const float alpha,
                 const float *A, const int lda, const float *X, const int incX, const float beta, float *Y, const int incY);
void cblas_sgbmv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, const int M, const int N, const int KL, const int KU,
                 const float alpha, const float *A, const int lda, const float *X, const int incX, const float beta,
                 float *Y, const int incY);
void cblas_strmv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag, const int N,
                 const float *A, const int lda, float *X, const int incX);
void cblas_stbmv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag, const int N,
                 const int K, const float *A, const int lda, float *X, const int incX);
void cblas_stpmv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag, const int N,
                 const float *Ap, float *X, const int incX);
void cblas_strsv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag, const int N,
                 const float *A, const int lda, float *X, const int incX);
void cblas_stbsv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag, const int N,
                 const int K, const float *A, const int lda, float *X, const int incX);
void cblas_stpsv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag, const int N,
                 const float *Ap, float *X, const int incX);
void cblas_ssymv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, const int N, const float alpha, const float *A, const int lda,
                 const float *X, const int incX, const float beta, float *Y, const int incY);
void cblas_ssbmv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, const int N, const int K, const float alpha, const float *A,
                 const int lda, const float *X, const int incX, const float beta, float *Y, const int incY);
void cblas_sspmv(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, const int N, const float alpha, const float *Ap,
                 const float *X, const int incX, const float beta, float *Y, const int incY);
void cblas_sger(CBLAS_LAYOUT layout, const int M, const int N, const float alpha, const float *X, const int incX,
                const float *Y, const int incY, float *A, const int lda);
void cblas_ssyr(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, const int N, const float alpha, const float *X, const int incX,
                float *A, const int lda);
void cblas_sspr(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, const int N, const float alpha, const float *X, const int incX,
                float *Ap);
void cblas_ssyr2(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, const int N, const float alpha, const float *X, const int incX,
                 const float *Y, const int incY, float *A, const int lda);
void cblas_sspr2(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, const int N, const float alpha, const float *X, const int incX,
                 const float *Y, const int incY, float *A);

/* ---- CBLAS, level 3 ---- */
void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const int M, const int N,
                 const int K, const float alpha, const float *A, const int lda, const float *B, const int ldb,
                 const float beta, float *C, const int ldc);
void cblas_ssymm(CBLAS_LAYOUT layout, CBLAS_SIDE Side, CBLAS_UPLO Uplo, const int M, const int N, const float alpha,
                 const float *A, const int lda, const float *B, const int ldb, const float beta, float *C, const int ldc);
void cblas_ssyrk(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE Trans, const int N, const int K,
                 const float alpha, const float *A, const int lda, const float beta, float *C, const int ldc);
void cblas_ssyr2k(CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE Trans, const int N, const int K,
                  const float alpha, const float *A, const int lda, const float *B, const int ldb, const float beta,
                  float *C, const int ldc);
void cblas_strmm(CBLAS_LAYOUT layout, CBLAS_SIDE Side, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag,
                 const int M, const int N, const float alpha, const float *A, const int lda, float *B, const int ldb);
void cblas_strsm(CBLAS_LAYOUT layout, CBLAS_SIDE Side, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag,
                 const int M, const int N, const float alpha, const float *A, const int lda, float *B, const int ldb);

/* Called with the CBLAS position of an invalid argument; define your own to replace the
 * default (which prints reference CBLAS's message and exits). As in reference CBLAS, a
 * row-major call reports the position in the column-major call it stands for (M and N,
 * KL and KU, lda and ldb, incx and incy exchanged where the routine has both) with
 * RowMajorStrg set to 1 during the call of the handler; a size, leading dimension or
 * increment is reported under the Fortran name ("cblas_sgemm ", blank-padded to six
 * characters) with an empty form, an enumeration under the C name with a message. */
void cblas_xerbla(int p, const char *rout, const char *form, ...);
extern int RowMajorStrg;
extern int CBLAS_CallFromC;

/* ---- Fortran BLAS (column-major; isamax_ is 1-based) ---- */
void saxpy_(const int *n, const float *alpha, const float *x, const int *incx, float *y, const int *incy);
void scopy_(const int *n, const float *x, const int *incx, float *y, const int *incy);
void sswap_(const int *n, float *x, const int *incx, float *y, const int *incy);
void srot_(const int *n, float *x, const int *incx, float *y, const int *incy, const float *c, const float *s);
void srotm_(const int *n, float *x, const int *incx, float *y, const int *incy, const float *param);
void srotg_(float *a, float *b, float *c, float *s);
void srotmg_(float *d1, float *d2, float *x1, const float *y1, float *param);
void sscal_(const int *n, const float *alpha, float *x, const int *incx);
float sdot_(const int *n, const float *x, const int *incx, const float *y, const int *incy);
float sdsdot_(const int *n, const float *sb, const float *x, const int *incx, const float *y, const int *incy);
double dsdot_(const int *n, const float *x, const int *incx, const float *y, const int *incy);
float snrm2_(const int *n, const float *x, const int *incx);
float sasum_(const int *n, const float *x, const int *incx);
int isamax_(const int *n, const float *x, const int *incx);
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            const float *x, const int *incx, const float *beta, float *y, const int *incy);
void sgbmv_(const char *trans, const int *m, const int *n, const int *kl, const int *ku, const float *alpha,
            const float *a, const int *lda, const float *x, const int *incx, const float *beta, float *y, const int *incy);
void ssymv_(const char *uplo, const int *n, const float *alpha, const float *a, const int *lda, const float *x,
            const int *incx, const float *beta, float *y, const int *incy);
void ssbmv_(const char *uplo, const int *n, const int *k, const float *alpha, const float *a, const int *lda,
            const float *x, const int *incx, const float *beta, float *y, const int *incy);
void sspmv_(const char *uplo, const int *n, const float *alpha, const float *ap, const float *x, const int *incx,
            const float *beta, float *y, const int *incy);
void strmv_(const char *uplo, const char *trans, const char *diag, const int *n, const float *a, const int *lda,
            float *x, const int *incx);
void stbmv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k, const float *a,
            const int *lda, float *x, const int *incx);
void stpmv_(const char *uplo, const char *trans, const char *diag, const int *n, const float *ap, float *x,
            const int *incx);
void strsv_(const char *uplo, const char *trans, const char *diag, const int *n, const float *a, const int *lda,
            float *x, const int *incx);
void stbsv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k, const float *a,
            const int *lda, float *x, const int *incx);
void stpsv_(const char *uplo, const char *trans, const char *diag, const int *n, const float *ap, float *x,
            const int *incx);
void sger_(const int *m, const int *n, const float *alpha, const float *x, const int *incx, const float *y,
           const int *incy, float *a, const int *lda);
void ssyr_(const char *uplo, const int *n, const float *alpha, const float *x, const int *incx, float *a,
           const int *lda);
void sspr_(const char *uplo, const int *n, const float *alpha, const float *x, const int *incx, float *ap);
void ssyr2_(const char *uplo, const int *n, const float *alpha, const float *x, const int *incx, const float *y,
            const int *incy, float *a, const int *lda);
void sspr2_(const char *uplo, const int *n, const float *alpha, const float *x, const int *incx, const float *y,
            const int *incy, float *ap);
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c, const int *ldc);
void ssymm_(const char *side, const char *uplo, const int *m, const int *n, const float *alpha, const float *a,
            const int *lda, const float *b, const int *ldb, const float *beta, float *c, const int *ldc);
void ssyrk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha, const float *a,
            const int *lda, const float *beta, float *c, const int *ldc);
void ssyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha, const float *a,
             const int *lda, const float *b, const int *ldb, const float *beta, float *c, const int *ldc);
void strmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const float *alpha, const float *a, const int *lda, float *b, const int *ldb);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const float *alpha, const float *a, const int *lda, float *b, const int *ldb);

/* Called with the Fortran position of an invalid argument; define your own to replace the
 * default (which prints reference XERBLA's message and stops). */
void xerbla_(const char *srname, const int *info, size_t len);

#ifdef __cplusplus
}
#endif
#endif
