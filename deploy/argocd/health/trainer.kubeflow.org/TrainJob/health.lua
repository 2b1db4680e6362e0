-- Argo CD health check for trainer.kubeflow.org TrainJob (Argo CD ships none), for the route that
-- deploys TrainJobs to a cluster with the Trainer v2.3.0 controller. Lua 5.1, no libraries.
-- Install as argocd-cm key resource.customizations.health.trainer.kubeflow.org_TrainJob (deploy/argocd does).
-- The controller's conditions (pkg/controller/trainjob_controller.go, the jobset plugin's Status):
--   Failed     True: copied from the JobSet's Failed, or DeadlineExceeded, TrainingRuntimeNotSupported -> Degraded
--   Complete   True: copied from the JobSet's Completed                                          -> Healthy
--   Suspended  True: spec.suspend ("TrainJob is suspended")   -> Progressing while queued in Kueue
--                    (labelled with a queue: the app must not read "Suspended", argo-cd#19126), else Suspended
--   otherwise: Progressing, with the child Jobs' counts (status.jobsStatus) and the trainer's progress
-- The controller code it follows (each testdata file links its line):
--   https://github.com/kubeflow/trainer/blob/v2.3.0/pkg/controller/trainjob_controller.go
--   https://github.com/kubeflow/trainer/blob/v2.3.0/pkg/runtime/framework/plugins/jobset/jobset.go
--   https://github.com/kubeflow/trainer/blob/v2.3.0/pkg/apis/trainer/v1alpha1/trainjob_types.go
-- (Argo CD's health check guide asks a script to link the controller code it follows:
--  https://github.com/argoproj/argo-cd/blob/v3.5.1/docs/operator-manual/health.md
--  line 195, "Way 2. Contribute a Custom Health Check".)
-- The helpers repeat the JobSet check's on purpose: Argo CD runs each script alone (no require).
local hs = {}
local status = obj.status or {}
local conditions = status.conditions or {}

local function condition(kind)
  for _, c in ipairs(conditions) do
    if c.type == kind and c.status == "True" then
      return c
    end
  end
  return nil
end

local function message(c, default)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    return c.message
  end
  return default
end

local failed = condition("Failed")
if failed ~= nil then
  hs.status = "Degraded"
  hs.message = message(failed, "TrainJob failed")
  return hs
end

local complete = condition("Complete")
if complete ~= nil then
  hs.status = "Healthy"
  hs.message = message(complete, "TrainJob completed")
  return hs
end

local suspended = condition("Suspended")
if suspended ~= nil or (obj.spec ~= nil and obj.spec.suspend == true) then
  local labels = (obj.metadata or {}).labels or {}
  local queue = labels["kueue.x-k8s.io/queue-name"]
  if queue ~= nil and queue ~= "" then
    hs.status = "Progressing"
    hs.message = "Waiting for admission in Kueue queue " .. queue .. " (" .. message(suspended, "TrainJob is suspended") .. ")"
  else
    hs.status = "Suspended"
    hs.message = message(suspended, "TrainJob is suspended")
  end
  return hs
end

local ready, active, succeeded, failedJobs = 0, 0, 0, 0
for _, j in ipairs(status.jobsStatus or {}) do
  ready = ready + (j.ready or 0)
  active = active + (j.active or 0)
  succeeded = succeeded + (j.succeeded or 0)
  failedJobs = failedJobs + (j.failed or 0)
end
hs.status = "Progressing"
hs.message = "Jobs: " .. ready .. " ready, " .. active .. " active, " .. succeeded .. " succeeded, " .. failedJobs .. " failed"
local trainer = status.trainerStatus
if trainer ~= nil and trainer.progressPercentage ~= nil then
  hs.message = hs.message .. "; training " .. trainer.progressPercentage .. "% done"
  if trainer.estimatedRemainingSeconds ~= nil then
    hs.message = hs.message .. ", about " .. trainer.estimatedRemainingSeconds .. "s left"
  end
end
return hs
