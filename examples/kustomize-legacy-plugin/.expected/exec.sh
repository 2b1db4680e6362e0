# Run by kpt's function test runner (bash, in a copy of this example) instead of a kpt command.
# Stock kubectl runs the legacy exec plugin of the checkout this script is in (three levels up); the
# plugin calls expand-trainjobs from PATH.
set -euo pipefail
checkout="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
KUSTOMIZE_PLUGIN_HOME="$checkout/kustomize/plugin" kubectl kustomize --enable-alpha-plugins . > rendered.yaml
