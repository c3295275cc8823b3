"""Which of the metadata table's committed files must be on storage: those of each file group's
latest slice (its newest committed base file and the log files committed after it)."""

from __future__ import annotations

from maintainer.hudi.file_groups.integrity import CommittedSize
from maintainer.hudi.metadata.storage_check import latest_slice_files

OLD_BASE = "files/files-0000-0_0-5-4_00000000000000000.hfile"
NEW_BASE = "files/files-0000-0_13-170-402_20260307162612567.hfile"
OLD_LOG = "files/.files-0000-0_20260307162611195.log.1_3-164-372"
NEW_LOG = "files/.files-0000-0_20260307162614221.log.1_10-203-493"
OTHER_GROUP_LOG = "record_index/.record-index-0001-0_20260307162604102.log.1_2-60-150"


def _committed(*paths_and_instants: tuple[str, str]) -> dict[str, CommittedSize]:
    return {p: CommittedSize(p, 100, i, ".log." in p) for p, i in paths_and_instants}


def test_the_latest_slice_is_the_newest_base_file_and_the_logs_after_it() -> None:
    committed = _committed(
        (OLD_BASE, "00000000000000000"),
        (OLD_LOG, "20260307162611195"),
        (NEW_BASE, "20260307162612567"),
        (NEW_LOG, "20260307162614221"),
    )
    assert set(latest_slice_files(committed)) == {NEW_BASE, NEW_LOG}


def test_a_file_group_without_a_committed_base_file_expects_all_its_log_files() -> None:
    committed = _committed((OTHER_GROUP_LOG, "20260307162604102"), (NEW_LOG, "20260307162614221"))
    assert set(latest_slice_files(committed)) == {OTHER_GROUP_LOG, NEW_LOG}


def test_files_that_are_not_hudi_data_files_are_not_expected() -> None:
    assert latest_slice_files(_committed(("files/notes.txt", "20260307162614221"))) == {}
