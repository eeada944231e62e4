"""The field's protocols as presets: each sets only the fields the command line leaves alone."""

import pytest

from bilinear.cli import build_parser
from bilinear.learned.cli import config_from_args


def _config(*argv):
    return config_from_args(build_parser().parse_args(["train", *argv]))


@pytest.mark.parametrize("preset,expected", [
    ("chomsky", {"train_min_len": 1, "train_max_len": 40, "test_len": 500, "val_min_len": 41, "batch": 128}),
    ("deltaproduct", {"train_min_len": 128, "train_max_len": 128, "test_len": 512, "hidden": 128}),
    ("pd-ssm", {"train_min_len": 3, "train_max_len": 40, "test_len": 256}),
    ("paper", {"hidden": 256, "embed": 256, "angles": True}),
])
def test_a_preset_sets_its_protocol(preset, expected):
    c = _config("symmetric:3", "householder:2", "--preset", preset)
    assert {k: getattr(c, k) for k in expected} == expected


def test_an_option_given_keeps_its_value():
    c = _config("parity", "householder:1", "--preset", "chomsky", "--train-len", "2", "20", "--batch", "32")
    assert (c.train_min_len, c.train_max_len, c.batch, c.test_len) == (2, 20, 32, 500)
