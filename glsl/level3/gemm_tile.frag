// sgemm tile kernel: fragment (x, y) computes the ROWS x 8 tile
// C(ROWS*y .. ROWS*y + ROWS-1, 8x .. 8x+7) over all of k in registers and writes it through
// image stores, so a tile is not limited to the 32 floats of 8 render targets. op(A) comes
// from a storage buffer (vec4 loads the fragments of a warp share), op(B) from a texture:
// per k, two texel fetches and ROWS/4 vec4 loads feed 8*ROWS multiply-adds, and the two
// rows of fragments of a 2x2 quad fetch the same texels of op(B).
//   bt:     op(B) in texels of 4 columns: texel (x, l) = op(B)(l, 4x .. 4x+3); zero past n
//           (its width is even)
//   a[]:    op(A) in vec4 of 4 rows: a[l * a_width + x] = op(A)(4x .. 4x+3, l); zero past m
//           (a_width is a multiple of ROWS/4)
//   prod:   texel (ib, j) = rows 4ib .. 4ib+3 of column j of op(A)*op(B); stores past its
//           edges (rows past m, columns past n) have no effect
// A fragment whose tile holds no element of the window's triangle (gemm_window.glsl,
// compiled in before this file) writes nothing; a tile sums only the terms its rows take
// (term_range there: the blocked triangular product). ROWS (8 or 16) and UNROLL are defined
// before this file.
uniform sampler2D bt;
uniform int k;
uniform int a_width;

layout(std430, binding = 0) readonly restrict buffer PackedA {
    vec4 a[];
};

layout(binding = 0, rgba32f) writeonly uniform highp image2D prod;

#define H (ROWS / 4)

void main() {
    ivec2 f = ivec2(gl_FragCoord.xy);
    if (!block_written(ROWS * f.y, ROWS * f.y + ROWS - 1, 8 * f.x, 8 * f.x + 7)) {
        return;
    }
    // lo[r], hi[r]: row r of the tile, columns 0-3 and 4-7.
    vec4 lo[ROWS];
    vec4 hi[ROWS];
    for (int r = 0; r < ROWS; ++r) {
        lo[r] = vec4(0.0);
        hi[r] = vec4(0.0);
    }
    ivec2 terms = term_range(ROWS * f.y, 0, k);
    int at = H * f.y + terms.x * a_width;
#define TILE_STEP(b0, b1)                        \
    for (int h = 0; h < H; ++h) {                \
        vec4 av = a[at + h];                     \
        lo[4 * h] += av.x * b0;                  \
        hi[4 * h] += av.x * b1;                  \
        lo[4 * h + 1] += av.y * b0;              \
        hi[4 * h + 1] += av.y * b1;              \
        lo[4 * h + 2] += av.z * b0;              \
        hi[4 * h + 2] += av.z * b1;              \
        lo[4 * h + 3] += av.w * b0;              \
        hi[4 * h + 3] += av.w * b1;              \
    }                                            \
    at += a_width;
    // UNROLL values of k per iteration, their 2*UNROLL fetches issued first.
    int l = terms.x;
    for (; l + UNROLL <= terms.y; l += UNROLL) {
        vec4 bb[2 * UNROLL];
        for (int u = 0; u < UNROLL; ++u) {
            bb[2 * u] = texelFetch(bt, ivec2(2 * f.x, l + u), 0);
            bb[2 * u + 1] = texelFetch(bt, ivec2(2 * f.x + 1, l + u), 0);
        }
        for (int u = 0; u < UNROLL; ++u) {
            TILE_STEP(bb[2 * u], bb[2 * u + 1])
        }
    }
    for (; l < terms.y; ++l) {
        vec4 b0 = texelFetch(bt, ivec2(2 * f.x, l), 0);
        vec4 b1 = texelFetch(bt, ivec2(2 * f.x + 1, l), 0);
        TILE_STEP(b0, b1)
    }
    for (int h = 0; h < H; ++h) {
        int x = H * f.y + h;
        for (int c = 0; c < 4; ++c) {
            imageStore(prod, ivec2(x, 8 * f.x + c),
                       vec4(lo[4 * h][c], lo[4 * h + 1][c], lo[4 * h + 2][c], lo[4 * h + 3][c]));
            imageStore(prod, ivec2(x, 8 * f.x + 4 + c),
                       vec4(hi[4 * h][c], hi[4 * h + 1][c], hi[4 * h + 2][c], hi[4 * h + 3][c]));
        }
    }
}
