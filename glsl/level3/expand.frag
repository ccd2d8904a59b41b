// Writes the order x order matrix R = op(A), column-major with leading dimension ld (a
// pitched scratch matrix: rows order..ld-1 are 0), of a symmetric or triangular A of which
// only the `upper` (else lower) triangle is stored with leading dimension lda (see
// blas/level3/blocks.rs). fill 0: A is symmetric, the other triangle mirrors the stored
// one; fill 1: A is triangular, 0 outside the stored triangle, and with unit_diag its
// diagonal is 1. Only the stored triangle is read (a unit diagonal is not).
//
// With IMAGE (GPUs with image stores) fragment (x, y) writes the 4 x 4 block of R at rows
// 4x.., columns 4y.. through image stores: it is a block of P, the matrix in A's stored
// orientation (R = P, or P^T with trans), and that block is P's stored block (4 columns of
// 4 elements, one or two fetches each) where it lies in the stored triangle, its mirror
// block transposed where it lies outside (symmetric fill; 0 for a triangle), both read from
// the one block on the diagonal: 4-8 fetches for 4 texels, where the rendered form fetches
// 4 a texel (16 elements of 4 columns where R is transposed).
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int order;
uniform int ld;
uniform int upper;
uniform int fill;
uniform int unit_diag;
uniform int trans;

#if IMAGE
uniform int a_last;
// With diag_block > 0 (a multiple of 4) only R's diagonal blocks of diag_block rows are
// written (fragment (x, y) takes the 4 x 4 block at columns 4y.. of its rows' diagonal
// block): the triangular product that reads A itself off them needs no more.
uniform int diag_block;
layout(binding = 0, rgba32f) writeonly uniform highp image2D dst;

// Elements r..r+3 of stored column c (one fetch where they fill one texel).
vec4 stored4(int r, int c) {
    int e = r + c * lda;
    if ((e & 3) == 0) {
        return load_texel(a, a_width, min(e >> 2, a_last));
    }
    return load_run(a, a_width, a_last, e);
}

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int i0 = 4 * g.x;
    int j0 = diag_block > 0 ? i0 / diag_block * diag_block + 4 * g.y : 4 * g.y;
    if (j0 >= order) {
        return;
    }
    // R's block (i0.., j0..) is P's block (pr.., pc..), transposed with trans.
    int pr = trans != 0 ? j0 : i0;
    int pc = trans != 0 ? i0 : j0;
    bool all_stored = upper != 0 ? pr + 3 <= pc : pr >= pc + 3;
    bool none_stored = upper != 0 ? pr > pc + 3 : pr + 3 < pc;
    // s[c] = A(pr..pr+3, pc+c) as stored; m[c] = A(pc..pc+3, pr+c), the mirror block.
    // Lanes past `order` are never used (masked below), so their loads may read anything.
    vec4 s[4];
    vec4 m[4];
    for (int c = 0; c < 4; ++c) {
        s[c] = vec4(0.0);
        m[c] = vec4(0.0);
    }
    if (!none_stored && pr < order) {
        for (int c = 0; c < 4; ++c) {
            if (pc + c < order) {
                s[c] = stored4(pr, pc + c);
            }
        }
    }
    if (fill == 0 && !all_stored && pc < order) {
        if (pr == pc) {
            m = s;
        } else {
            for (int c = 0; c < 4; ++c) {
                if (pr + c < order) {
                    m[c] = stored4(pc, pr + c);
                }
            }
        }
    }
    // P(pr + u, pc + c) for u, c < 4, masked to the order x order matrix.
    mat4 pb;
    for (int c = 0; c < 4; ++c) {
        for (int u = 0; u < 4; ++u) {
            int i = pr + u;
            int j = pc + c;
            bool stored = upper != 0 ? i <= j : i >= j;
            float v = stored ? s[c][u] : (fill == 0 ? m[u][c] : 0.0);
            if (fill == 1 && unit_diag != 0 && i == j) {
                v = 1.0;
            }
            pb[c][u] = i < order && j < order ? v : 0.0;
        }
    }
    // Column j0 + c of R: P's column pc + c, or (trans) P's row pr + c.
    for (int c = 0; c < 4; ++c) {
        if (j0 + c >= order) {
            break;
        }
        vec4 v = trans != 0 ? vec4(pb[0][c], pb[1][c], pb[2][c], pb[3][c]) : pb[c];
        imageStore(dst, ivec2(g.x, j0 + c), v);
    }
}
#else
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
#endif
