# Run by kpt's function test runner (bash, in a copy of this example) instead of a kpt command.
# kubectl runs the function's container image, named by the config's function annotation, with docker.
set -euo pipefail
kubectl kustomize --enable-alpha-plugins . > rendered.yaml
