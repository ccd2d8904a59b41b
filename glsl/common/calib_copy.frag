// Ceiling calibration: texel bandwidth. Each fragment reads one RGBA32F texel and writes it:
// 32 bytes of traffic per fragment.
uniform sampler2D src;

layout(location = 0) out vec4 result;

void main() {
    result = texelFetch(src, ivec2(gl_FragCoord.xy), 0);
}
