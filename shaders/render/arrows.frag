out vec4 colour;
void main() { colour = vec4(1.0, 1.0, 1.0, 0.85); }
