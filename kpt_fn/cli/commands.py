"""The click commands of `expand-trainjobs` (see kpt_fn.cli for the dispatch and the command table).

Imported only for the forms kpt_fn.cli does not run directly (options, --help, --version, `rules`,
usage errors): the KRM mode and plain `render` start without click. The commands call
kpt_fn.cli.modes, as the fast path does; the group has exactly the commands of kpt_fn.cli.dispatch.COMMANDS.
"""

from __future__ import annotations

import click

from kpt_fn import config, docs_url
from kpt_fn.cli import modes
from kpt_fn.cli.dispatch import COMMANDS, kustomize_form
from kpt_fn import formats


class _Group(click.Group):
    def parse_args(self, ctx, args):
        # kustomize's legacy plugin protocol calls the executable with the config file as its only
        # argument; accept that form directly, as well as the explicit subcommand.
        if kustomize_form(args):
            args = ["kustomize-plugin", *args]
        return super().parse_args(ctx, args)


def _command(name: str):
    """cli.command for a name of the command table; a name outside it fails at import."""
    if name not in COMMANDS:
        raise LookupError(f"{name!r} is not in kpt_fn.cli.dispatch.COMMANDS")
    return cli.command(name)


def _print_version(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    from kpt_fn import about

    click.echo(about.version_text())
    ctx.exit()


# --help stands on its own for a pip user, who has no docs/ directory: the documents are linked by URL
# at this release's tag (kpt_fn.docs_url, from the canonical home kpt_fn.REPOSITORY).
_EPILOG = "\b\nDocumentation (this release):\n" + "\n".join(
    f"  {what}: {docs_url(path)}" for what, path in (
        ("start here", "README.md"),
        ("functionConfig options", "docs/options.md"),
        ("kpt, kustomize, Argo CD", "docs/clients.md"),
        ("CI and pre-commit", "docs/ci.md"),
        ("the image, Argo CD", "docs/deploy.md"),
        ("JSON Schemas", "docs/schemas.md"),
        ("Kueue", "docs/kueue.md"),
    ))


@click.group(cls=_Group, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]},
             epilog=_EPILOG)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and the Trainer, JobSet, Kubernetes and Kueue releases it renders for, and exit.")
@click.pass_context
def cli(ctx):
    """Expand Kubeflow Trainer TrainJobs (v2.3.0, or v2.2.1 with --trainer-version) into the JobSets, PodGroups, ConfigMaps and Secrets
    the Trainer controller would create.

    With no command it is a KRM function: it reads a ResourceList (YAML or JSON) on stdin and writes a
    ResourceList on stdout (kpt fn eval/render, kustomize KRM functions). The functionConfig is a
    ConfigMap or an ExpandTrainJobs (fn.kpt.dev/v1alpha1); every option is listed under
    "functionConfig options" below.

    Exit status: 0 on success, 1 when there is any error result. Set EXPAND_TRAINJOBS_DEBUG=1 to see
    tracebacks of internal errors.
    """
    if ctx.invoked_subcommand is None:
        modes.krm_mode()


def _flag(name: str):
    """The click option of a functionConfig option, as config.OPTIONS declares its flag."""
    o = config.option(name)
    if o.type == "bool":
        return click.option(*o.flag, is_flag=True, help=o.flag_help)
    choices = {"type": click.Choice(o.choices)} if o.type == "enum" else {}
    return click.option(*o.flag, default=None, help=o.flag_help, **choices)


# The functionConfig options that are also flags of render and validate (the flag wins).
_STRICT = _flag("strict")
_NAMESPACE = _flag("namespace")
_TRAINER_VERSION = _flag("trainerVersion")
_CONFIG = click.option(
    "--config", "config", type=click.Path(dir_okay=False), default=None,
    help="The functionConfig file (an ExpandTrainJobs or a ConfigMap) instead of the app directory's "
         "expand-trainjobs.yaml or the Argo CD parameters.",
)
_QUIET = click.option("-q", "--quiet", is_flag=True, help="Nothing on stderr unless the run fails.")
_FIND_APPS = click.option(
    "--find-apps", is_flag=True,
    help="Search PATHS (default: .) for apps: directories holding expand-trainjobs.yaml, or a kustomization "
         "or Kptfile naming the function; each is judged by its own config, and the output names those found.",
)
_PATHS_HELP = "PATHS are YAML files or directories (default: .); `-` reads a YAML stream from stdin."


@_command("render")
@click.argument("paths", nargs=-1, type=click.Path())
@_NAMESPACE
@_CONFIG
@_QUIET
@_STRICT
@_TRAINER_VERSION
@_FIND_APPS
def render(paths, namespace, config, quiet, strict, trainer_version, find_apps):
    """Print the manifests to apply, as a plain YAML stream, from YAML files or directories (default: .).

    For Argo CD's config-management plugin and scripts. `render DIR` renders DIR as the Argo CD app at
    DIR, from any working directory. Reads expand-trainjobs.yaml in the app directory (DIR, else the
    working directory) as the functionConfig if present, else Argo CD plugin parameters
    (ARGOCD_APP_PARAMETERS / PARAM_*); ARGOCD_APP_NAMESPACE is the default namespace. Paths in the
    config stay inside the app directory (EXPAND_TRAINJOBS_EXTRA_ROOTS adds others). Prints nothing
    and exits 1 on any error and when there would be nothing to apply. `render -` reads the objects
    from stdin (e.g. `kustomize build | expand-trainjobs render -`).
    """
    modes.render_mode(paths, strict=strict, trainer_version=trainer_version, namespace=namespace, config=config,
                      quiet=quiet, find_apps=find_apps)


@_command("validate")
@click.argument("paths", nargs=-1, type=click.Path())
@_NAMESPACE
@_CONFIG
@_QUIET
@_STRICT
@_TRAINER_VERSION
@click.option("--format", "fmt", type=click.Choice(formats.NAMES), default="text", show_default=True,
              help="text: the findings on stderr, each with file:line; json, sarif (SARIF 2.1.0 for code "
                   "scanning), junit (a test case per TrainJob) or github (workflow annotations): on stdout.")
@_FIND_APPS
def validate(paths, namespace, config, quiet, strict, trainer_version, fmt, find_apps):
    """Run every check on YAML files or directories (default: .; `-`: a YAML stream on stdin) without
    generating anything.

    Exit status: 0 no error, 1 errors (whatever the format)."""
    modes.render_mode(paths, "validate", strict, trainer_version, fmt=fmt, namespace=namespace, config=config,
                      quiet=quiet, find_apps=find_apps)


@_command("rules")
@click.option("--format", "-o", "fmt", type=click.Choice(formats.names("rules")), default="table",
              help="table: aligned columns with headers, for a terminal; json/yaml for machines.")
@_TRAINER_VERSION
def rules(fmt, trainer_version):
    """List the validation rules this function applies (for one Trainer release)."""
    modes.rules_mode(fmt, trainer_version)


@_command("runtimes")
@click.option("--format", "-o", "fmt", type=click.Choice(formats.names("runtimes")), default="table",
              help="table: aligned columns with headers, for a terminal; json/yaml for machines.")
@_TRAINER_VERSION
def runtimes(fmt, trainer_version):
    """List the built-in ClusterTrainingRuntimes of a Trainer release (the catalog `builtinRuntimes`
    searches): name, ML policy, replicated jobs and images; `yaml` prints them whole, `json` as the v1
    List `kubectl get -o json` prints."""
    modes.runtimes_mode(fmt, trainer_version)


@_command("kustomize-plugin")
@click.argument("config", type=click.Path())
def kustomize_plugin(config):
    """kustomize legacy exec plugin: CONFIG is the plugin config; stdin is empty (generator) or the
    resources to transform (transformer)."""
    modes.kustomize_plugin_mode(config)


@_command("argocd-kueue-patch")
def argocd_kueue_patch():
    """Print the Argo CD Application fields (ignore /spec/suspend of JobSets, RespectIgnoreDifferences=true)
    that let Kueue suspend and resume the JobSets of `profile: kueue`; merge them into the Application
    (e.g. as a kustomize patch). Kueue's placement in the pod templates is kept by the server-side apply
    those JobSets ask for (see "Kueue" under `expand-trainjobs --help`)."""
    modes.argocd_kueue_patch_mode()


# A GitHub comment holds 65,536 characters (formats.comment.DEFAULT_MAX_CHARS is the default).
_MAX_CHARS = click.option("--max-chars", "max_chars", type=click.IntRange(min=1000), default=None,
                          help="Cut the Markdown output to this many characters, counting what is left out (default 60000).")


@_command("report")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(formats.names("report")), default="markdown")
@_TRAINER_VERSION
@_MAX_CHARS
@_FIND_APPS
def report(paths, fmt, trainer_version, max_chars, find_apps):
    """Summarise every TrainJob's expansion (runtime, nodes, pods, GPUs/CPU/memory, images, gang
    scheduling, queue, generated objects, findings with file:line; totals per namespace) from YAML
    files or directories (default: .), read as `render` reads them; several directories are several
    apps, each by its own config. Markdown to post on a pull request (a summary, then a collapsed
    section per TrainJob), or JSON."""
    modes.report_mode(paths, fmt, trainer_version, max_chars, find_apps)


@_command("diff")
@click.argument("sources", nargs=-1, metavar="OLD NEW | --trainer-version OLD..NEW [DIR]")
@click.option("--format", "fmt", type=click.Choice(formats.names("diff")), default=None,
              help="text: a unified diff of each changed object, as kubectl diff shows it (the default when stdout "
                   "is a terminal); markdown: a pull-request comment (the default otherwise); json.")
@click.option("--color", "color", type=click.Choice(["auto", "always", "never"]), default="auto",
              help="Colour the text diff: auto (when stdout is a terminal, NO_COLOR is not set and TERM is not "
                   "dumb), always, never.")
@click.option("--fail-on", "fail_on", type=click.Choice(["change", "refused", "guardrails"]), default="change",
              help="What exit status 1 means: any change (default), a change the cluster refuses on an "
                   "existing JobSet (in-place changes then exit 0), to stop such a merge in CI, or a change "
                   "of the guardrails (config options, shared runtimes, policyDirs, waivers), for a check "
                   "that asks the platform team.")
@click.option("--trainer-version", "releases", default=None, metavar="OLD..NEW",
              help="Upgrade preview: render DIR (default .) under both Trainer releases, e.g. v2.2.1..v2.3.0.")
@_MAX_CHARS
def diff(sources, fmt, color, fail_on, releases, max_chars):
    """Which TrainJobs' rendered objects change between OLD and NEW (directories, or git revisions of
    the repository the working directory is in, read from git's objects as committed, at the working
    directory's place): added, removed and changed fields per object (Secret data masked), what each
    change does in the cluster (created, applied in place, refused on an existing JobSet, pruned),
    findings at NEW, and how many TrainJobs a changed runtime affects.
    With --trainer-version OLD..NEW instead: what upgrading the Trainer controller changes in DIR's
    rendered objects (default .), with the same effects and a summary.
    Guardrails the change relaxes or tightens (config options, shared runtimes, policyDirs, waivers) come first.
    Exit status: 0 no change, 1 changes (with --fail-on refused: a change the cluster refuses; with
    --fail-on guardrails: a changed guardrail), 2 could not compare."""
    if releases is not None:
        if len(sources) > 1:
            raise click.UsageError("diff --trainer-version OLD..NEW takes at most one DIR")
        if fail_on == "guardrails":  # the preview changes trainerVersion by design, and nothing else
            raise click.UsageError("--fail-on guardrails compares two revisions, not two Trainer releases")
        modes.upgrade_mode(sources[0] if sources else ".", releases, fmt, fail_on, color)
        return
    if len(sources) != 2:
        raise click.UsageError("diff takes OLD and NEW (or --trainer-version OLD..NEW [DIR])")
    modes.diff_mode(sources[0], sources[1], fmt, fail_on, max_chars, color)


@_command("check-generated")
@click.argument("paths", nargs=-1, type=click.Path())
def check_generated(paths):
    """Check that each kpt package's committed <trainjob>.generated.yaml output (DIR, default: .) is
    what the function renders now: for a pre-commit hook or CI. Reads the package as kpt hands it to
    the function (its expand-trainjobs.yaml, or the Kptfile step's config). Exit status: 0 current,
    1 stale, missing or no longer generated objects, or a package that does not render."""
    modes.check_generated_mode(paths)


@_command("install-kustomize-plugin")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default=None,
              help="The kustomize plugin home to write into (default: $KUSTOMIZE_PLUGIN_HOME, else "
                   "$XDG_CONFIG_HOME/kustomize/plugin, else ~/.config/kustomize/plugin, where kustomize looks).")
def install_kustomize_plugin(directory):
    """Write the kustomize legacy exec plugin for kind ExpandTrainJobs (fn.kpt.dev/v1alpha1/expandtrainjobs/
    ExpandTrainJobs) into a plugin home and print its path, for `kubectl kustomize --enable-alpha-plugins`.
    The wrapper runs $EXPAND_TRAINJOBS, else expand-trainjobs from PATH, else this executable, and names
    what is missing when none is there."""
    def run():
        import os
        import sys

        from kpt_fn import kustomize_install

        try:
            home = directory or kustomize_install.default_home(os.environ)
            path = kustomize_install.install(home, kustomize_install.this_executable(sys.argv[0], sys.executable))
        except (OSError, ValueError) as e:
            raise modes.CannotRun(f"install-kustomize-plugin: {e}") from None
        return path + "\n", [], 0

    modes.guarded(run)


# Every command of the table has its click command (and _command admits no other).
if set(cli.commands) != set(COMMANDS):
    raise LookupError(f"commands without a click command: {sorted(set(COMMANDS) - set(cli.commands))}")
