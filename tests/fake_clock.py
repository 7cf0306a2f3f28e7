"""A clock that only moves when the code under test sleeps: retry and rate-limit tests take milliseconds."""

from __future__ import annotations


class FakeTime:
    def __init__(self, start: float = 100.0) -> None:
        self.t = start
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds
