# SPDX-License-Identifier: GPL-3.0-or-later
"""The pinned mir_eval that the evaluation tools compare against, installed on demand.

`ensure_mir_eval(script)` returns when mir_eval MIR_EVAL_VERSION imports; otherwise it makes a virtual
environment in `.build-eval-venv/` (ignored by git), pip-installs the pinned version there, and runs
`script` again with that environment's Python (same arguments).
"""
import os
import subprocess
import sys

MIR_EVAL_VERSION = "0.8.2"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".build-eval-venv")
_REEXEC = "BEATMAP_MIR_EVAL_REEXEC"


def ensure_mir_eval(script):
    """Makes the pinned mir_eval importable, re-running `script` in the private venv if needed."""
    try:
        import mir_eval  # noqa: F401

        if mir_eval.__version__ == MIR_EVAL_VERSION:
            return
    except ImportError:
        pass
    if os.environ.get(_REEXEC):
        sys.exit(f"mir_eval {MIR_EVAL_VERSION} could not be imported from {sys.executable}")
    python = os.path.join(VENV, "bin", "python3")
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    subprocess.check_call([python, "-m", "pip", "install", "--quiet", f"mir_eval=={MIR_EVAL_VERSION}"])
    env = dict(os.environ, **{_REEXEC: "1"})
    os.execve(python, [python, os.path.abspath(script)] + sys.argv[1:], env)
