"""Issue 19, family 4: the LLM client has a deadline, a home and a size — on the loopback
fake model server, through both clients and the whole engine."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from fake_llm_server import NATIVE_PATH, FakeLLMServer, Reply

from jiayu.compiler.llm.client import DashScopeClient, LLMClient, LLMError, OpenAICompatClient
from jiayu.engine import Engine
from jiayu.home import Home

COOL = '[{"a":"打开","s":"*","n":"客厅空调","t":"AirConditioner","q":"one"}]'
KEY = "sk-secret-key"


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
def elsewhere() -> Iterator[FakeLLMServer]:
    """Another host, the one a redirect points at."""
    with FakeLLMServer() as fake:
        yield fake


def make(kind: str, server: FakeLLMServer, timeout: float) -> LLMClient:
    if kind == "dashscope":
        return DashScopeClient(api_key=KEY, base_url=server.dashscope_url, timeout=timeout)
    return OpenAICompatClient(server.openai_url, api_key=KEY, timeout=timeout)


KINDS = ["dashscope", "openai"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_trickling_server_cannot_hold_the_turn_past_its_timeout(
    kind: str, server: FakeLLMServer, demo_home: Home
) -> None:
    engine = Engine(demo_home, llm=make(kind, server, timeout=1.0))
    server.script(Reply(COOL, trickle_s=0.4))  # a byte every 0.4 s: each read is "in time"
    started = time.monotonic()
    result = engine.turn("整点凉快的")
    took = time.monotonic() - started
    assert took < 1.5, took
    assert (result.outcome, result.commands) == ("unknown", [])


@pytest.mark.parametrize("kind", KINDS)
def test_a_trickle_that_ends_in_time_is_an_answer(kind: str, server: FakeLLMServer) -> None:
    server.script(Reply(COOL, trickle_s=0.0005))
    answer = make(kind, server, timeout=5.0).complete(
        [{"role": "user", "content": "x"}], temperature=0, top_p=0.8, max_tokens=50
    )
    assert answer == COOL


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_and_the_key_stays_home(
    kind: str, status: int, server: FakeLLMServer, elsewhere: FakeLLMServer, demo_home: Home
) -> None:
    there = (
        elsewhere.base_url + NATIVE_PATH
        if kind == "dashscope"
        else elsewhere.openai_url + "/chat/completions"
    )
    server.script(Reply(status=status, location=there))
    elsewhere.script(COOL)
    engine = Engine(demo_home, llm=make(kind, server, timeout=2.0))
    result = engine.turn("整点凉快的")
    assert elsewhere.requests == []  # nothing, and so no Authorization, reached the other host
    assert server.requests[0].headers.get("Authorization") == f"Bearer {KEY}"
    assert (result.outcome, result.commands) == ("unknown", [])
    with pytest.raises(LLMError, match=str(status)):
        server.script(Reply(status=status, location=there))
        make(kind, server, 2.0).complete(
            [{"role": "user", "content": "x"}], temperature=0, top_p=0.8, max_tokens=50
        )


def _answer(count: int) -> str:
    item = {"a": "打开", "s": "*", "n": "客厅空调", "t": "AirConditioner", "q": "one"}
    return json.dumps([item] * count, ensure_ascii=False)


@pytest.mark.parametrize("count", [21, 12_000])
def test_more_clauses_than_the_grammar_takes_are_refused_whole(
    count: int, server: FakeLLMServer, demo_home: Home
) -> None:
    engine = Engine(demo_home, llm=make("openai", server, timeout=5.0))
    server.script(_answer(count))
    result = engine.turn("整点凉快的")
    assert (result.outcome, result.commands, result.pending) == ("unknown", [], [])


def test_twenty_clauses_are_still_an_answer(server: FakeLLMServer, demo_home: Home) -> None:
    engine = Engine(demo_home, llm=make("openai", server, timeout=5.0))
    server.script(_answer(20))
    result = engine.turn("整点凉快的")
    assert result.commands == [{"device": "ac_living", "command": "turn_on", "params": {}}]


def test_headers_trickled_a_byte_at_a_time_are_bounded_too() -> None:
    """The deadline covers the status line and headers, not only the body."""
    server = socket.create_server(("127.0.0.1", 0))
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: " + b"a" * 60

    def trickle() -> None:
        peer, _ = server.accept()
        with peer:
            peer.recv(65536)
            for i in range(len(answer)):
                try:
                    peer.sendall(answer[i : i + 1])
                except OSError:
                    return  # the client hung up at its deadline
                time.sleep(0.3)

    threading.Thread(target=trickle, daemon=True).start()
    port = server.getsockname()[1]
    client = OpenAICompatClient(f"http://127.0.0.1:{port}/v1", api_key=KEY, timeout=1.0)
    started = time.monotonic()
    with pytest.raises(LLMError, match="within 1 s"):
        client.complete([{"role": "user", "content": "x"}], temperature=0, top_p=0.8, max_tokens=5)
    assert time.monotonic() - started < 1.5
    server.close()
