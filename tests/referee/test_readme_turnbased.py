"""The TAKOYAKI / Sea Salt & Paper / TORATANU examples of docs/games.md (the README's until
issue 33) run as shown.

Every ``$ referee ...`` line of that section is run in-process; its output must be
the lines shown under it (a ``...`` line stands for lines left out of the README).
"""

from __future__ import annotations

import shlex

import pytest

from tests.conftest import ROOT

SECTION = "## Turn-based games: TAKOYAKI, Sea Salt & Paper, TORATANU"


def _examples():
    text = (ROOT / "docs" / "games.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    nxt = section.find("\n## ", len(SECTION))
    section = section if nxt < 0 else section[:nxt]
    out, cmd, shown, in_block = [], None, [], False
    for line in section.splitlines():
        if line.startswith("```"):
            if in_block and cmd:
                out.append((cmd, shown))
                cmd, shown = None, []
            in_block = not in_block
            continue
        if not in_block:
            continue
        if line.startswith("$ referee "):
            if cmd:
                out.append((cmd, shown))
            cmd, shown = line[len("$ referee "):], []
        elif cmd is not None:
            shown.append(line)
    return out


EXAMPLES = _examples()


def test_the_section_has_examples_for_each_game():
    cmds = " ".join(c for c, _ in EXAMPLES)
    for part in ("rules takoyaki place", "rules seasaltpaper score", "rules seasaltpaper round",
                 "rules toratanu best", "judge fixtures/sessions/takoyaki"):
        assert part in cmds


@pytest.mark.parametrize("cmd,shown", EXAMPLES, ids=[c[:60] for c, _ in EXAMPLES])
def test_readme_example(run_cli, monkeypatch, cmd, shown):
    monkeypatch.chdir(ROOT)
    r = run_cli(*shlex.split(cmd))
    assert r.exit_code == 0, r.output
    got = r.output.rstrip("\n").split("\n")
    while shown and shown[-1] == "":
        shown = shown[:-1]
    if "..." in shown:
        i = shown.index("...")
        head, tail = shown[:i], shown[i + 1:]
        assert got[: len(head)] == head
        assert got[len(got) - len(tail):] == tail
    else:
        assert got == shown
