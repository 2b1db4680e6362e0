"""Secret material for the MPI SSH Secret and the Flux CURVE Secret, and the policy that governs it.

The controller makes both Secrets in the cluster: a fresh random ECDSA P-521 key pair per MPI TrainJob
(pkg/runtime/framework/plugins/mpi/mpi.go buildSSHAuthSecret at v2.3.0) and an X25519 CURVE certificate
derived from SHA-256 of the TrainJob UID for Flux (pkg/runtime/framework/plugins/flux/flux.go
buildCurveSecret). Neither can be reproduced offline: there is no randomness we may commit to Git
silently and no UID before the API server assigns one. So the renderer never writes
private key material unless it is told to.

Policy, per Secret kind, from the functionConfig's options (kpt_fn.config declares them, with their
defaults; docs/options.md): `mpiSSHSecret` / `fluxCurveSecret` (the mode), `mpiSSHSecretName` /
`fluxCurveSecretName` (the name template) and `secretSeed` (required with generate, >= 16 characters).

`{name}` in a name template is replaced by the TrainJob name; without it every TrainJob of the
namespace shares one Secret (useful for a single, user-managed SSH identity).

reference  No Secret is emitted. The JobSet's volumes point at the templated name, and an info
           result states exactly which Secret (name, namespace, type, keys) must exist in the
           cluster before the pods can start (they mount it as a non-optional volume).
generate   The Secret is emitted with key material derived deterministically from
           HKDF(secretSeed, namespace, Secret name), so re-rendering gives identical bytes, plus a
           warning result that private key material is being written to the output. The output then
           has to be handled like a secret (e.g. encrypted before it is committed). Keys differ from
           the ones the controller would make; no in-cluster component depends on their values.
           The seed is as sensitive as the keys (they can be re-derived from it), so it does not
           belong in Git either. With a shared Secret name every TrainJob renders the identical
           Secret (same keys; the CURVE certificate then names the Secret, not a TrainJob).

The hostfile ConfigMap and the Flux entrypoint ConfigMap are not secret and are always emitted.
"""

from __future__ import annotations

import base64

from kpt_fn.config import SECRET_POLICIES as MODES, option
from kpt_fn.problems import INFO, WARNING, Problem, Rule

REFERENCE, GENERATE = MODES  # the values of the mpiSSHSecret and fluxCurveSecret options

MPI_SSH = "mpi-ssh"
FLUX_CURVE = "flux-curve"

_CONFIG_KEYS = {MPI_SSH: ("mpiSSHSecret", "mpiSSHSecretName"), FLUX_CURVE: ("fluxCurveSecret", "fluxCurveSecretName")}
MIN_SEED_LENGTH = 16

RULE_MPI_REFERENCE = "secret-policy/mpi-ssh-secret-required"
RULE_MPI_GENERATED = "secret-policy/mpi-ssh-secret-generated"
RULE_FLUX_REFERENCE = "secret-policy/flux-curve-secret-required"
RULE_FLUX_GENERATED = "secret-policy/flux-curve-secret-generated"
RULE_OPTIONS = "secret-policy/options"

RULES = [
    Rule(RULE_MPI_REFERENCE, "TrainJob",
         "MPI runtime without generated keys: the SSH Secret the pods mount must be provided in the cluster."),
    Rule(RULE_MPI_GENERATED, "TrainJob",
         "mpiSSHSecret=generate: an SSH private key derived from secretSeed is written to the output."),
    Rule(RULE_FLUX_REFERENCE, "TrainJob",
         "Flux runtime without generated keys: the CURVE certificate Secret must be provided in the cluster."),
    Rule(RULE_FLUX_GENERATED, "TrainJob",
         "fluxCurveSecret=generate: a CURVE secret key derived from secretSeed is written to the output."),
    Rule(RULE_OPTIONS, "TrainJob",
         "The secret options must be valid: known modes, a secretSeed of >= 16 characters with generate, "
         "name templates giving DNS-1123 names."),
]


# Order of the P-521 group (SEC 2); private scalars must lie in [1, n-1].
_P521_ORDER = int(
    "01FF" + "FFFFFFFF" * 7 + "FFFFFFFA" + "51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB71E91386409", 16
)
_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


class SecretPolicyError(ValueError):
    """The options ask for something the policy cannot do (bad mode, missing seed, bad name); `key`:
    the functionConfig option to change."""

    def __init__(self, message: str, key: str = ""):
        super().__init__(message)
        self.key = key


class SecretPolicy:
    """Immutable, equal by value. A plain class: creating a dataclass cost start-up."""

    __slots__ = ("kind", "mode", "name_template", "seed")

    def __init__(self, kind: str, mode: str, name_template: str, seed: str | None = None):
        setattr_ = object.__setattr__
        setattr_(self, "kind", kind)  # MPI_SSH or FLUX_CURVE
        setattr_(self, "mode", mode)
        setattr_(self, "name_template", name_template)
        setattr_(self, "seed", seed)

    def __setattr__(self, name, value):
        raise AttributeError(f"SecretPolicy is immutable: cannot set {name}")

    def _key(self) -> tuple:
        return (self.kind, self.mode, self.name_template, self.seed)

    def __eq__(self, other):
        return self._key() == other._key() if type(other) is SecretPolicy else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"SecretPolicy(kind={self.kind!r}, mode={self.mode!r}, name_template={self.name_template!r}, "
                f"seed={'<set>' if self.seed else self.seed!r})")

    def secret_name(self, trainjob_name: str) -> str:
        name = self.name_template.replace("{name}", trainjob_name)
        from kpt_fn.apimachinery.validation import is_dns1123_subdomain

        if is_dns1123_subdomain(name):
            key = _CONFIG_KEYS[self.kind][1]
            raise SecretPolicyError(f'{key} gives the Secret name "{name}", which is not a valid DNS-1123 subdomain', key)
        return name

    @property
    def per_trainjob(self) -> bool:
        return "{name}" in self.name_template


def _option(options, key: str):
    # An empty value is the option's default (a ConfigMap cannot leave a key out of a generated form).
    return getattr(options, key) or option(key).default


def policy(options, kind: str) -> SecretPolicy:
    """The policy for `kind` from EngineOptions (the functionConfig's options by name).

    Raises SecretPolicyError for values the policy cannot honour.
    """
    mode_key, name_key = _CONFIG_KEYS[kind]
    mode = _option(options, mode_key)
    if mode not in MODES:
        choices = ", ".join('"' + m + '"' for m in MODES)
        raise SecretPolicyError(f'{mode_key} must be one of {choices}; got "{mode}"', mode_key)
    seed = options.secretSeed
    if mode == GENERATE:
        if not seed:
            raise SecretPolicyError(f"secretSeed is required when {mode_key} is generate", "secretSeed")
        if len(seed) < MIN_SEED_LENGTH:
            raise SecretPolicyError(f"secretSeed must be at least {MIN_SEED_LENGTH} characters long", "secretSeed")
    return SecretPolicy(kind=kind, mode=mode, name_template=_option(options, name_key), seed=seed)


def render_secret_name(options, kind: str, trainjob_name: str) -> str:
    from kpt_fn.engine.framework import RenderError

    try:
        return policy(options, kind).secret_name(trainjob_name)
    except SecretPolicyError as exc:
        raise RenderError(str(exc), rule=RULE_OPTIONS) from exc


def render_secret(options, kind: str, trainjob_name: str, namespace) -> tuple[list, Problem]:
    """What a plugin's build writes for the Secret of `kind`: ([the Secret] when generated, [] when
    referenced) and the finding that tells the user (its key material in the output, or the Secret
    the cluster must hold). An unusable option aborts the render like upstream's errors."""
    from kpt_fn.engine.framework import RenderError

    make, generated, referenced = _RENDERED[kind]
    try:
        pol = policy(options, kind)
        secret_name = pol.secret_name(trainjob_name)
        if pol.mode == GENERATE:
            return [make(pol, trainjob_name, namespace)], generated(secret_name, namespace)
    except SecretPolicyError as exc:
        raise RenderError(str(exc), rule=RULE_OPTIONS) from exc
    return [], referenced(secret_name, namespace)


def check_options(options) -> list[tuple[str, str]]:
    """(message, option) for every secret option the policy cannot honour (for eager functionConfig
    checks): the option is the one to change.

    Name templates are checked with a sample TrainJob name; the engine checks the real names.
    """
    found = []
    for kind in (MPI_SSH, FLUX_CURVE):
        try:
            policy(options, kind).secret_name("trainjob")
        except SecretPolicyError as exc:
            found.append((str(exc), exc.key))
    return found


# --- key derivation ---------------------------------------------------------------------------


def _derive(seed: str, label: str, namespace: str, secret_name: str, length: int, algorithm) -> bytes:
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    # The namespace and Secret name bind the key to the one object it is written into; the label
    # separates the MPI and Flux uses of the same seed.
    info = b"\x00".join((b"expand-trainjobs", label.encode(), namespace.encode(), secret_name.encode()))
    return HKDF(algorithm=algorithm, length=length, salt=None, info=info).derive(seed.encode("utf-8"))


def mpi_ssh_key_pair(seed: str, namespace: str, secret_name: str) -> tuple[bytes, bytes]:
    """(private key PEM, authorized_keys line) in the controller's formats (mpi.go buildSSHAuthSecret).

    PEM "EC PRIVATE KEY" (SEC 1, 66-byte scalar, named curve, public key) and
    "ecdsa-sha2-nistp521 <base64>\\n". The scalar is HKDF output reduced into [1, n-1]; 16 bytes
    beyond the order's length make the reduction bias negligible.
    """
    # cryptography is imported only when keys are generated: most renders never need it.
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    okm = _derive(seed, "mpi-ssh-auth/v1", namespace, secret_name, 82, hashes.SHA512())
    scalar = int.from_bytes(okm, "big") % (_P521_ORDER - 1) + 1
    key = ec.derive_private_key(scalar, ec.SECP521R1())
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return private_pem, public + b"\n"


def z85_encode(data: bytes) -> str:
    """ZeroMQ Z85; like upstream, input whose length is not a multiple of 4 gives ""."""
    if len(data) % 4:
        return ""
    out = []
    for i in range(0, len(data), 4):
        value = int.from_bytes(data[i : i + 4], "big")
        out.append(
            _Z85[value // 52200625 % 85] + _Z85[value // 614125 % 85] + _Z85[value // 7225 % 85]
            + _Z85[value // 85 % 85] + _Z85[value % 85]
        )
    return "".join(out)


def curve_certificate(cert_name: str, secret_key: bytes) -> str:
    """The czmq certificate text the controller writes, for a 32-byte X25519 secret key (flux.go
    buildCurveSecret)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import x25519

    private = x25519.X25519PrivateKey.from_private_bytes(secret_key)
    public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return (
        "#  ZeroMQ CURVE Secret Certificate\n"
        "#  Generated by Kubeflow Trainer\n\n"
        "metadata\n"
        f'    name = "{cert_name}"\n'
        "curve\n"
        f'    public-key = "{z85_encode(public)}"\n'
        f'    secret-key = "{z85_encode(private.private_bytes_raw())}"\n'
    )


def curve_secret_key(seed: str, namespace: str, secret_name: str) -> bytes:
    from cryptography.hazmat.primitives import hashes

    return _derive(seed, "flux-curve/v1", namespace, secret_name, 32, hashes.SHA256())


# --- objects and results ------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def mpi_ssh_secret(pol: SecretPolicy, trainjob_name: str, namespace: str) -> dict:
    """The SSH Secret in the controller's shape, with keys derived from the seed."""
    name = pol.secret_name(trainjob_name)
    private_pem, public = mpi_ssh_key_pair(pol.seed, namespace or "", name)
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace},
        "type": "kubernetes.io/ssh-auth",
        "immutable": True,
        "data": {"ssh-privatekey": _b64(private_pem), "ssh-publickey": _b64(public)},
    }


def flux_curve_secret(pol: SecretPolicy, trainjob_name: str, namespace: str) -> dict:
    """The CURVE Secret in the controller's shape (no type, not immutable)."""
    name = pol.secret_name(trainjob_name)
    # The certificate names its TrainJob like upstream; a Secret shared by several TrainJobs is
    # named after itself so that all renderings of it are identical.
    cert_name = trainjob_name if pol.per_trainjob else name
    cert = curve_certificate(cert_name, curve_secret_key(pol.seed, namespace or "", name))
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace},
        "data": {"curve.cert": _b64(cert.encode("utf-8"))},
    }


def _where(namespace) -> str:
    return f'namespace "{namespace}"' if namespace else "the TrainJob's namespace"


def mpi_ssh_reference_problem(secret_name: str, namespace) -> Problem:
    return Problem(
        message=(
            f'MPI SSH keys are not generated offline (mpiSSHSecret: reference): Secret "{secret_name}" in '
            f"{_where(namespace)} must exist before the JobSet's pods start, of type kubernetes.io/ssh-auth "
            "with keys ssh-privatekey (PEM private key) and ssh-publickey (OpenSSH authorized_keys line); "
            "launcher and node pods mount it as id_rsa, id_rsa.pub and authorized_keys"
        ),
        severity=INFO,
        rule=RULE_MPI_REFERENCE,
    )


def mpi_ssh_generated_problem(secret_name: str, namespace) -> Problem:
    return Problem(
        message=(
            f'Secret "{secret_name}" in {_where(namespace)} contains an SSH private key derived from secretSeed '
            "(mpiSSHSecret: generate): the output holds private key material; encrypt it or keep it out of Git"
        ),
        severity=WARNING,
        rule=RULE_MPI_GENERATED,
    )


def flux_curve_reference_problem(secret_name: str, namespace) -> Problem:
    return Problem(
        message=(
            f'Flux CURVE keys are not generated offline (fluxCurveSecret: reference): Secret "{secret_name}" in '
            f"{_where(namespace)} must exist before the JobSet's pods start, with key curve.cert holding a "
            "ZeroMQ CURVE certificate (e.g. from flux keygen); node pods mount it at /curve"
        ),
        severity=INFO,
        rule=RULE_FLUX_REFERENCE,
    )


def flux_curve_generated_problem(secret_name: str, namespace) -> Problem:
    return Problem(
        message=(
            f'Secret "{secret_name}" in {_where(namespace)} contains a CURVE secret key derived from secretSeed '
            "(fluxCurveSecret: generate): the output holds private key material; encrypt it or keep it out of Git"
        ),
        severity=WARNING,
        rule=RULE_FLUX_GENERATED,
    )


# Per kind: the generated Secret, and the finding when it is generated and when it is referenced.
_RENDERED = {
    MPI_SSH: (mpi_ssh_secret, mpi_ssh_generated_problem, mpi_ssh_reference_problem),
    FLUX_CURVE: (flux_curve_secret, flux_curve_generated_problem, flux_curve_reference_problem),
}
