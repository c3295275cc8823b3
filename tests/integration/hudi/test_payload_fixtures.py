"""Every instant file of every real Hudi table decodes, round-trips, and what we write reads back
with Hudi's own schemas (Avro schema resolution, as Java's SpecificDatumReader does)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import fastavro
import pytest

from maintainer.errors import CorruptFileError
from maintainer.hudi import payloads as p
from maintainer.hudi.payloads.container import is_container, read_named_container
from maintainer.hudi.payloads.schemas import (
    full_name,
    inline_named_types,
    schema_file,
    schema_text,
)
from tests.support.fixtures import REPO_ROOT, fixture_names
from tests.unit.hudi.payloads import samples

HUDI_AVSC = REPO_ROOT.parent / "shared" / "reference" / "hudi-avsc"

Decoder = Callable[[bytes, str], Any]

DECODERS: tuple[tuple[str, Decoder], ...] = (
    (".replacecommit.requested", p.decode_requested_replace_metadata),
    (".clustering.requested", p.decode_requested_replace_metadata),
    (".clustering.inflight", p.decode_requested_replace_metadata),
    (".replacecommit.inflight", p.decode_replace_commit_metadata),
    (".replacecommit", p.decode_replace_commit_metadata),
    (".compaction.requested", p.decode_compaction_plan),
    (".compaction.inflight", p.decode_compaction_plan),
    (".logcompaction.requested", p.decode_compaction_plan),
    (".logcompaction.inflight", p.decode_compaction_plan),
    (".rollback.requested", p.decode_rollback_plan),
    (".rollback.inflight", p.decode_rollback_plan),
    (".rollback", p.decode_rollback_metadata),
    (".clean.requested", p.decode_cleaner_plan),
    (".clean.inflight", p.decode_cleaner_plan),
    (".clean", p.decode_clean_metadata),
    (".savepoint.inflight", p.decode_savepoint_metadata),
    (".savepoint", p.decode_savepoint_metadata),
    (".commit.requested", p.decode_commit_metadata),
    (".deltacommit.requested", p.decode_commit_metadata),
    (".deltacommit.inflight", p.decode_commit_metadata),
    (".commit", p.decode_commit_metadata),
    (".deltacommit", p.decode_commit_metadata),
    (".inflight", p.decode_commit_metadata),
)
"""Instant-file suffix -> decoder; the first match wins (longest suffixes first)."""

UNMODELLED = (".indexing.requested", ".indexing.inflight", ".indexing")


def instant_files(table: Path) -> Iterator[Path]:
    """The instant files of a table and of its metadata table (both timeline layouts)."""
    for path in sorted((table / ".hoodie").rglob("*")):
        if path.is_file() and path.name[:1].isdigit() and path.parent.name in (".hoodie", "timeline"):
            yield path


def decoder_for(path: Path) -> Decoder | None:
    for suffix, decoder in DECODERS:
        if path.name.endswith(suffix):
            return decoder
    assert path.name.endswith(UNMODELLED), f"no decoder for {path}"
    return None


def strip_comments(text: str) -> str:
    """JSON text without ``//`` and ``/* */`` comments (outside strings), as in Hudi's .avsc files."""
    out: list[str] = []
    index, in_string = 0, False
    while index < len(text):
        char = text[index]
        if in_string:
            out.append(text[index : index + 2] if char == "\\" else char)
            in_string = char != '"'
            index += 2 if char == "\\" else 1
        elif char == '"':
            in_string = True
            out.append(char)
            index += 1
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = len(text) if end < 0 else end + 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _collect_named(schema: Any, namespace: str | None, into: dict[str, dict[str, Any]]) -> None:
    if isinstance(schema, list):
        for branch in schema:
            _collect_named(branch, namespace, into)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind in ("record", "enum", "fixed"):
            name = full_name(schema["name"], schema.get("namespace", namespace))
            into.setdefault(name, schema)
            for field in schema.get("fields", []):
                _collect_named(field["type"], name.rsplit(".", 1)[0], into)
        elif kind == "array":
            _collect_named(schema["items"], namespace, into)
        elif kind == "map":
            _collect_named(schema["values"], namespace, into)
        elif isinstance(kind, (dict, list)):
            _collect_named(kind, namespace, into)


@cache
def hudi_definitions() -> dict[str, dict[str, Any]]:
    """Every named type defined in Hudi's .avsc files (schemas taken from real files win)."""
    if not HUDI_AVSC.is_dir():
        pytest.skip(f"Hudi's reference schemas not found at {HUDI_AVSC}")
    files = sorted(HUDI_AVSC.glob("*.avsc"), key=lambda f: ("from_real_file" not in f.name, f.name))
    definitions: dict[str, dict[str, Any]] = {}
    for file in files:
        _collect_named(json.loads(strip_comments(file.read_text())), None, definitions)
    return definitions


@cache
def hudi_schema_text(name: str) -> str:
    """Hudi's schema of ``name``, self-contained (types Hudi's copies lack, e.g. the deprecated
    HoodieCompactionMetadata, from ours)."""
    definitions = hudi_definitions()

    def resolve(qualified: str) -> dict[str, Any]:
        return definitions.get(qualified) or schema_file(qualified)

    return json.dumps(inline_named_types(full_name(name), resolve))


@cache
def hudi_reader_schema(name: str) -> Any:
    """Hudi's schema of ``name`` parsed for use as a fastavro reader schema."""
    return fastavro.parse_schema(json.loads(hudi_schema_text(name)))


def restricted(record: dict[str, Any], keys: Any) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key in keys}


def check_avro_file(path: Path, data: bytes, model: Any) -> None:
    original = p.read_container(data, str(path))
    record = model.to_record()
    assert restricted(record, original) == original, path
    assert set(original) <= set(record), f"{path}: fields our schema lacks: {set(original) - set(record)}"
    written = p.write_container(model.SCHEMA, record)
    assert p.write_container(model.SCHEMA, record) == written, "not deterministic"
    assert p.read_container(written, "written") == record, path
    resolved = next(fastavro.reader(io.BytesIO(written), reader_schema=hudi_reader_schema(model.SCHEMA)))
    assert resolved == restricted(record, resolved), path


def check_json_file(path: Path, data: bytes, model: Any) -> None:
    assert json.loads(model.to_json_bytes()) == json.loads(data), path
    assert model.to_json_bytes() == data, f"{path}: JSON not byte-identical"


def check_unmodelled(path: Path, data: bytes) -> None:
    if not data:
        return
    writer_name, record = read_named_container(data, str(path))
    written = p.write_container(writer_name, record)
    assert p.read_container(written, "written") == record, path
    resolved = next(fastavro.reader(io.BytesIO(written), reader_schema=hudi_reader_schema(writer_name)))
    assert resolved == record, path


@pytest.mark.fixtures
@pytest.mark.parametrize("name", fixture_names())
def test_every_instant_file_decodes_and_round_trips(name: str, fixture_table: Any) -> None:
    table = fixture_table(name)
    counted = 0
    for path in instant_files(table.path):
        data = path.read_bytes()
        decoder = decoder_for(path)
        if decoder is None:
            check_unmodelled(path, data)
            continue
        model = decoder(data, str(path))
        counted += 1
        if not data.strip():
            assert model is None or model == type(model).empty(), path
        elif is_container(data):
            check_avro_file(path, data, model)
        else:
            check_json_file(path, data, model)
    assert counted > 0 or "empty" in name


@pytest.mark.fixtures
def test_v6_rollback_plan_fields(fixture_table: Any) -> None:
    table = fixture_table("sample_table_mor_parquet_v6_nonpartitioned_rollback")
    [path] = (table.path / ".hoodie").glob("*.rollback.requested")
    plan = p.decode_rollback_plan(path.read_bytes(), str(path))
    assert plan is not None and plan.instant_to_rollback is not None
    assert plan.instant_to_rollback.action == "deltacommit"
    assert plan.rollback_requests is not None
    log_request = next(r for r in plan.rollback_requests if r.log_blocks_to_be_deleted)
    assert log_request.latest_base_instant == "20250126040823628"
    assert all(size > 0 for size in (log_request.log_blocks_to_be_deleted or {}).values())


@pytest.mark.fixtures
def test_v6_delta_commit_write_stats_are_typed(fixture_table: Any) -> None:
    table = fixture_table("sample_table_mor_parquet_v6_nonpartitioned_rollback")
    path = table.path / ".hoodie" / "20250126060846931.deltacommit"
    metadata = p.decode_commit_metadata(path.read_bytes(), str(path))
    [stat] = list(metadata.write_stats())
    assert stat.is_log_write and stat.log_version == 3
    assert stat.base_file is not None and stat.base_file.endswith(".parquet")
    assert stat.log_files is not None and len(stat.log_files) == 3
    assert stat.extra == {"recordsStats": {"val": None}}
    assert metadata.operation_type == "UPSERT" and metadata.table_schema is not None


@pytest.mark.fixtures
def test_v6_replace_commit_lists_replaced_file_groups(fixture_table: Any) -> None:
    table = fixture_table("sample_table_cow_v6_simplekeygen_nonhivestyle_overwritetable")
    [path] = (table.path / ".hoodie").glob("*.replacecommit")
    metadata = p.decode_replace_commit_metadata(path.read_bytes(), str(path))
    assert metadata.operation_type == "INSERT_OVERWRITE_TABLE"
    assert {partition for partition, _ in metadata.replaced_file_ids()} == {"10", "20", "30"}


@pytest.mark.fixtures
def test_v9_clustering_plan_names_its_file_groups(fixture_table: Any) -> None:
    table = fixture_table("sample_table_mor_avro_v9_txns_complex_meta")
    paths = sorted((table.path / ".hoodie" / "timeline").glob("*.clustering.requested"))
    assert paths
    metadata = p.decode_requested_replace_metadata(paths[0].read_bytes(), str(paths[0]))
    assert metadata is not None and metadata.operation_type == "CLUSTER"
    groups = metadata.file_groups()
    assert groups and all(file_id for _, file_id in groups)


@pytest.mark.parametrize("make", samples.AVRO_SAMPLES.values(), ids=samples.AVRO_SAMPLES.keys())
def test_what_we_write_reads_with_hudis_schemas(make: Callable[[], Any]) -> None:
    model = make()
    written = p.encode_avro(model)
    reader = fastavro.reader(io.BytesIO(written), reader_schema=hudi_reader_schema(model.SCHEMA))
    [resolved] = list(reader)
    assert isinstance(resolved, dict)
    assert resolved == restricted(model.to_record(), resolved)
    assert set(resolved) == set(model.to_record()) - fields_hudi_lacks(model.SCHEMA)


def fields_hudi_lacks(name: str) -> set[str]:
    """Fields of ours that Hudi's reference copy of ``name`` does not have (none expected)."""
    hudi = hudi_definitions().get(full_name(name))
    assert hudi is not None, f"Hudi defines no {name}"
    return {field["name"] for field in schema_file(name)["fields"]} - {f["name"] for f in hudi["fields"]}


def shape(schema: Any, namespace: str) -> Any:
    """A type reduced to what decides compatibility: names qualified, named types by name only,
    properties (doc, avro.java.string, stray defaults inside types) dropped."""
    if isinstance(schema, list):
        return [shape(branch, namespace) for branch in schema]
    if isinstance(schema, str):
        return schema if schema in PRIMITIVES else full_name(schema, namespace)
    kind = schema["type"]
    if kind in ("record", "enum", "fixed"):
        return full_name(schema["name"], schema.get("namespace", namespace))
    if kind == "array":
        return {"array": shape(schema["items"], namespace)}
    if kind == "map":
        return {"map": shape(schema["values"], namespace)}
    return shape(kind, namespace)


PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
OURS_ONLY = {"HoodieCompactionMetadata", "HoodieCompactionWriteStat", "HoodieDeleteRecordList"}


@pytest.mark.parametrize(
    "name",
    sorted(f.stem for f in (REPO_ROOT / "schemas" / "avro").glob("*.avsc") if f.stem not in OURS_ONLY),
)
def test_our_schemas_have_hudis_fields_types_and_defaults(name: str) -> None:
    hudi = hudi_definitions().get(full_name(name))
    assert hudi is not None, f"Hudi defines no {name}"
    ours = schema_file(name)
    namespace = "org.apache.hudi.avro.model"

    def fields(definition: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [
            (f["name"], shape(f["type"], namespace), f.get("default", "<none>")) for f in definition["fields"]
        ]

    assert fields(ours) == fields(hudi)


ORACLE_FIXTURES = [
    "sample_table_mor_parquet_v6_nonpartitioned_rollback",
    "quickstart_trips_table_mor_avro_v8_trips_8i3u1d",
    "sample_table_cow_v9_txns_simple_overwrite",
    "sample_table_mor_avro_v9_txns_complex_meta",
]


def reencode(path: Path) -> bytes:
    """The file's bytes after decoding into our model and encoding again (our schema, our sync)."""
    data = path.read_bytes()
    decoder = decoder_for(path)
    if decoder is None or not data.strip():
        return data
    model = decoder(data, str(path))
    return p.encode_avro(model) if is_container(data) else model.to_json_bytes()


@pytest.mark.fixtures
@pytest.mark.parametrize("name", ORACLE_FIXTURES)
def test_hudi_rs_reads_a_table_whose_instant_files_we_rewrote(name: str, fixture_copy: Any) -> None:
    from tests.support import oracle

    table = fixture_copy(name)
    before = oracle.snapshot_rows(table.path)
    commits = oracle.completed_commit_times(table.path)
    first = oracle.snapshot_rows(table.path, as_of=commits[0])
    rewritten = 0
    for path in instant_files(table.path):
        data = reencode(path)
        if data != path.read_bytes():
            path.write_bytes(data)
            rewritten += 1
    assert rewritten > 0
    assert oracle.snapshot_rows(table.path) == before
    assert oracle.completed_commit_times(table.path) == commits
    assert oracle.snapshot_rows(table.path, as_of=commits[0]) == first


@pytest.mark.fixtures
def test_a_truncated_real_plan_is_a_corrupt_file_error_naming_it(fixture_copy: Any) -> None:
    table = fixture_copy("quickstart_trips_table_mor_avro_v8_trips_8i3u1d")
    [path] = (table.path / ".hoodie" / "timeline").glob("*.compaction.requested")
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(CorruptFileError) as error:
        p.decode_compaction_plan(path.read_bytes(), str(path))
    assert str(path) in str(error.value) and "hint:" in str(error.value)


JAVA_SAMPLES = {key: make for key, make in samples.AVRO_SAMPLES.items() if key != "lsm_timeline_instant"}


@pytest.mark.spark
def test_java_avro_reads_what_we_write_with_hudis_schemas(spark: Any) -> None:
    """Java's Avro (the one Hudi uses) parses our embedded schemas and resolves our containers
    against Hudi's schemas, as SpecificDatumReader does."""
    avro = spark._jvm.org.apache.avro
    for key, make in JAVA_SAMPLES.items():
        model = make()
        reader_schema = avro.Schema.Parser().parse(hudi_schema_text(model.SCHEMA))
        datum_reader = avro.generic.GenericDatumReader(None, reader_schema)
        written = bytearray(p.encode_avro(model))
        file_reader = avro.file.DataFileReader(avro.file.SeekableByteArrayInput(written), datum_reader)
        assert (
            file_reader.getSchema().toString()
            == avro.Schema.Parser().parse(schema_text(model.SCHEMA)).toString()
        )
        record = json.loads(file_reader.next().toString())
        assert not file_reader.hasNext(), key
        assert record == json.loads(json.dumps(model.to_record())), key
