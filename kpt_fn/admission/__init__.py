"""The cluster's own admission policies (ValidatingAdmissionPolicy), judged offline (issue 37).

`cel/` is the CEL engine for the policies' user-written expressions, as Kubernetes 1.36 evaluates
them; the policy side (inputs, matching, the objects a TrainJob creates, findings) builds on it.
"""
