"""The verdict table fitted to a terminal: rows wrap at words, under their last cell."""

from __future__ import annotations

import io

from referee import announce

ROW = ("  2     6.268  tako      left hand + tako       chie +0.190 s                      "
       "aki wrong: raised right hand, expected left hand; said ika, expected tako")
CONT = " " * 83 + "aki turns down ika, which is a long note for a narrow terminal"
TABLE = "\n".join(["IKATAKO versus", "-" * 97, ROW, CONT, "  3    10.570  5         say 5"])


def _words(text: str) -> list[str]:
    return text.split()


def test_every_row_fits_and_no_word_is_broken():
    for width in (130, 100, 90, 72):
        fitted = announce.fit(TABLE, width)
        assert all(len(line) <= width for line in fitted.split("\n")), width
        assert _words(fitted.replace("-" * width, "-" * 97)) == _words(TABLE)


def test_notes_hang_under_their_column_when_the_columns_fit():
    lines = announce.fit(TABLE, 130).split("\n")
    row_at = lines.index(next(line for line in lines if line.startswith("  2 ")))
    wrapped = lines[row_at + 1]
    assert wrapped.startswith(" " * 83) and wrapped[83] != " "


def test_a_narrow_terminal_puts_the_cells_one_under_the_other():
    lines = announce.fit(TABLE, 90).split("\n")
    row_at = next(i for i, line in enumerate(lines) if line.startswith("  2 "))
    assert lines[row_at].rstrip().endswith("chie +0.190 s")
    assert lines[row_at + 1].lstrip().startswith("aki wrong:")
    indent = len(lines[row_at + 1]) - len(lines[row_at + 1].lstrip())
    deep = next(line for line in lines if "turns down" in line)
    assert len(deep) - len(deep.lstrip()) == indent


def test_rows_that_fit_are_unchanged_and_pipes_keep_long_rows():
    assert announce.fit(TABLE, 400) == TABLE
    assert announce.for_terminal(TABLE, io.StringIO()) == TABLE

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert announce.for_terminal(TABLE, Tty()) != TABLE
