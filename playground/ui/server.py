"""Start the Streamlit playground as a server process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from playground.timetravel.source import is_postgres_url

APP = Path(__file__).parent / "app.py"


def serve(
    host: str = "127.0.0.1",
    port: int = 8501,
    api_url: str | None = None,
    checkpoints: str | None = None,
    database: str | None = None,
    app_env: dict[str, str] | None = None,
) -> int:
    """Run ``streamlit run`` on the playground until it is stopped; return its exit code.

    Settings reach the app through environment variables, which every Streamlit session reads;
    ``app_env`` names the graph to run (``playground.apps.launch``).
    """
    env = {**os.environ, **(app_env or {})}
    if api_url:
        env["PLAYGROUND_API_URL"] = api_url
    if checkpoints and is_postgres_url(checkpoints):
        database = database or checkpoints
    elif checkpoints:
        env["PLAYGROUND_CHECKPOINTS"] = checkpoints
    if database:
        env["PLAYGROUND_DATABASE_URL"] = database
    argv = [
        sys.executable, "-m", "streamlit", "run", str(APP),
        "--server.address", host,
        "--server.port", str(port),
        "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
        # A workshop tool, not an app to deploy: no "Deploy" button in the toolbar.
        "--client.toolbarMode", "minimal",
    ]
    print(f"playground on http://{host}:{port} (Ctrl+C stops it)", flush=True)
    try:
        return subprocess.call(argv, env=env)
    except KeyboardInterrupt:
        return 0
