// A diagonal block of a triangular solve (blas/level3/tri), in place on W: the rows r of
// [r0, r1) of every column get x_r, solving T x = w within the block (forward from r0 when
// T is lower, backward from r1 - 1 when upper), every row before the block in solve order
// already subtracted. T is read from its transpose Ts (texel (q/4, r) holds T(r, q..q+3))
// and W is pitched (texel (x, y) holds rows 4x..4x+3 of column y). A lane is a texel: it
// runs its column's substitution over the whole block (at most STEP rows, defined before
// this file), subtracting in reference's order, and keeps its own rows. As reference's loops do:
// skip_w leaves out the rows whose value is 0 before the division (neither divided nor
// subtracted), skip_t the terms whose T(r, q) is 0; recip divides by multiplying with the
// reciprocal; unit_diag divides by nothing. Rows outside the block pass through.
uniform sampler2D w;
uniform sampler2D ts;
uniform int r0;
uniform int r1;
uniform int forward;
uniform int unit_diag;
uniform int skip_w;
uniform int skip_t;
uniform int recip;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int i0 = 4 * p.x;
    result = texelFetch(w, p, 0);
    int first = forward != 0 ? r0 : r1 - 1;
    int dir = forward != 0 ? 1 : -1;
    // Every lane runs the whole block (the same trip count in every fragment) and takes
    // its own rows as they are solved. Mesa's softpipe (GL 3.3) computed wrong values when
    // lanes of one quad ran loops of different lengths over these arrays and read their own
    // rows back out of them by a computed index afterwards (issue 31); the work is that of
    // the block's last lane either way.
    int rows = r1 - r0;
    float sol[STEP];
    bool live[STEP];
    for (int k = 0; k < rows; ++k) {
        int r = first + dir * k;
        float v = texelFetch(w, ivec2(r >> 2, p.y), 0)[r & 3];
        int cached = -1;
        vec4 tv = vec4(0.0);
        for (int kk = 0; kk < k; ++kk) {
            int q = first + dir * kk;
            if ((q >> 2) != cached) {
                cached = q >> 2;
                tv = texelFetch(ts, ivec2(cached, r), 0);
            }
            float t = tv[q & 3];
            if (live[kk] && (skip_t == 0 || t != 0.0)) {
                v -= t * sol[kk];
            }
        }
        live[k] = skip_w == 0 || v != 0.0;
        if (unit_diag == 0 && live[k]) {
            float d = texelFetch(ts, ivec2(r >> 2, r), 0)[r & 3];
            v = recip != 0 ? v * (1.0 / d) : v / d;
        }
        sol[k] = v;
        if (r >= i0 && r < i0 + 4) {
            result[r - i0] = v;
        }
    }
}
