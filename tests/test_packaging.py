"""``pip install .`` (not editable) ships everything the pages need: every module, every page
of the navigation, and the sample database Inspect names."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_holds_every_module_page_and_the_sample_database(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "-q", "-w", str(tmp_path), str(ROOT)], check=True, timeout=300,
                   capture_output=True)
    (wheel,) = tmp_path.glob("*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())

    sources = {str(p.relative_to(ROOT)) for package in ("playground", "ticket_api")
               for p in (ROOT / package).rglob("*.py")}
    assert sources - shipped == set()
    assert "playground/samples/sample-app.sqlite" in shipped
    assert "playground/ui/assets/favicon.png" in shipped  # the pages' icon, served locally
    assert "playground/ui/app.py" in shipped
