"""The two ways to reach a Qwen model, behind one small protocol.

`DashScopeClient` speaks DashScope's native API through the `dashscope` SDK (the optional
extra `jiayu[qwen]`, imported only when a call is made, so importing jiayu or answering a
grammar turn never loads it). `OpenAICompatClient` speaks `POST {base}/chat/completions`
with the standard library only: DashScope's compatible mode, vLLM, llama.cpp's server and
Ollama's `/v1` all answer it, so a user with no cloud account needs no SDK.

Both make exactly one request per call, with an explicit timeout that bounds the whole call
however slowly the server answers, no retries of their own (a turn waits for at most one
timeout), follow no redirect (the key goes to the configured host or nowhere, and no other
host's answer is acted on), and turn every failure into `LLMError`.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, cast

from jiayu.deadline import Deadline
from jiayu.errors import JiayuError

DEFAULT_TIMEOUT_S = 5.0
"""Seconds a turn waits for the model: the SDK's own default is 300."""
DEFAULT_MODEL = "qwen-plus"
"""The model asked for when neither the caller nor JIAYU_LLM_MODEL names one."""
DASHSCOPE_COMPATIBLE_URL = "https://dashscope.aliyuncs.com/compatible-mode/v1"
"""DashScope's OpenAI-compatible endpoint, used with a DashScope key when the SDK is absent."""
_MAX_RESPONSE_BYTES = 1 << 20
"""An answer is a short JSON array; a megabyte is already a broken or hostile server."""


class LLMError(JiayuError):
    """The model could not be asked or did not answer usefully; the message says why."""


class LLMClient(Protocol):
    """Anything that can complete a chat: the parser needs nothing more."""

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        temperature: float,
        top_p: float,
        max_tokens: int,
    ) -> str:
        """The assistant's reply text; raises only LLMError."""
        ...


class DashScopeClient:
    """DashScope's native generation API through the official SDK.

    The SDK itself resends a request once when a pooled keep-alive connection turns out to be
    closed before any byte was answered (dashscope/api_entities/http_request.py,
    `_send_with_retry`): nothing was processed then, so it is no retry of a model call."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.model = model
        self.api_key = api_key
        """None lets the SDK look (DASHSCOPE_API_KEY, its key file); it fails before sending."""
        self.base_url = base_url
        """The `.../api/v1` root; None keeps the SDK's (dashscope.base_http_api_url)."""
        self.timeout = _check_timeout(timeout)

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        temperature: float,
        top_p: float,
        max_tokens: int,
    ) -> str:
        # The whole call, loading the SDK included (a second on a cold start), is on a worker
        # thread the turn waits for at most `timeout`: the SDK's own timeout bounds each socket
        # wait, not the call.
        return _within(
            self.timeout, lambda: self._call(list(messages), temperature, top_p, max_tokens)
        )

    def _call(
        self,
        messages: list[Mapping[str, str]],
        temperature: float,
        top_p: float,
        max_tokens: int,
    ) -> str:
        try:
            import requests
            from dashscope import Generation
            from dashscope.common.error import AuthenticationError
        except ImportError as e:
            raise LLMError(
                "the dashscope SDK is not installed (install jiayu[qwen], "
                "or use the OpenAI-compatible client)"
            ) from e
        options: dict[str, Any] = {}
        if self.base_url is not None:
            options["base_address"] = self.base_url
        session = _no_redirects_session()
        try:
            # request_timeout is the HTTP timeout; `timeout=` would be sent to the model
            # as a generation parameter and bound nothing.
            # Typed as Any: the SDK's stubs want its Message class, and say a stream may come back.
            sent: Any = [dict(m) for m in messages]
            response: Any = Generation.call(
                model=self.model,
                messages=sent,
                result_format="message",
                api_key=self.api_key,
                request_timeout=self.timeout,
                temperature=temperature,
                top_p=top_p,
                max_tokens=max_tokens,
                session=session,
                **options,
            )
        except AuthenticationError as e:
            # Raised before any request when no key is found anywhere.
            raise LLMError("no DashScope API key: set DASHSCOPE_API_KEY") from e
        except requests.Timeout as e:
            raise LLMError(f"DashScope did not answer within {self.timeout:g} s") from e
        except requests.RequestException as e:
            raise LLMError(f"DashScope could not be reached: {type(e).__name__}") from e
        except Exception as e:  # the SDK raises bare ValueErrors and its own types alike
            raise LLMError(f"DashScope call failed: {type(e).__name__}: {e}") from e
        finally:
            session.close()
        # HTTP errors (401, 429, 500) come back as a response, not an exception.
        status = getattr(response, "status_code", None)
        if status != 200:
            code = getattr(response, "code", "") or "?"
            message = getattr(response, "message", "") or ""
            raise LLMError(f"DashScope answered HTTP {status}: {code}: {message}"[:300])
        try:
            content = response.output.choices[0].message.content
        except (AttributeError, IndexError, KeyError, TypeError) as e:
            raise LLMError("DashScope answered without a message") from e
        if not isinstance(content, str):
            raise LLMError("DashScope answered with a message that is not text")
        return content


class OpenAICompatClient:
    """`POST {base_url}/chat/completions` (the OpenAI shape) with urllib only.

    The timeout bounds the whole call: at the deadline the connection is shut, however the
    server trickles its answer. A redirect is an error, never followed. Proxies from the
    environment (https_proxy, no_proxy) are honoured, as by every urllib user."""

    def __init__(
        self,
        base_url: str,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise LLMError(f"LLM base URL must start with http:// or https://: {base_url!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        """Sent as a bearer token; self-hosted servers usually need none."""
        self.timeout = _check_timeout(timeout)

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        temperature: float,
        top_p: float,
        max_tokens: int,
    ) -> str:
        body = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": temperature,
            "top_p": top_p,
            "max_tokens": max_tokens,
            "stream": False,
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.url, data=json.dumps(body, ensure_ascii=False).encode(), headers=headers
        )
        with Deadline(self.timeout) as watch:
            raw = self._exchange(request, watch)
        if len(raw) > _MAX_RESPONSE_BYTES:
            raise LLMError(f"{self.url} answered more than {_MAX_RESPONSE_BYTES} bytes")
        try:
            content = json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, LookupError, TypeError) as e:
            raise LLMError(f"{self.url} answered something that is not a chat completion") from e
        if not isinstance(content, str):
            raise LLMError(f"{self.url} answered with a message that is not text")
        return content

    def _exchange(self, request: urllib.request.Request, watch: Deadline) -> bytes:
        """Send the request and read the answer, within the call's one deadline."""
        opener = urllib.request.build_opener(_NoRedirect(), _WatchedHandler(watch))
        try:
            with opener.open(request, timeout=self.timeout) as response:
                raw: bytes = response.read(_MAX_RESPONSE_BYTES + 1)
            if watch.expired:  # the answer was cut short at the deadline
                raise TimeoutError
        except urllib.error.HTTPError as e:
            if watch.expired:
                raise LLMError(f"{self.url} did not answer within {self.timeout:g} s") from e
            raise LLMError(f"{self.url} answered HTTP {e.code}: {_error_detail(e)}") from e
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise LLMError(f"{self.url} did not answer within {self.timeout:g} s") from e
            raise LLMError(f"{self.url} could not be reached: {e.reason}") from e
        except TimeoutError as e:  # socket.timeout is TimeoutError since 3.10
            raise LLMError(f"{self.url} did not answer within {self.timeout:g} s") from e
        except (OSError, ValueError, http.client.HTTPException) as e:
            # A reset connection, a malformed status line, or the deadline's shutdown.
            if watch.expired:
                raise LLMError(f"{self.url} did not answer within {self.timeout:g} s") from e
            raise LLMError(f"{self.url} failed: {type(e).__name__}: {e}") from e
        return raw


class _WatchedHTTP(http.client.HTTPConnection):
    """A connection that hands its socket to the call's deadline once connected."""

    def __init__(self, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()
        self._deadline.watch(self.sock)  # over TLS, the wrapped socket


class _WatchedHTTPS(_WatchedHTTP, http.client.HTTPSConnection):
    pass


class _WatchedHandler(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """urllib's http and https handlers, opening watched connections."""

    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    # Typeshed's protocol for the class has no room for the extra keyword passed on to it.
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(cast(Any, _WatchedHTTP), req, deadline=self._deadline)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        context = self._context  # type: ignore[attr-defined]
        return self.do_open(cast(Any, _WatchedHTTPS), req, context=context, deadline=self._deadline)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect comes back as the HTTPError it is: following it would send the key, and
    the request, to a host nobody configured."""

    def redirect_request(self, *_args: Any, **_kwargs: Any) -> None:
        return None


def _no_redirects_session() -> Any:
    import requests  # the SDK's dependency: only reached once the SDK has loaded

    class NoRedirects(requests.Session):
        """The SDK's requests, with a redirect answered as it is (an HTTP error), not followed."""

        def get_redirect_target(self, resp: Any) -> None:
            return None

    return NoRedirects()


_T = TypeVar("_T")


def _within(timeout: float, call: Callable[[], _T]) -> _T:
    """`call()` on a worker thread, waited for at most `timeout` seconds in all. A late answer
    is dropped; the abandoned call ends by its own per-read timeout."""
    done = threading.Event()
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as e:  # handed to the caller below, as the call would raise it
            outcome.append((False, e))
        done.set()

    threading.Thread(target=run, name="jiayu-llm-call", daemon=True).start()
    if not done.wait(timeout):
        raise LLMError(f"the model did not answer within {timeout:g} s")
    ok, value = outcome[0]
    if not ok:
        raise value
    result: _T = value
    return result


def client_from_env(
    kind: str | None = None,
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
    environ: Mapping[str, str] | None = None,
) -> LLMClient | None:
    """The client the configuration asks for, or None when nothing is configured.

    Explicit arguments win over the environment: JIAYU_LLM_BASE_URL, JIAYU_LLM_MODEL,
    JIAYU_LLM_API_KEY (else DASHSCOPE_API_KEY) and JIAYU_LLM_TIMEOUT (seconds).
    `kind` is "dashscope", "openai" or None; None chooses:
      - a base URL → the OpenAI-compatible client at that URL (DashScope's compatible mode,
        vLLM, llama.cpp, Ollama's /v1); the native API is chosen only by asking for it;
      - no base URL but a key → the dashscope SDK when it is installed, else the
        OpenAI-compatible client at DashScope's compatible mode (same key, same models);
      - neither → None (the engine then answers what the grammar cannot with `unknown`).
    Raises LLMError for a configuration that cannot work (an unknown kind, "dashscope"
    without the SDK, "openai" without a URL, a timeout that is not a positive number).
    """
    env = os.environ if environ is None else environ
    base_url = base_url or env.get("JIAYU_LLM_BASE_URL") or None
    model = model or env.get("JIAYU_LLM_MODEL") or DEFAULT_MODEL
    api_key = api_key or env.get("JIAYU_LLM_API_KEY") or env.get("DASHSCOPE_API_KEY") or None
    if timeout is None:
        timeout = _env_timeout(env.get("JIAYU_LLM_TIMEOUT"))
    if kind is None:
        if base_url is not None:
            kind = "openai"
        elif api_key is not None:
            kind = "dashscope" if _has_dashscope() else "openai"
            base_url = None if kind == "dashscope" else DASHSCOPE_COMPATIBLE_URL
        else:
            return None
    if kind == "dashscope":
        if not _has_dashscope():
            raise LLMError("the dashscope SDK is not installed (install jiayu[qwen])")
        return DashScopeClient(model, api_key=api_key, base_url=base_url, timeout=timeout)
    if kind == "openai":
        if base_url is None:
            raise LLMError("the OpenAI-compatible client needs JIAYU_LLM_BASE_URL")
        return OpenAICompatClient(base_url, model, api_key=api_key, timeout=timeout)
    raise LLMError(f'unknown LLM client kind {kind!r}: use "dashscope" or "openai"')


def _has_dashscope() -> bool:
    # find_spec tells without importing the SDK (and its requests/aiohttp stack).
    import importlib.util

    try:
        return importlib.util.find_spec("dashscope") is not None
    except (ImportError, ValueError):  # a broken install counts as none
        return False


def _env_timeout(text: str | None) -> float:
    if not text:
        return DEFAULT_TIMEOUT_S
    try:
        return _check_timeout(float(text))
    except ValueError as e:
        raise LLMError(f"JIAYU_LLM_TIMEOUT must be a positive number of seconds: {text!r}") from e


def _check_timeout(timeout: float) -> float:
    if not (math.isfinite(timeout) and timeout > 0):
        raise LLMError(f"LLM timeout must be a positive number of seconds, not {timeout!r}")
    return float(timeout)


def _error_detail(error: urllib.error.HTTPError) -> str:
    """The server's own words for an HTTP error, short: OpenAI-shaped servers send
    {"error": {"message": ...}}, others plain text."""
    try:
        text = error.read(4096).decode("utf-8", "replace")
    except OSError:
        return error.reason if isinstance(error.reason, str) else ""
    try:
        detail = json.loads(text)["error"]
        message = detail.get("message", "") if isinstance(detail, dict) else detail
        return str(message)[:200]
    except (ValueError, LookupError, TypeError, AttributeError):
        return text.strip()[:200]
