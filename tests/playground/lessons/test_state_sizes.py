"""The byte table: the ways of carrying state, measured on a real SqliteSaver and the real API."""

from __future__ import annotations

import os

import pytest

from playground.lessons.state_sizes import (
    APPROACHES,
    MESSAGE_APPROACHES,
    compare,
    format_table,
)

IDS, WHOLE, MESSAGES, EXTERNAL = APPROACHES
CHAT, DELTA_CHAT = MESSAGE_APPROACHES
# The how-to's table, ids row: resume loads and stored, after 1 and 10 turns.
HOWTO_IDS = {1: (676, 1566), 10: (672, 21618)}


@pytest.fixture
def measures(client):
    client.reset()
    return {(m.approach, m.turns): m for m in compare(lambda: client.get_ticket("t7"), [1, 10])}


def test_ids_row_lands_within_one_percent_of_the_howto(measures):
    for turns, (loads, stored) in HOWTO_IDS.items():
        measured = measures[(IDS, turns)]
        assert measured.resume_loads == pytest.approx(loads, rel=0.01)
        assert measured.stored == pytest.approx(stored, rel=0.01)


def test_whole_responses_grow_every_checkpoint_and_ids_do_not(measures, client):
    ticket_bytes = client.get_ticket("t7").size
    assert measures[(WHOLE, 1)].resume_loads > ticket_bytes
    # Ten copies in the newest checkpoint, and the total grows with the square of the turns.
    assert measures[(WHOLE, 10)].resume_loads > 9 * ticket_bytes
    assert measures[(WHOLE, 10)].stored > 1_000_000
    assert abs(measures[(IDS, 10)].resume_loads - measures[(IDS, 1)].resume_loads) < 20


def test_message_history_resends_every_response_and_external_store_stays_one_row(measures):
    assert measures[(MESSAGES, 10)].resume_loads == pytest.approx(
        10 * measures[(MESSAGES, 1)].resume_loads, rel=0.01
    )
    assert measures[(EXTERNAL, 1)].stored == measures[(EXTERNAL, 10)].stored < 100


def test_a_delta_channel_stores_a_chat_in_a_fraction_of_the_whole_lists_bytes(measures):
    # add_messages stores the whole list in every checkpoint: its total grows with the square
    # of the turns. On a DeltaChannel (no snapshot within 10 turns) each checkpoint keeps only
    # its turn's writes, and a resume loads the writes since the empty start.
    assert measures[(DELTA_CHAT, 10)].stored < measures[(CHAT, 10)].stored / 3
    assert measures[(DELTA_CHAT, 1)].stored < measures[(CHAT, 1)].stored * 1.2
    assert measures[(DELTA_CHAT, 10)].resume_loads > 9 * measures[(DELTA_CHAT, 1)].resume_loads
    assert measures[(DELTA_CHAT, 10)].resume_loads < measures[(CHAT, 10)].resume_loads * 1.3


def test_same_seed_gives_the_same_table(client):
    client.reset()

    def fetch():
        return client.get_ticket("t7")

    first = compare(fetch, [1, 3], seed=7)
    second = compare(fetch, [1, 3], seed=7)

    assert first == second


def test_turns_must_be_positive(client):
    with pytest.raises(ValueError, match="positive"):
        compare(lambda: client.get_ticket("t7"), [0])


def test_table_prints_every_approach_and_the_ticket_size(measures):
    table = format_table(list(measures.values()), 7193)

    for approach in (*APPROACHES, *MESSAGE_APPROACHES):
        assert approach in table
    assert "ticket t7 as one response: 7,193 bytes" in table


@pytest.mark.skipif(not os.environ.get("PLAYGROUND_TEST_DATABASE_URL"),
                    reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL)")
def test_postgres_rows_store_whole_responses_once_per_version(client):
    from playground.lessons.state_sizes import POSTGRES_APPROACHES

    client.reset()
    url = os.environ["PLAYGROUND_TEST_DATABASE_URL"]

    measures = {(m.approach, m.turns): m for m in compare(
        lambda: client.get_ticket("t7"), [1, 10], postgres_url=url)}

    pg_ids, pg_whole = POSTGRES_APPROACHES
    # Each version of the responses list is one blob, not a copy inside every checkpoint: the
    # total still grows with the square of the turns, but at well under half SQLite's bytes.
    assert measures[(pg_whole, 10)].stored < 0.6 * measures[(WHOLE, 10)].stored
    assert measures[(pg_whole, 10)].resume_loads > 9 * client.get_ticket("t7").size
    assert abs(measures[(pg_ids, 10)].resume_loads - measures[(pg_ids, 1)].resume_loads) < 20
