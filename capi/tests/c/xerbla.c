/* Argument errors reach the program's own handler with reference BLAS's positions.
 * Built twice: with -DCBLAS (defines cblas_xerbla, calls the CBLAS symbols) and without
 * (defines xerbla_, calls the Fortran symbols). Each case expects the routine name and
 * the position reference BLAS reports. Run with FRAGBLAS_ROUTE=gpu and =cpu. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragblas.h"

static int got_pos;
static char got_name[32];
static int failures, cases;

#ifdef CBLAS
/* Reference CBLAS's global, set while a row-major call reports an error (netlib's CBLAS
 * testers read it the same way). */
extern int RowMajorStrg;
static int got_row = -1;

void cblas_xerbla(int p, const char *rout, const char *form, ...) {
    (void)form;
    got_pos = p;
    got_row = RowMajorStrg;
    snprintf(got_name, sizeof got_name, "%s", rout);
    /* Reference CBLAS pads the name with blanks when the error comes from its Fortran layer. */
    size_t n = strlen(got_name);
    while (n > 0 && got_name[n - 1] == ' ') got_name[--n] = 0;
}
#else
void xerbla_(const char *srname, const int *info, size_t len) {
    got_pos = *info;
    size_t n = len < sizeof got_name - 1 ? len : sizeof got_name - 1;
    memcpy(got_name, srname, n);
    while (n > 0 && got_name[n - 1] == ' ') n--;
    got_name[n] = 0;
}
#endif

static void expect(const char *label, const char *name, int pos) {
    cases++;
    if (got_pos != pos || strcmp(got_name, name) != 0) {
        fprintf(stderr, "FAIL %s: handler got (%s, %d), reference reports (%s, %d)\n", label,
                got_name, got_pos, name, pos);
        failures++;
    }
    got_pos = -1;
    got_name[0] = 0;
}

#ifdef CBLAS
/* A row-major call: reference CBLAS makes the column-major call with M and N (KL and KU,
 * lda and ldb, incx and incy) exchanged and reports the position in that call, with
 * RowMajorStrg set; its default handler maps it back before printing. */
static void expect_row(const char *label, const char *name, int pos) {
    int row = got_row;
    expect(label, name, pos);
    if (row != 1) {
        fprintf(stderr, "FAIL %s: RowMajorStrg was %d in the handler, reference sets 1\n", label,
                row);
        failures++;
    }
    if (RowMajorStrg != 0) {
        fprintf(stderr, "FAIL %s: RowMajorStrg still %d after the call\n", label, RowMajorStrg);
        failures++;
    }
    got_row = -1;
}
#endif

int main(void) {
    float a[64] = {0}, b[64] = {0}, c[64] = {0}, x[16] = {0}, y[16] = {0};
    got_pos = -1;
#ifdef CBLAS
    cblas_sgemm(0, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4);
    expect("sgemm layout", "cblas_sgemm", 1);
    cblas_sgemm(CblasColMajor, 999, CblasNoTrans, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4);
    expect("sgemm transa", "cblas_sgemm", 2);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, -1, 4, 4, 1, a, 4, b, 4, 0, c, 4);
    expect("sgemm m", "cblas_sgemm", 4);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1, a, 2, b, 4, 0, c, 4);
    expect("sgemm lda", "cblas_sgemm", 9);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1, a, 4, b, 4, 0, c, 2);
    expect("sgemm ldc row-major", "cblas_sgemm", 14);
    cblas_strsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, 7, 4, 4, 1, a, 4, b, 4);
    expect("strsm diag", "cblas_strsm", 5);
    cblas_strsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 4, 4, 1, a, 4, b, 3);
    expect("strsm ldb", "cblas_strsm", 12);
    cblas_sgemv(CblasColMajor, CblasNoTrans, 4, 4, 1, a, 4, x, 0, 0, y, 1);
    expect("sgemv incx", "cblas_sgemv", 9);
    cblas_ssyr(CblasRowMajor, CblasUpper, 4, 1, x, 1, a, 3);
    expect("ssyr lda", "cblas_ssyr", 8);
    cblas_ssyrk(CblasColMajor, CblasUpper, CblasNoTrans, 4, -2, 1, a, 4, 0, c, 4);
    expect("ssyrk k", "cblas_ssyrk", 5);
    /* Row-major errors of the seven routines whose column-major call reorders arguments. */
    cblas_sgemv(CblasRowMajor, CblasNoTrans, -1, 4, 1, a, 4, x, 1, 0, y, 1);
    expect_row("sgemv m row-major", "cblas_sgemv", 4);
    cblas_sgemv(CblasRowMajor, CblasNoTrans, 4, -1, 1, a, 4, x, 1, 0, y, 1);
    expect_row("sgemv n row-major", "cblas_sgemv", 3);
    cblas_sgbmv(CblasRowMajor, CblasNoTrans, 4, 4, -1, 1, 1, a, 3, x, 1, 0, y, 1);
    expect_row("sgbmv kl row-major", "cblas_sgbmv", 6);
    cblas_sgbmv(CblasRowMajor, CblasNoTrans, -1, 4, 1, 1, 1, a, 3, x, 1, 0, y, 1);
    expect_row("sgbmv m row-major", "cblas_sgbmv", 4);
    cblas_sger(CblasRowMajor, 4, 4, 1, x, 0, y, 1, a, 4);
    expect_row("sger incx row-major", "cblas_sger", 8);
    cblas_sger(CblasRowMajor, -1, 4, 1, x, 1, y, 1, a, 4);
    expect_row("sger m row-major", "cblas_sger", 3);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, 4, 4, 1, a, 4, b, 4, 0, c, 4);
    expect_row("sgemm m row-major", "cblas_sgemm", 5);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1, a, 2, b, 4, 0, c, 4);
    expect_row("sgemm lda row-major", "cblas_sgemm", 11);
    cblas_ssymm(CblasRowMajor, CblasLeft, CblasUpper, -1, 4, 1, a, 4, b, 4, 0, c, 4);
    expect_row("ssymm m row-major", "cblas_ssymm", 5);
    cblas_strmm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, -1, 4, 1, a, 4,
                b, 4);
    expect_row("strmm m row-major", "cblas_strmm", 7);
    cblas_strsm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 4, -1, 1, a, 4,
                b, 4);
    expect_row("strsm n row-major", "cblas_strsm", 6);
    /* An enumeration error of a row-major call keeps its position. */
    cblas_sgemv(CblasRowMajor, 999, 4, 4, 1, a, 4, x, 1, 0, y, 1);
    expect_row("sgemv trans row-major", "cblas_sgemv", 2);
#else
    int m = 4, n = 4, k = 4, four = 4, two = 2, zero = 0, neg = -1;
    float one = 1, nil = 0;
    sgemm_("X", "N", &m, &n, &k, &one, a, &four, b, &four, &nil, c, &four);
    expect("sgemm_ transa", "SGEMM", 1);
    sgemm_("N", "N", &m, &neg, &k, &one, a, &four, b, &four, &nil, c, &four);
    expect("sgemm_ n", "SGEMM", 4);
    sgemm_("N", "T", &m, &n, &k, &one, a, &four, b, &two, &nil, c, &four);
    expect("sgemm_ ldb", "SGEMM", 10);
    strsm_("L", "U", "N", "N", &m, &n, &one, a, &four, b, &two);
    expect("strsm_ ldb", "STRSM", 11);
    sgemv_("N", &m, &n, &one, a, &four, x, &four, &nil, y, &zero);
    expect("sgemv_ incy", "SGEMV", 11);
    ssyr_("Q", &n, &one, x, &four, a, &four);
    expect("ssyr_ uplo", "SSYR", 1);
    stbsv_("U", "N", "N", &n, &neg, a, &four, x, &four);
    expect("stbsv_ k", "STBSV", 5);
    sger_(&m, &n, &one, x, &four, y, &four, a, &two);
    expect("sger_ lda", "SGER", 9);
#endif
    if (failures) return 1;
    printf("ok: %d argument errors reached the program's handler at the reference positions\n", cases);
    return 0;
}
