"""The incremental engine: scheduling cycles that reuse the work of earlier ones.

Placing many pods on a big cluster repeats nearly all of a cycle's work: identical replicas
compute the same PreFilter and PreScore state, and a placement changes one node. The engine
keeps, per pod template (a pod without what tells replicas apart) and profile:

* the PreFilter and PreScore aggregates of PodTopologySpread and InterPodAffinity, updated as
  pods are added to and removed from the snapshot (upstream's AddPod/RemovePod shape) instead
  of recounted over every pod;
* every node's filter result, kept while neither the node nor the state its plugins read has
  changed; only changed nodes are filtered again, and only the plugin whose state moved is
  re-run on the nodes that state touches. PodTopologySpread answers the same for every node of
  a group (a zone): it is filtered once per group whose domains or minimum moved, and a group
  whose answer flips (DoNotSchedule spreading as the minimum moves) takes it in bulk, from the
  results its nodes had the last time it gave that answer;
* every node's raw score of the plugins that read only the node, and normalization, weights and
  totals computed over vectors (numpy).

The results are exactly those of evaluating every cycle from scratch, which stays available
(``Options(incremental=False)``) and is what the engine is tested against. Anything the engine
does not know to be safe (an unknown plugin, a volume plugin that does not skip, a pod with a
nominated node, a PreFilterResult subset) is evaluated from scratch.
"""
