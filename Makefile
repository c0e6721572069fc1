# Two commands for a fresh machine: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.stamp

.PHONY: demo test bench model clean font-packages

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit("board-pi needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Reinstall when the project's dependencies change.
$(STAMP)-run: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	@touch $@

$(STAMP)-test: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $@ $(STAMP)-run

demo: $(STAMP)-run
	$(VENV)/bin/board-pi demo

test: $(STAMP)-test
	$(PY) -m pytest -q

bench: $(STAMP)-test
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# The Debian packages of the renderer's font catalogue: one list, in board_pi/vision/fonts.txt
# (.ci/run reads it too). The tiles are rendered in these fonts for training and for the tests.
FONT_PACKAGES := $(shell awk -F'\t' '$$2 ~ /^fonts-/ {print $$2}' board_pi/vision/fonts.txt | sort -u)

# The tile model: training needs torch (CPU build) and the catalogue's fonts; neither is needed
# to run board-pi, which reads the committed ONNX file with OpenCV.
model: $(STAMP)-run
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		dpkg -s $(FONT_PACKAGES) >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq $(FONT_PACKAGES)); \
	else echo "note: install the fonts for training: sudo apt-get install $(FONT_PACKAGES)"; fi
	$(PY) -m pip install --quiet torch==2.13.0 onnx
	$(PY) -W ignore -m board_pi.vision.train
	$(PY) -W ignore -m board_pi.vision.train --seed 11 --boards 1000 --epochs 8 --lr 3e-4 \
		--set-weights german=2,spanish=2,polish=3 --init board_pi/vision/model/tiles.onnx \
		--out board_pi/vision/model/second/tiles.onnx
	$(PY) -W ignore -m board_pi.vision.train --accents --seed 21 --boards 1200 --epochs 8 --lr 1e-3 \
		--init board_pi/vision/model/tiles.onnx --out board_pi/vision/model/accents/tiles.onnx
	$(PY) -W ignore -m board_pi.vision.train --accents --seed 22 --boards 1200 --epochs 8 --lr 1e-3 \
		--init board_pi/vision/model/second/tiles.onnx --out board_pi/vision/model/accents/second/tiles.onnx
	$(PY) -W ignore -m board_pi.vision.train --values --seed 17 --boards 1500 --epochs 6 --real-variants 8 \
		--out board_pi/vision/model/values/tiles.onnx
	# Then fine-tuned with a quarter of the boards in tournament tiles (light letters on dark tiles).
	$(PY) -W ignore -m board_pi.vision.train --seed 16 --boards 1000 --epochs 6 --lr 5e-4 --tournament-share 0.25 \
		--init board_pi/vision/model/tiles.onnx
	# Then once more, drawing again each epoch the patches the epoch before read worst.
	$(PY) -W ignore -m board_pi.vision.train --seed 18 --boards 1000 --epochs 6 --lr 5e-4 --tournament-share 0.25 \
		--hard-share 0.15 --init board_pi/vision/model/tiles.onnx
	$(PY) -W ignore -m board_pi.vision.train --accents --seed 23 --boards 1200 --epochs 6 --lr 5e-4 \
		--tournament-share 0.25 --init board_pi/vision/model/accents/tiles.onnx --out board_pi/vision/model/accents/tiles.onnx
	$(PY) -W ignore -m board_pi.vision.train --accents --seed 24 --boards 1200 --epochs 6 --lr 5e-4 \
		--tournament-share 0.25 --hard-share 0.15 --init board_pi/vision/model/accents/second/tiles.onnx \
		--out board_pi/vision/model/accents/second/tiles.onnx

font-packages:
	@echo $(FONT_PACKAGES)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
