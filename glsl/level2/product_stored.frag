// op(A)*x for a level-2 matrix of any storage (full with any leading dimension, band, packed)
// read four rows of a column at a time, over one chunk of the summed index: the same two
// parts and rules as product_vec4.frag (see there), for the storages whose columns do not
// start on a texel. Every storage puts element (i, j) at base(j) + i:
//   storage 0, full:         base(j) = j*lda;
//   storage 1, band:         base(j) = j*lda + ku - j (rows j-ku..j+kl stored);
//   storage 2, packed upper: base(j) = j(j+1)/2 (rows 0..j);
//   storage 3, packed lower: base(j) = j(2n-j-1)/2 (rows j..n-1);
// so rows 4r..4r+3 of column j are four consecutive elements, read as the two texels that
// hold them (load4). x has increment 1 (the caller copies any other).
//
// Fragment (x, y) of band s computes the four results 4t..4t+3 (t its texel in a vector laid
// out out_width texels wide). A part visits only the x texels a row (column part) or a column
// (row part) of its triangle and band can reach, [lf, lt], those of them in chunk s (a run
// of x's texels, or with interleave every chunks-th texel). Texels on the diagonal block, on
// a band's edge or past the last row or column are masked lane by lane: an element outside
// the part's triangle or the band never meets x (a masked product, not a multiplication by
// 0, so an Inf of x cannot make a NaN). A band's texels inside it read their four columns
// with one division for the positions (load_columns): on the H100 that made sgbmv and stbmv
// at 2^16 (k = 64) 18% faster, while packed storage's row part was 10% slower with it and
// its column part the same (BENCHMARKS.md, session 14), so packed and full storage go the
// masked way throughout.
//
// With BAND defined to 1 (before this file) the kernel is a band's column part alone (a band
// product without a row part: sgbmv and stbmv without transpose), whose positions go by
// addition (band_column_part): on the H100 at 2^16, k = 64, sgbmv 264 -> 245 us and stbmv
// 155 -> 131 us (BENCHMARKS.md, session 28). The row part stays in the kernel without BAND:
// the same stepping of the row part, and this kernel's row loop compiled beside the band
// column loop, were each slower than it (sgbmv^T 270 -> 276-373 us): on that driver a loop
// compiled into a kernel, run or not, moves the time of the kernel's other loops.
uniform sampler2D a;
uniform int a_width;
uniform int a_last;     // the last texel of A's buffer (reads are clamped to it)
// STORAGE (defined before this file, or not): the storage a constant, so that the program
// holds only its own storage's code (a band's product with a row part: ssbmv, sgbmv^T,
// stbmv^T). Else a uniform.
#ifdef STORAGE
const int storage = STORAGE;
#else
uniform int storage;
#endif
uniform int lda;
uniform int ku;
uniform int order;
uniform int band_lo;    // element (i, j) is in the band when band_lo <= j - i <= band_hi
uniform int band_hi;    // (wider than the matrix when the storage has no band)
uniform int rows;
uniform int cols;
uniform int col_rule;
uniform int row_rule;
uniform int skip_zero;
uniform int interleave;
uniform sampler2D x;
uniform int x_width;

#ifndef BAND
#define BAND 0
#endif

// X_BUFFER (defined before this file, or not): x's texels also in a storage buffer, texel l
// at x_texels[l], and the loops read them there, so that the texture unit fetches only A's texels
// (xp is texel l's place in x's texture).
#ifdef X_BUFFER
layout(std430, binding = 0) readonly restrict buffer XTexels {
    vec4 x_texels[];
};
#define X_TEXEL(l, xp) x_texels[l]
#else
#define X_TEXEL(l, xp) texelFetch(x, xp, 0)
#endif

// Where column j starts in the stored array (row 0 of it: before the array for a band's
// first columns). Unsigned: j(j+1) of a large packed matrix exceeds an int, the base not.
int base(int j) {
    if (storage == 0) return j * lda;
    if (storage == 1) return j * lda + ku - j;
    if (storage == 2) return int(uint(j) * uint(j + 1) / 2u);
    return int(uint(j) * uint(2 * order - j - 1) / 2u);
}

// Elements e..e+3 of the stored array, for any e (load_run).
vec4 load4(int e) {
    return load_run(a, a_width, a_last, e);
}

// The position of texel q2 from p, the position of texel q1 <= q2: by addition when the step
// is shorter than a row.
ivec2 step_to(ivec2 p, int q1, int q2) {
    int d = q2 - q1;
    return d < a_width ? advance(p, ivec2(d, 0), a_width) : texel_pos(q2, a_width);
}

// Elements e..e+3 from texel q = e >> 2 at position p (r = e & 3): one fetch where they
// are a texel (a band whose lda - 1 and ku are multiples of 4 starts every column's rows
// 4t.. on a texel), else the two that hold them.
vec4 load_at(ivec2 p, int q, int r) {
    if (r == 0) {
        return texelFetch(a, p, 0);
    }
    ivec2 p1 = q < a_last ? advance(p, ivec2(1, 0), a_width) : p;
    return shift4(texelFetch(a, p, 0), texelFetch(a, p1, 0), r);
}

// Four runs of four elements, from e.x, e.y, e.z, e.w (ascending, all in the array: four
// rows of four columns): one division for the first position, additions for the others.
mat4 load_columns(ivec4 e) {
    ivec4 q = e >> 2;
#if BAND
    // A band's edge texels read elements outside the band too, past the array's end.
    q = min(q, ivec4(a_last));
#endif
    ivec4 r = e & 3;
    ivec2 p0 = texel_pos(q.x, a_width);
    ivec2 p1 = step_to(p0, q.x, q.y);
    ivec2 p2 = step_to(p1, q.y, q.z);
    ivec2 p3 = step_to(p2, q.z, q.w);
    return mat4(load_at(p0, q.x, r.x), load_at(p1, q.y, r.y), load_at(p2, q.z, r.z),
                load_at(p3, q.w, r.w));
}

// Which elements (i4 + lane, j) lie in the band.
bvec4 in_band(ivec4 i4, int j) {
    ivec4 d = ivec4(j) - i4;
    return both(greaterThanEqual(d, ivec4(band_lo)), lessThanEqual(d, ivec4(band_hi)));
}

// Chunk s's texels of the range [lf, lt]: start, step, end (exclusive). The chunks divide
// x's texels, not the range, so that neighbouring fragments (neighbouring results) read the
// same columns (or rows) at one moment: a run [s*chunk, (s+1)*chunk), or with interleave the
// texels l with l % chunks == s.
ivec3 chunk_range(int s, int lf, int lt) {
    if (interleave != 0) {
        int start = lf <= s ? s : s + ((lf - s + chunks - 1) / chunks) * chunks;
        return ivec3(start, chunks, lt + 1);
    }
    return ivec3(max(lf, s * chunk), 1, min(s * chunk + chunk, lt + 1));
}

// Four columns' texels of a run of rows (m's columns) times their x_j (xv); with skip,
// columns whose x_j is 0 are left out (reference's triangular loops skip them).
vec4 column_terms(mat4 m, vec4 xv, bool skip) {
    if (skip) {
        return (xv.x == 0.0 ? vec4(0.0) : m[0] * xv.x) + (xv.y == 0.0 ? vec4(0.0) : m[1] * xv.y)
            + (xv.z == 0.0 ? vec4(0.0) : m[2] * xv.z) + (xv.w == 0.0 ? vec4(0.0) : m[3] * xv.w);
    }
    return m[0] * xv.x + m[1] * xv.y + m[2] * xv.z + m[3] * xv.w;
}

#if BAND
// The column part over a band: results 4t..4t+3 (rows i4) summed over chunk c's x texels
// (start, step, end). A step of the chunk moves each column's elements by 4*c.y*(lda - 1), a
// multiple of 4: its texel by c.y*(lda - 1) and its place in the texel not at all, so the
// four positions go by addition. Texels on the band's edge, the diagonal block or past the
// matrix load through load_columns and are masked lane by lane.
vec4 band_column_part(int t, ivec4 i4, ivec3 c, bool skip) {
    vec4 acc = vec4(0.0);
    int d = c.y * (lda - 1);
    ivec2 dp = texel_pos(d, a_width);
    int j0 = 4 * c.x;
    ivec4 e = ivec4(base(j0), base(j0 + 1), base(j0 + 2), base(j0 + 3)) + ivec4(4 * t);
    ivec4 r = e & 3;
    ivec4 q = e >> 2;
    ivec2 p0 = texel_pos(q.x, a_width);
    ivec2 p1 = texel_pos(q.y, a_width);
    ivec2 p2 = texel_pos(q.z, a_width);
    ivec2 p3 = texel_pos(q.w, a_width);
    ivec2 xp = texel_pos(c.x, x_width);
    ivec2 xs = texel_pos(c.y, x_width);
    for (int l = c.x; l < c.z; l += c.y) {
        vec4 xv = X_TEXEL(l, xp);
        bool diag = l == t;
        // The texel's 16 elements all in the band: j - i from 4l - 4t - 3 to 4l + 3 - 4t.
        bool inside = 4 * (l - t) - 3 >= band_lo && 4 * (l - t) + 3 <= band_hi;
        if (diag || !inside || 4 * l + 3 >= cols || 4 * t + 3 >= rows) {
            mat4 m = load_columns(e);
            int j = 4 * l;
            for (int k = 0; k < 4; ++k) {
                bvec4 keep_k = both(in_band(i4, j + k), bvec4(j + k < cols));
                if (skip && xv[k] == 0.0) keep_k = bvec4(false);
                if (diag) {
                    m[k] = unit(m[k], i4, j + k);
                    keep_k = both(keep_k, keep(col_rule, i4, j + k));
                }
                acc += select4(vec4(0.0), m[k] * xv[k], keep_k);
            }
        } else {
            q = e >> 2;
            mat4 m = mat4(load_at(p0, q.x, r.x), load_at(p1, q.y, r.y), load_at(p2, q.z, r.z),
                          load_at(p3, q.w, r.w));
            acc += column_terms(m, xv, skip);
        }
        e += ivec4(4 * d);
        xp = advance(xp, xs, x_width);
        p0 = advance(p0, dp, a_width);
        p1 = advance(p1, dp, a_width);
        p2 = advance(p2, dp, a_width);
        p3 = advance(p3, dp, a_width);
    }
    return acc;
}
#endif

void main() {
    ivec2 f = ivec2(gl_FragCoord.xy);
    int s = f.y / band_rows;
    int t = (f.y - s * band_rows) * out_width + f.x;
    vec4 acc = vec4(0.0);
    if (t >= out_texels) {
        put_sums(s, t, acc);
        return;
    }
    ivec4 lanes = ivec4(0, 1, 2, 3);
    bool band = storage == 1;
    if (col_rule >= 0) {
        // Row i of A reaches columns j with band_lo <= j - i <= band_hi.
        bool upper = col_rule == 1 || col_rule == 2;
        bool lower = col_rule == 3 || col_rule == 4;
        int lf = max(0, 4 * t + band_lo) >> 2;
        int lt = min(cols - 1, 4 * t + 3 + band_hi) >> 2;
        if (upper) lf = max(lf, t);
        if (lower) lt = min(lt, t);
        ivec3 c = chunk_range(s, lf, lt);
        ivec4 i4 = ivec4(4 * t) + lanes;
        bool skip = skip_zero != 0;
#if BAND
        acc += band_column_part(t, i4, c, skip);
#else
        for (int l = c.x; l < c.z; l += c.y) {
            vec4 xv = X_TEXEL(l, texel_pos(l, x_width));
            bool diag = l == t;
            // The texel's 16 elements all in the band: j - i from 4l - 4t - 3 to 4l + 3 - 4t.
            // Texels with rows or columns past the matrix's go the masked way.
            bool inside = !band || (4 * (l - t) - 3 >= band_lo && 4 * (l - t) + 3 <= band_hi);
            bool edge = diag || !inside || 4 * l + 3 >= cols || 4 * t + 3 >= rows;
            if (!edge && band) {
                int j = 4 * l;
                mat4 m = load_columns(ivec4(base(j), base(j + 1), base(j + 2), base(j + 3))
                                      + ivec4(4 * t));
                acc += column_terms(m, xv, skip);
                continue;
            }
            for (int q = 0; q < 4; ++q) {
                int j = 4 * l + q;
                if (j >= cols || (skip && xv[q] == 0.0)) continue;
                vec4 v = load4(base(j) + 4 * t);
                if (diag) v = unit(v, i4, j);
                v *= xv[q];
                if (edge) {
                    bvec4 m = in_band(i4, j);
                    if (diag) m = both(m, keep(col_rule, i4, j));
                    v = select4(vec4(0.0), v, m);
                }
                acc += v;
            }
        }
#endif
    }
#if !BAND
    if (row_rule >= 0) {
        // Column j of A reaches rows i with j - band_hi <= i <= j - band_lo.
        bool upper = row_rule == 1 || row_rule == 2;
        bool lower = row_rule == 3 || row_rule == 4;
        int lf = max(0, 4 * t - band_hi) >> 2;
        int lt = min(rows - 1, 4 * t + 3 - band_lo) >> 2;
        if (upper) lt = min(lt, t);
        if (lower) lf = max(lf, t);
        ivec3 c = chunk_range(s, lf, lt);
        // Results past cols read column cols-1; they are discarded.
        ivec4 j4 = min(ivec4(4 * t) + lanes, ivec4(cols - 1));
        ivec4 e4 = ivec4(base(j4.x), base(j4.y), base(j4.z), base(j4.w));
        for (int l = c.x; l < c.z; l += c.y) {
            bvec4 live = live_lanes(l, rows);
            vec4 xv = select4(vec4(0.0), X_TEXEL(l, texel_pos(l, x_width)), live);
            ivec4 i4 = ivec4(4 * l) + lanes;
            bool diag = l == t;
            // The texel's 16 elements all in the band: j - i from 4t - 4l - 3 to 4t + 3 - 4l.
            // Texels with rows or columns past the matrix's go the masked way.
            bool inside = !band || (4 * (t - l) - 3 >= band_lo && 4 * (t - l) + 3 <= band_hi);
            bool edge = diag || !inside || 4 * l + 3 >= rows || 4 * t + 3 >= cols;
            if (!edge && band) {
                mat4 m = load_columns(e4 + ivec4(4 * l));
                acc += vec4(dot(m[0], xv), dot(m[1], xv), dot(m[2], xv), dot(m[3], xv));
                continue;
            }
            for (int q = 0; q < 4; ++q) {
                int j = 4 * t + q;
                vec4 v = load4(e4[q] + 4 * l);
                if (diag) v = unit(v, i4, j);
                v *= xv;
                if (edge) {
                    bvec4 m = both(live, in_band(i4, j));
                    if (diag) m = both(m, keep(row_rule, i4, j));
                    v = select4(vec4(0.0), v, m);
                }
                acc[q] += dot(v, vec4(1.0));
            }
        }
    }
#endif
    put_sums(s, t, acc);
}
