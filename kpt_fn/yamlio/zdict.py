"""A preset dictionary for compressing frozen output items (yamlio.Frozen) and the source text of
input items waiting to be passed through (yamlio.ItemSource.pack).

Items are compressed one by one, and a lone item is too short for zlib to find much to repeat; a
dictionary of typical rendered text (a TrainJob as kpt sends it and the JobSet it renders, from
fixtures/packages/demo) lets each one refer to it instead: about 40% less memory for frozen output.
Changing it changes no output, only how compactly items wait to be written.
"""

SAMPLE = """\
- apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata:
    name: mnist
    namespace: team-a
    annotations:
      config.kubernetes.io/local-config: 'true'
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: trainjobs.yaml
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: trainjobs.yaml
      internal.config.kubernetes.io/seqindent: compact
  spec:
    runtimeRef:
      name: torch-distributed
    trainer:
      numNodes: 2
      command:
      - torchrun
      - /workspace/train.py
      env:
      - name: EPOCHS
        value: '3'
      resourcesPerNode:
        limits:
          nvidia.com/gpu: 4
- apiVersion: jobset.x-k8s.io/v1alpha2
  kind: JobSet
  metadata:
    name: mnist
    namespace: team-a
    annotations:
      internal.config.kubernetes.io/path: mnist.generated.yaml
      internal.config.kubernetes.io/index: '0'
      config.kubernetes.io/path: mnist.generated.yaml
      config.kubernetes.io/index: '0'
  spec:
    replicatedJobs:
    - name: node
      groupName: default
      replicas: 1
      template:
        metadata:
          labels:
            trainer.kubeflow.org/trainjob-ancestor-step: trainer
        spec:
          parallelism: 2
          completions: 2
          template:
            spec:
              containers:
              - name: node
                image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime
                command:
                - torchrun
                - /workspace/train.py
                env:
                - name: EPOCHS
                  value: '3'
                - name: PET_NNODES
                  value: '2'
                - name: PET_NPROC_PER_NODE
                  value: auto
                - name: PET_NODE_RANK
                  valueFrom:
                    fieldRef:
                      fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']
                - name: PET_MASTER_ADDR
                  value: mnist-node-0-0.mnist
                - name: PET_MASTER_PORT
                  value: '29500'
                ports:
                - containerPort: 29500
                resources:
                  limits:
                    nvidia.com/gpu: '4'
    suspend: false
- apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata:
    name: first-job
    namespace: team-a
    annotations:
      config.kubernetes.io/local-config: 'true'
      config.kubernetes.io/index: '1'
      config.kubernetes.io/path: trainjobs.yaml
      internal.config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/path: trainjobs.yaml
      internal.config.kubernetes.io/seqindent: compact
  spec:
    runtimeRef:
      name: first-runtime
    trainer:
      numNodes: 2
- apiVersion: jobset.x-k8s.io/v1alpha2
  kind: JobSet
  metadata:
    name: first-job
    namespace: team-a
    annotations:
      internal.config.kubernetes.io/path: first-job.generated.yaml
      internal.config.kubernetes.io/index: '0'
      config.kubernetes.io/path: first-job.generated.yaml
      config.kubernetes.io/index: '0'
  spec:
    replicatedJobs:
    - name: node
      groupName: default
      replicas: 1
      template:
        metadata:
          labels:
            trainer.kubeflow.org/trainjob-ancestor-step: trainer
        spec:
          parallelism: 2
          completions: 2
          template:
            spec:
              containers:
              - name: node
                image: python:alpine3.20
                command:
                - sh
                - -c
                - echo 'Hello From Training Runtime'
    suspend: false
"""
