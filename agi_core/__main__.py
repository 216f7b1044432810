"""``python -m agi_core`` is the ``agi`` command."""

from agi_core.cli.main import main

main()
