"""Two replicas behind nginx on one PostgreSQL database: a room survives losing a replica.

Started as ``make workshop`` starts them (deploy/workshop.py: the ticket API, the replicas,
Debian's nginx), driven through nginx by two tabs speaking Streamlit's websocket protocol. One
replica is killed: the tab on the other keeps working; the tab whose replica died reconnects
through nginx to the live one and, with its room in the URL, finds its thread and resumes it.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
from pathlib import Path

import pytest

from bench.room import StreamlitTab
from deploy.workshop import start_room
from playground.server_process import free_port
from tests import postgres

pytestmark = [
    pytest.mark.replicas,
    pytest.mark.skipif(not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()),
                       reason="nginx is not installed (bash .ci/run installs nginx-light)"),
]


@pytest.fixture
def room(tmp_path):
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as url, \
            start_room(replicas=2, port=free_port(), database=url, home=tmp_path) as room:
        yield room


def _tabs_on_two_replicas(room) -> tuple[StreamlitTab, StreamlitTab]:
    """Two tabs whose sticky cookies send them to different replicas."""
    first = StreamlitTab(room.url, f"survive-{secrets.token_hex(3)}")
    first.load()
    for _ in range(40):
        second = StreamlitTab(room.url, f"survive-{secrets.token_hex(3)}")
        if second.load() != first.replica:
            return first, second
    pytest.fail("nginx sent 40 new tabs to the same replica: stickiness hashes nothing")


async def _turn(tab: StreamlitTab) -> None:
    await tab.connect()
    await tab.open("agent")
    await tab.click("Run turn")
    assert any("waiting for the user" in text for text in tab.last.texts), tab.last.texts


def test_a_room_keeps_working_when_a_replica_dies(room):
    survivor, orphan = _tabs_on_two_replicas(room)

    async def scenario() -> None:
        await asyncio.gather(_turn(survivor), _turn(orphan))
        dead = next(r for r in room.replicas if orphan.replica.endswith(f":{r.port}"))
        dead.kill()

        await survivor.click("Resume")  # its own replica is untouched
        assert any('resumed with ticket t7: priority is high at "v2"' in text
                   for text in survivor.last.texts), survivor.last.texts

        await orphan.close()  # the browser notices and reconnects, through nginx
        assert orphan.load() != f"127.0.0.1:{dead.port}"
        await orphan.connect()
        await orphan.open("history")
        assert any(" checkpoints · " in text for text in orphan.last.texts), orphan.last.texts
        await orphan.open("agent")
        await orphan.click("Resume")  # the paused turn, read back from Postgres
        assert any("resumed with ticket t7" in text for text in orphan.last.texts), \
            orphan.last.texts
        await survivor.close()
        await orphan.close()

    asyncio.run(scenario())
