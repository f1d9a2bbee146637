"""Which hub a command drives, and how to reach it: `--hub sim|ha|z2m|smartthings` and each
hub's connection settings, from flags or `JIAYU_*` environment variables.

    parser = argparse.ArgumentParser()
    add_hub_arguments(parser)
    args = parser.parse_args()
    hub = hub_from_args(args, home)   # JiayuError, one line, when a setting or extra is missing
    try:
        ...
    finally:
        close_hub(hub)

The settings (a flag wins over its variable):

    --hub          JIAYU_HUB                 sim (default), ha, z2m or smartthings
    --ha-url       JIAYU_HA_URL              http://homeassistant.local:8123 (or its ws:// URL)
    --ha-token     JIAYU_HA_TOKEN, HA_TOKEN  a long-lived access token
    --mqtt-url     JIAYU_MQTT_URL            mqtt://[user[:password]@]host[:port] (port 1883)
                   JIAYU_MQTT_PASSWORD       the password, when the URL has none
    --z2m-topic    JIAYU_Z2M_TOPIC           zigbee2mqtt's base topic (default zigbee2mqtt)
    --smartthings-token  JIAYU_SMARTTHINGS_TOKEN, SMARTTHINGS_TOKEN   a personal access token
    --smartthings-url    JIAYU_SMARTTHINGS_URL   the API root (default SmartThings' own)

Every hub here is a blocking `Hub`; the asyncio driver runs such a hub in worker threads, so
`Engine(home, hub=hub)` serves `turn` and `handle` alike.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, unquote, urlsplit

from jiayu.errors import JiayuError
from jiayu.executor.hubs import Hub, HubError, SimulatedHub

if TYPE_CHECKING:
    from jiayu.home import Home

HUBS = ("sim", "ha", "z2m", "smartthings")
SMARTTHINGS_API = "https://api.smartthings.com"


def _env(*names: str) -> str | None:
    """The first of these environment variables that is set and not empty."""
    return next((value for name in names if (value := os.environ.get(name))), None)


def add_hub_arguments(parser: argparse.ArgumentParser) -> None:
    """`--hub` and the connection settings of every hub, defaulting from the environment."""
    group = parser.add_argument_group("hub", "which hub to drive and how to reach it")
    group.add_argument(
        "--hub",
        choices=HUBS,
        default=_env("JIAYU_HUB") or "sim",
        help="sim: the simulated hub (default; JIAYU_HUB), ha: Home Assistant, "
        "z2m: zigbee2mqtt over MQTT, smartthings: SmartThings' REST API",
    )
    group.add_argument(
        "--ha-url",
        default=_env("JIAYU_HA_URL"),
        metavar="URL",
        help="Home Assistant, e.g. http://homeassistant.local:8123 (JIAYU_HA_URL)",
    )
    group.add_argument(
        "--ha-token",
        default=_env("JIAYU_HA_TOKEN", "HA_TOKEN"),
        metavar="TOKEN",
        help="a long-lived access token (JIAYU_HA_TOKEN or HA_TOKEN)",
    )
    group.add_argument(
        "--mqtt-url",
        default=_env("JIAYU_MQTT_URL"),
        metavar="URL",
        help="the MQTT broker zigbee2mqtt uses, mqtt://[user[:password]@]host[:port] "
        "(JIAYU_MQTT_URL; the password may instead be in JIAYU_MQTT_PASSWORD)",
    )
    group.add_argument(
        "--z2m-topic",
        default=_env("JIAYU_Z2M_TOPIC") or "zigbee2mqtt",
        metavar="TOPIC",
        help="zigbee2mqtt's base topic (JIAYU_Z2M_TOPIC; default zigbee2mqtt)",
    )
    group.add_argument(
        "--smartthings-token",
        default=_env("JIAYU_SMARTTHINGS_TOKEN", "SMARTTHINGS_TOKEN"),
        metavar="TOKEN",
        help="a personal access token (JIAYU_SMARTTHINGS_TOKEN or SMARTTHINGS_TOKEN)",
    )
    group.add_argument(
        "--smartthings-url",
        default=_env("JIAYU_SMARTTHINGS_URL") or SMARTTHINGS_API,
        metavar="URL",
        help=f"SmartThings' API root (JIAYU_SMARTTHINGS_URL; default {SMARTTHINGS_API})",
    )


def need(module: str, extra: str, what: str) -> None:
    """JiayuError naming the extra to install when `module` cannot be imported."""
    if importlib.util.find_spec(module) is None:
        raise JiayuError(f"{what} needs {module}: pip install 'jiayu[{extra}]'")


def _missing(setting: str, flag: str, variable: str) -> JiayuError:
    return JiayuError(f"{setting} is not set: give {flag} or set {variable}")


def hub_from_args(args: argparse.Namespace, home: Home) -> Hub:
    """The hub `args` name, connected; JiayuError (one line, no secret in it) when a setting
    is missing, an optional extra is not installed or the hub cannot be reached."""
    if args.hub == "ha":
        return _home_assistant(args)
    if args.hub == "z2m":
        return _zigbee2mqtt(args, home)
    if args.hub == "smartthings":
        return _smartthings(args)
    return SimulatedHub(home)


def close_hub(hub: object) -> None:
    """Close a hub's connection, for hubs that hold one."""
    close = getattr(hub, "close", None)
    if callable(close):
        close()


def _home_assistant(args: argparse.Namespace) -> Hub:
    if not args.ha_url:
        raise _missing("Home Assistant's URL", "--ha-url", "JIAYU_HA_URL")
    if not args.ha_token:
        raise _missing("Home Assistant's access token", "--ha-token", "JIAYU_HA_TOKEN")
    need("websockets", "homeassistant", "the Home Assistant hub")
    from jiayu.executor.hubs.homeassistant import HomeAssistantHub
    from jiayu.importers.ha import websocket_url

    hub = HomeAssistantHub(websocket_url(args.ha_url), args.ha_token)
    hub.connect()  # HaConnectionError (a JiayuError) names the URL, never the token
    return hub


def _zigbee2mqtt(args: argparse.Namespace, home: Home) -> Hub:
    if not args.mqtt_url:
        raise _missing("the MQTT broker's URL", "--mqtt-url", "JIAYU_MQTT_URL")
    parts = urlsplit(args.mqtt_url if "://" in args.mqtt_url else f"mqtt://{args.mqtt_url}")
    if parts.scheme not in {"mqtt", "tcp"} or not parts.hostname:
        raise JiayuError(f"--mqtt-url: not mqtt://host[:port]: {_without_secret(parts)}")
    try:
        port = parts.port or 1883
    except ValueError as exc:  # a port that is not a number
        raise JiayuError(f"--mqtt-url: {exc}: {_without_secret(parts)}") from exc
    need("paho", "mqtt", "the zigbee2mqtt hub")
    from jiayu.executor.hubs.zigbee2mqtt import Zigbee2MqttHub

    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else _env("JIAYU_MQTT_PASSWORD")
    try:
        return Zigbee2MqttHub(
            home,
            host=parts.hostname,
            port=port,
            base_topic=args.z2m_topic,
            username=username,
            password=password if username else None,
        )
    except HubError as err:
        raise JiayuError(
            f"cannot reach zigbee2mqtt at {_without_secret(parts)}: {err.reason}"
        ) from err


def _smartthings(args: argparse.Namespace) -> Hub:
    if not args.smartthings_token:
        raise _missing(
            "SmartThings' access token", "--smartthings-token", "JIAYU_SMARTTHINGS_TOKEN"
        )
    from jiayu.executor.hubs.smartthings import SmartThingsHub

    try:
        return SmartThingsHub(args.smartthings_token, base_url=args.smartthings_url)
    except ValueError as exc:  # a URL that is not http(s)
        raise JiayuError(f"--smartthings-url: {exc}") from exc


def _without_secret(parts: SplitResult) -> str:
    """The broker's address as the user gave it, without user name or password."""
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
