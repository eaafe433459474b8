"""ImageLocality (pkg/scheduler/framework/plugins/imagelocality): prefer nodes that already hold
the pod's images, scaled by how widely each image is spread."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import ImageStateSummary, NodeInfo
from kwhatif.framework.interface import MAX_NODE_SCORE, SUCCESS, CycleState, ScorePlugin, Status
from kwhatif.gocompat import go_div
from kwhatif.plugins.info import Incremental, Normalize, PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Only a missing tag is filled in (":latest"); no registry or library/ prefix is added."""
    if name.rfind(":") <= name.rfind("/"):
        name = name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_nodes: int) -> int:
    spread = float(state.num_nodes) / float(total_nodes)
    return int(float(state.size) * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


class ImageLocality(ScorePlugin):
    NAME = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        b = handle.version.behaviour
        self.image_volumes = b.image_locality_counts_image_volumes  # 1.36 (#130231)
        self.image_volumes_in_threshold = b.image_locality_threshold_counts_image_volumes  # 1.37 (#138951)

    def _images(self, pod: Pod) -> tuple[list[str], int]:
        """The normalized names of the pod's images, and how many count toward the threshold."""
        names = [c.image for c in pod.init_containers + pod.containers]
        sources = len(names)
        if self.image_volumes:
            volume_images = [v.image_reference for v in pod.volumes if v.kind == "image"]
            names += volume_images
            if self.image_volumes_in_threshold:
                sources += len(volume_images)
        return [normalized_image_name(n) for n in names], sources

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        names, sources = self._images(pod)
        return _node_score(node_info, names, sources, self.handle.snapshot.num_nodes), SUCCESS

    def scores(self, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
        """Score of each of ``nodes``: the pod's images named once for all of them."""
        names, sources = self._images(pod)
        total = self.handle.snapshot.num_nodes
        # A node's score follows from which image summaries it has of the pod's images, and
        # nodes share the summaries (one per image name, cache.addNodeImageStates): worked out
        # once per distinct set of them (the snapshot holds them, so the ids are theirs).
        memo: dict[Any, int] = {}
        out = []
        one = names[0] if len(names) == 1 else None
        for ni in nodes:
            images = ni.image_states
            key = id(images.get(one)) if one is not None else tuple([id(images.get(n)) for n in names])
            score = memo.get(key)
            if score is None:
                score = memo[key] = _node_score(ni, names, sources, total)
            out.append(score)
        return out


def _node_score(node_info: NodeInfo, names: list[str], sources: int, total_nodes: int) -> int:
    images = node_info.image_states
    s = 0
    for name in names:
        st = images.get(name)
        if st is not None:
            s += scaled_image_score(st, total_nodes)
    return calculate_priority(s, sources)


def new(args: None, handle: Handle) -> ImageLocality:
    return ImageLocality(handle)


INFO = PluginInfo(NAME, column="Image", incremental=Incremental(node_score=Normalize.NONE))
