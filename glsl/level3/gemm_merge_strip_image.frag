// sgemm merge pass for the strip kernel, in place through image stores: fragment (s, f)
// reads the 8 product texels of the strip kernel's fragment that computed the 8 x 4 tile
// C(8s .. 8s+7, 4f .. 4f+3) (see gemm_strip.frag) and writes alpha*P + beta*C into C
// (store_tile in gemm_window.glsl, compiled in before this file with STORE_TILE defined).
// One fragment a tile instead of one a texel of C, and no copy of C. A tile with no element
// of the window (one the strip kernel skipped) is not read. Where k is one chunk, the strip
// kernel writes C itself (IN_PLACE) and this pass does not run. BAND is defined before this
// file.
uniform sampler2D p0;
uniform sampler2D p1;
uniform sampler2D p2;
uniform sampler2D p3;
uniform sampler2D p4;
uniform sampler2D p5;
uniform sampler2D p6;
uniform sampler2D p7;

void main() {
    // Fragment (s, f): neighbouring fragments of a row take neighbouring strips of the same
    // columns, so a warp writes runs of C's columns (one fragment a tile of the product
    // layout, as its rows come, scattered a warp's stores over 32 columns).
    ivec2 g = ivec2(gl_FragCoord.xy);
    int s = g.x;
    int f = g.y;
    int i0 = 8 * s;
    int j0 = 4 * f;
    if (i0 >= m || j0 >= n || !block_written(i0, i0 + 7, j0, j0 + 3)) {
        return;
    }
    // The strip kernel's fragment f = 4q + r of strip s (gemm_strip.frag).
    int q = f >> 2;
    ivec2 p = ivec2(2 * (q / (BAND / 2)) + (f & 1), BAND * s + 2 * (q % (BAND / 2)) + ((f >> 1) & 1));
    vec4 pr[8];
    pr[0] = texelFetch(p0, p, 0);
    pr[1] = texelFetch(p1, p, 0);
    pr[2] = texelFetch(p2, p, 0);
    pr[3] = texelFetch(p3, p, 0);
    pr[4] = texelFetch(p4, p, 0);
    pr[5] = texelFetch(p5, p, 0);
    pr[6] = texelFetch(p6, p, 0);
    pr[7] = texelFetch(p7, p, 0);
    store_tile(pr, i0, j0);
}
