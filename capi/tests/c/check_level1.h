/* Level 1 of check.c: every routine through CBLAS and Fortran, several lengths and
 * increments (negative and, where reference BLAS defines it, zero). */

static const int INCS[][2] = {{1, 1}, {2, -3}, {-1, 2}, {3, 0}};

static void l1_pair(int n, int incx, int incy) {
    char what[96];
    int lx, ly;
    float *x = svec(n, incx, &lx, NAN), *y = svec(n, incy, &ly, SENT);
    float *x1 = dup(x, lx), *y1 = dup(y, ly), *x2 = dup(x, lx), *y2 = dup(y, ly);
    float tol = 2e-6f * (n + 1);
    /* In/out x: its gaps must stay untouched, so they hold sentinels, not NaN. */
    float *xs = svec(n, incx, &lx, SENT), *xs1 = dup(xs, lx), *xs2 = dup(xs, lx);

#define AGAIN(a, b, c) memcpy(a, b, sizeof(float) * (c))
    snprintf(what, sizeof what, "saxpy n=%d incx=%d incy=%d", n, incx, incy);
    cblas_saxpy(n, 0.75f, x, incx, y1, incy);
    REF(cblas_saxpy)(n, 0.75f, x, incx, y2, incy);
    cmp(what, y1, y2, ly, tol);
    AGAIN(y1, y, ly); AGAIN(y2, y, ly);
    saxpy_(&n, &(float){-1.5f}, x, &incx, y1, &incy);
    REF(saxpy_)(&n, &(float){-1.5f}, x, &incx, y2, &incy);
    cmp(what, y1, y2, ly, tol);

    snprintf(what, sizeof what, "scopy n=%d incx=%d incy=%d", n, incx, incy);
    AGAIN(y1, y, ly); AGAIN(y2, y, ly);
    cblas_scopy(n, x, incx, y1, incy);
    REF(cblas_scopy)(n, x, incx, y2, incy);
    cmp(what, y1, y2, ly, 0);
    AGAIN(y1, y, ly); AGAIN(y2, y, ly);
    scopy_(&n, x, &incx, y1, &incy);
    REF(scopy_)(&n, x, &incx, y2, &incy);
    cmp(what, y1, y2, ly, 0);

    snprintf(what, sizeof what, "sswap n=%d incx=%d incy=%d", n, incx, incy);
    AGAIN(y1, y, ly); AGAIN(y2, y, ly);
    cblas_sswap(n, xs1, incx, y1, incy);
    REF(cblas_sswap)(n, xs2, incx, y2, incy);
    cmp(what, xs1, xs2, lx, 0); cmp(what, y1, y2, ly, 0);
    sswap_(&n, xs1, &incx, y1, &incy);
    REF(sswap_)(&n, xs2, &incx, y2, &incy);
    cmp(what, xs1, xs2, lx, 0); cmp(what, y1, y2, ly, 0);

    snprintf(what, sizeof what, "srot n=%d incx=%d incy=%d", n, incx, incy);
    cblas_srot(n, xs1, incx, y1, incy, 0.6f, 0.8f);
    REF(cblas_srot)(n, xs2, incx, y2, incy, 0.6f, 0.8f);
    cmp(what, xs1, xs2, lx, tol); cmp(what, y1, y2, ly, tol);
    srot_(&n, xs1, &incx, y1, &incy, &(float){0.28f}, &(float){-0.96f});
    REF(srot_)(&n, xs2, &incx, y2, &incy, &(float){0.28f}, &(float){-0.96f});
    cmp(what, xs1, xs2, lx, tol); cmp(what, y1, y2, ly, tol);

    for (int flag = -2; flag <= 1; flag++) {
        float p[5] = {(float)flag, 0.5f, -0.25f, 1.5f, 0.75f};
        snprintf(what, sizeof what, "srotm flag=%d n=%d incx=%d incy=%d", flag, n, incx, incy);
        cblas_srotm(n, xs1, incx, y1, incy, p);
        REF(cblas_srotm)(n, xs2, incx, y2, incy, p);
        cmp(what, xs1, xs2, lx, tol); cmp(what, y1, y2, ly, tol);
        srotm_(&n, xs1, &incx, y1, &incy, p);
        REF(srotm_)(&n, xs2, &incx, y2, &incy, p);
        cmp(what, xs1, xs2, lx, tol); cmp(what, y1, y2, ly, tol);
    }

    if (incx != 0 && incy != 0) {
        snprintf(what, sizeof what, "sdot/sdsdot/dsdot n=%d incx=%d incy=%d", n, incx, incy);
        float *yr = svec(n, incy, &ly, NAN);
        cmps(what, cblas_sdot(n, x, incx, yr, incy), REF(cblas_sdot)(n, x, incx, yr, incy), tol);
        cmps(what, sdot_(&n, x, &incx, yr, &incy), REF(sdot_)(&n, x, &incx, yr, &incy), tol);
        cmps(what, cblas_sdsdot(n, 0.5f, x, incx, yr, incy),
             REF(cblas_sdsdot)(n, 0.5f, x, incx, yr, incy), 1e-6);
        cmps(what, sdsdot_(&n, &(float){0.5f}, x, &incx, yr, &incy),
             REF(sdsdot_)(&n, &(float){0.5f}, x, &incx, yr, &incy), 1e-6);
        double d1 = cblas_dsdot(n, x, incx, yr, incy), d2 = REF(cblas_dsdot)(n, x, incx, yr, incy);
        checks++;
        if (fabs(d1 - d2) > 1e-12 * (1 + fabs(d2))) { fprintf(stderr, "FAIL %s: %.17g vs %.17g\n", what, d1, d2); exit(1); }
        d1 = dsdot_(&n, x, &incx, yr, &incy); d2 = REF(dsdot_)(&n, x, &incx, yr, &incy);
        checks++;
        if (fabs(d1 - d2) > 1e-12 * (1 + fabs(d2))) { fprintf(stderr, "FAIL %s (fortran): %.17g vs %.17g\n", what, d1, d2); exit(1); }
        free(yr);
    }
    if (incx > 0) {
        snprintf(what, sizeof what, "sasum/snrm2/isamax/sscal n=%d incx=%d", n, incx);
        cmps(what, cblas_sasum(n, x, incx), REF(cblas_sasum)(n, x, incx), tol);
        cmps(what, sasum_(&n, x, &incx), REF(sasum_)(&n, x, &incx), tol);
        cmps(what, cblas_snrm2(n, x, incx), REF(cblas_snrm2)(n, x, incx), 1e-5);
        cmps(what, snrm2_(&n, x, &incx), REF(snrm2_)(&n, x, &incx), 1e-5);
        checks++;
        if (cblas_isamax(n, x, incx) != REF(cblas_isamax)(n, x, incx) ||
            isamax_(&n, x, &incx) != REF(isamax_)(&n, x, &incx)) {
            fprintf(stderr, "FAIL %s: isamax %zu/%d vs %zu/%d\n", what, cblas_isamax(n, x, incx),
                    isamax_(&n, x, &incx), REF(cblas_isamax)(n, x, incx), REF(isamax_)(&n, x, &incx));
            exit(1);
        }
        cblas_sscal(n, -0.5f, xs1, incx);
        REF(cblas_sscal)(n, -0.5f, xs2, incx);
        cmp(what, xs1, xs2, lx, 0);
        sscal_(&n, &(float){3.0f}, xs1, &incx);
        REF(sscal_)(&n, &(float){3.0f}, xs2, &incx);
        cmp(what, xs1, xs2, lx, 0);
    }
    free(x); free(y); free(x1); free(y1); free(x2); free(y2); free(xs); free(xs1); free(xs2);
}

static void l1_scalar(void) {
    const float ab[][2] = {{3, 4}, {-2, 0.5f}, {0, -7}, {1e-30f, 2e-30f}, {5, 0}};
    for (unsigned i = 0; i < sizeof ab / sizeof ab[0]; i++) {
        float o[4] = {ab[i][0], ab[i][1], 0, 0}, r[4] = {ab[i][0], ab[i][1], 0, 0};
        float f[4] = {ab[i][0], ab[i][1], 0, 0};
        cblas_srotg(&o[0], &o[1], &o[2], &o[3]);
        REF(cblas_srotg)(&r[0], &r[1], &r[2], &r[3]);
        srotg_(&f[0], &f[1], &f[2], &f[3]);
        cmp("srotg", o, r, 4, 1e-6f);
        cmp("srotg_", f, r, 4, 1e-6f);
    }
    const float dxy[][4] = {{1, 1, 1, 0}, {2, 3, 0.5f, 4}, {1e-9f, 1, 1, 1}, {-1, 1, 1, 1}, {1, 1e9f, 1, 2}};
    for (unsigned i = 0; i < sizeof dxy / sizeof dxy[0]; i++) {
        float o[8], r[8], f[8];
        for (int j = 0; j < 8; j++) o[j] = r[j] = f[j] = SENT;
        o[0] = r[0] = f[0] = dxy[i][0]; o[1] = r[1] = f[1] = dxy[i][1]; o[2] = r[2] = f[2] = dxy[i][2];
        cblas_srotmg(&o[0], &o[1], &o[2], dxy[i][3], &o[3]);
        REF(cblas_srotmg)(&r[0], &r[1], &r[2], dxy[i][3], &r[3]);
        srotmg_(&f[0], &f[1], &f[2], &dxy[i][3], &f[3]);
        cmp("srotmg", o, r, 8, 1e-6f);
        cmp("srotmg_", f, r, 8, 1e-6f);
    }
}

static void level1(void) {
    for (unsigned i = 0; i < sizeof INCS / sizeof INCS[0]; i++) {
        l1_pair(37, INCS[i][0], INCS[i][1]);
        l1_pair(1, INCS[i][0], INCS[i][1]);
    }
    l1_pair(0, 1, 1);
    l1_pair(4099, 1, 1);
    l1_scalar();
}
