"""The files shipped inside jiayu's packages (schemas, the grammar and its tables), as text.

Read by the package's own loader (pkgutil.get_data), from a directory or a zip alike.
importlib.resources reads them too, but importing it imports tempfile, and with it shutil,
bz2, lzma and random: about 3 ms of a 70 ms start-up, for files read once each.
"""

from __future__ import annotations

import pkgutil


def read_text(package: str, name: str) -> str:
    """The UTF-8 text of the file `name` (a /-separated path) of the package `package`;
    OSError when there is none."""
    data = pkgutil.get_data(package, name)
    if data is None:  # a loader that cannot read files: none of a normal install's
        raise FileNotFoundError(f"{package} cannot read its file {name}")
    return data.decode("utf-8")
