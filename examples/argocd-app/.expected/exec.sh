# Run by kpt's function test runner (bash, in a copy of this example) instead of a kpt command.
# What the Argo CD sidecar runs for application.yaml: plugin.yaml's `generate` in the app path, with
# the environment Argo CD derives from the Application (its destination namespace and source path; it
# sets no plugin parameters: expand-trainjobs.yaml is the functionConfig). The whole sidecar, uid and
# copy included, is emulated by tests/support/argocd_cmp.py.
set -euo pipefail
cd apps/train
ARGOCD_APP_NAME=train ARGOCD_APP_NAMESPACE=team-a ARGOCD_APP_PROJECT_NAME=default ARGOCD_APP_SOURCE_PATH=apps/train \
ARGOCD_APP_PARAMETERS=null expand-trainjobs render > ../../rendered.yaml
