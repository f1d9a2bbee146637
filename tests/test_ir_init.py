"""`filled_directly` replaces a frozen dataclass's __init__ by one that sets the instance's
__dict__ with one call: it must take the same arguments, give the same defaults (a fresh
one from each default factory) and make an equal, still frozen object."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from jiayu import ir
from jiayu.compiler.understand import Understood
from jiayu.ir import Command, filled_directly
from jiayu.planner.effects import Send
from jiayu.resolver.resolve import Ask, Found, Refuse

IR_NAMES = "Clause Command Condition Mention NoParse Parse Place Target Timing Token Value"
FILLED = [*(getattr(ir, name) for name in IR_NAMES.split()), Understood, Send, Found, Ask, Refuse]


@pytest.mark.parametrize("cls", FILLED)
def test_the_written_init_takes_what_the_dataclass_init_takes(cls: type) -> None:
    written = inspect.signature(cls.__init__).parameters
    fields = dataclasses.fields(cls)
    assert list(written)[1:] == [f.name for f in fields]
    for f in fields:
        default = written[f.name].default
        if f.default is not dataclasses.MISSING:
            assert default == f.default, f.name
        elif f.default_factory is dataclasses.MISSING:
            assert default is inspect.Parameter.empty, f.name


def test_an_object_made_so_equals_the_dataclass_made_one() -> None:
    @dataclasses.dataclass(frozen=True)
    class Plain:
        a: int
        b: str = "b"
        c: dict[str, Any] = dataclasses.field(default_factory=dict, hash=False)

    @filled_directly
    class Filled:
        a: int
        b: str = "b"
        c: dict[str, Any] = dataclasses.field(default_factory=dict, hash=False)

    for args, kwargs in (((1,), {}), ((1, "x"), {}), ((1,), {"c": {"k": 1}}), ((), {"a": 2})):
        plain, filled = Plain(*args, **kwargs), Filled(*args, **kwargs)
        assert vars(filled) == vars(plain)
        assert repr(filled).replace("Filled", "Plain") == repr(plain)
        assert hash(filled) == hash(Filled(*args, **kwargs))
    first, second = Filled(1), Filled(1)
    first.c["k"] = 1
    assert second.c == {}  # each object its own default
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.a = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Filled()  # type: ignore[call-arg]


def test_command_params_default_is_fresh() -> None:
    one, two = Command("a", "turn_on"), Command("a", "turn_on")
    one.params["x"] = 1
    assert two.params == {} and one != two and hash(one) == hash(two)
