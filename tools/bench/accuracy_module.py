# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/bench/accuracy (a script without a .py name) as a module, for the scripts built on it:
bars, games, audio-rules and tools/learned/experiment.py use its venv, corpus, analyzer, peer and
scoring helpers. Loaded once, as `bench_accuracy` in sys.modules: games' peer worker is pickled
by that name for its process pool."""
import importlib.machinery
import importlib.util
import os
import sys

NAME = "bench_accuracy"


def load():
    """The module, loaded on first use."""
    if NAME in sys.modules:
        return sys.modules[NAME]
    loader = importlib.machinery.SourceFileLoader(NAME, os.path.join(os.path.dirname(os.path.abspath(__file__)), "accuracy"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(NAME, loader))
    sys.modules[NAME] = module
    loader.exec_module(module)
    return module
