"""What a notebook page shows (actuarial.pages): errors as their users get them."""

import pytest

from actuarial import MemberDataError, evaluate, pages


def negative_service():
    member = {
        "member_id": "A-7",
        "birth_date": "1950-05-10",
        "entry_date": "1992-01-15",
        "separation_date": "2015-05-10",
        "credited_service": -2.5,
        "average_compensation": 40_000.0,
        "group": "general",
        "refunded": False,
    }
    return evaluate(member, None)


def test_show_error_prints_the_message_the_user_gets(capsys):
    shown = pages.show_error(MemberDataError, r"must be >= 0 \(got -2\.5\)", negative_service)
    assert shown is None  # nothing more for the notebook cell to display
    assert capsys.readouterr().out == (
        "MemberDataError: member row 1 (member 'A-7'): 'credited_service' must be >= 0 (got -2.5)\n"
    )


def test_expect_error_returns_the_error_and_prints_nothing(capsys):
    error = pages.expect_error(ValueError, "must be >= 0", negative_service)
    assert isinstance(error, MemberDataError)
    assert capsys.readouterr().out == ""


def test_a_different_message_fails_with_both_the_pattern_and_the_message():
    with pytest.raises(AssertionError, match=r"does not match 'got -3'.*\(got -2\.5\)"):
        pages.show_error(MemberDataError, "got -3", negative_service)


def test_no_error_at_all_fails():
    with pytest.raises(AssertionError, match="sum raised no ValueError"):
        pages.expect_error(ValueError, "", sum, [1, 2])


def test_another_error_type_goes_through_unchanged():
    with pytest.raises(ZeroDivisionError):
        pages.show_error(ValueError, "", lambda: 1 / 0)


# ----------------------------------------------------------------- tables for people
def a_table():
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(
        {
            "member_id": ["$x^2$", "<b>"],
            "monthly_amount": [48_000.0, np.nan],
            "reduction_factor": [0.123456789, 1.0],
            "members": [1, 20_000],
            "eligible": [True, False],
            "start_date": [pd.Timestamp("2020-01-02"), pd.NaT],
            "share": [0.755, np.nan],
        },
        index=pd.Index(["one", "two"], name="case"),
    )
    return pages.table(
        frame,
        "Caption <i>",
        money=["monthly_amount"],
        factors=["reduction_factor"],
        decimals=6,
        percent=["share"],
        percent_decimals=1,
    )


def test_a_table_formats_each_column_for_people_and_drops_the_index():
    table = a_table()
    assert table.columns[0] == "member_id"  # no index unless asked for
    assert table.rows == (
        ("$x^2$", "48,000.00", "0.123457", "1", "yes", "2020-01-02", "75.5%"),
        ("<b>", "", "1.000000", "20,000", "no", "", ""),
    )
    assert table.numeric == (False, True, True, True, False, False, True)
    assert repr(table).splitlines()[0] == "Caption <i>"
    assert "nan" not in repr(table).lower() and "NaT" not in repr(table)


def test_a_value_that_rounds_to_zero_is_never_shown_negative():
    """A difference of equal sums can come out a hair below zero, by how the processor's
    numpy adds them: it shows as 0, the same on every machine."""
    import pandas as pd

    tiny = -1e-9
    frame = pd.DataFrame({"amount": [tiny], "factor": [tiny], "share": [tiny], "other": [tiny]})
    table = pages.table(frame, "c", money=["amount"], factors=["factor"], percent=["share"])
    assert table.rows == (("0.00", "0.0000", "0.00%", "0.00"),)
    assert pages.format_money(-0.004) == "0.00" and pages.format_money(-0.005) == "-0.01"


def test_dollars_put_the_sign_before_the_dollar_sign():
    # Before, a negative total subsidy was printed "$-210,990.18".
    assert pages.format_usd(-210_990.184) == "-$210,990.18"
    assert pages.format_usd(48_000) == "$48,000.00"
    assert pages.format_usd(-0.004) == "$0.00" and pages.format_usd(None) == ""


def test_a_table_in_html_escapes_data_aligns_and_has_its_caption():
    page = a_table()._repr_html_()
    assert "Caption &lt;i&gt;</caption>" in page
    assert '<td style="text-align: left">&lt;b&gt;</td>' in page
    assert '<td style="text-align: left">$x^2$</td>' in page
    assert '<td style="text-align: right">48,000.00</td>' in page
    assert "<b>" not in page


def test_the_index_is_shown_when_asked_and_unknown_columns_are_refused():
    import pandas as pd

    frame = pd.DataFrame({"factor": [0.5]}, index=pd.Index(["55y0m"], name="age"))
    assert pages.table(frame, "f", index=True, factors=["factor"]).rows == (("55y0m", "0.5000"),)
    with pytest.raises(KeyError, match=r"'money' column 'amount' is not in the table"):
        pages.table(frame, "f", money=["amount"])


def test_prose_fills_the_numbers_and_leaves_tex_braces_alone():
    written = pages.prose(
        r"\\(S \ge [[service_a]]\\), \text{at least} [[minimum]]", service_a=10, minimum="$500"
    )
    assert written.data == r"\\(S \ge 10\\), \text{at least} $500"
    with pytest.raises(KeyError, match=r"no value for \[\[age_z\]\]"):
        pages.prose("[[age_z]]", age_a="65")


def test_a_count_of_one_takes_the_singular():
    assert pages.format_count(1, "row") == "1 row"
    counts = [pages.format_count(n, "row") for n in (0, 2, 1_000)]
    assert counts == ["0 rows", "2 rows", "1,000 rows"]
