// A block product of the triangular routines (blas/level3/tri): for the rows r of
// [r0, r1), out(r, j) = beta*c(r, j) + alpha*(sum of T(r, l)*W(l, j) over the l of
// [l0, l1) that `part` keeps: all (0), l >= r (1: a diagonal block of an upper T), l <= r (2:
// of a lower one)). beta == 0 does not read c. A diagonal block reads only the stored
// triangle, never the zeros of the other one. T is read from its transpose Ts and W and c
// are pitched (texel (x, y) holds rows 4x..4x+3 of column y): texel (l/4, r) of Ts is
// T(r, l..l+3). skip_w leaves out the terms whose W(l, j) is 0 and skip_t those whose
// off-diagonal T(r, l) is 0, as reference's loops do. A lane is a texel of the output: rows
// 4x..4x+3 of column y; its rows outside [r0, r1) keep c's values (0 when beta == 0).
uniform sampler2D w;
uniform sampler2D ts;
uniform sampler2D c;
uniform int r0;
uniform int r1;
uniform int l0;
uniform int l1;
uniform int part;
uniform float alpha;
uniform float beta;
uniform int skip_w;
uniform int skip_t;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int i0 = 4 * p.x;
    // The summed rows any of this lane's rows can use.
    int lo = part == 1 ? max(l0, i0) : l0;
    int hi = part == 2 ? min(l1, i0 + 4) : l1;
    vec4 acc = vec4(0.0);
    for (int lt = lo >> 2; 4 * lt < hi; ++lt) {
        vec4 wv = texelFetch(w, ivec2(lt, p.y), 0);
        for (int k = 0; k < 4; ++k) {
            int r = i0 + k;
            if (r >= r1) {
                break;
            }
            vec4 tv = texelFetch(ts, ivec2(lt, r), 0);
            for (int d = 0; d < 4; ++d) {
                int l = 4 * lt + d;
                bool inside = l >= lo && l < hi &&
                              (part == 0 || (part == 1 ? l >= r : l <= r));
                bool skipped = (skip_w != 0 && wv[d] == 0.0) ||
                               (skip_t != 0 && l != r && tv[d] == 0.0);
                if (inside && !skipped) {
                    acc[k] += tv[d] * wv[d];
                }
            }
        }
    }
    vec4 old = beta != 0.0 ? texelFetch(c, p, 0) : vec4(0.0);
    for (int k = 0; k < 4; ++k) {
        int r = i0 + k;
        if (r >= r0 && r < r1) {
            result[k] = blas_update(alpha, acc[k], beta, old[k]);
        } else {
            result[k] = old[k];
        }
    }
}
