"""Rows handed to st.dataframe: an Arrow table when Arrow can hold them, else the rows."""

from __future__ import annotations

import pyarrow as pa

from playground.ui.components.tables import arrow_rows


def test_rows_become_an_arrow_table_with_their_columns_in_order():
    table = arrow_rows([{"who": "colleague", "answer": '"v2"', "bytes": 12},
                        {"who": "agent conflict-a", "answer": "412", "bytes": 0}])

    assert isinstance(table, pa.Table)
    assert table.column_names == ["who", "answer", "bytes"]
    assert table.to_pylist()[1] == {"who": "agent conflict-a", "answer": "412", "bytes": 0}


def test_rows_whose_column_mixes_types_are_left_for_pandas():
    rows = [{"value": 1}, {"value": "one"}]

    assert arrow_rows(rows) == rows
