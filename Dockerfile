# The function image: kpt/kustomize container function (ENTRYPOINT) and Argo CD CMP sidecar in one.
# Installs the package with the same command the test suite's world-readable install uses
# (pip install of this repository) and runs the same entry point (the expand-trainjobs console script).
# It also carries a pinned kubeconform so that a pipeline can run both checks from one image.
FROM python:3.12-slim AS build
COPY . /src
RUN python -m venv /opt/fn && /opt/fn/bin/pip install --no-cache-dir /src

FROM python:3.12-slim AS kubeconform
ARG TARGETARCH=amd64
ARG KUBECONFORM_VERSION=v0.7.0
ARG KUBECONFORM_SHA256_AMD64=c31518ddd122663b3f3aa874cfe8178cb0988de944f29c74a0b9260920d115d3
ARG KUBECONFORM_SHA256_ARM64=cc907ccf9e3c34523f0f32b69745265e0a6908ca85b92f41931d4537860eb83c
ADD https://github.com/yannh/kubeconform/releases/download/${KUBECONFORM_VERSION}/kubeconform-linux-${TARGETARCH}.tar.gz /tmp/kubeconform.tar.gz
RUN set -eu; \
    case "${TARGETARCH}" in \
      amd64) sum="${KUBECONFORM_SHA256_AMD64}" ;; \
      arm64) sum="${KUBECONFORM_SHA256_ARM64}" ;; \
      *) echo "no pinned kubeconform checksum for ${TARGETARCH}" >&2; exit 1 ;; \
    esac; \
    echo "${sum}  /tmp/kubeconform.tar.gz" | sha256sum -c -; \
    tar -xzf /tmp/kubeconform.tar.gz -C /usr/local/bin kubeconform

FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/opt/fn/bin:$PATH HOME=/nonexistent
COPY --from=build /opt/fn /opt/fn
COPY --from=kubeconform /usr/local/bin/kubeconform /usr/local/bin/kubeconform
COPY --from=build /src/schemas /opt/fn/schemas
COPY argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
RUN chmod -R a+rX /opt/fn /home/argocd /usr/local/bin/kubeconform
WORKDIR /
# kpt and kustomize run containers as `nobody` with no network; python:slim has that user.
USER 65534:65534
ENTRYPOINT ["/opt/fn/bin/expand-trainjobs"]
