// A packed triangle of order n copied into full column-major storage (leading dimension lda,
// a multiple of 4) through image stores, so that the vectorised product (product_vec4.frag)
// reads it: texel r of column j (rows 4r..4r+3) is packed elements base(j) + 4r .. + 3, read
// as the two texels that hold them (load_run). Only the triangle's texels are written (upper:
// r <= j/4, lower: r >= j/4); their lanes outside the triangle or past n hold whatever the
// packed array has there, which the product masks (never multiplies). Fragment f (row-major
// in a grid grid_width wide) writes the PER texels r = q + k*per_col of column j = f / per_col
// (q = f % per_col): at each step neighbouring fragments write neighbouring texels.
uniform sampler2D a;
uniform int a_width;
uniform int a_last;
uniform int n;
uniform int upper;
uniform int lda;
uniform int out_width;
uniform int per_col;
uniform int grid_width;

layout(binding = 0, rgba32f) writeonly uniform highp image2D a_out;

void main() {
    int f = frag_texel(grid_width);
    int j = f / per_col;
    int q = f - j * per_col;
    if (j >= n) {
        return;
    }
    int lo = upper != 0 ? 0 : j >> 2;
    int hi = upper != 0 ? (j >> 2) + 1 : (n + 3) >> 2;
    // Column j starts at j(j+1)/2 (upper) or j(2n-j-1)/2 (lower): unsigned, as j(j+1)
    // exceeds an int for large n.
    int base = upper != 0 ? int(uint(j) * uint(j + 1) / 2u)
                          : int(uint(j) * uint(2 * n - j - 1) / 2u);
    ivec2 c = texel_pos(q + j * (lda >> 2), out_width);
    ivec2 step = texel_pos(per_col, out_width);
    for (int k = 0; k < PER; ++k) {
        int r = q + k * per_col;
        if (r >= hi) {
            break;
        }
        if (r >= lo) {
            imageStore(a_out, c, load_run(a, a_width, a_last, base + 4 * r));
        }
        c = advance(c, step, out_width);
    }
}
