"""Hostile sizes (issue 25, defects 11 and 13): an automaton's and a construction's size are
decided from the spec before anything is built, with the estimate in one line (exit 2), or the
time budget is honoured (exit 3); every check runs under a 6 GB cap."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main


def _one_line(proc) -> str:
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    return proc.stderr


def test_a_random_table_past_the_limit_is_refused_from_the_spec(capped_cli):
    """``verify random:states=100000,symbols=1000 full --time-budget 5`` built the 10^8-entry table
    (23 s, 5.4 GB) before the budget or any size check."""
    proc = capped_cli("verify", "random:states=100000,symbols=1000", "full", "--time-budget", "5", timeout=30)
    assert proc.returncode == 2
    err = _one_line(proc)
    assert "100,000 states x 1,000 symbols = 100,000,000 table entries (at least 0.745 GiB)" in err
    assert "MAX_TABLE_ENTRIES" in err


def test_matrix_refuses_a_row_from_its_spec(capped_cli):
    """``matrix --rows cyclic:10000 --columns diagonal``: 84 s silent, 5.5 GB, a traceback."""
    proc = capped_cli("matrix", "--rows", "cyclic:10000", "--columns", "diagonal", timeout=30)
    assert proc.returncode == 2
    assert "cyclic:10000 would have 10,000 states x 10,000 symbols = 100,000,000 table entries" in _one_line(proc)


def test_a_100000_state_cycle_under_full_is_one_line(capped_cli, tmp_path):
    """The one-hot construction of a 100,000-state cycle asked for 74.5 GiB."""
    n = 100_000
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps({"format": "bilinear.automaton", "version": 1, "states": n, "symbols": ["a"],
                                "delta": [[(i + 1) % n for i in range(n)]], "labels": [int(i == 0) for i in range(n)]}))
    proc = capped_cli("verify", path, "full", "--time-budget", "5", timeout=60)
    assert proc.returncode in (2, 3), proc.stderr[-2000:]
    if proc.returncode == 2:
        assert "10,000,000,000 matrix entries" in _one_line(proc)
    else:
        assert "time budget of 5 s" in proc.stdout


def test_the_budget_counts_building_the_automaton(capsys):
    """A table within the limit that takes longer than the budget to build: open, exit 3."""
    assert main(["verify", "random:states=100000,symbols=100", "full", "--time-budget", "0.001"]) == 3
    out = capsys.readouterr().out
    assert "open" in out and "the automaton was not built within the time budget of 0.001 s" in out


def test_the_table_limit_is_the_product_of_the_specs_shape():
    """The limit is decided from the shape alone: one entry under passes, one over is refused."""
    from bilinear.automata.families import MAX_TABLE_ENTRIES, check_spec
    from bilinear.errors import AutomatonError

    assert MAX_TABLE_ENTRIES == 50_000_000
    assert check_spec("random:states=50000,symbols=1000") == (50_000, 1000)  # exactly at the limit
    with pytest.raises(AutomatonError, match="50,001,000 table entries"):
        check_spec("random:states=50001,symbols=1000")
    with pytest.raises(AutomatonError, match="MAX_TABLE_ENTRIES"):
        check_spec("parity*cyclic:7072")  # a factor past the limit, before the product's own check


def test_the_factor_cap_holds_through_the_spec_the_sweep_file_and_the_api():
    """20,000 factors took 21.6 s (quadratic); now refused from the count of ``*`` alone."""
    import time

    from bilinear.automata import from_spec
    from bilinear.automata.families import MAX_FACTORS, product
    from bilinear.errors import ConfigError, SpecError
    from bilinear.learned.sweep import Sweep

    many = "*".join(["cyclic:1"] * 20_000)
    start = time.perf_counter()
    with pytest.raises(SpecError, match="a product of 20,000 factors: the limit is 64 factors"):
        from_spec(many)
    assert time.perf_counter() - start < 0.5
    with pytest.raises(ConfigError, match=r"'cyclic:1\*cyclic:1.*\.\.\. \(179,999 characters\)': a product of 20,000 "
                                          "factors: the limit is 64 factors") as info:
        Sweep.from_toml_text(f'families = ["{many}"]\nmodels = ["diagonal"]')
    assert len(str(info.value)) < 250  # one readable line, not the 180 kB spec
    one = from_spec("cyclic:1")
    with pytest.raises(SpecError, match="a product of 65 factors"):
        product(*[one] * (MAX_FACTORS + 1))
    at_cap = from_spec("*".join(["cyclic:1"] * (MAX_FACTORS - 1) + ["parity"]))  # 64 factors: built
    assert (at_cap.n_states, at_cap.n_symbols, len(at_cap.spec.factors)) == (2, 2, 64)
    assert at_cap.run(["(" + ",".join(["0"] * 63 + ["1"]) + ")"]) == 1
    assert product(*[one] * MAX_FACTORS).n_states == 1


def test_matrix_takes_a_time_budget_and_reports_progress(capped_cli):
    """``matrix --rows symmetric:8 --columns full`` ran 29 s silent at 3.4 GB: each cell now takes
    ``--time-budget`` (a cell past it is open and says so) and progress lines go to stderr."""
    # symmetric:8 (40,320 states): no machine proves it within 0.3 s (symmetric:7's 5,040 states
    # came within 0.3 s of it on a quiet machine, so that row could be proved and the test flaked)
    proc = capped_cli("matrix", "--rows", "symmetric:8", "--columns", "full", "--time-budget", "0.3", "--json",
                      env={"BILINEAR_PROGRESS_INTERVAL": "0.1"}, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    cell = json.loads(proc.stdout)["cells"][0][0]
    assert cell["status"] == "open" and "time budget" in cell["detail"]  # the build or the proof stopped
    assert "matrix: 0 of 1 cells (0%)" in proc.stderr and "(symmetric:8 full)" in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("matrix: 1 of 1 cells, done in")


def test_margins_over_many_classes_are_chunked_and_exact():
    """The margins of many pairs over many classes, chunk by chunk, equal one whole computation."""
    from bilinear.constructions.proof import prover as prover_module
    from bilinear.constructions import prove
    from bilinear.constructions import build
    from bilinear.automata import from_spec

    automaton = from_spec("symmetric:4")
    weights = build(automaton, "full")
    whole = prove(weights, automaton)
    old = prover_module._SCORE_CHUNK
    prover_module._SCORE_CHUNK = 30  # one pair of 24 classes a chunk
    try:
        chunked = prove(weights, automaton)
    finally:
        prover_module._SCORE_CHUNK = old
    assert whole.status == chunked.status == "proved"
    assert whole.margin == chunked.margin and whole.states_explored == chunked.states_explored


def test_a_huge_sweep_grid_is_refused_before_expansion(monkeypatch):
    """A 10^6-point grid validated for over two minutes in silence: now refused from the axes'
    lengths, before one TrainConfig is made; duplicates are found in linear time."""
    import time

    from bilinear.errors import ConfigError
    from bilinear.learned import sweep as sweep_module
    from bilinear.learned.sweep import MAX_SWEEP_RUNS, Sweep

    def no_config(*args, **kwargs):  # pragma: no cover - the point is that it is never called
        raise AssertionError("a grid point was validated before the grid's size")

    seeds = "[" + ", ".join(map(str, range(1_000_000))) + "]"
    start = time.perf_counter()
    with monkeypatch.context() as m:
        m.setattr(sweep_module, "TrainConfig", no_config)
        with pytest.raises(ConfigError, match=r"the sweep grid has 2,000,000 points \(2 families x 1 models x "
                                              r"1 hidden x 1 n_train x 1 lrs x 1,000,000 seeds\), over the limit of "
                                              r"10,000 runs"):
            Sweep(families=["parity", "cyclic:3"], models=["diagonal"], seeds=list(range(1_000_000)))
    assert time.perf_counter() - start < 2
    assert MAX_SWEEP_RUNS == 10_000 and len(seeds) > 2**20  # such a TOML file is also over the file limit
    with pytest.raises(ConfigError, match="lists 9999 twice"):
        Sweep(families=["parity"], models=["diagonal"], seeds=[*range(10_000), 9_999][1:])


def test_sweep_validation_reports_progress(monkeypatch, capsys):
    """A large grid prints progress lines while its points are validated (here every 0.05 s)."""
    from bilinear.learned import sweep as sweep_module
    from bilinear.learned.sweep import Sweep

    monkeypatch.setenv("BILINEAR_PROGRESS_INTERVAL", "0.05")
    monkeypatch.setattr(sweep_module, "_VALIDATION_PROGRESS_POINTS", 10)
    real = sweep_module.TrainConfig

    def slow(**kwargs):
        import time

        time.sleep(0.01)
        return real(**kwargs)

    monkeypatch.setattr(sweep_module, "TrainConfig", slow)
    assert len(Sweep(families=["parity"], models=["diagonal"], seeds=list(range(30))).configs()) == 30
    lines = capsys.readouterr().err.splitlines()
    assert any(line.startswith("sweep: validating the grid: ") and " of 30 grid points (" in line for line in lines)
    assert lines[-1].startswith("sweep: validating the grid: 30 of 30 grid points, done in")


def test_a_ray_address_that_refuses_is_one_line_in_seconds(monkeypatch, tmp_path):
    """``sweep --ray 127.0.0.1:1`` retried forever inside ``ray.init``: the address is now tried
    a bounded number of times first, before anything is written (Ray is a stand-in here, whose
    ``init`` would hang)."""
    import socket
    import sys
    import time
    import types

    from bilinear.errors import ConfigError
    from bilinear.learned.sweep import Sweep, _check_ray_address, run_sweep

    fake = types.ModuleType("ray")

    def init(**kwargs):  # pragma: no cover - the point is that it is never reached
        raise AssertionError("ray.init was called on an address nothing listens at")

    fake.init = init
    monkeypatch.setitem(sys.modules, "ray", fake)
    with socket.socket() as probe:  # a port nothing listens at: bound, never listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        start = time.perf_counter()
        with pytest.raises(ConfigError, match=rf"--ray '127.0.0.1:{port}': nothing accepts connections there "
                                              r"\(Connection refused; 3 attempts of 5 s\)"):
            run_sweep(Sweep(families=["parity"], models=["diagonal"]), tmp_path / "out", ray_address=f"127.0.0.1:{port}")
    assert time.perf_counter() - start < 10 and not (tmp_path / "out").exists()
    with socket.socket() as server:  # something listening: the check passes
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        _check_ray_address(f"ray://127.0.0.1:{server.getsockname()[1]}")
    for bad in ("not a host", "127.0.0.1", "host:99999", ":80"):
        with pytest.raises(ConfigError, match="expected HOST:PORT, ray://HOST:PORT, auto or local"):
            _check_ray_address(bad)


def test_a_file_of_zero_bytes_is_refused_from_its_first_bytes(capped_cli, tmp_path):
    """A 255 MiB file of zero bytes took 41.6 s to refuse (a Python scan of every character)."""
    import time

    from bilinear.errors import AutomatonError
    from bilinear.jsonfile import _depth, read_json_file

    zeros = tmp_path / "zeros.json"
    with open(zeros, "wb") as fh:
        fh.truncate(255 * 2**20)  # sparse: no disk used
    start = time.perf_counter()
    proc = capped_cli("verify", zeros, "full", timeout=60)
    assert proc.returncode == 2
    assert "zeros.json: not a JSON file (it starts with the byte 0x00 at offset 0)" in _one_line(proc)
    assert time.perf_counter() - start < 20
    late = tmp_path / "late.json"
    late.write_bytes(b'  {"a": 1}' + b"\x00" * 5)
    with pytest.raises(AutomatonError, match=r"late.json: not a JSON file \(a NUL byte at offset 10\)"):
        read_json_file(late, AutomatonError)
    assert _depth('{"a": ["[[[", {"b": [[]]}]}') == 5 and _depth("[" * 10**5 + "]" * 10**5) == 65
