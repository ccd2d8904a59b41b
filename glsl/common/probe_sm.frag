// Which streaming multiprocessor shades each fragment (NVIDIA's GL_NV_shader_thread_group,
// enabled in the defines): the calibration counts the distinct values over a full-screen
// draw, the number of SMs that run fragment shaders.
layout(location = 0) out vec4 result;

void main() {
    result = vec4(float(gl_SMIDNV), float(gl_WarpIDNV), 0.0, 1.0);
}
