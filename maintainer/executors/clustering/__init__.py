"""The clustering's executor: requested -> inflight -> each group's slices read, ordered
(:mod:`.layout`) and rewritten into new file groups (:mod:`.group`, with the slice reading and
merging of :mod:`maintainer.executors.common`) -> the completed ``replacecommit``
(:mod:`.commit`), rolling back an inflight attempt first (:mod:`.executor`)."""
