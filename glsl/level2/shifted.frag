// The shifted copies the packed rank update reads x (and y) from (rank_packed.frag): copy s
// (0..3) of a vector holds in its texel q the logical elements 4q+s .. 4q+s+3 (0 past n),
// so any four consecutive elements are one fetch, whatever the increment. The output is
// the four copies of x, then (with `vectors` 2) those of y, each `m` texels long; fragment
// t writes texel t of it.
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform sampler2D y;
uniform int y_width;
uniform int incy;
uniform int n;
uniform int m;           // texels a copy: ceil(n / 4) + 1
uniform int vectors;
uniform int out_width;

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(out_width);
    int c = t / m;
    int q = t - c * m;
    int s = c & 3;
    vec4 r = vec4(0.0);
    if (c < 4 * vectors) {
        for (int l = 0; l < 4; ++l) {
            int i = 4 * q + s + l;
            if (i < n) {
                r[l] = c < 4 ? load_elem(x, x_width, elem_pos(i, n, incx))
                             : load_elem(y, y_width, elem_pos(i, n, incy));
            }
        }
    }
    result = r;
}
