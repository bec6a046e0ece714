# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/bench/accuracy (a script without a .py name) as a module, for the scripts built on it:
bars, games, composed, audio-rules and tools/learned/experiment.py use its venv, corpus, analyzer,
peer and scoring helpers. Loaded once, as `bench_accuracy` in sys.modules: games' peer worker is
pickled by that name for its process pool. load_script loads another such script the same way
(composed scores bars with bars')."""
import importlib.machinery
import importlib.util
import os
import sys

NAME = "bench_accuracy"


def load():
    """The module, loaded on first use."""
    return load_script("accuracy", NAME)


def load_script(script, name):
    """This folder's `script` (another script without a .py name, e.g. bars) as module `name`, loaded on
    first use."""
    if name in sys.modules:
        return sys.modules[name]
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(os.path.dirname(os.path.abspath(__file__)), script))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    sys.modules[name] = module
    loader.exec_module(module)
    return module
