// Ceiling calibration: copy bandwidth through image stores, the write path of the in-place
// level-1 kernels. Fragment (g.x, g.y) of a grid `grid_width` fragments wide copies texels
// (g.x + i*grid_width, g.y), i < PER (a constant defined before this file), from `src` into
// the image: no render target, so the fragment rate does not bound it.
uniform sampler2D src;
uniform int width;
uniform int grid_width;

layout(binding = 0, rgba32f) writeonly uniform highp image2D dst;

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    for (int i = 0; i < PER; ++i) {
        int cx = g.x + i * grid_width;
        if (cx >= width) {
            break;
        }
        ivec2 c = ivec2(cx, g.y);
        imageStore(dst, c, texelFetch(src, c, 0));
    }
}
