"""Held reads (glueball.waits): answered at once when settled, at the change when one comes, as they are at the
end of the hold, and at once when every holder is taken."""

from __future__ import annotations

import threading
from typing import Any

from glueball import waits
from glueball.waits import Changes, held


class Thing:
    """A stored value read by a held request, changed by another thread."""

    def __init__(self, value: str) -> None:
        self.value = value
        self.reads = 0

    def read(self) -> str:
        self.reads += 1
        return self.value


def _ended(value: str) -> bool:
    return value == "ended"


def test_a_settled_read_is_answered_at_once_with_one_read() -> None:
    thing = Thing("ended")
    assert held(thing.read, _ended, Changes(), 30, threading.BoundedSemaphore(1)) == "ended"
    assert thing.reads == 1


def test_a_change_noted_in_this_process_ends_the_hold() -> None:
    thing, changes, holders = Thing("running"), Changes(), threading.BoundedSemaphore(1)
    answered: list[str] = []
    reader = threading.Thread(target=lambda: answered.append(held(thing.read, _ended, changes, 30, holders)))
    reader.start()
    while thing.reads == 0:  # the holder has read once and waits
        threading.Event().wait(0.01)
    thing.value = "ended"
    changes.note()
    reader.join(20)
    assert answered == ["ended"]
    assert holders.acquire(blocking=False), "the holder gave its place back"


def test_a_change_made_elsewhere_is_seen_by_a_later_look(monkeypatch: Any) -> None:
    monkeypatch.setattr(waits, "LOOK_SECONDS", 0.01)
    thing = Thing("running")
    looks: list[int] = []

    def read() -> str:
        looks.append(1)
        if len(looks) == 3:  # another server process ended it: nothing is noted in this one
            thing.value = "ended"
        return thing.read()

    assert held(read, _ended, Changes(), 30, threading.BoundedSemaphore(1)) == "ended"
    assert len(looks) == 3


def test_the_hold_ends_with_the_read_as_it_is_then() -> None:
    thing = Thing("running")
    assert held(thing.read, _ended, Changes(), 0.05, threading.BoundedSemaphore(1)) == "running"
    assert thing.reads >= 2, "the answer is a read made at the end of the hold, not the first one"


def test_when_every_holder_is_taken_a_read_is_answered_at_once() -> None:
    holders = threading.BoundedSemaphore(1)
    assert holders.acquire(blocking=False)
    thing = Thing("running")
    assert held(thing.read, _ended, Changes(), 30, holders) == "running"
    assert thing.reads == 1


def test_a_failing_read_raises_and_frees_its_holder() -> None:
    holders, calls = threading.BoundedSemaphore(1), []

    def read() -> str:
        calls.append(1)
        if len(calls) > 1:
            raise LookupError("deleted meanwhile")
        return "running"

    try:
        held(read, _ended, Changes(), 0.05, holders)
    except LookupError as err:
        assert str(err) == "deleted meanwhile"
    else:
        raise AssertionError("the read's error was not raised")
    assert holders.acquire(blocking=False)
