// The advection velocity drawn as a grid of arrows (GL_LINES, 6 vertices each: the shaft and
// the two strokes of the head). The velocity is analytic, as in the advection model: uniform
// (u, v), or solid-body rotation omega about the domain centre: (u, v) = omega (-(y - yc), x - xc).
uniform vec2 rect_min;       // the domain's rectangle in NDC
uniform vec2 rect_max;
uniform vec2 domain_size;    // metres
uniform ivec2 arrows;        // arrows along x and y
uniform int velocity_kind;   // 1 uniform, 2 rotation
uniform vec2 uniform_velocity;
uniform float omega;
uniform float max_speed;     // the speed drawn as a full arrow
uniform vec2 pixel_ndc;      // the size of a pixel in NDC
uniform float spacing_px;

vec2 velocity_at(vec2 x) {
    if (velocity_kind == 2) {
        vec2 r = x - 0.5 * domain_size;
        return omega * vec2(-r.y, r.x);
    }
    return uniform_velocity;
}

void main() {
    int ix = gl_InstanceID % arrows.x, iy = gl_InstanceID / arrows.x;
    vec2 f = (vec2(ix, iy) + 0.5) / vec2(arrows);
    vec2 vel = velocity_at(f * domain_size);
    vec2 centre = mix(rect_min, rect_max, f);
    float speed = length(vel);
    // Arrows of up to 0.8 of the spacing, in screen pixels so that they keep their shape.
    vec2 dir = speed > 0.0 ? vel / speed : vec2(1.0, 0.0);
    float len = 0.8 * spacing_px * clamp(speed / max(max_speed, 1e-30), 0.0, 1.0);
    vec2 nrm = vec2(-dir.y, dir.x);
    vec2 tail = -0.5 * len * dir, head = 0.5 * len * dir;
    vec2 wing = 0.3 * len * (-dir);
    vec2 p;
    int k = gl_VertexID;
    if (k == 0) p = tail;
    else if (k == 1) p = head;
    else if (k == 2 || k == 4) p = head;
    else if (k == 3) p = head + wing + 0.2 * len * nrm;
    else p = head + wing - 0.2 * len * nrm;
    gl_Position = vec4(centre + p * pixel_ndc, 0.0, 1.0);
}
