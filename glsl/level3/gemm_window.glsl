// The window of C an sgemm pass writes (see blas/level3/gemm/shape.rs): element (i, j),
// i < m and j < n, at c_off + i + j*ldc; with c_tri 1 (2), only the elements of it with
// i + c_diag <= j (>= j): the upper (lower) triangle of a diagonal block of a larger C.
// Everything else of C's texture passes through. Compiled in before the kernels that
// write C.
uniform int ldc;
uniform int m;
uniform int n;
uniform int c_off;
uniform int c_tri;
uniform int c_diag;

// One past the position of the window's last element.
int window_end() {
    return c_off + (n - 1) * ldc + m;
}

// Whether element (i, j), j < n, of the m x n window is written (the triangle of c_tri,
// c_diag).
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

// Whether storage element e of C is in the window, and its (i, j) there.
bool in_window(int e, out int i, out int j) {
    int d = e - c_off;
    if (d < 0) {
        return false;
    }
    j = d / ldc;
    i = d - j * ldc;
    return j < n && written(i, j);
}

// Whether the block of rows i0..i1 and columns j0..j1 (inclusive) of the window holds an
// element the window's triangle writes. The product kernels skip the blocks that hold none,
// so an update of one triangle (ssyrk, ssyr2k) computes about half of a full product.
bool block_written(int i0, int i1, int j0, int j1) {
    if (c_tri == 1) {
        return i0 + c_diag <= j1;
    }
    if (c_tri == 2) {
        return i1 + c_diag >= j0;
    }
    return true;
}

// Which terms of the sum over k a row of C takes (GemmShape::terms, shape.rs): t_tri 0 every
// one; 1 those before its block of t_block rows, l < (i / t_block) * t_block (a lower
// op(A) left of its diagonal blocks); 2 those after it, l >= (i / t_block + 1) * t_block.
uniform int t_tri;
uniform int t_block;

// The terms [x, y) of [k0, k1) that rows i0 .. (inside one block of t_block rows) take;
// none when x >= y. Terms::range in shape.rs is the same.
ivec2 term_range(int i0, int k0, int k1) {
    if (t_tri == 1) {
        return ivec2(k0, min(k1, i0 / t_block * t_block));
    }
    if (t_tri == 2) {
        return ivec2(max(k0, (i0 / t_block + 1) * t_block), k1);
    }
    return ivec2(k0, k1);
}

#ifdef STORE_TILE
// The strip kernels' in-place update of C through image stores (the merge pass
// gemm_merge_strip_image.frag, and gemm_strip.frag with IN_PLACE where one draw a strip
// sums all of k): alpha*P + beta*C for an 8 x 4 tile P of C(i0 .. i0+7, j0 .. j0+3), into the two
// texels of C that hold each of the tile's columns, reading them first. C's leading
// dimension and offset are multiples of 4 (checked by the caller), so a texel of C holds
// rows of one column only and no two tiles write the same texel. Elements outside the
// window keep their values; texels with none in it are not written.
uniform sampler2D c;
uniform int c_width;
uniform float alpha;
uniform float beta;

layout(binding = 0, rgba32f) writeonly uniform highp image2D c_out;

// Added to c_off where a tile is stored: the C of its product, for batched sgemm's strips
// (gemm_strip.frag with BATCHED; 0 elsewhere).
int tile_c_off = 0;

// pr[r] = P(i0 + r, j0 .. j0+3).
void store_tile(vec4 pr[8], int i0, int j0) {
    for (int l = 0; l < 4; ++l) {
        int j = j0 + l;
        if (j >= n) {
            break;
        }
        int t = (c_off + tile_c_off + i0 + j * ldc) >> 2;
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
#endif
