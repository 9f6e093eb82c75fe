// The located step's names in a kernel compiled without LOCATE, which never calls them
// (each use is behind LOCATE), and its time step: such a kernel holds none of the
// located*.wgsl files and hermite_root.wgsl, whose step would otherwise be inlined at every
// call before it is found dead.
var<private> spanning: bool;
var<private> span_start: real;
var<private> span_tau: real;
var<private> span_tol: real;
var<private> located_times: u32;
var<private> previous_rate: array<real, 1>;
var<private> span_ops: array<real, 1>;

// Twin: Group::span_built.
fn span_built() -> bool {
    return false;
}

// The time loop's step without LOCATE: Moreau–Jean's step, then its health. Twin: the time
// loop of `simulate` (`Group::solve_step`, then `Group::record_health`).
fn time_step() {
    solve_step();
    record_health();
}

// Twin: Group::load_impact_times.
fn load_located() {
}

// Twin: Group::store_impact_times.
fn store_located() {
}

// Twin: SubSpan.
fn span_rows(r: u32) -> vec3<bool> {
    return vec3<bool>(false, false, false);
}

// Twin: Group::step_cosine.
fn span_cosine(s: real) -> real {
    return s;
}

// Twin: the `gap` of Located::new.
fn is_gap(r: u32) -> bool {
    return false;
}

// Twin: crossing_count.
fn crossing_count(code: vec4<u32>, i: u32, s: real, rate: vec2<real>, k: real) -> real {
    return k;
}

// Twin: turning_point.
fn turning_point(kind: u32, i: u32, s: real, rate: real, k: real) -> vec3<real> {
    return vec3<real>(real(0.0), real(0.0), real(0.0));
}

// Twin: fold_turning.
fn fold_turning(kind: u32, i: u32, turn: vec2<real>) {
}
