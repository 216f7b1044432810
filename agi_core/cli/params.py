"""Option types the CLI shares: a number of seconds that is finite (``nan`` and ``inf`` are refused)."""

from __future__ import annotations

import math
from typing import Any

import click


class Seconds(click.ParamType):
    """Seconds, a finite number ≥ 0 (> 0 when ``positive``); click.FloatRange lets ``nan`` and ``inf`` through."""

    name = "seconds"

    def __init__(self, *, positive: bool = False) -> None:
        self.positive = positive

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float) and math.isfinite(value):
            seconds = value
        else:
            try:
                seconds = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number of seconds; give one such as 2 or 0.5", param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value!r} is not a finite number of seconds; give one such as 2 or 0.5", param, ctx)
        if seconds < 0 or (self.positive and seconds == 0):
            floor = "greater than 0" if self.positive else "0 or more"
            self.fail(f"{value!r} seconds is out of range; give {floor}", param, ctx)
        return seconds
