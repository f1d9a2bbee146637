"""The compile cache (compiler/cache.py) never changes a Result, is bounded, and is dropped
with its home; the Result's compact and ir forms are the same whether built at once or later."""

from __future__ import annotations

import copy
import gc
import json
import pickle
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.cases import Case, load_cases
from jiayu.compiler import Lexicon, compile_text
from jiayu.compiler.cache import Compile, CompileCache, cache_of, compiled
from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import load_home, parse_home
from jiayu.ir import to_json
from jiayu.planner import turn as turn_module
from jiayu.result import Result

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
CASES = [case for path in sorted(CORPUS.glob("*.jsonl")) for case in load_cases(path)]
DEMO = CORPUS / "homes" / "demo.json"


def _results(cases: list[Case]) -> Iterator[tuple[Case, dict[str, Any]]]:
    """Every case (history, then its text) on a fresh session and hub, at a fixed time."""
    engines: dict[Path, Engine] = {}
    for case in cases:
        if case.home not in engines:
            engines[case.home] = Engine(load_home(case.home), clock=ManualClock())
        base = engines[case.home]
        engine = base.fresh(hub=SimulatedHub(base.home, case.state))
        for earlier in case.history:
            engine.turn(earlier, case.id, area=case.area)
        data = engine.turn(case.text, case.id, area=case.area).to_json()
        for kept in data["scheduled"]:
            del kept["id"]  # random by design: a schedule's id is not the text's
        yield case, data


def _uncached(text: str, lexicon: Lexicon) -> Compile:
    return Compile(compile_text(text, lexicon))


def test_the_cache_never_changes_a_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole corpus, twice: with every compile from the cache (each text already said
    once), and with every compile made afresh. Every Result's JSON is the same."""
    cached = dict((c.id, r) for c, r in _results(CASES))
    again = dict((c.id, r) for c, r in _results(CASES))  # now every text is a cache hit
    monkeypatch.setattr(turn_module, "compile_kept", _uncached)
    fresh = dict((c.id, r) for c, r in _results(CASES))
    assert len(fresh) == len(CASES)
    differ = [i for i in fresh if not fresh[i] == cached[i] == again[i]]
    assert not differ, f"{len(differ)} cases differ, e.g. {differ[:5]}"


def test_kept_forms_equal_the_forms_built_afresh() -> None:
    lexicon = Lexicon(load_home(DEMO))
    texts = list(dict.fromkeys(t for c in CASES if c.home == DEMO for t in (*c.history, c.text)))
    for text in texts:
        kept = compiled(text, lexicon)
        assert kept.compiled == compile_text(text, lexicon)
        assert kept.ir() == to_json(compile_text(text, lexicon))
        assert compiled(text, lexicon) is kept


def test_a_result_handed_out_cannot_change_the_next_one() -> None:
    engine = Engine(load_home(DEMO))
    first = engine.turn("打开客厅灯", "a")
    first.ir["clauses"].clear()
    first.compact.clear()
    second = engine.turn("打开客厅灯", "b")
    assert second.ir["clauses"] and second.compact


def test_the_cache_is_keyed_by_normalised_text() -> None:
    lexicon = Lexicon(load_home(DEMO))
    # Spaces a speech recogniser put in, full-width forms: one sentence, one compile.
    assert compiled(" 打开 客厅灯 ", lexicon) is compiled("打开客厅灯", lexicon)
    assert compiled("把客厅灯的亮度调到５０", lexicon) is compiled("把客厅灯的亮度调到50", lexicon)


def test_the_cache_is_bounded_and_keeps_what_is_said_often() -> None:
    lexicon = Lexicon(load_home(DEMO))
    cache = CompileCache(size=3)
    often = cache.get("打开客厅灯", lexicon)
    for n in range(10):
        cache.get(f"把客厅灯的亮度调到{n + 10}", lexicon)
        assert cache.get("打开客厅灯", lexicon) is often  # said again: kept
        assert len(cache) <= 3


def test_threads_sharing_a_cache_keep_it_bounded_and_get_equal_compiles() -> None:
    """Threads saying and evicting the same texts at once (CompileCache.get) neither exceed
    the bound nor get another text's compile."""
    lexicon = Lexicon(load_home(DEMO))
    cache = CompileCache(size=4)
    texts = [f"把客厅灯的亮度调到{n + 10}" for n in range(12)]
    expected = {text: repr(compile_text(text, lexicon)) for text in texts}
    wrong: list[str] = []

    def say(offset: int) -> None:
        for round_ in range(30):
            text = texts[(offset + round_) % len(texts)]
            if repr(cache.get(text, lexicon).compiled) != expected[text]:
                wrong.append(text)
            if len(cache) > 4:
                wrong.append(f"{len(cache)} kept")

    threads = [threading.Thread(target=say, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert len(cache) <= 4


def test_a_new_home_gets_a_new_cache_and_the_old_one_goes_with_its_home() -> None:
    home = load_home(DEMO)
    old = Lexicon(home)
    kept = compiled("打开客厅灯", old)
    assert len(cache_of(old)) == 1
    new = Lexicon(load_home(DEMO))  # the home changed (here: reloaded)
    assert cache_of(new) is not cache_of(old)
    assert compiled("打开客厅灯", new) is not kept
    dropped = cache_of(old)
    del old
    gc.collect()
    assert all(c is not dropped for c in _live_caches())


def _live_caches() -> list[CompileCache]:
    from jiayu.compiler import cache

    return list(cache._caches.values())


def test_an_engine_on_a_changed_home_does_not_see_the_old_homes_compiles() -> None:
    """A name that is new in the home is understood at once: its compile is not the old
    home's, kept from before."""
    data = json.loads(DEMO.read_text("utf-8"))
    before = Engine(load_home(DEMO))
    assert before.turn("打开鱼缸灯", "s").outcome != "executed"
    light = next(d for d in data["devices"] if d["type"] == "Light")
    data["devices"].append({**light, "id": "fish_tank", "name": "鱼缸灯", "aliases": []})
    after = Engine(parse_home(data, "changed demo home"))
    assert after.turn("打开鱼缸灯", "s").outcome == "executed"


def test_forms_built_later_equal_forms_built_at_once() -> None:
    engine = Engine(load_home(DEMO))
    lazy = engine.turn("把主卧空调温度调到24度", "a")
    assert callable(vars(lazy)["_built_ir"])  # not built yet
    empty = Result(lazy.text, lazy.outcome)
    assert (
        empty.compact == [] and empty.ir == {} and empty.compact is not Result("", "noop").compact
    )
    built = lazy.to_json()
    assert built["ir"] == to_json(compile_text("把主卧空调温度调到24度", engine.lexicon))
    assert built["compact"][0]["t"] == "AirConditioner"
    for other in (copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy))):
        assert other == lazy and other.to_json() == built


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="打开关闭客厅主卧灯空调的把调到度温亮两三点了吗，。 24", max_size=14))
def test_any_text_compiles_the_same_from_the_cache(text: str) -> None:
    lexicon = _LEXICON
    first = compiled(text, lexicon).compiled
    assert first == compile_text(text, lexicon)
    assert compiled(text, lexicon).compiled == first


_LEXICON = Lexicon(load_home(DEMO))
