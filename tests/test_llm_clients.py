"""The two clients against the loopback fake: the real dashscope SDK and the stdlib client.

No key, no network: every request goes to 127.0.0.1.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_llm_server import NATIVE_PATH, OPENAI_PATH, FakeLLMServer, Reply, error

from jiayu.compiler.llm.client import (
    DASHSCOPE_COMPATIBLE_URL,
    DashScopeClient,
    LLMClient,
    LLMError,
    OpenAICompatClient,
    client_from_env,
)

HELLO = [{"role": "system", "content": "规则"}, {"role": "user", "content": "开灯"}]
ANSWER = '[{"a":"打开","s":"*","n":"灯","t":"Light","q":"all"}]'


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key anywhere the SDK looks (env, key file, its default file under HOME)."""
    for name in ("DASHSCOPE_API_KEY", "DASHSCOPE_API_KEY_FILE_PATH", "JIAYU_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    import dashscope
    import dashscope.common.api_key as api_key_module

    monkeypatch.setattr(dashscope, "api_key", None)
    monkeypatch.setattr(dashscope, "api_key_file_path", None)
    monkeypatch.setattr(
        api_key_module, "DEFAULT_DASHSCOPE_API_KEY_FILE_PATH", str(tmp_path / "none")
    )


def _clients(server: FakeLLMServer, timeout: float = 2.0) -> list[LLMClient]:
    return [
        DashScopeClient("qwen-plus", api_key="k", base_url=server.dashscope_url, timeout=timeout),
        OpenAICompatClient(server.openai_url, "qwen-plus", api_key="k", timeout=timeout),
    ]


def _ask(client: LLMClient) -> str:
    return client.complete(HELLO, temperature=0, top_p=0.8, max_tokens=64)


def test_success_through_both_apis(server: FakeLLMServer) -> None:
    server.script(ANSWER, ANSWER)
    for client in _clients(server):
        assert _ask(client) == ANSWER
    native, openai = server.requests
    assert native.path == NATIVE_PATH and openai.path == OPENAI_PATH
    for request in (native, openai):
        assert request.messages == HELLO
        assert request.body["model"] == "qwen-plus"
        assert request.headers["Authorization"] == "Bearer k"
        params = request.parameters
        assert (params["temperature"], params["top_p"], params["max_tokens"]) == (0, 0.8, 64)
        # The timeout is ours (the HTTP request's), never a parameter sent to the model.
        assert "timeout" not in params and "request_timeout" not in params
    assert native.parameters["result_format"] == "message"


@pytest.mark.parametrize(
    ("status", "code"), [(401, "InvalidApiKey"), (429, "Throttling"), (500, "InternalError")]
)
def test_http_errors_become_llm_errors(server: FakeLLMServer, status: int, code: str) -> None:
    server.script(error(status, code), error(status, code))
    for client in _clients(server):
        with pytest.raises(LLMError, match=str(status)):
            _ask(client)
    assert len(server.requests) == 2  # no retries


def test_dashscope_error_names_its_code(server: FakeLLMServer) -> None:
    server.script(error(429, "Throttling"))
    with pytest.raises(LLMError, match="Throttling"):
        _ask(_clients(server)[0])


def test_slow_reply_times_out(server: FakeLLMServer) -> None:
    server.script(Reply(ANSWER, delay_s=3), Reply(ANSWER, delay_s=3))
    for client in _clients(server, timeout=0.3):
        start = time.perf_counter()
        with pytest.raises(LLMError, match=r"within 0\.3 s"):
            _ask(client)
        assert time.perf_counter() - start < 2
    assert len(server.requests) == 2  # the SDK did not retry the timed-out request


def test_malformed_body(server: FakeLLMServer) -> None:
    server.script(Reply(raw=b"{not json"), Reply(raw=b"{not json"))
    for client in _clients(server):
        with pytest.raises(LLMError):
            _ask(client)


def test_unreachable_server() -> None:
    with FakeLLMServer() as gone:
        native, openai = gone.dashscope_url, gone.openai_url
    clients: list[LLMClient] = [
        DashScopeClient(api_key="k", base_url=native, timeout=1),
        OpenAICompatClient(openai, timeout=1),
    ]
    for client in clients:
        with pytest.raises(LLMError, match="reached"):
            _ask(client)


def test_missing_key_fails_before_any_request(server: FakeLLMServer) -> None:
    client = DashScopeClient(base_url=server.dashscope_url)
    with pytest.raises(LLMError, match="DASHSCOPE_API_KEY"):
        _ask(client)
    assert server.requests == []


def test_openai_client_sends_no_key_when_it_has_none(server: FakeLLMServer) -> None:
    server.script(ANSWER)
    assert _ask(OpenAICompatClient(server.openai_url + "/")) == ANSWER
    assert "Authorization" not in server.requests[0].headers


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
def test_bad_timeouts_are_refused(timeout: float) -> None:
    with pytest.raises(LLMError):
        OpenAICompatClient("http://127.0.0.1:1/v1", timeout=timeout)
    with pytest.raises(LLMError):
        DashScopeClient(timeout=timeout)


def test_base_url_must_be_http() -> None:
    with pytest.raises(LLMError, match="http"):
        OpenAICompatClient("file:///etc/passwd")


# --- configuration ------------------------------------------------------------------------


def test_nothing_configured_is_none() -> None:
    assert client_from_env(environ={}) is None


def test_a_base_url_means_the_openai_compatible_client() -> None:
    env = {"JIAYU_LLM_BASE_URL": "http://127.0.0.1:8000/v1", "JIAYU_LLM_MODEL": "qwen2.5:7b"}
    client = client_from_env(environ=env)
    assert isinstance(client, OpenAICompatClient)
    assert client.url == "http://127.0.0.1:8000/v1/chat/completions"
    assert client.model == "qwen2.5:7b"
    assert client.api_key is None
    assert client.timeout == 5.0


def test_a_key_alone_means_dashscope() -> None:
    client = client_from_env(environ={"DASHSCOPE_API_KEY": "sk-1", "JIAYU_LLM_TIMEOUT": "2.5"})
    assert isinstance(client, DashScopeClient)
    assert (client.api_key, client.base_url, client.timeout) == ("sk-1", None, 2.5)


def test_explicit_arguments_win() -> None:
    env = {"JIAYU_LLM_BASE_URL": "http://a/v1", "JIAYU_LLM_API_KEY": "j", "DASHSCOPE_API_KEY": "d"}
    client = client_from_env("openai", base_url="http://b/v1", api_key="x", environ=env)
    assert isinstance(client, OpenAICompatClient)
    assert (client.url, client.api_key) == ("http://b/v1/chat/completions", "x")
    assert isinstance(client_from_env(environ=env), OpenAICompatClient)
    assert client_from_env(environ=env).api_key == "j"  # type: ignore[union-attr]


def test_native_api_at_a_chosen_root(server: FakeLLMServer) -> None:
    server.script(ANSWER)
    env = {"JIAYU_LLM_BASE_URL": server.dashscope_url, "DASHSCOPE_API_KEY": "k"}
    client = client_from_env("dashscope", environ=env)
    assert isinstance(client, DashScopeClient)
    assert _ask(client) == ANSWER
    assert server.requests[0].path == NATIVE_PATH


def test_bad_configuration_is_an_error() -> None:
    with pytest.raises(LLMError, match="kind"):
        client_from_env("gpt", environ={"DASHSCOPE_API_KEY": "k"})
    with pytest.raises(LLMError, match="JIAYU_LLM_BASE_URL"):
        client_from_env("openai", environ={})
    with pytest.raises(LLMError, match="JIAYU_LLM_TIMEOUT"):
        client_from_env(environ={"DASHSCOPE_API_KEY": "k", "JIAYU_LLM_TIMEOUT": "soon"})


def test_without_the_sdk_a_key_uses_compatible_mode() -> None:
    # A fresh interpreter in which dashscope cannot be imported.
    code = (
        "import sys\n"
        "sys.modules['dashscope'] = None\n"  # what Python does for a module that cannot load
        "from jiayu.compiler.llm.client import client_from_env, LLMError\n"
        "c = client_from_env(environ={'DASHSCOPE_API_KEY': 'k'})\n"
        "print(type(c).__name__, c.url)\n"
        "try:\n"
        "    client_from_env('dashscope', environ={'DASHSCOPE_API_KEY': 'k'})\n"
        "except LLMError as e:\n"
        "    print('refused:', e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert out[0] == f"OpenAICompatClient {DASHSCOPE_COMPATIBLE_URL}/chat/completions"
    assert out[1].startswith("refused: the dashscope SDK is not installed")
