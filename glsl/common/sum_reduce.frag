// Ping-pong pass: fragment p sums the texels p + k*fold_step (k < fan_in) of the src_size
// rectangle of src, lane by lane. With fan_in 2 this is the blueprint's half reduction.
uniform sampler2D src;
uniform ivec2 src_size;
uniform int fan_in;
uniform ivec2 fold_step;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 acc = vec4(0.0);
    for (int k = 0; k < fan_in; ++k) {
        ivec2 q = p + k * fold_step;
        if (q.x >= src_size.x || q.y >= src_size.y) {
            break;
        }
        vec4 v = texelFetch(src, q, 0);
        acc += v;
    }
    result = acc;
}
