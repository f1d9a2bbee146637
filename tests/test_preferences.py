"""User preferences: the vocabulary, the file they live in, and what a bad file says."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from jiayu.preferences import (
    PreferenceError,
    PreferenceStore,
    StateFileError,
    preference_key,
    read_state_file,
)


def test_a_missing_user_or_key_reads_as_none() -> None:
    store = PreferenceStore(None)
    assert store.get("小明", "target_temperature") is None
    store.set("小明", "target_temperature", 26)
    assert store.get("小明", "target_temperature") == 26
    assert store.get("小明", "brightness") is None
    assert store.get("小红", "target_temperature") is None


def test_values_round_trip_through_a_new_store_on_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "prefs.json"
    store = PreferenceStore(path)
    store.set("小明", "target_temperature", 26.5)
    store.set("小明", "color_temp", "warm")
    store.set("小明", preference_key("volume", "Television"), 20)
    store.set("妈妈", "fan_speed", "low")

    store.close()  # the hub stops: one store owns a file at a time, in one process too
    again = PreferenceStore(path)  # a restart of the hub
    assert again.get("小明", "target_temperature") == 26.5
    assert again.get("小明", "color_temp") == "warm"
    assert again.get("小明", "volume@Television") == 20
    assert again.get("妈妈", "fan_speed") == "low"
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 1


def test_a_new_file_is_created_at_start_so_a_bad_path_fails_at_once(tmp_path: Path) -> None:
    path = tmp_path / "prefs.json"
    PreferenceStore(path)
    assert read_state_file(path) == {"version": 1, "users": {}}
    with pytest.raises(StateFileError) as caught:
        PreferenceStore(tmp_path / "no-such-folder" / "prefs.json")
    assert str(caught.value).startswith(f"{tmp_path}/no-such-folder/prefs.json: /: cannot write")


def test_a_device_types_own_preference_comes_before_the_plain_one() -> None:
    store = PreferenceStore(None)
    assert store.preferred("小明", "volume", "Television") is None
    store.set("小明", "volume", 30)
    assert store.preferred("小明", "volume", "Television") == 30
    store.set("小明", "volume@Television", 20)
    assert store.preferred("小明", "volume", "Television") == 20
    assert store.preferred("小明", "volume", "NetworkAudio") == 30
    assert store.preferred("小明", "volume", None) == 30


def test_whole_numbers_of_integer_preferences_are_stored_as_ints() -> None:
    store = PreferenceStore(None)
    assert store.set("小明", "brightness", 40.0) == 40
    assert isinstance(store.get("小明", "brightness"), int)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("target_temperature", float("nan"), "NaN is not a finite number"),
        ("target_temperature", float("inf"), "Infinity is not a finite number"),
        ("target_temperature", 60, "60 is not within 5–40"),
        ("target_temperature", True, "true is not a number"),
        ("target_temperature", "hot", '"hot" is not a number'),
        ("brightness", 40.5, "40.5 is not a whole number"),
        ("color_temp", "purple", '"purple" is not a number or one of: warm, cool, natural'),
        ("fan_speed", 3, "3 is not one of: low, medium, high, auto"),
        ("favourite_show", 1, '"favourite_show" is not a preference: known are target_temperature'),
        ("volume@Toaster", 1, '"Toaster" is not a device type'),
    ],
)
def test_a_value_a_preference_cannot_take_is_refused(key: str, value: object, message: str) -> None:
    store = PreferenceStore(None)
    with pytest.raises(PreferenceError) as caught:
        store.set("小明", key, value)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)
    assert store.get("小明", key) is None


def test_an_empty_user_is_refused() -> None:
    with pytest.raises(PreferenceError, match="a user id is empty"):
        PreferenceStore(None).set(" ", "volume", 20)


def test_a_failed_write_leaves_memory_as_the_file_is(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    store = PreferenceStore(folder / "prefs.json")
    store.set("小明", "volume", 20)
    # The folder goes away under the store (an unmounted disk): no temporary file can be made.
    folder.rename(tmp_path / "away")
    with pytest.raises(StateFileError, match="cannot write"):
        store.set("小明", "volume", 30)
    with pytest.raises(StateFileError, match="cannot write"):
        store.set("小明", "brightness", 30)
    (tmp_path / "away").rename(folder)
    assert store.get("小明", "volume") == 20
    assert store.get("小明", "brightness") is None
    store.close()
    assert PreferenceStore(folder / "prefs.json").get("小明", "volume") == 20


def test_writes_leave_no_temporary_files_behind(tmp_path: Path) -> None:
    store = PreferenceStore(tmp_path / "prefs.json")
    for volume in range(5):
        store.set("小明", "volume", volume)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prefs.json", "prefs.json.lock"]


def test_concurrent_sets_from_threads_all_land_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "prefs.json"
    store = PreferenceStore(path)

    def remember(user: str) -> None:
        for volume in range(10):
            store.set(user, "volume", volume)

    threads = [threading.Thread(target=remember, args=(f"user{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    again = PreferenceStore(path)
    assert [again.get(f"user{i}", "volume") for i in range(8)] == [9] * 8


def _problems(path: Path, text: str) -> list[str]:
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StateFileError) as caught:
        PreferenceStore(path)
    return str(caught.value).splitlines()


def test_a_bad_file_names_file_pointer_and_problem_one_line_each(tmp_path: Path) -> None:
    path = tmp_path / "prefs.json"
    doc = {
        "version": 1,
        "users": {
            "小明": {"target_temperature": 99, "color_temp": "warm", "smell": "roses"},
            "妈妈": "warm",
            "": {"volume": 1},
        },
        "extra": True,
    }
    assert _problems(path, json.dumps(doc, ensure_ascii=False)) == [
        f'{path}: /: unknown key "extra"',
        f"{path}: /users/小明/target_temperature: 99 is not within 5–40",
        f'{path}: /users/小明/smell: "smell" is not a preference: known are target_temperature, '
        "color_temp, brightness, volume, position, fan_speed, mode",
        f'{path}: /users/妈妈: "warm" is not an object',
        f"{path}: /users/: a user id is empty",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{", "/: invalid JSON at line 1, column 2: Expecting property name enclosed"),
        ('{"version": 1, "users": {"a": {"volume": NaN}}}', "/users/a/volume: not a finite number"),
        ("[]", "/: [] is not an object"),
        ('{"users": {}}', '/: missing required key "version"'),
        ('{"version": 2, "users": {}}', "/version: 2 is not a version this jiayu reads (1)"),
        ('{"version": 1, "users": 3}', "/users: 3 is not an object"),
        ("[" * 100_000, "/: nests deeper than 64 levels"),
    ],
)
def test_a_file_that_is_not_a_preference_document_is_one_line(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "prefs.json"
    lines = _problems(path, text)
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}: {problem}")


def test_a_file_that_is_not_utf8_or_not_regular_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "prefs.json"
    path.write_bytes(b'{"version": 1, "users": {"\xff": {}}}')
    with pytest.raises(StateFileError, match=r"prefs.json: /: not UTF-8 text"):
        PreferenceStore(path)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(StateFileError, match=r"fifo.json: /: not a regular file"):
        PreferenceStore(fifo)
