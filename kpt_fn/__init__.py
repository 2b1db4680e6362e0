"""expand-trainjobs: render Kubeflow Trainer TrainJobs offline (v2.3.0, or v2.2.1 with trainerVersion), as a KRM function.

The release's identity is declared here once: pyproject.toml reads the version from this module
(`[tool.setuptools.dynamic]`), and tests/behaviour/test_pinned_sources.py holds pyproject's
[project.urls], metadata.yaml and every shipped install snippet to these values. Plain constants:
reading them costs a start-up nothing (no importlib.metadata on the render path).
"""

# A semantic version (semver.org): CHANGELOG.md has a section per release, the git tag is v<version>.
__version__ = "0.2.0"
# The canonical home: the repository (docs are linked under it by --help) and the image it publishes.
REPOSITORY = "https://github.com/expand-trainjobs/expand-trainjobs"
IMAGE = "ghcr.io/expand-trainjobs/expand-trainjobs"


def docs_url(path: str) -> str:
    """The URL of a file of the repository at this release's tag (docs/options.md -> .../blob/v0.2.0/docs/options.md)."""
    return f"{REPOSITORY}/blob/v{__version__}/{path}"
