"""``dualio bench compare OLD NEW``: two runs' results.json compared cell by cell
(:mod:`dualio.lab.compare.command`)."""
