// The observe stage of the scene-parallel Moreau–Jean kernel: each observer's signal sampled
// at the current state and folded into its accumulator. Twins: Group::observe
// (src/batch/cpu/moreau_jean_stages/observe.rs) and batch::observe::accumulate
// (src/batch/observe.rs). The host defines OBSERVERS (their number), OBSERVED (SLOTS per
// observer, ≥ 1), RECORD (the values kept per scene) and the stroboscopic steps STROBE_FIRST,
// STROBE_EVERY, STROBE_COUNT (0: none). The observers' codes (signal kind, index,
// accumulator) are in `observers`; each scene's record in `observed`: its accumulators
// (value, step, previous sample, threshold; held in private memory, `observed_slots`, during
// a dispatch), then q, v at each stroboscopic step, then the impact events (count, dropped,
// a flag per row, EVENT values per event: EVENTS at most, from EVENTS_AT; written there
// directly; `rate`, each row's ẏ at the step's start, is kept by outputs_and_activation).

const SIGNAL_Q: u32 = 0u;
const SIGNAL_V: u32 = 1u;
const SIGNAL_Y: u32 = 2u;
const SIGNAL_YDOT: u32 = 3u;
const SIGNAL_LAMBDA: u32 = 4u;
const ACCUMULATE_MAX: u32 = 0u;
const ACCUMULATE_MIN: u32 = 1u;
const ACCUMULATE_FINAL: u32 = 2u;
const ACCUMULATE_INTEGRAL: u32 = 3u;
const ACCUMULATE_FIRST_ABOVE: u32 = 4u;
const ACCUMULATE_FIRST_BELOW: u32 = 5u;
const SLOTS: u32 = 4u;
// Values per impact event (batch::observe::EVENT).
const EVENT: u32 = 5u;

// Folds the sample s at step count k into accumulator i (`first`: the sample at t₀).
// Twin: batch::observe::accumulate.
fn accumulate(kind: u32, i: u32, s: real, k: real, first: bool) {
    let at = SLOTS * i;
    let threshold = observed_slots[at + 3u];
    if (first) {
        var value = s;
        if (kind == ACCUMULATE_INTEGRAL) {
            value = real(0.0);
        } else if (kind == ACCUMULATE_FIRST_ABOVE) {
            value = select(real(0.0), real(1.0), s > threshold);
        } else if (kind == ACCUMULATE_FIRST_BELOW) {
            value = select(real(0.0), real(1.0), s < threshold);
        }
        observed_slots[at] = value;
        observed_slots[at + 1u] = k;
        observed_slots[at + 2u] = s;
        return;
    }
    let old = observed_slots[at];
    var value = old;
    var step = observed_slots[at + 1u];
    if ((kind == ACCUMULATE_MAX && s > old) || (kind == ACCUMULATE_MIN && s < old) || kind == ACCUMULATE_FINAL) {
        value = s;
        step = k;
    } else if (kind == ACCUMULATE_INTEGRAL) {
        value = old + step_params.h * (0.5 * (observed_slots[at + 2u] + s));
        step = k;
    } else if (old == 0.0 && ((kind == ACCUMULATE_FIRST_ABOVE && s > threshold) || (kind == ACCUMULATE_FIRST_BELOW && s < threshold))) {
        value = real(1.0);
        step = k;
    }
    observed_slots[at] = value;
    observed_slots[at + 1u] = step;
    observed_slots[at + 2u] = s;
}

// Samples every observer's signal at the current q, v (λ: the last step's impulse) and folds
// it into its accumulator at the step count reached; at a stroboscopic step, keeps q and v in
// the scene's record. With located impacts (LOCATE), a first crossing inside the step at its
// time, and a max or min where the signal turns inside a step of free flight (no located
// impact, no gap row's impulse). Twin: Group::observe.
fn observe(first: bool) {
    let k = real(health.steps);
    var free = false;
    if (LOCATE && !first) {
        free = located_times == 0u;
        for (var r = 0u; r < m; r++) {
            if (is_gap(r) && lambda[r] != 0.0) {
                free = false;
            }
        }
    }
    for (var i = 0u; i < OBSERVERS; i++) {
        let code = observers[i];
        var x = real(0.0);
        // The signal's rate, where it has one (q with v, y with ẏ).
        var rate = real(0.0);
        var has_rate = false;
        if (code.x == SIGNAL_Q) {
            x = q[code.y];
            rate = v[code.y];
            has_rate = true;
        } else if (code.x == SIGNAL_V) {
            x = v[code.y];
        } else if (code.x == SIGNAL_Y) {
            let out = row_output(code.y);
            x = out.x;
            rate = out.y;
            has_rate = true;
        } else if (code.x == SIGNAL_YDOT) {
            x = row_output(code.y).y;
        } else if (code.x == SIGNAL_LAMBDA) {
            x = lambda[code.y];
        }
        var at = k;
        var turn = vec3<real>(real(0.0), real(0.0), real(0.0));
        let crossing = code.z == ACCUMULATE_FIRST_ABOVE || code.z == ACCUMULATE_FIRST_BELOW;
        let turning = code.z == ACCUMULATE_MAX || code.z == ACCUMULATE_MIN;
        if (LOCATE && (crossing || turning)) {
            if (!first && crossing) {
                at = crossing_count(code, i, x, vec2<real>(rate, select(real(0.0), real(1.0), has_rate)), k);
            }
            if (turning && free && has_rate) {
                turn = turning_point(code.z, i, x, rate, k);
            }
            if (has_rate) {
                previous_rate[i] = rate;
            }
        }
        accumulate(code.z, i, x, at, first);
        if (turn.z != 0.0) {
            fold_turning(code.z, i, turn.xy);
        }
    }
    if (EVENTS > 0u && !first) {
        record_events(k);
    }
    // Twin: Strobe::sample_at.
    if (STROBE_COUNT > 0u && health.steps >= STROBE_FIRST) {
        let j = health.steps - STROBE_FIRST;
        if (j % STROBE_EVERY == 0u && j / STROBE_EVERY < STROBE_COUNT) {
            let at = RECORD * scene + SLOTS * OBSERVERS + 2u * n * (j / STROBE_EVERY);
            for (var i = 0u; i < n; i++) {
                observed[at + i] = q[i];
                observed[at + n + i] = v[i];
            }
        }
    }
}

// The impact events of the step ending at step count k in the scene's record (count, dropped,
// row flags, EVENT values per event): a contact row whose impulse is > 0 while it was 0 in the
// step before, with ẏ before (rate) and after the step and its impulse; past EVENTS, counted
// as dropped. Twin: batch::observe::record_events.
fn record_events(k: real) {
    let base = RECORD * scene + EVENTS_AT;
    for (var r = 0u; r < m; r++) {
        if (is_equality(r) || row_kind(r) == ROW_TANGENT) {
            continue;
        }
        let loaded = lambda[r] > 0.0;
        if (loaded && observed[base + 2u + r] == 0.0) {
            push_event(k, r, rate[r], row_output(r).y, lambda[r]);
        }
        observed[base + 2u + r] = select(real(0.0), real(1.0), loaded);
    }
}

// Appends the event (step count, row, ẏ before, ẏ after, λ) to the scene's record, or counts
// it as dropped past EVENTS. Twin: push_event.
fn push_event(k: real, r: u32, before: real, after: real, impulse: real) {
    let base = RECORD * scene + EVENTS_AT;
    let count = u32(observed[base]);
    if (count < EVENTS) {
        let at = base + 2u + m + EVENT * count;
        observed[at] = k;
        observed[at + 1u] = real(r);
        observed[at + 2u] = before;
        observed[at + 3u] = after;
        observed[at + 4u] = impulse;
        observed[base] = observed[base] + 1.0;
    } else {
        observed[base + 1u] = observed[base + 1u] + 1.0;
    }
}
