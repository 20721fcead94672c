"""The README's two opening commands are the ones CI and users run."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def _blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", text, flags=re.S)


def test_readme_opens_with_demo_and_test_commands():
    blocks = _blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    demo, tests = blocks[0], blocks[1]
    assert demo.endswith("referee demo")
    assert "pip install -e ." in demo
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command():
    readme_test = _blocks((ROOT / "README.md").read_text(encoding="utf-8"))[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI installs the same Debian packages and then runs the same venv + pip + pytest chain.
    apt, _, chain = readme_test.partition(" && ")
    ci_apt = re.search(r"apt-get install -y -qq (.*?) >", ci).group(1).split()
    assert apt.split()[3:] == ci_apt
    assert chain in ci
