"""`jiayu shell`: one session, a sentence a line, and what it did to the home.

Each reply is followed by the commands sent (`→ light_living set_brightness {"value": 40}`)
and what changed on those devices (`客厅灯: brightness 60 → 40`), read from the hub before
and after each command. Lines starting with `:` talk to the shell itself (`:help`; `:area`
takes a room's id, name or alias, as `jiayu run --area` does). At a terminal there is a prompt
and readline history (`~/.jiayu_history`, or `JIAYU_HISTORY`); from a pipe there is no prompt
and each line is a turn.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from jiayu.engine import Engine
from jiayu.executor.hubs.base import HubError, Reads
from jiayu.home import Device, Home, Room, plain_name
from jiayu.ir import Command

PROMPT = "家语> "
SESSION = "shell"
HELP = """\
一句话一行，比如：打开客厅灯 / 把空调调到26度 / 客厅灯开着吗
:state [设备]   设备的当前状态（不给设备就列出全部）
:json           切换 JSON 输出（每轮的完整结果）
:area [房间]    说话人所在的房间（“开灯”开这里的灯）；不给房间就清除
:user [名字]    说话人是谁（他的偏好）；不给名字就清除
:help           这段说明
:quit           退出（Ctrl-D 也可以）"""


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


class Shell:
    """One shell session on an engine (with a blocking hub)."""

    def __init__(
        self,
        engine: Engine,
        out: TextIO,
        *,
        area: str | None = None,
        user: str | None = None,
        json_mode: bool = False,
    ) -> None:
        self.engine = engine
        self.out = out
        self.area = area
        self.user = user
        self.json_mode = json_mode
        self._before: dict[str, Mapping[str, Any] | HubError] = {}
        self._changes: list[str] = []

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.out)
        self.out.flush()

    def handle(self, line: str) -> bool:
        """Do one line; False when the shell should end."""
        line = line.strip()
        if not line:
            return True
        if line.startswith(":"):
            return self._command(line[1:].split(maxsplit=1))
        self._turn(line)
        return True

    # --- turns --------------------------------------------------------------------------

    def _reads(self, device_ids: list[str]) -> Reads:
        runner = self.engine.runner
        if runner is None:  # an AsyncHub engine: this shell is sync only
            return {device_id: HubError(device_id, "unreadable") for device_id in device_ids}
        return runner.read_many(device_ids)

    def _read(self, device_id: str) -> Mapping[str, Any] | HubError:
        return self._reads([device_id])[device_id]

    def _listen(self, kind: str, command: Command, reason: str | None) -> None:
        # Before and after each command, on the thread that sends it: the change is the
        # device's own, as the hub reports it.
        if kind == "started":
            self._before.setdefault(command.device, self._read(command.device))
        elif kind == "finished":
            before, after = self._before.pop(command.device, {}), self._read(command.device)
            self._changes += self._diff(command.device, before, after)

    def _diff(
        self,
        device_id: str,
        before: Mapping[str, Any] | HubError,
        after: Mapping[str, Any] | HubError,
    ) -> list[str]:
        name = self._name(device_id)
        if isinstance(after, HubError):
            return [f"  {name}: 读不到（{after.reason}）"]
        old = {} if isinstance(before, HubError) else before
        changed = [
            f"{key} {_show(old[key]) if key in old else '?'} → {_show(value)}"
            for key, value in after.items()
            if old.get(key) != value
        ]
        return [f"  {name}: {'，'.join(changed) if changed else '没有变化'}"]

    def _name(self, device_id: str) -> str:
        home = self.engine.home
        return home.device(device_id).name if home.has_device(device_id) else device_id

    def _turn(self, text: str) -> None:
        self._before.clear()
        self._changes = []
        result = self.engine.turn(
            text, SESSION, area=self.area, user=self.user, listener=self._listen
        )
        if self.json_mode:
            self.say(_dump(result.to_json()))
            return
        self.say(result.reply)
        for command in result.commands:
            params = _dump(command.get("params", {}))
            self.say(f"  → {command['device']} {command['command']} {params}")
        for failure in result.failures:
            self.say(f"  ✗ {failure['device']} {failure['command']}: {failure['reason']}")
        self.say(*self._changes)

    # --- the shell's own commands ---------------------------------------------------------

    def _command(self, words: list[str]) -> bool:
        name = words[0] if words else ""
        arg = words[1].strip() if len(words) > 1 else None
        if name in {"quit", "q", "exit"}:
            return False
        if name == "help":
            self.say(HELP)
        elif name == "json":
            self.json_mode = not self.json_mode
            self.say(f"JSON 输出：{'开' if self.json_mode else '关'}")
        elif name == "area":
            self._set_area(arg)
        elif name == "user":
            self.user = arg
            self.say(f"说话人：{arg or '（无）'}")
        elif name == "state":
            self._state(arg)
        else:
            self.say(f"没有 :{name} 这个命令；:help 看全部")
        return True

    def _set_area(self, arg: str | None) -> None:
        if arg is None:
            self.area = None
            self.say("房间：（无）")
            return
        room = find_room(self.engine.home, arg)
        if room is None:
            self.say(f"家里没有叫“{arg}”的房间")
            return
        self.area = room.id
        self.say(f"房间：{room.name}（{room.id}）")

    def _devices(self, arg: str | None) -> Iterable[Device]:
        home = self.engine.home
        if arg is None:
            return home.devices
        key = plain_name(arg)
        return [
            d
            for d in home.devices
            if d.id == arg or key in {plain_name(w) for w in (d.name, *d.aliases)}
        ]

    def _state(self, arg: str | None) -> None:
        devices = list(self._devices(arg))
        if not devices:
            self.say(f"家里没有叫“{arg}”的设备")
            return
        reads = self._reads([d.id for d in devices])
        for device in devices:
            state = reads[device.id]
            shown = (
                f"读不到（{state.reason}）" if isinstance(state, HubError) else _dump(dict(state))
            )
            self.say(f"{self._name(device.id)} ({device.id}): {shown}")


def find_room(home: Home, said: str) -> Room | None:
    """The room with this id, or the one room with this name or alias (None: no such room,
    or several)."""
    key = plain_name(said)
    found = [
        room
        for room in home.rooms
        if room.id == said or key in {plain_name(w) for w in (room.name, *room.aliases)}
    ]
    return found[0] if len(found) == 1 else None


def _history_file() -> Path:
    return Path(os.environ.get("JIAYU_HISTORY") or Path.home() / ".jiayu_history")


def run_shell(
    engine: Engine,
    *,
    area: str | None = None,
    user: str | None = None,
    json_mode: bool = False,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    """The read-eval loop: a prompt with history at a terminal, plain lines from a pipe."""
    stdin = stdin or sys.stdin
    shell = Shell(engine, out or sys.stdout, area=area, user=user, json_mode=json_mode)
    if not stdin.isatty():
        for line in stdin:
            if not shell.handle(line):
                break
        return 0
    import readline  # only at a terminal: it would echo escape codes into a pipe

    history = _history_file()
    with contextlib.suppress(OSError):  # no history yet
        readline.read_history_file(history)
    readline.set_history_length(1000)
    shell.say("家语 shell：一句话一行；:help 看命令，Ctrl-D 退出")
    try:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                shell.say("")
                break
            except KeyboardInterrupt:
                shell.say("")
                continue
            if not shell.handle(line):
                break
    finally:
        try:
            readline.write_history_file(history)
        except OSError as exc:
            print(f"jiayu shell: cannot keep history in {history}: {exc}", file=sys.stderr)
    return 0
