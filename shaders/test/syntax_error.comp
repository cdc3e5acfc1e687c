// Test fixture: this shader must fail to compile, on line 6, so that the test can check that
// the error names shaders/test/syntax_error.comp:6.
layout(local_size_x = 1) in;

void main() {
    float x = undeclared_variable;
}
