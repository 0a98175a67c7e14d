"""Text that is not ours, on a page: escaped in prose, shown as it is in code."""

from playground.ui.markup import md_code, md_escape


def test_a_path_in_a_code_span_shows_no_backslashes():
    path = "/tmp/pytest_of_root/my_app.sqlite"

    assert md_code(f"playground threads {path}") == f"`playground threads {path}`"
    assert "\\" in md_escape(path)  # what the span avoids: escapes show literally in code


def test_a_code_span_holding_backticks_gets_a_longer_fence_and_stays_one_line():
    assert md_code("a `b` c") == "``a `b` c``"
    assert md_code("`x`") == "`` `x` ``"
    assert md_code("two\nlines") == "`two lines`"


def test_a_code_span_is_cut_to_its_limit():
    assert md_code("abcdef", limit=4) == "`abc…`"
