"""Conditional writes: local disk (rename under a guard lock), the boto3 client options, GCS
through a fake client, HDFS refused, and the check that a server honours the conditions."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from maintainer.errors import (
    ConditionalWriteUnsupportedError,
    FileExistsInStorageError,
    PreconditionFailedError,
    StorageError,
    StorageUnavailableError,
)
from maintainer.storage import Storage, conditional_store
from maintainer.storage import conditional as conditional_module
from maintainer.storage.conditional import (
    GcsConditionalStore,
    LocalConditionalStore,
    S3ConditionalStore,
    boto3_client_kwargs,
)

PATH = ".hoodie/.locks/table_lock.json"


@pytest.fixture
def local(tmp_path: Path) -> LocalConditionalStore:
    store = conditional_store(Storage(str(tmp_path)))
    assert isinstance(store, LocalConditionalStore)
    return store


@pytest.fixture(autouse=True)
def fresh_verification(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conditional_module, "_VERIFIED", set())


# -- local disk ------------------------------------------------------------------------------------


def test_local_create_read_replace(local: LocalConditionalStore, tmp_path: Path) -> None:
    assert local.read_versioned(PATH) is None
    first = local.create_if_absent(PATH, b"one")
    assert first == hashlib.sha256(b"one").hexdigest()
    found = local.read_versioned(PATH)
    assert found is not None and (found.data, found.version) == (b"one", first)
    second = local.replace_if_version(PATH, b"two", first)
    assert (tmp_path / PATH).read_bytes() == b"two" and second != first
    # only the object and its guard are left beside it (no scratch files)
    assert sorted(os.listdir(tmp_path / ".hoodie/.locks")) == [".table_lock.json.guard", "table_lock.json"]


def test_local_create_refuses_an_existing_object(local: LocalConditionalStore, tmp_path: Path) -> None:
    local.create_if_absent(PATH, b"one")
    with pytest.raises(FileExistsInStorageError):
        local.create_if_absent(PATH, b"other")
    assert (tmp_path / PATH).read_bytes() == b"one"


def test_local_replace_refuses_a_changed_or_gone_object(local: LocalConditionalStore, tmp_path: Path) -> None:
    first = local.create_if_absent(PATH, b"one")
    local.replace_if_version(PATH, b"two", first)
    with pytest.raises(PreconditionFailedError, match="it changed"):
        local.replace_if_version(PATH, b"three", first)
    (tmp_path / PATH).unlink()
    with pytest.raises(PreconditionFailedError, match="it is gone"):
        local.replace_if_version(PATH, b"three", first)
    assert not (tmp_path / PATH).exists()


def _create_or_report(root: str, data: bytes, results: Any) -> None:
    store = conditional_store(Storage(root))
    try:
        store.create_if_absent(PATH, data)
        results.put(("won", data))
    except FileExistsInStorageError:
        results.put(("refused", data))


def _replace_or_report(root: str, data: bytes, version: str, results: Any) -> None:
    store = conditional_store(Storage(root))
    try:
        store.replace_if_version(PATH, data, version)
        results.put(("won", data))
    except PreconditionFailedError:
        results.put(("refused", data))


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
@pytest.mark.parametrize("operation", ["create", "replace"])
def test_local_processes_racing_exactly_one_wins(tmp_path: Path, operation: str) -> None:
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    version = ""
    if operation == "replace":
        version = conditional_store(Storage(str(tmp_path))).create_if_absent(PATH, b"start")
    processes = []
    for n in range(8):
        data = f"writer-{n}".encode()
        if operation == "create":
            args: tuple[Any, ...] = (str(tmp_path), data, results)
            target: Any = _create_or_report
        else:
            args, target = (str(tmp_path), data, version, results), _replace_or_report
        processes.append(context.Process(target=target, args=args))
    for process in processes:
        process.start()
    for process in processes:
        process.join(30)
    outcomes = [results.get(timeout=5) for _ in processes]
    winners = [data for outcome, data in outcomes if outcome == "won"]
    assert len(winners) == 1
    assert (tmp_path / PATH).read_bytes() == winners[0]


# -- HDFS ------------------------------------------------------------------------------------------


def test_hdfs_has_no_conditional_writes() -> None:
    storage = Storage.__new__(Storage)
    storage.base_uri, storage.options = "hdfs://namenode:8020/t", {}
    storage._fs = object()
    with pytest.raises(ConditionalWriteUnsupportedError, match="hdfs:// storage") as refused:
        conditional_store(storage)
    assert "no atomic create-if-absent" in str(refused.value)


# -- the boto3 client from pyarrow options -----------------------------------------------------------


def test_boto3_kwargs_from_pyarrow_options() -> None:
    kwargs, config = boto3_client_kwargs(
        {
            "endpoint_override": "127.0.0.1:9000",
            "scheme": "http",
            "access_key": "AK",
            "secret_key": "SK",
            "session_token": "TOKEN",
            "region": "eu-west-1",
            "allow_delayed_open": True,
            "background_writes": False,
            "request_timeout": "7",
            "connect_timeout": 3,
        }
    )
    assert kwargs == {
        "endpoint_url": "http://127.0.0.1:9000",
        "aws_access_key_id": "AK",
        "aws_secret_access_key": "SK",
        "aws_session_token": "TOKEN",
        "region_name": "eu-west-1",
    }
    assert config == {"s3": {"addressing_style": "path"}, "read_timeout": 7.0, "connect_timeout": 3.0}


def test_boto3_kwargs_addressing_anonymous_proxy_and_ca() -> None:
    kwargs, config = boto3_client_kwargs({})
    assert kwargs == {} and config == {"s3": {"addressing_style": "virtual"}}
    kwargs, config = boto3_client_kwargs(
        {
            "endpoint_override": "https://minio.example:9000",
            "force_virtual_addressing": "true",
            "anonymous": "true",
            "proxy_options": "http://proxy:3128",
            "tls_ca_file_path": "/etc/ca.pem",
        }
    )
    assert kwargs == {"endpoint_url": "https://minio.example:9000", "verify": "/etc/ca.pem"}
    assert config["s3"] == {"addressing_style": "virtual"}
    assert config["proxies"] == {"http": "http://proxy:3128", "https": "http://proxy:3128"}
    from botocore import UNSIGNED

    assert config["signature_version"] is UNSIGNED


@pytest.mark.parametrize("option", ["role_arn", "no_such_option"])
def test_boto3_kwargs_refuse_what_would_be_misrouted(option: str) -> None:
    with pytest.raises(StorageError, match=option):
        boto3_client_kwargs({option: "x"})


# -- a server ignoring the conditions ----------------------------------------------------------------


class IgnoringS3Client:
    """An S3 'server' that ignores If-None-Match and If-Match (overwrites every time)."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], bytes] = {}
        self.puts: list[dict[str, Any]] = []

    def put_object(self, *, Bucket: str, Key: str, Body: bytes, **condition: str) -> dict[str, Any]:
        self.puts.append(condition)
        self.objects[(Bucket, Key)] = Body
        return {"ETag": '"' + hashlib.md5(Body).hexdigest() + '"'}


def test_an_endpoint_ignoring_if_none_match_is_refused_once_checked(tmp_path: Path) -> None:
    storage = Storage("s3://bucket/t", {"endpoint_override": "fake:1", "scheme": "http"})
    client = IgnoringS3Client()
    store = S3ConditionalStore(storage, client)
    store.create_if_absent(PATH, b"lock")
    ignoring = r"does not honour conditional writes \(If-None-Match\)"
    with pytest.raises(StorageError, match=ignoring) as refused:
        store.verify_refuses_create(PATH, b"lock")
    assert "S3 (fake:1)" in str(refused.value)
    assert client.objects[("bucket", "t/" + PATH)] == b"lock"  # the probe rewrote the same bytes
    with pytest.raises(StorageError, match=r"does not honour conditional writes \(If-Match\)"):
        store.verify_refuses_stale_replace(PATH, b"lock")


def test_the_check_costs_one_request_per_endpoint_and_kind() -> None:
    class Honouring(IgnoringS3Client):
        def put_object(self, **kwargs: Any) -> dict[str, Any]:
            from botocore.exceptions import ClientError

            self.puts.append({k: v for k, v in kwargs.items() if k.startswith("If")})
            raise ClientError(
                {"Error": {"Code": "PreconditionFailed"}, "ResponseMetadata": {"HTTPStatusCode": 412}},
                "PutObject",
            )

    client = Honouring()
    for table in ("t1", "t2", "t3"):
        store = S3ConditionalStore(Storage(f"s3://bucket/{table}", {"endpoint_override": "e:1"}), client)
        store.verify_refuses_create(PATH, b"lock")
        store.verify_refuses_stale_replace(PATH, b"lock")
    assert client.puts == [{"IfNoneMatch": "*"}, {"IfMatch": S3ConditionalStore.impossible_version}]


def test_s3_errors_are_classified() -> None:
    from botocore.exceptions import ClientError, EndpointConnectionError

    class Failing:
        def __init__(self, failure: Exception) -> None:
            self.failure = failure

        def put_object(self, **kwargs: Any) -> dict[str, Any]:
            raise self.failure

        def get_object(self, **kwargs: Any) -> dict[str, Any]:
            raise self.failure

    def answer(status: int, code: str) -> ClientError:
        return ClientError({"Error": {"Code": code}, "ResponseMetadata": {"HTTPStatusCode": status}}, "Op")

    storage = Storage("s3://bucket/t", {"endpoint_override": "e:2"})
    expected: list[tuple[Exception, type[Exception]]] = [
        (answer(412, "PreconditionFailed"), PreconditionFailedError),
        (answer(404, "NoSuchKey"), PreconditionFailedError),
        (answer(409, "ConditionalRequestConflict"), StorageUnavailableError),
        (answer(429, "TooManyRequests"), StorageUnavailableError),
        (answer(503, "SlowDown"), StorageUnavailableError),
        (EndpointConnectionError(endpoint_url="http://e:2"), StorageUnavailableError),
    ]
    for failure, error in expected:
        with pytest.raises(error):
            S3ConditionalStore(storage, Failing(failure)).replace_if_version(PATH, b"x", '"etag"')
    with pytest.raises(FileExistsInStorageError):
        S3ConditionalStore(storage, Failing(answer(412, "PreconditionFailed"))).create_if_absent(PATH, b"x")
    denied = S3ConditionalStore(storage, Failing(answer(403, "AccessDenied")))
    with pytest.raises(StorageError, match="403 AccessDenied") as raised:
        denied.create_if_absent(PATH, b"x")
    assert not isinstance(raised.value, StorageUnavailableError)
    assert S3ConditionalStore(storage, Failing(answer(404, "NoSuchKey"))).read_versioned(PATH) is None


# -- GCS through a fake client ---------------------------------------------------------------------


class FakeGcsError(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"HTTP {code}")
        self.code = code


class FakeBlob:
    def __init__(self, bucket: FakeBucket, name: str) -> None:
        self.bucket, self.name = bucket, name
        self.generation: int | None = None
        self.size: int | None = None

    def upload_from_string(self, data: bytes, if_generation_match: int) -> None:
        current = self.bucket.objects.get(self.name)
        current_generation = current[1] if current is not None else 0
        if if_generation_match != current_generation:
            raise FakeGcsError(412)
        self.bucket.clock += 1
        self.bucket.objects[self.name] = (data, self.bucket.clock)
        self.generation = self.bucket.clock

    def download_as_bytes(self, if_generation_match: int) -> bytes:
        data, generation = self.bucket.objects[self.name]
        if generation != if_generation_match:
            raise FakeGcsError(412)
        return data


class FakeBucket:
    def __init__(self) -> None:
        self.objects: dict[str, tuple[bytes, int]] = {}
        self.clock = 1_700_000_000_000_000

    def blob(self, name: str) -> FakeBlob:
        return FakeBlob(self, name)

    def get_blob(self, name: str) -> FakeBlob | None:
        if name not in self.objects:
            return None
        blob = FakeBlob(self, name)
        blob.generation = self.objects[name][1]
        blob.size = len(self.objects[name][0])
        return blob


class FakeGcsClient:
    def __init__(self) -> None:
        self.buckets: dict[str, FakeBucket] = {}

    def bucket(self, name: str) -> FakeBucket:
        return self.buckets.setdefault(name, FakeBucket())


def test_gcs_uses_generation_preconditions() -> None:
    storage = Storage.__new__(Storage)
    storage.base_uri, storage.options = "gs://bucket/t", {}
    storage._fs, storage._root = None, "bucket/t"
    client = FakeGcsClient()
    store = GcsConditionalStore(storage, client, (FakeGcsError,))
    assert store.read_versioned(PATH) is None
    first = store.create_if_absent(PATH, b"one")
    with pytest.raises(FileExistsInStorageError):
        store.create_if_absent(PATH, b"two")
    found = store.read_versioned(PATH)
    assert found is not None and (found.data, found.version) == (b"one", first)
    second = store.replace_if_version(PATH, b"two", first)
    with pytest.raises(PreconditionFailedError):
        store.replace_if_version(PATH, b"three", first)
    assert client.buckets["bucket"].objects["t/" + PATH] == (b"two", int(second))
    store.verify_refuses_create(PATH, b"two")
    store.verify_refuses_stale_replace(PATH, b"two")
    with pytest.raises(StorageError, match="is 3 bytes, more than the 2 bytes maintainer reads"):
        store.read_versioned(PATH, limit=2)
    assert store.read_versioned(PATH, limit=3) == found.__class__(b"two", second)


def test_gcs_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.cloud", None)
    with pytest.raises(StorageError, match="google-cloud-storage") as missing:
        conditional_module._gcs_client({})
    assert "pip install 'maintainer[gcs]'" in str(missing.value)


# -- bounded reads ---------------------------------------------------------------------------------


def test_local_read_within_a_limit_refuses_a_larger_object_by_its_size(
    local: LocalConditionalStore, tmp_path: Path
) -> None:
    local.create_if_absent(PATH, b"lock")
    found = local.read_versioned(PATH, limit=4)
    assert found is not None and found.data == b"lock"
    os.truncate(tmp_path / PATH, 300 * 1024 * 1024)  # sparse: its size alone refuses it
    with pytest.raises(StorageError, match="is 314,572,800 bytes, more than the 4 bytes") as raised:
        local.read_versioned(PATH, limit=4)
    assert raised.value.where == local.uri(PATH)
    assert local.read_versioned(".hoodie/.locks/absent.json", limit=4) is None


class Body:
    """A GetObject body that records how much was read."""

    def __init__(self, data: bytes) -> None:
        self.data, self.closed = data, False
        self.asked: list[int | None] = []

    def read(self, amount: int | None = None) -> bytes:
        self.asked.append(amount)
        taken = self.data if amount is None else self.data[:amount]
        self.data = self.data[len(taken) :]
        return taken

    def close(self) -> None:
        self.closed = True


class Answering:
    def __init__(self, data: bytes, length: int | None) -> None:
        self.body, self.length = Body(data), length

    def get_object(self, **kwargs: Any) -> dict[str, Any]:
        answer: dict[str, Any] = {"Body": self.body, "ETag": '"e"'}
        if self.length is not None:
            answer["ContentLength"] = self.length
        return answer


def test_s3_read_within_a_limit_reads_no_body_of_a_larger_object() -> None:
    storage = Storage("s3://bucket/t", {"endpoint_override": "e:3"})
    small = Answering(b"lock", 4)
    found = S3ConditionalStore(storage, small).read_versioned(PATH, limit=4)
    assert found is not None and found.data == b"lock" and small.body.asked == [5, 1] and small.body.closed
    large = Answering(b"x" * 10, 10)
    with pytest.raises(StorageError, match="is 10 bytes, more than the 4 bytes"):
        S3ConditionalStore(storage, large).read_versioned(PATH, limit=4)
    assert large.body.asked == [] and large.body.closed
    unsized = Answering(b"x" * 10, None)  # no length told: at most limit + 1 bytes are read
    with pytest.raises(StorageError, match="is more than the 4 bytes"):
        S3ConditionalStore(storage, unsized).read_versioned(PATH, limit=4)
    assert unsized.body.asked == [5]
