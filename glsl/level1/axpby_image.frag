// In-place level-1 update of unit-stride vectors whose textures have the same width:
// y := alpha*x + beta*y (op 1) or y := x (op 0), or with SWAP the exchange of x and y, for
// the first n elements; elements at or past n are not written. With beta == 0 the old y is
// not used (a NaN in it does not leak).
//
// A fragment that renders one texel is bound by the fragment rate, not by bandwidth; so this
// kernel renders nothing and writes through image stores, PER texels per fragment. Fragment
// (g.x, g.y) of a grid grid_width fragments wide updates texels (g.x + i*grid_width, g.y),
// i < PER: at each step the fragments of a quad touch neighbouring texels. PER and SWAP are
// constants defined before this file.
uniform sampler2D x;
uniform sampler2D y;
uniform int width;       // texels per row of both textures
uniform int grid_width;  // ceil(width / PER)
uniform int n;
uniform int op;
uniform float alpha;
uniform float beta;

layout(binding = 0, rgba32f) writeonly uniform highp image2D y_out;
#if SWAP
layout(binding = 1, rgba32f) writeonly uniform highp image2D x_out;
#endif

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int row_start = g.y * width;
    for (int i = 0; i < PER; ++i) {
        int cx = g.x + i * grid_width;
        int t = row_start + cx;
        // Both bounds grow with i, so the first texel past either ends the fragment.
        if (cx >= width || 4 * t >= n) {
            break;
        }
        ivec2 c = ivec2(cx, g.y);
        bvec4 live = live_lanes(t, n);
        vec4 xv = texelFetch(x, c, 0);
        vec4 yv = texelFetch(y, c, 0);
#if SWAP
        imageStore(y_out, c, select4(yv, xv, live));
        imageStore(x_out, c, select4(xv, yv, live));
#else
        vec4 v = xv;
        if (op != 0) {
            v = alpha * xv;
            if (beta != 0.0) {
                v += beta * yv;
            }
        }
        imageStore(y_out, c, select4(yv, v, live));
#endif
    }
}
