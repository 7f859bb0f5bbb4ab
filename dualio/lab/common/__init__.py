"""What more than one of the lab's programs uses: the metadata of a run and the schema
version of its results.json, written by ``dualio bench`` and checked by ``dualio bench compare``."""
