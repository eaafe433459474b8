"""The kubeconfig's server, TLS settings and credentials, read with the kubernetes client's loader,
except for what kwhatif does itself:

- an `exec` credential plugin runs as kubectl runs it (client-go's exec authenticator: the
  command resolved next to its kubeconfig, its env on top of ours, KUBERNETES_EXEC_INFO with the
  ExecCredential apiVersion, interactive only when standard input is a terminal and the
  interactiveMode allows it), its standard error shown as it goes, but bounded by a timeout;
- a legacy `auth-provider` (gcp, azure, oidc) is refused with what to use instead, rather than
  requests going out without credentials.

What a plugin writes on its standard output (the credential) is never repeated in a message.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import subprocess
import sys
from typing import Any

from kwhatif import secrets
from kwhatif.bounded import OutputTooLarge, read_bounded, run_bounded
from kwhatif.errors import ClusterError, InputError

# A token (a JWT with its claims: a few KiB) and an ExecCredential (a token, or a client
# certificate and key) are far smaller than these; past them the source is not what it claims.
MAX_TOKEN_BYTES = 1 << 20
MAX_EXEC_OUTPUT_BYTES = 4 << 20
_SECRET_NAME = re.compile(r"(?i)token|secret|passw|pwd|key|credential|auth|cert|session")
EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
_INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")
# What replaces each legacy auth-provider (client-go removed gcp and azure in 1.26).
_AUTH_PROVIDER_INSTEAD = {
    "gcp": "the gke-gcloud-auth-plugin exec plugin (gcloud components install gke-gcloud-auth-plugin)",
    "azure": "the kubelogin exec plugin (kubelogin convert-kubeconfig)",
    "oidc": "an exec plugin such as kubelogin (kubectl oidc-login)",
}


def load_configuration(kubeconfig: str | None, context: str | None, timeout: float) -> Any:
    """The kubernetes client Configuration of the context (the current one unless named), with
    the credentials resolved. ``timeout`` bounds an exec plugin (0: none)."""
    try:
        from kubernetes.client import Configuration
        from kubernetes.config import kube_config
        from kubernetes.config.config_exception import ConfigException
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise ClusterError(f"the kubernetes client is not installed: {e}") from None
    from kwhatif.load.kubeconfig import kubeconfig_paths, merged_kubeconfig

    try:
        merged = merged_kubeconfig(kubeconfig)
        if merged is None:
            where = ", ".join(kubeconfig_paths(kubeconfig))
            raise ConfigException(f"no configuration found in {where}")
        loader = kube_config.KubeConfigLoader(config_dict=merged, active_context=context, config_base_path=None)  # type: ignore[no-untyped-call]
        user_name, user, cluster, base = _active_user(merged, loader)
        if user is not None:
            _resolve_credentials(user_name, user, cluster, base, timeout)
        cfg = Configuration()
        loader.load_and_set(cfg)  # type: ignore[no-untyped-call]
    except (ClusterError, InputError):
        raise
    except ConfigException as e:
        raise ClusterError(f"kubeconfig: {e}") from None
    except FileNotFoundError as e:
        raise ClusterError(f"kubeconfig: {e.filename or kubeconfig}: no such file") from None
    except Exception as e:  # the loader raises assorted errors for malformed files
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(f"not a valid kubeconfig ({msg})", source=kubeconfig or "kubeconfig") from None
    return cfg


def _active_user(config: Any, loader: Any) -> tuple[str, dict[str, Any] | None, dict[str, Any], str]:
    """The active context's user entry (the dict the loader reads), its cluster and the
    directory of the file the cluster came from."""
    ctx = (loader.current_context or {}).get("context") or {}
    cluster_node = config["clusters"].get_with_name(ctx.get("cluster"))
    cluster = cluster_node["cluster"].value if "cluster" in cluster_node else {}
    path = getattr(cluster_node, "path", None)
    base = os.path.dirname(os.path.abspath(path)) if isinstance(path, str) and path else os.getcwd()
    name = ctx.get("user")
    if not name or "users" not in config:
        return "", None, cluster, base
    node = config["users"].get_with_name(name, safe=True)
    if not node or "user" not in node:
        return str(name), None, cluster, base
    user = node["user"].value
    upath = getattr(node, "path", None)
    if isinstance(upath, str) and upath:
        base = os.path.dirname(os.path.abspath(upath))
    return str(name), user if isinstance(user, dict) else None, cluster, base


def _resolve_credentials(name: str, user: dict[str, Any], cluster: dict[str, Any], base: str, timeout: float) -> None:
    provider = user.get("auth-provider")
    if provider is not None:
        pname = str(provider.get("name") or "") if isinstance(provider, dict) else ""
        instead = _AUTH_PROVIDER_INSTEAD.get(pname, "an exec credential plugin")
        raise ClusterError(
            f"kubeconfig user {name!r}: the {pname or 'legacy'} auth-provider is not supported (kubectl "
            f"itself dropped gcp and azure); use {instead} in the user's exec section"
        )
    _register_secrets(user)
    token_file = user.get("tokenFile")
    if isinstance(token_file, str) and token_file and not user.get("token"):
        # client-go reads the file with its surrounding whitespace trimmed (a token written with
        # echo ends in a newline, which no HTTP header may hold); here within a size and, for a
        # FIFO or device, a time bound
        path = token_file if os.path.isabs(token_file) or not base else os.path.join(base, token_file)
        try:
            data = read_bounded(path, MAX_TOKEN_BYTES, timeout)
            if len(data) > MAX_TOKEN_BYTES:
                raise ClusterError(
                    f"kubeconfig user {name!r}: tokenFile {token_file}: larger than {MAX_TOKEN_BYTES // 1024} KiB, "
                    "not a token"
                )
            user["token"] = data.decode("utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else "not a UTF-8 text file"
            raise ClusterError(f"kubeconfig user {name!r}: tokenFile {token_file}: {why}") from None
        secrets.register(user["token"])
        user.pop("tokenFile")
    spec = user.get("exec")
    if spec is None or user.get("token") or user.get("tokenFile"):
        return  # a token comes first, as the client reads it
    status = run_exec_plugin(name, spec, cluster, base, timeout)
    secrets.register(*(v for v in status.values() if isinstance(v, str)))
    user.pop("exec", None)
    if status.get("token"):
        user["token"] = status["token"]
    else:
        user["client-certificate-data"] = base64.b64encode(status["clientCertificateData"].encode()).decode()
        user["client-key-data"] = base64.b64encode(status["clientKeyData"].encode()).decode()


def _register_secrets(user: dict[str, Any]) -> None:
    """The user's credentials, hidden from all output from now on (kwhatif.secrets)."""
    for key in ("token", "password", "client-key-data"):
        value = user.get(key)
        if isinstance(value, str) and value:
            secrets.register(value)
            if key == "client-key-data":
                with contextlib.suppress(ValueError):
                    secrets.register(base64.b64decode(value, validate=False).decode("utf-8", "replace"))
    spec = user.get("exec")
    if isinstance(spec, dict):
        # an exec plugin's env often carries a credential (a client secret, an API key); the
        # variables named for one are hidden (a region or profile name is left as it is: hiding
        # "default" everywhere would garble every report)
        for item in spec.get("env") or []:
            if (
                isinstance(item, dict)
                and isinstance(item.get("value"), str)
                and _SECRET_NAME.search(str(item.get("name") or ""))
            ):
                secrets.register(item["value"])


def run_exec_plugin(
    name: str, spec: Any, cluster: dict[str, Any], base: str, timeout: float, stdin: Any = None
) -> dict[str, Any]:
    """Run the user's exec plugin and return the status of its ExecCredential (token, or client
    certificate and key)."""
    who = f"kubeconfig user {name!r}: exec plugin"
    if not isinstance(spec, dict):
        raise InputError(f"{who}: exec must be a mapping", source="kubeconfig")
    command = spec.get("command")
    api_version = spec.get("apiVersion")
    if not isinstance(command, str) or not command:
        raise ClusterError(f"{who}: exec.command is missing")
    if api_version not in EXEC_API_VERSIONS:
        raise ClusterError(
            f"{who} {command}: exec.apiVersion {api_version!r} is not one of {', '.join(EXEC_API_VERSIONS)}"
        )
    mode = spec.get("interactiveMode") or ("IfAvailable" if api_version.endswith("v1beta1") else "")
    if mode not in _INTERACTIVE_MODES:
        raise ClusterError(f"{who} {command}: exec.interactiveMode must be one of {', '.join(_INTERACTIVE_MODES)}")
    stdin = sys.stdin if stdin is None else stdin
    terminal = bool(stdin is not None and hasattr(stdin, "isatty") and stdin.isatty())
    if mode == "Always" and not terminal:
        raise ClusterError(
            f"{who} {command}: the plugin needs an interactive terminal (interactiveMode Always) and "
            "standard input is not one"
        )
    interactive = terminal and mode != "Never"
    # client-go resolves a relative command with a path separator against the kubeconfig's directory
    if os.sep in command and not os.path.isabs(command):
        command = os.path.join(base, command)
    args = spec.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ClusterError(f"{who} {command}: exec.args must be a list of strings")
    env = dict(os.environ)
    for item in spec.get("env") or []:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            env[item["name"]] = str(item.get("value") or "")
    info: dict[str, Any] = {"apiVersion": api_version, "kind": "ExecCredential", "spec": {"interactive": interactive}}
    if spec.get("provideClusterInfo"):
        info["spec"]["cluster"] = _cluster_info(cluster)
    env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
    # its standard error shown as kubectl shows it, without secrets: as it comes when the
    # plugin talks to a person, else once it has answered (so that the credential it answers is
    # hidden there too); its standard output, the credential, bounded in size as in time
    held: list[str] | None = None if interactive else []
    stdout = b""
    try:
        returncode, stdout = run_bounded(
            [command, *args],
            max_stdout=MAX_EXEC_OUTPUT_BYTES,
            timeout=timeout,
            stdin=stdin if interactive else subprocess.DEVNULL,
            env=env,
            held=held,
        )
    except OutputTooLarge:
        raise ClusterError(
            f"{who} {command}: it wrote more than {MAX_EXEC_OUTPUT_BYTES // (1024 * 1024)} MiB on its standard "
            "output, which is no ExecCredential (it was stopped)"
        ) from None
    except FileNotFoundError:
        hint = spec.get("installHint")
        extra = f" ({str(hint).strip().splitlines()[0]})" if isinstance(hint, str) and hint.strip() else ""
        raise ClusterError(f"{who} {command}: no such command{extra}") from None
    except PermissionError:
        raise ClusterError(f"{who} {command}: permission denied") from None
    except subprocess.TimeoutExpired:
        raise ClusterError(f"{who} {command}: no credential within {timeout:g}s (see --request-timeout)") from None
    except OSError as e:
        raise ClusterError(f"{who} {command}: cannot run it: {e.strerror or type(e).__name__}") from None
    finally:
        if held is not None:
            _show_held(held, stdout)
    if returncode != 0:
        raise ClusterError(f"{who} {command}: exited with status {returncode}")
    return _exec_status(f"{who} {command}", stdout, api_version)


def _show_held(held: list[str], stdout: bytes) -> None:
    """A plugin's standard error, written once what it answered is known to be secret."""
    try:
        doc = json.loads(stdout) if stdout else None
    except ValueError:
        doc = None
    status = doc.get("status") if isinstance(doc, dict) else None
    if isinstance(status, dict):
        secrets.register(*(v for v in status.values() if isinstance(v, str)))
    if held:
        sys.stderr.write("".join(held))
        sys.stderr.flush()


def _exec_status(who: str, out: bytes, api_version: str) -> dict[str, Any]:
    """The status of the plugin's ExecCredential. Its output is a secret: messages say what is
    wrong with it, never what it holds."""
    try:
        doc = json.loads(out)
    except ValueError:
        raise ClusterError(f"{who}: its standard output is not an ExecCredential (not JSON)") from None
    if not isinstance(doc, dict) or doc.get("kind") != "ExecCredential":
        raise ClusterError(f"{who}: its standard output is not an ExecCredential")
    if doc.get("apiVersion") != api_version:
        raise ClusterError(f"{who}: it answered an ExecCredential of another apiVersion than {api_version}")
    status = doc.get("status")
    if not isinstance(status, dict):
        raise ClusterError(f"{who}: its ExecCredential has no status")
    token = status.get("token")
    cert, key = status.get("clientCertificateData"), status.get("clientKeyData")
    if isinstance(token, str) and token:
        return {"token": token}
    if isinstance(cert, str) and cert and isinstance(key, str) and key:
        return {"clientCertificateData": cert, "clientKeyData": key}
    if cert or key:
        raise ClusterError(f"{who}: its ExecCredential gives clientCertificateData and clientKeyData only together")
    raise ClusterError(f"{who}: its ExecCredential has neither a token nor a client certificate")


def _cluster_info(cluster: dict[str, Any]) -> dict[str, Any]:
    """The Cluster of ExecCredential.spec (provideClusterInfo), from the kubeconfig's cluster."""
    out: dict[str, Any] = {}
    for src, dst in (
        ("server", "server"),
        ("tls-server-name", "tls-server-name"),
        ("insecure-skip-tls-verify", "insecure-skip-tls-verify"),
        ("certificate-authority-data", "certificate-authority-data"),
        ("proxy-url", "proxy-url"),
        ("disable-compression", "disable-compression"),
    ):
        if src in cluster:
            out[dst] = cluster[src]
    for ext in cluster.get("extensions") or []:
        if isinstance(ext, dict) and ext.get("name") == "client.authentication.k8s.io/exec":
            out["config"] = ext.get("extension")
    return out
