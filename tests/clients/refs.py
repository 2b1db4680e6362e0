"""Do the generated objects refer to each other by the names they have?

kustomize renames objects, and rewrites references only in fields it knows. The references inside
what the function generates (env values, the MPI hostfile, a JobSet's configMap and secret volumes,
the pod-group label and annotation, the JobSet's subdomain) must name the objects as they reach
the cluster. These checks read only the output, never the engine.
"""

from __future__ import annotations

SECRET_REFERENCE_SUFFIX = "-mpi-ssh-auth"  # the default mpiSSHSecretName with the reference policy


def _pod_templates(jobset: dict):
    for rj in jobset["spec"]["replicatedJobs"]:
        yield rj["name"], rj["template"]["spec"]["template"]


def _named(objs, kind, namespace, group=None) -> set:
    return {
        o["metadata"]["name"]
        for o in objs
        if o.get("kind") == kind and o["metadata"].get("namespace") == namespace and (group is None or o["apiVersion"].startswith(group))
    }


def _host_ok(host: str, jobset: str, subdomain: str, jobs: set) -> bool:
    """`<jobset>-<replicated job>-<job index>-<pod index>.<subdomain>`, as JobSet names its pods."""
    pod, _, domain = host.partition(".")
    if domain != subdomain or not pod.startswith(jobset + "-"):
        return False
    parts = pod[len(jobset) + 1 :].rsplit("-", 2)
    return len(parts) == 3 and parts[0] in jobs and parts[1].isdigit() and parts[2].isdigit()


def references(objs: list) -> list:
    """Every reference inside generated objects, as (where, ok) pairs; a test asserts all ok."""
    out = []
    for js in (o for o in objs if o.get("kind") == "JobSet"):
        name, ns = js["metadata"]["name"], js["metadata"].get("namespace")
        subdomain = (js["spec"].get("network") or {}).get("subdomain") or name
        jobs = {rj["name"] for rj in js["spec"]["replicatedJobs"]}
        where = f"JobSet {ns}/{name}"
        for job, pod in _pod_templates(js):
            md, spec = pod.get("metadata") or {}, pod["spec"]
            group = (md.get("labels") or {}).get("scheduling.x-k8s.io/pod-group")
            if group is not None:
                out.append((f"{where} {job} pod-group label {group}", group in _named(objs, "PodGroup", ns, "scheduling.x-k8s.io/") and group == name))
            vgroup = (md.get("annotations") or {}).get("scheduling.k8s.io/group-name")
            if vgroup is not None:
                out.append((f"{where} {job} volcano group-name {vgroup}", vgroup in _named(objs, "PodGroup", ns, "scheduling.volcano.sh/") and vgroup == name))
            for vol in spec.get("volumes") or ():
                if "configMap" in vol:
                    cm = vol["configMap"]["name"]
                    out.append((f"{where} {job} configMap volume {cm}", cm in _named(objs, "ConfigMap", ns)))
                if "secret" in vol:
                    sec = vol["secret"]["secretName"]
                    ok = sec in _named(objs, "Secret", ns) or sec == name + SECRET_REFERENCE_SUFFIX
                    out.append((f"{where} {job} secret volume {sec}", ok))
            for c in spec.get("containers") or ():
                for env in c.get("env") or ():
                    if env.get("name") == "PET_MASTER_ADDR":
                        out.append((f"{where} {job} PET_MASTER_ADDR {env['value']}", _host_ok(env["value"], name, subdomain, jobs)))
        for cm in (o for o in objs if o.get("kind") == "ConfigMap" and o["metadata"]["name"] == name + "-mpi-hostfile"):
            for line in cm["data"]["hostfile"].splitlines():
                host = line.split()[0]
                out.append((f"{where} hostfile line {line!r}", _host_ok(host, name, subdomain, jobs)))
    for pg in (o for o in objs if o.get("kind") == "PodGroup"):
        pname, ns = pg["metadata"]["name"], pg["metadata"].get("namespace")
        out.append((f"PodGroup {ns}/{pname} has its JobSet", pname in _named(objs, "JobSet", ns)))
    return out


def assert_references(objs: list, expect: tuple = ("PET_MASTER_ADDR", "hostfile", "configMap volume", "pod-group label", "group-name")) -> None:
    refs = references(objs)
    bad = [w for w, ok in refs if not ok]
    assert not bad, "references to names that do not exist:\n  " + "\n  ".join(bad)
    for what in expect:  # the fixture exercises every kind of reference: none may go unchecked
        assert any(what in w for w, _ in refs), f"no {what} reference checked among {[w for w, _ in refs]}"
