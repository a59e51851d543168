import datetime

from dates import add_months


def test_plain():
    assert add_months(datetime.date(2024, 3, 15), 2) == datetime.date(2024, 5, 15)


def test_year_wrap():
    assert add_months(datetime.date(2024, 11, 1), 3) == datetime.date(2025, 2, 1)


def test_clamps_to_month_end():
    assert add_months(datetime.date(2024, 1, 31), 1) == datetime.date(2024, 2, 29)
    assert add_months(datetime.date(2023, 1, 31), 1) == datetime.date(2023, 2, 28)
