/* Calls every single-precision routine of libfragblas.so through CBLAS and through the
 * Fortran symbols, and the same call on netlib's reference BLAS (dlopen'ed with
 * RTLD_DEEPBIND so that its own internal calls stay inside it), on random data with
 * poisoned gaps: NaN where nothing may be read (padding rows, the unreferenced triangle,
 * a unit diagonal, the gaps of strided input vectors), a sentinel where nothing may be
 * written (gaps of outputs). Every element of every output array is compared: results
 * within a tolerance, everything else bit for bit. Exits 1 on the first difference.
 *
 * Usage: check REFERENCE_BLAS_PATH (run with FRAGBLAS_ROUTE=gpu and =cpu). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragblas.h"

static void *ref;
static int checks;
#define REF(f) ((__typeof__(&f))refsym(#f))
static void *refsym(const char *name) {
    void *p = dlsym(ref, name);
    if (!p) { fprintf(stderr, "reference BLAS lacks %s\n", name); exit(2); }
    return p;
}

static const float SENT = 777.0f;
static unsigned long long rng = 88172645463325252ull;
static float rnd(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (float)((rng >> 11) % 2000001) / 1000000.0f - 1.0f;
}
static float *rvec(int len) {
    float *v = malloc(sizeof(float) * (len > 0 ? len : 1));
    for (int i = 0; i < len; i++) v[i] = rnd();
    return v;
}
static float *dup(const float *v, int len) {
    float *d = malloc(sizeof(float) * (len > 0 ? len : 1));
    memcpy(d, v, sizeof(float) * (len > 0 ? len : 0));
    return d;
}
/* A strided vector of n elements: len elements of storage, gaps set to `gap`. */
static float *svec(int n, int inc, int *len, float gap) {
    int a = inc < 0 ? -inc : inc;
    *len = n > 0 ? 1 + (n - 1) * a : 0;
    float *v = rvec(*len);
    for (int i = 0; i < *len; i++) if (a > 1 && i % a) v[i] = gap;
    return v;
}
/* Column-major storage (ld x cols); rows >= r are padding set to NaN. */
static float *smat(int r, int cols, int ld) {
    float *m = rvec(ld * cols);
    for (int j = 0; j < cols; j++) for (int i = r; i < ld; i++) m[j * ld + i] = NAN;
    return m;
}
/* Poisons what a triangular/symmetric routine must not read of an n x n matrix. */
static void poison_tri(float *m, int n, int ld, int colmajor_upper, int unit) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            if (colmajor_upper ? i > j : i < j) m[j * ld + i] = NAN;
            if (i == j) m[j * ld + i] = unit ? NAN : 2.0f + fabsf(m[j * ld + i]);
        }
}
/* Compares two arrays element by element: results within `tol` (relative), sentinels, NaN
 * and Inf exactly. */
static void cmp(const char *what, const float *got, const float *want, int len, float tol) {
    checks++;
    for (int i = 0; i < len; i++) {
        float g = got[i], w = want[i];
        if (isnan(w) && isnan(g)) continue;
        if (w == SENT || isnan(w) || isinf(w)) {
            if (memcmp(&g, &w, sizeof g) == 0) continue;
        } else if (fabsf(g - w) <= tol * (1.0f + fabsf(w))) {
            continue;
        }
        fprintf(stderr, "FAIL %s: element %d is %.9g, reference %.9g\n", what, i, g, w);
        exit(1);
    }
}
static void cmps(const char *what, double got, double want, double tol) {
    cmp(what, &(float){(float)got}, &(float){(float)want}, 1, (float)tol);
}

#include "check_level1.h"
#include "check_level23.h"

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
    ref = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!ref) { fprintf(stderr, "cannot load %s: %s\n", path, dlerror()); return 2; }
    level1();
    level2();
    level3();
    printf("ok: %d comparisons of every single-precision routine, CBLAS and Fortran, against %s\n",
           checks, path);
    return 0;
}
