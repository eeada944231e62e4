"""One name for one verdict (issue 45, item 6): the prover's undecided result is ``open``, the word
``verify`` prints."""

from __future__ import annotations

import json

from bilinear.automata import Automaton
from bilinear.automata.fileformat import write
from bilinear.cli import main
from bilinear.constructions.proof.prover import prove
from bilinear.constructions.values.weights import Weights


def test_prove_and_verify_name_an_undecided_proof_alike(tmp_path, capsys) -> None:
    always = Automaton([[0]], labels=[0], classes=("pos", "neg"), symbols=("x",))
    grows = Weights("diagonal", A=[[[2, 0], [0, 1]]], h0=[2, 1], readout=[[1, 0], [0, 1]])
    result = prove(grows, always)
    assert result.status == "open" and result.to_json()["status"] == "open"
    path = tmp_path / "grows.json"
    grows.save(path)
    spec = tmp_path / "always.json"
    write(always, spec)
    code = main(["verify", str(spec), "--weights", str(path), "--bound", "4", "--json"])
    assert code == 3 and json.loads(capsys.readouterr().out)["status"] == result.status
