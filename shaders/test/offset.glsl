// Test fixture for #include: a function pasted into test/pattern.comp.
uniform float offset;
float pattern_offset() { return offset; }
