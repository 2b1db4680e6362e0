-- Argo CD health check for jobset.x-k8s.io JobSet (Argo CD ships none). Lua 5.1, no libraries.
-- Install as argocd-cm key resource.customizations.health.jobset.x-k8s.io_JobSet (deploy/argocd does).
--   Failed condition (or terminalState Failed)       -> Degraded
--   Completed condition (or terminalState Completed) -> Healthy
--   spec.suspend or a Suspended condition            -> Progressing while queued in Kueue (labelled with a
--                                                       queue), else Suspended
--   otherwise                                        -> Progressing, with the Jobs' counts
-- The conditions are those the JobSet v0.12.0 controller writes (each testdata file links its line):
--   https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/jobset_controller.go
--   https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/failure_policy.go
--   https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/startup_policy.go
--   https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/api/jobset/v1alpha2/jobset_types.go
-- (Argo CD's health check guide asks a script to link the controller code it follows:
--  https://github.com/argoproj/argo-cd/blob/v3.5.1/docs/operator-manual/health.md
--  line 195, "Way 2. Contribute a Custom Health Check".)
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
if failed ~= nil or status.terminalState == "Failed" then
  hs.status = "Degraded"
  hs.message = message(failed, "JobSet failed")
  return hs
end

local completed = condition("Completed")
if completed ~= nil or status.terminalState == "Completed" then
  hs.status = "Healthy"
  hs.message = message(completed, "JobSet completed")
  return hs
end

-- Suspended. A JobSet waiting in a Kueue queue is work about to happen: Progressing, so that the app does
-- not read "Suspended" (Argo CD takes the app's health from its resources', and Suspended ranks above
-- Healthy: argo-cd#19126). A JobSet suspended by hand (no queue) is a deliberate pause: Suspended.
local suspended = condition("Suspended")
if suspended ~= nil or (obj.spec ~= nil and obj.spec.suspend == true) then
  local labels = (obj.metadata or {}).labels or {}
  local queue = labels["kueue.x-k8s.io/queue-name"]
  if queue ~= nil and queue ~= "" then
    hs.status = "Progressing"
    hs.message = "Waiting for admission in Kueue queue " .. queue .. " (" .. message(suspended, "JobSet is suspended") .. ")"
  else
    hs.status = "Suspended"
    hs.message = message(suspended, "JobSet is suspended")
  end
  return hs
end

local ready, active, succeeded, failedJobs = 0, 0, 0, 0
for _, r in ipairs(status.replicatedJobsStatus or {}) do
  ready = ready + (r.ready or 0)
  active = active + (r.active or 0)
  succeeded = succeeded + (r.succeeded or 0)
  failedJobs = failedJobs + (r.failed or 0)
end
hs.status = "Progressing"
hs.message = "Jobs: " .. ready .. " ready, " .. active .. " active, " .. succeeded .. " succeeded, " .. failedJobs .. " failed"
local restarts = status.restarts or 0
if restarts > 0 then
  hs.message = hs.message .. "; " .. restarts .. " restart(s)"
end
local startup = condition("StartupPolicyInProgress")
if startup ~= nil then
  hs.message = hs.message .. "; " .. message(startup, "startup policy in progress")
end
return hs
