// op(A)*x over full column-major storage read as vec4 texels, for a general, triangular or
// symmetric matrix (sgemv, strmv, ssymv), over one chunk of the summed index. A's leading
// dimension is a multiple of 4, so texel (r, j) of A is rows 4r..4r+3 of column j, at
// linear texel r + j*lda/4; x has increment 1, so x texel l is x_{4l..4l+3}.
//
// Fragment (x, y) of band s computes the four results 4t..4t+3 (t its texel in a vector laid
// out out_width texels wide) summed over the x texels l of chunk s, [s chunk, (s+1) chunk),
// in two parts, either of which may be absent (rule -1):
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
uniform int unit_diag;
uniform int skip_zero;
uniform sampler2D x;
uniform int x_width;
uniform int out_width;
uniform int out_texels;
uniform int band_rows;
uniform int chunk;

layout(location = 0) out vec4 result;

// Which elements (i, j) = (i4 + lane, j) of a diagonal-block texel count under `rule`.
bvec4 keep(int rule, ivec4 i4, int j) {
    if (rule == 1) return lessThanEqual(i4, ivec4(j));
    if (rule == 2) return lessThan(i4, ivec4(j));
    if (rule == 3) return greaterThanEqual(i4, ivec4(j));
    if (rule == 4) return greaterThan(i4, ivec4(j));
    return bvec4(true);
}

// Texel v of A holding elements (i4 + lane, j), with the unit diagonal applied.
vec4 unit(vec4 v, ivec4 i4, int j) {
    if (unit_diag != 0) {
        return select4(v, vec4(1.0), equal(i4, ivec4(j)));
    }
    return v;
}

void main() {
    ivec2 f = ivec2(gl_FragCoord.xy);
    int s = f.y / band_rows;
    int t = (f.y - s * band_rows) * out_width + f.x;
    vec4 acc = vec4(0.0);
    if (t >= out_texels) {
        result = acc;
        return;
    }
    int ld4 = lda >> 2;
    ivec2 one = ivec2(1, 0);
    ivec4 lanes = ivec4(0, 1, 2, 3);
    if (col_rule >= 0) {
        // x texels l of this chunk in the part's triangle: [lo, hi).
        int lo = s * chunk;
        int hi = min(lo + chunk, (cols + 3) >> 2);
        if (col_rule == 1 || col_rule == 2) lo = max(lo, t);
        if (col_rule == 3 || col_rule == 4) hi = min(hi, t + 1);
        // Texels off the diagonal block whose four columns all exist, [fl, fh), go without
        // masks or conditions on the fetches (on llvmpipe, whose cores are the "GPU", the
        // masked loop made sgemv 1024^2 1.6x slower); the diagonal block and a last partial
        // texel one at a time with their masks.
        int fl = lo;
        int fh = min(hi, cols >> 2);
        if ((col_rule == 1 || col_rule == 2) && fl == t) fl += 1;
        if (col_rule == 3 || col_rule == 4) fh = min(fh, t);
        fh = max(fh, fl);
        ivec2 col = texel_pos(ld4, a_width);
        ivec2 xp = texel_pos(fl, x_width);
        ivec2 ap = texel_pos(t + 4 * fl * ld4, a_width);
        bool skip = skip_zero != 0;
        for (int l = fl; l < fh; ++l) {
            vec4 xv = texelFetch(x, xp, 0);
            xp = advance(xp, one, x_width);
            vec4 a0 = texelFetch(a, ap, 0);
            ap = advance(ap, col, a_width);
            vec4 a1 = texelFetch(a, ap, 0);
            ap = advance(ap, col, a_width);
            vec4 a2 = texelFetch(a, ap, 0);
            ap = advance(ap, col, a_width);
            vec4 a3 = texelFetch(a, ap, 0);
            ap = advance(ap, col, a_width);
            if (skip) {
                acc += xv.x == 0.0 ? vec4(0.0) : a0 * xv.x;
                acc += xv.y == 0.0 ? vec4(0.0) : a1 * xv.y;
                acc += xv.z == 0.0 ? vec4(0.0) : a2 * xv.z;
                acc += xv.w == 0.0 ? vec4(0.0) : a3 * xv.w;
            } else {
                acc += a0 * xv.x + a1 * xv.y + a2 * xv.z + a3 * xv.w;
            }
        }
        // The diagonal block and a last partial texel.
        ivec4 i4 = ivec4(4 * t) + lanes;
        for (int k = 0; k < 2; ++k) {
            int lk = k == 0 ? t : fh;
            bool diag = col_rule != 0 && t >= lo && t < hi;
            bool take = k == 0 ? diag : fh < hi && fh >= lo && !(diag && fh == t);
            if (!take) continue;
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
        int lo = s * chunk;
        int hi = min(lo + chunk, (rows + 3) >> 2);
        if (row_rule == 1 || row_rule == 2) hi = min(hi, t + 1);
        if (row_rule == 3 || row_rule == 4) lo = max(lo, t);
        // Results past cols read column cols-1; they are discarded.
        int j0 = 4 * t;
        ivec2 xp = texel_pos(lo, x_width);
        ivec2 p0 = texel_pos(min(j0, cols - 1) * ld4 + lo, a_width);
        ivec2 p1 = texel_pos(min(j0 + 1, cols - 1) * ld4 + lo, a_width);
        ivec2 p2 = texel_pos(min(j0 + 2, cols - 1) * ld4 + lo, a_width);
        ivec2 p3 = texel_pos(min(j0 + 3, cols - 1) * ld4 + lo, a_width);
        for (int l = lo; l < hi; ++l) {
            bvec4 live = live_lanes(l, rows);
            vec4 xv = select4(vec4(0.0), texelFetch(x, xp, 0), live);
            xp = advance(xp, one, x_width);
            vec4 v0 = select4(vec4(0.0), texelFetch(a, p0, 0), live);
            vec4 v1 = select4(vec4(0.0), texelFetch(a, p1, 0), live);
            vec4 v2 = select4(vec4(0.0), texelFetch(a, p2, 0), live);
            vec4 v3 = select4(vec4(0.0), texelFetch(a, p3, 0), live);
            p0 = advance(p0, one, a_width);
            p1 = advance(p1, one, a_width);
            p2 = advance(p2, one, a_width);
            p3 = advance(p3, one, a_width);
            if (l == t) {
                // Only here do elements outside the triangle share a texel with it.
                ivec4 i4 = ivec4(4 * l) + lanes;
                v0 = select4(vec4(0.0), unit(v0, i4, j0) * xv, keep(row_rule, i4, j0));
                v1 = select4(vec4(0.0), unit(v1, i4, j0 + 1) * xv, keep(row_rule, i4, j0 + 1));
                v2 = select4(vec4(0.0), unit(v2, i4, j0 + 2) * xv, keep(row_rule, i4, j0 + 2));
                v3 = select4(vec4(0.0), unit(v3, i4, j0 + 3) * xv, keep(row_rule, i4, j0 + 3));
                acc += vec4(dot(v0, vec4(1.0)), dot(v1, vec4(1.0)), dot(v2, vec4(1.0)),
                            dot(v3, vec4(1.0)));
            } else {
                acc += vec4(dot(v0, xv), dot(v1, xv), dot(v2, xv), dot(v3, xv));
            }
        }
    }
    result = acc;
}
