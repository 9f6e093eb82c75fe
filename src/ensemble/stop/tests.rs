use super::*;

fn rule(min: usize, every: Option<usize>) -> StopRule {
    StopRule {
        min_scenes: min,
        every,
        max_scenes: None,
        target: vec![Target {
            column: "x".into(),
            half_width: Some(0.1),
            relative: None,
        }],
    }
}

#[test]
fn tests_fall_at_min_then_every_then_the_cap() {
    let r = rule(100, Some(30));
    let tests: Vec<usize> = std::iter::successors(Some(0), |&at| (at < 200).then(|| r.next_test(at, 200)))
        .skip(1)
        .collect();
    assert_eq!(tests, [100, 130, 160, 190, 200]);
    assert_eq!(rule(50, None).next_test(120, 1000), 150);
    assert_eq!(rule(50, None).next_test(7, 1000), 50);
}

/// The half-width is Student's: the values 0, 1, …, 9 have mean 4.5, s = √(55/6), and
/// t_{0.975, 9} = 2.262157; Welford's moments give stats.json's interval.
#[test]
fn the_half_width_is_the_mean_interval_of_the_values() {
    let mut m = Moments::default();
    for x in 0..10 {
        m.push(f64::from(x));
    }
    m.push(f64::NAN);
    let target = Target {
        column: "x".into(),
        half_width: None,
        relative: Some(0.5),
    };
    let reached = m.reached(&target);
    let s = (55.0f64 / 6.0).sqrt();
    let expected = 2.262_157_162_798_205 * s / 10f64.sqrt();
    assert_eq!(reached.count, 10);
    assert!((reached.mean.unwrap() - 4.5).abs() < 1e-15);
    assert!((reached.half_width.unwrap() - expected).abs() < 1e-12 * expected);
    assert_eq!(reached.wanted, Some(2.25));
    assert!(reached.met);
    let stats = super::super::stats::ColumnStats::of(&(0..10).map(f64::from).collect::<Vec<_>>());
    let half = (stats.mean_ci95[1] - stats.mean_ci95[0]) / 2.0;
    assert!((reached.half_width.unwrap() - half).abs() < 1e-14);
    let mut one = Moments::default();
    one.push(3.0);
    assert_eq!(one.reached(&target).half_width, None);
    assert!(!one.reached(&target).met);
    // A flag's interval is Wilson's; values all equal so far meet nothing.
    let mut flag = Moments::default();
    for x in [0.0, 1.0, 0.0, 0.0] {
        flag.push(x);
    }
    let [lo, hi] = intervals::probability_interval(1, 4);
    assert_eq!(flag.reached(&target).half_width, Some((hi - lo) / 2.0));
    let mut zeros = Moments::default();
    (0..1000).for_each(|_| zeros.push(0.0));
    let wide = Target {
        column: "x".into(),
        half_width: Some(1.0),
        relative: None,
    };
    assert!(!zeros.reached(&wide).met, "1000 zeros: a rare event may still come");
}

#[test]
fn rules_that_cannot_work_are_refused() {
    let refused = |r: StopRule, scenes: usize, says: &str| {
        let e = r.validate(scenes).unwrap_err().to_string();
        assert!(e.contains("[stop]") && e.contains(says), "{e}");
    };
    refused(rule(1, None), 10, "at least 2");
    refused(rule(20, None), 10, "more than the cap");
    refused(rule(2, Some(0)), 10, "at least 1");
    refused(rule(2, Some(11)), 10, "more than the cap");
    refused(
        StopRule {
            max_scenes: Some(9),
            ..rule(2, None)
        },
        10,
        "give the cap once",
    );
    refused(
        StopRule {
            target: vec![],
            ..rule(2, None)
        },
        10,
        "none given",
    );
    let with = |half_width, relative| StopRule {
        target: vec![Target {
            column: "x".into(),
            half_width,
            relative,
        }],
        ..rule(2, None)
    };
    refused(with(Some(1.0), Some(1.0)), 10, "one of");
    refused(with(None, None), 10, "one of");
    refused(with(Some(-1.0), None), 10, "finite and > 0");
    refused(with(None, Some(f64::NAN)), 10, "finite and > 0");
    assert!(rule(2, None).validate(10).is_ok());
}
