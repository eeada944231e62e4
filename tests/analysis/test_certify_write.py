"""certify prints the certificate before it refuses --write (issue 45, item 3): a proved snap that
has no conforming form in the trained basis (trained cyclic:3 monomial,complex networks) is said
so after the certificate, never instead of it."""

from __future__ import annotations

import json

from bilinear.analysis.certify import NetworkCertificate
from bilinear.cli import main
from bilinear.constructions.handmade.registry import build
from bilinear.errors import ConformanceError


def test_certificate_is_printed_before_the_write_is_refused(tmp_path, capsys, monkeypatch) -> None:
    path, out = tmp_path / "w.json", tmp_path / "snap.json"
    build("cyclic:3", "rotation2d").to_float().save(path)

    def refuse(self):  # what the snap of a trained monomial,complex network raised (measured)
        raise ConformanceError("the snapped matrices do not conform to monomial,complex")

    monkeypatch.setattr(NetworkCertificate, "snapped_weights", refuse)
    code = main(["certify", "--weights", str(path), "cyclic:3", "--write", str(out), "--json"])
    captured = capsys.readouterr()
    assert code == 2 and not out.exists()
    printed = json.loads(captured.out)
    assert printed["status"] in ("proved", "horizon") and printed["written"] is None
    assert "do not conform to monomial,complex" in captured.err
