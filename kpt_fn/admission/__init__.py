"""The cluster's own admission policies (ValidatingAdmissionPolicy), judged offline (issue 37) on
every object a TrainJob makes the cluster create: the TrainJob itself, the JobSet, each Job of each
replicated job, each Pod of each Job, the PodGroup, ConfigMaps and Secrets (docs/admission.md).

`cel/` is the CEL engine for the policies' user-written expressions, as Kubernetes 1.36 evaluates
them. The policy side builds on it: `inputs` gathers the policies, bindings, params and Namespaces;
`children` builds what the cluster creates, as it is at its admission (`defaults`: the API server's
defaulting); `match` decides which policy and binding apply to which request; `evaluate` runs the
CEL and turns decisions into problems.Problems; `check` is the one entry of the run. A run with no
policy imports none of this (kpt_fn.function).
"""
