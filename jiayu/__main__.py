"""`python -m jiayu`: the `jiayu` command."""

import sys

from jiayu.cli import main

sys.exit(main())
