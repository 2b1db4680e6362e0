"""What the package re-implements of k8s.io/apimachinery, below every other layer: the name, label and
key syntax (validation: pkg/util/validation) and the field-error wording (field:
pkg/util/validation/field). The engine, the plugins, Kueue's checks and the API server's checks in
kpt_fn.validation all use them; they import nothing of the package.
"""
