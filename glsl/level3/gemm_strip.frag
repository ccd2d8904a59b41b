// sgemm strip kernel: each draw covers GROUP strips of 8 rows of C, and the rows of op(A) a
// strip needs sit in a uniform block, so every fragment of a strip reads the same A values
// (a broadcast, not a texture fetch). Fragment j of a strip computes the 8 x 4 tile
// C(8s .. 8s+7, 4j .. 4j+3) over one chunk of k and writes row r of the tile to render
// target r; later chunks add to it by blending. Per k it makes one texture fetch (four
// columns of op(B)) for 32 multiply-adds.
//   bt:        op(B) in texels of 4 columns, 2x2 blocks per k: texel (2q + a, 2l + b) =
//              op(B)(l, 4j .. 4j+3) with j = 4q + a + 2b; zero past n and past k (up to a
//              multiple of 4 values of k)
//   strip[g]:  a[2*kk + h] = op(A)(8s + 4h .. 8s + 4h + 3, k0 + kk) of the g-th strip drawn
// Strip s occupies rows BAND*s .. BAND*s + BAND-1 of the targets; fragment j = 4q + r of it
// sits at (2*(q / (BAND/2)) + r%2, BAND*s + 2*(q % (BAND/2)) + r/2). A fragment
// whose tile holds no element of the window's triangle (gemm_window.glsl, compiled in
// before this file) skips the k loop and writes zeros, which the merge does not read.
// GROUP, BAND and KC are defined before this file. With IN_PLACE defined (and STORE_TILE,
// for gemm_window.glsl's store_tile), where a draw of a strip sums all of k (one chunk),
// the fragment writes alpha*tile + beta*C into C through image stores instead of the
// targets: no merge pass, and no targets to write and read back. With PRIOR defined too,
// the draw is a strip's last of several (k over several chunks): where prior != 0 the
// fragment first adds what the strip's earlier draws left in the targets p0 .. p7 at its
// own position.
// With BATCHED defined too (batched sgemm, blas/level3/batched.rs: IN_PLACE, one chunk),
// the bands of a draw are strips of different products: band g of the draw is strip
// band_row[g] / 8 of its product (none where band_row[g] < 0), whose op(A) lies in its
// block from term band_l0[g] on, kc terms, whose op(B) is the quads from column quad
// band_q0[g] of bt (term t at quad row t), and whose C starts band_c[g] elements into C's
// texture; the uniforms l0, l1 and k0 are not read.
uniform sampler2D bt;
uniform int k0;
uniform int kc;
// The terms of the chunk this draw's strips sum, from k0: every one (0 .. kc) unless a
// blocked triangular product leaves some out (GemmShape::terms; the same for every strip of
// a draw). Uniform, so the loop is too.
uniform int l0;
uniform int l1;
uniform int quads;

#ifdef BATCHED
uniform int band_row[GROUP];
uniform int band_l0[GROUP];
uniform int band_q0[GROUP];
uniform int band_c[GROUP];
#define L0(g) band_l0[g]
#define L1(g) (band_l0[g] + kc)
#define K0(g) (-band_l0[g])
#else
#define L0(g) l0
#define L1(g) l1
#define K0(g) k0
#endif

layout(std140) uniform AStrip {
    vec4 a[2 * KC];
} strip[GROUP];

#ifdef PRIOR
uniform int prior;
uniform sampler2D p0;
uniform sampler2D p1;
uniform sampler2D p2;
uniform sampler2D p3;
uniform sampler2D p4;
uniform sampler2D p5;
uniform sampler2D p6;
uniform sampler2D p7;
#endif

#ifndef IN_PLACE
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
layout(location = 4) out vec4 o4;
layout(location = 5) out vec4 o5;
layout(location = 6) out vec4 o6;
layout(location = 7) out vec4 o7;
#endif

// Adds a[2l], a[2l+1] (8 rows at k0 + l) times b (4 columns) to the tile.
#define STRIP_STEP(g, b, l)                                        \
    {                                                              \
        vec4 lo = strip[g].a[2 * (l)];                             \
        vec4 hi = strip[g].a[2 * (l) + 1];                         \
        c0 += lo.x * b;                                            \
        c1 += lo.y * b;                                            \
        c2 += lo.z * b;                                            \
        c3 += lo.w * b;                                            \
        c4 += hi.x * b;                                            \
        c5 += hi.y * b;                                            \
        c6 += hi.z * b;                                            \
        c7 += hi.w * b;                                            \
    }

// The k loop over the A values of strip block g from l0 to l1, four k per iteration with the
// four fetches issued first. kc is a multiple of 4 (A and op(B) are zero past k), and l0
// is too.
#define STRIP_LOOP(g)                                              \
    for (int l = L0(g); l < L1(g); l += 4) {                       \
        vec4 b0 = texelFetch(bt, bq + ivec2(0, 2 * (K0(g) + l)), 0);          \
        vec4 b1 = texelFetch(bt, bq + ivec2(0, 2 * (K0(g) + l + 1)), 0);      \
        vec4 b2 = texelFetch(bt, bq + ivec2(0, 2 * (K0(g) + l + 2)), 0);      \
        vec4 b3 = texelFetch(bt, bq + ivec2(0, 2 * (K0(g) + l + 3)), 0);      \
        STRIP_STEP(g, b0, l)                                       \
        STRIP_STEP(g, b1, l + 1)                                   \
        STRIP_STEP(g, b2, l + 2)                                   \
        STRIP_STEP(g, b3, l + 3)                                   \
    }

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int band = p.y / BAND;
    int yb = p.y - band * BAND;
    // The 2x2 quad of fragments at (2qx, 2qy) of a band takes the four column groups
    // 4q .. 4q+3, q = qx * BAND/2 + qy, whose texels of op(B) form one 2x2 block of bt for
    // each k: one cache line per quad and fetch. Quads past the last block repeat it; the
    // merge pass ignores them. The quads run down the band's columns first, so that the
    // quads a triangle leaves out are whole columns of the band, whole warps.
    int q_all = (p.x >> 1) * (BAND / 2) + (yb >> 1);
    int q = min(q_all, quads - 1);
    int j = 4 * q + (p.x & 1) + 2 * (yb & 1);
#ifdef BATCHED
    int bg = band % GROUP;
    int row0 = band_row[bg];
    bool live = row0 >= 0;
    ivec2 bq = ivec2(2 * (q + band_q0[bg]) + (p.x & 1), yb & 1);
#else
    int row0 = 8 * band;
    bool live = block_written(8 * band, 8 * band + 7, 4 * j, 4 * j + 3);
    ivec2 bq = ivec2(2 * q + (p.x & 1), yb & 1);
#endif
    vec4 c0 = vec4(0.0), c1 = vec4(0.0), c2 = vec4(0.0), c3 = vec4(0.0);
    vec4 c4 = vec4(0.0), c5 = vec4(0.0), c6 = vec4(0.0), c7 = vec4(0.0);
#if GROUP == 1
    if (live) STRIP_LOOP(0)
#else
    int g = live ? band % GROUP : GROUP;
    if (g == 0) STRIP_LOOP(0)
    else if (g == 1) STRIP_LOOP(1)
#if GROUP > 2
    else if (g == 2) STRIP_LOOP(2)
    else if (g == 3) STRIP_LOOP(3)
#endif
#if GROUP > 4
    else if (g == 4) STRIP_LOOP(4)
    else if (g == 5) STRIP_LOOP(5)
    else if (g == 6) STRIP_LOOP(6)
    else if (g == 7) STRIP_LOOP(7)
#endif
#endif
#ifdef IN_PLACE
    // Each tile of the window once: not the repeats of the last quad, nor the bands past
    // the last strip (their rows are past m).
    if (live && q_all < quads && row0 < m && 4 * j < n) {
#ifdef PRIOR
        if (prior != 0) {
            c0 += texelFetch(p0, p, 0);
            c1 += texelFetch(p1, p, 0);
            c2 += texelFetch(p2, p, 0);
            c3 += texelFetch(p3, p, 0);
            c4 += texelFetch(p4, p, 0);
            c5 += texelFetch(p5, p, 0);
            c6 += texelFetch(p6, p, 0);
            c7 += texelFetch(p7, p, 0);
        }
#endif
        vec4 pr[8] = vec4[8](c0, c1, c2, c3, c4, c5, c6, c7);
#ifdef BATCHED
        tile_c_off = band_c[bg];
#endif
        store_tile(pr, row0, 4 * j);
    }
#else
    o0 = c0;
    o1 = c1;
    o2 = c2;
    o3 = c3;
    o4 = c4;
    o5 = c5;
    o6 = c6;
    o7 = c7;
#endif
}
