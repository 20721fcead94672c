"""One judging module per game: ``judge(session) -> iterable of verdict/result dicts``.

Each module may also define ``format_table(judgement) -> str`` for people; otherwise
:mod:`referee.announce` prints a generic table.
"""
