"""The query service's LRU cache of stored vectors."""
from __future__ import annotations

import numpy as np

from services.query.vector_cache import VectorCache


def test_lru_eviction_and_content_keys():
    c = VectorCache(max_items=2)
    c.put(("chunks", "a", "s1"), [1.0, 0.0])
    c.put(("chunks", "b", "s1"), [0.0, 1.0])
    assert c.get(("chunks", "a", "s1")) is not None  # a is now most recent
    c.put(("chunks", "c", "s1"), [1.0, 1.0])
    assert c.get(("chunks", "b", "s1")) is None and len(c) == 2
    assert c.get(("chunks", "a", "s2")) is None  # new content under the same id: no stale hit
    assert c.get(("chunks", "a", "s1")).dtype == np.float32
