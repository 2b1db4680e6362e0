"""Tests that run expand-trainjobs under the real clients: kpt, kubectl kustomize, kustomize v4.5.4,
an Argo CD CMP emulation, and as an unprivileged user without network."""
