# The two commands a fresh machine needs: `make demo` and `make test`.
# (docker/Dockerfile installs with these same targets: `make sandbox-tools install EXTRAS=...`.)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXTRAS ?= dev,openspiel

.PHONY: demo test bench clean sandbox-tools browser-tools proxy-tools bot-toolchains install docker-test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# (and arena's bytecode compiled: where nobody may write beside the sources, as in the image, or where
# PYTHONDONTWRITEBYTECODE is set, every process would compile it again, about 0.4 s of CPU each)
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e '.[$(EXTRAS)]'
	$(BIN)/python -m compileall -q arena
	touch $(STAMP)

# Arena and its dependencies in .venv (the extras: dev tools and OpenSpiel here; the image takes others).
install: $(STAMP)

# A round-robin of every built-in bot (demo-sized search budgets) on every registered game mode, named
# "demo" and stored in results/arena.db; 60 s of play shared between the modes, then one summary.
# Run it again and it goes on: unfinished modes resume, finished ones get another cycle, the ratings grow.
demo: $(STAMP)
	$(BIN)/arena tournament run all --bots builtin --format round-robin --rounds 3 --for 60s --name demo --no-standings
	@echo
	@echo "Next: $(BIN)/arena leaderboard GAME (a game's table), $(BIN)/arena replay MATCH (a match move by move),"
	@echo "      $(BIN)/arena web (all of it in a browser, at http://127.0.0.1:8080/)"

# (arena's bytecode compiled again first: the sources may have changed since the install)
# Three test processes, on two cores as on CI: about a third of the suite waits (on bot processes, workers,
# servers and the browser), and a third process fills that. On a 2-core machine the suite took 7 min 34 s with
# two, 6 min 2 s to 6 min 13 s with three, 6 min 41 s with four; with three it also passes beside two CPU-bound
# processes (10 min 1 s). TEST_WORKERS=N chooses another number.
# While mypy runs, one collection pass keeps the test modules (and the pytest plugins') as pytest rewrites their
# asserts, in __pycache__ even where PYTHONDONTWRITEBYTECODE is set (as compileall does for arena; the tests' own
# processes still see the variable): each test process would otherwise rewrite all of them again, which took the
# three of them 13-15 s before the first test on a 2-core machine, against 5 s with the rewritten modules kept.
TEST_WORKERS ?= 3
test: $(STAMP) sandbox-tools browser-tools proxy-tools bot-toolchains
	$(BIN)/python -m compileall -q arena
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1 & \
	  collecting=$$!; $(BIN)/python -m mypy arena; typed=$$?; wait $$collecting; exit $$typed
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

# Bot programs run in a bubblewrap sandbox (and the tests run them so): install it where it is
# missing and we may (root with apt-get, as on CI), else say how.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (the bot sandbox)"; \
	    apt-get install -y -qq bubblewrap >/dev/null || { apt-get update -qq && apt-get install -y -qq bubblewrap; }; \
	  else \
	    echo "the tests need bubblewrap (the bot sandbox): sudo apt-get install bubblewrap (or dnf install bubblewrap)"; \
	    exit 1; \
	  fi; }

# The web tests drive a real headless Chromium: install Debian's chromium and chromium-driver where we
# may (root with apt-get); elsewhere say how, and those tests skip with the reason.
browser-tools:
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium and chromium-driver (the web tests' browser)"; \
	    apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; } \
	      || echo "could not install chromium; the browser tests will skip"; \
	  else \
	    echo "the browser tests need Chromium: sudo apt-get install chromium chromium-driver (they skip without it)"; \
	  fi; }

# bench/web_attack.py --through-nginx runs its attacks through a real nginx made from docker/nginx.conf (its
# smoke test too): install Debian's nginx where we may (root with apt-get; the package's own service is not used,
# the bench starts and stops its own); elsewhere say how, and that test skips with the reason.
proxy-tools:
	@{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing nginx (the proxy the web's attack bench runs through)"; \
	    apt-get install -y -qq nginx >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; } \
	      || echo "could not install nginx; the bench's run through nginx will skip"; \
	    if [ -s /run/nginx.pid ]; then /usr/sbin/nginx -s quit 2>/dev/null || true; fi; \
	  else \
	    echo "the bench's run through nginx needs nginx: sudo apt-get install nginx (its test skips without it)"; \
	  fi; }

# The starters in bots/ in other languages are tested where their toolchain is: the C++ one needs g++ and
# Debian's gRPC (installed here where we may, root with apt-get); the JavaScript one needs Node.js and npm.
# The tests that cannot run say which toolchain is missing (pytest -ra lists them).
bot-toolchains:
	@{ command -v g++ && command -v make && command -v pkg-config && command -v grpc_cpp_plugin \
	   && pkg-config --exists grpc++ protobuf; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing the C++ starter's toolchain (g++, gRPC's C++ library, protoc's gRPC plug-in)"; \
	    apt-get install -y -qq g++ make pkg-config libgrpc++-dev protobuf-compiler-grpc >/dev/null 2>&1 \
	      || { apt-get update -qq && apt-get install -y -qq g++ make pkg-config libgrpc++-dev protobuf-compiler-grpc >/dev/null; } \
	      || echo "could not install the C++ toolchain; the C++ starter's tests will skip"; \
	  else \
	    echo "the C++ starter's tests need: sudo apt-get install g++ make pkg-config libgrpc++-dev protobuf-compiler-grpc"; \
	  fi; }
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 \
	  || echo "the JavaScript starter's tests need Node.js and npm (apt-get install nodejs npm); they will skip"

# The hosted deployment for real: installs what it needs (docker.io, debootstrap, Compose v2), builds the
# images (from Debian's packages where no registry answers), runs the whole stack, uploads a bot through the
# web and waits until the ladder rates it, then tears everything down (docker/test.sh says what it changes).
docker-test: $(STAMP)
	bash docker/test.sh

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build *.egg-info
