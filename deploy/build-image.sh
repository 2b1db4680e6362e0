#!/usr/bin/env bash
# Build the function image from this checkout.
#
#   deploy/build-image.sh [options] TAG
#     --engine E          docker or podman (default: docker if its daemon answers, else podman)
#     --base IMAGE        base image (default python:3.12-slim)
#     --python X.Y        the base image's Python (default: asked from the base image with the engine)
#     --arch A            amd64 | arm64 (default: this machine's); given, the build is for linux/A
#                         (--platform: another architecture needs an emulator, as the release workflow sets up)
#     --no-kubeconform    leave kubeconform out (no download from GitHub during the build)
#     --pull P            the engine's --pull policy for the base (default: the engine's)
#
# Wheels are made here, outside the image: the package with `pip wheel --no-deps`, its dependencies
# downloaded as binary wheels for the base image's Python and architecture, pinned by
# constraints.txt (the same pins the tests install). Inside, pip installs with --no-index, so the
# image build needs neither a package index nor CA certificates. Needs python3 with pip here
# ($PYTHON if set).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
engine=
base=python:3.12-slim
python_version=
arch=
kubeconform=yes
pull=()
platform=()
tag=

while [ $# -gt 0 ]; do
  case "$1" in
    --engine) engine=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --python) python_version=$2; shift 2 ;;
    --arch) arch=$2; platform=(--platform "linux/$2"); shift 2 ;;
    --no-kubeconform) kubeconform=no; shift ;;
    --pull) pull=(--pull="$2"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "build-image.sh: unknown option $1" >&2; exit 2 ;;
    *) tag=$1; shift ;;
  esac
done
[ -n "$tag" ] || { echo "usage: build-image.sh [options] TAG" >&2; exit 2; }

if [ -z "$engine" ]; then
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker; else engine=podman; fi
fi
if [ -z "$arch" ]; then
  case "$(uname -m)" in
    x86_64|amd64) arch=amd64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) echo "build-image.sh: unsupported architecture $(uname -m)" >&2; exit 1 ;;
  esac
fi
case "$arch" in
  amd64) machine=x86_64 ;;
  arm64) machine=aarch64 ;;
  *) echo "build-image.sh: unsupported architecture $arch" >&2; exit 1 ;;
esac
if [ -z "$python_version" ]; then
  python_version=$("$engine" run --rm "${pull[@]}" --network none --entrypoint python3 "$base" \
    -c 'import sys; print("%d.%d" % sys.version_info[:2])')
fi

ctx=$(mktemp -d "${TMPDIR:-/tmp}/expand-trainjobs-image.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/wheels" "$ctx/argocd"
cp "$root/Dockerfile" "$ctx/Dockerfile"
cp "$root/argocd/plugin.yaml" "$ctx/argocd/plugin.yaml"
# The JSON Schemas, for kubeconform in the image (/opt/fn/schemas): the repository's schemas/ (the default
# release at its top, every release under schemas/<release>/).
cp -r "$root/schemas" "$ctx/schemas"

pip=("${PYTHON:-python3}" -m pip --disable-pip-version-check --no-input -q)
# The package itself is pure Python: built from a copy of the checkout's files (tracked and
# untracked, minus what git ignores), so no build/ or egg-info lands in the checkout.
src="$ctx/src"
mkdir "$src"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done | xargs -0 cp --parents -t "$src")
else
  (cd "$root" && tar --exclude=./.git --exclude=./.venv --exclude=./build -cf - .) | (cd "$src" && tar -xf -)
fi
"${pip[@]}" wheel --no-deps -c "$root/constraints.txt" -w "$ctx/wheels" "$src"
rm -rf "$src"
# Every dependency as a binary wheel for the target interpreter and platform (glibc manylinux).
platforms=(--platform "manylinux2014_$machine")
for m in $(seq 17 36); do platforms+=(--platform "manylinux_2_${m}_$machine"); done
"${pip[@]}" download --only-binary=:all: --implementation cp --python-version "$python_version" "${platforms[@]}" \
  -c "$root/constraints.txt" -d "$ctx/wheels" "$ctx"/wheels/expand_trainjobs-*.whl

"$engine" build "${pull[@]}" "${platform[@]}" --build-arg BASE="$base" --build-arg KUBECONFORM="$kubeconform" \
  --build-arg TARGETARCH="$arch" -t "$tag" "$ctx"
