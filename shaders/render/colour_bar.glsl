// The colour bar, drawn by the compute passes that write the viewport's pixels (field2d.comp,
// surface_ray.comp): the colormap from bottom (range min) to top (range max) in a rectangle of
// the viewport, with a one-pixel dark frame that keeps it readable over any field. Needs
// colormaps.glsl.
uniform ivec2 bar_origin;  // relative to the viewport (y up); bar_size 0: no bar
uniform ivec2 bar_size;
uniform int map;

// Whether pixel p (relative to the viewport) is on the bar, and its colour if so.
bool colour_bar_pixel(ivec2 p, out vec4 colour) {
    colour = vec4(0.0);
    if (bar_size.x <= 0 || any(lessThan(p, bar_origin)) ||
        any(greaterThanEqual(p, bar_origin + bar_size)))
        return false;
    const ivec2 q = p - bar_origin;
    const bool edge = q.x == 0 || q.y == 0 || q.x == bar_size.x - 1 || q.y == bar_size.y - 1;
    colour = edge ? vec4(0.0, 0.0, 0.0, 1.0)
                  : vec4(colormap(map, (float(q.y) + 0.5) / float(bar_size.y)), 1.0);
    return true;
}
