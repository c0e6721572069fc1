"""``python -m board_pi.cli``: the same as the ``board-pi`` console script."""

import sys

from board_pi.cli import main

sys.exit(main())
