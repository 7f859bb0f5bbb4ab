# Two commands on a fresh clone: `make bench` runs the main job, `make test` the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
IMPORT_NAMES := build/import-names/dualio_transports

# The suite starts hundreds of Pythons (servers, clients, the lab): each compiles what it
# imports unless the bytecode is cached, so the cache is written whatever the shell says.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: bench bench-full chaos demo test test-gate test-stress test-pythons generate perf-baseline clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,lab]'
	$(MAKE) $(IMPORT_NAMES)
	touch $(STAMP)

# mypy finds packages by folder name: transports/ under its import name (pyproject.toml)
$(IMPORT_NAMES):
	mkdir -p $(dir $@)
	ln -sfn ../../transports $@

bench: $(STAMP)
	$(BIN)/dualio bench --quick

bench-full: $(STAMP)
	$(BIN)/dualio bench --pool-workers 50

demo: $(STAMP)
	$(BIN)/dualio demo

# The whole suite, in four steps: the static checks; every test that may run beside
# others, in 4 workers (--dist loadscope: each file on one worker, but the contract suite's
# tests spread one by one, tests/conftest.py); the instruction gate (load does not change
# what it counts) and the stress tests (they mostly wait) at once; last, on an idle
# machine, the tests that measure time.
test: $(STAMP) $(IMPORT_NAMES)
	$(BIN)/python -m dualio.devtools.redis_methods --check
	$(BIN)/python -m dualio.devtools.unasync --check
	$(BIN)/python -m dualio.unasync --config examples/memcached/unasync.toml --check
	$(BIN)/ruff check dualio dualio_sync transports tests examples
	$(BIN)/mypy --strict -p dualio -p dualio_sync -p dualio_transports
	$(BIN)/mypy --strict tests/typecheck_redis.py  # the generated Redis methods' types, in both modes
	$(BIN)/mypy --strict -p examples.memcached  # a protocol on the public toolkit alone
	$(BIN)/python -m pytest -n 4 --dist loadscope -m "not serial"
	$(MAKE) --no-print-directory -j2 --output-sync=target test-gate test-stress
	$(BIN)/python -m pytest -m alone

test-gate: $(STAMP) $(IMPORT_NAMES)
	$(BIN)/python -m pytest tests/perf -m "not alone"

test-stress: $(STAMP) $(IMPORT_NAMES)
	$(BIN)/python -m pytest tests/stress -m "not alone"

# the contract, fork and unit tests on Python 3.12 and 3.13, at once (CI runs it after make test)
test-pythons: $(STAMP) $(IMPORT_NAMES)
	$(BIN)/python -m dualio.devtools.pythons

# every face of both wires under faults for longer: 16 runs of 30 s of faults and 4 s of calm
chaos: $(STAMP)
	$(BIN)/python -m dualio.lab.chaos --seconds $(or $(CHAOS_SECONDS),30)
	$(BIN)/python -m dualio.lab.failover --chaos  # a primary killed: a Redis Cluster, Sentinel

# the instruction gate's baseline for this Python: commit its diff with the change that moved it
perf-baseline: $(STAMP)
	$(BIN)/python -m dualio.lab.instructions --write-baseline tests/perf/instructions.json

# the Redis methods from Redis's command spec, then the blocking face from the async one
generate: $(STAMP)
	$(BIN)/python -m dualio.devtools.redis_methods
	$(BIN)/python -m dualio.devtools.unasync
	$(BIN)/python -m dualio.unasync --config examples/memcached/unasync.toml

clean:
	rm -rf $(VENV)
