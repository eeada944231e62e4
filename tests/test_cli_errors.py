"""Every OS error and every huge number on the command line is one line on stderr, exit 2; and the
algebra commands start without torch or matplotlib."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from bilinear.argtypes import MAX_SEED, seed
from bilinear.cli import _first_line, main


def one_line_error(capsys, argv, message) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err[:300]


def test_save_onto_a_directory_or_under_a_file(tmp_path, capsys):
    one_line_error(capsys, ["verify", "parity", "diagonal", "--save", str(tmp_path)],
                   f"--save file {tmp_path} is a folder")
    afile = tmp_path / "afile"
    afile.write_text("x")
    one_line_error(capsys, ["verify", "parity", "diagonal", "--save", str(afile / "sub" / "w.json")], "Not a directory")
    one_line_error(capsys, ["analyze", "--construction", "parity", "diagonal", "--out", str(afile / "sub"),
                            "--no-figures"], "Not a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # no temporary file left


def test_read_only_output_folder(capsys, unwritable_folders):
    """As root too (CI runs as root, and root writes into a chmod 0555 folder): see the fixture."""
    for folder, error, named in unwritable_folders:
        one_line_error(capsys, ["verify", "parity", "diagonal", "--save", os.path.join(folder, "w.json")],
                       f"{error}: {named!r}")


def test_reproduce_into_proc_is_one_line(capsys):
    one_line_error(capsys, ["reproduce", "--quick", "--out", "/proc/x/y", "--quiet"], "/proc/x")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_on_dev_full_is_one_line():
    code = "import sys; from bilinear.cli import main; sys.exit(main(['describe', 'parity']))"
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-c", code], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "bilinear: error: cannot write to standard output: No space left on device\n"


@pytest.mark.parametrize("argv, message", [
    (["describe", "cyclic:" + "9" * 5000], "has 5000 digits (the limit is 18)"),
    (["verify", "parity", "diagonal", "--seed", "18446744073709551616"], f"a seed must be in 0..{MAX_SEED}"),
    (["verify", "parity", "diagonal", "--float", "--seed", "-1"], "a seed must be in 0.."),
    (["train", "parity", "full", "--seed", "18446744073709551616"], "a seed must be in 0.."),
    (["analyze", "--construction", "parity", "diagonal", "--seed", "9" * 5000], "5000 digits is over the limit"),
    (["verify", "parity", "diagonal", "--bound", "9" * 5000], "5000 digits is over the limit"),
])
def test_huge_integers_on_the_command_line(capsys, argv, message):
    try:  # argparse types exit through SystemExit, library errors return 2
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1 and len(err) < 300


@pytest.mark.parametrize("content, message", [
    (b'families = [1\x00\xff', "not UTF-8"),
    (b"a = " + b"[" * 5000 + b"]" * 5000, "not valid TOML"),
    (b'families = ["parity"]\nmodels = ["full"]\nseeds = [' + b"9" * 5000 + b"]", "not valid TOML"),
    (b'families = ["parity"]\nmodels = ["full"]\nseeds = [18446744073709551616]', "seed must be in 0..2**63-1"),
])
def test_hostile_sweep_files(tmp_path, capsys, content, message):
    path = tmp_path / "s.toml"
    path.write_bytes(content)
    one_line_error(capsys, ["sweep", str(path), "--out", str(tmp_path / "out")], message)


def test_seed_type_and_first_line():
    assert seed("0") == 0 and seed(str(MAX_SEED)) == MAX_SEED
    with pytest.raises(argparse.ArgumentTypeError):
        seed(str(MAX_SEED + 1))
    assert _first_line("\n  shape mismatch: a\nb\n") == "shape mismatch: a"


def test_multi_line_library_messages_become_one_line(capsys, monkeypatch):
    from bilinear.automata import describe as describe_module
    from bilinear.errors import AnalysisError

    def boom(*args, **kwargs):
        raise AnalysisError("size mismatch for A:\n\tcopying a param with shape (2,)\n")

    monkeypatch.setattr("bilinear.automata.cli.describe", boom)
    assert describe_module  # the module the command calls through
    one_line_error(capsys, ["describe", "parity"], "size mismatch for A:")


@pytest.mark.parametrize("argv", [["describe", "parity"], ["verify", "cyclic:5", "rotation2d"],
                                  ["families"], ["matrix", "--rows", "parity", "--columns", "diagonal"]])
def test_algebra_commands_never_import_torch_or_matplotlib(argv):
    code = (
        "import sys\nfrom bilinear.cli import main\n"
        f"assert main({argv!r}) in (0, 1, 3)\n"
        "loaded = [m for m in ('torch', 'matplotlib') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_help_never_imports_torch():
    code = (
        "import sys\nfrom bilinear.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'torch' not in sys.modules and 'matplotlib' not in sys.modules\n"
        "from bilinear.learned import train, TrainConfig\n"  # the lazy exports still work
        "import bilinear.learned.train\n"
        "assert callable(train) and 'torch' in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_learned_cli_table_names_match_the_runs_module():
    from bilinear.learned import cli, runs

    assert (cli.RESULTS_CSV, cli.RESULTS_MD) == (runs.RESULTS_CSV, runs.RESULTS_MD)


def test_bilinear_debug_shows_the_traceback_behind_the_line(capsys, monkeypatch):
    argv = ["describe", "cyclic:0"]
    assert main(argv) == 2
    plain = capsys.readouterr().err
    assert plain.count("\n") == 1 and "Traceback" not in plain
    monkeypatch.setenv("BILINEAR_DEBUG", "1")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last)") and "SpecError" in err
    assert err.splitlines()[-1] == plain.strip()  # the same one line ends it
    monkeypatch.setenv("BILINEAR_DEBUG", "0")
    assert main(argv) == 2 and capsys.readouterr().err == plain
