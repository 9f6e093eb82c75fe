// The observers' times and extremes inside a located step (observe.wgsl calls them): a first
// crossing at its time, a max or min where the signal turns in free flight, each the twin of
// the function of the same name. Twin: batch::observe (src/batch/observe.rs).

// The fractional step count at which a first_above/first_below observer i's signal s crosses
// its threshold c in the step ending at count k, with located impacts: an impulse at its row's
// first located impact, a signal with a rate (`rate`: ṡ and 1, else 0 0) on the cubic Hermite
// interpolant of (s, ṡ) over the step, any other on the chord; k where the accumulator does
// not turn now. Twin: crossing_count.
fn crossing_count(code: vec4<u32>, i: u32, s: real, rate: vec2<real>, k: real) -> real {
    let at = SLOTS * i;
    let value = observed_slots[at];
    let previous = observed_slots[at + 2u];
    let c = observed_slots[at + 3u];
    // +1 above, −1 below: g = sign (c − signal) is > 0 before the crossing, ≤ 0 after.
    let sign = select(real(-1.0), real(1.0), code.z == ACCUMULATE_FIRST_ABOVE);
    if (value != 0.0 || sign * (s - c) <= 0.0) {
        return k;
    }
    let h = step_params.h;
    if (code.x == SIGNAL_LAMBDA) {
        let impact = first_impact[code.y];
        return select(k, k - (h - impact) / h, impact >= 0.0);
    }
    var fraction = Root(true, real(0.0));
    if (rate.y != 0.0 && is_finite(previous_rate[i]) && is_finite(rate.x)) {
        // (The interpolant runs over the step as [0, 1]: its slopes are h ṡ.)
        fraction = first_root(sign * (c - previous), -sign * previous_rate[i] * h, sign * (c - s), -sign * rate.x * h);
    } else {
        fraction.s = (c - previous) / (s - previous);
    }
    if (fraction.found && fraction.s >= 0.0 && fraction.s <= 1.0) {
        return k - 1.0 + fraction.s;
    }
    return k;
}

// Where a max or min observer i's signal s (of rate ṡ) turns inside the step ending at count
// k, on its cubic Hermite interpolant: (value, fractional count, 1), or 0 0 0 where it does
// not turn. Twin: turning_point.
fn turning_point(kind: u32, i: u32, s: real, rate: real, k: real) -> vec3<real> {
    let sign = select(real(-1.0), real(1.0), kind == ACCUMULATE_MAX);
    let h = step_params.h;
    // (Over the step as [0, 1]: its slopes are h ṡ; a min is the max of −s.)
    let top = interior_maximum(sign * observed_slots[SLOTS * i + 2u], sign * previous_rate[i] * h, sign * s, sign * rate * h);
    if (top.z == 0.0) {
        return top;
    }
    return vec3<real>(sign * top.y, k - 1.0 + top.x, real(1.0));
}

// Folds a turning point inside the step (value, fractional count) into max or min accumulator
// i after the step's sample: the extreme when beyond it. Twin: fold_turning.
fn fold_turning(kind: u32, i: u32, turn: vec2<real>) {
    let at = SLOTS * i;
    let beyond = (kind == ACCUMULATE_MAX && turn.x > observed_slots[at])
        || (kind == ACCUMULATE_MIN && turn.x < observed_slots[at]);
    if (beyond) {
        observed_slots[at] = turn.x;
        observed_slots[at + 1u] = turn.y;
    }
}
