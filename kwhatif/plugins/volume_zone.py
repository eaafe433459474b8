"""VolumeZone (pkg/scheduler/framework/plugins/volumezone): a pod's bound volumes must be in the
zone and region of the node, read from the zone/region labels of their PVs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
from kwhatif.api.storage import (
    LABEL_BETA_REGION,
    LABEL_BETA_ZONE,
    LABEL_MULTI_ZONE_DELIMITER,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
)
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import (
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    PreFilterPlugin,
    PreFilterResult,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.plugins.info import Hints, PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "VolumeZone"
PRE_FILTER_STATE_KEY: StateKey[_StateData] = StateKey("PreFilter" + NAME)
# volume_zone.go
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

# The PV labels read, in upstream's order: beta zone, beta region, GA zone, GA region.
TOPOLOGY_LABELS = (LABEL_BETA_ZONE, LABEL_BETA_REGION, LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
_GA_LABEL = {LABEL_BETA_ZONE: LABEL_TOPOLOGY_ZONE, LABEL_BETA_REGION: LABEL_TOPOLOGY_REGION}

WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


@dataclass(frozen=True, slots=True)
class PVTopology:
    pv_name: str
    key: str
    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class _StateData:
    topologies: tuple[PVTopology, ...]

    def clone(self) -> _StateData:
        return self


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """volumehelpers.LabelZonesToSet: "__"-separated zones; None when one of them is empty."""
    zones = set()
    for zone in value.split(LABEL_MULTI_ZONE_DELIMITER):
        zone = zone.strip()
        if not zone:
            return None
        zones.add(zone)
    return frozenset(zones)


def _unresolvable(msg: str) -> Status:
    return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)


class VolumeZone(PreFilterPlugin, FilterPlugin):
    NAME = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def _pv_topologies(self, pod: Pod) -> tuple[tuple[PVTopology, ...], Status]:
        """getPVbyPod: the zone/region labels of every PV bound to the pod's claims."""
        cluster = self.handle.cluster
        out: list[PVTopology] = []
        for vol in pod.volumes:
            if vol.kind != "persistentVolumeClaim":
                continue
            if not vol.claim_name:
                return (), _unresolvable("PersistentVolumeClaim had no name")
            pvc = cluster.pvcs.get(f"{pod.namespace}/{vol.claim_name}")
            if pvc is None:
                return (), _unresolvable(f'persistentvolumeclaim "{vol.claim_name}" not found')
            if not pvc.volume_name:
                class_name = pvc.storage_class_name or ""
                if not class_name:
                    return (), _unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
                sc = cluster.storage_classes.get(class_name)
                if sc is None:
                    return (), _unresolvable(f'storageclass.storage.k8s.io "{class_name}" not found')
                if sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER:
                    continue  # bound later, in a zone VolumeBinding chooses with the node
                return (), _unresolvable("PersistentVolume had no name")
            pv = cluster.pvs.get(pvc.volume_name)
            if pv is None:
                return (), _unresolvable(f'persistentvolume "{pvc.volume_name}" not found')
            for key in TOPOLOGY_LABELS:
                value = pv.labels.get(key)
                if value is None:
                    continue
                zones = label_zones_to_set(value)
                if zones is None:
                    continue  # upstream logs the malformed label and ignores it
                out.append(PVTopology(pv.name, key, zones))
        return tuple(out), SUCCESS

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        topologies, status = self._pv_topologies(pod)
        if not status.is_success():
            return None, status
        if not topologies:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _StateData(topologies))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not pod.volumes:
            return SUCCESS
        try:
            topologies = state.read(PRE_FILTER_STATE_KEY).topologies
        except StateNotFoundError:
            topologies, status = self._pv_topologies(pod)
            if not status.is_success():
                return status
        labels = node_info.node.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return SUCCESS  # a node without topology labels accepts any zone
        for t in topologies:
            # A beta PV label also matches the node's GA label; a GA PV label needs the GA label.
            value = labels.get(t.key)
            if value is None:
                value = labels.get(_GA_LABEL.get(t.key, t.key))
            if value is None or value not in t.values:
                return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        return SUCCESS


def new(args: None, handle: Handle) -> VolumeZone:
    return VolumeZone(handle)


INFO = PluginInfo(
    NAME,
    sarif_help="The pods' volumes are in zones where no node takes the pods.",
    hints=Hints(
        10,
        fixed={
            ERR_REASON_CONFLICT: (
                "fail only the zone and region labels of the pod's PersistentVolumes (a volume zone conflict)"
            ),
        },
    ),
)
