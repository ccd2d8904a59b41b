// sgemv, vectorised kernel: fragment t computes the four results 4t..4t+3 of op(A)*x (without
// alpha, beta), reading A as vec4 texels. A is stored column-major, rows x cols, with a
// leading dimension that is a multiple of 4, so four consecutive rows of a column are one
// texel; x has increment 1, so four consecutive elements are one texel.
//   trans == 0: result i = sum_l A(i, l) x_l: per column l one texel of A (rows 4t..4t+3).
//   trans != 0: result i = sum_l A(l, i) x_l: column i of A is contiguous; per four l one
//               texel of A for each of the four outputs and one texel of x.
// Lanes of A past `rows` (the gap up to lda, which may hold anything) are masked out.
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int trans;
uniform int rows;
uniform int cols;
uniform sampler2D x;
uniform int x_width;
uniform int out_width;
uniform int out_texels;

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(out_width);
    vec4 acc = vec4(0.0);
    if (t >= out_texels) {
        result = acc;
        return;
    }
    int ld4 = lda >> 2;
    if (trans == 0) {
        // x_l for l in 4lb..4lb+3 comes in one texel; columns past cols are zero in x's lanes.
        int cols4 = (cols + 3) >> 2;
        for (int lb = 0; lb < cols4; ++lb) {
            vec4 xv = select4(vec4(0.0), load_texel(x, x_width, lb), live_lanes(lb, cols));
            int base = t + 4 * lb * ld4;
            acc += load_texel(a, a_width, base) * xv.x;
            if (4 * lb + 1 < cols) acc += load_texel(a, a_width, base + ld4) * xv.y;
            if (4 * lb + 2 < cols) acc += load_texel(a, a_width, base + 2 * ld4) * xv.z;
            if (4 * lb + 3 < cols) acc += load_texel(a, a_width, base + 3 * ld4) * xv.w;
        }
    } else {
        int rows4 = (rows + 3) >> 2;
        int i0 = 4 * t;
        for (int lb = 0; lb < rows4; ++lb) {
            bvec4 live = live_lanes(lb, rows);
            vec4 xv = select4(vec4(0.0), load_texel(x, x_width, lb), live);
            for (int c = 0; c < 4; ++c) {
                int i = min(i0 + c, cols - 1);  // outputs past cols are discarded
                vec4 av = select4(vec4(0.0), load_texel(a, a_width, i * ld4 + lb), live);
                acc[c] += dot(av, xv);
            }
        }
    }
    result = acc;
}
