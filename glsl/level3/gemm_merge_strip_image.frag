// sgemm merge pass for the strip kernel, in place through image stores: fragment (s, f)
// reads the 8 product texels of the strip kernel's fragment that computed the 8 x 4 tile
// C(8s .. 8s+7, 4f .. 4f+3) (see gemm_strip.frag) and writes alpha*P + beta*C into the two
// texels of C that hold each of the tile's columns, reading them first. One fragment a tile
// instead of one a texel of C, and no copy of C: C's leading dimension and offset are
// multiples of 4 (checked by the caller), so a texel of C holds rows of one column only and
// no two fragments write the same texel. Elements outside the window keep their values;
// texels with none in it are not written, and a tile with none in it (one the strip kernel
// skipped) is not read. BAND is defined before this file.
uniform sampler2D p0;
uniform sampler2D p1;
uniform sampler2D p2;
uniform sampler2D p3;
uniform sampler2D p4;
uniform sampler2D p5;
uniform sampler2D p6;
uniform sampler2D p7;
uniform sampler2D c;
uniform int c_width;
uniform float alpha;
uniform float beta;

layout(binding = 0, rgba32f) writeonly uniform highp image2D c_out;

// Whether element (i, j) of the m x n window is written (the triangle of c_tri, c_diag).
bool written(int i, int j) {
    if (i >= m) {
        return false;
    }
    if (c_tri == 1) {
        return i + c_diag <= j;
    }
    if (c_tri == 2) {
        return i + c_diag >= j;
    }
    return true;
}

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
    for (int l = 0; l < 4; ++l) {
        int j = j0 + l;
        if (j >= n) {
            break;
        }
        int t = (c_off + i0 + j * ldc) >> 2;
        for (int h = 0; h < 2; ++h) {
            int i = i0 + 4 * h;
            if (!written(i, j) && !written(i + 1, j) && !written(i + 2, j) &&
                !written(i + 3, j)) {
                continue;
            }
            ivec2 at = texel_pos(t + h, c_width);
            vec4 old = texelFetch(c, at, 0);
            vec4 v = old;
            for (int u = 0; u < 4; ++u) {
                if (written(i + u, j)) {
                    v[u] = blas_update(alpha, pr[4 * h + u][l], beta, old[u]);
                }
            }
            imageStore(c_out, at, v);
        }
    }
}
