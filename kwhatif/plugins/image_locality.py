"""ImageLocality (pkg/scheduler/framework/plugins/imagelocality): prefer nodes that already hold
the pod's images, scaled by how widely each image is spread."""

from __future__ import annotations

from typing import Any

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import ImageStateSummary, NodeInfo
from kwhatif.framework.interface import MAX_NODE_SCORE, SUCCESS, CycleState, ScorePlugin, Status
from kwhatif.plugins.helper import go_div

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

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        total = self.handle.snapshot.num_nodes
        images = node_info.image_states
        s = 0
        for c in pod.init_containers + pod.containers:
            st = images.get(normalized_image_name(c.image))
            if st is not None:
                s += scaled_image_score(st, total)
        return calculate_priority(s, len(pod.init_containers) + len(pod.containers)), SUCCESS


def new(args: Any, handle: Any) -> ImageLocality:
    return ImageLocality(handle)
