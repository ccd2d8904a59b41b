// In-place level-1 update of unit-stride vectors whose textures have the same width, over
// the first n elements (elements at or past n are not written). MODE 0: y := alpha*x +
// beta*y (op 1; with beta == 0 the old y is not used, so a NaN in it does not leak),
// y := x (op 0), or y := beta*y (op 3; 0 for beta == 0). MODE 1: the exchange of x and y.
// MODE 2: the plane rotation x := h.x*x + h.y*y, y := h.z*x + h.w*y (every product taken,
// as reference srot/srotm do).
//
// A fragment that renders one texel is bound by the fragment rate, not by bandwidth; so this
// kernel renders nothing and writes through image stores, PER texels per fragment. Fragment
// (g.x, g.y) of a grid grid_width fragments wide updates texels (g.x + i*grid_width, g.y),
// i < PER: at each step the fragments of a quad touch neighbouring texels. PER and MODE are
// constants defined before this file.
uniform sampler2D x;
uniform sampler2D y;
uniform int width;       // texels per row of both textures
uniform int grid_width;  // ceil(width / PER)
uniform int n;
uniform int op;
uniform float alpha;
uniform float beta;
uniform vec4 h;

layout(binding = 0, rgba32f) writeonly uniform highp image2D y_out;
#if MODE != 0
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
#if MODE == 1
        imageStore(y_out, c, select4(yv, xv, live));
        imageStore(x_out, c, select4(xv, yv, live));
#elif MODE == 2
        imageStore(y_out, c, select4(yv, h.z * xv + h.w * yv, live));
        imageStore(x_out, c, select4(xv, h.x * xv + h.y * yv, live));
#else
        vec4 v = xv;
        if (op != 0) {
            v = alpha * xv;
            if (beta != 0.0) {
                v += beta * yv;
            }
        }
        if (op == 3) {
            v = beta == 0.0 ? vec4(0.0) : beta * yv;
        }
        imageStore(y_out, c, select4(yv, v, live));
#endif
    }
}
