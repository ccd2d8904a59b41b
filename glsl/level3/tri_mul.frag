// A diagonal block of a triangular product (blas/level3/tri): for the rows r of
// [r0, r1), out(r, j) = sum of T(r, l) * W(l, j) over the l of [r0, r1) on r's side of the
// diagonal (l >= r when T is upper, l <= r when lower): only the stored triangle, never the
// zeros of the other one. T is read from its transpose Ts and W is pitched (texel (x, y)
// holds rows 4x..4x+3 of column y): texel (l/4, r) of Ts is T(r, l..l+3). skip_w leaves out
// the terms whose W(l, j) is 0 and skip_t those whose off-diagonal T(r, l) is 0, as
// reference's loops do. A lane is a texel of the output: rows 4x..4x+3 of column y; rows
// past r1 get 0.
uniform sampler2D w;
uniform sampler2D ts;
uniform int r0;
uniform int r1;
uniform int upper;
uniform int skip_w;
uniform int skip_t;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int i0 = 4 * p.x;
    int lo = upper != 0 ? i0 : r0;
    int hi = upper != 0 ? r1 : min(i0 + 4, r1);
    vec4 acc = vec4(0.0);
    for (int lt = lo >> 2; 4 * lt < hi; ++lt) {
        vec4 wv = texelFetch(w, ivec2(lt, p.y), 0);
        for (int c = 0; c < 4; ++c) {
            int r = i0 + c;
            if (r >= r1) {
                break;
            }
            vec4 tv = texelFetch(ts, ivec2(lt, r), 0);
            for (int d = 0; d < 4; ++d) {
                int l = 4 * lt + d;
                bool inside = l >= lo && l < hi && (upper != 0 ? l >= r : l <= r);
                bool skipped = (skip_w != 0 && wv[d] == 0.0) ||
                               (skip_t != 0 && l != r && tv[d] == 0.0);
                if (inside && !skipped) {
                    acc[c] += tv[d] * wv[d];
                }
            }
        }
    }
    result = acc;
}
