"""`import botie` stays light: no tokenizer, no widgets, no plotting."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("matplotlib", "ipywidgets", "tiktoken", "IPython", "numpy")


def test_import_botie_pulls_in_nothing_heavy():
    code = (
        "import sys, botie\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_heavy_check_can_fail():
    """Guard the guard: importing a heavy module is seen by the same probe."""
    probe = f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    quiet = subprocess.run([sys.executable, "-c", "import sys, botie\n" + probe],
                           capture_output=True, text=True, check=True)
    loud = subprocess.run([sys.executable, "-c", "import sys, botie, botie.ui\n" + probe],
                          capture_output=True, text=True, check=True)
    # botie.ui brings ipywidgets and matplotlib, which `import botie` alone does not load.
    assert quiet.stdout.strip() == ""
    assert {"ipywidgets", "matplotlib"} <= set(loud.stdout.strip().split(","))
