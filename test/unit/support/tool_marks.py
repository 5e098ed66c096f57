"""The one skip mark for tests that need external tools (llc-22, SPIRV-Tools): the reason names
the missing tool, and conftest.py turns such a skip into a failure in CI."""
import pytest

from clcoop.errors import ToolMissing
from clcoop.spirv.tools import find_tool


def missing_tool(*tools):
    """The message for the first of `tools` that is not installed, or None."""
    for tool in tools:
        try:
            find_tool(tool)
        except ToolMissing as exc:
            return str(exc)
    return None


def needs_tools(*tools):
    """A pytest mark skipping the test (or module, as `pytestmark`) when a tool is missing."""
    reason = missing_tool(*tools)
    return pytest.mark.skipif(reason is not None, reason=str(reason))
