"""shipped_text reads the files shipped in jiayu's packages as importlib.resources does."""

from __future__ import annotations

import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest

from jiayu.jsonfile import shipped_text


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
    assert shipped_text(package, name) == expected


def test_a_file_the_package_does_not_ship_is_an_error_not_empty_text() -> None:
    with pytest.raises(OSError):
        shipped_text("jiayu.grammar", "no-such-file.json")


def test_a_package_imported_from_a_zip_reads_its_files_from_the_zip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "packed.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("zipped_pkg/__init__.py", "")
        packed.writestr("zipped_pkg/data/words.txt", "打开客厅灯")
    monkeypatch.syspath_prepend(str(archive))
    assert shipped_text("zipped_pkg", "data/words.txt") == "打开客厅灯"
    with pytest.raises(OSError):
        shipped_text("zipped_pkg", "data/none.txt")
    del sys.modules["zipped_pkg"]  # imported from a file the test removes
