/* Levels 2 and 3 of check.c: every routine through CBLAS (both layouts) and Fortran, over
 * its options (transpose, triangle, side, unit diagonal), with padded leading dimensions,
 * negative and non-unit increments. */

static const char *TC[] = {"N", "T"}, *UC[] = {"U", "L"}, *DC[] = {"N", "U"}, *SC[] = {"L", "R"};
static const int TE[] = {CblasNoTrans, CblasTrans}, UE[] = {CblasUpper, CblasLower};
static const int DE[] = {CblasNonUnit, CblasUnit}, SE[] = {CblasLeft, CblasRight};
static const int LE[] = {CblasColMajor, CblasRowMajor};

/* Whether a CBLAS triangle `u` of `layout` is the upper triangle of the column-major storage. */
static int col_upper(int layout, int u) { return (layout == CblasColMajor) == (UE[u] == CblasUpper); }

static void l2_general(void) {
    char what[96];
    for (int l = 0; l < 2; l++) for (int t = 0; t < 2; t++) {
        int m = 37, n = 23, kl = 3, ku = 5, incx = t ? -2 : 1, incy = 2, lx, ly;
        int r = LE[l] == CblasColMajor ? m : n, c = LE[l] == CblasColMajor ? n : m, lda = r + 3;
        float *a = smat(r, c, lda);
        float *x = svec(t ? m : n, incx, &lx, NAN), *y = svec(t ? n : m, incy, &ly, SENT);
        float *y1 = dup(y, ly), *y2 = dup(y, ly);
        snprintf(what, sizeof what, "sgemv layout=%d trans=%d", LE[l], TE[t]);
        cblas_sgemv(LE[l], TE[t], m, n, 0.7f, a, lda, x, incx, -0.4f, y1, incy);
        REF(cblas_sgemv)(LE[l], TE[t], m, n, 0.7f, a, lda, x, incx, -0.4f, y2, incy);
        cmp(what, y1, y2, ly, 1e-5f);
        int ldb = kl + ku + 4;
        float *ab = smat(kl + ku + 1, c, ldb);
        snprintf(what, sizeof what, "sgbmv layout=%d trans=%d", LE[l], TE[t]);
        cblas_sgbmv(LE[l], TE[t], m, n, kl, ku, 0.7f, ab, ldb, x, incx, -0.4f, y1, incy);
        REF(cblas_sgbmv)(LE[l], TE[t], m, n, kl, ku, 0.7f, ab, ldb, x, incx, -0.4f, y2, incy);
        cmp(what, y1, y2, ly, 1e-5f);
        if (l == 0) {
            sgemv_(TC[t], &m, &n, &(float){1.5f}, a, &lda, x, &incx, &(float){0.0f}, y1, &incy);
            REF(sgemv_)(TC[t], &m, &n, &(float){1.5f}, a, &lda, x, &incx, &(float){0.0f}, y2, &incy);
            cmp("sgemv_", y1, y2, ly, 1e-5f);
            sgbmv_(TC[t], &m, &n, &kl, &ku, &(float){1.5f}, ab, &ldb, x, &incx, &(float){1.0f}, y1, &incy);
            REF(sgbmv_)(TC[t], &m, &n, &kl, &ku, &(float){1.5f}, ab, &ldb, x, &incx, &(float){1.0f}, y2, &incy);
            cmp("sgbmv_", y1, y2, ly, 1e-5f);
        }
        /* sger: A := alpha x y^T + A, with x of length m and y of length n. */
        float *xg = svec(m, incx, &lx, NAN), *yg = svec(n, incy, &ly, NAN);
        float *a1 = dup(a, lda * c), *a2 = dup(a, lda * c);
        for (int i = 0; i < lda * c; i++) if (isnan(a1[i])) a1[i] = a2[i] = SENT;
        snprintf(what, sizeof what, "sger layout=%d", LE[l]);
        cblas_sger(LE[l], m, n, 0.3f, xg, incx, yg, incy, a1, lda);
        REF(cblas_sger)(LE[l], m, n, 0.3f, xg, incx, yg, incy, a2, lda);
        cmp(what, a1, a2, lda * c, 1e-6f);
        if (l == 0) {
            sger_(&m, &n, &(float){-0.3f}, xg, &incx, yg, &incy, a1, &lda);
            REF(sger_)(&m, &n, &(float){-0.3f}, xg, &incx, yg, &incy, a2, &lda);
            cmp("sger_", a1, a2, lda * c, 1e-6f);
        }
        free(a); free(ab); free(x); free(y); free(y1); free(y2); free(xg); free(yg); free(a1); free(a2);
    }
}

static void l2_symmetric(void) {
    char what[96];
    int n = 29, k = 4, lda = n + 2, ldb = k + 3, incx = -1, incy = 3, lx, ly, np = n * (n + 1) / 2;
    for (int l = 0; l < 2; l++) for (int u = 0; u < 2; u++) {
        int cu = col_upper(LE[l], u);
        float *a = smat(n, n, lda), *ab = smat(k + 1, n, ldb), *ap = rvec(np);
        poison_tri(a, n, lda, cu, 0);
        float *x = svec(n, incx, &lx, NAN), *y = svec(n, incy, &ly, SENT);
        float *y1 = dup(y, ly), *y2 = dup(y, ly);
        snprintf(what, sizeof what, "ssymv/ssbmv/sspmv layout=%d uplo=%d", LE[l], UE[u]);
        cblas_ssymv(LE[l], UE[u], n, 0.9f, a, lda, x, incx, 0.5f, y1, incy);
        REF(cblas_ssymv)(LE[l], UE[u], n, 0.9f, a, lda, x, incx, 0.5f, y2, incy);
        cmp(what, y1, y2, ly, 1e-5f);
        cblas_ssbmv(LE[l], UE[u], n, k, 0.9f, ab, ldb, x, incx, 0.5f, y1, incy);
        REF(cblas_ssbmv)(LE[l], UE[u], n, k, 0.9f, ab, ldb, x, incx, 0.5f, y2, incy);
        cmp(what, y1, y2, ly, 1e-5f);
        cblas_sspmv(LE[l], UE[u], n, 0.9f, ap, x, incx, 0.5f, y1, incy);
        REF(cblas_sspmv)(LE[l], UE[u], n, 0.9f, ap, x, incx, 0.5f, y2, incy);
        cmp(what, y1, y2, ly, 1e-5f);
        float *xr = svec(n, incx, &lx, NAN), *yr = svec(n, incy, &ly, NAN);
        float *a1 = dup(a, lda * n), *a2 = dup(a, lda * n), *p1 = dup(ap, np), *p2 = dup(ap, np);
        for (int i = 0; i < lda * n; i++) if (isnan(a1[i])) a1[i] = a2[i] = SENT;
        snprintf(what, sizeof what, "ssyr/sspr/ssyr2/sspr2 layout=%d uplo=%d", LE[l], UE[u]);
        cblas_ssyr(LE[l], UE[u], n, 0.4f, xr, incx, a1, lda);
        REF(cblas_ssyr)(LE[l], UE[u], n, 0.4f, xr, incx, a2, lda);
        cblas_ssyr2(LE[l], UE[u], n, -0.6f, xr, incx, yr, incy, a1, lda);
        REF(cblas_ssyr2)(LE[l], UE[u], n, -0.6f, xr, incx, yr, incy, a2, lda);
        cmp(what, a1, a2, lda * n, 1e-6f);
        cblas_sspr(LE[l], UE[u], n, 0.4f, xr, incx, p1);
        REF(cblas_sspr)(LE[l], UE[u], n, 0.4f, xr, incx, p2);
        cblas_sspr2(LE[l], UE[u], n, -0.6f, xr, incx, yr, incy, p1);
        REF(cblas_sspr2)(LE[l], UE[u], n, -0.6f, xr, incx, yr, incy, p2);
        cmp(what, p1, p2, np, 1e-6f);
        if (l == 0) {
            const char *uc = UC[u];
            ssymv_(uc, &n, &(float){1.1f}, a, &lda, x, &incx, &(float){-1.0f}, y1, &incy);
            REF(ssymv_)(uc, &n, &(float){1.1f}, a, &lda, x, &incx, &(float){-1.0f}, y2, &incy);
            ssbmv_(uc, &n, &k, &(float){1.1f}, ab, &ldb, x, &incx, &(float){-1.0f}, y1, &incy);
            REF(ssbmv_)(uc, &n, &k, &(float){1.1f}, ab, &ldb, x, &incx, &(float){-1.0f}, y2, &incy);
            sspmv_(uc, &n, &(float){1.1f}, ap, x, &incx, &(float){-1.0f}, y1, &incy);
            REF(sspmv_)(uc, &n, &(float){1.1f}, ap, x, &incx, &(float){-1.0f}, y2, &incy);
            cmp("ssymv_/ssbmv_/sspmv_", y1, y2, ly, 1e-5f);
            ssyr_(uc, &n, &(float){0.2f}, xr, &incx, a1, &lda);
            REF(ssyr_)(uc, &n, &(float){0.2f}, xr, &incx, a2, &lda);
            ssyr2_(uc, &n, &(float){0.2f}, xr, &incx, yr, &incy, a1, &lda);
            REF(ssyr2_)(uc, &n, &(float){0.2f}, xr, &incx, yr, &incy, a2, &lda);
            cmp("ssyr_/ssyr2_", a1, a2, lda * n, 1e-6f);
            sspr_(uc, &n, &(float){0.2f}, xr, &incx, p1);
            REF(sspr_)(uc, &n, &(float){0.2f}, xr, &incx, p2);
            sspr2_(uc, &n, &(float){0.2f}, xr, &incx, yr, &incy, p1);
            REF(sspr2_)(uc, &n, &(float){0.2f}, xr, &incx, yr, &incy, p2);
            cmp("sspr_/sspr2_", p1, p2, np, 1e-6f);
        }
        free(a); free(ab); free(ap); free(x); free(y); free(y1); free(y2); free(xr); free(yr);
        free(a1); free(a2); free(p1); free(p2);
    }
}

/* The unit-diagonal-free band and packed triangles are made diagonally dominant so that
 * the solves are well conditioned. */
static void dominant_band(float *ab, int n, int k, int ld, int col_up) {
    int d = col_up ? k : 0;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i <= k; i++) ab[j * ld + i] *= 0.2f;
        ab[j * ld + d] = 2.0f + fabsf(ab[j * ld + d]);
    }
}
static void dominant_packed(float *ap, int n, int col_up) {
    for (int j = 0, p = 0; j < n; j++)
        for (int i = col_up ? 0 : j; i < (col_up ? j + 1 : n); i++, p++)
            ap[p] = i == j ? 2.0f + fabsf(ap[p]) : 0.2f * ap[p];
}

static void l2_triangular(void) {
    char what[96];
    int n = 31, k = 3, lda = n + 1, ldb = k + 2, incx = -2, lx, np = n * (n + 1) / 2;
    for (int l = 0; l < 2; l++) for (int u = 0; u < 2; u++) for (int t = 0; t < 2; t++) for (int d = 0; d < 2; d++) {
        int cu = col_upper(LE[l], u);
        float *a = smat(n, n, lda), *ab = smat(k + 1, n, ldb), *ap = rvec(np);
        for (int i = 0; i < lda * n; i++) a[i] *= 0.2f;
        poison_tri(a, n, lda, cu, DE[d] == CblasUnit);
        dominant_band(ab, n, k, ldb, cu);
        dominant_packed(ap, n, cu);
        float *x = svec(n, incx, &lx, SENT), *x1 = dup(x, lx), *x2 = dup(x, lx);
        snprintf(what, sizeof what, "str/stb/stp mv/sv layout=%d uplo=%d trans=%d diag=%d", LE[l], UE[u], TE[t], DE[d]);
#define TRI(f, ...) f(LE[l], UE[u], TE[t], DE[d], n, __VA_ARGS__, x1, incx); \
        REF(f)(LE[l], UE[u], TE[t], DE[d], n, __VA_ARGS__, x2, incx); cmp(what, x1, x2, lx, 1e-4f)
        TRI(cblas_strmv, a, lda);
        TRI(cblas_strsv, a, lda);
        TRI(cblas_stbmv, k, ab, ldb);
        TRI(cblas_stbsv, k, ab, ldb);
        TRI(cblas_stpmv, ap);
        TRI(cblas_stpsv, ap);
#undef TRI
        if (l == 0) {
#define FTRI(f, ...) f(UC[u], TC[t], DC[d], &n, __VA_ARGS__, x1, &incx); \
            REF(f)(UC[u], TC[t], DC[d], &n, __VA_ARGS__, x2, &incx); cmp(what, x1, x2, lx, 1e-4f)
            FTRI(strmv_, a, &lda);
            FTRI(strsv_, a, &lda);
            FTRI(stbmv_, &k, ab, &ldb);
            FTRI(stbsv_, &k, ab, &ldb);
            FTRI(stpmv_, ap);
            FTRI(stpsv_, ap);
#undef FTRI
        }
        free(a); free(ab); free(ap); free(x); free(x1); free(x2);
    }
}

static void level2(void) {
    l2_general();
    l2_symmetric();
    l2_triangular();
}

/* An output matrix: rows >= r of each column hold the sentinel. */
static float *omat(int r, int cols, int ld) {
    float *m = rvec(ld * cols);
    for (int j = 0; j < cols; j++) for (int i = r; i < ld; i++) m[j * ld + i] = SENT;
    return m;
}

static void l3_gemm(int m, int n, int k) {
    char what[96];
    for (int l = 0; l < 2; l++) for (int ta = 0; ta < 2; ta++) for (int tb = 0; tb < 2; tb++) {
        int col = LE[l] == CblasColMajor;
        int ar = (col != ta) ? m : k, ac = (col != ta) ? k : m;
        int br = (col != tb) ? k : n, bc = (col != tb) ? n : k;
        int cr = col ? m : n, cc = col ? n : m;
        int lda = ar + 2, ldb = br + 1, ldc = cr + 3;
        float *a = smat(ar, ac, lda), *b = smat(br, bc, ldb), *c = omat(cr, cc, ldc);
        float *c1 = dup(c, ldc * cc), *c2 = dup(c, ldc * cc);
        snprintf(what, sizeof what, "sgemm %dx%dx%d layout=%d ta=%d tb=%d", m, n, k, LE[l], TE[ta], TE[tb]);
        cblas_sgemm(LE[l], TE[ta], TE[tb], m, n, k, 0.8f, a, lda, b, ldb, -0.3f, c1, ldc);
        REF(cblas_sgemm)(LE[l], TE[ta], TE[tb], m, n, k, 0.8f, a, lda, b, ldb, -0.3f, c2, ldc);
        cmp(what, c1, c2, ldc * cc, 2e-6f * k);
        if (col) {
            sgemm_(TC[ta], TC[tb], &m, &n, &k, &(float){1.0f}, a, &lda, b, &ldb, &(float){0.5f}, c1, &ldc);
            REF(sgemm_)(TC[ta], TC[tb], &m, &n, &k, &(float){1.0f}, a, &lda, b, &ldb, &(float){0.5f}, c2, &ldc);
            cmp(what, c1, c2, ldc * cc, 2e-6f * k);
        }
        free(a); free(b); free(c); free(c1); free(c2);
    }
}

static void l3_sym_tri(void) {
    char what[112];
    int m = 27, n = 19, k = 13;
    for (int l = 0; l < 2; l++) for (int u = 0; u < 2; u++) for (int s = 0; s < 2; s++) for (int t = 0; t < 2; t++) {
        int col = LE[l] == CblasColMajor, cu = col_upper(LE[l], u), o = SE[s] == CblasLeft ? m : n;
        int cr = col ? m : n, cc = col ? n : m, lda = o + 2, ldb = cr + 1, ldc = cr + 2;
        float *a = smat(o, o, lda), *b = smat(cr, cc, ldb), *c = omat(cr, cc, ldc);
        poison_tri(a, o, lda, cu, 0);
        float *c1 = dup(c, ldc * cc), *c2 = dup(c, ldc * cc);
        snprintf(what, sizeof what, "ssymm layout=%d side=%d uplo=%d", LE[l], SE[s], UE[u]);
        cblas_ssymm(LE[l], SE[s], UE[u], m, n, 0.6f, a, lda, b, ldb, 0.9f, c1, ldc);
        REF(cblas_ssymm)(LE[l], SE[s], UE[u], m, n, 0.6f, a, lda, b, ldb, 0.9f, c2, ldc);
        cmp(what, c1, c2, ldc * cc, 1e-4f);
        /* strmm / strsm: B is the output; its padding rows hold sentinels. */
        float *ta = smat(o, o, lda);
        for (int i = 0; i < lda * o; i++) ta[i] *= 0.2f;
        for (int d = 0; d < 2; d++) {
            poison_tri(ta, o, lda, cu, DE[d] == CblasUnit);
            float *b1 = omat(cr, cc, ldb), *b2 = dup(b1, ldb * cc);
            snprintf(what, sizeof what, "strmm/strsm layout=%d side=%d uplo=%d trans=%d diag=%d", LE[l], SE[s], UE[u], TE[t], DE[d]);
            cblas_strmm(LE[l], SE[s], UE[u], TE[t], DE[d], m, n, 1.3f, ta, lda, b1, ldb);
            REF(cblas_strmm)(LE[l], SE[s], UE[u], TE[t], DE[d], m, n, 1.3f, ta, lda, b2, ldb);
            cmp(what, b1, b2, ldb * cc, 1e-4f);
            cblas_strsm(LE[l], SE[s], UE[u], TE[t], DE[d], m, n, 0.7f, ta, lda, b1, ldb);
            REF(cblas_strsm)(LE[l], SE[s], UE[u], TE[t], DE[d], m, n, 0.7f, ta, lda, b2, ldb);
            cmp(what, b1, b2, ldb * cc, 1e-4f);
            if (col) {
                strmm_(SC[s], UC[u], TC[t], DC[d], &m, &n, &(float){-1.0f}, ta, &lda, b1, &ldb);
                REF(strmm_)(SC[s], UC[u], TC[t], DC[d], &m, &n, &(float){-1.0f}, ta, &lda, b2, &ldb);
                strsm_(SC[s], UC[u], TC[t], DC[d], &m, &n, &(float){2.0f}, ta, &lda, b1, &ldb);
                REF(strsm_)(SC[s], UC[u], TC[t], DC[d], &m, &n, &(float){2.0f}, ta, &lda, b2, &ldb);
                cmp(what, b1, b2, ldb * cc, 1e-4f);
            }
            free(b1); free(b2);
        }
        if (col) {
            ssymm_(SC[s], UC[u], &m, &n, &(float){1.0f}, a, &lda, b, &ldb, &(float){0.0f}, c1, &ldc);
            REF(ssymm_)(SC[s], UC[u], &m, &n, &(float){1.0f}, a, &lda, b, &ldb, &(float){0.0f}, c2, &ldc);
            cmp("ssymm_", c1, c2, ldc * cc, 1e-4f);
        }
        /* ssyrk / ssyr2k: C is n x n, one triangle written; A and B are n x k or k x n. */
        int ar = (col != (t == 1)) ? n : k, ac = (col != (t == 1)) ? k : n, ld2 = ar + 1, ldcc = n + 2;
        float *a2 = smat(ar, ac, ld2), *b2 = smat(ar, ac, ld2), *cs = omat(n, n, ldcc);
        float *s1 = dup(cs, ldcc * n), *s2 = dup(cs, ldcc * n);
        snprintf(what, sizeof what, "ssyrk/ssyr2k layout=%d uplo=%d trans=%d", LE[l], UE[u], TE[t]);
        cblas_ssyrk(LE[l], UE[u], TE[t], n, k, 0.5f, a2, ld2, 1.5f, s1, ldcc);
        REF(cblas_ssyrk)(LE[l], UE[u], TE[t], n, k, 0.5f, a2, ld2, 1.5f, s2, ldcc);
        cmp(what, s1, s2, ldcc * n, 1e-5f);
        cblas_ssyr2k(LE[l], UE[u], TE[t], n, k, 0.5f, a2, ld2, b2, ld2, -1.0f, s1, ldcc);
        REF(cblas_ssyr2k)(LE[l], UE[u], TE[t], n, k, 0.5f, a2, ld2, b2, ld2, -1.0f, s2, ldcc);
        cmp(what, s1, s2, ldcc * n, 1e-5f);
        if (col) {
            ssyrk_(UC[u], TC[t], &n, &k, &(float){1.0f}, a2, &ld2, &(float){0.0f}, s1, &ldcc);
            REF(ssyrk_)(UC[u], TC[t], &n, &k, &(float){1.0f}, a2, &ld2, &(float){0.0f}, s2, &ldcc);
            ssyr2k_(UC[u], TC[t], &n, &k, &(float){1.0f}, a2, &ld2, b2, &ld2, &(float){1.0f}, s1, &ldcc);
            REF(ssyr2k_)(UC[u], TC[t], &n, &k, &(float){1.0f}, a2, &ld2, b2, &ld2, &(float){1.0f}, s2, &ldcc);
            cmp(what, s1, s2, ldcc * n, 1e-5f);
        }
        free(a); free(b); free(c); free(c1); free(c2); free(ta); free(a2); free(b2); free(cs); free(s1); free(s2);
    }
}

static void level3(void) {
    l3_gemm(33, 21, 17);
    l3_gemm(1, 1, 1);
    l3_gemm(257, 130, 300);
    l3_sym_tri();
}
