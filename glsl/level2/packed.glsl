// Where a packed triangle's elements lie (see blas/level2/matrix.rs): column j of an upper
// triangle is rows 0..j at elements tri(j) .. tri(j+1) - 1, column j of a lower one rows
// j..n-1 from element j(2n - j + 1)/2 on. Indices are unsigned: a packed matrix of more
// than 46340 columns passes 2^31 elements.

// p*q/2 for p*q even, without forming p*q.
uint half_product(uint p, uint q) {
    return (p & 1u) == 0u ? (p >> 1u) * q : p * (q >> 1u);
}

// j(j+1)/2.
uint tri(uint j) {
    return half_product(j, j + 1u);
}

// The column of element e of an upper packed triangle: the j with tri(j) <= e < tri(j+1).
uint packed_column(uint e) {
    uint j = uint((sqrt(8.0 * float(e) + 1.0) - 1.0) * 0.5);
    while (tri(j + 1u) <= e) {
        j += 1u;
    }
    while (tri(j) > e) {
        j -= 1u;
    }
    return j;
}

// The first element of column j of an n x n packed triangle.
uint packed_col_start(int j, int n, bool up) {
    uint u = uint(j);
    return up ? tri(u) : half_product(u, 2u * uint(n) - u + 1u);
}

// The column that holds element e (< n(n+1)/2) of an n x n packed triangle.
int packed_col_of(uint e, int n, bool up) {
    if (up) {
        return int(packed_column(e));
    }
    // Read backwards, a lower packed triangle is an upper one of the reversed matrix.
    uint r = tri(uint(n)) - 1u - e;
    return n - 1 - int(packed_column(r));
}
