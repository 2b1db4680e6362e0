import pytest

from kpt_fn.admission.cel.library import formats

from unit.admission.cel.library.evalcase import evaluate


@pytest.mark.parametrize("text, present", [
    ("format.dns1123Label().validate('my-name')", False), ("format.dns1123Label().validate('My_Name')", True),
    ("format.dns1123LabelPrefix().validate('my-name-')", False), ("format.uuid().validate('not-a-uuid')", True),
    ("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')", False), ("format.byte().validate('aGk=')", False),
    ("format.date().validate('2024-02-30')", True), ("format.datetime().validate('2024-02-03T00:00:00Z')", False),
    ("format.uri().validate('https://example.com')", False), ("format.uri().validate('nope')", True),
    ("format.labelValue().validate('')", False),
])
def test_validate(text, present):
    assert evaluate(text).present is present


def test_named_and_cost():
    assert evaluate("format.named('nope').hasValue()") is False
    assert evaluate("format.named('uuid').value() == format.uuid()") is True
    fmt = formats.CONSTANT_FORMATS["dns1123Label"]
    assert formats._validate_cost([fmt, "a" * 19], None) == 2 * 8
    assert formats._mask_trailing_dash("ab-") == "aba"
