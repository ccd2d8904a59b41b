// sgemm reorder pass through image stores, PER texels a fragment, PER_T where transposed
// (PACK_TEXELS and PACK_TEXELS_T in kernel.rs: on the H100 PER 2 beat 1, 4, 8 and 16, PER_T
// 4 beat 2; the rendered pack, gemm_pack.frag, writes one texel a fragment through the
// raster's outputs). Layout
// texel (x, y) holds rows 4x..4x+3 of column y of op(M), where op(M) is rows x cols and M
// is stored column-major from element src_off with leading dimension ld (transposed when
// trans != 0); rows past `rows` and columns past `cols` are zero. `extent` is the layout's
// size in texels; every layout texel is written, at the texture position `place` gives
// (with twin != 0 also into dst2, at the place of place_kind2, within extent2: one read of
// op(M) for two layouts, as ssyrk's op(A) and op(A)^T need):
//   place_kind 0: (x, y);
//   place_kind 1: 2x2 blocks, layout texel (x, y) at (2*(x/4) + x%2, 2*y + (x%4)/2), so
//                 four neighbouring texels of one column share a 2x2 block (the strip
//                 kernels' op(B));
//   place_kind 2: the strip kernels' blocks of op(A): with x = 2s + h and y = c*KC + kk,
//                 at (2*kk + h, s*chunks + c) (see gemm_pack_strip.frag).
// Without trans a fragment writes the texels x0..x0+PER-1 of one layout row (4*PER
// consecutive stored elements); with trans the texels y0..y0+PER_T-1 of one layout column
// (four runs of PER_T stored elements, transposed), as fragment (y0 / PER_T, x). With
// DST_BUFFER defined, dst is a storage buffer (below).
// PER_T is the transposed form's PER: there a fragment reads each of its four columns
// whole texels at a time, so four texels use every element fetched where two used half
// (KC, PER and PER_T are defined before this file).
// `spread` orders the grid's rows (op(M) = M only: M's columns, by common.glsl's
// spread_index in runs of 4) so that a warp's four rows of fragments read columns `spread`
// apart: with spread = the columns a row of the source texture holds, their runs start on
// neighbouring texture rows, not side by side across one (`Operand::pack_spread`; 1: in
// order).
uniform sampler2D src;
uniform int src_width;
uniform int src_last;
uniform int src_off;
uniform int ld;
uniform int trans;
uniform int rows;
uniform int cols;
uniform int place_kind;
uniform int chunks;
uniform ivec2 extent;
uniform int twin;
uniform int place_kind2;
uniform ivec2 extent2;
uniform int spread;
// The terms the product's rows take (t_tri and t_block as gemm_window.glsl's term_range:
// 0 every term; 1 l < (i / t_block) * t_block; 2 l >= (i / t_block + 1) * t_block), for a
// pack of op(A) whose kernel bounds its sums: texels no row takes are neither read nor
// written (half of a triangle's pack; t_block is a multiple of 32, so a fragment's texels
// are all taken or all not).
uniform int t_tri;
uniform int t_block;

// Whether layout texel (x, y) of op(A) (rows 4x..4x+3, term y) is a term of its rows.
bool taken(int x, int y) {
    if (t_tri == 1) {
        return y < 4 * x / t_block * t_block;
    }
    if (t_tri == 2) {
        return y >= (4 * x / t_block + 1) * t_block;
    }
    return true;
}

#ifdef DST_BUFFER
// dst is a storage buffer of rows of dst_width texels (the bytes glReadPixels of a texture
// that wide would give): the strip kernels' uniform blocks, the tile kernels' op(A), written
// where they are read, with no copy of a texture into the buffer after the pass.
layout(std430, binding = 0) writeonly buffer Dst {
    vec4 dst_texels[];
};
uniform int dst_width;
layout(binding = 0, rgba32f) writeonly uniform highp image2D dst2;
#else
layout(binding = 0, rgba32f) writeonly uniform highp image2D dst;
layout(binding = 1, rgba32f) writeonly uniform highp image2D dst2;
#endif

ivec2 place(int kind, int x, int y) {
    if (kind == 1) {
        return quad_texel(x, y);
    }
    if (kind == 2) {
        int c = y / KC;
        return ivec2(2 * (y - c * KC) + (x & 1), (x >> 1) * chunks + c);
    }
    return ivec2(x, y);
}

// Layout texel (x, y) into dst, and with twin into dst2, where each extent holds it.
void put(int x, int y, vec4 v) {
    if (x < extent.x && y < extent.y) {
        ivec2 at = place(place_kind, x, y);
#ifdef DST_BUFFER
        dst_texels[at.y * dst_width + at.x] = v;
#else
        imageStore(dst, at, v);
#endif
    }
    if (twin != 0 && x < extent2.x && y < extent2.y) {
        imageStore(dst2, place(place_kind2, x, y), v);
    }
}

// A run of source texels from q: its first position, clamped to the last texel (lanes that
// read past it are masked). One division a run; run_next steps by addition.
ivec2 run_start(int q) {
    return texel_pos(min(q, src_last), src_width);
}

// Texel q (at pos) of a run, then pos steps to q + 1 (staying on the last texel).
vec4 run_next(inout int q, inout ivec2 pos) {
    vec4 v = texelFetch(src, pos, 0);
    if (q < src_last) {
        pos = advance(pos, ivec2(1, 0), src_width);
    }
    q += 1;
    return v;
}

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    ivec2 ext = twin != 0 ? max(extent, extent2) : extent;
    if (trans == 0) {
        // op(M)(4x + l, y) = M(4x + l, y): stored elements e0 + 4i + l, i < PER.
        int x0 = PER * g.x;
        int y = spread_index(g.y, ext.y, spread, 4);
        if (!taken(x0, y)) {
            return;
        }
        bool col = y < cols;
        int e0 = src_off + 4 * x0 + y * ld;
        int q = e0 >> 2;
        int r = e0 & 3;
        int qq = q;
        ivec2 pos = run_start(q);
        vec4 lo = col ? run_next(qq, pos) : vec4(0.0);
        for (int i = 0; i < PER; ++i) {
            int x = x0 + i;
            if (x >= ext.x) {
                break;
            }
            // A run that starts on a texel boundary (r == 0) needs no texel past its end.
            vec4 hi = col && (r != 0 || i + 1 < PER) ? run_next(qq, pos) : vec4(0.0);
            bvec4 live = lessThan(ivec4(4 * x) + ivec4(0, 1, 2, 3), ivec4(col ? rows : 0));
            put(x, y, select4(vec4(0.0), shift4(lo, hi, r), live));
            lo = hi;
        }
    } else {
        // op(M)(4x + l, y) = M(y, 4x + l): column 4x + l of M, elements y0 .. y0 + PER-1.
        // The grid's x runs along the columns: a warp's neighbouring fragments then read
        // one run of each of its four columns, not runs of 32 columns side by side.
        int x = g.y;
        int y0 = PER_T * g.x;
        if (!taken(x, y0)) {
            return;
        }
        vec4 v[PER_T];
        for (int i = 0; i < PER_T; ++i) {
            v[i] = vec4(0.0);
        }
        for (int l = 0; l < 4; ++l) {
            if (4 * x + l >= rows) {
                break;
            }
            int e0 = src_off + y0 + (4 * x + l) * ld;
            int q = e0 >> 2;
            int r = e0 & 3;
            vec4 t[(PER_T + 3) / 4 + 1];
            int qq = q;
            ivec2 pos = run_start(q);
            for (int j = 0; j <= (PER_T + 3) / 4; ++j) {
                t[j] = r != 0 || j < (PER_T + 3) / 4 ? run_next(qq, pos) : vec4(0.0);
            }
            for (int j = 0; j < (PER_T + 3) / 4; ++j) {
                vec4 a = shift4(t[j], t[j + 1], r);
                for (int i = 0; i < 4 && 4 * j + i < PER_T; ++i) {
                    v[4 * j + i][l] = a[i];
                }
            }
        }
        for (int i = 0; i < PER_T; ++i) {
            int y = y0 + i;
            if (y >= ext.y) {
                break;
            }
            put(x, y, y < cols ? v[i] : vec4(0.0));
        }
    }
}
