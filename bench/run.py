"""Measure expand-trainjobs against the floor of its own I/O, in one run.

For each repository size N (bench/generate.py), median of --repeat runs:

  function    the console script on the whole ResourceList, as kpt runs it (a child process, stdin
              from a file, stdout to a file; validation on, the default): time and peak RSS;
  floor       PyYAML's C loader parsing the same input plus its C dumper emitting the function's own
              output (parsed before the clock starts), in one process, in the same run;
  in-process  kpt_fn.cli.krm.process on the same bytes, timed inside a fresh interpreter (no start-up);

and once per run:

  start-up    the console script on a ResourceList with one TrainJob, against `python -c pass`;
  growth      time and peak memory per 10x TrainJobs between consecutive sizes;
  validation  generated JobSets per second through kpt_fn.validation (check_object and
              check_jobset_webhook), YAML parsing included (the kubeconform comparison).

Every measurement runs in its own fresh interpreter, repetitions outermost and sizes inside, so that
changes in the machine's load hit every figure alike. Each records wall time and CPU time (user +
system); ratios use --clock (default cpu: on a shared machine CPU time is the stable estimate of what
wall time is on an idle one; both are in the JSON).

It prints a table and writes the numbers as JSON (default bench/results/latest.json). Nothing here
asserts on time: targets are reported as met or not, and the exit code is 0 either way.

    python -m bench.run                       # N = 200 and 2,000, 5 repetitions
    python -m bench.run --sizes 200,2000,20000 --repeat 3
    python -m bench.run --quick               # N = 20 and 200, one repetition: does the harness work
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

from bench import generate

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "bench" / "results" / "latest.json"
DEFAULT_SIZES = (200, 2000)
QUICK_SIZES = (20, 200)
CLOCKS = ("cpu", "wall")

# The third targets ("ahead of the Go peer, without tricks", docs/benchmarks.md), on the 2-core reference machine.
# `render` of an N-TrainJob app / `kubectl kustomize` over its output, by N (the second targets had 1.0 for both).
TARGET_ARGOCD_RATIO = {1: 0.9, 10: 0.85}
TARGET_LEAN_FLOOR_RATIO = 0.9  # function time / lean PyYAML C floor at N = 2,000 (second targets: 1.0)
TARGET_GROWTH_TIME = 11.0  # time factor per 10x TrainJobs (linear: 10x, with a margin for noise)
TARGET_PEAK_RSS_20000 = 200 * 2**20  # peak RSS at N = 20,000 (second targets: 256 MiB)
# The first targets, still reported.
TARGET_FLOOR_RATIO = 2.5  # function time / YAML floor at N = 2,000
TARGET_STARTUP_RATIO = 4.0  # one-TrainJob run / `python -c pass`
TARGET_MEMORY_RATIO = 4.0  # peak RSS / (input + output bytes)
KUBECONFORM_JOBSETS_PER_S = 1400.0  # kubeconform on this machine, parsing included

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# Set by run() to the image-like install (image_like_install); None: the development install.
_COMMAND: list | None = None


def function_command() -> list:
    """The image-like install's console script if made, else the one next to this interpreter, else
    `python -m kpt_fn`."""
    if _COMMAND:
        return list(_COMMAND)
    script = Path(sys.executable).with_name("expand-trainjobs")
    if script.exists():
        return [str(script)]
    found = shutil.which("expand-trainjobs")
    return [found] if found else [sys.executable, "-m", "kpt_fn"]


def function_python() -> str:
    """The interpreter the function runs on (the image-like venv's, if made): the floors and the
    in-process runs use it too, so that every ratio compares code on one interpreter."""
    if _COMMAND:
        venv_python = Path(_COMMAND[0]).with_name("python")
        if venv_python.exists():
            return str(venv_python)
    return sys.executable


# Children are started from this small launcher, not from the benchmark process itself: on Linux a
# child's peak RSS starts at its parent's RSS at fork time (the old mm's high-water mark survives
# exec), so forking from the benchmark would inflate every reading.
_LAUNCHER = """
import json, os, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execv(cmd[0], cmd)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(out, "w") as f:
    json.dump({"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_bytes": usage.ru_maxrss * 1024,
               "exit_code": os.waitstatus_to_exitcode(status)}, f)
"""


def run_child(cmd: list, stdin_path: str | None, stdout_path: str, cwd: str | None = None) -> dict:
    """Wall time, CPU time (s), peak RSS (bytes), exit code and stderr of one child process."""
    stats_path = stdout_path + ".stats.json"
    with open(stdin_path or os.devnull, "rb") as fin, open(stdout_path, "wb") as fout:
        proc = subprocess.run(
            [sys.executable, "-S", "-c", _LAUNCHER, stats_path, *cmd],
            stdin=fin, stdout=fout, stderr=subprocess.PIPE, cwd=cwd or tempfile.gettempdir(),
            env={**os.environ, "PWD": cwd or tempfile.gettempdir()},
        )
    with open(stats_path) as f:
        stats = json.load(f)
    stats["stderr"] = proc.stderr.decode("utf-8", "replace")
    return stats


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _clocks(t0: float, c0: float) -> dict:
    return {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}


def floor_time(input_bytes: bytes, output_obj) -> dict:
    """Parse the input and emit the output with PyYAML's C loader and dumper alone: wall and CPU s."""
    t0, c0 = time.perf_counter(), time.process_time()
    yaml.load(input_bytes, Loader=_LOADER)
    yaml.dump(output_obj, Dumper=_DUMPER, sort_keys=False, default_flow_style=False, width=1 << 30, allow_unicode=True)
    return _clocks(t0, c0)


def lean_floor_time(input_bytes: bytes, output_obj) -> dict:
    """The floor with PyYAML used as well as it can be: no cyclic GC, the output dumped item by item
    (no node graph of the whole ResourceList). The function does both; this keeps the comparison honest."""
    gc.disable()
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        yaml.load(input_bytes, Loader=_LOADER)
        opts = dict(Dumper=_DUMPER, sort_keys=False, default_flow_style=False, width=1 << 30, allow_unicode=True)
        parts = []
        for k, v in output_obj.items():
            if isinstance(v, list) and len(v) > 1:
                parts.append(yaml.dump({k: v[:1]}, **opts))
                parts.extend(yaml.dump([x], **opts) for x in v[1:])
            else:
                parts.append(yaml.dump({k: v}, **opts))
        "".join(parts)
        return _clocks(t0, c0)
    finally:
        gc.enable()


def in_process_time(input_bytes: bytes) -> tuple[dict, str]:
    """kpt_fn.cli.krm.process on the bytes: (wall and CPU s, stdout)."""
    from kpt_fn.cli import krm

    t0, c0 = time.perf_counter(), time.process_time()
    try:
        stdout, _, _ = krm.process(input_bytes, base_dir=tempfile.gettempdir())
    except Exception as e:  # as the CLI does: an internal error becomes one error result
        from kpt_fn.yamlio import dump

        stdout = dump(krm.error_resource_list(f"internal error: {type(e).__name__}: {e}"))
    return _clocks(t0, c0), stdout


# The floor child parses the function's output before the clock starts, so while it loads the input
# it holds about what the function holds while it writes its output.
_FLOOR = """
import json, sys
sys.path.insert(0, sys.argv[3])
from bench.run import floor_time, lean_floor_time, _LOADER
import yaml
with open(sys.argv[1], "rb") as f:
    data = f.read()
with open(sys.argv[2], "rb") as f:
    out = yaml.load(f.read(), Loader=_LOADER)
print(json.dumps((lean_floor_time if sys.argv[4] == "lean" else floor_time)(data, out)))
"""
_IN_PROCESS = """
import json, sys
sys.path.insert(0, sys.argv[2])
from bench.run import in_process_time
import kpt_fn.cli.krm
with open(sys.argv[1], "rb") as f:
    data = f.read()
print(json.dumps(in_process_time(data)[0]))
"""


def _succeeded(stats: dict, what: str) -> dict:
    """run_child's `stats`, unless the child failed: then the run stops, rather than time a failure."""
    if stats["exit_code"] != 0:
        raise RuntimeError(f"{what} failed: {stats['stderr'][-2000:]}")
    return stats


def _timed_child(script: str, args: list, workdir: str) -> dict:
    """A Python child printing its own timing as JSON; with its peak RSS from the launcher."""
    out_path = os.path.join(workdir, "child-stdout.txt")
    stats = _succeeded(run_child([function_python(), "-c", script, *args], None, out_path), "benchmark child")
    with open(out_path) as f:
        inner = json.loads(f.read().strip().splitlines()[-1])
    return {**inner, "peak_rss_bytes": stats["peak_rss_bytes"]}


def summarize_results(output_obj) -> dict:
    """Error/warning counts of the function's results and the most frequent error messages."""
    rl = output_obj if isinstance(output_obj, dict) else {}
    results = [r for r in rl.get("results") or [] if isinstance(r, dict)]
    by_sev = Counter(r.get("severity") for r in results)
    errors = Counter()
    for r in results:
        if r.get("severity") == "error":
            # Messages name the object; group by the text before " (in " (the file suffix).
            errors[str(r.get("message", "")).split(" (in ")[0][:200]] += 1
    kinds = Counter(i.get("kind") for i in rl.get("items") or [] if isinstance(i, dict))
    return {
        "errors": by_sev.get("error", 0),
        "warnings": by_sev.get("warning", 0),
        "infos": by_sev.get("info", 0),
        "top_errors": [{"count": c, "message": m} for m, c in errors.most_common(8)],
        "output_kinds": dict(sorted(kinds.items(), key=lambda kv: str(kv[0]))),
    }


def _stat(samples: list, key: str):
    return _median([s.get(key) for s in samples])


def _row(n: int, input_bytes: int, output_bytes: bytes, fn: list, floor: list, lean: list, inproc: list, clock: str) -> dict:
    k = f"{clock}_s"
    row = {
        "n": n,
        "input_bytes": input_bytes,
        "output_bytes": len(output_bytes),
        "function_s": _stat(fn, k),
        "floor_s": _stat(floor, k),
        "lean_floor_s": _stat(lean, k),
        "in_process_s": _stat(inproc, k),
        "peak_rss_bytes": _stat(fn, "peak_rss_bytes"),
        "floor_peak_rss_bytes": _stat(floor, "peak_rss_bytes"),
        "in_process_peak_rss_bytes": _stat(inproc, "peak_rss_bytes"),
        "wall": {"function_s": _stat(fn, "wall_s"), "floor_s": _stat(floor, "wall_s"), "in_process_s": _stat(inproc, "wall_s")},
        "cpu": {"function_s": _stat(fn, "cpu_s"), "floor_s": _stat(floor, "cpu_s"), "in_process_s": _stat(inproc, "cpu_s")},
        "exit_codes": sorted({s["exit_code"] for s in fn}),
        "stderr_head": fn[0]["stderr"].splitlines()[:3] if fn else [],
        "samples": {"function": [{k2: v for k2, v in s.items() if k2 != "stderr"} for s in fn], "floor": floor,
                    "lean_floor": lean, "in_process": inproc},
        "results": summarize_results(yaml.load(output_bytes, Loader=_LOADER)),
    }
    primary = row["function_s"] if row["function_s"] is not None else row["in_process_s"]
    row["floor_ratio"] = primary / row["floor_s"] if primary and row["floor_s"] else None
    # The lean floor runs in the same repetition as the function, seconds apart: the ratio is the median
    # of those pairs' ratios, as the Argo CD and policy comparisons are (a shared machine's speed drifts
    # over a run: the first repetition is often a quarter slower for every process alike). The ratio of
    # the two medians stays in the JSON, as earlier runs measured it.
    row["lean_floor_ratio_of_medians"] = primary / row["lean_floor_s"] if primary and row["lean_floor_s"] else None
    timed = fn or inproc  # the function's runs, or in-process ones when there are none (as `primary`)
    row["lean_floor_ratio"] = (_paired(timed, lean, clock)["ratio_median"] if lean and len(timed) == len(lean)
                               else row["lean_floor_ratio_of_medians"])
    row["in_process_floor_ratio"] = row["in_process_s"] / row["floor_s"] if row["in_process_s"] and row["floor_s"] else None
    for c in CLOCKS:
        f, fl = row[c]["function_s"], row[c]["floor_s"]
        row[c]["floor_ratio"] = f / fl if f and fl else None
    io = row["input_bytes"] + row["output_bytes"]
    row["memory_ratio"] = row["peak_rss_bytes"] / io if row["peak_rss_bytes"] else None
    return row


def measure_sizes(sizes: list, repeat: int, workdir: str, *, subprocess_runs: bool = True, clock: str = "cpu",
                  floors_up_to: int | None = None) -> list:
    """One row per size: the function against the floor (see the module doc). Sizes above
    `floors_up_to` time the function alone (its time and peak RSS; no floors, no in-process run)."""
    inputs = {}
    for n in sizes:
        data = generate.to_yaml(generate.generate(n))
        path = os.path.join(workdir, f"input-{n}.yaml")
        with open(path, "wb") as f:
            f.write(data)
        inputs[n] = (path, data)
    fn = {n: [] for n in sizes}
    floor = {n: [] for n in sizes}
    inproc = {n: [] for n in sizes}
    lean = {n: [] for n in sizes}
    outputs = {}
    for rep in range(repeat):
        for n in sizes:
            in_path, data = inputs[n]
            out_path = os.path.join(workdir, f"output-{n}.yaml")
            if subprocess_runs:
                fn[n].append(run_child(function_command(), in_path, out_path))
                if floors_up_to is not None and n > floors_up_to:
                    if rep == 0:
                        with open(out_path, "rb") as f:
                            outputs[n] = f.read()
                    print(f"  repetition {rep + 1}/{repeat}, N={n}: done (function only)", file=sys.stderr, flush=True)
                    continue
                floor[n].append(_timed_child(_FLOOR, [in_path, out_path, str(ROOT), "plain"], workdir))
                lean[n].append(_timed_child(_FLOOR, [in_path, out_path, str(ROOT), "lean"], workdir))
                inproc[n].append(_timed_child(_IN_PROCESS, [in_path, str(ROOT)], workdir))
                if rep == 0:
                    with open(out_path, "rb") as f:
                        outputs[n] = f.read()
            else:  # everything in this process (the smoke test): no RSS, no start-up
                gc.collect()
                t, stdout = in_process_time(data)
                inproc[n].append(t)
                outputs[n] = stdout.encode()
                gc.collect()
                out_obj = yaml.load(outputs[n], Loader=_LOADER)
                floor[n].append(floor_time(data, out_obj))
                lean[n].append(lean_floor_time(data, out_obj))
            print(f"  repetition {rep + 1}/{repeat}, N={n}: done", file=sys.stderr, flush=True)
    return [_row(n, len(inputs[n][1]), outputs[n], fn[n], floor[n], lean[n], inproc[n], clock) for n in sizes]


def measure_startup(repeat: int, workdir: str, clock: str = "cpu") -> dict:
    """The console script on one TrainJob against the bare interpreter (`python -c pass`)."""
    in_path = os.path.join(workdir, "input-1.yaml")
    with open(in_path, "wb") as f:
        f.write(generate.to_yaml(generate.generate(1)))
    out_path = os.path.join(workdir, "output-1.yaml")
    fn_cmd = function_command()
    # The same interpreter and site-packages as the function's (the image-like venv's python, if made).
    bare_cmd = [function_python(), "-c", "pass"]
    run_child(bare_cmd, None, out_path)  # warm the page cache for both
    run_child(fn_cmd, in_path, out_path)
    bare, fn = [], []
    for _ in range(repeat):  # interleaved, so drift hits both alike
        bare.append(run_child(bare_cmd, None, out_path))
        fn.append(run_child(fn_cmd, in_path, out_path))
    with open(out_path, "rb") as f:
        output_obj = yaml.load(f.read(), Loader=_LOADER)
    k = f"{clock}_s"
    row = {
        "bare_s": _stat(bare, k),
        "function_s": _stat(fn, k),
        "wall": {"bare_s": _stat(bare, "wall_s"), "function_s": _stat(fn, "wall_s")},
        "cpu": {"bare_s": _stat(bare, "cpu_s"), "function_s": _stat(fn, "cpu_s")},
        "bare_rss_bytes": _stat(bare, "peak_rss_bytes"),
        "function_rss_bytes": _stat(fn, "peak_rss_bytes"),
        "exit_codes": sorted({r["exit_code"] for r in fn}),
        "results": summarize_results(output_obj),
    }
    # Paired, as every other ratio here: the median of the interleaved pairs' ratios (the ratio of the
    # two medians stays in the JSON as `ratio_of_medians`, as earlier runs measured it).
    row["ratio_of_medians"] = row["function_s"] / row["bare_s"] if row["bare_s"] else None
    row["ratio"] = _paired(fn, bare, clock)["ratio_median"]
    for c in CLOCKS:
        row[c]["ratio"] = _paired(fn, bare, c)["ratio_median"]
        row[c]["ratio_of_medians"] = row[c]["function_s"] / row[c]["bare_s"] if row[c]["bare_s"] else None
    return row


def image_like_install(workdir: str, python: str | None = None, root: Path = ROOT) -> list:
    """Install the package as the image has it and return the console-script command.

    The image pip-installs the project (a regular, non-editable install: kpt_fn and its data bundles in
    site-packages, compiled to bytecode at install time) and runs with PYTHONDONTWRITEBYTECODE=1. A
    development checkout is usually an editable install (an import hook loaded on every start-up, and
    no bytecode for kpt_fn when that variable is set, so every run compiles the package again: about
    twice the image's start-up). Here: a venv without pip whose site-packages hold a copy of kpt_fn laid
    out as pyproject.toml installs it (the release bundles inside kpt_fn), compiled, plus a .pth line pointing at
    this interpreter's site-packages for the dependencies (its own .pth files, such as the editable hook,
    are not run from there).

    `root`: the checkout whose kpt_fn is installed (default: this one; bench.instructions installs
    another revision's). `python` is the interpreter the venv is made from (default: this one). The image's is a distribution
    build (Debian's python3 in the tested image, python:3.12-slim by default), with profile-guided and
    link-time optimisation (Debian's also links the interpreter into the executable); one built from
    source without them (pyenv's default: a shared libpython) starts and runs Python code about a tenth
    slower, which moves every wall-clock ratio against a Go peer. It must be this interpreter's X.Y:
    the venv borrows this one's dependencies.
    """
    import compileall
    import sysconfig

    base = python or sys.executable
    ours = "%d.%d" % sys.version_info[:2]
    theirs = ".".join(_interpreter(base)["version"].split(".")[:2])
    if theirs != ours:
        # The dependencies' C extensions (PyYAML's libyaml binding, jsonschema-rs) are built for one ABI.
        raise SystemExit(f"--python {base} is Python {theirs}; the benchmark runs on {ours}, whose dependencies the install borrows")
    venv = os.path.join(workdir, "image-venv")
    subprocess.run([base, "-m", "venv", "--without-pip", venv], check=True)
    py = os.path.join(venv, "bin", "python")
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(Path(root) / "kpt_fn", os.path.join(site, "kpt_fn"), ignore=ignore)
    deps = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    with open(os.path.join(site, "_bench_deps.pth"), "w") as f:
        f.write("".join(d + "\n" for d in sorted(deps)))
    for d in deps:  # the dependencies' bytecode (pip wrote it; make sure)
        compileall.compile_dir(d, quiet=1)
    compileall.compile_dir(os.path.join(site, "kpt_fn"), quiet=1)
    script = os.path.join(venv, "bin", "expand-trainjobs")
    with open(script, "w") as f:
        # What pip writes for the console script (pyproject.toml: kpt_fn.cli:run).
        f.write(f"#!{py}\nimport sys\nfrom kpt_fn.cli import run\nif __name__ == '__main__':\n    sys.exit(run())\n")
    os.chmod(script, 0o755)
    return [script]


ARGOCD_SIZES = (1, 10)


def _paired(a: list, b: list, clock: str) -> dict:
    """min and median of each side, and the median and min-over-min of the per-pair ratios."""
    k = f"{clock}_s"
    ratios = [x[k] / y[k] for x, y in zip(a, b) if y[k]]
    return {
        "a_min_s": min(x[k] for x in a), "a_median_s": _stat(a, k),
        "b_min_s": min(y[k] for y in b), "b_median_s": _stat(b, k),
        "ratio_median": statistics.median(ratios) if ratios else None,
        "ratio_min": min(x[k] for x in a) / min(y[k] for y in b) if min(y[k] for y in b) else None,
    }


# The whole-process floor of an Argo CD render: the function's interpreter starting, importing PyYAML
# (what any PyYAML-based function pays before its first byte), reading every YAML file of the app with
# the C loader and writing the objects it read back with the C dumper, and exiting. It writes the
# app's objects, not the rendered ones (fewer bytes than the render), so it is a floor, not a twin.
_APP_FLOOR = """
import os, sys, yaml
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
docs = []
for root, dirs, files in os.walk("."):
    dirs.sort()
    for name in sorted(files):
        if name.endswith((".yaml", ".yml")):
            with open(os.path.join(root, name), "rb") as f:
                docs.extend(d for d in yaml.load_all(f.read(), Loader=loader) if d is not None)
sys.stdout.write(yaml.dump_all(docs, Dumper=dumper, sort_keys=False, default_flow_style=False))
sys.stdout.flush()
os._exit(0)
"""


def measure_argocd(sizes, repeat: int, workdir: str, clock: str = "cpu") -> list:
    """An Argo CD app of N TrainJobs: `expand-trainjobs render` in the app directory (what the CMP
    runs) against `kubectl kustomize` over a directory holding that render's output and a
    kustomization.yaml listing it (what Argo CD would run if the rendered manifests were in Git),
    and against the app's PyYAML process floor (_APP_FLOOR, on the function's interpreter).
    Paired, interleaved runs."""
    kubectl = shutil.which("kubectl")
    rows = []
    for n in sizes:
        app = os.path.join(workdir, f"argocd-app-{n}")
        generate.write_app(generate.generate(n), app)
        rendered = os.path.join(workdir, f"argocd-rendered-{n}")
        os.makedirs(rendered, exist_ok=True)
        out_path = os.path.join(rendered, "manifests.yaml")
        render_cmd = [*function_command(), "render"]
        first = run_child(render_cmd, None, out_path, cwd=app)
        with open(os.path.join(rendered, "kustomization.yaml"), "w") as f:
            f.write("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- manifests.yaml\n")
        with open(out_path, "rb") as f:
            objects = sum(1 for d in yaml.load_all(f.read(), Loader=_LOADER) if d)
        row = {"n": n, "objects": objects, "render_exit_code": first["exit_code"],
               "render_stderr_head": first["stderr"].splitlines()[:3]}
        if kubectl is None:
            row["kustomize"] = "kubectl not found"
            rows.append(row)
            continue
        kust_cmd = [kubectl, "kustomize", rendered]
        sink = os.path.join(workdir, "argocd-sink.yaml")
        floor_cmd = [function_python(), "-c", _APP_FLOOR]
        # A first run of each warms the page cache (the render's is above); a floor that fails stops here.
        _succeeded(run_child(floor_cmd, None, sink, cwd=app), "the PyYAML process floor")
        run_child(kust_cmd, None, sink)
        fn, kust, floor = [], [], []
        for _ in range(repeat):
            # Each render follows a kubectl run, never the floor: a Python process just before would
            # leave the interpreter's and PyYAML's code warm in the CPU caches for the render.
            fn.append(run_child(render_cmd, None, sink, cwd=app))
            floor.append(run_child(floor_cmd, None, sink, cwd=app))
            kust.append(run_child(kust_cmd, None, sink))
        for c in CLOCKS:
            p, f = _paired(fn, kust, c), _paired(fn, floor, c)
            row[c] = {"render_min_s": p["a_min_s"], "render_median_s": p["a_median_s"],
                      "kustomize_min_s": p["b_min_s"], "kustomize_median_s": p["b_median_s"],
                      "ratio_median": p["ratio_median"], "ratio_min": p["ratio_min"],
                      "floor_median_s": f["b_median_s"], "floor_ratio_median": f["ratio_median"],
                      "floor_vs_kustomize": _paired(floor, kust, c)["ratio_median"]}
        row["ratio"] = row[clock]["ratio_median"]
        row["render_rss_bytes"] = _stat(fn, "peak_rss_bytes")
        row["kustomize_rss_bytes"] = _stat(kust, "peak_rss_bytes")
        rows.append(row)
    return rows


# A typical policy section, as a platform team would set it: limits the generated repository meets
# (so both runs render the same objects) and every cheap and every per-container rule.
TYPICAL_POLICY = {
    "policy.maxGPUsPerTrainJob": "64", "policy.maxGPUsPerNode": "8", "policy.maxNodes": "16",
    "policy.maxCPUPerTrainJob": "1024", "policy.maxMemoryPerTrainJob": "8Ti",
    "policy.allowedImagePrefixes": "registry.example.com/,ghcr.io/kubeflow/,docker.io/,nvcr.io/",
    "policy.forbidLatestTag": "true", "policy.forbidPrivileged": "true", "policy.forbidHostPath": "true",
    "policy.forbidHostNetwork": "true",
}


def _on_off(name: str, rl: dict, on_rl: dict, repeat: int, workdir: str, clock: str) -> tuple[dict, dict]:
    """The KRM run on `on_rl` against `rl` (the same repository without what is measured): paired,
    interleaved; (the row of medians per clock, ratio and cost; the results of the last "on" run)."""
    paths = {}
    for side, data in (("off", rl), ("on", on_rl)):
        paths[side] = os.path.join(workdir, f"{name}-{side}.yaml")
        with open(paths[side], "wb") as f:
            f.write(generate.to_yaml(data))
    out_path = os.path.join(workdir, f"{name}-out.yaml")
    on, off = [], []
    for _ in range(repeat):
        off.append(run_child(function_command(), paths["off"], out_path))
        on.append(run_child(function_command(), paths["on"], out_path))
    with open(out_path, "rb") as f:
        results = summarize_results(yaml.load(f.read(), Loader=_LOADER))
    row = {}
    for c in CLOCKS:
        p = _paired(on, off, c)
        row[c] = {"on_median_s": p["a_median_s"], "off_median_s": p["b_median_s"], "ratio_median": p["ratio_median"]}
    row["ratio"] = row[clock]["ratio_median"]
    row["cost_s"] = row[clock]["on_median_s"] - row[clock]["off_median_s"]
    return row, results


def measure_policy(n: int, repeat: int, workdir: str, clock: str = "cpu") -> dict:
    """The KRM run on N TrainJobs with TYPICAL_POLICY in the functionConfig against without: paired,
    interleaved."""
    rl = generate.generate(n)
    on_rl = {**rl, "functionConfig": {**rl["functionConfig"], "data": dict(TYPICAL_POLICY)}}
    row, results = _on_off(f"policy-{n}", rl, on_rl, repeat, workdir, clock)
    return {"n": n, "policy": TYPICAL_POLICY, "errors_with_policy": results["errors"], **row}


# A dozen ValidatingAdmissionPolicies a platform team might run (bench/admission_policies.yaml), as
# the policy and binding objects of a ResourceList: the admission comparison's "on" side.
ADMISSION_POLICIES = Path(__file__).with_name("admission_policies.yaml")


def admission_items() -> list:
    """The policies and bindings of ADMISSION_POLICIES, marked local-config as a repository keeps them."""
    local = {"config.kubernetes.io/local-config": "true"}
    items = []
    for p in yaml.safe_load(ADMISSION_POLICIES.read_text()):
        spec = {"matchConstraints": {"resourceRules": [
            {"apiGroups": [g], "apiVersions": ["*"], "operations": ["CREATE"], "resources": [r]} for g, r in p["resources"]]},
            "validations": p["validations"]}
        if p.get("namespaceSelector"):
            spec["matchConstraints"]["namespaceSelector"] = p["namespaceSelector"]
        for key in ("matchConditions", "variables"):
            if p.get(key):
                spec[key] = p[key]
        meta = {"name": p["name"], "annotations": dict(local)}
        items.append({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": meta,
                      "spec": spec})
        items.append({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                      "metadata": dict(meta), "spec": {"policyName": p["name"], "validationActions": p.get("actions", ["Deny"])}})
    return items


def measure_admission(n: int, repeat: int, workdir: str, clock: str = "cpu") -> dict:
    """The KRM run on N TrainJobs with the dozen ADMISSION_POLICIES among the items against without:
    paired, interleaved (as measure_policy)."""
    rl = generate.generate(n)
    policies = admission_items()
    row, results = _on_off(f"admission-{n}", rl, {**rl, "items": policies + rl["items"]}, repeat, workdir, clock)
    return {"n": n, "policies": len(policies) // 2, "errors_with_policies": results["errors"], **row,
            "per_trainjob_ms": row["cost_s"] / n * 1000}


def measure_validation(jobset_docs: list, repeat: int) -> dict | None:
    """Generated JobSets per second through kpt_fn.validation, parsing included; None without it."""
    try:
        from kpt_fn import upstream, validation
        from kpt_fn.yamlio import dump_all, load_all
    except ImportError:
        return None
    if not (hasattr(validation, "check_object") and hasattr(validation, "check_jobset_webhook")) or not jobset_docs:
        return None
    text = dump_all(jobset_docs)
    bundle = upstream.bundle(upstream.DEFAULT_RELEASE)
    validation.check_object(jobset_docs[0], bundle)  # compile schemas outside the timing, as a warm process would
    samples, problems = [], 0
    for _ in range(repeat):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        problems = 0
        for obj in load_all(text):
            problems += len(validation.check_object(obj, bundle)) + len(validation.check_jobset_webhook(obj, bundle))
        samples.append(_clocks(t0, c0))
    out = {"jobsets": len(jobset_docs), "problems": problems, "kubeconform_jobsets_per_s": KUBECONFORM_JOBSETS_PER_S}
    for c in CLOCKS:
        t = _stat(samples, f"{c}_s")
        out[c] = {"seconds": t, "jobsets_per_s": len(jobset_docs) / t if t else None}
    return out


def growth(rows: list) -> list:
    """Time and peak-memory factor per 10x TrainJobs between consecutive sizes."""
    out = []
    for a, b in zip(rows, rows[1:]):
        decades = math.log10(b["n"] / a["n"])
        if decades <= 0:
            continue
        entry = {"from": a["n"], "to": b["n"]}
        for key in ("function_s", "in_process_s", "floor_s", "lean_floor_s", "peak_rss_bytes"):
            if a.get(key) and b.get(key):
                entry[f"{key}_per_10x"] = (b[key] / a[key]) ** (1 / decades)
        out.append(entry)
    return out


def jobsets_of(output_text) -> list:
    obj = yaml.load(output_text, Loader=_LOADER) or {}
    return [i for i in obj.get("items") or [] if isinstance(i, dict) and i.get("kind") == "JobSet"]


def verdicts(report: dict) -> dict:
    """Each first target that was measured: value, limit, met."""
    rows = {r["n"]: r for r in report["sizes"]}
    ref = rows.get(2000) or (report["sizes"][-1] if report["sizes"] else None)
    v = {}
    for a in report.get("argocd") or []:
        if a.get("ratio") is not None:
            limit = TARGET_ARGOCD_RATIO.get(a["n"], min(TARGET_ARGOCD_RATIO.values()))
            v[f"argocd_render_vs_kustomize_{a['n']}"] = {"value": a["ratio"], "limit": limit, "met": a["ratio"] <= limit}
    if ref and ref.get("lean_floor_ratio") is not None:
        v["lean_floor_ratio"] = {"n": ref["n"], "value": ref["lean_floor_ratio"], "limit": TARGET_LEAN_FLOOR_RATIO,
                                 "met": ref["lean_floor_ratio"] <= TARGET_LEAN_FLOOR_RATIO}
    big = rows.get(20000)
    if big and big.get("peak_rss_bytes"):
        v["peak_rss_mib_20000"] = {"value": big["peak_rss_bytes"] / 2**20, "limit": TARGET_PEAK_RSS_20000 / 2**20,
                                   "met": big["peak_rss_bytes"] <= TARGET_PEAK_RSS_20000}
    if ref and ref.get("floor_ratio") is not None:
        v["floor_ratio"] = {"n": ref["n"], "value": ref["floor_ratio"], "limit": TARGET_FLOOR_RATIO,
                            "met": ref["floor_ratio"] <= TARGET_FLOOR_RATIO}
    s = report.get("startup")
    if s and s.get("ratio") is not None:
        v["startup_ratio"] = {"value": s["ratio"], "limit": TARGET_STARTUP_RATIO, "met": s["ratio"] <= TARGET_STARTUP_RATIO}
    times = [g["function_s_per_10x"] for g in report["growth"] if "function_s_per_10x" in g]
    if times:
        v["growth_time_per_10x"] = {"value": max(times), "limit": TARGET_GROWTH_TIME, "met": max(times) <= TARGET_GROWTH_TIME}
    mem = [r["memory_ratio"] for r in report["sizes"] if r.get("memory_ratio") is not None and r["n"] >= 2000]
    if mem:
        v["memory_ratio"] = {"value": max(mem), "limit": TARGET_MEMORY_RATIO, "met": max(mem) <= TARGET_MEMORY_RATIO}
    val = report.get("validation")
    rate = val and val[report["clock"]]["jobsets_per_s"]
    if rate:
        v["validation_jobsets_per_s"] = {"value": rate, "limit": KUBECONFORM_JOBSETS_PER_S, "met": rate >= KUBECONFORM_JOBSETS_PER_S}
    return v


def run(sizes=DEFAULT_SIZES, repeat: int = 5, *, startup_repeat: int = 7, out: str | os.PathLike | None = DEFAULT_OUT,
        subprocess_runs: bool = True, clock: str = "cpu", validation_repeat: int | None = None,
        argocd_sizes=ARGOCD_SIZES, argocd_repeat: int = 15, policy_n: int | None = 2000, policy_repeat: int = 3,
        admission_n: int | None = 200, admission_repeat: int = 3,
        image_like: bool = True, floors_up_to: int | None = None, python: str | None = None) -> dict:
    """Measure everything, write JSON to `out` (unless None) and return the report."""
    global _COMMAND
    sizes = sorted(set(int(s) for s in sizes))
    with tempfile.TemporaryDirectory(prefix="expand-trainjobs-bench-") as workdir:
        _COMMAND = image_like_install(workdir, python) if image_like and subprocess_runs else None
        function_interpreter = _interpreter(function_python())
        rows = measure_sizes(sizes, repeat, workdir, subprocess_runs=subprocess_runs, clock=clock, floors_up_to=floors_up_to)
        startup = measure_startup(startup_repeat, workdir, clock) if subprocess_runs else None
        argocd = measure_argocd(argocd_sizes, argocd_repeat, workdir, clock) if subprocess_runs and argocd_sizes else None
        policy = measure_policy(policy_n, policy_repeat, workdir, clock) if subprocess_runs and policy_n else None
        admission = measure_admission(admission_n, admission_repeat, workdir, clock) if subprocess_runs and admission_n else None
        # The JobSets generated for the size nearest 2,000 (all of them at N = 2,000).
        ref_n = min(sizes, key=lambda n: abs(n - 2000))
        out_path = os.path.join(workdir, f"output-{ref_n}.yaml")
        if os.path.exists(out_path):
            with open(out_path, "rb") as f:
                docs = jobsets_of(f.read())
        else:
            docs = jobsets_of(in_process_time(generate.to_yaml(generate.generate(ref_n)))[1])
    report = {
        "machine": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
            "pyyaml": yaml.__version__,
            "pyyaml_c": hasattr(yaml, "CSafeLoader"),
        },
        "function_python": function_interpreter,
        "command": function_command(),
        "image_like_install": bool(_COMMAND),
        "clock": clock,
        "repeat": repeat,
        "sizes": rows,
        "growth": growth(rows),
        "startup": startup,
        "argocd": argocd,
        "policy": policy,
        "admission": admission,
        "validation": measure_validation(docs, validation_repeat or max(1, min(repeat, 3))),
    }
    report["targets"] = verdicts(report)
    _COMMAND = None  # the install went with the work directory
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(report, indent=2) + "\n")
    return report


def _interpreter(python: str) -> dict:
    """Which interpreter ran the function: its version and the options it was configured with (a
    build with --enable-optimizations or --with-lto says so there; Debian's says it in its own rules)."""
    code = ("import json, platform, sys, sysconfig; print(json.dumps({'executable': sys.executable, "
            "'version': platform.python_version(), 'base': sys.base_prefix, "
            "'config_args': sysconfig.get_config_var('CONFIG_ARGS') or ''}))")
    return json.loads(subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout)


def _ms(s):
    return "-" if s is None else f"{s * 1000:.0f} ms" if s >= 0.1 else f"{s * 1000:.1f} ms"


def _mb(b):
    return "-" if b is None else f"{b / 1e6:.1f} MB"


def _x(r):
    return "-" if r is None else f"{r:.2f}x"


def format_table(report: dict) -> str:
    clock = report["clock"]
    lines = [f"times are {clock} time (user+system); medians of {report['repeat']}"]
    py = report.get("function_python")
    if py:
        lines.append(f"the function's interpreter: Python {py['version']} ({py['base']})")
    head = (f"{'N':>6} {'in+out':>9} {'function':>9} {'floor':>9} {'fn/floor':>8} {'wall f/f':>8} {'lean fl.':>9} {'fn/lean':>8} {'in-proc':>9} "
            f"{'peak RSS':>9} {'RSS/io':>7} {'floor RSS':>9} {'errors':>6}")
    lines += [head, "-" * len(head)]
    for r in report["sizes"]:
        lines.append(
            f"{r['n']:>6} {_mb(r['input_bytes'] + r['output_bytes']):>9} {_ms(r['function_s']):>9} "
            f"{_ms(r['floor_s']):>9} {_x(r['floor_ratio']):>8} {_x(r['wall']['floor_ratio']):>8} "
            f"{_ms(r.get('lean_floor_s')):>9} {_x(r.get('lean_floor_ratio')):>8} {_ms(r['in_process_s']):>9} "
            f"{_mb(r['peak_rss_bytes']):>9} {_x(r.get('memory_ratio')):>7} {_mb(r.get('floor_peak_rss_bytes')):>9} "
            f"{r['results']['errors']:>6}"
        )
    for g in report["growth"]:
        lines.append(
            f"growth {g['from']} -> {g['to']}, per 10x: time {_x(g.get('function_s_per_10x'))}"
            f" (floor {_x(g.get('floor_s_per_10x'))}, lean floor {_x(g.get('lean_floor_s_per_10x'))},"
            f" in-process {_x(g.get('in_process_s_per_10x'))}),"
            f" peak RSS {_x(g.get('peak_rss_bytes_per_10x'))}"
        )
    s = report.get("startup")
    if s:
        lines.append(
            f"start-up, one TrainJob: {_ms(s['function_s'])} vs python -c pass {_ms(s['bare_s'])} = {_x(s['ratio'])}"
            f" (wall {_x(s['wall']['ratio'])}; RSS {_mb(s['function_rss_bytes'])} vs {_mb(s['bare_rss_bytes'])})"
        )
    for a in report.get("argocd") or []:
        c = a.get(clock)
        if not c:
            lines.append(f"Argo CD app, {a['n']} TrainJob(s): {a.get('kustomize')}")
            continue
        lines.append(
            f"Argo CD app, {a['n']} TrainJob(s) ({a['objects']} objects): render {_ms(c['render_median_s'])}"
            f" (min {_ms(c['render_min_s'])}) vs kubectl kustomize {_ms(c['kustomize_median_s'])}"
            f" (min {_ms(c['kustomize_min_s'])}) = {_x(c['ratio_median'])} paired median, {_x(c['ratio_min'])} min/min"
            f" (wall {_x(a['wall']['ratio_median'])}); its PyYAML process floor {_ms(c['floor_median_s'])}"
            f" = {_x(c['floor_vs_kustomize'])} of kubectl kustomize, render / floor {_x(c['floor_ratio_median'])}"
        )
    for key, what, tail in (
            ("policy", "policy", lambda r: f"; {r['errors_with_policy']} error(s) with the policy"),
            ("admission", "admission policies",
             lambda r: f", {r['per_trainjob_ms']:.1f} ms per TrainJob; {r['errors_with_policies']} error(s) with the policies")):
        r = report.get(key)
        if r:
            c = r[clock]
            lines.append(f"{what}, N={r['n']}: on {_ms(c['on_median_s'])} vs off {_ms(c['off_median_s'])} = "
                         f"{_x(c['ratio_median'])} paired median (+{_ms(r['cost_s'])}){tail(r)}")
    v = report.get("validation")
    if v:
        c = v[clock]
        lines.append(
            f"validation: {v['jobsets']} JobSets in {_ms(c['seconds'])} = {c['jobsets_per_s']:.0f}/s"
            f" vs kubeconform ~{KUBECONFORM_JOBSETS_PER_S:.0f}/s; {v['problems']} problem(s)"
        )
    else:
        lines.append("validation: kpt_fn.validation.check_object/check_jobset_webhook not available; not measured")
    lines.append("targets:")
    for name, t in report["targets"].items():
        lines.append(f"  {name:<26} {t['value']:>10.2f}  limit {t['limit']:<7g} {'met' if t['met'] else 'NOT MET'}")
    errs = [(r["n"], e) for r in report["sizes"] for e in r["results"]["top_errors"]]
    if errs:
        lines.append("error results in the function's output (most frequent):")
        for n, e in errs[:10]:
            lines.append(f"  N={n} x{e['count']}: {e['message']}")
    load = report["machine"].get("load_average")
    if load:
        lines.append(f"load average at the end: {load[0]:.2f} on {report['machine']['cpus']} CPUs")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Benchmark expand-trainjobs (see bench/README.md).")
    p.add_argument("--sizes", default=None, help="comma-separated TrainJob counts (default 200,2000; add 20000 for the full growth)")
    p.add_argument("--repeat", type=int, default=None, help="repetitions per measurement, median reported (default 5)")
    p.add_argument("--startup-repeat", type=int, default=7)
    p.add_argument("--clock", choices=CLOCKS, default="cpu", help="time used for the ratios (default cpu; both are recorded)")
    p.add_argument("--quick", action="store_true", help=f"sizes {','.join(map(str, QUICK_SIZES))}, one repetition")
    p.add_argument("--in-process", action="store_true", help="time only in this process (no child processes, no RSS, no start-up)")
    p.add_argument("--argocd-repeat", type=int, default=15, help="paired runs of the Argo CD comparison (default 15)")
    p.add_argument("--policy-n", type=int, default=2000, help="TrainJobs of the policy on/off comparison (0: skip)")
    p.add_argument("--policy-repeat", type=int, default=3)
    p.add_argument("--admission-n", type=int, default=200,
                   help="TrainJobs of the admission policies on/off comparison (0: skip)")
    p.add_argument("--admission-repeat", type=int, default=3)
    p.add_argument("--dev-install", action="store_true",
                   help="time the development install's console script, not an image-like install (see image_like_install)")
    p.add_argument("--python", default=None,
                   help="the interpreter of the image-like install, as the image has it (e.g. /usr/bin/python3 on Debian; "
                        "default: this one; must be the same X.Y)")
    p.add_argument("--floors-up-to", type=int, default=None,
                   help="time the floors and the in-process run only for sizes up to this (e.g. 2000: N = 20,000 times the function alone)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="JSON file to write (default bench/results/latest.json)")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    repeat = args.repeat or (1 if args.quick else 5)
    report = run(
        sizes, repeat, startup_repeat=3 if args.quick else args.startup_repeat, out=args.out,
        subprocess_runs=not args.in_process, clock=args.clock,
        argocd_repeat=3 if args.quick else args.argocd_repeat,
        policy_n=200 if args.quick and args.policy_n else args.policy_n,
        policy_repeat=1 if args.quick else args.policy_repeat, image_like=not args.dev_install, floors_up_to=args.floors_up_to,
        python=args.python, admission_n=min(args.admission_n, 20) if args.quick else args.admission_n,
        admission_repeat=1 if args.quick else args.admission_repeat,
    )
    print(format_table(report))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
