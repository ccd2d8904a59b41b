// Ceiling calibration: streaming bandwidth. Each fragment reads one texel from each of four
// textures and writes their sum: 80 bytes of traffic per fragment. Kernels that read
// several inputs per output (saxpy, sdot) can exceed a plain copy's rate; this measures that.
uniform sampler2D src0;
uniform sampler2D src1;
uniform sampler2D src2;
uniform sampler2D src3;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    result = (texelFetch(src0, p, 0) + texelFetch(src1, p, 0)) +
             (texelFetch(src2, p, 0) + texelFetch(src3, p, 0));
}
