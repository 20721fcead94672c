"""``referee judge`` and ``referee demo``: verdicts and a scoreboard from a session record."""

from __future__ import annotations

from pathlib import Path

import click

from referee import announce
from session.errors import RecordError
from referee.judge import judge
from referee.judging.unclear import WORD_CONF, Answer, Clarity
from referee.options import parse_option_args
from session.record import read_record

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DEMO_SESSION = FIXTURES / "sessions" / "demo_ikatako_versus.jsonl"


def _judge_file(path: Path, as_json: bool, strict: bool, options: tuple[str, ...], decide: tuple[str, ...] = (),
                min_conf: tuple[str, ...] = ()) -> int:
    overrides = parse_option_args(options)
    answers = [Answer.parse(text) for text in decide]
    clarity = Clarity.parse(min_conf)
    record = read_record(path)
    issues, others = record.issues, 0
    if record.header is None:  # nothing will be judged: the first line's problem, not one per line of a WAV
        issues = [i for i in record.issues if i.line == 1]
        others = len({i.line for i in record.issues if i.line != 1})
    for issue in issues:
        click.echo(f"{path}:{issue}", err=True)
    if record.header is None and others:
        click.echo(f"{path}: {others} more line(s) are not record lines either: is it a session record (the "
                   "session.jsonl referee replay or referee live writes)?", err=True)
    if strict and record.errors:
        raise RecordError(f"{path}: {len(record.errors)} malformed line(s); not judged (--strict)")
    judgement = judge(record, overrides, clarity=clarity, answers=answers)
    for note in judgement.notes:
        click.echo(f"{path}:{note}", err=True)
    if as_json:
        click.echo(judgement.jsonl(), nl=False)
    else:
        click.echo(announce.for_terminal(announce.table(judgement, record.header)))
    return 0


option_arg = click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE",
    help="Override a rule option of the record's header, e.g. -o window=2.5 (repeatable).",
)


@click.command("judge")
@click.argument("session", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="JSON lines: one verdict per card, then the result.")
@click.option("--strict", is_flag=True, help="Refuse to judge a record with malformed lines (exit 2).")
@option_arg
@click.option("--decide", "decide", multiple=True, metavar="N:PLAYER=correct|wrong",
              help="The table's answer about an unclear item of verdict N (the table's # column), e.g. "
                   "--decide 3:ben=correct; or N:first=PLAYER (who takes card N). Applied as if the record "
                   "ended with that decision line (the file is not changed); repeatable, the last answer "
                   "per card and player counts.")
@click.option("--min-conf", "min_conf", multiple=True, metavar="card=C|hand=C|word=C",
              help="How sure a card (default 0.5), hand/grab event (default 0.5) or heard word (default "
                   f"{WORD_CONF:g}) must be for a verdict to rest on it; below it the card is not read / the hand "
                   "or the word is unclear (repeatable).")
def judge_cmd(session: Path, as_json: bool, strict: bool, options: tuple[str, ...], decide: tuple[str, ...],
              min_conf: tuple[str, ...]) -> None:
    """Judge a recorded SESSION (JSON lines) and print the verdicts and the scoreboard.

    Malformed lines are reported on stderr and skipped; with --strict they stop the judging.
    What the referee did not clearly perceive is unclear (no penalty, no point); --decide
    gives the table's answers about it.
    """
    _judge_file(session, as_json, strict, options, decide, min_conf)


def demo_events(as_json: bool) -> None:
    """The event-only demo (``referee demo --events``): judge the bundled 28-card IKATAKO
    versus session record and print the table."""
    if not DEMO_SESSION.is_file():
        raise RecordError(
            f"the demo session {DEMO_SESSION} is missing: run the demo from a clone of the "
            "project installed with 'pip install -e .'"
        )
    click.echo(f"Judging the bundled session {DEMO_SESSION.relative_to(FIXTURES.parent)}", err=True)
    _judge_file(DEMO_SESSION, as_json, False, ())
