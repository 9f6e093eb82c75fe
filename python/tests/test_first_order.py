"""First-order systems built from Python: Siconos's DiodeBridge, and the θ-method's order
and discrete state z against closed-form solutions."""

import numpy as np
import pytest

import ricochet


def diode_bridge():
    """Siconos's DiodeBridge: an LC oscillator (L = 1e-2 H, C = 1e-6 F, 10 V) feeding a 1 kΩ
    resistor through four ideal diodes, Euler–Moreau θ = ½, h = 1e-6 s."""
    inductance, capacitance, resistance = 1e-2, 1e-6, 1e3
    lc = ricochet.FirstOrderLinearDS(x0=[10.0, 0.0], a=[[0.0, -1.0 / capacitance], [1.0 / inductance, 0.0]])
    r, c = resistance, capacitance
    bridge = ricochet.FirstOrderLinearTIR(
        c=[[0.0, 0.0], [0.0, 0.0], [-1.0, 0.0], [1.0, 0.0]],
        d=[[1 / r, 1 / r, -1, 0], [1 / r, 1 / r, 0, -1], [1, 0, 0, 0], [0, 1, 0, 0]],
        b=[[0.0, 0.0, -1.0 / c, 1.0 / c], [0.0, 0.0, 0.0, 0.0]],
    )
    nsds = ricochet.Nsds()
    i = nsds.add("LC oscillator", lc)
    nsds.link("diode bridge", ricochet.ComplementarityConditionNSL(4), bridge, [i])
    return ricochet.TimeStepping(nsds, h=1e-6, integrator="euler_moreau", theta=0.5)


def test_diode_bridge_reproduces_siconos(siconos):
    ref = siconos("DiodeBridge.ref")
    trajectory = diode_bridge().run(ref[-1, 0])
    x, y, lam = trajectory.q, trajectory.y, np.nan_to_num(trajectory.lambda_)
    # Siconos's columns: t, v_C, i_L, the current through R1, the voltages across R1 and F2,
    # the current through F1, the resistor's current.
    ours = np.column_stack([trajectory.t, x[:, 0], x[:, 1], y[:, 0], -lam[:, 0], -lam[:, 1], lam[:, 2], y[:, 0] + lam[:, 2]])
    assert ours.shape == ref.shape
    worst = np.abs(ours - ref).max(axis=0)
    assert worst.max() <= 1e-9, worst
    # The bridge rectifies: the resistor's current never flows backwards.
    assert ours[:, 7].min() >= -1e-12


def decay(h, theta=0.5):
    """ẋ = −x + b(t), b(t) = cos t, x(0) = 1, to t = 2."""
    ds = ricochet.FirstOrderLinearDS(x0=[1.0], a=[[-1.0]], b=lambda t: [np.cos(t)])
    nsds = ricochet.Nsds()
    nsds.add("x", ds)
    return ricochet.TimeStepping(nsds, h=h, integrator="euler_moreau", theta=theta).run(2.0)


def test_a_forced_linear_system_converges_at_second_order_with_theta_one_half():
    # x(t) = ½ (cos t + sin t) + ½ e^{−t}.
    exact = lambda t: 0.5 * (np.cos(t) + np.sin(t)) + 0.5 * np.exp(-t)  # noqa: E731
    errors = []
    for h in [0.02, 0.01, 0.005]:
        trajectory = decay(h)
        assert trajectory.t[-1] == pytest.approx(2.0, abs=1e-12)
        errors.append(np.abs(trajectory.q[:, 0] - exact(trajectory.t)).max())
    assert errors[-1] < 1e-5, errors
    for coarse, fine in zip(errors, errors[1:]):
        assert 3.5 < coarse / fine < 4.5, errors
    # θ = 1 (backward Euler) is first order.
    t1, t2 = decay(0.01, theta=1.0), decay(0.005, theta=1.0)
    e1 = np.abs(t1.q[:, 0] - exact(t1.t)).max()
    e2 = np.abs(t2.q[:, 0] - exact(t2.t)).max()
    assert 1.8 < e1 / e2 < 2.2


def test_a_sampled_input_through_the_discrete_state():
    # ẋ = −x + z₀ with b(t, z) = z: z = 1 until t = 1, then 0.
    ds = ricochet.FirstOrderLinearDS(x0=[0.0], a=[[-1.0]], b=lambda t, z: [z[0]], z=[1.0])
    nsds = ricochet.Nsds()
    i = nsds.add("x", ds)
    sim = ricochet.TimeStepping(nsds, h=1e-3, integrator="euler_moreau")
    before = sim.run(1.0)
    assert sim.z(i).tolist() == [1.0]
    sim.set_z(i, [0.0])
    after = sim.run(2.0)
    assert before.z[:, 0].tolist() == [1.0] * len(before.t)
    assert after.z[1:, 0].max() == 0.0
    x1 = 1.0 - np.exp(-1.0)
    assert before.q[-1, 0] == pytest.approx(x1, abs=1e-6)
    assert np.abs(after.q[:, 0] - x1 * np.exp(-(after.t - 1.0))).max() < 1e-6
    with pytest.raises(ValueError, match="set_z"):
        sim.set_z(i, [0.0, 1.0])
    with pytest.raises(ValueError, match="system 3"):
        sim.set_z(3, [0.0])


def test_bad_first_order_input_is_a_value_error():
    with pytest.raises(ValueError):
        ricochet.FirstOrderLinearDS(x0=[1.0, 0.0], a=[[1.0]])
    with pytest.raises(ValueError, match=r"b\(t\) returned 2 values; it should return 1 value"):
        ricochet.FirstOrderLinearDS(x0=[1.0], a=[[1.0]], b=lambda t: [1.0, 2.0])
    with pytest.raises(ValueError):
        ricochet.FirstOrderLinearTIR(c=[[1.0, 0.0]], b=[[1.0]])
    with pytest.raises(ValueError, match="euler_moreau"):
        ricochet.TimeStepping(ricochet.Nsds(), h=1e-3, integrator="euler")


def test_a_relay_drives_the_state_to_zero_and_holds_it_there():
    # ẋ = λ with −x ∈ N_[−1, 1](λ): ẋ = −1 while x > 0, then x = 0 with λ ∈ [−1, 1] (a
    # Filippov sliding mode): x(t) = max(1 − t, 0).
    ds = ricochet.FirstOrderLinearDS(x0=[1.0], a=[[0.0]])
    nsds = ricochet.Nsds()
    i = nsds.add("x", ds)
    nsds.link("relay", ricochet.RelayNSL(1), ricochet.FirstOrderLinearTIR(c=[[1.0]], b=[[1.0]]), [i])
    trajectory = ricochet.TimeStepping(nsds, h=1e-2, integrator="euler_moreau", theta=1.0).run(2.0)
    t, x, lam = trajectory.t, trajectory.q[:, 0], trajectory.lambda_[1:, 0]
    assert np.abs(x - np.maximum(1.0 - t, 0.0)).max() < 1e-9
    assert np.all((-1.0 - 1e-12 <= lam) & (lam <= 1.0 + 1e-12))
    assert np.abs(lam[t[1:] < 0.99] + 1.0).max() < 1e-12
    assert np.abs(lam[t[1:] > 1.01]).max() < 1e-9
