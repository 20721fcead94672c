"""The layer contract (pyproject.toml ``[tool.importlinter]``): the session contract at the
bottom imports nothing of the project; rules, vision and audio import only it; calibration
sits above them and the application on top; mediapipe only in vision, the speech engine and
sounddevice only in audio. A change that climbs back up fails here."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_layers_hold():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    run = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_contract_package_imports_nothing_of_the_project():
    project = {"referee", "rules", "vision", "audio", "calibration", "fixtures"}
    for path in sorted((ROOT / "session").glob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("import", "from"):
                assert words[1].split(".")[0] not in project, f"{path.name}: {line.strip()}"


def test_no_module_outside_the_contract_writes_an_event_by_hand():
    """Events are built as the contract's typed objects (``session.events``), never as
    hand-written dicts: a ``"type": "<event kind>"`` literal outside ``session/`` is one."""
    import re

    from session.events import Event

    kinds = "|".join(sorted(Event._registry))
    pattern = re.compile(r"""["']type["']\s*:\s*["'](%s)["']""" % kinds)
    offenders = []
    for package in ("referee", "rules", "vision", "audio", "calibration"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


def test_no_two_modules_import_each_other():
    """No import cycle among the project's modules, counting the imports inside functions too
    (issue 32): a module that needs another's helpers and is needed by it shares them through
    a third (``referee.report_media``, ``referee.teach.texts``, ``referee.commands.demo_files``)."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (pip install -e '.[test]')")
    graph = grimp.build_graph("session", "rules", "vision", "audio", "calibration", "referee")
    cycles = []
    for module in sorted(graph.modules):
        for other in graph.find_modules_directly_imported_by(module):
            if other > module and graph.chain_exists(importer=other, imported=module):
                cycles.append((module, other, graph.find_shortest_chain(importer=other, imported=module)))
    assert cycles == []
