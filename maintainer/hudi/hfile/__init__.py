"""HFile (version 3) reading and writing, byte for byte as Hudi's metadata table writes them.

See :mod:`maintainer.hudi.hfile.model` for the two writer styles and the layout modules
(:mod:`.blocks`, :mod:`.cells`, :mod:`.index`, :mod:`.trailer`, :mod:`.gz`) for the format.
"""

from __future__ import annotations

from maintainer.hudi.hfile.model import HFile, HFileCell, HFileStyle
from maintainer.hudi.hfile.reader import read_hfile
from maintainer.hudi.hfile.writer import DEFAULT_BLOCK_SIZE, write_hfile

__all__ = ["DEFAULT_BLOCK_SIZE", "HFile", "HFileCell", "HFileStyle", "read_hfile", "write_hfile"]
