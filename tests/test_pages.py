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
        "MemberDataError: member row 1 (member 'A-7'): 'credited_service' must be >= 0 "
        "(got -2.5)\n"
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
