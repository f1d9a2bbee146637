"""The files shipped inside jiayu's packages (schemas, the grammar and its tables), as text.

Read by the package's own loader, from a directory or a zip alike, as pkgutil.get_data
reads them. Neither module is imported for it: importlib.resources imports tempfile, and
with it shutil, bz2, lzma and random (about 3 ms of a 70 ms start-up, for files read once
each), and pkgutil another 0.3 ms.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import ResourceLoader


def read_text(package: str, name: str) -> str:
    """The UTF-8 text of the file `name` (a /-separated path) of the package `package`;
    OSError when there is none."""
    module = importlib.import_module(package)
    spec, file = module.__spec__, module.__file__
    if spec is None or file is None:  # a namespace package: never one of jiayu's
        raise FileNotFoundError(f"{package} has no files of its own to read {name} from")
    loader = cast("ResourceLoader", spec.loader)  # a file's or a zip's: both read data
    path = os.path.join(os.path.dirname(file), *name.split("/"))
    return loader.get_data(path).decode("utf-8")
