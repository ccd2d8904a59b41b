// Last reduction pass: the sum of the texels of the src_size rectangle of src (the few that
// the folds left, at most the fan-in), then of its four lanes, in lane 0 of a 1x1 target.
uniform sampler2D src;
uniform ivec2 src_size;

layout(location = 0) out vec4 result;

void main() {
    vec4 v = sum_rect(src, src_size);
    result = vec4((v.x + v.y) + (v.z + v.w), 0.0, 0.0, 0.0);
}
