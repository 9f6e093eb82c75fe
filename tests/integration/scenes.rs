//! Scenes given in closed form (the dropped ball, Newton's cradle) are the same bits as the
//! `Nsds` reduction they replace: their step operators, initial state and energy, over random
//! parameters (proptest), and they refuse what their `Nsds` refuses with the same errors.

use nalgebra::DVector;
use proptest::prelude::*;
use ricochet::batch::layout::SceneHeader;
use ricochet::batch::{LinearScene, SceneBatch};
use ricochet::engine::Scene;
use ricochet::scenes::dropped_ball::DroppedBall;
use ricochet::scenes::newtons_cradle::NewtonsCradle;
use ricochet::scheme::{MoreauJeanOSI, Stabilization};

proptest! {
    #[test]
    fn dropped_ball_is_its_nsds(
        mass in 1e-3f64..1e3,
        radius in 0.0f64..1.0,
        height in -1.0f64..10.0,
        velocity in -10.0f64..10.0,
        restitution in 0.0f64..=1.0,
        gravity in 0.0f64..20.0,
        h in 1e-5f64..1e-1,
        theta in 0.0f64..=1.0,
        q in -10.0f64..10.0,
        v in -10.0f64..10.0,
    ) {
        let ball = DroppedBall::new(mass, radius, height, velocity, restitution, gravity).unwrap();
        let nsds = ball.nsds().unwrap();
        let closed = ball.linear(h, theta, Stabilization::None).unwrap();
        let reduced = LinearScene::from_nsds(&nsds, h, theta, Stabilization::None).unwrap();
        prop_assert_eq!(bits(&closed), bits(&reduced));
        prop_assert_eq!(&closed, &reduced);
        // Its rows written straight into a batch are those of the reduction.
        let (mut direct, mut pushed) = (batch(h), batch(h));
        ball.push_to(&mut direct, Stabilization::None).unwrap();
        pushed.push(&LinearScene::from_nsds(&nsds, h, pushed.theta, Stabilization::None).unwrap()).unwrap();
        prop_assert_eq!(batch_bits(&direct), batch_bits(&pushed));
        prop_assert_eq!(ball.initial_state(), Scene::initial_state(&nsds));
        for (q, v) in [(q, v), (height, velocity), (0.0, 0.0), (-0.0, v)] {
            let (q, v) = (DVector::from_element(1, q), DVector::from_element(1, v));
            prop_assert_eq!(
                ball.energy(&q, &v).unwrap().to_bits(),
                Scene::energy(&nsds, &q, &v).unwrap().to_bits()
            );
        }
    }
}

proptest! {
    #[test]
    fn newtons_cradle_is_its_nsds(
        balls in 1usize..8,
        radius in 1e-3f64..0.1,
        mass in 1e-3f64..10.0,
        gap in 0.0f64..1e-2,
        approach in 0.0f64..0.1,
        velocity in -5.0f64..5.0,
        restitution in 0.0f64..=1.0,
        h in 1e-5f64..1e-2,
        theta in 0.0f64..=1.0,
        state in proptest::collection::vec(-1.0f64..1.0, 16),
    ) {
        let cradle = NewtonsCradle { balls, radius, mass, gap, approach, velocity, restitution, ..Default::default() }
            .checked()
            .unwrap();
        let nsds = cradle.nsds().unwrap().0;
        let closed = Scene::linear(&cradle, h, theta, Stabilization::None).unwrap();
        let reduced = LinearScene::from_nsds(&nsds, h, theta, Stabilization::None).unwrap();
        prop_assert_eq!(bits(&closed), bits(&reduced));
        prop_assert_eq!(&closed, &reduced);
        prop_assert_eq!(Scene::dof(&cradle), Scene::dof(&nsds));
        prop_assert_eq!(Scene::initial_state(&cradle), Scene::initial_state(&nsds));
        let (q, v) = (DVector::from_column_slice(&state[..balls]), DVector::from_column_slice(&state[8..8 + balls]));
        prop_assert_eq!(
            Scene::energy(&cradle, &q, &v).unwrap().to_bits(),
            Scene::energy(&nsds, &q, &v).unwrap().to_bits()
        );
    }
}

#[test]
fn newtons_cradle_refuses_what_its_nsds_refuses() {
    for (balls, mass, radius, restitution) in [
        (5, -1.0, 0.02, 1.0),
        (5, 0.1, f64::NAN, 1.0),
        (5, 0.1, 0.02, 1.5),
        (5, f64::INFINITY, 0.02, 1.0),
        (1, 0.1, 0.02, 1.5),
    ] {
        let cradle = NewtonsCradle {
            balls,
            mass,
            radius,
            restitution,
            ..Default::default()
        };
        let checked = cradle.checked().map(|_| ()).map_err(|e| e.to_string());
        let built = cradle.nsds().map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(checked, built, "{balls} balls, m {mass}, R {radius}, e {restitution}");
        if let Err(error) = built {
            let linear = Scene::linear(&cradle, 1e-3, 0.5, Stabilization::None).unwrap_err();
            assert_eq!(linear.to_string(), error);
        }
    }
}

/// The operators of a reduced scene, as bits.
fn bits(s: &LinearScene) -> Vec<u64> {
    [&s.a, &s.b, &s.winv_ht, &s.h, &s.delassus, &s.quadratic, &s.w_inv]
        .iter()
        .flat_map(|m| m.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
        .chain(
            [
                &s.q0,
                &s.v0,
                &s.c,
                &s.c_harmonic,
                &s.offset,
                &s.restitution,
                &s.feedback,
            ]
            .iter()
            .flat_map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
        )
        .collect()
}

fn batch(h: f64) -> SceneBatch {
    SceneBatch::new(h, MoreauJeanOSI::default()).unwrap()
}

/// Headers, state and operators of a batch, as bits.
fn batch_bits(batch: &SceneBatch) -> (Vec<SceneHeader>, Vec<u64>, Vec<u64>) {
    let bits = |x: &[f64]| x.iter().map(|x| x.to_bits()).collect();
    (batch.headers.clone(), bits(&batch.state), bits(&batch.operators))
}

/// A batch assembled in parts and appended is the batch of the scenes pushed one by one.
#[test]
fn appended_parts_are_the_pushed_batch() {
    let h = 1e-3;
    let cradle = NewtonsCradle::default().nsds().unwrap().0;
    let balls: Vec<DroppedBall> = (0..5)
        .map(|i| DroppedBall::new(1.0 + i as f64, 0.1, 1.0, -0.5, 0.9, 9.81).unwrap())
        .collect();
    let scenes: Vec<&dyn Scene> = vec![&balls[0], &cradle, &balls[1], &balls[2], &cradle, &balls[3], &balls[4]];
    let mut whole = batch(h);
    for scene in &scenes {
        scene.push_to(&mut whole, Stabilization::None).unwrap();
    }
    for size in [1, 2, 3, 7] {
        let mut appended = batch(h);
        for part in scenes.chunks(size) {
            let mut b = batch(h);
            for scene in part {
                scene.push_to(&mut b, Stabilization::None).unwrap();
            }
            appended.append(&b).unwrap();
        }
        assert_eq!(batch_bits(&appended), batch_bits(&whole), "parts of {size}");
    }
}

#[test]
fn dropped_ball_refuses_what_its_nsds_refuses() {
    let refused = |m: f64, e: f64, z: f64| DroppedBall::new(m, 0.1, z, 0.0, e, 9.81).unwrap_err().to_string();
    for (m, e, z) in [
        (-1.0, 0.5, 1.0),
        (1.0, 1.5, 1.0),
        (1.0, 0.5, f64::NAN),
        (f64::INFINITY, 0.5, 1.0),
    ] {
        let ball = DroppedBall {
            mass: m,
            radius: 0.1,
            height: z,
            velocity: 0.0,
            restitution: e,
            gravity: 9.81,
        };
        let Err(error) = ball.nsds() else {
            panic!("{m} {e} {z}: the Nsds took it")
        };
        assert_eq!(refused(m, e, z), error.to_string());
    }
    let ball = DroppedBall::new(1.0, 0.1, 1.0, 0.0, 0.5, 9.81).unwrap();
    let projection = Stabilization::projection();
    assert_eq!(
        ball.linear(1e-3, 0.5, projection).unwrap_err().to_string(),
        LinearScene::from_nsds(&ball.nsds().unwrap(), 1e-3, 0.5, projection)
            .unwrap_err()
            .to_string()
    );
}

/// Every template names each of its coordinates once (the outputs' columns) and declares
/// the unit of each of its parameters; a scene in
/// closed form as its `Nsds` does; `Nsds::name_coordinates` refuses a wrong count, a name
/// that is not an identifier and a repeated name.
#[test]
fn scenes_name_their_coordinates() {
    use ricochet::scenes::parameters::Parameters;
    use ricochet::scenes::template::Template;
    /// Every parameter at its default.
    struct Defaults;
    impl Parameters for Defaults {
        fn scalar(&mut self, _: &str, _: &'static str, default: f64) -> ricochet::Result<f64> {
            Ok(default)
        }
        fn count(&mut self, _: &str, default: usize) -> ricochet::Result<usize> {
            Ok(default)
        }
        fn vector(&mut self, _: &str, _: &'static str, len: usize, default: f64) -> ricochet::Result<Vec<f64>> {
            Ok(vec![default; len])
        }
        fn matrix(
            &mut self,
            _: &str,
            default: Option<&nalgebra::DMatrix<f64>>,
        ) -> ricochet::Result<nalgebra::DMatrix<f64>> {
            Ok(default.cloned().unwrap_or_else(|| nalgebra::DMatrix::identity(1, 1)))
        }
    }
    for template in Template::all().filter(|&t| t != Template::Linear) {
        let scene = template.scene(&mut Defaults).unwrap();
        let names = scene.coordinate_names();
        assert_eq!(names.len(), scene.dof(), "{template:?}");
        assert_eq!(names, scene.nsds().unwrap().coordinates(), "{template:?}");
        assert!(
            names.iter().all(|n| !n.starts_with('q')),
            "{template:?} names its coordinates: {names:?}"
        );
        for declared in template.parameters() {
            assert!(
                declared.unit.is_some(),
                "{template:?}: `{}` declares no unit",
                declared.name
            );
            assert_eq!(
                ricochet::scenes::units::parameter_unit(template, &declared.name),
                declared.unit,
                "{template:?}"
            );
        }
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{template:?}: {names:?}");
    }
    let cradle = NewtonsCradle::default();
    assert_eq!(cradle.coordinate_names()[..2], ["x_0", "x_1"]);
    let mut nsds = DroppedBall::new(1.0, 0.1, 1.0, 0.0, 0.9, 9.81).unwrap().nsds().unwrap();
    assert_eq!(nsds.coordinates(), ["z"]);
    for (names, expected) in [
        (vec!["z", "x"], "wrong dimension"),
        (vec!["2z"], "a name is letters"),
        (vec!["z z"], "a name is letters"),
    ] {
        let e = nsds.name_coordinates(names).unwrap_err().to_string();
        assert!(e.contains(expected), "{e}");
    }
    let mut two = ricochet::model::Nsds::new();
    for _ in 0..2 {
        two.add(
            "ball",
            ricochet::model::LagrangianLinearTIDS::new(
                DVector::from_element(1, 1.0),
                DVector::from_element(1, 0.0),
                nalgebra::DMatrix::identity(1, 1),
            )
            .unwrap(),
        );
    }
    assert_eq!(two.coordinates(), ["q0", "q1"], "unnamed");
    let e = two.name_coordinates(["z", "z"]).unwrap_err().to_string();
    assert!(e.contains("coordinate 1, `z`") && e.contains("two coordinates"), "{e}");
}
