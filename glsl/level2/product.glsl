// What the level-2 product kernels share (product_vec4.frag, product_stored.frag): which
// elements of a diagonal-block texel a part's rule counts, and the unit diagonal. Compiled
// in after common.glsl.
uniform int unit_diag;

// Which elements (i, j) = (i4 + lane, j) of a diagonal-block texel count under `rule`.
bvec4 keep(int rule, ivec4 i4, int j) {
    if (rule == 1) return lessThanEqual(i4, ivec4(j));
    if (rule == 2) return lessThan(i4, ivec4(j));
    if (rule == 3) return greaterThanEqual(i4, ivec4(j));
    if (rule == 4) return greaterThan(i4, ivec4(j));
    return bvec4(true);
}

// Texel v of A holding elements (i4 + lane, j), with the unit diagonal applied.
vec4 unit(vec4 v, ivec4 i4, int j) {
    if (unit_diag != 0) {
        return select4(v, vec4(1.0), equal(i4, ivec4(j)));
    }
    return v;
}
