use super::*;

#[test]
fn permute_is_a_permutation() {
    for n in [1, 2, 3, 7, 64, 100, 1000, 4097] {
        for key in [0, 1, 0xdead_beef] {
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let j = permute(i, n, key) as usize;
                assert!(!seen[j], "n = {n}, key = {key}: {j} twice");
                seen[j] = true;
            }
        }
    }
    // Not the identity.
    assert!((0..100).any(|i| permute(i, 100, 7) != i));
}

/// A sweep that would not give the values it says is refused naming its parameter: a grid
/// of one point between different ends, of 2³² points or more, or whose span overflows.
#[test]
fn sweeps_that_lose_or_overflow_their_values_are_refused() {
    let design = |p: Distribution, scenes: usize| {
        let p = Parameter::Drawn(p);
        let draws = Draws {
            seed: 7,
            scenes,
            design: None,
        };
        Design::new(std::iter::once(("x".to_string(), &p)), draws).map(|d| d.grid_points())
    };
    let refused = |p: Distribution, scenes: usize, says: &str| {
        let e = design(p.clone(), scenes).unwrap_err().to_string();
        assert!(e.contains("parameter `x`") && e.contains(says), "{p:?}: {e}");
    };
    refused(Distribution::Grid(1.0, 2.0, 1), 1, "grid of one point from a to b");
    refused(Distribution::LogGrid(1.0, 2.0, 1), 1, "grid of one point from a to b");
    assert_eq!(design(Distribution::Grid(1.5, 1.5, 1), 1).unwrap(), 1);
    assert_eq!(design(Distribution::LogGrid(1.5, 1.5, 1), 2).unwrap(), 1);
    let limit = u32::MAX as usize;
    refused(Distribution::Grid(0.0, 1.0, limit + 1), limit + 1, "at most 2³² − 1");
    refused(Distribution::LogGrid(1.0, 2.0, limit + 1), limit + 1, "at most 2³² − 1");
    assert_eq!(design(Distribution::Grid(0.0, 1.0, limit), limit).unwrap(), limit);
    refused(Distribution::Grid(-1e308, 1e308, 3), 3, "(b − a)/(n − 1) overflows");
    refused(Distribution::Sobol([-1e308, 1e308]), 4, "span b − a overflows");
    refused(Distribution::Lhs([-1e308, 1e308]), 4, "span b − a overflows");
    refused(Distribution::LogGrid(1e-300, 1e300, 3), 3, "b/a");
    refused(Distribution::LogGrid(1e300, 1e-300, 3), 3, "b/a");
    assert_eq!(design(Distribution::Grid(-1e307, 1e307, 3), 3).unwrap(), 3);
}

/// The first points of the Sobol sequence in dimensions 0 and 1 (the crate's iterator).
#[test]
fn sobol_points_are_the_sequence() {
    let unit = |i, d| unit(sobol(i, d));
    let iterated: Vec<Vec<f64>> = sobol::Sobol::<f64>::new(2, &sobol::params::JoeKuoD6::minimal())
        .take(16)
        .collect();
    for (i, point) in iterated.iter().enumerate() {
        for (d, &x) in point.iter().enumerate() {
            assert_eq!(unit(i as u64, d), x, "point {i}, dimension {d}");
        }
    }
    assert_eq!([unit(1, 0), unit(2, 0), unit(3, 0)], [0.5, 0.75, 0.25]);
}
