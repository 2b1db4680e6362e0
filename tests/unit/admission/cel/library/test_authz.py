import pytest

from kpt_fn.admission import cel
from kpt_fn.admission.cel.library import authz

DECLS = {"authorizer": cel.AUTHORIZER_TYPE, "authorizer.requestResource": cel.RESOURCE_CHECK_TYPE}


def run(text):
    program = cel.compile(text, DECLS)
    assert isinstance(program, cel.Program), program
    resource = authz.resource_check({"group": "batch", "resource": "jobs", "namespace": "team-a"})
    return program.run({"authorizer": authz.authorizer(), "authorizer.requestResource": resource})


def test_a_check_is_unknown_offline_and_costs_what_the_api_server_charges():
    result = run("authorizer.group('').resource('pods').namespace('a').check('create').allowed()")
    assert isinstance(result.value, cel.Unknown)
    assert "verb='create'" in result.value.reason and "resource='pods'" in result.value.reason
    assert result.cost == 1 + 1 + 1 + 1 + 350_000 + 1


def test_an_unknown_decision_is_absorbed_where_cel_absorbs_it():
    assert run("false && authorizer.path('/healthz').check('get').allowed()").value is False
    assert isinstance(run("authorizer.requestResource.check('delete').allowed() || false").value, cel.Unknown)


def test_three_checks_exceed_the_per_call_limit():
    text = " && ".join(["authorizer.path('/a').check('get').allowed()"] * 3)
    with pytest.raises(cel.EvalError, match="cost limit exceeded"):
        run(text)


def test_builders():
    with pytest.raises(cel.EvalError, match="path must not be empty"):
        run("authorizer.path('').check('get').allowed()")
    with pytest.raises(cel.EvalError, match="invalid service account namespace"):
        run("authorizer.serviceAccount('Bad_NS', 'sa').path('/x').check('get').allowed()")
    assert run("authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('get').reason()").value.reason
    assert run("authorizer.group('').resource('pods').labelSelector('a=b').check('list').errored()").cost > 350_000
    assert authz._selector_cost([None, "x" * 71], None) == 1818
    assert authz.Check("a", {}).describe() == "cluster scope"
