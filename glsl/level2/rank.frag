// Rank-1 and rank-2 updates of a level-2 matrix in full or packed storage (see
// blas/level2/rank.rs):
//   kind 0 (sger):        A += alpha x y^T over the whole rows x cols matrix;
//   kind 1 (ssyr, sspr):  the stored triangle of A += alpha x x^T;
//   kind 2 (ssyr2, sspr2): the stored triangle of A += alpha x y^T + alpha y x^T.
// As in reference BLAS, column j changes only where y_j (kind 0), x_j (kind 1), or either
// (kind 2) is not zero, with temp = alpha*y_j (or alpha*x_j) and A(i,j) + x_i*temp, so a
// NaN or Inf of x does not reach a column whose factor is 0. Every element of the texels a
// fragment covers is mapped back to (i, j); an element outside the matrix (the gap below
// rows up to lda, the other triangle, past the end) keeps its value.
//
// Rendered, a fragment writes one texel of a new texture; with IMAGE it updates PER texels
// of A in place through image stores (PER and IMAGE are defined before this file).
uniform sampler2D a;
uniform int a_width;
uniform int is_packed;   // 1: packed triangle; 0: full storage with lda
uniform int lda;
uniform int rows;
uniform int cols;
uniform int triangle;    // 1: only the stored triangle is updated (kinds 1 and 2)
uniform int upper;
uniform int span;        // elements the matrix spans
uniform int kind;
uniform float alpha;
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform sampler2D y;
uniform int y_width;
uniform int incy;
uniform int x_last;      // the last texels of x and y
uniform int y_last;

// (i, j) of storage element e, and whether it is an element the update touches.
bool locate(int e, out int i, out int j) {
    if (e >= span) {
        return false;
    }
    if (is_packed != 0) {
        bool up = upper != 0;
        j = packed_col_of(uint(e), cols, up);
        i = (up ? 0 : j) + int(uint(e) - packed_col_start(j, cols, up));
        return true;
    }
    j = e / lda;
    i = e - j * lda;
    if (i >= rows || j >= cols) {
        return false;
    }
    return triangle == 0 || (upper != 0 ? i <= j : i >= j);
}

float x_at(int i) {
    return load_elem(x, x_width, elem_pos(i, rows, incx));
}

float y_at(int i) {
    return load_elem(y, y_width, elem_pos(i, kind == 0 ? cols : rows, incy));
}

// The updated value of element (i, j), whose old value is v.
float updated(float v, int i, int j) {
    if (kind == 0) {
        float yj = y_at(j);
        return yj != 0.0 ? v + x_at(i) * (alpha * yj) : v;
    }
    float xj = x_at(j);
    if (kind == 1) {
        return xj != 0.0 ? v + x_at(i) * (alpha * xj) : v;
    }
    float yj = y_at(j);
    if (xj == 0.0 && yj == 0.0) {
        return v;
    }
    return v + x_at(i) * (alpha * yj) + y_at(i) * (alpha * xj);
}

// Texel t (at c) of A, updated. A packed texel whose four elements lie in one column (all
// but about one texel a column) is located once and updated as a vector (x_i..x_i+3 read
// as the two texels that hold them, when x and y have increment 1); any other element by
// element.
vec4 updated_texel(int t, ivec2 c) {
    vec4 v = texelFetch(a, c, 0);
    if (is_packed != 0 && incx == 1 && (kind != 2 || incy == 1) && 4 * t + 3 < span) {
        int i;
        int j;
        locate(4 * t, i, j);
        // Column j holds rows 0..j (upper) or j..n-1 (lower).
        if (i + 3 <= (upper != 0 ? j : cols - 1)) {
            float xj = kind == 0 ? 0.0 : x_at(j);
            float yj = kind == 1 ? 0.0 : y_at(j);
            if (kind == 1 ? xj == 0.0 : (xj == 0.0 && yj == 0.0)) {
                return v;
            }
            vec4 xv = load_run(x, x_width, x_last, i);
            if (kind == 1) {
                return v + xv * (alpha * xj);
            }
            return v + xv * (alpha * yj) + load_run(y, y_width, y_last, i) * (alpha * xj);
        }
    }
    for (int l = 0; l < 4; ++l) {
        int i;
        int j;
        if (locate(4 * t + l, i, j)) {
            v[l] = updated(v[l], i, j);
        }
    }
    return v;
}

#if IMAGE

layout(binding = 0, rgba32f) writeonly uniform highp image2D a_out;
uniform int grid_width;  // ceil(a_width / PER)

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    for (int k = 0; k < PER; ++k) {
        int cx = g.x + k * grid_width;
        int t = g.y * a_width + cx;
        if (cx >= a_width || 4 * t >= span) {
            break;
        }
        ivec2 c = ivec2(cx, g.y);
        imageStore(a_out, c, updated_texel(t, c));
    }
}

#else

layout(location = 0) out vec4 result;

void main() {
    result = updated_texel(frag_texel(a_width), ivec2(gl_FragCoord.xy));
}

#endif
