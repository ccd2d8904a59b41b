// op(A)*x for a level-2 matrix of any storage and shape (storage.glsl), over one chunk of
// the summed index: fragment (x, y) of band s computes the four results 4t..4t+3 (t its
// texel in a vector laid out out_width texels wide) summed over j in chunk s, that is
// [4 s chunk, 4 (s+1) chunk). Only the columns a row of op(A) can hold, i + lo_off ..
// i + hi_off, are visited, so a NaN or Inf of x never meets an element outside the band
// or triangle. With skip_zero, terms whose x_j is 0 are left out (reference's triangular
// loops skip them, so a NaN or Inf of A in such a column does not spread).
uniform int trans;
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform int len_x;
uniform int len_y;
uniform int lo_off;
uniform int hi_off;
uniform int skip_zero;
uniform int out_width;
uniform int out_texels;
uniform int band_rows;
uniform int chunk;

layout(location = 0) out vec4 result;

void main() {
    ivec2 f = ivec2(gl_FragCoord.xy);
    int s = f.y / band_rows;
    int t = (f.y - s * band_rows) * out_width + f.x;
    vec4 acc = vec4(0.0);
    int i0 = 4 * t;
    if (t >= out_texels || i0 >= len_y) {
        result = acc;
        return;
    }
    int i3 = min(i0 + 3, len_y - 1);
    int j_lo = max(4 * s * chunk, max(0, i0 + lo_off));
    int j_hi = min(min(4 * (s + 1) * chunk, len_x) - 1, i3 + hi_off);
    for (int j = j_lo; j <= j_hi; ++j) {
        float xj = load_elem(x, x_width, elem_pos(j, len_x, incx));
        if (skip_zero != 0 && xj == 0.0) {
            continue;
        }
        for (int c = 0; c < 4; ++c) {
            int i = i0 + c;
            if (i <= i3 && j - i >= lo_off && j - i <= hi_off) {
                acc[c] += op_mat_elem(trans, i, j) * xj;
            }
        }
    }
    result = acc;
}
