"""Pod volumes, and the containers' volumeMounts and volumeDevices that name them.

Kubernetes v1.36 pkg/apis/core/validation/validation.go ValidateVolumes, validateVolumeSource and the
per-source validators a training pod uses (emptyDir, hostPath, secret, configMap, persistentVolumeClaim,
nfs, downwardAPI, projected, csi, ephemeral, image), ValidateVolumeMounts, ValidateVolumeDevices,
validateMountPropagation, validateMountRecursiveReadOnly. Cloud and legacy in-tree sources (iscsi, rbd,
cephfs, ...) are counted as a volume type but their fields are not checked.
"""

from __future__ import annotations

from kpt_fn import quantity
from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.apimachinery.field import child, index, key
from kpt_fn.validation.k8s import env as env_checks
from kpt_fn.validation.k8s import paths
from kpt_fn.validation.k8s.findings import as_dict, as_int, as_list, as_str

RULE = "k8s/volumes"

# validateVolumeSource's order, with the path segment its "may not specify more than 1 volume type"
# names (upstream's own spellings, `downwarAPI` and `cephFS` included).
SOURCES = (("emptyDir", "emptyDir"), ("hostPath", "hostPath"), ("gitRepo", "gitRepo"),
           ("gcePersistentDisk", "gcePersistentDisk"), ("awsElasticBlockStore", "awsElasticBlockStore"),
           ("secret", "secret"), ("nfs", "nfs"), ("iscsi", "iscsi"), ("glusterfs", "glusterfs"),
           ("flocker", "flocker"), ("persistentVolumeClaim", "persistentVolumeClaim"), ("rbd", "rbd"),
           ("cinder", "cinder"), ("cephfs", "cephFS"), ("quobyte", "quobyte"), ("downwardAPI", "downwarAPI"),
           ("fc", "fc"), ("flexVolume", "flexVolume"), ("configMap", "configMap"), ("azureFile", "azureFile"),
           ("vsphereVolume", "vsphereVolume"), ("photonPersistentDisk", "photonPersistentDisk"),
           ("portworxVolume", "portworxVolume"), ("azureDisk", "azureDisk"), ("storageos", "storageos"),
           ("projected", "projected"), ("scaleIO", "scaleIO"), ("csi", "csi"), ("ephemeral", "ephemeral"),
           ("image", "image"))
HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket")
FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive"
VOLUME_FIELD_PATHS = ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid")
PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")


def check_volumes(volumes, path: str, f) -> dict:
    """{name: source dict} of the volumes that validated (what mounts may name)."""
    out: dict = {}
    for i, volume in enumerate(as_list(volumes)):
        if not isinstance(volume, dict):
            continue
        where = index(path, i)
        before = len(f.items)
        name = as_str(volume.get("name")) or ""
        _source(volume, where, f)
        name_path = child(where, "name")
        if not name:
            f.required(RULE, name_path)
        else:
            for msg in utilvalidation.is_dns1123_label(name):
                f.invalid(RULE, name_path, name, msg)
        if name in out:
            f.duplicate(RULE, name_path, name)
        if len(f.items) == before:
            out[name] = volume
    return out


def _source(volume: dict, path: str, f) -> None:
    count = 0
    for field, segment in SOURCES:
        source = volume.get(field)
        if source is None:
            continue
        if count:
            f.forbidden(RULE, child(path, segment), "may not specify more than 1 volume type")
            continue
        count += 1
        check = _SOURCE_CHECKS.get(field)
        if check is not None:
            # the misspelt segments are only in the "more than 1" message: validateVolumeSource checks
            # a downward API volume at `downwardAPI` (validation.go; TestValidateVolumes' "downapi" cases)
            check(as_dict(source), child(path, field), f)
    # count == 0 cannot reach validateVolumeSource's "must specify a volume type": SetDefaults_Volume
    # (pkg/apis/core/v1/defaults.go) has already made a volume without a source an emptyDir


def _mode(value, path: str, f) -> None:
    mode = as_int(value)
    if mode is not None and not 0 <= mode <= 0o777:
        f.invalid(RULE, path, mode, FILE_MODE)


def _empty_dir(source, path, f):
    limit = source.get("sizeLimit")
    if limit is not None:
        try:
            negative = quantity.parse(limit).nanos < 0
        except (quantity.QuantityError, TypeError, ValueError):
            return
        if negative:
            f.forbidden(RULE, child(path, "sizeLimit"), "SizeLimit field must be a valid resource quantity")


def _host_path(source, path, f):
    target = as_str(source.get("path"))
    if not target:
        f.required(RULE, child(path, "path"))
        return
    paths.no_backsteps(target, child(path, "path"), RULE, f)
    kind = source.get("type")
    if isinstance(kind, str) and kind not in HOST_PATH_TYPES:
        f.unsupported(RULE, child(path, "type"), kind, HOST_PATH_TYPES)


def _key_to_paths(items, path, f, seen=None, conflict_path=None, owner=None):
    for i, item in enumerate(as_list(items)):
        item = as_dict(item)
        where = index(path, i)
        if not item.get("key"):
            f.required(RULE, child(where, "key"))
        target = as_str(item.get("path")) or ""
        if not target:
            f.required(RULE, child(where, "path"))
        paths.local_non_reserved(target, child(where, "path"), RULE, f)
        _mode(item.get("mode"), child(where, "mode"), f)
        if seen is not None and target:
            if target in seen:
                f.invalid(RULE, conflict_path, owner, "conflicting duplicate paths")
            seen.add(target)


def _secret(source, path, f):
    if not source.get("secretName"):
        f.required(RULE, child(path, "secretName"))
    _mode(source.get("defaultMode"), child(path, "defaultMode"), f)
    _key_to_paths(source.get("items"), child(path, "items"), f)


def _config_map(source, path, f):
    if not source.get("name"):
        f.required(RULE, child(path, "name"))
    _mode(source.get("defaultMode"), child(path, "defaultMode"), f)
    _key_to_paths(source.get("items"), child(path, "items"), f)


def _pvc(source, path, f):
    if not source.get("claimName"):
        f.required(RULE, child(path, "claimName"))


def _nfs(source, path, f):
    if not source.get("server"):
        f.required(RULE, child(path, "server"))
    target = as_str(source.get("path")) or ""
    if not target:
        f.required(RULE, child(path, "path"))
    if not target.startswith("/"):
        f.invalid(RULE, child(path, "path"), target, "must be an absolute path")


def _downward_file(item, path, f):
    target = as_str(item.get("path")) or ""
    if not target:
        f.required(RULE, child(path, "path"))
    paths.local_non_reserved(target, child(path, "path"), RULE, f)
    if item.get("fieldRef") is not None:
        env_checks.check_field_ref(as_dict(item["fieldRef"]), child(path, "fieldRef"), VOLUME_FIELD_PATHS, f)
        if item.get("resourceFieldRef") is not None:
            f.invalid(RULE, path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously")
    elif item.get("resourceFieldRef") is not None:
        env_checks.check_resource_field_ref(as_dict(item["resourceFieldRef"]), child(path, "resourceFieldRef"), True, f)
    else:
        f.required(RULE, path, "one of fieldRef and resourceFieldRef is required")
    _mode(item.get("mode"), child(path, "mode"), f)


def _downward_api(source, path, f):
    _mode(source.get("defaultMode"), child(path, "defaultMode"), f)
    # upstream reports each item at the volume's downwardAPI path, not at items[i]
    for item in as_list(source.get("items")):
        _downward_file(as_dict(item), path, f)


def _projected(source, path, f):
    _mode(source.get("defaultMode"), child(path, "defaultMode"), f)
    seen: set = set()
    for i, src in enumerate(as_list(source.get("sources"))):
        src = as_dict(src)
        where = index(child(path, "sources"), i)
        count = 0
        for kind in ("secret", "configMap"):
            ref = src.get(kind)
            if ref is None:
                continue
            count += 1
            ref = as_dict(ref)
            if not ref.get("name"):
                f.required(RULE, child(child(where, kind), "name"))
            _key_to_paths(ref.get("items"), child(child(where, kind), "items"), f, seen, path, ref.get("name", ""))
        if src.get("downwardAPI") is not None:
            count += 1
            for item in as_list(as_dict(src["downwardAPI"]).get("items")):
                item = as_dict(item)
                _downward_file(item, child(where, "downwardAPI"), f)
                target = as_str(item.get("path"))
                if target:
                    if target in seen:
                        f.invalid(RULE, path, target, "conflicting duplicate paths")
                    seen.add(target)
        token = src.get("serviceAccountToken")
        if token is not None:
            count += 1
            token = as_dict(token)
            expiry = as_int(token.get("expirationSeconds"))
            expiry = 3600 if expiry is None else expiry  # defaulted to one hour
            if expiry < 600:
                f.invalid(RULE, child(child(where, "serviceAccountToken"), "expirationSeconds"), expiry,
                          "may not specify a duration less than 10 minutes")
            if expiry > 1 << 32:
                f.invalid(RULE, child(child(where, "serviceAccountToken"), "expirationSeconds"), expiry,
                          "may not specify a duration larger than 2^32 seconds")
            target = as_str(token.get("path"))
            if not target:
                f.required(RULE, child(path, "path"))
            else:
                paths.local_non_reserved(target, child(path, "path"), RULE, f)
        if src.get("clusterTrustBundle") is not None:
            count += 1
        if src.get("podCertificate") is not None:
            count += 1
        if count > 1:
            f.forbidden(RULE, where, "may not specify more than 1 volume type per source")


def _csi(source, path, f):
    """validateCSIVolumeSource: ValidateCSIDriverName (an empty name is only Required), then the
    nodePublishSecretRef's name."""
    driver = as_str(source.get("driver")) or ""
    where = child(path, "driver")
    if not driver:
        f.required(RULE, where)
    else:
        if len(driver) > 63:
            f.too_long(RULE, where, 63)
        for msg in utilvalidation.is_dns1123_subdomain(driver.lower()):
            f.invalid(RULE, where, driver, msg)
    ref = source.get("nodePublishSecretRef")
    if isinstance(ref, dict):
        name = as_str(ref.get("name")) or ""
        if not name:
            f.required(RULE, child(child(path, "nodePublishSecretRef"), "name"))
        else:
            # upstream reports a bad secret name at `csi.name` (fldPath.Child("name")), not under
            # nodePublishSecretRef; kept, so that the path is the API server's
            for msg in utilvalidation.is_dns1123_subdomain(name):
                f.invalid(RULE, child(path, "name"), name, msg)


ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")  # sets.List order
VOLUME_MODES = ("Block", "Filesystem")


def _ephemeral(source, path, f):
    """validateEphemeralVolumeSource: the claim template's metadata (labels and annotations only) and
    ValidatePersistentVolumeClaimSpec, which the API server checks when the Pod is created."""
    template = source.get("volumeClaimTemplate")
    where = child(path, "volumeClaimTemplate")
    if template is None:
        f.required(RULE, where)
        return
    template = as_dict(template)
    # ValidateTemplateObjectMeta: every metadata field but labels and annotations "cannot be set"
    for name in as_dict(template.get("metadata")):
        if name not in ("labels", "annotations"):
            f.forbidden(RULE, child(child(where, "metadata"), name), "cannot be set")
    _claim_spec(as_dict(template.get("spec")), child(where, "spec"), f)


def _claim_spec(spec: dict, path: str, f) -> None:
    """ValidatePersistentVolumeClaimSpec, without the label selector's syntax (the names family's)."""
    modes = as_list(spec.get("accessModes"))
    if not modes:
        f.required(RULE, child(path, "accessModes"), "at least 1 access mode is required")
    once_pod = other = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            f.unsupported(RULE, child(path, "accessModes"), mode if isinstance(mode, str) else "", ACCESS_MODES)
        elif mode == "ReadWriteOncePod":
            once_pod = True
        else:
            other = True
    if once_pod and other:
        f.forbidden(RULE, child(path, "accessModes"), "may not use ReadWriteOncePod with other access modes")
    # upstream keys the storage request on `resources`, not `resources.requests`
    where = key(child(path, "resources"), "storage")
    requests = as_dict(as_dict(spec.get("resources")).get("requests"))
    if "storage" not in requests:
        f.required(RULE, where)
    else:
        try:
            q = quantity.parse(requests["storage"])
        except (quantity.QuantityError, TypeError, ValueError):
            q = None
        if q is not None and q.nanos <= 0:
            f.invalid(RULE, where, quantity.canonical(q), "must be greater than zero")
    storage_class = as_str(spec.get("storageClassName"))
    if storage_class:
        for msg in utilvalidation.is_dns1123_subdomain(storage_class):
            f.invalid(RULE, child(path, "storageClassName"), storage_class, msg)
    mode = spec.get("volumeMode")
    if isinstance(mode, str) and mode not in VOLUME_MODES:
        f.unsupported(RULE, child(path, "volumeMode"), mode, VOLUME_MODES)
    for field in ("dataSource", "dataSourceRef"):
        ref = spec.get(field)
        if isinstance(ref, dict):
            _data_source(ref, child(path, field), f)


def _data_source(ref: dict, path: str, f) -> None:
    """validateDataSource / validateDataSourceRef: name and kind; the core group only for claims."""
    if not ref.get("name"):
        f.required(RULE, child(path, "name"))
    kind = as_str(ref.get("kind")) or ""
    if not kind:
        f.required(RULE, child(path, "kind"))
    group = as_str(ref.get("apiGroup")) or ""
    if not group and kind != "PersistentVolumeClaim":
        f.invalid(RULE, path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup")
    if group:
        for msg in utilvalidation.is_dns1123_subdomain(group):
            f.invalid(RULE, child(path, "apiGroup"), group, msg)


PULL_POLICIES = ("Always", "IfNotPresent", "Never")


def _image(source, path, f):
    """validateImageVolumeSource for a template: the reference may stay empty there (upstream refuses
    an empty one for a Pod); pullPolicy is defaulted from the reference's tag when absent
    (SetDefaults_ImageVolumeSource), so only a value outside validatePullPolicy's set is refused."""
    policy = source.get("pullPolicy")
    if isinstance(policy, str) and policy and policy not in PULL_POLICIES:
        f.unsupported(RULE, child(path, "pullPolicy"), policy, PULL_POLICIES)


_SOURCE_CHECKS = {"emptyDir": _empty_dir, "hostPath": _host_path, "secret": _secret, "configMap": _config_map,
                  "persistentVolumeClaim": _pvc, "nfs": _nfs, "downwardAPI": _downward_api,
                  "projected": _projected, "csi": _csi, "ephemeral": _ephemeral, "image": _image}


def check_mounts(container: dict, path: str, volumes: dict, f) -> None:
    """ValidateVolumeMounts and ValidateVolumeDevices of one container."""
    mounts = [m if isinstance(m, dict) else {} for m in as_list(container.get("volumeMounts"))]
    devices = [d if isinstance(d, dict) else {} for d in as_list(container.get("volumeDevices"))]
    device_paths = {as_str(d.get("name")): d.get("devicePath") for d in devices}
    mount_paths = {as_str(m.get("name")): m.get("mountPath") for m in mounts}
    privileged = as_dict(container.get("securityContext")).get("privileged") is True
    mounts_path = child(path, "volumeMounts")
    seen: set = set()
    for i, mount in enumerate(mounts):
        where = index(mounts_path, i)
        name = as_str(mount.get("name")) or ""
        mount_path = as_str(mount.get("mountPath")) or ""
        if not name:
            f.required(RULE, child(where, "name"))
        if name not in volumes:
            f.not_found(RULE, child(where, "name"), name)
        if not mount_path:
            f.required(RULE, child(where, "mountPath"))
        if mount_path in seen:
            f.invalid(RULE, child(where, "mountPath"), mount_path, "must be unique")
        seen.add(mount_path)
        if name in device_paths:
            f.invalid(RULE, child(where, "name"), name, "must not already exist in volumeDevices")
        if mount_path in device_paths.values():
            f.invalid(RULE, child(where, "mountPath"), mount_path, "must not already exist as a path in volumeDevices")
        sub_path, sub_expr = as_str(mount.get("subPath")) or "", as_str(mount.get("subPathExpr")) or ""
        # an image volume may be mounted with a subPath or subPathExpr: 1.36's ValidateVolumeMounts has
        # no image-volume exception any more (TestValidateVolumeMounts' image-volume successes)
        # upstream reports subPath problems at `volumeMounts.subPath` (no index)
        if sub_path:
            paths.local_descending(sub_path, child(mounts_path, "subPath"), RULE, f)
        if sub_expr:
            if sub_path:
                f.invalid(RULE, child(where, "subPathExpr"), sub_expr, "subPathExpr and subPath are mutually exclusive")
            paths.local_descending(sub_expr, child(mounts_path, "subPathExpr"), RULE, f)
        propagation = mount.get("mountPropagation")
        if isinstance(propagation, str):
            where_p = child(mounts_path, "mountPropagation")
            if propagation not in PROPAGATIONS:
                f.unsupported(RULE, where_p, propagation, PROPAGATIONS)
            if propagation == "Bidirectional" and not privileged:
                f.forbidden(RULE, where_p, "Bidirectional mount propagation is available only to privileged containers")
        rro = mount.get("recursiveReadOnly")
        if isinstance(rro, str):
            where_r = child(mounts_path, "recursiveReadOnly")
            if rro in ("Enabled", "IfPossible"):
                if mount.get("readOnly") is not True:
                    f.forbidden(RULE, where_r, "may only be specified when readOnly is true")
                if propagation not in (None, "None"):
                    f.forbidden(RULE, where_r, "may only be specified when mountPropagation is None or not specified")
            elif rro != "Disabled":
                f.unsupported(RULE, where_r, rro, RECURSIVE_READ_ONLY)
    devices_path = child(path, "volumeDevices")
    seen_paths: set = set()
    seen_names: set = set()
    for i, device in enumerate(devices):
        where = index(devices_path, i)
        name = as_str(device.get("name")) or ""
        device_path = as_str(device.get("devicePath")) or ""
        source = volumes.get(name)
        if not name:
            f.required(RULE, child(where, "name"))
        if name in seen_names:
            f.invalid(RULE, child(where, "name"), name, "must be unique")
        if source is not None and source.get("persistentVolumeClaim") is None and source.get("ephemeral") is None:
            f.invalid(RULE, child(where, "name"), name,
                      "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode")
        if source is None:
            f.not_found(RULE, child(where, "name"), name)
        if not device_path:
            f.required(RULE, child(where, "devicePath"))
        if device_path in seen_paths:
            f.invalid(RULE, child(where, "devicePath"), device_path, "must be unique")
        if device_path and ".." in device_path.split("/"):
            f.invalid(RULE, child(where, "devicePath"), device_path, "can not contain backsteps ('..')")
        else:
            seen_paths.add(device_path)
        if name in mount_paths:
            f.invalid(RULE, child(where, "name"), name, "must not already exist in volumeMounts")
        if device_path in mount_paths.values():
            f.invalid(RULE, child(where, "devicePath"), device_path, "must not already exist as a path in volumeMounts")
        if name:
            seen_names.add(name)
