"""What Home Assistant and HACS require of the integration, checked offline: hacs.json, the
layout HACS installs from (custom_components/jiayu at the repository's root), the manifest's
fields (as hassfest checks a custom integration), and translations that match strings.json
in English and Simplified Chinese."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from awesomeversion import AwesomeVersion
from homeassistant.const import __version__ as ha_version
from homeassistant.core import HomeAssistant
from homeassistant.loader import async_get_custom_components

ROOT = Path(__file__).resolve().parents[3]
COMPONENT = ROOT / "custom_components" / "jiayu"
# The integration needs the jiayu this repository builds, and carries its version.
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
IOT_CLASSES = {
    "assumed_state",
    "cloud_polling",
    "cloud_push",
    "local_polling",
    "local_push",
    "calculated",
}
INTEGRATION_TYPES = {"device", "entity", "hardware", "helper", "hub", "service", "system"}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_hacs_finds_one_integration_at_the_root() -> None:
    hacs = _json(ROOT / "hacs.json")
    assert isinstance(hacs["name"], str) and hacs["name"]
    assert set(hacs) <= {
        "name",
        "homeassistant",
        "render_readme",
        "content_in_root",
        "zip_release",
        "filename",
        "hide_default_branch",
        "country",
        "hacs",
        "persistent_directory",
    }
    # Without content_in_root or zip_release HACS installs custom_components/<one domain>.
    assert not hacs.get("content_in_root") and not hacs.get("zip_release")
    folders = (ROOT / "custom_components").iterdir()
    assert [p.name for p in folders if p.is_dir() and not p.name.startswith(".")] == ["jiayu"]
    # The Home Assistant it names is one the integration runs on (the tests' own).
    assert AwesomeVersion(hacs["homeassistant"]) <= AwesomeVersion(ha_version)


def test_the_manifest_has_what_ha_and_hacs_require() -> None:
    manifest = _json(COMPONENT / "manifest.json")
    assert manifest["domain"] == COMPONENT.name
    for key in ("documentation", "issue_tracker"):
        url = urlparse(manifest[key])
        assert url.scheme == "https" and url.netloc, key
    assert manifest["codeowners"] and all(c.startswith("@") for c in manifest["codeowners"])
    assert manifest["iot_class"] in IOT_CLASSES
    assert manifest["integration_type"] in INTEGRATION_TYPES
    assert manifest["loggers"] == ["jiayu"]
    assert manifest["config_flow"] is True and (COMPONENT / "config_flow.py").is_file()
    assert manifest["requirements"] == [f"jiayu=={VERSION}"]
    assert AwesomeVersion(manifest["version"]).valid
    # hassfest: keys sorted after domain and name.
    keys = list(manifest)
    assert keys[:2] == ["domain", "name"] and keys[2:] == sorted(keys[2:])


async def test_ha_loads_it_as_a_valid_custom_integration(hass: HomeAssistant) -> None:
    integration = (await async_get_custom_components(hass))["jiayu"]
    assert integration.version == AwesomeVersion(VERSION)
    assert integration.config_flow and integration.iot_class == "local_push"


def _strings(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, f"{path}/{key}")
    else:
        yield path, node


@pytest.mark.parametrize("language", ["en", "zh-Hans"])
def test_each_translation_says_every_string_with_the_same_placeholders(language: str) -> None:
    source = dict(_strings(_json(COMPONENT / "strings.json")))
    translated = dict(_strings(_json(COMPONENT / "translations" / f"{language}.json")))
    assert set(translated) == set(source)
    for path, text in source.items():
        assert set(re.findall(r"{\w+}", translated[path])) == set(re.findall(r"{\w+}", text)), path
    if language == "zh-Hans":
        titles = [t for p, t in translated.items() if p.endswith(("/description", "/title"))]
        assert all(re.search("[\u4e00-\u9fff]", t) for t in titles)
