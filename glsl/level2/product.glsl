// What the level-2 product kernels share (product_vec4.frag, product_stored.frag): which
// elements of a diagonal-block texel a part's rule counts, the unit diagonal, the chunks of
// the summed index, and where a fragment's sums go (put_sums). Compiled in after
// common.glsl, before the kernel.
uniform int unit_diag;

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

// The chunks: fragment (x, y) of band s = y / band_rows (bands of band_rows rows, out_width
// texels a row) sums chunk s (chunk texels of the summed index, chunks in all) for result
// texel t of out_texels.
uniform int out_width;
uniform int out_texels;
uniform int band_rows;
uniform int chunk;
uniform int chunks;

// FOLD (defined before this file, or not): where the sums of a result texel's chunks go.
// Without it each fragment renders its chunk's sums into its band, and a fold pass adds the
// bands. With it (devices with image stores and fragment storage blocks) the draw renders
// nothing and adds the chunks itself: each fragment stores its sums in `partials` (texel t of
// chunk s at s*out_texels + t) and counts itself in arrivals[t]; the one that arrives last
// adds the chunks in the fold's order (0 + chunk 0 + chunk 1 + ...: the same sums, bit for
// bit), resets the count for the next draw, and stores texel t of `sums_out`: the sums, or
// with `update` y := alpha*sums + beta*y (blas_update: beta == 0 reads no y; lanes past
// len_y keep y's), where y is sums_out's own texture, read through `y`. Texels past
// out_texels of a new vector (update == 0) get zeros, as the fold's sums of empty bands.
#ifdef FOLD
layout(std430, binding = 1) coherent restrict buffer Partials {
    vec4 partials[];
};
layout(std430, binding = 2) coherent restrict buffer Arrivals {
    uint arrivals[];
};
layout(binding = 0, rgba32f) writeonly uniform highp image2D sums_out;
uniform sampler2D y;
uniform int sums_width;
uniform int update;
uniform float alpha;
uniform float beta;
uniform int len_y;
#else
layout(location = 0) out vec4 result;
#endif

// Puts fragment (band s, result texel t)'s sums acc where they go (see FOLD).
void put_sums(int s, int t, vec4 acc) {
#ifdef FOLD
    ivec2 p = texel_pos(t, sums_width);
    if (t >= out_texels) {
        if (s == 0 && update == 0) imageStore(sums_out, p, vec4(0.0));
        return;
    }
    vec4 sums = acc;
    if (chunks > 1) {
        partials[s * out_texels + t] = acc;
        memoryBarrierBuffer();
        if (atomicAdd(arrivals[t], 1u) != uint(chunks - 1)) return;
        memoryBarrierBuffer();
        sums = vec4(0.0);
        for (int k = 0; k < chunks; ++k) {
            sums += k == s ? acc : partials[k * out_texels + t];
        }
        arrivals[t] = 0u;
    }
    if (update != 0) {
        vec4 yv = texelFetch(y, p, 0);
        vec4 w = vec4(blas_update(alpha, sums.x, beta, yv.x), blas_update(alpha, sums.y, beta, yv.y),
                      blas_update(alpha, sums.z, beta, yv.z), blas_update(alpha, sums.w, beta, yv.w));
        sums = select4(yv, w, live_lanes(t, len_y));
    }
    imageStore(sums_out, p, sums);
#else
    result = acc;
#endif
}
