"""The CEL libraries beyond the standard one that the API server enables for the 1.36 compatibility
version (k8s.io/apiserver@v0.36.3 pkg/cel/environment/base.go): one module per library, each a list
`FUNCTIONS` of stdlib.Function; kpt_fn.admission.cel.environment assembles them."""
