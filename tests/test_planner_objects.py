"""Draft and Batch write their __init__ by hand (they are made on every turn): each must
still give every field its declared default, so a field added later cannot be left unset."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest

from jiayu.engine import Engine
from jiayu.ir import Command
from jiayu.planner.draft import Draft, new_memo
from jiayu.planner.plan import Batch


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def test_a_draft_starts_with_every_declared_default(demo_home: Any) -> None:
    engine = Engine(demo_home)
    ctx = engine.inputs(engine.sessions.get("s"), None, None)._replace(now=datetime.now(UTC))
    memo = new_memo()
    draft = Draft("打开客厅灯", ctx, memo, None)
    given = {"text": "打开客厅灯", "ctx": ctx, "memo": memo}
    for field in dataclasses.fields(Draft):
        expected = given[field.name] if field.name in given else _default(field)
        assert getattr(draft, field.name) == expected, field.name
    assert draft.memo is memo  # kept across passes: the same memo, not a copy


def test_drafts_and_batches_share_no_list() -> None:
    first, second = Batch([]), Batch([])
    first.sent.append(Command("a", "turn_on"))
    assert second.sent == []
    for field in dataclasses.fields(Batch):
        if field.name != "commands":
            assert getattr(second, field.name) == _default(field), field.name


@pytest.mark.parametrize("cls", [Draft, Batch])
def test_every_field_is_set_by_the_written_init(cls: type) -> None:
    # A field the hand-written __init__ forgets is an AttributeError on a slotted class, and
    # a class attribute (the declared default, shared by every instance) on the other.
    names = {f.name for f in dataclasses.fields(cls)}
    source = cls.__init__.__code__.co_names
    assert names <= set(source), sorted(names - set(source))
