"""`kwhatif` on real-world manifests and cluster dumps (tests/e2e/realworld, see SOURCES.md):
admission, controllers and CI behaviour that change the answer."""

from __future__ import annotations

import json

RW = "tests/e2e/realworld"
EKS = f"{RW}/eks/cluster-info-dump.txt"
EKS_STORAGE_CLASS = f"{RW}/derived/eks-storageclass-gp2.yaml"


def check_json(run, *args: str) -> tuple[int, dict, str]:
    r = run("check", *args, "-o", "json")
    return r.code, json.loads(r.out) if r.out.strip() else {}, r.err


def test_kubernetes_io_prefixed_resources_are_native(run):
    # v1.30 accepts kubernetes.io/-prefixed container resources (no standard name needed, and
    # overcommit allowed); the scheduler then counts them like any scalar resource
    code, d, err = check_json(run, f"{RW}/derived/job-kubernetes-io-resource.yaml", "--cluster", EKS)
    assert code == 1, err
    (w,) = d["workloads"]
    assert (w["kind"], w["name"], w["desired"], w["placed"]) == ("Job", "j-e2e-1", 1, 0)
    assert w["dominantReason"] == "Insufficient kubernetes.io/something"
    assert w["message"].startswith(
        "0/2 nodes are available: 2 Insufficient kubernetes.io/something, 2 Insufficient subdomain.kubernetes.io/something."
    )


INVALID_LABEL_VALUE_ERROR = (
    '[0].matchExpressions[0].values[0][kubernetes.io/os]: Invalid value: "invalid value: ___@#$%^": a valid label '
    "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def test_node_affinity_value_the_scheduler_cannot_parse(run):
    # the API server stores a NotIn/In value that is no label value; the scheduler's selector
    # parsing rejects the term: a required term never matches, a preferred one fails PreScore
    code, d, err = check_json(run, f"{RW}/derived/selenium-hub-invalid-node-affinity.yaml", "--cluster", EKS)
    assert code == 1, err
    rows = {w["name"]: w for w in d["workloads"]}
    required = rows["selenium-hub-required"]
    # the dump's kubelets are v1.31.13: answered as 1.31, where DynamicResources is off
    assert required["message"] == (
        "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    (res,) = [r for r in d["results"] if r["pod"]["name"].startswith("selenium-hub-required-")]
    assert (
        f"the scheduler cannot parse this required node affinity term, so it never matches: nodeSelectorTerms{INVALID_LABEL_VALUE_ERROR}"
        in res["hints"]
    )
    preferred = rows["selenium-hub-preferred"]
    assert preferred["message"] == f'running PreScore plugin "NodeAffinity": {INVALID_LABEL_VALUE_ERROR}'
    (res,) = [r for r in d["results"] if r["pod"]["name"].startswith("selenium-hub-preferred-")]
    assert res["status"] == "Error"


def test_surge_evaluates_a_daemonset_template_change(run):
    # the new kube-proxy template asks for 3Gi on 1.4Gi nodes: --surge must not call it a fit
    # (the rolling update, maxSurge 0, deletes each old pod before creating its replacement)
    ds = f"{RW}/derived/eks-kube-proxy-ds-3Gi.json"
    for extra in ((), ("--surge",)):
        code, d, err = check_json(run, ds, "--cluster", EKS, *extra)
        assert code == 1, err
        (w,) = d["workloads"]
        assert (w["desired"], w["placed"], w["notPlaced"], w["verdict"]) == (2, 0, 2, "DOES NOT FIT")
        assert w["dominantReason"] == "Insufficient memory"
    assert (
        "DaemonSet: its template changes and its update (maxSurge 0, or OnDelete) deletes each old pod before it "
        "creates the new one, so --surge replaces them as without it"
    ) in w["notes"]


def test_surge_places_new_daemonset_pods_next_to_the_old_ones(run):
    # maxSurge 1: each new 1650m pod starts next to the old 100m one; on ip-10-0-10-170 (350m in
    # use with the old pod) it no longer fits, so --surge is the stricter answer
    ds = f"{RW}/derived/eks-kube-proxy-ds-surge.json"
    code, d, err = check_json(run, ds, "--cluster", EKS, "--no-preemption")
    assert code == 0, err
    assert d["workloads"][0]["replaced"] == 2
    code, d, err = check_json(run, ds, "--cluster", EKS, "--no-preemption", "--surge")
    assert code == 1, err
    (w,) = d["workloads"]
    assert (w["desired"], w["placed"], w["notPlaced"], w["replaced"]) == (2, 1, 1, 0)
    assert w["dominantReason"] == "Insufficient cpu"
    # with preemption the new pod makes room by evicting a coredns pod (lower priority)
    code, d, err = check_json(run, ds, "--cluster", EKS, "--surge")
    assert code == 0, err
    assert d["workloads"][0]["evicts"] == ["kube-system/coredns-789f8477df-psws6"]


def test_limit_range_defaults_apply_to_new_pods(run):
    # defaultRequest cpu 1 on pods that request nothing: 3 pods of 1 cpu on two 1930m nodes
    code, d, err = check_json(run, f"{RW}/derived/limitrange-cpu.yaml", "--cluster", EKS)
    assert code == 1, err
    (w,) = d["workloads"]
    assert (w["desired"], w["placed"], w["notPlaced"], w["dominantReason"]) == (3, 2, 1, "Insufficient cpu")
    assert w["notes"][0] == (
        "LimitRanger (LimitRange cpu-defaults) sets cpu request for container web; cpu limit for container web"
    )


def test_limit_range_refuses_a_pod_as_the_docs_show(run):
    # "Configure Minimum and Maximum CPU Constraints for a Namespace": the API server refuses it
    docs = f"{RW}/k8s-docs"
    code, d, err = check_json(
        run,
        f"{docs}/cpu-constraints.yaml",
        f"{docs}/cpu-constraints-pod-2.yaml",
        "--cluster",
        EKS,
        "-n",
        "constraints-cpu-example",
    )
    assert code == 1, err
    (w,) = d["workloads"]
    assert (w["verdict"], w["desired"], w["placed"], w["notPlaced"], w["refused"]) == (
        "refused by LimitRange",
        1,
        0,
        1,
        1,
    )
    assert w["message"] == (
        'pods "constraints-cpu-demo-2" is forbidden: maximum cpu usage per Container is 800m, but limit is 1500m'
    )
    assert d["results"] == []
    # schedule: the pod cannot be created at all
    r = run(
        "schedule", f"{docs}/cpu-constraints-pod-2.yaml", "--cluster", EKS, "--cluster", f"{docs}/cpu-constraints.yaml"
    )
    assert r.code == 2
    assert r.err.strip().endswith(
        'pods "constraints-cpu-demo-2" is forbidden: maximum cpu usage per Container is 800m, but limit is 1500m'
    )


def test_resource_quota_refuses_pods_beyond_it(run):
    # "Configure a Pod Quota for a Namespace": pods: 2, and a Deployment of 3 replicas
    docs = f"{RW}/k8s-docs"
    r = run(
        "check",
        f"{docs}/quota-pod.yaml",
        f"{docs}/quota-pod-deployment.yaml",
        "--cluster",
        EKS,
        "-n",
        "quota-pod-example",
    )
    assert r.code == 1, r.err
    lines = r.out.splitlines()
    assert lines[1].split() == [
        "Deployment",
        "quota-pod-example/pod-quota-demo",
        "3",
        "2",
        "1",
        "refused",
        "by",
        "quota",
        "exceeded",
        "quota:",
        "pod-demo,",
        "requested:",
        "pods=1,",
        "used:",
        "pods=2,",
        "limited:",
        "pods=2",
    ]
    assert '  pods "pod-quota-demo-' in r.out
    assert '-" is forbidden: exceeded quota: pod-demo, requested: pods=1, used: pods=2, limited: pods=2' in r.out


def test_pv_controller_binds_the_docs_volume(run):
    pv = f"{RW}/k8s-docs-pv"
    code, d, err = check_json(run, f"{pv}/pv-volume.yaml", f"{pv}/pv-claim.yaml", f"{pv}/pv-pod.yaml", "--cluster", EKS)
    assert code == 0, err
    (w,) = d["workloads"]
    assert (w["kind"], w["name"], w["verdict"]) == ("Pod", "task-pv-pod", "fits")
    assert w["notes"] == [
        "PersistentVolumeClaim default/task-pv-claim: the PV controller binds it to Available PersistentVolume "
        "task-pv-volume (Immediate binding)"
    ]


def test_pv_controller_binds_a_claim_to_the_volume_it_names(run):
    tf = f"{RW}/tf-serving"
    code, d, err = check_json(run, f"{tf}/pv.yaml", f"{tf}/pvc.yaml", f"{tf}/deployment.yaml", "--cluster", EKS)
    assert code == 0, err
    assert (
        "PersistentVolumeClaim default/my-model-pvc: the PV controller binds it to PersistentVolume my-model-pv, which it names"
        in d["workloads"][0]["notes"]
    )


def test_pv_controller_provisions_an_immediate_claim(run):
    pv = f"{RW}/k8s-docs-pv"
    code, d, err = check_json(
        run,
        f"{RW}/csi-driver-nfs/storageclass.yaml",
        f"{RW}/derived/pv-claim-nfs.yaml",
        f"{pv}/pv-pod.yaml",
        "--cluster",
        EKS,
    )
    assert code == 0, err
    assert d["workloads"][0]["notes"] == [
        "PersistentVolumeClaim default/task-pv-claim: provisioned by nfs.csi.k8s.io as PersistentVolume "
        "pvc-default-task-pv-claim (Immediate binding; the new volume has no topology)"
    ]


def test_pv_controller_leaves_a_claim_without_volume_or_provisioner_pending(run):
    # the docs' claim without its volume: on the dump, which holds no StorageClass, class "manual"
    # might exist on the cluster: unknown
    pv = f"{RW}/k8s-docs-pv"
    code, d, err = check_json(run, f"{pv}/pv-claim.yaml", f"{pv}/pv-pod.yaml", "--cluster", EKS)
    assert code == 0, err
    (w,) = d["workloads"]
    assert (w["verdict"], w["dominantReason"]) == ("unknown", "the cluster state has no StorageClasses")
    assert w["message"].startswith(
        "cannot tell: PersistentVolumeClaim default/task-pv-claim needs StorageClass manual, and the cluster state "
        "holds no StorageClass objects"
    )
    # with the cluster's StorageClasses, "manual" exists nowhere, so nothing provisions it
    code, d, err = check_json(
        run, f"{pv}/pv-claim.yaml", f"{pv}/pv-pod.yaml", "--cluster", EKS, "--cluster", EKS_STORAGE_CLASS
    )
    assert code == 1, err
    (w,) = d["workloads"]
    assert w["dominantReason"] == "pod has unbound immediate PersistentVolumeClaims"
    assert w["notes"][0].startswith(
        "PersistentVolumeClaim default/task-pv-claim: stays Pending: no Available PersistentVolume matches it, and "
        'provisioning fails: storageclass.storage.k8s.io "manual" not found'
    )


def test_hpa_min_replicas_and_hpa_max(run):
    app = f"{RW}/eks-ecommerce-app"
    args = (f"{RW}/derived/frontend-no-replicas.yaml", f"{app}/autoscaling_all-services-hpa.yaml", "--cluster", EKS)
    code, d, err = check_json(run, *args)
    assert code == 0, err
    (w,) = d["workloads"]
    assert (w["desired"], w["placed"]) == (3, 3)
    assert w["notes"][0] == (
        "HorizontalPodAutoscaler frontend-hpa (minReplicas 3, maxReplicas 15): 1 replica(s) are raised to minReplicas 3 at once"
    )
    code, d, err = check_json(run, *args, "--hpa-max")
    (w,) = d["workloads"]
    assert w["desired"] == 15
    assert (
        w["notes"][0]
        == "HorizontalPodAutoscaler frontend-hpa (minReplicas 3, maxReplicas 15): checked at maxReplicas 15 (--hpa-max)"
    )


def test_manifests_without_workloads_pass_with_a_note(run):
    app = f"{RW}/eks-ecommerce-app"
    r = run(
        "check",
        f"{app}/autoscaling_pod-disruption-budgets.yaml",
        f"{app}/security_network-policies.yaml",
        "--cluster",
        EKS,
        "--scheduler-version",
        "1.31",
    )
    assert r.code == 0, r.err
    assert r.out == (
        "note: nothing to check: the manifests hold no workloads or pods (they hold 9 NetworkPolicy, 5 PodDisruptionBudget)\n\n"
        "no workloads to check (profile default-scheduler, 2 nodes, kube-scheduler 1.31.14 from --scheduler-version)\n"
    )


OPENSHIFT_POD = f"{RW}/derived/openshift-prometheus-k8s-0-pod.json"
NODE_NAME_HINT = (
    "spec.nodeName names node worker-0.imeixner20210707.lab.upshift.rdu2.redhat.com, which is not in the cluster (a pod "
    "exported from a cluster keeps the node it ran on): drop spec.nodeName, or run with --ignore-node-name, to schedule it anew"
)


def test_exported_pod_with_node_name(run, tmp_path):
    r = run("schedule", OPENSHIFT_POD, "--cluster", f"{RW}/openshift", "-o", "json")
    assert r.code == 1
    (res,) = json.loads(r.out)["results"]
    assert res["message"].startswith("0/6 nodes are available: 6 node(s) didn't match the requested node name.")
    assert NODE_NAME_HINT in res["hints"]
    r = run("schedule", OPENSHIFT_POD, "--cluster", f"{RW}/openshift", "--ignore-node-name", "-o", "json")
    assert r.code == 0, r.err
    assert "--ignore-node-name: 1 pod(s) lose spec.nodeName and are scheduled anew" in r.err
    (res,) = json.loads(r.out)["results"]
    assert res["node"] == "ci-ln-d53y532-f76d1-2btqq-worker-b-7x8mw"
    # check: the bare pod names a node the cluster lacks (the Nodes alone cannot tell whether its
    # namespace exists: it is given)
    ns = tmp_path / "ns.yaml"
    ns.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: openshift-monitoring}\n")
    code, d, err = check_json(run, OPENSHIFT_POD, "--cluster", f"{RW}/openshift")
    assert code == 0, err
    assert d["workloads"][0]["verdict"] == "unknown"
    assert d["workloads"][0]["dominantReason"] == "the cluster state has no Namespaces"
    code, d, err = check_json(run, OPENSHIFT_POD, "--cluster", f"{RW}/openshift", "--cluster", str(ns))
    assert code == 1
    assert d["workloads"][0]["notes"] == [
        "Pod: spec.nodeName names node worker-0.imeixner20210707.lab.upshift.rdu2.redhat.com, which is not in the "
        "cluster (a pod exported from a cluster keeps its node): drop spec.nodeName, or run with --ignore-node-name, to "
        "schedule it anew"
    ]
    assert NODE_NAME_HINT in d["results"][0]["hints"]
    code, d, err = check_json(
        run, OPENSHIFT_POD, "--cluster", f"{RW}/openshift", "--cluster", str(ns), "--ignore-node-name"
    )
    assert code == 0, err
    assert d["workloads"][0]["verdict"] == "fits"


def test_dump_without_storage_classes_says_so(run):
    code, d, err = check_json(run, f"{RW}/derived/cockroachdb-statefulset.yaml", "--cluster", EKS)
    assert code == 0, err
    (w,) = d["workloads"]
    assert (w["verdict"], w["placed"], w["notPlaced"], w["pods"]) == ("unknown", 0, 0, [])
    assert w["dominantReason"] == "the cluster state has no StorageClasses"
    assert w["message"] == (
        "cannot tell: PersistentVolumeClaim default/datadir-cockroachdb-0 (and 2 more) needs the default StorageClass, "
        "and the cluster state holds no StorageClass objects (a `kubectl cluster-info dump` saves none): add them with "
        "--cluster storageclasses.yaml (`kubectl get storageclasses -o yaml > storageclasses.yaml`), or save the whole "
        "cluster state with `kwhatif snapshot`"
    )
    assert (d["summary"]["unknown"], d["summary"]["warnings"], d["summary"]["doNotFit"]) == (1, 1, 0)
    assert (
        "StatefulSet: volumeClaimTemplate datadir names no StorageClass; the cluster state holds no StorageClass objects "
        "at all (a `kubectl cluster-info dump` saves none), so the default class is unknown: save them with "
        "`kubectl get storageclasses -o yaml > storageclasses.yaml` and add --cluster storageclasses.yaml"
    ) in w["notes"]
    assert run("check", f"{RW}/derived/cockroachdb-statefulset.yaml", "--cluster", EKS, "--strict").code == 1
    r = run("check", f"{RW}/derived/cockroachdb-statefulset.yaml", "--cluster", EKS)
    assert r.code == 0
    assert r.out.splitlines()[:2] == [
        "KIND         WORKLOAD             DESIRED    PLACED    NOT PLACED    VERDICT    DOMINANT REASON",
        "StatefulSet  default/cockroachdb  3          -         -             unknown    the cluster state has no StorageClasses",
    ]
    assert r.out.splitlines()[-1] == (
        "0/0 workloads fit, 1 unknown (profile default-scheduler, 2 nodes, kube-scheduler 1.31.14 from the nodes' kubelets)"
    )
    r = run("check", f"{RW}/derived/cockroachdb-statefulset.yaml", "--cluster", EKS, "-o", "junit")
    assert (
        '<skipped message="StatefulSet default/cockroachdb: unknown (the cluster state has no StorageClasses)">'
        in r.out
    )
    # the cluster's default StorageClass (EKS's gp2) as a second --cluster: a known answer
    code, d, err = check_json(
        run, f"{RW}/derived/cockroachdb-statefulset.yaml", "--cluster", EKS, "--cluster", EKS_STORAGE_CLASS
    )
    assert code == 0, err
    (w,) = d["workloads"]
    assert (w["verdict"], w["placed"], w["notPlaced"]) == ("fits", 3, 0)
    assert d["summary"]["unknown"] == 0


def test_custom_resources_are_listed_as_not_checked(run, tmp_path):
    kp = f"{RW}/kube-prometheus"
    # the dump holds no Namespace objects: the monitoring namespace is given
    ns = tmp_path / "ns.yaml"
    ns.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring}\n")
    files = (
        f"{kp}/alertmanager-alertmanager.yaml",
        f"{kp}/prometheus-prometheus.yaml",
        f"{kp}/blackboxExporter-deployment.yaml",
        "--cluster",
        str(ns),
    )
    code, d, err = check_json(run, *files, "--cluster", EKS)
    assert code == 0, err
    rows = [(w["kind"], w["name"], w["desired"], w["verdict"]) for w in d["workloads"]]
    assert rows == [
        ("Deployment", "blackbox-exporter", 1, "fits"),
        ("Alertmanager", "main", 3, "not checked"),
        ("Prometheus", "k8s", 2, "not checked"),
    ]
    assert d["summary"]["warnings"] == 2
    r = run("check", *files, "--cluster", EKS)
    assert (
        r.out.splitlines()[-1]
        == "1/1 workloads fit, 2 not checked (profile default-scheduler, 2 nodes, kube-scheduler 1.31.14 from the nodes' kubelets)"
    )
    r = run("check", *files, "--cluster", EKS, "--strict", "-o", "github")
    assert r.code == 1
    assert r.out.splitlines()[0].startswith(
        f"::error file={kp}/alertmanager-alertmanager.yaml,line=1,title=Alertmanager monitoring/main%3A not checked (a custom resource)::"
    )
    r = run("check", *files, "--cluster", EKS, "-o", "junit")
    assert r.code == 0
    assert (
        '<skipped message="Alertmanager monitoring/main: not checked (a custom resource)">Alertmanager '
        "(monitoring.coreos.com) is a custom resource: the operator that watches it creates its pods, and kwhatif "
        "cannot tell which, so they are not checked; the manifest asks for 3 pod(s) (spec.replicas 3)</skipped>"
    ) in r.out


def test_capacity_of_a_workload_and_schedule_names_the_workload(run):
    r = run("capacity", f"{RW}/examples/selenium-hub-deployment.yaml", "--cluster", EKS, "-o", "json")
    assert r.code == 0, r.err
    d = json.loads(r.out)
    assert (d["pod"], d["fits"]) == ({"namespace": "default", "name": "selenium-hub"}, 2)
    assert "the pod template of Deployment default/selenium-hub, as its controller creates its pods" in d["notes"]
    r = run("schedule", f"{RW}/local-path-provisioner/local-path-storage.yaml", "--cluster", EKS)
    assert r.code == 2
    assert r.err.strip() == (
        f"kwhatif: error: {RW}/local-path-provisioner/local-path-storage.yaml:72: Deployment "
        "local-path-storage/local-path-provisioner: kwhatif schedule takes Pods; use `kwhatif check` for Deployment objects"
    )


def test_namespace_flag_as_kubectl_apply(run):
    argo = f"{RW}/argo-cd/install-workloads.yaml"
    code, d, err = check_json(run, argo, "--cluster", EKS, "-n", "argocd")
    assert code == 0, err
    assert [(w["namespace"], w["name"]) for w in d["workloads"]] == [
        ("argocd", "argocd-redis"),
        ("argocd", "argocd-application-controller"),
    ]
    code, d, err = check_json(run, argo, "--cluster", EKS)
    assert [w["namespace"] for w in d["workloads"]] == ["default", "default"]
    r = run("check", argo, f"{RW}/kube-prometheus/blackboxExporter-deployment.yaml", "--cluster", EKS, "-n", "argocd")
    assert r.code == 2
    assert r.err.strip() == (
        f"kwhatif: error: {RW}/kube-prometheus/blackboxExporter-deployment.yaml:1: Deployment monitoring/blackbox-exporter: "
        'the namespace from the provided object "monitoring" does not match the namespace "argocd". You must pass '
        "'--namespace=monitoring' to perform this operation."
    )


def test_daemonset_without_eligible_nodes_warns(run):
    ebs = f"{RW}/aws-ebs-csi-driver"
    code, d, err = check_json(run, f"{ebs}/node-windows.yaml", f"{ebs}/node.yaml", "--cluster", EKS)
    assert code == 0, err
    rows = [(w["name"], w["desired"], w["placed"], w["verdict"]) for w in d["workloads"]]
    assert rows == [("ebs-csi-node-windows", 0, 0, "no eligible nodes"), ("ebs-csi-node", 2, 2, "fits")]
    code, d, err = check_json(run, f"{ebs}/node-windows.yaml", f"{ebs}/node.yaml", "--cluster", EKS, "--strict")
    assert code == 1
    assert d["strict"] is True


def test_pods_only_dump_links_running_pods_to_their_deployment(run):
    so = f"{RW}/sonobuoy-aws"
    code, d, err = check_json(run, f"{so}/kube-dns-deployment.json", "--cluster", f"{so}/nodes-and-pods.json")
    assert code == 0, err
    (w,) = d["workloads"]
    assert w["replaced"] == 1
    assert w["notes"][0] == (
        "the cluster state has no Deployment kube-system/kube-dns nor its ReplicaSets: 1 running pod(s) were matched to "
        "it by their owner ReplicaSet's name (kube-dns-<hash>) and labels"
    )


def test_live_cluster_limit_ranges_quotas_and_hpas_are_read(run, tmp_path):
    # a live cluster's LimitRanges, ResourceQuotas and HPAs are listed like the other objects
    import yaml

    from tests.e2e.fake_apiserver import FakeAPIServer

    from builders import make_node

    docs = f"{RW}/k8s-docs"

    def load(path: str, ns: str) -> dict:
        obj = yaml.safe_load(open(path).read())
        obj["metadata"]["namespace"] = ns
        return obj

    objects = [
        make_node().name("n1").capacity(cpu="2", memory="4Gi", pods="110").dict(),
        load(f"{docs}/quota-pod.yaml", "quota-pod-example"),
        load(f"{docs}/cpu-constraints.yaml", "constraints-cpu-example"),
    ]
    with FakeAPIServer(objects) as api:
        kubeconfig = api.kubeconfig(str(tmp_path / "kubeconfig"))
        r = run(
            "check",
            f"{docs}/quota-pod-deployment.yaml",
            "-n",
            "quota-pod-example",
            "--kubeconfig",
            kubeconfig,
            "-o",
            "json",
        )
        assert r.code == 1, r.err
        (w,) = json.loads(r.out)["workloads"]
        assert (w["placed"], w["refused"], w["verdict"]) == (2, 1, "refused by quota")
        r = run(
            "check",
            f"{docs}/cpu-constraints-pod-2.yaml",
            "-n",
            "constraints-cpu-example",
            "--kubeconfig",
            kubeconfig,
            "-o",
            "json",
        )
        (w,) = json.loads(r.out)["workloads"]
        assert w["verdict"] == "refused by LimitRange"
        assert ("GET", "/apis/autoscaling/v2/horizontalpodautoscalers") in api.requests


def test_schedule_namespace_flag(run):
    r = run("schedule", OPENSHIFT_POD, "--cluster", f"{RW}/openshift", "-n", "monitoring")
    assert r.code == 2
    assert (
        'the namespace from the provided object "openshift-monitoring" does not match the namespace "monitoring". '
        "You must pass '--namespace=openshift-monitoring' to perform this operation." in r.err
    )
