"""Measure expand-trainjobs against the floor of its own I/O, in one run (project issue 6).

For each repository size N (bench/generate.py) this measures, median of --repeat runs:

  function    wall time and peak RSS of the console script on the whole ResourceList, as kpt runs it
              (a child process, stdin from a file, stdout to a file; validation on, the default);
  in-process  the same work through kpt_fn.krm.process in this process (no interpreter start-up);
  floor       PyYAML's C loader parsing the same input plus its C dumper emitting the function's own
              output (parsed once beforehand), in this process, in the same run;

and once per run:

  start-up    the console script on a ResourceList with one TrainJob, against `python -c pass`;
  validation  generated JobSets per second through kpt_fn.validation (check_object and
              check_jobset_webhook), YAML parsing included (the kubeconform comparison);
  growth      time and peak memory per 10x TrainJobs between consecutive sizes.

It prints a table and writes the numbers as JSON (default bench/results/latest.json). Nothing here
asserts on time: the targets are reported as met or not, and the exit code is 0 either way.

    python -m bench.run                       # N = 200 and 2,000, 5 repetitions
    python -m bench.run --sizes 200,2000,20000 --repeat 3
    python -m bench.run --quick               # small sizes, one repetition: does the harness work
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

# Targets of issue 6, on the 2-core reference machine.
TARGET_FLOOR_RATIO = 2.5  # function time / YAML floor at N = 2,000
TARGET_STARTUP_RATIO = 4.0  # one-TrainJob run / `python -c pass`
TARGET_GROWTH_TIME = 11.0  # time factor per 10x TrainJobs
TARGET_MEMORY_RATIO = 4.0  # peak RSS / (input + output bytes)
KUBECONFORM_JOBSETS_PER_S = 1400.0  # kubeconform on this machine, parsing included

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def function_command() -> list:
    """The installed console script next to this interpreter, else `python -m kpt_fn`."""
    script = Path(sys.executable).with_name("expand-trainjobs")
    if script.exists():
        return [str(script)]
    found = shutil.which("expand-trainjobs")
    return [found] if found else [sys.executable, "-m", "kpt_fn"]


# Children are started from this small launcher, not from the benchmark process itself: on Linux a
# child's peak RSS starts at its parent's RSS at fork time (the old mm's high-water mark survives
# exec), so forking from the benchmark (tens of MB of parsed YAML) would inflate every reading.
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
    json.dump({"wall_s": wall, "peak_rss_bytes": usage.ru_maxrss * 1024, "exit_code": os.waitstatus_to_exitcode(status)}, f)
"""


def run_child(cmd: list, stdin_path: str | None, stdout_path: str) -> dict:
    """Wall time (s), peak RSS (bytes) and exit code of one child process, from its own rusage."""
    stats_path = stdout_path + ".stats.json"
    with open(stdin_path or os.devnull, "rb") as fin, open(stdout_path, "wb") as fout:
        proc = subprocess.run(
            [sys.executable, "-S", "-c", _LAUNCHER, stats_path, *cmd],
            stdin=fin, stdout=fout, stderr=subprocess.PIPE, cwd=tempfile.gettempdir(),
        )
    with open(stats_path) as f:
        stats = json.load(f)
    stats["stderr"] = proc.stderr.decode("utf-8", "replace")
    return stats


def _median(values):
    return statistics.median(values) if values else None


def floor_time(input_bytes: bytes, output_obj) -> float:
    """Seconds to parse the input and emit the output with PyYAML's C loader and dumper alone."""
    t0 = time.perf_counter()
    yaml.load(input_bytes, Loader=_LOADER)
    yaml.dump(output_obj, Dumper=_DUMPER, sort_keys=False, default_flow_style=False, width=1 << 30, allow_unicode=True)
    return time.perf_counter() - t0


def in_process_time(input_bytes: bytes) -> tuple[float, str]:
    from kpt_fn import krm

    t0 = time.perf_counter()
    try:
        stdout, _, _ = krm.process(input_bytes, base_dir=tempfile.gettempdir())
    except Exception as e:  # as the CLI does: an internal error becomes one error result
        from kpt_fn.yamlio import dump

        stdout = dump(krm.error_resource_list(f"internal error: {type(e).__name__}: {e}"))
    return time.perf_counter() - t0, stdout


def summarize_results(output_obj) -> dict:
    """Error/warning counts of the function's results and the most frequent error messages."""
    results = (output_obj or {}).get("results") or [] if isinstance(output_obj, dict) else []
    by_sev = Counter(r.get("severity") for r in results if isinstance(r, dict))
    errors = Counter()
    for r in results:
        if isinstance(r, dict) and r.get("severity") == "error":
            # Messages name the object; group by the text before " (in " (the file suffix).
            errors[str(r.get("message", "")).split(" (in ")[0][:200]] += 1
    items = (output_obj or {}).get("items") or [] if isinstance(output_obj, dict) else []
    kinds = Counter(i.get("kind") for i in items if isinstance(i, dict))
    return {
        "errors": by_sev.get("error", 0),
        "warnings": by_sev.get("warning", 0),
        "infos": by_sev.get("info", 0),
        "top_errors": [{"count": c, "message": m} for m, c in errors.most_common(8)],
        "output_kinds": dict(sorted(kinds.items(), key=lambda kv: str(kv[0]))),
    }


def measure_size(n: int, repeat: int, workdir: str, *, subprocess_runs: bool = True) -> dict:
    """Function (child process and in-process) against the floor for a repository of n TrainJobs."""
    input_bytes = generate.to_yaml(generate.generate(n))
    in_path = os.path.join(workdir, f"input-{n}.yaml")
    out_path = os.path.join(workdir, f"output-{n}.yaml")
    with open(in_path, "wb") as f:
        f.write(input_bytes)

    children = []
    if subprocess_runs:
        for _ in range(repeat):
            children.append(run_child(function_command(), in_path, out_path))
        with open(out_path, "rb") as f:
            output_bytes = f.read()
    inproc = []
    for _ in range(repeat):
        gc.collect()
        t, stdout = in_process_time(input_bytes)
        inproc.append(t)
    if not subprocess_runs:
        output_bytes = stdout.encode()
    output_obj = yaml.load(output_bytes, Loader=_LOADER)
    floors = []
    for _ in range(repeat):
        gc.collect()
        floors.append(floor_time(input_bytes, output_obj))

    row = {
        "n": n,
        "input_bytes": len(input_bytes),
        "output_bytes": len(output_bytes),
        "floor_s": _median(floors),
        "in_process_s": _median(inproc),
        "function_s": _median([c["wall_s"] for c in children]),
        "peak_rss_bytes": _median([c["peak_rss_bytes"] for c in children]),
        "exit_codes": sorted({c["exit_code"] for c in children}),
        "stderr_head": children[0]["stderr"].splitlines()[:3] if children else [],
        "samples": {
            "function_s": [c["wall_s"] for c in children],
            "in_process_s": inproc,
            "floor_s": floors,
        },
        "results": summarize_results(output_obj),
    }
    primary = row["function_s"] if row["function_s"] is not None else row["in_process_s"]
    row["floor_ratio"] = primary / row["floor_s"] if row["floor_s"] else None
    row["in_process_floor_ratio"] = row["in_process_s"] / row["floor_s"] if row["floor_s"] else None
    io = row["input_bytes"] + row["output_bytes"]
    if row["peak_rss_bytes"] is not None:
        row["memory_ratio"] = row["peak_rss_bytes"] / io
    return row


def measure_startup(repeat: int, workdir: str) -> dict:
    """The console script on one TrainJob against the bare interpreter (`python -c pass`)."""
    in_path = os.path.join(workdir, "input-1.yaml")
    with open(in_path, "wb") as f:
        f.write(generate.to_yaml(generate.generate(1)))
    out_path = os.path.join(workdir, "output-1.yaml")
    bare_cmd = [sys.executable, "-c", "pass"]
    fn_cmd = function_command()
    run_child(bare_cmd, None, out_path)  # warm the page cache for both
    run_child(fn_cmd, in_path, out_path)
    bare, fn = [], []
    for _ in range(repeat):  # interleaved, so drift hits both alike
        bare.append(run_child(bare_cmd, None, out_path))
        fn.append(run_child(fn_cmd, in_path, out_path))
    with open(out_path, "rb") as f:
        output_obj = yaml.load(f.read(), Loader=_LOADER)
    row = {
        "bare_s": _median([r["wall_s"] for r in bare]),
        "function_s": _median([r["wall_s"] for r in fn]),
        "bare_rss_bytes": _median([r["peak_rss_bytes"] for r in bare]),
        "function_rss_bytes": _median([r["peak_rss_bytes"] for r in fn]),
        "exit_codes": sorted({r["exit_code"] for r in fn}),
        "results": summarize_results(output_obj),
    }
    row["ratio"] = row["function_s"] / row["bare_s"]
    return row


def measure_validation(jobset_docs: list, repeat: int) -> dict | None:
    """Generated JobSets per second through kpt_fn.validation, parsing included; None without it."""
    try:
        from kpt_fn import validation
        from kpt_fn.yamlio import dump_all, load_all
    except ImportError:
        return None
    if not (hasattr(validation, "check_object") and hasattr(validation, "check_jobset_webhook")) or not jobset_docs:
        return None
    text = dump_all(jobset_docs)
    validation.check_object(jobset_docs[0])  # compile schemas outside the timing, as a warm process would
    times, problems = [], 0
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        problems = 0
        for obj in load_all(text):
            problems += len(validation.check_object(obj)) + len(validation.check_jobset_webhook(obj))
        times.append(time.perf_counter() - t0)
    t = _median(times)
    return {
        "jobsets": len(jobset_docs),
        "seconds": t,
        "jobsets_per_s": len(jobset_docs) / t if t else None,
        "kubeconform_jobsets_per_s": KUBECONFORM_JOBSETS_PER_S,
        "ratio_to_kubeconform": (len(jobset_docs) / t) / KUBECONFORM_JOBSETS_PER_S if t else None,
        "problems": problems,
    }


def growth(rows: list) -> list:
    """Time and peak-memory factor per 10x TrainJobs between consecutive sizes."""
    out = []
    for a, b in zip(rows, rows[1:]):
        decades = math.log10(b["n"] / a["n"])
        if decades <= 0:
            continue
        entry = {"from": a["n"], "to": b["n"]}
        for key in ("function_s", "in_process_s", "floor_s", "peak_rss_bytes"):
            if a.get(key) and b.get(key):
                entry[f"{key}_per_10x"] = (b[key] / a[key]) ** (1 / decades)
        out.append(entry)
    return out


def jobsets_of(output_text: str) -> list:
    obj = yaml.load(output_text, Loader=_LOADER) or {}
    return [i for i in obj.get("items") or [] if isinstance(i, dict) and i.get("kind") == "JobSet"]


def verdicts(report: dict) -> dict:
    """Each target of issue 6: measured value, limit, met (None when not measured)."""
    rows = {r["n"]: r for r in report["sizes"]}
    ref = rows.get(2000) or (report["sizes"][-1] if report["sizes"] else None)
    v = {}
    if ref and ref.get("floor_ratio") is not None:
        v["floor_ratio"] = {"n": ref["n"], "value": ref["floor_ratio"], "limit": TARGET_FLOOR_RATIO,
                            "met": ref["floor_ratio"] <= TARGET_FLOOR_RATIO}
    s = report.get("startup")
    if s:
        v["startup_ratio"] = {"value": s["ratio"], "limit": TARGET_STARTUP_RATIO, "met": s["ratio"] <= TARGET_STARTUP_RATIO}
    times = [g["function_s_per_10x"] for g in report["growth"] if "function_s_per_10x" in g]
    if times:
        v["growth_time_per_10x"] = {"value": max(times), "limit": TARGET_GROWTH_TIME, "met": max(times) <= TARGET_GROWTH_TIME}
    mem = [r["memory_ratio"] for r in report["sizes"] if r.get("memory_ratio") is not None and r["n"] >= 2000]
    if mem:
        v["memory_ratio"] = {"value": max(mem), "limit": TARGET_MEMORY_RATIO, "met": max(mem) <= TARGET_MEMORY_RATIO}
    val = report.get("validation")
    if val and val.get("jobsets_per_s"):
        v["validation_throughput"] = {"value": val["jobsets_per_s"], "limit": KUBECONFORM_JOBSETS_PER_S,
                                      "met": val["jobsets_per_s"] >= KUBECONFORM_JOBSETS_PER_S}
    return v


def run(sizes=DEFAULT_SIZES, repeat: int = 5, *, startup_repeat: int = 7, out: str | os.PathLike | None = DEFAULT_OUT,
        subprocess_runs: bool = True, validation_repeat: int | None = None) -> dict:
    """Measure everything, write JSON to `out` (unless None) and return the report."""
    sizes = sorted(set(int(s) for s in sizes))
    with tempfile.TemporaryDirectory(prefix="expand-trainjobs-bench-") as workdir:
        rows = []
        for n in sizes:
            rows.append(measure_size(n, repeat, workdir, subprocess_runs=subprocess_runs))
            print(f"  measured N={n}", file=sys.stderr, flush=True)
        startup = measure_startup(startup_repeat, workdir) if subprocess_runs else None
        # JobSets of the size closest to 2,000 (all of them at N = 2,000 is about kubeconform's test).
        ref_n = min(sizes, key=lambda n: abs(n - 2000))
        out_path = os.path.join(workdir, f"output-{ref_n}.yaml")
        if os.path.exists(out_path):
            with open(out_path, encoding="utf-8") as f:
                docs = jobsets_of(f.read())
        else:
            docs = jobsets_of(in_process_time(generate.to_yaml(generate.generate(ref_n)))[1])
    report = {
        "machine": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "pyyaml": yaml.__version__,
            "pyyaml_c": hasattr(yaml, "CSafeLoader"),
        },
        "command": function_command(),
        "repeat": repeat,
        "sizes": rows,
        "growth": growth(rows),
        "startup": startup,
        "validation": measure_validation(docs, validation_repeat or max(1, min(repeat, 3))),
    }
    report["targets"] = verdicts(report)
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(report, indent=2, sort_keys=False) + "\n")
    return report


def _ms(s):
    return "-" if s is None else f"{s * 1000:.0f} ms" if s >= 0.1 else f"{s * 1000:.1f} ms"


def _mb(b):
    return "-" if b is None else f"{b / 1e6:.1f} MB"


def _x(r):
    return "-" if r is None else f"{r:.2f}x"


def format_table(report: dict) -> str:
    lines = []
    head = f"{'N':>7} {'in+out':>10} {'function':>10} {'in-proc':>10} {'floor':>10} {'fn/floor':>9} {'peak RSS':>10} {'RSS/io':>7} {'errors':>7}"
    lines += [head, "-" * len(head)]
    for r in report["sizes"]:
        lines.append(
            f"{r['n']:>7} {_mb(r['input_bytes'] + r['output_bytes']):>10} {_ms(r['function_s']):>10} "
            f"{_ms(r['in_process_s']):>10} {_ms(r['floor_s']):>10} {_x(r['floor_ratio']):>9} "
            f"{_mb(r['peak_rss_bytes']):>10} {_x(r.get('memory_ratio')):>7} {r['results']['errors']:>7}"
        )
    for g in report["growth"]:
        lines.append(
            f"growth {g['from']} -> {g['to']}, per 10x: time {_x(g.get('function_s_per_10x'))}"
            f" (in-process {_x(g.get('in_process_s_per_10x'))}, floor {_x(g.get('floor_s_per_10x'))}),"
            f" peak RSS {_x(g.get('peak_rss_bytes_per_10x'))}"
        )
    s = report.get("startup")
    if s:
        lines.append(
            f"start-up, one TrainJob: {_ms(s['function_s'])} vs python -c pass {_ms(s['bare_s'])} = {_x(s['ratio'])}"
            f" (RSS {_mb(s['function_rss_bytes'])} vs {_mb(s['bare_rss_bytes'])})"
        )
    v = report.get("validation")
    if v:
        lines.append(
            f"validation: {v['jobsets']} JobSets in {_ms(v['seconds'])} = {v['jobsets_per_s']:.0f}/s"
            f" vs kubeconform ~{KUBECONFORM_JOBSETS_PER_S:.0f}/s ({_x(v['ratio_to_kubeconform'])}); {v['problems']} problem(s)"
        )
    else:
        lines.append("validation: kpt_fn.validation.check_object/check_jobset_webhook not available; not measured")
    lines.append("targets:")
    for name, t in report["targets"].items():
        lines.append(f"  {name:<24} {t['value']:>10.2f}  limit {t['limit']:<7g} {'met' if t['met'] else 'NOT MET'}")
    errs = [(r["n"], e) for r in report["sizes"] for e in r["results"]["top_errors"]]
    if errs:
        lines.append("error results in the function's output (most frequent):")
        for n, e in errs[:10]:
            lines.append(f"  N={n} x{e['count']}: {e['message']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Benchmark expand-trainjobs (see bench/README.md).")
    p.add_argument("--sizes", default=None, help="comma-separated TrainJob counts (default 200,2000; add 20000 for the full growth)")
    p.add_argument("--repeat", type=int, default=None, help="repetitions per measurement, median reported (default 5)")
    p.add_argument("--startup-repeat", type=int, default=7)
    p.add_argument("--quick", action="store_true", help=f"sizes {','.join(map(str, QUICK_SIZES))}, one repetition")
    p.add_argument("--in-process", action="store_true", help="time only in-process (no child processes, no RSS, no start-up)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="JSON file to write (default bench/results/latest.json)")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    repeat = args.repeat or (1 if args.quick else 5)
    report = run(
        sizes, repeat, startup_repeat=3 if args.quick else args.startup_repeat, out=args.out,
        subprocess_runs=not args.in_process,
    )
    print(format_table(report))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
