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

// Whether storage element e of C is in the window, and its (i, j) there.
bool in_window(int e, out int i, out int j) {
    int d = e - c_off;
    if (d < 0) {
        return false;
    }
    j = d / ldc;
    i = d - j * ldc;
    if (i >= m || j >= n) {
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
