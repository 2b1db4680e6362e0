# The function image: kpt/kustomize container function (ENTRYPOINT) and Argo CD CMP sidecar in one.
#
# Build it with deploy/build-image.sh, which prepares the build context this file expects:
#   wheels/              the package and every dependency as wheels, pinned by constraints.txt and
#                        built/downloaded beforehand for the base image's Python and architecture
#   argocd/plugin.yaml   the CMP configuration, baked in at Argo CD's path
#   schemas/             the repository's schemas/ (the default Trainer release's JSON Schemas at its top,
#                        every release under schemas/<release>/), for kubeconform
# The build itself needs no network (pip installs with --no-index) unless KUBECONFORM=yes, which
# downloads a pinned, checksum-verified kubeconform.
#
# Build arguments:
#   BASE        any Debian-like image with python3 (>= 3.11) and venv/ensurepip, and a `nobody`
#               user; default python:3.12-slim. The tests use a local mmdebstrap'ed bookworm.
#   KUBECONFORM yes (default) | no
ARG BASE=python:3.12-slim
ARG KUBECONFORM=yes

FROM ${BASE} AS build
COPY wheels /wheels
# The venv keeps only what the function runs: pip and setuptools go (a Python 3.11 venv has setuptools,
# whose .pth file imports a module on every start of the interpreter, a start per Argo CD render).
RUN python3 -m venv /opt/fn \
 && /opt/fn/bin/pip install --no-cache-dir --no-index --find-links /wheels expand-trainjobs \
 && /opt/fn/bin/pip uninstall -q -y setuptools pip \
 && /opt/fn/bin/expand-trainjobs --help > /dev/null

FROM ${BASE} AS kubeconform-yes
ARG TARGETARCH=amd64
ARG KUBECONFORM_VERSION=v0.7.0
# A mirror of the GitHub releases may be named here; the checksums below are checked all the same.
ARG KUBECONFORM_RELEASES=https://github.com/yannh/kubeconform/releases/download
ARG KUBECONFORM_SHA256_AMD64=c31518ddd122663b3f3aa874cfe8178cb0988de944f29c74a0b9260920d115d3
ARG KUBECONFORM_SHA256_ARM64=cc907ccf9e3c34523f0f32b69745265e0a6908ca85b92f41931d4537860eb83c
ADD ${KUBECONFORM_RELEASES}/${KUBECONFORM_VERSION}/kubeconform-linux-${TARGETARCH}.tar.gz /tmp/kubeconform.tar.gz
RUN set -eu; \
    case "${TARGETARCH}" in \
      amd64) sum="${KUBECONFORM_SHA256_AMD64}" ;; \
      arm64) sum="${KUBECONFORM_SHA256_ARM64}" ;; \
      *) echo "no pinned kubeconform checksum for ${TARGETARCH}" >&2; exit 1 ;; \
    esac; \
    echo "${sum}  /tmp/kubeconform.tar.gz" | sha256sum -c -; \
    mkdir -p /out; \
    tar -xzf /tmp/kubeconform.tar.gz -C /out kubeconform

# Without kubeconform: an empty directory to copy from (no download, no network).
FROM ${BASE} AS kubeconform-no
RUN mkdir -p /out

FROM kubeconform-${KUBECONFORM} AS kubeconform

FROM ${BASE}
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/opt/fn/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent
COPY --from=build /opt/fn /opt/fn
COPY --from=kubeconform /out/ /usr/local/bin/
COPY schemas /opt/fn/schemas
COPY argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
RUN chmod -R a+rX /opt/fn /home/argocd /usr/local/bin
WORKDIR /
# kpt and kustomize run containers as `nobody` with no network (the base must have that user); the
# Argo CD sidecar runs it as uid 999 with its own entrypoint (deploy/argocd/).
USER 65534:65534
ENTRYPOINT ["/opt/fn/bin/expand-trainjobs"]
