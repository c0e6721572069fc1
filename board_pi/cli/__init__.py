"""The ``board-pi`` command: the entry points, and the one place that wires the parts together.

``main`` parses the command line (:mod:`.main`) and calls one handler ``cmd_*``: the rules
commands (:mod:`.rules`), the terminal clock (:mod:`.clock`), ``config`` (:mod:`.config`),
``doctor`` (:mod:`.doctor`), the vision commands (:mod:`.vision`), and the running of a table
(:mod:`.run`) and of the demo (:mod:`.demo`). Library modules never import this package: they
raise their own errors, which the handlers here turn into a message and exit 2.
"""

from .errors import UsageError
from .main import build_parser, main, port_number, seconds

__all__ = ["UsageError", "build_parser", "main", "port_number", "seconds"]
