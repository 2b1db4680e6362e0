"""Instruction counts of the runs the targets time, for telling the code from the machine.

The timings of bench.run move with the host's load by more than most changes to the code (the same
function at 2,000 TrainJobs takes 2.0-3.0 s within one run; docs/benchmarks.md, runs 19-24), so
that one run cannot say whether a change made the function faster. The number of instructions a
process executes does not depend on the neighbours: valgrind's callgrind counts them. This compares
the image-like installs (bench.run.image_like_install) of two revisions, or of a revision and the
working tree, on the runs of the targets: the interpreter alone, the KRM function on one TrainJob
(the start-up target) and `render` of the Argo CD apps of 1 and 10 TrainJobs.

    python -m bench.instructions                    # the working tree alone
    python -m bench.instructions --vs e10aa21      # a git revision beside it, with the ratio

Instructions are not time (memory traffic and the CPU's caches are not in them), so the targets are
still timed with bench.run; this only says which of two codes does more work, and where a change
went. Under valgrind a run takes about fifty times as long: seconds for these small runs.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import generate, run  # noqa: E402

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def count(cmd: list, stdin: str | None = None, cwd: str | None = None) -> int:
    """Instructions (callgrind's Ir) the command executes, its children not followed."""
    with open(stdin or os.devnull, "rb") as f:
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                              stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd,
                              env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), text=True)
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no count for {' '.join(cmd)}:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def workloads(workdir: str) -> dict:
    """name -> (arguments after the console script, stdin file, working directory); None for
    `python -c pass`."""
    one = os.path.join(workdir, "input-1.yaml")
    with open(one, "wb") as f:
        f.write(generate.to_yaml(generate.generate(1)))
    out = {"python -c pass": None, "KRM, 1 TrainJob (start-up)": ([], one, None)}
    for n in run.ARGOCD_SIZES:
        app = os.path.join(workdir, f"argocd-app-{n}")
        generate.write_app(generate.generate(n), app)
        out[f"render, Argo CD app of {n}"] = (["render"], None, app)
    return out


def measure(script: str, loads: dict) -> dict:
    python = str(Path(script).with_name("python"))
    counts = {}
    for name, load in loads.items():
        if load is None:
            counts[name] = count([python, "-c", "pass"])
        else:
            args, stdin, cwd = load
            counts[name] = count([python, script, *args], stdin, cwd)
    return counts


def _checkout(revision: str, into: str) -> str:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", into, revision],
                   check=True, capture_output=True)
    return into


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__.splitlines()[0])
    p.add_argument("--vs", metavar="REVISION", help="a git revision to compare the working tree with")
    p.add_argument("--python", help="the interpreter of the image-like installs (default: this one)")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind not found: install it (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="expand-trainjobs-instructions-") as workdir:
        loads = workloads(workdir)
        sides = {"working tree": run.image_like_install(os.path.join(workdir, "new"), args.python)[0]}
        tree = _checkout(args.vs, os.path.join(workdir, "old-tree")) if args.vs else None
        try:
            if tree is not None:
                sides[args.vs] = run.image_like_install(os.path.join(workdir, "old"), args.python, Path(tree))[0]
            results = {side: measure(script, loads) for side, script in sides.items()}
        finally:
            if tree is not None:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", tree], capture_output=True)
    names = list(sides)
    print(f"{'instructions (millions)':<32}" + "".join(f"{n:>16}" for n in names) + ("     new / old" if args.vs else ""))
    for load in loads:
        row = [results[n][load] for n in names]
        line = f"{load:<32}" + "".join(f"{v / 1e6:>16.1f}" for v in row)
        if args.vs:
            line += f"{row[0] / row[1]:>14.3f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
