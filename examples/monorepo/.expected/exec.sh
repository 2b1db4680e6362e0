# Run by kpt's function test runner (bash, in a copy of this repository made a git repository) instead
# of a kpt command. What CI checks (deploy/github/expand-trainjobs.yaml, with APPS unset: --find-apps):
# every app, each by its own expand-trainjobs.yaml; the kpt package's committed output is current; then
# what the Argo CD plugin renders for every Application that names it, each app in its namespace.
set -euo pipefail
expand-trainjobs validate --find-apps
expand-trainjobs check-generated apps/team-a/mnist
expand-trainjobs render apps/team-a/llm-finetune apps/team-b/eval apps/team-b/llm-finetune apps/team-c/vision apps/team-d/speech > rendered.yaml
