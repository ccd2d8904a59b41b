// Last reduction pass: the sum of the four lanes of texel 0 of src, in lane 0 of a 1x1 target.
uniform sampler2D src;

layout(location = 0) out vec4 result;

void main() {
    vec4 v = texelFetch(src, ivec2(0, 0), 0);
    result = vec4((v.x + v.y) + (v.z + v.w), 0.0, 0.0, 0.0);
}
