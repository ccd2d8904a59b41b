// One block step of a triangular solve op(A) s = t (see blas/level2/trsv.rs). t is the
// right-hand side so far (unit stride, n elements); the block is the nb unknowns
// order(k) = b0 + dir*k, k < nb, in the order the solve takes them (dir +1 or -1), and every
// unknown before the block in that order is already solved in t.
//
// With SOLVE, fragment f writes lanes 4f..4f+3 of the block's solution s (in block order),
// solving the whole block itself and keeping its four unknowns as they come (nb is small;
// every fragment does the same operations in the same order, so they agree bit for bit,
// and every fragment loops the same number of times: Mesa's softpipe, GL 3.3, computed
// wrong values when fragments of a quad ran loops of different lengths over the array of
// solved values and read their own back by a computed index afterwards, issue 31).
// Without SOLVE, the fragment of t's texel T writes t's four lanes: an unknown of the
// block gets its value from s, one after the block t_i - sum_k op(A)(i, order(k)) s_k, one
// before it stays.
//
// As reference BLAS: with skip_zero (the non-transposed solves, reference's column loops),
// a solved value of 0 neither divides by its diagonal nor updates the others, so a zero or
// NaN diagonal or column of A does not spread from it; the transposed solves (dot products)
// take every term. Only pairs within the band, j - i in [lo_off, hi_off], are read.
uniform int trans;
uniform int n;
uniform sampler2D t;
uniform int t_width;
uniform int b0;
uniform int dir;
uniform int nb;
uniform int skip_zero;
uniform int lo_off;
uniform int hi_off;

layout(location = 0) out vec4 result;

// Whether op(A)(i, j) lies in the band (always, for a full or packed matrix).
bool in_band(int i, int j) {
    return j - i >= lo_off && j - i <= hi_off;
}

#if SOLVE

void main() {
    int f = int(gl_FragCoord.x);
    float sv[NB];
    vec4 out_v = vec4(0.0);
    for (int k = 0; k < nb; ++k) {
        int j = b0 + dir * k;
        float v = load_elem(t, t_width, j);
        for (int m = 0; m < k; ++m) {
            int jm = b0 + dir * m;
            if ((skip_zero == 0 || sv[m] != 0.0) && in_band(j, jm)) {
                v -= op_mat_elem(trans, j, jm) * sv[m];
            }
        }
        if (unit_diag == 0 && (skip_zero == 0 || v != 0.0)) {
            v /= op_mat_elem(trans, j, j);
        }
        sv[k] = v;
        if (k >= 4 * f && k < 4 * f + 4) {
            out_v[k - 4 * f] = v;
        }
    }
    result = out_v;
}

#else

uniform sampler2D s;

void main() {
    int tt = frag_texel(t_width);
    vec4 v = texelFetch(t, ivec2(gl_FragCoord.xy), 0);
    for (int c = 0; c < 4; ++c) {
        int i = 4 * tt + c;
        if (i >= n) {
            break;
        }
        int k = (i - b0) * dir;  // the place of i in the solve order, relative to the block
        if (k < 0) {
            continue;            // solved before this block
        }
        if (k < nb) {
            v[c] = texelFetch(s, ivec2(k >> 2, 0), 0)[k & 3];
            continue;
        }
        float acc = v[c];
        for (int m = 0; m < nb; ++m) {
            int jm = b0 + dir * m;
            float sm = texelFetch(s, ivec2(m >> 2, 0), 0)[m & 3];
            if ((skip_zero == 0 || sm != 0.0) && in_band(i, jm)) {
                acc -= op_mat_elem(trans, i, jm) * sm;
            }
        }
        v[c] = acc;
    }
    result = v;
}

#endif
