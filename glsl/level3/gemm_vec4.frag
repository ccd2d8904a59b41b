// sgemm, vectorised 4x4 kernel on packed operands: fragment (ib, j) computes rows
// 4ib..4ib+3 of column j of op(A)*op(B). Per four steps of k it fetches one vec4 of op(B)
// and four vec4 of op(A) for 16 multiply-adds (the generic kernel needs 32 fetches). A
// fragment whose four elements lie outside the window's triangle (gemm_window.glsl,
// compiled in before this file) is discarded.
//   ap: texel (ib, l) = op(A)(4ib..4ib+3, l), l < 4*k4 (zero-padded)
//   bp: texel (lb, j) = op(B)(4lb..4lb+3, j)
uniform sampler2D ap;
uniform sampler2D bp;
uniform int k4;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (!block_written(4 * p.x, 4 * p.x + 3, p.y, p.y)) {
        discard;
    }
    vec4 acc = vec4(0.0);
    for (int lb = 0; lb < k4; ++lb) {
        vec4 bv = texelFetch(bp, ivec2(lb, p.y), 0);
        int l = 4 * lb;
        acc += texelFetch(ap, ivec2(p.x, l), 0) * bv.x;
        acc += texelFetch(ap, ivec2(p.x, l + 1), 0) * bv.y;
        acc += texelFetch(ap, ivec2(p.x, l + 2), 0) * bv.z;
        acc += texelFetch(ap, ivec2(p.x, l + 3), 0) * bv.w;
    }
    result = acc;
}
