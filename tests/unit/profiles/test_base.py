"""kpt_fn.profiles.base: every hook of the interface is the controller's behaviour, changing nothing."""

from __future__ import annotations

from kpt_fn.config import FunctionConfig
from kpt_fn.problems import Problem
from kpt_fn.profiles.base import Profile


def test_the_hooks_change_nothing():
    cfg = FunctionConfig()
    profile = Profile(cfg, [], {})
    trainjob, objects, problems = {"kind": "TrainJob"}, [{"kind": "JobSet"}], [Problem("p")]
    assert profile.cfg is cfg
    assert profile.before_engine(trainjob) is trainjob
    got = profile.after_engine(trainjob, objects, problems)
    assert got[0] is objects and got[1] is problems
    assert profile.check(trainjob, objects[0]) == [] and profile.created(objects[0]) is objects[0]
    assert profile.unrendered(trainjob, objects) == []


def test_a_profile_overrides_only_what_it_changes():
    class Tagging(Profile):
        def after_engine(self, trainjob, objects, problems):
            return [{**o, "tagged": True} for o in objects], problems

    profile = Tagging(FunctionConfig(), [], {})
    tj = {"kind": "TrainJob"}
    assert profile.before_engine(tj) is tj
    assert profile.after_engine(tj, [{"kind": "JobSet"}], []) == ([{"kind": "JobSet", "tagged": True}], [])
