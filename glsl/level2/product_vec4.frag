// op(A)*x over full column-major storage read as vec4 texels, for a general, triangular or
// symmetric matrix (sgemv, strmv, ssymv), over one chunk of the summed index. A's leading
// dimension is a multiple of 4, so texel (r, j) of A is rows 4r..4r+3 of column j, at
// linear texel r + j*lda/4; x has increment 1, so x texel l is x_{4l..4l+3}.
//
// Fragment (x, y) of band s computes the four results 4t..4t+3 (t its texel in a vector laid
// out out_width texels wide, or with out_spread > 1 the texel that position spreads to)
// summed over the x texels l of chunk s (chunk_of: a run of texels, or with interleave every
// chunks-th texel, in spread order), in two parts, either of which may be absent (rule -1):
//   column part (rule col_rule): sum_j A(4t..4t+3, j) x_j, one texel of A per column j of
//     x texel l (the no-transpose form, four results a fetch);
//   row part (rule row_rule): result 4t+c += sum_i A(i, 4t+c) x_i, one texel of column
//     4t+c per x texel l (the transpose form, a dot product a fetch).
// A rule says which elements (i, j) of the part's texels on the diagonal block (l == t)
// count: 0 all, 1 i <= j, 2 i < j, 3 i >= j, 4 i > j; off the diagonal block a part visits
// only the texels of its triangle (l >= t for rules 1-2 in the column part, l <= t in the
// row part, the other way round for rules 3-4). So:
//   sgemv: column part rule 0 (A x) or row part rule 0 (A^T x);
//   strmv upper: column part rule 1 (A x) or row part rule 1 (A^T x); lower with rule 3;
//   ssymv upper: column part rule 1 and row part rule 2; lower: rules 3 and 4.
// With unit_diag, the diagonal element counts as 1 and is not read. With skip_zero, the
// column part leaves out columns whose x_j is 0 (reference's triangular loops skip them, so
// a NaN or Inf of A there does not spread). An element outside its part's triangle never
// meets x (a masked product, not a multiplication by 0, so an Inf of x cannot make a NaN),
// and lanes past rows (the gap up to lda) or columns past cols are not used.
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int rows;
uniform int cols;
uniform int col_rule;
uniform int row_rule;
uniform int skip_zero;
uniform sampler2D x;
uniform int x_width;
uniform int spread;
uniform int spread_run;
uniform int chunk_run;
uniform int out_spread;

// X_BUFFER (defined before this file, or not): x's texels also in a storage buffer, texel l
// at x_texels[l], and the loops read them there, so that the texture unit fetches only A's texels
// (a vector's texel at xp, its place in x's texture, is texel l of x).
#ifdef X_BUFFER
layout(std430, binding = 0) readonly restrict buffer XTexels {
    vec4 x_texels[];
};
#define X_TEXEL(l, xp) x_texels[l]
#else
#define X_TEXEL(l, xp) texelFetch(x, xp, 0)
#endif

// INTERLEAVE (defined before this file, or 0): the interleaved chunks and spread orders.
#ifndef INTERLEAVE
#define INTERLEAVE 0
#endif

// The x texels of chunk s of `chunks`: the progression start, start + step, ... below end,
// and with interleave at most one more, tail (-1: none). Without interleave a chunk is the
// run [s*chunk, (s+1)*chunk). With it, chunk s takes every chunks-th texel, so that
// neighbouring chunks (fragments of one warp) read at the same moment texels close together:
// texel sigma(s + i*chunks) for i = 0, 1, ..., where sigma spreads runs of `chunk_run`
// consecutive indices `spread` texels apart within blocks of spread * chunk_run texels
// (index b*B + u*run + v goes to texel b*B + v*spread + u), so that the columns neighbouring
// fragments read lie in neighbouring rows of A's texture, not side by side in one row: the
// caller chooses spread from A's texture width and column length. A block is shifted by a
// multiple of chunks as a whole, so each chunk's texels below the last whole block are still
// a progression with step chunks; the texels past the last whole block (fewer than a block,
// so at most one a chunk) are not moved and are the tail.
struct Chunk {
    int start;
    int step;
    int end;
    int tail;
};

Chunk chunk_of(int s, int n) {
#if INTERLEAVE == 0
    return Chunk(s * chunk, 1, min(s * chunk + chunk, n), -1);
#else
    int block = spread * chunk_run;
    if (spread <= 1 || chunks % block != 0) return Chunk(s, chunks, n, -1);
    int whole = (n / block) * block;
    int start = spread_index(s, whole + block, spread, chunk_run);
    int tail = whole <= s ? s : s + ((whole - s + chunks - 1) / chunks) * chunks;
    return Chunk(start, chunks, whole, tail < n ? tail : -1);
#endif
}

// The first texel of the chunk's progression at or after v.
int first_in(Chunk c, int v) {
    return v <= c.start ? c.start : c.start + ((v - c.start + c.step - 1) / c.step) * c.step;
}

bool in_progression(Chunk c, int v) {
    return v >= c.start && v < c.end && (v - c.start) % c.step == 0;
}

// The row part's terms of x texel l: results 4t+c += sum over the texel's four rows i of
// A(i, 4t+c) x_i (texels at p0..p3 for columns j0..j0+3, x's at xp), masked to the part's
// triangle on the diagonal block.
vec4 row_terms(int l, int t, ivec2 xp, ivec2 p0, ivec2 p1, ivec2 p2, ivec2 p3) {
    int j0 = 4 * t;
    bvec4 live = live_lanes(l, rows);
    vec4 xv = select4(vec4(0.0), X_TEXEL(l, xp), live);
    vec4 v0 = select4(vec4(0.0), texelFetch(a, p0, 0), live);
    vec4 v1 = select4(vec4(0.0), texelFetch(a, p1, 0), live);
    vec4 v2 = select4(vec4(0.0), texelFetch(a, p2, 0), live);
    vec4 v3 = select4(vec4(0.0), texelFetch(a, p3, 0), live);
    if (l == t) {
        // Only here do elements outside the triangle share a texel with it.
        ivec4 i4 = ivec4(4 * l) + ivec4(0, 1, 2, 3);
        v0 = select4(vec4(0.0), unit(v0, i4, j0) * xv, keep(row_rule, i4, j0));
        v1 = select4(vec4(0.0), unit(v1, i4, j0 + 1) * xv, keep(row_rule, i4, j0 + 1));
        v2 = select4(vec4(0.0), unit(v2, i4, j0 + 2) * xv, keep(row_rule, i4, j0 + 2));
        v3 = select4(vec4(0.0), unit(v3, i4, j0 + 3) * xv, keep(row_rule, i4, j0 + 3));
        return vec4(dot(v0, vec4(1.0)), dot(v1, vec4(1.0)), dot(v2, vec4(1.0)),
                    dot(v3, vec4(1.0)));
    }
    return vec4(dot(v0, xv), dot(v1, xv), dot(v2, xv), dot(v3, xv));
}

// The column part's terms of one x texel xv: its four columns' texels of A from ap on (ap
// moves past them), each times its x_j; with skip, columns whose x_j is 0 left out.
vec4 column_terms(inout ivec2 ap, ivec2 col, vec4 xv, bool skip) {
    vec4 a0 = texelFetch(a, ap, 0);
    ap = advance(ap, col, a_width);
    vec4 a1 = texelFetch(a, ap, 0);
    ap = advance(ap, col, a_width);
    vec4 a2 = texelFetch(a, ap, 0);
    ap = advance(ap, col, a_width);
    vec4 a3 = texelFetch(a, ap, 0);
    ap = advance(ap, col, a_width);
    if (skip) {
        return (xv.x == 0.0 ? vec4(0.0) : a0 * xv.x) + (xv.y == 0.0 ? vec4(0.0) : a1 * xv.y)
            + (xv.z == 0.0 ? vec4(0.0) : a2 * xv.z) + (xv.w == 0.0 ? vec4(0.0) : a3 * xv.w);
    }
    return a0 * xv.x + a1 * xv.y + a2 * xv.z + a3 * xv.w;
}

void main() {
    ivec2 f = ivec2(gl_FragCoord.xy);
    int s = f.y / band_rows;
    // With out_spread > 1 the fragments of a band compute their texels in spread order
    // (neighbouring fragments texels out_spread apart, whose columns of A lie in neighbouring
    // rows of its texture); the fold gathers them back.
#if INTERLEAVE
    int t = spread_index((f.y - s * band_rows) * out_width + f.x, out_texels, out_spread,
                         spread_run);
#else
    int t = (f.y - s * band_rows) * out_width + f.x;
#endif
    vec4 acc = vec4(0.0);
    if (t >= out_texels) {
        put_sums(s, t, acc);
        return;
    }
    int ld4 = lda >> 2;
    ivec4 lanes = ivec4(0, 1, 2, 3);
    if (col_rule >= 0) {
        Chunk c = chunk_of(s, (cols + 3) >> 2);
        bool upper = col_rule == 1 || col_rule == 2;
        bool lower = col_rule == 3 || col_rule == 4;
        // Texels of the progression off the diagonal block whose four columns all exist,
        // [fl, fh), go without masks or conditions on the fetches (on llvmpipe, whose cores
        // are the "GPU", the masked loop made sgemv 1024^2 1.6x slower); the diagonal block,
        // a last partial texel and the tail one at a time with their masks.
        int fl = first_in(c, upper ? max(c.start, t + 1) : c.start);
        int fh = min(c.end, cols >> 2);
        if (lower) fh = min(fh, t);
        ivec2 col = texel_pos(ld4, a_width);
        ivec2 jump = texel_pos(4 * (c.step - 1) * ld4, a_width);
        ivec2 xstep = texel_pos(c.step, x_width);
        ivec2 xp = texel_pos(fl, x_width);
        ivec2 ap = texel_pos(t + 4 * fl * ld4, a_width);
        bool skip = skip_zero != 0;
        // Runs step by one texel without the jump (on llvmpipe, whose cores run the loop,
        // every instruction counts).
        if (c.step == 1) {
            for (int l = fl; l < fh; ++l) {
                vec4 xv = X_TEXEL(l, xp);
                xp = advance(xp, ivec2(1, 0), x_width);
                acc += column_terms(ap, col, xv, skip);
            }
        } else {
            for (int l = fl; l < fh; l += c.step) {
                vec4 xv = X_TEXEL(l, xp);
                xp = advance(xp, xstep, x_width);
                acc += column_terms(ap, col, xv, skip);
                ap = advance(ap, jump, a_width);
            }
        }
        // The diagonal block (in a triangle's part), a last partial texel of the
        // progression and the tail, if this chunk has them and the part's triangle reaches
        // them.
        ivec4 i4 = ivec4(4 * t) + lanes;
        bool diag = col_rule != 0 && (in_progression(c, t) || c.tail == t);
        int pk = cols >> 2;
        bool partial = (cols & 3) != 0 && in_progression(c, pk) && !(diag && pk == t)
            && !(upper && pk < t) && !(lower && pk > t);
        bool tail = c.tail >= 0 && !(diag && c.tail == t) && !(upper && c.tail < t)
            && !(lower && c.tail > t);
        for (int k = 0; k < 3; ++k) {
            int lk = k == 0 ? t : (k == 1 ? pk : c.tail);
            if (!(k == 0 ? diag : (k == 1 ? partial : tail))) continue;
            vec4 xv = select4(vec4(0.0), load_texel(x, x_width, lk), live_lanes(lk, cols));
            ivec2 ak = texel_pos(t + 4 * lk * ld4, a_width);
            for (int q = 0; q < 4; ++q) {
                int j = 4 * lk + q;
                if (j < cols && (!skip || xv[q] != 0.0)) {
                    vec4 p = unit(texelFetch(a, ak, 0), i4, j) * xv[q];
                    acc += lk == t ? select4(vec4(0.0), p, keep(col_rule, i4, j)) : p;
                }
                ak = advance(ak, col, a_width);
            }
        }
    }
    if (row_rule >= 0) {
        Chunk c = chunk_of(s, (rows + 3) >> 2);
        bool upper = row_rule == 1 || row_rule == 2;
        bool lower = row_rule == 3 || row_rule == 4;
        // The progression's texels in the part's triangle, [lo, hi), then the tail.
        int lo = first_in(c, lower ? max(c.start, t) : c.start);
        int hi = upper ? min(c.end, t + 1) : c.end;
        ivec2 dstep = texel_pos(c.step, a_width);
        ivec2 xstep = texel_pos(c.step, x_width);
        // Results past cols read column cols-1; they are discarded.
        int j0 = 4 * t;
        int c0 = min(j0, cols - 1) * ld4;
        int c1 = min(j0 + 1, cols - 1) * ld4;
        int c2 = min(j0 + 2, cols - 1) * ld4;
        int c3 = min(j0 + 3, cols - 1) * ld4;
        ivec2 xp = texel_pos(lo, x_width);
        ivec2 p0 = texel_pos(c0 + lo, a_width);
        ivec2 p1 = texel_pos(c1 + lo, a_width);
        ivec2 p2 = texel_pos(c2 + lo, a_width);
        ivec2 p3 = texel_pos(c3 + lo, a_width);
        for (int l = lo; l < hi; l += c.step) {
            acc += row_terms(l, t, xp, p0, p1, p2, p3);
            xp = advance(xp, xstep, x_width);
            p0 = advance(p0, dstep, a_width);
            p1 = advance(p1, dstep, a_width);
            p2 = advance(p2, dstep, a_width);
            p3 = advance(p3, dstep, a_width);
        }
        int l = c.tail;
        if (l >= 0 && !(upper && l > t) && !(lower && l < t)) {
            acc += row_terms(l, t, texel_pos(l, x_width), texel_pos(c0 + l, a_width),
                             texel_pos(c1 + l, a_width), texel_pos(c2 + l, a_width),
                             texel_pos(c3 + l, a_width));
        }
    }
    put_sums(s, t, acc);
}
