// The colour bar: the colormap from bottom (range min) to top (range max).
#include "render/colormaps.glsl"

uniform int map;
in vec2 uv;
out vec4 colour;

void main() {
    // A one-pixel dark frame keeps the bar readable over any field.
    vec2 px = fwidth(uv);
    bool edge = uv.x < px.x || uv.x > 1.0 - px.x || uv.y < px.y || uv.y > 1.0 - px.y;
    colour = edge ? vec4(0.0, 0.0, 0.0, 1.0) : vec4(colormap(map, uv.y), 1.0);
}
