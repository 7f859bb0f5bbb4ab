"""``python -m dualio.lab.instructions``: the instruction counter's command
(:func:`dualio.lab.instructions.counter.main`)."""

from dualio.lab.instructions.counter import main

raise SystemExit(main())
