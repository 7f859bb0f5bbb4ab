"""Tools that build parts of the repository (not imported at run time; not in the wheel)."""
