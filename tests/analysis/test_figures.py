import subprocess
import sys

from bilinear.analysis.commutators import commutators
from bilinear.analysis.examples import cyclic_rotation2d, dihedral_block2
from bilinear.analysis.extract import ExtractConfig, extract
from bilinear.analysis.figures import accuracy_figure, commutator_figure, eigenvalue_figure
from bilinear.analysis.spectrum import spectrum
from bilinear.automata import from_spec

PNG = b"\x89PNG\r\n\x1a\n"


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == PNG
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_eigenvalue_figure(tmp_path):
    p = eigenvalue_figure(spectrum(dihedral_block2(5)), tmp_path / "sub" / "e.png")
    assert p.parent.name == "sub"
    assert _png_size(p) == (500, 500)


def test_commutator_figure_scales_with_symbols(tmp_path):
    small = _png_size(commutator_figure(commutators(dihedral_block2(3)), tmp_path / "c2.png"))
    big = _png_size(commutator_figure(commutators(cyclic_rotation2d(12), word_length=1), tmp_path / "c12.png"))
    assert big[0] > small[0]


def test_accuracy_figure(tmp_path):
    ex = extract(cyclic_rotation2d(5, angle_error=0.02), from_spec("cyclic:5"), ExtractConfig(words=50, length=60, method="geometry"))
    assert _png_size(accuracy_figure(ex, tmp_path / "a.png")) == (550, 350)


def test_analysis_and_figures_never_load_pyplot(tmp_path):
    # a fresh interpreter: importing the analysis and drawing every figure must not import pyplot
    # (pyplot holds global figure state and picks a GUI backend)
    code = (
        "import sys\n"
        "import bilinear.analysis\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'import bilinear.analysis loaded pyplot'\n"
        "from bilinear.analysis.examples import cyclic_rotation2d\n"
        "from bilinear.analysis.figures import eigenvalue_figure\n"
        "from bilinear.analysis.spectrum import spectrum\n"
        f"eigenvalue_figure(spectrum(cyclic_rotation2d(3)), {str(tmp_path / 'e.png')!r})\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'drawing a figure loaded pyplot'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert _png_size(tmp_path / "e.png") == (500, 500)
