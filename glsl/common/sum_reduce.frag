// Ping-pong pass: fragment p sums the texels p + k*fold_step (k < fan_in) of the src_size
// rectangle of src, lane by lane. With fan_in 2 this is the blueprint's half reduction.
// Four texels a round, fetched before any is added (a small pass has few fragments, and a
// chain of one fetch at a time leaves each fetch's latency exposed); the sums keep their
// order. Positions grow with k, so where the last of a round is inside all four are.
// With GATHER defined, fragment p (texel t = p.y*gather_width + p.x of a vector of
// gather_texels) starts from the position unspread_index(t) instead of p: the bands of a
// level-2 product whose fragments computed their texels in spread order (product_vec4.frag's
// out_spread) come back in vector order; the bands are gather_src_width texels wide, the
// target gather_width. With UPDATE too the target is y's texture (increment 1) and fragment
// p writes y := alpha*sums + beta*y (blas_update: beta == 0 reads no y) on the lanes of its
// texel below len_y, y's own value elsewhere.
uniform sampler2D src;
uniform ivec2 src_size;
uniform int fan_in;
uniform ivec2 fold_step;

#ifdef GATHER
uniform int gather_width;
uniform int gather_src_width;
uniform int gather_texels;
uniform int gather_spread;
uniform int spread_run;
#endif

#ifdef UPDATE
uniform sampler2D y;
uniform int y_width;
uniform float alpha;
uniform float beta;
uniform int len_y;
#endif

layout(location = 0) out vec4 result;

bool inside(ivec2 q) {
    return q.x < src_size.x && q.y < src_size.y;
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
#ifdef GATHER
    int t = p.y * gather_width + p.x;
#endif
#ifdef UPDATE
    vec4 yv = texelFetch(y, p, 0);
#endif
#ifdef GATHER
    p = texel_pos(unspread_index(t, gather_texels, gather_spread, spread_run), gather_src_width);
#endif
    vec4 acc = vec4(0.0);
    int k = 0;
    for (; k + 4 <= fan_in; k += 4) {
        ivec2 q = p + k * fold_step;
        if (!inside(q + 3 * fold_step)) {
            break;
        }
        vec4 v0 = texelFetch(src, q, 0);
        vec4 v1 = texelFetch(src, q + fold_step, 0);
        vec4 v2 = texelFetch(src, q + 2 * fold_step, 0);
        vec4 v3 = texelFetch(src, q + 3 * fold_step, 0);
        acc += v0;
        acc += v1;
        acc += v2;
        acc += v3;
    }
    for (; k < fan_in; ++k) {
        ivec2 q = p + k * fold_step;
        if (!inside(q)) {
            break;
        }
        acc += texelFetch(src, q, 0);
    }
#ifdef UPDATE
    vec4 w = vec4(blas_update(alpha, acc.x, beta, yv.x), blas_update(alpha, acc.y, beta, yv.y),
                  blas_update(alpha, acc.z, beta, yv.z), blas_update(alpha, acc.w, beta, yv.w));
    result = select4(yv, w, live_lanes(t, len_y));
#else
    result = acc;
#endif
}
