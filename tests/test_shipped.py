"""jiayu.shipped reads the files shipped in jiayu's packages as importlib.resources does."""

from __future__ import annotations

from importlib import resources

import pytest

from jiayu import shipped


@pytest.mark.parametrize(
    ("package", "name"),
    [
        ("jiayu.grammar", "jiayu.lark"),
        ("jiayu.grammar", "jiayu.tables.json"),
        ("jiayu", "schemas/home.schema.json"),
        ("jiayu.compiler", "pinyin_readings.txt"),
    ],
)
def test_a_shipped_file_reads_as_importlib_resources_reads_it(package: str, name: str) -> None:
    expected = resources.files(package).joinpath(name).read_text("utf-8")
    assert shipped.read_text(package, name) == expected


def test_a_file_the_package_does_not_ship_is_an_error_not_empty_text() -> None:
    with pytest.raises(FileNotFoundError):
        shipped.read_text("jiayu.grammar", "no-such-file.json")
