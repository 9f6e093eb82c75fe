//! Scenes given in closed form are the same bits as the `Nsds` reduction they replace: their
//! step operators, initial state and energy, over random parameters (proptest).

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
        let bits = |s: &LinearScene| {
            [&s.a, &s.b, &s.winv_ht, &s.h, &s.delassus, &s.quadratic, &s.w_inv]
                .iter()
                .flat_map(|m| m.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
                .chain(
                    [&s.q0, &s.v0, &s.c, &s.c_harmonic, &s.offset, &s.restitution, &s.feedback]
                        .iter()
                        .flat_map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
                )
                .collect::<Vec<_>>()
        };
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
