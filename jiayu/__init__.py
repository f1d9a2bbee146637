"""家语: compile what people say to a smart home into safe device commands.

    import jiayu
    from jiayu.engine import Engine

    engine = Engine(jiayu.demo_home())          # or Engine.from_file("home.json")
    print(engine.turn("打开客厅灯", session_id="s1").reply)

`jiayu.demo_home()` is the bundled demo home (74 devices, two floors, eleven rooms);
`jiayu.configure_logging()` is the logging setup the `jiayu` command uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jiayu.home import Home

__all__ = ["configure_logging", "demo_home", "demo_home_path"]

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""Each record as a line a person reads: when, how bad, which stage, what happened."""


def demo_home_path() -> Path:
    """Where the bundled demo home's file is."""
    from importlib import resources

    return Path(str(resources.files("jiayu.corpus").joinpath("homes/demo.json")))


def demo_home() -> Home:
    """The bundled demo home, loaded and checked."""
    from jiayu.home import load_home

    return load_home(demo_home_path())


def configure_logging(level: str | int | None = None) -> None:
    """Log jiayu's records to stderr as readable lines (`LOG_FORMAT`), at `level`, else the
    `JIAYU_LOG` environment variable, else WARNING. A level is a name (debug, info, warning,
    error) or a number; ValueError names a level that is neither."""
    import logging
    import os

    chosen = level if level is not None else os.environ.get("JIAYU_LOG") or "WARNING"
    number = chosen if isinstance(chosen, int) else logging.getLevelName(chosen.upper())
    if not isinstance(number, int):
        raise ValueError(
            f"unknown log level {chosen!r}: use debug, info, warning, error or critical"
        )
    logging.basicConfig(format=LOG_FORMAT, level=logging.WARNING)
    logging.getLogger("jiayu").setLevel(number)


def __getattr__(name: str) -> str:
    # Read from the installed metadata when asked, so `import jiayu` stays cheap.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("jiayu")
        except PackageNotFoundError:  # run from a source tree that was never installed
            return "unknown"
    raise AttributeError(f"module 'jiayu' has no attribute {name!r}")
