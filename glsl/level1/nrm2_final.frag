// Last snrm2 pass: scale * sqrt(sum of the texels of the src_size rectangle of src and of
// their lanes), scale from texel 0 of `scale`. A zero scale gives the sum itself (0, or NaN when one was seen); an infinite one
// gives Inf, or NaN when the sum carries one.
uniform sampler2D src;
uniform ivec2 src_size;
uniform sampler2D scale;

layout(location = 0) out vec4 result;

void main() {
    vec4 v = sum_rect(src, src_size);
    float s = texelFetch(scale, ivec2(0, 0), 0).x;
    float q = (v.x + v.y) + (v.z + v.w);
    float r;
    if (s == 0.0) {
        r = q;
    } else if (isinf(s)) {
        r = s + q;
    } else {
        r = s * sqrt(q);
    }
    result = vec4(r, 0.0, 0.0, 0.0);
}
