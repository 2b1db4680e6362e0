# The function image: kpt/kustomize container function (ENTRYPOINT) and Argo CD CMP sidecar in one.
# Installs the package with the same command the test suite's set-up uses (pip install of this repo)
# and runs the same entry point (the expand-trainjobs console script).
FROM python:3.12-slim AS build
COPY . /src
RUN python -m venv /opt/fn && /opt/fn/bin/pip install --no-cache-dir /src

FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/opt/fn/bin:$PATH HOME=/nonexistent
COPY --from=build /opt/fn /opt/fn
COPY argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
RUN chmod -R a+rX /opt/fn /home/argocd
WORKDIR /
# kpt and kustomize run containers as `nobody` with no network; python:slim has that user.
USER 65534:65534
ENTRYPOINT ["/opt/fn/bin/expand-trainjobs"]
