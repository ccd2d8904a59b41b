// Element access for level-2 matrices in column-major form, any storage and shape (see
// blas/level2/matrix.rs). Compiled in after common.glsl by the kernels that read such a
// matrix, from texture unit 0.
uniform sampler2D a;
uniform int a_width;
uniform int storage;    // 0: full (i + j*lda); 1: band (ku + i - j + j*lda); 2: packed
uniform int shape;      // 0: general; 1: symmetric; 2: triangular
uniform int upper;      // symmetric or triangular: the upper triangle is the stored one
uniform int unit_diag;  // triangular: the diagonal is 1 and is not read
uniform int lda;
uniform int kl;         // band: sub-diagonals stored
uniform int ku;         // band: super-diagonals stored
uniform int order;      // columns of the matrix (packed storage needs n)

// Whether element (i, j) is in the stored part.
bool in_storage(int i, int j) {
    if (shape != 0 && (upper != 0 ? i > j : i < j)) {
        return false;
    }
    if (storage == 1) {
        return i - j <= kl && j - i <= ku;
    }
    return true;
}

// Storage index of a stored element (unsigned: a packed index j(j+1) of a large matrix
// exceeds an int; every index itself fits).
uint stored_index(int i, int j) {
    uint ui = uint(i);
    uint uj = uint(j);
    if (storage == 0) {
        return ui + uj * uint(lda);
    }
    if (storage == 1) {
        return uint(ku + i - j) + uj * uint(lda);
    }
    if (upper != 0) {
        return ui + uj * (uj + 1u) / 2u;
    }
    return ui + uj * (2u * uint(order) - uj - 1u) / 2u;
}

// Element e of the stored array.
float stored_elem(uint e) {
    int t = int(e >> 2u);
    return texelFetch(a, ivec2(t % a_width, t / a_width), 0)[int(e & 3u)];
}

// Element (i, j) of the matrix: a symmetric matrix mirrors its stored triangle, a
// triangular one is 0 outside it (1 on a unit diagonal, not read), and a band matrix is 0
// outside the band.
float mat_elem(int i, int j) {
    if (shape == 2 && unit_diag != 0 && i == j) {
        return 1.0;
    }
    if (shape == 1 && !in_storage(i, j)) {
        int k = i;
        i = j;
        j = k;
    }
    if (!in_storage(i, j)) {
        return 0.0;
    }
    return stored_elem(stored_index(i, j));
}

// Element (i, j) of op(A).
float op_mat_elem(int trans, int i, int j) {
    return trans != 0 ? mat_elem(j, i) : mat_elem(i, j);
}
