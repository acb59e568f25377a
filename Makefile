# Two commands: `make run` serves the app, `make test` runs every test.
# Both set up everything they need on a fresh machine (venv, packages, and as
# root Debian's chromium, fonts and poppler for the browser and PDF tests).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
APT_RUN := libpango-1.0-0 libpangoft2-1.0-0
APT_TEST := chromium fonts-dejavu-core poppler-utils
APT_BENCH := valgrind
HOST ?= 0.0.0.0
PORT ?= 8000

# the catalogues of the five languages besides English (scorekeeper/translations/)
PO := $(wildcard scorekeeper/translations/*/LC_MESSAGES/messages.po)
MO := $(PO:.po=.mo)
# what marks a sentence for the catalogue, in Python (templates use _())
KEYWORDS := -k _ -k gettext -k ngettext:1,2 -k N_ -k Text -k Plural:1,2 -k RuleError -k Refused

.PHONY: run test lint bench fuzz-long messages cyrillic catalogues print clean system-run system-test system-bench

run: $(VENV)/.installed-run system-run catalogues
	$(BIN)/scorekeeper serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-test system-test catalogues
	$(BIN)/ruff check scorekeeper tests bench
	$(BIN)/ruff format --check scorekeeper tests bench
	@# every test but the real servers', three at a time: a browser test spends much of
	@# its time waiting for the next poll or answer, and a third process fills the two
	@# cores meanwhile (they wait for states, never for times: a busy machine makes them
	@# slower, not red); then, alone, the real servers', which wait on a server with
	@# timeouts
	$(BIN)/pytest -n 3 -m "not serial"
	$(BIN)/pytest -m serial

lint: $(VENV)/.installed-test
	$(BIN)/ruff check scorekeeper tests bench
	$(BIN)/ruff format --check scorekeeper tests bench

bench: $(VENV)/.installed-test system-bench
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/print.py
	$(BIN)/python bench/load.py
	$(BIN)/python bench/club.py
	$(BIN)/python bench/longtable.py
	$(BIN)/python bench/play.py
	$(BIN)/python bench/taps.py
	$(BIN)/python bench/pegs_taps.py
	$(BIN)/python bench/instructions.py

# the long fuzzing campaign: 10,000 generated requests per endpoint and per score kind,
# one pytest worker per core
fuzz-long: $(VENV)/.installed-test
	FUZZ_EXAMPLES=10000 FUZZ_RANDOM=1 $(BIN)/pytest -p no:playwright -q -n auto tests/test_fuzz.py

# every user-facing string into messages.pot, and the new ones into each catalogue
# (translate them there; `make test` fails on an empty or fuzzy entry)
messages: $(VENV)/.installed-run
	$(BIN)/pybabel -q extract -F babel.cfg $(KEYWORDS) -c Translators: --no-location \
	  --sort-output -o messages.pot .
	$(BIN)/pybabel -q update -i messages.pot -d scorekeeper/translations \
	  --no-fuzzy-matching --ignore-obsolete

# the Serbian Cyrillic catalogue, transliterated from the Latin one (review, then commit)
cyrillic: $(VENV)/.installed-test
	$(BIN)/python -m scorekeeper.cyrillic

catalogues: $(MO)

%.mo: %.po | $(VENV)/.installed-run
	$(BIN)/pybabel -q compile -i $< -o $@

print: $(VENV)/.installed-run system-run
	$(BIN)/scorekeeper print

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed-run

# Debian packages: installed with apt when missing and we are root; otherwise say what to install.
define apt_ensure
	@missing=""; for pkg in $(1); do dpkg -s $$pkg >/dev/null 2>&1 || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "Please install these Debian packages first: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi
endef

system-run:
	$(call apt_ensure,$(APT_RUN))

system-test:
	$(call apt_ensure,$(APT_RUN) $(APT_TEST))

system-bench:
	$(call apt_ensure,$(APT_RUN) $(APT_BENCH))

clean:
	rm -rf $(VENV) build dist *.egg-info printables/build test-artifacts .pytest_cache .ruff_cache
