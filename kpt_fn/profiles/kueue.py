"""The `kueue` profile: a JobSet that Kueue's JobSet integration manages in a cluster without the
Trainer controller. An adapter: the behaviour itself is kpt_fn.kueue's (docs/kueue.md)."""

from __future__ import annotations

from kpt_fn import kueue
from kpt_fn.profiles.controller import Controller


class Kueue(Controller):
    name = kueue.KUEUE

    def __init__(self, cfg, items: list, queues: dict):
        super().__init__(cfg, items, queues)
        self.queues = queues
        self.quotas = kueue.Quotas(items)  # ClusterQueues and LocalQueues among the items

    def before_engine(self, trainjob: dict) -> dict:
        return kueue.engine_view(trainjob, self.name)

    def after_engine(self, trainjob: dict, objects: list, problems: list) -> tuple[list, list]:
        objects, more = kueue.prepare(trainjob, objects, self.name, self.queues, self.quotas)
        return objects, kueue.engine_problems(problems, self.name) + more

    def check(self, trainjob: dict, jobset: dict) -> list:
        problems = super().check(trainjob, jobset)
        if self.quotas:
            queue, _ = kueue.queue_for(trainjob, self.queues, self.quotas)
            problems += kueue.quota_problems(trainjob, jobset, self.quotas, queue or "")
        return problems
