// Rust's f64::round: halves away from zero (WGSL's `round` takes halves to even). Twin:
// f64::round in Bodies::nearest_image.
fn round_away(x: real) -> real {
    let t = trunc(x);
    if (abs(x - t) >= 0.5) {
        return t + select(real(-1.0), real(1.0), x > 0.0);
    }
    return t;
}
