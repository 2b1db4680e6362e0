"""The function run as the command line runs it: the functionConfig object parsed once at the door
(kpt_fn.config.parse, as kpt_fn.cli.plain and kpt_fn.cli.krm do), then `function.run` with that
Parsed value. `function.run` itself takes only the parsed config: a test that hands it the raw
object fails loudly, so every test that starts from a functionConfig object comes through here."""

from __future__ import annotations

from kpt_fn import config, function


def run_with(items: list, function_config, door: function.Door = function.Door()) -> function.Outcome:
    """`function.run(items, config.parse(function_config), door)`: `function_config` is the object
    (an ExpandTrainJobs, a ConfigMap, {} or None for none), as a client hands it over."""
    return function.run(items, config.parse(function_config), door)
