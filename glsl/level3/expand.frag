// Writes the order x order matrix R = op(A), column-major with leading dimension ld (a
// pitched scratch matrix: rows order..ld-1 are 0), of a symmetric or triangular A of which
// only the `upper` (else lower) triangle is stored with leading dimension lda (see
// blas/level3/blocks.rs). fill 0: A is symmetric, the other triangle mirrors the stored
// one; fill 1: A is triangular, 0 outside the stored triangle, and with unit_diag its
// diagonal is 1. Only the stored triangle is read (a unit diagonal is not).
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int order;
uniform int ld;
uniform int upper;
uniform int fill;
uniform int unit_diag;
uniform int trans;

layout(location = 0) out vec4 result;

float element(int i, int j) {
    if (trans != 0) {
        int k = i;
        i = j;
        j = k;
    }
    if (fill == 1 && unit_diag != 0 && i == j) {
        return 1.0;
    }
    bool stored = upper != 0 ? i <= j : i >= j;
    if (stored) {
        return load_elem(a, a_width, i + j * lda);
    }
    return fill == 0 ? load_elem(a, a_width, j + i * lda) : 0.0;
}

void main() {
    // Texel (x, y) holds rows 4x..4x+3 of column y.
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 v = vec4(0.0);
    for (int ch = 0; ch < 4; ++ch) {
        int i = 4 * p.x + ch;
        if (i < order && p.y < order) {
            v[ch] = element(i, p.y);
        }
    }
    result = v;
}
