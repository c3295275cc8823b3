"""Hadoop's hash functions as Hudi's bloom filters use them: reference values, and the
vectorised Murmur giving the positions of the one-key version."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from maintainer.hudi.parquet import bloom_hash

ODD_KEYS = ["é", "ab", "abc", "abcd", "日本語キー", "x" * 13, "ÿÿ", "€a", "key-000017", "🙂🙂"]


def test_jenkins_hash_matches_lookup3_reference_values() -> None:
    # the published self-test values of Bob Jenkins' lookup3.c (hashlittle)
    assert bloom_hash.jenkins_hash(b"", 0) & 0xFFFFFFFF == 0xDEADBEEF
    assert bloom_hash.jenkins_hash(b"", 0xDEADBEEF) & 0xFFFFFFFF == 0xBD5B7DDE
    assert bloom_hash.jenkins_hash(b"Four score and seven years ago", 0) & 0xFFFFFFFF == 0x17770551
    assert bloom_hash.jenkins_hash(b"Four score and seven years ago", 1) & 0xFFFFFFFF == 0xCD628161


@pytest.mark.parametrize("key", [*ODD_KEYS, "0123456789abcdef0123"])
def test_vectorised_murmur_equals_the_scalar_one(key: str) -> None:
    scalar = bloom_hash.key_positions(key.encode(), 30, 2587966)
    vector = bloom_hash.murmur_positions([key], 30, 2587966).to_pylist()
    assert sorted(vector) == sorted(scalar)
    assert all(0 <= p < 2587966 for p in scalar)


def test_positions_of_a_sliced_array_are_those_of_its_keys() -> None:
    keys = pa.array([f"k{i}" for i in range(20)])
    sliced = bloom_hash.murmur_positions(keys.slice(7, 5), 5, 1000).to_pylist()
    expected = [
        p for k in keys.slice(7, 5).to_pylist() for p in bloom_hash.key_positions(k.encode(), 5, 1000)
    ]
    assert sorted(sliced) == sorted(expected)


def test_vectorised_remainder_is_javas_abs_of_the_signed_remainder() -> None:
    hashes = [0, 1, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 2587966, 0xDEADBEEF]
    got = bloom_hash._java_abs_remainder(np.array(hashes, np.uint32), 2587966).tolist()
    signed = [h - (1 << 32) if h & 0x80000000 else h for h in hashes]
    assert got == [abs(s) % 2587966 for s in signed]


def test_keys_of_many_lengths_hash_as_one_by_one() -> None:
    keys = [*ODD_KEYS, *(f"{i}:" + "é" * (i % 9) + "x" * (i % 23) for i in range(300))]
    vector = bloom_hash.murmur_positions(pa.array(keys), 4, 99991).to_pylist()
    expected = [p for k in keys for p in bloom_hash.key_positions(k.encode(), 4, 99991)]
    assert sorted(vector) == sorted(expected)
