"""bilinear certify: snapped proofs, certified horizons against directed search, the command."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from plain_eval import no_node_horizon

from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions import check
from bilinear.constructions.horizon.horizon import compress_word
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.constructions.horizon.snap import drift, symbol_periods
from bilinear.constructions import Weights
from bilinear.analysis.certify import certify_network
from bilinear.errors import WeightsError

C5 = from_spec("cyclic:5")


@pytest.fixture(scope="module")
def drifting_rotation():
    return drift(build("cyclic:5", "rotation2d"), 0.01, hidden=8)


@pytest.fixture(scope="module")
def drifting_full():
    return drift(build("cyclic:5", "full"), 0.0005, hidden=16)


# One certificate per network, shared by the tests that read it (certifying is the slow part; the
# tests assert different things of the same certificate).
@pytest.fixture(scope="module")
def rotation_certificate(drifting_rotation):
    return certify_network(drifting_rotation, C5, search_length=500)


@pytest.fixture(scope="module")
def full_certificate(drifting_full):
    return certify_network(drifting_full, C5)


def _no_failure_below(w, L: int, seed: int = 3) -> None:
    """No word of length <= L fails: 10,000 random words and every single-symbol power."""
    assert check(w, C5, length=L, words=10_000, seed=seed).passed
    powers = np.repeat(np.arange(C5.n_symbols)[:, None], L, axis=1)
    assert check(w, C5, word_batch=powers).passed


def test_drifting_rotation_is_snapped_and_the_snap_is_proved(drifting_rotation, rotation_certificate, tmp_path):
    assert check(drifting_rotation, C5, length=500, words=200).accuracy < 0.9
    cert = rotation_certificate
    assert cert.status == "snapped"
    assert cert.failing_text == "1^63"  # pi/5 of phase error at 0.01 rad per step
    # the error grows linearly (sigma = 1, eps ~ delta): the bound is within a factor 2 of 63
    assert 30 <= cert.certified < 63
    _no_failure_below(drifting_rotation, cert.certified)
    path = tmp_path / "snap.json"
    cert.snapped_weights().save(path)
    loaded = Weights.load(path)
    assert loaded.exact and loaded.variant == "rotation2d"
    assert prove(loaded, C5).status == "proved"
    assert check(loaded, C5, length=2000, words=32).accuracy == 1.0
    # the snapped angles are the exact construction's
    assert loaded.A[1, 0, 0] == build("cyclic:5", "rotation2d").A[1, 0, 0]


def test_full_network_certified_length_below_the_failing_length(drifting_full, full_certificate):
    cert = full_certificate
    assert cert.status == "horizon"
    L, U = cert.certified, len(cert.failing)
    assert 700 <= L <= U < 2 * L  # the true failure (1257) is within a factor 2 of the bound
    _no_failure_below(drifting_full, L)
    assert not check(drifting_full, C5, word_batch=np.array([cert.failing])).passed
    assert prove(cert.snapped_weights(), C5).status == "proved"


def test_hand_construction_as_float_holds_far_beyond_10000():
    cert = certify_network(build("cyclic:5", "rotation2d").to_float(), C5, search_length=2000)
    assert cert.status in ("proved", "horizon")
    # eps ~ 5e-17 per step in real arithmetic; float64 rounding (~3e-16 per step) is charged on top
    assert cert.horizons["real"].every or cert.horizons["real"].length > 10**15
    assert cert.horizon.arithmetic == "float64" and (cert.horizon.every or cert.horizon.length > 10**14)
    assert cert.horizons["float32"].length < cert.horizon.length <= cert.horizons["real"].length
    assert cert.failing is None


def test_certificate_json_and_text(rotation_certificate):
    cert = rotation_certificate
    data = json.loads(json.dumps(cert.to_json()))
    assert data["status"] == "snapped" and data["failing_length"] == 63
    assert data["snap_proof"]["status"] == "proved"
    assert "fails at length 63 on 1^63" in cert.to_text()


def test_bad_input():
    with pytest.raises(WeightsError, match="exact"):
        certify_network(build("cyclic:5", "rotation2d"), C5)
    with pytest.raises(WeightsError, match="symbols"):
        certify_network(build("parity", "diagonal").to_float(), C5)


def test_periods_and_compression():
    assert symbol_periods(from_spec("dihedral:4")) == (4, 2)
    assert compress_word(C5, (2,) * 639) == "2^639"
    assert compress_word(C5, (4, 1) * 70) == "(4 1)^70"


def test_cli_weights_file_and_write(drifting_rotation, tmp_path, capsys):
    src, out = tmp_path / "float.json", tmp_path / "snap.json"
    drifting_rotation.save(src)
    assert main(["certify", "--weights", str(src), "cyclic:5", "--json", "--search-length", "200",
                 "--write", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "snapped"
    assert prove(Weights.load(out), C5).status == "proved"


def test_cli_baseline_run_is_a_clear_error(tmp_path, capsys):
    from bilinear.learned import TrainConfig
    from bilinear.learned import train_run

    run = tmp_path / "lstm"
    train_run(TrainConfig(spec="parity", model="lstm", hidden=2, steps=2, test_len=5, test_words=2), run)
    assert main(["certify", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bilinear: error:") and "baseline" in err and "Traceback" not in err
    assert err.count("\n") == 1  # one line
    assert main(["certify", str(tmp_path / "missing")]) == 2


def _noisy_onehot(automaton, noise=0.01, seed=0):
    from bilinear.constructions.handmade.onehot import onehot

    A, h0, R = onehot(automaton).to_float().float_arrays()
    rng = np.random.default_rng(seed)
    return Weights("full", A + noise * rng.normal(size=A.shape), h0, R)


def test_contracting_network_is_proved_for_every_length_by_the_invariant_tube():
    from bilinear.automata import Automaton

    last = Automaton(np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]]), start=0, name="last symbol")
    w = _noisy_onehot(last)
    cert = certify_network(w, last, search_length=300)
    assert cert.status == "proved" and cert.certified is None
    assert "invariant tube" in cert.horizon.note
    assert check(w, last, length=3000, words=64).passed


def test_state_map_snap_of_a_noisy_flipflop_is_proved_and_its_failure_found():
    a = from_spec("flipflop:3")
    cert = certify_network(_noisy_onehot(a), a, search_length=1000)
    assert cert.proof.status == "proved"
    assert cert.snap.rule.startswith("the exact map between the states")
    assert cert.status == "snapped"  # the noisy identity (symbol r) drifts
    assert re.search(r"r\^\d+$", cert.failing_text), cert.failing_text  # ends in a long run of r
    assert not check(_noisy_onehot(a), a, word_batch=np.array([cert.failing])).passed


def test_cli_bad_inputs_are_one_line_errors(tmp_path, capsys):
    assert main(["certify", "--weights", str(tmp_path / "none.json"), "cyclic:5"]) == 2
    exact = tmp_path / "exact.json"
    build("cyclic:5", "rotation2d").save(exact)
    assert main(["certify", "--weights", str(exact), "cyclic:5"]) == 2
    assert "exact" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["certify", "--weights", str(exact), "cyclic:5", "--search-length", "0"])
    with pytest.raises(WeightsError, match="search_length"):
        certify_network(build("cyclic:5", "rotation2d").to_float(), C5, search_length=0)


def test_written_snap_is_proved_by_verify_and_scores_one_at_2000(drifting_rotation, tmp_path, capsys):
    src, out = tmp_path / "float.json", tmp_path / "snap.json"
    drifting_rotation.save(src)
    assert main(["certify", "--weights", str(src), "cyclic:5", "--search-length", "200", "--write", str(out)]) == 0
    assert "snapped" in capsys.readouterr().out.splitlines()[0]
    assert main(["verify", "--weights", str(out), "cyclic:5", "rotation2d", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "proved"
    assert check(Weights.load(out), C5, length=2000, words=64).accuracy == 1.0


def test_operator_norm_bound_is_an_upper_bound_and_tight():
    import flint

    from bilinear.constructions.exact.balls import arb_matrix as _arb_matrix, op_norm as _op_norm

    rng = np.random.default_rng(1)
    for shape in [(3, 3), (4, 2), (6, 6)]:
        M = rng.normal(size=shape)
        b = float(_op_norm(_arb_matrix(M), range(shape[0]), range(shape[1])).mid())
        true = np.linalg.norm(M, 2)
        assert true <= b <= 1.2 * true  # 2^-5 root of the inf-norm of (M^T M)^16: close
        assert b <= np.linalg.norm(M) + 1e-12
    assert _op_norm(_arb_matrix(np.zeros((2, 2))), range(2), range(2)) == flint.arb(0)


def test_block_wise_bound_needs_a_block_diagonal_network(drifting_full, drifting_rotation):
    from bilinear.constructions.horizon.horizon_blocks import blockwise_horizon as _bw
    from bilinear.constructions.horizon.roundoff import RoundOff
    from bilinear.constructions.horizon.snap import snap_candidates

    def blockwise_horizon(w, snap, proof, a):
        return _bw(w, snap, proof, a, RoundOff.of("real", w.dim))

    snap = next(snap_candidates(drifting_full, C5))
    proof = prove(snap.block_weights, C5)
    assert blockwise_horizon(drifting_full, snap, proof, C5) is None  # a rational eigenbasis
    snap = next(snap_candidates(drifting_rotation, C5))
    h = blockwise_horizon(drifting_rotation, snap, prove(snap.block_weights, C5), C5)
    assert h.bound == "block-wise" and abs(h.constants["epsilon"] - 2 * np.sin(0.005)) < 1e-6  # the chord of delta


# ------------------------------------------------------------------------------------------
# semantics: which arithmetic; a round-off failure is reported as such, never beside a bound
# that covers it
# ------------------------------------------------------------------------------------------
PARITY = from_spec("parity")


def tie_network() -> Weights:
    """After the word ``0`` the float64 scores tie exactly (the tiny term 1e-17 h_1 is absorbed
    by h_0 before -h_0 is added), while the exact margin is about +5e-18."""
    return Weights("diagonal", [np.diag([1.0, 0.5, -0.25]), np.diag([-1.0, 0.5, -0.25])], [1.0, 1.0, 1.0],
                   [[1.0, 1e-17, 4.0], [-1.0, -1e-17, -4.0]])


def test_round_off_tie_is_a_round_off_failure_and_never_inside_the_float64_bound():
    from bilinear.analysis.certify import exact_margin_sign

    w = tie_network()
    assert not check(w, PARITY, word_batch=np.array([[0]])).passed  # float64: a tie at length 1
    assert exact_margin_sign(w, PARITY, (0,)) == 1  # real arithmetic: right
    cert = certify_network(w, PARITY, search_length=200)
    assert cert.failing == (0,) and cert.failure_kind == "round-off"
    assert cert.horizon.arithmetic == "float64" and cert.certified == 0  # only the empty word
    assert cert.horizons["real"].covers(1)  # the theorem in real arithmetic is not contradicted
    data = cert.to_json()
    assert data["arithmetic"] == "float64" and data["certified_length"] < data["failing_length"]
    assert data["failing_symbols"] == [0]
    text = cert.to_text()
    assert "round-off failure" in text and "correct for every word up to length 0" in text
    assert "float64 evaluation" in text


def _invariant(cert) -> None:
    if cert.failing is not None:
        assert not cert.horizon.covers(len(cert.failing))
        assert cert.certified is None or cert.certified < len(cert.failing)


def test_certified_length_is_below_the_failing_length_everywhere(rotation_certificate):
    _invariant(rotation_certificate)
    for w, a in [(tie_network(), PARITY), (_noisy_onehot(from_spec("flipflop:3")), from_spec("flipflop:3"))]:
        _invariant(certify_network(w, a, search_length=400))


# ------------------------------------------------------------------------------------------
# written snaps load and prove; the snap keeps the classifier
# ------------------------------------------------------------------------------------------
def test_written_snap_of_a_hidden_16_full_network_loads_and_is_proved(full_certificate, tmp_path):
    cert = full_certificate
    assert cert.snap.basis is not None  # a rational eigenbasis: the case that wrote 112 digits
    path = tmp_path / "snap.json"
    cert.snapped_weights().save(path)
    loaded = Weights.load(path)
    assert loaded.variant == "full" and loaded.exact
    assert prove(loaded, C5).status == "proved"
    assert check(loaded, C5, length=300, words=32).accuracy == 1.0


def test_the_exact_dihedral_5_block_2_construction_as_floats_certifies(tmp_path, capsys):
    d5 = from_spec("dihedral:5")
    A, h0, R = build("dihedral:5", "block:2").float_arrays()
    path = tmp_path / "d5.json"
    path.write_text(json.dumps({"format": "bilinear.weights", "version": 1, "variant": "block:2", "exact": False,
                                "A": A.tolist(), "h0": h0.tolist(), "readout": R.tolist()}))
    assert main(["certify", "--weights", str(path), "dihedral:5", "--unsigned", "--json",
                 "--search-length", "300"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] in ("proved", "horizon")
    assert data["certified_every_length"] or data["certified_length"] > 10**12
    # one common scale: the snapped readout is the float readout divided by one number
    cert = certify_network(Weights.load(path, allow_unsigned=True), d5, search_length=300)
    Rs = np.array(cert.snap.block_weights.readout, dtype=float)
    ratio = Rs[R != 0] / R[R != 0]
    assert np.allclose(ratio, ratio[0], rtol=1e-6)


# ------------------------------------------------------------------------------------------
# smaller points: status names, symbol indices, the run's test length, --write failures,
# shortened failing words
# ------------------------------------------------------------------------------------------
def test_failing_word_is_shortened_and_given_as_symbol_indices(drifting_rotation, rotation_certificate):
    from bilinear.constructions.horizon.failsearch import first_failures, shorten_failure

    w = drifting_rotation  # drift(build("cyclic:5", "rotation2d"), 0.01, hidden=8)
    long = (0,) * 40 + (2, 3) * 5 + (1,) * 63  # 0 is the identity: the junk before 1^63 is not needed
    assert first_failures(w, C5, np.array([long]))[0] > 63
    short = shorten_failure(w, C5, long[: first_failures(w, C5, np.array([long]))[0]])
    assert len(short) <= 70 and not check(w, C5, word_batch=np.array([short])).passed
    cert = rotation_certificate
    assert cert.to_json()["failing_symbols"] == list(cert.failing) == [1] * 63


def test_cli_write_without_a_proved_snap_prints_the_certificate_then_one_error(tmp_path, capsys):
    src, out = tmp_path / "float.json", tmp_path / "snap.json"
    A, h0, R = build("cyclic:5", "rotation2d").float_arrays()
    Weights("diagonal", np.stack([np.eye(2)] * 5), h0, R).save(src)  # diagonal cannot count mod 5
    assert main(["certify", "--weights", str(src), "cyclic:5", "--write", str(out), "--search-length", "50"]) == 2
    captured = capsys.readouterr()
    assert "failed" in captured.out.splitlines()[0] and "nothing written" in captured.out
    assert captured.err.count("\n") == 1 and "nothing to write" in captured.err
    assert not out.exists()


def test_cli_judges_a_run_at_its_own_test_length(tmp_path, capsys):
    from bilinear.learned import TrainConfig
    from bilinear.learned import train_run

    run = tmp_path / "diag"
    train_run(TrainConfig(spec="parity", model="diagonal", hidden=2, steps=2, test_len=7, test_words=2), run)
    assert main(["certify", str(run), "--json", "--search-length", "50"]) == 0
    assert json.loads(capsys.readouterr().out)["test_length"] == 7
    assert main(["certify", str(run), "--json", "--search-length", "50", "--test-length", "9"]) == 0
    assert json.loads(capsys.readouterr().out)["test_length"] == 9


def test_a_non_isometric_snap_gets_the_orbit_horizon_below_its_failure():
    """The noisy one-hot flipflop:3 (its snap is not an isometry): Theorem 23 (Theorem 19 with the
    error forgotten at every reset: 229 against 90) certifies a length, and the failure (length
    1567, a long power of r) lies beyond it and beyond the test length."""
    a = from_spec("flipflop:3")
    cert = certify_network(_noisy_onehot(a, noise=1e-3), a, search_length=2000)
    assert cert.proof.status == "proved" and not cert.snap.isometric
    assert cert.horizon.bound == "projective" and 0 < cert.certified < len(cert.failing)
    assert cert.status == "horizon" and len(cert.failing) > cert.test_length


def test_a_proved_snap_without_a_certified_length_has_its_own_status(monkeypatch):
    """The same network with Theorem 19's orbit limit at 2 products and no node horizon
    (Theorem 20 would certify it): no length is certified (the snap is still proved), and the
    status says so."""
    from bilinear.constructions.horizon import horizon, horizon_orbit
    monkeypatch.setattr(horizon_orbit, "MAX_PRODUCTS", 2)
    monkeypatch.setattr(horizon, "node_horizon_widest", no_node_horizon)
    a = from_spec("flipflop:3")
    cert = certify_network(_noisy_onehot(a, noise=1e-3), a, search_length=2000)
    assert cert.proof.status == "proved" and not cert.snap.isometric
    assert cert.horizon.kind == "none" and cert.certified is None
    assert cert.status == "uncertified"  # the failure (r^1575) lies beyond the test length 500
    assert len(cert.failing) > cert.test_length
    assert "no certified length (the snapped matrices generate more than 2 products" in cert.to_text()
    assert cert.to_json()["certified_length"] is None and not cert.to_json()["certified_every_length"]
