// Ping-pong pass of sdsdot/dsdot: fragment p adds the float-float values (hi, lo) of the
// texels p + k*fold_step (k < fan_in) of the src_size rectangle of src.
uniform sampler2D src;
uniform ivec2 src_size;
uniform int fan_in;
uniform ivec2 fold_step;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec2 acc = vec2(0.0);
    for (int k = 0; k < fan_in; ++k) {
        ivec2 q = p + k * fold_step;
        if (q.x >= src_size.x || q.y >= src_size.y) {
            break;
        }
        acc = ff_add(acc, texelFetch(src, q, 0).xy);
    }
    result = vec4(acc, 0.0, 0.0);
}
