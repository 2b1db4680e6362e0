"""kpt_fn.yamlio's interface: every public name resolves, and the KRM-only modules load when asked."""

import subprocess
import sys

import pytest

import kpt_fn.yamlio as yamlio
from kpt_fn.yamlio import passthrough, stream


def test_every_public_name_resolves():
    for name in yamlio.__all__:
        assert getattr(yamlio, name) is not None, name


@pytest.mark.parametrize("name, module", [("freeze", stream), ("dump", stream), ("ListWriter", stream),
                                          ("PassThrough", passthrough), ("item_source", passthrough)])
def test_a_name_asked_later_is_its_module_own(name, module):
    assert getattr(yamlio, name) is getattr(module, name)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        yamlio.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        from kpt_fn.yamlio import no_such_name  # noqa: F401


def test_reading_and_writing_do_not_load_the_krm_only_modules():
    code = ("import sys; from kpt_fn.yamlio import load_all, dump_all; dump_all(load_all('a: 1'));"
            "print(sorted(m for m in ('kpt_fn.yamlio.stream', 'kpt_fn.yamlio.passthrough') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
