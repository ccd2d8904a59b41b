// sgemm, register-tiled kernel on packed operands with multiple render targets: fragment
// (ib, jb) computes rows 4ib..4ib+3 of the COLS columns jb*COLS .. jb*COLS+COLS-1 of
// op(A)*op(B) and writes column r to render target r. Per four steps of k it fetches four
// vec4 of op(A), shared by all columns, and one vec4 of op(B) per column: 4 + COLS fetches
// for 16*COLS multiply-adds (the vec4 kernel: 5 fetches for 16). A fragment whose block
// holds no element of the window's triangle (gemm_window.glsl, compiled in before this
// file; n is its uniform) is discarded. COLS (4 or 8) is a constant defined before this
// file.
//   ap: texel (ib, l) = op(A)(4ib..4ib+3, l), l < 4*k4 (zero-padded)
//   bp: texel (lb, j) = op(B)(4lb..4lb+3, j), j < n
uniform sampler2D ap;
uniform sampler2D bp;
uniform int k4;

layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
#if COLS == 8
layout(location = 4) out vec4 o4;
layout(location = 5) out vec4 o5;
layout(location = 6) out vec4 o6;
layout(location = 7) out vec4 o7;
#endif

// Multiply-adds one column: acc += [a0 a1 a2 a3] * b.
#define STEP(acc, col)                                                 \
    {                                                                  \
        vec4 b = texelFetch(bp, ivec2(lb, min(j0 + col, jlast)), 0);   \
        acc += a0 * b.x + a1 * b.y + a2 * b.z + a3 * b.w;              \
    }

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int j0 = p.y * COLS;
    if (!block_written(4 * p.x, 4 * p.x + 3, j0, j0 + COLS - 1)) {
        discard;
    }
    int jlast = n - 1;  // columns past n read column n-1; the merge pass ignores them
    vec4 c0 = vec4(0.0), c1 = vec4(0.0), c2 = vec4(0.0), c3 = vec4(0.0);
#if COLS == 8
    vec4 c4 = vec4(0.0), c5 = vec4(0.0), c6 = vec4(0.0), c7 = vec4(0.0);
#endif
    for (int lb = 0; lb < k4; ++lb) {
        int l = 4 * lb;
        vec4 a0 = texelFetch(ap, ivec2(p.x, l), 0);
        vec4 a1 = texelFetch(ap, ivec2(p.x, l + 1), 0);
        vec4 a2 = texelFetch(ap, ivec2(p.x, l + 2), 0);
        vec4 a3 = texelFetch(ap, ivec2(p.x, l + 3), 0);
        STEP(c0, 0)
        STEP(c1, 1)
        STEP(c2, 2)
        STEP(c3, 3)
#if COLS == 8
        STEP(c4, 4)
        STEP(c5, 5)
        STEP(c6, 6)
        STEP(c7, 7)
#endif
    }
    o0 = c0;
    o1 = c1;
    o2 = c2;
    o3 = c3;
#if COLS == 8
    o4 = c4;
    o5 = c5;
    o6 = c6;
    o7 = c7;
#endif
}
