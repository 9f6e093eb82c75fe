"""Models built from Python against Siconos's reference trajectories and the physics."""

import numpy as np
import pytest

import ricochet

def bouncing_ball(e=0.9, integrator="moreau_jean", locate_impacts=False):
    m, r, g = 1.0, 0.1, 9.81
    ball = ricochet.LagrangianLinearTIDS(
        q0=np.array([1.0, 0.0, 0.0]),
        v0=np.zeros(3),
        mass=np.diag([m, m, 0.4 * m * r * r]),
        fext=[-m * g, 0.0, 0.0],
    )
    nsds = ricochet.Nsds()
    b = nsds.add("ball", ball)
    nsds.link("floor", ricochet.NewtonImpactNSL(e), ricochet.LagrangianLinearTIR([[1.0, 0.0, 0.0]]), [b])
    return ricochet.TimeStepping(nsds, h=0.005, theta=0.5, integrator=integrator, locate_impacts=locate_impacts)


def test_bouncing_ball_ts_reproduces_siconos_to_1e_12(siconos):
    ref = siconos("BouncingBallTS.ref")
    sim = bouncing_ball()
    trajectory = sim.run(ref[-1, 0])
    ours = np.column_stack([trajectory.t, trajectory.q[:, 0], trajectory.v[:, 0], trajectory.p[:, 0], trajectory.lambda_[:, 0]])
    ours[0, 3:] = 0.0  # (no impulse before the first step; Siconos prints 0)
    assert ours.shape == ref.shape
    worst = np.abs(ours - ref).max()
    assert worst <= 1e-12, worst
    assert sim.time == pytest.approx(ref[-1, 0], abs=1e-12)


def test_an_elastic_ball_keeps_its_energy_and_rattle_too():
    for integrator in ["moreau_jean", "rattle"]:
        trajectory = bouncing_ball(e=1.0, integrator=integrator).run(3.0)
        # Several impacts, energy conserved (θ = ½, e = 1) to the scheme's accuracy.
        assert (np.diff(np.sign(trajectory.v[:, 0])) > 0).sum() >= 2
        assert np.abs(trajectory.energy - trajectory.energy[0]).max() < 0.05 * abs(trajectory.energy[0])
        # Never far through the floor.
        assert trajectory.y[:, 0].min() > -0.05


def test_located_impacts_are_at_the_exact_times():
    # Dropped from y = 1 m: impacts at t1 = sqrt(2/g), then every 2 e^n v1 / g, arriving at
    # e^n v1 and leaving at e^(n+1) v1.
    g, e = 9.81, 0.9
    trajectory = bouncing_ball(e=e, locate_impacts=True).run(3.0)
    t1, v1 = np.sqrt(2.0 / g), np.sqrt(2.0 * g)
    n = np.arange(len(trajectory.impacts))
    exact = t1 + np.concatenate([[0.0], np.cumsum(2.0 * e ** (n[1:]) * v1 / g)])
    assert len(n) >= 3
    assert np.abs(trajectory.impacts[:, 0] - exact).max() < 1e-12
    assert np.abs(trajectory.impacts[:, 2] + e**n * v1).max() < 1e-12
    assert np.abs(trajectory.impacts[:, 3] - e ** (n + 1) * v1).max() < 1e-12
    # Off, nothing is located.
    assert bouncing_ball(e=e).run(1.0).impacts.shape == (0, 5)


def test_bad_models_are_value_errors():
    with pytest.raises(ValueError, match="restitution"):
        ricochet.NewtonImpactNSL(1.5)
    with pytest.raises(ValueError):
        ricochet.LagrangianLinearTIDS(q0=[1.0], v0=[0.0], mass=[[-1.0]])
    with pytest.raises(ValueError, match="rows of different lengths"):
        ricochet.LagrangianLinearTIR([[1.0, 0.0], [1.0]])
    nsds = ricochet.Nsds()
    b = nsds.add("ball", ricochet.LagrangianLinearTIDS(q0=[1.0], v0=[0.0], mass=[[1.0]]))
    with pytest.raises(ValueError):
        nsds.link("floor", ricochet.NewtonImpactNSL(0.5), ricochet.LagrangianLinearTIR([[1.0, 0.0]]), [b])
    with pytest.raises(ValueError, match="integrator"):
        ricochet.TimeStepping(nsds, h=1e-3, integrator="euler")
    with pytest.raises(ValueError, match="solver"):
        ricochet.TimeStepping(nsds, h=1e-3, solver="magic")


def callback_ball(mass=None, fext=None):
    m, r, g = 1.0, 0.1, 9.81
    ball = ricochet.LagrangianDS(
        q0=[1.0, 0.0, 0.0],
        v0=[0.0, 0.0, 0.0],
        mass=mass or (lambda q: np.diag([m, m, 0.4 * m * r * r])),
        fext=fext or (lambda t: np.array([-m * g, 0.0, 0.0])),
    )
    nsds = ricochet.Nsds()
    b = nsds.add("ball", ball)
    nsds.link("floor", ricochet.NewtonImpactNSL(0.9), ricochet.LagrangianLinearTIR([[1.0, 0.0, 0.0]]), [b])
    return ricochet.TimeStepping(nsds, h=0.005)


def test_bouncing_ball_ts_with_python_functions_for_m_and_f_ext(siconos):
    ref = siconos("BouncingBallTS.ref")
    trajectory = callback_ball().run(ref[-1, 0])
    ours = np.column_stack([trajectory.t, trajectory.q[:, 0], trajectory.v[:, 0], trajectory.p[:, 0], trajectory.lambda_[:, 0]])
    ours[0, 3:] = 0.0
    assert np.abs(ours - ref).max() <= 1e-12


def test_a_pendulum_with_python_forces_conserves_energy_and_its_jacobians_agree():
    # A pendulum of length 1, θ from the vertical: θ̈ = −g sin θ, F_int = g sin θ.
    g = 9.81

    def pendulum(jacobians):
        ds = ricochet.LagrangianDS(
            q0=[1.0],
            v0=[0.0],
            mass=[[1.0]],
            fint=lambda q, v, t: [g * np.sin(q[0])],
            fint_jacobians=jacobians,
        )
        nsds = ricochet.Nsds()
        nsds.add("pendulum", ds)
        return ricochet.TimeStepping(nsds, h=1e-3).run(2.0)

    exact = pendulum((lambda q, v, t: [[g * np.cos(q[0])]], lambda q, v, t: [[0.0]]))
    differences = pendulum(None)
    # θ = ½ Moreau–Jean on a conservative system: the energy ½ θ̇² + g (1 − cos θ) drifts
    # by O(h²) only.
    energy = 0.5 * exact.v[:, 0] ** 2 + g * (1 - np.cos(exact.q[:, 0]))
    assert np.abs(energy - energy[0]).max() < 1e-4 * energy[0]
    # It swings through the bottom and back.
    assert exact.q[:, 0].min() < -0.99
    assert np.abs(exact.q - differences.q).max() < 1e-6


def test_an_exception_in_a_python_function_is_raised_again():
    calls = []

    def fext(t):
        calls.append(t)
        if t > 0.1:
            raise ZeroDivisionError("the force gave up")
        return [-9.81, 0.0, 0.0]

    sim = callback_ball(fext=fext)
    with pytest.raises(ZeroDivisionError, match="gave up"):
        sim.run(1.0)
    assert 0.1 < max(calls) < 0.12
    with pytest.raises(ValueError, match="3 × 3"):
        callback_ball(mass=lambda q: np.eye(2))
    with pytest.raises(TypeError):
        callback_ball(mass=lambda q: "heavy")


def test_coulomb_friction_stops_a_sliding_block_where_the_work_of_friction_says():
    # A point mass on the floor (x, y), sliding at 2 m/s: it decelerates at μ g and stops
    # after v²/(2 μ g) = 0.4077 m at t = v/(μ g) = 0.4077 s.
    g, mu, v0, h = 9.81, 0.5, 2.0, 1e-3
    nsds = ricochet.Nsds()
    block = nsds.add("block", ricochet.LagrangianLinearTIDS(q0=[0.0, 0.0], v0=[v0, 0.0], mass=np.eye(2), fext=[0.0, -g]))
    rows = ricochet.LagrangianLinearTIR([[0.0, 1.0], [1.0, 0.0]])  # (normal y, tangent x)
    nsds.link("floor", ricochet.NewtonImpactFrictionNSL(0.0, 0.0, mu), rows, [block])
    trajectory = ricochet.TimeStepping(nsds, h=h).run(1.0)
    x, vx = trajectory.q[:, 0], trajectory.v[:, 0]
    assert x[-1] == pytest.approx(v0**2 / (2 * mu * g), abs=2 * h)
    assert abs(vx[-1]) < 1e-12
    stop = trajectory.t[np.argmax(np.abs(vx) < 1e-12)]
    assert stop == pytest.approx(v0 / (mu * g), abs=2 * h)
    # It stays on the floor and the cone holds: |λ_T| ≤ μ λ_N.
    assert np.abs(trajectory.q[:, 1]).max() < 1e-9
    lam = trajectory.lambda_[1:]
    assert np.all(np.abs(lam[:, 1]) <= mu * lam[:, 0] + 1e-12)


def free_rigid_body(jacobians):
    """Euler's equations I ω̇ + ω × (I ω) = 0 as a LagrangianDS with v = ω and F_gyr(q, v) =
    v × (I v) (q integrates ω and plays no part), spun about an axis near the middle one."""
    inertia = np.array([1.0, 2.0, 3.0])
    gyroscopic = lambda q, v: np.cross(v, inertia * v)  # noqa: E731

    def d_dv(q, v):
        # ∂(v × I v)/∂v = [v]ₓ I − [I v]ₓ, [a]ₓ the cross-product matrix.
        cross = lambda a: np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])  # noqa: E731
        return cross(v) @ np.diag(inertia) - cross(inertia * v)

    body = ricochet.LagrangianDS(
        q0=[0.0, 0.0, 0.0],
        v0=[0.3, 1.0, 0.3],
        mass=np.diag(inertia),
        fgyr=gyroscopic,
        fgyr_jacobians=(lambda q, v: np.zeros((3, 3)), d_dv) if jacobians else None,
    )
    nsds = ricochet.Nsds()
    nsds.add("body", body)
    return ricochet.TimeStepping(nsds, h=2e-3).run(6.0), inertia


def test_a_free_rigid_body_through_f_gyr_keeps_its_energy_and_angular_momentum():
    (trajectory, inertia), (differenced, _) = free_rigid_body(True), free_rigid_body(False)
    omega = trajectory.v
    energy = 0.5 * (inertia * omega**2).sum(axis=1)
    momentum = np.linalg.norm(inertia * omega, axis=1)
    assert np.abs(energy / energy[0] - 1).max() < 1e-4
    assert np.abs(momentum / momentum[0] - 1).max() < 1e-4
    # Spun near the middle axis it tumbles: ω₂ changes sign.
    assert omega[:, 1].min() < 0 < omega[:, 1].max()
    assert np.abs(differenced.v - omega).max() < 1e-6


def test_a_held_force_through_the_discrete_state_of_a_lagrangian_ds():
    # m v̇ = z₀ with F_ext(t, z) = z: 2 N for 1 s, then −1 N; M(q, z) gets z too.
    seen = []

    def mass(q, z):
        seen.append(z.copy())
        return [[2.0]]

    ds = ricochet.LagrangianDS(q0=[0.0], v0=[0.0], mass=mass, fext=lambda t, z: z, z=[2.0])
    nsds = ricochet.Nsds()
    i = nsds.add("cart", ds)
    sim = ricochet.TimeStepping(nsds, h=1e-2)
    first = sim.run(1.0)
    sim.set_z(i, [-1.0])
    second = sim.run(3.0)
    assert np.abs(first.v[:, 0] - first.t).max() < 1e-12
    assert np.abs(second.v[:, 0] - (1.0 - 0.5 * (second.t - 1.0))).max() < 1e-12
    assert seen[0].tolist() == [2.0] and seen[-1].tolist() == [-1.0]
    assert second.z[-1].tolist() == [-1.0]
