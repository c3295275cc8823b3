"""Hudi's bloom filter: sizing, dynamic row growth, serialisation."""

from __future__ import annotations

import base64
import glob
import shutil
import struct
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

from maintainer.errors import CorruptFileError, TableFormatError
from maintainer.hudi.parquet import bloom, bloom_hash
from tests.unit.hudi.parquet.test_bloom_hash import ODD_KEYS


def test_default_sizing_is_hudis() -> None:
    config = bloom.DEFAULT_CONFIG
    assert (config.vector_size, config.num_hashes) == (2587966, 30)
    assert config.type_code == bloom.DYNAMIC_V0


def test_added_keys_are_found_and_few_others_are() -> None:
    keys = [f"uuid-{i:06d}" for i in range(5000)]
    built = bloom.build_bloom_filter(keys)
    assert all(built.might_contain(k) for k in keys[::50])
    assert not any(built.might_contain(f"other-{i}") for i in range(200))


def test_serialised_filter_parses_back_to_the_same_value() -> None:
    built = bloom.build_bloom_filter(ODD_KEYS)
    parsed = bloom.parse_bloom_filter(built.serialize(), "DYNAMIC_V0")
    assert parsed == built
    assert parsed.serialize() == built.serialize()
    assert all(parsed.might_contain(k) for k in ODD_KEYS)


def test_dynamic_layout_is_header_counters_and_rows() -> None:
    built = bloom.build_bloom_filter(["a", "b", "c"])
    raw = base64.b64decode(built.serialize())
    assert struct.unpack_from(">iibi", raw, 0) == (-1, 30, 1, 2587966)
    assert struct.unpack_from(">iii", raw, 13) == (60000, 3, 1)
    assert struct.unpack_from(">iibi", raw, 25) == (-1, 30, 1, 2587966)
    assert len(raw) == 25 + 13 + (2587966 + 7) // 8


def test_simple_filter_is_one_row_without_counters() -> None:
    config = bloom.BloomFilterConfig(num_entries=100, fpp=0.01, type_code=bloom.SIMPLE)
    built = bloom.build_bloom_filter(["a", "b"], config)
    raw = base64.b64decode(built.serialize())
    assert len(raw) == 13 + (config.vector_size + 7) // 8
    assert bloom.parse_bloom_filter(built.serialize(), None) == built


def _java_dynamic_rows(keys: list[str], config: bloom.BloomFilterConfig) -> tuple[list[set[int]], int]:
    """A key-by-key model of Hudi's InternalDynamicBloomFilter.add: (bits per row, active-row keys)."""
    rows: list[set[int]] = [set()]
    current, reached_max, turn = 0, False, 0
    for key in keys:
        if reached_max:
            row = turn % len(rows)
            turn += 1
        elif current >= config.num_entries and len(rows) * config.num_entries < config.max_entries:
            rows.append(set())
            current, row = 0, len(rows) - 1
        elif current >= config.num_entries:
            reached_max, row = True, 0
        else:
            row = len(rows) - 1
        rows[row].update(bloom_hash.key_positions(key.encode(), config.num_hashes, config.vector_size))
        current += 1
    return rows, current


@pytest.mark.parametrize(
    ("count", "batch"), [(0, 1), (4, 4), (9, 2), (10, 3), (11, 4), (13, 1), (40, 7), (40, 40)]
)
def test_dynamic_rows_grow_and_wrap_as_hudi_adds_keys(count: int, batch: int) -> None:
    config = bloom.BloomFilterConfig(num_entries=4, fpp=0.05, max_entries=10)
    keys = [f"key-{i}" for i in range(count)]
    builder = bloom.BloomFilterBuilder(config)
    for start in range(0, count, batch):
        builder.add(pa.array(keys[start : start + batch]))
    built = builder.build()
    expected_rows, current = _java_dynamic_rows(keys, config)
    assert built.active_row_keys == current
    assert len(built.rows) == len(expected_rows)
    for row, expected in zip(built.rows, expected_rows, strict=True):
        bits = {i for i in range(config.vector_size) if row[i >> 3] & (1 << (i & 7))}
        assert bits == expected


def test_chunked_arrays_and_other_string_layouts_are_accepted() -> None:
    keys = ["a1", "b22", "c333", "d4444"]
    expected = bloom.build_bloom_filter(keys)
    chunked = pa.chunked_array([pa.array(keys[:2], pa.large_string()), pa.array(keys[2:], pa.large_string())])
    assert bloom.build_bloom_filter(chunked) == expected
    assert bloom.build_bloom_filter(pa.array(keys, pa.string_view())) == expected
    assert bloom.build_bloom_filter(pa.array([k.encode() for k in keys], pa.binary())) == expected
    with pytest.raises(TableFormatError, match="must be strings"):
        bloom.build_bloom_filter(pa.array([1, 2]))


def test_legacy_unversioned_simple_filter_uses_jenkins() -> None:
    vector_size, hashes = 64, 3
    bits = bytearray(8)
    for position in bloom_hash.key_positions(b"legacy", hashes, vector_size, bloom_hash.JENKINS_HASH):
        bits[position >> 3] |= 1 << (position & 7)
    text = base64.b64encode(struct.pack(">ii", hashes, vector_size) + bytes(bits)).decode()
    parsed = bloom.parse_bloom_filter(text, None)
    assert parsed.hash_type == bloom_hash.JENKINS_HASH
    assert parsed.might_contain("legacy")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("not base64!", "DYNAMIC_V0"),
        (base64.b64encode(b"\x00\x00").decode(), "DYNAMIC_V0"),
        ("AAAA", "BOGUS"),
    ],
)
def test_corrupt_footer_values_raise_corrupt_file_error(text: str, code: str) -> None:
    with pytest.raises(CorruptFileError) as info:
        bloom.parse_bloom_filter(text, code, where="p/f.parquet")
    assert "p/f.parquet" in str(info.value)


def test_trailing_bytes_are_corrupt() -> None:
    text = base64.b64encode(base64.b64decode(bloom.build_bloom_filter(["a"]).serialize()) + b"\0").decode()
    with pytest.raises(CorruptFileError, match="unexpected bytes"):
        bloom.parse_bloom_filter(text, "DYNAMIC_V0")


@pytest.mark.parametrize("keys", [["ok", None], ["ok", ""]])
def test_null_or_empty_keys_are_refused(keys: list[str | None]) -> None:
    with pytest.raises(TableFormatError):
        bloom.build_bloom_filter(pa.array(keys, pa.string()))


JAVA_SOURCE = """
import org.apache.hadoop.util.bloom.*;
import org.apache.hadoop.util.hash.Hash;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
public class HadoopBloom {
  public static void main(String[] a) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int bits = Integer.parseInt(a[0]), hashes = Integer.parseInt(a[1]), perRow = Integer.parseInt(a[2]);
    Filter f = perRow > 0 ? new DynamicBloomFilter(bits, hashes, Hash.MURMUR_HASH, perRow)
                          : new BloomFilter(bits, hashes, Hash.MURMUR_HASH);
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      f.add(new Key(line.getBytes(StandardCharsets.UTF_8)));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.write(new DataOutputStream(out));
    System.out.println(Base64.getEncoder().encodeToString(out.toByteArray()));
  }
}
"""


def _hadoop_jars() -> list[str]:
    try:
        import pyspark
    except ImportError:
        return []
    jars = Path(pyspark.__file__).parent / "jars"
    return sorted(glob.glob(str(jars / "hadoop-client-*.jar")))


@pytest.mark.slow
def test_same_bytes_as_hadoops_own_filters(tmp_path: Path) -> None:
    """Hudi's filters are Hadoop's layout and hashing: cross-check against Hadoop's classes."""
    jars = _hadoop_jars()
    if shutil.which("javac") is None or not jars:
        pytest.skip("needs a JDK and pyspark's Hadoop jars")
    (tmp_path / "HadoopBloom.java").write_text(JAVA_SOURCE)
    classpath = ":".join([*jars, str(tmp_path)])
    subprocess.run(
        ["javac", "-cp", classpath, "-d", str(tmp_path), str(tmp_path / "HadoopBloom.java")], check=True
    )
    keys = [*ODD_KEYS, *(f"row-{i}" for i in range(25))]
    stdin = "\n".join(keys) + "\n"

    def hadoop(per_row: int) -> str:
        command = ["java", "-cp", classpath, "HadoopBloom", "1000", "7", str(per_row)]
        return subprocess.run(command, input=stdin, capture_output=True, text=True, check=True).stdout.strip()

    for type_code, per_row in ((bloom.SIMPLE, 0), (bloom.DYNAMIC_V0, 6)):
        config = bloom.BloomFilterConfig(
            num_entries=per_row or 100, fpp=0.5, max_entries=10**6, type_code=type_code
        )
        builder = bloom.BloomFilterBuilder(config)
        builder.vector_size, builder.num_hashes = 1000, 7
        builder.add(keys)
        assert builder.build().serialize() == hadoop(per_row), type_code
