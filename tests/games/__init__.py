"""Games kept outside the referee, plugged in by ``rules.PLUGINS`` (the sixth test game)."""
