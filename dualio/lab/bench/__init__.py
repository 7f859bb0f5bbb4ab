"""``dualio bench``: the lab's scenarios, modes and goals, measured against servers it
starts, and the results, report and charts of a run (:mod:`dualio.lab.bench.command`)."""
