import pytest

from kpt_fn.admission.cel.library import timestamps

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    ("duration('1h30m') == duration('90m')", True), ("string(duration('1.5s'))", "1.5s"),
    ("string(duration('-1m'))", "-60s"), ("int(duration('1s'))", 1_000_000_000),
    ("duration('1h').getMinutes()", 60), ("duration('1500ms').getMilliseconds()", 500),
    ("string(timestamp('2024-02-29T12:30:00.5+01:00'))", "2024-02-29T11:30:00.5Z"),
    ("int(timestamp('1970-01-01T00:01:00Z'))", 60), ("timestamp(60) == timestamp('1970-01-01T00:01:00Z')", True),
    ("timestamp('2024-01-01T00:00:00Z') + duration('24h') == timestamp('2024-01-02T00:00:00Z')", True),
    ("timestamp('2024-01-02T00:00:00Z') - timestamp('2024-01-01T00:00:00Z') == duration('24h')", True),
    ("timestamp('2024-03-10T10:00:00Z').getFullYear()", 2024), ("timestamp('2024-03-10T10:00:00Z').getMonth()", 2),
    ("timestamp('2024-03-10T10:00:00Z').getDate()", 10), ("timestamp('2024-03-10T10:00:00Z').getDayOfMonth()", 9),
    ("timestamp('2024-03-10T10:00:00Z').getDayOfWeek()", 0), ("timestamp('2024-03-10T10:00:00Z').getDayOfYear()", 69),
    ("timestamp('2024-03-10T10:00:00Z').getHours('+02:00')", 12),
    ("timestamp('2024-03-10T10:00:00Z').getHours('Europe/Paris')", 11),
    ("timestamp('2024-03-10T10:00:00.250Z').getMilliseconds()", 250),
    ("duration('1s') < duration('2s')", True),
])
def test_durations_and_timestamps(text, expected):
    assert evaluate(text) == expected


@pytest.mark.parametrize("text, message", [
    ("duration(x)", "type conversion error from 'string' to 'google.protobuf.Duration'"),
    ("timestamp(x)", "type conversion error from 'string' to 'google.protobuf.Timestamp'"),
    ("duration('1h') + duration('2562047h')", "duration overflow"),
    ("timestamp('0001-01-01T00:00:00Z') - duration('1s')", "timestamp overflow"),
])
def test_errors(text, message):
    assert failure(text, x="nonsense") == message


@pytest.mark.parametrize("text", ["1x", "", "-", ".s", "1"])
def test_go_refuses_these_durations(text):
    assert timestamps.duration_error(text)


@pytest.mark.parametrize("text, ns", [("0", 0), ("1.5h", 5_400_000_000_000), ("+3ms", 3_000_000), ("1h2m3s4ms5us6ns", 3723004005006),
                                     ("-.5s", -500_000_000), ("1µs", 1000)])
def test_go_durations(text, ns):
    assert timestamps.parse_duration(text).ns == ns


def test_timestamp_text():
    assert timestamps.timestamp_error("2024-13-01T00:00:00Z")
    assert not timestamps.timestamp_error("2024-01-01T00:00:00.123456789Z")
    assert repr(timestamps.parse_timestamp("2024-01-01T00:00:00Z")) == "timestamp('2024-01-01T00:00:00Z')"
