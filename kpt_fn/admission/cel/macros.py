"""The comprehension macros: all, exists, exists_one, map, filter (cel-go v0.26.0 parser/macro.go), their
two-variable forms and transformList/transformMap/transformMapEntry (ext/comprehensions.go, enabled
by the API server since 1.32), and optMap/optFlatMap (the optional library).

Each is evaluated directly rather than as cel-go's comprehension, with the same results, error
absorption and cost: the cost charged per element is what cel-go's expansion of the macro counts
(its loop condition, its accumulator step and the accumulator's reads), so that a policy near the
per-call limit fails here when it fails in the API server.
"""

from __future__ import annotations

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.runtime import LIST_CREATE_COST, MAP_CREATE_COST, NONE, Optional, map_get, no_overload
from kpt_fn.admission.cel.values import EvalError, Unknown

_MISSING = object()


def _pairs(coll, two):
    """What a comprehension ranges over: (index, element) of a list, (key, value) of a map."""
    t = type(coll)
    if t is list or t is tuple:
        return list(enumerate(coll)) if two else [(x, None) for x in coll]
    if t is dict:
        return list(coll.items()) if two else [(k, None) for k in coll]
    raise EvalError(f"expression of type '{runtime.type_name(coll)}' cannot be range of a comprehension "
                    "(must be list, map, or dynamic)")


def compile_macro(compiler, node, scope):
    _, name, target_node, variables, args = node
    target = compiler.compile(target_node, scope)
    inner = scope | frozenset(variables)
    body = [compiler.compile(a, inner) for a in args]
    two = len(variables) == 2
    first = variables[0]
    second = variables[1] if two else None

    if name in ("optMap", "optFlatMap"):
        return _opt_map(name, target, first, body[0])
    if name == "sortBy":
        return _sort_by(target, first, body[0])

    def bind(r, k, v):
        r.vars[first] = k
        if two:
            r.vars[second] = v

    def run_with(step):
        def macro(r):
            coll = target(r)
            if type(coll) is Unknown:
                return coll
            saved = (r.vars.get(first, _MISSING), r.vars.get(second, _MISSING) if two else _MISSING)
            try:
                return step(r, _pairs(coll, two))
            finally:
                for var, old in zip((first, second), saved):
                    if var is None:
                        continue
                    if old is _MISSING:
                        r.vars.pop(var, None)
                    else:
                        r.vars[var] = old
        return macro

    pred = body[0]
    if name in ("all", "exists"):
        decisive = name == "exists"
        # the loop condition (@not_strictly_false(__result__), negated for exists) and the step's read
        # of the accumulator
        condition = 2 if name == "all" else 3

        def quantifier(r, pairs):
            err = None
            unknown = None
            for index, (k, v) in enumerate(pairs):
                r.charge(condition + 1)
                bind(r, k, v)
                try:
                    result = pred(r)
                except EvalError as exc:
                    if exc.message == runtime.COST_EXCEEDED:
                        raise
                    err = err or exc
                    continue
                if result is decisive:
                    # cel-go evaluates the loop condition once more before it stops, if elements remain
                    r.charge(1 + (condition if index < len(pairs) - 1 else 0))
                    return decisive
                if type(result) is Unknown:
                    unknown = result
                elif result is not (not decisive):
                    err = err or no_overload()
            r.charge(1)
            if unknown is not None:
                return unknown
            if err is not None:
                raise err
            return not decisive
        return run_with(quantifier)

    if name == "exists_one" or name == "existsOne":
        def exists_one(r, pairs):
            count = 0
            for k, v in pairs:
                bind(r, k, v)
                result = pred(r)
                if result is True:
                    count += 1
                    r.charge(2)
                elif result is False:
                    r.charge(1)
                elif type(result) is Unknown:
                    return result
                else:
                    raise no_overload()
            r.charge(2)
            return count == 1
        return run_with(exists_one)

    if name == "filter":
        def filter_(r, pairs):
            r.charge(LIST_CREATE_COST)
            out = []
            for k, v in pairs:
                bind(r, k, v)
                keep = pred(r)
                if keep is True:
                    out.append(k)
                    r.charge(3 + LIST_CREATE_COST)
                elif keep is False:
                    r.charge(1)
                elif type(keep) is Unknown:
                    return keep
                else:
                    raise no_overload()
            r.charge(1)
            return out
        return run_with(filter_)

    keep = body[0] if len(body) == 2 else None
    transform = body[-1]

    if name in ("map", "transformList"):
        def map_(r, pairs):
            r.charge(LIST_CREATE_COST)
            out = []
            for k, v in pairs:
                bind(r, k, v)
                chosen = _chosen(keep, r)
                if chosen is False:
                    r.charge(1)
                    continue
                if chosen is not True:
                    return chosen
                out.append(transform(r))
                r.charge(2 + LIST_CREATE_COST)
            r.charge(1)
            return out
        return run_with(map_)

    if name in ("transformMap", "transformMapEntry"):
        entry = name == "transformMapEntry"

        def transform_map(r, pairs):
            r.charge(MAP_CREATE_COST)
            out = {}
            for k, v in pairs:
                bind(r, k, v)
                chosen = _chosen(keep, r)
                if chosen is False:
                    r.charge(1)
                    continue
                if chosen is not True:
                    return chosen
                value = transform(r)
                # cel.@mapInsert(__result__, k, value): the call and its reads of the accumulator and k
                r.charge(2 if entry else 3)
                if entry:
                    if type(value) is not dict:
                        raise no_overload()
                    for ek, ev in value.items():
                        if map_get(out, ek)[0]:
                            raise EvalError(f"insert failed: key {ek} already exists")
                        out[ek] = ev
                else:
                    out[k] = value
            r.charge(1)
            return out
        return run_with(transform_map)

    raise EvalError(f"unknown macro {name}")


def _chosen(keep, r):
    """The filter of map, transformList and transformMap on the bound element: True (also without a
    filter), False, or an Unknown for the macro to return."""
    if keep is None:
        return True
    chosen = keep(r)
    if chosen is True or chosen is False or type(chosen) is Unknown:
        return chosen
    raise no_overload()


def _opt_map(name, target, var, body):
    def opt_map(r):
        opt = target(r)
        if type(opt) is not Optional:
            raise no_overload(name)
        if not opt.present:
            return NONE
        saved = r.vars.get(var, _MISSING)
        r.vars[var] = opt.value
        try:
            result = body(r)
        finally:
            if saved is _MISSING:
                r.vars.pop(var, None)
            else:
                r.vars[var] = saved
        if name == "optMap":
            return Optional(result, True)
        if type(result) is not Optional:
            raise no_overload(name)
        return result
    return opt_map


def _sort_by(target, var, key):
    """ext.Lists' sortBy: `list.sortBy(e, key)` is `@sortByAssociatedKeys(list, list.map(e, key))`."""
    from kpt_fn.admission.cel.library import lists

    def sort_by(r):
        items = target(r)
        if type(items) not in (list, tuple):
            raise no_overload("sortBy")
        saved = r.vars.get(var, _MISSING)
        keys = []
        try:
            r.charge(LIST_CREATE_COST)
            for x in items:
                r.vars[var] = x
                keys.append(key(r))
                r.charge(2 + LIST_CREATE_COST)
        finally:
            if saved is _MISSING:
                r.vars.pop(var, None)
            else:
                r.vars[var] = saved
        result = lists.sort_by_keys(items, keys)
        r.charge(lists.FUNCTIONS_COST_SORT_BY([items, keys], result))
        return result
    return sort_by
