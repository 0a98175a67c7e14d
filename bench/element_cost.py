"""What a Streamlit script run costs the server before the page does any work of its own.

Two throwaway one-button apps under ``streamlit run`` with the flags ``playground run`` uses
(``STREAMLIT_FLAGS``):
one draws nothing else, one draws 200 ``st.markdown`` lines. One protocol tab clicks the button
100 times on each; the server's CPU per click (from /proc) gives the fixed cost of a run and the
cost of one element (the script's call, its ForwardMsg, the event loop sending it). A page's
clicks cost at least runs x fixed + elements x per-element, on the one interpreter lock every
session of a server shares: that is the floor under the room rows.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.room import StreamlitTab, cpu_seconds
from playground.server_process import STREAMLIT_FLAGS, free_port, stop_process, wait_until_up

ELEMENTS = 200
CLICKS = 100
_APP = '''import os
import streamlit as st

st.button("Go")
for i in range(int(os.environ["ELEMENTS"])):
    st.markdown(f"line {i}")
'''


def _cpu_ms_per_click(script: Path, elements: int) -> float:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.address", "127.0.0.1", *STREAMLIT_FLAGS],
        env=dict(os.environ, ELEMENTS=str(elements)), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(f"{url}/_stcore/health", server, "streamlit")

        async def clicks() -> float:
            tab = StreamlitTab(url, "element-cost")
            await tab.connect()
            await tab.open("")
            for _ in range(10):  # warm: imports, bytecode, caches
                await tab.click("Go")
            before = cpu_seconds(server.pid)
            for _ in range(CLICKS):
                await tab.click("Go")
            spent = cpu_seconds(server.pid) - before
            await tab.close()
            return spent * 1000 / CLICKS

        return asyncio.run(clicks())
    finally:
        stop_process(server)


def run() -> dict:
    """Two rows: the fixed cost of a run, and the cost of one element."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "app.py"
        script.write_text(_APP)
        empty = _cpu_ms_per_click(script, 0)
        full = _cpu_ms_per_click(script, ELEMENTS)
    per_element = (full - empty) / ELEMENTS
    return {"rows": [
        {"name": "Streamlit run of a one-button page, server CPU per click",
         "ours": f"{empty:.1f} ms", "baseline_value": f"{full:.1f} ms",
         "baseline": f"the same page with {ELEMENTS} st.markdown lines, same server flags",
         "ratio": round(empty / full, 3), "goal": "report"},
        {"name": "one element (st.markdown) in a run, server CPU", "ours": f"{per_element:.3f} ms",
         "baseline_value": f"{empty:.1f} ms",
         "baseline": "the fixed cost of a run, measured beside it",
         "ratio": round(per_element / empty, 3), "goal": "report"},
    ]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
