// Device probe: does the fragment pipeline's arithmetic keep subnormal floats? Writes
// tiny * two, where tiny is the subnormal with the bits `bits` and two is 2.0, both uniforms
// so that the compiler cannot fold the product on the host. A pipeline that flushes
// subnormals (to zero on input or output) writes 0.
uniform int bits;
uniform float two;

layout(location = 0) out vec4 result;

void main() {
    float tiny = uintBitsToFloat(uint(bits));
    result = vec4(tiny * two, tiny, 0.0, 1.0);
}
