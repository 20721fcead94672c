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


def test_readme_is_for_players_first():
    """After the two commands: what it does, what a table needs, then the path from the demo
    to a live game in order; the developers' material lives in docs/."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    heads = [line for line in text.splitlines() if line.startswith("## ") or line.startswith("### ")]
    assert heads[:2] == ["## What the referee does", "## What a table needs"]
    path = [h for h in heads if h.startswith("### ")][:5]
    assert [h.split("`")[1] if "`" in h else h for h in path] == [
        "referee demo", "referee teach", "### 3. Set up your table", "referee live",
        "### 5. Settle a dispute: replay and report"]
    for gone in ("## Layout", "## Architecture", "## Bad input and faults", "Issue 31's targets",
                 "Until the live referee records for you"):
        assert gone not in text, gone
    needs = text[text.index("## What a table needs"):text.index("## From the demo")]
    for fact in ("1280×720, 30 fps", "4-input interface", "own clock", "One laptop"):
        assert fact in needs, fact


def _commands(text: str) -> list[list[str]]:
    """Every ``referee ...`` line of the README's sh blocks after the first two (continuation
    lines joined, comments dropped), as argument lists."""
    import shlex

    out = []
    for block in _blocks(text)[2:]:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("$ "):
                line = line[2:]
            if line.startswith("referee "):
                out.append(shlex.split(line)[1:])
    return out


def test_every_readme_command_and_option_exists():
    """Each command the README shows names a real sub-command and only options it has (the
    README's examples must work as written; `referee calibrate --game ikatako --camera 0` is run
    as written by tests/calibration/test_guided_cli.py)."""
    import click

    from referee.cli import cli

    commands = _commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert ["calibrate", "--game", "ikatako", "--camera", "0"] in commands
    assert ["devices", "--seats", "4"] in commands
    for args in commands:
        cmd, ctx, rest = cli, click.Context(cli), list(args)
        while isinstance(cmd, click.Group) and rest and not rest[0].startswith("-"):
            sub = cmd.get_command(ctx, rest[0])
            assert sub is not None, f"referee {' '.join(args)}: no command {rest[0]!r}"
            cmd, rest = sub, rest[1:]
        names = {o for p in cmd.params for o in getattr(p, "opts", []) + getattr(p, "secondary_opts", [])}
        for token in rest:
            if token.startswith("-") and not token.lstrip("-").isdigit():
                assert token.split("=")[0] in names, f"referee {' '.join(args)}: no option {token}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_links_between_the_readme_and_docs_resolve():
    """The README's sections moved to docs/ (issue 33): every relative link of the README and of
    the pages that point into them reaches a file, and its #anchor a heading there."""
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    anchors = {}
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        anchors[page.resolve()] = {_slug(m) for m in re.findall(r"^#+ (.*)$", text, flags=re.M)}
    broken = []
    for page in pages:
        if page.name in ("hearing.md", "live.md"):  # (their owners update their links)
            continue
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page.resolve()
            if not dest.exists():
                broken.append(f"{page.name}: {target} (no file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors.get(dest, set()):
                broken.append(f"{page.name}: {target} (no heading)")
    assert broken == []
