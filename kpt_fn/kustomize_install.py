"""`expand-trainjobs install-kustomize-plugin`: write the kustomize legacy exec plugin wrapper for kind
ExpandTrainJobs (fn.kpt.dev/v1alpha1) into a kustomize plugin home, so that a pip install alone serves
`kubectl kustomize --enable-alpha-plugins` (route A of docs/clients.md).

Where kustomize looks (sigs.k8s.io/kustomize api v0.18.0, the one kubectl 1.32 vendors):
- the plugin home is the first that exists of $KUSTOMIZE_PLUGIN_HOME, $XDG_CONFIG_HOME/kustomize/plugin,
  ~/.config/kustomize/plugin, ~/kustomize/plugin (api/konfig/plugins.go lines 52-88, DefaultAbsPluginHome);
- an exec plugin is <home>/<group>/<version>/<lower-cased kind>/<kind> (api/internal/plugins/loader/loader.go
  lines 119-131, relativePluginPath and AbsolutePluginPath).
`default_home` follows the same order for the directory to write into, minus the last (a directory in
the home itself is kustomize's last resort, not where a tool should put one).

The wrapper finds the function by itself: $EXPAND_TRAINJOBS, else `expand-trainjobs` on PATH, else the
executable that installed it (so it works without the venv active), and says so plainly when none is
there instead of the shell's bare "not found" (exit 127, as a missing command).
"""

from __future__ import annotations

import os
import shlex
import stat

from kpt_fn import REPOSITORY, __version__

GROUP, VERSION, KIND = "fn.kpt.dev", "v1alpha1", "ExpandTrainJobs"


def relative_path() -> str:
    """The wrapper's path below a plugin home: fn.kpt.dev/v1alpha1/expandtrainjobs/ExpandTrainJobs."""
    return "/".join((GROUP, VERSION, KIND.lower(), KIND))


def default_home(env) -> str:
    """The plugin home to write into when none is given, as kustomize would look for it."""
    if env.get("KUSTOMIZE_PLUGIN_HOME"):
        return env["KUSTOMIZE_PLUGIN_HOME"]
    if env.get("XDG_CONFIG_HOME"):
        return os.path.join(env["XDG_CONFIG_HOME"], "kustomize", "plugin")
    home = env.get("HOME")
    if not home:
        raise ValueError("no plugin directory: set KUSTOMIZE_PLUGIN_HOME or HOME, or give --dir")
    return os.path.join(home, ".config", "kustomize", "plugin")


def wrapper(installed: str | None) -> str:
    """The wrapper script; `installed` is the executable to fall back on (None: none, as the copy in
    the repository's kustomize/plugin/ is written)."""
    source = f'"expand-trainjobs @ git+{REPOSITORY}@v{__version__}"'
    return f"""#!/bin/sh
# kustomize legacy exec plugin for kind {KIND} ({GROUP}/{VERSION}): kustomize runs it with the
# plugin config file as the only argument. Written by `expand-trainjobs install-kustomize-plugin`
# (kpt_fn/kustomize_install.py); it runs $EXPAND_TRAINJOBS if set, else expand-trainjobs from PATH,
# else the expand-trainjobs that wrote it.
installed={shlex.quote(installed or "")}
fn=${{EXPAND_TRAINJOBS:-}}
if [ -z "$fn" ]; then
  if command -v expand-trainjobs >/dev/null 2>&1; then
    fn=expand-trainjobs
  elif [ -n "$installed" ] && [ -x "$installed" ]; then
    fn=$installed
  fi
fi
if [ -z "$fn" ]; then
  echo "kustomize plugin {KIND}: expand-trainjobs is not on PATH${{installed:+ (and $installed is gone)}}:" \\
    "install it (pip install {source}) or activate its venv, or set EXPAND_TRAINJOBS to its path" >&2
  exit 127
fi
exec "$fn" kustomize-plugin "$@"
"""


def this_executable(argv0: str, python: str) -> str | None:
    """The expand-trainjobs console script running now, as an absolute path: argv[0] when it is that
    script, else the one beside the interpreter (a venv's bin/), else None (`python -m kpt_fn`)."""
    for candidate in (argv0, os.path.join(os.path.dirname(python), "expand-trainjobs")):
        if os.path.basename(candidate) == "expand-trainjobs" and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


def install(home: str, installed: str | None) -> str:
    """Write the wrapper below `home` (created if missing), executable; returns its path."""
    path = os.path.join(home, *relative_path().split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(wrapper(installed))
    os.chmod(tmp, os.stat(tmp).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH | stat.S_IRGRP | stat.S_IROTH)
    os.replace(tmp, path)  # a kustomize run at the same moment sees the old file or the new, never half
    return path
