import pytest

from kpt_fn.admission.cel import values


def test_eval_error_as_the_api_server_words_it():
    err = values.EvalError("no such key: team")
    assert str(err) == "no such key: team"
    # k8s.io/apiserver@v0.36.3 pkg/admission/plugin/cel/activation.go Evaluate
    assert err.for_expression("object.metadata.labels.team == 'a'") == \
        "expression 'object.metadata.labels.team == 'a'' resulted in error: no such key: team"


def test_uint_is_an_int_kept_apart():
    assert repr(values.UInt(3)) == "3u" and values.UInt(3) == 3 and type(values.UInt(3)) is not int


def test_program_run_and_evaluate():
    program = values.Program("1", "int", lambda activation, limit: (1, 0))
    assert program.evaluate({}) == 1
    assert program.run({}) == values.Evaluation(1, 0)


def test_records_are_immutable_and_compare_by_their_fields():
    unknown = values.Unknown("the authorizer")
    assert unknown == values.Unknown(reason="the authorizer") and hash(unknown) == hash(values.Unknown("the authorizer"))
    assert repr(values.Evaluation(1, 2)) == "Evaluation(value=1, cost=2)"
    with pytest.raises(AttributeError):
        unknown.reason = "x"
    with pytest.raises(TypeError):
        values.CompileError("only the expression")
